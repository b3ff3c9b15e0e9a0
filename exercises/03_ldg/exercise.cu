/**
 * @file exercise.cu
 * @brief Exercise 03: step 03's change (const __restrict__ and __ldg) applied to step 01's kernel.
 *
 * Step 03 sends step 02's strided reads through the read-only data path.
 * Do the same to step 01's kernel, whose reads are coalesced and whose
 * writes are strided, and measure whether it helps there. The task, hints
 * and what speed to expect are in exercises/03_ldg/README.md.
 *
 * Grade: `make grade EX=03`. Until the TODO is done the kernel writes
 * nothing, and the grader reports FAIL.
 */
#include "harness.h"
#include "kernel_utils.cuh"

/** Threads per block along a row of the input (one warp), as in step 01. */
#define BLOCK_COLS 32
/** Rows of the input covered by one block, as in step 01. */
#define BLOCK_ROWS 8

/**
 * @brief Step 01's one-thread-per-element kernel with its read on the
 *        read-only data path; a block covers an 8 x 32 patch of `in`.
 */
static __global__ void transpose_naive_ldg(const float *__restrict__ in, float *__restrict__ out,
                                           size_t rows, size_t cols)
{
    // TODO(exercise 03): start from transpose_naive() in steps/01_naive/naive.cu
    // (threadIdx.x along a row of `in`, the same tile loops) and load the
    // input element with __ldg(&in[...]) instead of in[...]. The pointers
    // are already declared const __restrict__ above: why does __ldg need that?
    (void)in;
    (void)out;
    (void)rows;
    (void)cols;
}

/** @brief Launch transpose_naive_ldg() over the whole matrix with 32 x 8 blocks. */
static size_t launch_naive_ldg(const float *in, float *out, size_t rows, size_t cols,
                               cudaStream_t stream)
{
    const dim3 block(BLOCK_COLS, BLOCK_ROWS);
    const dim3 grid = grid_for_tiles(ceil_div(cols, BLOCK_COLS), ceil_div(rows, BLOCK_ROWS));
    transpose_naive_ldg<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief Your kernel, as the grader (tools/grade_main.cu) links it: not static. */
extern "C" const kernel_variant exercise_03 = {
    "naive_ldg", "your kernel: step 01's mapping with const __restrict__ and __ldg",
    launch_naive_ldg, ANY_GPU,
};
