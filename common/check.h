/**
 * @file check.h
 * @brief Exit codes and the error-checking macros every program uses.
 *
 * A CUDA call that fails must never be ignored: exit code 0 proves nothing
 * if an earlier launch silently failed. Each macro prints one line, naming
 * the call as it was written, the error and the place, then exits with
 * ::EXIT_ENVIRONMENT.
 */
#ifndef TRANSPOSE_CHECK_H
#define TRANSPOSE_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @brief The documented exit codes of every program in this repository. */
enum exit_code {
    EXIT_PASS = 0,        /**< every checked kernel gave the bit-exact transpose */
    EXIT_WRONG = 1,       /**< at least one kernel gave a wrong result */
    EXIT_USAGE = 2,       /**< bad command line: nothing was run */
    EXIT_ENVIRONMENT = 3  /**< no GPU or driver, too little memory, or a CUDA failure */
};

/**
 * @brief Print one error line to stderr and exit with @p code.
 *
 * Every fatal message in the repository goes through here so that all of
 * them look alike: `error: <what is wrong>`.
 */
void die(int code, const char *format, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3), noreturn))
#endif
    ;

/** @brief Report a failed CUDA runtime call and exit with ::EXIT_ENVIRONMENT. */
void cuda_fail(cudaError_t err, const char *call, const char *file, int line)
#ifdef __GNUC__
    __attribute__((noreturn))
#endif
    ;

#ifdef __cplusplus
}
#endif

/**
 * @brief Check a CUDA runtime call; on failure print the call's text,
 *        the error name and file:line, then exit with ::EXIT_ENVIRONMENT.
 */
#define CUDA_CHECK(call)                                         \
    do {                                                         \
        cudaError_t cuda_check_err_ = (call);                    \
        if (cuda_check_err_ != cudaSuccess)                      \
            cuda_fail(cuda_check_err_, #call, __FILE__, __LINE__); \
    } while (0)

#endif /* TRANSPOSE_CHECK_H */
