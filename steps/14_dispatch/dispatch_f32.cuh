/**
 * @file dispatch_f32.cuh
 * @brief The float32 rule: which kernel of the tutorial runs on a given
 *        shape, pointers and GPU.
 *
 * No one kernel of the tutorial is the fastest on every shape (the sweeps
 * in docs/results/ on the H200 and the H100). The rule decides between
 * launches that are each bit-exact on every shape:
 *
 * | the matrix                                       | launch                              |
 * | ------------------------------------------------ | ----------------------------------- |
 * | one row or one column (a vector)                 | step 11's chunk kernel: a copy      |
 * | 2-55 rows (2-31 of whole aligned chunks), or 2-31 columns | slabs of 16-byte chunks    |
 * | 56-60 rows, a multiple of 4, rows of `in` not whole chunks | step 11's chunk kernel  |
 * | other matrices of fewer than 64 rows, or 32-63 columns of whole aligned chunks | step 09's launch |
 * | rows of `out` whole chunks (rows a multiple of 4), rows of `in` not | step 11's chunk kernel |
 * | rows not whole chunks, in a quarter of L2                     | step 09's 4-byte tiles              |
 * | under 128 columns, rows neither way whole chunks, columns filling at most 2/3 of their 64-column tiles | step 09's 4-byte tiles |
 * | rows of whole aligned chunks, rows of `out` on 64 bytes or the matrix in L2, up to the GPU's limit (a second limit where the rows are a power of two) | a 16-byte tile kernel: step 09's, or tiles_down.cuh's, per GPU |
 * | anything else, from a size measured per GPU, if tiles of 96 rows pad few more rows than tiles of 64 | step 11's default, sector runs of 96 floats |
 * | anything else                                    | step 11's default                   |
 *
 * Where step 11's sector runs run, their loads ask L2 for the 256 bytes
 * around each chunk if one column of tiles, `in` and `out`, fits in a
 * quarter of L2 (sr_lines_reused()); then the tile beside, one column
 * later, finds the rest of its lines in L2 (`make study
 * STUDIES=lines`).
 *
 * Why each row: on a matrix of few rows or columns, a 64x64 tile is
 * mostly empty, and a block moves too few bytes to pay for its start; a
 * slab along the long side does, moving 16-byte chunks (slab_chunks_pay();
 * `make study STUDIES=narrow` times them all on matrices of 2-63 rows and
 * columns). Step 09's tiles kept up from 56 rows, and from 32 rows or
 * columns of whole chunks; where only the rows of `out` are whole chunks,
 * step 11's chunk kernel led them, writing 16 bytes at a time. Up to a
 * size that depends on the GPU, a 16-byte tile kernel led step 11's;
 * beyond it, and wherever rows are not whole aligned chunks, step 11's
 * kernel did. Which tile kernel is measured per GPU too (rules.h). Step
 * 09's kernel writes 256 bytes of a row of `out` per tile, wherever that
 * row starts: on a matrix larger than L2 whose rows of `out` do not start
 * on 64 bytes it fell behind step 11's sector runs (f32_out_rows_fit();
 * `make study STUDIES=pitch`); in L2 the pieces of a row meet before they reach
 * DRAM. Matrices with a power-of-two number of rows, whose rows of `out`
 * are a power of two bytes apart, get a limit of their own. From a size on,
 * step 11's sector runs of 96 floats led those of 64; a run of 96 floats
 * spans 96 rows of `in`, so the rule takes them only where the last tile's
 * padding adds at most 1/4 of the rows (long_runs_fill(); `make
 * study STUDIES=runs`). The sizes of each GPU are a row of rules.h; any other GPU
 * gets the default documented there.
 *
 * Two rows were read off shapes past the bar's (`make study
 * STUDIES=dispatch`: weights, vocabularies and odd sizes): where the
 * rows of `out` are whole chunks and those of `in` are not (768 x 50257,
 * 6000 x 6001), the chunk kernel led the sector runs at any number of
 * rows, as it did from 56 rows; where rows are not whole chunks, step
 * 09's 4-byte tiles led in a quarter of L2 (1001 x 1003, 197 x 768). On
 * tall matrices of few columns neither way whole chunks, they won on some
 * (1000003 x 33 and x 77) and lost on others (3000003 x 57, 1800001 x
 * 113). A study of fifteen such matrices (`make study STUDIES=tall`, 33 to
 * 127 columns) split them by one quantity: the share of its 64-column
 * tiles a row fills, cols / (64 ceil(cols / 64)). The tiles led where it
 * was under 2/3, the sector runs above (tall_tiles_pay()). A set of
 * shapes never used to fit the rule checks it (`make study
 * STUDIES=held-out`).
 *
 * f32_pick() and f32_gpu_named() are the decision alone, so
 * tests/test_tiles.cu checks them on the host; f32_launch_choice() carries
 * it out. Nothing here exits or prints: a failed CUDA call is returned.
 */
