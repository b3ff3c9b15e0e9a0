/**
 * @file report.c
 * @brief Everything a program prints on stdout: the tables, the CSV rows,
 *        the `--check-only` lines, `--help`, `--list-variants` and `--describe`.
 */
#include "report.h"

#include "matrix.h"
#include "timing.h"

/** @brief True for a variant that does not transpose: a bound (::OUTPUT_COPY, ::OUTPUT_TILES_SWAPPED). */
static int is_bound(const report_row *row)
{
    return row->kind == ROW_VARIANT && row->output != OUTPUT_TRANSPOSE;
}

const char *row_role(const report_row *row)
{
    switch (row->kind) {
    case ROW_MEMCPY:
    case ROW_COPY_KERNEL:
        return "copy";
    case ROW_CUBLAS:
        return "library";
    case ROW_VARIANT:
        return is_bound(row) ? "bound" : "kernel";
    }
    return "?";
}

int row_copies_input(const report_row *row)
{
    return row->kind == ROW_MEMCPY || row->kind == ROW_COPY_KERNEL ||
           (row->kind == ROW_VARIANT && row->output == OUTPUT_COPY);
}

int row_wrong(const report_row *row)
{
    return row->mismatches != 0 || row->bytes_past_end != 0 || row->bytes_before_start != 0;
}

const char *row_check_word(const report_row *row)
{
    if (row->skip_reason[0] != '\0' || !row->checked)
        return "SKIP";
    return row_wrong(row) ? "FAIL" : "PASS";
}

double copy_bound_ms(const report *r)
{
    double best = 0.0;
    for (int i = 0; i < r->count; ++i) {
        const report_row *row = &r->rows[i];
        /* The copy baselines only: a bound copies too, but it is measured against them. */
        const int is_copy = row->kind == ROW_MEMCPY || row->kind == ROW_COPY_KERNEL;
        if (is_copy && row->timed && (best == 0.0 || row->median_ms < best))
            best = row->median_ms;
    }
    return best;
}

double cublas_ms(const report *r)
{
    for (int i = 0; i < r->count; ++i)
        if (r->rows[i].kind == ROW_CUBLAS && r->rows[i].timed)
            return r->rows[i].median_ms;
    return 0.0;
}

void print_usage(FILE *out, const char *program, const step_desc *step)
{
    fprintf(out, "Step %s (%s): %s\n\nUsage: %s [options]\n\nOptions:\n", step->number, step->name,
            step->title, program);
    print_options_help(out, step_element_bytes(step));
    fprintf(out, "CSV columns: %s\n", CSV_HEADER);
    fprintf(out, "\nKernels of this step (--variant NAME; the first is the default):\n");
    for (int i = 0; i < step->variant_count; ++i) {
        const kernel_variant *v = &step->variants[i];
        fprintf(out, "  %-16s %s", v->name, v->summary);
        if (v->min_cc != ANY_GPU)
            fprintf(out, " (needs compute capability %d.%d)", v->min_cc / 10, v->min_cc % 10);
        fputc('\n', out);
    }
}

/** @brief The CSV role of a variant's rows: "kernel", or "bound" for one that does not transpose. */
static const char *variant_role(const kernel_variant *v)
{
    return v->output != OUTPUT_TRANSPOSE ? "bound" : "kernel";
}

/** @brief " (bf16 only: --dtype bf16)" and the like where @p v takes a type other than its step's own. */
static const char *variant_types_note(const step_desc *step, const kernel_variant *v)
{
    if (variant_takes(v, sizeof(float)) && variant_takes(v, sizeof(uint16_t)))
        return " (f32 and bf16: --dtype)";
    if (step_element_bytes(step) == 2)
        return v->launch != NULL ? " (f32 only: --dtype f32)" : "";
    return v->launch16 != NULL ? " (bf16 only: --dtype bf16)" : "";
}

void print_variant_list(FILE *out, const step_desc *step)
{
    for (int i = 0; i < step->variant_count; ++i)
        fprintf(out, "%s\t%d\t%s\t%s%s\n", step->variants[i].name, step->variants[i].min_cc,
                variant_role(&step->variants[i]), step->variants[i].summary, variant_types_note(step, &step->variants[i]));
}

/** @brief @p text as a JSON string: in quotes, with `"`, `\` and control characters escaped. */
static void print_json_string(FILE *out, const char *text)
{
    fputc('"', out);
    for (const unsigned char *c = (const unsigned char *)text; *c != '\0'; ++c) {
        if (*c == '"' || *c == '\\')
            fprintf(out, "\\%c", *c);
        else if (*c < 0x20)
            fprintf(out, "\\u%04x", *c);
        else
            fputc(*c, out);   /* UTF-8 passes through: JSON text is UTF-8 */
    }
    fputc('"', out);
}

/** @brief One `"key": "text",` line of the description, the text a JSON string. */
static void print_json_field(FILE *out, const char *key, const char *text)
{
    fprintf(out, "  \"%s\": ", key);
    print_json_string(out, text);
    fprintf(out, ",\n");
}

