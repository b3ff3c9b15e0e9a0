/**
 * @file planted_wrong_16.cu
 * @brief Wrong kernels of 2-byte elements that the checker must catch, beside
 *        one correct one: tests/planted_wrong.cu for a step of STEP_DEFINE_16().
 *
 * Each wrong kernel is wrong in one way only a 2-byte check can see: a
 * half-word out of place, an element never written, a write one element
 * past the end (into the harness's slack), or a float-sized store.
 */
#include "harness.h"
#include "kernel_utils.cuh"

/** Threads per block of every kernel here. */
#define THREADS 256

/** @brief The source index in `in` of output element @p i. */
static __device__ size_t source_of(size_t i, size_t rows, size_t cols)
{
    return (i % rows) * cols + i / rows;
}

/** @brief A correct transpose: one thread per output element. */
__global__ void planted16_correct(const uint16_t *in, uint16_t *out, size_t rows, size_t cols)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < rows * cols; i += (size_t)gridDim.x * blockDim.x)
        out[i] = in[source_of(i, rows, cols)];
}

/** @brief Correct except that output elements 0 and 1, one 4-byte word, trade halves. */
__global__ void planted16_swaps_halves(const uint16_t *in, uint16_t *out, size_t rows, size_t cols)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < rows * cols; i += (size_t)gridDim.x * blockDim.x)
        out[i] = in[source_of(i == 0 ? 1 : i == 1 ? 0 : i, rows, cols)];
}

/** @brief Correct except that the last output element is never written. */
__global__ void planted16_skips_last(const uint16_t *in, uint16_t *out, size_t rows, size_t cols)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i + 1 < rows * cols;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = in[source_of(i, rows, cols)];
}

/** @brief Correct, and then writes one element past the end, into the slack. */
__global__ void planted16_writes_past_end(const uint16_t *in, uint16_t *out, size_t rows, size_t cols)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i <= rows * cols; i += (size_t)gridDim.x * blockDim.x)
        out[i] = i < rows * cols ? in[source_of(i, rows, cols)] : 0;
}

/** @brief The signature every planted kernel shares. */
typedef void (*planted16_kernel)(const uint16_t *, uint16_t *, size_t, size_t);

/** @brief Launch @p kernel over rows x cols with a 1D grid-stride grid. */
static size_t launch16(planted16_kernel kernel, const uint16_t *in, uint16_t *out, size_t rows, size_t cols,
                       cudaStream_t stream)
{
    const dim3 block(THREADS);
    const dim3 grid = grid_for_tiles(ceil_div(rows * cols + 1, THREADS), 1);
    kernel<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief Launcher of planted16_correct(). */
static size_t launch_correct(const uint16_t *in, uint16_t *out, size_t rows, size_t cols, cudaStream_t s)
{
    return launch16(planted16_correct, in, out, rows, cols, s);
}
/** @brief Launcher of planted16_swaps_halves(). */
static size_t launch_swaps_halves(const uint16_t *in, uint16_t *out, size_t rows, size_t cols, cudaStream_t s)
{
    return launch16(planted16_swaps_halves, in, out, rows, cols, s);
}
/** @brief Launcher of planted16_skips_last(). */
static size_t launch_skips_last(const uint16_t *in, uint16_t *out, size_t rows, size_t cols, cudaStream_t s)
{
    return launch16(planted16_skips_last, in, out, rows, cols, s);
}
/** @brief Launcher of planted16_writes_past_end(). */
static size_t launch_writes_past_end(const uint16_t *in, uint16_t *out, size_t rows, size_t cols, cudaStream_t s)
{
    return launch16(planted16_writes_past_end, in, out, rows, cols, s);
}

/** The planted kernels; the first is correct, the rest must FAIL. */
static const kernel_variant planted16_variants[] = {
    variant16("correct", "a correct transpose of 2-byte elements: must PASS", launch_correct),
    variant16("swaps_halves", "two half-words of one 4-byte word trade places: must FAIL", launch_swaps_halves),
    variant16("skips_last", "the last element is never written: must FAIL", launch_skips_last),
    variant16("writes_past_end", "writes one element past the end of out: must FAIL", launch_writes_past_end),
};

/** @brief The planted kernels, run like a step of 2-byte elements. */
extern "C" const step_desc planted_16 = {
    "00",
    "planted_wrong_16",
    "Planted wrong kernels of 2-byte elements: the checker must catch them",
    planted16_variants,
    VARIANT_COUNT(planted16_variants),
    NULL,
    sizeof(uint16_t),
};

STEP_MAIN(planted_16)
