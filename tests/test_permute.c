/**
 * @file test_permute.c
 * @brief Host unit tests of the folding rule (common/permute.c): every
 *        permutation of rank 1 to 5, on small odd shapes with dimensions
 *        of size 1, folded and carried out on the CPU, must equal the naive
 *        permute; the plans of the shapes are checked by hand; bad
 *        tensors are refused.
 *
 * Needs no GPU. Prints one `PASS name` or `FAIL name` line per check;
 * tests/test_unit.py reads them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "permute.h"

static int failures = 0;

static void expect(int ok, const char *name)
{
    printf("%s %s\n", ok ? "PASS" : "FAIL", name);
    failures += !ok;
}

/** @brief Fold @p t, run the plan and the naive permute on distinct values, compare: 1 if equal. */
static int plan_matches_reference(const tensor_shape *t, size_t element_bytes)
{
    const size_t count = tensor_count(t), bytes = count * element_bytes;
    unsigned char *in = malloc(bytes), *want = malloc(bytes), *got = malloc(bytes);
    for (size_t i = 0; i < count; ++i) {
        if (element_bytes == 2)
            ((uint16_t *)in)[i] = (uint16_t)(i + 1);
        else
            ((uint32_t *)in)[i] = (uint32_t)(i + 1);
    }
    memset(got, 0, bytes);
    permute_plan plan;
    permute_fold(t, &plan);
    permute_reference(in, want, t, element_bytes);
    permute_run_plan(in, got, &plan, element_bytes);
    const int same = memcmp(want, got, bytes) == 0 && plan.count == count;
    free(in);
    free(want);
    free(got);
    return same;
}

/** @brief Advance @p perm to the next permutation in lexicographic order; 0 after the last. */
static int next_permutation(int *perm, int n)
{
    int i = n - 2;
    while (i >= 0 && perm[i] > perm[i + 1])
        --i;
    if (i < 0)
        return 0;
    int j = n - 1;
    while (perm[j] < perm[i])
        --j;
    int swap = perm[i];
    perm[i] = perm[j];
    perm[j] = swap;
    for (int a = i + 1, b = n - 1; a < b; ++a, --b) {
        swap = perm[a];
        perm[a] = perm[b];
        perm[b] = swap;
    }
    return 1;
}

/** @brief Every permutation of rank 1 to 5 on shapes cut from @p pool, both element sizes. */
static void test_every_permutation(const size_t *pool, const char *label)
{
    for (int rank = 1; rank <= 5; ++rank) {
        tensor_shape t = {.rank = rank};
        for (int i = 0; i < rank; ++i) {
            t.dims[i] = pool[i];
            t.perm[i] = i;
        }
        int all_pass = 1, tried = 0;
        do {
            all_pass &= plan_matches_reference(&t, 4) && plan_matches_reference(&t, 2);
            ++tried;
        } while (next_permutation(t.perm, rank));
        char name[128];
        snprintf(name, sizeof name, "fold: all %d permutations of rank %d (%s) match the naive permute", tried,
                 rank, label);
        expect(all_pass, name);
    }
}

/** @brief Fold @p dims / @p perm of rank @p rank. */
static permute_plan fold_of(int rank, const size_t *dims, const int *perm)
{
    tensor_shape t = {.rank = rank};
    memcpy(t.dims, dims, (size_t)rank * sizeof *dims);
    memcpy(t.perm, perm, (size_t)rank * sizeof *perm);
    permute_plan plan;
    permute_fold(&t, &plan);
    return plan;
}

/** @brief The plans of the shapes, worked out by hand. */
static void test_plans_by_hand(void)
{
    permute_plan p = fold_of(4, (size_t[]){8, 4096, 32, 128}, (int[]){0, 2, 1, 3});
    expect(p.kind == PERMUTE_STRIDED_COPY && p.cols == 128 && p.batches == 8 * 32 * 4096 && p.batch_rank == 3 &&
               p.batch_in_stride[1] == 128 && p.batch_in_stride[2] == 32 * 128,
           "fold: head split [8,4096,32,128] (0,2,1,3) is a strided copy of runs of 128");
    p = fold_of(3, (size_t[]){64, 2048, 2048}, (int[]){0, 2, 1});
    expect(p.kind == PERMUTE_TRANSPOSE && p.rows == 2048 && p.cols == 2048 && p.batches == 64 &&
               p.in_pitch == 2048 && p.out_pitch == 2048 && p.batch_in_stride[0] == 2048 * 2048,
           "fold: [64,2048,2048] (0,2,1) is 64 transposes of 2048 x 2048");
    p = fold_of(4, (size_t[]){32, 256, 56, 56}, (int[]){0, 2, 3, 1});
    expect(p.kind == PERMUTE_TRANSPOSE && p.rank == 3 && p.rows == 256 && p.cols == 56 * 56 && p.batches == 32,
           "fold: NCHW to NHWC [32,256,56,56] (0,2,3,1) merges H and W: 32 transposes of 256 x 3136");
    p = fold_of(3, (size_t[]){96, 100, 200}, (int[]){2, 1, 0});
    expect(p.kind == PERMUTE_TRANSPOSE && p.rows == 96 && p.cols == 200 && p.in_pitch == 20000 &&
               p.out_pitch == 9600 && p.batch_rank == 1 && p.batch_extent[0] == 100 &&
               p.batch_in_stride[0] == 200 && p.batch_out_stride[0] == 96,
           "fold: [96,100,200] (2,1,0) is 100 transposes of 96 x 200 with pitches 20000 and 9600");
    expect(!permute_is_one_matrix(&p), "fold: a batch of pitched transposes is not one packed matrix");
    p = fold_of(4, (size_t[]){1, 5, 1, 7}, (int[]){2, 3, 0, 1});
    expect(p.kind == PERMUTE_TRANSPOSE && p.rank == 2 && p.rows == 5 && p.cols == 7 && p.batches == 1 &&
               p.folded_into[0] == -1 && p.folded_into[2] == -1,
           "fold: dimensions of size 1 are dropped: [1,5,1,7] (2,3,0,1) is one 5 x 7 transpose");
    p = fold_of(3, (size_t[]){4, 5, 6}, (int[]){0, 1, 2});
    expect(p.kind == PERMUTE_COPY && p.cols == 120 && p.rank == 1, "fold: the identity is a copy");
    p = fold_of(3, (size_t[]){1, 1, 1}, (int[]){2, 0, 1});
    expect(p.kind == PERMUTE_COPY && p.count == 1 && p.rank == 0, "fold: a tensor of size-1 dimensions is a copy");
    p = fold_of(4, (size_t[]){2, 3, 4, 5}, (int[]){2, 3, 0, 1});
    expect(p.kind == PERMUTE_TRANSPOSE && p.rows == 6 && p.cols == 20 && p.batches == 1,
           "fold: (2,3,0,1) merges both pairs into one 6 x 20 transpose");
    expect(permute_is_one_matrix(&p), "fold: one 6 x 20 transpose, packed, is one matrix (cuBLAS and the API take it)");
}

