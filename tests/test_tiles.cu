/**
 * @file test_tiles.cu
 * @brief Host tests of the index arithmetic of steps 11 and 12: a whole
 *        block is played thread by thread on the CPU, so the tests need no
 *        GPU and run in CI.
 *
 * - Step 11 (steps/11_any_shape/any_shape.cuh): every tile of a matrix is loaded and
 *   stored by 256 emulated threads, for many shapes and every pair of
 *   input and output alignments (0-3 floats past a 16-byte boundary). The
 *   result must be bit-exact; each tile must write exactly its own part of
 *   `out` (checked by processing the tiles forwards and backwards over a
 *   poisoned output); and no read may leave the matrix, which a guard
 *   page right after the input's last 16-byte chunk turns into a crash.
 * - Step 12 (steps/12_tma/tma_tile.cuh): a box is laid out as the TMA unit does
 *   with `CU_TENSOR_MAP_SWIZZLE_128B` (zero outside the matrix), and the
 *   store side writes it out, on aligned shapes.
 * - The capstone's float32 rule (steps/14_dispatch/dispatch_f32.cuh):
 *   f32_pick() names the launch it calls for on each side of each of its boundaries,
 *   f32_out_rows_fit() asks for rows of `out` on 64 bytes, and
 *   f32_gpu_named() finds each measured GPU's limits.
 *
 * Prints one `PASS name` or `FAIL name` line per check; exit code 1 if any
 * check failed.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "steps/14_dispatch/dispatch_f32.cuh"
#include "steps/13_bf16/slab_chunks.cuh"
#include "steps/11_any_shape/any_shape.cuh"
#include "steps/11_any_shape/sector_runs.cuh"
#include "steps/11_any_shape/slabs.cuh"
#include "steps/12_tma/tma_tile.cuh"
#include "tests/guard_page.h"

static int failures = 0;

/** @brief Print one result line. */
static void report(bool ok, const char *name)
{
    printf("%s %s\n", ok ? "PASS" : "FAIL", name);
    if (!ok)
        ++failures;
}

/** @brief A recognisable value for element @p i (never NaN). */
static float value_of(size_t i)
{
    return (float)(i % 1000003) + 0.25f;
}

/** @brief Write NaN over @p n floats: what no correct transpose writes. */
static void poison(float *p, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        p[i] = NAN;
}

/**
 * @brief Play tile @p t of transpose_any_shape(): 256 threads load, then
 *        256 threads store, as the kernel does between its barriers.
 */
static void play_any_shape_tile(const tile_grid &grid, size_t t, const float *in, float *out, size_t rows,
                                size_t cols)
{
    static float tile[TILE * AS_STRIDE];
    poison(tile, TILE * AS_STRIDE);
    size_t row0, col0;
    unsigned height, width;
    grid_tile(grid, t, rows, cols, &row0, &col0, &height, &width);
    const chunked<const float4> in_chunks = as_chunks(in);
    const chunked<float4> out_chunks = as_chunks(out);
    for (unsigned tid = 0; tid < THREADS; ++tid)
        load_tile_any_shape(tile, in_chunks, rows * cols, cols, row0, col0, height, width, tid);
    for (unsigned tid = 0; tid < THREADS; ++tid)
        store_tile_any_shape(tile, out_chunks, out, rows, row0, col0, height, width, tid);
}

/** check_any_shape()'s shift_r that asks for the shift the kernel picks from the pointers. */
#define KERNEL_SHIFT 999u

/**
 * @brief Step 11's chunk kernel on one shape, one pair of alignments and
 *        one grid shift: tile by tile, forwards then backwards over a
 *        poisoned `out`, checking that each tile changes exactly its own
 *        elements, to the right values. Any shift must be correct; the
 *        kernel only picks the one that aligns the accesses.
 */
static bool check_any_shape(size_t rows, size_t cols, unsigned in_lead, unsigned out_lead, unsigned shift_r,
                            unsigned shift_c)
{
    const size_t count = rows * cols;
    // `in` starts in_lead floats past a 16-byte boundary and ends where its last
    // 16-byte chunk ends, right before the guard page.
    const size_t slack = (4 - (in_lead + count) % 4) % 4;
    guarded in_mem = guarded_alloc_bytes((count + slack) * sizeof(float));
    float *in = (float *)in_mem.data;
    for (size_t i = 0; i < count; ++i)
        in[i] = value_of(i);
    std::vector<float> out_mem(count + 8);
    float *out = out_mem.data() + ((4 + out_lead - ((uintptr_t)out_mem.data() / 4) % 4) % 4);
    poison(out_mem.data(), out_mem.size());
    const tile_grid grid = shift_r == KERNEL_SHIFT ? chunk_grid<true>(in, out, rows, cols)
                                                   : make_tile_grid(rows, cols, shift_r, shift_c);
    const size_t tiles = grid.tiles_y * grid.tiles_x;
    bool ok = ((uintptr_t)in / 4) % 4 == in_lead && ((uintptr_t)out / 4) % 4 == out_lead;
    for (int pass = 0; pass < 2 && ok; ++pass) {
        poison(out_mem.data(), out_mem.size());
        for (size_t k = 0; k < tiles && ok; ++k) {
            const size_t t = pass == 0 ? k : tiles - 1 - k;
            play_any_shape_tile(grid, t, in, out, rows, cols);
            // Tile t's elements are right, and nothing of a tile not yet played has changed.
            for (size_t c = 0; c < cols && ok; ++c)
                for (size_t r = 0; r < rows && ok; ++r) {
                    // the tile number, in the kernel's column-major order, of the band pair on the moved grid
                    const size_t band_r = (r + grid.shift_r) / TILE, band_c = (c + grid.shift_c) / TILE;
                    const size_t owner = band_c * grid.tiles_y + band_r;
                    const float got = out[c * rows + r];
                    if (owner == t)
                        ok = got == value_of(r * cols + c);
                    else if (pass == 0 ? owner > t : owner < t)
                        ok = isnan(got);   // a tile wrote outside its part of `out`
                }
        }
        // The floats around `out` are untouched.
        for (float *p = out_mem.data(); p < out && ok; ++p)
            ok = isnan(*p);
        for (float *p = out + count; p < out_mem.data() + out_mem.size() && ok; ++p)
            ok = isnan(*p);
    }
    guarded_free(in_mem);
    return ok;
}

