/**
 * @file matrix.c
 * @brief Random input, CPU reference and verification (host only).
 */
#include "matrix.h"

#include <string.h>

/** @brief The reference transposes in square blocks of this many elements a side. */
#define REFERENCE_BLOCK 64

/** @brief splitmix64: a fast, well-mixed 64-bit hash. */
static uint64_t mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/** @brief The float whose bit pattern is @p bits. */
static float float_from_bits(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/** @brief The bit pattern of @p f. */
static uint32_t bits_from_float(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return bits;
}

float random_value(uint64_t seed, size_t index)
{
    const uint64_t h = mix64(mix64(seed) ^ (uint64_t)index);
    const uint32_t sign = (uint32_t)(h >> 63) << 31;
    const uint32_t exponent = (uint32_t)(120 + (h >> 32) % 16) << 23; /**< 2^-7 .. 2^8 */
    const uint32_t mantissa = (uint32_t)h & 0x7FFFFFu;
    return float_from_bits(sign | exponent | mantissa);
}

void fill_random(float *m, size_t count, uint64_t seed)
{
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < count; ++i)
        m[i] = random_value(seed, i);
}

/** @brief One 64 x 64 block of the reference: rows [r0, r1) and columns [c0, c1) of `in`. */
typedef void (*block_mover)(const void *in, void *out, size_t rows, size_t cols, size_t r0, size_t r1,
                            size_t c0, size_t c1);

/** @brief A block of 4-byte elements. */
static void move_block_32(const void *in, void *out, size_t rows, size_t cols, size_t r0, size_t r1,
                          size_t c0, size_t c1)
{
    const uint32_t *from = in;
    uint32_t *to = out;
    for (size_t r = r0; r < r1; ++r)
        for (size_t c = c0; c < c1; ++c)
            to[c * rows + r] = from[r * cols + c];
}

/** @brief A block of 2-byte elements. */
static void move_block_16(const void *in, void *out, size_t rows, size_t cols, size_t r0, size_t r1,
                          size_t c0, size_t c1)
{
    const uint16_t *from = in;
    uint16_t *to = out;
    for (size_t r = r0; r < r1; ++r)
        for (size_t c = c0; c < c1; ++c)
            to[c * rows + r] = from[r * cols + c];
}

/** @brief The blocked reference: every 64 x 64 block moved by @p move, the blocks spread over the cores. */
static void transpose_in_blocks(const void *in, void *out, size_t rows, size_t cols, block_mover move)
{
    const size_t block_rows = (rows + REFERENCE_BLOCK - 1) / REFERENCE_BLOCK;
    const size_t block_cols = (cols + REFERENCE_BLOCK - 1) / REFERENCE_BLOCK;
#pragma omp parallel for collapse(2) schedule(static)
    for (size_t br = 0; br < block_rows; ++br) {
        for (size_t bc = 0; bc < block_cols; ++bc) {
            const size_t r0 = br * REFERENCE_BLOCK, c0 = bc * REFERENCE_BLOCK;
            const size_t r1 = r0 + REFERENCE_BLOCK < rows ? r0 + REFERENCE_BLOCK : rows;
            const size_t c1 = c0 + REFERENCE_BLOCK < cols ? c0 + REFERENCE_BLOCK : cols;
            move(in, out, rows, cols, r0, r1, c0, c1);
        }
    }
}

void transpose_reference(const float *in, float *out, size_t rows, size_t cols)
{
    transpose_in_blocks(in, out, rows, cols, move_block_32);   /* floats moved as their bits */
}

/**
 * @brief Where output element @p i of an out_rows x out_cols result finds
 *        its expected value in the transpose: at @p i itself, or with
 *        @p tile > 0, mirrored inside its tile when the tile is whole.
 */
static size_t expected_index(size_t i, size_t out_rows, size_t out_cols, size_t tile)
{
    if (tile == 0)
        return i;
    const size_t row = i / out_cols, col = i % out_cols;
    const size_t row0 = row / tile * tile, col0 = col / tile * tile;
    if (row0 + tile > out_rows || col0 + tile > out_cols)
        return i;   /* an edge tile: transposed */
    return (row0 + (col - col0)) * out_cols + col0 + (row - row0);
}

