/**
 * @file tma_tile.cuh
 * @brief Step 12's tile: the geometry of the TMA boxes, the 128-byte
 *        swizzle the TMA unit applies, and how the threads write a tile out.
 *
 * Kept apart from the step so that tests/test_tiles.cu can run the store
 * side on the host, thread by thread, against a box laid out as the
 * CUDA programming guide describes `CU_TENSOR_MAP_SWIZZLE_128B`.
 */
#ifndef TRANSPOSE_TMA_TILE_CUH
#define TRANSPOSE_TMA_TILE_CUH

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime.h>

#include "kernel_utils.cuh"
#include "steps/09_shared64/tile64.cuh"   // TILE, VEC, THREADS: a tile is step 10's 64 x 64

/** Columns of a TMA box: 128 bytes, the widest a 128-byte swizzle allows. */
#define TMA_BOX_COLS 32
/** Boxes side by side in a tile: a tile is 64 x 64 floats, 16 KB. */
#define TMA_BOXES 2
/** Bytes of one box. */
#define TMA_BOX_BYTES (TILE * TMA_BOX_COLS * 4)
/** Bytes of one tile: one stage of the pipeline. */
#define TMA_TILE_BYTES (TMA_BOX_BYTES * TMA_BOXES)
/** Chunks in a 128-byte box row; the swizzle permutes them. */
#define TMA_CHUNKS_PER_BOX_ROW (TMA_BOX_COLS / VEC)
/** The 128-byte swizzle repeats every 1024 bytes: a stage must start on such a boundary. */
#define TMA_SWIZZLE_ALIGN 1024
/** Tiles in flight per block in the default variant. */
#define TMA_STAGES 4

static_assert(TMA_BOX_COLS * TMA_BOXES == TILE, "the boxes side by side make a square tile");
static_assert(THREADS == (TILE / VEC) * (TILE / VEC), "one thread per 4x4 block of the tile");

/**
 * @brief Byte offset of chunk @p chunk (0-7) of row @p row inside a box
 *        loaded with `CU_TENSOR_MAP_SWIZZLE_128B`: the chunk number is
 *        XORed with the row number mod 8.
 */
static __host__ __device__ __forceinline__ uint32_t swizzled_chunk(uint32_t row, uint32_t chunk)
{
    return row * (TMA_BOX_COLS * 4) + ((chunk ^ (row % 8)) * 16);
}

/**
 * @brief The 4-column group (@p b) and 4-row group (@p g) of the tile that
 *        thread @p tid moves (the lane order is explained at store_tile_tma()).
 */
static __host__ __device__ __forceinline__ void tma_thread_block(unsigned tid, unsigned *b, unsigned *g)
{
    const unsigned lane = tid % 32, warp = tid / 32;
    *b = lane % 4 + 4 * (warp / 2);   // 0..15
    *g = lane / 4 + 8 * (warp % 2);   // 0..15
}

/** @brief r[k] = tile row 4g + k, columns 4b .. 4b + 3, read from a stage of swizzled boxes. */
static __host__ __device__ __forceinline__ void read_tma_block(const unsigned char *stage, unsigned g, unsigned b,
                                                               float4 r[VEC])
{
    const unsigned char *box = stage + (b / TMA_CHUNKS_PER_BOX_ROW) * TMA_BOX_BYTES;
    const unsigned chunk = b % TMA_CHUNKS_PER_BOX_ROW;
UNROLL_ON_DEVICE
    for (unsigned k = 0; k < VEC; ++k)
        r[k] = *reinterpret_cast<const float4 *>(box + swizzled_chunk(g * VEC + k, chunk));
}

/**
 * @brief Write one tile from shared memory, transposed: thread (g, b)
 *        reads the 4x4 block at rows 4g.., columns 4b.. as 4 chunks, and
 *        writes its 4 columns as 4 chunks of `out` (step 10's way).
 *
 * Lanes: b % 4 runs fastest, then g % 8, so a quarter-warp reads rows of
 * two 4-row groups (row % 8 = k and k + 4) in chunks 0-3 or 4-7: after the
 * swizzle, 8 different bank groups. A warp writes 4 rows of `out`, 128
 * contiguous bytes each.
 */
static __host__ __device__ __forceinline__ void store_tile_tma(const unsigned char *stage, float4 *out4,
                                                               size_t rows, size_t row0, size_t col0,
                                                               unsigned height, unsigned width, unsigned tid)
{
    unsigned b, g;
    tma_thread_block(tid, &b, &g);
    if (g * VEC >= height)
        return;
    float4 r[VEC];
    read_tma_block(stage, g, b, r);
    const size_t row_chunks = rows / VEC;                                 // chunks per row of `out`
    const size_t first = ((col0 + b * VEC) * rows + row0 + g * VEC) / VEC;
    if (b * VEC >= width)
        return;
    const unsigned cols_here = width - b * VEC;   // columns of the tile from 4b on
    out4[first] = make_float4(r[0].x, r[1].x, r[2].x, r[3].x);
    if (cols_here > 1)
        out4[first + row_chunks] = make_float4(r[0].y, r[1].y, r[2].y, r[3].y);
    if (cols_here > 2)
        out4[first + 2 * row_chunks] = make_float4(r[0].z, r[1].z, r[2].z, r[3].z);
    if (cols_here > 3)
        out4[first + 3 * row_chunks] = make_float4(r[0].w, r[1].w, r[2].w, r[3].w);
}

#endif /* TRANSPOSE_TMA_TILE_CUH */
