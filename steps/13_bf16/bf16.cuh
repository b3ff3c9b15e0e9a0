/**
 * @file bf16.cuh
 * @brief Step 13's kernels: the transpose of 2-byte elements.
 *
 * A 16-byte chunk now holds 8 elements, and two elements share each 4-byte
 * bank word of shared memory. The tile's shape is a template parameter
 * (`tile16<Rows, Cols>`), so that the same code can be measured at several
 * sizes, and so is how its loads ask L2 for data (t16_fetch()). The
 * per-thread functions take the thread's index and run on the host too,
 * so that tests/test_tiles16.cu can play a whole block.
 */
#ifndef TRANSPOSE_BF16_CUH
#define TRANSPOSE_BF16_CUH

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime.h>

#include "kernel_utils.cuh"   // copy_elements_launch(), device_attribute()
#include "steps/11_any_shape/slabs.cuh"   // slabs_launch(): step 11's slabs, the variant `slabs_elements`

/** Threads per block. */
#define T16_THREADS 256
/** 2-byte elements in a 16-byte chunk. */
#define T16_CHUNK 8
/** The smaller of @p b and the blocks of 256 threads the GPU's thread limit allows. */
#define T16_CAP_BLOCKS(b) (MAX_BLOCKS_PER_SM(T16_THREADS) < (b) ? MAX_BLOCKS_PER_SM(T16_THREADS) : (b))
/**
 * Blocks per multiprocessor for the 16-byte kernels' `__launch_bounds__`: all
 * the thread limit allows. On sm_80 and sm_90 that is 8 x 256 threads, which
 * leaves 32 registers a thread; the PRMT, port and stmatrix stores fit them
 * without spilling (uncapped, the compiler takes 64 or more and only 3 or 4
 * blocks fit).
 */
#define T16_FULL_BLOCKS T16_CAP_BLOCKS(8)
/**
 * Blocks per multiprocessor asked for the ldmatrix store: none (0), the
 * compiler's choice. It spills at 32 registers, and under a cap of 4 or 6
 * blocks the compiler schedules it worse and it runs slower.
 */
#define T16_LDSM_BLOCKS 0
/**
 * Blocks per multiprocessor for a tile of @p elements: a 128 x 128 tile
 * loads 8 chunks a thread, which spill at 32 registers, so it gets 64 and 4
 * blocks; smaller tiles get T16_FULL_BLOCKS.
 */
#define T16_TILE_BLOCKS(elements) ((elements) > 8192 ? T16_CAP_BLOCKS(4) : T16_FULL_BLOCKS)

/**
 * @brief Load the 16-byte chunk at @p p of `in`. With @p Lines, the load
 *        asks L2 for the whole 128-byte line around the chunk
 *        (`ld.global.nc.L2::128B`, LDG.E.LTC128B in the SASS); without, for
 *        the 32-byte sectors it reads.
 *
 * Where rows of `in` do not start on 128 bytes, a tile's piece of a row
 * begins and ends in the middle of lines, and the tile next to it reads
 * the rest of those lines later. Asked for sectors, L2 fetches each part
 * of such a line from DRAM on its own; asked for lines, it fetches the
 * whole line once, and the neighbour finds its part in L2. Where every
 * piece is whole lines, both ask for the same bytes.
 */
