/**
 * @file exercise.cu
 * @brief Exercise 09: fill step 09's 64 x 64 shared tile with float4 loads, correct for every
 *        shape and every 4-byte-aligned pointer.
 *
 * Keep step 09's 64 x 64 tile and 32 x 8 block, padded here (`tile[64][65]`)
 * rather than swizzled, and change how the tile is loaded: one 16-byte
 * float4 load per thread per pass, 16 tile rows per pass, with a scalar
 * path wherever a float4 load is not allowed. The task, hints and what
 * speed to expect are in exercises/09_shared64/README.md.
 *
 * Grade: `make grade EX=09`. Until the TODO is done the kernel writes
 * nothing, and the grader reports FAIL.
 */
#include "harness.h"
#include "kernel_utils.cuh"

/** Side of the square tile. */
#define TILE 64
/** One padding column: a column of the tile then spans all 32 banks. */
#define PAD 1
/** Threads per block along x (one warp). */
#define BLOCK_COLS 32
/** Threads per block along y. */
#define BLOCK_ROWS 8
/** Threads per block. */
#define THREADS (BLOCK_COLS * BLOCK_ROWS)
/** Floats per vector load. */
#define VEC 4
/** float4 quads in one tile row. */
#define QUADS_PER_ROW (TILE / VEC)
/** Tile rows the block loads per pass, one quad per thread. */
#define LOAD_ROWS_PER_PASS (THREADS / QUADS_PER_ROW)
/** Output rows the block stores per pass, one float per thread. */
#define STORE_ROWS_PER_PASS (THREADS / TILE)

static_assert(TILE % VEC == 0, "a tile row must be whole quads");
static_assert(THREADS % QUADS_PER_ROW == 0 && TILE % LOAD_ROWS_PER_PASS == 0,
              "the load passes must cover the tile exactly");
static_assert(THREADS % TILE == 0 && TILE % STORE_ROWS_PER_PASS == 0,
              "the store passes must cover the tile exactly");
static_assert(TILE % 32 == 0, "a warp's 32 stores must stay in one output row");

/**
 * @brief Transpose through a padded TILE x TILE shared tile, loading it with
 *        float4 loads when the rows are 16-byte aligned.
 */
static __global__ void transpose_shared64_float4(const float *__restrict__ in, float *__restrict__ out,
                                                 size_t rows, size_t cols)
{
    // TODO(exercise 09): __shared__ float tile[TILE][TILE + PAD]; number the
    // threads id = threadIdx.y * BLOCK_COLS + threadIdx.x (0 .. THREADS - 1).
    // For every tile (grid-stride loops; blockIdx.x runs along a row of `in`):
    //  - Load: thread id loads quad q = id % QUADS_PER_ROW (columns 4q .. 4q + 3
    //    of the tile) of tile rows id / QUADS_PER_ROW + k * LOAD_ROWS_PER_PASS.
    //    With one float4 load when allowed -- when is in + row * cols + col
    //    16-byte aligned for EVERY row? (is_aligned_16() is in kernel_utils.cuh;
    //    decide once, before the loops) -- and four scalar loads otherwise,
    //    each only if its column exists. Tile rows are 65 floats, so store the
    //    four values into the tile one by one.
    //  - __syncthreads().
    //  - Store: thread id writes column id % TILE of output rows
    //    id / TILE + k * STORE_ROWS_PER_PASS of the tile, reading the tile by
    //    columns (a warp then writes 32 consecutive floats).
    //  - __syncthreads() before the next tile.
    (void)in;
    (void)out;
    (void)rows;
    (void)cols;
}

/** @brief Launch transpose_shared64_float4() with 32 x 8 blocks, one 64 x 64 tile each. */
static size_t launch_shared64_float4(const float *in, float *out, size_t rows, size_t cols,
                                     cudaStream_t stream)
{
    const dim3 block(BLOCK_COLS, BLOCK_ROWS);
    const dim3 grid = grid_for_tiles(ceil_div(cols, TILE), ceil_div(rows, TILE));
    transpose_shared64_float4<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief Your kernel, as the grader (lab/grade_main.cu) links it: not static. */
extern "C" const kernel_variant exercise_09 = {
    "shared64_float4", "your kernel: 64x64 padded shared tile filled with float4 loads",
    launch_shared64_float4, ANY_GPU,
};
