/**
 * @file solution.cu
 * @brief Reference solution to exercise 02: step 02's coalesced-write kernel for any block shape.
 *
 * The kernel takes its tile size from blockDim instead of from constants, so
 * one compiled kernel runs with every block shape that GRADE_BLOCK names
 * (see exercises/02_coalesced_write/block_shape.h). `threadIdx.x` runs along
 * a row of `out`: a warp writes min(blockDim.x, 32) consecutive floats of
 * one output row per row it covers, and reads the same number of floats
 * from as many different input rows.
 *
 * Task: exercises/02_coalesced_write/README.md. Grade: `make grade EX=02`,
 * or `GRADE_BLOCK=16x16 make grade EX=02` for another shape.
 */
#include "harness.h"
#include "kernel_utils.cuh"
#include "../../exercises/02_coalesced_write/block_shape.h"

/**
 * @brief One thread per element; a block covers a blockDim.y x blockDim.x
 *        tile of `out` (cols x rows), writing along its rows.
 */
static __global__ void transpose_coalesced_write_any_block(const float *in, float *out,
                                                           size_t rows, size_t cols)
{
    const size_t tiles_x = ceil_div(rows, blockDim.x);  // tiles along a row of `out`
    const size_t tiles_y = ceil_div(cols, blockDim.y);  // tiles down a column of `out`
    for (size_t tile_y = blockIdx.y; tile_y < tiles_y; tile_y += gridDim.y) {
        for (size_t tile_x = blockIdx.x; tile_x < tiles_x; tile_x += gridDim.x) {
            const size_t out_row = tile_y * blockDim.y + threadIdx.y;  // = column of `in`
            const size_t out_col = tile_x * blockDim.x + threadIdx.x;  // = row of `in`
            if (out_row < cols && out_col < rows)
                out[out_row * rows + out_col] = in[out_col * cols + out_row];  // strided read, coalesced write
        }
    }
}

/** @brief Launch transpose_coalesced_write_any_block() with the block shape GRADE_BLOCK names. */
static size_t launch_any_block(const float *in, float *out, size_t rows, size_t cols,
                               cudaStream_t stream)
{
    const dim3 block = block_shape_from_env();
    const dim3 grid = grid_for_tiles(ceil_div(rows, block.x), ceil_div(cols, block.y));
    transpose_coalesced_write_any_block<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief The reference kernel, as the grader (lab/grade_main.cu) links it: not static. */
extern "C" const kernel_variant solution_02 = {
    "any_block", "step 02's kernel with the block shape read from GRADE_BLOCK (default 32x8)",
    launch_any_block, ANY_GPU,
};
