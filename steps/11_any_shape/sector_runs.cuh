/**
 * @file sector_runs.cuh
 * @brief Step 11's kernel for odd shapes: tiles whose runs of `out` start
 *        on 32-byte sector boundaries, so that every store instruction fills
 *        whole sectors whatever the shape.
 *
 * On a row of `out` that does not start on a sector boundary, a 64-float
 * tile column (a *run* of `out`) spans 9 sectors instead of 8, and the first
 * and last are shared with the runs of the tiles above and below: every
 * store instruction of a warp (32 floats, 128 bytes) then touches 5 sectors
 * instead of 4, two of them partly. Here a tile owns, in each row `j` of
 * `out`, the run that starts at the row's first sector boundary at or after
 * 64 k (`k`: the tile's row of tiles), and ends where the next tile's run
 * begins. The runs of one row partition it, and each (but the row's first)
 * starts on a sector boundary.
 *
 * The price is on the load side: a tile column now needs rows `64 k` to
 * `64 k + 71` of `in` (up to 7 more than 64, depending on the row of `out`),
 * so the tile is 72 rows tall. Each of those rows is read as the aligned
 * 16-byte chunks that cover it (17, as step 11's chunk kernel reads a row
 * that starts mid-chunk), so loads are 16 bytes wide whatever the shape;
 * stores stay 4 bytes wide, 32 consecutive floats from a sector boundary.
 *
 * **Longer runs.** The tile's run length is a template parameter, `Run`:
 * 64 floats (256 bytes, 72 x 64 tiles) by default, or 96 (384 bytes, 104 x
 * 64 tiles). Longer runs write each row of `out` in fewer pieces, and each
 * multiprocessor holds more loads in flight, at the price of larger tiles
 * and fewer blocks per multiprocessor; which length is faster depends on
 * the GPU and the size (appendix 11).
 *
 * The per-thread functions take the thread's index and run on the host too:
 * tests/test_tiles.cu plays a whole block on every shape and alignment.
 */
#ifndef TRANSPOSE_SECTOR_RUNS_CUH
#define TRANSPOSE_SECTOR_RUNS_CUH

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime.h>

#include "kernel_utils.cuh"   // copy_elements_launch(): a vector is a copy
#include "steps/09_shared64/tile64.cuh"   // TILE, THREADS, tile_extent(), column_major_tile()

/** Floats in a 32-byte sector. */
#define SR_SECTOR 8
/** Rows of `in` a tile of runs of @p run floats may need: @p run plus up to 7 for the shift of a run. */
#define SR_ROWS(run) ((run) + SR_SECTOR)
/** Floats in a run of `out`: the default tile's, 64. */
#define SR_RUN TILE
/** Floats in a long run: 96 (384 bytes), the longest whose 7 loads a thread fit 4 blocks' registers. */
#define SR_LONG_RUN (3 * TILE / 2)
/** Floats per row of the shared tile: 64 + 1, so that a column read is conflict-free. */
#define SR_STRIDE (TILE + 1)
/** Rows of `out` each warp writes: 64 rows, 8 warps. */
#define SR_ROWS_PER_WARP (TILE / (THREADS / 32))

/**
 * Blocks per multiprocessor wanted: 5 x 256 threads leave 48 registers,
 * enough for the 5 chunks a thread loads before it stores; a tile of long
 * runs holds 7 chunks per thread, and 4 blocks leave 64 registers for them.
 * A register more than the limit spills the held chunks to local memory,
 * which costs far more than the blocks gain (appendix 11).
 */
#define SR_BLOCKS_WANTED(run) ((run) > TILE ? 4 : 5)
/** The same for `__launch_bounds__`, no more than the multiprocessor's thread limit allows. */
#define SR_BLOCKS_PER_SM(run) \
    (MAX_BLOCKS_PER_SM(THREADS) < SR_BLOCKS_WANTED(run) ? MAX_BLOCKS_PER_SM(THREADS) : SR_BLOCKS_WANTED(run))


