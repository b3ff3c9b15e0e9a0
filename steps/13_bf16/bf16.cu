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
#include "prmt_default.cuh"   // the default: its tile, order and lines by shape; slab_chunks_launch()
#include "tile_swap16.cuh"                   // swap_down16_launch(): the bound

/*
 * The kernels of the step load `in` asking L2 for whole 128-byte lines
 * (Lines = true, t16_fetch()). The default asks only where the tile beside
 * reuses them in time (t16_lines_reused()) or where a tile spans whole rows
 * (lines_for()); `prmt_lines` asks on every shape
 * and `prmt_sectors` on none, which shows what the hint is worth.
 */

/** Runs of 128 elements (256 bytes), as step 11's runs of 64 floats: 144 rows of 9 chunks, 4.5 a thread. */
using runs_128 = runs16_rows<128, true>;
/** Runs of 144 whose 256 threads load the tile's chunks in turn, working out each chunk's column and checks. */
using runs_chunks = runs16<144, true>;

/** The tile that writes 256 bytes into each row of `out`, as step 11's runs: 128 x 64, 16 KB. */
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
    return prmt_default_launch(in, out, rows, cols, stream);
}

/** @brief Step 11's slabs, one element an access, on every matrix of 2-63 rows or columns, the default elsewhere. */
static size_t launch_slabs_elements(const uint16_t *in, uint16_t *out, size_t rows, size_t cols, cudaStream_t stream)
{
    if (slabs_fit(rows, cols))
        return slabs_launch(in, out, rows, cols, stream);
    return prmt_default_launch(in, out, rows, cols, stream);
}

/** @brief The bound: the default's 128 x 128 tiles moved, untransposed, to their transposed places, down columns. */
static size_t launch_swap_down(const uint16_t *in, uint16_t *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return swap_down16_launch(in, out, rows, cols, stream);
}

/** The kernels of step 13; the first is the default. */
static const kernel_variant variants[] = {
    variant16("prmt", "PRMT pairs the half-words of two columns; 64x128 tiles, 128x128 past the size of L2",
              prmt_default_launch),
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
