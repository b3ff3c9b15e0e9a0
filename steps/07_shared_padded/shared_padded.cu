/**
 * @file shared_padded.cu
 * @brief Step 07: the shared-memory tile of step 06 with one column of padding:
 *        no more bank conflicts.
 *
 * ## The idea
 * Declared one word wider, `float tile[32][33]`, element (r, c) of the
 * tile is word r * 33 + c, in bank (r + c) % 32. Going down a column adds
 * 1 to the bank at every row, so a column's 32 words land in 32 banks, and
 * so do a row's: both sides of the transpose take one pass per warp. The
 * 33rd column is never used; it costs 128 bytes per tile.
 *
 * ## What changed since step 06
 * One constant: each row of the tile is TILE + TILE_PADDING words long.
 *
 * ## Why padding is not always enough
 * `shared_padded_16x16` pads a 16x16 tile to 16x17, with 16 x 16 threads.
 * A warp is then two rows of the block, and with 17-word rows its two
 * halves meet in one bank: a 2-way conflict on both sides. Step 08 fixes
 * that case.
 *
 * ## What it assumes
 * As step 06: any M, N >= 1 and 4-byte-aligned pointers.
 *
 * ## Build and run
 *
 *     make step07
 *     ./build/step07 --shapes 8192x8192
 *     ./build/step07 --shapes 4096x4096 --variant shared_padded_16x16
 *
 * Write-up: docs/steps/07_shared_padded.md
 */
#include "harness.h"
#include "kernel_utils.cuh"

/** Number of shared-memory banks; also the number of threads in a warp. */
#define SMEM_BANKS 32
/** Extra words at the end of every tile row, so that a column spreads over the banks. */
#define TILE_PADDING 1

/**
 * @brief Transpose through a TILE x TILE shared-memory tile whose rows are
 *        padded by ::TILE_PADDING words.
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
transpose_shared_padded(const float *__restrict__ in, float *__restrict__ out,
                        size_t rows, size_t cols)
{
    static_assert(TILE % BLOCK_ROWS == 0, "each thread must move a whole number of tile rows");
    static_assert(SMEM_BANKS % TILE == 0, "a warp must cover whole rows of the tile");
    static_assert(TILE * BLOCK_ROWS <= 1024, "a block holds at most 1024 threads");

    // Row r starts at word r * (TILE + 1): one bank further on per row.
    __shared__ float tile[TILE][TILE + TILE_PADDING];

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
                    tile[r][threadIdx.x] = in[in_row * cols + in_col];
            }
            __syncthreads();   // the whole tile is loaded

            // Store: row (col0 + r) of `out` is column r of the tile. A warp
            // writes along a row of `out` (coalesced) and reads down a column
            // of `tile`: thanks to the padding, every bank once.
            const size_t out_col = row0 + threadIdx.x;   // column of `out` = row of `in`
#pragma unroll
            for (int i = 0; i < TILE / BLOCK_ROWS; ++i) {
                const unsigned r = threadIdx.y + i * BLOCK_ROWS;   // column inside the tile
                const size_t out_row = col0 + r;                   // row of `out` = column of `in`
                if (out_row < cols && out_col < rows)
                    out[out_row * rows + out_col] = tile[threadIdx.x][r];
            }
            __syncthreads();   // everyone is done reading before the next tile overwrites it
        }
    }
}

/**
 * @brief Launch transpose_shared_padded<TILE, BLOCK_ROWS>() over the whole
 *        matrix: one block per tile, clamped to the grid limits.
 */
template <int TILE, int BLOCK_ROWS>
static size_t launch_tiles(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    const dim3 block(TILE, BLOCK_ROWS);
    const dim3 grid = grid_for_tiles(ceil_div(cols, TILE), ceil_div(rows, TILE));
    transpose_shared_padded<TILE, BLOCK_ROWS><<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief 32x33 padded tile, 32x8 block: four elements per thread (the default). */
static size_t launch_32x8(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return launch_tiles<32, 8>(in, out, rows, cols, stream);
}

/** @brief 16x17 padded tile, 16x16 block: one element per thread; still 2-way conflicts. */
static size_t launch_16x16(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return launch_tiles<16, 16>(in, out, rows, cols, stream);
}

/** The kernels of step 07; the first is the default. */
static const kernel_variant variants[] = {
    {"shared_padded", "32x32 tile padded to 32x33, 32x8 block, 4 elements per thread; no bank conflicts",
     launch_32x8, ANY_GPU},
    {"shared_padded_16x16", "16x16 tile padded to 16x17, 16x16 block; still a 2-way bank conflict",
     launch_16x16, ANY_GPU},
};

STEP_DEFINE("Padded shared-memory tile: coalesced reads and writes, no bank conflicts", variants, NULL)
