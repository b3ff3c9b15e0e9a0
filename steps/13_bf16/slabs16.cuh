/**
 * @file slabs16.cuh
 * @brief Thin bf16 matrices (2 to 63 rows or columns): step 11's slabs,
 *        moving 16-byte chunks instead of single elements.
 *
 * Step 11's slabs load and store one element at a time. On floats that
 * keeps up with DRAM; on 2-byte elements a block moves half the bytes for
 * the same instructions, and the slabs stop at about two thirds of copy
 * with the schedulers issuing almost every cycle (`make narrow-study`).
 *
 * A slab has two sides. One is a single stretch of memory (the rows of
 * `out`, or of `in`, that the slab covers, end to end); the other is `s`
 * runs, one per row of the short side, `len` elements apart. Here both
 * sides move whole aligned 16-byte chunks wherever a chunk lies inside
 * what the block owns, and single elements only at the 0-7 elements
 * before a stretch's or a run's first whole chunk and after its last:
 *
 * - **The runs side** copies chunks between global and shared memory
 *   unchanged. Run i is kept in shared memory as it lies in its chunks:
 *   element j of run i at slab[i * pitch + lead(i) + j], where lead(i)
 *   (0-7) is where the run starts in its first chunk.
 * - **The stretch side** pairs 8 elements with the slab, one shared access
 *   each: element e of the stretch is (j, i) = (e / s, e % s).
 *
 * The pitch is the slab width plus one chunk, whose chunk count is odd, so
 * that threads on different runs fall in different banks.
 */
#ifndef TRANSPOSE_SLABS16_CUH
#define TRANSPOSE_SLABS16_CUH

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cuda_runtime.h>

#include "kernel_utils.cuh"                 // ceil_div(), grid_for_tiles(), threads_launched()
#include "steps/11_any_shape/slabs.cuh"     // slab_width(), slab_walk, slabs_fit()

/** 2-byte elements in a 16-byte chunk. */
#define S16_CHUNK 8u
/** Chunks each thread has in flight before it moves them on. */
#define S16_LOADS 4u
/** Elements of shared memory: 8192 elements of slab plus a chunk of slack for each of up to 63 runs. */
#define S16_SMEM (SLAB_ELEMENTS(uint16_t) + S16_CHUNK * SLAB_MAX_SHORT)

/** @brief Where a slab's runs lie in their chunks: run i starts lead(i) = (a + i * b) % 8 elements into one. */
struct s16_leads {
    unsigned a;   /**< lead(0) */
    unsigned b;   /**< the distance between runs, modulo 8 */
};

/** @brief Where element @p j of run @p i is in the slab. */
static __host__ __device__ __forceinline__ unsigned s16_at(s16_leads leads, unsigned pitch, unsigned i, unsigned j)
{
    return i * pitch + ((leads.a + i * leads.b) % S16_CHUNK) + j;
}

/** @brief The runs' leads: run i of a slab starts at element @p first + i * @p len of @p base. */
static __host__ __device__ __forceinline__ s16_leads s16_leads_of(const uint16_t *base, size_t first, size_t len)
{
    const unsigned lead = (unsigned)((uintptr_t)base % 16) / 2;
    return {(unsigned)((lead + first) % S16_CHUNK), (unsigned)(len % S16_CHUNK)};
}

/**
 * @brief The parts of a stretch of @p count elements at @p p: @p head
 *        elements before its first whole aligned chunk, @p whole chunks,
 *        then the rest.
 */
struct s16_stretch {
    unsigned head;    /**< elements before the first whole chunk (0-7, fewer if the stretch is short) */
    unsigned whole;   /**< whole chunks */
    unsigned rest;    /**< elements after the last whole chunk */
};

/** @brief s16_stretch of @p count elements from @p p. */
static __host__ __device__ __forceinline__ s16_stretch s16_split(const uint16_t *p, unsigned count)
{
    const unsigned lead = (unsigned)((uintptr_t)p % 16) / 2, to_chunk = (S16_CHUNK - lead) % S16_CHUNK;
    const unsigned head = to_chunk < count ? to_chunk : count;
    const unsigned whole = (count - head) / S16_CHUNK;
    return {head, whole, count - head - whole * S16_CHUNK};
}

