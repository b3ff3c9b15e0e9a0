/**
 * @file tile_copy.cuh
 * @brief Step 12's bounds: the answer's 64x64 tiles moved without
 *        being transposed, to time a transpose's access pattern, and each
 *        half of it, alone.
 *
 * A tiled transpose reads a tile's 64 rows of `in` and writes 64 rows of
 * `out`, 256 bytes of each. Its tile order decides which side gets long
 * runs: the answer's tiles go down a column of `in` (column_major_tile()),
 * so the blocks in flight write neighbouring pieces of the same rows of
 * `out`, while each row of `in` gives them a single 256-byte piece, its
 * next piece one column of tiles later.
 *
 * A copy has no such trade: it can take either pattern on both sides.
 *
 * - `copy_down`: the tiles in the answer's order, so reads *and* writes
 *   look like the transpose's reads.
 * - `copy_across`: the tiles along rows, so both look like its writes.
 *
 * Two more take the transpose's pattern on both sides, without the
 * transposition: `swap_down` reads the tiles in the answer's order and
 * writes each whole tile, untransposed, where the transpose puts it
 * (::OUTPUT_TILES_SWAPPED; edge tiles are transposed, so the result is a
 * permutation the harness can check); `swap_across` does the same with the
 * tiles along rows, step 09's order, whose short pieces are on the
 * write side. `swap_down_128` and `swap_across_128` move the same tiles,
 * to the same places, four at a time from each 128 x 128 region, so their
 * pieces are a 128 x 128 tile's: 512 bytes of each row. `swap_down_32` and
 * `swap_across_32` move each tile a 32 x 32 quadrant per block of 64
 * threads: a 32 x 32 tile's pieces, 128 bytes of each row.
 *
 * None transposes a tile, so little else differs: 256 threads (64 for the
 * quadrants), 16 floats each (four 16-byte chunks where every row starts on a 16-byte boundary,
 * else single floats), no shared memory, step 11's launch bounds. Where each
 * lands against the copy bound says what the pattern, and each half of it,
 * costs DRAM (docs/last-points.md).
 */
#ifndef TRANSPOSE_TILE_COPY_CUH
#define TRANSPOSE_TILE_COPY_CUH

#include <stddef.h>
#include <cuda_runtime.h>

#include "kernel_utils.cuh"
#include "step_table.h"   // SWAPPED_TILE: the tile the harness checks a swap bound against
#include "steps/11_any_shape/any_shape.cuh"   // AS_BLOCKS_PER_SM: the chunk kernel's launch bounds
#include "steps/09_shared64/tile64.cuh"   // TILE, VEC, THREADS, CHUNKS_PER_ROW, ROWS_PER_PASS, tile_extent(), column_major_tile(),
                                          // load_chunk_column()

/** Tile rows one pass of single-float accesses covers: 256 threads, one float each, 64 to a row. */
#define TC_ROWS_PER_PASS (THREADS / TILE)

/** @brief Row and column, counted in groups, of group @p g: down columns of groups if @p Down, else along rows. */
template <bool Down>
static __device__ __forceinline__ void group_at(size_t g, size_t groups_y, size_t groups_x, size_t *group_row,
                                                size_t *group_col)
{
    *group_row = Down ? g % groups_y : g / groups_x;
    *group_col = Down ? g / groups_y : g % groups_x;
}

/**
 * @brief Where a bound puts element (@p r, @p c) of the tile at (@p row0,
 *        @p col0): where it came from (a copy), or with @p Swap, at the same
 *        place of the tile's transposed position if the tile is @p whole,
 *        else at its transposed place.
 */
template <bool Swap>
static __device__ __forceinline__ size_t bound_out_at(size_t rows, size_t cols, size_t row0, size_t col0,
                                                      unsigned r, unsigned c, bool whole)
{
    if (!Swap)
        return (row0 + r) * cols + col0 + c;
    if (whole)
        return (col0 + r) * rows + row0 + c;   // out has `rows` columns
    return (col0 + c) * rows + row0 + r;
}

/**
 * @brief Move one tile as 16-byte chunks: thread @p tid loads chunk
 *        tid % 16 of 4 tile rows, all 4 before the first store, and stores
 *        them at bound_out_at(). The tile's width is a multiple of 4, and
 *        with @p Swap so is `rows`.
 */
