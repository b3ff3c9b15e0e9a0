/**
 * @file dispatch.cu
 * @brief Step 14: the kernel to copy. The tutorial's kernels behind a
 *        small C API, for float32 and bf16.
 *
 * ## The idea
 * No kernel of steps 09-13 is the fastest on every shape. A short rule
 * picks one by shape, alignment and GPU, and a C API hides it
 * (transpose/transpose.h): transpose_f32(), transpose_bf16(), a status
 * instead of an exit, and a *_choice() call that names the kernel.
 *
 * ## The rule
 * float32 (dispatch_f32.cuh): vectors are copied; 2-63 rows or columns take
 * slabs of 16-byte chunks; rows of whole aligned chunks take a 16-byte tile
 * kernel up to a size per GPU (rules.h); the rest, step 11's sector runs.
 * bf16 (dispatch_bf16.cuh): step 13's `prmt`, its tile chosen against L2
 * and one wave of blocks.
 *
 * ## How it was measured
 * Each size in rules.h was read off the GPU's sweep (`make bench`); the
 * lab's studies time the rule beside the kernels it picks from, on the
 * sweep's shapes and on shapes it never saw (`make study`). `transpose` calls the API; `unlisted` runs the rule as on a GPU
 * that rules.h does not list, which shows what this GPU's row is worth.
 *
 * ## Build and run
 *
 *     make step14
 *     ./build/step14 --shapes 8192x8192,10007x7919,2x1000000
 *     ./build/step14 --shapes 8192x8192 --variant unlisted
 *     cd steps/14_dispatch/example && make && ./example
 *
 * Write-up: docs/steps/14_dispatch.md
 */
#include "harness.h"
#include "transpose/transpose.cu"   // the library itself, compiled in: the API, the rules and every kernel

/** @brief Stop with one line where the library refused or failed: the harness checks launches, not statuses. */
static void api_checked(transpose_status status, const char *call)
{
    if (status == TRANSPOSE_CUDA_ERROR)
        cuda_fail(transpose_cuda_error(), call, __FILE__, __LINE__);
    if (status != TRANSPOSE_OK)
        die(EXIT_ENVIRONMENT, "%s: %s", call, transpose_status_string(status));
}

/** @brief The default on float32: the API, as a project calls it. */
static size_t launch_transpose(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    api_checked(transpose_f32(in, out, rows, cols, stream), "transpose_f32()");
    return 0;   // threads launched: the API does not say
}

/** @brief The default on bf16: the API, as a project calls it. */
static size_t launch_transpose_bf16(const uint16_t *in, uint16_t *out, size_t rows, size_t cols,
                                    cudaStream_t stream)
{
    api_checked(transpose_bf16(in, out, rows, cols, stream), "transpose_bf16()");
    return 0;
}

/** @brief The float32 rule with rules.h's default, as on a GPU it does not list. */
static size_t launch_unlisted(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    f32_gpu gpu;
    CUDA_CHECK(f32_gpu_here(&gpu));
    return dispatch_f32_launch(f32_gpu_named("", gpu.l2_bytes), in, out, rows, cols, stream);
}

/** The kernels of step 14; the first is the default. */
static const kernel_variant variants[] = {
    variant_both("transpose", "transpose_f32() and transpose_bf16() of transpose/transpose.h: the kernel the rule "
                 "picks for the shape, the pointers and the GPU", launch_transpose, launch_transpose_bf16),
    {"unlisted", "the float32 rule as on a GPU that rules.h does not list: step 09's tiles up to the size of L2, "
     "no long runs", launch_unlisted, ANY_GPU},
};

STEP_DEFINE("The kernel to copy, behind a C API", variants, NULL)
