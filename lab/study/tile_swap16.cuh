/**
 * @file tile_swap16.cuh
 * @brief Step 13's bound: the default's 128 x 128 tiles moved whole, not
 *        transposed, to where the transpose puts them.
 *
 * Past L2 the default (`prmt`) moves 128 x 128 tiles down the columns:
 * 256 bytes of each of 128 rows of `in`, and 256 bytes of each of 128 rows
 * of `out`. `swap_down` makes those accesses and no others, in the same
 * order, with every thread's 16-byte loads issued before its stores, but it
 * writes each whole tile as it was read (::OUTPUT_TILES_SWAPPED; edge tiles
 * are transposed, so the harness can check the result). Where the default
 * runs level with it, the work on each tile is free and the pattern is the
 * limit, as step 12's `swap_down` showed for float32 (docs/last-points.md).
 */
#ifndef TRANSPOSE_TILE_SWAP16_CUH
#define TRANSPOSE_TILE_SWAP16_CUH

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime.h>

#include "kernel_utils.cuh"
#include "step_table.h"   // SWAPPED_TILE_16: the tile the harness checks a swap bound against

/** Side of the swapped tile, in 2-byte elements: 256 bytes. */
#define TS16_TILE SWAPPED_TILE_16
/** Threads of a block. */
#define TS16_THREADS 256
/** 2-byte elements in a 16-byte chunk. */
#define TS16_CHUNK 8
/** Chunks in a tile row: 16. */
#define TS16_CHUNKS_PER_ROW (TS16_TILE / TS16_CHUNK)
/** Tile rows one pass of the block's chunks covers: 16. */
#define TS16_ROWS_PER_PASS (TS16_THREADS / TS16_CHUNKS_PER_ROW)
/** Passes to cover the tile's rows: the chunks each thread moves. */
#define TS16_PASSES (TS16_TILE / TS16_ROWS_PER_PASS)

/** @brief Where element (@p r, @p c) of the tile at (@p row0, @p col0) goes: in place in a whole tile, else transposed. */
static __device__ __forceinline__ size_t ts16_out_at(size_t rows, size_t row0, size_t col0, unsigned r, unsigned c,
                                                     bool whole)
{
    return whole ? (col0 + r) * rows + row0 + c : (col0 + c) * rows + row0 + r;   // out has `rows` columns
}

/** @brief Element @p e (0-7) of a 16-byte chunk, without taking its address (which would put it in local memory). */
static __device__ __forceinline__ uint16_t ts16_element(uint4 v, unsigned e)
{
    const unsigned word = e < 4 ? (e < 2 ? v.x : v.y) : (e < 6 ? v.z : v.w);
    return (uint16_t)(word >> (16 * (e % 2)));
}

/**
 * @brief Move every 128 x 128 tile, down the columns of tiles, in 16-byte
 *        chunks if @p Chunks (rows of `in` and `out` whole aligned chunks),
 *        else element by element.
 */
template <bool Chunks>
static __global__ void __launch_bounds__(TS16_THREADS, 4)
transpose16_bound_swap_down(const uint16_t *__restrict__ in, uint16_t *__restrict__ out, size_t rows, size_t cols)
{
    const size_t tiles_y = ceil_div(rows, TS16_TILE), tiles_x = ceil_div(cols, TS16_TILE);
    const unsigned row = threadIdx.x / TS16_CHUNKS_PER_ROW, c = (threadIdx.x % TS16_CHUNKS_PER_ROW) * TS16_CHUNK;
    for (size_t t = blockIdx.x; t < tiles_y * tiles_x; t += gridDim.x) {
        const size_t row0 = (t % tiles_y) * TS16_TILE, col0 = (t / tiles_y) * TS16_TILE;
        const size_t height = rows - row0 < TS16_TILE ? rows - row0 : TS16_TILE;
        const size_t width = cols - col0 < TS16_TILE ? cols - col0 : TS16_TILE;
        const bool whole = height == TS16_TILE && width == TS16_TILE;
        uint4 v[TS16_PASSES];
#pragma unroll
        for (unsigned p = 0; p < TS16_PASSES; ++p) {
            const unsigned r = row + p * TS16_ROWS_PER_PASS;
            if (Chunks && r < height && c < width)
                v[p] = reinterpret_cast<const uint4 *>(in)[((row0 + r) * cols + col0 + c) / TS16_CHUNK];
        }
#pragma unroll
        for (unsigned p = 0; p < TS16_PASSES; ++p) {
            const unsigned r = row + p * TS16_ROWS_PER_PASS;
            if (r >= height || c >= width)
                continue;
            if (Chunks && whole) {
                reinterpret_cast<uint4 *>(out)[ts16_out_at(rows, row0, col0, r, c, true) / TS16_CHUNK] = v[p];
                continue;
            }
#pragma unroll
            for (unsigned e = 0; e < TS16_CHUNK; ++e) {   // an edge tile, or rows not whole chunks: element by element
                if (c + e >= width)
                    break;
                const uint16_t x = Chunks ? ts16_element(v[p], e) : in[(row0 + r) * cols + col0 + c + e];
                out[ts16_out_at(rows, row0, col0, r, c + e, whole)] = x;
            }
        }
    }
}

/** @brief Launch transpose16_bound_swap_down(): 16-byte chunks where every row of `in` and `out` is whole aligned ones. */
static inline size_t swap_down16_launch(const uint16_t *in, uint16_t *out, size_t rows, size_t cols,
                                        cudaStream_t stream)
{
    const dim3 block(TS16_THREADS);
    const dim3 grid = grid_for_tiles(ceil_div(rows, TS16_TILE) * ceil_div(cols, TS16_TILE), 1);
    const bool chunks = rows % TS16_CHUNK == 0 && cols % TS16_CHUNK == 0 && is_aligned_16(in) && is_aligned_16(out);
    if (chunks)
        transpose16_bound_swap_down<true><<<grid, block, 0, stream>>>(in, out, rows, cols);
    else
        transpose16_bound_swap_down<false><<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

#endif /* TRANSPOSE_TILE_SWAP16_CUH */
