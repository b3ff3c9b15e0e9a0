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

#include "permute.h"   // tensor_shape: `--dims` and `--perm`

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
/** @brief Largest offset: enough to try every 4-byte misalignment of a 16-byte vector. */
#define MAX_OFFSET 3
/** @brief Most shapes one `--shapes` list may hold. */
#define MAX_SHAPES 256
/** @brief Room for one shape written as text, `ROWSxCOLS+OFFSET`, with its NUL. */
#define SHAPE_TEXT_MAX 48
/** @brief Room for a shape or a tensor written as text, `8x4096x32x128:0213+1`, with its NUL. */
#define ANY_SHAPE_TEXT_MAX (TENSOR_TEXT_MAX + 8)

/**
 * @brief One matrix to transpose: rows x cols floats, both buffers shifted by offset floats;
 *        or, for a step of tensor kernels, one tensor to permute.
 */
typedef struct shape {
    size_t rows;   /**< M: rows of the input (a tensor: its count over cols, once folded) */
    size_t cols;   /**< N: columns of the input (a tensor: the fold's innermost run or column) */
    size_t offset; /**< 0 to ::MAX_OFFSET floats past a 16-byte boundary, for misaligned tests */
    tensor_shape tensor; /**< a tensor (`--dims` and `--perm`, or `--shapes 3x5x7:210`); rank 0: a matrix */
} shape;

/** @brief How L2 is emptied before each timed run (`--flush`). */
typedef enum flush_method {
    FLUSH_READ,  /**< a kernel reads a buffer of 4 x L2: L2 is left clean (the default) */
    FLUSH_WRITE, /**< cudaMemset writes 2 x L2: the older method, kept for comparison */
    FLUSH_NONE   /**< no flush: small matrices are then timed from L2 */
} flush_method;

/** @brief Everything the command line can set. */
typedef struct options {
    shape shapes[MAX_SHAPES]; /**< the shapes to run, in order (`--shapes`, or `--rows`,
                                    `--cols` and `--offset` for a single one) */
    int shape_count;          /**< number of entries in @p shapes, at least 1 */
    int reps;                 /**< timed repetitions (`--reps`) */
    int warmup;               /**< untimed warm-up runs (`--warmup`) */
    uint64_t seed;            /**< seed of the random input (`--seed`) */
    flush_method flush;       /**< how L2 is emptied before each timed run (`--flush`) */
    int check_only;           /**< verify only, no timing or baselines (`--check-only`) */
    int csv;                  /**< print CSV rows instead of the table (`--csv`) */
    int help;                 /**< print usage and exit (`--help`) */
    int list_variants;        /**< list the step's kernels and exit (`--list-variants`) */
    int describe;             /**< print the step as one JSON object and exit (`--describe`) */
    const char *variant;      /**< run only this kernel (`--variant`); NULL runs them all */
    int max_offset;           /**< largest offset the step takes: 3 floats, or 7 2-byte elements */
    size_t element_bytes;     /**< `--dtype`: 4 (f32) or 2 (bf16); 0 where not given: the step's own type */
    int plan;                 /**< print the fold of the tensor (or the first shape) as JSON and exit (`--plan`) */
} options;

/** @brief Fill @p opt with the defaults above: one 8192 x 8192 shape, L2 flushed by reading. */
void options_defaults(options *opt);

/**
 * @brief Parse argv into @p opt.
 *
 * Sizes must be plain decimal integers >= 1 with nothing after them, and
 * rows * cols * 4 bytes must fit in a size_t. `--shapes` replaces `--rows`,
 * `--cols` and `--offset`, so giving both is an error.
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
 * @brief parse_options() for a step of @p element_bytes bytes an element:
 *        offsets run from 0 to 16 / element_bytes - 1 (3 for float32, 7 for
 *        2-byte elements), every alignment inside a 16-byte vector.
 */
int parse_step_options(int argc, char **argv, size_t element_bytes, options *opt, char *err,
                       size_t err_len);

/**
 * @brief Parse a size: a decimal integer in [1, SIZE_MAX] with no sign,
 *        no trailing characters and no overflow.
 * @return 0 on success, -1 otherwise
 */
int parse_size(const char *text, size_t *value);

/**
 * @brief Parse one shape written as `ROWSxCOLS` or `ROWSxCOLS+OFFSET`,
 *        for example `33x4097+1`, or a tensor and its permutation, one digit
 *        an axis, `DxDx...xD:PERM[+OFFSET]`, for example `8x4096x32x128:0213`.
 *
 * ROWS and COLS are sizes as parse_size() takes them; OFFSET is 0 to
 * ::MAX_OFFSET. This checks the spelling only: see shape_fits_size_t().
 * @return 0 on success, -1 otherwise
 */
int parse_shape(const char *text, shape *out);

/**
 * @brief True when the shape's rows * cols * 4 bytes, plus its offset,
 *        can be counted in a size_t.
 */
int shape_fits_size_t(const shape *s);

/**
 * @brief Write @p s as the command line spells it: `33x4097`, or
 *        `33x4097+1` when the offset is not 0; a tensor as `3x5x7:210`.
 */
void format_shape(const shape *s, char *out, size_t out_len);

/** @brief The `--flush` word of @p method: "read", "write" or "none". */
const char *flush_method_name(flush_method method);

/** @brief Print the options shared by every program (not the step's variants). */
void print_options_help(FILE *out, size_t element_bytes);

#ifdef __cplusplus
}
#endif

#endif /* TRANSPOSE_OPTIONS_H */
