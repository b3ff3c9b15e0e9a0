/**
 * @file test_tiles16.cu
 * @brief Host tests of step 13's index arithmetic (steps/13_bf16/bf16.cuh):
 *        every tile of a matrix is loaded and stored by 256 emulated
 *        threads, so the tests need no GPU and run in CI.
 *
 * - The 16-byte kernel's three stores (the port, PRMT, ldmatrix) and the
 *   stmatrix kernel at each tile shape, on shapes of whole chunks with
 *   partial tiles at the edges. `ldmatrix .x4 .trans`, `stmatrix .x4 .trans`
 *   and the shuffles are played from their PTX definitions, lane by lane.
 * - The default's rule: fewer than one wave of tiles take 64 x 64 tiles.
 * - The default's rule: the 16-byte kernel only where rows of `out` start on sectors.
 * - The default's rule: loads ask L2 for whole lines where a column of tiles fits in a quarter of L2.
 * - The capstone's bf16 rule (steps/14_dispatch/dispatch_bf16.cuh): step
 *   13's choice, but 64 x 64 tiles in half of L2 and whole lines on short rows.
 * - The sector runs of 2-byte elements, at every run length, on shapes of
 *   any size, with the input and the output at several 2-byte alignments.
 *   What each tile of rows 1 and up writes into a row of `out` must start
 *   on a 32-byte sector.
 *
 * Every result must be bit-exact, nothing outside the output may be
 * written (poison on both sides), no element may be written by two tiles
 * of runs, and no read may leave the input: it
 * ends right before an inaccessible page, so such a read crashes the test.
 *
 * Prints one `PASS name` or `FAIL name` line per check; exit code 1 if any
 * check failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "check.h"
#include "matrix.h"
#include "steps/13_bf16/bf16.cuh"
#include "steps/14_dispatch/dispatch_bf16.cuh"   // bf16_pick(): the capstone's bf16 rule
#include "tests/guard_page.h"

static int failures = 0;

/** @brief Print one result line. */
static void report(bool ok, const char *name)
{
    printf("%s %s\n", ok ? "PASS" : "FAIL", name);
    failures += !ok;
}

/** @brief @p count random 2-byte elements, @p lead past a 16-byte boundary, whose last chunk ends at a guard page. */
static guarded guarded_input(size_t count, unsigned lead, unsigned seed)
{
    const size_t chunks_end = lead + count + (T16_CHUNK - (lead + count) % T16_CHUNK) % T16_CHUNK;
    guarded g = guarded_alloc_bytes(chunks_end * 2);
    fill_random_16((uint16_t *)g.data + lead, count, seed);
    return g;
}

/** @brief The first element of a guarded_input(). */
static const uint16_t *elements_of(const guarded &g, unsigned lead)
{
    return (const uint16_t *)g.data + lead;
}

/** @brief An output of @p count elements, @p lead past a 32-byte boundary, with poison on both sides. */
struct poisoned16 {
    std::vector<uint16_t> memory;
    uint16_t *data;
    size_t count;

    poisoned16(size_t n, unsigned lead) : memory(n + 64, POISON_BITS_16), count(n)
    {
        data = memory.data() + (32 + lead - ((uintptr_t)memory.data() / 2) % 16) % 16;
    }
    /** True if the output equals @p want and the poison around it is untouched. */
    bool matches(const std::vector<uint16_t> &want) const
    {
        bool ok = memcmp(data, want.data(), count * 2) == 0;
        for (const uint16_t *p = memory.data(); p < data; ++p)
            ok = ok && *p == POISON_BITS_16;
        for (const uint16_t *p = data + count; p < memory.data() + memory.size(); ++p)
            ok = ok && *p == POISON_BITS_16;
        return ok;
    }
};

/** @brief One played transpose: a guarded input at @p in_lead, the answer it must give, a poisoned output. */
struct played16 {
    guarded in_mem;
    const uint16_t *in;
    std::vector<uint16_t> want;
    poisoned16 out;

    played16(size_t rows, size_t cols, unsigned in_lead, unsigned out_lead, unsigned seed)
        : in_mem(guarded_input(rows * cols, in_lead, seed)), in(elements_of(in_mem, in_lead)), want(rows * cols),
          out(rows * cols, out_lead)
    {
        transpose_reference_16(in, want.data(), rows, cols);
    }
    played16(const played16 &) = delete;
    played16 &operator=(const played16 &) = delete;
    ~played16() { guarded_free(in_mem); }
};

