/**
 * @file answer.cuh
 * @brief The tutorial's answer, step 12's default: which kernel of the
 *        tutorial to run on a given shape.
 *
 * No one kernel of the tutorial is the fastest on every shape (the sweeps
 * in docs/results/ on the H200 and the H100). The answer decides from the
 * shape, the pointers and the GPU, between launches that are each
 * bit-exact on every shape:
 *
 * | the matrix                                       | launch                              |
 * | ------------------------------------------------ | ----------------------------------- |
 * | one row or one column (a vector)                 | step 11's chunk kernel: a copy      |
 * | 2-55 rows (2-31 of whole aligned chunks), or 2-31 columns | slabs of 16-byte chunks    |
 * | 56-60 rows, a multiple of 4, rows of `in` not whole chunks | step 11's chunk kernel  |
 * | other matrices of fewer than 64 rows, or 32-63 columns of whole aligned chunks | step 09's launch |
 * | rows of whole aligned chunks, rows of `out` on 64 bytes or the matrix in L2, up to the GPU's limit (a second limit where the rows are a power of two) | a 16-byte tile kernel: step 09's, or tiles_down.cuh's, per GPU |
 * | anything else, from a size measured per GPU, if tiles of 96 rows pad few more rows than tiles of 64 | step 11's default, sector runs of 96 floats |
 * | anything else                                    | step 11's default                   |
 *
 * Where step 11's sector runs run, their loads ask L2 for the 256 bytes
 * around each chunk if one column of tiles, `in` and `out`, fits in a
 * quarter of L2 (sr_lines_reused(): up to 25600 rows on the H100); then
 * the tile beside, one column later, finds the rest of its lines in L2
 * (`make study STUDIES=lines`, appendix 12).
 *
 * Why each row: on a matrix of few rows or columns, a 64x64 tile is
 * mostly empty, and a block moves too few bytes to pay for its start; a
 * slab of 4096 elements along the long side does, moving 16-byte chunks
 * (slab_chunks.cuh, slab_chunks_pay(); `make study STUDIES=narrow` times them all
 * on matrices of 2-63 rows and columns). Step 09's tiles kept up from 56
 * rows, and from 32 rows or columns of whole chunks; where only the rows
 * of `out` are whole chunks, step 11's chunk kernel led them, writing 16
 * bytes at a time; on 32-63 columns of other rows, step 11's sector runs
 * led them, as on any other matrix.
 * Up to a size that
 * depends on the GPU, a 16-byte tile kernel was measured ahead of step
 * 11's; beyond it, and wherever rows are not whole aligned chunks, step
 * 11's kernel was. Which tile kernel is measured per GPU too: on the H200,
 * step 09's tile taken down the columns, one tile per block at 8 blocks
 * per multiprocessor (tiles_down.cuh), gained more over step 11 than step
 * 09's kernel, and ran ahead of it to larger sizes; on the H100 step 09's
 * kernel gained more. Step 09's kernel writes 256 bytes of a row of `out` per
 * tile, wherever that row starts. On a matrix larger than L2 whose rows of
 * `out` do not start on 64 bytes, step 09 fell behind step 11's sector
 * runs (answer_out_rows_fit(); `make study STUDIES=pitch`); in L2 the pieces of a
 * row meet before they reach DRAM, and step 09 kept its lead. Where the
 * matrix has a power-of-two number of rows, the rows of `out` are a power
 * of two bytes apart; past the first limit, step 09's kernel kept its lead
 * on the H100 there and lost it elsewhere (`make study STUDIES=pitch`), so such
 * matrices get a limit of their own. Elsewhere step 11's default runs;
 * from a size on, its sector runs of 96 floats led those of 64 on the
 * H200, so a third size, from which it takes them, is measured per GPU
 * too. A run of 96 floats spans 96 rows of `in`, so the last tile of rows
 * is padded to a multiple of 96, not of 64: on 200 rows, 88 idle rows
 * against 56. The answer takes the long runs only
 * where that padding adds at most 1/4 of the rows (long_runs_fill();
 * `make study STUDIES=runs` times both lengths on matrices of few rows). The limits of each GPU measured are a row of
 * steps/12_tma/answer_tuning.h, kept by hand and checked against the GPU's
 * committed sweep (`python3 -m lab.tuning`); any other GPU gets its L2
 * size, below which step 09's kernel led on every GPU measured. `make
 * narrow-study` measures the rows for narrow matrices (appendix 12).
 * docs/steps/12_tma.md has the numbers.
 *
 * pick_answer() and answer_gpu_named() are the decision alone, so
 * tests/test_tiles.cu checks them on the host; answer_launch() carries it
 * out.
 */
