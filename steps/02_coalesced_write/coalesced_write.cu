/**
 * @file coalesced_write.cu
 * @brief Step 02: turn the thread mapping around so that writes are coalesced and reads strided.
 *
 * ## What changed since step 01
 * One line of index arithmetic: `threadIdx.x` walks along a row of the
 * *output*, which is a column of the input. Blocks, tiles and loops are
 * step 01's.
 *
 * ## Why it should be faster
 * Without shared memory (step 06) one side has to be strided; this step
 * asks which. A warp's **writes** are now 128 contiguous bytes, whole
 * sectors written once. Its **reads** touch 32 sectors for 128 useful
 * bytes, but the other 28 bytes of each sector stay in L1/L2, where the
 * neighbouring warps (the next columns of the same rows) find them. A
 * strided write has no such rescue: each partial sector must be merged in
 * L2 before DRAM sees it. The write-up checks this against Nsight
 * Compute's sector counts.
 *
 * ## What it assumes
 * Nothing about the shape: any M, N >= 1, past the grid limits and past
 * 2^31 elements (see step 01).
 *
 * ## Build and run
 *
 *     make step02
 *     ./build/step02 --shapes 8192x8192
 *     make run STEP=02 ARGS="--shapes 4096x4096"
 *
 * Write-up: docs/steps/02_coalesced_write.md
 */
#include "harness.h"
#include "kernel_utils.cuh"

/** Threads per block along a row of the output (one warp). */
#define BLOCK_COLS 32
/** Rows of the output covered by one block. */
#define BLOCK_ROWS 8

/**
 * @brief One thread copies one element; a block covers an 8 x 32 patch of `out`.
 *
 * `out` is cols x rows, so its row index runs over the input's columns and
 * its column index over the input's rows.
 */
__global__ void transpose_coalesced_write(const float *in, float *out, size_t rows, size_t cols)
{
    const size_t tiles_y = ceil_div(cols, BLOCK_ROWS);   // tiles down the output
    const size_t tiles_x = ceil_div(rows, BLOCK_COLS);   // tiles along an output row
    for (size_t tile_y = blockIdx.y; tile_y < tiles_y; tile_y += gridDim.y) {
        for (size_t tile_x = blockIdx.x; tile_x < tiles_x; tile_x += gridDim.x) {
            const size_t out_row = tile_y * BLOCK_ROWS + threadIdx.y;  // = column of `in`
            const size_t out_col = tile_x * BLOCK_COLS + threadIdx.x;  // = row of `in`
            if (out_row < cols && out_col < rows)
                out[out_row * rows + out_col] = in[out_col * cols + out_row];  // strided read, coalesced write
        }
    }
}

/** @brief Launch transpose_coalesced_write() over the whole matrix. */
static size_t launch_coalesced_write(const float *in, float *out, size_t rows, size_t cols,
                                     cudaStream_t stream)
{
    const dim3 block(BLOCK_COLS, BLOCK_ROWS);
    const dim3 grid = grid_for_tiles(ceil_div(rows, BLOCK_COLS), ceil_div(cols, BLOCK_ROWS));
    transpose_coalesced_write<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** The kernels of step 02; the first is the default. */
static const kernel_variant variants[] = {
    {"coalesced_write", "one thread per element, mapped along the output; strided reads, coalesced writes",
     launch_coalesced_write, ANY_GPU},
};

STEP_DEFINE("Coalesced writes, strided reads", variants, NULL)