/** @brief verify_transpose(), with each output element compared to expected[expected_index()]. */
static size_t verify_mapped(const float *expected, const float *got, size_t out_rows, size_t out_cols,
                            size_t tile, const char *label, int max_report, FILE *log)
{
    const size_t count = out_rows * out_cols;
    size_t mismatches = 0;
    /**< Compare bit patterns, not values: -0.0 == 0.0 and NaN != NaN would both lie. */
#pragma omp parallel for reduction(+ : mismatches) schedule(static)
    for (size_t i = 0; i < count; ++i)
        mismatches += bits_from_float(expected[expected_index(i, out_rows, out_cols, tile)]) !=
                      bits_from_float(got[i]);

    int reported = 0;
    for (size_t i = 0; i < count && mismatches > 0 && reported < max_report; ++i) {
        const float want_value = expected[expected_index(i, out_rows, out_cols, tile)];
        const uint32_t want = bits_from_float(want_value);
        const uint32_t have = bits_from_float(got[i]);
        if (want == have)
            continue;
        fprintf(log, "  %s: output (%zu, %zu): expected %.9g (0x%08X), got %.9g (0x%08X)%s\n",
                label, i / out_cols, i % out_cols, (double)want_value, (unsigned)want,
                (double)got[i], (unsigned)have, have == POISON_BITS ? " [never written]" : "");
        ++reported;
    }
    if (mismatches > (size_t)reported && reported > 0)
        fprintf(log, "  %s: ... %zu mismatching elements of %zu in all\n", label, mismatches, count);
    return mismatches;
}

size_t verify_transpose(const float *expected, const float *got, size_t out_rows,
                        size_t out_cols, const char *label, int max_report, FILE *log)
{
    return verify_mapped(expected, got, out_rows, out_cols, 0, label, max_report, log);
}

size_t verify_tiles_swapped(const float *transposed, const float *got, size_t out_rows, size_t out_cols,
                            size_t tile, const char *label, int max_report, FILE *log)
{
    return verify_mapped(transposed, got, out_rows, out_cols, tile, label, max_report, log);
}

uint16_t random_value_16(uint64_t seed, size_t index)
{
    const uint64_t h = mix64(mix64(seed) ^ (uint64_t)index);
    const uint16_t sign = (uint16_t)((h >> 63) << 15);
    const uint16_t exponent = (uint16_t)((1 + (h >> 32) % 254) << 7); /**< neither 0 nor 255 */
    const uint16_t mantissa = (uint16_t)(h & 0x7Fu);
    const uint16_t bits = (uint16_t)(sign | exponent | mantissa);
    return bits == POISON_BITS_16 ? (uint16_t)(bits ^ 1u) : bits;
}

void fill_random_16(uint16_t *m, size_t count, uint64_t seed)
{
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < count; ++i)
        m[i] = random_value_16(seed, i);
}

void transpose_reference_16(const uint16_t *in, uint16_t *out, size_t rows, size_t cols)
{
    transpose_in_blocks(in, out, rows, cols, move_block_16);
}

/** @brief verify_mapped() for 2-byte elements. */
static size_t verify_mapped_16(const uint16_t *expected, const uint16_t *got, size_t out_rows, size_t out_cols,
                               size_t tile, const char *label, int max_report, FILE *log)
{
    const size_t count = out_rows * out_cols;
    size_t mismatches = 0;
#pragma omp parallel for reduction(+ : mismatches) schedule(static)
    for (size_t i = 0; i < count; ++i)
        mismatches += expected[expected_index(i, out_rows, out_cols, tile)] != got[i];

    int reported = 0;
    for (size_t i = 0; i < count && mismatches > 0 && reported < max_report; ++i) {
        const uint16_t want = expected[expected_index(i, out_rows, out_cols, tile)];
        if (want == got[i])
            continue;
        /* A bf16 is the top half of a float: widen it to print its value. */
        fprintf(log, "  %s: output (%zu, %zu): expected %.4g (0x%04X), got %.4g (0x%04X)%s\n",
                label, i / out_cols, i % out_cols, (double)float_from_bits((uint32_t)want << 16),
                (unsigned)want, (double)float_from_bits((uint32_t)got[i] << 16), (unsigned)got[i],
                got[i] == POISON_BITS_16 ? " [never written]" : "");
        ++reported;
    }
    if (mismatches > (size_t)reported && reported > 0)
        fprintf(log, "  %s: ... %zu mismatching elements of %zu in all\n", label, mismatches, count);
    return mismatches;
}

size_t verify_transpose_16(const uint16_t *expected, const uint16_t *got, size_t out_rows,
                           size_t out_cols, const char *label, int max_report, FILE *log)
{
    return verify_mapped_16(expected, got, out_rows, out_cols, 0, label, max_report, log);
}

size_t verify_tiles_swapped_16(const uint16_t *transposed, const uint16_t *got, size_t out_rows, size_t out_cols,
                               size_t tile, const char *label, int max_report, FILE *log)
{
    return verify_mapped_16(transposed, got, out_rows, out_cols, tile, label, max_report, log);
}

double transpose_gbps(size_t rows, size_t cols, size_t element_bytes, double ms)
{
    const double bytes = 2.0 * (double)rows * (double)cols * (double)element_bytes;
    return bytes / (ms * 1e-3) / 1e9;
}
