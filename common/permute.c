/**
 * @file permute.c
 * @brief The folding rule, its checks, the naive CPU permute and the plan
 *        carried out on the CPU (host C only).
 */
#include "permute.h"

#include <stdint.h>
#include <string.h>

int tensor_check(const tensor_shape *t, char *err, size_t err_len)
{
    if (t->rank < 1 || t->rank > PERMUTE_MAX_RANK) {
        snprintf(err, err_len, "the tensor has %d dimensions: a tensor has 1 to %d", t->rank, PERMUTE_MAX_RANK);
        return -1;
    }
    int seen[PERMUTE_MAX_RANK] = {0};
    for (int i = 0; i < t->rank; ++i) {
        if (t->perm[i] < 0 || t->perm[i] >= t->rank || seen[t->perm[i]]++) {
            snprintf(err, err_len, "the axes are not a permutation of 0 to %d: each must appear once", t->rank - 1);
            return -1;
        }
    }
    size_t count = 1;
    for (int i = 0; i < t->rank; ++i) {
        if (t->dims[i] == 0) {
            snprintf(err, err_len, "dimension %d of the tensor is 0: every dimension must be at least 1", i);
            return -1;
        }
        if (count > SIZE_MAX / 8 / t->dims[i]) {
            snprintf(err, err_len, "the tensor needs more bytes than a size_t can count");
            return -1;
        }
        count *= t->dims[i];
    }
    return 0;
}

size_t tensor_count(const tensor_shape *t)
{
    size_t count = 1;
    for (int i = 0; i < t->rank; ++i)
        count *= t->dims[i];
    return count;
}

tensor_shape tensor_of_matrix(size_t rows, size_t cols)
{
    tensor_shape t = {.rank = 2, .dims = {rows, cols}, .perm = {1, 0}};
    return t;
}

void format_tensor(const tensor_shape *t, char *out, size_t out_len)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < t->rank && used < out_len; ++i)
        used += (size_t)snprintf(out + used, out_len - used, "%s%zu", i ? "x" : "", t->dims[i]);
    for (int i = 0; i < t->rank && used < out_len; ++i)   /* one digit an axis: no comma, so it fits a --shapes list */
        used += (size_t)snprintf(out + used, out_len - used, "%s%d", i ? "" : ":", t->perm[i]);
}

int permute_is_one_matrix(const permute_plan *plan)
{
    return plan->kind == PERMUTE_TRANSPOSE && plan->batches == 1 && plan->in_pitch == plan->cols &&
           plan->out_pitch == plan->rows;
}

const char *permute_kind_name(permute_kind kind)
{
    switch (kind) {
    case PERMUTE_COPY:
        return "copy";
    case PERMUTE_STRIDED_COPY:
        return "strided_copy";
    case PERMUTE_TRANSPOSE:
        return "transpose";
    }
    return "?";
}

/** @brief Row-major strides of @p rank dimensions @p dims, in elements. */
static void strides_of(const size_t *dims, int rank, size_t *strides)
{
    size_t stride = 1;
    for (int i = rank - 1; i >= 0; --i) {
        strides[i] = stride;
        stride *= dims[i];
    }
}

/**
 * @brief Steps 1 and 2 of the rule: drop the dimensions of size 1, then
 *        merge the input dimensions that follow each other in the output.
 *
 * Walking the output's dimensions in order, dimension i joins the group of
 * dimension i - 1 when it is the input dimension right after that group's
 * last one. Each group is one folded dimension; folded input dimensions
 * keep the input's order, which is the order of their first dimensions.
 */
