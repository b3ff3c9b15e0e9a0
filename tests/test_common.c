/**
 * @file test_common.c
 * @brief Host unit tests of common/: the CPU reference, the verifier, the
 *        command line (shapes, flush methods, --list-variants), the report's
 *        CSV and check lines, --describe's JSON, the bandwidth arithmetic and the random input.
 *
 * Needs no GPU. Prints one `PASS name` or `FAIL name` line per check and
 * exits non-zero if any failed; tests/test_unit.py reads the lines.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "harness.h"
#include "matrix.h"
#include "options.h"
#include "report.h"
#include "timing.h"

static int failures = 0;

static void expect(int ok, const char *name)
{
    printf("%s %s\n", ok ? "PASS" : "FAIL", name);
    failures += !ok;
}

static int same_bits(float a, float b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* ------------------------------------------------------------ reference */

static void test_reference_by_hand(void)
{
    /* [1 2 3]      [1 4]
     * [4 5 6]  ->  [2 5]
     *              [3 6] */
    const float in[6] = {1, 2, 3, 4, 5, 6};
    const float want[6] = {1, 4, 2, 5, 3, 6};
    float out[6] = {0};
    transpose_reference(in, out, 2, 3);
    expect(memcmp(out, want, sizeof want) == 0, "reference: 2x3 by hand");

    const float row[4] = {7, 8, 9, 10};
    float col[4] = {0};
    transpose_reference(row, col, 1, 4);
    expect(memcmp(row, col, sizeof row) == 0, "reference: 1x4 is a copy");
    transpose_reference(row, col, 4, 1);
    expect(memcmp(row, col, sizeof row) == 0, "reference: 4x1 is a copy");

    const float one = 42.0f;
    float out_one = 0.0f;
    transpose_reference(&one, &out_one, 1, 1);
    expect(out_one == 42.0f, "reference: 1x1");
}

/* Shapes that cross the reference's 64-element blocks in odd places. */
static void test_reference_against_definition(void)
{
    const size_t shapes[][2] = {{67, 130}, {130, 67}, {64, 64}, {65, 1}, {1, 129}, {129, 129}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
        const size_t rows = shapes[s][0], cols = shapes[s][1];
        float *in = malloc(rows * cols * sizeof *in);
        float *out = malloc(rows * cols * sizeof *out);
        fill_random(in, rows * cols, 7);
        transpose_reference(in, out, rows, cols);
        int ok = 1;
        for (size_t r = 0; r < rows; ++r)
            for (size_t c = 0; c < cols; ++c)
                ok &= same_bits(out[c * rows + r], in[r * cols + c]);
        char name[96];
        snprintf(name, sizeof name, "reference: %zux%zu matches out[c][r] = in[r][c]", rows, cols);
        expect(ok, name);
        free(in);
        free(out);
    }
}

/* ------------------------------------------------------------ verifier */

/* Read back what was written to the temporary file f into text (at most len - 1
 * bytes, then a NUL), and close f. */
static void read_back(FILE *f, char *text, size_t len)
{
    rewind(f);
    const size_t n = fread(text, 1, len - 1, f);
    text[n] = '\0';
    fclose(f);
}

/* Run the verifier with its messages captured; returns mismatches, fills text. */
static size_t verify_captured(const float *want, const float *got, size_t rows, size_t cols,
                              char *text, size_t text_len)
{
    FILE *log = tmpfile();
    const size_t bad = verify_transpose(want, got, rows, cols, "k", 8, log);
    read_back(log, text, text_len);
    return bad;
}

static void test_verifier(void)
{
    enum { ROWS = 9, COLS = 7, N = ROWS * COLS };
    float want[N], got[N];
    char text[2048];
    fill_random(want, N, 3);

    memcpy(got, want, sizeof got);
    expect(verify_captured(want, got, ROWS, COLS, text, sizeof text) == 0 && text[0] == '\0',
           "verifier: identical matrices pass silently");

    /* Flip the lowest mantissa bit of one element: the smallest possible error. */
    uint32_t bits;
    memcpy(&bits, &got[5 * COLS + 3], sizeof bits);
    bits ^= 1u;
    memcpy(&got[5 * COLS + 3], &bits, sizeof bits);
    size_t bad = verify_captured(want, got, ROWS, COLS, text, sizeof text);
    expect(bad == 1, "verifier: catches one flipped bit");
    expect(strstr(text, "(5, 3)") != NULL, "verifier: names the flipped element as (row, col)");

    memcpy(got, want, sizeof got);
    memset(&got[N - 1], POISON_BYTE, sizeof got[0]);
    bad = verify_captured(want, got, ROWS, COLS, text, sizeof text);
    expect(bad == 1, "verifier: catches one unwritten element");
    expect(strstr(text, "never written") != NULL && strstr(text, "(8, 6)") != NULL,
           "verifier: reports the unwritten element as never written");

    memset(got, POISON_BYTE, sizeof got);
    bad = verify_captured(want, got, ROWS, COLS, text, sizeof text);
    expect(bad == N, "verifier: a kernel that writes nothing fails on every element");

    /* -0.0 == 0.0 as floats, but a transpose must move bits, not values. */
    float zero = 0.0f, minus_zero = -0.0f;
    expect(verify_transpose(&zero, &minus_zero, 1, 1, "k", 0, stderr) == 1,
           "verifier: compares bits, so -0.0 differs from 0.0");
}

