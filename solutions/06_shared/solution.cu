/**
 * @file solution.cu
 * @brief Reference solution to exercise 06: step 06's shared tile with the transposition moved
 *        to the other side, so that the bank conflict is on the shared-memory store.
 *
 * Step 06 stores each row of `in` into a row of `tile` and transposes when
 * it reads the tile back, by columns: the 32-way bank conflict is on the
 * shared-memory *load*. Here the block transposes on the way in: a warp
 * reads a row of `in` (coalesced, as before) and stores it into a *column*
 * of `tile`, `tile[x][r]`; afterwards it reads the tile by rows and writes
 * each row as a row of `out` (coalesced, as before). The 32 words of a
 * column of the unpadded `float tile[32][32]` all sit in one bank, so the
 * conflict moves to the shared-memory *store*, 32-way, and the load becomes
 * conflict-free. The global-memory traffic is exactly step 06's.
 *
 * Task: exercises/06_shared/README.md. Grade: `make grade EX=06`.
 */
#include "harness.h"
#include "kernel_utils.cuh"

/** Side of the square tile; also blockDim.x. */
#define TILE 32
/** Threads per block down the tile; each thread moves TILE / BLOCK_ROWS elements. */
#define BLOCK_ROWS 8

static_assert(TILE % BLOCK_ROWS == 0, "the block's rows must cover the tile exactly");

/**
 * @brief Transpose through an unpadded TILE x TILE shared tile, transposing
 *        on the store into shared memory (step 06 transposes on the load).
 */
static __global__ void transpose_shared_store_side(const float *__restrict__ in, float *__restrict__ out,
                                                   size_t rows, size_t cols)
{
    __shared__ float tile[TILE][TILE];  // no padding: tile[r][c] is in bank c
    const size_t tiles_y = ceil_div(rows, TILE);  // tiles down `in`
    const size_t tiles_x = ceil_div(cols, TILE);  // tiles along a row of `in`
    for (size_t tile_y = blockIdx.y; tile_y < tiles_y; tile_y += gridDim.y) {
        for (size_t tile_x = blockIdx.x; tile_x < tiles_x; tile_x += gridDim.x) {
            // In: a warp reads along a row of `in` and stores down a column
            // of `tile`: 32 words 32 apart, all in bank r: a 32-way conflict.
            const size_t col = tile_x * TILE + threadIdx.x;  // column of `in`
#pragma unroll
            for (int i = 0; i < TILE; i += BLOCK_ROWS) {
                const int r = threadIdx.y + i;         // row inside the tile
                const size_t row = tile_y * TILE + r;  // row of `in`
                if (row < rows && col < cols)
                    tile[threadIdx.x][r] = in[row * cols + col];  // element (r, x) kept at [x][r]
            }
            __syncthreads();  // the whole tile is in shared memory

            // Out: row r of the tile is now column r of the input tile, which
            // is a row of `out`; a warp reads consecutive words (no conflict).
            const size_t out_col = tile_y * TILE + threadIdx.x;  // column of `out` = row of `in`
#pragma unroll
            for (int i = 0; i < TILE; i += BLOCK_ROWS) {
                const int r = threadIdx.y + i;               // row of the transposed tile
                const size_t out_row = tile_x * TILE + r;    // row of `out` = column of `in`
                if (out_row < cols && out_col < rows)
                    out[out_row * rows + out_col] = tile[r][threadIdx.x];
            }
            __syncthreads();  // everyone is done with `tile` before the next tile overwrites it
        }
    }
}

/** @brief Launch transpose_shared_store_side() with 32 x 8 blocks, one tile each. */
static size_t launch_shared_store_side(const float *in, float *out, size_t rows, size_t cols,
                                       cudaStream_t stream)
{
    const dim3 block(TILE, BLOCK_ROWS);
    const dim3 grid = grid_for_tiles(ceil_div(cols, TILE), ceil_div(rows, TILE));
    transpose_shared_store_side<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief The reference kernel, as the grader (lab/grade_main.cu) links it: not static. */
extern "C" const kernel_variant solution_06 = {
    "shared_store_side", "32x32 unpadded shared tile, transposed on the store: 32-way conflict on STS, not LDS",
    launch_shared_store_side, ANY_GPU,
};
