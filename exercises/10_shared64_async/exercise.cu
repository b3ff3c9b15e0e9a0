/**
 * @file exercise.cu
 * @brief Exercise 10: double buffering. Copy the next tile in while the current one is written out.
 *
 * tile_copy.cuh gives you the tile geometry, an asynchronous copy of one
 * tile into a shared buffer (load_tile_async) and the write-out of one
 * buffer (store_tile). The launcher is written: it starts only as many
 * blocks as the GPU holds at once, so each block has many tiles to do.
 * Your part is the kernel's loop, with two buffers.
 *
 * The file also holds the control, complete: the same helpers, the same
 * tiles in the same order, the same grid, but one buffer. `GRADE_KERNEL=control`
 * runs it in your kernel's place (common/kernel_choice.h), so that you measure what
 * the second buffer adds and nothing else. The task, hints and what speed
 * to expect are in exercises/10_shared64_async/README.md.
 *
 * Grade: `make grade EX=10`. Until the TODO is done the kernel writes
 * nothing, and the grader reports FAIL.
 */
#include "tile_copy.cuh"
#include "kernel_choice.h"

/** Tile buffers per block: one being written out, one being filled. */
#define STAGES 2

static_assert(STAGES * TILE * (TILE + PAD) * sizeof(float) <= 48 * 1024,
              "the buffers must fit in 48 KiB of static shared memory");

/**
 * 1: the control runs on your kernel's grid (as many blocks as the GPU holds
 * of yours at once), each block reserving your second buffer's bytes of
 * shared memory without using them, so that the same blocks are in flight
 * with the same shared memory. 0: it runs as many blocks as fit with one
 * buffer (README.md, "Going further").
 */
#define CONTROL_MATCHES_YOURS 1

/** Dynamic shared memory each block of the control reserves and never touches. */
#define CONTROL_SPARE_SHARED (CONTROL_MATCHES_YOURS ? (STAGES - 1) * TILE * (TILE + PAD) * sizeof(float) : 0)

// ---------------------------------------------------------------- the control (given)

/**
 * @brief The control, given complete: one padded TILE x TILE buffer per
 *        block. Each tile is copied in, waited for, and written out; no copy
 *        is in flight while the block writes.
 *
 * Tiles, order and helpers are those of your kernel: tile t is
 * (t / tiles_x, t % tiles_x), and this block does tiles blockIdx.x,
 * blockIdx.x + gridDim.x, ...
 */
static __global__ void transpose_single_buffered(const float *__restrict__ in, float *__restrict__ out,
                                                 size_t rows, size_t cols)
{
    __shared__ float tile[TILE][TILE + PAD];
    const size_t tiles_x = ceil_div(cols, TILE);  // tiles along a row of `in`
    const size_t tiles = ceil_div(rows, TILE) * tiles_x;
    for (size_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        load_tile_async(tile, in, rows, cols, t / tiles_x, t % tiles_x);
        __pipeline_commit();
        __pipeline_wait_prior(0);  // every batch has landed: nothing is in flight any more
        __syncthreads();           // ... for every thread's copies

        store_tile(tile, out, rows, cols, t / tiles_x, t % tiles_x);
        __syncthreads();  // everyone is done with `tile` before the next copy refills it
    }
}

// ---------------------------------------------------------------- your kernel

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
    // blockIdx.x + gridDim.x, ... (the control above walks them the same way).
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

// ---------------------------------------------------------------- the control's launcher (given)

/**
 * @brief Launch transpose_single_buffered() on your kernel's grid (with
 *        CONTROL_MATCHES_YOURS), each block with CONTROL_SPARE_SHARED bytes of
 *        shared memory reserved beside its one buffer.
 */
static size_t launch_single_buffered(const float *in, float *out, size_t rows, size_t cols,
                                     cudaStream_t stream)
{
    static size_t max_blocks = 0;
    const dim3 block(BLOCK_COLS, BLOCK_ROWS);
    const void *sized_by = CONTROL_MATCHES_YOURS ? (const void *)transpose_double_buffered
                                                 : (const void *)transpose_single_buffered;
    if (max_blocks == 0)
        max_blocks = resident_blocks(sized_by, (int)(block.x * block.y));
    const size_t tiles = ceil_div(rows, TILE) * ceil_div(cols, TILE);
    const dim3 grid = grid_for_tiles(tiles < max_blocks ? tiles : max_blocks, 1);
    transpose_single_buffered<<<grid, block, CONTROL_SPARE_SHARED, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

// ---------------------------------------------------------------- what the grader runs

/** The kernels GRADE_KERNEL picks from; the first, yours, runs while it is unset. */
static const kernel_choice choices[] = {
    {"double_buffered", "your kernel: two buffers", launch_double_buffered},
    {"control", "the control: one buffer, same tiles, order and grid (transpose_single_buffered)",
     launch_single_buffered},
};

/** @brief Launch the kernel GRADE_KERNEL picks: yours, unless it says `control`. */
KERNEL_CHOICE_LAUNCHER(launch_chosen, choices, "student")

/** @brief Your kernel, as the grader (lab/grade_main.cu) links it: not static. */
extern "C" const kernel_variant exercise_10 = {
    "double_buffered", "your kernel: two shared buffers, copy tile t+1 in while writing tile t",
    launch_chosen, ANY_GPU,
};
