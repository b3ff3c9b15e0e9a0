/**
 * @file harness.h
 * @brief The contract between a step and the shared test bench.
 *
 * A step file holds only its own idea: one or more kernels and a launcher
 * for each. It lists them in a table of ::kernel_variant and ends with
 * STEP_DEFINE(), which hands them to run_step(). run_step() does everything
 * the steps share: the command line, random input, the CPU reference,
 * poisoning the output, bit-exact verification, timing, the copy-bound and
 * cuBLAS baselines, and the report.
 *
 * The step's number and name are not typed in the file: the Makefile reads
 * them off the directory (`steps/07_shared_padded/` gives `-DSTEP_NUMBER=07
 * -DSTEP_NAME="shared_padded"`), and STEP_DEFINE() refuses to compile
 * without them.
 *
 * The smallest complete step is docs/examples/minimal_step.cu; the test
 * suite builds it as a step and grades it, so this example stays true:
 * @include minimal_step.cu
 */
#ifndef TRANSPOSE_HARNESS_H
#define TRANSPOSE_HARNESS_H

#include <stddef.h>
#include <stdint.h>
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

/**
 * @brief The same for a step of 2-byte elements (bf16, fp16): @p in and
 *        @p out hold the elements' bits, which a transpose moves unchanged.
 *
 * The pointers are 2-byte aligned; `--offset E` starts both matrices E
 * elements (0-7) past a 16-byte boundary.
 */
typedef size_t (*transpose_launcher_16)(const uint16_t *in, uint16_t *out,
                                        size_t rows, size_t cols,
                                        cudaStream_t stream);

/**
 * @brief One-time preparation before the first launch, outside every timed
 *        region (for example cudaFuncSetAttribute()). May be NULL.
 */
typedef void (*step_setup_hook)(void);

/** @brief Any GPU the build supports can run the variant (::kernel_variant::min_cc). */
#define ANY_GPU 0

/**
 * @brief What a variant writes into `out`, and so what the harness checks it against.
 *
 * A step's kernels transpose. A variant may instead be a *bound*: a kernel
 * that moves the bytes exactly as the step's kernel does but leaves out the
 * transposition, to show what the transposition itself costs. Its result is
 * a copy, so it is checked against the input, and the report gives it the
 * CSV role `bound`, which no summary takes for the step's kernel.
 */
enum variant_output {
    OUTPUT_TRANSPOSE = 0, /**< out (cols x rows) = the transpose of in: the default */
    OUTPUT_COPY           /**< out (rows x cols) = in, bit for bit: a bound, role `bound` */
};

/** @brief One kernel of a step, selectable with `--variant NAME`. */
typedef struct kernel_variant {
    const char *name;            /**< short name: the CSV's `kernel` column */
    const char *summary;         /**< one line for `--help` and `--list-variants` */
    transpose_launcher launch;   /**< the launcher */
    int min_cc;                  /**< lowest compute capability, as 10 * major + minor
                                      (90 for Hopper), or ::ANY_GPU; on an older GPU the
                                      variant is reported as SKIP with the reason */
    /**
     * What it writes: ::OUTPUT_TRANSPOSE, or ::OUTPUT_COPY for a bound.
     * In C++ (every step, exercise and solution file) it defaults to
     * ::OUTPUT_TRANSPOSE, so a variant written with only the four members
     * above is a transpose. C has no default member values: C code names
     * all five.
     */
#ifdef __cplusplus
    variant_output output = OUTPUT_TRANSPOSE;
    /** The launcher of a step of 2-byte elements (STEP_DEFINE_16()), whose `launch` is NULL. */
    transpose_launcher_16 launch16 = nullptr;
#else
    enum variant_output output;
    /** The launcher of a step of 2-byte elements; NULL in a float32 step. */
    transpose_launcher_16 launch16;
#endif
} kernel_variant;

#ifdef __cplusplus
/**
 * @brief A variant of a step of 2-byte elements: write
 *        `variant16("name", "summary", launcher)` in the step's table.
 */
static inline kernel_variant variant16(const char *name, const char *summary, transpose_launcher_16 launch,
                                       int min_cc = ANY_GPU, variant_output output = OUTPUT_TRANSPOSE)
{
    kernel_variant v = {name, summary, nullptr, min_cc, output};
    v.launch16 = launch;
    return v;
}
#endif

