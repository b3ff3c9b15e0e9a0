/**
 * @file exercise.cu
 * @brief Exercise 07: the padded shared tile with a 32 x 16 block: the 32 x 32 tile, two elements
 *        per thread, then a 16 x 32 tile whose padding you derive.
 *
 * Step 07 pads the tile to `tile[32][33]` and moves it with a 32 x 8 block,
 * four elements per thread. Keep the tile and the padding, change the block
 * to 32 x 16 (the first kernel). Then move a tile of 16 rows with the same
 * block, one element per thread, and find the padding that tile needs (the
 * second kernel). `GRADE_KERNEL` picks the kernel the grader program runs
 * (common/kernel_choice.h); the grader runs all of them. The task, hints and what
 * speed to expect are in exercises/07_shared_padded/README.md.
 *
 * Grade: `make grade EX=07`. Until the TODOs are done the kernels write
 * nothing, and the grader reports FAIL.
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
/**
 * Padding of the second kernel's SHORT_ROWS x TILE tile, in floats per row.
 * TODO(exercise 07): derive it (README.md, "The second kernel") and set it
 * here. With 0 the kernel is still correct; the counter says what it costs.
 */
#define SHORT_PAD 0

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
    // TODO(exercise 07): start from step 07's kernel (steps/07_shared_padded/).
    //  - Thread (x, y) loads tile rows y, y + ROWS, ... (TILE / ROWS of them):
    //    write the loop as `for (int i = 0; i < TILE; i += ROWS)` with
    //    r = threadIdx.y + i, so that the trip count is a constant and the
    //    compiler unrolls it.
    //  - Nothing in the kernel should assume ROWS == 8 or 16: the grader runs
    //    it with 8, 16 and 32.
    //  - Two __syncthreads() per tile, as always with grid-stride loops.
    (void)in;
    (void)out;
    (void)rows;
    (void)cols;
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
    // TODO(exercise 07, second kernel):
    //  - __shared__ float tile[SHORT_ROWS][TILE + SHORT_PAD];
    //  - tiles down `in`: ceil_div(rows, SHORT_ROWS); along a row: ceil_div(cols, TILE);
    //    grid-stride loops over both, as in the first kernel.
    //  - Load as the comment above says; __syncthreads().
    //  - Store: with l = threadIdx.y * TILE + threadIdx.x, output tile row
    //    l / SHORT_ROWS is a column of `tile`, output tile column l % SHORT_ROWS
    //    a row of it; bounds-check against `out`'s shape; __syncthreads().
    //  - Which banks does one warp read in the store phase? That decides SHORT_PAD.
    (void)in;
    (void)out;
    (void)rows;
    (void)cols;
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
