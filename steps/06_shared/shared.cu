/**
 * @file shared.cu
 * @brief Step 06: stage a tile in shared memory so that reads AND writes are coalesced.
 *        The bank conflicts are left in on purpose.
 *
 * ## The idea
 * A block reads a TILE x TILE square of `in` row by row (coalesced) into
 * `tile[TILE][TILE]`, waits at `__syncthreads()`, then writes the square to
 * `out` row by row (coalesced), taking each row of `out` from a *column*
 * of the tile.
 *
 * ## What changed since step 05
 * Shared memory instead of a register transpose; 4-byte accesses again.
 *
 * ## The catch: bank conflicts
 * Shared word i lives in bank i % 32, and a warp's access takes one pass
 * only if its 32 words lie in 32 banks. `tile[r][c]` is in bank c, so a
 * column of a 32-wide tile sits in ONE bank: reading it is a 32-way
 * conflict, which steps 07 and 08 remove. Smaller tiles (`shared_16x16`,
 * `shared_8x8`) conflict less but give each block less work.
 * `shared_copy` is the bound: a copy through the same tile.
 *
 * ## What it assumes
 * Any M, N >= 1 and 4-byte-aligned pointers; edge tiles move only the
 * elements that exist.
 *
 * ## Build and run
 *
 *     make step06
 *     ./build/step06 --shapes 8192x8192
 *     ./build/step06 --shapes 4096x4096 --variant shared_8x8
 *
 * Write-up: docs/steps/06_shared.md
 */
#include "harness.h"
#include "kernel_utils.cuh"

/** Number of shared-memory banks; also the number of threads in a warp. */
#define SMEM_BANKS 32

/**
 * @brief Transpose through a TILE x TILE shared-memory tile, without padding.
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
transpose_shared(const float *__restrict__ in, float *__restrict__ out,
                 size_t rows, size_t cols)
{
    static_assert(TILE % BLOCK_ROWS == 0, "each thread must move a whole number of tile rows");
    static_assert(SMEM_BANKS % TILE == 0, "a warp must cover whole rows of the tile");
    static_assert(TILE * BLOCK_ROWS <= 1024, "a block holds at most 1024 threads");

    // Row r starts at word r * TILE: every row starts in bank 0.
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
                    tile[r][threadIdx.x] = in[in_row * cols + in_col];
            }
            __syncthreads();   // the whole tile is loaded

            // Store: row (col0 + r) of `out` is column r of the tile. A warp
            // writes along a row of `out` (coalesced) but reads down a column
            // of `tile`: TILE words that are TILE apart, the bank conflict.
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
 * @brief The bound of this step: a COPY (out = in, rows x cols, not
 *        transposed) through the same tile, block and barriers as
 *        transpose_shared(), so it costs all that kernel costs except the
 *        transposition itself (and with it the bank conflict).
 *
 * The load is transpose_shared()'s, line for line. The store writes row r
 * of the tile back to row (row0 + r): a warp reads a row of `tile` (no
 * conflict) and writes a row of `out` (coalesced). The variant is declared
 * ::OUTPUT_COPY, so the harness checks it against the input and reports it
 * as a bound. Named transpose_* like every step kernel, so that
 * `make profile` (which profiles the kernels matching "transpose") sees it.
 */
