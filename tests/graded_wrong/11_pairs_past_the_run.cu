// Caught by: Correctness (a run that starts or ends mid-pair overwrites its neighbours' floats with zeros)
/**
 * @file 11_pairs_past_the_run.cu
 * @brief Exercise 11 with every store 8 bytes wide, the run rounded outward to whole
 *        pairs: right only where every run starts and ends on a pair boundary (even
 *        rows, 8-byte aligned pointers). tests/test_grader.py grades it.
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
 * @brief The mistake: the run rounded outward to whole pairs. The pairs at its
 *        two ends also hold floats of the runs above and below, which other
 *        threads write: this one overwrites them with zeros.
 */
static __device__ __forceinline__ void store_run(const float *tile, chunked<float2> out_pairs, float *out, size_t rows,
                                                 size_t row0, size_t col0, unsigned height, unsigned width,
                                                 unsigned tid)
{
    (void)out;
    const unsigned cc = tid / AS_STORE_LANES;
    const unsigned lane = tid % AS_STORE_LANES;
    if (cc >= width)
        return;
    const size_t flat = (col0 + cc) * rows + row0 + out_pairs.lead;
    const size_t p_first = flat / PAIR;
    const unsigned count = (unsigned)((flat + height - 1) / PAIR - p_first + 1);   // at most 33
UNROLL_ON_DEVICE
    for (unsigned k = lane; k < TILE / PAIR + 1; k += AS_STORE_LANES)
        if (k < count) {
            float v[PAIR];
UNROLL_ON_DEVICE
            for (unsigned e = 0; e < PAIR; ++e) {
                const long long r = (long long)((p_first + k) * PAIR + e) - (long long)flat;   // tile row
                v[e] = r >= 0 && r < (long long)height ? tile[r * AS_STRIDE + cc] : 0.0f;
            }
            out_pairs.chunks[p_first + k] = make_float2(v[0], v[1]);
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

/** @brief The planted answer, as the grader links it. */
extern "C" const kernel_variant exercise_11 = {
    "pair_store", "step 11's loads; runs of out stored as whole aligned float2 pairs plus edge floats",
    launch_pair_store, ANY_GPU,
};
