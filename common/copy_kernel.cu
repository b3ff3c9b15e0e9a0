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
 * @brief out[i] = in[i] for i < count, as float4 where possible.
 *
 * The first `head` floats (0-3) are copied one by one so that the rest
 * starts on a 16-byte boundary; `vec_count` float4s follow; the last
 * floats are again copied one by one. head is the same for both pointers
 * (the launcher checks this), otherwise it launches with vec_count = 0 and
 * everything takes the scalar loop.
 */
__global__ void copy_float4(const float *__restrict__ in, float *__restrict__ out,
                            size_t count, size_t head, size_t vec_count)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const float4 *in4 = reinterpret_cast<const float4 *>(in + head);
    float4 *out4 = reinterpret_cast<float4 *>(out + head);
    for (size_t i = first; i < vec_count; i += stride)
        out4[i] = in4[i];
    // Scalar leftovers: the head, and everything after the float4 part.
    const size_t tail_start = head + 4 * vec_count;
    for (size_t i = first; i < head + (count - tail_start); i += stride) {
        const size_t index = i < head ? i : tail_start + (i - head);
        out[index] = in[index];
    }
}

extern "C" size_t copy_kernel_launch(const float *in, float *out, size_t count, cudaStream_t stream)
{
    const size_t head = (4 - ((uintptr_t)in & 15) / 4) % 4;  // floats until `in` is 16-byte aligned
    const int same_alignment = ((uintptr_t)in & 15) == ((uintptr_t)out & 15) && ((uintptr_t)in & 3) == 0;
    const size_t vec_count = same_alignment && count > head ? (count - head) / 4 : 0;
    const size_t scalar_head = vec_count > 0 ? head : 0;
    const size_t work = vec_count > 0 ? vec_count : count;
    const dim3 block(COPY_THREADS);
    const dim3 grid = grid_for_tiles(ceil_div(work, COPY_THREADS), 1);
    copy_float4<<<grid, block, 0, stream>>>(in, out, count, scalar_head, vec_count);
    return threads_launched(grid, block);
}

/** @brief copy_float4() for 2-byte elements: 8 to a 16-byte chunk after a head of 0-7. */
__global__ void copy_chunks_16(const uint16_t *__restrict__ in, uint16_t *__restrict__ out, size_t count,
                               size_t head, size_t vec_count)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const uint4 *in16 = reinterpret_cast<const uint4 *>(in + head);
    uint4 *out16 = reinterpret_cast<uint4 *>(out + head);
    for (size_t i = first; i < vec_count; i += stride)
        out16[i] = in16[i];
    const size_t tail_start = head + 8 * vec_count;
    for (size_t i = first; i < head + (count - tail_start); i += stride) {
        const size_t index = i < head ? i : tail_start + (i - head);
        out[index] = in[index];
    }
}

extern "C" size_t copy_kernel_launch_16(const uint16_t *in, uint16_t *out, size_t count, cudaStream_t stream)
{
    const size_t head = (8 - ((uintptr_t)in & 15) / 2) % 8;  // elements until `in` is 16-byte aligned
    const int same_alignment = ((uintptr_t)in & 15) == ((uintptr_t)out & 15) && ((uintptr_t)in & 1) == 0;
    const size_t vec_count = same_alignment && count > head ? (count - head) / 8 : 0;
    const size_t scalar_head = vec_count > 0 ? head : 0;
    const size_t work = vec_count > 0 ? vec_count : count;
    const dim3 block(COPY_THREADS);
    const dim3 grid = grid_for_tiles(ceil_div(work, COPY_THREADS), 1);
    copy_chunks_16<<<grid, block, 0, stream>>>(in, out, count, scalar_head, vec_count);
    return threads_launched(grid, block);
}
