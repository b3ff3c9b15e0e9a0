/**
 * @file naive.cu
 * @brief Step 01: the naive transpose. One thread per element, reads coalesced, writes strided.
 *
 * ## The idea
 * Transposing the row-major M x N matrix `in` into the row-major N x M
 * matrix `out` is one assignment per element,
 * `out[col * M + row] = in[row * N + col]`, so the most direct kernel gives
 * each element a thread. Blocks are 32 x 8 threads with `threadIdx.x` along
 * a row of `in`, so a warp handles 32 neighbouring elements of one row:
 * - its **reads** are 128 contiguous bytes, four whole 32-byte sectors:
 *   *coalesced*;
 * - its **writes** go to 32 addresses M * 4 bytes apart, a sector each for
 *   4 useful bytes: *strided*. The L2 merges the partial sectors before
 *   DRAM sees them.
 *
 * Step 02 swaps which side is coalesced. `--variant strided` is the floor:
 * warps walk tile diagonals, so neither side is coalesced.
 *
 * ## What it assumes
 * Any M, N >= 1. The grid is clamped to the hardware limits and blocks
 * walk tiles with grid-stride loops (kernel_utils.cuh), so 5,000,000 x 3
 * works; `size_t` indices take more than 2^31 elements.
 *
 * ## Build and run
 *
 *     make step01
 *     ./build/step01 --shapes 8192x8192
 *     make run STEP=01 ARGS="--shapes 4096x4096"
 *
 * Write-up: docs/steps/01_naive.md
 */
#include "harness.h"
#include "kernel_utils.cuh"

/** Threads per block along a row of the input (one warp). */
#define BLOCK_COLS 32
/** Rows of the input covered by one block. */
#define BLOCK_ROWS 8

/**
 * @brief One thread copies one element; a block covers a 8 x 32 patch of `in`.
 *
 * The two loops only matter when the matrix needs more blocks than the grid
 * limits allow; otherwise each runs exactly once.
 */
__global__ void transpose_naive(const float *in, float *out, size_t rows, size_t cols)
{
    const size_t tiles_y = ceil_div(rows, BLOCK_ROWS);
    const size_t tiles_x = ceil_div(cols, BLOCK_COLS);
    for (size_t tile_y = blockIdx.y; tile_y < tiles_y; tile_y += gridDim.y) {
        for (size_t tile_x = blockIdx.x; tile_x < tiles_x; tile_x += gridDim.x) {
            const size_t row = tile_y * BLOCK_ROWS + threadIdx.y;  // row of `in`
            const size_t col = tile_x * BLOCK_COLS + threadIdx.x;  // column of `in`
            if (row < rows && col < cols)
                out[col * rows + row] = in[row * cols + col];      // coalesced read, strided write
        }
    }
}

/** @brief Launch transpose_naive() over the whole matrix. */
static size_t launch_naive(const float *in, float *out, size_t rows, size_t cols,
                           cudaStream_t stream)
{
    const dim3 block(BLOCK_COLS, BLOCK_ROWS);
    const dim3 grid = grid_for_tiles(ceil_div(cols, BLOCK_COLS), ceil_div(rows, BLOCK_ROWS));
    transpose_naive<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** Side of the square tile that transpose_strided() walks: a warp's lanes take one row each. */
#define DIAGONAL_TILE BLOCK_COLS

/**
 * @brief The floor: each warp walks a diagonal of a 32 x 32 tile, so that
 *        neither its reads nor its writes are coalesced.
 *
 * Lane l of the warp on diagonal d moves tile element (l, (l + d) % 32):
 * from one lane to the next, the row and the column both grow by one, so
 * the warp's reads are cols + 1 floats apart and its writes rows + 1 apart,
 * a sector each on both sides unless the matrix is only a few floats wide
 * or tall. Row l meets each of the 32 columns on exactly one diagonal, so
 * the 32 diagonals cover the tile once; the bounds check keeps the elements
 * that exist. A block of 32 x 8 threads walks 4 diagonals per warp.
 */
__global__ void transpose_strided(const float *in, float *out, size_t rows, size_t cols)
{
    static_assert(DIAGONAL_TILE % BLOCK_ROWS == 0, "each warp must walk whole diagonals");
    const size_t tiles_y = ceil_div(rows, DIAGONAL_TILE);
    const size_t tiles_x = ceil_div(cols, DIAGONAL_TILE);
    for (size_t tile_y = blockIdx.y; tile_y < tiles_y; tile_y += gridDim.y) {
        for (size_t tile_x = blockIdx.x; tile_x < tiles_x; tile_x += gridDim.x) {
            const size_t row = tile_y * DIAGONAL_TILE + threadIdx.x;  // lane l takes tile row l
            const size_t col0 = tile_x * DIAGONAL_TILE;               // first column of the tile
            for (unsigned d = threadIdx.y; d < DIAGONAL_TILE; d += BLOCK_ROWS) {  // diagonal d
                const size_t col = col0 + (threadIdx.x + d) % DIAGONAL_TILE;
                if (row < rows && col < cols)
                    out[col * rows + row] = in[row * cols + col];  // strided read, strided write
            }
        }
    }
}

/** @brief Launch transpose_strided(): 32 x 8 blocks, one 32 x 32 tile per block. */
static size_t launch_strided(const float *in, float *out, size_t rows, size_t cols,
                             cudaStream_t stream)
{
    const dim3 block(DIAGONAL_TILE, BLOCK_ROWS);
    const dim3 grid = grid_for_tiles(ceil_div(cols, DIAGONAL_TILE), ceil_div(rows, DIAGONAL_TILE));
    transpose_strided<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** The kernels of step 01; the first is the default. */
static const kernel_variant variants[] = {
    {"naive", "one thread per element in 32x8 blocks; coalesced reads, strided writes",
     launch_naive, ANY_GPU},
    {"strided", "the floor: warps walk 32x32 tile diagonals; strided reads, strided writes",
     launch_strided, ANY_GPU},
};

STEP_DEFINE("Naive transpose: coalesced reads, strided writes", variants, NULL)
