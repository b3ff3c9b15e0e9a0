/**
 * @file any_shape.cuh
 * @brief Step 11's kernel: 16-byte global loads and stores on rows of any
 *        length and any 4-byte alignment, for steps 11 and 12.
 *
 * Steps 09 and 10 use float4 only when every row starts on a 16-byte
 * boundary (step 05 shifts its quads, but only along rows of whole
 * chunks). Here the matrix is seen as what memory really is: one flat array of
 * aligned 16-byte *chunks*. A row that starts in the middle of a chunk is
 * still made of whole chunks, plus a few floats at each end:
 *
 * - **Load.** For each row of its 64x64 tile, the block reads the aligned
 *   chunks that cover the row's 64 floats: 16, or 17 when the row starts
 *   mid-chunk. Each float is then put at its own column of the shared
 *   tile, which undoes the row's shift (`shift`, 0-3 floats).
 * - **Store.** Each row of `out` that the tile touches is a run of up to 64
 *   floats. Its aligned chunks that lie wholly inside the run are written
 *   as float4; the 0-3 floats before the first and after the last are
 *   written one by one. Every float of `out` belongs to exactly one tile,
 *   so every float is written exactly once.
 *
 * Only the first and last chunk of the whole input can stick out of the
 * matrix; those are read float by float. Nothing else is ever 4 bytes wide.
 *
 * The per-thread functions take the thread's index as an argument and run
 * on the host too: tests/test_tiles.cu plays a whole block, thread by
 * thread, on every shape and alignment, without a GPU.
 */
#ifndef TRANSPOSE_ANY_SHAPE_CUH
#define TRANSPOSE_ANY_SHAPE_CUH

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime.h>

#include "kernel_utils.cuh"   // copy_elements_launch(): a vector is a copy
#include "steps/09_shared64/tile64.cuh"   // TILE, VEC, THREADS, tile_extent(), column_major_tile(), vec4_fits(),
                        // rows_are_whole_chunks()
#include "sector_runs.cuh"   // sector_runs_launch(), for any_shape_launch()

/** Chunks that cover 64 floats which start anywhere inside a chunk. */
#define AS_CHUNKS_PER_ROW (TILE / VEC + 1)
/**
 * Floats per tile row in shared memory: 64 + 2. Row r starts 2r banks
 * further on, so the 32 lanes of a warp that read 4 chunks x 8 columns on
 * the way out (rows r + 4j, columns c..c+7) fall in 32 different banks,
 * whatever the shape (docs/steps/11_any_shape.md).
 */
#define AS_STRIDE (TILE + 2)
/** Lanes of a warp that load different chunks of one tile row. */
#define AS_LOAD_LANES 8
/** Tile rows one pass of loads covers: 256 threads / 8 chunks. */
#define AS_ROWS_PER_PASS (THREADS / AS_LOAD_LANES)
/** Lanes of a warp that store different chunks of one row of `out`. */
#define AS_STORE_LANES 4
/**
 * Blocks per multiprocessor for `__launch_bounds__`: 5 x 256 threads leave
 * 48 registers for the 5 float4 a thread holds between load and scatter.
 */
#define AS_BLOCKS_PER_SM (MAX_BLOCKS_PER_SM(THREADS) < 5 ? MAX_BLOCKS_PER_SM(THREADS) : 5)

static_assert(TILE % AS_ROWS_PER_PASS == 0, "the load passes must cover the tile");
static_assert(THREADS / AS_STORE_LANES == TILE, "one group of store lanes per row of `out`");

/**
 * @brief A matrix seen as a flat array of aligned 16-byte chunks.
 *
 * Element `i` of the matrix is float `lead + i` from @p chunks: the chunk
 * that holds it is `(lead + i) / 4`, its place in that chunk `(lead + i) % 4`.
 */
template <class T>
struct chunked {
    T *chunks;       /**< the aligned chunk that holds element 0 */
    unsigned lead;   /**< floats between that chunk's start and element 0: 0-3 */
};