/** @brief Play tile @p t of transpose_sector_runs<Run>(): 256 threads load, then 256 store. */
template <unsigned Run>
static void play_sector_runs_tile(size_t t, const float *in, float *out, size_t rows, size_t cols)
{
    static float tile[SR_ROWS(Run) * SR_STRIDE];
    poison(tile, SR_ROWS(Run) * SR_STRIDE);
    size_t row0, col0;
    sr_tile<Run>(t, ceil_div(rows, Run), &row0, &col0);
    const unsigned width = tile_extent(cols, col0);
    const unsigned lead = sr_lead(out);
    for (unsigned tid = 0; tid < THREADS; ++tid)
        sr_load_tile<Run>(tile, in, rows, cols, row0, col0, width, tid);
    for (unsigned tid = 0; tid < THREADS; ++tid)
        sr_store_tile<Run>(tile, out, rows, lead, row0, col0, width, tid);
}

/**
 * @brief Which tile row (k) owns element @p r of row @p j of `out`, worked
 *        out from the addresses alone: runs start at Run k plus the distance
 *        from the row's start to its first 32-byte boundary, the first run at 0.
 */
static size_t sector_runs_owner_row(const float *out, size_t rows, size_t j, size_t r, size_t run)
{
    size_t shift = 0;
    while (((uintptr_t)(out + j * rows + shift)) % 32 != 0)
        ++shift;
    if (r < run + shift)
        return 0;
    return (r - shift) / run;
}

/**
 * @brief Step 11's sector runs on one shape and one output alignment
 *        (0-7 floats past a 32-byte boundary): tile by tile, forwards then
 *        backwards over a poisoned `out`, each tile must write exactly its
 *        own runs, to the right values, and every run but a row's first
 *        must start on a 32-byte boundary.
 */
template <unsigned Run>
static bool check_sector_runs(size_t rows, size_t cols, unsigned in_lead, unsigned out_lead)
{
    const size_t count = rows * cols;
    // `in` starts in_lead floats past a 16-byte boundary and ends right before a guard page.
    const size_t slack = (4 - (in_lead + count) % 4) % 4;
    guarded in_mem = guarded_alloc_bytes((count + slack) * sizeof(float));
    float *in = (float *)in_mem.data;
    for (size_t i = 0; i < count; ++i)
        in[i] = value_of(i);
    std::vector<float> out_mem(count + 16);
    float *out = out_mem.data() + ((8 + out_lead - ((uintptr_t)out_mem.data() / 4) % 8) % 8);
    const size_t tiles_y = ceil_div(rows, Run);
    const size_t tiles = tiles_y * ceil_div(cols, TILE);
    bool ok = ((uintptr_t)out / 4) % 8 == out_lead;
    for (size_t j = 0; j < cols && ok; ++j)   // runs of tile rows >= 1 start on a sector
        for (size_t k = 1; k < tiles_y && ok; ++k) {
            size_t first, last;
            sr_run<Run>(rows, sr_lead(out), k * Run, j, &first, &last);
            ok = first == last || (uintptr_t)(out + j * rows + first) % 32 == 0;
        }
    for (int pass = 0; pass < 2 && ok; ++pass) {
        poison(out_mem.data(), out_mem.size());
        for (size_t n = 0; n < tiles && ok; ++n) {
            const size_t t = pass == 0 ? n : tiles - 1 - n;
            play_sector_runs_tile<Run>(t, in, out, rows, cols);
            for (size_t c = 0; c < cols && ok; ++c)
                for (size_t r = 0; r < rows && ok; ++r) {
                    const size_t owner = (c / TILE) * tiles_y + sector_runs_owner_row(out, rows, c, r, Run);
                    const float got = out[c * rows + r];
                    if (owner == t)
                        ok = got == value_of(r * cols + c);
                    else if (pass == 0 ? owner > t : owner < t)
                        ok = isnan(got);
                }
        }
        for (float *p = out_mem.data(); p < out && ok; ++p)
            ok = isnan(*p);
        for (float *p = out + count; p < out_mem.data() + out_mem.size() && ok; ++p)
            ok = isnan(*p);
    }
    guarded_free(in_mem);
    return ok;
}

/**
 * @brief Lay tile (@p row0, @p col0) of @p in out as the TMA unit does:
 *        TMA_BOXES boxes of 64 rows x 32 columns, 128-byte swizzle, zeros
 *        outside the matrix.
 */