#ifndef TRANSPOSE_DISPATCH_F32_CUH
#define TRANSPOSE_DISPATCH_F32_CUH

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cuda_runtime.h>

#include "rules.h"                              // F32_RULES: the measured sizes of each GPU
#include "per_device.cuh"                       // per_device(): the GPU's facts, asked once per device
#include "steps/09_shared64/shared64.cuh"       // shared64_launch()
#include "steps/11_any_shape/any_shape.cuh"     // chunks_launch(), any_shape_launch(), TILE, vec4_fits()
#include "steps/13_bf16/slab_chunks.cuh"        // slab_chunks_launch()
#include "tiles_down.cuh"                       // tiles_down_launch()

/** @brief The launches the float32 rule chooses between. */
enum f32_kernel {
    F32_CHUNKS,      /**< chunks_launch(): step 11's chunk kernel on step 10's grid */
    F32_SLABS,       /**< slab_chunks_launch(): step 11's slabs moving 16-byte chunks, on 2-63 rows or columns */
    F32_SHARED64,    /**< shared64_launch(): step 09's 16-byte kernel, or its 4-byte one */
    F32_TILES_DOWN,  /**< tiles_down_launch(): step 09's 16-byte tile down the columns, one per block */
    F32_ANY_SHAPE,   /**< any_shape_launch(): step 11's default */
    F32_LONG_RUNS,   /**< any_shape_launch<SR_LONG_RUN>(): step 11's default, sector runs of 96 floats */
};

/** Bytes on which every row of `out` must start for step 09's 16-byte kernel to lead: two 32-byte sectors. */
#define F32_OUT_ROW_ALIGN 64

/** @brief Whether every row of the @p rows-float rows of @p out starts on F32_OUT_ROW_ALIGN bytes. */
static inline bool f32_out_rows_fit(const float *out, size_t rows)
{
    return (uintptr_t)out % F32_OUT_ROW_ALIGN == 0 && rows * sizeof(float) % F32_OUT_ROW_ALIGN == 0;
}

/** @brief What the float32 rule needs to know of the GPU it runs on. */
struct f32_gpu {
    size_t tiles_up_to;       /**< the 16-byte tile kernel leads up to this many bytes (rules.h) */
    size_t tiles_pow2_up_to;  /**< the same, on a matrix with a power-of-two number of rows */
    size_t l2_bytes;          /**< the size of L2: below it, where the rows of `out` start does not matter */
    size_t long_runs_from;    /**< step 11's sector runs are 96 floats long from this many bytes (SIZE_MAX: never) */
    bool tiles_down;          /**< up to the limits, tiles_down.cuh's kernel runs instead of step 09's */
    size_t lines_from_rows;   /**< step 11's sector runs ask for lines only from this many rows (rules.h) */
};

/**
 * A matrix takes the long runs only if their tiles pad at most 1 row in
 * this many more than tiles of 64 rows do (long_runs_fill()); `make study
 * STUDIES=runs` times both run lengths on either side of the line.
 */
#define F32_LONG_RUNS_PAD 4

/**
 * @brief Whether tiles of SR_LONG_RUN rows of `in` cover @p rows with at
 *        most rows / F32_LONG_RUNS_PAD idle rows more than tiles of
 *        SR_RUN rows: 65 rows (96 against 128), 129 (192 both ways) or
 *        300 (64 more) yes, 100 (64 more) no.
 */
static inline bool long_runs_fill(size_t rows)
{
    const size_t padded_long = ceil_div(rows, SR_LONG_RUN) * SR_LONG_RUN;
    const size_t padded_short = ceil_div(rows, SR_RUN) * SR_RUN;
    // Tiles of 96 may pad fewer rows than tiles of 64 (65 rows: 96 against
    // 128), so the difference is not taken in size_t, where it would wrap.
    return padded_long * F32_LONG_RUNS_PAD <= padded_short * F32_LONG_RUNS_PAD + rows;
}

/**
 * A tall matrix under two tiles wide takes step 09's 4-byte tiles where its
 * columns fill at most 2 parts in this many of the 64-column tiles that
 * cover them (tall_tiles_pay(); `make study STUDIES=tall`).
 */
#define F32_TALL_FILL_OF 3

