/**
 * @file slab_chunks.cuh
 * @brief Thin matrices (2 to 63 rows or columns): step 11's slabs, moving
 *        aligned 16-byte chunks instead of single elements.
 *
 * Step 11's slabs load and store one element at a time, and so issue an
 * instruction for every 4 bytes of a float, every 2 of a bf16. On the
 * H100 they kept the schedulers busy almost every cycle: floats stopped
 * short of a copy on the thinnest matrices, bf16 at about two thirds of
 * one (`make study STUDIES=narrow`).
 *
 * A slab has two sides. One is a single stretch of memory (the rows of
 * `out`, or of `in`, that the slab covers, end to end); the other is `s`
 * runs, one per row of the short side, `len` elements apart. Here both
 * sides move whole aligned 16-byte chunks wherever a chunk lies inside
 * what the block owns, and single elements only before a stretch's or a
 * run's first whole chunk and after its last:
 *
 * - **The runs side** copies chunks between global and shared memory
 *   unchanged. Run i is kept in shared memory as it lies in its chunks:
 *   element j of run i at slab[i * pitch + lead(i) + j], where lead(i) is
 *   where the run starts in its first chunk.
 * - **The stretch side** packs or unpacks a chunk, one shared access an
 *   element: element e of the stretch is (j, i) = (e / s, e % s).
 *
 * The pitch is the slab width plus one chunk, an odd number of chunks, so
 * that threads on different runs fall in different banks.
 *
 * The per-thread functions take the thread's index as an argument and run
 * on the host too: tests/test_tiles.cu plays every slab, thread by thread.
 */
#ifndef TRANSPOSE_SLAB_CHUNKS_CUH
#define TRANSPOSE_SLAB_CHUNKS_CUH

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cuda_runtime.h>

#include "kernel_utils.cuh"                 // ceil_div(), grid_for_tiles(), threads_launched()
#include "steps/11_any_shape/slabs.cuh"     // slab_width(), slab_walk, slabs_fit()

/** Elements of @p T in a 16-byte chunk: 8 bf16, 4 floats. */
#define SC_CHUNK(T) (16u / (unsigned)sizeof(T))
/** Chunks each thread has in flight before it moves them on. */
#define SC_LOADS 4u
/** Elements of shared memory: 16 KB of slab plus a chunk of slack for each of up to 63 runs. */
#define SC_SMEM(T) (SLAB_ELEMENTS(T) + SC_CHUNK(T) * SLAB_MAX_SHORT)

/** @brief Where a slab's runs lie in their chunks: run i starts lead(i) = (a + i * b) % chunk elements into one. */
struct sc_leads {
    unsigned a;   /**< lead(0) */
    unsigned b;   /**< the distance between runs, modulo a chunk's elements */
};

/** @brief Where element @p j of run @p i is in the slab. */
template <typename T>
static __host__ __device__ __forceinline__ unsigned sc_at(sc_leads leads, unsigned pitch, unsigned i, unsigned j)
{
    return i * pitch + ((leads.a + i * leads.b) % SC_CHUNK(T)) + j;
}

/** @brief The runs' leads: run i of a slab starts at element @p first + i * @p len of @p base. */
template <typename T>
static __host__ __device__ __forceinline__ sc_leads sc_leads_of(const T *base, size_t first, size_t len)
{
    const unsigned lead = (unsigned)((uintptr_t)base % 16) / sizeof(T);
    return {(unsigned)((lead + first) % SC_CHUNK(T)), (unsigned)(len % SC_CHUNK(T))};
}

/**
 * @brief The parts of a stretch of @p count elements at @p p: @p head
 *        elements before its first whole aligned chunk, @p whole chunks,
 *        then the rest.
 */
struct sc_stretch {
    unsigned head;    /**< elements before the first whole chunk (fewer than a chunk's) */
    unsigned whole;   /**< whole chunks */
    unsigned rest;    /**< elements after the last whole chunk */
};

/** @brief sc_stretch of @p count elements from @p p. */
template <typename T>
static __host__ __device__ __forceinline__ sc_stretch sc_split(const T *p, unsigned count)
{
    const unsigned lead = (unsigned)((uintptr_t)p % 16) / sizeof(T), to_chunk = (SC_CHUNK(T) - lead) % SC_CHUNK(T);
    const unsigned head = to_chunk < count ? to_chunk : count;
    const unsigned whole = (count - head) / SC_CHUNK(T);
    return {head, whole, count - head - whole * SC_CHUNK(T)};
}

