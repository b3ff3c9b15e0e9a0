/**
 * @file exercise.cu
 * @brief Exercise 01: the naive transpose with one-dimensional blocks.
 *
 * Write the kernel below: one thread per element, blocks of SEGMENT x 1
 * threads, each block copying SEGMENT neighbouring elements of ONE input
 * row. The launcher is written for you. The task, hints and what speed to
 * expect are in exercises/01_naive/README.md.
 *
 * Grade: `make grade EX=01`. Until the TODO is done the kernel writes
 * nothing, and the grader reports FAIL.
 */
#include "harness.h"
#include "kernel_utils.cuh"

/** Threads per block, all of them along one input row. */
#define SEGMENT 256

static_assert(SEGMENT % 32 == 0 && SEGMENT <= 1024,
              "a segment must be whole warps and fit in one block");

/**
 * @brief One thread per element; the matrix is cut into segments of SEGMENT
 *        elements of one row, numbered row after row, and block b copies
 *        segments b, b + gridDim.x, ...
 */
static __global__ void transpose_naive_1d(const float *in, float *out, size_t rows, size_t cols)
{
    // TODO(exercise 01): copy every element of this block's segments.
    //  - How many segments does a row have? How many in the whole matrix?
    //  - Loop over segments: start at blockIdx.x, step gridDim.x (the grid
    //    may have fewer blocks than there are segments).
    //  - From the segment number, find the row and the first column; the
    //    thread's column is that plus threadIdx.x.
    //  - The last segment of a row may stick out past the last column.
    //  - Use size_t for every index: rows * cols can exceed 2^32.
    (void)in;
    (void)out;
    (void)rows;
    (void)cols;
}

/** @brief Launch transpose_naive_1d() with one block per segment, clamped to the grid limit. */
static size_t launch_naive_1d(const float *in, float *out, size_t rows, size_t cols,
                              cudaStream_t stream)
{
    const dim3 block(SEGMENT);
    const dim3 grid = grid_for_tiles(rows * ceil_div(cols, SEGMENT), 1);
    transpose_naive_1d<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief Your kernel, as the grader (lab/grade_main.cu) links it: not static. */
extern "C" const kernel_variant exercise_01 = {
    "naive_1d", "your kernel: one thread per element in 256x1 blocks", launch_naive_1d, ANY_GPU,
};
