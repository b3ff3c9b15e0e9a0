/**
 * @file test_permute_tiles.cu
 * @brief Host tests of step 15's 16-byte batched transposes and strided
 *        copy (steps/15_permute/permute_kernels.cuh): every tile of every
 *        matrix of a batch is loaded and stored by 256 emulated threads, on
 *        folded tensors whose matrices are whole chunks, with partial tiles,
 *        pitches that differ from the sides, and batches of one to three
 *        dimensions; every run of a strided copy by its lanes, in each width,
 *        and long runs in pieces.
 *
 * bf16 runs step 13's own t16_load() and t16_store_prmt(); float32 runs
 * step 09's store_block_vec4() after the kernel's load, played here. Each
 * result must equal the naive permute, and nothing past the output may be
 * written. Prints one `PASS name` or `FAIL name` line per check.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include "steps/15_permute/permute_kernels.cuh"

static int failures = 0;

/** @brief batched_tiles_vec8(), block by block and thread by thread. */
static void emulate_vec8(const uint16_t *in, uint16_t *out, const permute_plan &plan)
{
    using Tile = batch_tile16;
    static uint4 tile[Tile::rows * Tile::chunks_per_row];
    const size_t tiles_x = ceil_div(plan.cols, Tile::cols);
    const size_t per_matrix = tiles_x * ceil_div(plan.rows, Tile::rows);
    for (size_t t = 0; t < per_matrix * plan.batches; ++t) {
        size_t in_at, out_at;
        permute_batch_offsets(&plan, t / per_matrix, &in_at, &out_at);
        const size_t row0 = t % per_matrix / tiles_x * Tile::rows, col0 = t % per_matrix % tiles_x * Tile::cols;
        const unsigned height = t16_extent(plan.rows, row0, Tile::rows);
        const unsigned width = t16_extent(plan.cols, col0, Tile::cols);
        for (unsigned tid = 0; tid < T16_THREADS; ++tid)
            t16_load<Tile>(tile, reinterpret_cast<const uint4 *>(in + in_at), plan.in_pitch, row0, col0, height, width, tid);
        for (unsigned tid = 0; tid < T16_THREADS; ++tid)
            t16_store_prmt<Tile>(tile, reinterpret_cast<uint4 *>(out + out_at), plan.out_pitch, row0, col0, height, width, tid);
    }
}

/** @brief batched_tiles_vec4(), block by block and thread by thread: its load, then step 09's store. */
static void emulate_vec4(const float *in, float *out, const permute_plan &plan)
{
    static float4 tile[TILE * CHUNKS_PER_ROW];
    const size_t tiles = batch_tiles(plan);
    for (size_t t = 0; t < tiles; ++t) {
        size_t batch, row0, col0, in_at, out_at;
        batch_tile(plan, t, &batch, &row0, &col0);
        permute_batch_offsets(&plan, batch, &in_at, &out_at);
        const unsigned height = tile_extent(plan.rows, row0), width = tile_extent(plan.cols, col0);
        const float4 *in4 = reinterpret_cast<const float4 *>(in + in_at);
        for (unsigned tid = 0; tid < THREADS; ++tid) {
            const unsigned load_row = tid / CHUNKS_PER_ROW, load_chunk = tid % CHUNKS_PER_ROW;
            const bool chunk_in = load_chunk * VEC < width;
            const size_t first = ((row0 + load_row) * plan.in_pitch + col0) / VEC + load_chunk;
            const size_t pass = ROWS_PER_PASS * plan.in_pitch / VEC;
            for (unsigned p = 0; p < TILE / ROWS_PER_PASS; ++p)
                if (chunk_in && load_row + p * ROWS_PER_PASS < height)
                    tile[chunk_slot(load_row + p * ROWS_PER_PASS, load_chunk)] = in4[first + p * pass];
        }
        for (unsigned tid = 0; tid < THREADS; ++tid)
            store_block_vec4(tile, reinterpret_cast<float4 *>(out + out_at), plan.out_pitch, row0, col0, height, width, tid);
    }
}

/** @brief strided_runs(): every item of the copy, lane by lane, in accesses of type U. */
template <class U>
static void emulate_runs_as(const void *in, void *out, const permute_plan &plan, size_t element_bytes)
{
    const run_items<U> work = run_items_of<U>(in, out, plan, element_bytes);
    const unsigned lanes = lanes_for(work.units);
    for (size_t item = 0; item < work.count(); ++item)
        for (unsigned lane = 0; lane < lanes; ++lane)
            work.copy(item, lane, lanes);
}

/** @brief strided_runs() in the widest accesses that fit, as strided_copy_launch() picks them. */
static void emulate_runs(const void *in, void *out, const permute_plan &plan, size_t element_bytes)
{
    switch (widest_access(in, out, plan, element_bytes)) {
    case 16:
        return emulate_runs_as<uint4>(in, out, plan, element_bytes);
    case 8:
        return emulate_runs_as<uint2>(in, out, plan, element_bytes);
    case 4:
        return emulate_runs_as<uint32_t>(in, out, plan, element_bytes);
    default:
        return emulate_runs_as<uint16_t>(in, out, plan, element_bytes);
    }
}

