/**
 * @file slabs.cuh
 * @brief Thin matrices, 2 to 63 rows or columns: a block moves a slab of
 *        about 16 KB along the long side, not a 64x64 tile that is mostly
 *        empty.
 *
 * Call the short side `s` (at most 63 elements) and the long side `len`.
 * A 64x64 tile of a 2 x 33554433 matrix holds 2 rows: each block moves 512
 * bytes, and the time goes into starting blocks, not into moving bytes.
 * A slab instead takes `width` = SLAB_ELEMENTS / s positions of the long
 * side, all `s` of the short side (SLAB_ELEMENTS: 4096 floats, 8192
 * bf16). One side of the transpose then is a single contiguous stretch of
 * memory:
 *
 * - **Few rows** (`FewRows`): columns l0..l0+width of `in` are rows
 *   l0..l0+width of `out`, and those rows follow one another. The block
 *   reads `s` runs of `width` elements and writes one stretch of
 *   width * s elements.
 * - **Few columns**: rows l0..l0+width of `in` are one stretch of
 *   width * s elements. The block reads it and writes a run of `width`
 *   elements into each of the `s` rows of `out`.
 *
 * Every access is one element wide, so any alignment works, and a warp's
 * accesses are consecutive elements wherever it walks along a stretch or a
 * run. In shared memory the slab is [width][s | 1]: the short side's pitch
 * is odd, so lanes that step along the long side fall in different banks,
 * and lanes that step along the short side read neighbouring words.
 *
 * The walk over a slab never divides: each thread starts at (its index /
 * n, its index % n) and steps by (THREADS / n, THREADS % n), carrying over
 * like a written sum.
 *
 * The per-thread functions take the thread's index as an argument and run
 * on the host too: tests/test_tiles.cu plays every slab, thread by thread.
 */
#ifndef TRANSPOSE_SLABS_CUH
#define TRANSPOSE_SLABS_CUH

#include <stddef.h>
#include <string.h>
#include <stdint.h>
#include <cuda_runtime.h>

#include "kernel_utils.cuh"   // ceil_div(), grid_for_tiles(), threads_launched(), UNROLL_ON_DEVICE
#include "steps/09_shared64/tile64.cuh"         // THREADS

/** Bytes a block moves, at most: 4096 floats or 8192 bf16. */
#define SLAB_BYTES 16384u
/** Elements a block moves, at most, of @p T. */
#define SLAB_ELEMENTS(T) (SLAB_BYTES / (unsigned)sizeof(T))
/** The widest short side a slab takes: narrower than a 64-element tile. */
#define SLAB_MAX_SHORT 63u
/** The long side's width is a multiple of this: whole warps walk along it. */
#define SLAB_WIDTH_STEP 32u
/** Loads each thread has in flight before it writes them to shared memory. */
#define SLAB_LOADS 8u
/** Elements of shared memory: width * (s | 1) is at most 1.5 x SLAB_ELEMENTS (s = 2). */
#define SLAB_SMEM(T) (SLAB_ELEMENTS(T) * 3 / 2)

/** @brief Whether a slab takes a @p rows x @p cols matrix: one side of 2 to 63 elements. */
static inline __host__ __device__ bool slabs_fit(size_t rows, size_t cols)
{
    const size_t s = rows < cols ? rows : cols;
    return s >= 2 && s <= SLAB_MAX_SHORT;
}

/** @brief Positions of the long side in one slab of @p T, for a short side of @p s (2..63). */
template <typename T>
static inline __host__ __device__ unsigned slab_width(unsigned s)
{
    return SLAB_ELEMENTS(T) / s / SLAB_WIDTH_STEP * SLAB_WIDTH_STEP;
}

/**
 * @brief Where a thread is in a walk over an array of `n`-long lines,
 *        and how far it moves each time all THREADS threads take a step.
 */
struct slab_walk {
    unsigned outer;       /**< the thread's line */
    unsigned inner;       /**< the thread's position along its line */
    unsigned step_outer;  /**< lines moved per step: THREADS / n */
    unsigned step_inner;  /**< positions moved per step: THREADS % n */
    unsigned n;           /**< the length of a line */
};

/** @brief The walk of thread @p tid over lines of @p n elements. */
static __host__ __device__ __forceinline__ slab_walk walk_start(unsigned tid, unsigned n)
{
    return {tid / n, tid % n, THREADS / n, THREADS % n, n};
}

