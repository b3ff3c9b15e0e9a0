/**
 * @file bf16.cu
 * @brief Step 13: the transpose of 2-byte elements (bf16), where two
 *        elements share each bank word of shared memory.
 *
 * ## The idea
 * A 16-byte chunk holds 8 bf16 elements and a 4-byte bank word holds 2.
 * Step 09's store, ported (`port`), makes 16 shared loads of 2 bytes per
 * 32 bytes out. Instead, a thread reads one word (columns 2h, 2h + 1)
 * from each of 8 tile rows, and byte permutes (`PRMT`) pair the low
 * halves into column 2h's chunk and the high halves into column 2h + 1's:
 * 8 loads of 4 bytes for two 16-byte chunks (`prmt`, the default). `ldsm`
 * and `stsm` use `ldmatrix`/`stmatrix .trans` instead.
 *
 * ## The kernels
 * `prmt`, `port`, `ldsm` and `stsm` use 64 x 128 tiles (16 KB); `prmt`
 * takes 64 x 64 below one wave of tiles and 128 x 128 past L2 (over 64
 * rows), down the columns of tiles, or along the rows from 4 : 1 where
 * rows of `in` start off sectors. Rows not whole chunks or
 * starting off a sector of `out` take sector runs. Thin matrices:
 * `slabs`. Loads ask L2 for lines where later tiles reuse them.
 *
 * ## What it assumes
 * Any M, N >= 1, 2-byte-aligned pointers (`--offset 0-7`). `cublas` is
 * cuBLASLt's `cublasLtMatrixTransform` on CUDA_R_16BF.
 *
 * ## Build and run
 *
 *     make step13
 *     ./build/step13 --shapes 16384x16384 --variant port
 *     ./build/step13 --shapes 10007x7919,8192x8192+1,1x67108864
 *
 * Write-up: docs/steps/13_bf16.md
 */
#include "harness.h"
#include "bf16.cuh"
#include "steps/12_tma/slab_chunks.cuh"   // slab_chunks_launch(): thin matrices
#include "tile_swap16.cuh"                   // swap_down16_launch(): the bound

/*
 * The kernels of the step load `in` asking L2 for whole 128-byte lines
 * (Lines = true, t16_fetch()). The default asks only where the tile beside
 * reuses them in time (t16_lines_reused()) or where a tile spans whole rows
 * (lines_for()); `prmt_lines` asks on every shape
 * and `prmt_sectors` on none, which shows what the hint is worth.
 */

/** The default tile: 64 rows of 128 elements, 16 KB, the bytes of step 09's float32 tile. */
template <bool Lines = true>
using tile_64x128 = tile16<64, 128, Lines>;
/** The float32 tile's shape in elements: 64 x 64, 8 KB. */
template <bool Lines = true>
using tile_64x64 = tile16<64, 64, Lines>;
/**
 * Runs of 144 elements (288 bytes, 9 sectors) in each row of `out`, as step
 * 11's runs of 96 floats: a tile loads 160 rows of 9 chunks. Each of its 288
 * threads loads the same chunk of every 32nd row, 5 in all, held in
 * registers at once (56 a thread, 4 blocks, no spill), and works out the
 * chunk's tile column and checks once per tile (t16r_load_rows()).
 */
template <bool Lines = true>
using runs_144 = runs16_rows<144, Lines>;
/** Runs of 128 elements (256 bytes), as step 11's runs of 64 floats: 144 rows of 9 chunks, 4.5 a thread. */
using runs_128 = runs16_rows<128, true>;
/** Runs of 144 whose 256 threads load the tile's chunks in turn, working out each chunk's column and checks. */
using runs_chunks = runs16<144, true>;

/** The tile that writes 256 bytes into each row of `out`, as step 11's runs: 128 x 64, 16 KB. */
using tile_128x64 = tile16<128, 64, true>;
/** 256 bytes into each row of `out` and from each row of `in`: 128 x 128, 32 KB, 4 blocks per multiprocessor. */
template <bool Lines = true>
using tile_128x128 = tile16<128, 128, Lines>;

/** How the default's tile kernel takes its tiles: down the columns of tiles, or along their rows. */
enum tile_order { DOWN_COLUMNS, ALONG_ROWS };

/** @brief The default's tile order on @p in, @p rows x @p cols (t16_along_rows_pays()). */
static tile_order order_for(const uint16_t *in, size_t rows, size_t cols)
{
    return t16_along_rows_pays(in, rows, cols) ? ALONG_ROWS : DOWN_COLUMNS;
}

/**
 * @brief Whether @p rule (kernel_utils.cuh) asks for lines on tiles
 *        @p tile_cols wide taken in @p order. Where the matrix is no wider
 *        than a tile, a tile's rows lie end to end in `in`: whole lines
 *        fetch only what the tile reads, and they paid (narrow study,
 *        1000003 x 33). Along the rows the tile beside, which reads the
 *        rest of the lines, comes next.
 */
