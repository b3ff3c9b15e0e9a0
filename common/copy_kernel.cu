/**
 * @file copy_kernel.cu
 * @brief The copy kernel of the copy bound: what a transpose would cost if
 *        moving the bytes were all there was to it (copy_chunks(), in
 *        kernel_utils.cuh, where the steps' launchers copy vectors with it).
 */
#include "baselines.h"
#include "kernel_utils.cuh"

extern "C" size_t copy_kernel_launch(const float *in, float *out, size_t count, cudaStream_t stream)
{
    return copy_elements_launch(in, out, count, stream);
}

extern "C" size_t copy_kernel_launch_16(const uint16_t *in, uint16_t *out, size_t count, cudaStream_t stream)
{
    return copy_elements_launch(in, out, count, stream);
}
