/**
 * @file solution.cu
 * @brief Reference solution to exercise 05: float2 instead of float4, with the alignment check
 *        and the scalar path that make it correct for every shape and pointer.
 *
 * Each thread reads two neighbouring elements of one input row with a single
 * 8-byte load and writes them to two output rows. `threadIdx.x` runs down
 * the input's rows, so for each of the two values a warp writes 32
 * consecutive floats of one output row: coalesced. The reads are 8 bytes
 * from each of 32 rows; the block's 8 rows of threads read the rest of those
 * sectors (16 columns, 64 bytes of each row).
 *
 * A float2 load needs an 8-byte-aligned address. The row starts
 * `in + row * cols` all are exactly when `in` is 8-byte aligned and `cols`
 * is even; otherwise every thread takes the scalar path, which reads the
 * same two elements one at a time (and only the first when the row ends).
 *
 * Task: exercises/05_float4/README.md. Grade: `make grade EX=05`.
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

static_assert(sizeof(float2) == VEC * sizeof(float), "a float2 is two floats, no padding");

/** @brief True when @p p may be read as a float2 (8-byte aligned). */
static __device__ bool is_aligned_8(const void *p)
{
    return ((uintptr_t)p & 7u) == 0;
}

/**
 * @brief Each thread moves VEC neighbouring elements of one input row;
 *        a block covers BLOCK_ROWS rows x (BLOCK_PAIRS * VEC) columns of `in`.
 */
static __global__ void transpose_float2(const float *__restrict__ in, float *__restrict__ out,
                                        size_t rows, size_t cols)
{
    // The same answer for every thread, so the branch below never diverges.
    const bool pairs_aligned = is_aligned_8(in) && cols % VEC == 0;
    const size_t tiles_x = ceil_div(rows, BLOCK_ROWS);           // tiles down `in`
    const size_t tiles_y = ceil_div(cols, BLOCK_PAIRS * VEC);    // tiles along a row of `in`
    for (size_t tile_y = blockIdx.y; tile_y < tiles_y; tile_y += gridDim.y) {
        for (size_t tile_x = blockIdx.x; tile_x < tiles_x; tile_x += gridDim.x) {
            const size_t row = tile_x * BLOCK_ROWS + threadIdx.x;                // row of `in`
            const size_t col = (tile_y * BLOCK_PAIRS + threadIdx.y) * VEC;       // first of two columns
            if (row >= rows || col >= cols)
                continue;
            const float *src = in + row * cols + col;
            if (pairs_aligned) {
                // cols is even and col is even, so col + 1 < cols: both exist.
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

/** @brief Launch transpose_float2() over the whole matrix with 32 x 8 blocks. */
static size_t launch_float2(const float *in, float *out, size_t rows, size_t cols,
                            cudaStream_t stream)
{
    const dim3 block(BLOCK_ROWS, BLOCK_PAIRS);
    const dim3 grid = grid_for_tiles(ceil_div(rows, BLOCK_ROWS), ceil_div(cols, BLOCK_PAIRS * VEC));
    transpose_float2<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief The reference kernel, as the grader (lab/grade_main.cu) links it: not static. */
extern "C" const kernel_variant solution_05 = {
    "float2", "8-byte loads of two elements per thread, scalar path when rows are not 8-byte aligned",
    launch_float2, ANY_GPU,
};
