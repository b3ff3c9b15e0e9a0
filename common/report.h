/**
 * @file report.h
 * @brief Printing a run: the human table and the CSV rows.
 *
 * Every ratio in a report is taken within one run, on the same buffers:
 * - `% of copy` = copy-bound time / this time, where the copy bound is the
 *   faster of `cudaMemcpy` and the copy kernel;
 * - `vs cuBLAS` = cublasSgeam time / this time (above 1 is faster than cuBLAS).
 */
#ifndef TRANSPOSE_REPORT_H
#define TRANSPOSE_REPORT_H

#include <stdio.h>

#include "gpu.h"
#include "harness.h"
#include "options.h"
#include "timing.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief The columns of `--csv`, in order. */
#define CSV_HEADER "gpu,step,kernel,rows,cols,median_ms,min_ms,gbps,pct_of_copy,vs_cublas,check"

/** @brief Everything a report prints. */
typedef struct report {
    const step_desc *step;         /**< the step that ran */
    const gpu_info *gpu;           /**< where it ran */
    const options *opt;            /**< the shape and settings */
    const contender *contenders;   /**< one row each */
    int count;                     /**< number of contenders */
} report;

/** @brief The median time of the copy bound (the faster copy), or 0 if none was timed. */
double copy_bound_ms(const report *r);
/** @brief The median time of cuBLAS, or 0 if it was not timed. */
double cublas_ms(const report *r);

/** @brief Print the header and one table row per contender. */
void print_table(FILE *out, const report *r);
/** @brief Print ::CSV_HEADER and one CSV row per contender. */
void print_csv(FILE *out, const report *r);

#ifdef __cplusplus
}
#endif

#endif /* TRANSPOSE_REPORT_H */
