/**
 * @file solution.cu
 * @brief Reference solution to exercise 07: the padded 32 x 32 shared tile with a 32 x 16 block,
 *        two elements per thread.
 *
 * The tile is step 07's: `tile[32][33]`, one padding column, so that a warp
 * reading a column of the tile (words 33 r + c for r = 0..31) touches 32
 * different banks. Only the block changes: 32 x 16 threads, each moving
 * TILE / BLOCK_ROWS = 2 elements of the tile, rows threadIdx.y and
 * threadIdx.y + 16. Twice the threads per tile of a 32 x 8 block, half the
 * work per thread: more warps to hide latency, fewer loads in flight per
 * thread, and a `__syncthreads()` that has 16 warps to wait for.
 *
 * Task: exercises/07_shared_padded/README.md. Grade: `make grade EX=07`.
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
    __shared__ float tile[TILE][TILE + PAD];
    const size_t tiles_y = ceil_div(rows, TILE);  // tiles down `in`
    const size_t tiles_x = ceil_div(cols, TILE);  // tiles along a row of `in`
    for (size_t tile_y = blockIdx.y; tile_y < tiles_y; tile_y += gridDim.y) {
        for (size_t tile_x = blockIdx.x; tile_x < tiles_x; tile_x += gridDim.x) {
            const size_t col = tile_x * TILE + threadIdx.x;  // column of `in`
#pragma unroll
            for (int i = 0; i < TILE; i += BLOCK_ROWS) {
                const int r = threadIdx.y + i;               // row inside the tile
                const size_t row = tile_y * TILE + r;        // row of `in`
                if (row < rows && col < cols)
                    tile[r][threadIdx.x] = in[row * cols + col];  // coalesced read
            }
            __syncthreads();  // the whole tile is in shared memory

            const size_t out_col = tile_y * TILE + threadIdx.x;  // column of `out` = row of `in`
#pragma unroll
            for (int i = 0; i < TILE; i += BLOCK_ROWS) {
                const int r = threadIdx.y + i;                   // row inside the tile
                const size_t out_row = tile_x * TILE + r;        // row of `out` = column of `in`
                if (out_row < cols && out_col < rows)
                    out[out_row * rows + out_col] = tile[threadIdx.x][r];  // conflict-free column, coalesced write
            }
            __syncthreads();  // everyone is done with `tile` before the next tile overwrites it
        }
    }
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

/** @brief The reference kernel, as the grader (tools/grade_main.cu) links it: not static. */
extern "C" const kernel_variant solution_07 = {
    "padded_32x16", "32x32 shared tile padded to 33 columns, 32x16 block, 2 elements per thread",
    launch_shared_padded_32x16, ANY_GPU,
};
