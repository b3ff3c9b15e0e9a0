/**
 * @file study.cu
 * @brief The lab's study program: the kernels and bounds behind
 *        docs/last-points.md, kept out of the lessons.
 *
 * The steps teach one idea each and carry at most five kernels. What was
 * measured to find where the last points of copy speed go lives here:
 *
 * - **the dispatch and its candidates**: step 14's float32 choice beside
 *   every kernel it chooses among, so a sweep shows where the choice trails
 *   the best of them (`make study`, the `dispatch` study);
 * - **the bounds**: the float32 tiles copied (`copy_*`) or moved whole,
 *   untransposed, to their transposed places (`swap_*`), in either tile
 *   order and in pieces of 128, 256 and 512 bytes; the bf16 tile moved whole;
 * - **the L2 line hint**: the dispatch with sector runs asking L2 for whole
 *   lines on every shape, or on none;
 * - **the order**: bf16 tiles taken down the columns or along the rows.
 *
 * Each is bit-exact on every shape (a bound is checked as the copy or the
 * tile permutation it makes). Variants of 2-byte elements run with
 * `--dtype bf16`.
 *
 *     make study                      every study, on this GPU
 *     ./build/study --list-variants
 *     ./build/study --shapes 16384x16384 --variant swap_down
 */
#include "harness.h"
#include "steps/09_shared64/shared64.cuh"      // step 09's kernel
#include "steps/11_any_shape/any_shape.cuh"    // step 11's kernels
#include "steps/14_dispatch/dispatch_f32.cuh"   // the float32 dispatch
#include "steps/14_dispatch/dispatch_bf16.cuh"  // the bf16 dispatch
#include "steps/13_bf16/prmt_default.cuh"      // step 13's kernels and its default's choices
#include "steps/13_bf16/slab_chunks.cuh"       // slabs of 16-byte chunks
#include "steps/14_dispatch/tiles_down.cuh"     // step 09's tile down the columns
#include "tile_copy.cuh"                       // the float32 bounds
#include "tile_swap16.cuh"                     // the bf16 bound

/* ---- float32: the dispatch and its candidates ---------------------------------------------- */

/** @brief Step 14's float32 dispatch, its sector runs asking L2 for lines by @p rule. */
static size_t answer_launch(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream,
                            lines_rule rule = LINES_WHERE_REUSED)
{
    f32_gpu gpu;
    CUDA_CHECK(f32_gpu_here(&gpu));
    return dispatch_f32_launch(gpu, in, out, rows, cols, stream, rule);
}

static size_t launch_answer(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return answer_launch(in, out, rows, cols, stream);
}

static size_t launch_answer_lines(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return answer_launch(in, out, rows, cols, stream, LINES_ALWAYS);
}

static size_t launch_answer_sectors(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return answer_launch(in, out, rows, cols, stream, LINES_NEVER);
}

static size_t launch_shared64(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return shared64_launch(in, out, rows, cols, true, stream);
}

static size_t launch_tiles_down(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return tiles_down_launch(in, out, rows, cols, stream);
}

static size_t launch_any_shape(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return any_shape_launch(in, out, rows, cols, stream);
}

static size_t launch_long_runs(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return any_shape_launch<SR_LONG_RUN>(in, out, rows, cols, stream);
}

static size_t launch_chunks(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return chunks_launch(in, out, rows, cols, stream);
}

/** @brief Slabs of 16-byte chunks on thin matrices (2-63 rows or columns), step 11's default elsewhere. */
static size_t launch_slab_chunks(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    if (slabs_fit(rows, cols))
        return slab_chunks_launch(in, out, rows, cols, stream);
    return any_shape_launch(in, out, rows, cols, stream);
}

/* ---- float32: the bounds -------------------------------------------------------------------- */

static size_t launch_copy_down(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return tile_copy_launch<true>(in, out, rows, cols, stream);
}

static size_t launch_copy_across(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return tile_copy_launch<false>(in, out, rows, cols, stream);
}

static size_t launch_swap_down(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return tile_copy_launch<true, true>(in, out, rows, cols, stream);
}

static size_t launch_swap_across(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return tile_copy_launch<false, true>(in, out, rows, cols, stream);
}

static size_t launch_swap_down_128(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return tile_copy_launch<true, true, 2>(in, out, rows, cols, stream);
}

static size_t launch_swap_across_128(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return tile_copy_launch<false, true, 2>(in, out, rows, cols, stream);
}

static size_t launch_swap_down_32(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return swap_quadrants_launch<true>(in, out, rows, cols, stream);
}

static size_t launch_swap_across_32(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return swap_quadrants_launch<false>(in, out, rows, cols, stream);
}

/* ---- bf16: the default's choices forced, its candidates, its bound ----------------------------- */

