/**
 * @file grade_main.cu
 * @brief The grader program for one exercise: the student's kernel, the reference solution and
 *        the step's own kernel, checked and timed by the harness in one run on the same buffers.
 *
 * Compiled once per exercise with `-DEXERCISE=NN` (mk/exercises.mk does it)
 * and linked with three objects that define:
 * - `exercise_NN` (exercises/NN_name/exercise.cu): the student's launcher;
 * - `solution_NN` (solutions/NN_name/solution.cu): the reference answer;
 * - `stepNN` (the step's file in steps/NN_name/, compiled with -DTRANSPOSE_NO_MAIN):
 *   the step, whose default kernel (its first variant) runs as the third
 *   variant, with the step's setup hook.
 *
 * With `-DGRADE_SOLUTION` the reference solution also stands in for the
 * student (build/grade_NN_solution), which proves that it passes.
 *
 * The variants are always named `student`, `reference` and `step`, so
 * `--variant student` selects the student's kernel and lab/grade.py finds
 * the rows in the CSV by those names. Every other option is the harness's:
 * `build/grade_05 --help`.
 */
#include "harness.h"

#ifndef EXERCISE
#error "compile with -DEXERCISE=NN, the exercise's two-digit number"
#endif

/** @brief The reference solution's kernel: `solution_NN` in solutions/NN_name/solution.cu. */
extern "C" const kernel_variant HARNESS_CAT(solution_, EXERCISE);
/** @brief The step: `stepNN` in the step's file, whose first variant is its default kernel. */
extern "C" const step_desc HARNESS_CAT(step, EXERCISE);

#ifdef GRADE_SOLUTION
/** The kernel graded as the student's: here the reference solution itself. */
#define STUDENT HARNESS_CAT(solution_, EXERCISE)
#else
/** @brief The student's kernel: `exercise_NN` in exercises/NN_name/exercise.cu. */
extern "C" const kernel_variant HARNESS_CAT(exercise_, EXERCISE);
/** The kernel graded as the student's. */
#define STUDENT HARNESS_CAT(exercise_, EXERCISE)
#endif

/**
 * @brief The grader's own step: the variants `student`, `reference` and `step`.
 *
 * Built inside a function, on its first call from main(), because it copies
 * fields of objects defined in other files, and C++ does not say in which
 * order the files' globals are initialised.
 */
static const step_desc &grader(void)
{
    const kernel_variant &reference = HARNESS_CAT(solution_, EXERCISE);
    const step_desc &step = HARNESS_CAT(step, EXERCISE);
    static kernel_variant variants[] = {
        {"student", STUDENT.summary, STUDENT.launch, STUDENT.min_cc},
        {"reference", reference.summary, reference.launch, reference.min_cc},
        {"step", step.variants[0].summary, step.variants[0].launch, step.variants[0].min_cc},
    };
    variants[0].launch16 = STUDENT.launch16;   // a step of 2-byte elements launches these
    variants[1].launch16 = reference.launch16;
    variants[2].launch16 = step.variants[0].launch16;
    variants[0].permute = STUDENT.permute;   // a step of tensor kernels (15) launches these
    variants[1].permute = reference.permute;
    variants[2].permute = step.variants[0].permute;
    static const step_desc desc = {
        HARNESS_STR(EXERCISE),
        step.name,
        "Exercise " HARNESS_STR(EXERCISE) ": your kernel vs the reference solution vs the step",
        variants,
        VARIANT_COUNT(variants),
        step.setup,
        step.element_bytes,
    };
    return desc;
}

STEP_MAIN(grader())
