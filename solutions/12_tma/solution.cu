/**
 * @file solution.cu
 * @brief Reference solution to exercise 12: TMA loads one 64 x 64 tile at a
 *        time into shared memory, completed on an mbarrier, and the block
 *        writes it out transposed.
 *
 * Per block (persistent: as many blocks as the GPU holds, each walking tiles
 * t = blockIdx.x, + gridDim.x, ...):
 *
 * 1. thread 0 initialises one mbarrier for one arrival, and fences so that
 *    the TMA unit sees it; a __syncthreads() publishes it to the block;
 * 2. for each tile, thread 0 arrives on the barrier saying how many bytes
 *    will land (`expect_tx`: the whole tile, 16 KB, zero-filled parts
 *    included) and asks the TMA unit for the tile's two 64 x 32 boxes;
 * 3. every thread waits for the barrier's current phase to complete. The
 *    phase flips each time the tile lands, so the parity to wait for is the
 *    number of tiles done so far, mod 2;
 * 4. the block writes the tile out (store_tile_tma(), step 12's), then a
 *    __syncthreads() makes sure no thread still reads the tile when thread 0
 *    asks for the next one, after a proxy fence that orders those reads
 *    before the TMA unit's writes.
 *
 * Step 12 keeps several tiles in flight per block; this is its `one_stage`
 * variant, written out.
 *
 * Task: exercises/12_tma/README.md. Grade: `make grade EX=12`.
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
        barrier_wait(bar, parity);
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
extern "C" const kernel_variant solution_12 = {
    "tma_single", "TMA loads one 64x64 tile at a time per persistent block, mbarrier completion",
    launch_tma_single, 90,
};
