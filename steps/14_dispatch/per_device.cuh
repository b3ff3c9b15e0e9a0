/**
 * @file per_device.cuh
 * @brief What a rule needs to know of a GPU, asked once per device and kept.
 *
 * The rules read the GPU's name, L2 size or occupancy: calls that take
 * microseconds or more, too slow to make before every launch. per_device()
 * asks them on the first launch on each device and keeps the answer, so a
 * program that moves between GPUs (cudaSetDevice()) gets each GPU's own
 * rule. A mutex keeps two threads from filling the same entry at once.
 */
#ifndef TRANSPOSE_PER_DEVICE_CUH
#define TRANSPOSE_PER_DEVICE_CUH

#include <mutex>
#include <cuda_runtime.h>

/** Devices whose facts are kept; a device numbered higher is asked at every call. */
#define PER_DEVICE_KEPT 64

/**
 * @brief @p Ask's answer for the current device into @p facts: asked on the
 *        first call for that device, kept after; a CUDA error leaves
 *        nothing kept and is returned.
 */
template <class Facts, cudaError_t (*Ask)(Facts *)>
static cudaError_t per_device(Facts *facts)
{
    static std::mutex guard;
    static Facts kept[PER_DEVICE_KEPT];
    static bool asked[PER_DEVICE_KEPT];
    int device;
    const cudaError_t found = cudaGetDevice(&device);
    if (found != cudaSuccess)
        return found;
    if (device >= PER_DEVICE_KEPT)
        return Ask(facts);
    const std::lock_guard<std::mutex> hold(guard);
    if (!asked[device]) {
        const cudaError_t err = Ask(&kept[device]);
        if (err != cudaSuccess)
            return err;
        asked[device] = true;
    }
    *facts = kept[device];
    return cudaSuccess;
}

#endif /* TRANSPOSE_PER_DEVICE_CUH */
