// Caught by: Correctness (wrote past the end of the output: the last pair's float2 store on an odd-sized matrix)
/**
 * @file 01_writes_past_end.cu
 * @brief Exercise 01 with a store one float past the end of the output that never
 *        changes the result and that no sanitizer reports.
 *
 * Each thread writes two neighbouring elements of the output with one float2 store
 * whenever the output is 8-byte aligned. On a matrix with an odd number of elements
 * the last pair has only one element: its second load is guarded, its store is not,
 * so 4 bytes land just past the end of the output. Every element of the matrix is
 * right, and the harness's buffers are a little larger than the matrix, so the store
 * stays inside the allocation and memcheck says nothing; initcheck only looks at
 * reads. The harness poisons that slack and checks it after every run, which is what
 * catches it. The loads gather down the input's columns: slow, but never timed.
 */
#include <stdint.h>

#include "harness.h"
#include "kernel_utils.cuh"

/** Threads per block. */
#define BLOCK 256

/** @brief out[i] for output position i: output row i / rows is input column i / rows. */
static __device__ float output_element(const float *in, size_t rows, size_t cols, size_t i)
{
    return in[(i % rows) * cols + i / rows];
}

/** @brief One thread per pair of neighbouring output elements, over the whole output. */
static __global__ void transpose_pairs(const float *in, float *out, size_t rows, size_t cols)
{
    const size_t count = rows * cols;
    const size_t pairs = ceil_div(count, 2);
    const bool aligned = ((uintptr_t)out & 7u) == 0;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t pair = (size_t)blockIdx.x * blockDim.x + threadIdx.x; pair < pairs;
         pair += stride) {
        const size_t first = 2 * pair;
        const float a = output_element(in, rows, cols, first);
        const float b = first + 1 < count ? output_element(in, rows, cols, first + 1) : 0.0f;
        if (aligned) {
            // The planted bug: when first + 1 == count this store writes 4 bytes past the end.
            *(float2 *)(out + first) = make_float2(a, b);
        } else {
            out[first] = a;
            if (first + 1 < count)
                out[first + 1] = b;
        }
    }
}

/** @brief Launch transpose_pairs() with one thread per output pair, clamped to the grid limit. */
static size_t launch_pairs(const float *in, float *out, size_t rows, size_t cols,
                           cudaStream_t stream)
{
    const dim3 block(BLOCK);
    const dim3 grid = grid_for_tiles(ceil_div(ceil_div(rows * cols, 2), BLOCK), 1);
    transpose_pairs<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief The planted answer, under the skeleton's name. */
extern "C" const kernel_variant exercise_01 = {
    "pairs",
    "planted: float2 stores of output pairs, the last one past the end",
    launch_pairs,
    ANY_GPU,
};
