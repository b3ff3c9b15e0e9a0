// Caught by: Technique (no cp.async in the student's kernel: the only LDGSTS in the file are the given control's 16)
/**
 * @file 10_sync_copy_beside_control.cu
 * @brief Exercise 10 done on the skeleton, with the control kept, but with the next tile
 *        copied by ordinary loads and stores (load_tile_sync) in place of load_tile_async.
 *
 * The pipeline calls are still there, so the compiled code has its `DEPBAR.LE SB0, 0x1`,
 * both buffers and four barriers; correct and race-free. Only the count of LDGSTS tells
 * it from the task: the control alone has 16, the student's kernel adds none. A check
 * of "some LDGSTS in the file" would pass it. tests/test_grader.py grades it.
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
 * @brief The planted mistake: copy this thread's elements of a tile into @p dst with
 *        ordinary loads and stores, in place of tile_copy.cuh's load_tile_async().
 */
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

/**
 * @brief Transpose through two padded TILE x TILE shared buffers, copying
 *        tile t + gridDim.x in while tile t is written out.
 */
static __global__ void transpose_double_buffered(const float *__restrict__ in, float *__restrict__ out,
                                                 size_t rows, size_t cols)
{
    __shared__ float tile[STAGES][TILE][TILE + PAD];
    const size_t tiles_x = ceil_div(cols, TILE);  // tiles along a row of `in`
    const size_t tiles = ceil_div(rows, TILE) * tiles_x;

    size_t t = blockIdx.x;  // this block's first tile
    if (t < tiles)
        load_tile_sync(tile[0], in, rows, cols, t / tiles_x, t % tiles_x);
    __pipeline_commit();

    for (int buf = 0; t < tiles; t += gridDim.x, buf ^= 1) {
        const size_t next = t + gridDim.x;
        if (next < tiles)  // the same for the whole block
            load_tile_sync(tile[buf ^ 1], in, rows, cols, next / tiles_x, next % tiles_x);
        __pipeline_commit();       // one batch per iteration, even if empty
        __pipeline_wait_prior(1);  // all batches but tile `next`'s have landed: tile t is here
        __syncthreads();           // ... for every thread's copies, not only this thread's

        store_tile(tile[buf], out, rows, cols, t / tiles_x, t % tiles_x);
        __syncthreads();  // everyone is done with tile[buf] before the next iteration refills it
    }
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
