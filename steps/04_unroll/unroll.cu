/**
 * @file unroll.cu
 * @brief Step 04: each thread moves several elements, all loads issued before any store.
 *
 * ## What changed since step 03
 * A thread moves UNROLL elements of one output column: all UNROLL loads
 * into registers first, then all UNROLL stores, so a 32 x 8 block covers
 * 32 x (8 * UNROLL) outputs. The mapping and `__ldg` are step 03's.
 *
 * ## Why it should be faster
 * A memory-bound kernel is fast when enough bytes are in flight to cover
 * the latency of DRAM. The UNROLL loads do not depend on each other, so
 * they are outstanding together: the same bytes in flight with a quarter
 * of the threads, and a quarter of their index arithmetic.
 *
 * ## The variants
 * `unroll4` (the default, 32 x 32 tiles); `unroll8` (32 x 64 tiles); `1d`:
 * the default's work in 256 x 1 blocks on 256 x 4 tiles, where a block
 * reads only half of each 32-byte input sector it touches and another
 * block, usually on another SM, fetches the sector again.
 *
 * ## What it assumes
 * `in` and `out` do not overlap. Nothing about the shape (see step 01).
 *
 * ## Build and run
 *
 *     make step04
 *     ./build/step04 --shapes 8192x8192
 *     ./build/step04 --shapes 8192x8192 --variant 1d
 *
 * Write-up: docs/steps/04_unroll.md
 */
#include "harness.h"
#include "kernel_utils.cuh"

/** Threads per block along a row of the output (one warp). */
#define BLOCK_COLS 32
/** Threads per block down the output, in the 2D blocks. */
#define BLOCK_ROWS 8
/** Threads per block in the `1d` variant: as many as a 2D block. */
#define BLOCK_1D 256

static_assert(BLOCK_1D == BLOCK_COLS * BLOCK_ROWS,
              "the 1d variant must differ from the 2D default only in the block's shape");

/**
 * @brief Each thread moves @p UNROLL elements of one output column.
 *
 * A block of blockDim.x x blockDim.y threads covers a tile of `out` that is
 * blockDim.x columns wide and blockDim.y * UNROLL rows high. Thread
 * (x, y) handles the output rows y, y + blockDim.y, y + 2 * blockDim.y, ...
 * of its tile, so each of its loads is one row of the warp's work and a
 * warp's store is always 32 consecutive floats of one output row.
 */
template <int UNROLL>
__global__ void transpose_unrolled(const float *__restrict__ in, float *__restrict__ out,
                                   size_t rows, size_t cols)
{
    const size_t tile_w = blockDim.x;                    // output columns per tile
    const size_t tile_h = (size_t)blockDim.y * UNROLL;   // output rows per tile
    const size_t tiles_y = ceil_div(cols, tile_h);       // tiles down the output
    const size_t tiles_x = ceil_div(rows, tile_w);       // tiles along an output row
    for (size_t tile_y = blockIdx.y; tile_y < tiles_y; tile_y += gridDim.y) {
        for (size_t tile_x = blockIdx.x; tile_x < tiles_x; tile_x += gridDim.x) {
            const size_t out_col = tile_x * tile_w + threadIdx.x;   // = row of `in`
            const size_t out_row0 = tile_y * tile_h + threadIdx.y;  // first output row (= column of `in`)
            float v[UNROLL];
            // All loads first: they are independent, so all UNROLL are in flight together.
#pragma unroll
            for (int k = 0; k < UNROLL; ++k) {
                const size_t out_row = out_row0 + (size_t)k * blockDim.y;
                v[k] = (out_row < cols && out_col < rows) ? __ldg(&in[out_col * cols + out_row]) : 0.0f;
            }
            // Then all stores; a warp writes 32 consecutive floats of one output row each time.
#pragma unroll
            for (int k = 0; k < UNROLL; ++k) {
                const size_t out_row = out_row0 + (size_t)k * blockDim.y;
                if (out_row < cols && out_col < rows)
                    out[out_row * rows + out_col] = v[k];
            }
        }
    }
}

/**
 * @brief Launch transpose_unrolled<UNROLL>() with @p block threads per block
 *        over the whole matrix.
 */
template <int UNROLL>
static size_t launch_with_block(dim3 block, const float *in, float *out, size_t rows, size_t cols,
                                cudaStream_t stream)
{
    const size_t tile_w = block.x;
    const size_t tile_h = (size_t)block.y * UNROLL;
    const dim3 grid = grid_for_tiles(ceil_div(rows, tile_w), ceil_div(cols, tile_h));
    transpose_unrolled<UNROLL><<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief The default: 32 x 8 blocks, 4 elements per thread, 32 x 32 tiles. */
static size_t launch_unroll4(const float *in, float *out, size_t rows, size_t cols,
                             cudaStream_t stream)
{
    return launch_with_block<4>(dim3(BLOCK_COLS, BLOCK_ROWS), in, out, rows, cols, stream);
}

/** @brief 32 x 8 blocks, 8 elements per thread, 32 x 64 tiles. */
static size_t launch_unroll8(const float *in, float *out, size_t rows, size_t cols,
                             cudaStream_t stream)
{
    return launch_with_block<8>(dim3(BLOCK_COLS, BLOCK_ROWS), in, out, rows, cols, stream);
}

/** @brief 256 x 1 blocks, 4 elements per thread, 256 x 4 tiles: the default's work in a 1D block. */
static size_t launch_1d(const float *in, float *out, size_t rows, size_t cols,
                        cudaStream_t stream)
{
    return launch_with_block<4>(dim3(BLOCK_1D, 1), in, out, rows, cols, stream);
}

/** The kernels of step 04; the first is the default. */
static const kernel_variant variants[] = {
    {"unroll4", "4 elements per thread (loads, then stores), 32x8 blocks on 32x32 tiles",
     launch_unroll4, ANY_GPU},
    {"unroll8", "8 elements per thread, 32x8 blocks on 32x64 tiles",
     launch_unroll8, ANY_GPU},
    {"1d", "as unroll4 but 256x1 blocks on 256x4 tiles: each input sector split between two blocks",
     launch_1d, ANY_GPU},
};

STEP_DEFINE("Several elements per thread: loads first, then stores", variants, NULL)