template <bool Lines>
static __host__ __device__ __forceinline__ uint4 t16_fetch(const uint4 *p)
{
#ifdef __CUDA_ARCH__
    if (Lines) {
        uint4 v;
        asm volatile("ld.global.nc.L2::128B.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                     : "l"(p));
        return v;
    }
#endif
    return *p;
}

/**
 * @brief A tile of Rows x Cols 2-byte elements (both multiples of 64), and
 *        how 256 threads share its work; @p Lines: how its loads ask L2
 *        for data (t16_fetch()).
 */
template <unsigned Rows, unsigned Cols, bool Lines = false>
struct tile16 {
    /** Rows of the tile. */
    static constexpr unsigned rows = Rows;
    /** Columns of the tile, in elements. */
    static constexpr unsigned cols = Cols;
    /** Whether its loads ask L2 for whole 128-byte lines. */
    static constexpr bool lines = Lines;
    /** 16-byte chunks per tile row. */
    static constexpr unsigned chunks_per_row = Cols / T16_CHUNK;
    /** Chunks each thread loads (and, in the port, stores). */
    static constexpr unsigned loads = Rows * chunks_per_row / T16_THREADS;
    /** PRMT jobs (8 rows x 2 columns) each thread does. */
    static constexpr unsigned pair_jobs = Rows / T16_CHUNK * (Cols / 2) / T16_THREADS;
    /** ldmatrix jobs (four 8x8 blocks) each warp does. */
    static constexpr unsigned ldsm_jobs = Rows / 32 * chunks_per_row / (T16_THREADS / 32);
    static_assert(Rows % 64 == 0 && Cols % 64 == 0, "tiles are multiples of 64 each way");
};

/** @brief __byte_perm() on the GPU, the same byte selection on the host. */
static __host__ __device__ __forceinline__ uint32_t byte_perm(uint32_t x, uint32_t y, uint32_t selector)
{
#ifdef __CUDA_ARCH__
    return __byte_perm(x, y, selector);
#else
    const uint64_t bytes = (uint64_t)y << 32 | x;
    uint32_t out = 0;
    for (int i = 0; i < 4; ++i)
        out |= (uint32_t)((bytes >> (8 * ((selector >> (4 * i)) & 7))) & 0xFF) << (8 * i);
    return out;
#endif
}

/**
 * @brief Where chunk @p k of tile row @p r lives. The chunk index is XORed
 *        with (r ^ r / 8) % 8, which differs both
 *        - over rows 8 g + k, g = 0..7 (what the PRMT store's 8 lanes read at once), and
 *        - over rows 8 g .. 8 g + 7 (what ldmatrix reads for one 8x8 block),
 *        so that both land in 8 different groups of 4 banks.
 */
template <class Tile>
static __host__ __device__ __forceinline__ unsigned t16_slot(unsigned r, unsigned k)
{
    return r * Tile::chunks_per_row + (k ^ ((r ^ r / T16_CHUNK) % T16_CHUNK));
}

/** @brief True where every row of both matrices is whole aligned 16-byte chunks. */
static inline bool vec8_fits(const uint16_t *in, const uint16_t *out, size_t rows, size_t cols)
{
    return rows % T16_CHUNK == 0 && cols % T16_CHUNK == 0 && is_aligned_16(in) && is_aligned_16(out);
}

/**
 * @brief True where every row of @p matrix, @p length elements of 2 bytes,
 *        starts on a 32-byte sector: the length is whole sectors and the
 *        matrix starts on one. Elsewhere a tile's pieces of a row straddle
 *        sectors: on `out` each piece leaves two sectors partly written, on
 *        `in` two partly read.
 */
static __host__ __device__ __forceinline__ bool t16_rows_on_sectors(const uint16_t *matrix, size_t length)
{
    return length % 16 == 0 && (uintptr_t)matrix % 32 == 0;
}

/** How many times taller than wide a matrix must be before its tiles go along the rows (the order study). */
#define T16_TALL_RATIO 4

/**
 * @brief Whether the default takes its tiles along the rows of @p in
 *        (@p rows x @p cols): on a matrix at least #T16_TALL_RATIO times
 *        taller than wide whose rows of `in` start off sectors (6000-byte
 *        rows: every other one). A tile's piece of such a row shares its end
 *        sectors with the tiles beside it. Along the rows the tile beside
 *        comes next and finds them in L2; down the columns it comes a whole
 *        column of tiles later, and past L2 DRAM reads them again (Nsight
 *        Compute at 50000 x 3000, appendix 13). On squarer matrices the rows'
 *        order trails on the H200, as step 12 found for float32 tiles:
 *        `make study STUDIES=order` times both orders from squares to 100 : 1.
 */
static __host__ __device__ __forceinline__ bool t16_along_rows_pays(const uint16_t *in, size_t rows, size_t cols)
{
    return rows / T16_TALL_RATIO >= cols && !t16_rows_on_sectors(in, cols);
}

/** @brief What is left of @p n from @p first on, at most @p side. */
static __host__ __device__ __forceinline__ unsigned t16_extent(size_t n, size_t first, unsigned side)
{
    return (unsigned)(n - first < side ? n - first : side);
}

/** @brief First row and column of tile @p t, in column-major tile order. */
static __host__ __device__ __forceinline__ void t16_tile(size_t t, size_t tiles_y, unsigned tile_rows,
                                                         unsigned tile_cols, size_t *row0, size_t *col0)
{
    *row0 = (t % tiles_y) * tile_rows;
    *col0 = (t / tiles_y) * tile_cols;
}

/**
 * @brief First row and column of tile @p t in row-major tile order, along
 *        the rows of `in` (@p tiles_x tiles to a row of tiles): the order
 *        of step 10's `row_async` and of a Triton kernel whose program id
 *        runs along a row of blocks first.
 */
static __host__ __device__ __forceinline__ void t16_tile_across(size_t t, size_t tiles_x, unsigned tile_rows,
                                                                unsigned tile_cols, size_t *row0, size_t *col0)
{
    *row0 = (t / tiles_x) * tile_rows;
    *col0 = (t % tiles_x) * tile_cols;
}

/**
 * @brief Load the tile at (@p row0, @p col0) as 16-byte chunks into @p tile
 *        (t16_slot() order), all of a thread's loads issued first. Rows are
 *        whole chunks here, so height and width are multiples of 8.
 */
template <class Tile>
static __host__ __device__ __forceinline__ void t16_load(uint4 *tile, const uint4 *in, size_t cols, size_t row0,
                                                         size_t col0, unsigned height, unsigned width, unsigned tid)
{
    uint4 v[Tile::loads];
UNROLL_ON_DEVICE
    for (unsigned p = 0; p < Tile::loads; ++p) {
        const unsigned item = p * T16_THREADS + tid;
        const unsigned r = item / Tile::chunks_per_row, k = item % Tile::chunks_per_row;
        if (r < height && k * T16_CHUNK < width)
            v[p] = t16_fetch<Tile::lines>(&in[((row0 + r) * cols + col0) / T16_CHUNK + k]);
    }
UNROLL_ON_DEVICE
    for (unsigned p = 0; p < Tile::loads; ++p) {
        const unsigned item = p * T16_THREADS + tid;
        const unsigned r = item / Tile::chunks_per_row, k = item % Tile::chunks_per_row;
        if (r < height && k * T16_CHUNK < width)
            tile[t16_slot<Tile>(r, k)] = v[p];
    }
}

/**
 * @brief The naive port of the float32 answer's store: each output chunk is
 *        8 elements of one tile column, gathered one 2-byte element at a
 *        time (16 shared loads of 2 bytes for a 16-byte store).
 *
 * Output chunk (c, g) is row col0 + c of `out`, elements row0 + 8 g .. + 7;
 * g runs fastest over the lanes, so neighbouring lanes write neighbouring chunks.
 */
template <class Tile>
static __host__ __device__ __forceinline__ void t16_store_port(const uint4 *tile, uint4 *out, size_t rows, size_t row0,
                                                               size_t col0, unsigned height, unsigned width,
                                                               unsigned tid)
{
    constexpr unsigned groups = Tile::rows / T16_CHUNK;
    const uint16_t *elements = reinterpret_cast<const uint16_t *>(tile);
UNROLL_ON_DEVICE
    for (unsigned p = 0; p < Tile::loads; ++p) {
        const unsigned item = p * T16_THREADS + tid, g = item % groups, c = item / groups;
        if (g * T16_CHUNK >= height || c >= width)
            continue;
        uint32_t w[4];
UNROLL_ON_DEVICE
        for (unsigned k = 0; k < 4; ++k) {
            const unsigned r = g * T16_CHUNK + 2 * k;
            const uint32_t lo = elements[t16_slot<Tile>(r, c / T16_CHUNK) * T16_CHUNK + c % T16_CHUNK];
            const uint32_t hi = elements[t16_slot<Tile>(r + 1, c / T16_CHUNK) * T16_CHUNK + c % T16_CHUNK];
            w[k] = lo | hi << 16;
        }
        out[((col0 + c) * rows + row0) / T16_CHUNK + g] = make_uint4(w[0], w[1], w[2], w[3]);
    }
}

/**
 * @brief PRMT job @p item of a tile: rows 8 g .. 8 g + 7, columns 2 h and
 *        2 h + 1. In a warp, lane % 8 picks g's low 3 bits and lane / 8
 *        picks h's low 2 bits, so the 32 lanes read 32 different banks
 *        (see t16_slot()) and 8 lanes write 128 contiguous bytes of `out`.
 */
template <class Tile>
static __host__ __device__ __forceinline__ void t16_pair_job(unsigned item, unsigned *g, unsigned *h)
{
    constexpr unsigned group_blocks = Tile::rows / 64;   // blocks of 8 g's
    const unsigned lane = item % 32, warp_item = item / 32;
    *g = warp_item % group_blocks * 8 + lane % 8;
    *h = warp_item / group_blocks * 4 + lane / 8;
}

/**
 * @brief The byte-permute store: for each job, a thread reads one 4-byte
 *        word (two neighbouring columns) from each of 8 tile rows, and
 *        pairs their halves with `PRMT` into two output chunks, one per
 *        column: 8 shared loads of 4 bytes for two 16-byte stores, where the
 *        port needs 16 loads of 2 bytes for one.
 */
template <class Tile>
static __host__ __device__ __forceinline__ void t16_store_prmt(const uint4 *tile, uint4 *out, size_t rows, size_t row0,
                                                               size_t col0, unsigned height, unsigned width,
                                                               unsigned tid)
{
    const uint32_t *words = reinterpret_cast<const uint32_t *>(tile);
UNROLL_ON_DEVICE
    for (unsigned p = 0; p < Tile::pair_jobs; ++p) {
        unsigned g, h;
        t16_pair_job<Tile>(p * T16_THREADS + tid, &g, &h);
        if (g * T16_CHUNK >= height || 2 * h >= width)
            continue;
        uint32_t w[T16_CHUNK];
UNROLL_ON_DEVICE
        for (unsigned k = 0; k < T16_CHUNK; ++k)
            w[k] = words[t16_slot<Tile>(g * T16_CHUNK + k, 2 * h / T16_CHUNK) * 4 + h % 4];
        uint32_t even[4], odd[4];   // column 2h: the low halves; column 2h + 1: the high halves
UNROLL_ON_DEVICE
        for (unsigned k = 0; k < 4; ++k) {
            even[k] = byte_perm(w[2 * k], w[2 * k + 1], 0x5410);
            odd[k] = byte_perm(w[2 * k], w[2 * k + 1], 0x7632);
        }
        const size_t first = ((col0 + 2 * h) * rows + row0) / T16_CHUNK + g;
        out[first] = make_uint4(even[0], even[1], even[2], even[3]);
        out[first + rows / T16_CHUNK] = make_uint4(odd[0], odd[1], odd[2], odd[3]);
    }
}

/** @brief r[i] for a run-time i, by selects: a dynamic index would put r in local memory. */
static __host__ __device__ __forceinline__ uint32_t pick4(const uint32_t r[4], unsigned i)
{
    return i == 0 ? r[0] : i == 1 ? r[1] : i == 2 ? r[2] : r[3];
}

/** @brief v[i] = x for a run-time i, by selects. */
static __host__ __device__ __forceinline__ void put4(uint32_t v[4], unsigned i, uint32_t x)
{
UNROLL_ON_DEVICE
    for (unsigned j = 0; j < 4; ++j)
        v[j] = j == i ? x : v[j];
}

/** @brief ldmatrix job @p job of a tile: the 8x8 blocks (g0 .. g0 + 3, h), g0 a multiple of 4. */
template <class Tile>
static __host__ __device__ __forceinline__ void t16_ldsm_job(unsigned job, unsigned *g0, unsigned *h)
{
    *h = job % Tile::chunks_per_row;
    *g0 = 4 * (job / Tile::chunks_per_row);
}

/**
 * @brief The chunk whose address lane @p lane gives `ldmatrix .x4`: row
 *        lane % 8 of matrix lane / 8, which is block (g0 + lane / 8, h).
 *        A block outside the tile's height or width is pointed at chunk 0:
 *        every lane must take part, and its result is not stored.
 */
template <class Tile>
static __host__ __device__ __forceinline__ unsigned t16_ldsm_slot(unsigned lane, unsigned g0, unsigned h,
                                                                  unsigned height, unsigned width)
{
    const unsigned g = g0 + lane / 8;
    if (g * T16_CHUNK >= height || h * T16_CHUNK >= width)
        return 0;
    return t16_slot<Tile>(g * T16_CHUNK + lane % 8, h);
}

/**
 * @brief One round of the quad transpose: what lane @p lane sends in
 *        round @p k (0-3), and from which lane it receives. After the four
 *        rounds, lane 4a + q holds r_q of lanes 4a .. 4a + 3: the 8
 *        elements of one 16-byte chunk of `out`.
 */
static __host__ __device__ __forceinline__ uint32_t t16_quad_send(const uint32_t r[4], unsigned lane, unsigned k)
{
    return pick4(r, (lane % 4 + 4 - k) % 4);
}
/** @brief The lane that t16_quad_send() delivers to @p lane in round @p k. */
static __host__ __device__ __forceinline__ unsigned t16_quad_source(unsigned lane, unsigned k)
{
    return (lane & ~3u) | ((lane % 4 + k) % 4);
}

/** @brief Lane @p lane's 16-byte store of job (g0, h): after the quad transpose, @p v. */
static __host__ __device__ __forceinline__ void t16_ldsm_store(uint4 *out, const uint32_t v[4], size_t rows,
                                                               size_t row0, size_t col0, unsigned g0, unsigned h,
                                                               unsigned height, unsigned width, unsigned lane)
{
    const unsigned a = lane / 4, q = lane % 4;   // out row 8 h + a, block g0 + q
    if ((g0 + q) * T16_CHUNK >= height || h * T16_CHUNK >= width)
        return;
    out[((col0 + h * T16_CHUNK + a) * rows + row0) / T16_CHUNK + g0 + q] = make_uint4(v[0], v[1], v[2], v[3]);
}

#ifdef __CUDA_ARCH__
/**
 * @brief The ldmatrix store: `ldmatrix .x4 .trans` reads four 8x8 blocks
 *        of the tile already transposed; lane 4a + q gets, of block m,
 *        elements 2q and 2q + 1 of row a of the transposed block. A quad
 *        transpose by shuffles then gives each lane a whole 16-byte chunk.
 */
template <class Tile>
static __device__ __forceinline__ void t16_store_ldsm(const uint4 *tile, uint4 *out, size_t rows, size_t row0,
                                                      size_t col0, unsigned height, unsigned width, unsigned tid)
{
    const unsigned warp = tid / 32, lane = tid % 32;
UNROLL_ON_DEVICE
    for (unsigned i = 0; i < Tile::ldsm_jobs; ++i) {
        unsigned g0, h;
        t16_ldsm_job<Tile>(Tile::ldsm_jobs * warp + i, &g0, &h);
        const unsigned address =
            (unsigned)__cvta_generic_to_shared(tile + t16_ldsm_slot<Tile>(lane, g0, h, height, width));
        uint32_t r[4];
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                     : "r"(address));
        uint32_t v[4] = {0, 0, 0, 0};
UNROLL_ON_DEVICE
        for (unsigned k = 0; k < 4; ++k)
            put4(v, (lane % 4 + k) % 4, __shfl_sync(0xFFFFFFFFu, t16_quad_send(r, lane, k), t16_quad_source(lane, k)));
        t16_ldsm_store(out, v, rows, row0, col0, g0, h, height, width, lane);
    }
}
#endif

