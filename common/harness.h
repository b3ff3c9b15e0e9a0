/**
 * @file harness.h
 * @brief The contract between a step and the shared test bench.
 *
 * A step file holds only its own idea: one or more kernels and a launcher
 * for each. It describes them in a ::step_desc and hands that to
 * run_step(), which does everything the steps share: the command line,
 * random input, the CPU reference, poisoning the output, bit-exact
 * verification, timing, the copy-bound and cuBLAS baselines, and the report.
 *
 * A step file therefore ends like this:
 * @code
 * static const kernel_variant variants[] = {
 *     {"naive", "one thread per element, 32x8 blocks", launch_naive},
 * };
 * static const step_desc step01 = {"01", "naive", "Naive transpose", variants, 1};
 * STEP_MAIN(step01)
 * @endcode
 */
#ifndef TRANSPOSE_HARNESS_H
#define TRANSPOSE_HARNESS_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#include "check.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Launch one transpose on @p stream: @p in is rows x cols, row-major;
 *        @p out is cols x rows, row-major.
 *
 * The launcher must handle every shape with rows, cols >= 1 (grid limits,
 * more than 2^31 elements, widths that are not a multiple of the vector
 * width, and pointers that are 4-byte but not 16-byte aligned).
 * It only launches; the harness checks the launch and synchronises.
 *
 * @return the number of threads it launched, for the report.
 */
typedef size_t (*transpose_launcher)(const float *in, float *out,
                                     size_t rows, size_t cols,
                                     cudaStream_t stream);

/** @brief One kernel of a step, selectable with `--variant NAME`. */
typedef struct kernel_variant {
    const char *name;            /**< short name: the CSV's `kernel` column */
    const char *summary;         /**< one line for `--help` */
    transpose_launcher launch;   /**< the launcher */
} kernel_variant;

/** @brief What a step tells the harness about itself. */
typedef struct step_desc {
    const char *number;                /**< two digits, e.g. "05": the CSV's `step` column */
    const char *name;                  /**< directory name without the number, e.g. "float4" */
    const char *title;                 /**< one line for the report header and `--help` */
    const kernel_variant *variants;    /**< the step's kernels; the first is the default */
    int variant_count;                 /**< number of entries in @p variants */
} step_desc;

/**
 * @brief Run a whole step program: parse the command line, check every
 *        selected kernel bit for bit and, unless `--check-only`, time it
 *        against the baselines and print the report.
 * @return an ::exit_code, meant to be returned from main().
 */
int run_step(int argc, char **argv, const step_desc *step);

#ifdef __cplusplus
}
#endif

/**
 * @brief Define main() for a step program.
 *
 * When several steps' kernels are linked into one program (the exercise
 * grader does this), each file is compiled with `-DTRANSPOSE_NO_MAIN`, which
 * turns this macro into nothing and leaves only the launchers.
 */
#ifdef TRANSPOSE_NO_MAIN
#define STEP_MAIN(desc)
#else
#define STEP_MAIN(desc) \
    int main(int argc, char **argv) { return run_step(argc, argv, &(desc)); }
#endif

#endif /* TRANSPOSE_HARNESS_H */