/* Where a tiles-swapped bound writes element (r, c) of a rows x cols input: a whole tile's elements
   untransposed at the tile's transposed place, the rest of the matrix transposed. */
static size_t swapped_at(size_t r, size_t c, size_t rows, size_t cols, size_t tile)
{
    const size_t r0 = r / tile * tile, c0 = c / tile * tile;
    const int whole = r0 + tile <= rows && c0 + tile <= cols;
    return whole ? (c0 + (r - r0)) * rows + r0 + (c - c0) : c * rows + r;
}

/* The tiles-swapped bound's check, on a matrix with whole tiles and edge tiles of both kinds. */
static void test_tiles_swapped_verifier(void)
{
    enum { ROWS = 2 * SWAPPED_TILE + 5, COLS = SWAPPED_TILE + 3, N = ROWS * COLS, T = SWAPPED_TILE };
    static float in[N], transposed[N], swapped[N];
    fill_random(in, N, 5);
    transpose_reference(in, transposed, ROWS, COLS);
    for (size_t r = 0; r < ROWS; ++r)
        for (size_t c = 0; c < COLS; ++c)
            swapped[swapped_at(r, c, ROWS, COLS, T)] = in[r * COLS + c];
    expect(verify_tiles_swapped(transposed, swapped, COLS, ROWS, T, "k", 0, stderr) == 0,
           "tiles-swapped verifier: the bound's permutation passes");
    /* Planted: the plain transpose differs inside the two whole tiles, except on their diagonals. */
    expect(verify_tiles_swapped(transposed, transposed, COLS, ROWS, T, "k", 0, stderr) == 2 * (T * T - T),
           "tiles-swapped verifier: a transpose fails in the whole tiles, off their diagonals");
    swapped[N - 1] = -swapped[N - 1];   /* the last element: an edge tile's */
    expect(verify_tiles_swapped(transposed, swapped, COLS, ROWS, T, "k", 0, stderr) == 1,
           "tiles-swapped verifier: catches a wrong element in an edge tile");
}

/* The same check on 2-byte elements, whose swapped tile is 128 x 128: the same 256 bytes a row. */
static void test_tiles_swapped_verifier_16(void)
{
    enum { ROWS = SWAPPED_TILE_16 + 9, COLS = 2 * SWAPPED_TILE_16 + 1, N = ROWS * COLS, T = SWAPPED_TILE_16 };
    static uint16_t in[N], transposed[N], swapped[N];
    expect(SWAPPED_TILE_16 * 2 == SWAPPED_TILE * 4, "tiles-swapped verifier: one tile's rows, in bytes, either way");
    fill_random_16(in, N, 6);
    transpose_reference_16(in, transposed, ROWS, COLS);
    for (size_t r = 0; r < ROWS; ++r)
        for (size_t c = 0; c < COLS; ++c)
            swapped[swapped_at(r, c, ROWS, COLS, T)] = in[r * COLS + c];
    expect(verify_tiles_swapped_16(transposed, swapped, COLS, ROWS, T, "k", 0, stderr) == 0,
           "tiles-swapped verifier (2-byte): the bound's permutation passes");
    expect(verify_tiles_swapped_16(transposed, transposed, COLS, ROWS, T, "k", 0, stderr) == 2 * (T * T - T),
           "tiles-swapped verifier (2-byte): a transpose fails in the whole tiles, off their diagonals");
    swapped[0] ^= 1u;   /* the first element: a whole tile's */
    expect(verify_tiles_swapped_16(transposed, swapped, COLS, ROWS, T, "k", 0, stderr) == 1,
           "tiles-swapped verifier (2-byte): catches a wrong element in a whole tile");
}

/* ------------------------------------------------------------ options */

/* Parse "prog" followed by args; returns 1 on success, else 0 with the reason in err. */
static int parses_or_says(const char *const *args, int n, options *opt, char *err, size_t err_len)
{
    char *argv[16];
    argv[0] = (char *)"prog";
    for (int i = 0; i < n; ++i)
        argv[i + 1] = (char *)args[i];
    err[0] = '\0';
    return parse_options(n + 1, argv, opt, err, err_len) == 0;
}

static int parses(const char *const *args, int n, options *opt)
{
    char err[320];
    return parses_or_says(args, n, opt, err, sizeof err);
}

static int is_shape(const shape *s, size_t rows, size_t cols, size_t offset)
{
    return s->rows == rows && s->cols == cols && s->offset == offset;
}

#define ARGS(...)                       \
    (const char *const[]){__VA_ARGS__}, \
        (int)(sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *))

static void test_options_accept(void)
{
    options opt;
    expect(parses(ARGS("--csv"), &opt) && opt.shape_count == 1 &&
               is_shape(&opt.shapes[0], DEFAULT_ROWS, DEFAULT_COLS, 0) &&
               opt.reps == DEFAULT_REPS && opt.csv == 1 && opt.check_only == 0 &&
               opt.flush == FLUSH_READ && opt.list_variants == 0 && opt.variant == NULL,
           "options: defaults are one 8192 x 8192 shape, flushed by reading");
    expect(parses(ARGS("--rows", "5", "--cols", "7", "--reps", "3", "--warmup", "0", "--seed", "0",
                       "--check-only", "--variant", "tiled", "--offset", "3"),
                  &opt) &&
               opt.shape_count == 1 && is_shape(&opt.shapes[0], 5, 7, 3) && opt.reps == 3 &&
               opt.warmup == 0 && opt.seed == 0 && opt.check_only &&
               strcmp(opt.variant, "tiled") == 0,
           "options: every flag with a valid value");
    expect(parses(ARGS("--rows", "32768", "--cols", "32768"), &opt) &&
               is_shape(&opt.shapes[0], 32768, 32768, 0),
           "options: 32768 x 32768");
    expect(parses(ARGS("--rows", "1", "--cols", "67108864"), &opt) &&
               is_shape(&opt.shapes[0], 1, 67108864, 0),
           "options: 1 x 2^26");
    expect(parses(ARGS("--cols", "9"), &opt) && is_shape(&opt.shapes[0], DEFAULT_ROWS, 9, 0),
           "options: --cols alone keeps the default rows");
    expect(parses(ARGS("--help"), &opt) && opt.help, "options: --help");
}

