// Caught by: Sanitizers (racecheck: without the second __syncthreads() the next tile's stores race with this tile's loads)
/**
 * @file 07_no_second_barrier.cu
 * @brief Exercise 07 without the `__syncthreads()` at the end of the tile loop.
 *
 * On ordinary shapes every block does exactly one tile, so the missing barrier never
 * matters and every result is right. Only a block that walks a second tile (a matrix
 * with more tile rows than the grid's y limit, 65535) can overwrite the tile while a
 * slower warp still reads the previous one, and even then the answer is right on
 * almost every run. racecheck sees the hazard every time on such a shape, which is
 * why exercise 07's grading.json adds one to its sanitizer shapes.
 * tests/test_grader.py grades it.
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

/** @brief The reference kernel of exercise 07 minus its second barrier. */
static __global__ void transpose_padded_one_barrier(const float *__restrict__ in, float *__restrict__ out,
                                                    size_t rows, size_t cols)
{
    __shared__ float tile[TILE][TILE + PAD];
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
                    tile[r][threadIdx.x] = in[row * cols + col];
            }
            __syncthreads();

            const size_t out_col = tile_y * TILE + threadIdx.x;
#pragma unroll
            for (int i = 0; i < TILE; i += BLOCK_ROWS) {
                const int r = threadIdx.y + i;
                const size_t out_row = tile_x * TILE + r;
                if (out_row < cols && out_col < rows)
                    out[out_row * rows + out_col] = tile[threadIdx.x][r];
            }
            // The planted bug: no __syncthreads() here, before the next tile's stores.
        }
    }
}

/** @brief Launch transpose_padded_one_barrier() with 32 x 16 blocks, one tile each. */
static size_t launch_padded_one_barrier(const float *in, float *out, size_t rows, size_t cols,
                                        cudaStream_t stream)
{
    const dim3 block(TILE, BLOCK_ROWS);
    const dim3 grid = grid_for_tiles(ceil_div(cols, TILE), ceil_div(rows, TILE));
    transpose_padded_one_barrier<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief The planted answer, under the skeleton's name. */
extern "C" const kernel_variant exercise_07 = {
    "padded_32x16", "planted: the second __syncthreads() is missing", launch_padded_one_barrier, ANY_GPU,
};
