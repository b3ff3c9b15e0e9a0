/**
 * @file exercise.cu
 * @brief Exercise 06: step 06's shared tile, transposed on the way IN to shared memory instead of
 *        on the way out.
 *
 * Step 06 stores rows of `in` into rows of `tile` and reads the tile back by
 * columns. Write the mirror image: store each row of `in` into a column of
 * `tile`, then read the tile by rows. Then find out, with Nsight Compute,
 * where the bank conflict went and what it costs there. The task, hints and
 * what speed to expect are in exercises/06_shared/README.md.
 *
 * Grade: `make grade EX=06`. Until the TODO is done the kernel writes
 * nothing, and the grader reports FAIL.
 */
#include "harness.h"
#include "kernel_utils.cuh"

/** Side of the square tile; also blockDim.x. */
#define TILE 32
/** Threads per block down the tile; each thread moves TILE / BLOCK_ROWS elements. */
#define BLOCK_ROWS 8

static_assert(TILE % BLOCK_ROWS == 0, "the block's rows must cover the tile exactly");

/**
 * @brief Transpose through an unpadded TILE x TILE shared tile, transposing
 *        on the store into shared memory (step 06 transposes on the load).
 */
static __global__ void transpose_shared_store_side(const float *__restrict__ in, float *__restrict__ out,
                                                   size_t rows, size_t cols)
{
    // TODO(exercise 06): start from transpose_shared() in steps/06_shared/shared.cu.
    //  - __shared__ float tile[TILE][TILE]; no padding.
    //  - Walk the tiles with grid-stride loops (blockIdx.x along a row of `in`,
    //    as in the launcher).
    //  - In: thread (x, y) reads rows r = y, y + BLOCK_ROWS, ... of the tile
    //    from `in` (a warp reads along a row: coalesced) and keeps element
    //    (r, x) at tile[x][r].
    //  - __syncthreads().
    //  - Out: which element of the tile is element (r, x) of the transposed
    //    tile now? Read it along a row of `tile` and write it along a row of
    //    `out` (coalesced).
    //  - __syncthreads() before the next tile.
    // Edge tiles: only elements inside the matrix are read and written.
    (void)in;
    (void)out;
    (void)rows;
    (void)cols;
}

/** @brief Launch transpose_shared_store_side() with 32 x 8 blocks, one tile each. */
static size_t launch_shared_store_side(const float *in, float *out, size_t rows, size_t cols,
                                       cudaStream_t stream)
{
    const dim3 block(TILE, BLOCK_ROWS);
    const dim3 grid = grid_for_tiles(ceil_div(cols, TILE), ceil_div(rows, TILE));
    transpose_shared_store_side<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief Your kernel, as the grader (lab/grade_main.cu) links it: not static. */
extern "C" const kernel_variant exercise_06 = {
    "shared_store_side", "your kernel: 32x32 unpadded shared tile, transposed on the store",
    launch_shared_store_side, ANY_GPU,
};