static void test_options_reject(void)
{
    options opt;
    const char *bad_sizes[] = {
        "abc", "0", "-1", "-0", "+5", " 5", "12x", "1e3", "0x10", "", "99999999999999999999999"};
    for (size_t i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; ++i) {
        char name[64];
        snprintf(name, sizeof name, "options: rejects --rows '%s'", bad_sizes[i]);
        expect(!parses(ARGS("--rows", bad_sizes[i]), &opt), name);
    }
    expect(!parses(ARGS("--rows", "4294967296", "--cols", "4294967296"), &opt),
           "options: rejects rows * cols * 4 that overflows");
    expect(!parses(ARGS("--rows", "2305843009213693952", "--cols", "2"), &opt),
           "options: rejects an overflow just past 2^64 bytes");
    expect(!parses(ARGS("--frobnicate"), &opt), "options: rejects an unknown flag");
    expect(!parses(ARGS("--rows"), &opt), "options: rejects a flag without its value");
    expect(!parses(ARGS("--reps", "0"), &opt), "options: rejects --reps 0");
    expect(!parses(ARGS("--warmup", "-1"), &opt), "options: rejects --warmup -1");
    expect(!parses(ARGS("--offset", "4"), &opt), "options: rejects --offset 4");
    expect(!parses(ARGS("--seed", "x"), &opt), "options: rejects --seed x");
}

/* ------------------------------------------------------------ --shapes */

static void test_shapes_accept(void)
{
    options opt;
    expect(parses(ARGS("--shapes", "1x1,33x4097+1,5000000x3"), &opt) && opt.shape_count == 3 &&
               is_shape(&opt.shapes[0], 1, 1, 0) && is_shape(&opt.shapes[1], 33, 4097, 1) &&
               is_shape(&opt.shapes[2], 5000000, 3, 0),
           "shapes: a list of three, in order, with an offset");
    expect(parses(ARGS("--shapes", "7x9+0"), &opt) && opt.shape_count == 1 &&
               is_shape(&opt.shapes[0], 7, 9, 0),
           "shapes: +0 is offset 0");
    expect(parses(ARGS("--shapes", "7x9+3"), &opt) && is_shape(&opt.shapes[0], 7, 9, 3),
           "shapes: +3, the largest offset");
    expect(parses(ARGS("--shapes", "1x2", "--shapes", "3x4,5x6"), &opt) && opt.shape_count == 2 &&
               is_shape(&opt.shapes[0], 3, 4, 0) && is_shape(&opt.shapes[1], 5, 6, 0),
           "shapes: a second --shapes replaces the first");
    expect(parses(ARGS("--shapes", "32769x65537"), &opt) &&
               is_shape(&opt.shapes[0], 32769, 65537, 0),
           "shapes: more than 2^31 elements");

    /* Exactly MAX_SHAPES items are fine; one more is refused. */
    static char list[MAX_SHAPES * 4 + 8];
    list[0] = '\0';
    for (int i = 0; i < MAX_SHAPES; ++i)
        strcat(list, i == 0 ? "1x1" : ",1x1");
    expect(parses(ARGS("--shapes", list), &opt) && opt.shape_count == MAX_SHAPES,
           "shapes: MAX_SHAPES shapes are accepted");
    strcat(list, ",1x1");
    expect(!parses(ARGS("--shapes", list), &opt), "shapes: MAX_SHAPES + 1 shapes are refused");
}

static void test_shapes_reject(void)
{
    options opt;
    const char *bad[] = {"",
                         ",",
                         "1x1,",
                         ",1x1",
                         "1x1,,2x2",
                         "1x",
                         "x1",
                         "1",
                         "0x5",
                         "5x0",
                         "1x1+4",
                         "1x1+",
                         "1x1+-1",
                         "1x1-1",
                         "-1x5",
                         "+1x5",
                         "1X5",
                         "1*5",
                         "1x5x2",
                         "abc",
                         "1x1+1+1",
                         " 1x1",
                         "1x1 ",
                         "1 x1",
                         "1x 1",
                         "0x10x1",
                         "99999999999999999999999x1",
                         "000000000000000000000000000000000000000000000001x1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        char name[128];
        snprintf(name, sizeof name, "shapes: rejects '%s'", bad[i]);
        expect(!parses(ARGS("--shapes", bad[i]), &opt), name);
    }
    expect(!parses(ARGS("--shapes", "4294967296x4294967296"), &opt),
           "shapes: rejects rows * cols * 4 that overflows");
    expect(!parses(ARGS("--shapes", "1x1,2305843009213693952x2"), &opt),
           "shapes: rejects an overflow in a later item");
    expect(!parses(ARGS("--shapes"), &opt), "shapes: rejects --shapes without a list");

    char err[320];
    const int refused = !parses_or_says(ARGS("--shapes", "1x1,12x,3x3"), &opt, err, sizeof err);
    expect(refused && strstr(err, "'12x'") != NULL && strchr(err, '\n') == NULL,
           "shapes: the error is one line that quotes the bad item");
    expect(!parses_or_says(ARGS("--shapes", "4294967296x4294967296"), &opt, err, sizeof err) &&
               strstr(err, "4294967296 x 4294967296") != NULL,
           "shapes: the overflow error names the shape");
}

