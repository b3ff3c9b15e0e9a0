// Caught by: Correctness (GRADE_KERNEL=block32x8: the first kernel steps through the tile 16 rows at a time whatever its block height, so a 32 x 8 block leaves half the tile unloaded)
/**
 * @file 07_fixed_block_rows.cu
 * @brief Exercise 07 whose first kernel hard-codes the graded block height: its loops
 *        step `i += 16` instead of `i += ROWS`.
 *
 * With the graded 32 x 16 block that is the same thing, and every graded shape passes;
 * the grader's run with a 32 x 8 block (GRADE_KERNEL=block32x8) loads only half of each
 * tile and writes what was left in shared memory for the other half. The second kernel
 * is right. tests/test_grader.py grades it.
 */
#include "harness.h"
#include "kernel_utils.cuh"
#include "kernel_choice.h"

/** Side of the square tile; also blockDim.x. */
#define TILE 32
/** Threads per block down the tile in the graded kernel; the grader also runs 8 and 32. */
#define BLOCK_ROWS 16
/** One padding column: a column of the tile then spans all 32 banks. */
#define PAD 1

/** Rows of the second kernel's tile: as many as its 32 x 16 block has, one element per thread. */
#define SHORT_ROWS 16
/** Padding of the second kernel's SHORT_ROWS x TILE tile, in floats per row (derived: 2). */
#define SHORT_PAD 2

// ---------------------------------------------------------------- the first kernel

/**
 * @brief Transpose through a padded TILE x TILE shared tile with a
 *        TILE x ROWS block, TILE / ROWS elements per thread.
 * @tparam ROWS threads per block down the tile: BLOCK_ROWS (16) in the graded
 *         kernel; the grader runs 8 and 32 too.
 */
template <int ROWS>
static __global__ void transpose_shared_padded(const float *__restrict__ in, float *__restrict__ out,
                                               size_t rows, size_t cols)
{
    static_assert(TILE % ROWS == 0, "the block's rows must cover the tile exactly");
    // The planted mistake: the loops below step 16 rows, whatever ROWS is.
    __shared__ float tile[TILE][TILE + PAD];
    const size_t tiles_y = ceil_div(rows, TILE);  // tiles down `in`
    const size_t tiles_x = ceil_div(cols, TILE);  // tiles along a row of `in`
    for (size_t tile_y = blockIdx.y; tile_y < tiles_y; tile_y += gridDim.y) {
        for (size_t tile_x = blockIdx.x; tile_x < tiles_x; tile_x += gridDim.x) {
            const size_t col = tile_x * TILE + threadIdx.x;  // column of `in`
#pragma unroll
            for (int i = 0; i < TILE; i += 16) {
                const int r = threadIdx.y + i;               // row inside the tile
                const size_t row = tile_y * TILE + r;        // row of `in`
                if (row < rows && col < cols)
                    tile[r][threadIdx.x] = in[row * cols + col];  // coalesced read
            }
            __syncthreads();  // the whole tile is in shared memory

            const size_t out_col = tile_y * TILE + threadIdx.x;  // column of `out` = row of `in`
#pragma unroll
            for (int i = 0; i < TILE; i += 16) {
                const int r = threadIdx.y + i;                   // row inside the tile
                const size_t out_row = tile_x * TILE + r;        // row of `out` = column of `in`
                if (out_row < cols && out_col < rows)
                    out[out_row * rows + out_col] = tile[threadIdx.x][r];  // conflict-free column, coalesced write
            }
            __syncthreads();  // everyone is done with `tile` before the next tile overwrites it
        }
    }
}

