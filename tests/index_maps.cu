/**
 * @file index_maps.cu
 * @brief The kernels' index arithmetic that the write-ups' figures draw,
 *        played on the host: prints docs/img/index-maps.csv.
 *
 * `make figures` writes the file from this program and lab/figures.py draws
 * from it; `make figures-check` fails where the program prints something
 * else, so a kernel change that moves an index shows up as a stale figure.
 * The kernels' own functions run here, thread by thread, on tiles whose
 * every chunk or element holds its own position: what a thread stores then
 * says where it read from.
 *
 * One line per value, `map,i,j,value`; each map's i, j -> value:
 *
 * - vec4_store, vec4_load: lane, 0 -> the chunk slot (chunk_slot()) that
 *   lane of the 16-byte kernel of steps 09-10 stores in pass 0, and reads
 *   as b[0] in store_block_vec4(); vec4_load_plain: where that chunk would
 *   be without the swizzle, row * 16 + chunk.
 * - word_store, word_load: lane, 0 -> the word_slot() of the 4-byte
 *   kernel's store into the tile and load from it (warp 0, i = h = 0).
 * - row_async, col_async: tile_y, tile_x -> the block t that takes the
 *   tile, raster_tile() in step 10's two orders, on 8 x 8 tiles.
 * - misaligned_shape: rows, cols -> 0: the shape of the step 11 figures,
 *   the tile at its rows 0-63 and columns 64-127.
 * - load_row_chunk: tile row, chunk k -> the tile column of the chunk's
 *   first float, for each chunk load_row_chunk() loads.
 * - store_run: row of `out`, float of the tile's run -> the bytes of the
 *   store of store_tile_any_shape() that wrote it: 16 or 4.
 * - sr_run_first, sr_run_last: row of `out`, tile row k -> the run
 *   [first, last) of that row that sr_run() gives the tiles at row 64 k.
 * - tma_place: box row, chunk -> its place in the box row after the
 *   128-byte swizzle (swizzled_chunk()); tma_read: box row, chunk -> the
 *   lane of lanes 0-7 that reads it as r[0] (read_tma_block()).
 * - port_element, prmt_word: lane, 0 -> the 2-byte element and the 4-byte
 *   word of the tile16<64, 128> tile that the lane's first shared load
 *   reads in step 13's port and PRMT stores.
 * - byte_perm: selector, 0 -> byte_perm(0x03020100, 0x07060504, selector).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

// Step 10's raster_tile() lives in its program's file: included whole, without its main().
#define TRANSPOSE_NO_MAIN
#define STEP_NUMBER 10
#define STEP_NAME "shared64_async"
#include "steps/10_shared64_async/shared64_async.cu"
#include "steps/11_any_shape/any_shape.cuh"
#include "steps/12_tma/tma_tile.cuh"
#include "steps/13_bf16/bf16.cuh"

/** Lanes in a warp. */
#define WARP 32
/** The misaligned shape whose tile at rows 0-63, columns 64-127 the step 11 figures show. */
#define SHAPE_ROWS 10007
#define SHAPE_COLS 7919

/** @brief Print one line of the CSV. */
static void emit(const char *map, long long i, long long j, long long value)
{
    printf("%s,%lld,%lld,%lld\n", map, i, j, value);
}

/** @brief The index of the first of @p count chunks that is not poisoned: what a played store wrote first. */
template <class T, class Poisoned>
static size_t first_written(const T *chunks, size_t count, Poisoned poisoned)
{
    for (size_t k = 0; k < count; ++k)
        if (!poisoned(chunks[k]))
            return k;
    fprintf(stderr, "error: a thread played for docs/img/index-maps.csv stored nothing: is its tile too small?\n");
    exit(1);
}