static void test_shapes_exclusive(void)
{
    options opt;
    char err[320];
    expect(!parses(ARGS("--shapes", "5x5", "--rows", "4"), &opt),
           "shapes: --shapes then --rows is refused");
    expect(!parses(ARGS("--cols", "4", "--shapes", "5x5"), &opt),
           "shapes: --cols then --shapes is refused");
    expect(!parses(ARGS("--offset", "1", "--shapes", "5x5"), &opt),
           "shapes: --offset with --shapes is refused");
    expect(!parses(ARGS("--offset", "0", "--shapes", "5x5"), &opt),
           "shapes: even --offset 0 with --shapes is refused");
    expect(!parses_or_says(ARGS("--rows", "4", "--shapes", "5x5"), &opt, err, sizeof err) &&
               strstr(err, "--shapes") != NULL && strstr(err, "--rows") != NULL &&
               strchr(err, '\n') == NULL,
           "shapes: the exclusion error is one line naming both flags");
}

static void test_format_shape(void)
{
    char text[SHAPE_TEXT_MAX];
    const shape plain = {.rows = 33, .cols = 4097}, shifted = {.rows = 33, .cols = 4097, .offset = 1};
    format_shape(&plain, text, sizeof text);
    expect(strcmp(text, "33x4097") == 0, "shapes: 33x4097 is written without +0");
    format_shape(&shifted, text, sizeof text);
    expect(strcmp(text, "33x4097+1") == 0, "shapes: an offset is written as +1");

    const shape largest = {.rows = SIZE_MAX / 4, .cols = 1, .offset = MAX_OFFSET};
    shape back = {.rows = 0};
    format_shape(&largest, text, sizeof text);
    expect(parse_shape(text, &back) == 0 && is_shape(&back, largest.rows, 1, MAX_OFFSET),
           "shapes: the longest shape text fits SHAPE_TEXT_MAX and parses back");
}

/* ------------------------------------------------------------ --flush, --list-variants */

static void test_flush_and_list(void)
{
    options opt;
    expect(parses(ARGS("--flush", "read"), &opt) && opt.flush == FLUSH_READ, "flush: read");
    expect(parses(ARGS("--flush", "write"), &opt) && opt.flush == FLUSH_WRITE, "flush: write");
    expect(parses(ARGS("--flush", "none"), &opt) && opt.flush == FLUSH_NONE, "flush: none");
    const char *bad[] = {"fast", "READ", "", "read ", "1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        char name[64];
        snprintf(name, sizeof name, "flush: rejects '%s'", bad[i]);
        expect(!parses(ARGS("--flush", bad[i]), &opt), name);
    }
    expect(!parses(ARGS("--flush"), &opt), "flush: rejects --flush without a value");
    expect(strcmp(flush_method_name(FLUSH_WRITE), "write") == 0, "flush: names its methods");

    expect(parses(ARGS("--list-variants"), &opt) && opt.list_variants == 1 && opt.help == 0 &&
               opt.check_only == 0,
           "options: --list-variants");
    expect(!parses(ARGS("--list-variants", "--rows", "abc"), &opt),
           "options: --list-variants does not excuse a bad value");
}

/* ------------------------------------------------------------ timing arithmetic */

static void test_flusher_sizes(void)
{
    gpu_info gpu;
    memset(&gpu, 0, sizeof gpu);
    gpu.l2_bytes = (size_t)60 << 20;
    expect(l2_flusher_bytes(&gpu, FLUSH_READ) == (size_t)240 << 20, "flush: read uses 4 x L2");
    expect(l2_flusher_bytes(&gpu, FLUSH_WRITE) == (size_t)120 << 20, "flush: write uses 2 x L2");
    expect(l2_flusher_bytes(&gpu, FLUSH_NONE) == 0, "flush: none allocates nothing");

    char text[128];
    static char fake_buffer[16];
    l2_flusher f = {FLUSH_READ, fake_buffer, (size_t)240 << 20};
    describe_flush(&f, text, sizeof text);
    expect(strcmp(text, "L2 flushed by reading 240 MiB (4 x L2) with a kernel") == 0,
           "flush: the report names the read method");
    f = (l2_flusher){FLUSH_NONE, NULL, 0};
    describe_flush(&f, text, sizeof text);
    expect(strcmp(text, "L2 not flushed") == 0, "flush: the report says when L2 is not flushed");
}

/* ------------------------------------------------------------ compute capability */

