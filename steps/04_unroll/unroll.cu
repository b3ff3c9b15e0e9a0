/**
 * @file unroll.cu
 * @brief Step 04: each thread moves several elements, all loads issued before any store.
 *
 * ## What changed since step 03
 * Step 03 gave every element its own thread: a thread issues one load, waits
 * for it (hundreds of cycles from DRAM), stores, and exits. Here a thread
 * moves UNROLL elements of one output column: it issues all UNROLL loads
 * into registers first, then all UNROLL stores. The 32 x 8 block stays, but
 * it now covers a 32 x (8 * UNROLL) tile of the output (sizes are x by y,
 * like dim3: output columns, then output rows); the default variant has
 * UNROLL = 4, a 32 x 32 tile. The mapping is step 03's (`threadIdx.x`
 * along an output row, so writes are coalesced), and so is the read path
 * (`const __restrict__`, `__ldg`).
 *
 * ## Why it should be faster
 * A memory-bound kernel is fast when enough bytes are in flight to cover
 * the latency of DRAM. The UNROLL loads of one thread do not depend on each
 * other, so they are all outstanding at once: the same bytes in flight
 * with a quarter of the threads, and a quarter of the per-thread work
 * (index arithmetic, tile loops, block launches). The write-up compares the
 * thread count with cuBLAS's own launch.
 *
 * ## The block shape matters: variant `1d`
 * The same kernel launched with 256 x 1 blocks covers a 256 x UNROLL tile
 * instead of 32 x 32. Each thread does exactly the same work, yet a block
 * now reads only UNROLL = 4 floats of every 32-byte input sector it
 * touches; the other half of each sector belongs to another block, which
 * usually runs on another SM and fetches the sector from L2 again. The
 * write-up measures the extra L2 reads this costs (and whether DRAM sees
 * them too). `unroll8` is the 2D
 * block with UNROLL = 8 (a 32 x 64 tile), for the thread-count comparison.
 *
 * ## What it assumes
 * `in` and `out` do not overlap. Nothing about the shape: any M, N >= 1,
 * past the grid limits and past 2^31 elements (see step 01).
 *
 * ## Build and run
 *
 *     make step04
 *     ./build/step04 --rows 8192 --cols 8192
 *     ./build/step04 --rows 8192 --cols 8192 --variant 1d
 *     make run STEP=04 ARGS="--rows 4096 --cols 4096"
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

static const kernel_variant step04_variants[] = {
    {"unroll4", "4 elements per thread (loads, then stores), 32x8 blocks on 32x32 tiles",
     launch_unroll4},
    {"unroll8", "8 elements per thread, 32x8 blocks on 32x64 tiles",
     launch_unroll8},
    {"1d", "as unroll4 but 256x1 blocks on 256x4 tiles: each input sector split between two blocks",
     launch_1d},
};

/* Not static: the exercise grader links this step's kernel by this name. */
extern "C" const step_desc step04 = {
    "04", "unroll", "Several elements per thread: loads first, then stores",
    step04_variants, (int)(sizeof step04_variants / sizeof step04_variants[0]),
};

STEP_MAIN(step04)