/**
 * @brief The floats from the start of row @p j of `out` to its first sector
 *        boundary (0-7), for `out` starting @p lead floats past a boundary.
 */
static __host__ __device__ __forceinline__ unsigned sr_row_shift(size_t rows, unsigned lead, size_t j)
{
    return (unsigned)((SR_SECTOR - (j * rows + lead) % SR_SECTOR) % SR_SECTOR);
}

/**
 * @brief The run of row @p j of `out` that the tiles at row0 = Run k own:
 *        [first, last) in columns of `out` (rows of `in`).
 */
template <unsigned Run>
static __host__ __device__ __forceinline__ void sr_run(size_t rows, unsigned lead, size_t row0, size_t j,
                                                       size_t *first, size_t *last)
{
    const size_t shift = sr_row_shift(rows, lead, j);
    const size_t start = row0 == 0 ? 0 : row0 + shift;
    const size_t end = row0 + Run + shift;
    *first = start < rows ? start : rows;
    *last = end < rows ? end : rows;
}

/** @brief Rows of `in` the tile at @p row0 loads: Run + 8, or fewer at the matrix's end. */
template <unsigned Run>
static __host__ __device__ __forceinline__ unsigned sr_height(size_t rows, size_t row0)
{
    return rows - row0 < SR_ROWS(Run) ? (unsigned)(rows - row0) : SR_ROWS(Run);
}

/** Aligned 16-byte chunks that cover 64 floats starting anywhere in a chunk. */
#define SR_CHUNKS_PER_ROW (TILE / 4 + 1)
/** Chunk loads per tile: 72 rows of 17 chunks (104 rows for long runs). */
#define SR_CHUNK_ITEMS(run) (SR_ROWS(run) * SR_CHUNKS_PER_ROW)
/** Chunk loads per thread: 1224 over 256 threads, 5 (1768 for long runs, 7). */
#define SR_LOAD_PASSES(run) ((SR_CHUNK_ITEMS(run) + THREADS - 1) / THREADS)

/** @brief One chunk of a tile row, loaded but not yet put in the tile. */
struct sr_chunk {
    float4 value;   /**< the 16 bytes */
    int column;     /**< tile column of value.x: 4k - shift, may be negative */
    unsigned row;   /**< tile row */
    bool held;      /**< value is to be put in the tile */
};

/**
 * @brief Load the 16-byte chunk at @p p of `in`. With @p Lines, the load
 *        asks L2 to fetch the aligned 256 bytes around it, two 128-byte
 *        lines (`ld.global.nc.L2::256B`, LDG.E.LTC256B in the SASS);
 *        without, the 32-byte sectors it reads.
 *
 * A tile's 17 chunks of a row of `in` start and end inside such lines,
 * whose rest the tiles beside it read. Asked for sectors, L2 fetches those
 * parts from DRAM one by one; asked for lines, it fetches them once, and
 * the tile beside finds its part in L2 if it is still there
 * (sr_lines_reused()). Step 13 asks for 128 bytes; a float32 piece is
 * 17 chunks, 272 bytes from a 16-byte boundary, and the two aligned
 * 256-byte blocks around it always cover it.
 */
template <bool Lines>
static __host__ __device__ __forceinline__ float4 sr_fetch(const float4 *p)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800   // the hint is PTX for sm_80 and newer
    if (Lines) {
        float4 v;
        asm("ld.global.nc.L2::256B.v4.f32 {%0, %1, %2, %3}, [%4];"
            : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
            : "l"(p));
        return v;
    }
#endif
    return *p;
}

/**
 * @brief lines_reused() for the sector runs on @p rows rows: one column of
 *        tiles holds rows x 64 floats of `in` and of `out`, rows x 512 bytes
 *        (a quarter of the H100's 50 MiB L2 at 25600 rows).
 */
