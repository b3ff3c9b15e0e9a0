/**
 * @file options.c
 * @brief Command-line parsing and validation (host only, no CUDA calls).
 */
#include "options.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/**
 * @brief What the command line said about shapes, kept apart until the end
 *        because `--shapes` and `--rows`/`--cols`/`--offset` exclude each other.
 */
typedef struct shape_flags {
    shape single;     /**< the one shape that `--rows`, `--cols`, `--offset`, `--dims` and `--perm` describe */
    int single_given; /**< 1 once any of those three appeared */
    int list_given;   /**< 1 once `--shapes` appeared */
    int size_given;   /**< 1 once `--rows` or `--cols` appeared */
    int dims_given;   /**< 1 once `--dims` appeared */
    int perm_rank;    /**< how many axes `--perm` gave; 0 where it did not appear */
} shape_flags;

/** @brief The flags that take a value, for the "needs a value" message. */
static const char *const value_flags[] = {"--rows",   "--cols", "--offset",  "--shapes", "--reps",
                                          "--warmup", "--seed", "--variant", "--flush", "--dtype",
                                          "--dims",   "--perm"};

void options_defaults(options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->shapes[0] = (shape){.rows = DEFAULT_ROWS, .cols = DEFAULT_COLS};
    opt->shape_count = 1;
    opt->reps = DEFAULT_REPS;
    opt->warmup = DEFAULT_WARMUP;
    opt->seed = DEFAULT_SEED;
    opt->flush = FLUSH_READ;
    opt->max_offset = MAX_OFFSET;
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

const char *flush_method_name(flush_method method)
{
    switch (method) {
    case FLUSH_READ:
        return "read";
    case FLUSH_WRITE:
        return "write";
    case FLUSH_NONE:
        return "none";
    }
    return "?";
}

/** @brief The `--flush` value: one of the words flush_method_name() returns. */
static int parse_flush(const char *text, flush_method *method)
{
    const flush_method all[] = {FLUSH_READ, FLUSH_WRITE, FLUSH_NONE};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) {
        if (strcmp(text, flush_method_name(all[i])) == 0) {
            *method = all[i];
            return 0;
        }
    }
    return -1;
}

/** @brief parse_shape() with offsets up to @p max_offset. */
static int parse_shape_upto(const char *text, int max_offset, shape *out)
{
    char item[SHAPE_TEXT_MAX];
    if (text == NULL || strlen(text) >= sizeof item)
        return -1;
    strcpy(item, text);
    /* Cut "ROWSxCOLS+OFFSET" at the 'x' and the '+' into three strings. */
    char *cols_text = strchr(item, 'x');
    if (cols_text == NULL)
        return -1;
    *cols_text++ = '\0';
    char *offset_text = strchr(cols_text, '+');
    if (offset_text != NULL)
        *offset_text++ = '\0';

    shape parsed = {.rows = 0};
    int offset = 0;
    if (parse_size(item, &parsed.rows) != 0 || parse_size(cols_text, &parsed.cols) != 0)
        return -1;
    if (offset_text != NULL && parse_int_in(offset_text, 0, max_offset, &offset) != 0)
        return -1;
    parsed.offset = (size_t)offset;
    *out = parsed;
    return 0;
}

int parse_shape(const char *text, shape *out)
{
    return parse_shape_upto(text, MAX_OFFSET, out);
}

int shape_fits_size_t(const shape *s)
{
    /* rows * cols * sizeof(float), plus the offset, must not wrap around. */
    return s->rows <= (SIZE_MAX - MAX_OFFSET) / sizeof(float) / s->cols;
}

void format_shape(const shape *s, char *out, size_t out_len)
{
    if (s->tensor.rank > 0) {
        char text[TENSOR_TEXT_MAX];
        format_tensor(&s->tensor, text, sizeof text);
        snprintf(out, out_len, s->offset == 0 ? "%s" : "%s+%zu", text, s->offset);
    } else if (s->offset == 0)
        snprintf(out, out_len, "%zux%zu", s->rows, s->cols);
    else
        snprintf(out, out_len, "%zux%zu+%zu", s->rows, s->cols, s->offset);
}

