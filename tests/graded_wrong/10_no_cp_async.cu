// Caught by: Technique (no cp.async: the next tile is copied with ordinary loads and stores, so nothing overlaps)
/**
 * @file 10_no_cp_async.cu
 * @brief Exercise 10 with both buffers but without asynchronous copies: each thread
 *        loads the next tile into registers and stores it into shared memory itself,
 *        which waits for every load before the tile can be written out.
 *
 * Correct and race-free; the compiled code has no LDGSTS and no DEPBAR, so the check
 * of the technique FAILs. tests/test_grader.py grades it.
 */
#include "tile_copy.cuh"

/** Tile buffers per block. */
#define STAGES 2

/** @brief Copy this thread's elements of a tile into @p dst with ordinary loads and stores. */
static __device__ void load_tile_sync(float (*dst)[TILE + PAD], const float *__restrict__ in,
                                      size_t rows, size_t cols, size_t tile_row, size_t tile_col)
{
#pragma unroll
    for (int i = 0; i < TILE; i += BLOCK_ROWS) {
        const int r = threadIdx.y + i;
        const size_t row = tile_row * TILE + r;
#pragma unroll
        for (int j = 0; j < TILE; j += BLOCK_COLS) {
            const int c = threadIdx.x + j;
            const size_t col = tile_col * TILE + c;
            if (row < rows && col < cols)
                dst[r][c] = in[row * cols + col];
        }
    }
}

/** @brief Two buffers, filled synchronously: the planted answer. */
static __global__ void transpose_two_buffers_sync(const float *__restrict__ in, float *__restrict__ out,
                                                  size_t rows, size_t cols)
{
    __shared__ float tile[STAGES][TILE][TILE + PAD];
    const size_t tiles_x = ceil_div(cols, TILE);
    const size_t tiles = ceil_div(rows, TILE) * tiles_x;
    size_t t = blockIdx.x;
    if (t < tiles)
        load_tile_sync(tile[0], in, rows, cols, t / tiles_x, t % tiles_x);
    for (int buf = 0; t < tiles; t += gridDim.x, buf ^= 1) {
        const size_t next = t + gridDim.x;
        if (next < tiles)
            load_tile_sync(tile[buf ^ 1], in, rows, cols, next / tiles_x, next % tiles_x);
        __syncthreads();
        store_tile(tile[buf], out, rows, cols, t / tiles_x, t % tiles_x);
        __syncthreads();
    }
}

/** @brief Launch it on at most as many blocks as the GPU holds at once, as the skeleton does. */
static size_t launch_two_buffers_sync(const float *in, float *out, size_t rows, size_t cols,
                                      cudaStream_t stream)
{
    static size_t max_blocks = 0;
    const dim3 block(BLOCK_COLS, BLOCK_ROWS);
    if (max_blocks == 0)
        max_blocks = resident_blocks((const void *)transpose_two_buffers_sync, (int)(block.x * block.y));
    const size_t tiles = ceil_div(rows, TILE) * ceil_div(cols, TILE);
    const dim3 grid = grid_for_tiles(tiles < max_blocks ? tiles : max_blocks, 1);
    transpose_two_buffers_sync<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief The planted answer, under the skeleton's name. */
extern "C" const kernel_variant exercise_10 = {
    "double_buffered", "planted: two buffers, ordinary loads", launch_two_buffers_sync, ANY_GPU,
};