template <bool Swap>
static __device__ __forceinline__ void copy_tile_chunks(const float *__restrict__ in, float *__restrict__ out,
                                                        size_t rows, size_t cols, size_t row0, size_t col0,
                                                        unsigned height, unsigned width, unsigned tid)
{
    const unsigned row = tid / CHUNKS_PER_ROW, col = (tid % CHUNKS_PER_ROW) * VEC;
    if (col >= width)
        return;
    // Both matrices as float4s: the launcher checked that every row is whole chunks on 16-byte boundaries.
    const float4 *in4 = reinterpret_cast<const float4 *>(in);
    float4 *out4 = reinterpret_cast<float4 *>(out);
    const size_t first = ((row0 + row) * cols + col0 + col) / VEC, pass = ROWS_PER_PASS * cols / VEC;
    float4 v[TILE / ROWS_PER_PASS];
    load_chunk_column(v, in4, first, pass, row, height);
    const bool whole = height == TILE && width == TILE;
#pragma unroll
    for (unsigned p = 0; p < TILE / ROWS_PER_PASS; ++p) {
        const unsigned r = row + p * ROWS_PER_PASS;
        if (r >= height)
            continue;
        if (!Swap || whole) {
            store_float4(out4, bound_out_at<Swap>(rows, cols, row0, col0, r, col, whole) / VEC, v[p]);
        } else {   // an edge tile: the chunk's 4 floats go to 4 rows of `out`
            const float f[VEC] = {v[p].x, v[p].y, v[p].z, v[p].w};
#pragma unroll
            for (unsigned e = 0; e < VEC; ++e)
                out[bound_out_at<Swap>(rows, cols, row0, col0, r, col + e, false)] = f[e];
        }
    }
}

/** @brief Move one tile float by float: thread @p tid takes column tid % 64 of 16 tile rows. */
template <bool Swap>
static __device__ __forceinline__ void copy_tile_floats(const float *__restrict__ in, float *__restrict__ out,
                                                        size_t rows, size_t cols, size_t row0, size_t col0,
                                                        unsigned height, unsigned width, unsigned tid)
{
    const unsigned row = tid / TILE, col = tid % TILE;
    if (col >= width)
        return;
    float v[TILE / TC_ROWS_PER_PASS];
#pragma unroll
    for (unsigned p = 0; p < TILE / TC_ROWS_PER_PASS; ++p)
        if (row + p * TC_ROWS_PER_PASS < height)
            v[p] = in[(row0 + row + p * TC_ROWS_PER_PASS) * cols + col0 + col];
#pragma unroll
    for (unsigned p = 0; p < TILE / TC_ROWS_PER_PASS; ++p)
        if (row + p * TC_ROWS_PER_PASS < height)
            out[bound_out_at<Swap>(rows, cols, row0, col0, row + p * TC_ROWS_PER_PASS, col,
                                   height == TILE && width == TILE)] = v[p];
}

/**
 * @brief Move the four whole tiles of the 128 x 128 region at (@p row0,
 *        @p col0) as 16-byte chunks, each to where bound_out_at() puts it,
 *        in 4 turns of 32 region rows: rows 16 k to 16 k + 15 of the upper
 *        two tiles and of the lower two. A warp loads 512 bytes of a row of
 *        `in`, and each thread's 4 stores, 256 bytes of two rows of `out`
 *        from each tile row, fill 512 bytes of each: a 128 x 128 tile's
 *        pieces on both sides, in flight together.
 */
template <bool Swap>
static __device__ __forceinline__ void copy_region_chunks(const float *__restrict__ in, float *__restrict__ out,
                                                          size_t rows, size_t cols, size_t row0, size_t col0,
                                                          unsigned tid)
{
    constexpr unsigned REGION_CHUNKS = 2 * CHUNKS_PER_ROW;   // 32 chunks to a region row: one warp
    const unsigned q = tid / REGION_CHUNKS, chunk = tid % REGION_CHUNKS;
    const unsigned b = chunk / CHUNKS_PER_ROW, c = (chunk % CHUNKS_PER_ROW) * VEC;   // tile across, column in it
    const float4 *in4 = reinterpret_cast<const float4 *>(in);
    float4 *out4 = reinterpret_cast<float4 *>(out);
    for (unsigned k = 0; k < TILE / 16; ++k) {
        float4 v[4];
#pragma unroll
        for (unsigned i = 0; i < 4; ++i) {   // tile row a = i / 2, rows q and q + 8 of the turn's 16
            const unsigned a = i / 2, r = 16 * k + q + 8 * (i % 2);
            v[i] = in4[((row0 + TILE * a + r) * cols + col0 + TILE * b + c) / VEC];
        }
#pragma unroll
        for (unsigned i = 0; i < 4; ++i) {
            const unsigned a = i / 2, r = 16 * k + q + 8 * (i % 2);
            store_float4(out4, bound_out_at<Swap>(rows, cols, row0 + TILE * a, col0 + TILE * b, r, c, true) / VEC,
                         v[i]);
        }
    }
}

