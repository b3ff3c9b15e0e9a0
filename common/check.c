/**
 * @file check.c
 * @brief One-line fatal errors, shared by every program.
 */
#include "check.h"

#include <stdarg.h>

void die(int code, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fputs("error: ", stderr);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    exit(code);
}

void cuda_fail(cudaError_t err, const char *call, const char *file, int line)
{
    /* The one CUDA failure a student meets most: a binary built for another GPU. */
    const int wrong_arch = err == cudaErrorNoKernelImageForDevice ||
                           err == cudaErrorUnsupportedPtxVersion;
    die(EXIT_ENVIRONMENT, "%s failed: %s (%s) at %s:%d%s", call, cudaGetErrorName(err),
        cudaGetErrorString(err), file, line,
        wrong_arch ? "; rebuild for this GPU: make clean && make ARCH=sm_XX" : "");
}
