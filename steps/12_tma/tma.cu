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
 * Aligned shapes load by TMA. Where TMA cannot describe the matrix (a row
 * pitch that is not a multiple of 16 bytes, a misaligned base, vectors)
 * the kernel of step 11 runs. Variant `one_stage` waits for each tile
 * before asking for the next; `any_shape` is step 11 on every shape.
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
#include <cuda.h>   // CUtensorMap and its enums (the types only: nothing links libcuda)

#include "harness.h"
#include "any_shape.cuh"
#include "kernel_utils.cuh"
#include "tma_tile.cuh"

/** 1 where the GPU has TMA (compute capability 9.0 and newer), else 0. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define HAS_TMA 1
#else
#define HAS_TMA 0
#endif

/* ---- The few PTX instructions of TMA and mbarriers ---------------------------------------- */

/** @brief Make the barrier at shared address @p bar expect one arrival per phase. */
static __device__ __forceinline__ void barrier_init(uint32_t bar)
{
#if HAS_TMA
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar) : "memory");
#endif
}

/** @brief Let the TMA unit (the "async proxy") see barriers initialised by threads. */
static __device__ __forceinline__ void fence_for_tma(void)
{
#if HAS_TMA
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

/** @brief Arrive on @p bar, saying that the phase ends after @p bytes have landed too. */
static __device__ __forceinline__ void barrier_expect_bytes(uint32_t bar, uint32_t bytes)
{
#if HAS_TMA
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
#endif
}

/** @brief Wait until the phase of @p bar with parity @p parity has completed. */
static __device__ __forceinline__ void barrier_wait(uint32_t bar, uint32_t parity)
{
#if HAS_TMA
    asm volatile("{\n\t.reg .pred done;\n"
                 "WAIT:\n\t"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n\t"
                 "@!done bra WAIT;\n}" ::"r"(bar), "r"(parity) : "memory");
#endif
}

/**
 * @brief Ask the TMA unit to copy the box of @p map at (@p x, @p y) (column,
 *        row) to shared address @p dst, and to count its bytes on @p bar.
 */
static __device__ __forceinline__ void tma_load_box(uint32_t dst, const CUtensorMap *map, int x, int y, uint32_t bar)
{
#if HAS_TMA
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];" ::"r"(dst), "l"(map), "r"(x), "r"(y), "r"(bar)
                 : "memory");
#endif
}

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
    // The stages start at the first 1024-byte boundary of the dynamic buffer.
    const uint32_t base = (uint32_t)__cvta_generic_to_shared(dynamic_shared);
    const uint32_t skip = (TMA_SWIZZLE_ALIGN - base % TMA_SWIZZLE_ALIGN) % TMA_SWIZZLE_ALIGN;
    unsigned char *stages = dynamic_shared + skip;
    const uint32_t stages_addr = base + skip;
    const uint32_t full_addr = (uint32_t)__cvta_generic_to_shared(full);

    const size_t tiles_y = ceil_div(rows, TILE);
    const size_t tiles = tiles_y * ceil_div(cols, TILE);
    if (threadIdx.x == 0) {
        for (unsigned s = 0; s < STAGES; ++s)
            barrier_init(full_addr + 8 * s);
        fence_for_tma();
        for (unsigned s = 0; s < STAGES; ++s) {   // fill the pipeline
            const size_t t = blockIdx.x + (size_t)s * gridDim.x;
            if (t < tiles)
                start_tile(&in_map, t, tiles_y, stages_addr + s * TMA_TILE_BYTES, full_addr + 8 * s);
        }
    }
    __syncthreads();   // the barriers are initialised before anyone waits on them

    float4 *out4 = reinterpret_cast<float4 *>(out);
    size_t i = 0;   // how many tiles this block has done
    for (size_t t = blockIdx.x; t < tiles; t += gridDim.x, ++i) {
        const unsigned s = (unsigned)(i % STAGES);
        barrier_wait(full_addr + 8 * s, (uint32_t)((i / STAGES) % 2));
        size_t row0, col0;
        column_major_tile(t, tiles_y, &row0, &col0);
        const unsigned height = tile_extent(rows, row0);
        const unsigned width = tile_extent(cols, col0);
        store_tile_tma(stages + s * TMA_TILE_BYTES, out4, rows, row0, col0, height, width, threadIdx.x);
        __syncthreads();   // everyone has read stage s
        const size_t next = t + (size_t)STAGES * gridDim.x;
        if (threadIdx.x == 0 && next < tiles) {
            fence_for_tma();   // our reads of stage s come before the TMA unit's writes
            start_tile(&in_map, next, tiles_y, stages_addr + s * TMA_TILE_BYTES, full_addr + 8 * s);
        }
    }
}

/* ---- Host side ---------------------------------------------------------------------------- */

/** @brief The driver's cuTensorMapEncodeTiled, found at run time (nothing links libcuda). */
typedef CUresult (*encode_tiled_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                                    const cuuint64_t *, const cuuint32_t *, const cuuint32_t *,
                                    CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion,
                                    CUtensorMapFloatOOBfill);

