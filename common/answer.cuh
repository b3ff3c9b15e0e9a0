/**
 * @file answer.cuh
 * @brief The tutorial's answer, step 12's default: which kernel of the
 *        tutorial to run on a given shape.
 *
 * No one kernel of the tutorial is the fastest on every shape (the sweeps
 * in docs/results/ on the H200 and the H100). The answer decides from the
 * shape, the pointers and the GPU's L2 size, between kernels that are each
 * bit-exact on every shape:
 *
 * | the matrix                                              | kernel                              |
 * | ------------------------------------------------------- | ----------------------------------- |
 * | thinner than a tile (rows or cols < 64)                 | step 11's chunk kernel, step 10's grid |
 * | rows of whole aligned chunks, at most ::ANSWER_VEC4_L2S x L2 | step 09's 16-byte kernel         |
 * | anything else                                           | step 11's default                   |
 *
 * Why each row: on a matrix thinner than a tile, a sector run covers a few
 * floats and its bookkeeping costs more than the split sectors it saves;
 * up to about twice the L2, step 09's kernel was measured ahead of step
 * 11's on both GPUs; beyond, and wherever rows are not whole aligned
 * chunks, step 11's kernel was (docs/steps/12_tma.md has the numbers).
 *
 * pick_answer() is the decision alone, so tests/test_tiles.cu checks it on
 * the host; answer_launch() carries it out.
 */
#ifndef TRANSPOSE_ANSWER_CUH
#define TRANSPOSE_ANSWER_CUH

#include <stddef.h>
#include <cuda_runtime.h>

#include "any_shape.cuh"      // chunks_launch(), any_shape_launch(), TILE, vec4_fits()
#include "check.h"            // CUDA_CHECK
#include "shared64_vec4.cuh"   // shared64_vec4_launch()

/** Aligned matrices of at most this many times the L2 size go to step 09's kernel. */
#define ANSWER_VEC4_L2S 2

/** @brief The three launches the answer chooses between. */
enum answer_kernel {
    ANSWER_THIN_CHUNKS,   /**< chunks_launch(): step 11's chunk kernel on step 10's grid */
    ANSWER_VEC4,          /**< shared64_vec4_launch(): step 09's 16-byte kernel */
    ANSWER_ANY_SHAPE,     /**< any_shape_launch(): step 11's default */
};

/**
 * @brief The launch the answer runs on a @p rows x @p cols matrix whose
 *        rows are whole aligned chunks when @p vec4 (vec4_fits()), on a GPU
 *        of @p l2_bytes of L2.
 */
static inline answer_kernel pick_answer(size_t rows, size_t cols, bool vec4, size_t l2_bytes)
{
    if (rows < TILE || cols < TILE)
        return ANSWER_THIN_CHUNKS;
    const size_t bytes = rows * cols * sizeof(float);
    return vec4 && bytes <= ANSWER_VEC4_L2S * l2_bytes ? ANSWER_VEC4 : ANSWER_ANY_SHAPE;
}

/** @brief The current GPU's L2 size in bytes, asked on the first call and kept. */
static inline size_t answer_l2_bytes(void)
{
    static size_t l2_bytes = 0;
    if (l2_bytes == 0) {
        int device, bytes;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrL2CacheSize, device));
        l2_bytes = (size_t)bytes;
    }
    return l2_bytes;
}

/** @brief Run the kernel pick_answer() names for this shape on this GPU. */
static inline size_t answer_launch(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    switch (pick_answer(rows, cols, vec4_fits(in, out, rows, cols), answer_l2_bytes())) {
    case ANSWER_THIN_CHUNKS:
        return chunks_launch(in, out, rows, cols, stream);
    case ANSWER_VEC4:
        return shared64_vec4_launch(in, out, rows, cols, stream);
    case ANSWER_ANY_SHAPE:
    default:
        return any_shape_launch(in, out, rows, cols, stream);
    }
}

#endif /* TRANSPOSE_ANSWER_CUH */
