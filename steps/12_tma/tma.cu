/**
 * @file tma.cu
 * @brief Step 12: Hopper's Tensor Memory Accelerator (TMA) loads the tiles,
 *        several tiles ahead of the threads that write them out.
 *
 * ## The idea
 * Step 10's threads spend instructions on every 16-byte load. On compute
 * capability 9.0 one thread can instead hand the TMA unit a *tensor map*
 * (the matrix's shape and pitch) and a tile's coordinates; the unit copies
 * the 64x32 box into shared memory, zero-fills what lies outside the
 * matrix, swizzles it (`SWIZZLE_128B`) and signals an mbarrier. A
 * persistent block keeps STAGES tiles in flight while its 256 threads
 * write out the oldest with step 10's 4x4 register transpose.
 *
 * ## What changed since step 11
 * Variant `tma` loads aligned shapes by TMA (step 11's kernel where TMA
 * cannot describe the matrix); `one_stage` waits for each tile before
 * asking for the next; `tma_store` stores by TMA too; `producer_warp`
 * gives the loads a warp of their own.
 *
 * ## The answer
 * The default, `answer`, is what the measurements leave: step 09's
 * kernel on aligned matrices up to a size measured per GPU, step 09's or
 * the chunk kernel on matrices thinner than a tile, step 11's elsewhere
 * (steps/12_tma/answer.cuh).
 *
 * ## What it assumes
 * Any M, N >= 1, 4-byte-aligned pointers; the TMA variants need compute
 * capability 9.0 (elsewhere they are reported as SKIP).
 *
 * ## Build and run
 *
 *     make step12
 *     ./build/step12 --shapes 32768x32768,10007x7919
 *     ./build/step12 --shapes 16384x16384 --variant one_stage
 *
 * Write-up: docs/steps/12_tma.md
 */
#include "harness.h"
#include "answer.cuh"   // the default: which kernel of the tutorial runs on which shape
#include "tma.cuh"      // TMA and mbarrier instructions, the tensor map, the persistent launcher

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

/**
 * @brief TMA both ways: loads as in transpose_tma(), and each tile, once
 *        transposed into one of two staging buffers, stored by the TMA unit
 *        too, so that the threads issue no global store at all.
 *
 * Per tile i (stage s, staging buffer o = i % 2): wait for the stage; every
 * thread writes its 4x4 block transposed into buffer o and fences it for
 * the TMA unit; thread 0 waits until the TMA unit has read buffer 1 - o
 * (tile i - 1's store), so that tile i + 1 may overwrite it; a barrier;
 * thread 0 starts the store of buffer o and the load of tile i + STAGES.
 */
template <unsigned STAGES>
__global__ void __launch_bounds__(THREADS)
transpose_tma_store(const __grid_constant__ CUtensorMap in_map, const __grid_constant__ CUtensorMap out_map,
                    size_t rows, size_t cols)
{
#if !HAS_TMA
    __trap();   // never launched there: the variants need compute capability 9.0
#endif
    extern __shared__ unsigned char dynamic_shared[];
    __shared__ uint64_t full[STAGES];
    const tma_stages aligned = aligned_stages(dynamic_shared);
    unsigned char *stages = aligned.ptr;   // STAGES tiles of `in`, then 2 tiles of `out`
    unsigned char *staging = stages + STAGES * TMA_TILE_BYTES;
    const uint32_t stages_addr = aligned.addr;
    const uint32_t staging_addr = stages_addr + STAGES * TMA_TILE_BYTES;
    const uint32_t full_addr = (uint32_t)__cvta_generic_to_shared(full);

    const size_t tiles_y = ceil_div(rows, TILE);
    const size_t tiles = tiles_y * ceil_div(cols, TILE);
    if (threadIdx.x == 0)
        start_pipeline<STAGES>(&in_map, tiles, tiles_y, stages_addr, full_addr);
    __syncthreads();

    size_t i = 0;
    for (size_t t = blockIdx.x; t < tiles; t += gridDim.x, ++i) {
        const unsigned s = (unsigned)(i % STAGES), o = (unsigned)(i % 2);
        barrier_wait(full_addr + 8 * s, (uint32_t)((i / STAGES) % 2));
        stage_tile_for_tma_store(stages + s * TMA_TILE_BYTES, staging + o * TMA_TILE_BYTES, threadIdx.x);
        fence_for_tma();   // this thread's writes to buffer o, before the TMA unit reads it
        if (threadIdx.x == 0)
            bulk_wait_read();   // tile i - 1's store has read buffer 1 - o
        __syncthreads();        // buffer o is complete, stage s is read, buffer 1 - o is free
        if (threadIdx.x == 0) {
            size_t row0, col0;
            column_major_tile(t, tiles_y, &row0, &col0);
            for (int b = 0; b < TMA_BOXES; ++b)   // the tile of `out`: rows col0.., columns row0..
                tma_store_box(&out_map, (int)row0 + b * TMA_BOX_COLS, (int)col0,
                              staging_addr + o * TMA_TILE_BYTES + b * TMA_BOX_BYTES);
            bulk_commit();
            const size_t next = t + (size_t)STAGES * gridDim.x;
            if (next < tiles)
                start_tile(&in_map, next, tiles_y, stages_addr + s * TMA_TILE_BYTES, full_addr + 8 * s);
        }
    }
    if (threadIdx.x == 0)
        bulk_wait();   // the shared memory being stored stays until the stores are done
}