/** @brief The stretch's element that thread @p t of the head and rest takes: its first @p head, then its last. */
template <typename T>
static __host__ __device__ __forceinline__ unsigned sc_edge(sc_stretch st, unsigned t)
{
    return t < st.head ? t : st.head + st.whole * SC_CHUNK(T) + (t - st.head);
}

/** @brief Step the walk @p w (outer: j, inner: i) one element on. */
static __host__ __device__ __forceinline__ void sc_next(slab_walk &w)
{
    if (++w.inner == w.n) {
        w.inner = 0;
        ++w.outer;
    }
}

/**
 * @brief Thread @p tid's share of loading @p s runs of @p width elements,
 *        run i at @p in + @p first + i * @p len, into the slab as they lie in
 *        their chunks. Chunks that stick out of the @p count elements of
 *        `in` are read element by element.
 */
template <typename T>
static __host__ __device__ __forceinline__ void sc_load_runs(T *slab, const T *__restrict__ in,
                                                             size_t count, size_t len, size_t first, unsigned s,
                                                             unsigned width, unsigned pitch, unsigned tid)
{
    const unsigned lead = (unsigned)((uintptr_t)in % 16) / sizeof(T);
    const uint4 *chunks = reinterpret_cast<const uint4 *>(in - lead);
    const unsigned per_run = (width + 2 * SC_CHUNK(T) - 2) / SC_CHUNK(T);   // chunks that cover width elements
    slab_walk w = walk_start(tid, per_run);                                 // outer: the run, inner: its chunk
    for (unsigned base = 0; base < s * per_run; base += SC_LOADS * THREADS) {
        uint4 v[SC_LOADS];
#ifndef __CUDA_ARCH__
        memset(v, 0, sizeof v);   // the host compiler cannot tell that only the chunks loaded are read
#endif
        int slot[SC_LOADS];
        UNROLL_ON_DEVICE
        for (unsigned k = 0; k < SC_LOADS; ++k) {
            slot[k] = -1;
            const size_t flat = lead + w.outer * len + first;   // the run's first element, from `chunks`
            const int j0 = (int)(w.inner * SC_CHUNK(T)) - (int)(flat % SC_CHUNK(T));
            if (w.outer < s && j0 < (int)width) {
                const size_t chunk = flat / SC_CHUNK(T) + w.inner;
                const unsigned at = w.outer * pitch + w.inner * SC_CHUNK(T);
                if (chunk * SC_CHUNK(T) >= lead && chunk * SC_CHUNK(T) + SC_CHUNK(T) <= lead + count) {
                    v[k] = chunks[chunk];   // LDG.E.128
                    slot[k] = (int)at;
                } else {
                    for (unsigned e = 0; e < SC_CHUNK(T); ++e)   // sticks out of the matrix
                        if (chunk * SC_CHUNK(T) + e >= lead && chunk * SC_CHUNK(T) + e < lead + count)
                            slab[at + e] = in[chunk * SC_CHUNK(T) + e - lead];
                }
            }
            walk_next(w);
        }
        UNROLL_ON_DEVICE
        for (unsigned k = 0; k < SC_LOADS; ++k)
            if (slot[k] >= 0)
                *reinterpret_cast<uint4 *>(slab + slot[k]) = v[k];   // STS.128
    }
}

/**
 * @brief Thread @p tid's share of storing @p s runs of @p width elements
 *        from the slab, run i at @p out + @p first + i * @p len: whole
 *        chunks as they lie in the slab, the elements around them one by one.
 */
template <typename T>
static __host__ __device__ __forceinline__ void sc_store_runs(const T *slab, T *__restrict__ out,
                                                              size_t len, size_t first, unsigned s, unsigned width,
                                                              unsigned pitch, unsigned tid)
{
    const unsigned lead = (unsigned)((uintptr_t)out % 16) / sizeof(T);
    uint4 *chunks = reinterpret_cast<uint4 *>(out - lead);
    const unsigned per_run = (width + 2 * SC_CHUNK(T) - 2) / SC_CHUNK(T);
    slab_walk w = walk_start(tid, per_run);
    for (unsigned job = tid; job < s * per_run; job += THREADS) {
        const size_t flat = lead + w.outer * len + first;
        const int j0 = (int)(w.inner * SC_CHUNK(T)) - (int)(flat % SC_CHUNK(T));
        const unsigned at = w.outer * pitch + w.inner * SC_CHUNK(T);
        if (j0 >= 0 && j0 + (int)SC_CHUNK(T) <= (int)width) {
            chunks[flat / SC_CHUNK(T) + w.inner] = *reinterpret_cast<const uint4 *>(slab + at);   // STG.E.128
        } else {
            for (unsigned e = 0; e < SC_CHUNK(T); ++e)   // the run's first or last chunk
                if (j0 + (int)e >= 0 && j0 + (int)e < (int)width)
                    out[w.outer * len + first + (unsigned)(j0 + (int)e)] = slab[at + e];
        }
        walk_next(w);
    }
}

