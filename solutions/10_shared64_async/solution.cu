/**
 * @file solution.cu
 * @brief Reference solution to exercise 10: double buffering. Each block copies the next tile
 *        in while it writes the current one out.
 *
 * Step 10 copies a tile into shared memory with asynchronous copies, waits,
 * and writes it out: while a block waits for its tile it has nothing else
 * to do, and only the other resident blocks keep the memory system busy.
 * Here each block owns two tile buffers and walks many tiles:
 *
 *     start copying tile t into buffer 0
 *     for each tile t of this block:
 *         start copying tile t + gridDim.x into the other buffer
 *         wait for tile t; write it out of its buffer
 *
 * so the copy of the next tile is in flight during the write of this one.
 * The grid is one-dimensional and only as large as the GPU holds at once,
 * so every block has several tiles to pipeline; tile t is
 * (t / tiles_x, t % tiles_x). The copy and write-out are the given
 * functions of exercises/10_shared64_async/tile_copy.cuh.
 *
 * Each thread commits exactly one batch of copies per iteration, even an
 * empty one, so `__pipeline_wait_prior(1)` ("all but the newest batch have
 * landed") always means "tile t has landed".
 *
 * The control kernel, transpose_single_buffered(), is the skeleton's, unchanged.
 * The grader's reference is `solution_10` alone; in exercise.cu,
 * `GRADE_KERNEL=control` runs the control in the student's row, timed beside
 * this kernel.
 *
 * Task: exercises/10_shared64_async/README.md. Grade: `make grade EX=10`.
 */
#include "../../exercises/10_shared64_async/tile_copy.cuh"

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

// ---------------------------------------------------------------- the answer

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
        load_tile_async(tile[0], in, rows, cols, t / tiles_x, t % tiles_x);
    __pipeline_commit();

    for (int buf = 0; t < tiles; t += gridDim.x, buf ^= 1) {
        const size_t next = t + gridDim.x;
        if (next < tiles)  // the same for the whole block
            load_tile_async(tile[buf ^ 1], in, rows, cols, next / tiles_x, next % tiles_x);
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

/**
 * The control as a variant, unused here: the grader links `solution_10` as the
 * reference, and the control runs only from exercise.cu (GRADE_KERNEL=control).
 */
[[maybe_unused]] static const kernel_variant control = {
    "single_buffered", "the control: one buffer, same tiles, order and grid", launch_single_buffered,
    ANY_GPU,
};

/** @brief The reference kernel, as the grader (lab/grade_main.cu) links it: not static. */
extern "C" const kernel_variant solution_10 = {
    "double_buffered", "two 64x64 padded shared buffers per block: copy tile t+1 in while writing tile t",
    launch_double_buffered, ANY_GPU,
};
