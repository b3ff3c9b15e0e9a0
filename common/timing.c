/**
 * @file timing.c
 * @brief CUDA-event timing with poisoned outputs and a flushed L2.
 */
#include "timing.h"

#include <stdlib.h>

#include "check.h"
#include "matrix.h"

size_t l2_flusher_bytes(const gpu_info *gpu)
{
    return 2 * gpu->l2_bytes;
}

void l2_flusher_open(l2_flusher *f, const gpu_info *gpu)
{
    f->bytes = l2_flusher_bytes(gpu);
    CUDA_CHECK(cudaMalloc(&f->buffer, f->bytes));
}

void l2_flusher_close(l2_flusher *f)
{
    if (f->buffer != NULL)
        CUDA_CHECK(cudaFree(f->buffer));
    f->buffer = NULL;
}

void l2_flush(l2_flusher *f, cudaStream_t stream)
{
    CUDA_CHECK(cudaMemsetAsync(f->buffer, 0, f->bytes, stream));
}

/** @brief qsort() order for doubles. */
static int compare_doubles(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double median_of(double *values, int n)
{
    qsort(values, (size_t)n, sizeof *values, compare_doubles);
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

void time_runs(contender *c, contender_runner run, void *context, float *out, size_t out_bytes,
               int warmup, int reps, l2_flusher *flusher, cudaStream_t stream)
{
    for (int i = 0; i < warmup; ++i) {
        CUDA_CHECK(cudaMemsetAsync(out, POISON_BYTE, out_bytes, stream));
        run(context, c);
    }
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    double *ms = (double *)malloc((size_t)reps * sizeof *ms);
    if (ms == NULL)
        die(EXIT_ENVIRONMENT, "out of host memory for %d timings", reps);
    for (int i = 0; i < reps; ++i) {
        CUDA_CHECK(cudaMemsetAsync(out, POISON_BYTE, out_bytes, stream));
        l2_flush(flusher, stream);
        CUDA_CHECK(cudaEventRecord(start, stream));
        run(context, c);
        CUDA_CHECK(cudaEventRecord(stop, stream));
        CUDA_CHECK(cudaEventSynchronize(stop));
        float elapsed = 0.0f;
        CUDA_CHECK(cudaEventElapsedTime(&elapsed, start, stop));
        ms[i] = elapsed;
    }
    c->median_ms = median_of(ms, reps);
    c->min_ms = ms[0]; /**< sorted by median_of */
    c->timed = 1;
    free(ms);
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
}