static void test_gpu_too_old(void)
{
    gpu_info gpu;
    memset(&gpu, 0, sizeof gpu);
    gpu.cc_major = 8;
    gpu.cc_minor = 6;
    gpu.cc = 86;
    char reason[96] = "";
    expect(gpu_too_old(&gpu, 90, reason, sizeof reason) == 1 &&
               strcmp(reason, "needs compute capability 9.0, this GPU is 8.6") == 0,
           "min_cc: a 9.0 kernel is skipped on 8.6, with the reason");
    expect(gpu_too_old(&gpu, ANY_GPU, reason, sizeof reason) == 0, "min_cc: ANY_GPU runs anywhere");
    expect(gpu_too_old(&gpu, 86, reason, sizeof reason) == 0, "min_cc: 8.6 runs on 8.6");
    gpu.cc_major = 10;
    gpu.cc_minor = 0;
    gpu.cc = 100;
    expect(gpu_too_old(&gpu, 90, reason, sizeof reason) == 0, "min_cc: 9.0 runs on 10.0");
}

/* ------------------------------------------------------------ report */

/* Print with print_fn into a string. */
static void capture(void (*print_fn)(FILE *, const report *), const report *r, char *text,
                    size_t len)
{
    FILE *f = tmpfile();
    print_fn(f, r);
    read_back(f, text, len);
}

/* What --list-variants prints for step, as a string. */
static void variant_list_text(const step_desc *step, char *text, size_t len)
{
    FILE *f = tmpfile();
    print_variant_list(f, step);
    read_back(f, text, len);
}

/* A timed row: median and min in ms, and its check. */
static report_row timed_row(row_kind kind, const char *name, double median, size_t mismatches)
{
    report_row row;
    memset(&row, 0, sizeof row);
    row.kind = kind;
    row.name = name;
    row.checked = row.timed = 1;
    row.median_ms = row.min_ms = median;
    row.mismatches = mismatches;
    return row;
}

/* C names all seven members; in C++ (the step files) four mean a transpose. */
static const kernel_variant fake_variants[] = {
    {"fast", "a fast kernel", NULL, ANY_GPU, OUTPUT_TRANSPOSE, NULL, NULL},
    {"tma", "needs Hopper", NULL, 90, OUTPUT_TRANSPOSE, NULL, NULL},
};
static const step_desc fake_step = {"05", "fake", "A fake step", fake_variants, 2, NULL, sizeof(float)};

static void test_report_csv(void)
{
    gpu_info gpu;
    memset(&gpu, 0, sizeof gpu);
    snprintf(gpu.name, sizeof gpu.name, "NVIDIA Test, GPU");
    const shape s = {.rows = 1024, .cols = 1024, .offset = 1};
    report_row rows[6] = {
        timed_row(ROW_MEMCPY, "memcpy", 1.0, 0), timed_row(ROW_COPY_KERNEL, "copy_kernel", 2.0, 0),
        timed_row(ROW_CUBLAS, "cublas", 1.25, 0), timed_row(ROW_VARIANT, "fast", 0.5, 0),
        timed_row(ROW_VARIANT, "tma", 0.0, 0),    timed_row(ROW_VARIANT, "copy", 0.8, 0)};
    rows[0].min_ms = 0.9;
    rows[4].timed = rows[4].checked = 0;
    snprintf(rows[4].skip_reason, sizeof rows[4].skip_reason,
             "needs compute capability 9.0, this GPU is 8.6");
    rows[5].output = OUTPUT_COPY;
    options opt;
    options_defaults(&opt);
    const report r = {&fake_step, &gpu, &opt, &s, rows, 6, sizeof(float), NULL};

    /* 1024 x 1024 floats read and written in 1 ms: 8.388608 GB/s.
     * The copy bound is memcpy's 1.0 ms: the bound copies too, faster, but is no baseline. */
    const char *want =
        "NVIDIA Test  GPU,05,memcpy,copy,1024,1024,1,1.000000,0.900000,8.4,100.00,1.2500,PASS\n"
        "NVIDIA Test  GPU,05,copy_kernel,copy,1024,1024,1,2.000000,2.000000,4.2,50.00,0.6250,PASS\n"
        "NVIDIA Test  GPU,05,cublas,library,1024,1024,1,1.250000,1.250000,6.7,80.00,1.0000,PASS\n"
        "NVIDIA Test  GPU,05,fast,kernel,1024,1024,1,0.500000,0.500000,16.8,200.00,2.5000,PASS\n"
        "NVIDIA Test  GPU,05,tma,kernel,1024,1024,1,,,,,,SKIP\n"
        "NVIDIA Test  GPU,05,copy,bound,1024,1024,1,0.800000,0.800000,10.5,125.00,1.5625,PASS\n";
    char text[2048];
    capture(print_csv_rows, &r, text, sizeof text);
    expect(strcmp(text, want) == 0,
           "report: CSV rows, roles (a bound too), offset and an empty SKIP row");
    if (strcmp(text, want) != 0)
        fprintf(stderr, "got:\n%s", text);

    int commas = 0;
    for (const char *c = CSV_HEADER; *c; ++c)
        commas += *c == ',';
    expect(commas == 12 && strstr(CSV_HEADER, ",role,") != NULL &&
               strstr(CSV_HEADER, ",offset,") != NULL,
           "report: the CSV header has 13 columns, role and offset among them");
}

