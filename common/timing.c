/**
 * @file timing.c
 * @brief The poison, the L2 flusher, the hold's flags and the median
 *        (host side; the kernels are in timing_kernels.cu).
 */
#include "timing.h"

#include <stdatomic.h>
#include <stdlib.h>

#include "check.h"
#include "matrix.h"

void poison_output(float *out, size_t bytes, cudaStream_t stream)
{
    CUDA_CHECK(cudaMemsetAsync(out, POISON_BYTE, bytes, stream));
}

size_t l2_flusher_bytes(const gpu_info *gpu, flush_method method)
{
    const size_t multiple = method == FLUSH_READ    ? FLUSH_READ_L2_MULTIPLE
                            : method == FLUSH_WRITE ? FLUSH_WRITE_L2_MULTIPLE
                                                    : 0;
    return multiple * gpu->l2_bytes / 16 * 16; /* whole 16-byte vectors for the read kernel */
}

void l2_flusher_open(l2_flusher *f, const gpu_info *gpu, flush_method method)
{
    f->method = method;
    f->bytes = l2_flusher_bytes(gpu, method);
    f->buffer = NULL;
    if (f->bytes == 0)
        return;
    CUDA_CHECK(cudaMalloc(&f->buffer, f->bytes));
    /* Zeroed once, so that the read kernel never reads uninitialised memory. */
    CUDA_CHECK(cudaMemset(f->buffer, 0, f->bytes));
    /* Run the flush once now. A kernel's first launch loads it, and loading
     * may wait for the GPU to go idle: inside a held batch it would wait
     * for the hold kernel, which waits for the host. */
    l2_flush(f, 0);
    CUDA_CHECK(cudaDeviceSynchronize());
}

void l2_flusher_close(l2_flusher *f)
{
    if (f->buffer != NULL)
        CUDA_CHECK(cudaFree(f->buffer));
    f->buffer = NULL;
}

void l2_flush(const l2_flusher *f, cudaStream_t stream)
{
    if (f->buffer == NULL)
        return;
    if (f->method == FLUSH_READ) {
        flush_read_launch(f->buffer, f->bytes, stream);
        CUDA_CHECK(cudaGetLastError());
    } else if (f->method == FLUSH_WRITE) {
        CUDA_CHECK(cudaMemsetAsync(f->buffer, 0, f->bytes, stream));
    }
}

void describe_flush(const l2_flusher *f, char *out, size_t out_len)
{
    const double mib = (double)f->bytes / (1024.0 * 1024.0);
    if (f->method == FLUSH_READ && f->buffer != NULL)
        snprintf(out, out_len, "L2 flushed by reading %.0f MiB (%d x L2) with a kernel", mib,
                 FLUSH_READ_L2_MULTIPLE);
    else if (f->method == FLUSH_WRITE && f->buffer != NULL)
        snprintf(out, out_len, "L2 flushed by writing %.0f MiB (%d x L2) with cudaMemset", mib,
                 FLUSH_WRITE_L2_MULTIPLE);
    else
        snprintf(out, out_len, "L2 not flushed");
}

void stream_hold_open(stream_hold *h)
{
    void *host = NULL, *device = NULL;
    CUDA_CHECK(cudaHostAlloc(&host, 2 * sizeof(int), cudaHostAllocMapped));
    CUDA_CHECK(cudaHostGetDevicePointer(&device, host, 0));
    h->host_flags = (volatile int *)host;
    h->device_flags = (int *)device;
    h->host_flags[HOLD_RELEASE] = 1;
    h->host_flags[HOLD_GAVE_UP] = 0;
}

void stream_hold_close(stream_hold *h)
{
    if (h->host_flags != NULL)
        CUDA_CHECK(cudaFreeHost((void *)h->host_flags));
    h->host_flags = NULL;
    h->device_flags = NULL;
}

void stream_hold_engage(stream_hold *h, cudaStream_t stream)
{
    h->host_flags[HOLD_RELEASE] = 0;
    h->host_flags[HOLD_GAVE_UP] = 0;
    /* The flags must reach memory before the launch below can start the kernel. */
    atomic_thread_fence(memory_order_seq_cst);
    hold_launch(h->device_flags + HOLD_RELEASE, h->device_flags + HOLD_GAVE_UP, HOLD_TIMEOUT_NS,
                stream);
    CUDA_CHECK(cudaGetLastError());
}

void stream_hold_release(stream_hold *h)
{
    /* Keep the compiler and the CPU from moving this store before the
     * launches that the caller queued: the GPU must find them all queued. */
    atomic_thread_fence(memory_order_seq_cst);
    h->host_flags[HOLD_RELEASE] = 1;
}

int stream_hold_gave_up(const stream_hold *h)
{
    return h->host_flags[HOLD_GAVE_UP] != 0;
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