static void fill_tma_stage(unsigned char *stage, const float *in, size_t rows, size_t cols, size_t row0, size_t col0)
{
    for (unsigned b = 0; b < TMA_BOXES; ++b)
        for (unsigned r = 0; r < TILE; ++r)
            for (unsigned c = 0; c < TMA_BOX_COLS; ++c) {
                const size_t gr = row0 + r, gc = col0 + b * TMA_BOX_COLS + c;
                const float v = gr < rows && gc < cols ? in[gr * cols + gc] : 0.0f;
                // Byte address bits 4-6 (the chunk) XOR bits 7-9 (the row mod 8).
                const size_t at = b * TMA_BOX_BYTES + r * TMA_BOX_COLS * 4 + ((c / 4) ^ (r % 8)) * 16 + (c % 4) * 4;
                memcpy(stage + at, &v, sizeof v);
            }
}

/** @brief Step 12's store side on one aligned shape: every tile, bit-exact, nothing outside `out` written. */
static bool check_tma_store(size_t rows, size_t cols)
{
    const size_t count = rows * cols;
    std::vector<float> in(count);
    for (size_t i = 0; i < count; ++i)
        in[i] = value_of(i);
    std::vector<float4> out_mem(count / 4 + 2);   // float4s: 16-byte aligned
    float *out = reinterpret_cast<float *>(out_mem.data() + 1);
    poison(reinterpret_cast<float *>(out_mem.data()), out_mem.size() * 4);
    alignas(TMA_SWIZZLE_ALIGN) static unsigned char stage[TMA_TILE_BYTES];
    const size_t tiles_y = ceil_div(rows, TILE);
    const size_t tiles = tiles_y * ceil_div(cols, TILE);
    for (size_t t = 0; t < tiles; ++t) {
        size_t row0, col0;
        column_major_tile(t, tiles_y, &row0, &col0);
        const unsigned height = tile_extent(rows, row0);
        const unsigned width = tile_extent(cols, col0);
        fill_tma_stage(stage, in.data(), rows, cols, row0, col0);
        for (unsigned tid = 0; tid < THREADS; ++tid)
            store_tile_tma(stage, reinterpret_cast<float4 *>(out), rows, row0, col0, height, width, tid);
    }
    bool ok = true;
    for (size_t c = 0; c < cols && ok; ++c)
        for (size_t r = 0; r < rows && ok; ++r)
            ok = out[c * rows + r] == value_of(r * cols + c);
    const float *all = reinterpret_cast<const float *>(out_mem.data());
    for (size_t i = 0; i < 4 && ok; ++i)
        ok = isnan(all[i]) && isnan(out[count + i]);
    return ok;
}

/** @brief A recognisable element @p i of type @p T: never the poison (NaN, or 0 for 2-byte elements). */
template <typename T>
static T slab_value(size_t i)
{
    if constexpr (sizeof(T) == 2)
        return (T)(i % 65521 + 1);
    else
        return value_of(i);
}

/** @brief Whether @p v is the poison slab_value() never takes. */
template <typename T>
static bool poisoned(T v)
{
    if constexpr (sizeof(T) == 2)
        return v == 0;
    else
        return isnan(v);
}

/**
 * @brief Play every slab of step 11's slabs kernel (with @p Chunks, step
 *        12's slabs of 16-byte chunks) on a @p rows x @p cols matrix of
 *        @p T, thread by thread, `in` and `out` starting @p in_lead and
 *        @p out_lead elements past a 4-byte boundary (16 with @p Chunks): every
 *        element of `out` is written with its value, once, by the slab
 *        that holds it, and nothing around `out`. Where `in` ends on a
 *        page, a read past its end stops the test at the guard page after it.
 */
template <typename T, bool FewRows, bool Chunks = false>
static bool check_slabs(size_t rows, size_t cols, unsigned in_lead = 0, unsigned out_lead = 0)
{
    const size_t count = rows * cols, len = FewRows ? cols : rows;
    const unsigned n = slab_width<T>((unsigned)(FewRows ? rows : cols));
    // `in` ends at the guard page when its lead is what the count leaves there; else a few elements before it.
    const unsigned per_word = (Chunks ? 16 : 4) / sizeof(T);
    const size_t spare = (2 * per_word - count % per_word - in_lead) % per_word;
    guarded in_mem = guarded_alloc_bytes((count + spare) * sizeof(T));
    T *in = (T *)in_mem.data;
    for (size_t i = 0; i < count; ++i)
        in[i] = slab_value<T>(i);
    std::vector<T> out_mem(count + per_word);
    std::vector<uint4> slab_chunks((SLAB_SMEM(T) > SC_SMEM(T) ? SLAB_SMEM(T) : SC_SMEM(T)) * sizeof(T) / 16);
    T *slab = (T *)slab_chunks.data();
    T *out = out_mem.data() + ((per_word + out_lead - ((uintptr_t)out_mem.data() / sizeof(T)) % per_word) % per_word);
    for (auto &v : out_mem)   // the poison: 0 for 2-byte elements, NaN (below) for floats
        v = T();
    if constexpr (sizeof(T) == 4)
        poison((float *)out_mem.data(), out_mem.size());
    bool ok = n >= SLAB_WIDTH_STEP && ((uintptr_t)in / sizeof(T)) % per_word == in_lead &&
              ((uintptr_t)out / sizeof(T)) % per_word == out_lead;
    for (size_t b = 0; b < ceil_div(len, n) && ok; ++b) {
        memset(slab, 0xA5, slab_chunks.size() * sizeof(uint4));   // nothing of the last slab may reach `out`
        for (unsigned tid = 0; tid < THREADS; ++tid)
            Chunks ? sc_slab_load<T, FewRows>(slab, in, out, rows, cols, n, b, tid)
                   : slab_load<T, FewRows>(slab, in, rows, cols, n, b, tid);
        for (unsigned tid = 0; tid < THREADS; ++tid)
            Chunks ? sc_slab_store<T, FewRows>(slab, in, out, rows, cols, n, b, tid)
                   : slab_store<T, FewRows>(slab, out, rows, cols, n, b, tid);
        // Slab b's elements are right, and none of a later slab is written yet.
        for (size_t c = 0; c < cols && ok; ++c)
            for (size_t r = 0; r < rows && ok; ++r) {
                const size_t owner = (FewRows ? c : r) / n;
                const T got = out[c * rows + r];
                ok = owner <= b ? got == slab_value<T>(r * cols + c) : poisoned<T>(got);
            }
    }
    for (T *p = out_mem.data(); p < out && ok; ++p)
        ok = poisoned<T>(*p);
    for (T *p = out + count; p < out_mem.data() + out_mem.size() && ok; ++p)
        ok = poisoned<T>(*p);
    return ok;
}

