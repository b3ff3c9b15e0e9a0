/**
 * @file answer.cuh
 * @brief The tutorial's answer, step 12's default: which of the kernels
 *        built in steps 11 and 12 to run on a given shape.
 *
 * No one kernel of the tutorial is the fastest on every shape: the
 * measured results (docs/results/) show the tile order and the matrix's
 * thinness deciding the ranking, and TMA ahead on no shape of the H200.
 * The answer therefore decides from the shape and the GPU's L2 size, with
 * kernels that are each bit-exact on every shape:
 *
 * | the matrix                                   | kernel                         |
 * | -------------------------------------------- | ------------------------------ |
 * | thinner than a tile (rows or cols < 64)      | the chunk kernel, step 10's grid |
 * | at most ::ANSWER_ROW_ORDER_L2S x L2 in bytes | step 11's default, tiles along rows |
 * | larger                                       | step 11's default, tiles down columns |
 *
 * Why each row: on a matrix thinner than a tile, a sector run covers a few
 * floats and its bookkeeping costs more than the split sectors it saves;
 * up to about twice the L2, step 09's row-major tile order was measured
 * ahead of step 10's column-major one; beyond, the column-major order was
 * (docs/steps/12_tma.md has the numbers).
 *
 * pick_answer() is the decision alone, so tests/test_tiles.cu checks it on
 * the host; answer_launch() carries it out.
 */
#ifndef TRANSPOSE_ANSWER_CUH
#define TRANSPOSE_ANSWER_CUH

#include <stddef.h>
#include <cuda_runtime.h>

#include "any_shape.cuh"   // chunks_launch(), any_shape_launch<>(), TILE
#include "check.h"         // CUDA_CHECK

/** Matrices of at most this many times the L2 size take their tiles along rows. */
#define ANSWER_ROW_ORDER_L2S 2

/** @brief The three launches the answer chooses between. */
enum answer_kernel {
    ANSWER_THIN_CHUNKS,    /**< chunks_launch(): the chunk kernel on step 10's grid */
    ANSWER_ALONG_ROWS,     /**< any_shape_launch<ALONG_ROWS>() */
    ANSWER_DOWN_COLUMNS,   /**< any_shape_launch<DOWN_COLUMNS>(), step 11's default */
};

/** @brief The launch the answer runs on a @p rows x @p cols matrix, on a GPU of @p l2_bytes of L2. */
static inline answer_kernel pick_answer(size_t rows, size_t cols, size_t l2_bytes)
{
    if (rows < TILE || cols < TILE)
        return ANSWER_THIN_CHUNKS;
    const size_t bytes = rows * cols * sizeof(float);
    return bytes <= ANSWER_ROW_ORDER_L2S * l2_bytes ? ANSWER_ALONG_ROWS : ANSWER_DOWN_COLUMNS;
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
    switch (pick_answer(rows, cols, answer_l2_bytes())) {
    case ANSWER_THIN_CHUNKS:
        return chunks_launch(in, out, rows, cols, stream);
    case ANSWER_ALONG_ROWS:
        return any_shape_launch<ALONG_ROWS>(in, out, rows, cols, stream);
    case ANSWER_DOWN_COLUMNS:
    default:
        return any_shape_launch<DOWN_COLUMNS>(in, out, rows, cols, stream);
    }
}

#endif /* TRANSPOSE_ANSWER_CUH */