/** @brief The element types @p v has launchers for, as a JSON list (`--dtype` picks among them). */
static const char *variant_types_json(const kernel_variant *v)
{
    if (variant_takes(v, sizeof(float)) && variant_takes(v, sizeof(uint16_t)))
        return "[\"float32\", \"bf16\"]";
    return v->launch16 != NULL ? "[\"bf16\"]" : "[\"float32\"]";
}

void print_step_description(FILE *out, const step_desc *step)
{
    fprintf(out, "{\n");
    print_json_field(out, "step", step->number);
    print_json_field(out, "name", step->name);
    print_json_field(out, "title", step->title);
    print_json_field(out, "element_type", step_element_name(step));
    fprintf(out, "  \"element_bytes\": %zu,\n", step_element_bytes(step));
    print_json_field(out, "default_variant", step->variants[0].name);
    fprintf(out, "  \"element_types\": %s,\n", variant_types_json(&step->variants[0]));
    fprintf(out, "  \"tensors\": %s,\n", step->variants[0].permute != NULL ? "true" : "false");
    fprintf(out, "  \"variants\": [\n");
    for (int i = 0; i < step->variant_count; ++i) {
        const kernel_variant *v = &step->variants[i];
        fprintf(out, "    {\"name\": ");
        print_json_string(out, v->name);
        fprintf(out, ", \"min_cc\": %d, \"role\": \"%s\", \"element_types\": %s, \"summary\": ", v->min_cc,
                variant_role(v), variant_types_json(v));
        print_json_string(out, v->summary);
        fprintf(out, "}%s\n", i + 1 < step->variant_count ? "," : "");
    }
    fprintf(out, "  ],\n");
    fprintf(out, "  \"csv_header\": \"%s\"\n}\n", CSV_HEADER);
}

void print_table_header(FILE *out, const step_desc *step, const gpu_info *gpu, const options *opt,
                        const char *flush)
{
    fprintf(out, "Step %s (%s): %s\n", step->number, step->name, step->title);
    print_gpu_header(out, gpu);
    fprintf(
        out,
        "Timing   median and min of %d run%s after %d warm-up%s; before each timed run the output "
        "is poisoned and %s; runs queued up to %d at a time behind a hold kernel\n",
        opt->reps, opt->reps == 1 ? "" : "s", opt->warmup, opt->warmup == 1 ? "" : "s", flush,
        HOLD_BATCH_MAX);
}

/** @brief The shape lines above a table. */
static void print_shape_lines(FILE *out, const shape *s, size_t element_bytes)
{
    const char *unit = element_bytes == sizeof(float) ? "float" : "element";
    fprintf(out, "\nShape    %zu x %zu %ss in, %zu x %zu out (%.1f MiB each way)\n", s->rows, s->cols,
            unit, s->cols, s->rows,
            (double)s->rows * (double)s->cols * (double)element_bytes / (1024.0 * 1024.0));
    if (s->offset != 0)
        fprintf(out, "Offset   both matrices start %zu %s%s past a 16-byte boundary\n", s->offset, unit,
                s->offset == 1 ? "" : "s");
}

/** @brief One table line: a row that was not timed shows dashes and, if skipped, why. */
static void print_table_row(FILE *out, const report *r, const report_row *row, double copy_ms,
                            double blas_ms)
{
    char threads[32] = "-", vs_blas[32] = "n/a", pct[32] = "n/a";
    if (row->threads > 0)
        snprintf(threads, sizeof threads, "%zu", row->threads);
    if (!row->timed) {
        fprintf(out, "%-24s %12s %10s %10s %9s %10s %10s  %s%s%s%s\n", row->label, threads, "-",
                "-", "-", "-", "-", row_check_word(row), row->skip_reason[0] ? " (" : "",
                row->skip_reason, row->skip_reason[0] ? ")" : "");
        return;
    }
    if (blas_ms > 0.0)
        snprintf(vs_blas, sizeof vs_blas, "%.2fx", blas_ms / row->median_ms);
    if (copy_ms > 0.0)
        snprintf(pct, sizeof pct, "%.1f%%", 100.0 * copy_ms / row->median_ms);
    fprintf(out, "%-24s %12s %10.4f %10.4f %9.1f %10s %10s  %s\n", row->label, threads,
            row->median_ms, row->min_ms,
            transpose_gbps(r->shape->rows, r->shape->cols, r->element_bytes, row->median_ms), pct,
            vs_blas,
            row_check_word(row));
}

/** @brief One line under the table per bound row: its result is a copy, not a transpose. */
static void print_bound_notes(FILE *out, const report *r)
{
    for (int i = 0; i < r->count; ++i)
        if (is_bound(&r->rows[i]))
            fprintf(out, "%s is a bound, not a transpose: %s.\n", r->rows[i].label,
                    r->rows[i].output == OUTPUT_COPY
                        ? "it moves the bytes as the step's kernel does but copies (out = in, checked against "
                          "the input)"
                        : "it moves whole tiles of 256-byte rows to their transposed places without "
                          "transposing them (checked against the reference, each whole tile transposed back)");
}