/** @brief Launch transpose_shared_padded<ROWS>() with TILE x ROWS blocks, one tile each. */
template <int ROWS>
static size_t launch_shared_padded(const float *in, float *out, size_t rows, size_t cols,
                                   cudaStream_t stream)
{
    const dim3 block(TILE, ROWS);
    const dim3 grid = grid_for_tiles(ceil_div(cols, TILE), ceil_div(rows, TILE));
    transpose_shared_padded<ROWS><<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

// ---------------------------------------------------------------- the second kernel

/**
 * @brief Transpose through a padded SHORT_ROWS x TILE shared tile with a
 *        TILE x SHORT_ROWS block, one element per thread.
 *
 * Load: thread (x, y) reads element (y, x) of the tile from `in`: a warp
 * reads 32 consecutive floats of one row. Store: the tile goes out as TILE
 * rows of SHORT_ROWS floats. Number the threads l = y * TILE + x; thread l
 * writes row l / SHORT_ROWS, column l % SHORT_ROWS of that output tile, so
 * a warp writes two output rows, 16 consecutive floats of each.
 */
static __global__ void transpose_shared_padded_16x32(const float *__restrict__ in,
                                                     float *__restrict__ out,
                                                     size_t rows, size_t cols)
{
    __shared__ float tile[SHORT_ROWS][TILE + SHORT_PAD];
    const size_t tiles_y = ceil_div(rows, SHORT_ROWS);  // tiles down `in`
    const size_t tiles_x = ceil_div(cols, TILE);        // tiles along a row of `in`
    const int l = threadIdx.y * TILE + threadIdx.x;     // thread number in the block
    const int out_r = l / SHORT_ROWS;                   // row of the output tile = column of `tile`
    const int out_c = l % SHORT_ROWS;                   // column of the output tile = row of `tile`
    for (size_t tile_y = blockIdx.y; tile_y < tiles_y; tile_y += gridDim.y) {
        for (size_t tile_x = blockIdx.x; tile_x < tiles_x; tile_x += gridDim.x) {
            const size_t row = tile_y * SHORT_ROWS + threadIdx.y;  // row of `in`
            const size_t col = tile_x * TILE + threadIdx.x;        // column of `in`
            if (row < rows && col < cols)
                tile[threadIdx.y][threadIdx.x] = in[row * cols + col];  // coalesced read, a row of `tile`
            __syncthreads();  // the whole tile is in shared memory

            const size_t out_row = tile_x * TILE + out_r;        // row of `out` = column of `in`
            const size_t out_col = tile_y * SHORT_ROWS + out_c;  // column of `out` = row of `in`
            if (out_row < cols && out_col < rows)
                out[out_row * rows + out_col] = tile[out_c][out_r];  // two half-rows of `out` per warp
            __syncthreads();  // everyone is done with `tile` before the next tile overwrites it
        }
    }
}

/** @brief Launch transpose_shared_padded_16x32() with TILE x SHORT_ROWS blocks, one tile each. */
static size_t launch_shared_padded_16x32(const float *in, float *out, size_t rows, size_t cols,
                                         cudaStream_t stream)
{
    const dim3 block(TILE, SHORT_ROWS);
    const dim3 grid = grid_for_tiles(ceil_div(cols, TILE), ceil_div(rows, SHORT_ROWS));
    transpose_shared_padded_16x32<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

// ---------------------------------------------------------------- what the grader runs

/**
 * The kernels GRADE_KERNEL picks from; the first, the graded 32 x 16 block,
 * runs while it is unset. The grader runs the others too (grading.json), and
 * the reference solution picks from the same names.
 */
static const kernel_choice choices[] = {
    {"block32x16", "your first kernel with a 32 x 16 block", launch_shared_padded<BLOCK_ROWS>},
    {"block32x8", "your first kernel with a 32 x 8 block", launch_shared_padded<8>},
    {"block32x32", "your first kernel with a 32 x 32 block", launch_shared_padded<32>},
    {"tile16x32", "your second kernel: the 16 x 32 tile, SHORT_PAD padding",
     launch_shared_padded_16x32},
};

/** @brief Launch the kernel GRADE_KERNEL picks: the first kernel's 32 x 16 block while it is unset. */
KERNEL_CHOICE_LAUNCHER(launch_chosen, choices, "student")

/** @brief Your kernels, as the grader (lab/grade_main.cu) links them: not static. */
extern "C" const kernel_variant exercise_07 = {
    "padded_32x16", "your kernel: 32x32 shared tile padded to 33 columns, 32x16 block",
    launch_chosen, ANY_GPU,
};