template <int TILE, int BLOCK_ROWS>
__global__ void __launch_bounds__(TILE * BLOCK_ROWS)
transpose_bound_shared_copy(const float *__restrict__ in, float *__restrict__ out,
                            size_t rows, size_t cols)
{
    static_assert(TILE % BLOCK_ROWS == 0, "each thread must move a whole number of tile rows");
    __shared__ float tile[TILE][TILE];

    const size_t tiles_y = ceil_div(rows, TILE);
    const size_t tiles_x = ceil_div(cols, TILE);
    for (size_t tile_y = blockIdx.y; tile_y < tiles_y; tile_y += gridDim.y) {
        for (size_t tile_x = blockIdx.x; tile_x < tiles_x; tile_x += gridDim.x) {
            const size_t row0 = tile_y * TILE;   // first row of `in` in this tile
            const size_t col0 = tile_x * TILE;   // first column of `in` in this tile

            // Load: exactly as transpose_shared() does.
            const size_t in_col = col0 + threadIdx.x;
#pragma unroll
            for (int i = 0; i < TILE / BLOCK_ROWS; ++i) {
                const unsigned r = threadIdx.y + i * BLOCK_ROWS;   // row inside the tile
                const size_t in_row = row0 + r;                    // row of `in`
                if (in_row < rows && in_col < cols)
                    tile[r][threadIdx.x] = in[in_row * cols + in_col];
            }
            __syncthreads();   // the whole tile is loaded

            // Store: the same element goes back to the same place, now in `out`.
#pragma unroll
            for (int i = 0; i < TILE / BLOCK_ROWS; ++i) {
                const unsigned r = threadIdx.y + i * BLOCK_ROWS;   // row inside the tile
                const size_t out_row = row0 + r;                   // row of `out` = row of `in`
                if (out_row < rows && in_col < cols)
                    out[out_row * cols + in_col] = tile[r][threadIdx.x];
            }
            __syncthreads();   // everyone is done reading before the next tile overwrites it
        }
    }
}

/**
 * @brief Launch transpose_shared<TILE, BLOCK_ROWS>() over the whole matrix:
 *        one block per tile, clamped to the grid limits.
 */
template <int TILE, int BLOCK_ROWS>
static size_t launch_tiles(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    const dim3 block(TILE, BLOCK_ROWS);
    const dim3 grid = grid_for_tiles(ceil_div(cols, TILE), ceil_div(rows, TILE));
    transpose_shared<TILE, BLOCK_ROWS><<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief 32x32 tile, 32x8 block: four elements per thread (the default). */
static size_t launch_32x8(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return launch_tiles<32, 8>(in, out, rows, cols, stream);
}

/** @brief 32x32 tile, 32x32 block: one element per thread. */
static size_t launch_32x32(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return launch_tiles<32, 32>(in, out, rows, cols, stream);
}

/** @brief 16x16 tile, 16x16 block: one element per thread. */
static size_t launch_16x16(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return launch_tiles<16, 16>(in, out, rows, cols, stream);
}

/** @brief 8x8 tile, 8x8 block: one element per thread. */
static size_t launch_8x8(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return launch_tiles<8, 8>(in, out, rows, cols, stream);
}

/** @brief The bound: transpose_bound_shared_copy() with shared_32x8's tile and block. */
static size_t launch_shared_copy(const float *in, float *out, size_t rows, size_t cols,
                                 cudaStream_t stream)
{
    constexpr int TILE = 32, BLOCK_ROWS = 8;   // those of shared_32x8, the default
    const dim3 block(TILE, BLOCK_ROWS);
    const dim3 grid = grid_for_tiles(ceil_div(cols, TILE), ceil_div(rows, TILE));
    transpose_bound_shared_copy<TILE, BLOCK_ROWS><<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** The kernels of step 06; the first is the default. */
static const kernel_variant variants[] = {
    {"shared_32x8", "32x32 shared tile, 32x8 block, 4 elements per thread; 32-way bank conflict",
     launch_32x8, ANY_GPU},
    {"shared_32x32", "32x32 shared tile, 32x32 block, 1 element per thread; 32-way bank conflict",
     launch_32x32, ANY_GPU},
    {"shared_16x16", "16x16 shared tile, 16x16 block, 1 element per thread; 8-way bank conflict",
     launch_16x16, ANY_GPU},
    {"shared_8x8", "8x8 shared tile, 8x8 block, 1 element per thread; 2-way bank conflict",
     launch_8x8, ANY_GPU},
    {"shared_copy", "the bound: out = in, a COPY through shared_32x8's tile, block and barriers",
     launch_shared_copy, ANY_GPU, OUTPUT_COPY},
};

STEP_DEFINE("Shared-memory tile: coalesced reads and writes, bank conflicts left in", variants, NULL)
