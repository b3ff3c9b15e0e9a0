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
    char name[256];       /**< e.g. "NVIDIA H200" */
    int sm_count;         /**< streaming multiprocessors */
    size_t l2_bytes;      /**< L2 cache size */
    size_t memory_bytes;  /**< total device memory */
    int cc_major;         /**< compute capability, major */
    int cc_minor;         /**< compute capability, minor */
    int runtime_version;  /**< CUDA runtime, e.g. 13000 for 13.0 */
    int driver_version;   /**< newest CUDA version the driver supports */
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
 * @brief Exit with ::EXIT_ENVIRONMENT, saying how much is needed and how much is
 *        free, unless @p bytes of device memory are free now.
 */
void require_device_memory(size_t bytes);

/** @brief Host memory the kernel says is available (MemAvailable), or 0 if unknown. */
size_t host_available_bytes(void);

/** @brief Like require_device_memory(), for host memory. */
void require_host_memory(size_t bytes);

/** @brief Print the report header: GPU, software versions and the shape. */
void print_gpu_header(FILE *out, const gpu_info *info, size_t rows, size_t cols);

/** @brief @p bytes in GiB, for messages. */
double gib(size_t bytes);

#ifdef __cplusplus
}
#endif

#endif /* TRANSPOSE_GPU_H */
