/**
 * @file dispatch_bf16.cuh
 * @brief The bf16 rule: step 13's default, `prmt`, on the GPU current at
 *        each call.
 *
 * The rule is step 13's (steps/13_bf16/prmt_default.cuh, prmt_pick()):
 * slabs of 16-byte chunks on thin matrices, sector runs where rows of `out`
 * start off 32-byte sectors, else the PRMT store on 128 x 128 tiles past
 * L2, 64 x 64 below one wave of 64 x 128 tiles, and 64 x 128 between,
 * with two rows of its own (bf16_pick()). It
 * needs two facts of the GPU, the size of L2 and how many blocks it holds;
 * here they are asked once per device (per_device()), and a failure to ask
 * is returned, not fatal.
 */
#ifndef TRANSPOSE_DISPATCH_BF16_CUH
#define TRANSPOSE_DISPATCH_BF16_CUH

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime.h>

#include "per_device.cuh"                    // per_device(): the GPU's facts, asked once per device
#include "steps/13_bf16/prmt_default.cuh"    // prmt_pick(), prmt_launch_choice(), prmt_gpu_asked()

/** @brief The ::prmt_gpu of the current GPU, asked of the runtime; its error where it cannot say. */
static inline cudaError_t bf16_gpu_ask(prmt_gpu *gpu)
{
    *gpu = prmt_gpu_asked();
    if (gpu->l2_bytes != 0 && gpu->resident_blocks != 0)
        return cudaSuccess;
    const cudaError_t err = cudaGetLastError();   // the call that failed left it here
    return err != cudaSuccess ? err : cudaErrorUnknown;
}

/** @brief The ::prmt_gpu of the current GPU, asked on the first call on each device and kept. */
static inline cudaError_t bf16_gpu_here(prmt_gpu *gpu)
{
    return per_device<prmt_gpu, bf16_gpu_ask>(gpu);
}

/** Matrices in 1 / this of L2 keep 64 x 64 tiles where step 13 takes 64 x 128 (the dispatch study). */
#define BF16_L2_SHARE 2

/** Rows of `in` of at most this many bytes: the sector runs' loads ask L2 for whole lines (the dispatch study). */
#define BF16_SHORT_ROW_BYTES 1024

/**
 * @brief Step 13's choice for @p in, @p out, @p rows x @p cols on @p gpu
 *        (lines where reused, its own tile order), with two rows read off
 *        shapes past the bar's (`make study STUDIES=dispatch-bf16`):
 *        - in half of L2, 64 x 64 tiles led 64 x 128 (768 x 3072 to
 *          2048 x 5120): twice the blocks, and the bytes come back
 *          from L2, not DRAM;
 *        - sector runs on rows of `in` of at most 1 KB ask for whole
 *          lines: each line then holds a large part of a row, all of it
 *          read (1000003 x 77, 77777 x 333; not 123457 x 1001, where
 *          they cost).
 */
static inline prmt_choice bf16_pick(const uint16_t *in, const uint16_t *out, size_t rows, size_t cols, prmt_gpu gpu)
{
    prmt_choice choice = prmt_pick(LINES_WHERE_REUSED, order_for(in, rows, cols), in, out, rows, cols, gpu);
    const size_t bytes = rows * cols * sizeof(uint16_t);
    if (choice.kernel == PRMT_TILES_64x128 && bytes <= gpu.l2_bytes / BF16_L2_SHARE)
        choice.kernel = PRMT_TILES_64x64;
    if (choice.kernel == PRMT_RUNS && cols * sizeof(uint16_t) <= BF16_SHORT_ROW_BYTES)
        choice.lines = true;
    return choice;
}

/** @brief Run the launch bf16_pick() names for this shape on @p gpu (bf16_gpu_here()). */
static inline size_t dispatch_bf16_launch(prmt_gpu gpu, const uint16_t *in, uint16_t *out, size_t rows,
                                          size_t cols, cudaStream_t stream)
{
    return prmt_launch_choice(bf16_pick(in, out, rows, cols, gpu), in, out, rows, cols, stream);
}

/** @brief What bf16_pick()'s @p kernel is, and the row of the rule that picks it, in words. */
static inline const char *bf16_kernel_named(prmt_kernel kernel)
{
    switch (kernel) {
    case PRMT_SLABS:
        return "slabs: slabs of 16-byte chunks along the long side (2-63 rows or 2-31 columns)";
    case PRMT_RUNS:
        return "runs: sector runs of 144 elements (rows of out not starting on 32-byte sectors)";
    case PRMT_TILES_128x128:
        return "prmt 128x128: the PRMT store on 128 x 128 tiles (larger than L2, over 64 rows and columns; "
               "sector runs where rows are not whole aligned chunks)";
    case PRMT_TILES_64x64:
        return "prmt 64x64: the PRMT store on 64 x 64 tiles (in half of L2, or fewer 64 x 128 tiles than the GPU "
               "holds at once; sector runs where rows are not whole aligned chunks)";
    case PRMT_TILES_64x128:
    default:
        return "prmt 64x128: the PRMT store on 64 x 128 tiles (in L2, one wave or more; sector runs where rows "
               "are not whole aligned chunks)";
    }
}

#endif /* TRANSPOSE_DISPATCH_BF16_CUH */
