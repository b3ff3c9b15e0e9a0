/**
 * @file baselines.c
 * @brief The cuBLAS transpose baseline.
 */
#include "baselines.h"

#include <limits.h>

#include "check.h"

/** @brief Check a cuBLAS call; cuBLAS errors are environment failures. */
#define CUBLAS_CHECK(call)                                                                   \
    do {                                                                                     \
        cublasStatus_t cublas_status_ = (call);                                              \
        if (cublas_status_ != CUBLAS_STATUS_SUCCESS)                                         \
            die(EXIT_ENVIRONMENT, "%s failed: %s at %s:%d", #call,                           \
                cublasGetStatusString(cublas_status_), __FILE__, __LINE__);                  \
    } while (0)

int cublas_shape_supported(size_t rows, size_t cols)
{
    return rows <= (size_t)INT_MAX && cols <= (size_t)INT_MAX;
}

cublasHandle_t cublas_open(cudaStream_t stream)
{
    cublasHandle_t handle = NULL;
    CUBLAS_CHECK(cublasCreate(&handle));
    CUBLAS_CHECK(cublasSetStream(handle, stream));
    return handle;
}

void cublas_transpose(cublasHandle_t handle, const float *in, float *out, size_t rows, size_t cols)
{
    const float alpha = 1.0f;
    const float beta = 0.0f;
    const int m = (int)rows, n = (int)cols;
    CUBLAS_CHECK(cublasSgeam(handle, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &alpha, in, n, &beta, out, m,
                             out, m));
}
