// Caught by: Technique (one buffer: cp.async, but it waits for each tile before writing it, so no copy overlaps a write)
/**
 * @file 10_single_buffer.cu
 * @brief Exercise 10 answered with step 10's scheme: one shared buffer per block,
 *        filled with cp.async, then a wait for all copies (`__pipeline_wait_prior(0)`)
 *        before the tile is written out. Correct and race-free, but single-buffered:
 *        the compiled code has half the shared memory the task needs and waits with no
 *        batch in flight (DEPBAR.LE SB0, 0x0). tests/test_grader.py grades it.
 */
#include "tile_copy.cuh"

/** @brief One buffer: copy the tile, wait for it, write it out. */
static __global__ void transpose_single_buffer(const float *__restrict__ in, float *__restrict__ out,
                                               size_t rows, size_t cols)
{
    __shared__ float tile[TILE][TILE + PAD];
    const size_t tiles_x = ceil_div(cols, TILE);
    const size_t tiles = ceil_div(rows, TILE) * tiles_x;
    for (size_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        load_tile_async(tile, in, rows, cols, t / tiles_x, t % tiles_x);
        __pipeline_commit();
        __pipeline_wait_prior(0);  // nothing left in flight: no overlap
        __syncthreads();
        store_tile(tile, out, rows, cols, t / tiles_x, t % tiles_x);
        __syncthreads();
    }
}

/** @brief Launch it on at most as many blocks as the GPU holds at once, as the skeleton does. */
static size_t launch_single_buffer(const float *in, float *out, size_t rows, size_t cols,
                                   cudaStream_t stream)
{
    static size_t max_blocks = 0;
    const dim3 block(BLOCK_COLS, BLOCK_ROWS);
    if (max_blocks == 0)
        max_blocks = resident_blocks((const void *)transpose_single_buffer, (int)(block.x * block.y));
    const size_t tiles = ceil_div(rows, TILE) * ceil_div(cols, TILE);
    const dim3 grid = grid_for_tiles(tiles < max_blocks ? tiles : max_blocks, 1);
    transpose_single_buffer<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief The planted answer, under the skeleton's name. */
extern "C" const kernel_variant exercise_10 = {
    "double_buffered", "planted: one buffer, as in step 10", launch_single_buffer, ANY_GPU,
};
