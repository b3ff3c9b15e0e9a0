/**
 * @file tiles_down.cuh
 * @brief Step 09's 16-byte tile taken down the columns of `in`, one tile
 *        per block: the float32 rule's tile kernel on a GPU where it
 *        measured ahead of step 09's (rules.h: the H200).
 *
 * Step 09's kernel takes its tiles along the rows of `in` and walks them
 * in grid-stride loops. Two changes:
 *
 * - **Order.** blockIdx.x runs down a column of tiles of `in`, so the
 *   blocks in flight write neighbouring 256-byte pieces of the same rows of
 *   `out`, the half of the pattern that costs DRAM least
 *   (docs/last-points.md, the bounds of the pattern).
 * - **No loops.** One block per tile, so the tile's position is two
 *   products of block indices: the kernel fits 32 registers, and a
 *   multiprocessor holds 8 blocks instead of step 09's 5. A grid past the
 *   limits (more than 65535 columns of tiles) would need the loops back;
 *   the launcher gives such a matrix step 09's kernel.
 *
 * Going down the columns, the blocks in flight read each row of `in` in
 * 256-byte pieces: on a matrix of few columns of tiles (50000 x 3000, 47 of
 * them) step 09's order, whose blocks read whole rows, led on the H100
 * (docs/appendix/12_tma.md).
 */
#ifndef TRANSPOSE_TILES_DOWN_CUH
#define TRANSPOSE_TILES_DOWN_CUH

#include <stddef.h>
#include <cuda_runtime.h>

#include "kernel_utils.cuh"
#include "steps/09_shared64/shared64.cuh"   // shared64_launch()
#include "steps/09_shared64/tile64.cuh"   // TILE, THREADS, chunk_slot(), store_block_vec4(), tile_extent(),
                                          // vec4_fits(), load_chunk_column()

/** Blocks per multiprocessor: all 8 that 2048 threads allow, at 32 registers a thread. */
#define TD_BLOCKS_PER_SM MAX_BLOCKS_PER_SM(THREADS)

/**
 * @brief Load a tile as step 09's kernel does: thread @p tid takes chunk
 *        tid % 16 of tile rows tid / 16, + 16, + 32 and + 48, all 4 loads
 *        before the first store into the chunk-swizzled tile.
 *
 * The tile starts at (@p row0, @p col0) and is @p height x @p width, both
 * multiples of 4 (vec4_fits()), so a chunk is wholly inside or outside it.
 */
static __device__ __forceinline__ void td_load_tile(float4 *tile, const float *__restrict__ in, size_t cols,
                                                    size_t row0, size_t col0, unsigned height, unsigned width,
                                                    unsigned tid)
{
    const unsigned row = tid / CHUNKS_PER_ROW, chunk = tid % CHUNKS_PER_ROW;
    if (chunk * VEC >= width)
        return;
    const float4 *in4 = reinterpret_cast<const float4 *>(in);   // rows of whole chunks on 16 bytes
    const size_t first = ((row0 + row) * cols + col0) / VEC + chunk, pass = ROWS_PER_PASS * cols / VEC;
    float4 v[TILE / ROWS_PER_PASS];
    load_chunk_column(v, in4, first, pass, row, height);
#pragma unroll
    for (unsigned p = 0; p < TILE / ROWS_PER_PASS; ++p)
        if (row + p * ROWS_PER_PASS < height)
            tile[chunk_slot(row + p * ROWS_PER_PASS, chunk)] = v[p];
}

/** @brief One 64x64 tile per block, tile (blockIdx.x, blockIdx.y) = (row, column) of tiles of `in`. */
static __global__ void __launch_bounds__(THREADS, TD_BLOCKS_PER_SM)
transpose_tiles_down(const float *__restrict__ in, float *__restrict__ out, size_t rows, size_t cols)
{
    __shared__ float4 tile[TILE * CHUNKS_PER_ROW];   // 16 KB, laid out by chunk_slot()
    const size_t row0 = (size_t)blockIdx.x * TILE, col0 = (size_t)blockIdx.y * TILE;
    const unsigned height = tile_extent(rows, row0), width = tile_extent(cols, col0);
    td_load_tile(tile, in, cols, row0, col0, height, width, threadIdx.x);
    __syncthreads();   // the whole tile is in shared memory
    store_block_vec4(tile, reinterpret_cast<float4 *>(out), rows, row0, col0, height, width, threadIdx.x);
}

/** @brief Whether one block per tile fits the grid's limits. */
static inline bool tiles_down_fit(size_t rows, size_t cols)
{
    return ceil_div(rows, TILE) <= MAX_GRID_X && ceil_div(cols, TILE) <= MAX_GRID_Y;
}

/**
 * @brief transpose_tiles_down() where vec4_fits() and the grid fits, else
 *        step 09's launch (its 16-byte kernel, or its 4-byte one).
 */
static inline size_t tiles_down_launch(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    if (!vec4_fits(in, out, rows, cols) || !tiles_down_fit(rows, cols))
        return shared64_launch(in, out, rows, cols, true, stream);
    const dim3 block(THREADS), grid((unsigned)ceil_div(rows, TILE), (unsigned)ceil_div(cols, TILE));
    transpose_tiles_down<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

#endif /* TRANSPOSE_TILES_DOWN_CUH */