/** @brief Say that a rows x cols matrix is too large to count its bytes. */
static void explain_too_large(const shape *s, char *err, size_t err_len)
{
    snprintf(err, err_len, "a %zu x %zu float matrix needs more bytes than a size_t can count",
             s->rows, s->cols);
}

/**
 * @brief Parse a tensor's dimensions (sizes; a 0 is kept for tensor_check()
 *        to name) or its permutation (axis numbers), items cut at @p separator,
 *        into @p t; @p what names them in the error.
 * @return the number of items, which may exceed ::PERMUTE_MAX_RANK (only the
 *         first ones are stored), or -1 with the reason in @p err
 */
static int parse_axes(const char *what, int is_dims, const char *list, char separator, tensor_shape *t, char *err,
                      size_t err_len)
{
    int count = 0;
    for (const char *item = list;; ++count) {
        const char *end = separator ? strchr(item, separator) : item + (*item != '\0');
        if (end == NULL)
            end = item + strlen(item);
        const size_t length = (size_t)(end - item);
        char text[32] = "";
        size_t value = 0;
        if (length < sizeof text)
            memcpy(text, item, length);
        const int ok = length < sizeof text && (strcmp(text, "0") == 0 || parse_size(text, &value) == 0);
        if (!ok || (!is_dims && value > 99)) {
            snprintf(err, err_len, "%s item '%.*s' is not %s", what, length > 30 ? 30 : (int)length, item,
                     is_dims ? "a positive integer" : "an axis number");
            return -1;
        }
        if (count < PERMUTE_MAX_RANK && is_dims)
            t->dims[count] = value;
        else if (count < PERMUTE_MAX_RANK)
            t->perm[count] = (int)value;
        if (*end == '\0')
            return count + 1;
        item = separator ? end + 1 : end;
    }
}

/**
 * @brief Check a tensor's permutation of @p perm_rank axes against its
 *        dimensions: one axis each, then tensor_check().
 */
static int check_tensor(const tensor_shape *t, int perm_rank, char *err, size_t err_len)
{
    if (perm_rank != t->rank && t->rank <= PERMUTE_MAX_RANK) {
        snprintf(err, err_len, "the permutation has %d axes but the tensor %d dimensions: give one axis per "
                 "dimension", perm_rank, t->rank);
        return -1;
    }
    return tensor_check(t, err, err_len);
}

/** @brief Parse a tensor item of `--shapes`, `DxDx...xD:PERM` or `...:PERM+OFFSET`, PERM one digit an axis. */
static int parse_tensor_item(char *text, int max_offset, shape *out, char *err, size_t err_len)
{
    char *perm = strchr(text, ':');
    *perm++ = '\0';
    char *offset = strchr(perm, '+');
    if (offset != NULL)
        *offset++ = '\0';
    shape parsed = {.rows = 1};
    int shift = 0;
    parsed.tensor.rank = parse_axes("--shapes", 1, text, 'x', &parsed.tensor, err, err_len);
    const int perm_rank = parsed.tensor.rank < 0 ? -1 : parse_axes("--shapes", 0, perm, 0, &parsed.tensor, err, err_len);
    if (parsed.tensor.rank < 0 || perm_rank < 0 || check_tensor(&parsed.tensor, perm_rank, err, err_len) != 0)
        return -1;
    if (offset != NULL && parse_int_in(offset, 0, max_offset, &shift) != 0) {
        snprintf(err, err_len, "--shapes offset '+%s' is not 0-%d", offset, max_offset);
        return -1;
    }
    parsed.cols = tensor_count(&parsed.tensor);   /* a tensor's matrix: the harness sets it from the fold */
    parsed.offset = (size_t)shift;
    *out = parsed;
    return 0;
}

