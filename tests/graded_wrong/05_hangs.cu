// Caught by: Correctness (the kernel never finishes: a `continue` skips the loop's step)
/**
 * @file 05_hangs.cu
 * @brief Exercise 05 whose kernel hangs: its tile loop is a `while` with the step at the
 *        bottom, and the bounds check jumps over the step with `continue`, so a thread
 *        outside the matrix tests the same tile for ever. The grader must kill it at its
 *        time limit, report a FAIL, and (in a batch) go on with the next student.
 *        tests/test_grader.py grades it with a short --timeout.
 */
#include <stdint.h>

#include "harness.h"
#include "kernel_utils.cuh"

/** Floats per vector load. */
#define VEC 2
/** Threads per block down the input's rows (one warp: coalesced writes). */
#define BLOCK_ROWS 32
/** Threads per block across the input's columns; each moves VEC columns. */
#define BLOCK_PAIRS 8

/** @brief True when @p p may be read as a float2 (8-byte aligned). */
static __device__ bool is_aligned_8(const void *p)
{
    return ((uintptr_t)p & 7u) == 0;
}

/** @brief The reference kernel with its inner loop written as a while loop, wrongly. */
static __global__ void transpose_float2(const float *__restrict__ in, float *__restrict__ out,
                                        size_t rows, size_t cols)
{
    const bool pairs_aligned = is_aligned_8(in) && cols % VEC == 0;
    const size_t tiles_x = ceil_div(rows, BLOCK_ROWS);
    const size_t tiles_y = ceil_div(cols, BLOCK_PAIRS * VEC);
    for (size_t tile_y = blockIdx.y; tile_y < tiles_y; tile_y += gridDim.y) {
        size_t tile_x = blockIdx.x;
        while (tile_x < tiles_x) {
            const size_t row = tile_x * BLOCK_ROWS + threadIdx.x;
            const size_t col = (tile_y * BLOCK_PAIRS + threadIdx.y) * VEC;
            if (row >= rows || col >= cols)
                continue;  // the planted bug: the step below is skipped, for ever
            const float *src = in + row * cols + col;
            if (pairs_aligned) {
                const float2 pair = *(const float2 *)src;
                out[col * rows + row] = pair.x;
                out[(col + 1) * rows + row] = pair.y;
            } else {
                out[col * rows + row] = src[0];
                if (col + 1 < cols)
                    out[(col + 1) * rows + row] = src[1];
            }
            tile_x += gridDim.x;
        }
    }
}

/** @brief Launch transpose_float2() over the whole matrix with 32 x 8 blocks. */
static size_t launch_float2(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    const dim3 block(BLOCK_ROWS, BLOCK_PAIRS);
    const dim3 grid = grid_for_tiles(ceil_div(rows, BLOCK_ROWS), ceil_div(cols, BLOCK_PAIRS * VEC));
    transpose_float2<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief The planted answer, under the skeleton's name. */
extern "C" const kernel_variant exercise_05 = {
    "float2", "planted: never finishes", launch_float2, ANY_GPU,
};
