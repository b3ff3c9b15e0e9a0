/**
 * @file matrix.h
 * @brief Host-side matrices: random input, the CPU reference, bit-exact
 *        verification and the bandwidth arithmetic.
 */
#ifndef TRANSPOSE_MATRIX_H
#define TRANSPOSE_MATRIX_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief The byte written over every output before a kernel runs.
 *
 * Four 0x7F bytes make the float 0x7F7F7F7F (about 3.4e38): finite, so it
 * survives cuBLAS's `beta * C` even if C is read, and never produced by
 * random_value(), so an element a kernel forgot to write always fails.
 */
#define POISON_BYTE 0x7F
/** @brief ::POISON_BYTE repeated as the 32-bit pattern of one float. */
#define POISON_BITS 0x7F7F7F7Fu

/**
 * @brief The input element at linear position @p index for a given seed.
 *
 * Each value is a hash of (seed, index) turned into a float with a random
 * sign, a random 23-bit mantissa and an exponent in [-7, 8]: finite, never
 * zero or denormal, and with about 2^28 distinct values, so an element
 * that lands in the wrong place is almost surely detected.
 */
float random_value(uint64_t seed, size_t index);

/** @brief Fill @p m[0..count) with random_value(seed, i). */
void fill_random(float *m, size_t count, uint64_t seed);

/**
 * @brief The CPU reference: out (cols x rows) = transpose of in (rows x cols).
 *
 * Blocked in 64 x 64 tiles so that both sides stay in cache, and spread
 * over the CPU's cores, so 2^30 elements take seconds rather than minutes.
 */
void transpose_reference(const float *in, float *out, size_t rows, size_t cols);

/**
 * @brief Compare two out_rows x out_cols matrices bit for bit.
 *
 * The first @p max_report mismatches are printed to @p log as
 * `(row, col): expected X, got Y`, marking elements that still hold the
 * poison as never written.
 *
 * @param expected   the correct result
 * @param got        what the kernel wrote
 * @param out_rows   rows of both matrices
 * @param out_cols   columns of both matrices
 * @param label      names the kernel in the printed lines
 * @param max_report how many mismatches to print at most
 * @param log        where to print them
 * @return the number of mismatching elements (0 means a pass)
 */
size_t verify_transpose(const float *expected, const float *got, size_t out_rows,
                        size_t out_cols, const char *label, int max_report, FILE *log);

/**
 * @brief verify_transpose() for a bound that moves every whole @p tile x
 *        @p tile tile of `in` to its transposed place without transposing
 *        it (::OUTPUT_TILES_SWAPPED): @p got must equal the transpose
 *        @p transposed with each whole tile of it transposed back, and be
 *        the transpose itself in the edge tiles.
 */
size_t verify_tiles_swapped(const float *transposed, const float *got, size_t out_rows, size_t out_cols,
                            size_t tile, const char *label, int max_report, FILE *log);

/** @brief ::POISON_BYTE repeated as the 16-bit pattern of one 2-byte element. */
#define POISON_BITS_16 0x7F7Fu

/**
 * @brief The 2-byte input element at @p index, as bf16 bits: a random sign,
 *        exponent (neither all zeros nor all ones) and 7-bit mantissa, so a
 *        finite, normal, non-zero bf16 with about 2^16 distinct values, and
 *        never ::POISON_BITS_16.
 */
uint16_t random_value_16(uint64_t seed, size_t index);

/** @brief Fill @p m[0..count) with random_value_16(seed, i). */
void fill_random_16(uint16_t *m, size_t count, uint64_t seed);

/** @brief transpose_reference() for 2-byte elements. */
void transpose_reference_16(const uint16_t *in, uint16_t *out, size_t rows, size_t cols);

/**
 * @brief verify_transpose() for 2-byte elements: the values are printed as
 *        the bf16 they hold, with their bits.
 */
size_t verify_transpose_16(const uint16_t *expected, const uint16_t *got, size_t out_rows,
                           size_t out_cols, const char *label, int max_report, FILE *log);

/** @brief verify_tiles_swapped() for 2-byte elements. */
size_t verify_tiles_swapped_16(const uint16_t *transposed, const uint16_t *got, size_t out_rows, size_t out_cols,
                               size_t tile, const char *label, int max_report, FILE *log);

/**
 * @brief Effective bandwidth of a transpose in GB/s (1e9 bytes per second):
 *        every element is read once and written once,
 *        2 * rows * cols * @p element_bytes bytes.
 */
double transpose_gbps(size_t rows, size_t cols, size_t element_bytes, double ms);

#ifdef __cplusplus
}
#endif

#endif /* TRANSPOSE_MATRIX_H */