/**
 * @brief Whether a matrix of @p cols columns, fewer than two tiles, fills
 *        at most 2 / F32_TALL_FILL_OF of its 64-column tiles: 33 columns
 *        (0.52), 77 (0.60) or 83 (0.65) yes; 43 (0.67), 57 or 127 no.
 */
static inline bool tall_tiles_pay(size_t cols)
{
    return cols < 2 * TILE && cols * F32_TALL_FILL_OF <= 2 * ceil_div(cols, TILE) * TILE;
}

/** Rows not whole chunks take step 09's 4-byte tiles up to 1 / this of L2 (the dispatch study). */
#define F32_L2_SHARE 4

/** @brief Whether @p n is a power of two (1, 2, 4, ...). */
static inline bool is_power_of_two(size_t n)
{
    return n != 0 && (n & (n - 1)) == 0;
}

/**
 * @brief The launch the rule runs on a @p rows x @p cols matrix whose
 *        rows are whole aligned chunks when @p vec4 (vec4_fits()) and
 *        whose rows of `out` start on F32_OUT_ROW_ALIGN bytes when
 *        @p out_fits (f32_out_rows_fit()), on @p gpu.
 */
static inline f32_kernel f32_pick(size_t rows, size_t cols, bool vec4, bool out_fits, f32_gpu gpu)
{
    if (rows == 1 || cols == 1)
        return F32_CHUNKS;
    if (slab_chunks_pay<float>(rows, cols, vec4))
        return F32_SLABS;
    // Few rows of `out` made of whole chunks, rows of `in` not: the chunk kernel writes them 16 bytes at a time.
    if (rows < TILE && !vec4 && rows % VEC == 0)
        return F32_CHUNKS;
    if (rows < TILE || (cols < TILE && vec4))
        return F32_SHARED64;
    const bool out_rows_chunks = rows % VEC == 0, in_rows_chunks = cols % VEC == 0;
    // The same from a tile's 64 rows on: the chunk kernel writes each row of `out` 16 bytes at a time.
    if (out_rows_chunks && !in_rows_chunks)
        return F32_CHUNKS;
    const size_t bytes = rows * cols * sizeof(float);
    // Past the row above, rows not whole chunks means rows of `out` not whole chunks. In a quarter of L2, where
    // a sector's pieces meet in L2 before it is written back: step 09's 4-byte tiles.
    if (!out_rows_chunks && bytes <= gpu.l2_bytes / F32_L2_SHARE)
        return F32_SHARED64;
    // Past it, on a tall matrix whose columns leave much of their tiles empty, the same 4-byte tiles.
    if (!out_rows_chunks && !in_rows_chunks && tall_tiles_pay(cols))
        return F32_SHARED64;
    const bool writes_fit = out_fits || bytes <= gpu.l2_bytes;   // in L2 the pieces of a row of out meet
    const size_t limit = is_power_of_two(rows) ? gpu.tiles_pow2_up_to : gpu.tiles_up_to;
    if (vec4 && writes_fit && bytes <= limit)
        return gpu.tiles_down ? F32_TILES_DOWN : F32_SHARED64;
    return bytes >= gpu.long_runs_from && long_runs_fill(rows) ? F32_LONG_RUNS : F32_ANY_SHAPE;
}

/**
 * @brief The f32_gpu of the GPU named @p gpu with @p l2_bytes of L2:
 *        its limits and tile kernel from its row of F32_RULES, or, on
 *        a GPU not measured, step 09's kernel up to the L2 size for both
 *        and no long runs.
 */
static inline f32_gpu f32_gpu_named(const char *gpu, size_t l2_bytes)
{
    for (size_t i = 0; i < sizeof F32_RULES / sizeof F32_RULES[0]; ++i)
        if (strcmp(gpu, F32_RULES[i].gpu) == 0)
            return {F32_RULES[i].tiles_up_to, F32_RULES[i].tiles_pow2_up_to, l2_bytes,
                    F32_RULES[i].long_runs_from, F32_RULES[i].tiles_down, F32_RULES[i].lines_from_rows};
    return {l2_bytes, l2_bytes, l2_bytes, RULES_NEVER, false, 0};
}

/** @brief The ::f32_gpu of the current GPU, asked of the runtime (its name and L2 size). */
static inline cudaError_t f32_gpu_ask(f32_gpu *gpu)
{
    int device;
    cudaDeviceProp prop;
    cudaError_t err = cudaGetDevice(&device);
    if (err == cudaSuccess)
        err = cudaGetDeviceProperties(&prop, device);
    if (err == cudaSuccess)
        *gpu = f32_gpu_named(prop.name, (size_t)prop.l2CacheSize);
    return err;
}