static void test_report_check_lines(void)
{
    gpu_info gpu;
    memset(&gpu, 0, sizeof gpu);
    const shape s = {.rows = 33, .cols = 4097, .offset = 1};
    report_row rows[4] = {
        timed_row(ROW_VARIANT, "fast", 0.0, 0), timed_row(ROW_VARIANT, "wrong", 0.0, 12),
        timed_row(ROW_VARIANT, "one_off", 0.0, 1), timed_row(ROW_VARIANT, "tma", 0.0, 0)};
    rows[3].checked = 0;
    snprintf(rows[3].skip_reason, sizeof rows[3].skip_reason,
             "needs compute capability 9.0, this GPU is 8.6");
    options opt;
    options_defaults(&opt);
    const report r = {&fake_step, &gpu, &opt, &s, rows, 4, sizeof(float), NULL};
    const char *want = "PASS 05 fast 33x4097+1\n"
                       "FAIL 05 wrong 33x4097+1 (12 wrong elements)\n"
                       "FAIL 05 one_off 33x4097+1 (1 wrong element)\n"
                       "SKIP 05 tma 33x4097+1 (needs compute capability 9.0, this GPU is 8.6)\n";
    char text[1024];
    capture(print_check_lines, &r, text, sizeof text);
    expect(strcmp(text, want) == 0, "report: --check-only lines for PASS, FAIL and SKIP");
    if (strcmp(text, want) != 0)
        fprintf(stderr, "got:\n%s", text);

    report_row unchecked;
    memset(&unchecked, 0, sizeof unchecked);
    expect(strcmp(row_check_word(&unchecked), "SKIP") == 0, "report: a row never checked is SKIP");
}

/* A bound copies: it is checked against the input, has its own role and is named under the
 * table; the copy bound is still the faster of the two copy baselines. */
static void test_bound_rows(void)
{
    report_row memcpy_row = timed_row(ROW_MEMCPY, "memcpy", 1.0, 0);
    report_row copy_kernel = timed_row(ROW_COPY_KERNEL, "copy_kernel", 1.0, 0);
    report_row blas = timed_row(ROW_CUBLAS, "cublas", 1.0, 0);
    report_row transpose = timed_row(ROW_VARIANT, "fast", 1.0, 0);
    report_row bound = timed_row(ROW_VARIANT, "copy", 0.5, 0);
    bound.output = OUTPUT_COPY;
    expect(row_copies_input(&memcpy_row) && row_copies_input(&copy_kernel) &&
               row_copies_input(&bound) && !row_copies_input(&blas) &&
               !row_copies_input(&transpose),
           "bound: the copies and the bound are checked against the input, the rest against "
           "the transpose");
    expect(strcmp(row_role(&bound), "bound") == 0 && strcmp(row_role(&transpose), "kernel") == 0,
           "bound: a copying variant has the role bound, a transposing one kernel");

    gpu_info gpu;
    memset(&gpu, 0, sizeof gpu);
    const shape s = {.rows = 33, .cols = 65};
    options opt;
    options_defaults(&opt);
    snprintf(memcpy_row.label, sizeof memcpy_row.label, "cudaMemcpy D2D");
    snprintf(transpose.label, sizeof transpose.label, "05 fast");
    snprintf(bound.label, sizeof bound.label, "05 copy");
    report_row rows[3] = {memcpy_row, transpose, bound};
    const report with_bound = {&fake_step, &gpu, &opt, &s, rows, 3, sizeof(float), NULL};
    expect(copy_bound_ms(&with_bound) == 1.0, "bound: never taken as the copy bound");

    char text[4096];
    capture(print_check_lines, &with_bound, text, sizeof text);
    expect(strstr(text, "\nPASS 05 copy 33x65\n") != NULL,
           "bound: its --check-only line has the usual form");
    capture(print_table, &with_bound, text, sizeof text);
    expect(strstr(text, "\n05 copy is a bound, not a transpose") != NULL &&
               strstr(text, "05 fast is a bound") == NULL,
           "bound: the table names it under the table as a bound");
    const report without_bound = {&fake_step, &gpu, &opt, &s, rows, 2, sizeof(float), NULL};
    capture(print_table, &without_bound, text, sizeof text);
    expect(strstr(text, "is a bound") == NULL, "bound: no note when there is no bound");
}

/* Why a bound needs its own check: a correct copy of a non-square matrix is no transpose. */
static void test_copy_checked_as_copy(void)
{
    enum { ROWS = 3, COLS = 5, N = ROWS * COLS };
    float in[N], transposed[N], copied[N];
    char text[2048];
    fill_random(in, N, 9);
    transpose_reference(in, transposed, ROWS, COLS);
    memcpy(copied, in, sizeof copied);
    expect(verify_captured(in, copied, ROWS, COLS, text, sizeof text) == 0,
           "bound: a copy passes when checked against the input");
    /* Only (0,0), (1,2) and (2,4) lie at the same offset in a 3x5 matrix and its transpose. */
    expect(verify_captured(transposed, copied, COLS, ROWS, text, sizeof text) == N - 3,
           "bound: the same copy checked as a transpose fails");
}

/* A step whose default kernel copies is refused before any GPU work: every summary, the
 * grader and the peers take the first variant for the step's transpose. */
static void test_default_must_transpose(void)
{
    static const kernel_variant copy_first[] = {
        {"copy", "a bound", NULL, ANY_GPU, OUTPUT_COPY, NULL, NULL},
        {"fast", "a fast kernel", NULL, ANY_GPU, OUTPUT_TRANSPOSE, NULL, NULL},
    };
    const step_desc step = {"05", "fake", "A fake step", copy_first, 2, NULL, sizeof(float)};
    char *argv[] = {(char *)"prog", (char *)"--check-only", (char *)"--shapes", (char *)"1x1",
                    NULL};
    fflush(stdout); /* its one error line on stderr must not split a line of ours */
    expect(run_step(4, argv, &step) == EXIT_USAGE,
           "bound: a step whose first variant copies is refused (exit 2) before any GPU work");

    char text[256];
    variant_list_text(&step, text, sizeof text);
    expect(strcmp(text, "copy\t0\tbound\ta bound\nfast\t0\tkernel\ta fast kernel\n") == 0,
           "bound: --list-variants lists a bound like any variant, with its role");
}

