/**
 * @file timing.h
 * @brief The contenders of a run and how each is timed.
 */
#ifndef TRANSPOSE_TIMING_H
#define TRANSPOSE_TIMING_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#include "gpu.h"
#include "harness.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Most rows one report can hold: three baselines and the step's kernels. */
#define MAX_CONTENDERS 16

/** @brief What kind of thing a contender runs. */
typedef enum contender_kind {
    CONTENDER_MEMCPY,       /**< cudaMemcpyAsync device to device (part of the copy bound) */
    CONTENDER_COPY_KERNEL,  /**< copy_kernel_launch() (part of the copy bound) */
    CONTENDER_CUBLAS,       /**< cublasSgeam, the library transpose */
    CONTENDER_STEP          /**< one of the step's own kernels */
} contender_kind;

/** @brief One row of the report: what ran, and what came out. */
typedef struct contender {
    contender_kind kind;          /**< what it runs */
    const char *name;             /**< the CSV's `kernel` column */
    char label[64];               /**< the table's first column */
    transpose_launcher launch;    /**< for ::CONTENDER_STEP only */
    size_t threads;               /**< threads launched, 0 if not known */
    int checked;                  /**< 1 once its output has been compared */
    size_t mismatches;            /**< wrong elements over every comparison */
    int timed;                    /**< 1 once median_ms and min_ms are set */
    double median_ms;             /**< median over the timed runs */
    double min_ms;                /**< fastest timed run */
} contender;

/** @brief A buffer larger than L2, overwritten before each timed run. */
typedef struct l2_flusher {
    void *buffer;  /**< device buffer, twice the L2 size */
    size_t bytes;  /**< its size */
} l2_flusher;

/** @brief Bytes the flusher of @p gpu allocates (twice its L2). */
size_t l2_flusher_bytes(const gpu_info *gpu);
/** @brief Allocate the flush buffer. */
void l2_flusher_open(l2_flusher *f, const gpu_info *gpu);
/** @brief Free the flush buffer (safe on a zeroed flusher). */
void l2_flusher_close(l2_flusher *f);
/**
 * @brief Evict the matrices from L2 by writing the flush buffer, so that
 *        every timed run starts from DRAM as it would on a large matrix.
 */
void l2_flush(l2_flusher *f, cudaStream_t stream);

/** @brief Launches contender @p c once on the caller's buffers. */
typedef void (*contender_runner)(void *context, const contender *c);

/**
 * @brief Time @p c: @p warmup untimed runs, then @p reps runs each timed
 *        with CUDA events. Before every run the output is poisoned and,
 *        before every timed run, L2 is flushed, both outside the events.
 *        Sets c->median_ms, c->min_ms and c->timed.
 */
void time_runs(contender *c, contender_runner run, void *context, float *out, size_t out_bytes,
               int warmup, int reps, l2_flusher *flusher, cudaStream_t stream);

/** @brief Median of @p n values (sorts them in place); the mean of the middle two if n is even. */
double median_of(double *values, int n);

#ifdef __cplusplus
}
#endif

#endif /* TRANSPOSE_TIMING_H */