/** @brief Steps 09 and 10: the chunk-swizzled tile, the 4-byte kernel's word_slot(), the tile orders. */
static void steps_09_10(void)
{
    // Chunk (row, chunk) sits at chunk_slot(row, chunk) and holds row * 16 + chunk in every float.
    static float4 tile[TILE * CHUNKS_PER_ROW], out4[TILE * CHUNKS_PER_ROW];
    for (unsigned row = 0; row < TILE; ++row)
        for (unsigned chunk = 0; chunk < CHUNKS_PER_ROW; ++chunk) {
            const float plain = (float)(row * CHUNKS_PER_ROW + chunk);
            tile[chunk_slot(row, chunk)] = make_float4(plain, plain, plain, plain);
        }
    // The 16-byte kernel's load role is two lines of transpose_shared64_vec4() (shared64.cuh).
    for (unsigned lane = 0; lane < WARP; ++lane)
        emit("vec4_store", lane, 0, chunk_slot(lane / CHUNKS_PER_ROW, lane % CHUNKS_PER_ROW));
    unsigned plain[WARP];   // the chunk each lane reads as b[0], as row * 16 + chunk
    for (unsigned lane = 0; lane < WARP; ++lane) {
        for (float4 &chunk : out4)
            chunk.x = NAN;
        store_block_vec4(tile, out4, TILE, 0, 0, TILE, TILE, lane);
        const size_t k = first_written(out4, TILE * CHUNKS_PER_ROW, [](float4 v) { return isnan(v.x); });
        plain[lane] = (unsigned)out4[k].x;   // every chunk it writes starts with a float of b[0]
    }
    for (unsigned lane = 0; lane < WARP; ++lane)
        emit("vec4_load", lane, 0, chunk_slot(plain[lane] / CHUNKS_PER_ROW, plain[lane] % CHUNKS_PER_ROW));
    for (unsigned lane = 0; lane < WARP; ++lane)
        emit("vec4_load_plain", lane, 0, plain[lane]);
    // transpose_tile_words(), warp 0 (ty = 0), i = h = 0: it stores (ty, tx) into the tile and loads (tx, ty).
    for (unsigned lane = 0; lane < WARP; ++lane)
        emit("word_store", lane, 0, word_slot(0, lane));
    for (unsigned lane = 0; lane < WARP; ++lane)
        emit("word_load", lane, 0, word_slot(lane, 0));
    const unsigned tiles = 8;
    const struct { const char *kernel; unsigned order; } orders[] = {{"row_async", 1}, {"col_async", COLUMN_MAJOR}};
    for (const auto &order : orders)
        for (size_t t = 0; t < tiles * tiles; ++t) {
            size_t tile_y, tile_x;
            raster_tile(t, tiles, tiles, order.order, &tile_y, &tile_x);
            emit(order.kernel, tile_y, tile_x, t);
        }
}

/** @brief Step 11 on the misaligned shape, aligned pointers: a tile's loads, its stores, the sector runs. */
static void step_11(void)
{
    const size_t rows = SHAPE_ROWS, cols = SHAPE_COLS, row0 = 0, col0 = TILE;
    emit("misaligned_shape", rows, cols, 0);
    static float tile[TILE * AS_STRIDE];
    std::vector<float4> in((4 * cols + 2 * TILE) / VEC);   // tile rows 0-3 and a little more
    for (unsigned r = 0; r < 4; ++r)
        for (unsigned k = 0; k < AS_CHUNKS_PER_ROW; ++k) {
            const row_chunk c = load_row_chunk(tile, chunked<const float4>{in.data(), 0}, rows * cols,
                                               (row0 + r) * cols + col0, r, k, TILE);
            if (c.held)
                emit("load_row_chunk", r, k, c.column);
        }
    // The whole tile stored, its 16-byte stores into one copy of `out` and its 4-byte ones into another.
    const size_t count = (col0 + TILE) * rows;
    std::vector<float4> wide((count + VEC) / VEC), narrow((count + VEC) / VEC);
    float *wide_floats = reinterpret_cast<float *>(wide.data());
    float *narrow_floats = reinterpret_cast<float *>(narrow.data());
    for (size_t i = 0; i < count; ++i)
        wide_floats[i] = narrow_floats[i] = NAN;
    memset(tile, 0, sizeof tile);
    for (unsigned tid = 0; tid < THREADS; ++tid)
        store_tile_any_shape(tile, as_chunks(wide_floats), narrow_floats, rows, row0, col0, TILE, TILE, tid);
    for (size_t j = col0; j < col0 + 4; ++j)
        for (unsigned e = 0; e < TILE; ++e) {
            const size_t at = j * rows + row0 + e;
            emit("store_run", j, e, !isnan(wide_floats[at]) ? 16 : !isnan(narrow_floats[at]) ? 4 : 0);
        }
    for (size_t j = col0; j < col0 + 4; ++j)
        for (unsigned k = 0; k < 3; ++k) {
            size_t first, last;
            sr_run<SR_RUN>(rows, 0, k * SR_RUN, j, &first, &last);
            emit("sr_run_first", j, k, first);
            emit("sr_run_last", j, k, last);
        }
}