/** @brief Fold the tensor, run both element sizes where the 16-byte kernel takes them, compare. */
static void run(const char *dims_text, std::vector<size_t> dims, std::vector<int> perm)
{
    tensor_shape t = {};
    t.rank = (int)dims.size();
    for (int i = 0; i < t.rank; ++i) { t.dims[i] = dims[i]; t.perm[i] = perm[i]; }
    permute_plan plan;
    permute_fold(&t, &plan);
    const size_t n = tensor_count(&t);
    for (size_t eb : {2, 4}) {
        unsigned char *in = (unsigned char *)aligned_alloc(64, n * eb + 64), *want = (unsigned char *)aligned_alloc(64, n * eb + 64),
                      *got = (unsigned char *)aligned_alloc(64, n * eb + 64);
        for (size_t i = 0; i < n; ++i) {
            if (eb == 2) ((uint16_t *)in)[i] = (uint16_t)(i * 7 + 1); else ((uint32_t *)in)[i] = (uint32_t)(i * 7 + 1);
        }
        memset(got, 0x7f, n * eb + 64);
        permute_reference(in, want, &t, eb);
        const bool runs = plan.kind == PERMUTE_STRIDED_COPY;
        const bool fits = runs || (plan.kind == PERMUTE_TRANSPOSE && batched_chunks_fit(in, got, plan, eb == 2 ? T16_CHUNK : VEC));
        if (!fits) {   /* every tensor below is chosen to fit: not fitting is a failure of the fold or the test */
            printf("FAIL batched 16-byte tiles: %s, %zu-byte elements, do not fit\n", dims_text, eb);
            ++failures;
            free(in); free(want); free(got);
            continue;
        }
        if (runs) emulate_runs(in, got, plan, eb);
        else if (eb == 2) emulate_vec8((const uint16_t *)in, (uint16_t *)got, plan);
        else emulate_vec4((const float *)in, (float *)got, plan);
        bool ok = memcmp(want, got, n * eb) == 0;
        for (size_t i = n * eb; i < n * eb + 64; ++i) ok = ok && got[i] == 0x7f;
        printf("%s %s: %s, %zu-byte elements\n", ok ? "PASS" : "FAIL", runs ? "strided runs" : "batched 16-byte tiles",
               dims_text, eb);
        failures += !ok;
        free(in); free(want); free(got);
    }
}

/** @brief tiles_mostly_empty() on each side of a tenth of the tiles, for batches of @p rows x @p cols matrices. */
static void check_mostly_empty(size_t rows, size_t cols, bool expected)
{
    tensor_shape t = {};
    t.rank = 3;
    t.dims[0] = 5; t.dims[1] = rows; t.dims[2] = cols;
    t.perm[0] = 0; t.perm[1] = 2; t.perm[2] = 1;
    permute_plan plan;
    permute_fold(&t, &plan);
    const bool ok = plan.kind == PERMUTE_TRANSPOSE && tiles_mostly_empty(plan) == expected;
    printf("%s tiles mostly empty: 5 matrices of %zu x %zu, %s\n", ok ? "PASS" : "FAIL", rows, cols,
           expected ? "the per-element kernel" : "the tiles");
    failures += !ok;
}

int main()
{
    check_mostly_empty(3, 4, true);       // 12 elements of 4096
    check_mostly_empty(16, 16, true);     // 1/16 of a tile
    check_mostly_empty(20, 20, true);     // 400 of 4096: just under a tenth
    check_mostly_empty(20, 21, false);    // 420: just over
    check_mostly_empty(24, 24, false);    // 1/7 of a tile
    check_mostly_empty(3, 5000, true);    // few rows: each of 79 tiles holds 3 of its 64
    check_mostly_empty(65, 65, false);    // a quarter of four tiles: more than a tenth
    check_mostly_empty(64, 64, false);    // one full tile

    run("3x64x72:021", {3, 64, 72}, {0, 2, 1});
    run("2x136x3x200:0321", {2, 136, 3, 200}, {0, 3, 2, 1});
    run("96x104x200:210", {96, 104, 200}, {2, 1, 0});
    run("4x16x8x64x32:03142", {4, 16, 8, 64, 32}, {0, 3, 1, 4, 2});
    run("5x8x8:021", {5, 8, 8}, {0, 2, 1});
    run("6x2048x264:021", {6, 2048, 264}, {0, 2, 1});
    run("4x256x56x56:0231", {4, 256, 56, 56}, {0, 2, 3, 1});
    run("8x200x16x24:2301", {8, 200, 16, 24}, {2, 3, 0, 1});
    run("24x3x136:210", {24, 3, 136}, {2, 1, 0});
    run("8x40x32x128:0213", {8, 40, 32, 128}, {0, 2, 1, 3});      // runs of whole 16-byte chunks
    run("7x100x13x77:0213", {7, 100, 13, 77}, {0, 2, 1, 3});      // odd runs: 4- and 2-byte accesses
    run("5x3x4:102", {5, 3, 4}, {1, 0, 2});                       // 8-byte accesses for 2-byte elements
    run("3x17x2x10x6:10324", {3, 17, 2, 10, 6}, {1, 0, 3, 2, 4}); // a batch of four dimensions
    run("1x19x2x3:0213", {1, 19, 2, 3}, {0, 2, 1, 3});            // a size-1 dimension, dropped
    run("2x9x70x2:2103", {2, 9, 70, 2}, {2, 1, 0, 3});            // a last batch dimension past 8 runs
    run("3x2x9000:102", {3, 2, 9000}, {1, 0, 2});                 // runs in pieces of RUN_PIECE accesses
    run("2x3x4099:102", {2, 3, 4099}, {1, 0, 2});                 // the same, odd: a last piece of a few
    return failures != 0;
}
