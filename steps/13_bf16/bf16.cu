/**
 * @file bf16.cu
 * @brief Step 13: the transpose of 2-byte elements (bf16), where two
 *        elements share each bank word of shared memory.
 *
 * ## The idea
 * A 16-byte chunk holds 8 bf16 elements and a 4-byte bank word holds 2.
 * Step 09's store, ported (`port`), makes 16 shared loads of 2 bytes per
 * 32 bytes out. Instead, a thread reads one word (columns 2h, 2h + 1)
 * from each of 8 tile rows, and byte permutes (`PRMT`) pair the low
 * halves into column 2h's chunk and the high halves into column 2h + 1's:
 * 8 loads of 4 bytes for two 16-byte chunks (`prmt`, the default). `ldsm`
 * and `stsm` use `ldmatrix`/`stmatrix .trans` instead.
 *
 * ## The kernels
 * `prmt`, `port`, `ldsm` and `stsm` use 64 x 128 tiles (16 KB); `prmt`
 * takes 64 x 64 below one wave of tiles and 128 x 128 past L2, down the
 * columns of tiles or, from 4 : 1 where rows of `in` start off sectors,
 * along the rows. Rows not whole chunks take sector runs; thin matrices,
 * slabs of 16-byte chunks. prmt_default.cuh holds these choices.
 *
 * ## What it assumes
 * Any M, N >= 1, 2-byte-aligned pointers (`--offset 0-7`). `cublas` is
 * cuBLASLt's `cublasLtMatrixTransform` on CUDA_R_16BF.
 *
 * ## Build and run
 *
 *     make step13
 *     ./build/step13 --shapes 16384x16384 --variant port
 *     ./build/step13 --shapes 10007x7919,8192x8192+1,1x67108864
 *
 * Write-up: docs/steps/13_bf16.md
 */
#include "harness.h"
#include "prmt_default.cuh"   // the kernels (bf16.cuh) and the default: its tile, order and L2 hint by shape

/** @brief The float32 design ported: one 2-byte shared load per element. */
static size_t launch_port(const uint16_t *in, uint16_t *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return transpose16_launch<tile_64x128<>, T16_PORT, runs_144<>>(in, out, rows, cols, stream);
}

/** @brief ldmatrix .trans reads 8x8 blocks transposed; shuffles make 16-byte chunks. */
static size_t launch_ldsm(const uint16_t *in, uint16_t *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return transpose16_launch<tile_64x128<>, T16_LDSM, runs_144<>>(in, out, rows, cols, stream);
}

/** @brief stmatrix .trans transposes 8x8 blocks on the way into shared memory; rows are copied out. */
static size_t launch_stsm(const uint16_t *in, uint16_t *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return transpose16_launch<tile_64x128<>, T16_STSM, runs_144<>>(in, out, rows, cols, stream);
}

/** @brief The default: the PRMT store on the tile that suits the shape (prmt_default.cuh). */
static size_t launch_prmt(const uint16_t *in, uint16_t *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return prmt_default_launch(in, out, rows, cols, stream);
}

/** The kernels of step 13; the first is the default. */
static const kernel_variant variants[] = {
    variant16("prmt", "PRMT pairs the half-words of two columns; 64x128 tiles, 128x128 past the size of L2",
              launch_prmt),
    variant16("port", "64x128 tiles; the float32 store: one 2-byte shared load per element", launch_port),
    variant16("ldsm", "64x128 tiles; ldmatrix .trans reads 8x8 blocks transposed, shuffles make 16-byte chunks",
              launch_ldsm, 75),
    variant16("stsm", "64x128 tiles; stmatrix .trans stores 8x8 blocks transposed, rows copied out as 16-byte chunks",
              launch_stsm, 90),
};

STEP_DEFINE_16("bf16: two elements to a bank word", variants, NULL)