/** @brief Play the quad shuffles of one warp: round k sends t16_quad_send() and puts what lane's source sent. */
static void play_quad_shuffles(const uint32_t (&from)[32][4], uint32_t (&to)[32][4])
{
    for (unsigned k = 0; k < 4; ++k) {
        uint32_t sent[32];
        for (unsigned lane = 0; lane < 32; ++lane)
            sent[lane] = t16_quad_send(from[lane], lane, k);
        for (unsigned lane = 0; lane < 32; ++lane)
            put4(to[lane], (lane % 4 + k) % 4, sent[t16_quad_source(lane, k)]);
    }
}

/** @brief Play the ldmatrix store for one warp: ldmatrix .x4 .trans and the shuffles, from their definitions. */
template <class Tile>
static void play_ldsm_warp(const uint4 *tile, uint4 *out, size_t rows, size_t row0, size_t col0, unsigned height,
                           unsigned width, unsigned warp)
{
    const uint16_t *elements = reinterpret_cast<const uint16_t *>(tile);
    for (unsigned i = 0; i < Tile::ldsm_jobs; ++i) {
        unsigned g0, h;
        t16_ldsm_job<Tile>(Tile::ldsm_jobs * warp + i, &g0, &h);
        uint32_t r[32][4];
        for (unsigned lane = 0; lane < 32; ++lane)
            for (unsigned m = 0; m < 4; ++m) {
                // .trans: lane 4a + q gets rows 2q, 2q + 1 of column a of matrix m, whose row j lane 8m + j addresses.
                const unsigned a = lane / 4, q = lane % 4;
                const uint16_t lo = elements[t16_ldsm_slot<Tile>(8 * m + 2 * q, g0, h, height, width) * 8 + a];
                const uint16_t hi = elements[t16_ldsm_slot<Tile>(8 * m + 2 * q + 1, g0, h, height, width) * 8 + a];
                r[lane][m] = lo | (uint32_t)hi << 16;
            }
        uint32_t v[32][4] = {};
        play_quad_shuffles(r, v);
        for (unsigned lane = 0; lane < 32; ++lane)
            t16_ldsm_store(out, v[lane], rows, row0, col0, g0, h, height, width, lane);
    }
}

/**
 * @brief Play the stmatrix load for one warp: the loads, the quad shuffles,
 *        and `stmatrix .x4 .trans` from its definition (lane 4a + q holds
 *        row a, elements 2q and 2q + 1 of each matrix; .trans stores element
 *        (a, j) at element a of stored row j, whose address lane 8m + j gives).
 */
template <class Tile>
static void play_stsm_warp(uint4 *tile, const uint4 *in, size_t cols, size_t row0, size_t col0, unsigned height,
                           unsigned width, unsigned warp)
{
    uint16_t *elements = reinterpret_cast<uint16_t *>(tile);
    for (unsigned i = 0; i < Tile::ldsm_jobs; ++i) {
        unsigned g, h0;
        t16_stsm_job<Tile>(Tile::ldsm_jobs * warp + i, &g, &h0);
        uint32_t w[32][4], f[32][4] = {};
        for (unsigned lane = 0; lane < 32; ++lane) {
            const uint4 v = t16_stsm_fetch<Tile>(in, cols, row0, col0, g, h0, height, width, lane);
            w[lane][0] = v.x, w[lane][1] = v.y, w[lane][2] = v.z, w[lane][3] = v.w;
        }
        play_quad_shuffles(w, f);
        for (unsigned m = 0; m < 4; ++m)
            for (unsigned lane = 0; lane < 32; ++lane) {
                const unsigned a = lane / 4, q = lane % 4;
                elements[t16_stsm_slot<Tile>(8 * m + 2 * q, g, h0) * 8 + a] = (uint16_t)f[lane][m];
                elements[t16_stsm_slot<Tile>(8 * m + 2 * q + 1, g, h0) * 8 + a] = (uint16_t)(f[lane][m] >> 16);
            }
    }
}

