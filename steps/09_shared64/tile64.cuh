/**
 * @file tile64.cuh
 * @brief The 64x64 shared-memory tile of steps 09 and 10: its geometry, its
 *        two layouts, the float4 store, the test for the 16-byte kernel and
 *        the 4-byte kernel's work on one tile.
 *
 * A block of 32 x 8 = 256 threads moves one 64 x 64 tile of floats (16 KB)
 * at a time through shared memory, 16 elements per thread. A 16-byte kernel
 * moves it in float4 *chunks* when every row of `in` and `out` starts on a
 * 16-byte boundary (vec4_fits()); a 4-byte kernel moves any other matrix.
 * Step 09 introduces both, so the tile lives in step 09's folder; step 10
 * changes how a tile is loaded and in which order the tiles are taken, and
 * steps 11 and 12 build on the same geometry. They include this file from
 * here (`#include "steps/09_shared64/tile64.cuh"`), so that each later step
 * file shows only its own idea. The layouts and the float4 store run on the
 * host too: tests/index_maps.cu plays them for the write-ups' figures.
 */
#ifndef TRANSPOSE_TILE64_CUH
#define TRANSPOSE_TILE64_CUH

#include <stddef.h>
#include <cuda_runtime.h>

#include "kernel_utils.cuh"

/** Side of the square tile, in floats. */
#define TILE 64
/** Threads per block along x: one warp. */
#define BLOCK_COLS 32
/** Threads per block along y. */
#define BLOCK_ROWS 8
/** Threads per block. */
#define THREADS (BLOCK_COLS * BLOCK_ROWS)
/** Floats per 16-byte chunk (one float4). */
#define VEC 4
/** Chunks per tile row. */
#define CHUNKS_PER_ROW (TILE / VEC)
/** Tile rows that the block loads per pass of 16-byte loads. */
#define ROWS_PER_PASS (THREADS / CHUNKS_PER_ROW)
/** Shared-memory banks (4 bytes each). */
#define SMEM_BANKS 32
/** Chunks per 128-byte wavefront: the number of bank groups. */
#define BANK_GROUPS (SMEM_BANKS / VEC)
/**
 * Blocks per multiprocessor that a kernel holding its 16 loaded floats in
 * registers asks `__launch_bounds__` for. 5 x 256 threads leave 48
 * registers per thread, which both of step 09's kernels fit without
 * spilling; at 6 (40 registers) the 16-byte kernel spills (`-Xptxas -v`).
 * Fewer where the multiprocessor holds fewer (Turing: 4).
 */
#define REGISTER_LOAD_BLOCKS_PER_SM \
    (MAX_BLOCKS_PER_SM(THREADS) < 5 ? MAX_BLOCKS_PER_SM(THREADS) : 5)

static_assert(TILE % ROWS_PER_PASS == 0, "the 16-byte load passes must cover the tile");
static_assert(THREADS == CHUNKS_PER_ROW * CHUNKS_PER_ROW,
              "one thread per 4x4 block of the tile on the way out");
static_assert(CHUNKS_PER_ROW % BANK_GROUPS == 0, "the chunk swizzle must stay inside a row");
static_assert(TILE % BLOCK_COLS == 0 && TILE % BLOCK_ROWS == 0,
              "the 4-byte kernel moves whole warps of columns and whole block rows");
static_assert(SMEM_BANKS == BLOCK_COLS, "the word swizzle assumes one warp spans the banks once");

/**
 * @brief The 16-byte kernel's layout: where chunk @p chunk of tile row
 *        @p row lives, in float4 units.
 *
 * Rows are 16 chunks, unpadded. XOR with the row's 4-row group number
 * (mod 8) permutes a row's chunks among themselves, and spreads the first
 * rows of 8 vertically adjacent 4x4 blocks over the 8 bank groups, so a
 * quarter-warp reading them is conflict-free (docs/steps/09_shared64.md).
 */
static __host__ __device__ __forceinline__ unsigned chunk_slot(unsigned row, unsigned chunk)
{
    return row * CHUNKS_PER_ROW + (chunk ^ ((row / VEC) % BANK_GROUPS));
}

