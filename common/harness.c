/**
 * @file harness.c
 * @brief run_step(): the test bench every step program runs on.
 *
 * The order of work is the point of this file:
 * 1. parse and validate the command line, and answer `--help`,
 *    `--list-variants` and `--describe`, all before any GPU work;
 * 2. find the GPU; open the stream and, unless `--check-only`, cuBLAS, the
 *    L2 flusher, the hold and the events; call the step's setup hook once;
 * 3. for every shape of the command line:
 *    - check that it fits in device and host memory, allocate its buffers,
 *      make a random input and its CPU reference;
 *    - for every row (memcpy, copy kernel, cuBLAS, the step's variants):
 *      poison the output and the slack around it, run once, compare bit
 *      for bit and check that the slack still holds the poison;
 *    - unless `--check-only`, time every row (time_row()) and compare the
 *      last timed output again;
 *    - print the shape's lines, table or CSV rows, and free its buffers;
 * 4. return the exit code: 1 if any row gave a wrong result.
 */
#include "harness.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "baselines.h"
#include "gpu.h"
#include "matrix.h"
#include "options.h"
#include "report.h"
#include "timing.h"

/** How many mismatching elements to print per row. */
#define MAX_REPORTED_MISMATCHES 8
/** Device memory kept free for cuBLAS's workspace and the CUDA context's needs. */
#define DEVICE_SLACK_BYTES ((size_t)256 << 20)
/**
 * Extra bytes per device buffer: room to shift it by the shape's offset. The
 * output's slack (offset floats before it, the rest after it) is allocated, so
 * memcheck cannot see a write there: verify_output() checks it instead.
 */
#define BUFFER_PAD_BYTES 256
/** Baseline rows in front of the variants: memcpy, copy kernel, cuBLAS. */
#define BASELINE_ROWS 3

/** @brief What lives as long as the program: the GPU, the stream and the timing tools. */
typedef struct bench {
    options opt;           /**< the parsed command line */
    const step_desc *step; /**< the program's variants */
    int first_variant;     /**< the first variant to run (all, or the one of --variant) */
    int last_variant;      /**< the last one */
    gpu_info gpu;          /**< the GPU it runs on */
    cudaStream_t stream;   /**< every launch and copy goes on this stream */
    cublasHandle_t cublas; /**< NULL with --check-only */
    cublasLtHandle_t cublas_lt; /**< for a step of 2-byte elements; NULL with --check-only */
    size_t element_bytes;  /**< 4 (float32) or 2, from the step */
    int tensor_step;       /**< 1 where the step's kernels permute tensors (variant_permute()) */
    l2_flusher flusher;    /**< empties L2 before each timed run; unused with --check-only */
    stream_hold hold;      /**< holds each batch of timed runs until it is queued */
    cudaEvent_t start[HOLD_BATCH_MAX]; /**< recorded before each timed run of a batch */
    cudaEvent_t stop[HOLD_BATCH_MAX];  /**< recorded after it */
} bench;

/** @brief The buffers of one shape, the same for every row. */
typedef struct matrices {
    shape shape;               /**< what they hold; a tensor's count / plan.cols x plan.cols */
    char text[ANY_SHAPE_TEXT_MAX]; /**< as the command line writes it, e.g. "33x4097+1" or "3x5x7:210" */
    tensor_shape tensor;       /**< a tensor step's tensor: `--dims`, or the matrix as one */
    permute_plan plan;         /**< its fold, which a tensor kernel is given */
    int from_dims;             /**< 1 where the shape is a tensor (`--dims`, or one in `--shapes`) */
    size_t count;              /**< rows * cols */
    size_t element_bytes;      /**< 4 (float32) or 2 */
    size_t bytes;              /**< count * element_bytes */
    void *host_in;             /**< the random input */
    void *host_expected;       /**< its CPU transpose */
    void *host_got;            /**< what came back from the GPU (pinned if it could be) */
    int host_got_pinned;       /**< 1 if host_got came from cudaMallocHost() */
    void *dev_in;              /**< input, shape.offset elements past a 256-byte boundary */
    void *dev_out;             /**< output, likewise */
    void *dev_in_base;         /**< what cudaMalloc returned for the input, for cudaFree */
    void *dev_out_base;        /**< likewise for the output */
} matrices;