static __host__ __device__ __forceinline__ bool sr_lines_reused(size_t rows, size_t l2_bytes)
{
    return lines_reused(2 * rows * TILE * sizeof(float), l2_bytes);
}

/**
 * @brief Start load @p p of thread @p tid: chunk k of tile row r, item
 *        `p * THREADS + tid` = r * 17 + k. The two chunks of the whole
 *        matrix that stick out of it are read float by float, straight
 *        into the tile.
 */
template <unsigned Run, bool Lines>
static __host__ __device__ __forceinline__ sr_chunk sr_load_chunk(float *tile, const float *in, size_t count,
                                                                  size_t cols, size_t row0, size_t col0,
                                                                  unsigned height, unsigned width, unsigned p,
                                                                  unsigned tid)
{
    sr_chunk c;
    c.held = false;
    const unsigned item = p * THREADS + tid;
    c.row = item / SR_CHUNKS_PER_ROW;
    const unsigned k = item % SR_CHUNKS_PER_ROW;
    if (item >= SR_CHUNK_ITEMS(Run) || c.row >= height)
        return c;
    const unsigned lead = (unsigned)((uintptr_t)in & 15) / sizeof(float);
    const float4 *chunks = reinterpret_cast<const float4 *>(in - lead);
    const size_t flat = (row0 + c.row) * cols + col0 + lead;   // the row's first float, from `chunks`
    c.column = (int)(k * 4) - (int)(flat % 4);
    if (c.column >= (int)width)
        return c;
    const size_t chunk = flat / 4 + k;
    if (chunk * 4 >= lead && chunk * 4 + 4 <= lead + count) {
        c.value = sr_fetch<Lines>(&chunks[chunk]);   // LDG.E.128 (LDG.E.LTC256B.128 with Lines)
        c.held = true;
        return c;
    }
    const float *floats = reinterpret_cast<const float *>(chunks);
    for (unsigned e = 0; e < 4; ++e) {
        const int col = c.column + (int)e;
        const size_t at = chunk * 4 + e;
        if (col >= 0 && col < (int)width && at >= lead && at < lead + count)
            tile[c.row * SR_STRIDE + col] = floats[at];
    }
    return c;
}

/**
 * @brief Load rows row0 .. row0 + Run + 7 of the tile's 64 columns of `in` (those
 *        inside the matrix) into @p tile, 16 bytes at a time: each row as the
 *        aligned chunks that cover it, every float put at its own column.
 *        All of a thread's loads are issued before the first is stored.
 */
template <unsigned Run, bool Lines = false>
static __host__ __device__ __forceinline__ void sr_load_tile(float *tile, const float *in, size_t rows, size_t cols,
                                                             size_t row0, size_t col0, unsigned width, unsigned tid)
{
    const unsigned height = sr_height<Run>(rows, row0);
    sr_chunk c[SR_LOAD_PASSES(Run)];
UNROLL_ON_DEVICE
    for (unsigned p = 0; p < SR_LOAD_PASSES(Run); ++p)
        c[p] = sr_load_chunk<Run, Lines>(tile, in, rows * cols, cols, row0, col0, height, width, p, tid);
UNROLL_ON_DEVICE
    for (unsigned p = 0; p < SR_LOAD_PASSES(Run); ++p) {
        if (!c[p].held)
            continue;
        const float v[4] = {c[p].value.x, c[p].value.y, c[p].value.z, c[p].value.w};
UNROLL_ON_DEVICE
        for (unsigned e = 0; e < 4; ++e) {
            const int col = c[p].column + (int)e;
            if (col >= 0 && col < (int)width)
                tile[c[p].row * SR_STRIDE + col] = v[e];
        }
    }
}

/**
 * @brief Write the tile's runs: warp w writes rows w, w + 8, ... of the
 *        tile's 64 rows of `out`, 32 consecutive floats per instruction from
 *        the run's first (sector-aligned) float.
 */
