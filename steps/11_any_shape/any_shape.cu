/**
 * @file any_shape.cu
 * @brief Step 11: full sectors and 16-byte accesses on rows of any length
 *        and any 4-byte alignment.
 *
 * ## The idea
 * Step 10 falls back to 4-byte accesses when a row does not start on a
 * 16-byte boundary, and loses a fifth of its bandwidth. Two fixes, measured
 * against each other: `chunks` keeps 16-byte accesses on every shape by
 * loading the aligned chunks that cover each row and undoing the shift in
 * shared memory (steps/11_any_shape/any_shape.cuh). Sector runs instead move where a
 * tile's run of `out` starts, to a 32-byte sector boundary, so that no
 * sector is shared by two tiles (steps/11_any_shape/sector_runs.cuh). The default uses
 * chunks where rows are whole chunks, on a tile grid moved to the pointers'
 * alignment when they are misaligned (step 05's idea), sector runs elsewhere.
 *
 * ## What changed since step 10
 * Variant `words` is the 4-byte kernel of steps 09-10 in the same tile
 * order: the control, since on odd rows the default is `words` with only
 * the runs moved. `sector_runs_async` adds `cp.async` and 16-byte stores;
 * `rows_order` is the default with step 09's tile order.
 *
 * ## What it assumes
 * Any M, N >= 1 and 4-byte-aligned pointers. Vectors are copied.
 *
 * ## Build and run
 *
 *     make step11
 *     ./build/step11 --shapes 10007x7919,8192x8192+1,8192x8192
 *     ./build/step11 --shapes 10007x7919 --variant words
 *
 * Write-up: docs/steps/11_any_shape.md
 */
#include "harness.h"
#include "any_shape.cuh"   // includes sector_runs.cuh

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

/** @brief The default: chunks where rows are whole chunks (on a shifted grid if the pointers need it),
 *         sector runs elsewhere (vectors are copied). */
static size_t launch_any_shape(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return any_shape_launch(in, out, rows, cols, stream);
}

/** @brief The chunk kernel on step 10's grid, on every shape: what sector runs and the shifted grid add. */
static size_t launch_chunks(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return chunks_launch(in, out, rows, cols, stream);
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

/** @brief Sector runs on every shape, loaded with `cp.async` and stored 16 bytes wide where whole chunks allow. */
static size_t launch_sector_runs_async(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return sector_runs_launch<true, true>(in, out, rows, cols, stream);
}

/** @brief The default with its chunk tiles in step 09's row-major tile order: what the tile order adds. */
static size_t launch_rows_order(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return any_shape_launch<ALONG_ROWS>(in, out, rows, cols, stream);
}

/** The kernels of step 11; the first is the default. */
static const kernel_variant variants[] = {
    {"any_shape", "16-byte chunks where rows are whole chunks (grid shifted to misaligned pointers), 4-byte sector runs elsewhere",
     launch_any_shape, ANY_GPU},
    {"chunks", "64x64 tiles on step 10's grid, aligned 16-byte loads and stores on every shape, shift undone in shared memory",
     launch_chunks, ANY_GPU},
    {"words", "the 4-byte kernel of steps 09-10 in the same tile order: the control for sector runs",
     launch_words, ANY_GPU},
    {"sector_runs_async", "sector runs on every shape, with cp.async loads and 16-byte stores: what width adds",
     launch_sector_runs_async, ANY_GPU},
    {"rows_order", "the default with its chunk tiles in step 09's row-major order (reads walk along rows of in)",
     launch_rows_order, ANY_GPU},
};

STEP_DEFINE("Whole sectors and 16-byte accesses on rows of any length and alignment", variants, NULL)
