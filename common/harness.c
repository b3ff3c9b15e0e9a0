/**
 * @file harness.c
 * @brief run_step(): the test bench every step program runs on.
 *
 * The order of work is the point of this file:
 * 1. parse and validate the command line (no GPU work yet);
 * 2. find the GPU and check that the shape fits in device and host memory;
 * 3. make a random input and its CPU reference transpose;
 * 4. for every contender (memcpy, copy kernel, cuBLAS, the step's kernels):
 *    poison the output, run once, compare bit for bit; then, unless
 *    `--check-only`, warm up and time it, poisoning the output and flushing
 *    L2 before every timed run, and compare the last timed result again;
 * 5. print the report and return the exit code.
 */
#include "harness.h"

#include <stdlib.h>
#include <string.h>

#include "baselines.h"
#include "gpu.h"
#include "matrix.h"
#include "options.h"
#include "report.h"
#include "timing.h"

/** How many mismatching elements to print per kernel. */
#define MAX_REPORTED_MISMATCHES 8
/** Device memory kept free for cuBLAS's workspace and the CUDA context's needs. */
#define DEVICE_SLACK_BYTES ((size_t)256 << 20)

/** @brief Everything one run works on: the same buffers for every contender. */
typedef struct bench {
    options opt;           /**< the parsed command line */
    gpu_info gpu;          /**< the GPU it runs on */
    size_t count;          /**< rows * cols */
    size_t bytes;          /**< count * sizeof(float) */
    float *host_in;        /**< the random input */
    float *host_expected;  /**< its CPU transpose */
    float *host_got;       /**< what came back from the GPU */
    float *dev_in;         /**< input, opt.offset floats past a 256-byte boundary */
    float *dev_out;        /**< output, likewise */
    void *dev_in_base;     /**< what cudaMalloc returned for the input, for cudaFree */
    void *dev_out_base;    /**< likewise for the output */
    cudaStream_t stream;   /**< every launch and copy goes on this stream */
    cublasHandle_t cublas; /**< NULL with --check-only */
    l2_flusher flusher;    /**< flushes L2 before each timed run */
} bench;

/** @brief Launch one contender on the bench's buffers; returns threads launched (0 if unknown). */
static size_t launch_contender(const contender *c, bench *b)
{
    switch (c->kind) {
    case CONTENDER_MEMCPY:
        CUDA_CHECK(cudaMemcpyAsync(b->dev_out, b->dev_in, b->bytes, cudaMemcpyDeviceToDevice, b->stream));
        return 0;
    case CONTENDER_COPY_KERNEL:
        return copy_kernel_launch(b->dev_in, b->dev_out, b->count, b->stream);
    case CONTENDER_CUBLAS:
        cublas_transpose(b->cublas, b->dev_in, b->dev_out, b->opt.rows, b->opt.cols);
        return 0;
    case CONTENDER_STEP:
        return c->launch(b->dev_in, b->dev_out, b->opt.rows, b->opt.cols, b->stream);
    }
    return 0;
}

/** @brief The launch wrapper that timing.c calls. */
static void launch_for_timing(void *context, const contender *c)
{
    bench *b = (bench *)context;
    launch_contender(c, b);
    CUDA_CHECK(cudaGetLastError());
}

/** @brief Poison the output so that an element the contender does not write cannot pass. */
static void poison_output(bench *b)
{
    CUDA_CHECK(cudaMemsetAsync(b->dev_out, POISON_BYTE, b->bytes, b->stream));
}

/** @brief Bring the output back and compare it with the expected result; adds to c->mismatches. */
static void verify_output(bench *b, contender *c)
{
    CUDA_CHECK(cudaStreamSynchronize(b->stream));
    CUDA_CHECK(cudaMemcpy(b->host_got, b->dev_out, b->bytes, cudaMemcpyDeviceToHost));
    /**< A copy must reproduce the input; a transpose, the reference. */
    const int is_copy = c->kind == CONTENDER_MEMCPY || c->kind == CONTENDER_COPY_KERNEL;
    const float *expected = is_copy ? b->host_in : b->host_expected;
    const size_t out_rows = is_copy ? b->opt.rows : b->opt.cols;
    const size_t out_cols = is_copy ? b->opt.cols : b->opt.rows;
    c->mismatches += verify_transpose(expected, b->host_got, out_rows, out_cols, c->label,
                                      MAX_REPORTED_MISMATCHES, stderr);
    c->checked = 1;
}

/** @brief Poison, run once, check. */
static void check_contender(bench *b, contender *c)
{
    poison_output(b);
    c->threads = launch_contender(c, b);
    CUDA_CHECK(cudaGetLastError());
    verify_output(b, c);
}

/** @brief Warm up, time, then check the last timed output too. */
static void time_contender(bench *b, contender *c)
{
    time_runs(c, launch_for_timing, b, b->dev_out, b->bytes, b->opt.warmup, b->opt.reps,
              &b->flusher, b->stream);
    verify_output(b, c);
}

/** @brief Print the usage: the shared options and this step's kernels. */
static void print_usage(const char *program, const step_desc *step)
{
    printf("Step %s (%s): %s\n\nUsage: %s [options]\n\nOptions:\n", step->number, step->name,
           step->title, program);
    print_options_help(stdout);
    printf("\nKernels of this step (--variant NAME; the first is the default):\n");
    for (int i = 0; i < step->variant_count; ++i)
        printf("  %-16s %s\n", step->variants[i].name, step->variants[i].summary);
}