/** @brief tensor_check() on @p rank dims and perm: 0 if accepted, -1 with @p err. */
static int checked(int rank, const size_t *dims, const int *perm, char *err, size_t err_len)
{
    tensor_shape t = {.rank = rank};
    for (int i = 0; i < rank && i < PERMUTE_MAX_RANK; ++i) {
        t.dims[i] = dims[i];
        t.perm[i] = perm[i];
    }
    return tensor_check(&t, err, err_len);
}

static void test_bad_tensors(void)
{
    char err[200] = "";
    expect(checked(3, (size_t[]){2, 3, 4}, (int[]){0, 0, 1}, err, sizeof err) == -1 && strstr(err, "permutation"),
           "check: a repeated axis is not a permutation");
    expect(checked(2, (size_t[]){2, 3}, (int[]){0, 2}, err, sizeof err) == -1 && strstr(err, "permutation"),
           "check: an axis past the rank is not a permutation");
    expect(checked(2, (size_t[]){2, 0}, (int[]){1, 0}, err, sizeof err) == -1 && strstr(err, "is 0"),
           "check: a dimension of 0 is refused");
    expect(checked(7, (size_t[]){1, 1, 1, 1, 1, 1, 1}, (int[]){0, 1, 2, 3, 4, 5, 6}, err, sizeof err) == -1 &&
               strstr(err, "1 to 6"),
           "check: rank 7 is refused");
    expect(checked(0, NULL, NULL, err, sizeof err) == -1, "check: rank 0 is refused");
    expect(checked(2, (size_t[]){(size_t)1 << 40, (size_t)1 << 30}, (int[]){1, 0}, err, sizeof err) == -1,
           "check: a tensor too large to count its bytes is refused");
    expect(checked(6, (size_t[]){2, 1, 3, 1, 5, 7}, (int[]){5, 4, 3, 2, 1, 0}, err, sizeof err) == 0,
           "check: a rank-6 tensor with a reversed permutation is accepted");
}

static void test_format(void)
{
    tensor_shape t = {.rank = 4, .dims = {8, 4096, 32, 128}, .perm = {0, 2, 1, 3}};
    char text[TENSOR_TEXT_MAX];
    format_tensor(&t, text, sizeof text);
    expect(strcmp(text, "8x4096x32x128:0213") == 0, "format: 8x4096x32x128:0213");
}

/** @brief A rank-6 case, the most there is: every reversal and rotation of it. */
static void test_rank_six(void)
{
    tensor_shape t = {.rank = 6, .dims = {2, 3, 1, 5, 2, 3}, .perm = {5, 4, 3, 2, 1, 0}};
    int ok = plan_matches_reference(&t, 4);
    const int rotated[6] = {1, 2, 3, 4, 5, 0}, swapped[6] = {0, 1, 2, 3, 5, 4};
    memcpy(t.perm, rotated, sizeof rotated);
    ok &= plan_matches_reference(&t, 2);
    memcpy(t.perm, swapped, sizeof swapped);
    ok &= plan_matches_reference(&t, 4);
    expect(ok, "fold: rank 6, reversed, rotated and the last two swapped, match the naive permute");
}

int main(void)
{
    test_every_permutation((const size_t[]){3, 5, 2, 7, 3}, "3x5x2x7x3");
    test_every_permutation((const size_t[]){1, 5, 1, 3, 2}, "with size-1 dimensions");
    test_every_permutation((const size_t[]){7, 1, 9, 1, 1}, "mostly size 1");
    test_plans_by_hand();
    test_rank_six();
    test_bad_tensors();
    test_format();
    return failures ? 1 : 0;
}
