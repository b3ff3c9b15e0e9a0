/**
 * @file options.h
 * @brief The command line that every step program shares.
 *
 * Parsing is pure host code with no CUDA calls, so a bad command line is
 * rejected before any GPU work, and the host unit tests can exercise it.
 */
#ifndef TRANSPOSE_OPTIONS_H
#define TRANSPOSE_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Default matrix shape: 8192 x 8192 floats, 256 MiB each way. */
#define DEFAULT_ROWS 8192
/** @brief Default number of columns; see ::DEFAULT_ROWS. */
#define DEFAULT_COLS 8192
/** @brief Default timed repetitions per kernel. */
#define DEFAULT_REPS 20
/** @brief Default untimed warm-up runs per kernel. */
#define DEFAULT_WARMUP 3
/** @brief Default seed of the random input. */
#define DEFAULT_SEED 2024
/** @brief Largest `--offset`: enough to try every 4-byte misalignment of a 16-byte vector. */
#define MAX_OFFSET 3

/** @brief Everything the command line can set. */
typedef struct options {
    size_t rows;          /**< M: rows of the input (`--rows`) */
    size_t cols;          /**< N: columns of the input (`--cols`) */
    int reps;             /**< timed repetitions (`--reps`) */
    int warmup;           /**< untimed warm-up runs (`--warmup`) */
    uint64_t seed;        /**< seed of the random input (`--seed`) */
    int check_only;       /**< verify only, no timing or baselines (`--check-only`) */
    int csv;              /**< print CSV rows instead of the table (`--csv`) */
    int help;             /**< print usage and exit (`--help`) */
    const char *variant;  /**< run only this kernel (`--variant`); NULL runs them all */
    size_t offset;        /**< shift both matrices by this many floats (`--offset`) */
} options;

/** @brief Fill @p opt with the defaults above. */
void options_defaults(options *opt);

/**
 * @brief Parse argv into @p opt.
 *
 * Sizes must be plain decimal integers >= 1 with nothing after them, and
 * rows * cols * 4 bytes must fit in a size_t.
 *
 * @param argc    as main() received it
 * @param argv    as main() received it
 * @param opt     receives the options (defaults where a flag is absent)
 * @param err     receives a one-line reason when parsing fails
 * @param err_len size of @p err
 * @return 0 on success, -1 on a bad command line (see @p err)
 */
int parse_options(int argc, char **argv, options *opt, char *err, size_t err_len);

/**
 * @brief Parse a size: a decimal integer in [1, SIZE_MAX] with no sign,
 *        no trailing characters and no overflow.
 * @return 0 on success, -1 otherwise
 */
int parse_size(const char *text, size_t *value);

/** @brief Print the options shared by every program (not the step's variants). */
void print_options_help(FILE *out);

#ifdef __cplusplus
}
#endif

#endif /* TRANSPOSE_OPTIONS_H */
