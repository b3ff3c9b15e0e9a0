/**
 * @file transpose.h
 * @brief The tutorial's transpose as a library: out = in transposed, for
 *        float32 and bf16 matrices in GPU memory, on any shape.
 *
 * Plain C (C11 or C++): copy this folder, transpose/, into a project,
 * compile transpose.cu with nvcc, and link with the CUDA runtime. `in` is
 * `rows` x `cols`, row-major; `out` is `cols` x `rows`, row-major; neither
 * may overlap the other. Each call checks its arguments before it touches
 * the GPU, launches on `stream` and returns without waiting: the result is
 * there once the stream has run it, as after any kernel launch. The call
 * never exits and never prints; what went wrong is its ::transpose_status.
 *
 * Which kernel runs depends on the shape, on where the pointers start and
 * on the GPU (steps/14_dispatch/rules.h); transpose_f32_choice() and
 * transpose_bf16_choice() name it, and say why.
 */
#ifndef TRANSPOSE_H
#define TRANSPOSE_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @brief What a call of this library did. */
typedef enum transpose_status {
    TRANSPOSE_OK = 0,          /**< launched (or, for a *_choice() call, named) */
    TRANSPOSE_BAD_ARGUMENT,    /**< a NULL pointer, a zero dimension, a matrix larger than memory, or in and
                                    out overlapping; nothing was launched */
    TRANSPOSE_MISALIGNED,      /**< a pointer not on its element's size: float32 needs 4-byte and bf16
                                    2-byte alignment; nothing was launched */
    TRANSPOSE_CUDA_ERROR       /**< a CUDA call failed: transpose_cuda_error() says which error */
} transpose_status;

/**
 * @brief Transpose a @p rows x @p cols float32 matrix @p in into @p out
 *        (@p cols x @p rows) on @p stream; bit for bit.
 */
transpose_status transpose_f32(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream);

/**
 * @brief The same for 2-byte elements (bf16, fp16, int16): their bits are
 *        moved unchanged. @p in and @p out point at the first element.
 */
transpose_status transpose_bf16(const void *in, void *out, size_t rows, size_t cols, cudaStream_t stream);

/**
 * @brief Which kernel transpose_f32() runs on these pointers and shape on
 *        the current GPU, and the rule's reason, as one line in @p kernel
 *        (a string that lives as long as the program). Launches nothing.
 */
transpose_status transpose_f32_choice(const float *in, const float *out, size_t rows, size_t cols,
                                      const char **kernel);

/** @brief The same for transpose_bf16(). */
transpose_status transpose_bf16_choice(const void *in, const void *out, size_t rows, size_t cols,
                                       const char **kernel);

/** @brief One line saying what @p status means. */
const char *transpose_status_string(transpose_status status);

/**
 * @brief The CUDA error behind the last ::TRANSPOSE_CUDA_ERROR this thread
 *        was given (cudaSuccess if none); cudaGetErrorString() names it.
 */
cudaError_t transpose_cuda_error(void);

#ifdef __cplusplus
}
#endif

#endif /* TRANSPOSE_H */
