/**
 * @file gpu.h
 * @brief Finding the GPU, describing it, and checking memory before allocating.
 */
#ifndef TRANSPOSE_GPU_H
#define TRANSPOSE_GPU_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @brief What the report header says about the GPU and the software. */
typedef struct gpu_info {
    char name[256];      /**< e.g. "NVIDIA H200" */
    int sm_count;        /**< streaming multiprocessors */
    size_t l2_bytes;     /**< L2 cache size */
    size_t memory_bytes; /**< total device memory */
    int cc_major;        /**< compute capability, major */
    int cc_minor;        /**< compute capability, minor */
    int cc;              /**< 10 * cc_major + cc_minor (90 for Hopper), as kernel_variant::min_cc */
    int runtime_version; /**< CUDA runtime, e.g. 13000 for 13.0 */
    int driver_version;  /**< newest CUDA version the driver supports */
} gpu_info;

/**
 * @brief Select GPU 0 and describe it.
 *
 * With no GPU, no driver or a driver too old for this runtime, prints one
 * line saying so and what to do, and exits with ::EXIT_ENVIRONMENT.
 */
void gpu_open(gpu_info *info);

/** @brief The GPU's name with commas replaced, safe for a CSV field. */
void gpu_csv_name(const gpu_info *info, char *out, size_t out_len);

/**
 * @brief Why a kernel that needs compute capability @p min_cc cannot run on
 *        this GPU, e.g. "needs compute capability 9.0, this GPU is 8.6".
 * @return 1 with the reason in @p reason if the GPU is too old, else 0
 *         (always 0 for ANY_GPU, which is 0)
 */
int gpu_too_old(const gpu_info *info, int min_cc, char *reason, size_t reason_len);

/**
 * @brief Exit with ::EXIT_ENVIRONMENT, saying how much is needed and how much is
 *        free, unless @p bytes of device memory are free now.
 * @param bytes what the shape needs
 * @param what  names the shape in the message, e.g. "the 33x4097 matrix"
 */
void require_device_memory(size_t bytes, const char *what);

/** @brief Host memory the kernel says is available (MemAvailable), or 0 if unknown. */
size_t host_available_bytes(void);

/** @brief Like require_device_memory(), for host memory. */
void require_host_memory(size_t bytes, const char *what);

/** @brief Print the GPU and software lines of the report header. */
void print_gpu_header(FILE *out, const gpu_info *info);

/** @brief @p bytes in GiB, for messages. */
double gib(size_t bytes);

#ifdef __cplusplus
}
#endif

#endif /* TRANSPOSE_GPU_H */
