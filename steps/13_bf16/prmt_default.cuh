/**
 * @file prmt_default.cuh
 * @brief Step 13's default, `prmt`: which tile, tile order and L2 hint the
 *        PRMT store runs with on a given shape, and the launch.
 *
 * The rule, in the order it is applied:
 *
 * | the matrix                                           | launch                                 |
 * | ---------------------------------------------------- | -------------------------------------- |
 * | 2-63 rows or columns where slabs pay (slab_chunks_pay()) | step 11's slabs of 16-byte chunks  |
 * | rows of `out` not starting on 32-byte sectors         | sector runs of 144 elements            |
 * | larger than L2, more than 64 rows and columns         | 128 x 128 tiles                        |
 * | fewer 64 x 128 tiles than one wave of resident blocks | 64 x 64 tiles                          |
 * | anything else                                         | 64 x 128 tiles                         |
 *
 * The tile kernels take their tiles down the columns of tiles, or along
 * their rows from 4 : 1 where rows of `in` start off sectors
 * (t16_along_rows_pays()); their loads ask L2 for whole lines where the
 * tile beside reuses them (lines_for()). Where rows are not whole aligned
 * chunks, the tile kernels hand the matrix to the sector runs.
 *
 * prmt_pick() is the decision alone, from the shape, the pointers and
 * what the GPU holds (::prmt_gpu); prmt_launch_choice() carries it out.
 * The capstone (steps/14_dispatch/) runs the same rule for bf16.
 */
#ifndef TRANSPOSE_PRMT_DEFAULT_CUH
#define TRANSPOSE_PRMT_DEFAULT_CUH

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime.h>

#include "kernel_utils.cuh"   // ceil_div(), device_attribute(), lines_rule
#include "bf16.cuh"           // tile16, runs16_rows, transpose16_launch(), transpose16_runs_launch()
#include "slab_chunks.cuh"    // slab_chunks_pay(), slab_chunks_launch(): thin matrices

/** The default tile: 64 rows of 128 elements, 16 KB, the bytes of step 09's float32 tile. */
template <bool Lines = true>
using tile_64x128 = tile16<64, 128, Lines>;
/** The float32 tile's shape in elements: 64 x 64, 8 KB. */
template <bool Lines = true>
using tile_64x64 = tile16<64, 64, Lines>;
/** 256 bytes from each row of `in` and into each of `out`: 128 x 128, 32 KB, 4 blocks per multiprocessor. */
template <bool Lines = true>
using tile_128x128 = tile16<128, 128, Lines>;
/**
 * Runs of 144 elements (288 bytes, 9 sectors) in each row of `out`, as step
 * 11's runs of 96 floats: a tile loads 160 rows of 9 chunks. Each of its 288
 * threads loads the same chunk of every 32nd row, 5 in all, held in
 * registers at once (56 a thread, 4 blocks, no spill), and works out the
 * chunk's tile column and checks once per tile (t16r_load_rows()).
 */
template <bool Lines = true>
using runs_144 = runs16_rows<144, Lines>;

/** How the default's tile kernel takes its tiles: down the columns of tiles, or along their rows. */
enum tile_order { DOWN_COLUMNS, ALONG_ROWS };

/** @brief The default's tile order on @p in, @p rows x @p cols (t16_along_rows_pays()). */
static inline tile_order order_for(const uint16_t *in, size_t rows, size_t cols)
{
    return t16_along_rows_pays(in, rows, cols) ? ALONG_ROWS : DOWN_COLUMNS;
}

/** @brief What the rule needs to know of the GPU it runs on. */
struct prmt_gpu {
    size_t l2_bytes;          /**< the size of L2 */
    size_t resident_blocks;   /**< blocks of the 64 x 128 PRMT kernel the GPU holds at once: one wave */
};

/** @brief The current GPU's ::prmt_gpu, asked of the runtime; zeros where it cannot say. */
static inline prmt_gpu prmt_gpu_asked(void)
{
    return {(size_t)device_attribute(cudaDevAttrL2CacheSize), t16_resident_blocks<tile_64x128<>, T16_PRMT>()};
}

/** @brief The ::prmt_gpu of the GPU the program runs on, asked on the first call and kept. */
static inline prmt_gpu prmt_gpu_here(void)
{
    static prmt_gpu gpu = {0, 0};
    if (gpu.l2_bytes == 0 || gpu.resident_blocks == 0)
        gpu = prmt_gpu_asked();
    return gpu;
}

/**
 * @brief Whether @p rule (kernel_utils.cuh) asks for lines on tiles
 *        @p tile_cols wide taken in @p order, on an L2 of @p l2_bytes.
 *        Where the matrix is no wider than a tile, a tile's rows lie end
 *        to end in `in`: whole lines fetch only what the tile reads, and
 *        they paid (narrow study, 1000003 x 33). Along the rows the tile
 *        beside, which reads the rest of the lines, comes next.
 */
static inline bool lines_for(lines_rule rule, tile_order order, size_t rows, size_t cols, unsigned tile_cols,
                             size_t l2_bytes)
{
    if (rule == LINES_WHERE_REUSED)
        return order == ALONG_ROWS || cols <= tile_cols || t16_lines_reused(rows, tile_cols, l2_bytes);
    return rule == LINES_ALWAYS;
}

/** @brief The launches the default chooses between. */
enum prmt_kernel {
    PRMT_SLABS,           /**< slab_chunks_launch(): 2-63 rows or columns where slabs pay */
    PRMT_RUNS,            /**< sector runs of 144 elements: rows of `out` off sectors */
    PRMT_TILES_128x128,   /**< the PRMT store on 128 x 128 tiles: past L2 */
    PRMT_TILES_64x64,     /**< the PRMT store on 64 x 64 tiles: below one wave of 64 x 128 tiles */
    PRMT_TILES_64x128,    /**< the PRMT store on 64 x 128 tiles: anything else */
};

