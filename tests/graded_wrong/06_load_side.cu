// Caught by: Technique (Nsight Compute: the bank conflict is still on the shared loads, as in step 06)
/**
 * @file 06_load_side.cu
 * @brief Step 06's own kernel handed in for exercise 06: the tile is written by rows and
 *        read by columns, so the 32-way bank conflict stays on the shared-memory loads
 *        instead of moving to the stores as the task asks.
 *
 * Correct, race-free, as fast as the reference, and its compiled code looks like the
 * reference's (same tile, same barriers, same number of shared loads and stores).
 * Only the counters tell: shared store wavefronts per request are 1 instead of 32.
 * Without Nsight Compute the grader cannot catch it and says so (a SKIP line under
 * Technique). tests/test_grader.py grades it where ncu is present.
 */
#include "harness.h"
#include "kernel_utils.cuh"

/** Side of the square tile; also blockDim.x. */
#define TILE 32
/** Threads per block down the tile; each thread moves TILE / BLOCK_ROWS elements. */
#define BLOCK_ROWS 8

static_assert(TILE % BLOCK_ROWS == 0, "the block's rows must cover the tile exactly");

/** @brief Step 06: rows of `in` into rows of the tile, columns of the tile out. */
static __global__ void transpose_shared_load_side(const float *__restrict__ in, float *__restrict__ out,
                                                  size_t rows, size_t cols)
{
    __shared__ float tile[TILE][TILE];
    const size_t tiles_y = ceil_div(rows, TILE);
    const size_t tiles_x = ceil_div(cols, TILE);
    for (size_t tile_y = blockIdx.y; tile_y < tiles_y; tile_y += gridDim.y) {
        for (size_t tile_x = blockIdx.x; tile_x < tiles_x; tile_x += gridDim.x) {
            const size_t col = tile_x * TILE + threadIdx.x;
#pragma unroll
            for (int i = 0; i < TILE; i += BLOCK_ROWS) {
                const int r = threadIdx.y + i;
                const size_t row = tile_y * TILE + r;
                if (row < rows && col < cols)
                    tile[r][threadIdx.x] = in[row * cols + col];  // a row of the tile: no conflict
            }
            __syncthreads();

            const size_t out_col = tile_y * TILE + threadIdx.x;
#pragma unroll
            for (int i = 0; i < TILE; i += BLOCK_ROWS) {
                const int r = threadIdx.y + i;
                const size_t out_row = tile_x * TILE + r;
                if (out_row < cols && out_col < rows)
                    out[out_row * rows + out_col] = tile[threadIdx.x][r];  // a column: 32-way conflict
            }
            __syncthreads();
        }
    }
}

/** @brief Launch transpose_shared_load_side() with 32 x 8 blocks, one tile each. */
static size_t launch_shared_load_side(const float *in, float *out, size_t rows, size_t cols,
                                      cudaStream_t stream)
{
    const dim3 block(TILE, BLOCK_ROWS);
    const dim3 grid = grid_for_tiles(ceil_div(cols, TILE), ceil_div(rows, TILE));
    transpose_shared_load_side<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief The planted answer, under the skeleton's name. */
extern "C" const kernel_variant exercise_06 = {
    "shared_store_side", "planted: step 06's kernel, conflict on the loads", launch_shared_load_side, ANY_GPU,
};