static bool lines_for(lines_rule rule, tile_order order, size_t rows, size_t cols, unsigned tile_cols)
{
    if (rule == LINES_WHERE_REUSED)
        return order == ALONG_ROWS || cols <= tile_cols || t16_lines_reused(rows, tile_cols, t16_l2_bytes());
    return rule == LINES_ALWAYS;
}


/**
 * @brief The PRMT kernel on @p TileOf tiles (runs where rows are not whole
 *        chunks), with or without lines, its tiles taken in @p order.
 */
template <template <bool> class TileOf>
static size_t launch_prmt_tiles(bool lines, tile_order order, const uint16_t *in, uint16_t *out, size_t rows,
                                size_t cols, cudaStream_t stream)
{
    if (order == ALONG_ROWS)
        return lines ? transpose16_launch<TileOf<true>, T16_PRMT, runs_144<true>, true>(in, out, rows, cols, stream)
                     : transpose16_launch<TileOf<false>, T16_PRMT, runs_144<false>, true>(in, out, rows, cols, stream);
    if (lines)
        return transpose16_launch<TileOf<true>, T16_PRMT, runs_144<true>>(in, out, rows, cols, stream);
    return transpose16_launch<TileOf<false>, T16_PRMT, runs_144<false>>(in, out, rows, cols, stream);
}

/**
 * @brief PRMT pairs the half-words: the default. A matrix larger than L2,
 *        of more than 64 rows, takes 128 x 128 tiles, whose 256-byte
 *        pieces of rows of `in` and `out` make longer DRAM bursts both
 *        ways; one that fits in L2 keeps 64 x 128 tiles, twice as many
 *        blocks, or 64 x 64 below one wave of those. Where rows of `out` do
 *        not start on sectors, the sector runs, which shift every run to
 *        start on one, write whole sectors instead. Thin matrices take
 *        step 12's slabs of 16-byte chunks (slab_chunks_pay()). @p rule:
 *        when the loads ask L2 for whole lines; @p order: how the tile
 *        kernel takes its tiles.
 */
static size_t launch_prmt_by(lines_rule rule, tile_order order, const uint16_t *in, uint16_t *out, size_t rows,
                             size_t cols, cudaStream_t stream)
{
    if (slab_chunks_pay<uint16_t>(rows, cols, vec8_fits(in, out, rows, cols)))
        return slab_chunks_launch<uint16_t>(in, out, rows, cols, stream);
    if (!t16_rows_on_sectors(out, rows)) {
        if (lines_for(rule, DOWN_COLUMNS, rows, cols, T16R_COLS))
            return transpose16_runs_launch<runs_144<true>>(in, out, rows, cols, stream);
        return transpose16_runs_launch<runs_144<false>>(in, out, rows, cols, stream);
    }
    // A 128 x 128 tile on 64 rows or columns or fewer is half empty or worse: those keep 64 x 128 tiles past L2.
    if (rows * cols * sizeof(uint16_t) > t16_l2_bytes() && rows > tile_64x128<>::rows && cols > tile_64x128<>::rows)
        return launch_prmt_tiles<tile_128x128>(lines_for(rule, order, rows, cols, tile_128x128<>::cols), order, in,
                                               out, rows, cols, stream);
    const size_t tiles = ceil_div(rows, tile_64x128<>::rows) * ceil_div(cols, tile_64x128<>::cols);
    if (t16_fewer_than_one_wave(tiles, t16_resident_blocks<tile_64x128<>, T16_PRMT>()))
        return launch_prmt_tiles<tile_64x64>(lines_for(rule, order, rows, cols, tile_64x64<>::cols), order, in,
                                             out, rows, cols, stream);
    return launch_prmt_tiles<tile_64x128>(lines_for(rule, order, rows, cols, tile_64x128<>::cols), order, in,
                                          out, rows, cols, stream);
}

/** @brief The default: the PRMT store, its loads asking for whole lines where the tile beside reuses them. */
static size_t launch_prmt(const uint16_t *in, uint16_t *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return launch_prmt_by(LINES_WHERE_REUSED, order_for(in, rows, cols), in, out, rows, cols, stream);
}

/**
 * @brief The default down the columns of tiles, its loads asking L2 for
 *        whole lines on every shape: with prmt_sectors, the lines study's
 *        test of the hint in the order where the tile beside comes late.
 */
static size_t launch_prmt_lines(const uint16_t *in, uint16_t *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return launch_prmt_by(LINES_ALWAYS, DOWN_COLUMNS, in, out, rows, cols, stream);
}

/** @brief The default down the columns of tiles, its loads asking L2 for their sectors only. */
static size_t launch_prmt_sectors(const uint16_t *in, uint16_t *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return launch_prmt_by(LINES_NEVER, DOWN_COLUMNS, in, out, rows, cols, stream);
}

/** @brief The default with its tile kernel taking the tiles along the rows of `in` on every shape. */
static size_t launch_prmt_across(const uint16_t *in, uint16_t *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return launch_prmt_by(LINES_WHERE_REUSED, ALONG_ROWS, in, out, rows, cols, stream);
}