static void fold_dimensions(const tensor_shape *t, permute_plan *p)
{
    int kept_as[PERMUTE_MAX_RANK] = {0};   /* input dimension -> its index once size-1 ones are gone, or -1 */
    int kept = 0;
    for (int i = 0; i < t->rank; ++i)
        kept_as[i] = t->dims[i] > 1 ? kept++ : -1;

    int group_first[PERMUTE_MAX_RANK], group_last[PERMUTE_MAX_RANK], groups = 0;   /* output order */
    for (int i = 0; i < t->rank; ++i) {
        const int d = kept_as[t->perm[i]];
        if (d < 0)
            continue;
        if (groups > 0 && d == group_last[groups - 1] + 1) {
            group_last[groups - 1] = d;   /* stays next to the one before, in order: merge */
        } else {
            group_first[groups] = group_last[groups] = d;
            ++groups;
        }
    }

    /* Folded input dimension of each group: how many groups start before it in the input. */
    int folded_of_kept[PERMUTE_MAX_RANK] = {0};
    p->rank = groups;
    for (int g = 0; g < groups; ++g) {
        int position = 0;
        for (int h = 0; h < groups; ++h)
            position += group_first[h] < group_first[g];
        p->perm[g] = position;
        p->dims[position] = 1;
        for (int d = group_first[g]; d <= group_last[g]; ++d)
            folded_of_kept[d] = position;
    }
    for (int i = 0; i < t->rank; ++i) {
        p->folded_into[i] = kept_as[i] < 0 ? -1 : folded_of_kept[kept_as[i]];
        if (kept_as[i] >= 0)
            p->dims[p->folded_into[i]] *= t->dims[i];
    }
}

/** @brief Add output dimension @p i of @p p (input strides @p in_stride, output's @p out_stride) to the batch. */
static void add_batch_dimension(permute_plan *p, int i, const size_t *in_stride, const size_t *out_stride)
{
    const int b = p->batch_rank++;
    p->batch_extent[b] = p->dims[p->perm[i]];
    p->batch_in_stride[b] = in_stride[p->perm[i]];
    p->batch_out_stride[b] = out_stride[i];
    p->batches *= p->batch_extent[b];
}

void permute_fold(const tensor_shape *t, permute_plan *p)
{
    memset(p, 0, sizeof *p);
    p->count = tensor_count(t);
    p->batches = 1;
    p->rows = 1;
    fold_dimensions(t, p);

    const int n = p->rank;
    size_t in_stride[PERMUTE_MAX_RANK], out_dims[PERMUTE_MAX_RANK], out_stride[PERMUTE_MAX_RANK];
    strides_of(p->dims, n, in_stride);
    for (int i = 0; i < n; ++i)
        out_dims[i] = p->dims[p->perm[i]];
    strides_of(out_dims, n, out_stride);

    if (n <= 1) {   /* merging leaves one dimension only where the order is kept: the identity */
        p->kind = PERMUTE_COPY;
        p->cols = p->count;
    } else if (p->perm[n - 1] == n - 1) {
        p->kind = PERMUTE_STRIDED_COPY;
        p->cols = p->dims[n - 1];   /* the run: contiguous in both */
        for (int i = 0; i < n - 1; ++i)
            add_batch_dimension(p, i, in_stride, out_stride);
    } else {
        p->kind = PERMUTE_TRANSPOSE;
        const int row_dim = p->perm[n - 1];   /* the output's innermost dimension, in the input */
        int col_pos = 0;                      /* where the input's innermost dimension lands in the output */
        while (p->perm[col_pos] != n - 1)
            ++col_pos;
        p->cols = p->dims[n - 1];
        p->rows = p->dims[row_dim];
        p->in_pitch = in_stride[row_dim];
        p->out_pitch = out_stride[col_pos];
        for (int i = 0; i < n - 1; ++i)
            if (i != col_pos)
                add_batch_dimension(p, i, in_stride, out_stride);
    }
}

/** @brief Copy element @p from of @p in to element @p to of @p out. */
static inline void move_element(const void *in, size_t from, void *out, size_t to, size_t element_bytes)
{
    if (element_bytes == 2)
        ((uint16_t *)out)[to] = ((const uint16_t *)in)[from];
    else
        ((uint32_t *)out)[to] = ((const uint32_t *)in)[from];
}

