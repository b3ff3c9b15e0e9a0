/**
 * @file coalesced_write.cu
 * @brief Step 02: turn the thread mapping around so that writes are coalesced and reads strided.
 *
 * ## What changed since step 01
 * One line of index arithmetic. In step 01 `threadIdx.x` walked along a row
 * of the *input*; here it walks along a row of the *output*, which is a
 * column of the input. Everything else (32 x 8 blocks, one element per
 * thread, grid-stride loops over tiles) is unchanged.
 *
 * ## Why it should be faster
 * A transpose cannot make both sides contiguous for one warp without help
 * (step 06 brings that help: shared memory). So one side has to be strided,
 * and the question of this step is which:
 * - **writes** `out[col * M + row .. row + 31]` are now 128 contiguous bytes
 *   per warp: every 32-byte sector is written completely, once.
 * - **reads** `in[row * N + col]` for 32 consecutive `row` are N * 4 bytes
 *   apart: 32 sectors per warp for 128 useful bytes.
 *
 * A strided read fetches whole 32-byte sectors and uses 4 bytes of each, but
 * the other 28 bytes stay in L1/L2, and the neighbouring warps (the next
 * seven columns of the same rows) use them before they are evicted. A
 * strided write cannot be fixed up that way: each partial sector must be
 * merged in L2 with the rest of its sector before DRAM sees it.
 * The write-up measures both steps on the H200 and checks this argument
 * against Nsight Compute's sector counts.
 *
 * ## What it assumes
 * Nothing about the shape: any M, N >= 1, past the grid limits and past
 * 2^31 elements (see step 01).
 *
 * ## Build and run
 *
 *     make step02
 *     ./build/step02 --rows 8192 --cols 8192
 *     make run STEP=02 ARGS="--rows 4096 --cols 4096"
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

static const kernel_variant step02_variants[] = {
    {"coalesced_write", "one thread per element, mapped along the output; strided reads, coalesced writes",
     launch_coalesced_write},
};

/* Not static: the exercise grader links this step's kernel by this name. */
extern "C" const step_desc step02 = {
    "02", "coalesced_write", "Coalesced writes, strided reads",
    step02_variants, 1,
};

STEP_MAIN(step02)
