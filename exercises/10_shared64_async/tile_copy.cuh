/**
 * @file tile_copy.cuh
 * @brief Given code for exercise 10: the tile geometry, the asynchronous tile copy and the
 *        tile write-out, shared by the exercise and its reference solution.
 *
 * A 32 x 8 block moves a 64 x 64 tile through a padded shared buffer
 * `float buf[TILE][TILE + PAD]`, 16 elements per thread, as in step 10.
 * The exercise is the loop around these two functions: see README.md.
 */
#ifndef EXERCISE_10_TILE_COPY_CUH
#define EXERCISE_10_TILE_COPY_CUH

#include <cuda_pipeline_primitives.h>

#include "harness.h"
#include "kernel_utils.cuh"

/** Side of the square tile. */
#define TILE 64
/** One padding column: a column of the tile then spans all 32 banks. */
#define PAD 1
/** Threads per block along x (one warp). */
#define BLOCK_COLS 32
/** Threads per block along y. */
#define BLOCK_ROWS 8

static_assert(TILE % BLOCK_COLS == 0 && TILE % BLOCK_ROWS == 0,
              "the block must cover the tile exactly");

/**
 * @brief Start asynchronous copies of this thread's elements of tile
 *        (@p tile_row, @p tile_col) of `in` into @p dst; elements outside
 *        the matrix are skipped.
 *
 * `__pipeline_memcpy_async` is `cp.async` on sm_80 and later (global to
 * shared memory without passing through registers) and an ordinary copy on
 * older GPUs. The copies belong to the calling thread's current batch: end
 * the batch with `__pipeline_commit()`, and before reading @p dst wait for
 * it with `__pipeline_wait_prior(n)` (all but the newest n batches done),
 * then `__syncthreads()` so that every thread's copies are visible.
 */
static inline __device__ void load_tile_async(float (*dst)[TILE + PAD], const float *__restrict__ in,
                                              size_t rows, size_t cols,
                                              size_t tile_row, size_t tile_col)
{
#pragma unroll
    for (int i = 0; i < TILE; i += BLOCK_ROWS) {
        const int r = threadIdx.y + i;           // row inside the tile
        const size_t row = tile_row * TILE + r;  // row of `in`
#pragma unroll
        for (int j = 0; j < TILE; j += BLOCK_COLS) {
            const int c = threadIdx.x + j;           // column inside the tile
            const size_t col = tile_col * TILE + c;  // column of `in`
            if (row < rows && col < cols)
                __pipeline_memcpy_async(&dst[r][c], &in[row * cols + col], sizeof(float));
        }
    }
}

/**
 * @brief Write this thread's elements of tile (@p tile_row, @p tile_col),
 *        held in @p src, to `out`: a warp writes 32 consecutive floats of an
 *        output row, read from a column of @p src.
 */
static inline __device__ void store_tile(float (*src)[TILE + PAD], float *__restrict__ out,
                                         size_t rows, size_t cols,
                                         size_t tile_row, size_t tile_col)
{
#pragma unroll
    for (int i = 0; i < TILE; i += BLOCK_ROWS) {
        const int r = threadIdx.y + i;               // row of the output tile
        const size_t out_row = tile_col * TILE + r;  // row of `out` = column of `in`
#pragma unroll
        for (int j = 0; j < TILE; j += BLOCK_COLS) {
            const int c = threadIdx.x + j;               // column of the output tile
            const size_t out_col = tile_row * TILE + c;  // column of `out` = row of `in`
            if (out_row < cols && out_col < rows)
                out[out_row * rows + out_col] = src[c][r];  // padded: conflict-free column
        }
    }
}

/**
 * @brief How many blocks of @p threads threads running @p kernel the whole
 *        GPU holds at once (SMs x resident blocks per SM), at least 1.
 */
static inline size_t resident_blocks(const void *kernel, int threads)
{
    int device = 0, sms = 0, per_sm = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0));
    const size_t blocks = (size_t)sms * (size_t)per_sm;
    return blocks > 0 ? blocks : 1;
}

#endif /* EXERCISE_10_TILE_COPY_CUH */