/**
 * @brief How the 16-byte kernel transposes its tile: on the way out of
 *        shared memory (port, PRMT, ldmatrix) or on the way in (stmatrix).
 */
enum t16_store { T16_PORT, T16_PRMT, T16_LDSM, T16_STSM };

/* ---------------------------------------------------------------- stmatrix: the transpose on the way in */

/** 1 where the GPU has `stmatrix` (compute capability 9.0 and newer), else 0. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define HAS_STMATRIX 1
#else
#define HAS_STMATRIX 0
#endif

/**
 * @brief Where chunk @p g of row @p c of the *transposed* tile lives: the
 *        stmatrix kernel keeps tile column c (row col0 + c of `out`) as a
 *        row of Tile::rows elements. The XOR differs over the 8 rows one
 *        stored 8x8 block covers, so `stmatrix` writes 8 bank groups.
 */
template <class Tile>
static __host__ __device__ __forceinline__ unsigned t16_slot_t(unsigned c, unsigned g)
{
    return c * (Tile::rows / T16_CHUNK) + (g ^ ((c ^ c / T16_CHUNK) % T16_CHUNK));
}

/** @brief stmatrix job @p job of a tile: the 8x8 blocks (g, h0 .. h0 + 3) of `in`, h0 a multiple of 4. */
template <class Tile>
static __host__ __device__ __forceinline__ void t16_stsm_job(unsigned job, unsigned *g, unsigned *h0)
{
    constexpr unsigned quads = Tile::chunks_per_row / 4;
    *g = job / quads;
    *h0 = 4 * (job % quads);
}

