/**
 * @file api_arguments.c
 * @brief The library's argument checks (steps/14_dispatch/transpose/transpose.h),
 *        without a GPU.
 *
 * Each call below is wrong in one way, and must get its status before the
 * library makes any CUDA call: without a GPU, a call made first would have
 * answered TRANSPOSE_CUDA_ERROR instead. The pointers are host addresses,
 * never read. Prints one `PASS what` or `FAIL what` line per call; exit
 * code 1 if any failed. tests/test_dispatch.py builds it against a copy of
 * the library and runs it with the GPU hidden.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "transpose.h"

static int failures = 0;

/** @brief Print whether @p got is @p want, for the call described by @p what. */
static void expect(transpose_status got, transpose_status want, const char *what)
{
    printf("%s %s: %s\n", got == want ? "PASS" : "FAIL", what, transpose_status_string(got));
    failures += got != want;
}

int main(void)
{
    static float in[64], out[64];
    unsigned char *out_bytes = (unsigned char *)out;
    const char *kernel = NULL;
    expect(transpose_f32(NULL, out, 4, 4, 0), TRANSPOSE_BAD_ARGUMENT, "float32, in is NULL");
    expect(transpose_f32(in, NULL, 4, 4, 0), TRANSPOSE_BAD_ARGUMENT, "float32, out is NULL");
    expect(transpose_f32(in, out, 0, 4, 0), TRANSPOSE_BAD_ARGUMENT, "float32, no rows");
    expect(transpose_f32(in, out, 4, 0, 0), TRANSPOSE_BAD_ARGUMENT, "float32, no columns");
    expect(transpose_f32(in, out, SIZE_MAX / 2, 3, 0), TRANSPOSE_BAD_ARGUMENT, "float32, more bytes than memory");
    expect(transpose_f32(in, in + 8, 4, 4, 0), TRANSPOSE_BAD_ARGUMENT, "float32, in and out overlap");
    float *out_2_bytes_off = (float *)((uintptr_t)out + 2);   // an address only: never written
    expect(transpose_f32(in, out_2_bytes_off, 4, 4, 0), TRANSPOSE_MISALIGNED, "float32, out 2 bytes off");
    expect(transpose_bf16(in, out_bytes + 1, 4, 4, 0), TRANSPOSE_MISALIGNED, "bf16, out 1 byte off");
    expect(transpose_bf16(out_bytes + 1, in, 4, 4, 0), TRANSPOSE_MISALIGNED, "bf16, in 1 byte off");
    expect(transpose_bf16(in, out, 4, 0, 0), TRANSPOSE_BAD_ARGUMENT, "bf16, no columns");
    expect(transpose_f32_choice(in, out, 4, 4, NULL), TRANSPOSE_BAD_ARGUMENT, "float32 choice, nowhere to write");
    expect(transpose_bf16_choice(in, out, 0, 4, &kernel), TRANSPOSE_BAD_ARGUMENT, "bf16 choice, no rows");
    expect(transpose_cuda_error() == cudaSuccess ? TRANSPOSE_OK : TRANSPOSE_CUDA_ERROR, TRANSPOSE_OK,
           "no CUDA error kept");
    const int named = strcmp(transpose_status_string((transpose_status)42), "not a transpose_status") == 0;
    expect(named ? TRANSPOSE_OK : TRANSPOSE_BAD_ARGUMENT, TRANSPOSE_OK, "a status out of range is named as such");
    return failures ? 1 : 0;
}