/**
 * @brief Reading a stretch 16 bytes a load fills the slab as one element a
 *        load does, on every short side and on full, part and tiny slabs.
 */
static void check_stretch_chunks(void)
{
    bool ok = true;
    std::vector<uint16_t> chunked(SLAB_SMEM(uint16_t)), single(SLAB_SMEM(uint16_t));
    std::vector<uint4> chunks(SLAB_ELEMENTS(uint16_t) / 8);   // 16-byte aligned
    uint16_t *src = (uint16_t *)chunks.data();
    asm volatile("" : "+r"(src));   // GCC cannot bound a slab's count, and would warn of loads past the array
    for (unsigned i = 0; i < SLAB_ELEMENTS(uint16_t); ++i)
        src[i] = (uint16_t)(i * 7 + 1);
    for (unsigned s = 2; s <= SLAB_MAX_SHORT && ok; ++s) {
        const unsigned n = slab_width<uint16_t>(s);
        for (unsigned width : {n, n - 1, n / 3, 7u, 1u}) {
            std::fill(chunked.begin(), chunked.end(), 0xFFFF);
            std::fill(single.begin(), single.end(), 0xFFFF);
            for (unsigned tid = 0; tid < THREADS; ++tid) {
                load_stretch_chunks(chunked.data(), src, width * s, s, s | 1u, tid);
                load_slab<uint16_t, false>(single.data(), src, 0, s, n, width, s | 1u, tid);
            }
            ok = ok && chunked == single;
        }
    }
    report(ok, "step 11 slabs: a bf16 stretch read 16 bytes a load fills the slab as 2 bytes a load does "
               "(short sides 2-63, slabs of 1 to n positions)");
}

/** @brief The slab walk is a division: thread t's k-th step is at ((t + k * THREADS) / n, (t + k * THREADS) % n). */
static void check_slab_walk(void)
{
    bool ok = true;
    for (unsigned n = 1; n <= 4096 && ok; n += n < 70 ? 1 : 97)
        for (unsigned tid = 0; tid < THREADS && ok; tid += 37) {
            slab_walk w = walk_start(tid, n);
            for (unsigned k = 0; k < 64 && ok; ++k, walk_next(w))
                ok = w.outer == (tid + k * THREADS) / n && w.inner == (tid + k * THREADS) % n;
        }
    report(ok, "step 11 slabs: the walk steps as a division would, lines of 1 to 4074 elements");
    ok = true;
    for (unsigned s = 2; s <= SLAB_MAX_SHORT && ok; ++s) {
        const unsigned n = slab_width<float>(s), n16 = slab_width<uint16_t>(s);
        ok = n % SLAB_WIDTH_STEP == 0 && n * s <= 4096 && n * (s | 1u) <= SLAB_SMEM(float) &&
             (n + SLAB_WIDTH_STEP) * s > 4096 && n16 % SLAB_WIDTH_STEP == 0 && n16 * s <= 8192 &&
             n16 * (s | 1u) <= SLAB_SMEM(uint16_t) && (n16 + SLAB_WIDTH_STEP) * s > 8192;
    }
    report(ok, "step 11 slabs: on a short side of 2 to 63, the widest slab of whole warps that fits 16 KB "
               "(4096 floats, 8192 bf16)");
    report(slab_chunks_pay<float>(55, 1000001, false) && !slab_chunks_pay<float>(56, 1000001, false) &&
           slab_chunks_pay<uint16_t>(63, 1000001, false) && slab_chunks_pay<uint16_t>(63, 1000000, false),
           "step 12 slabs of chunks: pay on 55 float rows, not 56; on every thin bf16 matrix");
    report(slab_chunks_pay<float>(31, 1000000, true) && !slab_chunks_pay<float>(32, 1000000, true) &&
           slab_chunks_pay<uint16_t>(31, 1000000, true) && !slab_chunks_pay<uint16_t>(32, 1000000, true),
           "step 12 slabs of chunks: pay on 31 rows of whole chunks, not 32, of both element sizes");
    report(slab_chunks_pay<float>(1000001, 31, false) && !slab_chunks_pay<float>(1000001, 32, false) &&
           slab_chunks_pay<uint16_t>(1000001, 31, false) && !slab_chunks_pay<uint16_t>(1000001, 32, false) &&
           slab_chunks_pay<float>(1000000, 16, true) && slab_chunks_pay<uint16_t>(1000000, 16, true),
           "step 12 slabs of chunks: pay on 31 columns, not 32, whole chunks or not, of both element sizes");
    report(!slab_chunks_pay<float>(1, 1000, false) && !slab_chunks_pay<uint16_t>(1000, 1, false) &&
           !slab_chunks_pay<float>(64, 100000, false) && !slab_chunks_pay<uint16_t>(100000, 64, true),
           "step 12 slabs of chunks: never on vectors or from 64 rows and columns");
    report(slabs_fit(2, 2) && slabs_fit(63, 1000000) && slabs_fit(1000000, 63) && !slabs_fit(1, 1000) &&
           !slabs_fit(1000, 1) && !slabs_fit(64, 100000) && !slabs_fit(100000, 64),
           "step 11 slabs: taken on a short side of 2 to 63, not 1 or 64");
}

