/**
 * @file planted_wrong.cu
 * @brief Deliberately wrong kernels that the harness must catch.
 *
 * A checker that never fails proves nothing. The test suite runs each of
 * these with `--check-only` on a GPU and demands exit code 1 (wrong result)
 * from every one except `correct`, which must pass with exit code 0, so the
 * harness is shown to tell the two apart. `needs_newer_gpu` must be
 * reported as SKIP, with exit code 0, on every GPU.
 */
#include "harness.h"
#include "kernel_utils.cuh"

/** Threads per block of every kernel here. */
#define THREADS 256

/** @brief A correct but slow transpose: one thread per output element. */
__global__ void planted_correct(const float *in, float *out, size_t rows, size_t cols)
{
    const size_t count = rows * cols;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x) {
        const size_t out_row = i / rows, out_col = i % rows;  // = (col, row) of `in`
        out[i] = in[out_col * cols + out_row];
    }
}

/** @brief Writes nothing: only the poisoned output can catch this. */
__global__ void planted_writes_nothing(const float *, float *, size_t, size_t) {}

/** @brief Correct except that it forgets the last column of the input
 *         (the last row of the output) when cols is not a multiple of 4. */
__global__ void planted_drops_tail(const float *in, float *out, size_t rows, size_t cols)
{
    const size_t kept_cols = cols / 4 * 4;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < rows * kept_cols;
         i += (size_t)gridDim.x * blockDim.x) {
        const size_t out_row = i / rows, out_col = i % rows;
        out[out_row * rows + out_col] = in[out_col * cols + out_row];
    }
}

/** @brief Correct except that two neighbouring output elements are swapped. */
__global__ void planted_swaps_two(const float *in, float *out, size_t rows, size_t cols)
{
    const size_t count = rows * cols;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x) {
        const size_t source = i == 0 ? 1 : i == 1 ? 0 : i;  // the bug: 0 and 1 trade places
        const size_t out_row = source / rows, out_col = source % rows;
        out[i] = in[out_col * cols + out_row];
    }
}

/** @brief Copies instead of transposing: right only when the matrix is a vector. */
__global__ void planted_copies(const float *in, float *out, size_t rows, size_t cols)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < rows * cols;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = in[i];
}

/** @brief The one kernel signature every planted kernel shares. */
typedef void (*planted_kernel)(const float *, float *, size_t, size_t);

/** @brief Launch @p kernel over rows x cols with a 1D grid-stride grid. */
static size_t launch_planted(planted_kernel kernel, const float *in, float *out, size_t rows,
                             size_t cols, cudaStream_t stream)
{
    const dim3 block(THREADS);
    const dim3 grid = grid_for_tiles(ceil_div(rows * cols, THREADS), 1);
    kernel<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief Launcher of planted_correct(). */
static size_t launch_correct(const float *in, float *out, size_t rows, size_t cols, cudaStream_t s)
{
    return launch_planted(planted_correct, in, out, rows, cols, s);
}
/** @brief Launcher of planted_writes_nothing(). */
static size_t launch_writes_nothing(const float *in, float *out, size_t rows, size_t cols,
                                    cudaStream_t s)
{
    return launch_planted(planted_writes_nothing, in, out, rows, cols, s);
}
/** @brief Launcher of planted_drops_tail(). */
static size_t launch_drops_tail(const float *in, float *out, size_t rows, size_t cols,
                                cudaStream_t s)
{
    return launch_planted(planted_drops_tail, in, out, rows, cols, s);
}
/** @brief Launcher of planted_swaps_two(). */
static size_t launch_swaps_two(const float *in, float *out, size_t rows, size_t cols,
                               cudaStream_t s)
{
    return launch_planted(planted_swaps_two, in, out, rows, cols, s);
}
/** @brief Launcher of planted_copies(). */
static size_t launch_copies(const float *in, float *out, size_t rows, size_t cols, cudaStream_t s)
{
    return launch_planted(planted_copies, in, out, rows, cols, s);
}

/**
 * @brief The planted kernels. `needs_newer_gpu` is correct but asks for a
 *        compute capability no GPU has, so it must be reported as SKIP.
 */
static const kernel_variant planted_variants[] = {
    {"correct", "a correct transpose: must PASS", launch_correct, ANY_GPU},
    {"writes_nothing", "writes no element: must FAIL", launch_writes_nothing, ANY_GPU},
    {"drops_tail", "skips the columns past the last multiple of 4: must FAIL", launch_drops_tail,
     ANY_GPU},
    {"swaps_two", "swaps two output elements: must FAIL", launch_swaps_two, ANY_GPU},
    {"copies", "copies instead of transposing: must FAIL unless the matrix is a vector",
     launch_copies, ANY_GPU},
    {"needs_newer_gpu", "a correct transpose that needs compute capability 99.9: must SKIP",
     launch_correct, 999},
};

/** @brief The planted kernels, run like a step. */
extern "C" const step_desc planted = {
    "00",
    "planted_wrong",
    "Planted wrong kernels: the checker must catch them",
    planted_variants,
    VARIANT_COUNT(planted_variants),
    NULL,
    sizeof(float),
};

STEP_MAIN(planted)
