/**
 * @file kernel_utils.cuh
 * @brief Small helpers that the steps' launchers and kernels share.
 *
 * The grid is limited to 2^31-1 blocks in x and 65535 in y. A 5,000,000 x 3
 * matrix cut into 32-row tiles needs 156,250 tiles in one direction, so no
 * launcher may map tiles to blocks one to one. Instead each launcher asks
 * grid_for_tiles() for a grid no larger than the limits, and each kernel
 * walks the tiles with grid-stride loops:
 * @code
 * for (size_t tile_row = blockIdx.y; tile_row < tiles_y; tile_row += gridDim.y)
 *     for (size_t tile_col = blockIdx.x; tile_col < tiles_x; tile_col += gridDim.x)
 *         ...
 * @endcode
 * On ordinary shapes each block does exactly one tile and the loops cost
 * one compare each.
 */
#ifndef TRANSPOSE_KERNEL_UTILS_CUH
#define TRANSPOSE_KERNEL_UTILS_CUH

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime.h>

/** @brief Largest grid size in x that every GPU of compute capability 3.0+ accepts. */
#define MAX_GRID_X 2147483647u
/** @brief Largest grid size in y and z. */
#define MAX_GRID_Y 65535u

/**
 * @brief Most threads one multiprocessor holds at once, on the GPU being
 *        compiled for: the one occupancy table of this repository.
 *
 * | compute capability           | threads | 256-thread blocks |
 * | ---------------------------- | ------- | ----------------- |
 * | 8.0, 9.0, 10.0               | 2048    | 8                 |
 * | 8.6, 8.7, 8.9, 12.0          | 1536    | 6                 |
 * | 7.5 (Turing)                 | 1024    | 4                 |
 *
 * A GPU not in the table gets the middle row: asking `__launch_bounds__`
 * for too few blocks costs occupancy, asking for too many costs spills.
 * The host pass of nvcc sees no `__CUDA_ARCH__`; `__launch_bounds__` is
 * only read by the device passes, so the host value does not matter.
 */
#if !defined(__CUDA_ARCH__)
#define MAX_THREADS_PER_SM 2048
#elif __CUDA_ARCH__ == 750
#define MAX_THREADS_PER_SM 1024
#elif __CUDA_ARCH__ == 800 || __CUDA_ARCH__ == 900 || __CUDA_ARCH__ == 1000
#define MAX_THREADS_PER_SM 2048
#else
#define MAX_THREADS_PER_SM 1536
#endif

/**
 * @brief Most blocks of @p threads threads one multiprocessor holds, as far
 *        as its thread limit goes (for blocks of 128 threads or more, the
 *        limit that binds). For `__launch_bounds__(threads, blocks)`.
 */
#define MAX_BLOCKS_PER_SM(threads) (MAX_THREADS_PER_SM / (threads))

/**
 * @brief `#pragma unroll` for code that also runs on the host (steps 11 and
 *        12, tested by tests/test_tiles.cu): only the device compiler knows it.
 */
#ifdef __CUDA_ARCH__
#define UNROLL_ON_DEVICE _Pragma("unroll")
#else
#define UNROLL_ON_DEVICE
#endif

/** @brief a / b, rounded up. */
static inline __host__ __device__ size_t ceil_div(size_t a, size_t b)
{
    return (a + b - 1) / b;
}

/**
 * @brief A grid of tiles_x x tiles_y blocks, clamped to the grid limits.
 *
 * Kernels launched on it must walk the tiles with grid-stride loops
 * (see the file comment), so clamping never drops work.
 */
static inline dim3 grid_for_tiles(size_t tiles_x, size_t tiles_y)
{
    dim3 grid;
    grid.x = (unsigned)(tiles_x < MAX_GRID_X ? tiles_x : MAX_GRID_X);
    grid.y = (unsigned)(tiles_y < MAX_GRID_Y ? tiles_y : MAX_GRID_Y);
    grid.z = 1;
    return grid;
}

/**
 * @brief When loads of `in` ask L2 for more than the sectors they read
 *        (steps 12 and 13): never, always, or where lines_reused() holds.
 */
enum lines_rule { LINES_NEVER, LINES_ALWAYS, LINES_WHERE_REUSED };

/**
 * @brief True where the rest of a block that one tile's loads fetched
 *        whole is still in an L2 of @p l2_bytes when the tile beside reads
 *        it. Tiles go down a column first, so the tile beside comes one
 *        column of tiles later; in between, that column's pieces of `in` and
 *        `out` (@p column_bytes together) pass through L2. Whole blocks pay
 *        where those fill at most a quarter of it (appendices 12 and 13).
 */
static inline __host__ __device__ bool lines_reused(size_t column_bytes, size_t l2_bytes)
{
    return column_bytes <= l2_bytes / 4;
}

/** @brief True when @p p may be read or written as a float4 (16-byte aligned). */
static inline __host__ __device__ bool is_aligned_16(const void *p)
{
    return ((uintptr_t)p & 15u) == 0;
}

/** @brief Total number of threads in a launch of @p grid x @p block. */
static inline size_t threads_launched(dim3 grid, dim3 block)
{
    return (size_t)grid.x * grid.y * grid.z * block.x * block.y * block.z;
}

/**
 * @brief An attribute of the current GPU (cudaDevAttrL2CacheSize, ...), or
 *        0 where the runtime cannot say: kernel code never exits, and the
 *        error stays for the caller's cudaGetLastError().
 */
static inline int device_attribute(cudaDeviceAttr attribute)
{
    int device, value;
    if (cudaGetDevice(&device) != cudaSuccess || cudaDeviceGetAttribute(&value, attribute, device) != cudaSuccess)
        return 0;
    return value;
}

/** Threads per block of the copy kernel. */
#define COPY_THREADS 256

/**
 * @brief out[i] = in[i] for i < count elements of type T, 16 bytes at a
 *        time where possible: the copy bound's kernel, and the transpose
 *        of a matrix of one row or one column.
 *
 * The first `head` elements (fewer than 16 bytes) are copied one by one so
 * that the rest starts on a 16-byte boundary; `vec_count` 16-byte chunks
 * follow; the last elements are again copied one by one. head is the same
 * for both pointers (the launcher checks this), otherwise it launches with
 * vec_count = 0 and everything takes the one-by-one loop.
 */
template <class T>
static __global__ void copy_chunks(const T *__restrict__ in, T *__restrict__ out, size_t count, size_t head,
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
static inline size_t copy_elements_launch(const T *in, T *out, size_t count, cudaStream_t stream)
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

#endif /* TRANSPOSE_KERNEL_UTILS_CUH */