/**
 * @brief On a GPU whose tile kernel is tiles_down.cuh's, it replaces step
 *        09's 16-byte kernel up to the limits, and nowhere else: the short
 *        matrices keep step 09's launch.
 */
static void check_f32_pick_tiles_down(f32_gpu gpu)
{
    gpu.tiles_down = true;
    report(f32_pick(4096, 4096, true, true, gpu) == F32_TILES_DOWN &&
           f32_pick(8192, 8192, true, true, gpu) == F32_TILES_DOWN &&
           f32_pick(1000, 1000, true, false, gpu) == F32_TILES_DOWN,
           "float32 rule: tiles down where step 09's 16-byte kernel ran, rows a power of two and in L2 too");
    report(f32_pick(63, 1000000, true, true, gpu) == F32_SHARED64 &&
           f32_pick(1000000, 60, true, true, gpu) == F32_SHARED64 &&
           f32_pick(64, 64, false, false, gpu) == F32_ANY_SHAPE,
           "float32 rule: tiles down leave short matrices to step 09 and odd rows to step 11");
    report(f32_pick(4112, 4096, true, true, gpu) == F32_ANY_SHAPE &&
           f32_pick(3000, 3000, true, false, gpu) == F32_ANY_SHAPE,
           "float32 rule: tiles down stop at the limit and where rows of out miss 64 bytes past L2");
}

