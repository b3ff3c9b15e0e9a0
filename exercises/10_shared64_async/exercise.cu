/**
 * @file exercise.cu
 * @brief Exercise 10: double buffering. Copy the next tile in while the current one is written out.
 *
 * tile_copy.cuh gives you the tile geometry, an asynchronous copy of one
 * tile into a shared buffer (load_tile_async) and the write-out of one
 * buffer (store_tile). The launcher is written: it starts only as many
 * blocks as the GPU holds at once, so each block has many tiles to do.
 * Your part is the kernel's loop, with two buffers. The task, hints and
 * what speed to expect are in exercises/10_shared64_async/README.md.
 *
 * Grade: `make grade EX=10`. Until the TODO is done the kernel writes
 * nothing, and the grader reports FAIL.
 */
#include "tile_copy.cuh"

/** Tile buffers per block: one being written out, one being filled. */
#define STAGES 2

static_assert(STAGES * TILE * (TILE + PAD) * sizeof(float) <= 48 * 1024,
              "the buffers must fit in 48 KiB of static shared memory");

/**
 * @brief Transpose through two padded TILE x TILE shared buffers, copying
 *        tile t + gridDim.x in while tile t is written out.
 */
static __global__ void transpose_double_buffered(const float *__restrict__ in, float *__restrict__ out,
                                                 size_t rows, size_t cols)
{
    // TODO(exercise 10): __shared__ float tile[STAGES][TILE][TILE + PAD];
    // The tiles are numbered t = 0 .. tiles - 1, row after row: tile t is
    // (t / tiles_x, t % tiles_x). This block does tiles blockIdx.x,
    // blockIdx.x + gridDim.x, ...
    //  1. Before the loop: start the copy of the first tile into tile[0],
    //     then __pipeline_commit().
    //  2. In the loop over this block's tiles t, with buf = 0, 1, 0, 1, ...:
    //     start the copy of tile t + gridDim.x (if it exists) into the other
    //     buffer; commit (also when there was nothing to copy: why?);
    //     __pipeline_wait_prior(1); __syncthreads(); store_tile() from
    //     tile[buf]; __syncthreads().
    //  Which __syncthreads() protects what? Remove one at a time and reason
    //  about which buffer another warp could be touching.
    (void)in;
    (void)out;
    (void)rows;
    (void)cols;
}

/**
 * @brief Launch transpose_double_buffered() on a one-dimensional grid of at
 *        most as many blocks as the GPU holds at once (asked once, then reused).
 */
static size_t launch_double_buffered(const float *in, float *out, size_t rows, size_t cols,
                                     cudaStream_t stream)
{
    static size_t max_blocks = 0;
    const dim3 block(BLOCK_COLS, BLOCK_ROWS);
    if (max_blocks == 0)
        max_blocks = resident_blocks((const void *)transpose_double_buffered, (int)(block.x * block.y));
    const size_t tiles = ceil_div(rows, TILE) * ceil_div(cols, TILE);
    const dim3 grid = grid_for_tiles(tiles < max_blocks ? tiles : max_blocks, 1);
    transpose_double_buffered<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief Your kernel, as the grader (tools/grade_main.cu) links it: not static. */
extern "C" const kernel_variant exercise_10 = {
    "double_buffered", "your kernel: two shared buffers, copy tile t+1 in while writing tile t",
    launch_double_buffered, ANY_GPU,
};