/**
 * @brief The 4-byte kernel's layout: where element (@p row, @p col) of the
 *        tile lives.
 *
 * Step 08's swizzle, stretched to 64 columns: XOR with `row % 32` permutes
 * columns 0-31 among themselves (and 32-63), so a row is still
 * conflict-free, and a column's 32 consecutive rows land in 32 banks.
 */
static __host__ __device__ __forceinline__ unsigned word_slot(unsigned row, unsigned col)
{
    return row * TILE + (col ^ (row % SMEM_BANKS));
}

/**
 * @brief `out4[index] = v`: one 16-byte store (`STG.E.128`).
 *
 * Step 05's rule: index an array of float4, so that the compiler sees a
 * 16-byte-aligned address. Written as `*(float4 *)(out + k) = v` on a
 * float pointer, nvcc 13 split some of these stores into 4-byte ones.
 */
static __host__ __device__ __forceinline__ void store_float4(float4 *out4, size_t index, float4 v)
{
    out4[index] = v;
}

/**
 * @brief The store half of the 16-byte kernels of steps 09 and 10: thread
 *        @p tid (0..255) of the block reads its 4x4 block from the
 *        chunk-swizzled tile as 4 rows and writes it as 4 columns, each one
 *        chunk of a row of `out` (step 05's register transpose).
 *
 * The tile starts at (@p row0, @p col0) of a matrix of @p rows rows and is
 * @p height x @p width; both are multiples of 4 where these kernels run.
 */
static __host__ __device__ __forceinline__ void store_block_vec4(const float4 *tile, float4 *out4, size_t rows,
                                                                 size_t row0, size_t col0, unsigned height,
                                                                 unsigned width, unsigned tid)
{
    // The thread's 4x4 block. `group` runs fastest, so 16 neighbouring
    // lanes write 16 consecutive chunks of one row of `out`.
    const unsigned group = tid % CHUNKS_PER_ROW;       // 4-row group of the tile = chunk of an `out` row
    const unsigned block_col = tid / CHUNKS_PER_ROW;   // 4-column group of the tile = 4 rows of `out`
    if (group * VEC >= height || block_col * VEC >= width)
        return;
    const size_t row_float4s = rows / VEC;   // rows % 4 == 0 makes each row of `out` whole float4s
    float4 b[VEC];                           // b[k] = tile row group*4 + k, columns block_col*4 .. +3
UNROLL_ON_DEVICE
    for (unsigned k = 0; k < VEC; ++k)
        b[k] = tile[chunk_slot(group * VEC + k, block_col)];
    // Column j of the block is 4 floats of `out` row col0 + block_col*4 + j, from
    // column row0 + group*4 on: float4 number `first` + j * row_float4s.
    const size_t first = ((col0 + block_col * VEC) * rows + row0 + group * VEC) / VEC;
    store_float4(out4, first, make_float4(b[0].x, b[1].x, b[2].x, b[3].x));
    store_float4(out4, first + row_float4s, make_float4(b[0].y, b[1].y, b[2].y, b[3].y));
    store_float4(out4, first + 2 * row_float4s, make_float4(b[0].z, b[1].z, b[2].z, b[3].z));
    store_float4(out4, first + 3 * row_float4s, make_float4(b[0].w, b[1].w, b[2].w, b[3].w));
}

/**
 * @brief `v[p] = in4[first + p * pass]` for the 4 tile rows @p row + 16 p
 *        that lie inside the tile's @p height: one chunk of each, all 4
 *        loads issued before any is used (step 12's bounds, and the
 *        capstone's tiles_down).
 */
static __device__ __forceinline__ void load_chunk_column(float4 (&v)[TILE / ROWS_PER_PASS], const float4 *in4,
                                                         size_t first, size_t pass, unsigned row, unsigned height)
{
#pragma unroll
    for (unsigned p = 0; p < TILE / ROWS_PER_PASS; ++p)
        if (row + p * ROWS_PER_PASS < height)
            v[p] = in4[first + p * pass];
}

/** @brief Rows (or columns) of the tile that starts at @p first of @p n: TILE except at the edge. */
static __host__ __device__ __forceinline__ unsigned tile_extent(size_t n, size_t first)
{
    return (unsigned)(n - first < TILE ? n - first : TILE);
}

/**
 * @brief First row and column of tile @p t in column-major tile order
 *        (step 10's default, used again by steps 11 and 12): consecutive
 *        tiles go down a column of tiles of `in`, that is along a row of
 *        tiles of `out`.
 */
