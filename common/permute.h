/**
 * @file permute.h
 * @brief Tensors of rank 1 to 6 and the folding rule that turns any
 *        permutation of one into a copy, a strided copy or a batched 2-D
 *        transpose (step 15).
 *
 * A permutation `perm` of a row-major tensor of dimensions `dims` writes
 * the tensor whose dimension i is input dimension perm[i], also row-major.
 * PyTorch's `x.permute(perm).contiguous()` and JAX's `jnp.transpose(x, perm)`
 * do this.
 *
 * The rule (permute_fold()):
 * 1. drop every dimension of size 1: it moves nothing;
 * 2. merge input dimensions that stay next to each other, in the same
 *    order, in the output: together they are one longer dimension;
 * 3. classify what is left:
 *    - no dimension, or the identity: a plain copy;
 *    - the innermost dimension stays innermost: a strided copy of runs of
 *      it (a batch of runs, each run contiguous on both sides);
 *    - else a batched 2-D transpose: `cols` is the input's innermost
 *      dimension, `rows` the output's, and the other dimensions are a batch.
 *
 * Everything here is host C, except permute_batch_offsets(), which the
 * kernels call too.
 */
#ifndef TRANSPOSE_PERMUTE_H
#define TRANSPOSE_PERMUTE_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Highest rank a tensor may have. */
#define PERMUTE_MAX_RANK 6
/** @brief Most batch dimensions a plan has: all but the run of a strided copy. */
#define PERMUTE_MAX_BATCH (PERMUTE_MAX_RANK - 1)
/** @brief Room for a tensor written as text, `8x4096x32x128:0213`, with its NUL. */
#define TENSOR_TEXT_MAX 160

/** @brief A tensor and its permutation, as the command line gives them (`--dims`, `--perm`). */
typedef struct tensor_shape {
    int rank;                       /**< 1 to ::PERMUTE_MAX_RANK; 0 where none was given */
    size_t dims[PERMUTE_MAX_RANK];  /**< the input's dimensions, outermost first, each >= 1 */
    int perm[PERMUTE_MAX_RANK];     /**< output dimension i is input dimension perm[i] */
} tensor_shape;

/** @brief The three cases a folded permutation can be. */
typedef enum permute_kind {
    PERMUTE_COPY,          /**< the identity once folded: out = in */
    PERMUTE_STRIDED_COPY,  /**< the innermost dimension stays innermost: runs copied whole */
    PERMUTE_TRANSPOSE      /**< a batch of rows x cols transposes, with strides */
} permute_kind;

/**
 * @brief What permute_fold() makes of a tensor_shape: the folded tensor and
 *        how to run it. Strides and offsets count elements.
 *
 * The batch dimensions are listed in the output's order, outermost first;
 * the output is row-major, so batch index b (permute_batch_offsets()) starts
 * a run, or a matrix, of the output right after batch index b - 1.
 */
typedef struct permute_plan {
    permute_kind kind;                          /**< which case */
    int rank;                                   /**< rank once folded: 0 to ::PERMUTE_MAX_RANK */
    size_t dims[PERMUTE_MAX_RANK];              /**< the folded dimensions, input order */
    int perm[PERMUTE_MAX_RANK];                 /**< the folded permutation */
    int folded_into[PERMUTE_MAX_RANK];          /**< per input dimension: the folded one it joined, -1 if dropped */
    size_t count;                               /**< elements in the tensor */
    int batch_rank;                             /**< batch dimensions: 0 to ::PERMUTE_MAX_BATCH */
    size_t batch_extent[PERMUTE_MAX_BATCH];     /**< their sizes, output order */
    size_t batch_in_stride[PERMUTE_MAX_BATCH];  /**< their strides in `in` */
    size_t batch_out_stride[PERMUTE_MAX_BATCH]; /**< their strides in `out` */
    size_t batches;                             /**< the product of batch_extent (1 without a batch) */
    size_t rows;      /**< transpose: rows of each matrix (the output's innermost dimension); else 1 */
    size_t cols;      /**< transpose: its columns (the input's innermost); strided copy: the run; copy: count */
    size_t in_pitch;  /**< transpose: elements from one row of a matrix of `in` to the next */
    size_t out_pitch; /**< transpose: elements from one row of its transpose in `out` to the next */
} permute_plan;

/**
 * @brief Check @p t: a rank of 1 to 6, every dimension >= 1, @p perm a
 *        permutation of 0 .. rank-1, and the element count times 8 bytes
 *        countable in a size_t.
 * @return 0, or -1 with one line in @p err saying what is wrong
 */
int tensor_check(const tensor_shape *t, char *err, size_t err_len);

/** @brief Elements in @p t (the product of its dimensions). */
size_t tensor_count(const tensor_shape *t);

/** @brief The 2-D transpose as a tensor: dims {rows, cols}, perm {1, 0}. */
tensor_shape tensor_of_matrix(size_t rows, size_t cols);

/** @brief Write @p t as `8x4096x32x128:0213`: one digit an axis, as `--shapes` takes a tensor. */
void format_tensor(const tensor_shape *t, char *out, size_t out_len);

/** @brief Fold a valid @p t (tensor_check()) into @p plan: the rule above. */
void permute_fold(const tensor_shape *t, permute_plan *plan);

/** @brief "copy", "strided_copy" or "transpose". */
const char *permute_kind_name(permute_kind kind);

/** @brief 1 where @p plan is one packed matrix (no batch, no pitch): what cuBLAS and the capstone's API take. */
int permute_is_one_matrix(const permute_plan *plan);

/**
 * @brief The naive CPU permute of @p t, by definition: for every output
 *        element, find the input element it comes from. The harness's
 *        reference, and the tests' truth; it does not use the fold.
 */
void permute_reference(const void *in, void *out, const tensor_shape *t, size_t element_bytes);

/** @brief Carry out @p plan on the CPU, element by element, as the kernels do on the GPU (the tests). */
void permute_run_plan(const void *in, void *out, const permute_plan *plan, size_t element_bytes);

/** @brief `--plan`: the tensor, its folded form and the plan as one JSON object (lab/figures.py draws it). */
void print_permute_plan(FILE *out, const tensor_shape *t, const permute_plan *plan);

#ifdef __cplusplus
}
#endif

/** @brief __host__ __device__ under nvcc, nothing in C. */
#ifdef __CUDACC__
#define PERMUTE_HOST_DEVICE __host__ __device__
#else
#define PERMUTE_HOST_DEVICE
#endif

/**
 * @brief Where batch @p b starts in `in` and in `out`: its index written in
 *        the batch dimensions (output order, the last fastest) times their strides.
 */
static inline PERMUTE_HOST_DEVICE void permute_batch_offsets(const permute_plan *plan, size_t b, size_t *in_offset,
                                                             size_t *out_offset)
{
    size_t in_at = 0, out_at = 0;
    for (int d = plan->batch_rank - 1; d >= 0; --d) {
        const size_t index = b % plan->batch_extent[d];
        b /= plan->batch_extent[d];
        in_at += index * plan->batch_in_stride[d];
        out_at += index * plan->batch_out_stride[d];
    }
    *in_offset = in_at;
    *out_offset = out_at;
}

#endif /* TRANSPOSE_PERMUTE_H */