#ifndef TRANSPOSE_ANSWER_CUH
#define TRANSPOSE_ANSWER_CUH

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cuda_runtime.h>

#include "answer_tuning.h"   // ANSWER_TUNINGS: the measured limit of each GPU
#include "steps/11_any_shape/any_shape.cuh"     // chunks_launch(), any_shape_launch(), TILE, vec4_fits()
#include "check.h"           // CUDA_CHECK
#include "steps/09_shared64/shared64.cuh"   // shared64_launch()
#include "steps/13_bf16/slab_chunks.cuh"      // slab_chunks_launch()
#include "steps/09_shared64/tiles_down.cuh"    // tiles_down_launch()

/** @brief The launches the answer chooses between. */
enum answer_kernel {
    ANSWER_CHUNKS,      /**< chunks_launch(): step 11's chunk kernel on step 10's grid */
    ANSWER_SLABS,       /**< slab_chunks_launch(): step 11's slabs moving 16-byte chunks, on 2-63 rows or columns */
    ANSWER_SHARED64,    /**< shared64_launch(): step 09's 16-byte kernel, or its 4-byte one */
    ANSWER_TILES_DOWN,  /**< tiles_down_launch(): step 09's 16-byte tile down the columns, one per block */
    ANSWER_ANY_SHAPE,   /**< any_shape_launch(): step 11's default */
    ANSWER_LONG_RUNS,   /**< any_shape_launch<SR_LONG_RUN>(): step 11's default, sector runs of 96 floats */
};

/** Bytes on which every row of `out` must start for step 09's 16-byte kernel to lead: two 32-byte sectors. */
#define ANSWER_OUT_ROW_ALIGN 64

/** @brief Whether every row of the @p rows-float rows of @p out starts on ANSWER_OUT_ROW_ALIGN bytes. */
static inline bool answer_out_rows_fit(const float *out, size_t rows)
{
    return (uintptr_t)out % ANSWER_OUT_ROW_ALIGN == 0 && rows * sizeof(float) % ANSWER_OUT_ROW_ALIGN == 0;
}

/** @brief What the answer needs to know of the GPU it runs on. */
struct answer_gpu {
    size_t vec4_limit;        /**< the 16-byte tile kernel leads up to this many bytes (answer_tuning.h) */
    size_t vec4_pow2_limit;   /**< the same, on a matrix with a power-of-two number of rows */
    size_t l2_bytes;          /**< the size of L2: below it, where the rows of `out` start does not matter */
    size_t long_runs_from;    /**< step 11's sector runs are 96 floats long from this many bytes (SIZE_MAX: never) */
    bool tiles_down;          /**< up to the limits, tiles_down.cuh's kernel runs instead of step 09's */
};

/**
 * A matrix takes the long runs only if their tiles pad at most 1 row in
 * this many more than tiles of 64 rows do (long_runs_fill()); `make
 * runs-study` times both run lengths on either side of the line.
 */
#define ANSWER_LONG_RUNS_PAD 4

/**
 * @brief Whether tiles of SR_LONG_RUN rows of `in` cover @p rows with at
 *        most rows / ANSWER_LONG_RUNS_PAD idle rows more than tiles of
 *        SR_RUN rows: 65 rows (96 against 128), 129 (192 both ways) or
 *        300 (64 more) yes, 100 (64 more) no.
 */
static inline bool long_runs_fill(size_t rows)
{
    const size_t padded_long = ceil_div(rows, SR_LONG_RUN) * SR_LONG_RUN;
    const size_t padded_short = ceil_div(rows, SR_RUN) * SR_RUN;
    // Tiles of 96 may pad fewer rows than tiles of 64 (65 rows: 96 against
    // 128), so the difference is not taken in size_t, where it would wrap.
    return padded_long * ANSWER_LONG_RUNS_PAD <= padded_short * ANSWER_LONG_RUNS_PAD + rows;
}

/** @brief Whether @p n is a power of two (1, 2, 4, ...). */
static inline bool is_power_of_two(size_t n)
{
    return n != 0 && (n & (n - 1)) == 0;
}

/**
 * @brief The launch the answer runs on a @p rows x @p cols matrix whose
 *        rows are whole aligned chunks when @p vec4 (vec4_fits()) and
 *        whose rows of `out` start on ANSWER_OUT_ROW_ALIGN bytes when
 *        @p out_fits (answer_out_rows_fit()), on @p gpu.
 */