static __host__ __device__ __forceinline__ void column_major_tile(size_t t, size_t tiles_y, size_t *row0,
                                                                  size_t *col0)
{
    *row0 = (t % tiles_y) * TILE;
    *col0 = (t / tiles_y) * TILE;
}

/**
 * @brief True when every row of `in` and every row of `out` start at the
 *        same place in a 16-byte chunk (rows and columns multiples of 4),
 *        though not necessarily at its start (step 11 shifts its grid there).
 */
static inline bool rows_are_whole_chunks(size_t rows, size_t cols)
{
    return rows % VEC == 0 && cols % VEC == 0;
}

/**
 * @brief True when the 16-byte kernel may run: every row of `in` and of
 *        `out` starts on a 16-byte boundary.
 *
 * Then each tile is a whole number of chunks in both directions, and edge
 * tiles need only a per-chunk bounds check.
 */
static inline bool vec4_fits(const float *in, const float *out, size_t rows, size_t cols)
{
    return rows_are_whole_chunks(rows, cols) && is_aligned_16(in) && is_aligned_16(out);
}

/**
 * @brief A way of loading the tile: a load into a register, then a store
 *        into shared memory.
 *
 * A kernel first calls start() for every element or chunk it loads, then
 * finish() for each, then wait(): so all of a thread's loads are in flight
 * before the first store into the tile waits for its data. Step 10 adds a
 * second way with the same three functions, which copies with `cp.async`.
 */
struct load_through_registers {
    /** @brief Issue the load of the float or float4 (or, in step 15, 2-byte element) at @p src into @p held. */
    template <class T, class E>
    static __device__ __forceinline__ void start(T * /* slot */, const E *src, T &held)
    {
        held = *reinterpret_cast<const T *>(src);
    }
    /** @brief Store @p held into its @p slot of the tile. */
    template <class T>
    static __device__ __forceinline__ void finish(T *slot, const T &held)
    {
        *slot = held;
    }
    /** @brief Nothing to wait for: the stores into the tile are issued. */
    static __device__ __forceinline__ void wait(void) {}
};

/** 1 where the GPU has `cp.async` (compute capability 8.0 and newer), else 0. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define HAS_CP_ASYNC 1
#else
#define HAS_CP_ASYNC 0
#endif

/**
 * @brief Loading the tile with `cp.async`: global memory is copied straight
 *        into shared memory, and no register holds the data.
 *
 * The same three functions as load_through_registers, so that a kernel
 * takes either (step 10, and the sector-run experiment). Used only where HAS_CP_ASYNC.
 */
struct load_by_cp_async {
    /** @brief Start copying one 16-byte chunk; `.cg` caches it in L2 only: it is read once. */
    static __device__ __forceinline__ void start(float4 *slot, const float *src, float4 & /* held */)
    {
        const unsigned shared = (unsigned)__cvta_generic_to_shared(slot);
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(shared), "l"(src) : "memory");
    }
    /** @brief Start copying one float; only `.ca` (cache in L1 too) takes 4-byte copies. */
    static __device__ __forceinline__ void start(float *slot, const float *src, float & /* held */)
    {
        const unsigned shared = (unsigned)__cvta_generic_to_shared(slot);
        asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(shared), "l"(src) : "memory");
    }
    /** @brief Nothing to do: the copy lands in the tile by itself. */
    template <class T>
    static __device__ __forceinline__ void finish(T * /* slot */, const T & /* held */) {}
    /** @brief Close this thread's copies into a group and wait until it has landed. */
    static __device__ __forceinline__ void wait(void)
    {
        asm volatile("cp.async.commit_group;\n\tcp.async.wait_group 0;" ::: "memory");
    }
};

