/**
 * @file tma.cu
 * @brief Step 12: Hopper's Tensor Memory Accelerator (TMA) loads the tiles,
 *        several tiles ahead of the threads that write them out.
 *
 * ## The idea
 * Step 10's threads spend instructions on every 16-byte load. On compute
 * capability 9.0 one thread can instead hand the TMA unit a *tensor map*
 * (the matrix's shape and pitch) and a tile's coordinates; the unit copies
 * 64x32 boxes into shared memory, zero-fills and swizzles them and
 * signals an mbarrier. A persistent block keeps TMA_STAGES tiles in
 * flight while its threads write out the oldest.
 *
 * ## What changed since step 11
 * Step 11's threads load each tile themselves; here thread 0 hands the
 * loads to the TMA unit and every thread only stores. `tma`, the default,
 * keeps TMA_STAGES tiles in flight per block; `one_stage`, one, is its
 * control: what the pipeline adds. `any_shape` is step 11's default in the
 * same run, the kernel to beat. Where TMA cannot describe the matrix (rows
 * or columns not a multiple of 4, pointers off 16 bytes) `tma` runs step
 * 11's kernel instead.
 *
 * ## What it assumes
 * Any M, N >= 1, 4-byte-aligned pointers; the TMA kernels need compute
 * capability 9.0 (Hopper): on an older GPU they are SKIP rows.
 *
 * ## Build and run
 *
 *     make step12
 *     ./build/step12 --shapes 32768x32768,8192x8192,10007x7919
 *     ./build/step12 --shapes 8192x8192 --variant one_stage
 *
 * Write-up: docs/steps/12_tma.md
 */
#include "harness.h"
#include "tma.cuh"   // TMA and mbarrier instructions, the tensor map, the persistent launcher

/* ---- The kernel --------------------------------------------------------------------------- */

/** @brief Thread 0 starts loading tile @p t (column-major order) into stage @p stage. */
static __device__ __forceinline__ void start_tile(const CUtensorMap *map, size_t t, size_t tiles_y,
                                                  uint32_t stage_addr, uint32_t bar)
{
    size_t row0, col0;
    column_major_tile(t, tiles_y, &row0, &col0);
    barrier_expect_bytes(bar, TMA_TILE_BYTES);   // out-of-matrix parts count too: they are zero-filled
    for (int b = 0; b < TMA_BOXES; ++b)
        tma_load_box(stage_addr + b * TMA_BOX_BYTES, map, (int)col0 + b * TMA_BOX_COLS, (int)row0, bar);
}

/**
 * @brief Thread 0's start of a pipelined kernel: initialise the STAGES
 *        "full" barriers, then load the block's first STAGES tiles, one
 *        into each stage.
 */
template <unsigned STAGES>
static __device__ __forceinline__ void start_pipeline(const CUtensorMap *map, size_t tiles, size_t tiles_y,
                                                      uint32_t stages_addr, uint32_t full_addr)
{
    for (unsigned s = 0; s < STAGES; ++s)
        barrier_init(full_addr + 8 * s);
    fence_for_tma();   // the TMA unit sees the initialised barriers
    for (unsigned s = 0; s < STAGES; ++s) {
        const size_t t = blockIdx.x + (size_t)s * gridDim.x;
        if (t < tiles)
            start_tile(map, t, tiles_y, stages_addr + s * TMA_TILE_BYTES, full_addr + 8 * s);
    }
}

/**
 * @brief The storing threads' part of tile @p t, the block's @p i-th: wait
 *        until stage @p s has landed, then write it out transposed.
 *
 * Stage s is filled for the (i / STAGES)-th time, so the barrier's phase to
 * wait for alternates with it.
 */
template <unsigned STAGES>
static __device__ __forceinline__ void write_out_stage(const unsigned char *stages, uint32_t full_addr, float4 *out4,
                                                       size_t rows, size_t cols, size_t tiles_y, size_t t, size_t i,
                                                       unsigned s)
{
    barrier_wait(full_addr + 8 * s, (uint32_t)((i / STAGES) % 2));
    size_t row0, col0;
    column_major_tile(t, tiles_y, &row0, &col0);
    const unsigned height = tile_extent(rows, row0);
    const unsigned width = tile_extent(cols, col0);
    store_tile_tma(stages + s * TMA_TILE_BYTES, out4, rows, row0, col0, height, width, threadIdx.x);
}

