/**
 * @file prmt.cuh
 * @brief Step 13's default, `prmt`: the PRMT store on the tile that suits
 *        the shape, with its L2 line hint and tile order.
 *
 * bf16.cuh holds the kernels; this header holds the choice among their
 * forms that step 13's default makes (prmt_launch()), so that step 14 and
 * the lab's study program can run the same default, or force one of its
 * choices (prmt_launch_by()).
 */
#ifndef TRANSPOSE_PRMT_CUH
#define TRANSPOSE_PRMT_CUH

#include "bf16.cuh"
#include "steps/11_any_shape/slab_chunks.cuh"   // slab_chunks_launch(): thin matrices

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
static inline tile_order order_for(const uint16_t *in, size_t rows, size_t cols)
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
static inline bool lines_for(lines_rule rule, tile_order order, size_t rows, size_t cols, unsigned tile_cols)
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
static inline size_t launch_prmt_tiles(bool lines, tile_order order, const uint16_t *in, uint16_t *out, size_t rows,
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
static inline size_t prmt_launch_by(lines_rule rule, tile_order order, const uint16_t *in, uint16_t *out, size_t rows,
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
static inline size_t prmt_launch(const uint16_t *in, uint16_t *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return prmt_launch_by(LINES_WHERE_REUSED, order_for(in, rows, cols), in, out, rows, cols, stream);
}

#endif /* TRANSPOSE_PRMT_CUH */