static void test_table_header(void)
{
    gpu_info gpu;
    memset(&gpu, 0, sizeof gpu);
    snprintf(gpu.name, sizeof gpu.name, "Test GPU");
    gpu.cc_major = 9;
    options opt;
    options_defaults(&opt);
    opt.warmup = 1;
    FILE *f = tmpfile();
    print_table_header(f, &fake_step, &gpu, &opt,
                       "L2 flushed by reading 240 MiB (4 x L2) with a kernel");
    char text[2048];
    read_back(f, text, sizeof text);
    const char *timing = strstr(text, "\nTiming   median and min of 20 runs after 1 warm-up; ");
    expect(strncmp(text, "Step 05 (fake): A fake step\nGPU      Test GPU:", 45) == 0 &&
               timing != NULL && strstr(timing, "flushed by reading 240 MiB") != NULL &&
               strstr(timing, "hold kernel\n") != NULL && strchr(timing + 1, '\n')[1] == '\0',
           "report: the header's one Timing line names the flush and the hold");
}

static void test_variant_list(void)
{
    char text[256];
    variant_list_text(&fake_step, text, sizeof text);
    expect(strcmp(text, "fast\t0\tkernel\ta fast kernel\ntma\t90\tkernel\tneeds Hopper\n") == 0,
           "report: --list-variants prints name, min_cc, role and summary, tab-separated");
}

/* --describe escapes what a JSON string cannot hold as it is: a quote, a backslash, a tab. */
static void test_description(void)
{
    const kernel_variant variants[] = {
        {"fast", "a \"fast\" kernel", NULL, ANY_GPU, OUTPUT_TRANSPOSE, NULL, NULL},
        {"copy", "a\\b\tc", NULL, 90, OUTPUT_COPY, NULL, NULL},
    };
    const step_desc step = {"05", "fake", "A \"fake\" step", variants, 2, NULL, sizeof(float)};
    char text[1024];
    FILE *f = tmpfile();
    print_step_description(f, &step);
    read_back(f, text, sizeof text);
    expect(strcmp(text, "{\n"
                        "  \"step\": \"05\",\n"
                        "  \"name\": \"fake\",\n"
                        "  \"title\": \"A \\\"fake\\\" step\",\n"
                        "  \"element_type\": \"float32\",\n"
                        "  \"element_bytes\": 4,\n"
                        "  \"default_variant\": \"fast\",\n"
                        "  \"element_types\": [\"float32\"],\n"
                        "  \"tensors\": false,\n"
                        "  \"variants\": [\n"
                        "    {\"name\": \"fast\", \"min_cc\": 0, \"role\": \"kernel\", \"element_types\": [\"float32\"], "
                        "\"summary\": \"a \\\"fast\\\" kernel\"},\n"
                        "    {\"name\": \"copy\", \"min_cc\": 90, \"role\": \"bound\", \"element_types\": [\"float32\"], "
                        "\"summary\": \"a\\\\b\\u0009c\"}\n"
                        "  ],\n"
                        "  \"csv_header\": \"" CSV_HEADER "\"\n"
                        "}\n") == 0,
           "report: --describe prints one JSON object, quotes, backslashes and tabs escaped");
    options opt;
    expect(parses(ARGS("--describe"), &opt) && opt.describe == 1 && opt.list_variants == 0,
           "options: --describe");
}

/* ------------------------------------------------------------ arithmetic */

static void test_bandwidth(void)
{
    /* 1024 x 1024 floats read and written: 2 * 2^20 * 4 = 8,388,608 bytes.
     * In 1 ms that is 8.388608e9 B/s = 8.388608 GB/s. */
    expect(fabs(transpose_gbps(1024, 1024, 4, 1.0) - 8.388608) < 1e-9, "bandwidth: 1024^2 in 1 ms");
    /* 32768^2: 2 * 2^30 * 4 = 8,589,934,592 bytes in 2 ms = 4294.967296 GB/s. */
    expect(fabs(transpose_gbps(32768, 32768, 4, 2.0) - 4294.967296) < 1e-6,
           "bandwidth: 32768^2 in 2 ms");
    expect(fabs(transpose_gbps(1, 1, 4, 1.0) - 8e-6) < 1e-15, "bandwidth: 1x1 in 1 ms is 8 bytes");
    expect(fabs(transpose_gbps(1024, 1024, 2, 1.0) - 4.194304) < 1e-9,
           "bandwidth: 1024^2 2-byte elements in 1 ms move half the bytes");

    double odd[] = {5, 1, 3};
    double even[] = {4, 1, 3, 2};
    expect(median_of(odd, 3) == 3.0, "median: odd count");
    expect(median_of(even, 4) == 2.5, "median: even count is the mean of the middle two");
}

