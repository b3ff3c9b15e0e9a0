/**
 * @file shared64_async.cu
 * @brief Step 10: step 09's 64x64 tile loaded with asynchronous copies
 *        (`cp.async`) and walked in column-major tile order.
 *
 * ## The idea
 * Step 09 is a few percent from the copy bound. What is left is the bytes
 * each multiprocessor keeps in flight, and the order blocks touch DRAM:
 * 1. **`cp.async`** (compute capability 8.0+) copies global memory straight
 *    into the tile. No register holds loaded data, so the kernels fit 32
 *    registers and a multiprocessor holds as many blocks as it can (8 on
 *    the H200, not 5): more bytes in flight.
 * 2. **Column-major tile order.** A one-dimensional grid and raster_tile()
 *    send consecutive blocks down a column of tiles of `in`, that is along
 *    the same rows of `out`: long sequential writes, scattered reads.
 *
 * ## What changed since step 09
 * The loads and the tile order, in both kernels; `col_sync`, `row_async`
 * and `band8_async` each vary one. Vectors (1 x N, N x 1) are copied.
 *
 * ## What it assumes
 * As step 09: any M, N >= 1 and 4-byte-aligned pointers. Below 8.0 every
 * variant compiles to plain loads.
 *
 * ## Build and run
 *
 *     make step10
 *     ./build/step10 --shapes 16384x16384
 *     ./build/step10 --shapes 16384x16384 --variant row_async
 *     ./build/step10 --shapes 10007x7919,8192x8192+1,1x67108864
 *
 * Write-up: docs/steps/10_shared64_async.md
 */
#include <type_traits>

#include "harness.h"
#include "baselines.h"
#include "kernel_utils.cuh"
#include "steps/09_shared64/tile64.cuh"

/** Flag of a tile order made of bands of tile *columns* (see raster_tile()). */
#define COLUMN_BANDS 0x80000000u
/** Tile order: bands @p w tile columns wide, walked down the matrix (see raster_tile()). */
#define COLUMN_BAND(w) (COLUMN_BANDS | (w))
/** Column-major tile order: bands one tile column wide. */
#define COLUMN_MAJOR COLUMN_BAND(1)

/** Blocks per multiprocessor for `__launch_bounds__`: all it holds with `cp.async`, else step 09's. */
#define MIN_BLOCKS_PER_SM(async) ((async) ? MAX_BLOCKS_PER_SM(THREADS) : REGISTER_LOAD_BLOCKS_PER_SM)

/** @brief How the kernels load the tile: `cp.async` if asked for and the GPU has it. */
template <bool ASYNC>
using tile_load = std::conditional_t<ASYNC && HAS_CP_ASYNC, load_by_cp_async, load_through_registers>;

/**
 * @brief Which tile the @p t-th block works on, in bands of @p order tile rows.
 *
 * Blocks run roughly in the order of their index. The tiles are numbered
 * down a band of @p order tile rows first, then along it, so the blocks
 * resident together cover a patch about that high (order 1: row-major).
 * With COLUMN_BANDS set the bands are made of tile columns, the same walk
 * transposed: COLUMN_MAJOR sends consecutive blocks down a column of tiles
 * of `in`, that is along the same rows of `out`. It runs on the host too:
 * tests/index_maps.cu plays it for the write-ups' figure of the tile order.
 */
static __host__ __device__ __forceinline__ void raster_tile(size_t t, size_t tiles_y, size_t tiles_x,
                                                            unsigned order, size_t *tile_y, size_t *tile_x)
{
    if (order & COLUMN_BANDS) {                                 // bands of tile columns: the same walk, transposed
        raster_tile(t, tiles_x, tiles_y, order & ~COLUMN_BANDS, tile_x, tile_y);
        return;
    }
    const size_t group = order < tiles_y ? order : tiles_y;   // a band no higher than the matrix
    const size_t band = t / (group * tiles_x);                 // band of tile rows
    const size_t first = band * group;                         // its first tile row
    const size_t height = tiles_y - first < group ? tiles_y - first : group;
    const size_t local = t - band * group * tiles_x;           // position inside the band
    *tile_y = first + local % height;
    *tile_x = local / height;
}

