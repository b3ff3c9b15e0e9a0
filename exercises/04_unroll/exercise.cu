/**
 * @file exercise.cu
 * @brief Exercise 04: unroll in two directions, a 64 x 64 output tile per 32 x 8 block,
 *        16 elements per thread, no shared memory.
 *
 * Step 04 gives each thread UNROLL elements of one output column. Give each
 * thread a ROWS_PER_THREAD x COLS_PER_THREAD grid of elements instead, and
 * issue all 16 loads before the first store. The task, hints and what speed
 * to expect are in exercises/04_unroll/README.md.
 *
 * Grade: `make grade EX=04`. Until the TODO is done the kernel writes
 * nothing, and the grader reports FAIL.
 */
#include "harness.h"
#include "kernel_utils.cuh"

/** Side of the square tile of `out` that one block covers. */
#define TILE 64
/** Threads per block along a row of the output (one warp). */
#define BLOCK_COLS 32
/** Threads per block down the output. */
#define BLOCK_ROWS 8
/** Output columns each thread moves, BLOCK_COLS apart. */
#define COLS_PER_THREAD (TILE / BLOCK_COLS)
/** Output rows each thread moves, BLOCK_ROWS apart. */
#define ROWS_PER_THREAD (TILE / BLOCK_ROWS)

static_assert(TILE % BLOCK_COLS == 0 && TILE % BLOCK_ROWS == 0,
              "the block must tile the 64 x 64 tile exactly");

/**
 * @brief Each thread moves ROWS_PER_THREAD x COLS_PER_THREAD elements of a
 *        TILE x TILE tile of `out`: all loads into registers, then all stores.
 */
static __global__ void transpose_unroll_2d(const float *__restrict__ in, float *__restrict__ out,
                                           size_t rows, size_t cols)
{
    // TODO(exercise 04): start from transpose_unrolled() in steps/04_unroll/unroll.cu.
    //  - `out` is cols x rows; walk its TILE x TILE tiles with grid-stride
    //    loops (how many tiles across, how many down?).
    //  - Thread (x, y) of a tile moves output rows y + i * BLOCK_ROWS
    //    (i < ROWS_PER_THREAD) of output columns x + j * BLOCK_COLS
    //    (j < COLS_PER_THREAD): a warp then always stores 32 consecutive floats.
    //  - First load all of them into float v[ROWS_PER_THREAD][COLS_PER_THREAD]
    //    (0.0f for elements outside the matrix), then store the ones inside.
    //  - Fixed trip counts and #pragma unroll keep v in registers.
    (void)in;
    (void)out;
    (void)rows;
    (void)cols;
}

/** @brief Launch transpose_unroll_2d() with 32 x 8 blocks, one 64 x 64 output tile each. */
static size_t launch_unroll_2d(const float *in, float *out, size_t rows, size_t cols,
                               cudaStream_t stream)
{
    const dim3 block(BLOCK_COLS, BLOCK_ROWS);
    const dim3 grid = grid_for_tiles(ceil_div(rows, TILE), ceil_div(cols, TILE));
    transpose_unroll_2d<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief Your kernel, as the grader (lab/grade_main.cu) links it: not static. */
extern "C" const kernel_variant exercise_04 = {
    "unroll_64x64", "your kernel: 16 elements per thread on 64x64 tiles, no shared memory",
    launch_unroll_2d, ANY_GPU,
};
