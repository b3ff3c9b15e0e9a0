/**
 * @file permute_library.cu
 * @brief Step 15 as a shared library with a plain C interface: any
 *        permutation of a tensor in GPU memory, float32 or bf16, as
 *        `x.permute(p).contiguous()` writes it.
 *
 * `make peers-permute` (mk/peers.mk) links this file, step 15's own file
 * compiled without its main() (its `step15` table) and the shared harness
 * into build/peers/libpermute.so, which lab/peers_permute.py loads with
 * ctypes to time step 15 beside PyTorch, Triton and JAX on the same
 * tensors and stream. Each launch takes the element size first (4: float32,
 * 2: bf16).
 */
#include <stddef.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "harness.h"
#include "permute.h"

/** Step 15's table, defined by STEP_DEFINE() in its own file. */
extern "C" const step_desc step15;

/** @brief The fold of the tensor of @p rank dimensions @p dims, permuted by @p perm: 0, or -1 where it is not one. */
static int plan_of(int rank, const size_t *dims, const int *perm, permute_plan *plan)
{
    tensor_shape t;
    char err[160];
    memset(&t, 0, sizeof t);
    t.rank = rank;
    for (int i = 0; i < rank && i < PERMUTE_MAX_RANK; ++i) {
        t.dims[i] = dims[i];
        t.perm[i] = perm[i];
    }
    if (tensor_check(&t, err, sizeof err) != 0)
        return -1;
    permute_fold(&t, plan);
    return 0;
}

extern "C" {

/** @brief The name of step 15's default kernel. */
const char *permute_kernel_name(void)
{
    return step15.variants[0].name;
}

/** Sizes permute_plan_of() writes: kind, rows, cols, in_pitch, out_pitch, then each batch dimension's extent. */
#define PLAN_SIZES (5 + 3 * PERMUTE_MAX_BATCH)

/**
 * @brief Fold @p dims by @p perm into PLAN_SIZES sizes at @p out: kind, rows,
 *        cols, in_pitch, out_pitch, then ::PERMUTE_MAX_BATCH batch extents,
 *        their strides in `in` and in `out` (unused ones: extent 1, stride 0),
 *        the last the fastest. The Triton peer runs the same fold. 0, or -1.
 */
int permute_plan_of(int rank, const size_t *dims, const int *perm, size_t *out)
{
    permute_plan plan;
    if (plan_of(rank, dims, perm, &plan) != 0)
        return -1;
    const size_t head[5] = {(size_t)plan.kind, plan.rows, plan.cols, plan.in_pitch, plan.out_pitch};
    memcpy(out, head, sizeof head);
    const int pad = PERMUTE_MAX_BATCH - plan.batch_rank;   /* unused dimensions first: the last stays fastest */
    for (int d = 0; d < PERMUTE_MAX_BATCH; ++d) {
        const int used = d - pad;
        out[5 + d] = used >= 0 ? plan.batch_extent[used] : 1;
        out[5 + PERMUTE_MAX_BATCH + d] = used >= 0 ? plan.batch_in_stride[used] : 0;
        out[5 + 2 * PERMUTE_MAX_BATCH + d] = used >= 0 ? plan.batch_out_stride[used] : 0;
    }
    return 0;
}

/**
 * @brief Launch step 15's default kernel on @p stream: @p in is the tensor
 *        @p dims (row-major), @p out its permutation by @p perm. Only launches.
 * @return the threads launched, or 0 for a bad tensor
 */
size_t permute_tensor(int element_bytes, const void *in, void *out, int rank, const size_t *dims, const int *perm,
                      void *stream)
{
    permute_plan plan;
    if (plan_of(rank, dims, perm, &plan) != 0)
        return 0;
    return step15.variants[0].permute(in, out, &plan, (size_t)element_bytes, (cudaStream_t)stream);
}

/** @brief NULL if every launch so far worked, else the CUDA error of the first that failed (cleared). */
const char *permute_launch_error(void)
{
    const cudaError_t err = cudaGetLastError();
    return err == cudaSuccess ? NULL : cudaGetErrorString(err);
}

}  // extern "C"