/**
 * @brief The 16-byte kernel: step 09's, with the tile loaded by
 *        tile_load<ASYNC> and the tiles taken in raster_tile() order.
 *
 * Only valid when vec4_fits() (the launcher checks): then a tile's height
 * and width are multiples of 4 and edge tiles need only a per-chunk check.
 *
 * @tparam GROUP tile order for raster_tile() (1: row-major; COLUMN_MAJOR)
 * @tparam ASYNC load with `cp.async` (sm_80+) or through registers
 */
template <unsigned GROUP, bool ASYNC>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS_PER_SM(ASYNC))
transpose_async64_vec4(const float *__restrict__ in, float *__restrict__ out,
                       size_t rows, size_t cols)
{
    using Load = tile_load<ASYNC>;
    __shared__ float4 tile[TILE * CHUNKS_PER_ROW];   // 16 KB, laid out by chunk_slot()

    const unsigned tid = threadIdx.x;                  // 0..255: the block is one-dimensional
    // Load role: row tid / 16 (+ 16 per pass), chunk tid % 16, so a warp
    // reads 2 rows x 256 contiguous bytes.
    const unsigned load_row = tid / CHUNKS_PER_ROW;    // row inside the tile, first pass
    const unsigned load_chunk = tid % CHUNKS_PER_ROW;  // chunk (4 columns) inside the tile
    // Store role: one 4x4 block of the tile, chosen by store_block_vec4() from tid.
    // `out` as float4s: 16-byte aligned, and rows % 4 == 0 makes each of its rows whole float4s.
    float4 *out4 = reinterpret_cast<float4 *>(out);

    const size_t tiles_y = ceil_div(rows, TILE);
    const size_t tiles_x = ceil_div(cols, TILE);
    for (size_t t = blockIdx.x; t < tiles_y * tiles_x; t += gridDim.x) {
        size_t tile_y, tile_x;
        raster_tile(t, tiles_y, tiles_x, GROUP, &tile_y, &tile_x);
        const size_t row0 = tile_y * TILE;                 // first row of `in` in this tile
        const size_t col0 = tile_x * TILE;                 // first column of `in` in this tile
        const unsigned height = tile_extent(rows, row0);   // a multiple of 4
        const unsigned width = tile_extent(cols, col0);    // a multiple of 4

        // Load: all 4 loads are started before the first is finished.
        const float *src = in + (row0 + load_row) * cols + col0 + load_chunk * VEC;
        const bool chunk_in = load_chunk * VEC < width;
        float4 v[TILE / ROWS_PER_PASS];   // what Load keeps in registers, if anything
#pragma unroll
        for (unsigned p = 0; p < TILE / ROWS_PER_PASS; ++p)
            if (chunk_in && load_row + p * ROWS_PER_PASS < height)
                Load::start(&tile[chunk_slot(load_row + p * ROWS_PER_PASS, load_chunk)],
                            src + p * ROWS_PER_PASS * cols, v[p]);
#pragma unroll
        for (unsigned p = 0; p < TILE / ROWS_PER_PASS; ++p)
            if (chunk_in && load_row + p * ROWS_PER_PASS < height)
                Load::finish(&tile[chunk_slot(load_row + p * ROWS_PER_PASS, load_chunk)], v[p]);
        Load::wait();      // this thread's chunks are in shared memory
        __syncthreads();   // the whole tile is in shared memory

        // Store: read the 4x4 block as 4 rows, write it as 4 columns.
        store_block_vec4(tile, out4, rows, row0, col0, height, width, tid);
        __syncthreads();   // everyone is done reading before the next tile overwrites it
    }
}

/**
 * @brief The 4-byte kernel: step 09's, with the tile loaded by
 *        tile_load<ASYNC> and the tiles taken in raster_tile() order.
 *
 * @tparam GROUP tile order for raster_tile() (1: row-major; COLUMN_MAJOR)
 * @tparam ASYNC load with `cp.async` (sm_80+) or through registers
 */
