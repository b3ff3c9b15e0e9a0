/**
 * @file baselines.c
 * @brief The cuBLAS transpose baseline.
 */
#include "baselines.h"

/* cublasLt.h declares a function without a prototype, which this build treats as an error. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <cublasLt.h>
#pragma GCC diagnostic pop

#include <limits.h>
#include <stdio.h>

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

cublasLtHandle_t cublas_lt_open(void)
{
    cublasLtHandle_t handle = NULL;
    CUBLAS_CHECK(cublasLtCreate(&handle));
    return handle;
}

void cublas_lt_close(cublasLtHandle_t handle)
{
    cublasLtDestroy(handle);
}

/** @brief A cuBLASLt layout of a row-major rows x cols bf16 matrix. */
static cublasStatus_t row_major_bf16(cublasLtMatrixLayout_t *layout, size_t rows, size_t cols)
{
    cublasStatus_t status = cublasLtMatrixLayoutCreate(layout, CUDA_R_16BF, rows, cols, (int64_t)cols);
    if (status != CUBLAS_STATUS_SUCCESS)
        return status;
    const cublasLtOrder_t order = CUBLASLT_ORDER_ROW;
    return cublasLtMatrixLayoutSetAttribute(*layout, CUBLASLT_MATRIX_LAYOUT_ORDER, &order, sizeof order);
}

int cublaslt_transpose_16(cublasLtHandle_t handle, const uint16_t *in, uint16_t *out, size_t rows,
                          size_t cols, cudaStream_t stream, char *why, size_t why_len)
{
    const float alpha = 1.0f, beta = 0.0f;
    const cublasOperation_t transpose = CUBLAS_OP_T;
    cublasLtMatrixTransformDesc_t desc = NULL;
    cublasLtMatrixLayout_t a = NULL, c = NULL;
    cublasStatus_t status = cublasLtMatrixTransformDescCreate(&desc, CUDA_R_32F);
    if (status == CUBLAS_STATUS_SUCCESS)
        status = cublasLtMatrixTransformDescSetAttribute(desc, CUBLASLT_MATRIX_TRANSFORM_DESC_TRANSA, &transpose,
                                                         sizeof transpose);
    if (status == CUBLAS_STATUS_SUCCESS)
        status = row_major_bf16(&a, rows, cols);
    if (status == CUBLAS_STATUS_SUCCESS)
        status = row_major_bf16(&c, cols, rows);
    if (status == CUBLAS_STATUS_SUCCESS)   /* B is not read when beta is 0 */
        status = cublasLtMatrixTransform(handle, desc, &alpha, in, a, &beta, NULL, NULL, out, c, stream);
    if (c != NULL)
        cublasLtMatrixLayoutDestroy(c);
    if (a != NULL)
        cublasLtMatrixLayoutDestroy(a);
    if (desc != NULL)
        cublasLtMatrixTransformDescDestroy(desc);
    if (status == CUBLAS_STATUS_SUCCESS)
        return 0;
    snprintf(why, why_len, "cublasLtMatrixTransform refused bf16 at this shape: %s",
             cublasGetStatusString(status));
    return -1;
}