/**
 * @brief Lane @p lane's 16-byte load of job (g, h0): row 8 g + lane / 4 of
 *        the tile, chunk h0 + lane % 4 (4 lanes read 64 contiguous bytes
 *        of a row). Outside the tile it is zero: every lane must still
 *        take part in the shuffles and the store, whose result is not read.
 */
template <class Tile>
static __host__ __device__ __forceinline__ uint4 t16_stsm_fetch(const uint4 *in, size_t cols, size_t row0, size_t col0,
                                                                unsigned g, unsigned h0, unsigned height,
                                                                unsigned width, unsigned lane)
{
    const unsigned r = g * T16_CHUNK + lane / 4, k = h0 + lane % 4;
    if (r >= height || k * T16_CHUNK >= width)
        return make_uint4(0, 0, 0, 0);
    return t16_fetch<Tile::lines>(&in[((row0 + r) * cols + col0) / T16_CHUNK + k]);
}

/**
 * @brief The shared address lane @p lane gives `stmatrix .x4 .trans` for
 *        job (g, h0): stored row lane % 8 of matrix lane / 8. Matrix m is
 *        block (g, h0 + m) transposed, so its row i is tile column
 *        8 (h0 + m) + i, and its 8 elements are chunk g of that row.
 */
template <class Tile>
static __host__ __device__ __forceinline__ unsigned t16_stsm_slot(unsigned lane, unsigned g, unsigned h0)
{
    return t16_slot_t<Tile>(T16_CHUNK * (h0 + lane / 8) + lane % 8, g);
}

/**
 * @brief Read the transposed tile a row at a time and write it out: chunk
 *        g of row c is chunk g of row col0 + c of `out`, from element row0
 *        on; neighbouring lanes write neighbouring chunks.
 */
