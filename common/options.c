/**
 * @file options.c
 * @brief Command-line parsing and validation (host only, no CUDA calls).
 */
#include "options.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

void options_defaults(options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->rows = DEFAULT_ROWS;
    opt->cols = DEFAULT_COLS;
    opt->reps = DEFAULT_REPS;
    opt->warmup = DEFAULT_WARMUP;
    opt->seed = DEFAULT_SEED;
}

int parse_size(const char *text, size_t *value)
{
    /* strtoull accepts leading spaces, '+' and '-' ("-1" becomes 2^64-1),
     * so insist on a digit first. */
    if (text == NULL || *text < '0' || *text > '9')
        return -1;
    errno = 0;
    char *end = NULL;
    unsigned long long parsed = strtoull(text, &end, 10);
    if (errno == ERANGE || *end != '\0' || parsed == 0 || parsed > SIZE_MAX)
        return -1;
    *value = (size_t)parsed;
    return 0;
}

/** @brief An int option in [low, high]. */
static int parse_int_in(const char *text, int low, int high, int *value)
{
    size_t parsed;
    if (text != NULL && strcmp(text, "0") == 0)
        parsed = 0;
    else if (parse_size(text, &parsed) != 0)
        return -1;
    if (parsed < (size_t)low || parsed > (size_t)high)
        return -1;
    *value = (int)parsed;
    return 0;
}

/** @brief A 64-bit seed: any decimal number, zero included. */
static int parse_seed(const char *text, uint64_t *value)
{
    if (text != NULL && strcmp(text, "0") == 0) {
        *value = 0;
        return 0;
    }
    size_t parsed;
    if (parse_size(text, &parsed) != 0)
        return -1;
    *value = (uint64_t)parsed;
    return 0;
}

int parse_options(int argc, char **argv, options *opt, char *err, size_t err_len)
{
    options_defaults(opt);
    for (int i = 1; i < argc; ++i) {
        const char *flag = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        int takes_value = 1;
        int ok = 1;
        if (strcmp(flag, "--help") == 0 || strcmp(flag, "-h") == 0) {
            opt->help = 1;
            takes_value = 0;
        } else if (strcmp(flag, "--check-only") == 0) {
            opt->check_only = 1;
            takes_value = 0;
        } else if (strcmp(flag, "--csv") == 0) {
            opt->csv = 1;
            takes_value = 0;
        } else if (value == NULL && (strcmp(flag, "--rows") == 0 || strcmp(flag, "--cols") == 0 ||
                                     strcmp(flag, "--reps") == 0 || strcmp(flag, "--warmup") == 0 ||
                                     strcmp(flag, "--seed") == 0 || strcmp(flag, "--variant") == 0 ||
                                     strcmp(flag, "--offset") == 0)) {
            snprintf(err, err_len, "%s needs a value", flag);
            return -1;
        } else if (strcmp(flag, "--rows") == 0) {
            ok = parse_size(value, &opt->rows) == 0;
        } else if (strcmp(flag, "--cols") == 0) {
            ok = parse_size(value, &opt->cols) == 0;
        } else if (strcmp(flag, "--reps") == 0) {
            ok = parse_int_in(value, 1, 100000, &opt->reps) == 0;
        } else if (strcmp(flag, "--warmup") == 0) {
            ok = parse_int_in(value, 0, 100000, &opt->warmup) == 0;
        } else if (strcmp(flag, "--seed") == 0) {
            ok = parse_seed(value, &opt->seed) == 0;
        } else if (strcmp(flag, "--variant") == 0) {
            opt->variant = value;
        } else if (strcmp(flag, "--offset") == 0) {
            int offset;
            ok = parse_int_in(value, 0, MAX_OFFSET, &offset) == 0;
            opt->offset = (size_t)offset;
        } else {
            snprintf(err, err_len, "unknown option '%s'", flag);
            return -1;
        }
        if (!ok) {
            const char *expected =
                strcmp(flag, "--reps") == 0     ? "an integer from 1 to 100000"
                : strcmp(flag, "--warmup") == 0 ? "an integer from 0 to 100000"
                : strcmp(flag, "--seed") == 0   ? "a non-negative integer"
                : strcmp(flag, "--offset") == 0 ? "an integer from 0 to 3"
                                                : "a positive integer";
            snprintf(err, err_len, "%s '%s' is not %s", flag, value, expected);
            return -1;
        }
        i += takes_value;
    }
    /* rows * cols * sizeof(float), plus the offset, must not wrap around. */
    if (opt->rows > (SIZE_MAX - MAX_OFFSET) / sizeof(float) / opt->cols) {
        snprintf(err, err_len, "a %zu x %zu float matrix needs more bytes than a size_t can count",
                 opt->rows, opt->cols);
        return -1;
    }
    return 0;
}

void print_options_help(FILE *out)
{
    fprintf(out,
            "  --rows M       rows of the input matrix (default %d)\n"
            "  --cols N       columns of the input matrix (default %d)\n"
            "  --reps K       timed repetitions per kernel; the median and min are reported (default %d)\n"
            "  --warmup W     untimed runs before timing (default %d)\n"
            "  --seed S       seed of the random input (default %d)\n"
            "  --check-only   verify bit for bit, skip timing and baselines\n"
            "  --csv          print CSV rows: gpu,step,kernel,rows,cols,median_ms,min_ms,gbps,\n"
            "                 pct_of_copy,vs_cublas,check\n"
            "  --variant NAME run only this kernel of the step (default: all of them)\n"
            "  --offset E     start both matrices E floats (0-3) past a 16-byte boundary,\n"
            "                 to test misaligned pointers\n"
            "  --help         this text\n"
            "Exit codes: 0 all results bit-exact, 1 a wrong result, 2 bad command line,\n"
            "            3 environment (no GPU or driver, too little memory, CUDA failure).\n",
            DEFAULT_ROWS, DEFAULT_COLS, DEFAULT_REPS, DEFAULT_WARMUP, DEFAULT_SEED);
}