/**
 * @brief The 4-byte kernel's work on one tile, for any shape and any
 *        element-aligned pointers: load it into @p tile, then write it out
 *        transposed.
 *
 * Thread (@p tx, @p ty) of the 32 x 8 block moves elements (ty + 8i, tx)
 * and (ty + 8i, tx + 32) of the tile, i = 0..7: a warp reads 32 consecutive
 * elements of one row of `in`, and writes 32 consecutive elements of one row
 * of `out`. Every element is bounds-checked, so edge tiles of any size work.
 *
 * The rows of `in` are @p in_pitch elements apart and those of `out`
 * @p out_pitch: cols and rows for one matrix (transpose_tile_words()), more
 * where the matrix is one of a batch inside a tensor (step 15).
 *
 * @tparam Load how a word reaches the tile: load_through_registers, or
 *              step 10's `cp.async` copies
 * @tparam T    the element: float, or step 15's 2-byte elements
 * @param tile   the block's TILE x TILE shared buffer, laid out by word_slot()
 * @param in     the rows x cols input, rows @p in_pitch apart
 * @param out    the cols x rows output, rows @p out_pitch apart
 * @param rows   rows of `in`
 * @param cols   columns of `in`
 * @param in_pitch  elements from one row of `in` to the next
 * @param out_pitch elements from one row of `out` to the next
 * @param row0   first row of `in` in this tile
 * @param col0   first column of `in` in this tile
 * @param tx     this thread's lane in its warp, 0..31
 * @param ty     its warp in the block, 0..7 (passed in, and computed once
 *               per kernel: a 2D or a 1D block gives them differently)
 */
template <class Load, class T>
static __device__ __forceinline__ void transpose_tile_pitched(T *tile, const T *__restrict__ in,
                                                              T *__restrict__ out, size_t rows, size_t cols,
                                                              size_t in_pitch, size_t out_pitch, size_t row0,
                                                              size_t col0, unsigned tx, unsigned ty)
{
    const unsigned height = tile_extent(rows, row0);
    const unsigned width = tile_extent(cols, col0);

    // Load: all 16 loads are started before the first is finished.
    const T *src = in + (row0 + ty) * in_pitch + col0 + tx;
    T v[TILE / BLOCK_ROWS][TILE / BLOCK_COLS];   // what Load keeps in registers, if anything
#pragma unroll
    for (unsigned i = 0; i < TILE / BLOCK_ROWS; ++i)
#pragma unroll
        for (unsigned h = 0; h < TILE / BLOCK_COLS; ++h) {
            const unsigned r = ty + i * BLOCK_ROWS, c = tx + h * BLOCK_COLS;   // (row, col) inside the tile
            if (r < height && c < width)
                Load::start(&tile[word_slot(r, c)], src + i * BLOCK_ROWS * in_pitch + h * BLOCK_COLS, v[i][h]);
        }
#pragma unroll
    for (unsigned i = 0; i < TILE / BLOCK_ROWS; ++i)
#pragma unroll
        for (unsigned h = 0; h < TILE / BLOCK_COLS; ++h) {
            const unsigned r = ty + i * BLOCK_ROWS, c = tx + h * BLOCK_COLS;
            if (r < height && c < width)
                Load::finish(&tile[word_slot(r, c)], v[i][h]);
        }
    Load::wait();      // this thread's elements are in the tile
    __syncthreads();   // so are everyone's

    // Store: row c of this tile of `out` is column c of `tile`.
    T *dst = out + (col0 + ty) * out_pitch + row0 + tx;
#pragma unroll
    for (unsigned i = 0; i < TILE / BLOCK_ROWS; ++i)
#pragma unroll
        for (unsigned h = 0; h < TILE / BLOCK_COLS; ++h) {
            const unsigned c = ty + i * BLOCK_ROWS;   // column of the tile = row of `out`
            const unsigned r = tx + h * BLOCK_COLS;   // row of the tile = column of `out`
            if (r < height && c < width)
                dst[i * BLOCK_ROWS * out_pitch + h * BLOCK_COLS] = tile[word_slot(r, c)];
        }
    __syncthreads();   // everyone is done reading before the next tile overwrites it
}

/**
 * @brief transpose_tile_pitched() on one rows x cols float matrix: its rows
 *        are cols floats apart in `in` and rows floats apart in `out`.
 */
template <class Load>
static __device__ __forceinline__ void transpose_tile_words(float *tile, const float *__restrict__ in,
                                                            float *__restrict__ out, size_t rows, size_t cols,
                                                            size_t row0, size_t col0, unsigned tx, unsigned ty)
{
    transpose_tile_pitched<Load>(tile, in, out, rows, cols, cols, rows, row0, col0, tx, ty);
}


#endif /* TRANSPOSE_TILE64_CUH */
