// Caught by: Speed (a correct float2 kernel launched as one block: one multiprocessor does all the work)
/**
 * @file 05_one_block.cu
 * @brief The reference kernel of exercise 05, unchanged, behind a launcher that starts a
 *        single block. The grid-stride loops still cover every tile, so the result is
 *        bit-exact and the compiled code has the float2 loads; only the timing shows
 *        that one multiprocessor out of many does the whole transpose.
 *
 * tests/test_grader.py grades it: Correctness, Sanitizers and Technique PASS, Speed FAILs
 * far below the floor.
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

/** @brief Each thread moves VEC neighbouring elements of one input row, as in the reference. */
static __global__ void transpose_float2(const float *__restrict__ in, float *__restrict__ out,
                                        size_t rows, size_t cols)
{
    const bool pairs_aligned = is_aligned_8(in) && cols % VEC == 0;
    const size_t tiles_x = ceil_div(rows, BLOCK_ROWS);
    const size_t tiles_y = ceil_div(cols, BLOCK_PAIRS * VEC);
    for (size_t tile_y = blockIdx.y; tile_y < tiles_y; tile_y += gridDim.y) {
        for (size_t tile_x = blockIdx.x; tile_x < tiles_x; tile_x += gridDim.x) {
            const size_t row = tile_x * BLOCK_ROWS + threadIdx.x;
            const size_t col = (tile_y * BLOCK_PAIRS + threadIdx.y) * VEC;
            if (row >= rows || col >= cols)
                continue;
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
        }
    }
}

/** @brief Launch transpose_float2() as ONE block of 32 x 8 threads: correct, and very slow. */
static size_t launch_one_block(const float *in, float *out, size_t rows, size_t cols,
                               cudaStream_t stream)
{
    const dim3 block(BLOCK_ROWS, BLOCK_PAIRS);
    const dim3 grid(1, 1);  // the planted mistake: the grid-stride loops do everything
    transpose_float2<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief The planted answer, under the skeleton's name. */
extern "C" const kernel_variant exercise_05 = {
    "float2", "planted: the reference kernel launched as one block", launch_one_block, ANY_GPU,
};