template <class Tile>
static __host__ __device__ __forceinline__ void t16_store_rows(const uint4 *tile, uint4 *out, size_t rows, size_t row0,
                                                               size_t col0, unsigned height, unsigned width,
                                                               unsigned tid)
{
    constexpr unsigned groups = Tile::rows / T16_CHUNK;
UNROLL_ON_DEVICE
    for (unsigned p = 0; p < Tile::loads; ++p) {
        const unsigned item = p * T16_THREADS + tid, g = item % groups, c = item / groups;
        if (g * T16_CHUNK < height && c < width)
            out[((col0 + c) * rows + row0) / T16_CHUNK + g] = tile[t16_slot_t<Tile>(c, g)];
    }
}

/**
 * @brief The stmatrix load: each warp job loads four 8x8 blocks of `in` as
 *        16-byte chunks, a quad transpose by shuffles turns them into
 *        `stmatrix` fragments (lane 4a + q: row a, elements 2q and 2q + 1
 *        of each block), and `stmatrix .x4 .trans` stores the four blocks
 *        transposed into the tile.
 */
template <class Tile>
static __device__ __forceinline__ void t16_stsm_load(uint4 *tile, const uint4 *in, size_t cols, size_t row0,
                                                     size_t col0, unsigned height, unsigned width, unsigned tid)
{
    const unsigned warp = tid / 32, lane = tid % 32;
    uint4 v[Tile::ldsm_jobs];
UNROLL_ON_DEVICE
    for (unsigned i = 0; i < Tile::ldsm_jobs; ++i) {   // all of a lane's loads first
        unsigned g, h0;
        t16_stsm_job<Tile>(Tile::ldsm_jobs * warp + i, &g, &h0);
        v[i] = t16_stsm_fetch<Tile>(in, cols, row0, col0, g, h0, height, width, lane);
    }
UNROLL_ON_DEVICE
    for (unsigned i = 0; i < Tile::ldsm_jobs; ++i) {
        unsigned g, h0;
        t16_stsm_job<Tile>(Tile::ldsm_jobs * warp + i, &g, &h0);   // past the tile's height: zeros, never read
        const uint32_t w[4] = {v[i].x, v[i].y, v[i].z, v[i].w};
        uint32_t f[4] = {0, 0, 0, 0};
UNROLL_ON_DEVICE
        for (unsigned k = 0; k < 4; ++k)
            put4(f, (lane % 4 + k) % 4, __shfl_sync(0xFFFFFFFFu, t16_quad_send(w, lane, k), t16_quad_source(lane, k)));
        const unsigned address = (unsigned)__cvta_generic_to_shared(tile + t16_stsm_slot<Tile>(lane, g, h0));
#if HAS_STMATRIX
        asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};"
                     ::"r"(address), "r"(f[0]), "r"(f[1]), "r"(f[2]), "r"(f[3])
                     : "memory");
#else
        (void)address;
#endif
    }
}

/**
 * @brief The 16-byte kernel: tiles of 16-byte chunks, transposed by
 *        @p Store, taken down the columns of tiles or, with @p Across,
 *        along their rows.
 */
template <class Tile, t16_store Store, bool Across = false>
static __global__ void __launch_bounds__(T16_THREADS,
                                         Store == T16_LDSM ? T16_LDSM_BLOCKS : T16_TILE_BLOCKS(Tile::rows * Tile::cols))
transpose16_vec8(const uint4 *__restrict__ in, uint4 *__restrict__ out, size_t rows, size_t cols)
{
    __shared__ uint4 tile[Tile::rows * Tile::chunks_per_row];
    const size_t tiles_y = ceil_div(rows, Tile::rows), tiles_x = ceil_div(cols, Tile::cols);
    for (size_t t = blockIdx.x; t < tiles_y * tiles_x; t += gridDim.x) {
        size_t row0, col0;
        if (Across)
            t16_tile_across(t, tiles_x, Tile::rows, Tile::cols, &row0, &col0);
        else
            t16_tile(t, tiles_y, Tile::rows, Tile::cols, &row0, &col0);
        const unsigned height = t16_extent(rows, row0, Tile::rows), width = t16_extent(cols, col0, Tile::cols);
        if (Store == T16_STSM)
            t16_stsm_load<Tile>(tile, in, cols, row0, col0, height, width, threadIdx.x);
        else
            t16_load<Tile>(tile, in, cols, row0, col0, height, width, threadIdx.x);
        __syncthreads();
        if (Store == T16_PORT)
            t16_store_port<Tile>(tile, out, rows, row0, col0, height, width, threadIdx.x);
        else if (Store == T16_PRMT)
            t16_store_prmt<Tile>(tile, out, rows, row0, col0, height, width, threadIdx.x);
        else if (Store == T16_STSM)
            t16_store_rows<Tile>(tile, out, rows, row0, col0, height, width, threadIdx.x);
#ifdef __CUDA_ARCH__
        else
            t16_store_ldsm<Tile>(tile, out, rows, row0, col0, height, width, threadIdx.x);
#endif
        __syncthreads();
    }
}

/* ---------------------------------------------------------------- any shape: sector runs of 2-byte elements */

/** 2-byte elements in a 32-byte sector. */
#define T16R_SECTOR 16
/** Columns of a runs tile. */
#define T16R_COLS 64
/** Elements per row of the shared tile: 64 + 2 (a column read then steps one bank per row). */
#define T16R_STRIDE (T16R_COLS + 2)
/** Chunks that cover 64 elements starting anywhere in a chunk. */
#define T16R_CHUNKS_PER_ROW (T16R_COLS / T16_CHUNK + 1)
/** Lanes that store different chunks of one run. */
#define T16R_STORE_LANES 4

