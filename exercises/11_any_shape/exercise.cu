/**
 * @file exercise.cu
 * @brief Exercise 11: store each run of `out` as whole aligned 16-byte chunks, on a
 *        matrix of any shape and any 4-byte alignment.
 *
 * The load side is given: step 11's load_tile_any_shape() (steps/11_any_shape/any_shape.cuh)
 * fills the padded 64 x 66 tile with 16-byte loads whatever the shape. You
 * write store_run(), the way out. The task, hints and what speed to expect
 * are in exercises/11_any_shape/README.md.
 *
 * Grade: `make grade EX=11`. Until the TODO is done the kernel writes
 * nothing, and the grader reports FAIL.
 */
#include "harness.h"
#include "steps/11_any_shape/any_shape.cuh"

/** Threads that share one run of `out`: 256 threads, 64 runs. */
#define RUN_LANES (THREADS / TILE)

/**
 * @brief Write tile column `tid / RUN_LANES` to its run of `out`: whole
 *        chunks as float4, the floats before and after them one by one.
 */
static __device__ __forceinline__ void store_run(const float *tile, chunked<float4> out, float *out_floats,
                                                 size_t rows, size_t row0, size_t col0, unsigned height,
                                                 unsigned width, unsigned tid)
{
    // TODO(exercise 11): tile column cc = tid / RUN_LANES (skip it if cc >= width)
    // goes to row col0 + cc of `out`, columns row0 .. row0 + height - 1: a run
    // that starts at element first = (col0 + cc) * rows + row0, which is float
    // flat = first + out.lead counted from out.chunks (chunk flat / 4).
    //  - head: the floats before the run's first whole chunk, (4 - flat % 4) % 4,
    //    but never more than height;
    //  - whole: the chunks that lie wholly inside the run, (height - head) / 4,
    //    the first being chunk (flat + head) / 4;
    //  - tail: what is left after them.
    // The RUN_LANES lanes of the run take its whole chunks in turn, each
    // written with ONE 16-byte store: out.chunks[k] = make_float4(...) of the
    // four tile rows it holds (tile[r * AS_STRIDE + cc] is tile row r). Then
    // they write the head and tail floats one by one through out_floats.
    (void)tile;
    (void)out;
    (void)out_floats;
    (void)rows;
    (void)row0;
    (void)col0;
    (void)height;
    (void)width;
    (void)tid;
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

/** @brief Your kernel, as the grader (lab/grade_main.cu) links it: not static. */
extern "C" const kernel_variant exercise_11 = {
    "chunked_store", "your kernel: step 11's loads, runs of out stored as whole aligned float4 chunks",
    launch_chunked_store, ANY_GPU,
};
