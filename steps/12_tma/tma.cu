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
 * `tma` loads by TMA where TMA can describe the matrix (step 11's kernel
 * elsewhere); `one_stage`, with one tile in flight per block, is its control.
 * Bounds `copy_down` and `copy_across` copy in the answer's tiles;
 * `swap_*` put them, untransposed, where the answer writes them.
 *
 * ## The answer
 * The default, `answer` (steps/14_dispatch/dispatch_f32.cuh), is what measurement left: a
 * 16-byte tile kernel (step 09's; `tiles_down` on the H200) on aligned
 * matrices with rows of `out` on 64 bytes, up to a size measured per
 * GPU; step 11's slabs or chunk kernel, or step 09's, on thin matrices;
 * step 11's elsewhere. No TMA.
 *
 * ## What it assumes
 * Any M, N >= 1, 4-byte-aligned pointers; the TMA variants need compute
 * capability 9.0.
 *
 * ## Build and run
 *
 *     make step12
 *     ./build/step12 --shapes 32768x32768,8192x8192,10007x7919
 *     ./build/step12 --shapes 8192x8192 --variant tma
 *     ./build/step12 --shapes 8192x8192 --variant one_stage
 *
 * Write-up: docs/steps/12_tma.md
 */
#include "harness.h"
#include "steps/14_dispatch/dispatch_f32.cuh"   // the default, until step 12's own: the capstone's float32 rule
#include "tma.cuh"      // TMA and mbarrier instructions, the tensor map, the persistent launcher
#include "tile_copy.cuh"   // the two bounds: copies in the answer's tiles

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

/** @brief The capstone's float32 rule on this GPU, @p rule: when step 11's sector runs ask L2 for lines. */
static size_t launch_answer_by(lines_rule rule, const float *in, float *out, size_t rows, size_t cols,
                               cudaStream_t stream)
{
    f32_gpu gpu;
    CUDA_CHECK(f32_gpu_here(&gpu));
    return dispatch_f32_launch(gpu, in, out, rows, cols, stream, rule);
}

/** @brief The default: the kernel that steps/14_dispatch/dispatch_f32.cuh picks for the shape. */
static size_t launch_answer(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return launch_answer_by(LINES_WHERE_REUSED, in, out, rows, cols, stream);
}

/** @brief The answer with step 11's sector runs asking L2 for lines on every shape. */
static size_t launch_answer_lines(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return launch_answer_by(LINES_ALWAYS, in, out, rows, cols, stream);
}

/** @brief The answer with step 11's sector runs asking L2 for sectors alone on every shape. */
static size_t launch_answer_sectors(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return launch_answer_by(LINES_NEVER, in, out, rows, cols, stream);
}

/** @brief Step 09's 16-byte tile down the columns of `in`, one tile per block (tiles_down.cuh). */
static size_t launch_tiles_down(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return tiles_down_launch(in, out, rows, cols, stream);
}

/** @brief The bound: a copy in 64x64 tiles taken down columns, the answer's order. */
static size_t launch_copy_down(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return tile_copy_launch<true>(in, out, rows, cols, stream);
}

/** @brief The bound: whole 64x64 tiles moved, untransposed, to their transposed places, in the answer's order. */
static size_t launch_swap_down(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return tile_copy_launch<true, true>(in, out, rows, cols, stream);
}

/** @brief The bound: whole 64x64 tiles moved, untransposed, to their transposed places, taken along rows. */
static size_t launch_swap_across(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return tile_copy_launch<false, true>(in, out, rows, cols, stream);
}

/** @brief swap_down's tiles moved a 128 x 128 region at a time: a 128 x 128 tile's pieces. */
static size_t launch_swap_down_128(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return tile_copy_launch<true, true, 2>(in, out, rows, cols, stream);
}

/** @brief swap_across's tiles moved a 128 x 128 region at a time: a 128 x 128 tile's pieces. */
static size_t launch_swap_across_128(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return tile_copy_launch<false, true, 2>(in, out, rows, cols, stream);
}

/** @brief swap_down's tiles moved a 32 x 32 quadrant per block: a 32 x 32 tile's pieces. */
static size_t launch_swap_down_32(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return swap_quadrants_launch<true>(in, out, rows, cols, stream);
}

/** @brief swap_across's tiles moved a 32 x 32 quadrant per block: a 32 x 32 tile's pieces. */
static size_t launch_swap_across_32(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return swap_quadrants_launch<false>(in, out, rows, cols, stream);
}

/** @brief The bound: a copy in 64x64 tiles taken along rows. */
static size_t launch_copy_across(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return tile_copy_launch<false>(in, out, rows, cols, stream);
}

/** The kernels of step 12; the first is the default. */
static const kernel_variant variants[] = {
    {"answer", "the tutorial's answer: step 09's, tiles_down, step 11's or the chunk kernel, by shape and GPU "
     "(steps/14_dispatch/dispatch_f32.cuh)",
     launch_answer, ANY_GPU},
    {"tma", "TMA loads 4 tiles ahead per persistent block (step 11's kernel where TMA cannot describe the matrix)",
     launch_tma, 90},
    {"one_stage", "TMA with one tile in flight per block: the control for what the pipeline adds",
     launch_one_stage, 90},
    {"answer_lines", "the answer, its sector runs asking L2 for whole lines on every shape (the default: where "
     "the tile beside reuses them)", launch_answer_lines, ANY_GPU},
    {"answer_sectors", "the answer, its sector runs asking L2 for the sectors they read alone", launch_answer_sectors,
     ANY_GPU},
    {"tiles_down", "step 09's 16-byte tile down the columns of in, one tile per block, 8 blocks per SM "
     "(step 09's kernel where rows are not whole chunks)", launch_tiles_down, ANY_GPU},
    {"copy_down", "a bound: out = in, a COPY in 64x64 tiles taken down columns (the answer's reads, both ways)",
     launch_copy_down, ANY_GPU, OUTPUT_COPY},
    {"copy_across", "a bound: out = in, a COPY in 64x64 tiles taken along rows (the answer's writes, both ways)",
     launch_copy_across, ANY_GPU, OUTPUT_COPY},
    {"swap_down", "a bound: whole 64x64 tiles moved to their transposed places untransposed, taken down columns "
     "(the answer's reads and writes)", launch_swap_down, ANY_GPU, OUTPUT_TILES_SWAPPED},
    {"swap_across", "a bound: whole 64x64 tiles moved to their transposed places untransposed, taken along rows "
     "(step 09's order)", launch_swap_across, ANY_GPU, OUTPUT_TILES_SWAPPED},
    {"swap_down_128", "a bound: swap_down's tiles moved four at a time from 128x128 regions (a 128x128 tile's "
     "pieces)", launch_swap_down_128, ANY_GPU, OUTPUT_TILES_SWAPPED},
    {"swap_across_128", "a bound: swap_across's tiles moved four at a time from 128x128 regions (a 128x128 "
     "tile's pieces)", launch_swap_across_128, ANY_GPU, OUTPUT_TILES_SWAPPED},
    {"swap_down_32", "a bound: swap_down's tiles moved a 32x32 quadrant per block (a 32x32 tile's pieces)",
     launch_swap_down_32, ANY_GPU, OUTPUT_TILES_SWAPPED},
    {"swap_across_32", "a bound: swap_across's tiles moved a 32x32 quadrant per block (a 32x32 tile's pieces)",
     launch_swap_across_32, ANY_GPU, OUTPUT_TILES_SWAPPED},
};

STEP_DEFINE("Tensor Memory Accelerator loads, several tiles in flight", variants, NULL)
