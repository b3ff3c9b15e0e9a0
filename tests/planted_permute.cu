/**
 * @file planted_permute.cu
 * @brief Wrong folds and wrong batch indices that the checker of tensors
 *        must catch, beside step 15's own kernel, which must pass.
 *
 * Each wrong variant runs step 15's kernels on a plan spoiled in one way:
 * the batch index forgotten (every matrix or run lands on the first), the
 * two pitches of the transpose swapped, or the batch's strides of `in` and
 * `out` swapped, as a fold that merged the wrong dimensions would give.
 */
#include "harness.h"
#include "steps/15_permute/permute_kernels.cuh"

/** @brief What step 15's default runs on @p plan, without the capstone's API for one matrix. */
static size_t run_plan(const void *in, void *out, const permute_plan &plan, size_t element_bytes, cudaStream_t stream)
{
    if (plan.kind == PERMUTE_STRIDED_COPY)
        return strided_copy_launch(in, out, plan, element_bytes, stream);
    if (plan.kind == PERMUTE_TRANSPOSE)
        return batched_tiles_launch(in, out, plan, element_bytes, true, stream);
    return naive_permute_launch(in, out, plan, element_bytes, stream);
}

static size_t launch_correct(const void *in, void *out, const permute_plan *plan, size_t element_bytes,
                             cudaStream_t stream)
{
    return run_plan(in, out, *plan, element_bytes, stream);
}

/** @brief The batch index forgotten: every batch index counts as 0. */
static size_t launch_no_batch_index(const void *in, void *out, const permute_plan *plan, size_t element_bytes,
                                    cudaStream_t stream)
{
    permute_plan wrong = *plan;
    for (int d = 0; d < wrong.batch_rank; ++d)
        wrong.batch_in_stride[d] = wrong.batch_out_stride[d] = 0;
    return run_plan(in, out, wrong, element_bytes, stream);
}

/** @brief The pitches of `in` and `out` swapped: right only on square, packed matrices. */
static size_t launch_pitches_swapped(const void *in, void *out, const permute_plan *plan, size_t element_bytes,
                                     cudaStream_t stream)
{
    permute_plan wrong = *plan;
    wrong.in_pitch = plan->out_pitch;
    wrong.out_pitch = plan->in_pitch;
    return run_plan(in, out, wrong, element_bytes, stream);
}

/** @brief The batch's strides of `in` and `out` swapped: a fold that mixed up the two orders of the dimensions. */
static size_t launch_strides_swapped(const void *in, void *out, const permute_plan *plan, size_t element_bytes,
                                     cudaStream_t stream)
{
    permute_plan wrong = *plan;
    for (int d = 0; d < wrong.batch_rank; ++d) {
        wrong.batch_in_stride[d] = plan->batch_out_stride[d];
        wrong.batch_out_stride[d] = plan->batch_in_stride[d];
    }
    return run_plan(in, out, wrong, element_bytes, stream);
}

static const kernel_variant planted_permute_variants[] = {
    variant_permute("correct", "step 15's kernels on the plan as folded: must PASS", launch_correct),
    variant_permute("no_batch_index", "every batch index taken as 0: must FAIL", launch_no_batch_index),
    variant_permute("pitches_swapped", "the transpose's two pitches swapped: must FAIL", launch_pitches_swapped),
    variant_permute("strides_swapped", "the batch's strides of in and out swapped: must FAIL",
                    launch_strides_swapped),
};

/** @brief The planted kernels, run like step 15. */
extern "C" const step_desc planted_permute = {
    "00",
    "planted_permute",
    "Planted wrong folds and batch indices: the checker must catch them",
    planted_permute_variants,
    VARIANT_COUNT(planted_permute_variants),
    NULL,
    sizeof(float),
};

STEP_MAIN(planted_permute)