/** @brief The 16-byte kernel with @p Store at tile shape @p Tile, played over a whole rows x cols matrix. */
template <class Tile, t16_store Store>
static bool check_vec8(size_t rows, size_t cols)
{
    played16 play(rows, cols, 0, 0, 5);
    const uint16_t *in = play.in;
    poisoned16 &out = play.out;
    std::vector<uint4> tile(Tile::rows * Tile::chunks_per_row);
    uint4 *out4 = reinterpret_cast<uint4 *>(out.data);
    const size_t tiles_y = ceil_div(rows, Tile::rows), tiles = tiles_y * ceil_div(cols, Tile::cols);
    for (size_t t = 0; t < tiles; ++t) {
        size_t row0, col0;
        t16_tile(t, tiles_y, Tile::rows, Tile::cols, &row0, &col0);
        const unsigned height = t16_extent(rows, row0, Tile::rows), width = t16_extent(cols, col0, Tile::cols);
        memset(tile.data(), 0xAB, tile.size() * sizeof(uint4));
        for (unsigned tid = 0; Store != T16_STSM && tid < T16_THREADS; ++tid)
            t16_load<Tile>(tile.data(), reinterpret_cast<const uint4 *>(in), cols, row0, col0, height, width, tid);
        for (unsigned w = 0; Store == T16_STSM && w < T16_THREADS / 32; ++w)
            play_stsm_warp<Tile>(tile.data(), reinterpret_cast<const uint4 *>(in), cols, row0, col0, height,
                                 width, w);
        for (unsigned tid = 0; Store == T16_STSM && tid < T16_THREADS; ++tid)
            t16_store_rows<Tile>(tile.data(), out4, rows, row0, col0, height, width, tid);
        for (unsigned w = 0; Store == T16_LDSM && w < T16_THREADS / 32; ++w)
            play_ldsm_warp<Tile>(tile.data(), out4, rows, row0, col0, height, width, w);
        for (unsigned tid = 0; Store == T16_PORT && tid < T16_THREADS; ++tid)
            t16_store_port<Tile>(tile.data(), out4, rows, row0, col0, height, width, tid);
        for (unsigned tid = 0; Store == T16_PRMT && tid < T16_THREADS; ++tid)
            t16_store_prmt<Tile>(tile.data(), out4, rows, row0, col0, height, width, tid);
    }
    return out.matches(play.want);
}

/** @brief The runs kernel of run length Runs::run over a whole matrix, input and output at the leads given. */
template <class Runs>
static bool check_runs(size_t rows, size_t cols, unsigned in_lead, unsigned out_lead)
{
    played16 play(rows, cols, in_lead, out_lead, 13);
    const uint16_t *in = play.in;
    poisoned16 &out = play.out;
    std::vector<uint16_t> tile(Runs::rows * T16R_STRIDE);
    const size_t tiles_y = ceil_div(rows, Runs::run), tiles = tiles_y * ceil_div(cols, T16R_COLS);
    bool ok = true;
    size_t written = 0;   // by each tile alone, into its own poisoned output: the tiles' parts must not overlap
    for (size_t t = 0; t < tiles; ++t) {
        size_t row0, col0;
        t16_tile(t, tiles_y, Runs::run, T16R_COLS, &row0, &col0);
        const unsigned width = t16_extent(cols, col0, T16R_COLS);
        for (unsigned tid = 0; tid < Runs::threads; ++tid)
            if constexpr (Runs::row_loads)
                t16r_load_rows<Runs>(tile.data(), in, rows, cols, row0, col0, width, tid);
            else
                t16r_load<Runs>(tile.data(), in, rows, cols, row0, col0, width, tid);
        poisoned16 alone(rows * cols, out_lead);
        for (unsigned tid = 0; tid < Runs::threads; ++tid) {
            t16r_store<Runs>(tile.data(), out.data, rows, row0, col0, width, tid);
            t16r_store<Runs>(tile.data(), alone.data, rows, row0, col0, width, tid);
        }
        for (size_t i = 0; i < rows * cols; ++i)
            written += alone.data[i] != POISON_BITS_16;
        for (size_t j = col0; j < col0 + width && row0 > 0; ++j) {   // below the first tile row, what a tile
            size_t i = 0;                                             // writes into a row starts on a sector
            while (i < rows && alone.data[j * rows + i] == POISON_BITS_16)
                ++i;
            ok = ok && (i == rows || (uintptr_t)(alone.data + j * rows + i) % 32 == 0);
        }
    }
    return ok && written == rows * cols && out.matches(play.want);
}