/**
 * @brief View @p p (4-byte aligned) as chunks: step back to the 16-byte
 *        boundary at or before it.
 *
 * By pointer arithmetic, not through an integer, so that the compiler
 * still knows the pointer is global memory and emits `LDG`/`STG`, not
 * generic `LD`/`ST`.
 */
static __host__ __device__ __forceinline__ chunked<const float4> as_chunks(const float *p)
{
    const unsigned lead = (unsigned)((uintptr_t)p & 15) / 4;
    return chunked<const float4>{reinterpret_cast<const float4 *>(p - lead), lead};
}

/** @brief The same for the output. */
static __host__ __device__ __forceinline__ chunked<float4> as_chunks(float *p)
{
    const unsigned lead = (unsigned)((uintptr_t)p & 15) / 4;
    return chunked<float4>{reinterpret_cast<float4 *>(p - lead), lead};
}

/**
 * @brief Load one tile row's chunks, as far as this thread is concerned,
 *        and put each float at its column of the tile.
 *
 * Row @p r of the tile starts at element `first` of `in`; its floats begin
 * `shift` floats into the chunk `first_chunk`. Chunk @p k of the row holds
 * tile columns `4k - shift` .. `4k - shift + 3`; those outside 0..width-1
 * belong to the neighbouring tiles (or rows) and are dropped.
 */
struct row_chunk {
    float4 value;   /**< the chunk, once loaded */
    int column;     /**< tile column of its first float: 4k - shift (may be negative) */
    bool held;      /**< value holds a chunk still to be put in the tile */
};

/**
 * @brief Start loading chunk @p k of tile row @p r: a 16-byte load, or,
 *        for the two chunks at the ends of the matrix that stick out of
 *        it, float by float straight into the tile.
 */
static __host__ __device__ __forceinline__ row_chunk load_row_chunk(float *tile, chunked<const float4> in, size_t count,
                                                           size_t first, unsigned r, unsigned k, unsigned width)
{
    row_chunk c;
    c.held = false;
    const size_t flat = first + in.lead;        // the row's first float, counted from in.chunks
    const unsigned shift = (unsigned)(flat % VEC);
    c.column = (int)(k * VEC) - (int)shift;
    if (c.column >= (int)width)                 // the row ends before this chunk
        return c;
    const size_t chunk = flat / VEC + k;
    if (chunk * VEC >= in.lead && chunk * VEC + VEC <= in.lead + count) {
        c.value = in.chunks[chunk];             // LDG.E.128
        c.held = true;
        return c;
    }
    // The chunk sticks out of the matrix (only at its first or last float).
    const float *floats = reinterpret_cast<const float *>(in.chunks);
    for (unsigned e = 0; e < VEC; ++e) {
        const int col = c.column + (int)e;
        const size_t at = chunk * VEC + e;   // counted from in.chunks
        if (col >= 0 && col < (int)width && at >= in.lead && at < in.lead + count)
            tile[r * AS_STRIDE + col] = floats[at];
    }
    return c;
}

/** @brief Put a loaded chunk's floats at their columns of tile row @p r. */
static __host__ __device__ __forceinline__ void place_row_chunk(float *tile, const row_chunk &c, unsigned r, unsigned width)
{
    if (!c.held)
        return;
    const float v[VEC] = {c.value.x, c.value.y, c.value.z, c.value.w};
UNROLL_ON_DEVICE
    for (unsigned e = 0; e < VEC; ++e) {
        const int col = c.column + (int)e;
        if (col >= 0 && col < (int)width)
            tile[r * AS_STRIDE + col] = v[e];
    }
}

/**
 * @brief Load the tile at (@p row0, @p col0) of `in` into @p tile, every
 *        float at its own column: all of a thread's 16-byte loads are
 *        started before the first is put in the tile.
 *
 * Thread t loads chunks `t % 8` and `t % 8 + 8` of rows `t / 8` and
 * `t / 8 + 32`; threads 0-63 also load the 17th chunk of row t, which only
 * a row that starts mid-chunk needs.
 */
