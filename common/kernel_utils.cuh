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

#endif /* TRANSPOSE_KERNEL_UTILS_CUH */