template <unsigned Run>
static __host__ __device__ __forceinline__ void sr_store_tile(const float *tile, float *out, size_t rows,
                                                              unsigned lead, size_t row0, size_t col0,
                                                              unsigned width, unsigned tid)
{
    const unsigned lane = tid % 32, warp = tid / 32;
UNROLL_ON_DEVICE
    for (unsigned m = 0; m < SR_ROWS_PER_WARP; ++m) {
        const unsigned cc = warp + m * (THREADS / 32);   // tile column = row col0 + cc of `out`
        if (cc >= width)
            continue;
        size_t first, last;
        sr_run<Run>(rows, lead, row0, col0 + cc, &first, &last);
UNROLL_ON_DEVICE
        for (unsigned i = lane; i < SR_ROWS(Run); i += 32) {   // a run is at most Run + 7 floats
            const size_t r = first + i;
            if (r < last)
                out[(col0 + cc) * rows + r] = tile[(r - row0) * SR_STRIDE + cc];
        }
    }
}

/** @brief Floats between the last 32-byte boundary at or before @p p and @p p. */
static __host__ __device__ __forceinline__ unsigned sr_lead(const float *p)
{
    return (unsigned)((uintptr_t)p % (SR_SECTOR * sizeof(float))) / sizeof(float);
}

/**
 * @brief First row and column of tile @p t of runs of @p Run floats, in
 *        column-major tile order: tiles go down a band of 64 columns of `in`.
 */
template <unsigned Run>
static __host__ __device__ __forceinline__ void sr_tile(size_t t, size_t tiles_y, size_t *row0, size_t *col0)
{
    *row0 = (t % tiles_y) * Run;
    *col0 = (t / tiles_y) * TILE;
}

/**
 * @brief Transpose in (Run + 8) x 64 tiles whose runs of `out` start on
 *        sector boundaries, in column-major tile order: 16-byte loads,
 *        4-byte stores. Valid for rows, cols >= 2.
 */
template <unsigned Run, bool Lines>
static __global__ void __launch_bounds__(THREADS, SR_BLOCKS_PER_SM(Run))
transpose_sector_runs(const float *__restrict__ in, float *__restrict__ out, size_t rows, size_t cols)
{
    __shared__ float tile[SR_ROWS(Run) * SR_STRIDE];   // 18.3 KB (26.4 KB for long runs)
    const unsigned lead = sr_lead(out);
    const size_t tiles_y = ceil_div(rows, Run);
    const size_t tiles_x = ceil_div(cols, TILE);
    for (size_t t = blockIdx.x; t < tiles_y * tiles_x; t += gridDim.x) {
        size_t row0, col0;
        sr_tile<Run>(t, tiles_y, &row0, &col0);
        const unsigned width = tile_extent(cols, col0);
        sr_load_tile<Run, Lines>(tile, in, rows, cols, row0, col0, width, threadIdx.x);
        __syncthreads();   // the whole tile is in shared memory
        sr_store_tile<Run>(tile, out, rows, lead, row0, col0, width, threadIdx.x);
        __syncthreads();   // everyone is done reading before the next tile overwrites it
    }
}

/**
 * @brief One block per tile of runs of @p Run floats, a clamped 1-D grid;
 *        vectors are copied. @p Lines: the loads ask L2 for lines (sr_fetch()).
 */
template <unsigned Run = SR_RUN, bool Lines = false>
static inline size_t sector_runs_launch(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    if (rows == 1 || cols == 1)
        return copy_elements_launch(in, out, rows * cols, stream);
    const dim3 block(THREADS);
    const dim3 grid = grid_for_tiles(ceil_div(rows, Run) * ceil_div(cols, TILE), 1);
    transpose_sector_runs<Run, Lines><<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

#endif /* TRANSPOSE_SECTOR_RUNS_CUH */