/** @brief Number of entries of a variant table (a true array, not a pointer). */
#define VARIANT_COUNT(table) ((int)(sizeof(table) / sizeof((table)[0])))

/** @brief What a step tells the harness about itself. */
typedef struct step_desc {
    const char *number;                /**< two digits, e.g. "05": the CSV's `step` column */
    const char *name;                  /**< directory name without the number, e.g. "float4" */
    const char *title;                 /**< one line for the report header, `--help` and the
                                            README's step table */
    const kernel_variant *variants;    /**< the step's kernels; the first is the default,
                                            and must be a transpose (::OUTPUT_TRANSPOSE) */
    int variant_count;                 /**< number of entries in @p variants */
    step_setup_hook setup;             /**< called once before the first launch; may be NULL */
    size_t element_bytes;              /**< 4 (float32, STEP_DEFINE()) or 2 (STEP_DEFINE_16()) */
} step_desc;

/**
 * @brief Bytes per element of @p step: its element_bytes, or 4 (float32)
 *        where a ::step_desc written by hand leaves it 0.
 */
static inline size_t step_element_bytes(const step_desc *step)
{
    return step->element_bytes != 0 ? step->element_bytes : sizeof(float);
}

/** @brief "float32" or "16-bit": what the report calls the elements of @p step. */
static inline const char *step_element_name(const step_desc *step)
{
    return step_element_bytes(step) == 2 ? "16-bit" : "float32";
}

/**
 * @brief Run a whole step program: parse the command line, check every
 *        selected kernel bit for bit on every requested shape and, unless
 *        `--check-only`, time it against the baselines and print the report.
 * @return an ::exit_code, meant to be returned from main().
 */
int run_step(int argc, char **argv, const step_desc *step);

#ifdef __cplusplus
}
#endif

/** @brief Turn the expansion of @p x into a string literal. */
#define HARNESS_STR(x) HARNESS_STR_(x)
/** @brief Helper of HARNESS_STR(): stringizes without expanding. */
#define HARNESS_STR_(x) #x
/** @brief Paste two tokens after expanding them: HARNESS_CAT(step, 05) is step05. */
#define HARNESS_CAT(a, b) HARNESS_CAT_(a, b)
/** @brief Helper of HARNESS_CAT(): pastes without expanding. */
#define HARNESS_CAT_(a, b) a##b

/**
 * @brief Define the step: its ::step_desc, named `stepNN` so that the
 *        exercise grader can link it, and main().
 *
 * @param title    one line: what this step does (the README's step table shows it)
 * @param variants the step's ::kernel_variant table; the first is the default
 * @param setup    a ::step_setup_hook, or NULL
 * @param element_bytes 4 for float32 (STEP_DEFINE()), 2 for 16-bit elements (STEP_DEFINE_16())
 *
 * The number and name come from the directory through the Makefile.
 */
#if !defined(STEP_NUMBER) || !defined(STEP_NAME)
#define STEP_DEFINE_ELEMENTS(title, variants, setup, element_bytes)                              \
    static_assert(false, "build steps with make: it sets STEP_NUMBER and STEP_NAME from the " \
                         "step's directory")
#else
#define STEP_DEFINE_ELEMENTS(title, variants, setup, element_bytes)                          \
    extern "C" const step_desc HARNESS_CAT(step, STEP_NUMBER) = {                           \
        HARNESS_STR(STEP_NUMBER), STEP_NAME, title, variants, VARIANT_COUNT(variants), setup, \
        element_bytes};                                                                      \
    STEP_MAIN(HARNESS_CAT(step, STEP_NUMBER))
#endif
/** @brief STEP_DEFINE() of a float32 step: every step up to the float32 answer. */
#define STEP_DEFINE(title, variants, setup) STEP_DEFINE_ELEMENTS(title, variants, setup, sizeof(float))
/** @brief STEP_DEFINE() of a step of 2-byte elements, whose variants are variant16()s. */
#define STEP_DEFINE_16(title, variants, setup) STEP_DEFINE_ELEMENTS(title, variants, setup, sizeof(uint16_t))

/**
 * @brief Define main() for a program that runs @p desc.
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
