/**
 * @file exercise.cu
 * @brief Exercise 11: store each run of `out` as whole aligned 8-byte pairs, on a
 *        matrix of any shape and any 4-byte alignment.
 *
 * The load side is given: step 11's load_tile_any_shape() (steps/11_any_shape/any_shape.cuh)
 * fills the padded 64 x 66 tile with 16-byte loads whatever the shape. You
 * write store_run(), the way out, with 8-byte float2 stores where step 11
 * stores 16-byte chunks. The task, hints and what speed to expect are in
 * exercises/11_any_shape/README.md.
 *
 * Grade: `make grade EX=11`. Until the TODO is done the kernel writes
 * nothing, and the grader reports FAIL.
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
 *        pairs as float2, the floats before and after them one by one.
 *
 * @p out_pairs and @p out are the same matrix: seen as aligned pairs (float
 * `out_pairs.lead + i` from `out_pairs.chunks` is element i), and as floats.
 */
static __device__ __forceinline__ void store_run(const float *tile, chunked<float2> out_pairs, float *out, size_t rows,
                                                 size_t row0, size_t col0, unsigned height, unsigned width,
                                                 unsigned tid)
{
    // TODO(exercise 11): tile column cc = tid / AS_STORE_LANES (nothing to do if
    // cc >= width) holds the run of `out` row col0 + cc that starts at column
    // row0: tile row r is its float r. Split the run into
    //  - the floats before its first whole aligned pair (the head),
    //  - the pairs that lie wholly inside it, and
    //  - the floats after the last of them (the tail).
    // The AS_STORE_LANES lanes of the run take its whole pairs in turn, each
    // written with ONE 8-byte store through out_pairs.chunks; the head and tail
    // floats go one by one through `out`. Keep the loops' trip counts constant
    // (see the README's hints).
    (void)tile;
    (void)out_pairs;
    (void)out;
    (void)rows;
    (void)row0;
    (void)col0;
    (void)height;
    (void)width;
    (void)tid;
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

/** @brief Your kernel, as the grader (lab/grade_main.cu) links it: not static. */
extern "C" const kernel_variant exercise_11 = {
    "pair_store", "your kernel: step 11's loads, runs of out stored as whole aligned float2 pairs",
    launch_pair_store, ANY_GPU,
};