/** @brief The stretch's element that thread @p t of the head and rest takes: its first @p head, then its last. */
static __host__ __device__ __forceinline__ unsigned s16_edge(s16_stretch st, unsigned t)
{
    return t < st.head ? t : st.head + st.whole * S16_CHUNK + (t - st.head);
}

/** @brief Step the walk @p w (outer: j, inner: i) one element on. */
static __host__ __device__ __forceinline__ void s16_next(slab_walk &w)
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
static __host__ __device__ __forceinline__ void s16_load_runs(uint16_t *slab, const uint16_t *__restrict__ in,
                                                              size_t count, size_t len, size_t first, unsigned s,
                                                              unsigned width, unsigned pitch, unsigned tid)
{
    const unsigned lead = (unsigned)((uintptr_t)in % 16) / 2;
    const uint4 *chunks = reinterpret_cast<const uint4 *>(in - lead);
    const unsigned per_run = (width + 2 * S16_CHUNK - 2) / S16_CHUNK;   // chunks that cover width elements
    slab_walk w = walk_start(tid, per_run);                               // outer: the run, inner: its chunk
    for (unsigned base = 0; base < s * per_run; base += S16_LOADS * THREADS) {
        uint4 v[S16_LOADS];
        int slot[S16_LOADS];
        UNROLL_ON_DEVICE
        for (unsigned k = 0; k < S16_LOADS; ++k) {
            slot[k] = -1;
            const size_t flat = lead + w.outer * len + first;   // the run's first element, from `chunks`
            const int j0 = (int)(w.inner * S16_CHUNK) - (int)(flat % S16_CHUNK);
            if (w.outer < s && j0 < (int)width) {
                const size_t chunk = flat / S16_CHUNK + w.inner;
                const unsigned at = w.outer * pitch + w.inner * S16_CHUNK;
                if (chunk * S16_CHUNK >= lead && chunk * S16_CHUNK + S16_CHUNK <= lead + count) {
                    v[k] = chunks[chunk];   // LDG.E.128
                    slot[k] = (int)at;
                } else {
                    for (unsigned e = 0; e < S16_CHUNK; ++e)   // sticks out of the matrix
                        if (chunk * S16_CHUNK + e >= lead && chunk * S16_CHUNK + e < lead + count)
                            slab[at + e] = in[chunk * S16_CHUNK + e - lead];
                }
            }
            walk_next(w);
        }
        UNROLL_ON_DEVICE
        for (unsigned k = 0; k < S16_LOADS; ++k)
            if (slot[k] >= 0)
                *reinterpret_cast<uint4 *>(slab + slot[k]) = v[k];   // STS.128
    }
}

/**
 * @brief Thread @p tid's share of storing @p s runs of @p width elements
 *        from the slab, run i at @p out + @p first + i * @p len: whole
 *        chunks as they lie in the slab, the elements around them one by one.
 */