/** Threads of a block of transpose_tma_producer(): the 256 that store, and one warp that loads. */
#define PRODUCER_THREADS (THREADS + 32)

/**
 * @brief TMA loads issued by a warp of their own: the 256 storing threads
 *        never wait for each other.
 *
 * In transpose_tma() the whole block meets at `__syncthreads()` after each
 * tile before thread 0 refills the stage, so one slow warp could hold all
 * the others. Here a ninth warp only loads: before it reuses stage s it
 * waits on `empty[s]`, a barrier that completes when all 256 storing
 * threads have arrived on it, each once it has read the stage. The storing
 * threads wait only for `full[s]`, their tile's bytes. (Measured: the
 * barrier stall goes, the speed stays; appendix 12, group 1.)
 */
template <unsigned STAGES>
__global__ void __launch_bounds__(PRODUCER_THREADS)
transpose_tma_producer(const __grid_constant__ CUtensorMap in_map, float *__restrict__ out, size_t rows, size_t cols)
{
#if !HAS_TMA
    __trap();   // never launched there: the variants need compute capability 9.0
#endif
    extern __shared__ unsigned char dynamic_shared[];
    __shared__ uint64_t full[STAGES];    // full[s]: stage s has landed
    __shared__ uint64_t empty[STAGES];   // empty[s]: the 256 storing threads have read stage s
    const tma_stages aligned = aligned_stages(dynamic_shared);
    unsigned char *stages = aligned.ptr;
    const uint32_t stages_addr = aligned.addr;
    const uint32_t full_addr = (uint32_t)__cvta_generic_to_shared(full);
    const uint32_t empty_addr = (uint32_t)__cvta_generic_to_shared(empty);

    const size_t tiles_y = ceil_div(rows, TILE);
    const size_t tiles = tiles_y * ceil_div(cols, TILE);
    if (threadIdx.x == 0) {
        for (unsigned s = 0; s < STAGES; ++s) {
            barrier_init(full_addr + 8 * s);
            barrier_init_count(empty_addr + 8 * s, THREADS);
        }
        fence_for_tma();
    }
    __syncthreads();   // the barriers are initialised before anyone waits on them

    if (threadIdx.x >= THREADS) {   // the loading warp: one thread asks the TMA unit for every tile
        if (threadIdx.x == THREADS) {
            size_t i = 0;
            for (size_t t = blockIdx.x; t < tiles; t += gridDim.x, ++i) {
                const unsigned s = (unsigned)(i % STAGES);
                if (i >= STAGES) {   // stage s last held tile i - STAGES: wait until it has been read
                    barrier_wait(empty_addr + 8 * s, (uint32_t)((i / STAGES - 1) % 2));
                    fence_for_tma();   // those reads come before the TMA unit's writes
                }
                start_tile(&in_map, t, tiles_y, stages_addr + s * TMA_TILE_BYTES, full_addr + 8 * s);
            }
        }
        return;
    }
    float4 *out4 = reinterpret_cast<float4 *>(out);
    size_t i = 0;
    for (size_t t = blockIdx.x; t < tiles; t += gridDim.x, ++i) {
        const unsigned s = (unsigned)(i % STAGES);
        write_out_stage<STAGES>(stages, full_addr, out4, rows, cols, tiles_y, t, i, s);
        barrier_arrive(empty_addr + 8 * s);   // this thread is done with stage s
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

/** @brief One tile in flight per block: what the pipeline adds. */
static size_t launch_one_stage(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return launch_tma_stages<1>(in, out, rows, cols, stream);
}

/** @brief The default: the kernel that steps/12_tma/answer.cuh picks for the shape. */
static size_t launch_answer(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return answer_launch(in, out, rows, cols, stream);
}

/** @brief Step 11's kernel on every shape: what TMA adds on aligned shapes. */
static size_t launch_any_shape(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return any_shape_launch(in, out, rows, cols, stream);
}

/** @brief TMA loads and stores, 2 tiles in flight, 2 staging buffers. */
static size_t launch_tma_store(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return launch_tma_store_persistent<transpose_tma_store<2>>(tma_shared_bytes(2 + 2), in, out, rows, cols,
                                                               stream);
}

/** @brief TMA_STAGES tiles in flight, loaded by a warp of their own. */
static size_t launch_producer_warp(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return launch_tma_persistent<transpose_tma_producer<TMA_STAGES>, PRODUCER_THREADS>(
        tma_shared_bytes(TMA_STAGES), in, out, rows, cols, stream);
}

/** The kernels of step 12; the first is the default. */
static const kernel_variant variants[] = {
    {"answer", "the tutorial's answer: step 09's, step 11's or the chunk kernel, by shape and GPU (steps/12_tma/answer.cuh)",
     launch_answer, ANY_GPU},
    {"tma", "TMA loads 4 tiles ahead per persistent block (step 11's kernel where TMA cannot describe the matrix)",
     launch_tma, 90},
    {"one_stage", "TMA with one tile in flight per block: what the pipeline adds",
     launch_one_stage, 90},
    {"tma_store", "TMA loads and TMA stores from a transposed staging tile: no global store by a thread",
     launch_tma_store, 90},
    {"producer_warp", "TMA loads 4 tiles ahead, issued by a warp of their own: the storing threads never meet",
     launch_producer_warp, 90},
    {"any_shape", "step 11's kernel on every shape: what TMA adds", launch_any_shape, ANY_GPU},
};

STEP_DEFINE("Tensor Memory Accelerator loads, several tiles in flight", variants, NULL)
