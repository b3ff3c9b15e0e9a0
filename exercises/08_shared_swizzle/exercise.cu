/**
 * @file exercise.cu
 * @brief Exercise 08: step 08's XOR-swizzled tile, with the tiles taken in diagonal order.
 *
 * The block's work on one tile is step 08's. What is new is which tile a
 * block takes: the grid is one-dimensional, the tiles are numbered
 * t = 0, 1, 2, ..., and tile t is the t-th tile in *diagonal* order. The task,
 * hints and what speed to expect are in exercises/08_shared_swizzle/README.md.
 *
 * Grade: `make grade EX=08`. Until the TODO is done the kernel writes
 * nothing, and the grader reports FAIL.
 */
#include "harness.h"
#include "kernel_utils.cuh"

/** Side of the square tile; also blockDim.x and the number of banks. */
#define TILE 32
/** Threads per block down the tile; each thread moves TILE / BLOCK_ROWS elements. */
#define BLOCK_ROWS 8

static_assert(TILE == 32, "the XOR swizzle c ^ r needs TILE == number of banks == 32");
static_assert(TILE % BLOCK_ROWS == 0, "the block's rows must cover the tile exactly");

/**
 * @brief Transpose through an XOR-swizzled TILE x TILE shared tile; tile t of
 *        the one-dimensional tile numbering is taken in diagonal order.
 */
static __global__ void transpose_swizzle_diagonal(const float *__restrict__ in, float *__restrict__ out,
                                                  size_t rows, size_t cols)
{
    // TODO(exercise 08):
    //  - tiles_y = tiles down `in`, tiles_x = tiles along a row of `in`;
    //    loop t from blockIdx.x to tiles_y * tiles_x - 1 in steps of gridDim.x.
    //  - Diagonal order: tile_row = t % tiles_y,
    //    tile_col = (t / tiles_y + tile_row) % tiles_x.
    //    Check on paper, for a 2 x 3 grid of tiles, that every tile comes up once.
    //  - Then step 08's work on tile (tile_row, tile_col): element (r, c) of the
    //    tile is stored at tile[r][c ^ r] and read back from there.
    //  - Two __syncthreads() per tile.
    (void)in;
    (void)out;
    (void)rows;
    (void)cols;
}

/** @brief Launch transpose_swizzle_diagonal() on a one-dimensional grid, one block per tile. */
static size_t launch_swizzle_diagonal(const float *in, float *out, size_t rows, size_t cols,
                                      cudaStream_t stream)
{
    const dim3 block(TILE, BLOCK_ROWS);
    const dim3 grid = grid_for_tiles(ceil_div(rows, TILE) * ceil_div(cols, TILE), 1);
    transpose_swizzle_diagonal<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief Your kernel, as the grader (tools/grade_main.cu) links it: not static. */
extern "C" const kernel_variant exercise_08 = {
    "swizzle_diagonal", "your kernel: XOR-swizzled 32x32 shared tile, tiles in diagonal order",
    launch_swizzle_diagonal, ANY_GPU,
};
