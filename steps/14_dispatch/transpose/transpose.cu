/**
 * @file transpose.cu
 * @brief The library's calls (transpose.h): check the arguments, ask the
 *        rule for a kernel, launch it, and say how it went.
 *
 * The kernels and the rules come from one generated header,
 * transpose_kernels.cuh, made from the tutorial's steps by `make
 * amalgamate`, so that this folder builds on its own:
 *
 *     nvcc -std=c++17 -O3 -arch=native -c transpose.cu
 *
 * Nothing here exits or prints. Arguments are checked before any CUDA call,
 * so a bad one costs no GPU work; a CUDA error is kept for
 * transpose_cuda_error() and returned as ::TRANSPOSE_CUDA_ERROR.
 */
#include <stdint.h>

#include "transpose.h"
#include "transpose_kernels.cuh"   // dispatch_f32_launch(), dispatch_bf16_launch(): every kernel, generated

/** The last CUDA error this thread was given back as TRANSPOSE_CUDA_ERROR. */
static thread_local cudaError_t last_cuda_error = cudaSuccess;

/** What the choice functions say of a matrix of one row or one column. */
static const char VECTOR_CHOICE[] = "copy: one row or one column is its own transpose, copied 16 bytes at a time";

/**
 * @brief Whether @p in and @p out can hold a @p rows x @p cols matrix of
 *        elements of @p size bytes each, apart from each other.
 */
static transpose_status arguments(const void *in, const void *out, size_t rows, size_t cols, size_t size)
{
    if (in == NULL || out == NULL || rows == 0 || cols == 0 || rows > SIZE_MAX / size / cols)
        return TRANSPOSE_BAD_ARGUMENT;
    const uintptr_t a = (uintptr_t)in, b = (uintptr_t)out, bytes = rows * cols * size;
    if ((a < b ? b - a : a - b) < bytes)   // the matrices overlap: a transpose in place is another problem
        return TRANSPOSE_BAD_ARGUMENT;
    if (a % size != 0 || b % size != 0)
        return TRANSPOSE_MISALIGNED;
    return TRANSPOSE_OK;
}

/** @brief TRANSPOSE_OK for cudaSuccess; else keep @p err for transpose_cuda_error() and say so. */
static transpose_status cuda_status(cudaError_t err)
{
    if (err == cudaSuccess)
        return TRANSPOSE_OK;
    last_cuda_error = err;
    return TRANSPOSE_CUDA_ERROR;
}

extern "C" transpose_status transpose_f32(const float *in, float *out, size_t rows, size_t cols,
                                          cudaStream_t stream)
{
    const transpose_status checked = arguments(in, out, rows, cols, sizeof(float));
    if (checked != TRANSPOSE_OK)
        return checked;
    f32_gpu gpu;
    const cudaError_t asked = f32_gpu_here(&gpu);
    if (asked != cudaSuccess)
        return cuda_status(asked);
    dispatch_f32_launch(gpu, in, out, rows, cols, stream);
    return cuda_status(cudaGetLastError());   // a launch reports its errors here
}

extern "C" transpose_status transpose_bf16(const void *in, void *out, size_t rows, size_t cols, cudaStream_t stream)
{
    const transpose_status checked = arguments(in, out, rows, cols, sizeof(uint16_t));
    if (checked != TRANSPOSE_OK)
        return checked;
    prmt_gpu gpu;
    const cudaError_t asked = bf16_gpu_here(&gpu);
    if (asked != cudaSuccess)
        return cuda_status(asked);
    dispatch_bf16_launch(gpu, (const uint16_t *)in, (uint16_t *)out, rows, cols, stream);
    return cuda_status(cudaGetLastError());
}

extern "C" transpose_status transpose_f32_choice(const float *in, const float *out, size_t rows, size_t cols,
                                                 const char **kernel)
{
    const transpose_status checked = kernel ? arguments(in, out, rows, cols, sizeof(float)) : TRANSPOSE_BAD_ARGUMENT;
    if (checked != TRANSPOSE_OK)
        return checked;
    if (rows == 1 || cols == 1) {
        *kernel = VECTOR_CHOICE;
        return TRANSPOSE_OK;
    }
    f32_gpu gpu;
    const cudaError_t asked = f32_gpu_here(&gpu);
    if (asked != cudaSuccess)
        return cuda_status(asked);
    *kernel = f32_kernel_named(f32_pick_for(in, out, rows, cols, gpu));
    return TRANSPOSE_OK;
}

extern "C" transpose_status transpose_bf16_choice(const void *in, const void *out, size_t rows, size_t cols,
                                                  const char **kernel)
{
    const transpose_status checked = kernel ? arguments(in, out, rows, cols, sizeof(uint16_t)) : TRANSPOSE_BAD_ARGUMENT;
    if (checked != TRANSPOSE_OK)
        return checked;
    if (rows == 1 || cols == 1) {
        *kernel = VECTOR_CHOICE;
        return TRANSPOSE_OK;
    }
    prmt_gpu gpu;
    const cudaError_t asked = bf16_gpu_here(&gpu);
    if (asked != cudaSuccess)
        return cuda_status(asked);
    *kernel = bf16_kernel_named(bf16_pick((const uint16_t *)in, (const uint16_t *)out, rows, cols, gpu).kernel);
    return TRANSPOSE_OK;
}

extern "C" const char *transpose_status_string(transpose_status status)
{
    switch (status) {
    case TRANSPOSE_OK:
        return "ok";
    case TRANSPOSE_BAD_ARGUMENT:
        return "bad argument: a NULL pointer, a zero dimension, a matrix larger than memory, or in and out overlap";
    case TRANSPOSE_MISALIGNED:
        return "misaligned pointer: float32 needs 4-byte alignment, bf16 2-byte";
    case TRANSPOSE_CUDA_ERROR:
        return "a CUDA call failed: transpose_cuda_error() says which";
    }
    return "not a transpose_status";
}

extern "C" cudaError_t transpose_cuda_error(void)
{
    return last_cuda_error;
}