/** @brief The default with its tile kernel taking the tiles down the columns of tiles on every shape. */
static size_t launch_prmt_down(const uint16_t *in, uint16_t *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return launch_prmt_by(LINES_WHERE_REUSED, DOWN_COLUMNS, in, out, rows, cols, stream);
}

/** @brief The float32 design ported: one 2-byte shared load per element. */
static size_t launch_port(const uint16_t *in, uint16_t *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return transpose16_launch<tile_64x128<>, T16_PORT, runs_144<>>(in, out, rows, cols, stream);
}

/** @brief ldmatrix .trans reads 8x8 blocks transposed; shuffles make 16-byte chunks. */
static size_t launch_ldsm(const uint16_t *in, uint16_t *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return transpose16_launch<tile_64x128<>, T16_LDSM, runs_144<>>(in, out, rows, cols, stream);
}

/** @brief stmatrix .trans transposes 8x8 blocks on the way into shared memory; rows are copied out. */
static size_t launch_stsm(const uint16_t *in, uint16_t *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return transpose16_launch<tile_64x128<>, T16_STSM, runs_144<>>(in, out, rows, cols, stream);
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
static size_t launch_runs(const uint16_t *in, uint16_t *out, size_t rows, size_t cols, cudaStream_t stream)
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
static size_t launch_slabs(const uint16_t *in, uint16_t *out, size_t rows, size_t cols, cudaStream_t stream)
{
    if (slabs_fit(rows, cols))
        return slab_chunks_launch<uint16_t>(in, out, rows, cols, stream);
    return launch_prmt(in, out, rows, cols, stream);
}

/** @brief Step 11's slabs, one element an access, on every matrix of 2-63 rows or columns, the default elsewhere. */
static size_t launch_slabs_elements(const uint16_t *in, uint16_t *out, size_t rows, size_t cols, cudaStream_t stream)
{
    if (slabs_fit(rows, cols))
        return slabs_launch(in, out, rows, cols, stream);
    return launch_prmt(in, out, rows, cols, stream);
}

/** @brief The bound: the default's 128 x 128 tiles moved, untransposed, to their transposed places, down columns. */
static size_t launch_swap_down(const uint16_t *in, uint16_t *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return swap_down16_launch(in, out, rows, cols, stream);
}

/** The kernels of step 13; the first is the default. */
static const kernel_variant variants[] = {
    variant16("prmt", "PRMT pairs the half-words of two columns; 64x128 tiles, 128x128 past the size of L2",
              launch_prmt),
    variant16("port", "64x128 tiles; the float32 store: one 2-byte shared load per element", launch_port),
    variant16("ldsm", "64x128 tiles; ldmatrix .trans reads 8x8 blocks transposed, shuffles make 16-byte chunks",
              launch_ldsm, 75),
    variant16("stsm", "64x128 tiles; stmatrix .trans stores 8x8 blocks transposed, rows copied out as 16-byte chunks",
              launch_stsm, 90),
    variant16("prmt_64x64", "the PRMT store on 64x64 tiles: the float32 tile's elements, half its bytes",
              launch_prmt_64x64),
    variant16("prmt_128x64", "the PRMT store on 128x64 tiles: 256 bytes into each row of out",
              launch_prmt_128x64),
    variant16("prmt_64x128", "the PRMT store on 64x128 tiles at every size: 256 bytes from each row of in, 128 into "
              "each row of out", launch_prmt_64x128),
    variant16("prmt_128x128", "the PRMT store on 128x128 tiles at every size: 256 bytes from each row of in and "
              "into each row of out", launch_prmt_128x128),
    variant16("runs", "sector runs of 144 elements on every shape: 16-byte loads and stores at any alignment",
              launch_runs),
    variant16("runs_128", "sector runs of 128 elements on every shape: fewer loads in flight than runs of 144",
              launch_runs_128),
    variant16("runs_chunks", "sector runs of 144 elements whose threads load the tile's chunks in turn, "
              "each chunk's column and checks worked out anew", launch_runs_chunks),
    variant16("prmt_lines", "the default down the columns, loads asking L2 for whole 128-byte lines on every shape",
              launch_prmt_lines),
    variant16("prmt_sectors", "the default down the columns, loads asking L2 for their 32-byte sectors, not lines",
              launch_prmt_sectors),
    variant16("prmt_across", "the default with its tiles taken along the rows of in on every shape, as Triton's",
              launch_prmt_across),
    variant16("prmt_down", "the default with its tiles taken down the columns of tiles on every shape",
              launch_prmt_down),
    variant16("slabs", "slabs of 8192 elements on every matrix of 2-63 rows or columns, 16-byte chunks where whole",
              launch_slabs),
    variant16("slabs_elements", "step 11's slabs on every matrix of 2-63 rows or columns: one element an access",
              launch_slabs_elements),
    variant16("swap_down", "a bound: whole 128x128 tiles moved to their transposed places untransposed, down "
              "columns (the default's accesses past L2)", launch_swap_down, ANY_GPU, OUTPUT_TILES_SWAPPED),
};

STEP_DEFINE_16("bf16: two elements to a bank word", variants, NULL)
