/**
 * @file report.h
 * @brief The rows of a run and how they are printed: the table, the CSV,
 *        the `--check-only` lines, `--help` and `--list-variants`.
 *
 * A row is one thing the harness checks and times on a shape: a copy
 * baseline, cuBLAS, or one of the program's own variants. Every ratio in a
 * report is taken within one run, on the same buffers:
 * - `% of copy` = copy-bound time / this time, where the copy bound is the
 *   faster of `cudaMemcpy` and the copy kernel;
 * - `vs cuBLAS` = cublasSgeam time / this time (above 1 is faster than cuBLAS).
 */
#ifndef TRANSPOSE_REPORT_H
#define TRANSPOSE_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "gpu.h"
#include "step_table.h"
#include "options.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief The columns of `--csv`, in order. */
#define CSV_HEADER \
    "gpu,step,kernel,role,rows,cols,offset,median_ms,min_ms,gbps,pct_of_copy,vs_cublas,check"

/** @brief Most rows one shape can have: three baselines and the program's variants. */
#define MAX_ROWS 40

/** @brief What a row runs. */
typedef enum row_kind {
    ROW_MEMCPY,      /**< cudaMemcpyAsync device to device (part of the copy bound) */
    ROW_COPY_KERNEL, /**< copy_kernel_launch() (part of the copy bound) */
    ROW_CUBLAS,      /**< cublasSgeam, the library transpose */
    ROW_VARIANT      /**< one of the program's own variants */
} row_kind;

/** @brief One row of the report: what ran on one shape, and what came out. */
typedef struct report_row {
    row_kind kind;              /**< what it runs */
    const char *name;           /**< the CSV's `kernel` column */
    char label[64];             /**< the table's first column */
    transpose_launcher launch;  /**< for ::ROW_VARIANT only */
    transpose_launcher_16 launch16;  /**< the same, in a step of 2-byte elements */
    permute_launcher permute;   /**< the same, in a step of tensor kernels */
    enum variant_output output; /**< for ::ROW_VARIANT only: what it writes (a bound copies) */
    char skip_reason[96];       /**< why it was not run, or empty: then it is SKIP */
    size_t threads;             /**< threads launched, 0 if not known */
    int checked;                /**< 1 once its output has been compared */
    size_t mismatches;          /**< wrong elements over every comparison */
    size_t bytes_past_end;      /**< bytes of the slack after the output that a run changed */
    size_t bytes_before_start;  /**< the same before it (a shape with an offset has some) */
    int timed;                  /**< 1 once median_ms and min_ms are set */
    double median_ms;           /**< median over the timed runs */
    double min_ms;              /**< fastest timed run */
} report_row;

/**
 * @brief The CSV's `role` column: "copy" (the copy baselines), "library"
 *        (cuBLAS), "kernel" (the step's transposes) or "bound" (a variant
 *        that copies, ::OUTPUT_COPY).
 */
const char *row_role(const report_row *row);
/**
 * @brief True when the row's output must equal its input (the copy
 *        baselines and the bounds that copy, ::OUTPUT_COPY), false when it
 *        is checked against the transpose.
 */
int row_copies_input(const report_row *row);
/** @brief True when the row wrote a wrong element or wrote outside its output. */
int row_wrong(const report_row *row);
/** @brief The CSV's `check` column: "SKIP" if skipped or never checked, else "PASS" or "FAIL". */
const char *row_check_word(const report_row *row);

/** @brief Everything the report of one shape prints. */
typedef struct report {
    const step_desc *step;  /**< the program that ran */
    const gpu_info *gpu;    /**< where it ran */
    const options *opt;     /**< the settings */
    const shape *shape;     /**< the shape of these rows */
    const report_row *rows; /**< one entry per row */
    int count;              /**< number of rows */
    size_t element_bytes;   /**< 4 or 2: the step's own type, or the one `--dtype` chose */
    const tensor_shape *tensor; /**< the shape's tensor, whose fold its rows and cols are; NULL for a matrix */
} report;

/** @brief The median time of the copy bound (the faster copy), or 0 if none was timed. */
double copy_bound_ms(const report *r);
/** @brief The median time of cuBLAS, or 0 if it was not timed. */
double cublas_ms(const report *r);

/** @brief `--help`: the program, the shared options, the CSV columns and the variants. */
void print_usage(FILE *out, const char *program, const step_desc *step);
/**
 * @brief `--list-variants`: one line `name<TAB>min_cc<TAB>role<TAB>summary` per variant,
 *        role being `kernel` (a transpose) or `bound` (a copy, ::OUTPUT_COPY), as in the CSV.
 */
void print_variant_list(FILE *out, const step_desc *step);
/**
 * @brief `--describe`: the step as one JSON object, for the lab (lab/machine.py describe()):
 *        `step`, `name`, `title`, `element_type` ("float32" or "16-bit"), `element_bytes`,
 *        `default_variant`, `tensors` (true for a step of tensor kernels, step 15), `variants` (each `name`, `min_cc`, `role`, `summary`, as
 *        `--list-variants` prints them) and `csv_header` (::CSV_HEADER).
 */
void print_step_description(FILE *out, const step_desc *step);

/**
 * @brief The header printed once above the tables: the program, the GPU,
 *        the software and how every run was timed.
 * @param out   where to print
 * @param step  the program
 * @param gpu   the GPU it runs on
 * @param opt   the repetitions and warm-ups
 * @param flush how L2 is flushed, as describe_flush() says it
 */
void print_table_header(FILE *out, const step_desc *step, const gpu_info *gpu, const options *opt,
                        const char *flush);
/** @brief The table of one shape: its shape line and one line per row. */
void print_table(FILE *out, const report *r);

/** @brief Print ::CSV_HEADER, once per program. */
void print_csv_header(FILE *out);
/** @brief One CSV line per row of one shape; timing cells stay empty for rows not timed. */
void print_csv_rows(FILE *out, const report *r);

/**
 * @brief The `--check-only` lines of one shape, one per row:
 *        `PASS 07 shared_padded 33x4097+1`,
 *        `FAIL 07 shared_padded 33x4097+1 (12 wrong elements)`,
 *        `FAIL 05 student 31x33 (wrote past the end of the output)` or
 *        `SKIP 12 tma 33x4097 (needs compute capability 9.0, this GPU is 8.6)`.
 */
void print_check_lines(FILE *out, const report *r);

#ifdef __cplusplus
}
#endif

#endif /* TRANSPOSE_REPORT_H */
