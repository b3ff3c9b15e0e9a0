/**
 * @file solution.cu
 * @brief Reference solution to exercise 04: unroll in two directions, a 64 x 64 tile per block
 *        held in registers, no shared memory.
 *
 * Step 04 gives each thread UNROLL elements of one output column. Here each
 * thread of a 32 x 8 block moves a 8 x 2 grid of elements: 8 output rows,
 * BLOCK_ROWS apart, in each of 2 output columns, BLOCK_COLS apart. The block
 * covers a 64 x 64 tile of `out`, the tile size step 09 stages in shared
 * memory, but every access goes straight to global memory: writes are
 * coalesced (32 consecutive floats of an output row per warp), reads are
 * strided. All 16 loads are issued before the first store.
 *
 * Task: exercises/04_unroll/README.md. Grade: `make grade EX=04`.
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
    const size_t tiles_y = ceil_div(cols, TILE);  // tiles down `out` (cols x rows)
    const size_t tiles_x = ceil_div(rows, TILE);  // tiles along a row of `out`
    for (size_t tile_y = blockIdx.y; tile_y < tiles_y; tile_y += gridDim.y) {
        for (size_t tile_x = blockIdx.x; tile_x < tiles_x; tile_x += gridDim.x) {
            const size_t out_row0 = tile_y * TILE + threadIdx.y;  // first output row (= column of `in`)
            const size_t out_col0 = tile_x * TILE + threadIdx.x;  // first output column (= row of `in`)
            float v[ROWS_PER_THREAD][COLS_PER_THREAD];
            // All loads first: the 16 are independent, so all are in flight together.
#pragma unroll
            for (int i = 0; i < ROWS_PER_THREAD; ++i) {
#pragma unroll
                for (int j = 0; j < COLS_PER_THREAD; ++j) {
                    const size_t out_row = out_row0 + (size_t)i * BLOCK_ROWS;
                    const size_t out_col = out_col0 + (size_t)j * BLOCK_COLS;
                    v[i][j] = (out_row < cols && out_col < rows) ? in[out_col * cols + out_row] : 0.0f;
                }
            }
            // Then all stores: each is 32 consecutive floats of one output row per warp.
#pragma unroll
            for (int i = 0; i < ROWS_PER_THREAD; ++i) {
#pragma unroll
                for (int j = 0; j < COLS_PER_THREAD; ++j) {
                    const size_t out_row = out_row0 + (size_t)i * BLOCK_ROWS;
                    const size_t out_col = out_col0 + (size_t)j * BLOCK_COLS;
                    if (out_row < cols && out_col < rows)
                        out[out_row * rows + out_col] = v[i][j];
                }
            }
        }
    }
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

/** @brief The reference kernel, as the grader (lab/grade_main.cu) links it: not static. */
extern "C" const kernel_variant solution_04 = {
    "unroll_64x64", "16 elements per thread (8 rows x 2 columns), 32x8 blocks on 64x64 tiles",
    launch_unroll_2d, ANY_GPU,
};