static __host__ __device__ __forceinline__ void load_tile_any_shape(float *tile, chunked<const float4> in,
                                                                    size_t count, size_t cols, size_t row0,
                                                                    size_t col0, unsigned height, unsigned width,
                                                                    unsigned tid)
{
    row_chunk c[2][2];
UNROLL_ON_DEVICE
    for (unsigned pass = 0; pass < 2; ++pass)
UNROLL_ON_DEVICE
        for (unsigned half = 0; half < 2; ++half) {
            const unsigned r = tid / AS_LOAD_LANES + pass * AS_ROWS_PER_PASS;
            const unsigned k = tid % AS_LOAD_LANES + half * AS_LOAD_LANES;
            c[pass][half].held = false;
            if (r < height)
                c[pass][half] = load_row_chunk(tile, in, count, (row0 + r) * cols + col0, r, k, width);
        }
    row_chunk last;   // the 17th chunk of row tid
    last.held = false;
    if (tid < height)
        last = load_row_chunk(tile, in, count, (row0 + tid) * cols + col0, tid, AS_CHUNKS_PER_ROW - 1, width);
UNROLL_ON_DEVICE
    for (unsigned pass = 0; pass < 2; ++pass)
UNROLL_ON_DEVICE
        for (unsigned half = 0; half < 2; ++half)
            place_row_chunk(tile, c[pass][half], tid / AS_LOAD_LANES + pass * AS_ROWS_PER_PASS, width);
    place_row_chunk(tile, last, tid, width);
}

/**
 * @brief Write the tile, transposed: tile column `cc` is the run of
 *        `height` floats of `out` row `col0 + cc` that starts at column
 *        `row0`.
 *
 * The run's first `head` floats (0-3) share a chunk with the end of the
 * run of the tile above, so they are written one by one, as are the 0-3
 * floats after the run's last whole chunk. Runs never overlap, and a whole
 * chunk lies inside one run: every float is written exactly once.
 *
 * Thread t works on run `t / 4`. The 4 lanes of a run write the 64-byte
 * aligned groups of 4 chunks that the run's whole chunks fall in, one
 * group per pass, so that one store instruction writes whole 32-byte
 * sectors. (Groups counted from the run's first whole chunk would, on
 * most shapes, end half-way through a sector that the next pass then
 * finishes: L2 would receive those sectors twice.)
 */
static __host__ __device__ __forceinline__ void store_tile_any_shape(const float *tile, chunked<float4> out,
                                                                     float *out_floats, size_t rows, size_t row0,
                                                                     size_t col0, unsigned height, unsigned width,
                                                                     unsigned tid)
{
    const unsigned cc = tid / AS_STORE_LANES;   // tile column = row of `out`
    const unsigned lane = tid % AS_STORE_LANES;
    if (cc >= width)
        return;
    const size_t first = (col0 + cc) * rows + row0;   // element of `out` that tile row 0 goes to
    const size_t flat = first + out.lead;              // the same, counted from out.chunks
    const unsigned head_wanted = (unsigned)((VEC - flat % VEC) % VEC);
    const unsigned head = head_wanted < height ? head_wanted : height;   // floats before the first whole chunk
    const unsigned whole = (height - head) / VEC;                     // whole chunks in the run
    const unsigned tail = height - head - whole * VEC;                // floats after the last one
    const size_t chunk0 = (flat + head) / VEC;                        // the first whole chunk
    const unsigned skew = (unsigned)(chunk0 % AS_STORE_LANES);        // its place in its 64-byte group
    // Slot j is chunk `chunk0 - skew + j`: whole chunk w sits at slot w + skew.
UNROLL_ON_DEVICE
    for (unsigned j = lane; j < TILE / VEC + AS_STORE_LANES; j += AS_STORE_LANES)
        if (j >= skew && j - skew < whole) {
            const unsigned w = j - skew;
            const float *src = tile + (head + w * VEC) * AS_STRIDE + cc;   // 4 rows of one column
            out.chunks[chunk0 + w] = make_float4(src[0], src[AS_STRIDE], src[2 * AS_STRIDE], src[3 * AS_STRIDE]);
        }
    // The 0-6 single floats: edge e < head is tile row e, the others follow the whole chunks.
UNROLL_ON_DEVICE
    for (unsigned e = lane; e < 2 * (VEC - 1); e += AS_STORE_LANES)
        if (e < head + tail) {
            const unsigned r = e < head ? e : head + whole * VEC + (e - head);
            out_floats[first + r] = tile[r * AS_STRIDE + cc];
        }
}

