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

#include "baselines.h"   // copy_kernel_launch(): what a step's launcher runs on a vector, which is a copy
#include "check.h"
#include "step_table.h"   // transpose_launcher, kernel_variant, step_desc

#ifdef __cplusplus
extern "C" {
#endif

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
