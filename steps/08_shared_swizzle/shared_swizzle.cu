/**
 * @file shared_swizzle.cu
 * @brief Step 08: an XOR swizzle instead of padding: no bank conflicts and
 *        no wasted shared memory.
 *
 * ## The idea
 * Keep the plain `float tile[32][32]` and move elements *within* their
 * row: element (r, c) is kept at column `c ^ r` of row r, in bank c ^ r.
 * For a fixed r (a row, loaded) and for a fixed c (a column, stored) the
 * XOR is one-to-one on 0..31, so both sides hit 32 different banks, and
 * each row still holds exactly its own 32 elements.
 *
 * ## What changed since step 07
 * The padding is gone; every access to the tile goes through
 * swizzled_col(). `shared_swizzle_16x16` is the 16x16 case padding could
 * not fix. The swizzle is not free: the compiler keeps one address per
 * element rather than one base plus constant offsets, so the kernel needs
 * more registers (`make profile STEP=08` shows them).
 *
 * ## What it assumes
 * As step 07: any M, N >= 1 and 4-byte-aligned pointers. The swizzle only
 * moves elements inside the tile, so the edge tests are step 07's.
 *
 * ## Build and run
 *
 *     make step08
 *     ./build/step08 --shapes 8192x8192
 *     ./build/step08 --shapes 4096x4096 --variant shared_swizzle_16x16
 *
 * Write-up: docs/steps/08_shared_swizzle.md
 */
#include "harness.h"
#include "kernel_utils.cuh"

/** Number of shared-memory banks; also the number of threads in a warp. */
#define SMEM_BANKS 32

/**
 * @brief Where element (r, c) of the tile is kept inside row r: column c ^ r.
 *
 * For a power-of-two TILE and r, c < TILE, c ^ r is again below TILE, and
 * for a fixed r (or a fixed c) the map is one-to-one: XOR with the same
 * value twice gives back the original, so two different c cannot land on
 * the same column.
 */
__device__ __forceinline__ unsigned swizzled_col(unsigned r, unsigned c)
{
    return c ^ r;
}

/**
 * @brief Transpose through a TILE x TILE shared-memory tile laid out with
 *        swizzled_col(): no padding, no bank conflicts.
 *
 * The block is TILE x BLOCK_ROWS threads; each thread moves TILE / BLOCK_ROWS
 * elements of a tile, one every BLOCK_ROWS rows. A template, so that the
 * variants run exactly the same code.
 *
 * @tparam TILE       side of the square tile; also blockDim.x
 * @tparam BLOCK_ROWS blockDim.y
 */
template <int TILE, int BLOCK_ROWS>
__global__ void __launch_bounds__(TILE * BLOCK_ROWS)
transpose_shared_swizzle(const float *__restrict__ in, float *__restrict__ out,
                         size_t rows, size_t cols)
{
    static_assert((TILE & (TILE - 1)) == 0, "XOR keeps a column inside the tile only for a power-of-two TILE");
    static_assert(TILE % BLOCK_ROWS == 0, "each thread must move a whole number of tile rows");
    static_assert(SMEM_BANKS % TILE == 0, "a warp must cover whole rows of the tile");
    static_assert(TILE * BLOCK_ROWS <= 1024, "a block holds at most 1024 threads");

    // Element (r, c) lives at tile[r][swizzled_col(r, c)].
    __shared__ float tile[TILE][TILE];

    const size_t tiles_y = ceil_div(rows, TILE);
    const size_t tiles_x = ceil_div(cols, TILE);
    for (size_t tile_y = blockIdx.y; tile_y < tiles_y; tile_y += gridDim.y) {
        for (size_t tile_x = blockIdx.x; tile_x < tiles_x; tile_x += gridDim.x) {
            const size_t row0 = tile_y * TILE;   // first row of `in` in this tile
            const size_t col0 = tile_x * TILE;   // first column of `in` in this tile

            // Load: a warp reads along a row of `in` (coalesced) and stores
            // along a row of `tile` (consecutive words: no conflict).
            const size_t in_col = col0 + threadIdx.x;
#pragma unroll
            for (int i = 0; i < TILE / BLOCK_ROWS; ++i) {
                const unsigned r = threadIdx.y + i * BLOCK_ROWS;   // row inside the tile
                const size_t in_row = row0 + r;                    // row of `in`
                if (in_row < rows && in_col < cols)
                    tile[r][swizzled_col(r, threadIdx.x)] = in[in_row * cols + in_col];
            }
            __syncthreads();   // the whole tile is loaded

            // Store: row (col0 + r) of `out` is column r of the tile. A warp
            // writes along a row of `out` (coalesced) and reads down a column
            // of `tile`: thanks to the swizzle, every bank once.
            const size_t out_col = row0 + threadIdx.x;   // column of `out` = row of `in`
#pragma unroll
            for (int i = 0; i < TILE / BLOCK_ROWS; ++i) {
                const unsigned r = threadIdx.y + i * BLOCK_ROWS;   // column inside the tile
                const size_t out_row = col0 + r;                   // row of `out` = column of `in`
                if (out_row < cols && out_col < rows)
                    out[out_row * rows + out_col] = tile[threadIdx.x][swizzled_col(threadIdx.x, r)];
            }
            __syncthreads();   // everyone is done reading before the next tile overwrites it
        }
    }
}

/**
 * @brief Launch transpose_shared_swizzle<TILE, BLOCK_ROWS>() over the whole
 *        matrix: one block per tile, clamped to the grid limits.
 */
template <int TILE, int BLOCK_ROWS>
static size_t launch_tiles(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    const dim3 block(TILE, BLOCK_ROWS);
    const dim3 grid = grid_for_tiles(ceil_div(cols, TILE), ceil_div(rows, TILE));
    transpose_shared_swizzle<TILE, BLOCK_ROWS><<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief 32x32 swizzled tile, 32x8 block: four elements per thread (the default). */
static size_t launch_32x8(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return launch_tiles<32, 8>(in, out, rows, cols, stream);
}

/** @brief 16x16 swizzled tile, 16x16 block: one element per thread; no conflicts either. */
static size_t launch_16x16(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return launch_tiles<16, 16>(in, out, rows, cols, stream);
}

/** The kernels of step 08; the first is the default. */
static const kernel_variant variants[] = {
    {"shared_swizzle", "32x32 tile with column c^r, 32x8 block, 4 elements per thread; no padding, no conflicts",
     launch_32x8, ANY_GPU},
    {"shared_swizzle_16x16", "16x16 tile with column c^r, 16x16 block; the case padding could not fix",
     launch_16x16, ANY_GPU},
};

STEP_DEFINE("XOR-swizzled shared-memory tile: no bank conflicts, no padding", variants, NULL)
