/**
 * @file exercise.cu
 * @brief Exercise 07: the padded 32 x 32 shared tile with a 32 x 16 block, two elements per thread.
 *
 * Step 07 pads the tile to `tile[32][33]` and moves it with a 32 x 8 block,
 * four elements per thread. Keep the tile and the padding, change the block
 * to 32 x 16. The task, hints and what speed to expect are in
 * exercises/07_shared_padded/README.md.
 *
 * Grade: `make grade EX=07`. Until the TODO is done the kernel writes
 * nothing, and the grader reports FAIL.
 */
#include "harness.h"
#include "kernel_utils.cuh"

/** Side of the square tile; also blockDim.x. */
#define TILE 32
/** Threads per block down the tile; each thread moves TILE / BLOCK_ROWS elements. */
#define BLOCK_ROWS 16
/** One padding column: a column of the tile then spans all 32 banks. */
#define PAD 1

static_assert(TILE % BLOCK_ROWS == 0, "the block's rows must cover the tile exactly");

/**
 * @brief Transpose through a padded TILE x TILE shared tile with a
 *        TILE x BLOCK_ROWS block, TILE / BLOCK_ROWS elements per thread.
 */
static __global__ void transpose_shared_padded_32x16(const float *__restrict__ in,
                                                     float *__restrict__ out,
                                                     size_t rows, size_t cols)
{
    // TODO(exercise 07): start from step 07's kernel (steps/07_shared_padded/).
    //  - Thread (x, y) loads tile rows y, y + BLOCK_ROWS, ... (TILE / BLOCK_ROWS
    //    of them): write the loop as `for (int i = 0; i < TILE; i += BLOCK_ROWS)`
    //    with r = threadIdx.y + i, so that the trip count is a constant and the
    //    compiler unrolls it.
    //  - Nothing in the kernel should assume BLOCK_ROWS == 8: change the
    //    constant to 8 or 32 and it must still pass.
    //  - Two __syncthreads() per tile, as always with grid-stride loops.
    (void)in;
    (void)out;
    (void)rows;
    (void)cols;
}

/** @brief Launch transpose_shared_padded_32x16() with 32 x 16 blocks, one tile each. */
static size_t launch_shared_padded_32x16(const float *in, float *out, size_t rows, size_t cols,
                                         cudaStream_t stream)
{
    const dim3 block(TILE, BLOCK_ROWS);
    const dim3 grid = grid_for_tiles(ceil_div(cols, TILE), ceil_div(rows, TILE));
    transpose_shared_padded_32x16<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief Your kernel, as the grader (tools/grade_main.cu) links it: not static. */
extern "C" const kernel_variant exercise_07 = {
    "padded_32x16", "your kernel: 32x32 shared tile padded to 33 columns, 32x16 block",
    launch_shared_padded_32x16, ANY_GPU,
};