/** @brief Move @p w on by THREADS elements. */
static __host__ __device__ __forceinline__ void walk_next(slab_walk &w)
{
    w.outer += w.step_outer;
    w.inner += w.step_inner;
    if (w.inner >= w.n) {
        w.inner -= w.n;
        ++w.outer;
    }
}

/**
 * @brief Thread @p tid's share of reading a slab into slab[j][i]: with
 *        @p Runs, its @p s runs of @p width elements, run i at src + i * len
 *        (lanes walk along a run); else one stretch of @p width x @p s
 *        elements. Each thread has SLAB_LOADS loads in flight before it
 *        writes them to shared memory.
 */
template <typename T, bool Runs>
static __host__ __device__ __forceinline__ void load_slab(T *slab, const T *__restrict__ src, size_t len, unsigned s,
                                                          unsigned n, unsigned width, unsigned pitch, unsigned tid)
{
    const unsigned count = Runs ? s * n : width * s;
    slab_walk w = walk_start(tid, Runs ? n : s);   // runs: outer i, inner j; a stretch: outer j, inner i
    for (unsigned base = 0; base < count; base += SLAB_LOADS * THREADS) {
        T v[SLAB_LOADS];
        unsigned at[SLAB_LOADS];
        UNROLL_ON_DEVICE
        for (unsigned k = 0; k < SLAB_LOADS; ++k) {
            const unsigned e = base + k * THREADS + tid;
            const bool live = Runs ? w.outer < s && w.inner < width : e < count;
            at[k] = !live ? ~0u : Runs ? w.inner * pitch + w.outer : w.outer * pitch + w.inner;
            if (live)
                v[k] = src[Runs ? w.outer * len + w.inner : e];
            walk_next(w);
        }
        UNROLL_ON_DEVICE
        for (unsigned k = 0; k < SLAB_LOADS; ++k)
            if (at[k] != ~0u)
                slab[at[k]] = v[k];
    }
}

/**
 * @brief Thread @p tid's share of reading one stretch of @p count
 *        elements at 16-byte aligned @p src into slab[j][i], 16 bytes a
 *        load: what load_slab() does one element a load. Taken on 2-byte
 *        elements (step 13's `slabs_elements`); on floats 16-byte loads
 *        trailed 4-byte ones, so float slabs keep those.
 */
template <typename T>
static __host__ __device__ __forceinline__ void load_stretch_chunks(T *slab, const T *__restrict__ src, unsigned count,
                                                                   unsigned s, unsigned pitch, unsigned tid)
{
    constexpr unsigned per = 16 / sizeof(T);
    const unsigned chunks = count / per;
    // Chunk c holds elements c * per onwards; thread tid starts at chunk tid and moves THREADS chunks a step.
    slab_walk w = {tid * per / s, tid * per % s, THREADS * per / s, THREADS * per % s, s};
    for (unsigned base = 0; base < chunks; base += SLAB_LOADS * THREADS) {
        uint4 v[SLAB_LOADS];
        UNROLL_ON_DEVICE
        for (unsigned k = 0; k < SLAB_LOADS; ++k)
            if (base + k * THREADS + tid < chunks)
                v[k] = reinterpret_cast<const uint4 *>(src)[base + k * THREADS + tid];   // LDG.E.128
        UNROLL_ON_DEVICE
        for (unsigned k = 0; k < SLAB_LOADS; ++k) {
            if (base + k * THREADS + tid < chunks) {
                T e[per];
                memcpy(e, &v[k], sizeof e);   // not a cast: the host build's aliasing rules forbid reading v so
                unsigned j = w.outer, i = w.inner;
                UNROLL_ON_DEVICE
                for (unsigned q = 0; q < per; ++q) {
                    slab[j * pitch + i] = e[q];
                    if (++i == s) {
                        i = 0;
                        ++j;
                    }
                }
            }
            walk_next(w);
        }
    }
    const unsigned e = chunks * per + tid;   // the last count % per elements, one a thread
    if (e < count)
        slab[e / s * pitch + e % s] = src[e];
}

/** @brief Thread @p tid's share of writing slab[j][i] as @p s runs of @p width elements, run i at dst + i * len. */
template <typename T>
static __host__ __device__ __forceinline__ void store_runs(const T *slab, T *__restrict__ dst, size_t len, unsigned s,
                                                           unsigned n, unsigned width, unsigned pitch, unsigned tid)
{
    slab_walk w = walk_start(tid, n);
    for (unsigned e = tid; e < s * n; e += THREADS) {
        if (w.inner < width)
            dst[w.outer * len + w.inner] = slab[w.inner * pitch + w.outer];
        walk_next(w);
    }
}