/** @brief Parse one item of a `--shapes` list, @p length characters at @p item. */
static int parse_shape_item(const char *item, size_t length, int max_offset, shape *out, char *err,
                            size_t err_len)
{
    char text[ANY_SHAPE_TEXT_MAX];
    if (length < sizeof text) {
        memcpy(text, item, length);
        text[length] = '\0';
        if (strchr(text, ':') != NULL)   /* a tensor, for a step of tensor kernels */
            return parse_tensor_item(text, max_offset, out, err, err_len);
    }
    if (length >= SHAPE_TEXT_MAX || parse_shape_upto(text, max_offset, out) != 0) {
        snprintf(err, err_len,
                 "--shapes item '%.*s' is not ROWSxCOLS or ROWSxCOLS+OFFSET "
                 "(positive integers, OFFSET 0-%d), or a tensor DxDxD:PERM",
                 length > 60 ? 60 : (int)length, item, max_offset);
        return -1;
    }
    if (!shape_fits_size_t(out)) {
        explain_too_large(out, err, err_len);
        return -1;
    }
    return 0;
}

/** @brief Parse the comma-separated `--shapes` list into opt->shapes. */
static int parse_shape_list(const char *list, options *opt, char *err, size_t err_len)
{
    int count = 0;
    const char *item = list;
    for (;;) {
        const char *comma = strchr(item, ',');
        const size_t length = comma != NULL ? (size_t)(comma - item) : strlen(item);
        if (count == MAX_SHAPES) {
            snprintf(err, err_len,
                     "--shapes lists more than %d shapes: split them over several runs",
                     MAX_SHAPES);
            return -1;
        }
        if (parse_shape_item(item, length, opt->max_offset, &opt->shapes[count], err, err_len) != 0)
            return -1;
        ++count;
        if (comma == NULL)
            break;
        item = comma + 1;
    }
    opt->shape_count = count;
    return 0;
}

/** @brief Set a flag that takes no value; returns 0 if @p flag is not one of them. */
static int set_switch(const char *flag, options *opt)
{
    if (strcmp(flag, "--help") == 0 || strcmp(flag, "-h") == 0)
        opt->help = 1;
    else if (strcmp(flag, "--check-only") == 0)
        opt->check_only = 1;
    else if (strcmp(flag, "--csv") == 0)
        opt->csv = 1;
    else if (strcmp(flag, "--list-variants") == 0)
        opt->list_variants = 1;
    else if (strcmp(flag, "--describe") == 0)
        opt->describe = 1;
    else if (strcmp(flag, "--plan") == 0)
        opt->plan = 1;
    else
        return 0;
    return 1;
}

/** @brief True when @p flag is one of ::value_flags. */
static int takes_value(const char *flag)
{
    for (size_t i = 0; i < sizeof value_flags / sizeof value_flags[0]; ++i)
        if (strcmp(flag, value_flags[i]) == 0)
            return 1;
    return 0;
}

/** @brief What a good value of @p flag looks like, for the error message. */
static const char *expected_value(const char *flag, const options *opt)
{
    if (strcmp(flag, "--reps") == 0)
        return "an integer from 1 to 100000";
    if (strcmp(flag, "--warmup") == 0)
        return "an integer from 0 to 100000";
    if (strcmp(flag, "--seed") == 0)
        return "a non-negative integer";
    if (strcmp(flag, "--offset") == 0)
        return opt->max_offset == 7 ? "an integer from 0 to 7" : "an integer from 0 to 3";
    if (strcmp(flag, "--flush") == 0)
        return "read, write or none";
    if (strcmp(flag, "--dtype") == 0)
        return "f32 or bf16";
    return "a positive integer";
}

/** @brief Bytes per element of a `--dtype` value: 4 for f32, 2 for bf16, 0 for anything else. */
static size_t parse_dtype(const char *text)
{
    if (strcmp(text, "f32") == 0 || strcmp(text, "float32") == 0)
        return 4;
    return strcmp(text, "bf16") == 0 ? 2 : 0;
}

/**
 * @brief The element size `--dtype` asks for, or 0. Read before the other
 *        flags, because it sets how far `--offset` and `--shapes` may shift a
 *        matrix (3 floats or 7 bf16 elements), whatever the order on the line.
 */
