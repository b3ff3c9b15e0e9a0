/**
 * @file any_shape.cu
 * @brief Step 11: every 32-byte sector of `out` written by one tile, on rows
 *        of any length and any 4-byte alignment.
 *
 * ## The idea
 * On a row of `out` that does not start on a 32-byte sector boundary, a
 * 64-float run of a 64x64 tile spans 9 sectors and shares the first and
 * last with the tiles above and below, which write them at another time.
 * The fix moves each tile's run to start on a sector boundary, so that no
 * sector has two writers: per row of `out` on odd shapes (*sector runs*,
 * sector_runs.cuh: 72 x 64 tiles, 16-byte loads, 4-byte stores), or by moving the whole
 * tile grid when both pointers sit the same few floats past alignment (the
 * shifted grid, step 05's idea for tiles). Where rows are whole 16-byte
 * chunks the chunk kernel (any_shape.cuh) moves the tiles 16 bytes at a time.
 *
 * ## What changed since step 10
 * Where the runs of `out` start. Two controls leave them at `64 k`:
 * `words`, the 4-byte kernel of steps 09-10 in the same tile order, and
 * `chunks`, the chunk kernel on step 10's grid (far fewer requests).
 *
 * ## What it assumes
 * Any M, N >= 1 and 4-byte-aligned pointers. Vectors are copied.
 *
 * ## Build and run
 *
 *     make step11
 *     ./build/step11 --shapes 10007x7919,8192x8192+1,8192x8192
 *     ./build/step11 --shapes 10007x7919,8192x8192+1 --variant words
 *     ./build/step11 --shapes 10007x7919,8192x8192+1 --variant chunks
 *
 * Write-up: docs/steps/11_any_shape.md
 */
#include "harness.h"
#include "any_shape.cuh"   // includes sector_runs.cuh
#include "slabs.cuh"

/**
 * @brief The control: the 4-byte kernel of steps 09 and 10 (steps/09_shared64/tile64.cuh)
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

/** @brief The chunk kernel on step 10's grid, on every shape: what moving the runs adds to 16-byte accesses. */
static size_t launch_chunks(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return chunks_launch(in, out, rows, cols, stream);
}

/** @brief The 4-byte control on every shape: what moving the runs adds to 4-byte accesses. */
static size_t launch_words(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    if (rows == 1 || cols == 1)
        return copy_elements_launch(in, out, rows * cols, stream);
    const dim3 block(THREADS);
    const dim3 grid = grid_for_tiles(ceil_div(rows, TILE) * ceil_div(cols, TILE), 1);
    transpose_words_column_order<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief The default with sector runs of 96 floats (104 x 64 tiles) where it runs sector runs. */
static size_t launch_long_runs(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return any_shape_launch<SR_LONG_RUN>(in, out, rows, cols, stream);
}

/** @brief Slabs of 4096 floats on a matrix of 2-63 rows or columns (slabs.cuh), the default elsewhere. */
static size_t launch_slabs(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    if (slabs_fit(rows, cols))
        return slabs_launch(in, out, rows, cols, stream);
    return any_shape_launch(in, out, rows, cols, stream);
}

/** The kernels of step 11; the first is the default. */
static const kernel_variant variants[] = {
    {"any_shape", "every sector of out has one writer: sector runs on odd rows, a shifted grid at misaligned pointers",
     launch_any_shape, ANY_GPU},
    {"chunks", "a control: 16-byte chunks on step 10's grid on every shape, the runs of out not moved",
     launch_chunks, ANY_GPU},
    {"long_runs", "the default with runs of 96 floats (384 bytes) on odd rows: fewer pieces per row of out, "
     "larger tiles", launch_long_runs, ANY_GPU},
    {"words", "a control: the 4-byte kernel of steps 09-10 in the same tile order, the runs of out not moved",
     launch_words, ANY_GPU},
    {"slabs", "thin matrices (2-63 rows or columns): a block moves 4096 floats along the long side, not a "
     "mostly empty tile; the default elsewhere", launch_slabs, ANY_GPU},
};

STEP_DEFINE("Whole sectors on rows of any length and alignment", variants, NULL)