/** @brief The ::f32_gpu of the current GPU, asked on the first call on each device and kept. */
static inline cudaError_t f32_gpu_here(f32_gpu *gpu)
{
    return per_device<f32_gpu, f32_gpu_ask>(gpu);
}

/** @brief Whether @p rule asks for lines on @p rows rows of @p gpu (sr_lines_reused(), from its lines_from_rows). */
static inline bool f32_lines(lines_rule rule, size_t rows, f32_gpu gpu)
{
    if (rule == LINES_WHERE_REUSED)
        return rows >= gpu.lines_from_rows && sr_lines_reused(rows, gpu.l2_bytes);
    return rule == LINES_ALWAYS;
}

/** @brief Step 11's default with runs of @p Run floats, its loads asking for lines if @p lines. */
template <unsigned Run>
static inline size_t f32_runs_launch(bool lines, const float *in, float *out, size_t rows, size_t cols,
                                     cudaStream_t stream)
{
    if (lines)
        return any_shape_launch<Run, true>(in, out, rows, cols, stream);
    return any_shape_launch<Run, false>(in, out, rows, cols, stream);
}

/** @brief Run @p kernel on @p gpu; @p rule: when step 11's sector runs ask L2 for lines. */
static inline size_t f32_launch_choice(f32_kernel kernel, lines_rule rule, f32_gpu gpu, const float *in, float *out,
                                       size_t rows, size_t cols, cudaStream_t stream)
{
    switch (kernel) {
    case F32_CHUNKS:
        return chunks_launch(in, out, rows, cols, stream);
    case F32_SLABS:
        return slab_chunks_launch(in, out, rows, cols, stream);
    case F32_SHARED64:
        return shared64_launch(in, out, rows, cols, true, stream);
    case F32_TILES_DOWN:
        return tiles_down_launch(in, out, rows, cols, stream);
    case F32_LONG_RUNS:
        return f32_runs_launch<SR_LONG_RUN>(f32_lines(rule, rows, gpu), in, out, rows, cols, stream);
    case F32_ANY_SHAPE:
    default:
        return f32_runs_launch<SR_RUN>(f32_lines(rule, rows, gpu), in, out, rows, cols, stream);
    }
}

/** @brief The kernel f32_pick() names for @p in, @p out, @p rows x @p cols on @p gpu. */
static inline f32_kernel f32_pick_for(const float *in, const float *out, size_t rows, size_t cols, f32_gpu gpu)
{
    return f32_pick(rows, cols, vec4_fits(in, out, rows, cols), f32_out_rows_fit(out, rows), gpu);
}

/**
 * @brief Run the kernel the rule picks for this shape on @p gpu (f32_gpu_here());
 *        @p rule: when step 11's sector runs ask L2 for lines.
 */
static inline size_t dispatch_f32_launch(f32_gpu gpu, const float *in, float *out, size_t rows, size_t cols,
                                         cudaStream_t stream, lines_rule rule = LINES_WHERE_REUSED)
{
    return f32_launch_choice(f32_pick_for(in, out, rows, cols, gpu), rule, gpu, in, out, rows, cols, stream);
}

/** @brief What f32_pick()'s @p kernel is, and the row of the rule that picks it, in words. */
static inline const char *f32_kernel_named(f32_kernel kernel)
{
    switch (kernel) {
    case F32_CHUNKS:
        return "chunks: step 11's chunk kernel (a vector, copied; or rows of out whole chunks, rows of in not)";
    case F32_SLABS:
        return "slabs: slabs of 16-byte chunks along the long side (2-55 rows or 2-31 columns)";
    case F32_SHARED64:
        return "shared64: step 09's tile kernel (a short side under 64; rows of whole aligned chunks up to this "
               "GPU's limit in rules.h; rows not whole chunks in a quarter of L2)";
    case F32_TILES_DOWN:
        return "tiles_down: step 09's 16-byte tile down the columns, one tile per block (rows of whole aligned "
               "chunks, up to this GPU's limit in rules.h)";
    case F32_LONG_RUNS:
        return "long_runs: step 11's default, sector runs of 96 floats (rows not whole aligned chunks or past the "
               "tile limit, from this GPU's size in rules.h)";
    case F32_ANY_SHAPE:
    default:
        return "any_shape: step 11's default, sector runs of 64 floats or the chunk kernel (rows not whole "
               "aligned chunks, or past the tile limit in rules.h)";
    }
}

#endif /* TRANSPOSE_DISPATCH_F32_CUH */