/** @brief The tensor line above a table: the tensor, its permutation and what it folds to. */
static void print_tensor_line(FILE *out, const tensor_shape *t)
{
    char text[TENSOR_TEXT_MAX];
    permute_plan plan;
    format_tensor(t, text, sizeof text);
    permute_fold(t, &plan);
    fprintf(out, "\nTensor   %s folds to a %s: %zu x %zu, batch of %zu (--plan says more)", text,
            permute_kind_name(plan.kind), plan.rows, plan.cols, plan.batches);
}

void print_table(FILE *out, const report *r)
{
    if (r->tensor != NULL)
        print_tensor_line(out, r->tensor);
    print_shape_lines(out, r->shape, r->element_bytes);
    const double copy_ms = copy_bound_ms(r), blas_ms = cublas_ms(r);
    fprintf(out, "\n%-24s %12s %10s %10s %9s %10s %10s  %s\n", "kernel", "threads", "median ms",
            "min ms", "GB/s", "% of copy", "vs cuBLAS", "check");
    for (int i = 0; i < r->count; ++i)
        print_table_row(out, r, &r->rows[i], copy_ms, blas_ms);
    const size_t element_bytes = r->element_bytes;
    fprintf(out,
            "\nGB/s counts every element read once and written once (2 x %zu x %zu x %zu bytes, "
            "1 GB = 1e9 B).\n",
            r->shape->rows, r->shape->cols, element_bytes);
    /* The baseline of 2-byte steps is cuBLASLt's transform: cuBLAS has no half-precision geam. */
    fprintf(out, "%% of copy: against the faster copy above; vs cuBLAS: above 1.00x is faster "
                 "than %s.\n", element_bytes == sizeof(float) ? "cublasSgeam" : "cublasLtMatrixTransform");
    print_bound_notes(out, r);
}

void print_csv_header(FILE *out)
{
    fprintf(out, "%s\n", CSV_HEADER);
}

/** @brief The five timing cells of a CSV line, each followed by its comma; empty if not timed. */
static void print_csv_timing(FILE *out, const report *r, const report_row *row)
{
    const double copy_ms = copy_bound_ms(r), blas_ms = cublas_ms(r);
    if (!row->timed) {
        fprintf(out, ",,,,,");
        return;
    }
    fprintf(out, "%.6f,%.6f,%.1f,", row->median_ms, row->min_ms,
            transpose_gbps(r->shape->rows, r->shape->cols, r->element_bytes, row->median_ms));
    if (copy_ms > 0.0)
        fprintf(out, "%.2f", 100.0 * copy_ms / row->median_ms);
    fputc(',', out);
    if (blas_ms > 0.0)
        fprintf(out, "%.4f", blas_ms / row->median_ms);
    fputc(',', out);
}

void print_csv_rows(FILE *out, const report *r)
{
    char gpu[256];
    gpu_csv_name(r->gpu, gpu, sizeof gpu);
    for (int i = 0; i < r->count; ++i) {
        const report_row *row = &r->rows[i];
        fprintf(out, "%s,%s,%s,%s,%zu,%zu,%zu,", gpu, r->step->number, row->name, row_role(row),
                r->shape->rows, r->shape->cols, r->shape->offset);
        print_csv_timing(out, r, row);
        fprintf(out, "%s\n", row_check_word(row));
    }
}

/** @brief What a wrong row did, in parentheses: its wrong elements, then where it wrote outside. */
static void print_wrong(FILE *out, const report_row *row)
{
    const char *sep = " (";
    if (row->mismatches > 0) {
        fprintf(out, "%s%zu wrong element%s", sep, row->mismatches,
                row->mismatches == 1 ? "" : "s");
        sep = "; ";
    }
    if (row->bytes_past_end > 0) {
        fprintf(out, "%swrote past the end of the output", sep);
        sep = "; ";
    }
    if (row->bytes_before_start > 0)
        fprintf(out, "%swrote before the start of the output", sep);
    fputc(')', out);
}

void print_check_lines(FILE *out, const report *r)
{
    char shape_text[ANY_SHAPE_TEXT_MAX];
    format_shape(r->shape, shape_text, sizeof shape_text);   /* a tensor as `3x5x7:210` */
    for (int i = 0; i < r->count; ++i) {
        const report_row *row = &r->rows[i];
        const char *word = row_check_word(row);
        fprintf(out, "%s %s %s %s", word, r->step->number, row->name, shape_text);
        if (row->skip_reason[0] != '\0')
            fprintf(out, " (%s)", row->skip_reason);
        else if (row->checked && row_wrong(row))
            print_wrong(out, row);
        fputc('\n', out);
    }
}