static size_t find_dtype(int argc, char **argv)
{
    size_t bytes = 0;
    for (int i = 1; i + 1 < argc; ++i)
        if (strcmp(argv[i], "--dtype") == 0)
            bytes = parse_dtype(argv[i + 1]);
    return bytes;
}

/** @brief Set one of the flags that take a value; -1 with the reason in @p err if it is bad. */
static int set_value(const char *flag, const char *value, options *opt, shape_flags *given,
                     char *err, size_t err_len)
{
    int ok = 1, offset = 0;
    if (strcmp(flag, "--shapes") == 0) {
        given->list_given = 1;
        return parse_shape_list(value, opt, err, err_len);
    } else if (strcmp(flag, "--rows") == 0) {
        given->single_given = given->size_given = 1;
        ok = parse_size(value, &given->single.rows) == 0;
    } else if (strcmp(flag, "--cols") == 0) {
        given->single_given = given->size_given = 1;
        ok = parse_size(value, &given->single.cols) == 0;
    } else if (strcmp(flag, "--offset") == 0) {
        given->single_given = 1;
        ok = parse_int_in(value, 0, opt->max_offset, &offset) == 0;
        given->single.offset = (size_t)offset;
    } else if (strcmp(flag, "--reps") == 0) {
        ok = parse_int_in(value, 1, 100000, &opt->reps) == 0;
    } else if (strcmp(flag, "--warmup") == 0) {
        ok = parse_int_in(value, 0, 100000, &opt->warmup) == 0;
    } else if (strcmp(flag, "--seed") == 0) {
        ok = parse_seed(value, &opt->seed) == 0;
    } else if (strcmp(flag, "--flush") == 0) {
        ok = parse_flush(value, &opt->flush) == 0;
    } else if (strcmp(flag, "--variant") == 0) {
        opt->variant = value;
    } else if (strcmp(flag, "--dtype") == 0) {
        ok = parse_dtype(value) != 0;
    } else if (strcmp(flag, "--dims") == 0) {
        given->dims_given = 1;
        given->single.tensor.rank = parse_axes(flag, 1, value, ',', &given->single.tensor, err, err_len);
        return given->single.tensor.rank < 0 ? -1 : 0;
    } else if (strcmp(flag, "--perm") == 0) {
        given->perm_rank = parse_axes(flag, 0, value, ',', &given->single.tensor, err, err_len);
        return given->perm_rank < 0 ? -1 : 0;
    }
    if (!ok)
        snprintf(err, err_len, "%s '%s' is not %s", flag, value, expected_value(flag, opt));
    return ok ? 0 : -1;
}

/** @brief Check `--dims` and `--perm`: both or neither, of one rank, instead of `--shapes`, `--rows`, `--cols`. */
static int settle_tensor(const shape_flags *given, char *err, size_t err_len)
{
    if (!given->dims_given && given->perm_rank == 0)
        return 0;
    if (!given->dims_given || given->perm_rank == 0) {
        snprintf(err, err_len, "--dims and --perm go together, e.g. --dims 8,4096,32,128 --perm 0,2,1,3");
        return -1;
    }
    if (given->list_given || given->size_given) {
        snprintf(err, err_len, "--dims cannot be combined with --shapes, --rows or --cols: a run takes one tensor");
        return -1;
    }
    return check_tensor(&given->single.tensor, given->perm_rank, err, err_len);
}

/** @brief Decide the shape list: `--shapes`, or the one shape of `--rows`/`--cols`/`--offset`. */
static int settle_shapes(options *opt, const shape_flags *given, char *err, size_t err_len)
{
    if (settle_tensor(given, err, err_len) != 0)
        return -1;
    if (given->list_given && given->single_given) {
        snprintf(err, err_len,
                 "--shapes cannot be combined with --rows, --cols or --offset: "
                 "put every shape in the list, e.g. --shapes 1024x1024,33x4097+1");
        return -1;
    }
    if (given->list_given)
        return 0;
    if (!shape_fits_size_t(&given->single)) {
        explain_too_large(&given->single, err, err_len);
        return -1;
    }
    opt->shapes[0] = given->single;
    opt->shape_count = 1;
    return 0;
}