/** @brief Which of the step's variants to run: all of them, or the one --variant names. */
static int select_variants(const step_desc *step, const char *wanted, int *first, int *last)
{
    *first = 0;
    *last = step->variant_count - 1;
    if (wanted == NULL)
        return 0;
    for (int i = 0; i < step->variant_count; ++i) {
        if (strcmp(step->variants[i].name, wanted) == 0) {
            *first = *last = i;
            return 0;
        }
    }
    return -1;
}

/** @brief malloc() that exits with one line instead of returning NULL. */
static void *host_alloc(size_t bytes)
{
    void *p = malloc(bytes);
    if (p == NULL)
        die(EXIT_ENVIRONMENT, "cannot allocate %.2f GiB of host memory: choose a smaller --rows/--cols",
            gib(bytes));
    return p;
}

/** @brief Check memory, allocate both sides, make the input and the reference. */
static void bench_setup(bench *b)
{
    const size_t pad = 256; /**< room to shift a buffer by --offset floats */
    size_t device_need = 2 * (b->bytes + pad);
    if (!b->opt.check_only)
        device_need += l2_flusher_bytes(&b->gpu) + DEVICE_SLACK_BYTES;
    require_device_memory(device_need);
    require_host_memory(3 * b->bytes);

    b->host_in = (float *)host_alloc(b->bytes);
    b->host_expected = (float *)host_alloc(b->bytes);
    b->host_got = (float *)host_alloc(b->bytes);
    CUDA_CHECK(cudaMalloc(&b->dev_in_base, b->bytes + pad));
    CUDA_CHECK(cudaMalloc(&b->dev_out_base, b->bytes + pad));
    b->dev_in = (float *)b->dev_in_base + b->opt.offset;
    b->dev_out = (float *)b->dev_out_base + b->opt.offset;
    CUDA_CHECK(cudaStreamCreate(&b->stream));

    fill_random(b->host_in, b->count, b->opt.seed);
    transpose_reference(b->host_in, b->host_expected, b->opt.rows, b->opt.cols);
    CUDA_CHECK(cudaMemcpy(b->dev_in, b->host_in, b->bytes, cudaMemcpyHostToDevice));
    if (!b->opt.check_only) {
        b->cublas = cublas_open(b->stream);
        l2_flusher_open(&b->flusher, &b->gpu);
    }
}

/** @brief Free everything bench_setup() made. */
static void bench_teardown(bench *b)
{
    if (b->cublas != NULL)
        cublasDestroy(b->cublas);
    l2_flusher_close(&b->flusher);
    CUDA_CHECK(cudaStreamDestroy(b->stream));
    CUDA_CHECK(cudaFree(b->dev_in_base));
    CUDA_CHECK(cudaFree(b->dev_out_base));
    free(b->host_in);
    free(b->host_expected);
    free(b->host_got);
}

/** @brief The contenders of this run: the baselines (unless --check-only), then the step's kernels. */
static int make_contenders(const bench *b, const step_desc *step, int first, int last,
                           contender *list, int capacity)
{
    int n = 0;
    if (!b->opt.check_only) {
        list[n++] = (contender){.kind = CONTENDER_MEMCPY, .name = "memcpy", .label = "cudaMemcpy D2D"};
        list[n++] = (contender){.kind = CONTENDER_COPY_KERNEL, .name = "copy_kernel", .label = "copy kernel"};
        if (cublas_shape_supported(b->opt.rows, b->opt.cols))
            list[n++] = (contender){.kind = CONTENDER_CUBLAS, .name = "cublas", .label = "cublasSgeam"};
    }
    for (int i = first; i <= last && n < capacity; ++i) {
        contender *c = &list[n++];
        *c = (contender){.kind = CONTENDER_STEP, .name = step->variants[i].name,
                         .launch = step->variants[i].launch};
        snprintf(c->label, sizeof c->label, "%s %s", step->number, step->variants[i].name);
    }
    return n;
}

int run_step(int argc, char **argv, const step_desc *step)
{
    bench b;
    memset(&b, 0, sizeof b);
    char err[256];
    if (parse_options(argc, argv, &b.opt, err, sizeof err) != 0) {
        fprintf(stderr, "error: %s (see %s --help)\n", err, argv[0]);
        return EXIT_USAGE;
    }
    if (b.opt.help) {
        print_usage(argv[0], step);
        return EXIT_PASS;
    }
    int first, last;
    if (select_variants(step, b.opt.variant, &first, &last) != 0) {
        fprintf(stderr, "error: step %s has no kernel '%s' (see %s --help for its kernels)\n",
                step->number, b.opt.variant, argv[0]);
        return EXIT_USAGE;
    }

    gpu_open(&b.gpu);
    b.count = b.opt.rows * b.opt.cols;
    b.bytes = b.count * sizeof(float);
    bench_setup(&b);

    contender list[MAX_CONTENDERS];
    const int n = make_contenders(&b, step, first, last, list, MAX_CONTENDERS);
    for (int i = 0; i < n; ++i)
        check_contender(&b, &list[i]);
    if (!b.opt.check_only)
        for (int i = 0; i < n; ++i)
            time_contender(&b, &list[i]);

    report r = {.step = step, .gpu = &b.gpu, .opt = &b.opt, .contenders = list, .count = n};
    if (b.opt.csv)
        print_csv(stdout, &r);
    else
        print_table(stdout, &r);

    int failed = 0;
    for (int i = 0; i < n; ++i)
        failed |= list[i].mismatches != 0;
    bench_teardown(&b);
    return failed ? EXIT_WRONG : EXIT_PASS;
}
