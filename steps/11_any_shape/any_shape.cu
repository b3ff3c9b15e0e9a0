/**
 * @file any_shape.cu
 * @brief Step 11: 16-byte global loads and stores on rows of any length and
 *        any 4-byte alignment.
 *
 * ## The idea
 * Step 10 falls back to 4-byte accesses whenever a row does not start on a
 * 16-byte boundary (a column count that is not a multiple of 4, or a
 * misaligned pointer), and loses a fifth of its bandwidth. But memory is
 * still a flat array of aligned 16-byte chunks. Load the chunks that cover
 * each tile row and undo the row's shift while putting the floats into the
 * shared tile; on the way out, write each run of `out` as its whole aligned
 * chunks plus at most 3 single floats at each end (common/any_shape.cuh).
 *
 * ## What changed since step 10
 * One kernel for every shape, with register loads and column-major tile
 * order. Variant `words` is the 4-byte kernel of steps 09-10 in the same
 * order: what the chunks win back.
 *
 * ## What it assumes
 * Any M, N >= 1 and 4-byte-aligned pointers. Vectors are copied.
 *
 * ## Build and run
 *
 *     make step11
 *     ./build/step11 --shapes 10007x7919,16385x16383,8192x8192+1
 *     ./build/step11 --shapes 10007x7919 --variant words
 *
 * Write-up: docs/steps/11_any_shape.md
 */
#include "harness.h"
#include "any_shape.cuh"
#include "sector_runs.cuh"

/**
 * @brief The control: the 4-byte kernel of steps 09 and 10 (common/tile64.cuh)
 *        in the same column-major tile order, loading through registers.
 */
__global__ void __launch_bounds__(THREADS, REGISTER_LOAD_BLOCKS_PER_SM)
transpose_words_column_order(const float *__restrict__ in, float *__restrict__ out, size_t rows, size_t cols)
{
    __shared__ float tile[TILE * TILE];   // 16 KB, laid out by word_slot()
    const size_t tiles_y = ceil_div(rows, TILE);
    const size_t tiles_x = ceil_div(cols, TILE);
    for (size_t t = blockIdx.x; t < tiles_y * tiles_x; t += gridDim.x) {
        size_t row0, col0;
        column_major_tile(t, tiles_y, &row0, &col0);
        transpose_tile_words<load_through_registers>(tile, in, out, rows, cols, row0, col0,
                                                     threadIdx.x % BLOCK_COLS, threadIdx.x / BLOCK_COLS);
    }
}

/** @brief The default: the any-shape kernel (vectors are copied). */
static size_t launch_any_shape(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return any_shape_launch(in, out, rows, cols, stream);
}

/** @brief The 4-byte control on every shape. */
static size_t launch_words(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    if (rows == 1 || cols == 1)
        return copy_kernel_launch(in, out, rows * cols, stream);
    const dim3 block(THREADS);
    const dim3 grid = grid_for_tiles(ceil_div(rows, TILE) * ceil_div(cols, TILE), 1);
    transpose_words_column_order<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief The experiment of common/sector_runs.cuh: runs of `out` that start on sector boundaries. */
static size_t launch_sector_runs(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return sector_runs_launch<false, false>(in, out, rows, cols, stream);
}

/** @brief The same runs written with 16-byte stores. */
static size_t launch_sector_runs_vec(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return sector_runs_launch<true, false>(in, out, rows, cols, stream);
}

/** @brief The same runs, loaded with `cp.async` and written with 16-byte stores. */
static size_t launch_sector_runs_async(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return sector_runs_launch<true, true>(in, out, rows, cols, stream);
}

/** The kernels of step 11; the first is the default. */
static const kernel_variant variants[] = {
    {"any_shape", "64x64 tile, aligned 16-byte loads and stores on any shape, shift undone in shared memory",
     launch_any_shape, ANY_GPU},
    {"words", "the 4-byte kernel of steps 09-10 in the same tile order: what the chunks win back",
     launch_words, ANY_GPU},
    {"sector_runs", "72x64 tiles whose runs of out start on 32-byte sectors, 4-byte accesses",
     launch_sector_runs, ANY_GPU},
    {"sector_runs_vec", "the same runs of out, written with 16-byte stores where whole chunks allow",
     launch_sector_runs_vec, ANY_GPU},
    {"sector_runs_async", "the same runs, loaded with cp.async (sm_80+) and written with 16-byte stores",
     launch_sector_runs_async, ANY_GPU},
};

STEP_DEFINE("16-byte accesses on rows of any length and alignment", variants, NULL)
