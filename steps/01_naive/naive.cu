/**
 * @file naive.cu
 * @brief Step 01: the naive transpose. One thread per element, reads coalesced, writes strided.
 *
 * ## The idea
 * Transposing a row-major M x N matrix `in` into the row-major N x M matrix
 * `out` is one assignment per element:
 *
 *     out[col * M + row] = in[row * N + col]
 *
 * The most direct CUDA version gives every element its own thread. Threads
 * are grouped in 32 x 8 blocks; `threadIdx.x` runs along a row of the input.
 *
 * ## What the memory system sees
 * A warp is 32 threads with consecutive `threadIdx.x`, so one warp handles 32
 * neighbouring elements of one input row:
 * - **reads** `in[row * N + col .. col + 31]`: 128 contiguous bytes, four
 *   32-byte sectors. This is *coalesced*: one request, no wasted bytes.
 * - **writes** `out[col * M + row]` for 32 consecutive `col`: 32 addresses
 *   M * 4 bytes apart, 32 different sectors for 128 useful bytes. This is
 *   *strided*: each 32-byte sector is written with 4 useful bytes at a time,
 *   and the L2 has to merge partial sectors before DRAM sees them.
 *
 * Step 02 swaps which side is coalesced; the write-up compares the two.
 *
 * ## What it assumes
 * Nothing about the shape: any M, N >= 1. The grid is clamped to the
 * hardware limits and each block walks tiles with grid-stride loops
 * (kernel_utils.cuh), so 5,000,000 x 3 works. Indices are `size_t`, so
 * matrices of more than 2^31 elements work.
 *
 * ## Build and run
 *
 *     make step01
 *     ./build/step01 --rows 8192 --cols 8192
 *     make run STEP=01 ARGS="--rows 4096 --cols 4096"
 *
 * Write-up: docs/steps/01_naive.md
 */
#include "harness.h"
#include "kernel_utils.cuh"

/** Threads per block along a row of the input (one warp). */
#define BLOCK_COLS 32
/** Rows of the input covered by one block. */
#define BLOCK_ROWS 8

/**
 * @brief One thread copies one element; a block covers a 8 x 32 patch of `in`.
 *
 * The two loops only matter when the matrix needs more blocks than the grid
 * limits allow; otherwise each runs exactly once.
 */
__global__ void transpose_naive(const float *in, float *out, size_t rows, size_t cols)
{
    const size_t tiles_y = ceil_div(rows, BLOCK_ROWS);
    const size_t tiles_x = ceil_div(cols, BLOCK_COLS);
    for (size_t tile_y = blockIdx.y; tile_y < tiles_y; tile_y += gridDim.y) {
        for (size_t tile_x = blockIdx.x; tile_x < tiles_x; tile_x += gridDim.x) {
            const size_t row = tile_y * BLOCK_ROWS + threadIdx.y;  // row of `in`
            const size_t col = tile_x * BLOCK_COLS + threadIdx.x;  // column of `in`
            if (row < rows && col < cols)
                out[col * rows + row] = in[row * cols + col];      // coalesced read, strided write
        }
    }
}

/** @brief Launch transpose_naive() over the whole matrix. */
static size_t launch_naive(const float *in, float *out, size_t rows, size_t cols,
                           cudaStream_t stream)
{
    const dim3 block(BLOCK_COLS, BLOCK_ROWS);
    const dim3 grid = grid_for_tiles(ceil_div(cols, BLOCK_COLS), ceil_div(rows, BLOCK_ROWS));
    transpose_naive<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

static const kernel_variant step01_variants[] = {
    {"naive", "one thread per element in 32x8 blocks; coalesced reads, strided writes",
     launch_naive},
};

/* Not static: the exercise grader links this step's kernel by this name. */
extern "C" const step_desc step01 = {
    "01", "naive", "Naive transpose: coalesced reads, strided writes",
    step01_variants, 1,
};

STEP_MAIN(step01)
