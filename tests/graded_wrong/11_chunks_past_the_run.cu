// Caught by: Correctness (on rows that do not start on a chunk, the run's end chunks overwrite floats of the neighbouring runs with zeros)
/**
 * @file 11_chunks_past_the_run.cu
 * @brief Exercise 11 with every store 16 bytes wide, the run rounded outward
 *        to whole chunks: right only where every run starts and ends on a
 *        chunk boundary (rows a multiple of 4, aligned pointers).
 *        tests/test_grader.py grades it.
 */
#include "harness.h"
#include "steps/11_any_shape/any_shape.cuh"

/** Threads that share one run of `out`: 256 threads, 64 runs. */
#define RUN_LANES (THREADS / TILE)

/**
 * @brief The mistake: the run rounded outward to whole chunks. The chunks at
 *        its two ends also hold floats of the runs above and below, which
 *        other threads write: this one overwrites them with zeros.
 */
static __device__ __forceinline__ void store_run(const float *tile, chunked<float4> out, float *out_floats,
                                                 size_t rows, size_t row0, size_t col0, unsigned height,
                                                 unsigned width, unsigned tid)
{
    (void)out_floats;
    const unsigned cc = tid / RUN_LANES;
    const unsigned lane = tid % RUN_LANES;
    if (cc >= width)
        return;
    const size_t flat = (col0 + cc) * rows + row0 + out.lead;
    const size_t c_first = flat / VEC;
    const unsigned chunks = (unsigned)((flat + height - 1) / VEC - c_first + 1);   // at most 17
UNROLL_ON_DEVICE
    for (unsigned k = lane; k < TILE / VEC + 1; k += RUN_LANES)
        if (k < chunks) {
            float v[VEC];
UNROLL_ON_DEVICE
            for (unsigned e = 0; e < VEC; ++e) {
                const long long r = (long long)((c_first + k) * VEC + e) - (long long)flat;   // tile row
                v[e] = r >= 0 && r < (long long)height ? tile[r * AS_STRIDE + cc] : 0.0f;
            }
            out.chunks[c_first + k] = make_float4(v[0], v[1], v[2], v[3]);
        }
}

/** @brief Step 11's load side and tile order, with store_run() on the way out. */
static __global__ void __launch_bounds__(THREADS, AS_BLOCKS_PER_SM)
transpose_chunked_store(const float *__restrict__ in, float *__restrict__ out, size_t rows, size_t cols)
{
    __shared__ float tile[TILE * AS_STRIDE];
    const chunked<const float4> in_chunks = as_chunks(in);
    const chunked<float4> out_chunks = as_chunks(out);
    const size_t tiles_y = ceil_div(rows, TILE);
    const size_t tiles_x = ceil_div(cols, TILE);
    for (size_t t = blockIdx.x; t < tiles_y * tiles_x; t += gridDim.x) {
        size_t row0, col0;
        column_major_tile(t, tiles_y, &row0, &col0);
        const unsigned height = tile_extent(rows, row0);
        const unsigned width = tile_extent(cols, col0);
        load_tile_any_shape(tile, in_chunks, rows * cols, cols, row0, col0, height, width, threadIdx.x);
        __syncthreads();   // the whole tile is in shared memory
        store_run(tile, out_chunks, out, rows, row0, col0, height, width, threadIdx.x);
        __syncthreads();   // everyone is done reading before the next tile overwrites it
    }
}

/** @brief One block of 256 threads per 64 x 64 tile, a clamped 1-D grid; vectors are copied. */
static size_t launch_chunked_store(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    if (rows == 1 || cols == 1)
        return copy_kernel_launch(in, out, rows * cols, stream);
    const dim3 block(THREADS);
    const dim3 grid = grid_for_tiles(ceil_div(rows, TILE) * ceil_div(cols, TILE), 1);
    transpose_chunked_store<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief The reference kernel, as the grader (lab/grade_main.cu) links it: not static. */
extern "C" const kernel_variant exercise_11 = {
    "chunked_store", "step 11's loads; runs of out stored as whole aligned float4 chunks plus edge floats",
    launch_chunked_store, ANY_GPU,
};
