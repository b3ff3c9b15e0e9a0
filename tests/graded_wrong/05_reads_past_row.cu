// Caught by: Sanitizers (initcheck: the last pair's 8-byte load reads 4 bytes past the end of `in`)
/**
 * @file 05_reads_past_row.cu
 * @brief Exercise 05 with an out-of-bounds read that never crashes and never changes
 *        the result.
 *
 * The kernel tests each pair's own address and uses one float2 load whenever it is
 * 8-byte aligned, even for the last pair of an odd-width row, whose second float does
 * not exist: it is the next row's first element, or, on the last row, the 4 bytes after
 * the matrix. That float is never stored, so every result is bit-exact. The harness
 * leaves a little padding after each buffer, so the read stays inside the allocation
 * and memcheck says nothing; initcheck sees a read of memory nobody wrote. (A separate
 * 4-byte load placed before the bounds check would not do: the compiler moves such a
 * load behind the check. One 8-byte load cannot be split.) tests/test_grader.py grades it.
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

/** @brief The reference's mapping, with the alignment tested per pair instead of per matrix. */
static __global__ void transpose_float2_per_pair(const float *__restrict__ in, float *__restrict__ out,
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
            if (is_aligned_8(src)) {
                // The planted bug: when col + 1 == cols this load reads a float past the row.
                const float2 pair = *(const float2 *)src;
                out[col * rows + row] = pair.x;
                if (col + 1 < cols)
                    out[(col + 1) * rows + row] = pair.y;
            } else {
                out[col * rows + row] = src[0];
                if (col + 1 < cols)
                    out[(col + 1) * rows + row] = src[1];
            }
        }
    }
}

/** @brief Launch transpose_float2_per_pair() over the whole matrix with 32 x 8 blocks. */
static size_t launch_float2_per_pair(const float *in, float *out, size_t rows, size_t cols,
                                     cudaStream_t stream)
{
    const dim3 block(BLOCK_ROWS, BLOCK_PAIRS);
    const dim3 grid = grid_for_tiles(ceil_div(rows, BLOCK_ROWS), ceil_div(cols, BLOCK_PAIRS * VEC));
    transpose_float2_per_pair<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief The planted answer, under the skeleton's name. */
extern "C" const kernel_variant exercise_05 = {
    "float2", "planted: float2 per aligned pair, reading past the last odd column",
    launch_float2_per_pair, ANY_GPU,
};
