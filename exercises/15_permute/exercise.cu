/**
 * @file exercise.cu
 * @brief Exercise 15: the batch index. Step 09's tile transposes one matrix;
 *        give it the matrix of the batch it works on.
 *
 * The fold is given (common/permute.h): it hands your launcher a plan whose
 * batch dimensions, in the output's order, have extents and strides in `in`
 * and `out`. You write batch_start(): where matrix b of the batch starts in
 * each. The task, hints and what speed to expect are in
 * exercises/15_permute/README.md.
 *
 * Grade: `make grade EX=15`. Until the TODO is done every matrix lands on the
 * first, and the grader reports FAIL.
 */
#include "harness.h"
#include "steps/15_permute/permute_kernels.cuh"

/**
 * @brief Where matrix @p b of the batch starts: @p in_at elements into `in`
 *        and @p out_at into `out`.
 */
static __host__ __device__ __forceinline__ void batch_start(const permute_plan &plan, size_t b, size_t *in_at,
                                                            size_t *out_at)
{
    // TODO(exercise 15): write b in the batch dimensions, the last one
    // (plan.batch_rank - 1) the fastest, as a number is written in digits of
    // bases plan.batch_extent[d]; each digit times plan.batch_in_stride[d]
    // adds to *in_at, times plan.batch_out_stride[d] to *out_at.
    (void)plan;
    (void)b;
    *in_at = 0;
    *out_at = 0;
}

/** @brief Step 09's 4-byte tile over the whole batch, one launch: tile t of matrix batch_tile() names. */
template <class T>
static __global__ void __launch_bounds__(THREADS, REGISTER_LOAD_BLOCKS_PER_SM)
batched_tiles(const T *__restrict__ in, T *__restrict__ out, const permute_plan plan)
{
    __shared__ T tile[TILE * TILE];
    const size_t tiles = batch_tiles(plan);
    for (size_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        size_t batch, row0, col0, in_at, out_at;
        batch_tile(plan, t, &batch, &row0, &col0);
        batch_start(plan, batch, &in_at, &out_at);
        transpose_tile_pitched<load_through_registers>(tile, in + in_at, out + out_at, plan.rows, plan.cols,
                                                       plan.in_pitch, plan.out_pitch, row0, col0, threadIdx.x,
                                                       threadIdx.y);
    }
}

/** @brief Your kernel on a batched transpose; step 15's copy kernels on a copy or a strided copy. */
static size_t launch_batched(const void *in, void *out, const permute_plan *plan, size_t element_bytes,
                             cudaStream_t stream)
{
    if (plan->kind == PERMUTE_STRIDED_COPY)
        return strided_copy_launch(in, out, *plan, element_bytes, stream);
    if (plan->kind == PERMUTE_COPY)
        return naive_permute_launch(in, out, *plan, element_bytes, stream);
    const dim3 block(BLOCK_COLS, BLOCK_ROWS);
    const size_t tiles = batch_tiles(*plan);
    const dim3 grid((unsigned)(tiles < PERMUTE_MAX_BLOCKS ? tiles : PERMUTE_MAX_BLOCKS));
    if (element_bytes == 2)
        batched_tiles<<<grid, block, 0, stream>>>((const uint16_t *)in, (uint16_t *)out, *plan);
    else
        batched_tiles<<<grid, block, 0, stream>>>((const float *)in, (float *)out, *plan);
    return threads_launched(grid, block);
}

/** @brief Your kernel, as the grader (lab/grade_main.cu) links it: not static. */
extern "C" const kernel_variant exercise_15 =
    variant_permute("batched", "your kernel: step 09's tile over a whole batch, the batch index yours", launch_batched);
