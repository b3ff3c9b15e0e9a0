/**
 * @file example.c
 * @brief The library outside the tutorial: a C program that transposes
 *        float32 and bf16 matrices of a few shapes with transpose_f32() and
 *        transpose_bf16(), and checks each, bit for bit, against a loop on
 *        the CPU.
 *
 * It uses nothing but ../transpose/ and the CUDA runtime:
 *
 *     make            # nvcc -c ../transpose/transpose.cu, cc example.c, link with -lcudart
 *     ./example
 *
 * One line per case: PASS or FAIL, the element type, the shape and the
 * kernel the rule chose. Exit 0 if every case is exact, 1 if one is not,
 * 3 where the GPU cannot be used (one line on stderr says why).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "transpose.h"

/** @brief A matrix to transpose: rows x cols. */
struct shape {
    size_t rows, cols;
};

/** Square, thin, vector and odd shapes: each takes a different kernel somewhere. */
static const struct shape SHAPES[] = {
    {4096, 4096}, {1000, 1}, {1, 4097}, {3, 100003}, {100003, 5}, {10007, 79}, {777, 1025}, {2048, 2052},
};

/** @brief Stop the program with one line and exit code 3 if @p err is not cudaSuccess. */
static void cuda_or_stop(cudaError_t err, const char *what)
{
    if (err != cudaSuccess) {
        fprintf(stderr, "error: %s: %s\n", what, cudaGetErrorString(err));
        exit(3);
    }
}

/** @brief Fill @p bytes bytes with a pattern in which no two nearby elements are equal. */
static void fill(unsigned char *bytes, size_t count)
{
    uint32_t state = 12345u;
    for (size_t i = 0; i < count; ++i) {
        state = state * 1664525u + 1013904223u;   // a linear congruential generator
        bytes[i] = (unsigned char)(state >> 24);
    }
}

/** @brief out = in transposed on the CPU, @p size bytes an element: the reference. */
static void transpose_on_cpu(const unsigned char *in, unsigned char *out, size_t rows, size_t cols, size_t size)
{
    for (size_t r = 0; r < rows; ++r)
        for (size_t c = 0; c < cols; ++c)
            memcpy(out + (c * rows + r) * size, in + (r * cols + c) * size, size);
}

/** @brief The kernel the library picks, then the transpose itself, of @p size-byte elements (4: float32, 2: bf16). */
static transpose_status run_library(const void *in, void *out, size_t rows, size_t cols, size_t size,
                                    const char **kernel)
{
    const transpose_status named = size == 4 ? transpose_f32_choice(in, out, rows, cols, kernel)
                                             : transpose_bf16_choice(in, out, rows, cols, kernel);
    if (named != TRANSPOSE_OK)
        return named;
    return size == 4 ? transpose_f32(in, out, rows, cols, 0) : transpose_bf16(in, out, rows, cols, 0);
}

/** @brief Transpose one matrix on the GPU and compare it with the CPU's; print its line. Returns 1 if exact. */
static int check_case(struct shape shape, size_t size)
{
    const size_t bytes = shape.rows * shape.cols * size;
    unsigned char *host_in = malloc(bytes), *host_out = malloc(bytes), *expected = malloc(bytes);
    if (!host_in || !host_out || !expected) {
        fprintf(stderr, "error: no host memory for a %zu x %zu matrix\n", shape.rows, shape.cols);
        exit(3);
    }
    fill(host_in, bytes);
    transpose_on_cpu(host_in, expected, shape.rows, shape.cols, size);
    void *in, *out;
    cuda_or_stop(cudaMalloc(&in, bytes), "cudaMalloc");
    cuda_or_stop(cudaMalloc(&out, bytes), "cudaMalloc");
    cuda_or_stop(cudaMemcpy(in, host_in, bytes, cudaMemcpyHostToDevice), "cudaMemcpy to the GPU");
    const char *kernel = "-";
    const transpose_status status = run_library(in, out, shape.rows, shape.cols, size, &kernel);
    if (status == TRANSPOSE_CUDA_ERROR)
        cuda_or_stop(transpose_cuda_error(), "the library");
    int exact = status == TRANSPOSE_OK;
    if (exact) {
        cuda_or_stop(cudaMemcpy(host_out, out, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy from the GPU");
        exact = memcmp(host_out, expected, bytes) == 0;
    }
    printf("%s %-7s %zux%zu %s\n", exact ? "PASS" : "FAIL", size == 4 ? "float32" : "bf16", shape.rows, shape.cols,
           status == TRANSPOSE_OK ? kernel : transpose_status_string(status));
    cuda_or_stop(cudaFree(in), "cudaFree");
    cuda_or_stop(cudaFree(out), "cudaFree");
    free(host_in);
    free(host_out);
    free(expected);
    return exact;
}

/** @brief Every shape of SHAPES, float32 then bf16: exit 0 if all are exact, 1 if not. */
int main(void)
{
    int failed = 0;
    for (size_t i = 0; i < sizeof SHAPES / sizeof SHAPES[0]; ++i) {
        failed += !check_case(SHAPES[i], sizeof(float));
        failed += !check_case(SHAPES[i], sizeof(uint16_t));
    }
    return failed ? 1 : 0;
}
