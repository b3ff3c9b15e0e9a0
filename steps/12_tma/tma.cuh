/**
 * @file tma.cuh
 * @brief What every TMA kernel of the tutorial needs: the few PTX
 *        instructions of TMA loads and mbarriers, the tensor map of the
 *        input, and a launcher for persistent blocks (step 12, exercise 12).
 *
 * Nothing here links libcuda: cuTensorMapEncodeTiled is looked up in the
 * driver at run time, and the wrappers compile to nothing below compute
 * capability 9.0 (the kernels that use them are never launched there).
 */
#ifndef TRANSPOSE_TMA_CUH
#define TRANSPOSE_TMA_CUH

#include <cuda.h>   // CUtensorMap and its enums (the types only: nothing links libcuda)
#include <stdint.h>

#include "steps/11_any_shape/any_shape.cuh"
#include "check.h"
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

/* ---- Host side: the tensor map ---------------------------------------------------------------------------- */

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
    return vec4_fits(in, out, rows, cols) && rows <= INT32_MAX && cols <= INT32_MAX && encode_tiled() != NULL;
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

/**
 * @brief The tensor map of `in`, a row-major matrix of @p rows rows of
 *        @p cols floats: 64-row x 32-float boxes, 128-byte swizzle, read
 *        with l2_promotion().
 */
static bool describe_input(CUtensorMap *map, const float *in, size_t rows, size_t cols)
{
    const cuuint64_t size[2] = {cols, rows};               // innermost dimension first
    const cuuint64_t pitch[1] = {cols * sizeof(float)};    // bytes from one row to the next
    const cuuint32_t box[2] = {TMA_BOX_COLS, TILE};
    const cuuint32_t step[2] = {1, 1};
    return encode_tiled()(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, (void *)in, size, pitch, box, step,
                          CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, l2_promotion(in, cols),
                          CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

/** @brief Where a TMA kernel's stages start: a pointer for the threads, an address for the TMA unit. */
struct tma_stages {
    unsigned char *ptr;   /**< the first stage, for the threads' loads */
    uint32_t addr;        /**< the same, as a shared-memory address for `cp.async.bulk.tensor` */
};

/**
 * @brief The first 1024-byte boundary of the dynamic shared buffer @p dynamic:
 *        the 128-byte swizzle repeats every 1024 bytes, so a stage must start
 *        on one (tma_shared_bytes() leaves room for the step forward).
 */
static __device__ __forceinline__ tma_stages aligned_stages(unsigned char *dynamic)
{
    const uint32_t base = (uint32_t)__cvta_generic_to_shared(dynamic);
    const uint32_t skip = (TMA_SWIZZLE_ALIGN - base % TMA_SWIZZLE_ALIGN) % TMA_SWIZZLE_ALIGN;
    return tma_stages{dynamic + skip, base + skip};
}

/** @brief Dynamic shared memory of transpose_tma<STAGES>: the stages, plus room to align them. */
static size_t tma_shared_bytes(unsigned stages)
{
    return (size_t)stages * TMA_TILE_BYTES + TMA_SWIZZLE_ALIGN;
}

/**
 * @brief How many blocks of @p kernel, of @p threads threads with @p shared
 *        bytes of dynamic shared memory, the GPU holds at once: the persistent grid
 *        (persistent_blocks_of() asks once per kernel and keeps the answer).
 */
static size_t persistent_blocks(const void *kernel, size_t shared, unsigned threads)
{
    int device, resident, multiprocessors;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, (int)threads, shared));
    return (size_t)resident * multiprocessors;
}

/**
 * @brief persistent_blocks() of @p KERNEL, asked on its first launch and kept:
 *        one cache per kernel, whatever its signature.
 */
template <auto KERNEL>
static size_t persistent_blocks_of(size_t shared, unsigned threads)
{
    static size_t blocks = 0;
    if (blocks == 0)
        blocks = persistent_blocks((const void *)KERNEL, shared, threads);
    return blocks;
}

/** @brief The grid: one block per tile, at most @p persistent of them. */
static dim3 persistent_grid(size_t persistent, size_t rows, size_t cols)
{
    const size_t tiles = ceil_div(rows, TILE) * ceil_div(cols, TILE);
    return grid_for_tiles(tiles < persistent ? tiles : persistent, 1);
}

/**
 * @brief Launch @p KERNEL (a TMA kernel over `in`'s tensor map) on
 *        persistent blocks, each with @p shared bytes of dynamic shared
 *        memory, where tma_fits(); step 11's kernel elsewhere (vectors, rows
 *        not a multiple of 4 floats, misaligned pointers).
 */
template <void (*KERNEL)(CUtensorMap, float *, size_t, size_t)>
static size_t launch_tma_persistent(size_t shared, const float *in, float *out, size_t rows, size_t cols,
                                    cudaStream_t stream)
{
    CUtensorMap map;
    if (rows == 1 || cols == 1 || !tma_fits(in, out, rows, cols) || !describe_input(&map, in, rows, cols))
        return any_shape_launch(in, out, rows, cols, stream);
    const dim3 block(THREADS);
    const dim3 grid = persistent_grid(persistent_blocks_of<KERNEL>(shared, THREADS), rows, cols);
    KERNEL<<<grid, block, shared, stream>>>(map, out, rows, cols);
    return threads_launched(grid, block);
}

#endif /* TRANSPOSE_TMA_CUH */
