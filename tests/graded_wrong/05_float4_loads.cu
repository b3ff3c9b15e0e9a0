// Caught by: Technique (16-byte float4 loads, step 05's width, where the task asks for 8-byte float2 loads)
/**
 * @file 05_float4_loads.cu
 * @brief Exercise 05 answered with step 05's vector width: quads of four elements read
 *        with one 16-byte load each. Correct on every shape and offset, but not the task.
 *
 * The compiled code has LDG.E.128 and no LDG.E.64, which the exercise's requirements
 * forbid and require. tests/test_grader.py grades it.
 */
#include <stdint.h>

#include "harness.h"
#include "kernel_utils.cuh"

/** Floats per vector load: 4, where the task says 2. */
#define VEC 4
/** Threads per block down the input's rows (one warp: coalesced writes). */
#define BLOCK_ROWS 32
/** Threads per block across the input's columns; each moves VEC columns. */
#define BLOCK_QUADS 8

/** @brief Four neighbouring elements of one input row per thread, one float4 load when aligned. */
static __global__ void transpose_quads(const float *__restrict__ in, float *__restrict__ out,
                                       size_t rows, size_t cols)
{
    const bool quads_aligned = is_aligned_16(in) && cols % VEC == 0;
    const size_t tiles_x = ceil_div(rows, BLOCK_ROWS);
    const size_t tiles_y = ceil_div(cols, BLOCK_QUADS * VEC);
    for (size_t tile_y = blockIdx.y; tile_y < tiles_y; tile_y += gridDim.y) {
        for (size_t tile_x = blockIdx.x; tile_x < tiles_x; tile_x += gridDim.x) {
            const size_t row = tile_x * BLOCK_ROWS + threadIdx.x;
            const size_t col = (tile_y * BLOCK_QUADS + threadIdx.y) * VEC;
            if (row >= rows || col >= cols)
                continue;
            const float *src = in + row * cols + col;
            if (quads_aligned) {
                const float4 quad = *(const float4 *)src;
                out[col * rows + row] = quad.x;
                out[(col + 1) * rows + row] = quad.y;
                out[(col + 2) * rows + row] = quad.z;
                out[(col + 3) * rows + row] = quad.w;
            } else {
                for (int k = 0; k < VEC && col + k < cols; ++k)
                    out[(col + k) * rows + row] = src[k];
            }
        }
    }
}

/** @brief Launch transpose_quads() over the whole matrix with 32 x 8 blocks. */
static size_t launch_quads(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    const dim3 block(BLOCK_ROWS, BLOCK_QUADS);
    const dim3 grid = grid_for_tiles(ceil_div(rows, BLOCK_ROWS), ceil_div(cols, BLOCK_QUADS * VEC));
    transpose_quads<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief The planted answer, under the skeleton's name. */
extern "C" const kernel_variant exercise_05 = {
    "float2", "planted: float4 quads instead of float2 pairs", launch_quads, ANY_GPU,
};