int parse_options(int argc, char **argv, options *opt, char *err, size_t err_len)
{
    return parse_step_options(argc, argv, sizeof(float), opt, err, err_len);
}

int parse_step_options(int argc, char **argv, size_t element_bytes, options *opt, char *err,
                       size_t err_len)
{
    options_defaults(opt);
    opt->element_bytes = find_dtype(argc, argv);
    opt->max_offset = (int)(16 / (opt->element_bytes ? opt->element_bytes : element_bytes)) - 1;
    shape_flags given = {.single = opt->shapes[0]};
    for (int i = 1; i < argc; ++i) {
        const char *flag = argv[i];
        if (set_switch(flag, opt))
            continue;
        if (!takes_value(flag)) {
            snprintf(err, err_len, "unknown option '%s'", flag);
            return -1;
        }
        if (i + 1 == argc) {
            snprintf(err, err_len, "%s needs a value", flag);
            return -1;
        }
        if (set_value(flag, argv[++i], opt, &given, err, err_len) != 0)
            return -1;
    }
    return settle_shapes(opt, &given, err, err_len);
}

void print_options_help(FILE *out, size_t element_bytes)
{
    fprintf(out,
            "  --rows M         rows of the input matrix (default %d)\n"
            "  --cols N         columns of the input matrix (default %d)\n"
            "  --offset E       start both matrices E %s (0-%d) past a 16-byte boundary,\n"
            "                   to test misaligned pointers\n"
            "  --shapes LIST    run every shape of a comma-separated list of ROWSxCOLS or\n"
            "                   ROWSxCOLS+OFFSET, e.g. 1x1,33x4097+1,5000000x3 (instead of\n"
            "                   --rows, --cols and --offset; at most %d shapes)\n"
            "  --reps K         timed runs per kernel; the median and min are reported\n"
            "                   (default %d)\n"
            "  --warmup W       untimed runs before timing (default %d)\n"
            "  --seed S         seed of the random input (default %d)\n"
            "  --flush HOW      how L2 is emptied before each timed run: read (a kernel reads\n"
            "                   4 x L2, the default), write (cudaMemset of 2 x L2) or none\n"
            "  --check-only     verify bit for bit, skip timing and baselines; prints one line\n"
            "                   PASS|FAIL|SKIP STEP KERNEL SHAPE per kernel and shape\n"
            "  --csv            print CSV rows (columns below) instead of the table\n"
            "  --variant NAME   run only this kernel of the step (default: all of them)\n"
            "  --dtype T        element type, f32 or bf16, for a step whose kernels take both\n"
            "                   (default: the step's own, below)\n"
            "  --dims D,D,...   a tensor of 1 to 6 dimensions instead of a matrix, for a step\n"
            "  --perm P,P,...   of tensor kernels (step 15): output dimension i is input dimension\n"
            "                   P[i], e.g. --dims 8,4096,32,128 --perm 0,2,1,3 (--offset applies)\n"
            "  --plan           print how the tensor (or the first shape) folds, as JSON, and exit\n"
            "  --list-variants  print NAME<TAB>MIN_CC<TAB>SUMMARY per kernel and exit\n"
            "                   (no GPU needed)\n"
            "  --describe       print the step as one JSON object and exit (no GPU needed): its\n"
            "                   number, name, title, element type and size, default variant,\n"
            "                   every variant (name, min_cc, role, summary) and the CSV header;\n"
            "                   the lab reads the steps this way, never their sources\n"
            "  --help           this text\n"
            "Exit codes: 0 all results bit-exact, 1 a wrong result, 2 bad command line,\n"
            "            3 environment (no GPU or driver, too little memory, CUDA failure).\n",
            DEFAULT_ROWS, DEFAULT_COLS, element_bytes == sizeof(float) ? "floats" : "elements",
            (int)(16 / element_bytes) - 1, MAX_SHAPES, DEFAULT_REPS, DEFAULT_WARMUP, DEFAULT_SEED);
}
