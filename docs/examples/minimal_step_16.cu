/**
 * @file minimal_step_16.cu
 * @brief The smallest complete step of 2-byte elements (bf16, fp16): what
 *        changes from docs/examples/minimal_step.cu when an element is 2 bytes.
 *
 * Three things change, and nothing else:
 * - the kernel moves `uint16_t`: a transpose copies bits, so it needs no
 *   bf16 arithmetic, and the harness checks the bits;
 * - the variant is written with variant16(), which takes a launcher of
 *   2-byte elements;
 * - the step ends with STEP_DEFINE_16(), so the harness makes bf16 input,
 *   times the copy bound on the same bytes, counts 2 bytes an element and
 *   compares against cublasLtMatrixTransform (cublasSgeam has no 16-bit form).
 */
#include "harness.h"
#include "kernel_utils.cuh"

/** Threads per block in x: one warp along a row of the input. */
#define TILE_COLS 32
/** Threads per block in y. */
#define TILE_ROWS 8

/** @brief One thread per element: out[col][row] = in[row][col], 2 bytes at a time. */
__global__ void transpose_minimal_16(const uint16_t *in, uint16_t *out, size_t rows, size_t cols)
{
    const size_t tiles_y = ceil_div(rows, TILE_ROWS);
    const size_t tiles_x = ceil_div(cols, TILE_COLS);
    for (size_t tile_y = blockIdx.y; tile_y < tiles_y; tile_y += gridDim.y) {
        for (size_t tile_x = blockIdx.x; tile_x < tiles_x; tile_x += gridDim.x) {
            const size_t row = tile_y * TILE_ROWS + threadIdx.y;  // row of `in`
            const size_t col = tile_x * TILE_COLS + threadIdx.x;  // column of `in`
            if (row < rows && col < cols)
                out[col * rows + row] = in[row * cols + col];
        }
    }
}

/** @brief Launch transpose_minimal_16() over the whole matrix on @p stream. */
static size_t launch_minimal_16(const uint16_t *in, uint16_t *out, size_t rows, size_t cols,
                                cudaStream_t stream)
{
    const dim3 block(TILE_COLS, TILE_ROWS);
    const dim3 grid = grid_for_tiles(ceil_div(cols, TILE_COLS), ceil_div(rows, TILE_ROWS));
    transpose_minimal_16<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief The step's kernels, the default first, each a variant16(). */
static const kernel_variant variants[] = {
    variant16("naive", "one thread per 2-byte element; coalesced reads, strided writes", launch_minimal_16),
};

STEP_DEFINE_16("The smallest complete step of 2-byte elements: one thread per element", variants, NULL)