static void test_random_values(void)
{
    int finite = 1, never_poison = 1, nonzero = 1;
    for (size_t i = 0; i < 100000; ++i) {
        const float v = random_value(11, i);
        uint32_t bits;
        memcpy(&bits, &v, sizeof bits);
        finite &= isfinite(v) && fpclassify(v) == FP_NORMAL;
        nonzero &= v != 0.0f;
        never_poison &= bits != POISON_BITS;
    }
    expect(finite && nonzero, "random: values are finite, normal and non-zero");
    expect(never_poison, "random: never the poison pattern");
    expect(same_bits(random_value(1, 99), random_value(1, 99)), "random: same seed, same value");
    expect(!same_bits(random_value(1, 99), random_value(2, 99)),
           "random: the seed changes the value");

    /* Neighbours must differ, or a kernel that shifts by one element could pass. */
    int neighbours_differ = 1;
    for (size_t i = 0; i < 100000; ++i)
        neighbours_differ &= !same_bits(random_value(5, i), random_value(5, i + 1));
    expect(neighbours_differ, "random: neighbouring elements differ");
}

/* ------------------------------------------------------------ 2-byte elements */

static void test_16_bit_elements(void)
{
    /* The reference moves 2-byte elements as it moves floats. */
    const uint16_t in[6] = {1, 2, 3, 4, 5, 6};
    const uint16_t want[6] = {1, 4, 2, 5, 3, 6};
    uint16_t out[6] = {0};
    transpose_reference_16(in, out, 2, 3);
    expect(memcmp(out, want, sizeof want) == 0, "16-bit: reference, 2x3 by hand");

    enum { ROWS = 67, COLS = 131, N = ROWS * COLS };
    static uint16_t a[N], t[N], back[N];
    fill_random_16(a, N, 7);
    transpose_reference_16(a, t, ROWS, COLS);
    transpose_reference_16(t, back, COLS, ROWS);
    int definition = 1;
    for (size_t r = 0; r < ROWS; ++r)
        for (size_t c = 0; c < COLS; ++c)
            definition &= t[c * ROWS + r] == a[r * COLS + c];
    expect(definition && memcmp(a, back, sizeof a) == 0,
           "16-bit: reference across 64-element blocks, and twice is the identity");

    /* Inputs: finite, normal, non-zero bf16, never the poison, and the seed matters. */
    int normal = 1, never_poison = 1, distinct_neighbours = 0;
    for (size_t i = 0; i < 100000; ++i) {
        const uint16_t v = random_value_16(11, i);
        const unsigned exponent = (v >> 7) & 0xFFu;
        normal &= exponent != 0 && exponent != 0xFF;
        never_poison &= v != POISON_BITS_16;
        distinct_neighbours += v != random_value_16(11, i + 1);
    }
    expect(normal, "16-bit: random values are finite, normal and non-zero bf16");
    expect(never_poison, "16-bit: never the poison pattern");
    expect(distinct_neighbours > 99900, "16-bit: neighbouring elements almost always differ");
    expect(random_value_16(1, 99) != random_value_16(2, 99) || random_value_16(1, 98) != random_value_16(2, 98),
           "16-bit: the seed changes the values");

    /* The verifier: one flipped bit, and one element never written. */
    FILE *log = tmpfile();
    char text[2048];
    memcpy(back, t, sizeof back);
    back[5 * ROWS + 3] ^= 1u;
    back[N - 1] = POISON_BITS_16;
    const size_t bad = verify_transpose_16(t, back, COLS, ROWS, "k", 8, log);
    read_back(log, text, sizeof text);
    expect(bad == 2, "16-bit: verifier catches one flipped bit and one unwritten element");
    expect(strstr(text, "(5, 3)") != NULL && strstr(text, "never written") != NULL,
           "16-bit: verifier names the element and marks the unwritten one");
    expect(verify_transpose_16(t, t, COLS, ROWS, "k", 8, stderr) == 0, "16-bit: identical matrices pass");

    /* Offsets: every 2-byte place in a 16-byte vector, 0-7; a float32 step keeps 0-3. */
    options opt;
    char err[320];
    char *seven[] = {(char *)"prog", (char *)"--shapes", (char *)"5x7+7"};
    char *eight[] = {(char *)"prog", (char *)"--offset", (char *)"8"};
    expect(parse_step_options(3, seven, 2, &opt, err, sizeof err) == 0 && opt.shapes[0].offset == 7,
           "16-bit: a step of 2-byte elements takes offset 7");
    expect(parse_step_options(3, eight, 2, &opt, err, sizeof err) != 0 && strstr(err, "0 to 7") != NULL,
           "16-bit: offset 8 is refused, naming 0 to 7");
    expect(parse_step_options(3, seven, 4, &opt, err, sizeof err) != 0 && strstr(err, "OFFSET 0-3") != NULL,
           "16-bit: a float32 step still refuses offset 7");
}

int main(void)
{
    test_reference_by_hand();
    test_reference_against_definition();
    test_verifier();
    test_tiles_swapped_verifier();
    test_tiles_swapped_verifier_16();
    test_options_accept();
    test_options_reject();
    test_shapes_accept();
    test_shapes_reject();
    test_shapes_exclusive();
    test_format_shape();
    test_flush_and_list();
    test_flusher_sizes();
    test_gpu_too_old();
    test_report_csv();
    test_report_check_lines();
    test_bound_rows();
    test_copy_checked_as_copy();
    test_default_must_transpose();
    test_table_header();
    test_variant_list();
    test_description();
    test_bandwidth();
    test_random_values();
    test_16_bit_elements();
    return failures == 0 ? 0 : 1;
}