/** @brief Move the tile at (@p row0, @p col0) with accesses of @p Bytes, 16 or 4. */
template <bool Swap, unsigned Bytes>
static __device__ __forceinline__ void copy_tile(const float *__restrict__ in, float *__restrict__ out, size_t rows,
                                                 size_t cols, size_t row0, size_t col0)
{
    const unsigned height = tile_extent(rows, row0), width = tile_extent(cols, col0);
    if (Bytes == 16)
        copy_tile_chunks<Swap>(in, out, rows, cols, row0, col0, height, width, threadIdx.x);
    else
        copy_tile_floats<Swap>(in, out, rows, cols, row0, col0, height, width, threadIdx.x);
}

/**
 * @brief out = in, or with @p Swap the tiles moved whole (bound_out_at()),
 *        one group of @p Group x @p Group tiles per block and turn, groups
 *        down columns if @p Down, else along rows; accesses of @p Bytes, 16
 *        or 4. A whole group of 2 x 2 tiles moves as a 128 x 128 tile's
 *        pieces (copy_region_chunks()), others tile by tile. (The last
 *        parameter is a number: a kernel name ending `, true>` is one whose
 *        loads ask for lines.)
 */
template <bool Swap, bool Down, unsigned Bytes, unsigned Group>
static __global__ void __launch_bounds__(THREADS, AS_BLOCKS_PER_SM)
transpose_bound_copy_in_tiles(const float *__restrict__ in, float *__restrict__ out, size_t rows, size_t cols)
{
    const size_t tiles_y = ceil_div(rows, TILE), tiles_x = ceil_div(cols, TILE);
    const size_t groups_y = ceil_div(tiles_y, Group), groups_x = ceil_div(tiles_x, Group);
    for (size_t g = blockIdx.x; g < groups_y * groups_x; g += gridDim.x) {
        size_t group_row, group_col;
        group_at<Down>(g, groups_y, groups_x, &group_row, &group_col);
        const size_t row0 = group_row * Group * TILE, col0 = group_col * Group * TILE;
        if (Group == 2 && Bytes == 16 && row0 + 2 * TILE <= rows && col0 + 2 * TILE <= cols) {
            copy_region_chunks<Swap>(in, out, rows, cols, row0, col0, threadIdx.x);
            continue;
        }
        for (unsigned a = 0; a < Group; ++a)
            for (unsigned b = 0; b < Group; ++b) {
                const size_t tile_row = group_row * Group + a, tile_col = group_col * Group + b;
                if (tile_row < tiles_y && tile_col < tiles_x)
                    copy_tile<Swap, Bytes>(in, out, rows, cols, tile_row * TILE, tile_col * TILE);
            }
    }
}

/**
 * @brief Launch transpose_bound_copy_in_tiles(): one block per group of
 *        @p Group x @p Group tiles, a one-dimensional grid clamped to its
 *        limit; 16-byte accesses where every row read and written is whole
 *        chunks on 16-byte boundaries.
 */
