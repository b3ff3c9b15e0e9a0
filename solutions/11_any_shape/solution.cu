/**
 * @file solution.cu
 * @brief Reference solution to exercise 11: write each run of `out` as its
 *        whole aligned 16-byte chunks, plus the 0-3 floats at each end.
 *
 * The load side is step 11's (load_tile_any_shape() in steps/11_any_shape/any_shape.cuh):
 * after it, tile column cc holds the `height` floats that go to row
 * col0 + cc of `out`, starting at column row0. That stretch of `out` is a
 * *run*. It starts at float `flat = first + out.lead` counted from the
 * aligned chunk array, so:
 *
 * - `head = (4 - flat % 4) % 4` floats (capped at the run's length) come
 *   before its first whole chunk; they share a chunk with the run above,
 *   which another tile writes, so they are written one by one;
 * - `whole = (height - head) / 4` chunks lie wholly inside the run: one
 *   16-byte store each, the four floats gathered from four tile rows;
 * - `tail` floats are left after the last whole chunk, again one by one.
 *
 * A whole chunk never holds a float of another run, and every float of the
 * run is in exactly one of the three parts, so every float of `out` is
 * written exactly once, by one thread, whatever the shape and alignment.
 *
 * The four lanes of a run take its chunks in turn (w = lane, lane + 4, ...).
 * Step 11 goes one step further: it lines the lanes' chunks up on 64-byte
 * boundaries, so that one store instruction fills whole 32-byte sectors.
 *
 * Task: exercises/11_any_shape/README.md. Grade: `make grade EX=11`.
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
    const unsigned cc = tid / RUN_LANES;   // tile column = the run of `out` row col0 + cc
    const unsigned lane = tid % RUN_LANES;
    if (cc >= width)
        return;
    const size_t first = (col0 + cc) * rows + row0;   // the run's first element of `out`
    const size_t flat = first + out.lead;              // the same, counted from out.chunks
    const unsigned head_wanted = (unsigned)((VEC - flat % VEC) % VEC);
    const unsigned head = head_wanted < height ? head_wanted : height;
    const unsigned whole = (height - head) / VEC;
    const unsigned tail = height - head - whole * VEC;
    const size_t chunk0 = (flat + head) / VEC;         // the first whole chunk
    // Constant trip counts (at most 16 whole chunks, 6 edge floats), so that the
    // compiler unrolls both loops and keeps everything in registers.
UNROLL_ON_DEVICE
    for (unsigned w = lane; w < TILE / VEC; w += RUN_LANES)
        if (w < whole) {
            const float *src = tile + (head + w * VEC) * AS_STRIDE + cc;   // 4 tile rows, one column
            out.chunks[chunk0 + w] = make_float4(src[0], src[AS_STRIDE], src[2 * AS_STRIDE], src[3 * AS_STRIDE]);
        }
UNROLL_ON_DEVICE
    for (unsigned e = lane; e < 2 * (VEC - 1); e += RUN_LANES)
        if (e < head + tail) {
            const unsigned r = e < head ? e : head + whole * VEC + (e - head);   // tile row of edge float e
            out_floats[first + r] = tile[r * AS_STRIDE + cc];
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
extern "C" const kernel_variant solution_11 = {
    "chunked_store", "step 11's loads; runs of out stored as whole aligned float4 chunks plus edge floats",
    launch_chunked_store, ANY_GPU,
};
