/**
 * @file minimal_step.cu
 * @brief The smallest complete step: one kernel, its launcher, its variant
 *        table and STEP_DEFINE().
 *
 * Copied into a directory `steps/NN_name/`, this is a whole program:
 * `make stepNN` builds it with the shared harness, which gives it the
 * command line, the bit-exact check, the timing and the report.
 */
#include "harness.h"
#include "kernel_utils.cuh"

/** Threads per block in x: one warp along a row of the input. */
#define TILE_COLS 32
/** Threads per block in y. */
#define TILE_ROWS 8

/**
 * @brief One thread per element: out[col][row] = in[row][col].
 *
 * The grid may be smaller than the matrix (grid_for_tiles() clamps it to
 * the grid limits), so each block walks the tiles with grid-stride loops.
 */
__global__ void transpose_minimal(const float *in, float *out, size_t rows, size_t cols)
{
    const size_t tiles_y = ceil_div(rows, TILE_ROWS);
    const size_t tiles_x = ceil_div(cols, TILE_COLS);
    for (size_t tile_y = blockIdx.y; tile_y < tiles_y; tile_y += gridDim.y) {
        for (size_t tile_x = blockIdx.x; tile_x < tiles_x; tile_x += gridDim.x) {
            const size_t row = tile_y * TILE_ROWS + threadIdx.y;  // row of `in`
            const size_t col = tile_x * TILE_COLS + threadIdx.x;  // column of `in`
            if (row < rows && col < cols)
                out[col * rows + row] = in[row * cols + col];
        }
    }
}

/** @brief Launch transpose_minimal() over the whole matrix on @p stream. */
static size_t launch_minimal(const float *in, float *out, size_t rows, size_t cols,
                             cudaStream_t stream)
{
    const dim3 block(TILE_COLS, TILE_ROWS);
    const dim3 grid = grid_for_tiles(ceil_div(cols, TILE_COLS), ceil_div(rows, TILE_ROWS));
    transpose_minimal<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief The step's kernels, the default first: name, summary, launcher, minimum GPU. */
static const kernel_variant variants[] = {
    {"naive", "one thread per element; coalesced reads, strided writes", launch_minimal, ANY_GPU},
};

STEP_DEFINE("The smallest complete step: one thread per element", variants, NULL)