/**
 * @brief A runs tile: runs of about Run elements of each of 64 rows of
 *        `out`, which need Run + 15 rows of `in`; @p Lines: how its loads
 *        ask L2 for data (t16_fetch()).
 */
template <unsigned Run, bool Lines = false>
struct runs16 {
    /** Elements of a run before its shift: the tile rows of `in` it starts from. */
    static constexpr unsigned run = Run;
    /** Whether each thread loads one chunk of every 32nd row (t16r_load_rows()), not chunks in turn. */
    static constexpr bool row_loads = false;
    /** Threads per block. */
    static constexpr unsigned threads = T16_THREADS;
    /** Whether its loads ask L2 for whole 128-byte lines. */
    static constexpr bool lines = Lines;
    /** Rows of `in` a tile may need: Run plus up to 15 for the shift of a run. */
    static constexpr unsigned rows = Run + T16R_SECTOR;
    /** Chunks a tile loads. */
    static constexpr unsigned items = rows * T16R_CHUNKS_PER_ROW;
    /** Chunk loads per thread. */
    static constexpr unsigned passes = (items + T16_THREADS - 1) / T16_THREADS;
};

/** @brief runs16 whose threads each load one chunk of every 32nd row: 32 rows of 9 chunks, 288 threads. */
template <unsigned Run, bool Lines = false>
struct runs16_rows : runs16<Run, Lines> {
    /** Loads by t16r_load_rows(). */
    static constexpr bool row_loads = true;
    /** Threads per block: 32 rows of 9 chunks. */
    static constexpr unsigned threads = 32 * (T16R_COLS / T16_CHUNK + 1);
};

/** @brief Elements between the @p bytes-byte boundary at or before @p p and @p p. */
static __host__ __device__ __forceinline__ unsigned t16r_lead(const void *p, unsigned bytes)
{
    return (unsigned)((uintptr_t)p % bytes) / 2;
}

/** @brief The run of row @p j of `out` that the tiles at @p row0 own: [first, last). */
template <class Runs>
static __host__ __device__ __forceinline__ void t16r_run(size_t rows, unsigned sector_lead, size_t row0, size_t j,
                                                         size_t *first, size_t *last)
{
    const size_t shift = (T16R_SECTOR - (j * rows + sector_lead) % T16R_SECTOR) % T16R_SECTOR;
    const size_t start = row0 == 0 ? 0 : row0 + shift, end = row0 + Runs::run + shift;
    *first = start < rows ? start : rows;
    *last = end < rows ? end : rows;
}

/**
 * @brief Load rows row0 .. row0 + Run + 15 of the tile's 64 columns (those
 *        inside the matrix), each as the 9 aligned 16-byte chunks that cover
 *        it; every element goes to its own column. The two chunks of the
 *        whole matrix that stick out of it are read element by element.
 */
template <class Runs>
static __host__ __device__ __forceinline__ void t16r_load(uint16_t *tile, const uint16_t *in, size_t rows, size_t cols,
                                                          size_t row0, size_t col0, unsigned width, unsigned tid)
{
    const unsigned height = t16_extent(rows, row0, Runs::rows);
    const unsigned lead = t16r_lead(in, 16);
    const uint4 *chunks = reinterpret_cast<const uint4 *>(in - lead);
    const size_t count = rows * cols;
    uint4 v[Runs::passes];
    int column[Runs::passes];
UNROLL_ON_DEVICE
    for (unsigned p = 0; p < Runs::passes; ++p) {
        const unsigned item = p * T16_THREADS + tid, r = item / T16R_CHUNKS_PER_ROW, k = item % T16R_CHUNKS_PER_ROW;
        column[p] = T16R_COLS;   // nothing to place
        if (item >= Runs::items || r >= height)
            continue;
        const size_t flat = (row0 + r) * cols + col0 + lead;   // the row's first element, from `chunks`
        const int c = (int)(k * T16_CHUNK) - (int)(flat % T16_CHUNK);
        if (c >= (int)width)
            continue;
        const size_t chunk = flat / T16_CHUNK + k;
        if (chunk * T16_CHUNK >= lead && chunk * T16_CHUNK + T16_CHUNK <= lead + count) {
            v[p] = t16_fetch<Runs::lines>(&chunks[chunk]);
            column[p] = c;
            continue;
        }
        const uint16_t *elements = reinterpret_cast<const uint16_t *>(chunks);
        for (unsigned e = 0; e < T16_CHUNK; ++e) {   // sticks out of the matrix
            const int col = c + (int)e;
            const size_t at = chunk * T16_CHUNK + e;
            if (col >= 0 && col < (int)width && at >= lead && at < lead + count)
                tile[r * T16R_STRIDE + col] = elements[at];
        }
    }
UNROLL_ON_DEVICE
    for (unsigned p = 0; p < Runs::passes; ++p) {
        if (column[p] >= (int)width)
            continue;
        const unsigned r = (p * T16_THREADS + tid) / T16R_CHUNKS_PER_ROW;
        const uint32_t w[4] = {v[p].x, v[p].y, v[p].z, v[p].w};
UNROLL_ON_DEVICE
        for (unsigned e = 0; e < T16_CHUNK; ++e) {
            const int col = column[p] + (int)e;
            if (col >= 0 && col < (int)width)
                tile[r * T16R_STRIDE + col] = (uint16_t)(w[e / 2] >> (16 * (e % 2)));
        }
    }
}

/**
 * @brief Put the elements of chunk @p v that fall in the tile's @p width
 *        columns (its first at tile column @p column) at tile[at], tile[at + 1], ...
 */
static __host__ __device__ __forceinline__ void t16r_place(uint16_t *tile, int at, int column, unsigned width,
                                                           uint4 v)
{
    const uint32_t w[4] = {v.x, v.y, v.z, v.w};
UNROLL_ON_DEVICE
    for (unsigned e = 0; e < T16_CHUNK; ++e)
        if ((unsigned)(column + (int)e) < width)
            tile[at + (int)e] = (uint16_t)(w[e / 2] >> (16 * (e % 2)));
}