/** @brief Floats between the 32-byte sector boundary at or before @p p and @p p: 0-7. */
static __host__ __device__ __forceinline__ unsigned sector_lead(const float *p)
{
    return (unsigned)((uintptr_t)p & 31) / 4;
}

/**
 * @brief The chunk kernel's tiles: 64x64, in column-major tile order,
 *        with the whole grid moved up by @p shift_r rows and left by
 *        @p shift_c columns.
 *
 * When both pointers sit the same few floats past alignment (`--offset
 * 1`), every row of `in` and of `out` still starts at the same place in
 * its chunk, if the rows are whole chunks. Moving the grid by that many
 * floats puts every tile row of `in` and every run of `out` back on a
 * chunk boundary: step 05's shifted quad grid, for tiles. The first band
 * of tiles is then short, 64 - shift wide. With no shift this is step 10's
 * grid. Any shift gives a partition of the matrix, so the kernel is
 * correct for any shift; only the speed depends on choosing it well.
 */
struct tile_grid {
    size_t tiles_y;    /**< bands of tile rows */
    size_t tiles_x;    /**< bands of tile columns */
    unsigned shift_r;  /**< rows the grid is moved up: 0-7 */
    unsigned shift_c;  /**< columns the grid is moved left: 0-7 */
};

/** @brief The grid for a rows x cols matrix, moved by @p shift_r and @p shift_c. */
static __host__ __device__ __forceinline__ tile_grid make_tile_grid(size_t rows, size_t cols, unsigned shift_r,
                                                                    unsigned shift_c)
{
    return tile_grid{ceil_div(rows + shift_r, TILE), ceil_div(cols + shift_c, TILE), shift_r, shift_c};
}

/**
 * @brief Band @p i of a side of @p n elements cut into 64s after a first
 *        band of 64 - @p shift: its first element and its length.
 */
static __host__ __device__ __forceinline__ void shifted_band(size_t i, unsigned shift, size_t n, size_t *first,
                                                             unsigned *length)
{
    const size_t start = i == 0 ? 0 : i * TILE - shift;
    const size_t end = (i + 1) * TILE - shift;
    *first = start;
    *length = (unsigned)((end < n ? end : n) - start);
}

/**
 * @brief First row and column, height and width of tile @p t of @p grid, in
 *        column-major tile order (step 10's): consecutive tiles go down a
 *        column of tiles of `in`, so the blocks in flight write along the
 *        same rows of `out`.
 */
static __host__ __device__ __forceinline__ void grid_tile(const tile_grid &grid, size_t t, size_t rows, size_t cols,
                                                          size_t *row0, size_t *col0, unsigned *height,
                                                          unsigned *width)
{
    shifted_band(t % grid.tiles_y, grid.shift_r, rows, row0, height);
    shifted_band(t / grid.tiles_y, grid.shift_c, cols, col0, width);
}

/**
 * @brief The grid the chunk kernel uses: moved by the pointers' places in
 *        their sectors when @p Shifted, so that runs of `out` start on
 *        sector boundaries (the rows of `out` set the row shift, those of
 *        `in` the column shift); step 10's grid otherwise.
 */
template <bool Shifted>
static __host__ __device__ __forceinline__ tile_grid chunk_grid(const float *in, const float *out, size_t rows,
                                                                size_t cols)
{
    return make_tile_grid(rows, cols, Shifted ? sector_lead(out) : 0, Shifted ? sector_lead(in) : 0);
}

