/**
 * @file answer_tuning.h
 * @brief The measured half of step 12's default: for each GPU measured,
 *        which 64x64 16-byte tile kernel steps/12_tma/answer.cuh runs, step
 *        09's or tiles_down.cuh's, and the largest matrix on which it runs
 *        it (step 11's default beyond it).
 *
 * Kept by hand, and checked: `python3 -m lab.tuning` (and `make test`)
 * reads each GPU's limit off its committed sweep (docs/results/h200.csv for
 * the H200: the file is named by the GPU's slug in docs/results/gpus.csv),
 * and fails if a row here disagrees with it (a GPU without a row runs the
 * default below). The
 * rule: take the swept shapes on which the answer may run step 09's
 * 16-byte kernel (columns a multiple of 4, rows of `out` on
 * ANSWER_OUT_ROW_ALIGN bytes, both sides at least 64, offset 0) and group
 * them by size in bytes; in each group, average the tile kernel's % of
 * copy less step 11's. The limit is the size at which the running sum of these leads,
 * smallest size first, peaks: the one split that loses the fewest points
 * over the sizes swept (0 if the sum never rises above 0), up to the
 * largest swept matrix whose number of rows is not a power of two: past
 * it the sweep timed only matrices that the second limit rules. A dip of a point
 * at one size, as two runs of the same sweep can differ, moves it little.
 *
 * Which tile kernel: the same split is read for step 09's `vec4` and for
 * step 12's `tiles_down`. The GPU takes `tiles_down` if its running sum
 * peaks higher, that is if it gains more points over step 11's default on
 * the sizes swept, and if it trails step 09's kernel by at most 2 points
 * at every swept shape where step 09's kernel runs; step 09's otherwise.
 * On the H100 it gained more, but trailed by more than that at 50000 x 3000,
 * where its tiles down a matrix of few columns read each row of `in` in
 * 256-byte pieces.
 *
 * The second limit is the same rule over the matrices with a power-of-two
 * number of rows alone (their rows of out a power of two bytes apart),
 * read off the sweep and, where there is one, the GPU's pitch study
 * (docs/results/h100-80gb-hbm3-pitch.csv for the H100, `make
 * pitch-study`), which times such matrices past the sweep's sizes. On the H100, past the first limit, step 09's kernel
 * fell behind where rows of out were 80000 or 120000 bytes apart, yet
 * kept its lead where they were a power of two bytes apart (appendix 12).
 *
 * The third size is read off the same files: over the shapes on which step
 * 11's default runs its sector runs (rows of `in` or of `out` not whole
 * 16-byte chunks, both sides at least 64), grouped by size, the average %
 * of copy of step 11's `long_runs` less its default's. The same split,
 * read from the largest size down, is the size from which the answer
 * takes the long runs (where their tiles fill the rows: long_runs_fill()
 * in answer.cuh); ANSWER_NEVER if they lose points at every split.
 *
 * To add a GPU: run `make bench` on it and commit its sweep and its row of
 * docs/results/gpus.csv; then `python3 -m lab.tuning` prints, for every GPU,
 * each tile kernel's lead at each size, the limits and the row to add below,
 * named as the driver names the GPU (the sweep's `gpu` column). A GPU with
 * no row gets step 09's kernel up to its L2 size for both, below which step
 * 09's kernel led on every GPU measured, and no long runs.
 */
#ifndef TRANSPOSE_ANSWER_TUNING_H
#define TRANSPOSE_ANSWER_TUNING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Bytes in a MiB: the limits are sizes of swept matrices, in MiB where they are whole. */
#define ANSWER_MIB ((size_t)1 << 20)

/** A size no matrix reaches: the GPU never takes the long runs. */
#define ANSWER_NEVER SIZE_MAX

/** @brief One measured GPU: its name as the driver reports it, its tile kernel and its three limits. */
struct answer_tuning {
    const char *gpu;          /**< cudaDeviceProp::name */
    size_t vec4_bytes;        /**< the 16-byte tile kernel up to this size, step 11's beyond */
    size_t vec4_pow2_bytes;   /**< the same on a matrix with a power-of-two number of rows */
    size_t long_runs_bytes;   /**< step 11's sector runs of 96 floats from this size, of 64 below */
    bool tiles_down;          /**< the tile kernel: tiles_down.cuh's if true, step 09's if false */
};

/** One row per GPU of docs/results/gpus.csv. */
static const struct answer_tuning ANSWER_TUNINGS[] = {
    /* GPU                    tiles up to        rows a power of two  long runs from  tiles_down  read off */
    {"NVIDIA H100 80GB HBM3", 1024 * ANSWER_MIB, 4096 * ANSWER_MIB, 67141636, false},  /* h100-80gb-hbm3{,-pitch}.csv */
    {"NVIDIA H200", 1024 * ANSWER_MIB, 4096 * ANSWER_MIB, 67141636, true},              /* docs/results/h200.csv */
};

#endif /* TRANSPOSE_ANSWER_TUNING_H */