static __host__ __device__ __forceinline__ void s16_store_runs(const uint16_t *slab, uint16_t *__restrict__ out,
                                                               size_t len, size_t first, unsigned s, unsigned width,
                                                               unsigned pitch, unsigned tid)
{
    const unsigned lead = (unsigned)((uintptr_t)out % 16) / 2;
    uint4 *chunks = reinterpret_cast<uint4 *>(out - lead);
    const unsigned per_run = (width + 2 * S16_CHUNK - 2) / S16_CHUNK;
    slab_walk w = walk_start(tid, per_run);
    for (unsigned job = tid; job < s * per_run; job += THREADS) {
        const size_t flat = lead + w.outer * len + first;
        const int j0 = (int)(w.inner * S16_CHUNK) - (int)(flat % S16_CHUNK);
        const unsigned at = w.outer * pitch + w.inner * S16_CHUNK;
        if (j0 >= 0 && j0 + (int)S16_CHUNK <= (int)width) {
            chunks[flat / S16_CHUNK + w.inner] = *reinterpret_cast<const uint4 *>(slab + at);   // STG.E.128
        } else {
            for (unsigned e = 0; e < S16_CHUNK; ++e)   // the run's first or last chunk
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
static __host__ __device__ __forceinline__ void s16_load_stretch(uint16_t *slab, const uint16_t *__restrict__ src,
                                                                 unsigned s, unsigned width, unsigned pitch,
                                                                 s16_leads leads, unsigned tid)
{
    const s16_stretch st = s16_split(src, width * s);
    const uint4 *chunks = reinterpret_cast<const uint4 *>(src + st.head);
    const unsigned e0 = st.head + tid * S16_CHUNK, step = THREADS * S16_CHUNK;
    slab_walk w = {e0 / s, e0 % s, step / s, step % s, s};   // outer: j, inner: i
    for (unsigned base = 0; base < st.whole; base += S16_LOADS * THREADS) {
        uint4 v[S16_LOADS];
        UNROLL_ON_DEVICE
        for (unsigned k = 0; k < S16_LOADS; ++k)
            if (base + k * THREADS + tid < st.whole)
                v[k] = chunks[base + k * THREADS + tid];   // LDG.E.128
        UNROLL_ON_DEVICE
        for (unsigned k = 0; k < S16_LOADS; ++k) {
            if (base + k * THREADS + tid < st.whole) {
                uint16_t e[S16_CHUNK];
                memcpy(e, &v[k], sizeof e);
                slab_walk at = w;
                UNROLL_ON_DEVICE
                for (unsigned q = 0; q < S16_CHUNK; ++q) {
                    slab[s16_at(leads, pitch, at.inner, at.outer)] = e[q];
                    s16_next(at);
                }
            }
            walk_next(w);
        }
    }
    if (tid < st.head + st.rest) {
        const unsigned e = s16_edge(st, tid);
        slab[s16_at(leads, pitch, e % s, e / s)] = src[e];
    }
}

/**
 * @brief Thread @p tid's share of storing the slab as one stretch of
 *        @p width x @p s elements at @p dst, whole chunks 16 bytes at once.
 */
static __host__ __device__ __forceinline__ void s16_store_stretch(const uint16_t *slab, uint16_t *__restrict__ dst,
                                                                  unsigned s, unsigned width, unsigned pitch,
                                                                  s16_leads leads, unsigned tid)
{
    const s16_stretch st = s16_split(dst, width * s);
    uint4 *chunks = reinterpret_cast<uint4 *>(dst + st.head);
    const unsigned e0 = st.head + tid * S16_CHUNK, step = THREADS * S16_CHUNK;
    slab_walk w = {e0 / s, e0 % s, step / s, step % s, s};   // outer: j, inner: i
    for (unsigned c = tid; c < st.whole; c += THREADS) {
        uint16_t e[S16_CHUNK];
        slab_walk at = w;
        UNROLL_ON_DEVICE
        for (unsigned q = 0; q < S16_CHUNK; ++q) {
            e[q] = slab[s16_at(leads, pitch, at.inner, at.outer)];
            s16_next(at);
        }
        uint4 v;
        memcpy(&v, e, sizeof v);
        chunks[c] = v;   // STG.E.128
        walk_next(w);
    }
    if (tid < st.head + st.rest) {
        const unsigned e = s16_edge(st, tid);
        dst[e] = slab[s16_at(leads, pitch, e % s, e / s)];
    }
}

/** @brief Elements between the starts of two runs in the slab: its width plus a chunk (an odd number of chunks). */
static __host__ __device__ __forceinline__ unsigned s16_pitch(unsigned n)
{
    return n + S16_CHUNK;
}

/** @brief Thread @p tid's share of loading slab @p b of @p n positions: runs (@p FewRows) or a stretch of `in`. */
template <bool FewRows>
static __host__ __device__ __forceinline__ void s16_slab_load(uint16_t *slab, const uint16_t *__restrict__ in,
                                                              const uint16_t *out, size_t rows, size_t cols,
                                                              unsigned n, size_t b, unsigned tid)
{
    const size_t len = FewRows ? cols : rows;
    const unsigned s = (unsigned)(FewRows ? rows : cols);
    const slab_place p = slab_at(b, n, len);
    if (FewRows)
        s16_load_runs(slab, in, rows * cols, len, p.first, s, p.width, s16_pitch(n), tid);
    else
        s16_load_stretch(slab, in + p.first * s, s, p.width, s16_pitch(n), s16_leads_of(out, p.first, len), tid);
}

/** @brief Thread @p tid's share of storing slab @p b of @p n positions: a stretch (@p FewRows) or runs of `out`. */
template <bool FewRows>
static __host__ __device__ __forceinline__ void s16_slab_store(const uint16_t *slab, const uint16_t *in,
                                                               uint16_t *__restrict__ out, size_t rows, size_t cols,
                                                               unsigned n, size_t b, unsigned tid)
{
    const size_t len = FewRows ? cols : rows;
    const unsigned s = (unsigned)(FewRows ? rows : cols);
    const slab_place p = slab_at(b, n, len);
    if (FewRows)
        s16_store_stretch(slab, out + p.first * s, s, p.width, s16_pitch(n), s16_leads_of(in, p.first, len), tid);
    else
        s16_store_runs(slab, out, len, p.first, s, p.width, s16_pitch(n), tid);
}

/**
 * @brief Transpose a bf16 matrix with 2 to 63 rows (@p FewRows) or columns,
 *        slab by slab of @p n positions of the long side.
 */
template <bool FewRows>
static __global__ void __launch_bounds__(THREADS)
transpose_slabs16(const uint16_t *__restrict__ in, uint16_t *__restrict__ out, size_t rows, size_t cols, unsigned n)
{
    __shared__ uint4 chunks[S16_SMEM / S16_CHUNK];
    uint16_t *slab = reinterpret_cast<uint16_t *>(chunks);
    for (size_t b = blockIdx.x; b < ceil_div(FewRows ? cols : rows, n); b += gridDim.x) {
        s16_slab_load<FewRows>(slab, in, out, rows, cols, n, b, threadIdx.x);
        __syncthreads();
        s16_slab_store<FewRows>(slab, in, out, rows, cols, n, b, threadIdx.x);
        __syncthreads();   // the slab is read before the next one overwrites it
    }
}

/** bf16 slabs pay on fewer columns than this (`make narrow-study`)... */
#define S16_COLS 32u
/** ...and on every thin matrix of fewer rows, unless this many or more are whole aligned chunks: tiles lead there. */
#define S16_CHUNK_ROWS 32u

/**
 * @brief Whether slabs16 are the faster way through a thin @p rows x
 *        @p cols bf16 matrix whose rows are whole aligned chunks when
 *        @p whole_chunks: `make narrow-study` times step 13's choice
 *        against each kernel it chooses between.
 */
static inline __host__ __device__ bool slabs16_pay(size_t rows, size_t cols, bool whole_chunks)
{
    if (!slabs_fit(rows, cols))
        return false;
    if (rows < cols)
        return !(whole_chunks && rows >= S16_CHUNK_ROWS);
    return cols < S16_COLS;
}

/** @brief Launch transpose_slabs16() on a matrix that slabs_fit(); returns the threads launched. */
static inline size_t slabs16_launch(const uint16_t *in, uint16_t *out, size_t rows, size_t cols, cudaStream_t stream)
{
    const bool few_rows = rows <= cols;
    const unsigned s = (unsigned)(few_rows ? rows : cols), n = slab_width<uint16_t>(s);
    const dim3 grid = grid_for_tiles(ceil_div(few_rows ? cols : rows, n), 1);
    if (few_rows)
        transpose_slabs16<true><<<grid, THREADS, 0, stream>>>(in, out, rows, cols, n);
    else
        transpose_slabs16<false><<<grid, THREADS, 0, stream>>>(in, out, rows, cols, n);
    return threads_launched(grid, dim3(THREADS));
}

#endif /* TRANSPOSE_SLABS16_CUH */