/** @brief One decision of the rule: the launch, whether its loads ask for lines, and its tile order. */
struct prmt_choice {
    prmt_kernel kernel;   /**< the launch */
    bool lines;           /**< its loads ask L2 for whole lines */
    tile_order order;     /**< its tiles down the columns or along the rows (tile kernels only) */
};

/**
 * @brief The rule: the launch of the default on @p in, @p out, @p rows x
 *        @p cols on @p gpu; @p rule: when the loads ask L2 for whole lines;
 *        @p order: how the tile kernel takes its tiles.
 *
 * A matrix larger than L2, of more than 64 rows, takes 128 x 128 tiles,
 * whose 256-byte pieces of rows of `in` and `out` make longer DRAM bursts
 * both ways; one that fits in L2 keeps 64 x 128 tiles, twice as many
 * blocks, or 64 x 64 below one wave of those. Where rows of `out` do not
 * start on sectors, the sector runs, which shift every run to start on
 * one, write whole sectors instead.
 */
static inline prmt_choice prmt_pick(lines_rule rule, tile_order order, const uint16_t *in, const uint16_t *out,
                                    size_t rows, size_t cols, prmt_gpu gpu)
{
    if (slab_chunks_pay<uint16_t>(rows, cols, vec8_fits(in, out, rows, cols)))
        return {PRMT_SLABS, false, DOWN_COLUMNS};
    if (!t16_rows_on_sectors(out, rows))
        return {PRMT_RUNS, lines_for(rule, DOWN_COLUMNS, rows, cols, T16R_COLS, gpu.l2_bytes), DOWN_COLUMNS};
    // A 128 x 128 tile on 64 rows or columns or fewer is half empty or worse: those keep 64 x 128 tiles past L2.
    if (rows * cols * sizeof(uint16_t) > gpu.l2_bytes && rows > tile_64x128<>::rows && cols > tile_64x128<>::rows)
        return {PRMT_TILES_128x128, lines_for(rule, order, rows, cols, tile_128x128<>::cols, gpu.l2_bytes), order};
    const size_t tiles = ceil_div(rows, tile_64x128<>::rows) * ceil_div(cols, tile_64x128<>::cols);
    if (t16_fewer_than_one_wave(tiles, gpu.resident_blocks))
        return {PRMT_TILES_64x64, lines_for(rule, order, rows, cols, tile_64x64<>::cols, gpu.l2_bytes), order};
    return {PRMT_TILES_64x128, lines_for(rule, order, rows, cols, tile_64x128<>::cols, gpu.l2_bytes), order};
}

/**
 * @brief The PRMT kernel on @p TileOf tiles (runs where rows are not whole
 *        chunks), with or without lines, its tiles taken in @p order.
 */
template <template <bool> class TileOf>
static inline size_t launch_prmt_tiles(bool lines, tile_order order, const uint16_t *in, uint16_t *out,
                                       size_t rows, size_t cols, cudaStream_t stream)
{
    if (order == ALONG_ROWS)
        return lines ? transpose16_launch<TileOf<true>, T16_PRMT, runs_144<true>, true>(in, out, rows, cols, stream)
                     : transpose16_launch<TileOf<false>, T16_PRMT, runs_144<false>, true>(in, out, rows, cols, stream);
    if (lines)
        return transpose16_launch<TileOf<true>, T16_PRMT, runs_144<true>>(in, out, rows, cols, stream);
    return transpose16_launch<TileOf<false>, T16_PRMT, runs_144<false>>(in, out, rows, cols, stream);
}

/** @brief Run the launch @p choice names (prmt_pick()). */
static inline size_t prmt_launch_choice(prmt_choice choice, const uint16_t *in, uint16_t *out, size_t rows,
                                        size_t cols, cudaStream_t stream)
{
    switch (choice.kernel) {
    case PRMT_SLABS:
        return slab_chunks_launch<uint16_t>(in, out, rows, cols, stream);
    case PRMT_RUNS:
        if (choice.lines)
            return transpose16_runs_launch<runs_144<true>>(in, out, rows, cols, stream);
        return transpose16_runs_launch<runs_144<false>>(in, out, rows, cols, stream);
    case PRMT_TILES_128x128:
        return launch_prmt_tiles<tile_128x128>(choice.lines, choice.order, in, out, rows, cols, stream);
    case PRMT_TILES_64x64:
        return launch_prmt_tiles<tile_64x64>(choice.lines, choice.order, in, out, rows, cols, stream);
    case PRMT_TILES_64x128:
    default:
        return launch_prmt_tiles<tile_64x128>(choice.lines, choice.order, in, out, rows, cols, stream);
    }
}

/** @brief The default with lines asked by @p rule and its tiles taken in @p order, on this GPU. */
static inline size_t prmt_launch_by(lines_rule rule, tile_order order, const uint16_t *in, uint16_t *out,
                                    size_t rows, size_t cols, cudaStream_t stream)
{
    return prmt_launch_choice(prmt_pick(rule, order, in, out, rows, cols, prmt_gpu_here()), in, out, rows, cols,
                              stream);
}

/** @brief Step 13's default: the PRMT store, its loads asking for whole lines where the tile beside reuses them. */
static inline size_t prmt_default_launch(const uint16_t *in, uint16_t *out, size_t rows, size_t cols,
                                         cudaStream_t stream)
{
    return prmt_launch_by(LINES_WHERE_REUSED, order_for(in, rows, cols), in, out, rows, cols, stream);
}

#endif /* TRANSPOSE_PRMT_DEFAULT_CUH */
