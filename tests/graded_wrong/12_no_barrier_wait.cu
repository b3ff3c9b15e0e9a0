// Caught by: Technique (the threads never wait on the mbarrier: no SYNCS.PHASECHK; a __syncthreads() does not wait for the TMA unit)
/**
 * @file 12_no_barrier_wait.cu
 * @brief Exercise 12 with a __syncthreads() where the threads should wait on
 *        the mbarrier: the block reads the tile while the TMA unit may still be
 *        writing it. Whether the results come out right depends on timing; the
 *        compiled code shows the mistake every time. tests/test_grader.py grades it.
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
    const unsigned char *tile = dynamic_shared + skip;
    const uint32_t tile_addr = base + skip;
    const uint32_t bar = (uint32_t)__cvta_generic_to_shared(&landed);

    if (threadIdx.x == 0) {
        barrier_init(bar);
        fence_for_tma();   // the TMA unit sees the initialised barrier
    }
    __syncthreads();

    const size_t tiles_y = ceil_div(rows, TILE);
    const size_t tiles = tiles_y * ceil_div(cols, TILE);
    float4 *out4 = reinterpret_cast<float4 *>(out);
    uint32_t parity = 0;   // the phase to wait for: tiles done so far, mod 2
    for (size_t t = blockIdx.x; t < tiles; t += gridDim.x, parity ^= 1) {
        size_t row0, col0;
        column_major_tile(t, tiles_y, &row0, &col0);
        if (threadIdx.x == 0) {
            fence_for_tma();   // the block's reads of the last tile come before these writes
            barrier_expect_bytes(bar, TMA_TILE_BYTES);
            for (int b = 0; b < TMA_BOXES; ++b)
                tma_load_box(tile_addr + b * TMA_BOX_BYTES, &in_map, (int)col0 + b * TMA_BOX_COLS, (int)row0, bar);
        }
        __syncthreads();   // the mistake: a block barrier does not wait for the TMA unit
        store_tile_tma(tile, out4, rows, row0, col0, tile_extent(rows, row0), tile_extent(cols, col0), threadIdx.x);
        __syncthreads();   // everyone has read the tile before the next one overwrites it
    }
}

/** @brief TMA where it can describe the matrix, step 11's kernel elsewhere. */
static size_t launch_tma_single(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return launch_tma_persistent<transpose_tma_single>(tma_shared_bytes(1), in, out, rows, cols, stream);
}

/** @brief The reference kernel, as the grader (lab/grade_main.cu) links it: not static. */
extern "C" const kernel_variant exercise_12 = {
    "tma_single", "TMA loads one 64x64 tile at a time per persistent block, mbarrier completion",
    launch_tma_single, 90,
};