template <bool Down, bool Swap = false, unsigned Group = 1>
static inline size_t tile_copy_launch(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    static_assert(SWAPPED_TILE == TILE, "the harness checks the swapped tiles at this size");
    const dim3 block(THREADS);
    const dim3 grid = grid_for_tiles(ceil_div(ceil_div(rows, TILE), Group) * ceil_div(ceil_div(cols, TILE), Group), 1);
    const bool chunks = cols % VEC == 0 && (!Swap || rows % VEC == 0) && is_aligned_16(in) && is_aligned_16(out);
    if (chunks)
        transpose_bound_copy_in_tiles<Swap, Down, 16, Group><<<grid, block, 0, stream>>>(in, out, rows, cols);
    else
        transpose_bound_copy_in_tiles<Swap, Down, 4, Group><<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** Side of a quadrant: a 64x64 tile moved as four 32 x 32 pieces (128-byte pieces on both sides). */
#define TC_QUAD 32
/** Threads of a quadrant block: 8 chunks to a quadrant row, 4 rows a thread. */
#define TC_QUAD_THREADS 64
/** Quadrant rows one pass of the block's chunks covers: 8. */
#define TC_QUAD_ROWS_PER_PASS (TC_QUAD_THREADS / (TC_QUAD / VEC))
/** Passes to cover a quadrant's 32 rows: the chunks each thread moves. */
#define TC_QUAD_PASSES (TC_QUAD / TC_QUAD_ROWS_PER_PASS)

/**
 * @brief swap_down's output, moved a 32 x 32 quadrant per block of 64
 *        threads (4 chunks a thread, all loaded before the first store),
 *        quadrants down columns if @p Down: a 32 x 32 tile's 128-byte pieces
 *        on both sides. Rows of `in` and `out` are whole aligned chunks. A
 *        quadrant is a quarter of a 64 x 64 tile's bytes, so four times as
 *        many blocks per multiprocessor keep as many bytes in flight (16:
 *        the most some GPUs of the build hold).
 */
template <bool Down>
static __global__ void __launch_bounds__(TC_QUAD_THREADS, 16)
transpose_bound_swap_quadrants(const float *__restrict__ in, float *__restrict__ out, size_t rows, size_t cols)
{
    const size_t quads_y = ceil_div(rows, TC_QUAD), quads_x = ceil_div(cols, TC_QUAD);
    const unsigned qrow = threadIdx.x / (TC_QUAD / VEC), c = (threadIdx.x % (TC_QUAD / VEC)) * VEC;
    const float4 *in4 = reinterpret_cast<const float4 *>(in);
    float4 *out4 = reinterpret_cast<float4 *>(out);
    for (size_t q = blockIdx.x; q < quads_y * quads_x; q += gridDim.x) {
        size_t quad_row, quad_col;
        group_at<Down>(q, quads_y, quads_x, &quad_row, &quad_col);
        const size_t row0 = quad_row * TC_QUAD, col0 = quad_col * TC_QUAD;
        const size_t trow0 = row0 / TILE * TILE, tcol0 = col0 / TILE * TILE;   // its 64 x 64 tile
        const bool whole = tile_extent(rows, trow0) == TILE && tile_extent(cols, tcol0) == TILE;
        const unsigned r0 = (unsigned)(row0 - trow0), c0 = (unsigned)(col0 - tcol0) + c;
        if (col0 + c >= cols)
            continue;
        float4 v[TC_QUAD_PASSES];
#pragma unroll
        for (unsigned p = 0; p < TC_QUAD_PASSES; ++p)
            if (row0 + qrow + TC_QUAD_ROWS_PER_PASS * p < rows)
                v[p] = in4[((row0 + qrow + TC_QUAD_ROWS_PER_PASS * p) * cols + col0 + c) / VEC];
#pragma unroll
        for (unsigned p = 0; p < TC_QUAD_PASSES; ++p) {
            const unsigned r = r0 + qrow + TC_QUAD_ROWS_PER_PASS * p;
            if (trow0 + r >= rows)
                continue;
            if (whole) {
                store_float4(out4, bound_out_at<true>(rows, cols, trow0, tcol0, r, c0, true) / VEC, v[p]);
            } else {
                const float f[VEC] = {v[p].x, v[p].y, v[p].z, v[p].w};
#pragma unroll
                for (unsigned e = 0; e < VEC; ++e)
                    out[bound_out_at<true>(rows, cols, trow0, tcol0, r, c0 + e, false)] = f[e];
            }
        }
    }
}

/** @brief Launch transpose_bound_swap_quadrants(), or the 64 x 64 swap where rows are not whole chunks. */
template <bool Down>
static inline size_t swap_quadrants_launch(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    if (!(cols % VEC == 0 && rows % VEC == 0 && is_aligned_16(in) && is_aligned_16(out)))
        return tile_copy_launch<Down, true>(in, out, rows, cols, stream);
    const dim3 block(TC_QUAD_THREADS);
    const dim3 grid = grid_for_tiles(ceil_div(rows, TC_QUAD) * ceil_div(cols, TC_QUAD), 1);
    transpose_bound_swap_quadrants<Down><<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

#endif /* TRANSPOSE_TILE_COPY_CUH */