/** Runs of 128 elements (256 bytes): 144 rows of 9 chunks, 4.5 a thread. */
using runs_128 = runs16_rows<128, true>;
/** Runs of 144 whose 256 threads load the tile's chunks in turn, working out each chunk's column and checks. */
using runs_chunks = runs16<144, true>;
/** The tile that writes 256 bytes into each row of `out`: 128 x 64, 16 KB. */
using tile_128x64 = tile16<128, 64, true>;

/**
 * @brief The default down the columns of tiles, its loads asking L2 for
 *        whole lines on every shape: with prmt_sectors, the lines study's
 *        test of the hint in the order where the tile beside comes late.
 */
static size_t launch_prmt_lines(const uint16_t *in, uint16_t *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return prmt_launch_by(LINES_ALWAYS, DOWN_COLUMNS, in, out, rows, cols, stream);
}

/** @brief The default down the columns of tiles, its loads asking L2 for their sectors only. */
static size_t launch_prmt_sectors(const uint16_t *in, uint16_t *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return prmt_launch_by(LINES_NEVER, DOWN_COLUMNS, in, out, rows, cols, stream);
}

/** @brief Step 14's bf16 dispatch: the same rule as transpose_bf16(), timed in a second program. */
static size_t launch_answer_bf16(const uint16_t *in, uint16_t *out, size_t rows, size_t cols, cudaStream_t stream)
{
    prmt_gpu gpu;
    CUDA_CHECK(bf16_gpu_here(&gpu));
    return dispatch_bf16_launch(gpu, in, out, rows, cols, stream);
}

/** @brief The default with its tile kernel taking the tiles along the rows of `in` on every shape. */
static size_t launch_prmt_across(const uint16_t *in, uint16_t *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return prmt_launch_by(LINES_WHERE_REUSED, ALONG_ROWS, in, out, rows, cols, stream);
}

/** @brief The default with its tile kernel taking the tiles down the columns of tiles on every shape. */
static size_t launch_prmt_down(const uint16_t *in, uint16_t *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return prmt_launch_by(LINES_WHERE_REUSED, DOWN_COLUMNS, in, out, rows, cols, stream);
}

/** @brief The PRMT store on a 64 x 64 tile: the float32 tile's elements, half its bytes. */
static size_t launch_prmt_64x64(const uint16_t *in, uint16_t *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return transpose16_launch<tile_64x64<>, T16_PRMT, runs_144<>>(in, out, rows, cols, stream);
}

/** @brief The PRMT store on 128 x 64 tiles: 256 bytes into each row of `out`, 128 from each row of `in`. */
static size_t launch_prmt_128x64(const uint16_t *in, uint16_t *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return transpose16_launch<tile_128x64, T16_PRMT, runs_144<>>(in, out, rows, cols, stream);
}

/** @brief The PRMT store on 64 x 128 tiles on every size: the default's tile between one wave and L2. */
static size_t launch_prmt_64x128(const uint16_t *in, uint16_t *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return transpose16_launch<tile_64x128<>, T16_PRMT, runs_144<>>(in, out, rows, cols, stream);
}

/** @brief The PRMT store on 128 x 128 tiles on every size: 256 bytes from each row of `in` and into each of `out`. */
static size_t launch_prmt_128x128(const uint16_t *in, uint16_t *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return transpose16_launch<tile_128x128<>, T16_PRMT, runs_144<>>(in, out, rows, cols, stream);
}

/** @brief Sector runs on every shape. */
static size_t launch_runs_bf16(const uint16_t *in, uint16_t *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return transpose16_runs_launch<runs_144<>>(in, out, rows, cols, stream);
}

/** @brief Sector runs on every shape, the tile's chunks loaded in turn by 256 threads. */
static size_t launch_runs_chunks(const uint16_t *in, uint16_t *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return transpose16_runs_launch<runs_chunks>(in, out, rows, cols, stream);
}

/** @brief Sector runs of 128 elements on every shape: fewer loads in flight. */
static size_t launch_runs_128(const uint16_t *in, uint16_t *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return transpose16_runs_launch<runs_128>(in, out, rows, cols, stream);
}

/** @brief Slabs of 16-byte chunks on every matrix of 2-63 rows or columns, the default elsewhere. */
static size_t launch_slabs_bf16(const uint16_t *in, uint16_t *out, size_t rows, size_t cols, cudaStream_t stream)
{
    if (slabs_fit(rows, cols))
        return slab_chunks_launch<uint16_t>(in, out, rows, cols, stream);
    return prmt_default_launch(in, out, rows, cols, stream);
}

/** @brief Step 11's slabs, one element an access, on every matrix of 2-63 rows or columns, the default elsewhere. */
static size_t launch_slabs_elements(const uint16_t *in, uint16_t *out, size_t rows, size_t cols, cudaStream_t stream)
{
    if (slabs_fit(rows, cols))
        return slabs_launch(in, out, rows, cols, stream);
    return prmt_default_launch(in, out, rows, cols, stream);
}


static size_t launch_swap_down_bf16(const uint16_t *in, uint16_t *out, size_t rows, size_t cols,
                                    cudaStream_t stream)
{
    return swap_down16_launch(in, out, rows, cols, stream);
}

