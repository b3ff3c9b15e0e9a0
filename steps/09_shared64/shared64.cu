/**
 * @file shared64.cu
 * @brief Step 09: a 64x64 shared-memory tile, 16 elements per thread, moved
 *        with 16-byte loads and stores and a swizzle that keeps them
 *        conflict-free.
 *
 * ## The idea
 * Step 08's 32x8 block gets a 64x64 tile: 16 elements per thread, 16 KB of
 * loads in flight per block, moved as float4 *chunks* where the shape
 * allows. A thread loads 4 chunks of tile rows, then reads one 4x4 block
 * of the tile as 4 chunks and writes its columns as 4 chunks of `out`
 * (step 05's register transpose). 16-byte shared accesses are
 * conflict-free when a quarter-warp's 8 chunks lie in 8 bank groups, so
 * chunk c of tile row r is kept at `c ^ ((r / 4) % 8)`.
 *
 * ## What changed since step 08
 * The tile size, float4 accesses, and the swizzle at chunk granularity.
 * Variant `scalar` keeps 4-byte accesses on the same tile.
 *
 * ## What it assumes
 * Any M, N >= 1. The 16-byte kernel (steps/09_shared64/shared64.cuh) runs when
 * every row of `in` and `out` starts on a 16-byte boundary (vec4_fits());
 * otherwise the 4-byte kernel checks every element.
 *
 * ## Build and run
 *
 *     make step09
 *     ./build/step09 --shapes 8192x8192
 *     ./build/step09 --shapes 8192x8192 --variant scalar
 *     ./build/step09 --shapes 10007x7919,8192x8192+1
 *
 * Write-up: docs/steps/09_shared64.md
 */
#include "harness.h"
#include "kernel_utils.cuh"
#include "shared64.cuh"   // both kernels and their launch, which step 12's default runs too
#include "tile64.cuh"

/** @brief The default: the 16-byte kernel wherever the shape allows it. */
static size_t launch_vec4(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return shared64_launch(in, out, rows, cols, true, stream);
}

/** @brief The 4-byte kernel on every shape: what the float4s add. */
static size_t launch_scalar(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return shared64_launch(in, out, rows, cols, false, stream);
}

/** The kernels of step 09; the first is the default. */
static const kernel_variant variants[] = {
    {"vec4", "64x64 tile, 32x8 block, float4 loads/stores and a chunk swizzle (4-byte kernel if misaligned)",
     launch_vec4, ANY_GPU},
    {"scalar", "64x64 tile, 32x8 block, 16 four-byte elements per thread, word swizzle",
     launch_scalar, ANY_GPU},
};

STEP_DEFINE("64x64 shared tile, 16 elements per thread, 16-byte accesses", variants, NULL)
