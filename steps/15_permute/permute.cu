/**
 * @file permute.cu
 * @brief Step 15: beyond one matrix. Any permutation of a tensor of rank 1
 *        to 6, float32 or bf16, as `x.permute(p).contiguous()` runs it.
 *
 * ## The idea
 * Fold the permutation first (common/permute.h, permute_fold()): drop the
 * dimensions of size 1, merge the input dimensions that stay together in
 * the output. What is left is one of three cases, and the tutorial already
 * has a kernel for each:
 * - a copy: the copy kernel of the copy bound;
 * - a strided copy, where the innermost dimension stays innermost: runs
 *   copied whole, in 16-byte accesses where the runs allow;
 * - a batched 2-D transpose: step 09's tile with a batch index and strides,
 *   the whole batch in one launch; one packed matrix alone goes to the
 *   capstone's API, transpose_f32() and transpose_bf16(); matrices that
 *   fill a tenth of their tiles or less, to the per-element kernel.
 *
 * ## Build and run
 *
 *     make step15
 *     ./build/step15 --dims 8,4096,32,128 --perm 0,2,1,3
 *     ./build/step15 --dims 32,256,56,56 --perm 0,2,3,1 --dtype bf16
 *     ./build/step15 --dims 96,100,200 --perm 2,1,0 --plan
 *
 * Write-up: docs/steps/15_permute.md
 */
#include "harness.h"
#include "steps/14_dispatch/transpose/transpose.cu"   // the capstone's API, for one packed matrix
#include "permute_kernels.cuh"

/** @brief Stop with one line where the capstone's API refused or failed. */
static void api_checked(transpose_status status)
{
    if (status == TRANSPOSE_CUDA_ERROR)
        cuda_fail(transpose_cuda_error(), "the capstone's transpose", __FILE__, __LINE__);
    if (status != TRANSPOSE_OK)
        die(EXIT_ENVIRONMENT, "the capstone's transpose: %s", transpose_status_string(status));
}

/** @brief The default: each case of the fold on its kernel, the whole batch in one launch. */
static size_t launch_permute(const void *in, void *out, const permute_plan *plan, size_t element_bytes,
                             cudaStream_t stream)
{
    switch (plan->kind) {
    case PERMUTE_COPY:
        return element_bytes == 2
                   ? copy_kernel_launch_16((const uint16_t *)in, (uint16_t *)out, plan->count, stream)
                   : copy_kernel_launch((const float *)in, (float *)out, plan->count, stream);
    case PERMUTE_STRIDED_COPY:
        return strided_copy_launch(in, out, *plan, element_bytes, stream);
    case PERMUTE_TRANSPOSE:
    default:
        if (permute_is_one_matrix(plan)) {   // one packed matrix: the capstone's API transposes it
            api_checked(element_bytes == 2 ? transpose_bf16(in, out, plan->rows, plan->cols, stream)
                                           : transpose_f32((const float *)in, (float *)out, plan->rows,
                                                           plan->cols, stream));
            return 0;   // the API does not say how many threads
        }
        if (tiles_mostly_empty(*plan))   // matrices of a few elements: one thread per element
            return naive_permute_launch(in, out, *plan, element_bytes, stream);
        return batched_tiles_launch(in, out, *plan, element_bytes, true, stream);
    }
}

/**
 * @brief The same kernels, but a batched transpose takes one launch per
 *        matrix: what the batch index saves.
 */
static size_t launch_per_matrix(const void *in, void *out, const permute_plan *plan, size_t element_bytes,
                                cudaStream_t stream)
{
    if (plan->kind != PERMUTE_TRANSPOSE)
        return launch_permute(in, out, plan, element_bytes, stream);
    permute_plan one = *plan;   // one matrix: no batch
    one.batch_rank = 0;
    one.batches = 1;
    size_t threads = 0;
    for (size_t b = 0; b < plan->batches; ++b) {
        size_t in_at, out_at;
        permute_batch_offsets(plan, b, &in_at, &out_at);
        threads += batched_tiles_launch((const char *)in + in_at * element_bytes,
                                        (char *)out + out_at * element_bytes, one, element_bytes, true, stream);
    }
    return threads;
}

/** @brief The control: one thread per element, its source found by index arithmetic. */
static size_t launch_naive(const void *in, void *out, const permute_plan *plan, size_t element_bytes,
                           cudaStream_t stream)
{
    return naive_permute_launch(in, out, *plan, element_bytes, stream);
}

/** The kernels of step 15; the first is the default. */
static const kernel_variant variants[] = {
    variant_permute("permute", "fold, then one launch: the copy kernel, runs copied in 16-byte accesses where "
                    "they allow, step 09's tile with a batch index (one packed matrix: the capstone's API; "
                    "matrices of a few elements: one thread each)",
                    launch_permute),
    variant_permute("per_matrix", "the same kernels, but one launch per matrix of a batched transpose",
                    launch_per_matrix),
    variant_permute("naive", "the control: one thread per output element, its source by index arithmetic on "
                    "the folded tensor", launch_naive),
};

STEP_DEFINE("Beyond one matrix: any permutation of a tensor", variants, NULL)
