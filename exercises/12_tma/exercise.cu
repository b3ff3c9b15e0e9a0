/**
 * @file exercise.cu
 * @brief Exercise 12: load each 64 x 64 tile with Hopper's Tensor Memory
 *        Accelerator (TMA), one tile at a time, and wait for it on an mbarrier.
 *
 * The tensor map, the launcher and the PTX of TMA and mbarriers are given
 * (steps/12_tma/tma.cuh), and so is the way out (store_tile_tma(), steps/12_tma/tma_tile.cuh).
 * You write the kernel's loop: who asks for a tile, who waits, and on which
 * phase. The task, hints and what speed to expect are in exercises/12_tma/README.md.
 *
 * Grade: `make grade EX=12` (compute capability 9.0 or newer). Until the TODO
 * is done the kernel writes nothing, and the grader reports FAIL.
 */
#include "harness.h"
#include "steps/12_tma/tma.cuh"   // TMA and mbarrier instructions, the tensor map, the persistent launcher

/** @brief One tile in flight per block: load it with TMA, wait on an mbarrier, write it out. */
static __global__ void __launch_bounds__(THREADS)
transpose_tma_single(const __grid_constant__ CUtensorMap in_map, float *__restrict__ out, size_t rows, size_t cols)
{
#if !HAS_TMA
    __trap();   // never launched there: the variant needs compute capability 9.0
#endif
    extern __shared__ unsigned char dynamic_shared[];
    __shared__ uint64_t landed;   // the mbarrier: the tile has landed
    // The 128-byte swizzle repeats every 1024 bytes: the tile starts on such a boundary.
    const uint32_t base = (uint32_t)__cvta_generic_to_shared(dynamic_shared);
    const uint32_t skip = (TMA_SWIZZLE_ALIGN - base % TMA_SWIZZLE_ALIGN) % TMA_SWIZZLE_ALIGN;
    // Given. [[maybe_unused]] only keeps the compiler quiet until you use them.
    [[maybe_unused]] const unsigned char *tile = dynamic_shared + skip;   // the tile, for the threads
    [[maybe_unused]] const uint32_t tile_addr = base + skip;              // the same, for TMA
    [[maybe_unused]] const uint32_t bar = (uint32_t)__cvta_generic_to_shared(&landed);

    // TODO(exercise 12): with the functions of steps/12_tma/tma.cuh --
    //  - thread 0: barrier_init(bar), then fence_for_tma(); then everyone
    //    __syncthreads(), so that no thread waits on a barrier not yet made;
    //  - walk the tiles t = blockIdx.x, + gridDim.x, ... of the
    //    ceil_div(rows, TILE) * ceil_div(cols, TILE) tiles (column_major_tile()
    //    gives a tile's row0, col0, as in step 12), and for each:
    //    - thread 0: fence_for_tma(); barrier_expect_bytes(bar, TMA_TILE_BYTES);
    //      then tma_load_box() for each of the TMA_BOXES boxes, box b at column
    //      col0 + b * TMA_BOX_COLS, row row0, into tile_addr + b * TMA_BOX_BYTES;
    //    - every thread: barrier_wait(bar, parity), where parity is the number
    //      of tiles this block has done, mod 2;
    //    - store_tile_tma(tile, ...) with the tile's height and width
    //      (tile_extent()), then __syncthreads() before the next tile.
    (void)in_map;
    (void)out;
    (void)rows;
    (void)cols;
}

/** @brief TMA where it can describe the matrix, step 11's kernel elsewhere. */
static size_t launch_tma_single(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return launch_tma_persistent<transpose_tma_single>(tma_shared_bytes(1), in, out, rows, cols, stream);
}

/** @brief Your kernel, as the grader (lab/grade_main.cu) links it: not static. */
extern "C" const kernel_variant exercise_12 = {
    "tma_single", "your kernel: TMA loads one 64x64 tile at a time, mbarrier completion",
    launch_tma_single, 90,
};