/** @brief The kernel the float32 rule must pick, on each side of each boundary of its rule. */
static void check_f32_pick(void)
{
    // Step 09's kernel up to 64 MiB (4096 x 4096), or 256 MiB on a power-of-two number of rows; L2 16 MiB;
    // step 11's long runs from 300 MiB.
    const f32_gpu gpu = {64u << 20, 256u << 20, 16u << 20, 300u << 20, false, 0};
    const struct {
        size_t rows, cols;
        bool vec4;       // rows of whole aligned chunks (vec4_fits())
        bool out_fits;   // rows of out start on 64 bytes (f32_out_rows_fit())
        f32_kernel expected;
        const char *why;
    } cases[] = {
        {1, 1, false, false, F32_CHUNKS, "one element"},
        {1, (size_t)1 << 26, true, true, F32_CHUNKS, "a row vector"},
        {(size_t)1 << 26, 1, false, false, F32_CHUNKS, "a column vector"},
        {63, 1000000, true, true, F32_SHARED64, "one row short of a tile, rows of whole chunks"},
        {63, 1000001, false, false, F32_SHARED64, "one row short of a tile, rows not whole chunks"},
        {39, 1000001, false, false, F32_SLABS, "39 rows, not whole chunks"},
        {55, 1000001, false, false, F32_SLABS, "55 rows, not whole chunks"},
        {57, 1000001, false, false, F32_SHARED64, "57 rows, not whole chunks"},
        {48, 699051, false, false, F32_SLABS, "48 rows of out of whole chunks, rows of in not"},
        {56, 1000001, false, false, F32_CHUNKS, "56 rows of out of whole chunks, rows of in not"},
        {60, 1000001, false, false, F32_CHUNKS, "60 rows of out of whole chunks, rows of in not"},
        {64, 1000001, false, false, F32_CHUNKS, "a tile's 64 rows of out of whole chunks, rows of in not"},
        {768, 50257, false, false, F32_CHUNKS, "768 rows of out of whole chunks, rows of in not"},
        {25000, 333, false, false, F32_CHUNKS, "25000 rows of out of whole chunks, rows of in not"},
        {32, 1000000, true, true, F32_SHARED64, "a warp's 32 rows of whole chunks"},
        {31, 1000000, true, true, F32_SLABS, "one row short of a warp, rows of whole chunks"},
        {2, 33554433, false, false, F32_SLABS, "two rows"},
        {4, 16777216, true, true, F32_SLABS, "four aligned rows"},
        {63, 63, false, false, F32_SHARED64, "short both ways"},
        {60, 63, false, false, F32_CHUNKS, "short both ways, rows of out of whole chunks"},
        {31, 63, false, false, F32_SLABS, "31 x 63"},
        {2, 2, false, false, F32_SLABS, "two by two"},
        {1000003, 2, false, false, F32_SLABS, "two columns"},
        {1000000, 4, true, true, F32_SLABS, "four aligned columns"},
        {1000003, 31, false, false, F32_SLABS, "one column short of a warp"},
        {1000003, 32, false, false, F32_ANY_SHAPE, "a warp's 32 columns, rows not whole chunks"},
        {1048576, 32, true, true, F32_SHARED64, "a warp's 32 columns of whole chunks"},
        {1000003, 63, false, false, F32_ANY_SHAPE, "one column short of a tile, rows neither way whole chunks"},
        {1000003, 33, false, false, F32_SHARED64, "33 columns fill 0.52 of their tile: tall tiles"},
        {1000003, 43, false, false, F32_ANY_SHAPE, "43 columns fill 0.67 of their tile, just over 2/3"},
        {1000003, 83, false, false, F32_SHARED64, "83 columns fill 0.65 of their two tiles: tall tiles"},
        {2000003, 85, false, false, F32_SHARED64, "85 columns fill 2/3 of their two tiles, exactly: tall tiles"},
        {2000003, 87, false, false, F32_LONG_RUNS, "87 columns fill 0.68 of their two tiles: runs"},
        {1000004, 77, false, false, F32_CHUNKS, "77 columns, rows of out whole chunks: not the tall row"},
        {1000003, 127, false, false, F32_LONG_RUNS, "127 columns, rows neither way whole chunks: runs"},
        {1000003, 129, false, false, F32_LONG_RUNS, "129 columns, rows neither way whole chunks: runs"},
        {1025, 1023, false, false, F32_SHARED64, "rows neither way whole chunks, a quarter of L2 less 4 bytes"},
        {1027, 1023, false, false, F32_ANY_SHAPE, "rows neither way whole chunks, past a quarter of L2"},
        {1000000, 60, true, true, F32_SHARED64, "60 columns of whole chunks"},
        {64, 64, true, true, F32_SHARED64, "one aligned tile"},
        {64, 64, false, false, F32_ANY_SHAPE, "one misaligned tile"},
        {4096, 4096, true, true, F32_SHARED64, "exactly the limit"},
        {4112, 4096, true, true, F32_ANY_SHAPE, "16 rows past the limit"},
        {4096, 4100, true, true, F32_SHARED64, "4 columns past the limit, rows a power of two"},
        {4097, 4097, false, false, F32_ANY_SHAPE, "under the limit, rows not whole chunks"},
        {4100, 1024, true, false, F32_ANY_SHAPE, "past L2, rows of out on 16 bytes"},
        {197, 768, false, false, F32_SHARED64, "rows of in whole chunks, of out not, in a quarter of L2"},
        {1031, 1024, false, false, F32_ANY_SHAPE, "rows of in whole chunks, of out not, past a quarter of L2"},
        {1024, 1024, false, false, F32_ANY_SHAPE, "whole chunks, misaligned, in a quarter of L2"},
        {2044, 2048, true, false, F32_SHARED64, "in L2, rows of out on 16 bytes"},
        {3000, 3000, true, false, F32_ANY_SHAPE, "past L2, rows of out on 32 bytes"},
        {1000, 1000, true, false, F32_SHARED64, "in L2, rows of out on 32 bytes"},
        {3008, 3000, true, true, F32_SHARED64, "past L2, rows of out on 64 bytes"},
        {1000000, 8, true, false, F32_SLABS, "8 aligned columns, rows of out on 32 bytes"},
        {8192, 8192, true, true, F32_SHARED64, "256 MiB, rows a power of two"},
        {8192, 8196, true, true, F32_ANY_SHAPE, "4 columns past the power-of-two limit"},
        {8256, 8192, true, true, F32_ANY_SHAPE, "256 MiB less, rows not a power of two"},
        {4096, 16384, true, true, F32_SHARED64, "256 MiB, 4096 rows"},
        {8192, 8192, false, true, F32_ANY_SHAPE, "rows a power of two, rows of in not whole chunks"},
        {(size_t)1 << 16, (size_t)1 << 16, true, true, F32_LONG_RUNS, "2^32 elements"},
        {8961, 8775, false, false, F32_ANY_SHAPE, "odd rows, just under the long runs' size"},
        {8961, 8777, false, false, F32_LONG_RUNS, "odd rows, just past the long runs' size"},
        {10007, 7919, false, false, F32_LONG_RUNS, "odd rows past the long runs' size"},
        {2000003, 63, false, false, F32_LONG_RUNS, "past the long runs' size, one column short of a tile"},
        {65, 1220703, false, false, F32_LONG_RUNS, "65 rows: tiles of 96 pad 31 rows, tiles of 64 pad 63"},
        {101, 800003, false, false, F32_ANY_SHAPE, "101 rows: tiles of 96 pad 64 rows more, over 1/4 of them"},
        {129, 620001, false, false, F32_LONG_RUNS, "129 rows: tiles of 96 and of 64 both pad to 192"},
        {201, 400003, false, false, F32_LONG_RUNS, "201 rows: tiles of 96 pad 32 rows more, under 1/4 of them"},
        {127, 1000003, false, false, F32_ANY_SHAPE, "127 rows: tiles of 96 pad 65 rows, tiles of 64 one"},
        {301, 1000003, false, false, F32_LONG_RUNS, "301 rows: 64 more padded rows, under 1/4 of them"},
        {897, 400003, false, false, F32_LONG_RUNS, "897 rows: tiles of 96 and of 64 both pad to 960"},
        {16385, 16383, false, false, F32_LONG_RUNS, "16385 rows: tiles of 96 pad 31 rows, tiles of 64 pad 63"},
        {400003, 200, false, false, F32_LONG_RUNS, "400003 rows: tiles of 96 pad fewer rows than tiles of 64"},
    };
    char name[160];
    for (const auto &c : cases) {
        snprintf(name, sizeof name, "float32 rule: %zux%zu, limits 64 and 256 MiB, L2 16 MiB, long runs from "
                 "300 MiB (%s)", c.rows, c.cols, c.why);
        report(f32_pick(c.rows, c.cols, c.vec4, c.out_fits, gpu) == c.expected, name);
    }
    check_f32_pick_tiles_down(gpu);
}

