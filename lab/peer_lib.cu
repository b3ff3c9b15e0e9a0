/**
 * @file peer_lib.cu
 * @brief The tutorial's last step as a shared library, so that
 *        lab/peers.py can time it beside PyTorch, CuPy, Triton and JAX
 *        in one Python process, on the same tensors and the same stream.
 *
 * `make peers` (mk/peers.mk) compiles the last step's source with
 * `-DTRANSPOSE_NO_MAIN` (no main(), only its kernels and its `stepNN`
 * table), this file with `-DPEER_STEP=NN`, and the shared harness, all
 * position-independent, into build/peers/libtutorial.so. Python loads it
 * with ctypes and calls the plain C functions below; the pointers are the
 * device addresses of torch tensors (`tensor.data_ptr()`) and the stream
 * is `torch.cuda.current_stream().cuda_stream`.
 *
 * Only the step's default kernel (its first variant) is exported: that is
 * the kernel the README's tables put forward.
 */
#include <stddef.h>
#include <cuda_runtime_api.h>

#include "harness.h"

#ifndef PEER_STEP
#error "build with make peers: it sets PEER_STEP to the number of the last step"
#endif

/** The step's table, defined by STEP_DEFINE() in its own file. */
#define TUTORIAL_STEP HARNESS_CAT(step, PEER_STEP)
extern "C" const step_desc TUTORIAL_STEP;

/** 1 once the step's setup hook has run. */
static int setup_done = 0;

extern "C" {

/** @brief The step's number, e.g. "10". */
const char *tutorial_step_number(void)
{
    return TUTORIAL_STEP.number;
}

/** @brief The name of the default kernel, e.g. "col_async". */
const char *tutorial_kernel_name(void)
{
    return TUTORIAL_STEP.variants[0].name;
}

/** @brief Lowest compute capability of the default kernel (10 * major + minor), or 0. */
int tutorial_min_cc(void)
{
    return TUTORIAL_STEP.variants[0].min_cc;
}

/**
 * @brief Run the step's setup hook once, if it has one. Call it before
 *        the first timed launch so that it never lands in a timed window.
 */
void tutorial_setup(void)
{
    if (!setup_done && TUTORIAL_STEP.setup != NULL)
        TUTORIAL_STEP.setup();
    setup_done = 1;
}

/**
 * @brief Launch the default kernel on @p stream: @p in is rows x cols,
 *        row-major, @p out cols x rows. Only launches, like every
 *        launcher; tutorial_launch_error() says whether the launch worked.
 * @return the number of threads launched
 */
size_t tutorial_transpose(const float *in, float *out, size_t rows, size_t cols, void *stream)
{
    tutorial_setup();   // a no-op after the first call
    return TUTORIAL_STEP.variants[0].launch(in, out, rows, cols, (cudaStream_t)stream);
}

/**
 * @brief NULL if every launch so far worked, else the CUDA error of the
 *        first that failed (the error is cleared by this call).
 */
const char *tutorial_launch_error(void)
{
    const cudaError_t err = cudaGetLastError();
    return err == cudaSuccess ? NULL : cudaGetErrorString(err);
}

}  // extern "C"
