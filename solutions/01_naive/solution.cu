/**
 * @file solution.cu
 * @brief Reference solution to exercise 01: the naive transpose with one-dimensional blocks.
 *
 * Every block is one row of SEGMENT threads and copies SEGMENT neighbouring
 * elements of one input row. Reads stay coalesced (a warp reads 128
 * contiguous bytes) and writes stay strided, exactly as in step 01. What
 * changes is who shares a 32-byte output sector: step 01's 32 x 8 block
 * covers eight neighbouring input rows, so each sector of `out` it touches
 * gets 8 floats from one block; here a block covers a single row, so each
 * sector gets 1 float from each of 8 different blocks, which may run on
 * different SMs at different times.
 *
 * Task: exercises/01_naive/README.md. Grade: `make grade EX=01`.
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
    const size_t segments_per_row = ceil_div(cols, SEGMENT);
    const size_t segments = rows * segments_per_row;
    for (size_t segment = blockIdx.x; segment < segments; segment += gridDim.x) {
        const size_t row = segment / segments_per_row;                            // row of `in`
        const size_t col = (segment % segments_per_row) * SEGMENT + threadIdx.x;  // column of `in`
        if (col < cols)
            out[col * rows + row] = in[row * cols + col];  // coalesced read, strided write
    }
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

/** @brief The reference kernel, as the grader (lab/grade_main.cu) links it: not static. */
extern "C" const kernel_variant solution_01 = {
    "naive_1d", "one thread per element in 256x1 blocks along an input row", launch_naive_1d, ANY_GPU,
};