/** @brief The three stores of the 16-byte kernel at one tile shape, on shapes with partial edge tiles. */
template <class Tile>
static void check_tile_shape(void)
{
    const size_t shapes[][2] = {{8, 8}, {64, 64}, {8, 200}, {200, 8}, {136, 72}, {72, 136}, {128, 256},
                                {520, 64}, {64, 520}, {264, 136}};
    char name[128];
    for (const auto &s : shapes) {
        snprintf(name, sizeof name, "port %ux%u: %zux%zu", Tile::rows, Tile::cols, s[0], s[1]);
        report(check_vec8<Tile, T16_PORT>(s[0], s[1]), name);
        snprintf(name, sizeof name, "prmt %ux%u: %zux%zu", Tile::rows, Tile::cols, s[0], s[1]);
        report(check_vec8<Tile, T16_PRMT>(s[0], s[1]), name);
        snprintf(name, sizeof name, "ldsm %ux%u: %zux%zu", Tile::rows, Tile::cols, s[0], s[1]);
        report(check_vec8<Tile, T16_LDSM>(s[0], s[1]), name);
        snprintf(name, sizeof name, "stsm %ux%u: %zux%zu", Tile::rows, Tile::cols, s[0], s[1]);
        report(check_vec8<Tile, T16_STSM>(s[0], s[1]), name);
    }
}

/** @brief The runs kernel at one run length, on shapes of any size, at 6 pairs of alignments. */
template <class Runs>
static void check_run_length(void)
{
    const size_t shapes[][2] = {{2, 2}, {2, 3}, {3, 2}, {5, 7}, {63, 65}, {64, 64}, {65, 63}, {79, 9}, {80, 130},
                                {129, 67}, {130, 194}, {200, 201}, {7, 300}, {300, 7}, {517, 2}, {66, 9}, {145, 131}};
    char name[128];
    for (const auto &s : shapes)
        for (unsigned b = 0; b < 16; b += 3) {
            snprintf(name, sizeof name, "runs of %u: %zux%zu, in +%u, out +%u elements", Runs::run, s[0], s[1],
                     b % 8, b);
            report(check_runs<Runs>(s[0], s[1], b % 8, b), name);
        }
}

/** @brief The default's rule: 64 x 64 tiles below one wave of 64 x 128 tiles, on each side of the boundary. */
static void check_one_wave(void)
{
    report(t16_fewer_than_one_wave(1055, 1056) && !t16_fewer_than_one_wave(1056, 1056),
           "one wave: 1055 tiles on 1056 resident blocks are fewer, 1056 are not");
}

/**
 * @brief The capstone's bf16 rule against step 13's, on a GPU with 60 MiB
 *        of L2 that holds 528 blocks of 64 x 128 tiles at once.
 */
static void check_bf16_rule(void)
{
    alignas(32) static uint16_t in[64], out[64];   // only their addresses are read
    const prmt_gpu gpu = {60u << 20, 528};
    const auto step13 = [&](size_t rows, size_t cols) {
        return prmt_pick(LINES_WHERE_REUSED, order_for(in, rows, cols), in, out, rows, cols, gpu);
    };
    report(step13(2048, 5120).kernel == PRMT_TILES_64x128 && bf16_pick(in, out, 2048, 5120, gpu).kernel ==
               PRMT_TILES_64x64 && bf16_pick(in, out, 3072, 5120, gpu).kernel == PRMT_TILES_64x64,
           "bf16 rule: 64 x 64 tiles where step 13 takes 64 x 128, in half of L2 (2048 x 5120, 3072 x 5120)");
    report(bf16_pick(in, out, 3072, 5136, gpu).kernel == PRMT_TILES_64x128 &&
               bf16_pick(in, out, 4096, 4096, gpu).kernel == PRMT_TILES_64x128 &&
               bf16_pick(in, out, 32768, 32768, gpu).kernel == PRMT_TILES_128x128,
           "bf16 rule: step 13's tiles past half of L2 (3072 x 5136, 4096 x 4096) and past L2");
    const prmt_choice short_rows = bf16_pick(in, out, 1000003, 512, gpu);
    const prmt_choice long_rows = bf16_pick(in, out, 1000003, 520, gpu);
    report(step13(1000003, 77).kernel == PRMT_RUNS && !step13(1000003, 77).lines &&
               bf16_pick(in, out, 1000003, 77, gpu).lines && short_rows.kernel == PRMT_RUNS && short_rows.lines &&
               long_rows.kernel == PRMT_RUNS && !long_rows.lines,
           "bf16 rule: the sector runs ask for whole lines on rows of in of at most 1 KB (77 and 512 "
           "columns), not 1040 bytes (520)");
}

