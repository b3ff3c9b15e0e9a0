/**
 * @file timing_kernels.cu
 * @brief The two kernels of the timing loop: the L2 flush by reading, and
 *        the hold that keeps a batch of timed runs waiting until it is queued.
 */
#include "kernel_utils.cuh"
#include "timing.h"

/** Threads per block of the flush kernel. */
#define FLUSH_THREADS 256
/**
 * A value the flush kernel compares its checksum with. The buffer is all
 * zeros, so the checksum never equals it, but the compiler cannot know that
 * and must keep every load.
 */
#define FLUSH_NEVER_MATCHES 0x9E3779B9u

/**
 * @brief Where the flush kernel would write its checksum; it never does.
 *        Not static: a global that other code could read is what forbids
 *        the compiler to drop the store, and with it the loads.
 */
__device__ unsigned int flush_sink;

/**
 * @brief Read @p count 16-byte vectors of @p buffer, one per thread in a
 *        grid-stride loop, and fold them into a checksum.
 *
 * Reading a buffer several times the size of L2 replaces every line in it.
 * Lines that earlier work left dirty are written back now, during the flush,
 * and L2 ends up holding only clean lines of this buffer.
 */
__global__ void flush_by_reading(const uint4 *buffer, size_t count)
{
    unsigned int checksum = 0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x) {
        const uint4 v = buffer[i];
        checksum ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (checksum == FLUSH_NEVER_MATCHES)  // never true: keeps the loads alive
        flush_sink = checksum;
}

/** @brief The GPU's nanosecond clock, `%globaltimer`. */
static __device__ unsigned long long globaltimer_ns(void)
{
    unsigned long long now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    return now;
}

/**
 * @brief Spin until the host sets `*release`, or give up after @p timeout_ns.
 *
 * Launched with one thread in front of a batch of timed runs. @p release
 * lives in pinned host memory; `volatile` makes every iteration load it
 * again over PCIe instead of reusing the first value it read. The host sets
 * it once the whole batch is queued, so the runs then follow one another
 * with no gap for the host to fill. If the host never sets it (it died, or
 * a launcher waits for the GPU and so can never finish queuing), the kernel
 * records that in @p gave_up and returns, so the GPU is never stuck.
 */
__global__ void hold_until_released(const volatile int *release, volatile int *gave_up,
                                    unsigned long long timeout_ns)
{
    const unsigned long long start = globaltimer_ns();
    while (*release == 0) {
        if (globaltimer_ns() - start > timeout_ns) {
            *gave_up = 1;
            return;
        }
    }
}

extern "C" void flush_read_launch(const void *buffer, size_t bytes, cudaStream_t stream)
{
    const size_t count = bytes / sizeof(uint4);
    const dim3 grid = grid_for_tiles(ceil_div(count, FLUSH_THREADS), 1);
    flush_by_reading<<<grid, FLUSH_THREADS, 0, stream>>>(static_cast<const uint4 *>(buffer), count);
}

extern "C" void hold_launch(const int *release, int *gave_up, unsigned long long timeout_ns,
                            cudaStream_t stream)
{
    hold_until_released<<<1, 1, 0, stream>>>(release, gave_up, timeout_ns);
}