static inline answer_kernel pick_answer(size_t rows, size_t cols, bool vec4, bool out_fits, answer_gpu gpu)
{
    if (rows == 1 || cols == 1)
        return ANSWER_CHUNKS;
    if (slab_chunks_pay<float>(rows, cols, vec4))
        return ANSWER_SLABS;
    // Few rows of `out` made of whole chunks, rows of `in` not: the chunk kernel writes them 16 bytes at a time.
    if (rows < TILE && !vec4 && rows % VEC == 0)
        return ANSWER_CHUNKS;
    if (rows < TILE || (cols < TILE && vec4))
        return ANSWER_SHARED64;
    const size_t bytes = rows * cols * sizeof(float);
    const bool writes_fit = out_fits || bytes <= gpu.l2_bytes;   // in L2 the pieces of a row of out meet
    const size_t limit = is_power_of_two(rows) ? gpu.vec4_pow2_limit : gpu.vec4_limit;
    if (vec4 && writes_fit && bytes <= limit)
        return gpu.tiles_down ? ANSWER_TILES_DOWN : ANSWER_SHARED64;
    return bytes >= gpu.long_runs_from && long_runs_fill(rows) ? ANSWER_LONG_RUNS : ANSWER_ANY_SHAPE;
}

/**
 * @brief The answer_gpu of the GPU named @p gpu with @p l2_bytes of L2:
 *        its limits and tile kernel from its row of ANSWER_TUNINGS, or, on
 *        a GPU not measured, step 09's kernel up to the L2 size for both
 *        and no long runs.
 */
static inline answer_gpu answer_gpu_named(const char *gpu, size_t l2_bytes)
{
    for (size_t i = 0; i < sizeof ANSWER_TUNINGS / sizeof ANSWER_TUNINGS[0]; ++i)
        if (strcmp(gpu, ANSWER_TUNINGS[i].gpu) == 0)
            return {ANSWER_TUNINGS[i].vec4_bytes, ANSWER_TUNINGS[i].vec4_pow2_bytes, l2_bytes,
                    ANSWER_TUNINGS[i].long_runs_bytes, ANSWER_TUNINGS[i].tiles_down};
    return {l2_bytes, l2_bytes, l2_bytes, ANSWER_NEVER, false};
}

/** @brief The answer_gpu of the current GPU, asked of the driver on the first call and kept. */
static inline answer_gpu answer_gpu_here(void)
{
    static answer_gpu gpu;
    static bool asked = false;
    if (!asked) {
        int device;
        cudaDeviceProp prop;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
        gpu = answer_gpu_named(prop.name, (size_t)prop.l2CacheSize);
        asked = true;
    }
    return gpu;
}

/** @brief Whether @p rule asks for lines on @p rows rows of @p gpu (sr_lines_reused()). */
static inline bool answer_lines(lines_rule rule, size_t rows, answer_gpu gpu)
{
    if (rule == LINES_WHERE_REUSED)
        return sr_lines_reused(rows, gpu.l2_bytes);
    return rule == LINES_ALWAYS;
}

/** @brief Step 11's default with runs of @p Run floats, its loads asking for lines if @p lines. */
template <unsigned Run>
static inline size_t answer_runs_launch(bool lines, const float *in, float *out, size_t rows, size_t cols,
                                        cudaStream_t stream)
{
    if (lines)
        return any_shape_launch<Run, true>(in, out, rows, cols, stream);
    return any_shape_launch<Run, false>(in, out, rows, cols, stream);
}

/**
 * @brief Run the kernel pick_answer() names for this shape on this GPU;
 *        @p rule: when step 11's sector runs ask L2 for lines.
 */
static inline size_t answer_launch(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream,
                                   lines_rule rule = LINES_WHERE_REUSED)
{
    const bool vec4 = vec4_fits(in, out, rows, cols), out_fits = answer_out_rows_fit(out, rows);
    const answer_gpu gpu = answer_gpu_here();
    switch (pick_answer(rows, cols, vec4, out_fits, gpu)) {
    case ANSWER_CHUNKS:
        return chunks_launch(in, out, rows, cols, stream);
    case ANSWER_SLABS:
        return slab_chunks_launch(in, out, rows, cols, stream);
    case ANSWER_SHARED64:
        return shared64_launch(in, out, rows, cols, true, stream);
    case ANSWER_TILES_DOWN:
        return tiles_down_launch(in, out, rows, cols, stream);
    case ANSWER_LONG_RUNS:
        return answer_runs_launch<SR_LONG_RUN>(answer_lines(rule, rows, gpu), in, out, rows, cols, stream);
    case ANSWER_ANY_SHAPE:
    default:
        return answer_runs_launch<SR_RUN>(answer_lines(rule, rows, gpu), in, out, rows, cols, stream);
    }
}

#endif /* TRANSPOSE_ANSWER_CUH */
