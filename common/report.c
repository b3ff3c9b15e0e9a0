/**
 * @file report.c
 * @brief The human-readable table and the CSV rows of a run.
 */
#include "report.h"

#include "matrix.h"

double copy_bound_ms(const report *r)
{
    double best = 0.0;
    for (int i = 0; i < r->count; ++i) {
        const contender *c = &r->contenders[i];
        const int is_copy = c->kind == CONTENDER_MEMCPY || c->kind == CONTENDER_COPY_KERNEL;
        if (is_copy && c->timed && (best == 0.0 || c->median_ms < best))
            best = c->median_ms;
    }
    return best;
}

double cublas_ms(const report *r)
{
    for (int i = 0; i < r->count; ++i)
        if (r->contenders[i].kind == CONTENDER_CUBLAS && r->contenders[i].timed)
            return r->contenders[i].median_ms;
    return 0.0;
}

/** @brief PASS, FAIL, or SKIP if the contender was never checked. */
static const char *check_word(const contender *c)
{
    return !c->checked ? "SKIP" : c->mismatches == 0 ? "PASS" : "FAIL";
}

void print_table(FILE *out, const report *r)
{
    const options *opt = r->opt;
    fprintf(out, "Step %s (%s): %s\n", r->step->number, r->step->name, r->step->title);
    print_gpu_header(out, r->gpu, opt->rows, opt->cols);
    if (opt->offset != 0)
        fprintf(out, "Offset   both matrices start %zu floats past a 16-byte boundary\n", opt->offset);
    if (opt->check_only) {
        fprintf(out, "Mode     --check-only: each kernel ran once on a poisoned output\n\n");
        for (int i = 0; i < r->count; ++i)
            fprintf(out, "%-24s %s\n", r->contenders[i].label, check_word(&r->contenders[i]));
        return;
    }
    fprintf(out, "Timing   median and min of %d runs after %d warm-ups; output poisoned and L2 "
                 "flushed before each run\n\n", opt->reps, opt->warmup);
    const double copy_ms = copy_bound_ms(r), blas_ms = cublas_ms(r);
    fprintf(out, "%-24s %12s %10s %10s %9s %10s %10s  %s\n", "kernel", "threads", "median ms",
            "min ms", "GB/s", "% of copy", "vs cuBLAS", "check");
    for (int i = 0; i < r->count; ++i) {
        const contender *c = &r->contenders[i];
        char threads[32] = "-", vs_blas[32] = "n/a";
        if (c->threads > 0)
            snprintf(threads, sizeof threads, "%zu", c->threads);
        if (blas_ms > 0.0)
            snprintf(vs_blas, sizeof vs_blas, "%.2fx", blas_ms / c->median_ms);
        fprintf(out, "%-24s %12s %10.4f %10.4f %9.1f %9.1f%% %10s  %s\n", c->label, threads,
                c->median_ms, c->min_ms, transpose_gbps(opt->rows, opt->cols, c->median_ms),
                100.0 * copy_ms / c->median_ms, vs_blas, check_word(c));
    }
    fprintf(out, "\nGB/s counts every element read once and written once (2 x %zu x %zu x 4 bytes, "
                 "1 GB = 1e9 B).\n", opt->rows, opt->cols);
    fprintf(out, "%% of copy: against the faster copy above; vs cuBLAS: above 1.00x is faster "
                 "than cublasSgeam.\n");
    if (blas_ms == 0.0)
        fprintf(out, "cuBLAS takes int dimensions; this shape is past its limits, so it was not run.\n");
}

void print_csv(FILE *out, const report *r)
{
    const options *opt = r->opt;
    char gpu[256];
    gpu_csv_name(r->gpu, gpu, sizeof gpu);
    const double copy_ms = copy_bound_ms(r), blas_ms = cublas_ms(r);
    fprintf(out, "%s\n", CSV_HEADER);
    for (int i = 0; i < r->count; ++i) {
        const contender *c = &r->contenders[i];
        fprintf(out, "%s,%s,%s,%zu,%zu,", gpu, r->step->number, c->name, opt->rows, opt->cols);
        if (c->timed) {
            fprintf(out, "%.6f,%.6f,%.1f,%.2f,", c->median_ms, c->min_ms,
                    transpose_gbps(opt->rows, opt->cols, c->median_ms), 100.0 * copy_ms / c->median_ms);
            if (blas_ms > 0.0)
                fprintf(out, "%.4f", blas_ms / c->median_ms);
        } else {
            fprintf(out, ",,,,");
        }
        fprintf(out, ",%s\n", check_word(c));
    }
}