/** @brief f32_out_rows_fit() asks both the pointer and the row length of `out` for 64 bytes. */
static void check_f32_out_rows_fit(void)
{
    const float *line = reinterpret_cast<const float *>((uintptr_t)1 << 20);   // never read, only its address
    report(f32_out_rows_fit(line, 16), "float32 rule: rows of out of 16 floats (64 bytes) fit");
    report(f32_out_rows_fit(line, 4000), "float32 rule: rows of out of 4000 floats (16000 bytes) fit");
    report(!f32_out_rows_fit(line, 8), "float32 rule: rows of out of 8 floats (32 bytes) do not fit");
    report(!f32_out_rows_fit(line, 3000), "float32 rule: rows of out of 3000 floats (12000 bytes) do not fit");
    report(!f32_out_rows_fit(line + 4, 16), "float32 rule: out 16 bytes past 64 does not fit");
}

/** @brief Whether @p gpu has the limits @p vec4, @p pow2 and @p long_runs and the L2 size @p l2. */
static bool has_limits(f32_gpu gpu, size_t vec4, size_t pow2, size_t l2, size_t long_runs, bool tiles_down,
                       size_t lines_from_rows)
{
    return gpu.tiles_up_to == vec4 && gpu.tiles_pow2_up_to == pow2 && gpu.l2_bytes == l2 &&
           gpu.long_runs_from == long_runs && gpu.tiles_down == tiles_down && gpu.lines_from_rows == lines_from_rows;
}

/** @brief Each GPU of steps/14_dispatch/rules.h gets its own limits; any other GPU its L2 size for both. */
static void check_f32_gpu_named(void)
{
    const size_t l2 = 50u << 20;
    for (const auto &t : F32_RULES) {
        char name[160];
        snprintf(name, sizeof name, "float32 rule: %s gets its measured limits", t.gpu);
        report(has_limits(f32_gpu_named(t.gpu, l2), t.tiles_up_to, t.tiles_pow2_up_to, l2, t.long_runs_from,
                          t.tiles_down, t.lines_from_rows), name);
    }
    report(has_limits(f32_gpu_named("A GPU never measured", l2), l2, l2, l2, RULES_NEVER, false, 0),
           "float32 rule: an unmeasured GPU gets step 09's kernel up to its L2 size and no long runs");
    report(has_limits(f32_gpu_named("", l2), l2, l2, l2, RULES_NEVER, false, 0),
           "float32 rule: an empty GPU name gets the L2 size and no long runs");
    report(is_power_of_two(1) && is_power_of_two((size_t)1 << 40) && !is_power_of_two(0) && !is_power_of_two(24576),
           "float32 rule: is_power_of_two() on 1, 2^40, 0 and 24576");
}

/** @brief The float32 rule for lines on the sector runs: a column of tiles (rows x 512 bytes) in a quarter of L2. */
static void check_f32_lines(void)
{
    const size_t mib = 1 << 20;
    report(sr_lines_reused(25600, 50 * mib) && !sr_lines_reused(25601, 50 * mib),
           "float32 rule: lines on an L2 of 50 MiB up to 25600 rows, not 25601");
    report(sr_lines_reused(30720, 60 * mib) && !sr_lines_reused(30721, 60 * mib),
           "float32 rule: lines on an L2 of 60 MiB up to 30720 rows, not 30721");
    const f32_gpu h100 = f32_gpu_named("NVIDIA H100 80GB HBM3", 50 * mib);
    report(f32_lines(LINES_WHERE_REUSED, 10007, h100) && !f32_lines(LINES_WHERE_REUSED, 100001, h100),
           "float32 rule: lines at 10007 rows on the H100, not at 100001");
    f32_gpu late = h100;
    late.lines_from_rows = 16384;
    report(!f32_lines(LINES_WHERE_REUSED, 16383, late) && f32_lines(LINES_WHERE_REUSED, 16384, late),
           "float32 rule: a GPU whose lines start at 16384 rows asks at 16384, not 16383");
    report(f32_lines(LINES_ALWAYS, 100001, h100) && !f32_lines(LINES_NEVER, 10007, h100),
           "float32 rule: LINES_ALWAYS always asks, LINES_NEVER never");
}