/** @brief Step 12: a box as the TMA unit swizzles it, and where lanes 0-7 read their first chunk. */
static void step_12(void)
{
    const unsigned row_bytes = TMA_BOX_COLS * sizeof(float);
    for (unsigned row = 0; row < 8; ++row)
        for (unsigned chunk = 0; chunk < TMA_CHUNKS_PER_BOX_ROW; ++chunk)
            emit("tma_place", row, chunk, swizzled_chunk(row, chunk) % row_bytes / sizeof(float4));
    // Each chunk of the boxes holds its own number, box row * 8 + chunk, counted over both boxes.
    alignas(TMA_SWIZZLE_ALIGN) static unsigned char stage[TMA_TILE_BYTES];
    for (unsigned box = 0; box < TMA_BOXES; ++box)
        for (unsigned row = 0; row < TILE; ++row)
            for (unsigned chunk = 0; chunk < TMA_CHUNKS_PER_BOX_ROW; ++chunk) {
                const float number = (float)((box * TILE + row) * TMA_CHUNKS_PER_BOX_ROW + chunk);
                *reinterpret_cast<float4 *>(stage + box * TMA_BOX_BYTES + swizzled_chunk(row, chunk)) =
                    make_float4(number, number, number, number);
            }
    for (unsigned lane = 0; lane < 8; ++lane) {
        unsigned b, g;
        float4 r[VEC];
        tma_thread_block(lane, &b, &g);
        read_tma_block(stage, g, b, r);
        const unsigned number = (unsigned)r[0].x;
        emit("tma_read", number / TMA_CHUNKS_PER_BOX_ROW, number % TMA_CHUNKS_PER_BOX_ROW, lane);
    }
}

/** @brief The first of the chunks that @p store wrote into @p out (poisoned with all ones), for thread @p tid. */
template <class Tile, class Store>
static uint4 first_chunk_stored(const uint4 *tile, uint4 *out, size_t chunks, unsigned tid, Store store)
{
    memset(out, 0xFF, chunks * sizeof(uint4));
    store(tile, out, Tile::rows, 0, 0, Tile::rows, Tile::cols, tid);
    return out[first_written(out, chunks, [](uint4 v) { return v.x == 0xFFFFFFFFu; })];
}

/**
 * @brief Step 13: which 2-byte element the port's first load reads, and which word the PRMT store's: each
 *        thread's jobs go along `out`, so its first chunk of `out` holds what its first load read.
 */
static void step_13(void)
{
    typedef tile16<64, 128> tile_t;
    const size_t count = tile_t::rows * tile_t::cols;
    // `in` is one tile whose every element holds its own index, loaded as the kernel loads it.
    static uint16_t in[count];
    for (size_t i = 0; i < count; ++i)
        in[i] = (uint16_t)i;
    static uint4 tile[count / T16_CHUNK], out[count / T16_CHUNK];
    for (unsigned tid = 0; tid < T16_THREADS; ++tid)
        t16_load<tile_t>(tile, reinterpret_cast<const uint4 *>(in), tile_t::cols, 0, 0, tile_t::rows, tile_t::cols,
                         tid);
    static unsigned element_at[count];   // where each element of `in` landed in the tile
    const uint16_t *elements = reinterpret_cast<const uint16_t *>(tile);
    for (unsigned e = 0; e < count; ++e)
        element_at[elements[e]] = e;
    for (unsigned lane = 0; lane < WARP; ++lane) {   // the low half of its first word: the first element read
        const uint4 port = first_chunk_stored<tile_t>(tile, out, count / T16_CHUNK, lane, t16_store_port<tile_t>);
        emit("port_element", lane, 0, element_at[port.x & 0xFFFF]);
    }
    for (unsigned lane = 0; lane < WARP; ++lane) {   // the low half of its first chunk: of the first word read
        const uint4 prmt = first_chunk_stored<tile_t>(tile, out, count / T16_CHUNK, lane, t16_store_prmt<tile_t>);
        emit("prmt_word", lane, 0, element_at[prmt.x & 0xFFFF] / 2);
    }
    // Every byte of w0 and w1 names itself; selectors 0x3210 and 0x7654 give w0 and w1 back.
    for (const unsigned selector : {0x3210u, 0x7654u, 0x5410u, 0x7632u})
        emit("byte_perm", selector, 0, byte_perm(0x03020100u, 0x07060504u, selector));
}

int main(void)
{
    printf("map,i,j,value\n");
    steps_09_10();
    step_11();
    step_12();
    step_13();
    return 0;
}
