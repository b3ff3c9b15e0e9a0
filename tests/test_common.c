/**
 * @file test_common.c
 * @brief Host unit tests of common/: the CPU reference, the verifier, the
 *        command line, the bandwidth arithmetic and the random input.
 *
 * Needs no GPU. Prints one `PASS name` or `FAIL name` line per check and
 * exits non-zero if any failed; tests/run_all.sh counts the lines.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matrix.h"
#include "options.h"
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

/* Run the verifier with its messages captured; returns mismatches, fills text. */
static size_t verify_captured(const float *want, const float *got, size_t rows, size_t cols,
                              char *text, size_t text_len)
{
    FILE *log = tmpfile();
    const size_t bad = verify_transpose(want, got, rows, cols, "k", 8, log);
    rewind(log);
    const size_t n = fread(text, 1, text_len - 1, log);
    text[n] = '\0';
    fclose(log);
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

/* ------------------------------------------------------------ options */

static int parses(const char *const *args, int n, options *opt)
{
    char *argv[16];
    char err[256];
    argv[0] = (char *)"prog";
    for (int i = 0; i < n; ++i)
        argv[i + 1] = (char *)args[i];
    return parse_options(n + 1, argv, opt, err, sizeof err) == 0;
}

#define ARGS(...) (const char *const[]){__VA_ARGS__}, (int)(sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *))

static void test_options_accept(void)
{
    options opt;
    expect(parses(ARGS("--csv"), &opt) && opt.rows == DEFAULT_ROWS && opt.cols == DEFAULT_COLS &&
               opt.reps == DEFAULT_REPS && opt.csv == 1 && opt.check_only == 0,
           "options: defaults are 8192 x 8192");
    expect(parses(ARGS("--rows", "5", "--cols", "7", "--reps", "3", "--warmup", "0", "--seed", "0",
                       "--check-only", "--variant", "tiled", "--offset", "3"), &opt) &&
               opt.rows == 5 && opt.cols == 7 && opt.reps == 3 && opt.warmup == 0 && opt.seed == 0 &&
               opt.check_only && strcmp(opt.variant, "tiled") == 0 && opt.offset == 3,
           "options: every flag with a valid value");
    expect(parses(ARGS("--rows", "32768", "--cols", "32768"), &opt) && opt.rows == 32768,
           "options: 32768 x 32768");
    expect(parses(ARGS("--rows", "1", "--cols", "67108864"), &opt) && opt.cols == 67108864,
           "options: 1 x 2^26");
    expect(parses(ARGS("--help"), &opt) && opt.help, "options: --help");
}

static void test_options_reject(void)
{
    options opt;
    const char *bad_sizes[] = {"abc", "0", "-1", "-0", "+5", " 5", "12x", "1e3", "0x10", "",
                               "99999999999999999999999"};
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

/* ------------------------------------------------------------ arithmetic */

static void test_bandwidth(void)
{
    /* 1024 x 1024 floats read and written: 2 * 2^20 * 4 = 8,388,608 bytes.
     * In 1 ms that is 8.388608e9 B/s = 8.388608 GB/s. */
    expect(fabs(transpose_gbps(1024, 1024, 1.0) - 8.388608) < 1e-9, "bandwidth: 1024^2 in 1 ms");
    /* 32768^2: 2 * 2^30 * 4 = 8,589,934,592 bytes in 2 ms = 4294.967296 GB/s. */
    expect(fabs(transpose_gbps(32768, 32768, 2.0) - 4294.967296) < 1e-6, "bandwidth: 32768^2 in 2 ms");
    expect(fabs(transpose_gbps(1, 1, 1.0) - 8e-6) < 1e-15, "bandwidth: 1x1 in 1 ms is 8 bytes");

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
    expect(!same_bits(random_value(1, 99), random_value(2, 99)), "random: the seed changes the value");

    /* Neighbours must differ, or a kernel that shifts by one element could pass. */
    int neighbours_differ = 1;
    for (size_t i = 0; i < 100000; ++i)
        neighbours_differ &= !same_bits(random_value(5, i), random_value(5, i + 1));
    expect(neighbours_differ, "random: neighbouring elements differ");
}

int main(void)
{
    test_reference_by_hand();
    test_reference_against_definition();
    test_verifier();
    test_options_accept();
    test_options_reject();
    test_bandwidth();
    test_random_values();
    return failures == 0 ? 0 : 1;
}