/** Rows between the rows one thread loads, with row loads: 32. */
#define T16R_ROW_STEP 32

/**
 * @brief t16r_load() with each thread on one chunk of every 32nd row:
 *        thread t loads chunk t % 9 of rows t / 9, t / 9 + 32, ...
 *
 * 32 rows of `in` are 32 x cols elements, a whole number of chunks, so a
 * row and the row 32 below it start at the same place in their chunks:
 * the tile column of a thread's chunk, and which of its elements fall in
 * the tile, are the same on every row it loads. What t16r_load() works
 * out per chunk is worked out once. Where no chunk of the tile sticks
 * out of the matrix (every tile but the first and last of its rows, on
 * most shapes), the loads need no checks.
 */
template <class Runs>
static __host__ __device__ __forceinline__ void t16r_load_rows(uint16_t *tile, const uint16_t *in, size_t rows,
                                                               size_t cols, size_t row0, size_t col0,
                                                               unsigned width, unsigned tid)
{
    // The last pass is partial where a tile's rows are not whole steps of 32 (runs of 128: 144 rows).
    constexpr unsigned passes = (Runs::rows + T16R_ROW_STEP - 1) / T16R_ROW_STEP;
    const unsigned height = t16_extent(rows, row0, Runs::rows);
    const unsigned lead = t16r_lead(in, 16);
    const unsigned r0 = tid / T16R_CHUNKS_PER_ROW, k = tid % T16R_CHUNKS_PER_ROW;
    const size_t flat = (row0 + r0) * cols + col0 + lead;   // the row's first element, from `chunks`
    const int column = (int)(k * T16_CHUNK) - (int)(flat % T16_CHUNK);
    if (column >= (int)width)
        return;
    const uint4 *chunks = reinterpret_cast<const uint4 *>(in - lead);
    const size_t chunk0 = flat / T16_CHUNK + k, step = T16R_ROW_STEP * cols / T16_CHUNK;
    const size_t count = rows * cols;
    // The tile's first chunk starts in the matrix and its last one ends in it: no chunk sticks out.
    const size_t first = (row0 * cols + col0 + lead) / T16_CHUNK * T16_CHUNK;
    const size_t last = ((row0 + height - 1) * cols + col0 + lead) / T16_CHUNK * T16_CHUNK
                        + T16R_CHUNKS_PER_ROW * T16_CHUNK;
    const bool inside = height == Runs::rows && first >= lead && last <= lead + count;
    const int base = (int)(r0 * T16R_STRIDE) + column;
    uint4 v[passes];
    if (inside) {   // the same for the whole block: no thread takes the other path
UNROLL_ON_DEVICE
        for (unsigned p = 0; p < passes; ++p)
            if (Runs::rows % T16R_ROW_STEP == 0 || p + 1 < passes || r0 + p * T16R_ROW_STEP < Runs::rows)
                v[p] = t16_fetch<Runs::lines>(&chunks[chunk0 + p * step]);
UNROLL_ON_DEVICE
        for (unsigned p = 0; p < passes; ++p)
            if (Runs::rows % T16R_ROW_STEP == 0 || p + 1 < passes || r0 + p * T16R_ROW_STEP < Runs::rows)
                t16r_place(tile, base + (int)(p * T16R_ROW_STEP * T16R_STRIDE), column, width, v[p]);
        return;
    }
    bool held[passes];
UNROLL_ON_DEVICE
    for (unsigned p = 0; p < passes; ++p) {
        const size_t chunk = chunk0 + p * step;
        held[p] = r0 + p * T16R_ROW_STEP < height && chunk * T16_CHUNK >= lead
                  && chunk * T16_CHUNK + T16_CHUNK <= lead + count;
        if (held[p]) {
            v[p] = t16_fetch<Runs::lines>(&chunks[chunk]);
            continue;
        }
        if (r0 + p * T16R_ROW_STEP >= height)
            continue;
        const uint16_t *elements = reinterpret_cast<const uint16_t *>(chunks);
        for (unsigned e = 0; e < T16_CHUNK; ++e) {   // sticks out of the matrix
            const size_t at = chunk * T16_CHUNK + e;
            if ((unsigned)(column + (int)e) < width && at >= lead && at < lead + count)
                tile[base + (int)(p * T16R_ROW_STEP * T16R_STRIDE + e)] = elements[at];
        }
    }
UNROLL_ON_DEVICE
    for (unsigned p = 0; p < passes; ++p)
        if (held[p])
            t16r_place(tile, base + (int)(p * T16R_ROW_STEP * T16R_STRIDE), column, width, v[p]);
}

/**
 * @brief Write the tile's runs: thread t writes run t / 4 with its 4
 *        lanes, whole 16-byte chunks in 64-byte groups, and the 0-7
 *        elements before the first chunk and after the last one by one.
 */
