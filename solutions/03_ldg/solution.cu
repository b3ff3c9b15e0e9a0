/**
 * @file solution.cu
 * @brief Reference solution to exercise 03: the read-only path on the naive kernel's coalesced reads.
 *
 * Step 03 sends step 02's *strided* reads through `__ldg`. Here the same
 * change is made to step 01's kernel, whose reads are already coalesced and
 * whose writes are strided: `const __restrict__` pointers and an `__ldg`
 * load, nothing else. A coalesced read uses every byte of every sector it
 * fetches, so a different cache path has little to win; the strided writes,
 * which decide this kernel's speed, do not go through it at all.
 *
 * The control kernel, transpose_naive_plain(), is the skeleton's, unchanged:
 * step 01's kernel with plain pointers, whose read stays an ordinary load.
 * The grader's reference is `solution_03` alone; in exercise.cu,
 * `GRADE_KERNEL=control` runs the control in the student's row, timed beside
 * this kernel.
 *
 * Task: exercises/03_ldg/README.md. Grade: `make grade EX=03`.
 */
#include "harness.h"
#include "kernel_utils.cuh"

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

// ---------------------------------------------------------------- the answer

/**
 * @brief Step 01's one-thread-per-element kernel with its read on the
 *        read-only data path; a block covers an 8 x 32 patch of `in`.
 *
 * `__restrict__` promises that `in` and `out` never overlap, which is what
 * makes a non-coherent load (`__ldg`, SASS `LDG.E.CONSTANT`) legal.
 */
static __global__ void transpose_naive_ldg(const float *__restrict__ in, float *__restrict__ out,
                                           size_t rows, size_t cols)
{
    const size_t tiles_y = ceil_div(rows, BLOCK_ROWS);  // tiles down `in`
    const size_t tiles_x = ceil_div(cols, BLOCK_COLS);  // tiles along a row of `in`
    for (size_t tile_y = blockIdx.y; tile_y < tiles_y; tile_y += gridDim.y) {
        for (size_t tile_x = blockIdx.x; tile_x < tiles_x; tile_x += gridDim.x) {
            const size_t row = tile_y * BLOCK_ROWS + threadIdx.y;  // row of `in`
            const size_t col = tile_x * BLOCK_COLS + threadIdx.x;  // column of `in`
            if (row < rows && col < cols)
                out[col * rows + row] = __ldg(&in[row * cols + col]);  // coalesced read-only load, strided write
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

/**
 * The control as a variant, unused here: the grader links `solution_03` as the
 * reference, and the control runs only from exercise.cu (GRADE_KERNEL=control).
 */
[[maybe_unused]] static const kernel_variant control = {
    "naive_plain", "the control: step 01's kernel, plain pointers and a plain load",
    launch_naive_plain, ANY_GPU,
};

/** @brief The reference kernel, as the grader (lab/grade_main.cu) links it: not static. */
extern "C" const kernel_variant solution_03 = {
    "naive_ldg", "step 01's kernel (coalesced reads) with const __restrict__ and __ldg",
    launch_naive_ldg, ANY_GPU,
};