/** @brief The default's rule: the 16-byte kernel only where rows of `out` start on 32-byte sectors. */
static void check_sector_rows(void)
{
    alignas(32) static uint16_t out[64];
    report(t16_rows_on_sectors(out, 3008) && !t16_rows_on_sectors(out, 3000) &&
               !t16_rows_on_sectors(out + 8, 3008),
           "sector rows: 3008 rows at a 32-byte boundary start on sectors; 3000 rows, or 16 bytes past it, do not");
}

/** @brief The default's tile order: along the rows on tall matrices whose rows of `in` start off sectors. */
static void check_order_rule(void)
{
    alignas(32) static uint16_t in[64];
    report(t16_along_rows_pays(in, 50000, 3000) && t16_along_rows_pays(in, 100000, 1000) &&
               t16_along_rows_pays(in, 48032, 12008) && !t16_along_rows_pays(in, 48031, 12008) &&
               !t16_along_rows_pays(in, 25008, 25000) && !t16_along_rows_pays(in, 3000, 50008) &&
               !t16_along_rows_pays(in, 50000, 3008) && t16_along_rows_pays(in + 8, 50000, 3008),
           "tile order: along the rows from 4 : 1 (48032 x 12008, 50000 x 3000), not on squarer matrices "
           "or rows on sectors");
}

/** @brief The default's rule: lines where a column of tiles, `in` and `out`, fits in a quarter of L2. */
static void check_lines_reused(void)
{
    const size_t mib = 1 << 20;
    report(t16_lines_reused(25600, 128, 50 * mib) && !t16_lines_reused(25601, 128, 50 * mib),
           "lines: 128-column tiles on an L2 of 50 MiB up to 25600 rows, not 25601");
    report(t16_lines_reused(30720, 128, 60 * mib) && !t16_lines_reused(30721, 128, 60 * mib),
           "lines: 128-column tiles on an L2 of 60 MiB up to 30720 rows, not 30721");
    report(t16_lines_reused(51200, T16R_COLS, 50 * mib) && !t16_lines_reused(51201, T16R_COLS, 50 * mib),
           "lines: runs of 64 columns on an L2 of 50 MiB up to 51200 rows, not 51201");
}

/**
 * @brief Both tile orders visit every tile of a 300 x 200 matrix of
 *        128 x 64 tiles once; down the columns the second tile is the one
 *        below the first, along the rows the one to its right.
 */
static void check_tile_orders(void)
{
    const size_t rows = 300, cols = 200, tiles_y = ceil_div(rows, 128), tiles_x = ceil_div(cols, 64);
    std::vector<int> down(tiles_y * tiles_x), across(tiles_y * tiles_x);
    size_t second_down[2], second_across[2];
    for (size_t t = 0; t < tiles_y * tiles_x; ++t) {
        size_t row0, col0;
        t16_tile(t, tiles_y, 128, 64, &row0, &col0);
        ++down[row0 / 128 * tiles_x + col0 / 64];
        if (t == 1)
            second_down[0] = row0, second_down[1] = col0;
        t16_tile_across(t, tiles_x, 128, 64, &row0, &col0);
        ++across[row0 / 128 * tiles_x + col0 / 64];
        if (t == 1)
            second_across[0] = row0, second_across[1] = col0;
    }
    bool once = true;
    for (size_t i = 0; i < down.size(); ++i)
        once = once && down[i] == 1 && across[i] == 1;
    report(once && second_down[0] == 128 && second_down[1] == 0 && second_across[0] == 0 && second_across[1] == 64,
           "tile orders: down the columns and along the rows, every tile once, the second below or beside the first");
}

int main(void)
{
    check_one_wave();
    check_tile_orders();
    check_order_rule();
    check_sector_rows();
    check_lines_reused();
    check_bf16_rule();
    check_tile_shape<tile16<64, 128>>();   // the step's tiles
    check_tile_shape<tile16<64, 64>>();
    check_tile_shape<tile16<128, 64>>();   // taller: PRMT jobs in two blocks of 8 row groups
    check_tile_shape<tile16<128, 128>>();  // the default past the size of L2
    check_run_length<runs16<144>>();       // the step's runs
    check_run_length<runs16<128>>();       // the exercise's fallback
    check_run_length<runs16_rows<144, true>>();   // the row loads
    check_run_length<runs16_rows<128, true>>();   // row loads whose last pass is partial (144 rows): runs_128
    check_run_length<runs16<112>>();       // a length that is no power of two
    return failures ? 1 : 0;
}