/* ------------------------------------------------------------ running a row */

/**
 * @brief Exit with one line naming the row if @p err is an error: better
 *        than CUDA_CHECK's file and line when a student's kernel fails.
 */
static void check_row_error(cudaError_t err, const char *what, const report_row *row)
{
    if (err == cudaSuccess)
        return;
    char call[128];
    snprintf(call, sizeof call, "%s %s", what, row->label);
    cuda_fail(err, call, __FILE__, __LINE__);
}

/** @brief Launch one row on the shape's buffers; returns the threads launched (0 if unknown). */
static size_t launch_row(const bench *b, const matrices *m, const report_row *row)
{
    size_t threads = 0;
    switch (row->kind) {
    case ROW_MEMCPY:
        CUDA_CHECK(
            cudaMemcpyAsync(m->dev_out, m->dev_in, m->bytes, cudaMemcpyDeviceToDevice, b->stream));
        break;
    case ROW_COPY_KERNEL:
        threads = m->element_bytes == 2
                      ? copy_kernel_launch_16((const uint16_t *)m->dev_in, (uint16_t *)m->dev_out, m->count,
                                              b->stream)
                      : copy_kernel_launch((const float *)m->dev_in, (float *)m->dev_out, m->count, b->stream);
        break;
    case ROW_CUBLAS:
        if (m->element_bytes == 2) {
            char why[160];
            if (cublaslt_transpose_16(b->cublas_lt, (const uint16_t *)m->dev_in, (uint16_t *)m->dev_out,
                                      m->shape.rows, m->shape.cols, b->stream, why, sizeof why) != 0)
                die(EXIT_ENVIRONMENT, "%s", why);
        } else {
            cublas_transpose(b->cublas, (const float *)m->dev_in, (float *)m->dev_out, m->shape.rows,
                             m->shape.cols);
        }
        break;
    case ROW_VARIANT:
        if (row->permute != NULL) {
            threads = row->permute(m->dev_in, m->dev_out, &m->plan, m->element_bytes, b->stream);
            break;
        }
        threads = m->element_bytes == 2
                      ? row->launch16((const uint16_t *)m->dev_in, (uint16_t *)m->dev_out, m->shape.rows,
                                      m->shape.cols, b->stream)
                      : row->launch((const float *)m->dev_in, (float *)m->dev_out, m->shape.rows, m->shape.cols,
                                    b->stream);
        break;
    }
    check_row_error(cudaGetLastError(), "launching", row);
    return threads;
}

/**
 * @brief Poison the whole output allocation, the slack around the matrix included.
 *
 * Done once before a row's check and once before its timed runs, which then poison
 * only the matrix: a write into the slack by any of them is still there to be seen.
 */
static void poison_output_and_slack(const bench *b, const matrices *m)
{
    poison_output((float *)m->dev_out_base, m->bytes + BUFFER_PAD_BYTES, b->stream);
}

/** @brief How many of @p count bytes at @p bytes no longer hold ::POISON_BYTE. */
static size_t unpoisoned(const unsigned char *bytes, size_t count)
{
    size_t changed = 0;
    for (size_t i = 0; i < count; ++i)
        changed += bytes[i] != POISON_BYTE;
    return changed;
}

/**
 * @brief Check that the row left the output's slack alone; adds to row->bytes_past_end
 *        and row->bytes_before_start and prints a line for each side it wrote to.
 *
 * An index one past the last element lands in allocated memory: the comparison
 * and every sanitizer miss it, yet in a real program it overwrites a neighbour.
 */