void permute_reference(const void *in, void *out, const tensor_shape *t, size_t element_bytes)
{
    const int n = t->rank;
    size_t in_stride[PERMUTE_MAX_RANK] = {0}, out_dims[PERMUTE_MAX_RANK] = {1}, step[PERMUTE_MAX_RANK] = {0};
    strides_of(t->dims, n, in_stride);
    for (int i = 0; i < n; ++i) {
        out_dims[i] = t->dims[t->perm[i]];
        step[i] = in_stride[t->perm[i]];   /* one step along output dimension i, in the input */
    }
    const size_t inner = out_dims[n - 1];
    const size_t lines = tensor_count(t) / inner;   /* output rows of the innermost dimension */
#pragma omp parallel for schedule(static)
    for (size_t line = 0; line < lines; ++line) {
        size_t rest = line, from = 0;
        for (int d = n - 2; d >= 0; --d) {
            from += rest % out_dims[d] * step[d];
            rest /= out_dims[d];
        }
        for (size_t j = 0; j < inner; ++j)
            move_element(in, from + j * step[n - 1], out, line * inner + j, element_bytes);
    }
}

void permute_run_plan(const void *in, void *out, const permute_plan *p, size_t element_bytes)
{
    for (size_t b = 0; b < p->batches; ++b) {
        size_t in_at, out_at;
        permute_batch_offsets(p, b, &in_at, &out_at);
        if (p->kind == PERMUTE_TRANSPOSE) {
            for (size_t r = 0; r < p->rows; ++r)
                for (size_t c = 0; c < p->cols; ++c)
                    move_element(in, in_at + r * p->in_pitch + c, out, out_at + c * p->out_pitch + r, element_bytes);
        } else {   /* a copy is one run; a strided copy, one run per batch index */
            for (size_t c = 0; c < p->cols; ++c)
                move_element(in, in_at + c, out, out_at + c, element_bytes);
        }
    }
}

/** @brief `"key": [a, b, c]` of @p n sizes. */
static void print_json_sizes(FILE *out, const char *key, const size_t *values, int n)
{
    fprintf(out, "  \"%s\": [", key);
    for (int i = 0; i < n; ++i)
        fprintf(out, "%s%zu", i ? ", " : "", values[i]);
    fprintf(out, "],\n");
}

/** @brief `"key": [a, b, c]` of @p n ints. */
static void print_json_ints(FILE *out, const char *key, const int *values, int n)
{
    fprintf(out, "  \"%s\": [", key);
    for (int i = 0; i < n; ++i)
        fprintf(out, "%s%d", i ? ", " : "", values[i]);
    fprintf(out, "],\n");
}

void print_permute_plan(FILE *out, const tensor_shape *t, const permute_plan *p)
{
    fprintf(out, "{\n");
    print_json_sizes(out, "dims", t->dims, t->rank);
    print_json_ints(out, "perm", t->perm, t->rank);
    print_json_ints(out, "folded_into", p->folded_into, t->rank);
    print_json_sizes(out, "folded_dims", p->dims, p->rank);
    print_json_ints(out, "folded_perm", p->perm, p->rank);
    fprintf(out, "  \"kind\": \"%s\",\n", permute_kind_name(p->kind));
    print_json_sizes(out, "batch_extent", p->batch_extent, p->batch_rank);
    print_json_sizes(out, "batch_in_stride", p->batch_in_stride, p->batch_rank);
    print_json_sizes(out, "batch_out_stride", p->batch_out_stride, p->batch_rank);
    fprintf(out, "  \"rows\": %zu,\n  \"cols\": %zu,\n  \"in_pitch\": %zu,\n  \"out_pitch\": %zu,\n"
                 "  \"count\": %zu\n}\n", p->rows, p->cols, p->in_pitch, p->out_pitch, p->count);
}
