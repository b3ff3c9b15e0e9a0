/**
 * @file peer_lib.cu
 * @brief The tutorial's answers as a shared library, so that lab/peers.py
 *        can time them beside PyTorch, CuPy, Triton and JAX in one Python
 *        process, on the same tensors and the same stream.
 *
 * `make peers` (mk/peers.mk) compiles the float32 answer and the bf16
 * answer (the last step whose default takes each type: step 14 for both)
 * with `-DTRANSPOSE_NO_MAIN` (no main(), only their kernels and their
 * `stepNN` tables), this file with `-DPEER_STEP=NN` and
 * `-DPEER_STEP_16=MM`, and the shared harness, all position-independent,
 * into build/peers/libtutorial.so. Python loads it with ctypes and calls
 * the plain C functions below; the pointers are the device addresses of
 * torch tensors (`tensor.data_ptr()`) and the stream is
 * `torch.cuda.current_stream().cuda_stream`.
 *
 * Every function takes the element size first (4: float32, 2: bf16) and
 * works on the answer of that size. Only each answer's default kernel (its
 * first variant) is exported: that is the kernel the README's tables put
 * forward.
 */
#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "harness.h"

#ifndef PEER_STEP
#error "build with make peers: it sets PEER_STEP to the number of the float32 answer"
#endif

/** The float32 answer's table, defined by STEP_DEFINE() in its own file. */
#define TUTORIAL_STEP HARNESS_CAT(step, PEER_STEP)
extern "C" const step_desc TUTORIAL_STEP;

#ifdef PEER_STEP_16
/** The bf16 answer's table, defined by STEP_DEFINE_16() in its own file. */
#define TUTORIAL_STEP_16 HARNESS_CAT(step, PEER_STEP_16)
extern "C" const step_desc TUTORIAL_STEP_16;
#endif

/** The steps this library holds; the element size of each says which is which. */
static const step_desc *const tutorial_steps[] = {
    &TUTORIAL_STEP,
#ifdef PEER_STEP_16
    &TUTORIAL_STEP_16,
#endif
};

/** 1 once a step's setup hook has run, in the order of tutorial_steps. */
static int setup_done[sizeof tutorial_steps / sizeof tutorial_steps[0]];

/**
 * @brief The index in tutorial_steps of the step whose default kernel takes
 *        elements @p element_bytes wide, or -1. Asked of each step's own
 *        table (variant_takes()), so that a build which mixed up the two
 *        steps finds no step rather than the wrong one; a step whose default
 *        takes both types (step 14's) serves both.
 */
static int step_index(int element_bytes)
{
    for (size_t i = 0; i < sizeof tutorial_steps / sizeof tutorial_steps[0]; i++)
        if (variant_takes(&tutorial_steps[i]->variants[0], (size_t)element_bytes))
            return (int)i;
    return -1;
}

extern "C" {

/** @brief The number of the step of @p element_bytes, e.g. "12"; NULL if the library holds none. */
const char *tutorial_step_number(int element_bytes)
{
    const int i = step_index(element_bytes);
    return i < 0 ? NULL : tutorial_steps[i]->number;
}

/** @brief The name of its default kernel, e.g. "answer"; NULL if the library holds no such step. */
const char *tutorial_kernel_name(int element_bytes)
{
    const int i = step_index(element_bytes);
    return i < 0 ? NULL : tutorial_steps[i]->variants[0].name;
}

/** @brief Lowest compute capability of its default kernel (10 * major + minor), or 0. */
int tutorial_min_cc(int element_bytes)
{
    const int i = step_index(element_bytes);
    return i < 0 ? 0 : tutorial_steps[i]->variants[0].min_cc;
}

/**
 * @brief Run the step's setup hook once, if it has one. Call it before
 *        the first timed launch so that it never lands in a timed window.
 */
void tutorial_setup(int element_bytes)
{
    const int i = step_index(element_bytes);
    if (i < 0 || setup_done[i])
        return;
    if (tutorial_steps[i]->setup != NULL)
        tutorial_steps[i]->setup();
    setup_done[i] = 1;
}

/**
 * @brief Launch the default kernel of the step of @p element_bytes on
 *        @p stream: @p in is rows x cols, row-major, @p out cols x rows.
 *        Only launches, like every launcher; tutorial_launch_error() says
 *        whether the launch worked.
 * @return the number of threads launched (0: the library holds no such step)
 */
size_t tutorial_transpose(int element_bytes, const void *in, void *out, size_t rows, size_t cols, void *stream)
{
    const int i = step_index(element_bytes);
    if (i < 0)
        return 0;
    tutorial_setup(element_bytes);   // a no-op after the first call
    const kernel_variant *kernel = &tutorial_steps[i]->variants[0];
    // launch16 takes 2-byte elements, launch float32 (common/step_table.h).
    if (element_bytes == 2)
        return kernel->launch16((const uint16_t *)in, (uint16_t *)out, rows, cols, (cudaStream_t)stream);
    return kernel->launch((const float *)in, (float *)out, rows, cols, (cudaStream_t)stream);
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