static void verify_slack(const matrices *m, report_row *row, const char *label)
{
    unsigned char slack[BUFFER_PAD_BYTES];
    const size_t before = m->shape.offset * m->element_bytes;
    const size_t after = BUFFER_PAD_BYTES - before;
    if (before > 0)
        CUDA_CHECK(cudaMemcpy(slack, m->dev_out_base, before, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(slack + before, (char *)m->dev_out + m->bytes, after, cudaMemcpyDeviceToHost));
    const size_t changed_before = unpoisoned(slack, before);
    const size_t changed_after = unpoisoned(slack + before, after);
    if (changed_after > 0)
        fprintf(stderr,
                "  %s: wrote past the end of the output: %zu of the %zu bytes after it changed\n",
                label, changed_after, after);
    if (changed_before > 0)
        fprintf(
            stderr,
            "  %s: wrote before the start of the output: %zu of the %zu bytes before it changed\n",
            label, changed_before, before);
    row->bytes_past_end += changed_after;
    row->bytes_before_start += changed_before;
}

/**
 * @brief Wait for the row, bring its output back and compare it; adds to row->mismatches,
 *        and checks the slack around the output (verify_slack()).
 */
static void verify_output(const bench *b, const matrices *m, report_row *row)
{
    check_row_error(cudaStreamSynchronize(b->stream), "running", row);
    CUDA_CHECK(cudaMemcpy(m->host_got, m->dev_out, m->bytes, cudaMemcpyDeviceToHost));
    /* A copy (a baseline or a bound) must reproduce the input; a transpose, the reference. */
    const int is_copy = row_copies_input(row);
    const void *expected = is_copy ? m->host_in : m->host_expected;
    const size_t out_rows = is_copy ? m->shape.rows : m->shape.cols;
    const size_t out_cols = is_copy ? m->shape.cols : m->shape.rows;
    char label[sizeof m->text + 80];
    snprintf(label, sizeof label, "%s at %s", row->label, m->text);
    if (row->kind == ROW_VARIANT && row->output == OUTPUT_TILES_SWAPPED)
        row->mismatches += m->element_bytes == 2
                           ? verify_tiles_swapped_16((const uint16_t *)expected, (const uint16_t *)m->host_got,
                                                     out_rows, out_cols, SWAPPED_TILE_16, label,
                                                     MAX_REPORTED_MISMATCHES, stderr)
                           : verify_tiles_swapped((const float *)expected, (const float *)m->host_got, out_rows,
                                                  out_cols, SWAPPED_TILE, label, MAX_REPORTED_MISMATCHES, stderr);
    else
        row->mismatches += m->element_bytes == 2
                           ? verify_transpose_16((const uint16_t *)expected, (const uint16_t *)m->host_got,
                                                 out_rows, out_cols, label, MAX_REPORTED_MISMATCHES, stderr)
                           : verify_transpose((const float *)expected, (const float *)m->host_got, out_rows,
                                              out_cols, label, MAX_REPORTED_MISMATCHES, stderr);
    verify_slack(m, row, label);
    row->checked = 1;
}

/** @brief Poison the output and its slack, run the row once, check the result (or skip cuBLASLt where it refuses). */
static void check_row(const bench *b, const matrices *m, report_row *row)
{
    poison_output_and_slack(b, m);
    if (row->kind == ROW_CUBLAS && m->element_bytes == 2) {
        /* cuBLASLt may not take this type or shape: then the row is a SKIP with its reason. */
        if (cublaslt_transpose_16(b->cublas_lt, (const uint16_t *)m->dev_in, (uint16_t *)m->dev_out,
                                  m->shape.rows, m->shape.cols, b->stream, row->skip_reason,
                                  sizeof row->skip_reason) != 0)
            return;
        poison_output_and_slack(b, m);
    }
    row->threads = launch_row(b, m, row);
    verify_output(b, m, row);
}

/* ------------------------------------------------------------ timing a row */

/**
 * @brief Queue @p runs timed runs, behind the hold if @p held, release it,
 *        wait for them and store their times in @p ms.
 *
 * Each run is: poison, flush L2, start event, the row, stop event. All of
 * them are queued while the hold kernel keeps the GPU waiting, so once it is
 * released the runs follow each other without waiting for the host.
 * @return 1 if the hold gave up waiting before it was released, else 0
 */
static int time_batch(bench *b, const matrices *m, const report_row *row, int runs, int held,
                      double *ms)
{
    if (held)
        stream_hold_engage(&b->hold, b->stream);
    for (int i = 0; i < runs; ++i) {
        poison_output((float *)m->dev_out, m->bytes, b->stream);
        l2_flush(&b->flusher, b->stream);
        CUDA_CHECK(cudaEventRecord(b->start[i], b->stream));
        launch_row(b, m, row);
        CUDA_CHECK(cudaEventRecord(b->stop[i], b->stream));
    }
    if (held)
        stream_hold_release(&b->hold);
    check_row_error(cudaStreamSynchronize(b->stream), "running", row);
    for (int i = 0; i < runs; ++i) {
        float elapsed = 0.0f;
        CUDA_CHECK(cudaEventElapsedTime(&elapsed, b->start[i], b->stop[i]));
        ms[i] = elapsed;
    }
    return held && stream_hold_gave_up(&b->hold);
}

/** @brief malloc() that exits with one line instead of returning NULL. */
static void *host_alloc(size_t bytes)
{
    void *p = malloc(bytes);
    if (p == NULL)
        die(EXIT_ENVIRONMENT, "cannot allocate %.2f GiB of host memory: choose a smaller shape",
            gib(bytes));
    return p;
}

/**
 * @brief Warm up, then time the row in batches of at most ::HOLD_BATCH_MAX
 *        runs, set its median and minimum, and check the last timed output.
 *
 * Warm-up runs are poisoned but neither flushed nor held: they only bring
 * the code, the TLBs and the clocks up to speed. The slack is poisoned once,
 * before them, so the last check sees a stray write of any of the runs.
 *
 * If the hold gives up on a batch, the host could not queue the batch in
 * time: the CUDA launch queue filled up (a row that launches many kernels
 * per run, cuBLAS on some shapes), or the launcher waits for the GPU. That
 * batch's times may include host time, so they are dropped and the batch
 * is timed again, half as large; when even one run does not fit, the rest
 * are timed without the hold, with a warning.
 */
static void time_row(bench *b, const matrices *m, report_row *row)
{
    const int reps = b->opt.reps;
    double *ms = (double *)host_alloc((size_t)reps * sizeof *ms);
    poison_output_and_slack(b, m);
    for (int i = 0; i < b->opt.warmup; ++i) {
        poison_output((float *)m->dev_out, m->bytes, b->stream);
        launch_row(b, m, row);
    }
    int batch = HOLD_BATCH_MAX, held = 1;
    for (int done = 0; done < reps;) {
        const int runs = reps - done < batch ? reps - done : batch;
        if (!time_batch(b, m, row, runs, held, ms + done))
            done += runs;
        else if (batch > 1)
            batch /= 2;
        else
            held = 0;
    }
    if (!held)
        fprintf(stderr,
                "warning: %s at %s: not even one run could be queued while the GPU waited, so "
                "it was timed without the hold and may include host time (does the launcher "
                "wait for the GPU?)\n",
                row->label, m->text);
    row->median_ms = median_of(ms, reps);
    row->min_ms = ms[0]; /* median_of() sorted them */
    row->timed = 1;
    free(ms);
    verify_output(b, m, row);
}

/* ------------------------------------------------------------ one shape */

/**
 * @brief Page-locked host memory if the driver grants it, else malloc().
 *
 * Every row's output comes back to the host twice (once checked, once
 * after timing). From page-locked memory the copy runs at the link's full
 * speed; from pageable memory the driver copies through a staging buffer
 * at a fraction of it, which made a sweep over large shapes spend most of
 * its time waiting for the host. Not a matter of correctness: the fallback
 * is only slower.
 */
static void *host_alloc_pinned(size_t bytes, int *pinned)
{
    void *p = NULL;
    if (cudaMallocHost(&p, bytes) == cudaSuccess) {
        *pinned = 1;
        return p;
    }
    (void)cudaGetLastError(); /* a refused pin is no error of the rows that follow */
    *pinned = 0;
    return host_alloc(bytes);
}

/** @brief copies * bytes + extra, or SIZE_MAX if that does not fit in a size_t. */
static size_t bytes_needed(size_t copies, size_t bytes, size_t extra)
{
    if (bytes > (SIZE_MAX - extra) / copies)
        return SIZE_MAX;
    return copies * bytes + extra;
}

/**
 * @brief A tensor step's tensor and its fold: a tensor shape (`--dims`, or
 *        a tensor in `--shapes`) with the matrix the report shows for it
 *        (count / plan.cols x plan.cols), or the matrix @p s as a rank-2
 *        tensor. Where the step transposes matrices, nothing.
 */
static void tensor_open(matrices *m, const shape *s, const bench *b)
{
    m->shape = *s;
    format_shape(s, m->text, sizeof m->text);
    if (!b->tensor_step)
        return;
    m->from_dims = s->tensor.rank > 0;
    m->tensor = m->from_dims ? s->tensor : tensor_of_matrix(s->rows, s->cols);
    permute_fold(&m->tensor, &m->plan);
    if (!m->from_dims)
        return;
    m->shape.cols = m->plan.cols;
    m->shape.rows = m->plan.count / m->plan.cols;
}

/** @brief Check that the shape fits, allocate both sides, make the input and the reference. */
static void matrices_open(matrices *m, const shape *s, const bench *b)
{
    memset(m, 0, sizeof *m);
    tensor_open(m, s, b);
    s = &m->shape;
    m->count = s->rows * s->cols;
    m->element_bytes = b->element_bytes;
    m->bytes = m->count * m->element_bytes;

    char what[sizeof m->text + 16];
    snprintf(what, sizeof what, "the %s %s", m->text, m->from_dims ? "tensor" : "matrix");
    const size_t slack = b->opt.check_only ? 0 : DEVICE_SLACK_BYTES;
    require_device_memory(bytes_needed(2, m->bytes, 2 * BUFFER_PAD_BYTES + slack), what);
    require_host_memory(bytes_needed(3, m->bytes, 0), what);

    m->host_in = host_alloc(m->bytes);
    m->host_expected = host_alloc(m->bytes);
    m->host_got = host_alloc_pinned(m->bytes, &m->host_got_pinned);
    CUDA_CHECK(cudaMalloc(&m->dev_in_base, m->bytes + BUFFER_PAD_BYTES));
    CUDA_CHECK(cudaMalloc(&m->dev_out_base, m->bytes + BUFFER_PAD_BYTES));
    m->dev_in = (char *)m->dev_in_base + s->offset * m->element_bytes;
    m->dev_out = (char *)m->dev_out_base + s->offset * m->element_bytes;

    if (m->from_dims) {   /* by definition, element by element: the fold is what is under test */
        if (m->element_bytes == 2)
            fill_random_16((uint16_t *)m->host_in, m->count, b->opt.seed);
        else
            fill_random((float *)m->host_in, m->count, b->opt.seed);
        permute_reference(m->host_in, m->host_expected, &m->tensor, m->element_bytes);
    } else if (m->element_bytes == 2) {
        fill_random_16((uint16_t *)m->host_in, m->count, b->opt.seed);
        transpose_reference_16((const uint16_t *)m->host_in, (uint16_t *)m->host_expected, s->rows, s->cols);
    } else {
        fill_random((float *)m->host_in, m->count, b->opt.seed);
        transpose_reference((const float *)m->host_in, (float *)m->host_expected, s->rows, s->cols);
    }
    CUDA_CHECK(cudaMemcpy(m->dev_in, m->host_in, m->bytes, cudaMemcpyHostToDevice));
}

/** @brief Free everything matrices_open() made. */
static void matrices_close(matrices *m)
{
    CUDA_CHECK(cudaFree(m->dev_in_base));
    CUDA_CHECK(cudaFree(m->dev_out_base));
    free(m->host_in);
    free(m->host_expected);
    if (m->host_got_pinned)
        CUDA_CHECK(cudaFreeHost(m->host_got));
    else
        free(m->host_got);
}

/** @brief The name `--dtype` gives elements of @p element_bytes bytes. */
static const char *dtype_name(size_t element_bytes)
{
    return element_bytes == 2 ? "bf16" : "f32";
}

/**
 * @brief The rows of one shape: the baselines (unless `--check-only`), then
 *        the selected variants. A row that cannot run here gets a skip reason.
 */
static int make_rows(const bench *b, const matrices *m, report_row *rows)
{
    const shape *s = &m->shape;
    const permute_plan *p = &m->plan;
    int n = 0;
    if (!b->opt.check_only) {
        rows[n++] = (report_row){.kind = ROW_MEMCPY, .name = "memcpy", .label = "cudaMemcpy D2D"};
        rows[n++] =
            (report_row){.kind = ROW_COPY_KERNEL, .name = "copy_kernel", .label = "copy kernel"};
        rows[n] = (report_row){.kind = ROW_CUBLAS, .name = "cublas", .label = "cublasSgeam"};
        if (b->element_bytes == 2)
            snprintf(rows[n].label, sizeof rows[n].label, "cublasLtMatrixTransform");
        if (m->from_dims && !permute_is_one_matrix(p))   /* cuBLAS transposes one packed matrix */
            snprintf(rows[n].skip_reason, sizeof rows[n].skip_reason,
                     "cuBLAS transposes one matrix; this tensor folds to a %s, batch of %zu",
                     permute_kind_name(p->kind), p->batches);
        else if (!cublas_shape_supported(s->rows, s->cols))
            snprintf(rows[n].skip_reason, sizeof rows[n].skip_reason,
                     "cuBLAS takes int dimensions: rows and cols must be at most 2147483647");
        ++n;
    }
    for (int i = b->first_variant; i <= b->last_variant; ++i) {
        const kernel_variant *v = &b->step->variants[i];
        report_row *row = &rows[n++];
        *row = (report_row){.kind = ROW_VARIANT,
                            .name = v->name,
                            .launch = v->launch,
                            .launch16 = v->launch16,
                            .permute = v->permute,
                            .output = v->output};
        snprintf(row->label, sizeof row->label, "%s %s", b->step->number, v->name);
        if (!variant_takes(v, b->element_bytes))
            snprintf(row->skip_reason, sizeof row->skip_reason, "no %s kernel", dtype_name(b->element_bytes));
        else
            gpu_too_old(&b->gpu, v->min_cc, row->skip_reason, sizeof row->skip_reason);
    }
    return n;
}

/** @brief Print one shape's part of stdout; the headers come before the first shape's. */
static void print_shape_report(const bench *b, const report *r, int first_shape)
{
    if (b->opt.csv) {
        if (first_shape)
            print_csv_header(stdout);
        print_csv_rows(stdout, r);
    } else if (b->opt.check_only) {
        print_check_lines(stdout, r);
    } else {
        if (first_shape) {
            char flush[128];
            describe_flush(&b->flusher, flush, sizeof flush);
            print_table_header(stdout, b->step, &b->gpu, &b->opt, flush);
        }
        print_table(stdout, r);
    }
    fflush(stdout); /* each shape's lines appear as soon as it is done */
}

/**
 * @brief Check, and unless `--check-only` time, every row on one shape,
 *        then print its report.
 * @return 1 if any row gave a wrong result, else 0
 */
static int run_shape(bench *b, const shape *s, int first_shape)
{
    matrices m;
    matrices_open(&m, s, b);
    report_row rows[MAX_ROWS];
    const int n = make_rows(b, &m, rows);
    for (int i = 0; i < n; ++i)
        if (rows[i].skip_reason[0] == '\0')
            check_row(b, &m, &rows[i]);
    for (int i = 0; i < n && !b->opt.check_only; ++i)
        if (rows[i].skip_reason[0] == '\0')
            time_row(b, &m, &rows[i]);

    const report r = {.step = b->step, .gpu = &b->gpu, .opt = &b->opt, .shape = &m.shape, .rows = rows,
                      .count = n, .element_bytes = b->element_bytes, .tensor = m.from_dims ? &m.tensor : NULL};
    print_shape_report(b, &r, first_shape);
    matrices_close(&m);
    int failed = 0;
    for (int i = 0; i < n; ++i)
        failed |= row_wrong(&rows[i]);
    return failed;
}

/* ------------------------------------------------------------ the program */

/** @brief Open the GPU and the stream and, unless `--check-only`, everything timing needs. */
static void bench_open(bench *b)
{
    gpu_open(&b->gpu);
    CUDA_CHECK(cudaStreamCreate(&b->stream));
    if (b->opt.check_only)
        return;
    require_device_memory(l2_flusher_bytes(&b->gpu, b->opt.flush), "the L2 flush buffer");
    l2_flusher_open(&b->flusher, &b->gpu, b->opt.flush);
    stream_hold_open(&b->hold);
    for (int i = 0; i < HOLD_BATCH_MAX; ++i) {
        CUDA_CHECK(cudaEventCreate(&b->start[i]));
        CUDA_CHECK(cudaEventCreate(&b->stop[i]));
    }
    b->cublas = cublas_open(b->stream);
    if (b->element_bytes == 2)
        b->cublas_lt = cublas_lt_open();
}

/** @brief Free everything bench_open() made. */
static void bench_close(bench *b)
{
    if (!b->opt.check_only) {
        cublasDestroy(b->cublas);
        if (b->cublas_lt != NULL)
            cublas_lt_close(b->cublas_lt);
        for (int i = 0; i < HOLD_BATCH_MAX; ++i) {
            CUDA_CHECK(cudaEventDestroy(b->start[i]));
            CUDA_CHECK(cudaEventDestroy(b->stop[i]));
        }
        stream_hold_close(&b->hold);
        l2_flusher_close(&b->flusher);
    }
    CUDA_CHECK(cudaStreamDestroy(b->stream));
}

/**
 * @brief Call the step's setup hook once, before any launch, if any selected
 *        variant can run on this GPU (a hook may prepare kernels that only
 *        a newer GPU can run).
 */
static void run_setup_hook(const bench *b)
{
    if (b->step->setup == NULL)
        return;
    for (int i = b->first_variant; i <= b->last_variant; ++i) {
        if (b->gpu.cc >= b->step->variants[i].min_cc) {
            b->step->setup();
            const cudaError_t err = cudaGetLastError();
            if (err != cudaSuccess)
                cuda_fail(err, "the step's setup hook", __FILE__, __LINE__);
            return;
        }
    }
}

/**
 * @brief Which variants to run: all of them, or the one `--variant` names.
 * @return 0, or -1 if no variant has that name
 */
static int select_variants(bench *b)
{
    b->first_variant = 0;
    b->last_variant = b->step->variant_count - 1;
    if (b->opt.variant == NULL)
        return 0;
    for (int i = 0; i < b->step->variant_count; ++i) {
        if (strcmp(b->step->variants[i].name, b->opt.variant) == 0) {
            b->first_variant = b->last_variant = i;
            return 0;
        }
    }
    return -1;
}

/**
 * @brief The element type of the run, the step's own or the one `--dtype`
 *        asks for: the variants that have no kernel for it become SKIP
 *        rows, but one that `--variant` names, or a step with none at all,
 *        is a usage error.
 * @return -1 to go on, or EXIT_USAGE
 */
static int check_dtype(bench *b)
{
    const kernel_variant *named = &b->step->variants[b->first_variant];
    if (b->opt.element_bytes != 0)
        b->element_bytes = b->opt.element_bytes;
    else if (b->opt.variant != NULL && !variant_takes(named, b->element_bytes))
        b->element_bytes = b->element_bytes == 2 ? 4 : 2;   /* a kernel of the other type alone: its type */
    int takers = 0;
    for (int i = b->first_variant; i <= b->last_variant; ++i)
        takers += variant_takes(&b->step->variants[i], b->element_bytes);
    if (takers == 0) {
        fprintf(stderr, "error: step %s has no %s kernel%s%s: --list-variants says which element types each "
                "kernel takes (--dtype)\n", b->step->number, dtype_name(b->element_bytes),
                b->opt.variant ? " named " : "", b->opt.variant ? b->opt.variant : "");
        return EXIT_USAGE;
    }
    return -1;
}

/**
 * @brief Parse the command line and answer everything that needs no GPU.
 * @return an exit code to return at once, or -1 to go on and run
 */
static int handle_command_line(int argc, char **argv, bench *b)
{
    char err[320];
    if (parse_step_options(argc, argv, b->element_bytes, &b->opt, err, sizeof err) != 0) {
        fprintf(stderr, "error: %s (see %s --help)\n", err, argv[0]);
        return EXIT_USAGE;
    }
    if (b->opt.help) {
        print_usage(stdout, argv[0], b->step);
        return EXIT_PASS;
    }
    if (b->opt.list_variants) {
        print_variant_list(stdout, b->step);
        return EXIT_PASS;
    }
    if (b->opt.describe) {
        print_step_description(stdout, b->step);
        return EXIT_PASS;
    }
    b->tensor_step = b->step->variants[0].permute != NULL;
    if (b->opt.plan) {
        const shape *s = &b->opt.shapes[0];
        const tensor_shape t = s->tensor.rank > 0 ? s->tensor : tensor_of_matrix(s->rows, s->cols);
        permute_plan plan;
        permute_fold(&t, &plan);
        print_permute_plan(stdout, &t, &plan);
        return EXIT_PASS;
    }
    int tensors = 0;
    for (int i = 0; i < b->opt.shape_count; ++i)
        tensors += b->opt.shapes[i].tensor.rank > 0;
    if (tensors > 0 && !b->tensor_step) {
        fprintf(stderr, "error: step %s transposes matrices: --dims and --perm are for a step of tensor kernels "
                "(step 15); give --shapes instead\n", b->step->number);
        return EXIT_USAGE;
    }
    if (select_variants(b) != 0) {
        fprintf(stderr, "error: step %s has no kernel '%s' (see %s --list-variants)\n",
                b->step->number, b->opt.variant, argv[0]);
        return EXIT_USAGE;
    }
    if (b->step->variants[0].output != OUTPUT_TRANSPOSE) {
        /* Summaries, the grader and the peers take the first variant as the step's kernel. */
        fprintf(stderr,
                "error: step %s's first variant, %s, is its default kernel and must transpose, "
                "but it copies (OUTPUT_COPY): list it after a transpose\n",
                b->step->number, b->step->variants[0].name);
        return EXIT_USAGE;
    }
    if (b->step->variant_count > MAX_ROWS - BASELINE_ROWS) {
        fprintf(stderr,
                "error: step %s declares %d variants, but a report holds at most %d "
                "(MAX_ROWS in common/report.h)\n",
                b->step->number, b->step->variant_count, MAX_ROWS - BASELINE_ROWS);
        return EXIT_USAGE;
    }
    const kernel_variant *first = &b->step->variants[0];
    if (!variant_takes(first, b->element_bytes)) {
        fprintf(stderr, "error: step %s is a step of %s elements, but its default variant %s has no launcher for "
                "them: %s\n", b->step->number, step_element_name(b->step), first->name,
                b->element_bytes == 2 ? "write it with variant16()" : "give it a float launcher");
        return EXIT_USAGE;
    }
    return check_dtype(b);   /* the other variants: one without a kernel of the type is a SKIP row */
}

int run_step(int argc, char **argv, const step_desc *step)
{
    bench b;
    memset(&b, 0, sizeof b);
    b.step = step;
    b.element_bytes = step_element_bytes(step);
    const int early_exit = handle_command_line(argc, argv, &b);
    if (early_exit >= 0)
        return early_exit;

    bench_open(&b);
    run_setup_hook(&b);
    int failed = 0;
    for (int i = 0; i < b.opt.shape_count; ++i)
        failed |= run_shape(&b, &b.opt.shapes[i], i == 0);
    bench_close(&b);
    return failed ? EXIT_WRONG : EXIT_PASS;
}
