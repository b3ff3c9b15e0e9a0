/**
 * @file gpu.c
 * @brief GPU discovery, the report header and memory checks.
 */
#include "gpu.h"

#include <string.h>
#include <unistd.h>
#include <cuda_runtime_api.h>

#include "check.h"

double gib(size_t bytes)
{
    return (double)bytes / (1024.0 * 1024.0 * 1024.0);
}

/** @brief Exit with one line that says why the GPU cannot be used and what to do. */
static void explain_no_gpu(cudaError_t err)
{
    if (err == cudaErrorNoDevice)
        die(EXIT_ENVIRONMENT, "no CUDA GPU is visible (cudaErrorNoDevice): run on a machine with "
                              "an NVIDIA GPU, and check CUDA_VISIBLE_DEVICES");
    if (err == cudaErrorInsufficientDriver) {
        /* The runtime says the same for no driver at all and for one too old; the
         * driver's CUDA version tells them apart: 0 where no driver could be loaded. */
        int driver = 0;
        cudaDriverGetVersion(&driver);
        if (driver == 0)
            die(EXIT_ENVIRONMENT, "no NVIDIA driver here (cudaDriverGetVersion gives 0): run on a machine "
                                  "with an NVIDIA GPU and its driver");
        die(EXIT_ENVIRONMENT,
            "the NVIDIA driver is too old (cudaErrorInsufficientDriver): it supports CUDA %d.%d, "
            "this program needs %d.%d or newer: update the driver",
            driver / 1000, driver % 1000 / 10, CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
    }
    die(EXIT_ENVIRONMENT, "cannot use the GPU: %s (%s)", cudaGetErrorName(err),
        cudaGetErrorString(err));
}

void gpu_open(gpu_info *info)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0)
        explain_no_gpu(err == cudaSuccess ? cudaErrorNoDevice : err);
    err = cudaSetDevice(0);
    if (err != cudaSuccess)
        explain_no_gpu(err);

    memset(info, 0, sizeof *info);
    struct cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    snprintf(info->name, sizeof info->name, "%s", prop.name);
    info->sm_count = prop.multiProcessorCount;
    info->l2_bytes = (size_t)prop.l2CacheSize;
    info->memory_bytes = prop.totalGlobalMem;
    info->cc_major = prop.major;
    info->cc_minor = prop.minor;
    info->cc = 10 * prop.major + prop.minor;
    CUDA_CHECK(cudaRuntimeGetVersion(&info->runtime_version));
    CUDA_CHECK(cudaDriverGetVersion(&info->driver_version));
}

void gpu_csv_name(const gpu_info *info, char *out, size_t out_len)
{
    snprintf(out, out_len, "%s", info->name);
    for (char *c = out; *c; ++c)
        if (*c == ',' || *c == '"')
            *c = ' ';
}

int gpu_too_old(const gpu_info *info, int min_cc, char *reason, size_t reason_len)
{
    if (info->cc >= min_cc)
        return 0;
    snprintf(reason, reason_len, "needs compute capability %d.%d, this GPU is %d.%d", min_cc / 10,
             min_cc % 10, info->cc_major, info->cc_minor);
    return 1;
}

void require_device_memory(size_t bytes, const char *what)
{
    size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (bytes > free_bytes)
        die(EXIT_ENVIRONMENT,
            "%s needs %.2f GiB of GPU memory but only %.2f GiB of %.2f GiB is free: "
            "choose a smaller shape",
            what, gib(bytes), gib(free_bytes), gib(total_bytes));
}

size_t host_available_bytes(void)
{
    FILE *meminfo = fopen("/proc/meminfo", "r");
    if (meminfo != NULL) {
        char line[256];
        unsigned long long kib = 0;
        while (fgets(line, sizeof line, meminfo) != NULL)
            if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
                break;
        fclose(meminfo);
        if (kib > 0)
            return (size_t)kib * 1024;
    }
    const long pages = sysconf(_SC_AVPHYS_PAGES);
    const long page_size = sysconf(_SC_PAGESIZE);
    return pages > 0 && page_size > 0 ? (size_t)pages * (size_t)page_size : 0;
}

void require_host_memory(size_t bytes, const char *what)
{
    const size_t available = host_available_bytes();
    if (available != 0 && bytes > available)
        die(EXIT_ENVIRONMENT,
            "%s needs %.2f GiB of host memory for the input, the result and the CPU "
            "reference, but only %.2f GiB is available: choose a smaller shape",
            what, gib(bytes), gib(available));
}

void print_gpu_header(FILE *out, const gpu_info *info)
{
    fprintf(out, "GPU      %s: %d SMs, %.0f MiB L2, %.1f GiB, compute capability %d.%d\n",
            info->name, info->sm_count, (double)info->l2_bytes / (1024.0 * 1024.0),
            gib(info->memory_bytes), info->cc_major, info->cc_minor);
    fprintf(out, "CUDA     runtime %d.%d, driver supports %d.%d\n", info->runtime_version / 1000,
            info->runtime_version % 1000 / 10, info->driver_version / 1000,
            info->driver_version % 1000 / 10);
}
