/**
 * @file gpu_probe.c
 * @brief Exit 0 if a CUDA GPU is usable, 3 (with one line why) if not.
 *
 * The test suite runs this first to decide whether its GPU tests run or
 * are reported as skipped.
 */
#include <stdio.h>

#include "gpu.h"

int main(void)
{
    gpu_info info;
    gpu_open(&info); /* exits with EXIT_ENVIRONMENT and one line if there is no GPU */
    printf("%s (compute capability %d.%d)\n", info.name, info.cc_major, info.cc_minor);
    return 0;
}
