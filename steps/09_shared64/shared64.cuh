/**
 * @file shared64.cuh
 * @brief Step 09's two kernels: a 64x64 tile moved with float4 loads and
 *        stores through a chunk-swizzled shared tile, and the same tile
 *        moved with 4-byte accesses for any shape. Step 09 teaches them
 *        (steps/09_shared64/shared64.cu); they live here because the
 *        capstone's float32 rule runs them too (steps/14_dispatch/dispatch_f32.cuh).
 */
#ifndef TRANSPOSE_SHARED64_CUH
#define TRANSPOSE_SHARED64_CUH

#include <stddef.h>
#include <cuda_runtime.h>

#include "kernel_utils.cuh"
#include "tile64.cuh"   // TILE, VEC, the block shape, chunk_slot(), store_float4(), vec4_fits(),
                        // transpose_tile_words()

/**
 * @brief The 16-byte kernel: 4 float4 loads and 4 float4 stores per thread
 *        and tile, through a chunk-swizzled 64x64 shared tile.
 *
 * Only valid when vec4_fits() (the launcher checks): then a tile's height
 * and width are multiples of 4 and edge tiles need only a per-chunk check.
 */
static __global__ void __launch_bounds__(THREADS, REGISTER_LOAD_BLOCKS_PER_SM)
transpose_shared64_vec4(const float *__restrict__ in, float *__restrict__ out,
                        size_t rows, size_t cols)
{
    __shared__ float4 tile[TILE * CHUNKS_PER_ROW];   // 16 KB, laid out by chunk_slot()

    const unsigned tid = threadIdx.y * BLOCK_COLS + threadIdx.x;   // 0..255
    // Load role: row tid / 16 (+ 16 per pass), chunk tid % 16, so a warp
    // reads 2 rows x 256 contiguous bytes.
    const unsigned load_row = tid / CHUNKS_PER_ROW;    // row inside the tile, first pass
    const unsigned load_chunk = tid % CHUNKS_PER_ROW;  // chunk (4 columns) inside the tile
    // Store role: one 4x4 block of the tile, chosen by store_block_vec4() from tid.
    // `out` as float4s: 16-byte aligned, and rows % 4 == 0 makes each of its rows whole float4s.
    float4 *out4 = reinterpret_cast<float4 *>(out);

    const size_t tiles_y = ceil_div(rows, TILE);
    const size_t tiles_x = ceil_div(cols, TILE);
    for (size_t tile_y = blockIdx.y; tile_y < tiles_y; tile_y += gridDim.y) {
        for (size_t tile_x = blockIdx.x; tile_x < tiles_x; tile_x += gridDim.x) {
            const size_t row0 = tile_y * TILE;                 // first row of `in` in this tile
            const size_t col0 = tile_x * TILE;                 // first column of `in` in this tile
            const unsigned height = tile_extent(rows, row0);   // a multiple of 4
            const unsigned width = tile_extent(cols, col0);    // a multiple of 4

            // Load: all 4 loads are issued before the first shared store
            // waits for its data.
            const float *src = in + (row0 + load_row) * cols + col0 + load_chunk * VEC;
            const bool chunk_in = load_chunk * VEC < width;
            float4 v[TILE / ROWS_PER_PASS];
#pragma unroll
            for (unsigned p = 0; p < TILE / ROWS_PER_PASS; ++p)
                if (chunk_in && load_row + p * ROWS_PER_PASS < height)
                    v[p] = *reinterpret_cast<const float4 *>(src + p * ROWS_PER_PASS * cols);
#pragma unroll
            for (unsigned p = 0; p < TILE / ROWS_PER_PASS; ++p)
                if (chunk_in && load_row + p * ROWS_PER_PASS < height)
                    tile[chunk_slot(load_row + p * ROWS_PER_PASS, load_chunk)] = v[p];
            __syncthreads();   // the whole tile is in shared memory

            // Store: read the 4x4 block as 4 rows, write it as 4 columns.
            store_block_vec4(tile, out4, rows, row0, col0, height, width, tid);
            __syncthreads();   // everyone is done reading before the next tile overwrites it
        }
    }
}

/**
 * @brief The 4-byte kernel: the same 64x64 tile and 32x8 block for any shape
 *        and any 4-byte-aligned pointers, with 16 loads in flight per thread
 *        (transpose_tile_words() in tile64.cuh).
 */
static __global__ void __launch_bounds__(THREADS, REGISTER_LOAD_BLOCKS_PER_SM)
transpose_shared64_scalar(const float *__restrict__ in, float *__restrict__ out,
                          size_t rows, size_t cols)
{
    __shared__ float tile[TILE * TILE];   // 16 KB, laid out by word_slot()

    const size_t tiles_y = ceil_div(rows, TILE);
    const size_t tiles_x = ceil_div(cols, TILE);
    for (size_t tile_y = blockIdx.y; tile_y < tiles_y; tile_y += gridDim.y)
        for (size_t tile_x = blockIdx.x; tile_x < tiles_x; tile_x += gridDim.x)
            transpose_tile_words<load_through_registers>(tile, in, out, rows, cols, tile_y * TILE,
                                                         tile_x * TILE, threadIdx.x, threadIdx.y);
}

/**
 * @brief Launch one 32x8 block per 64x64 tile, tiles along rows (blockIdx.x
 *        runs along a row of tiles), the grid clamped to its limits: the
 *        16-byte kernel when @p vectors and vec4_fits(), else the 4-byte one.
 */
static inline size_t shared64_launch(const float *in, float *out, size_t rows, size_t cols, bool vectors,
                                     cudaStream_t stream)
{
    const dim3 block(BLOCK_COLS, BLOCK_ROWS);
    const dim3 grid = grid_for_tiles(ceil_div(cols, TILE), ceil_div(rows, TILE));
    if (vectors && vec4_fits(in, out, rows, cols))
        transpose_shared64_vec4<<<grid, block, 0, stream>>>(in, out, rows, cols);
    else
        transpose_shared64_scalar<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

#endif /* TRANSPOSE_SHARED64_CUH */
