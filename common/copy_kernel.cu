/**
 * @file copy_kernel.cu
 * @brief The copy kernel of the copy bound: what a transpose would cost if
 *        moving the bytes were all there was to it.
 */
#include "baselines.h"
#include "kernel_utils.cuh"

/** Threads per block of the copy kernel. */
#define COPY_THREADS 256

/**
 * @brief out[i] = in[i] for i < count elements of type T, 16 bytes at a
 *        time where possible.
 *
 * The first `head` elements (fewer than 16 bytes) are copied one by one so
 * that the rest starts on a 16-byte boundary; `vec_count` 16-byte chunks
 * follow; the last elements are again copied one by one. head is the same
 * for both pointers (the launcher checks this), otherwise it launches with
 * vec_count = 0 and everything takes the one-by-one loop.
 */
template <class T>
__global__ void copy_chunks(const T *__restrict__ in, T *__restrict__ out, size_t count, size_t head,
                            size_t vec_count)
{
    constexpr size_t per_chunk = 16 / sizeof(T);
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const uint4 *in16 = reinterpret_cast<const uint4 *>(in + head);
    uint4 *out16 = reinterpret_cast<uint4 *>(out + head);
    for (size_t i = first; i < vec_count; i += stride)
        out16[i] = in16[i];
    // One by one: the head, and everything after the chunks.
    const size_t tail_start = head + per_chunk * vec_count;
    for (size_t i = first; i < head + (count - tail_start); i += stride) {
        const size_t index = i < head ? i : tail_start + (i - head);
        out[index] = in[index];
    }
}

/** @brief Launch copy_chunks<T>() over @p count elements: 16-byte chunks if both pointers sit alike. */
template <class T>
static size_t copy_launch(const T *in, T *out, size_t count, cudaStream_t stream)
{
    constexpr size_t per_chunk = 16 / sizeof(T);
    const size_t head = (per_chunk - ((uintptr_t)in & 15) / sizeof(T)) % per_chunk;  // until `in` is aligned
    const int same_alignment =
        ((uintptr_t)in & 15) == ((uintptr_t)out & 15) && ((uintptr_t)in % sizeof(T)) == 0;
    const size_t vec_count = same_alignment && count > head ? (count - head) / per_chunk : 0;
    const size_t scalar_head = vec_count > 0 ? head : 0;
    const size_t work = vec_count > 0 ? vec_count : count;
    const dim3 block(COPY_THREADS);
    const dim3 grid = grid_for_tiles(ceil_div(work, COPY_THREADS), 1);
    copy_chunks<T><<<grid, block, 0, stream>>>(in, out, count, scalar_head, vec_count);
    return threads_launched(grid, block);
}

extern "C" size_t copy_kernel_launch(const float *in, float *out, size_t count, cudaStream_t stream)
{
    return copy_launch(in, out, count, stream);
}

extern "C" size_t copy_kernel_launch_16(const uint16_t *in, uint16_t *out, size_t count, cudaStream_t stream)
{
    return copy_launch(in, out, count, stream);
}
