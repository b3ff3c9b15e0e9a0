/**
 * @file exercise.cu
 * @brief Exercise 05: float2 instead of float4, correct for every shape and every 4-byte-aligned
 *        pointer.
 *
 * Write a kernel in which each thread reads two neighbouring elements of one
 * input row with a single 8-byte float2 load and writes them to two output
 * rows, with a scalar path wherever an 8-byte load is not allowed. The task,
 * hints and what speed to expect are in exercises/05_float4/README.md.
 *
 * Grade: `make grade EX=05`. Until the TODO is done the kernel writes
 * nothing, and the grader reports FAIL.
 */
#include "harness.h"
#include "kernel_utils.cuh"

/** Floats per vector load. */
#define VEC 2
/** Threads per block down the input's rows (one warp: coalesced writes). */
#define BLOCK_ROWS 32
/** Threads per block across the input's columns; each moves VEC columns. */
#define BLOCK_PAIRS 8

static_assert(sizeof(float2) == VEC * sizeof(float), "a float2 is two floats, no padding");

/**
 * @brief Each thread moves VEC neighbouring elements of one input row;
 *        a block covers BLOCK_ROWS rows x (BLOCK_PAIRS * VEC) columns of `in`.
 */
static __global__ void transpose_float2(const float *__restrict__ in, float *__restrict__ out,
                                        size_t rows, size_t cols)
{
    // TODO(exercise 05):
    //  - threadIdx.x runs down the rows of `in` (so a warp's writes to each
    //    output row are 32 consecutive floats); threadIdx.y picks a pair of
    //    columns: col = 2 * (tile * BLOCK_PAIRS + threadIdx.y).
    //  - Tiles are BLOCK_ROWS rows x BLOCK_PAIRS * VEC columns of `in`; walk
    //    them with grid-stride loops, in the same order as the launcher's grid.
    //  - *(const float2 *)p is only legal when p is 8-byte aligned. When are
    //    ALL row starts in + row * cols 8-byte aligned? Decide once, before
    //    the loops (then no warp diverges), and otherwise read the two
    //    elements one at a time.
    //  - The last pair of an odd-width row has only one element.
    (void)in;
    (void)out;
    (void)rows;
    (void)cols;
}

/** @brief Launch transpose_float2() over the whole matrix with 32 x 8 blocks. */
static size_t launch_float2(const float *in, float *out, size_t rows, size_t cols,
                            cudaStream_t stream)
{
    const dim3 block(BLOCK_ROWS, BLOCK_PAIRS);
    const dim3 grid = grid_for_tiles(ceil_div(rows, BLOCK_ROWS), ceil_div(cols, BLOCK_PAIRS * VEC));
    transpose_float2<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief Your kernel, as the grader (lab/grade_main.cu) links it: not static. */
extern "C" const kernel_variant exercise_05 = {
    "float2", "your kernel: 8-byte loads of two elements per thread, scalar when unaligned",
    launch_float2, ANY_GPU,
};
