/**
 * @file solution.cu
 * @brief Reference solution to exercise 13: read one 4-byte word (two
 *        columns) from each of 8 tile rows and split it with byte permutes
 *        into two 16-byte chunks of `out`, one per column.
 *
 * The load side is given: step 13's t16_load() (steps/13_bf16/bf16.cuh) fills
 * a 64 x 64 tile of bf16 with 16-byte chunks. You write store_pairs(), the
 * way out. The task, hints and what speed to expect are in
 * exercises/13_bf16/README.md.
 *
 * Task: exercises/13_bf16/README.md. Grade: `make grade EX=13`.
 */
#include "harness.h"
#include "steps/13_bf16/bf16.cuh"

/** The exercise's tile: 64 x 64 elements, one PRMT job per thread. */
using pair_tile = tile16<64, 64>;

/**
 * @brief Thread (g, h) = (tid % 8, tid / 8): read one 4-byte word (tile
 *        columns 2h and 2h + 1) from each of tile rows 8g .. 8g + 7, and
 *        write two 16-byte chunks of `out`, one per column.
 */
static __device__ __forceinline__ void store_pairs(const uint4 *tile, uint4 *out, size_t rows, size_t row0,
                                                   size_t col0, unsigned height, unsigned width, unsigned tid)
{
    const unsigned g = tid % 8, h = tid / 8;
    if (g * T16_CHUNK >= height || 2 * h >= width)
        return;
    const uint32_t *words = reinterpret_cast<const uint32_t *>(tile);
    uint32_t w[T16_CHUNK];
#pragma unroll
    for (unsigned k = 0; k < T16_CHUNK; ++k)
        w[k] = words[t16_slot<pair_tile>(g * T16_CHUNK + k, h / 4) * 4 + h % 4];
    uint32_t even[4], odd[4];   // column 2h: the low halves; column 2h + 1: the high halves
#pragma unroll
    for (unsigned j = 0; j < 4; ++j) {
        even[j] = __byte_perm(w[2 * j], w[2 * j + 1], 0x5410);
        odd[j] = __byte_perm(w[2 * j], w[2 * j + 1], 0x7632);
    }
    const size_t first = ((col0 + 2 * h) * rows + row0) / T16_CHUNK + g;
    out[first] = make_uint4(even[0], even[1], even[2], even[3]);
    out[first + rows / T16_CHUNK] = make_uint4(odd[0], odd[1], odd[2], odd[3]);
}

/** @brief Step 13's load side and tile order, with store_pairs() on the way out. */
static __global__ void __launch_bounds__(T16_THREADS)
transpose_pairs(const uint4 *__restrict__ in, uint4 *__restrict__ out, size_t rows, size_t cols)
{
    __shared__ uint4 tile_chunks[pair_tile::rows * pair_tile::chunks_per_row];
    const size_t tiles_y = ceil_div(rows, pair_tile::rows);
    for (size_t t = blockIdx.x; t < tiles_y * ceil_div(cols, pair_tile::cols); t += gridDim.x) {
        size_t row0, col0;
        t16_tile(t, tiles_y, pair_tile::rows, pair_tile::cols, &row0, &col0);
        const unsigned height = t16_extent(rows, row0, pair_tile::rows), width = t16_extent(cols, col0, pair_tile::cols);
        t16_load<pair_tile>(tile_chunks, in, cols, row0, col0, height, width, threadIdx.x);
        __syncthreads();   // the whole tile is in shared memory
        store_pairs(tile_chunks, out, rows, row0, col0, height, width, threadIdx.x);
        __syncthreads();   // everyone is done reading before the next tile overwrites it
    }
}

/**
 * @brief Your kernel where rows are whole aligned chunks, step 13's sector
 *        runs elsewhere: runs of 128 elements loaded chunk by chunk (the
 *        step's default takes runs of 144 loaded row by row, appendix 13;
 *        the grader times 8192 x 8192, where neither runs).
 */
static size_t launch_pairs(const uint16_t *in, uint16_t *out, size_t rows, size_t cols, cudaStream_t stream)
{
    if (rows == 1 || cols == 1 || !vec8_fits(in, out, rows, cols))
        return transpose16_runs_launch<runs16<128>>(in, out, rows, cols, stream);
    const dim3 block(T16_THREADS);
    const dim3 grid = grid_for_tiles(ceil_div(rows, pair_tile::rows) * ceil_div(cols, pair_tile::cols), 1);
    transpose_pairs<<<grid, block, 0, stream>>>(reinterpret_cast<const uint4 *>(in), reinterpret_cast<uint4 *>(out),
                                                rows, cols);
    return threads_launched(grid, block);
}

/** @brief The reference, as the grader (lab/grade_main.cu) links it: not static. */
extern "C" const kernel_variant solution_13 =
    variant16("pairs", "the reference: 16-byte chunk loads, column pairs split by byte permutes", launch_pairs);
