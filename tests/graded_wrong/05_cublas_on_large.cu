// Caught by: Technique (uses `cublasSgeam` from outside the file: on large shapes cuBLAS does the work)
/**
 * @file 05_cublas_on_large.cu
 * @brief A wrong answer to exercise 05 that the grader must catch: the reference's float2
 *        kernel on small shapes, cublasSgeam on large ones. Every result is right and the
 *        compiled code holds the float2 loads, but the work timed at 8192 x 8192 is cuBLAS's.
 *
 * tests/test_grader.py grades it: Technique FAILs, naming cublasSgeam; Speed is not timed.
 */
#include <stdint.h>

#include <cublas_v2.h>

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

/** @brief The reference's launch of transpose_float2() over the whole matrix with 32 x 8 blocks. */
static size_t launch_own(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    const dim3 block(BLOCK_ROWS, BLOCK_PAIRS);
    const dim3 grid = grid_for_tiles(ceil_div(rows, BLOCK_ROWS), ceil_div(cols, BLOCK_PAIRS * VEC));
    transpose_float2<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** Elements from which the launcher hands the work to someone else: more than any shape the sanitizers run. */
#define LARGE (1u << 22)

/** @brief transpose_float2() on small shapes; on large ones cublasSgeam, as the harness's baseline calls it. */
static size_t launch_cublas_on_large(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    if (rows * cols < LARGE)
        return launch_own(in, out, rows, cols, stream);
    static cublasHandle_t handle = NULL;
    if (handle == NULL)
        cublasCreate(&handle);
    cublasSetStream(handle, stream);
    const float one = 1.0f, zero = 0.0f;
    cublasSgeam(handle, CUBLAS_OP_T, CUBLAS_OP_N, (int)rows, (int)cols, &one, in, (int)cols, &zero, out, (int)rows,
                out, (int)rows);
    return rows * cols;
}

/** @brief The cheat, as the grader links it. */
extern "C" const kernel_variant exercise_05 = {
    "float2", "float2 on small shapes, cuBLAS on large ones", launch_cublas_on_large, ANY_GPU,
};