/**
 * @brief The TMA kernel: a persistent block walks tiles t = blockIdx.x,
 *        + gridDim.x, ... in column-major order, with STAGES of them loaded
 *        ahead by the TMA unit.
 *
 * Only valid when the launcher's tma_fits() holds: rows and columns
 * multiples of 4, both pointers 16-byte aligned.
 */
template <unsigned STAGES>
__global__ void __launch_bounds__(THREADS)
transpose_tma(const __grid_constant__ CUtensorMap in_map, float *__restrict__ out, size_t rows, size_t cols)
{
#if !HAS_TMA
    __trap();   // never launched there: the variants need compute capability 9.0
#endif
    extern __shared__ unsigned char dynamic_shared[];
    __shared__ uint64_t full[STAGES];   // full[s]: stage s has landed
    const tma_stages aligned = aligned_stages(dynamic_shared);   // the first 1024-byte boundary
    unsigned char *stages = aligned.ptr;
    const uint32_t stages_addr = aligned.addr;
    const uint32_t full_addr = (uint32_t)__cvta_generic_to_shared(full);

    const size_t tiles_y = ceil_div(rows, TILE);
    const size_t tiles = tiles_y * ceil_div(cols, TILE);
    if (threadIdx.x == 0)
        start_pipeline<STAGES>(&in_map, tiles, tiles_y, stages_addr, full_addr);
    __syncthreads();   // the barriers are initialised before anyone waits on them

    float4 *out4 = reinterpret_cast<float4 *>(out);
    size_t i = 0;   // how many tiles this block has done
    for (size_t t = blockIdx.x; t < tiles; t += gridDim.x, ++i) {
        const unsigned s = (unsigned)(i % STAGES);
        write_out_stage<STAGES>(stages, full_addr, out4, rows, cols, tiles_y, t, i, s);
        __syncthreads();   // everyone has read stage s
        const size_t next = t + (size_t)STAGES * gridDim.x;
        if (threadIdx.x == 0 && next < tiles) {
            fence_for_tma();   // our reads of stage s come before the TMA unit's writes
            start_tile(&in_map, next, tiles_y, stages_addr + s * TMA_TILE_BYTES, full_addr + 8 * s);
        }
    }
}

/** @brief transpose_tma<STAGES> on persistent blocks where TMA fits, step 11's kernel elsewhere. */
template <unsigned STAGES>
static size_t launch_tma_stages(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return launch_tma_persistent<transpose_tma<STAGES>>(tma_shared_bytes(STAGES), in, out, rows, cols, stream);
}

/** @brief TMA, TMA_STAGES tiles in flight per block. */
static size_t launch_tma(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return launch_tma_stages<TMA_STAGES>(in, out, rows, cols, stream);
}

/** @brief One tile in flight per block: the control for what the pipeline adds. */
static size_t launch_one_stage(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return launch_tma_stages<1>(in, out, rows, cols, stream);
}

/** @brief Step 11's default in the same run: the kernel TMA has to beat. */
static size_t launch_any_shape(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return any_shape_launch(in, out, rows, cols, stream);
}

/** The kernels of step 12; the first is the default. */
static const kernel_variant variants[] = {
    {"tma", "TMA loads 4 tiles ahead per persistent block (step 11's kernel where TMA cannot describe the matrix)",
     launch_tma, 90},
    {"one_stage", "TMA with one tile in flight per block: the control for what the pipeline adds",
     launch_one_stage, 90},
    {"any_shape", "step 11's default, its threads loading their own tiles: the kernel to beat", launch_any_shape,
     ANY_GPU},
};

STEP_DEFINE("Tensor Memory Accelerator loads, several tiles in flight", variants, NULL)
