// Caught by: Technique (no 8-byte float2 load anywhere: every element is read 4 bytes at a time)
/**
 * @file 05_scalar_loads.cu
 * @brief A correct answer to exercise 05 that skips the technique: it reads every
 *        element with its own 4-byte load, so the compiled code has no LDG.E.64.
 *
 * Bit-exact on every shape, clean under every sanitizer, and not much slower than
 * the reference: only the check of the compiled code can tell that the task (an
 * 8-byte float2 load per pair) was not done. tests/test_grader.py grades it.
 */
#include "harness.h"
#include "kernel_utils.cuh"

/** Floats per pair. */
#define VEC 2
/** Threads per block down the input's rows (one warp: coalesced writes). */
#define BLOCK_ROWS 32
/** Threads per block across the input's columns; each moves VEC columns. */
#define BLOCK_PAIRS 8

/** @brief Two neighbouring elements of one input row per thread, each read on its own. */
static __global__ void transpose_pairs_scalar(const float *__restrict__ in, float *__restrict__ out,
                                              size_t rows, size_t cols)
{
    const size_t tiles_x = ceil_div(rows, BLOCK_ROWS);
    const size_t tiles_y = ceil_div(cols, BLOCK_PAIRS * VEC);
    for (size_t tile_y = blockIdx.y; tile_y < tiles_y; tile_y += gridDim.y) {
        for (size_t tile_x = blockIdx.x; tile_x < tiles_x; tile_x += gridDim.x) {
            const size_t row = tile_x * BLOCK_ROWS + threadIdx.x;
            const size_t col = (tile_y * BLOCK_PAIRS + threadIdx.y) * VEC;
            if (row >= rows || col >= cols)
                continue;
            const float *src = in + row * cols + col;
            out[col * rows + row] = src[0];  // 4 bytes, never 8: the task's float2 is missing
            if (col + 1 < cols)
                out[(col + 1) * rows + row] = src[1];
        }
    }
}

/** @brief Launch transpose_pairs_scalar() over the whole matrix with 32 x 8 blocks. */
static size_t launch_pairs_scalar(const float *in, float *out, size_t rows, size_t cols,
                                  cudaStream_t stream)
{
    const dim3 block(BLOCK_ROWS, BLOCK_PAIRS);
    const dim3 grid = grid_for_tiles(ceil_div(rows, BLOCK_ROWS), ceil_div(cols, BLOCK_PAIRS * VEC));
    transpose_pairs_scalar<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief The planted answer, under the skeleton's name. */
extern "C" const kernel_variant exercise_05 = {
    "float2", "planted: pairs read with two 4-byte loads", launch_pairs_scalar, ANY_GPU,
};
