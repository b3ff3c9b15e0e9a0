/**
 * @file baselines.h
 * @brief The two yardsticks every report measures beside the step's kernel.
 *
 * - **The copy bound.** A transpose reads and writes every element once,
 *   exactly like a copy, so no transpose can beat the best copy of the same
 *   bytes. The harness times both `cudaMemcpyAsync` (device to device) and
 *   copy_kernel_launch(), and takes the faster as the bound.
 * - **cuBLAS.** `cublasSgeam` with `C = 1 * A^T + 0 * B` is the library
 *   transpose this tutorial sets out to beat.
 */
#ifndef TRANSPOSE_BASELINES_H
#define TRANSPOSE_BASELINES_H

#include <stddef.h>
#include <stdint.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @brief cuBLASLt's handle, as cublasLt.h declares it (that header is not strict C: baselines.c includes it). */
typedef struct cublasLtContext *cublasLtHandle_t;

/**
 * @brief Copy @p count floats with 16-byte loads and stores where the
 *        pointers allow, scalar ones where they do not.
 * @return the number of threads launched
 */
size_t copy_kernel_launch(const float *in, float *out, size_t count, cudaStream_t stream);

/**
 * @brief True when cuBLAS can take this shape: its dimensions are `int`,
 *        so rows and cols must each be at most INT_MAX.
 */
int cublas_shape_supported(size_t rows, size_t cols);

/**
 * @brief Transpose with `cublasSgeam` on the handle's stream:
 *        @p in is rows x cols row-major, @p out cols x rows row-major.
 *
 * Row-major rows x cols is column-major cols x rows, so out = in^T is the
 * column-major call C(rows x cols) = 1 * op_T(A) + 0 * B with lda = cols
 * and ldc = rows. B is passed as C and, with beta = 0, contributes nothing.
 * Exits with ::EXIT_ENVIRONMENT if cuBLAS reports an error.
 */
void cublas_transpose(cublasHandle_t handle, const float *in, float *out, size_t rows, size_t cols);

/** @brief Create a cuBLAS handle bound to @p stream, or exit with one line. */
cublasHandle_t cublas_open(cudaStream_t stream);

/** @brief Create a cuBLASLt handle, or exit with one line. */
cublasLtHandle_t cublas_lt_open(void);

/** @brief Free what cublas_lt_open() made. */
void cublas_lt_close(cublasLtHandle_t handle);

/** @brief copy_kernel_launch() for @p count 2-byte elements (2-byte aligned pointers). */
size_t copy_kernel_launch_16(const uint16_t *in, uint16_t *out, size_t count, cudaStream_t stream);

/**
 * @brief The cuBLAS baseline of 2-byte elements: `cublasLtMatrixTransform`,
 *        cuBLASLt's C = alpha op(A) + beta op(B), with op(A) = A^T, beta = 0
 *        and A and C row-major bf16 (`CUDA_R_16BF`). cublasSgeam has no
 *        16-bit form.
 * @return 0, or -1 if cuBLASLt refuses the shape or the type, with the
 *         reason in @p why (the row is then a SKIP)
 */
int cublaslt_transpose_16(cublasLtHandle_t handle, const uint16_t *in, uint16_t *out, size_t rows,
                          size_t cols, cudaStream_t stream, char *why, size_t why_len);

#ifdef __cplusplus
}
#endif

#endif /* TRANSPOSE_BASELINES_H */