/**
 * @brief Thread @p tid's share of loading one stretch of @p width x @p s
 *        elements at @p src into the slab: element e is element j = e / s of
 *        run i = e % s. Whole chunks of the stretch are read 16 bytes at once.
 */
template <typename T>
static __host__ __device__ __forceinline__ void sc_load_stretch(T *slab, const T *__restrict__ src,
                                                                unsigned s, unsigned width, unsigned pitch,
                                                                sc_leads leads, unsigned tid)
{
    const sc_stretch st = sc_split(src, width * s);
    const uint4 *chunks = reinterpret_cast<const uint4 *>(src + st.head);
    const unsigned e0 = st.head + tid * SC_CHUNK(T), step = THREADS * SC_CHUNK(T);
    slab_walk w = {e0 / s, e0 % s, step / s, step % s, s};   // outer: j, inner: i
    for (unsigned base = 0; base < st.whole; base += SC_LOADS * THREADS) {
        uint4 v[SC_LOADS];
#ifndef __CUDA_ARCH__
        memset(v, 0, sizeof v);   // the host compiler cannot tell that only the chunks loaded are read
#endif
        UNROLL_ON_DEVICE
        for (unsigned k = 0; k < SC_LOADS; ++k)
            if (base + k * THREADS + tid < st.whole)
                v[k] = chunks[base + k * THREADS + tid];   // LDG.E.128
        UNROLL_ON_DEVICE
        for (unsigned k = 0; k < SC_LOADS; ++k) {
            if (base + k * THREADS + tid < st.whole) {
                T e[SC_CHUNK(T)];
                memcpy(e, &v[k], sizeof e);
                slab_walk at = w;
                UNROLL_ON_DEVICE
                for (unsigned q = 0; q < SC_CHUNK(T); ++q) {
                    slab[sc_at<T>(leads, pitch, at.inner, at.outer)] = e[q];
                    sc_next(at);
                }
            }
            walk_next(w);
        }
    }
    if (tid < st.head + st.rest) {
        const unsigned e = sc_edge<T>(st, tid);
        slab[sc_at<T>(leads, pitch, e % s, e / s)] = src[e];
    }
}

/**
 * @brief Thread @p tid's share of storing the slab as one stretch of
 *        @p width x @p s elements at @p dst, whole chunks 16 bytes at once.
 */
template <typename T>
static __host__ __device__ __forceinline__ void sc_store_stretch(const T *slab, T *__restrict__ dst,
                                                                 unsigned s, unsigned width, unsigned pitch,
                                                                 sc_leads leads, unsigned tid)
{
    const sc_stretch st = sc_split(dst, width * s);
    uint4 *chunks = reinterpret_cast<uint4 *>(dst + st.head);
    const unsigned e0 = st.head + tid * SC_CHUNK(T), step = THREADS * SC_CHUNK(T);
    slab_walk w = {e0 / s, e0 % s, step / s, step % s, s};   // outer: j, inner: i
    for (unsigned c = tid; c < st.whole; c += THREADS) {
        T e[SC_CHUNK(T)];
        slab_walk at = w;
        UNROLL_ON_DEVICE
        for (unsigned q = 0; q < SC_CHUNK(T); ++q) {
            e[q] = slab[sc_at<T>(leads, pitch, at.inner, at.outer)];
            sc_next(at);
        }
        uint4 v;
        memcpy(&v, e, sizeof v);
        chunks[c] = v;   // STG.E.128
        walk_next(w);
    }
    if (tid < st.head + st.rest) {
        const unsigned e = sc_edge<T>(st, tid);
        dst[e] = slab[sc_at<T>(leads, pitch, e % s, e / s)];
    }
}

/** @brief Elements between the starts of two runs in the slab: its width plus a chunk (an odd number of chunks). */
template <typename T>
static __host__ __device__ __forceinline__ unsigned sc_pitch(unsigned n)
{
    return n + SC_CHUNK(T);
}

