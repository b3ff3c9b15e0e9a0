// Caught by: Technique (step 01's kernel handed in beside the control: a second plain LDG.E and no LDG.E.CONSTANT)
/**
 * @file 03_plain_load.cu
 * @brief Exercise 03 answered with step 01's kernel: plain pointers and a plain load,
 *        the given control's code under the student's name.
 *
 * Correct, race-free and as fast as the control, which is the point: it is the
 * control. The compiled code has two plain `LDG.E` (the control's and this one) and no
 * `LDG.E.CONSTANT`. tests/test_grader.py grades it.
 */
#include "harness.h"
#include "kernel_utils.cuh"
#include "kernel_choice.h"

/** Threads per block along a row of the input (one warp), as in step 01. */
#define BLOCK_COLS 32
/** Rows of the input covered by one block, as in step 01. */
#define BLOCK_ROWS 8

// ---------------------------------------------------------------- the control (given)

/**
 * @brief The control, given complete: step 01's transpose_naive() as it is.
 *
 * Without `__restrict__` the compiler cannot rule out that `out` overlaps
 * `in`, so the read stays an ordinary load (`LDG.E`). Blocks, tiles and
 * indices are those your kernel must have; only the load path differs.
 */
static __global__ void transpose_naive_plain(const float *in, float *out, size_t rows, size_t cols)
{
    const size_t tiles_y = ceil_div(rows, BLOCK_ROWS);  // tiles down `in`
    const size_t tiles_x = ceil_div(cols, BLOCK_COLS);  // tiles along a row of `in`
    for (size_t tile_y = blockIdx.y; tile_y < tiles_y; tile_y += gridDim.y) {
        for (size_t tile_x = blockIdx.x; tile_x < tiles_x; tile_x += gridDim.x) {
            const size_t row = tile_y * BLOCK_ROWS + threadIdx.y;  // row of `in`
            const size_t col = tile_x * BLOCK_COLS + threadIdx.x;  // column of `in`
            if (row < rows && col < cols)
                out[col * rows + row] = in[row * cols + col];      // coalesced plain load, strided write
        }
    }
}

/** @brief Launch transpose_naive_plain() over the whole matrix with 32 x 8 blocks. */
static size_t launch_naive_plain(const float *in, float *out, size_t rows, size_t cols,
                                 cudaStream_t stream)
{
    const dim3 block(BLOCK_COLS, BLOCK_ROWS);
    const dim3 grid = grid_for_tiles(ceil_div(cols, BLOCK_COLS), ceil_div(rows, BLOCK_ROWS));
    transpose_naive_plain<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

// ---------------------------------------------------------------- your kernel

/**
 * @brief Step 01's one-thread-per-element kernel with its read on the
 *        read-only data path; a block covers an 8 x 32 patch of `in`.
 */
static __global__ void transpose_naive_ldg(const float *in, float *out,
                                           size_t rows, size_t cols)
{
    const size_t tiles_y = ceil_div(rows, BLOCK_ROWS);  // tiles down `in`
    const size_t tiles_x = ceil_div(cols, BLOCK_COLS);  // tiles along a row of `in`
    for (size_t tile_y = blockIdx.y; tile_y < tiles_y; tile_y += gridDim.y) {
        for (size_t tile_x = blockIdx.x; tile_x < tiles_x; tile_x += gridDim.x) {
            const size_t row = tile_y * BLOCK_ROWS + threadIdx.y;  // row of `in`
            const size_t col = tile_x * BLOCK_COLS + threadIdx.x;  // column of `in`
            if (row < rows && col < cols)
                out[col * rows + row] = in[row * cols + col];  // coalesced read-only load, strided write
        }
    }
}

/** @brief Launch transpose_naive_ldg() over the whole matrix with 32 x 8 blocks. */
static size_t launch_naive_ldg(const float *in, float *out, size_t rows, size_t cols,
                               cudaStream_t stream)
{
    const dim3 block(BLOCK_COLS, BLOCK_ROWS);
    const dim3 grid = grid_for_tiles(ceil_div(cols, BLOCK_COLS), ceil_div(rows, BLOCK_ROWS));
    transpose_naive_ldg<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

// ---------------------------------------------------------------- what the grader runs

/** The kernels GRADE_KERNEL picks from; the first, yours, runs while it is unset. */
static const kernel_choice choices[] = {
    {"naive_ldg", "your kernel: __restrict__ and __ldg", launch_naive_ldg},
    {"control", "the control: step 01's kernel, plain pointers and a plain load (transpose_naive_plain)",
     launch_naive_plain},
};

/** @brief Launch the kernel GRADE_KERNEL picks: yours, unless it says `control`. */
KERNEL_CHOICE_LAUNCHER(launch_chosen, choices, "student")

/** @brief Your kernel, as the grader (lab/grade_main.cu) links it: not static. */
extern "C" const kernel_variant exercise_03 = {
    "naive_ldg", "your kernel: step 01's mapping with const __restrict__ and __ldg",
    launch_chosen, ANY_GPU,
};