/**
 * @brief The chunk kernel: 64x64 tiles in column-major order, each moved
 *        with 16-byte accesses whatever the shape; with @p Shifted, on a
 *        grid moved to the pointers' alignment.
 *
 * Valid for rows, cols >= 2 and 4-byte-aligned pointers; the launcher
 * copies vectors.
 */
template <bool Shifted>
static __global__ void __launch_bounds__(THREADS, AS_BLOCKS_PER_SM)
transpose_any_shape(const float *__restrict__ in, float *__restrict__ out, size_t rows, size_t cols)
{
    __shared__ float tile[TILE * AS_STRIDE];   // 16.5 KB
    const chunked<const float4> in_chunks = as_chunks(in);
    const chunked<float4> out_chunks = as_chunks(out);
    const tile_grid grid = chunk_grid<Shifted>(in, out, rows, cols);
    for (size_t t = blockIdx.x; t < grid.tiles_y * grid.tiles_x; t += gridDim.x) {
        size_t row0, col0;
        unsigned height, width;
        grid_tile(grid, t, rows, cols, &row0, &col0, &height, &width);
        load_tile_any_shape(tile, in_chunks, rows * cols, cols, row0, col0, height, width, threadIdx.x);
        __syncthreads();   // the whole tile is in shared memory
        store_tile_any_shape(tile, out_chunks, out, rows, row0, col0, height, width, threadIdx.x);
        __syncthreads();   // everyone is done reading before the next tile overwrites it
    }
}

/**
 * @brief Launch transpose_any_shape<Shifted>(), the chunk kernel, on
 *        every shape: one block per tile, a one-dimensional grid clamped to
 *        its limit. Vectors are copied.
 */
template <bool Shifted>
static inline size_t chunks_launch_on(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    if (rows == 1 || cols == 1)
        return copy_elements_launch(in, out, rows * cols, stream);
    const tile_grid tiles = chunk_grid<Shifted>(in, out, rows, cols);
    const dim3 block(THREADS);
    const dim3 grid = grid_for_tiles(tiles.tiles_y * tiles.tiles_x, 1);
    transpose_any_shape<Shifted><<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief The chunk kernel on step 10's grid, on every shape. */
static inline size_t chunks_launch(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return chunks_launch_on<false>(in, out, rows, cols, stream);
}

/**
 * @brief Step 11's default, and step 12's kernel where TMA cannot describe
 *        the matrix: the chunk kernel where every row of both matrices
 *        starts on a 16-byte boundary; the chunk kernel on a shifted grid
 *        where the rows are whole chunks but the pointers are not aligned;
 *        sector runs (steps/11_any_shape/sector_runs.cuh, 16-byte loads, 4-byte stores)
 *        everywhere else.
 *
 * Why three: on rows that are whole chunks, 64-float runs of `out` start
 * on sector boundaries (after the shift, if the pointers need one), and
 * the chunk kernel moves them 16 bytes at a time from 64-row tiles. On any
 * other row a run straddles 9 sectors and shares two of them with the
 * tiles above and below; sector runs keep every sector whole
 * (docs/steps/11_any_shape.md measures both). @p Run is the length of
 * the sector runs: 64 floats, or SR_LONG_RUN; with @p Lines their loads
 * ask L2 for lines (sr_fetch(), the capstone's float32 rule).
 */
template <unsigned Run = SR_RUN, bool Lines = false>
static inline size_t any_shape_launch(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    if (vec4_fits(in, out, rows, cols))
        return chunks_launch_on<false>(in, out, rows, cols, stream);
    if (rows_are_whole_chunks(rows, cols))
        return chunks_launch_on<true>(in, out, rows, cols, stream);
    return sector_runs_launch<Run, Lines>(in, out, rows, cols, stream);
}

#endif /* TRANSPOSE_ANY_SHAPE_CUH */
