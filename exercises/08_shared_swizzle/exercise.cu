/**
 * @file exercise.cu
 * @brief Exercise 08: step 08's XOR-swizzled tile, with the tiles taken in diagonal order.
 *
 * The block's work on one tile is step 08's. What is new is which tile a
 * block takes: the grid is one-dimensional, the tiles are numbered
 * t = 0, 1, 2, ..., and tile t is the t-th tile in *diagonal* order.
 *
 * The file also holds the control, complete: the same kernel with the tiles
 * in the usual row-major order. `GRADE_KERNEL=control` runs it in your
 * kernel's place (common/kernel_choice.h), so that the order is the only
 * difference you measure. The task, hints and what speed to expect are in
 * exercises/08_shared_swizzle/README.md.
 *
 * Grade: `make grade EX=08`. Until the TODO is done the kernel writes
 * nothing, and the grader reports FAIL.
 */
#include "harness.h"
#include "kernel_utils.cuh"
#include "kernel_choice.h"

/** Side of the square tile; also blockDim.x and the number of banks. */
#define TILE 32
/** Threads per block down the tile; each thread moves TILE / BLOCK_ROWS elements. */
#define BLOCK_ROWS 8

static_assert(TILE == 32, "the XOR swizzle c ^ r needs TILE == number of banks == 32");
static_assert(TILE % BLOCK_ROWS == 0, "the block's rows must cover the tile exactly");

// ---------------------------------------------------------------- the control (given)

/**
 * @brief The control, given complete: your kernel with the tiles in row-major
 *        order, tile t being (t / tiles_x, t % tiles_x).
 *
 * The same one-dimensional grid, the same swizzled tile, the same loop over
 * t: neighbouring blocks take neighbouring tiles of one tile row of `in`,
 * and write them into one tile column of `out`.
 */
static __global__ void transpose_swizzle_row_major(const float *__restrict__ in, float *__restrict__ out,
                                                   size_t rows, size_t cols)
{
    __shared__ float tile[TILE][TILE];
    const size_t tiles_y = ceil_div(rows, TILE);  // tiles down `in`
    const size_t tiles_x = ceil_div(cols, TILE);  // tiles along a row of `in`
    const size_t tiles = tiles_y * tiles_x;
    for (size_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        const size_t tile_row = t / tiles_x;  // tile's row among the tiles of `in`
        const size_t tile_col = t % tiles_x;  // tile's column: the next block takes the next one

        const size_t col = tile_col * TILE + threadIdx.x;  // column of `in`
#pragma unroll
        for (int i = 0; i < TILE; i += BLOCK_ROWS) {
            const int r = threadIdx.y + i;           // row inside the tile
            const size_t row = tile_row * TILE + r;  // row of `in`
            if (row < rows && col < cols)
                tile[r][threadIdx.x ^ r] = in[row * cols + col];  // element (r, x) goes to column x ^ r
        }
        __syncthreads();  // the whole tile is in shared memory

        const size_t out_col = tile_row * TILE + threadIdx.x;  // column of `out` = row of `in`
#pragma unroll
        for (int i = 0; i < TILE; i += BLOCK_ROWS) {
            const int r = threadIdx.y + i;               // row inside the tile
            const size_t out_row = tile_col * TILE + r;  // row of `out` = column of `in`
            if (out_row < cols && out_col < rows)
                out[out_row * rows + out_col] = tile[threadIdx.x][r ^ threadIdx.x];  // element (x, r)
        }
        __syncthreads();  // everyone is done with `tile` before the next tile overwrites it
    }
}

/** @brief Launch transpose_swizzle_row_major() on your kernel's grid: one-dimensional, one block per tile. */
static size_t launch_swizzle_row_major(const float *in, float *out, size_t rows, size_t cols,
                                       cudaStream_t stream)
{
    const dim3 block(TILE, BLOCK_ROWS);
    const dim3 grid = grid_for_tiles(ceil_div(rows, TILE) * ceil_div(cols, TILE), 1);
    transpose_swizzle_row_major<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

// ---------------------------------------------------------------- your kernel

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
    //    tile is stored at tile[r][c ^ r] and read back from there. The control
    //    above does exactly this for its own tile order.
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

// ---------------------------------------------------------------- what the grader runs

/** The kernels GRADE_KERNEL picks from; the first, yours, runs while it is unset. */
static const kernel_choice choices[] = {
    {"swizzle_diagonal", "your kernel: tiles in diagonal order", launch_swizzle_diagonal},
    {"control", "the control: the same kernel, tiles in row-major order (transpose_swizzle_row_major)",
     launch_swizzle_row_major},
};

/** @brief Launch the kernel GRADE_KERNEL picks: yours, unless it says `control`. */
KERNEL_CHOICE_LAUNCHER(launch_chosen, choices, "student")

/** @brief Your kernel, as the grader (lab/grade_main.cu) links it: not static. */
extern "C" const kernel_variant exercise_08 = {
    "swizzle_diagonal", "your kernel: XOR-swizzled 32x32 shared tile, tiles in diagonal order",
    launch_chosen, ANY_GPU,
};
