/**
 * @file rules.h
 * @brief The measured half of the float32 rule (dispatch_f32.cuh): for each
 *        GPU measured, which 64x64 16-byte tile kernel runs and up to which
 *        size, and from which size step 11's sector runs are 96 floats long.
 *
 * One row per GPU, named as the driver names it (cudaDeviceProp::name, the
 * `gpu` column of the sweeps in docs/results/). Each size was read off the
 * GPU's committed sweep (`docs/results/<gpu>.csv`, `make bench`) the same way:
 * group the swept shapes where the choice applies by size in bytes, take
 * the average % of copy that one kernel gains over the other at each size,
 * and split where the running sum of those gains, smallest size first,
 * peaks: the one limit that loses the fewest points over the sizes swept.
 *
 * - **tiles up to**: the 16-byte tile kernel against step 11's default, on
 *   matrices of whole aligned chunks whose rows of `out` start on 64 bytes.
 * - **rows a power of two**: the same, on matrices with a power-of-two
 *   number of rows (rows of `out` a power of two bytes apart), read off the
 *   sweep and the GPU's pitch study (`make study STUDIES=pitch`), which times them
 *   past the sweep's sizes.
 * - **long runs from**: step 11's sector runs of 96 floats against those of
 *   64, on rows that are not whole chunks, read from the largest size down;
 *   on the H200 also off the dispatch study's shapes (`make study
 *   STUDIES=dispatch`), where the long runs led from 333 x 25000 (32 MiB)
 *   and step 09's tiles took the odd matrices in a quarter of L2.
 * - **lines from**: the fewest rows on which step 11's sector runs ask L2
 *   for whole lines (where a column of tiles fits in a quarter of L2,
 *   sr_lines_reused()). On the H100 the lines gained from 10007 rows; on
 *   the H200 they lost up to 10007 rows (333 x 25000, 4097 x 4095, 10007 x
 *   7919) and gained from 16385 (`make study STUDIES=lines`).
 * - **tiles_down**: the tile kernel, tiles_down.cuh's where it gained more
 *   over step 11's default than step 09's kernel did and trailed it by at
 *   most 2 points at every swept shape; on the H100 it trailed by more at
 *   50000 x 3000, where its tiles down a matrix of few columns read each
 *   row of `in` in 256-byte pieces.
 *
 * Whether the rule picks the faster kernel is measured, not assumed: the
 * write-ups time the dispatch beside every kernel it chooses between on the
 * narrow, pitch and runs studies, and say per GPU where it falls behind
 * (docs/last-points.md).
 *
 * A GPU without a row gets the **default**: step 09's kernel up to the size
 * of its L2 for both limits, below which step 09's kernel led on every GPU
 * measured, no long runs, and lines wherever they are reused. To add a
 * GPU: run `make bench` and `make study` on it, read its row as above, and
 * add it here.
 */
#ifndef TRANSPOSE_RULES_H
#define TRANSPOSE_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Bytes in a MiB: the limits are sizes of swept matrices, in MiB where they are whole. */
#define RULES_MIB ((size_t)1 << 20)

/** A size no matrix reaches: the GPU never takes the long runs. */
#define RULES_NEVER SIZE_MAX

/** @brief One measured GPU: its name as the driver reports it, its tile kernel and its three sizes. */
struct f32_rules {
    const char *gpu;          /**< cudaDeviceProp::name */
    size_t tiles_up_to;       /**< the 16-byte tile kernel up to this size in bytes, step 11's beyond */
    size_t tiles_pow2_up_to;  /**< the same on a matrix with a power-of-two number of rows */
    size_t long_runs_from;    /**< step 11's sector runs of 96 floats from this size, of 64 below */
    bool tiles_down;          /**< the tile kernel: tiles_down.cuh's if true, step 09's if false */
    size_t lines_from_rows;   /**< step 11's sector runs ask L2 for lines from this many rows (where reused) */
};

/** One row per GPU of docs/results/gpus.csv. */
static const struct f32_rules F32_RULES[] = {
    /* GPU                    tiles up to       rows a power of two  long runs from  tiles_down  lines from  read off */
    {"NVIDIA H100 80GB HBM3", 1024 * RULES_MIB, 4096 * RULES_MIB, 67141636, false, 0},  /* h100-80gb-hbm3{,-pitch}.csv */
    {"NVIDIA H200", 1024 * RULES_MIB, 4096 * RULES_MIB, 16 * RULES_MIB, true, 16384},   /* h200{,-dispatch,-lines}.csv */
};

#endif /* TRANSPOSE_RULES_H */