/** @brief Thread @p tid's share of loading slab @p b of @p n positions: runs (@p FewRows) or a stretch of `in`. */
template <typename T, bool FewRows>
static __host__ __device__ __forceinline__ void sc_slab_load(T *slab, const T *__restrict__ in,
                                                             const T *out, size_t rows, size_t cols,
                                                             unsigned n, size_t b, unsigned tid)
{
    const size_t len = FewRows ? cols : rows;
    const unsigned s = (unsigned)(FewRows ? rows : cols);
    const slab_place p = slab_at(b, n, len);
    if (FewRows)
        sc_load_runs(slab, in, rows * cols, len, p.first, s, p.width, sc_pitch<T>(n), tid);
    else
        sc_load_stretch(slab, in + p.first * s, s, p.width, sc_pitch<T>(n), sc_leads_of(out, p.first, len), tid);
}

/** @brief Thread @p tid's share of storing slab @p b of @p n positions: a stretch (@p FewRows) or runs of `out`. */
template <typename T, bool FewRows>
static __host__ __device__ __forceinline__ void sc_slab_store(const T *slab, const T *in,
                                                              T *__restrict__ out, size_t rows, size_t cols,
                                                              unsigned n, size_t b, unsigned tid)
{
    const size_t len = FewRows ? cols : rows;
    const unsigned s = (unsigned)(FewRows ? rows : cols);
    const slab_place p = slab_at(b, n, len);
    if (FewRows)
        sc_store_stretch(slab, out + p.first * s, s, p.width, sc_pitch<T>(n), sc_leads_of(in, p.first, len), tid);
    else
        sc_store_runs(slab, out, len, p.first, s, p.width, sc_pitch<T>(n), tid);
}

/**
 * @brief Transpose a bf16 matrix with 2 to 63 rows (@p FewRows) or columns,
 *        slab by slab of @p n positions of the long side.
 */
template <bool FewRows, typename T>   // FewRows first: a name ending `, true>` is a kernel asking L2 for lines
static __global__ void __launch_bounds__(THREADS)
transpose_slab_chunks(const T *__restrict__ in, T *__restrict__ out, size_t rows, size_t cols, unsigned n)
{
    __shared__ uint4 chunks[SC_SMEM(T) * sizeof(T) / 16];
    T *slab = reinterpret_cast<T *>(chunks);
    for (size_t b = blockIdx.x; b < ceil_div(FewRows ? cols : rows, n); b += gridDim.x) {
        sc_slab_load<T, FewRows>(slab, in, out, rows, cols, n, b, threadIdx.x);
        __syncthreads();
        sc_slab_store<T, FewRows>(slab, in, out, rows, cols, n, b, threadIdx.x);
        __syncthreads();   // the slab is read before the next one overwrites it
    }
}

/** Slabs of chunks pay on fewer rows than this: 56 floats (measured at 48, not 63), every thin bf16 matrix... */
#define SC_ROWS(T) (sizeof(T) == 4 ? 56u : 64u)
/** ...unless this many or more rows are whole aligned chunks: tiles lead there... */
#define SC_CHUNK_ROWS 32u
/** ...and on fewer columns than this: from 32 the tiles, or the sector runs, lead. */
#define SC_COLS 32u

/**
 * @brief Whether slabs of chunks are the faster way through a @p rows x
 *        @p cols matrix of @p T whose rows are whole aligned chunks when
 *        @p whole_chunks: `make study STUDIES=narrow` times steps 12 and 13's
 *        choices against each kernel they choose between.
 */
template <typename T>
static inline __host__ __device__ bool slab_chunks_pay(size_t rows, size_t cols, bool whole_chunks)
{
    if (!slabs_fit(rows, cols))
        return false;
    if (rows < cols)
        return rows < SC_ROWS(T) && !(whole_chunks && rows >= SC_CHUNK_ROWS);
    return cols < SC_COLS;
}

/** @brief Launch transpose_slab_chunks() on a matrix that slabs_fit(); returns the threads launched. */
template <typename T>
static inline size_t slab_chunks_launch(const T *in, T *out, size_t rows, size_t cols, cudaStream_t stream)
{
    const bool few_rows = rows <= cols;
    const unsigned s = (unsigned)(few_rows ? rows : cols), n = slab_width<T>(s);
    const dim3 grid = grid_for_tiles(ceil_div(few_rows ? cols : rows, n), 1);
    if (few_rows)
        transpose_slab_chunks<true, T><<<grid, THREADS, 0, stream>>>(in, out, rows, cols, n);
    else
        transpose_slab_chunks<false, T><<<grid, THREADS, 0, stream>>>(in, out, rows, cols, n);
    return threads_launched(grid, dim3(THREADS));
}

#endif /* TRANSPOSE_SLAB_CHUNKS_CUH */