/** The study's kernels; the first is the default. */
static const kernel_variant variants[] = {
    {"answer", "the float32 dispatch: the kernel step 14's rule picks for the shape", launch_answer, ANY_GPU},
    {"answer_lines", "the dispatch, its sector runs asking L2 for whole lines on every shape", launch_answer_lines,
     ANY_GPU},
    {"answer_sectors", "the dispatch, its sector runs asking L2 for their sectors alone", launch_answer_sectors,
     ANY_GPU},
    {"shared64", "step 09's kernel: 64x64 tiles along the rows, 16-byte accesses where the shape allows",
     launch_shared64, ANY_GPU},
    {"tiles_down", "step 09's tile down the columns, one tile per block, 8 blocks per SM", launch_tiles_down,
     ANY_GPU},
    {"any_shape", "step 11's default: sector runs of 64 floats on odd rows", launch_any_shape, ANY_GPU},
    {"long_runs", "step 11's default with runs of 96 floats", launch_long_runs, ANY_GPU},
    {"chunks", "step 11's chunk kernel on every shape", launch_chunks, ANY_GPU},
    {"slab_chunks", "slabs of 16-byte chunks on 2-63 rows or columns, step 11's default elsewhere",
     launch_slab_chunks, ANY_GPU},
    {"copy_down", "a bound: out = in, a copy in 64x64 tiles taken down the columns (the dispatch's reads, both ways)",
     launch_copy_down, ANY_GPU, OUTPUT_COPY},
    {"copy_across", "a bound: out = in, a copy in 64x64 tiles taken along the rows (its writes, both ways)",
     launch_copy_across, ANY_GPU, OUTPUT_COPY},
    {"swap_down", "a bound: 64x64 tiles moved whole, untransposed, to their transposed places, down the columns",
     launch_swap_down, ANY_GPU, OUTPUT_TILES_SWAPPED},
    {"swap_across", "a bound: swap_down's tiles taken along the rows (step 09's order)", launch_swap_across, ANY_GPU,
     OUTPUT_TILES_SWAPPED},
    {"swap_down_128", "a bound: swap_down's tiles moved four at a time from 128x128 regions (512-byte pieces)",
     launch_swap_down_128, ANY_GPU, OUTPUT_TILES_SWAPPED},
    {"swap_across_128", "a bound: swap_across's tiles moved four at a time from 128x128 regions",
     launch_swap_across_128, ANY_GPU, OUTPUT_TILES_SWAPPED},
    {"swap_down_32", "a bound: swap_down's tiles moved a 32x32 quadrant per block (128-byte pieces)",
     launch_swap_down_32, ANY_GPU, OUTPUT_TILES_SWAPPED},
    {"swap_across_32", "a bound: swap_across's tiles moved a 32x32 quadrant per block", launch_swap_across_32,
     ANY_GPU, OUTPUT_TILES_SWAPPED},
    variant16("answer_bf16", "the bf16 dispatch: the kernel step 14's rule picks for the shape", launch_answer_bf16),
    variant16("prmt_lines", "step 13's default down the columns, loads asking L2 for whole lines on every shape",
              launch_prmt_lines),
    variant16("prmt_sectors", "step 13's default down the columns, loads asking L2 for their sectors alone",
              launch_prmt_sectors),
    variant16("prmt_across", "step 13's default with its tiles taken along the rows on every shape", launch_prmt_across),
    variant16("prmt_down", "step 13's default with its tiles taken down the columns on every shape", launch_prmt_down),
    variant16("prmt_64x64", "the PRMT store on 64x64 tiles at every size", launch_prmt_64x64),
    variant16("prmt_128x64", "the PRMT store on 128x64 tiles at every size", launch_prmt_128x64),
    variant16("prmt_64x128", "the PRMT store on 64x128 tiles at every size", launch_prmt_64x128),
    variant16("prmt_128x128", "the PRMT store on 128x128 tiles at every size", launch_prmt_128x128),
    variant16("runs_bf16", "sector runs of 144 elements on every shape", launch_runs_bf16),
    variant16("runs_128", "sector runs of 128 elements on every shape", launch_runs_128),
    variant16("runs_chunks", "sector runs whose threads load the tile's chunks in turn", launch_runs_chunks),
    variant16("slabs_bf16", "slabs of 16-byte chunks on 2-63 rows or columns, step 13's default elsewhere",
              launch_slabs_bf16),
    variant16("slabs_elements", "step 11's slabs, one element an access, on 2-63 rows or columns", launch_slabs_elements),
    variant16("swap_down_bf16", "a bound: bf16 128x128 tiles moved whole, untransposed, down the columns",
              launch_swap_down_bf16, ANY_GPU, OUTPUT_TILES_SWAPPED),
};

STEP_DEFINE("the lab's studies: the dispatch's candidates, the bounds, the L2 hint and the tile order", variants, NULL)