template <unsigned GROUP, bool ASYNC>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS_PER_SM(ASYNC))
transpose_async64_scalar(const float *__restrict__ in, float *__restrict__ out,
                         size_t rows, size_t cols)
{
    __shared__ float tile[TILE * TILE];   // 16 KB, laid out by word_slot()

    const unsigned tx = threadIdx.x % BLOCK_COLS;   // lane: column of `in`, then of `out`
    const unsigned ty = threadIdx.x / BLOCK_COLS;   // warp: row of `in`, then of `out`
    const size_t tiles_y = ceil_div(rows, TILE);
    const size_t tiles_x = ceil_div(cols, TILE);
    for (size_t t = blockIdx.x; t < tiles_y * tiles_x; t += gridDim.x) {
        size_t tile_y, tile_x;
        raster_tile(t, tiles_y, tiles_x, GROUP, &tile_y, &tile_x);
        transpose_tile_words<tile_load<ASYNC>>(tile, in, out, rows, cols, tile_y * TILE,
                                               tile_x * TILE, tx, ty);
    }
}

/**
 * @brief Launch a one-dimensional grid, one 256-thread block per 64x64 tile,
 *        clamped to the grid limit: the 16-byte kernel when vec4_fits(),
 *        else the 4-byte one; a vector (1 x N, N x 1) is copied.
 */
template <unsigned GROUP, bool ASYNC>
static size_t launch_tiles(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    if (rows == 1 || cols == 1)
        return copy_kernel_launch(in, out, rows * cols, stream);
    const dim3 block(THREADS);
    const dim3 grid = grid_for_tiles(ceil_div(rows, TILE) * ceil_div(cols, TILE), 1);
    if (vec4_fits(in, out, rows, cols))
        transpose_async64_vec4<GROUP, ASYNC><<<grid, block, 0, stream>>>(in, out, rows, cols);
    else
        transpose_async64_scalar<GROUP, ASYNC><<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief cp.async loads, column-major tile order: blocks walk along rows of `out` (the default). */
static size_t launch_col_async(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return launch_tiles<COLUMN_MAJOR, true>(in, out, rows, cols, stream);
}

/** @brief Plain loads through registers, column-major tile order: what cp.async adds. */
static size_t launch_col_sync(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return launch_tiles<COLUMN_MAJOR, false>(in, out, rows, cols, stream);
}

/** @brief cp.async loads, row-major tile order: what the tile order adds. */
static size_t launch_row_async(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return launch_tiles<1, true>(in, out, rows, cols, stream);
}

/** @brief cp.async loads, bands of 8 tile rows (the GEMM-style raster): a middle way. */
static size_t launch_band8_async(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return launch_tiles<8, true>(in, out, rows, cols, stream);
}

/**
 * @brief Give both kernels of launch_tiles<GROUP, ASYNC>() all the shared
 *        memory the L1/shared split allows: they read nothing twice, and
 *        8 blocks need 128 KB of tiles.
 */
template <unsigned GROUP, bool ASYNC>
static void prefer_shared_memory(void)
{
    CUDA_CHECK(cudaFuncSetAttribute((const void *)transpose_async64_vec4<GROUP, ASYNC>,
                                    cudaFuncAttributePreferredSharedMemoryCarveout,
                                    cudaSharedmemCarveoutMaxShared));
    CUDA_CHECK(cudaFuncSetAttribute((const void *)transpose_async64_scalar<GROUP, ASYNC>,
                                    cudaFuncAttributePreferredSharedMemoryCarveout,
                                    cudaSharedmemCarveoutMaxShared));
}

/** @brief The step's setup hook: prefer_shared_memory() for every variant below, once. */
static void setup_shared_memory(void)
{
    prefer_shared_memory<COLUMN_MAJOR, true>();    // col_async
    prefer_shared_memory<COLUMN_MAJOR, false>();   // col_sync
    prefer_shared_memory<1, true>();               // row_async
    prefer_shared_memory<8, true>();               // band8_async
}

/** The kernels of step 10; the first is the default. */
static const kernel_variant variants[] = {
    {"col_async", "64x64 tile, cp.async loads, column-major tile order (writes walk along rows of out)",
     launch_col_async, ANY_GPU},
    {"col_sync", "the same with plain loads through registers: what cp.async adds",
     launch_col_sync, ANY_GPU},
    {"row_async", "cp.async, row-major tile order: what the tile order adds",
     launch_row_async, ANY_GPU},
    {"band8_async", "cp.async, bands of 8 tile rows (GEMM-style raster order)",
     launch_band8_async, ANY_GPU},
};

STEP_DEFINE("64x64 tiles, cp.async loads, column-major tile order", variants, setup_shared_memory)
