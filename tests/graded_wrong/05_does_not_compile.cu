// Caught by: Correctness (the file does not compile: a name used before it is declared)
/**
 * @file 05_does_not_compile.cu
 * @brief Exercise 05 with a compile error: the kernel uses `pair` without declaring it.
 *        The grader must report it as a FAIL with the compiler's first error, and a
 *        batch must go on with the next student. tests/test_grader.py grades it.
 */
#include "harness.h"
#include "kernel_utils.cuh"

/** Threads per block down the input's rows. */
#define BLOCK_ROWS 32
/** Threads per block across the input's columns. */
#define BLOCK_PAIRS 8

/** @brief Does not compile: `pair` is never declared. */
static __global__ void transpose_float2(const float *__restrict__ in, float *__restrict__ out,
                                        size_t rows, size_t cols)
{
    const size_t row = blockIdx.x * BLOCK_ROWS + threadIdx.x;
    const size_t col = (blockIdx.y * BLOCK_PAIRS + threadIdx.y) * 2;
    if (row < rows && col < cols)
        out[col * rows + row] = pair.x;  // the planted error
    (void)in;
}

/** @brief Launch transpose_float2() (never reached: the file does not compile). */
static size_t launch_float2(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    const dim3 block(BLOCK_ROWS, BLOCK_PAIRS);
    const dim3 grid = grid_for_tiles(ceil_div(rows, BLOCK_ROWS), ceil_div(cols, BLOCK_PAIRS * 2));
    transpose_float2<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief The planted answer, under the skeleton's name. */
extern "C" const kernel_variant exercise_05 = {
    "float2", "planted: does not compile", launch_float2, ANY_GPU,
};
