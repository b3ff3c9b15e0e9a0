/**
 * @file exercise.cu
 * @brief Exercise 02: step 02's coalesced-write kernel for ANY block shape, then a block-shape sweep.
 *
 * Write the kernel below so that it is correct for every block shape the
 * launcher may pick: it must take its tile size from blockDim, not from
 * constants. The launcher reads the shape from GRADE_BLOCK (block_shape.h),
 * so one build runs them all:
 *
 *     make grade EX=02                       # 32 x 8
 *     GRADE_BLOCK=16x16 make grade EX=02     # 16 x 16, and so on
 *
 * The task, hints and what speed to expect are in
 * exercises/02_coalesced_write/README.md. Until the TODO is done the kernel
 * writes nothing, and the grader reports FAIL.
 */
#include "harness.h"
#include "kernel_utils.cuh"
#include "block_shape.h"

/**
 * @brief One thread per element; a block covers a blockDim.y x blockDim.x
 *        tile of `out` (cols x rows), writing along its rows.
 */
static __global__ void transpose_coalesced_write_any_block(const float *in, float *out,
                                                           size_t rows, size_t cols)
{
    // TODO(exercise 02): step 02's kernel, with blockDim.x and blockDim.y in
    // place of its BLOCK_COLS and BLOCK_ROWS.
    //  - `out` has `cols` rows and `rows` columns; threadIdx.x must run along
    //    a row of `out` so that a warp's writes are contiguous.
    //  - How many tiles of blockDim.x x blockDim.y does `out` have across,
    //    how many down? Walk them with grid-stride loops (blockIdx, gridDim).
    //  - out[out_row * rows + out_col] is in[out_col * cols + out_row].
    (void)in;
    (void)out;
    (void)rows;
    (void)cols;
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

/** @brief Your kernel, as the grader (lab/grade_main.cu) links it: not static. */
extern "C" const kernel_variant exercise_02 = {
    "any_block", "your kernel: step 02's mapping with the block shape from GRADE_BLOCK",
    launch_any_block, ANY_GPU,
};
