/**
 * @file timing.h
 * @brief The pieces every timed run is made of: the poisoned output, the
 *        L2 flush, the hold that queues a batch of runs, and the median.
 *
 * One timed run, on the program's one stream, is
 *
 *     poison_output()  ->  l2_flush()  ->  event  ->  the kernel  ->  event
 *
 * and up to ::HOLD_BATCH_MAX of them are queued behind one hold kernel
 * (stream_hold_engage()), which spins on the GPU until the host has queued
 * the whole batch and calls stream_hold_release(). Without the hold the GPU
 * could finish one run before the host had queued the next, and a timed
 * window could then include time spent waiting for the host. The hold gives
 * up after ::HOLD_TIMEOUT_NS, so that a host that never releases it cannot
 * hang the GPU; harness.c then retries with smaller batches. harness.c runs
 * this loop; the kernels live in timing_kernels.cu.
 */
#ifndef TRANSPOSE_TIMING_H
#define TRANSPOSE_TIMING_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#include "gpu.h"
#include "options.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief `--flush read` reads a buffer of this many times the L2 size. */
#define FLUSH_READ_L2_MULTIPLE 4
/** @brief `--flush write` writes a buffer of this many times the L2 size (the older method). */
#define FLUSH_WRITE_L2_MULTIPLE 2
/** @brief Most timed runs queued behind one hold: a few hundred queued commands at most. */
#define HOLD_BATCH_MAX 32
/** @brief The hold kernel gives up after this many ns, so a dead host cannot hang the GPU. */
#define HOLD_TIMEOUT_NS 1000000000ull

/**
 * @brief Fill @p bytes of @p out with ::POISON_BYTE on @p stream, so that an
 *        element the next kernel forgets to write cannot pass the check.
 *
 * The only place that poisons an output: every checked and every timed run
 * goes through it.
 */
void poison_output(float *out, size_t bytes, cudaStream_t stream);

/** @brief What empties L2 before each timed run (see ::flush_method). */
typedef struct l2_flusher {
    flush_method method; /**< read, write or none */
    void *buffer;        /**< device buffer, a few times the L2 size; NULL for none */
    size_t bytes;        /**< its size */
} l2_flusher;

/** @brief Bytes the flusher of @p method allocates on @p gpu (0 for ::FLUSH_NONE). */
size_t l2_flusher_bytes(const gpu_info *gpu, flush_method method);
/** @brief Allocate (and zero) the flush buffer. */
void l2_flusher_open(l2_flusher *f, const gpu_info *gpu, flush_method method);
/** @brief Free the flush buffer (safe on a zeroed flusher). */
void l2_flusher_close(l2_flusher *f);
/**
 * @brief Evict the matrices from L2 on @p stream, so that every timed run
 *        starts from DRAM as it would on a large matrix.
 *
 * ::FLUSH_READ reads the buffer with a kernel: every line the earlier work
 * left dirty (the output, the poison) is written back during the flush, and
 * L2 is left holding only clean lines, so no write-back lands inside the
 * next timed window. ::FLUSH_WRITE does what older versions did, a
 * cudaMemset of the buffer, which leaves L2 full of dirty lines.
 */
void l2_flush(const l2_flusher *f, cudaStream_t stream);
/**
 * @brief One phrase for the report's Timing line, e.g.
 *        "L2 flushed by reading 240 MiB (4 x L2) with a kernel".
 */
void describe_flush(const l2_flusher *f, char *out, size_t out_len);

/** @brief Index of the flag the host sets to release the hold (in stream_hold::host_flags). */
#define HOLD_RELEASE 0
/** @brief Index of the flag the hold kernel sets when it gave up waiting. */
#define HOLD_GAVE_UP 1

/**
 * @brief Two ints in mapped, pinned host memory that the host and the hold
 *        kernel share: the host writes ::HOLD_RELEASE, the kernel reads it
 *        over PCIe and writes ::HOLD_GAVE_UP if it times out.
 */
typedef struct stream_hold {
    volatile int *host_flags; /**< the flags as the host sees them (cudaHostAlloc) */
    int *device_flags;        /**< the same memory as the GPU sees it (cudaHostGetDevicePointer) */
} stream_hold;

/** @brief Allocate the flags in mapped, pinned host memory. */
void stream_hold_open(stream_hold *h);
/** @brief Free the flags (safe on a zeroed hold). */
void stream_hold_close(stream_hold *h);
/**
 * @brief Clear the flags and queue the hold kernel on @p stream: everything
 *        queued after it waits until stream_hold_release() or the timeout.
 *
 * The previous hold must have finished (the stream synchronised), or it
 * would see its flag cleared again.
 */
void stream_hold_engage(stream_hold *h, cudaStream_t stream);
/** @brief Let the hold kernel finish: the GPU starts on the queued batch. */
void stream_hold_release(stream_hold *h);
/**
 * @brief Once the stream is synchronised: 1 if the hold kernel timed out
 *        instead of being released, else 0.
 */
int stream_hold_gave_up(const stream_hold *h);

/**
 * @brief Queue a kernel on @p stream that reads @p bytes (a multiple of 16)
 *        at @p buffer and writes nothing (timing_kernels.cu).
 */
void flush_read_launch(const void *buffer, size_t bytes, cudaStream_t stream);

/**
 * @brief Queue a one-thread kernel on @p stream that spins until
 *        `*release != 0`, or sets `*gave_up = 1` and returns after
 *        @p timeout_ns of the GPU's clock (timing_kernels.cu).
 * @param release    device pointer to mapped host memory that the host sets
 * @param gave_up    device pointer to mapped host memory that the host reads
 * @param timeout_ns how long to wait at most
 * @param stream     where to queue it
 */
void hold_launch(const int *release, int *gave_up, unsigned long long timeout_ns,
                 cudaStream_t stream);

/** @brief Median of @p n values (sorts them in place); the mean of the middle two if n is even. */
double median_of(double *values, int n);

#ifdef __cplusplus
}
#endif

#endif /* TRANSPOSE_TIMING_H */
