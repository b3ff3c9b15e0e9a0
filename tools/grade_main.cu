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
 *   contestant.
 *
 * With `-DGRADE_SOLUTION` the reference solution also stands in for the
 * student (build/grade_NN_solution), which proves that it passes.
 *
 * The variants are always named `student`, `reference` and `step`, so
 * `--variant student` selects the student's kernel and tools/grade.sh finds
 * the rows in the CSV by those names. Every other option is the harness's:
 * `build/grade_05 --help`.
 */
#include "harness.h"

#ifndef EXERCISE
#error "compile with -DEXERCISE=NN, the exercise's two-digit number"
#endif

/** Paste two tokens after expanding them: GRADE_CAT(step, 05) is step05. */
#define GRADE_CAT(a, b) GRADE_CAT_(a, b)
/** Helper of GRADE_CAT(): pastes without expanding. */
#define GRADE_CAT_(a, b) a##b
/** Turn the expansion of @p x into a string literal. */
#define GRADE_STR(x) GRADE_STR_(x)
/** Helper of GRADE_STR(): stringizes without expanding. */
#define GRADE_STR_(x) #x

/** @brief The reference solution's kernel: `solution_NN` in solutions/NN_name/solution.cu. */
extern "C" const kernel_variant GRADE_CAT(solution_, EXERCISE);
/** @brief The step: `stepNN` in the step's file, whose first variant is its default kernel. */
extern "C" const step_desc GRADE_CAT(step, EXERCISE);

#ifdef GRADE_SOLUTION
/** The kernel graded as the student's: here the reference solution itself. */
#define STUDENT GRADE_CAT(solution_, EXERCISE)
#else
/** @brief The student's kernel: `exercise_NN` in exercises/NN_name/exercise.cu. */
extern "C" const kernel_variant GRADE_CAT(exercise_, EXERCISE);
/** The kernel graded as the student's. */
#define STUDENT GRADE_CAT(exercise_, EXERCISE)
#endif

/** @brief Run the three contestants of exercise EXERCISE through the harness. */
int main(int argc, char **argv)
{
    const kernel_variant *reference = &GRADE_CAT(solution_, EXERCISE);
    const step_desc *step = &GRADE_CAT(step, EXERCISE);
    /* Built at run time: the three objects live in other translation units. */
    const kernel_variant contestants[] = {
        {"student", STUDENT.summary, STUDENT.launch},
        {"reference", reference->summary, reference->launch},
        {"step", step->variants[0].summary, step->variants[0].launch},
    };
    const step_desc grader = {
        GRADE_STR(EXERCISE), step->name,
        "Exercise " GRADE_STR(EXERCISE) ": your kernel vs the reference solution vs the step",
        contestants, (int)(sizeof contestants / sizeof contestants[0]),
    };
    return run_step(argc, argv, &grader);
}
