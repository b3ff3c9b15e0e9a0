/**
 * @file solution.cu
 * @brief Reference solution to exercise 08: step 08's XOR-swizzled tile, with the tiles visited
 *        in diagonal order.
 *
 * Inside a block nothing is new: a 32 x 8 block moves a 32 x 32 tile through
 * shared memory, storing element (r, c) at `tile[r][c ^ r]` so that both a
 * row and a column of the tile fall in 32 different banks (step 08).
 *
 * What changes is which tile a block takes. The grid is one-dimensional and
 * numbers the tiles t = 0, 1, 2, ...; the usual order would give block t the
 * tile (t / tiles_x, t % tiles_x): neighbouring blocks read neighbouring
 * tiles of one tile row of `in` and write into one tile *column* of `out`,
 * at the same columns of output rows 32 apart (32 * M * 4 bytes). The
 * diagonal order
 *
 *     tile_row = t % tiles_y
 *     tile_col = (t / tiles_y + tile_row) % tiles_x
 *
 * gives neighbouring blocks tiles one step down *and* one step right, so
 * both their reads and their writes are spread over different regions of
 * memory. It is a one-to-one map of 0 .. tiles_y * tiles_x - 1 onto the
 * tiles for any tiles_y and tiles_x (given the tile, t / tiles_y is
 * (tile_col - tile_row) mod tiles_x and t % tiles_y is tile_row), so every
 * tile is still done exactly once. On GPUs that mapped address ranges to
 * memory channels directly this removed "partition camping"; GPUs since
 * then hash addresses over the channels, and the exercise measures whether
 * the trick still buys anything.
 *
 * The control kernel, transpose_swizzle_row_major(), is the skeleton's,
 * unchanged: this kernel with the tiles in row-major order. The grader's
 * reference is `solution_08` alone; in exercise.cu, `GRADE_KERNEL=control`
 * runs the control in the student's row, timed beside this kernel.
 *
 * Task: exercises/08_shared_swizzle/README.md. Grade: `make grade EX=08`.
 */
#include "harness.h"
#include "kernel_utils.cuh"

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

// ---------------------------------------------------------------- the answer

/**
 * @brief Transpose through an XOR-swizzled TILE x TILE shared tile; tile t of
 *        the one-dimensional tile numbering is taken in diagonal order.
 */
static __global__ void transpose_swizzle_diagonal(const float *__restrict__ in, float *__restrict__ out,
                                                  size_t rows, size_t cols)
{
    __shared__ float tile[TILE][TILE];
    const size_t tiles_y = ceil_div(rows, TILE);  // tiles down `in`
    const size_t tiles_x = ceil_div(cols, TILE);  // tiles along a row of `in`
    const size_t tiles = tiles_y * tiles_x;
    for (size_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        const size_t tile_row = t % tiles_y;                         // tile's row among the tiles of `in`
        const size_t tile_col = (t / tiles_y + tile_row) % tiles_x;  // tile's column: one step right per step down

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

/**
 * The control as a variant, unused here: the grader links `solution_08` as the
 * reference, and the control runs only from exercise.cu (GRADE_KERNEL=control).
 */
[[maybe_unused]] static const kernel_variant control = {
    "swizzle_row_major", "the control: the same kernel, tiles in row-major order",
    launch_swizzle_row_major, ANY_GPU,
};

/** @brief The reference kernel, as the grader (lab/grade_main.cu) links it: not static. */
extern "C" const kernel_variant solution_08 = {
    "swizzle_diagonal", "XOR-swizzled 32x32 shared tile, 32x8 block, tiles taken in diagonal order",
    launch_swizzle_diagonal, ANY_GPU,
};
