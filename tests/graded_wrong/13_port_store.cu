// Caught by: Technique (two-byte shared loads, `LDS.U16`: step 13's port store, not two words a row)
/**
 * @file 13_port_store.cu
 * @brief A wrong answer to exercise 13 that the grader must catch: correct output, stored
 *        the port's way (t16_store_port() from steps/13_bf16/bf16.cuh: 2-byte shared loads,
 *        no PRMT). tests/test_grader.py grades it.
 */
#include "harness.h"
#include "steps/13_bf16/bf16.cuh"

/** The exercise's tile: 64 x 128 elements, one job of 8 rows x 4 columns per thread. */
using quad_tile = tile16<64, 128>;
/** Groups of 8 tile rows. */
#define ROW_GROUPS (quad_tile::rows / T16_CHUNK)
/** Columns a job writes: the 4 of an 8-byte half chunk. */
#define JOB_COLUMNS 4

static_assert(ROW_GROUPS * quad_tile::cols / JOB_COLUMNS == T16_THREADS, "one job per thread");

/**
 * @brief Thread (g, s, h) = (tid % 8, tid / 8 % 2, tid / 16): read half s of
 *        chunk h of tile rows 8g .. 8g + 7, and write its 4 columns, each one
 *        16-byte chunk of `out`.
 */
static __device__ __forceinline__ void store_columns(const uint4 *tile, uint4 *out, size_t rows, size_t row0,
                                                     size_t col0, unsigned height, unsigned width, unsigned tid)
{
    t16_store_port<quad_tile>(tile, out, rows, row0, col0, height, width, tid);
}

/** @brief Step 13's load side and tile order on 64 x 128 tiles, with store_columns() on the way out. */
static __global__ void __launch_bounds__(T16_THREADS)
transpose_four_columns(const uint4 *__restrict__ in, uint4 *__restrict__ out, size_t rows, size_t cols)
{
    __shared__ uint4 tile_chunks[quad_tile::rows * quad_tile::chunks_per_row];
    const size_t tiles_y = ceil_div(rows, quad_tile::rows);
    for (size_t t = blockIdx.x; t < tiles_y * ceil_div(cols, quad_tile::cols); t += gridDim.x) {
        size_t row0, col0;
        t16_tile(t, tiles_y, quad_tile::rows, quad_tile::cols, &row0, &col0);
        const unsigned height = t16_extent(rows, row0, quad_tile::rows);
        const unsigned width = t16_extent(cols, col0, quad_tile::cols);
        t16_load<quad_tile>(tile_chunks, in, cols, row0, col0, height, width, threadIdx.x);
        __syncthreads();   // the whole tile is in shared memory
        store_columns(tile_chunks, out, rows, row0, col0, height, width, threadIdx.x);
        __syncthreads();   // everyone is done reading before the next tile overwrites it
    }
}

/**
 * @brief Your kernel where rows are whole aligned chunks, step 13's sector
 *        runs elsewhere: runs of 128 elements loaded chunk by chunk (the
 *        step's default takes runs of 144 loaded row by row, appendix 13;
 *        the grader times 8192 x 8192, where neither runs).
 */
static size_t launch_four_columns(const uint16_t *in, uint16_t *out, size_t rows, size_t cols, cudaStream_t stream)
{
    if (rows == 1 || cols == 1 || !vec8_fits(in, out, rows, cols))
        return transpose16_runs_launch<runs16<128>>(in, out, rows, cols, stream);
    const dim3 block(T16_THREADS);
    const dim3 grid = grid_for_tiles(ceil_div(rows, quad_tile::rows) * ceil_div(cols, quad_tile::cols), 1);
    transpose_four_columns<<<grid, block, 0, stream>>>(reinterpret_cast<const uint4 *>(in),
                                                       reinterpret_cast<uint4 *>(out), rows, cols);
    return threads_launched(grid, block);
}

/** @brief The planted answer, as the grader links it. */
extern "C" const kernel_variant exercise_13 =
    variant16("four_columns", "the reference: 8-byte shared loads of two words, four columns split by byte permutes",
              launch_four_columns);