int main(void)
{
    char name[160];
    // Shapes: tiny, one tile, edges of every size mod 4 and mod 64, several tiles each way.
    const size_t shapes[][2] = {{2, 2},   {2, 3},    {3, 2},   {5, 7},    {4, 4},   {7, 300},  {300, 7},
                                {63, 65}, {65, 63},  {64, 64}, {64, 68},  {67, 131}, {130, 194}, {129, 4},
                                {4, 129}, {200, 201}, {2, 517}, {517, 2}, {131, 67}, {255, 257},
                                {70, 33}, {134, 67}, {198, 70}, {6, 70}};
    for (const auto &s : shapes)
        for (unsigned a = 0; a < 4; ++a)
            for (unsigned b = 0; b < 4; ++b) {
                snprintf(name, sizeof name, "step 11 tiles: %zux%zu, in +%u floats, out +%u floats", s[0], s[1],
                         a, b);
                report(check_any_shape(s[0], s[1], a, b, 0, 0), name);
            }
    // The shifted grid (--offset 1 to 3 on rows of whole chunks): every shift, any shape.
    const unsigned shifts[][2] = {{1, 1}, {3, 3}, {7, 5}, {4, 0}, {0, 6}};
    for (const auto &s : shapes)
        for (const auto &sh : shifts) {
            const unsigned lead = (sh[0] + sh[1]) % 4;
            snprintf(name, sizeof name, "step 11 shifted tiles: %zux%zu, grid up %u and left %u, pointers +%u floats",
                     s[0], s[1], sh[0], sh[1], lead);
            report(check_any_shape(s[0], s[1], lead, lead, sh[0], sh[1]), name);
        }
    const size_t whole[][2] = {{136, 264}, {4, 4}, {68, 132}, {200, 36}, {12, 260}};
    for (const auto &s : whole)
        for (unsigned lead = 0; lead < 4; ++lead) {   // the shift the kernel picks, as on --offset shapes
            snprintf(name, sizeof name, "step 11 shifted tiles: %zux%zu, both pointers +%u floats, the kernel's shift",
                     s[0], s[1], lead);
            report(check_any_shape(s[0], s[1], lead, lead, KERNEL_SHIFT, KERNEL_SHIFT), name);
        }
    const size_t runs[][2] = {{2, 2}, {2, 3}, {5, 7}, {63, 65}, {64, 64}, {65, 63}, {71, 9}, {72, 130},
                              {129, 67}, {130, 194}, {200, 201}, {7, 300}, {300, 7}, {517, 2}, {136, 64}};
    for (const auto &s : runs)
        for (unsigned b = 0; b < 8; ++b) {
            snprintf(name, sizeof name, "sector runs: %zux%zu, in +%u floats past a chunk, out +%u past a sector",
                     s[0], s[1], b % 4, b);
            report(check_sector_runs<SR_RUN>(s[0], s[1], b % 4, b), name);
        }
    const size_t long_runs[][2] = {{2, 3}, {95, 65}, {96, 64}, {97, 67}, {103, 9}, {104, 130}, {105, 63},
                                   {199, 131}, {300, 7}, {7, 300}, {517, 2}, {1031, 33}};
    for (const auto &s : long_runs)
        for (unsigned b = 0; b < 8; ++b) {
            snprintf(name, sizeof name, "long sector runs: %zux%zu, in +%u floats past a chunk, out +%u past a sector",
                     s[0], s[1], b % 4, b);
            report(check_sector_runs<SR_LONG_RUN>(s[0], s[1], b % 4, b), name);
        }
    const size_t aligned[][2] = {{4, 4}, {4, 8}, {64, 64}, {68, 132}, {132, 68}, {200, 36}, {256, 192}, {12, 260}};
    for (const auto &s : aligned) {
        snprintf(name, sizeof name, "step 12 tiles: %zux%zu, TMA box layout with the 128-byte swizzle", s[0], s[1]);
        report(check_tma_store(s[0], s[1]), name);
    }
    const size_t thin[][2] = {{2, 2}, {2, 3}, {3, 2}, {63, 63}, {2, 5000}, {5000, 2}, {7, 300}, {300, 7},
                              {31, 1000}, {1000, 31}, {63, 129}, {129, 63}, {17, 4099}, {4099, 17}, {33, 70}};
    for (const auto &s : thin) {
        snprintf(name, sizeof name, "step 11 slabs: %zux%zu floats, every slab played thread by thread", s[0], s[1]);
        report(s[0] <= s[1] ? check_slabs<float, true>(s[0], s[1]) : check_slabs<float, false>(s[0], s[1]), name);
        for (unsigned lead = 0; lead < 16; lead += 5) {   // in and out each 0-3 floats past a chunk
            snprintf(name, sizeof name, "step 12 slabs of chunks: %zux%zu floats, in +%u and out +%u past a chunk, "
                     "every slab played thread by thread", s[0], s[1], lead % 4, lead / 4);
            report(s[0] <= s[1] ? check_slabs<float, true, true>(s[0], s[1], lead % 4, lead / 4)
                                : check_slabs<float, false, true>(s[0], s[1], lead % 4, lead / 4), name);
        }
        for (unsigned lead = 0; lead < 64; lead += 13) {   // in and out each 0-7 bf16 past a chunk
            snprintf(name, sizeof name, "step 12 slabs of chunks: %zux%zu bf16, in +%u and out +%u past a chunk, "
                     "every slab played thread by thread", s[0], s[1], lead % 8, lead / 8);
            report(s[0] <= s[1] ? check_slabs<uint16_t, true, true>(s[0], s[1], lead % 8, lead / 8)
                                : check_slabs<uint16_t, false, true>(s[0], s[1], lead % 8, lead / 8), name);
        }
        for (unsigned lead = 0; lead < 4; ++lead) {   // in and out each on a word, or 2 bytes past one
            snprintf(name, sizeof name, "step 11 slabs: %zux%zu bf16, in +%u and out +%u elements past a word, "
                     "every slab played thread by thread", s[0], s[1], lead % 2, lead / 2);
            report(s[0] <= s[1] ? check_slabs<uint16_t, true>(s[0], s[1], lead % 2, lead / 2)
                                : check_slabs<uint16_t, false>(s[0], s[1], lead % 2, lead / 2), name);
        }
    }
    check_slab_walk();
    check_stretch_chunks();
    check_f32_pick();
    check_f32_out_rows_fit();
    check_f32_gpu_named();
    check_f32_lines();
    return failures ? 1 : 0;
}
