/**
 * @file solution.cu
 * @brief Reference solution to exercise 11: write each run of `out` as its
 *        whole aligned 8-byte pairs, plus the 0 or 1 float at each end.
 *
 * The load side is step 11's (load_tile_any_shape() in steps/11_any_shape/any_shape.cuh):
 * after it, tile column cc holds the `height` floats that go to row
 * col0 + cc of `out`, starting at column row0. That stretch of `out` is a
 * *run*. Seen as aligned 8-byte pairs (as_pairs()), it starts at float
 * `flat = first + out_pairs.lead` counted from the first pair, so:
 *
 * - `head = (2 - flat % 2) % 2` floats (capped at the run's length) come
 *   before its first whole pair; that pair also holds the last float of the
 *   run before, which another tile writes, so the head is written alone;
 * - `whole = (height - head) / 2` pairs lie wholly inside the run: one 8-byte
 *   store each, the two floats taken from two tile rows;
 * - `tail` floats (0 or 1) are left after the last whole pair, written alone.
 *
 * A whole pair never holds a float of another run, and every float of the
 * run is in exactly one of the three parts, so every float of `out` is
 * written exactly once, by one thread, whatever the shape and alignment.
 * Step 11 does the same with 16-byte chunks (store_tile_any_shape()), where
 * 0-3 floats are left at each end.
 *
 * Task: exercises/11_any_shape/README.md. Grade: `make grade EX=11`.
 */
#include <stdint.h>

#include "harness.h"
#include "steps/11_any_shape/any_shape.cuh"

/** Floats in an aligned 8-byte pair. */
#define PAIR 2

/** @brief View @p p (4-byte aligned) as aligned 8-byte pairs, as as_chunks() views it as 16-byte chunks. */
static __device__ __forceinline__ chunked<float2> as_pairs(float *p)
{
    const unsigned lead = (unsigned)((uintptr_t)p & 7) / 4;
    return chunked<float2>{reinterpret_cast<float2 *>(p - lead), lead};
}

/**
 * @brief Write tile column `tid / AS_STORE_LANES` to its run of `out`: whole
 *        pairs as float2, the float before and the float after them alone.
 */
static __device__ __forceinline__ void store_run(const float *tile, chunked<float2> out_pairs, float *out, size_t rows,
                                                 size_t row0, size_t col0, unsigned height, unsigned width,
                                                 unsigned tid)
{
    const unsigned cc = tid / AS_STORE_LANES;   // tile column = the run of `out` row col0 + cc
    const unsigned lane = tid % AS_STORE_LANES;
    if (cc >= width)
        return;
    const size_t first = (col0 + cc) * rows + row0;   // the run's first element of `out`
    const size_t flat = first + out_pairs.lead;            // the same, counted from out_pairs.chunks
    const unsigned head_wanted = (unsigned)((PAIR - flat % PAIR) % PAIR);
    const unsigned head = head_wanted < height ? head_wanted : height;
    const unsigned whole = (height - head) / PAIR;
    const unsigned tail = height - head - whole * PAIR;
    const size_t pair0 = (flat + head) / PAIR;         // the first whole pair
    // Constant trip counts (at most 32 whole pairs, 2 edge floats), so that the
    // compiler unrolls both loops and keeps everything in registers.
UNROLL_ON_DEVICE
    for (unsigned w = lane; w < TILE / PAIR; w += AS_STORE_LANES)
        if (w < whole) {
            const float *src = tile + (head + w * PAIR) * AS_STRIDE + cc;   // 2 tile rows, one column
            out_pairs.chunks[pair0 + w] = make_float2(src[0], src[AS_STRIDE]);
        }
UNROLL_ON_DEVICE
    for (unsigned e = lane; e < 2 * (PAIR - 1); e += AS_STORE_LANES)
        if (e < head + tail) {
            const unsigned r = e < head ? e : head + whole * PAIR + (e - head);   // tile row of edge float e
            out[first + r] = tile[r * AS_STRIDE + cc];
        }
}

/** @brief Step 11's load side and tile order, with store_run() on the way out. */
static __global__ void __launch_bounds__(THREADS, AS_BLOCKS_PER_SM)
transpose_pair_store(const float *__restrict__ in, float *__restrict__ out, size_t rows, size_t cols)
{
    __shared__ float tile[TILE * AS_STRIDE];
    const chunked<const float4> in_chunks = as_chunks(in);
    const chunked<float2> out_pairs = as_pairs(out);
    const size_t tiles_y = ceil_div(rows, TILE);
    const size_t tiles_x = ceil_div(cols, TILE);
    for (size_t t = blockIdx.x; t < tiles_y * tiles_x; t += gridDim.x) {
        size_t row0, col0;
        column_major_tile(t, tiles_y, &row0, &col0);
        const unsigned height = tile_extent(rows, row0);
        const unsigned width = tile_extent(cols, col0);
        load_tile_any_shape(tile, in_chunks, rows * cols, cols, row0, col0, height, width, threadIdx.x);
        __syncthreads();   // the whole tile is in shared memory
        store_run(tile, out_pairs, out, rows, row0, col0, height, width, threadIdx.x);
        __syncthreads();   // everyone is done reading before the next tile overwrites it
    }
}

/** @brief One block of 256 threads per 64 x 64 tile, a clamped 1-D grid; vectors are copied. */
static size_t launch_pair_store(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    if (rows == 1 || cols == 1)
        return copy_kernel_launch(in, out, rows * cols, stream);
    const dim3 block(THREADS);
    const dim3 grid = grid_for_tiles(ceil_div(rows, TILE) * ceil_div(cols, TILE), 1);
    transpose_pair_store<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief The reference kernel, as the grader (lab/grade_main.cu) links it: not static. */
extern "C" const kernel_variant solution_11 = {
    "pair_store", "step 11's loads; runs of out stored as whole aligned float2 pairs plus edge floats",
    launch_pair_store, ANY_GPU,
};
