/**
 * @file kernel_choice.h
 * @brief Given code: which kernel of the exercise file runs as `student` in the grader
 *        program, picked at run time by the environment variable GRADE_KERNEL.
 *
 * The grader program build/grade_NN times three rows on the same buffers:
 * `student` (your file's `exercise_NN`), `reference` and `step`. When your
 * file holds more than one kernel (a control to measure yours against, or a
 * second kernel to write), it lists them in a table of ::kernel_choice, and
 * the `student` row runs the entry that GRADE_KERNEL names; the first entry,
 * your kernel, while the variable is unset:
 *
 *     ./build/grade_10 --shapes 8192x8192                        # your kernel
 *     GRADE_KERNEL=control ./build/grade_10 --shapes 8192x8192   # the control in its place
 *
 * The report still calls the row `student`, so a line on stderr says which
 * kernel it is. Exercises 03, 07, 08 and 10 include it; each README names
 * the kernels its table holds. Leave GRADE_KERNEL unset when
 * you grade your own kernel: `make grade` grades whatever the row runs.
 */
#ifndef EXERCISE_KERNEL_CHOICE_H
#define EXERCISE_KERNEL_CHOICE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/** @brief One kernel of an exercise file that GRADE_KERNEL can pick. */
typedef struct kernel_choice {
    const char *name;           /**< the value of GRADE_KERNEL that picks it */
    const char *summary;        /**< what it is, in one line for the note on stderr */
    transpose_launcher launch;  /**< its launcher */
} kernel_choice;

/** @brief Number of entries of a ::kernel_choice table (a true array, not a pointer). */
#define CHOICE_COUNT(table) ((int)(sizeof(table) / sizeof((table)[0])))

/**
 * @brief The launcher of the entry of @p choices that GRADE_KERNEL names: the
 *        first entry when the variable is unset, empty or not one of the names.
 *
 * A name that is not in the table gets a warning on stderr, as exercise 02's
 * GRADE_BLOCK does, and the first entry runs. Any entry but the first is
 * announced on stderr with @p row, the grader's name for the row that runs it.
 * It reads the environment: call it on the first launch only and keep the result.
 */
static inline transpose_launcher chosen_launcher(const kernel_choice *choices, int count,
                                                 const char *row)
{
    const char *wanted = getenv("GRADE_KERNEL");
    if (wanted == NULL || *wanted == '\0')
        return choices[0].launch;
    for (int i = 0; i < count; i++) {
        if (strcmp(wanted, choices[i].name) == 0) {
            if (i > 0)
                fprintf(stderr, "note: GRADE_KERNEL=%s: the `%s` row runs %s\n", wanted, row,
                        choices[i].summary);
            return choices[i].launch;
        }
    }
    fprintf(stderr, "warning: GRADE_KERNEL=%s is not a kernel of this exercise (", wanted);
    for (int i = 0; i < count; i++)
        fprintf(stderr, "%s%s", i ? ", " : "", choices[i].name);
    fprintf(stderr, "); the `%s` row runs %s\n", row, choices[0].summary);
    return choices[0].launch;
}

/**
 * @brief Define `static size_t NAME(in, out, rows, cols, stream)`, a
 *        ::transpose_launcher that runs the entry of @p CHOICES that
 *        GRADE_KERNEL names, as the grader's row @p ROW ("student" or
 *        "reference").
 *
 * The environment is read on the first launch and the pick kept, so every
 * timed run launches the same kernel. An exercise file writes
 *
 *     KERNEL_CHOICE_LAUNCHER(launch_chosen, choices, "student")
 *
 * and names `launch_chosen` in its ::kernel_variant.
 */
#define KERNEL_CHOICE_LAUNCHER(NAME, CHOICES, ROW)                                                   \
    static size_t NAME(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)   \
    {                                                                                                \
        static transpose_launcher launch = NULL;                                                     \
        if (launch == NULL)                                                                          \
            launch = chosen_launcher(CHOICES, CHOICE_COUNT(CHOICES), ROW);                           \
        return launch(in, out, rows, cols, stream);                                                  \
    }

#endif /* EXERCISE_KERNEL_CHOICE_H */