/** @brief Look up cuTensorMapEncodeTiled once; NULL if the driver lacks it. */
static encode_tiled_fn encode_tiled(void)
{
    static encode_tiled_fn fn = NULL;
    static int looked = 0;
    if (!looked) {
        looked = 1;
        void *p = NULL;
        cudaDriverEntryPointQueryResult found;
#if CUDART_VERSION >= 12050
        const cudaError_t err = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000,
                                                                 cudaEnableDefault, &found);
#else
        const cudaError_t err = cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &p, cudaEnableDefault, &found);
#endif
        if (err == cudaSuccess && found == cudaDriverEntryPointSuccess)
            fn = (encode_tiled_fn)p;
    }
    return fn;
}

/**
 * @brief True when TMA can describe the matrix and the 16-byte stores fit:
 *        both pointers 16-byte aligned, rows and columns multiples of 4
 *        (the row pitch must be a multiple of 16 bytes), and coordinates
 *        that fit TMA's 32-bit integers.
 */
static bool tma_fits(const float *in, const float *out, size_t rows, size_t cols)
{
    return is_aligned_16(in) && is_aligned_16(out) && rows % VEC == 0 && cols % VEC == 0 &&
           rows <= INT32_MAX && cols <= INT32_MAX && encode_tiled() != NULL;
}

/**
 * @brief How far L2 reads beyond each box row: a box row is 128 bytes and a
 *        tile row 256, so a 256-byte promotion fetches the tile's other box
 *        row with it, but only when tile rows lie on 256-byte boundaries.
 *        Elsewhere it would fetch half of a neighbouring tile's row, which
 *        is evicted before that tile is loaded (at 20000 x 20000 on an H100,
 *        19 % more DRAM reads): 128 bytes, just the box row, there.
 */
static CUtensorMapL2promotion l2_promotion(const float *in, size_t cols)
{
    const size_t pitch = cols * sizeof(float);
    return pitch % 256 == 0 && (uintptr_t)in % 256 == 0 ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B
                                                        : CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
}

/** @brief The tensor map of `in`: cols x rows floats, 64x32 boxes, 128-byte swizzle. */
static bool describe_input(CUtensorMap *map, const float *in, size_t rows, size_t cols)
{
    const cuuint64_t size[2] = {cols, rows};              // innermost dimension first
    const cuuint64_t pitch[1] = {cols * sizeof(float)};   // bytes from one row to the next
    const cuuint32_t box[2] = {TMA_BOX_COLS, TILE};
    const cuuint32_t step[2] = {1, 1};
    return encode_tiled()(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, (void *)in, size, pitch, box, step,
                          CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, l2_promotion(in, cols),
                          CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

/** @brief Dynamic shared memory of transpose_tma<STAGES>: the stages, plus room to align them. */
static size_t tma_shared_bytes(unsigned stages)
{
    return (size_t)stages * TMA_TILE_BYTES + TMA_SWIZZLE_ALIGN;
}

/**
 * @brief Launch transpose_tma<STAGES> on as many blocks as the GPU holds at
 *        once (persistent blocks), where tma_fits(); step 11's kernel elsewhere.
 */
template <unsigned STAGES>
static size_t launch_tma_stages(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    CUtensorMap map;
    if (rows == 1 || cols == 1 || !tma_fits(in, out, rows, cols) || !describe_input(&map, in, rows, cols))
        return any_shape_launch(in, out, rows, cols, stream);
    static int resident = 0;   // blocks per multiprocessor, asked once
    static int multiprocessors = 0;
    if (resident == 0) {
        int device;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
        CUDA_CHECK(cudaFuncSetAttribute((const void *)transpose_tma<STAGES>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        (int)tma_shared_bytes(STAGES)));
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, transpose_tma<STAGES>, THREADS,
                                                                 tma_shared_bytes(STAGES)));
    }
    const size_t tiles = ceil_div(rows, TILE) * ceil_div(cols, TILE);
    const size_t persistent = (size_t)resident * multiprocessors;
    const dim3 block(THREADS);
    const dim3 grid = grid_for_tiles(tiles < persistent ? tiles : persistent, 1);
    transpose_tma<STAGES><<<grid, block, tma_shared_bytes(STAGES), stream>>>(map, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief The default: TMA, TMA_STAGES tiles in flight per block. */
static size_t launch_tma(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return launch_tma_stages<TMA_STAGES>(in, out, rows, cols, stream);
}

/** @brief One tile in flight per block: what the pipeline adds. */
static size_t launch_one_stage(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return launch_tma_stages<1>(in, out, rows, cols, stream);
}

/** @brief Step 11's kernel on every shape: what TMA adds on aligned shapes. */
static size_t launch_any_shape(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return any_shape_launch(in, out, rows, cols, stream);
}

/** The kernels of step 12; the first is the default. */
static const kernel_variant variants[] = {
    {"tma", "TMA loads 4 tiles ahead per persistent block (step 11's kernel where TMA cannot describe the matrix)",
     launch_tma, 90},
    {"one_stage", "TMA with one tile in flight per block: what the pipeline adds",
     launch_one_stage, 90},
    {"any_shape", "step 11's kernel on every shape: what TMA adds", launch_any_shape, ANY_GPU},
};

STEP_DEFINE("Tensor Memory Accelerator loads, several tiles in flight", variants, NULL)