/** @brief Thread @p tid's share of writing slab[j][i] as one stretch of @p width x @p s elements. */
template <typename T>
static __host__ __device__ __forceinline__ void store_stretch(const T *slab, T *__restrict__ dst, unsigned s,
                                                              unsigned width, unsigned pitch, unsigned tid)
{
    slab_walk w = walk_start(tid, s);
    for (unsigned e = tid; e < width * s; e += THREADS) {
        dst[e] = slab[w.outer * pitch + w.inner];
        walk_next(w);
    }
}

/** @brief Where slab @p b lies: its first position along the long side, and how many it holds. */
struct slab_place {
    size_t first;     /**< l0: the first row (few columns) or column (few rows) of `in` */
    unsigned width;   /**< positions in this slab: @p n, fewer in the last */
};

/** @brief slab_place of slab @p b of @p n positions, on a long side of @p len. */
static __host__ __device__ __forceinline__ slab_place slab_at(size_t b, unsigned n, size_t len)
{
    const size_t first = b * n;
    return {first, (unsigned)(len - first < n ? len - first : n)};
}

/** @brief Thread @p tid's share of loading slab @p b of @p n positions into @p slab. */
template <typename T, bool FewRows>
static __host__ __device__ __forceinline__ void slab_load(T *slab, const T *__restrict__ in, size_t rows,
                                                          size_t cols, unsigned n, size_t b, unsigned tid)
{
    const size_t len = FewRows ? cols : rows;
    const unsigned s = (unsigned)(FewRows ? rows : cols);
    const slab_place p = slab_at(b, n, len);
    const T *stretch = in + p.first * s;
    if (!FewRows && sizeof(T) == 2 && (uintptr_t)stretch % 16 == 0)
        load_stretch_chunks(slab, stretch, p.width * s, s, s | 1u, tid);
    else
        load_slab<T, FewRows>(slab, FewRows ? in + p.first : stretch, len, s, n, p.width, s | 1u, tid);
}

/** @brief Thread @p tid's share of storing slab @p b of @p n positions from @p slab. */
template <typename T, bool FewRows>
static __host__ __device__ __forceinline__ void slab_store(const T *slab, T *__restrict__ out, size_t rows,
                                                           size_t cols, unsigned n, size_t b, unsigned tid)
{
    const size_t len = FewRows ? cols : rows;
    const unsigned s = (unsigned)(FewRows ? rows : cols);
    const slab_place p = slab_at(b, n, len);
    if (FewRows)
        store_stretch(slab, out + p.first * s, s, p.width, s | 1u, tid);
    else
        store_runs(slab, out + p.first, len, s, n, p.width, s | 1u, tid);
}

/**
 * @brief Transpose a matrix with @p rows (if FewRows) or @p cols of 2 to
 *        63 elements, slab by slab of @p n positions of the long side.
 */
template <typename T, bool FewRows>
static __global__ void __launch_bounds__(THREADS)
transpose_slabs(const T *__restrict__ in, T *__restrict__ out, size_t rows, size_t cols, unsigned n)
{
    __shared__ T slab[SLAB_SMEM(T)];
    const size_t slabs = ceil_div(FewRows ? cols : rows, n);
    for (size_t b = blockIdx.x; b < slabs; b += gridDim.x) {
        slab_load<T, FewRows>(slab, in, rows, cols, n, b, threadIdx.x);
        __syncthreads();
        slab_store<T, FewRows>(slab, out, rows, cols, n, b, threadIdx.x);
        __syncthreads();   // the slab is read before the next one overwrites it
    }
}

/** @brief Launch transpose_slabs() on a matrix that slabs_fit(); returns the threads launched. */
template <typename T>
static inline size_t slabs_launch(const T *in, T *out, size_t rows, size_t cols, cudaStream_t stream)
{
    const bool few_rows = rows <= cols;
    const unsigned s = (unsigned)(few_rows ? rows : cols), n = slab_width<T>(s);
    const dim3 grid = grid_for_tiles(ceil_div(few_rows ? cols : rows, n), 1);
    if (few_rows)
        transpose_slabs<T, true><<<grid, THREADS, 0, stream>>>(in, out, rows, cols, n);
    else
        transpose_slabs<T, false><<<grid, THREADS, 0, stream>>>(in, out, rows, cols, n);
    return threads_launched(grid, dim3(THREADS));
}

#endif /* TRANSPOSE_SLABS_CUH */