template <class Runs>
static __host__ __device__ __forceinline__ void t16r_store(const uint16_t *tile, uint16_t *out, size_t rows,
                                                           size_t row0, size_t col0, unsigned width, unsigned tid)
{
    const unsigned cc = tid / T16R_STORE_LANES, lane = tid % T16R_STORE_LANES;
    if (cc >= width)
        return;
    size_t first, last;
    t16r_run<Runs>(rows, t16r_lead(out, 32), row0, col0 + cc, &first, &last);
    const unsigned length = (unsigned)(last - first);
    const size_t start = (col0 + cc) * rows + first;
    const unsigned lead16 = t16r_lead(out, 16);
    const size_t flat = start + lead16;
    const unsigned head_wanted = (unsigned)((T16_CHUNK - flat % T16_CHUNK) % T16_CHUNK);
    const unsigned head = head_wanted < length ? head_wanted : length;
    const unsigned whole = (length - head) / T16_CHUNK;
    const unsigned tail = length - head - whole * T16_CHUNK;
    uint4 *chunks = reinterpret_cast<uint4 *>(out - lead16);
    const size_t chunk0 = (flat + head) / T16_CHUNK;
    const unsigned skew = (unsigned)(chunk0 % T16R_STORE_LANES);
    const uint16_t *column = tile + (first - row0) * T16R_STRIDE + cc;
UNROLL_ON_DEVICE
    for (unsigned j = lane; j < Runs::rows / T16_CHUNK + T16R_STORE_LANES; j += T16R_STORE_LANES)
        if (j >= skew && j - skew < whole) {
            const uint16_t *src = column + (head + (j - skew) * T16_CHUNK) * T16R_STRIDE;
            uint32_t w[4];
UNROLL_ON_DEVICE
            for (unsigned k = 0; k < 4; ++k)
                w[k] = src[2 * k * T16R_STRIDE] | (uint32_t)src[(2 * k + 1) * T16R_STRIDE] << 16;
            chunks[chunk0 + j - skew] = make_uint4(w[0], w[1], w[2], w[3]);
        }
UNROLL_ON_DEVICE
    for (unsigned e = lane; e < 2 * (T16_CHUNK - 1); e += T16R_STORE_LANES)
        if (e < head + tail) {
            const unsigned r = e < head ? e : head + whole * T16_CHUNK + (e - head);
            out[start + r] = column[r * T16R_STRIDE];
        }
}

/** @brief Sector runs of 2-byte elements, tiles in column-major order, on any shape (rows, cols >= 2). */
template <class Runs>
static __global__ void __launch_bounds__(Runs::threads, MAX_BLOCKS_PER_SM(Runs::threads) < 4
                                                            ? MAX_BLOCKS_PER_SM(Runs::threads) : 4)   // 4: no spill
transpose16_runs(const uint16_t *__restrict__ in, uint16_t *__restrict__ out, size_t rows, size_t cols)
{
    __shared__ uint16_t tile[Runs::rows * T16R_STRIDE];
    const size_t tiles_y = ceil_div(rows, Runs::run);
    for (size_t t = blockIdx.x; t < tiles_y * ceil_div(cols, T16R_COLS); t += gridDim.x) {
        size_t row0, col0;
        t16_tile(t, tiles_y, Runs::run, T16R_COLS, &row0, &col0);
        const unsigned width = t16_extent(cols, col0, T16R_COLS);
        if constexpr (Runs::row_loads)
            t16r_load_rows<Runs>(tile, in, rows, cols, row0, col0, width, threadIdx.x);
        else
            t16r_load<Runs>(tile, in, rows, cols, row0, col0, width, threadIdx.x);
        __syncthreads();
        t16r_store<Runs>(tile, out, rows, row0, col0, width, threadIdx.x);
        __syncthreads();
    }
}

/** @brief Launch the runs kernel on any shape; vectors are a copy. */
template <class Runs>
static inline size_t transpose16_runs_launch(const uint16_t *in, uint16_t *out, size_t rows, size_t cols,
                                             cudaStream_t stream)
{
    if (rows == 1 || cols == 1)
        return copy_elements_launch(in, out, rows * cols, stream);
    const dim3 block(Runs::threads);
    const dim3 grid = grid_for_tiles(ceil_div(rows, Runs::run) * ceil_div(cols, T16R_COLS), 1);
    transpose16_runs<Runs><<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/**
 * @brief How many blocks of the 16-byte kernel at tile shape @p Tile the
 *        current GPU holds at once; 0 where the runtime cannot say (the
 *        error stays for cudaGetLastError()).
 */
template <class Tile, t16_store Store>
static size_t t16_resident_blocks(void)
{
    int per_multiprocessor;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, transpose16_vec8<Tile, Store>,
                                                      T16_THREADS, 0) != cudaSuccess)
        return 0;
    return (size_t)per_multiprocessor * (size_t)device_attribute(cudaDevAttrMultiProcessorCount);
}

/**
 * @brief True where a matrix of @p tiles tiles does not fill the GPU's
 *        @p resident blocks even once: then some thread slots stay empty,
 *        and smaller tiles (twice as many) fill more of them.
 */
static __host__ __device__ __forceinline__ bool t16_fewer_than_one_wave(size_t tiles, size_t resident)
{
    return tiles < resident;
}

/**
 * @brief lines_reused() for tiles @p tile_cols wide on @p rows rows: one
 *        column of tiles holds rows x tile_cols elements of `in` and of `out`.
 */
static __host__ __device__ __forceinline__ bool t16_lines_reused(size_t rows, unsigned tile_cols, size_t l2_bytes)
{
    return lines_reused(2 * rows * tile_cols * sizeof(uint16_t), l2_bytes);
}

/**
 * @brief Launch @p Store's 16-byte kernel where rows are whole chunks (its
 *        tiles along rows with @p Across), the runs kernel elsewhere.
 */
template <class Tile, t16_store Store, class Runs, bool Across = false>
static inline size_t transpose16_launch(const uint16_t *in, uint16_t *out, size_t rows, size_t cols,
                                        cudaStream_t stream)
{
    if (rows == 1 || cols == 1 || !vec8_fits(in, out, rows, cols))
        return transpose16_runs_launch<Runs>(in, out, rows, cols, stream);
    const dim3 block(T16_THREADS);
    const dim3 grid = grid_for_tiles(ceil_div(rows, Tile::rows) * ceil_div(cols, Tile::cols), 1);
    transpose16_vec8<Tile, Store, Across><<<grid, block, 0, stream>>>(reinterpret_cast<const uint4 *>(in),
                                                                        reinterpret_cast<uint4 *>(out), rows, cols);
    return threads_launched(grid, block);
}

#endif /* TRANSPOSE_BF16_CUH */
