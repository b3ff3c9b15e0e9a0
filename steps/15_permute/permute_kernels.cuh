/**
 * @file permute_kernels.cuh
 * @brief Step 15's kernels: the two cases a folded permutation can be
 *        (common/permute.h), each on a whole batch in one launch.
 *
 * - A batched 2-D transpose: step 09's 64 x 64 tile, its 16-byte kernel's
 *   pieces (load_chunk_column(), chunk_slot(), store_block_vec4()) or its
 *   4-byte kernel's work on one tile (transpose_tile_pitched()), given a
 *   batch index and the strides of the plan; in bf16, step 13's 16-byte
 *   tile and PRMT store (t16_load(), t16_store_prmt()) the same way. The grid is one long line of
 *   tiles, every matrix of the batch after the other, walked in a loop: a
 *   batch larger than a grid dimension is no special case.
 * - A strided copy: each run (the innermost dimension) is copied whole by a
 *   group of lanes, in the widest accesses, up to 16 bytes, that the run's
 *   length, its strides and the pointers allow; a group takes up to 8 runs
 *   along the batch's last dimension, so that it divides once for all, and
 *   loads all 8 before it stores any, so that many loads are in flight; a
 *   long run is cut into pieces, so that a few long runs still fill the GPU.
 * - The control: one thread per output element, the index worked out from
 *   the folded tensor's dimensions, as a first attempt would.
 */
#ifndef TRANSPOSE_PERMUTE_KERNELS_CUH
#define TRANSPOSE_PERMUTE_KERNELS_CUH

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime.h>

#include "kernel_utils.cuh"
#include "permute.h"                         // permute_plan, permute_batch_offsets()
#include "steps/09_shared64/tile64.cuh"      // TILE, the block, chunk_slot(), store_block_vec4(),
                                             // load_chunk_column(), transpose_tile_pitched()
#include "steps/13_bf16/bf16.cuh"            // tile16, t16_load(), t16_store_prmt(): step 13's 16-byte bf16 tile

/** Most blocks a launch of this step asks for; the kernels loop over the rest of their work. */
#define PERMUTE_MAX_BLOCKS ((size_t)1 << 20)

/** @brief Tile @p t of the batch: its matrix @p batch, and its first row and column. */
static __host__ __device__ __forceinline__ void batch_tile(const permute_plan &plan, size_t t, size_t *batch,
                                                           size_t *row0, size_t *col0)
{
    const size_t tiles_x = ceil_div(plan.cols, TILE), per_matrix = tiles_x * ceil_div(plan.rows, TILE);
    *batch = t / per_matrix;
    *row0 = (t % per_matrix) / tiles_x * TILE;   // along a row of tiles of `in`, as step 09
    *col0 = (t % per_matrix) % tiles_x * TILE;
}

/** @brief Tiles in the whole batch. */
static __host__ __device__ __forceinline__ size_t batch_tiles(const permute_plan &plan)
{
    return ceil_div(plan.rows, TILE) * ceil_div(plan.cols, TILE) * plan.batches;
}

/** @brief Step 09's 4-byte kernel over a batch: any element type, any strides. */
template <class T>
static __global__ void __launch_bounds__(THREADS, REGISTER_LOAD_BLOCKS_PER_SM)
batched_tiles_words(const T *__restrict__ in, T *__restrict__ out, const permute_plan plan)
{
    __shared__ T tile[TILE * TILE];   // laid out by word_slot()
    const size_t tiles = batch_tiles(plan);
    for (size_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        size_t batch, row0, col0, in_at, out_at;
        batch_tile(plan, t, &batch, &row0, &col0);
        permute_batch_offsets(&plan, batch, &in_at, &out_at);
        transpose_tile_pitched<load_through_registers>(tile, in + in_at, out + out_at, plan.rows, plan.cols,
                                                       plan.in_pitch, plan.out_pitch, row0, col0, threadIdx.x,
                                                       threadIdx.y);
    }
}

/**
 * @brief Step 09's 16-byte kernel over a batch of float matrices: its load,
 *        its swizzled tile and its store, with the matrix's offsets and
 *        pitches. Only where batched_vec4_fits().
 */
static __global__ void __launch_bounds__(THREADS, REGISTER_LOAD_BLOCKS_PER_SM)
batched_tiles_vec4(const float *__restrict__ in, float *__restrict__ out, const permute_plan plan)
{
    __shared__ float4 tile[TILE * CHUNKS_PER_ROW];   // laid out by chunk_slot()
    const unsigned tid = threadIdx.y * BLOCK_COLS + threadIdx.x;
    const unsigned load_row = tid / CHUNKS_PER_ROW, load_chunk = tid % CHUNKS_PER_ROW;
    const size_t tiles = batch_tiles(plan);
    for (size_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        size_t batch, row0, col0, in_at, out_at;
        batch_tile(plan, t, &batch, &row0, &col0);
        permute_batch_offsets(&plan, batch, &in_at, &out_at);
        const unsigned height = tile_extent(plan.rows, row0), width = tile_extent(plan.cols, col0);
        const bool chunk_in = load_chunk * VEC < width;
        float4 v[TILE / ROWS_PER_PASS];
        if (chunk_in)
            load_chunk_column(v, reinterpret_cast<const float4 *>(in + in_at),
                              ((row0 + load_row) * plan.in_pitch + col0) / VEC + load_chunk,
                              ROWS_PER_PASS * plan.in_pitch / VEC, load_row, height);
#pragma unroll
        for (unsigned p = 0; p < TILE / ROWS_PER_PASS; ++p)
            if (chunk_in && load_row + p * ROWS_PER_PASS < height)
                tile[chunk_slot(load_row + p * ROWS_PER_PASS, load_chunk)] = v[p];
        __syncthreads();
        // store_block_vec4()'s `rows` is the pitch of out's rows: here the plan's.
        store_block_vec4(tile, reinterpret_cast<float4 *>(out + out_at), plan.out_pitch, row0, col0, height, width,
                         tid);
        __syncthreads();
    }
}

/** The bf16 tile of the batched 16-byte kernel: step 13's 64 x 64, which fills the GPU on small matrices too. */
using batch_tile16 = tile16<64, 64>;

/**
 * @brief Step 13's 16-byte kernel over a batch of 2-byte elements: its load
 *        and its PRMT store, with the matrix's offsets and pitches (their
 *        `cols` and `rows` are the pitches of `in` and `out`). Only where
 *        batched_chunks_fit() with 8 elements a chunk.
 */
static __global__ void __launch_bounds__(T16_THREADS, T16_TILE_BLOCKS(64 * 64))
batched_tiles_vec8(const uint16_t *__restrict__ in, uint16_t *__restrict__ out, const permute_plan plan)
{
    using Tile = batch_tile16;
    __shared__ uint4 tile[Tile::rows * Tile::chunks_per_row];
    const size_t tiles_x = ceil_div(plan.cols, Tile::cols);
    const size_t per_matrix = tiles_x * ceil_div(plan.rows, Tile::rows);
    for (size_t t = blockIdx.x; t < per_matrix * plan.batches; t += gridDim.x) {
        size_t in_at, out_at;
        permute_batch_offsets(&plan, t / per_matrix, &in_at, &out_at);
        const size_t row0 = t % per_matrix / tiles_x * Tile::rows, col0 = t % per_matrix % tiles_x * Tile::cols;
        const unsigned height = t16_extent(plan.rows, row0, Tile::rows);
        const unsigned width = t16_extent(plan.cols, col0, Tile::cols);
        t16_load<Tile>(tile, reinterpret_cast<const uint4 *>(in + in_at), plan.in_pitch, row0, col0, height, width,
                       threadIdx.x);
        __syncthreads();
        t16_store_prmt<Tile>(tile, reinterpret_cast<uint4 *>(out + out_at), plan.out_pitch, row0, col0, height,
                             width, threadIdx.x);
        __syncthreads();
    }
}

/**
 * @brief Whether every offset, pitch and side of the batch is whole 16-byte
 *        chunks of @p per_chunk elements, from pointers on 16 bytes.
 */
static inline bool batched_chunks_fit(const void *in, const void *out, const permute_plan &plan, size_t per_chunk)
{
    bool fits = is_aligned_16(in) && is_aligned_16(out) && plan.rows % per_chunk == 0 &&
                plan.cols % per_chunk == 0 && plan.in_pitch % per_chunk == 0 && plan.out_pitch % per_chunk == 0;
    for (int d = 0; d < plan.batch_rank; ++d)
        fits = fits && plan.batch_in_stride[d] % per_chunk == 0 && plan.batch_out_stride[d] % per_chunk == 0;
    return fits;
}

/**
 * A batched transpose whose matrices fill less than 1 / this of the 64 x 64
 * tiles that cover them goes to the per-element kernel instead: a block
 * would start, fill and empty its tile to move a few dozen elements.
 * The tiles overtook it between batches of 16 x 16 matrices (1 / 16 of a
 * tile) and of 24 x 24 (1 / 7), in both element types; `make bench
 * RERUN=15` times the default and the control on batches of 3 x 4 and of
 * 16 x 16 matrices among its tensors.
 */
#define PERMUTE_TILE_SHARE 10

/** @brief Whether the matrices of @p plan fill less than 1 / PERMUTE_TILE_SHARE of their tiles. */
static inline bool tiles_mostly_empty(const permute_plan &plan)
{
    const size_t tiled = ceil_div(plan.rows, TILE) * TILE * ceil_div(plan.cols, TILE) * TILE;
    return plan.rows * plan.cols * PERMUTE_TILE_SHARE < tiled;
}

/** @brief Launch the batched tile transpose: 16-byte accesses where they fit, else element by element. */
static inline size_t batched_tiles_launch(const void *in, void *out, const permute_plan &plan, size_t element_bytes,
                                          bool vectors, cudaStream_t stream)
{
    const dim3 block(BLOCK_COLS, BLOCK_ROWS);
    const size_t tiles = batch_tiles(plan);   // 64 x 64: the tile of both 16-byte kernels too
    const dim3 grid((unsigned)(tiles < PERMUTE_MAX_BLOCKS ? tiles : PERMUTE_MAX_BLOCKS));
    if (element_bytes == 2 && vectors && batched_chunks_fit(in, out, plan, T16_CHUNK)) {
        batched_tiles_vec8<<<grid, T16_THREADS, 0, stream>>>((const uint16_t *)in, (uint16_t *)out, plan);
        return threads_launched(grid, dim3(T16_THREADS));
    }
    if (element_bytes == 2)
        batched_tiles_words<<<grid, block, 0, stream>>>((const uint16_t *)in, (uint16_t *)out, plan);
    else if (vectors && batched_chunks_fit(in, out, plan, VEC))
        batched_tiles_vec4<<<grid, block, 0, stream>>>((const float *)in, (float *)out, plan);
    else
        batched_tiles_words<<<grid, block, 0, stream>>>((const float *)in, (float *)out, plan);
    return threads_launched(grid, block);
}

/** Threads of a block of the strided copy and of the control. */
#define COPY_BLOCK 256

/** Runs a group of lanes copies together: the batch index is divided out once for all of them. */
#define RUNS_PER_ITEM 8

/**
 * Registers of each run a lane fills with loads before it stores any. A copy
 * that stores each value as soon as it arrives has one load in flight per
 * lane: in 4-byte accesses, 4 bytes, too few to hide the memory's latency
 * however many warps an SM holds. Loaded together, independent loads overlap:
 * a lane keeps RUNS_PER_ITEM x RUN_REGISTERS_AHEAD registers in flight, 16
 * bytes of each run in accesses of 4 bytes or more (an access of 2 bytes
 * still takes a register of 4).
 */
#define RUN_REGISTERS_AHEAD 4

/**
 * Most accesses of each run one item copies. A longer run is cut into pieces
 * of this many, each an item of its own: otherwise a tensor of a few long
 * runs, [2, 3, 10^8] swapping its first two dimensions, would give the whole
 * copy to a few groups of lanes and leave the other SMs idle.
 */
#define RUN_PIECE 1024

/**
 * @brief The strided copy's work: items of up to RUNS_PER_ITEM runs that
 *        follow each other along the batch's last dimension, the same piece
 *        of up to RUN_PIECE of each run's @p units accesses of type U (the
 *        plan's strides count elements, @p per_unit to a U).
 */
template <class U>
struct run_items {
    const U *in;        /**< the tensor */
    U *out;             /**< its permutation */
    permute_plan plan;  /**< the fold: a strided copy */
    size_t units;       /**< accesses in a run */
    unsigned per_unit;  /**< elements in a U */
    size_t last;        /**< extent of the batch's last dimension (1 without a batch) */
    size_t chunks;      /**< groups of runs along it: ceil(last / RUNS_PER_ITEM) */
    size_t pieces;      /**< pieces of a run: ceil(units / RUN_PIECE) */

    /** @brief Items in the whole batch. */
    __host__ __device__ size_t count() const { return plan.batches / last * chunks * pieces; }

    /** Registers one access of type U fills. */
    static constexpr unsigned registers = (sizeof(U) + 3) / 4;
    /** Accesses of one run a lane loads before it stores: RUN_REGISTERS_AHEAD registers' worth, at least one. */
    static constexpr unsigned ahead = registers < RUN_REGISTERS_AHEAD ? RUN_REGISTERS_AHEAD / registers : 1;

    /**
     * @brief Lane @p lane of @p lanes copies its accesses of item @p item:
     *        the first run's offsets by division, the next ones a stride on;
     *        in rounds of @c ahead accesses of every run, all loaded first.
     *        Items next to each other are pieces next to each other.
     */
    __host__ __device__ void copy(size_t item, unsigned lane, unsigned lanes) const
    {
        size_t begin = 0, end = units;
        if (pieces > 1) {   // a long run: this item's piece of it (skipped, with its division, on short runs)
            begin = item % pieces * RUN_PIECE;
            end = begin + RUN_PIECE < units ? begin + RUN_PIECE : units;
            item /= pieces;
        }
        const size_t first = item % chunks * RUNS_PER_ITEM;
        const size_t runs = first + RUNS_PER_ITEM < last ? RUNS_PER_ITEM : last - first;
        size_t in_at, out_at;
        permute_batch_offsets(&plan, item / chunks * last + first, &in_at, &out_at);
        const int d = plan.batch_rank - 1;   // the last batch dimension, if any
        const size_t in_step = d >= 0 ? plan.batch_in_stride[d] / per_unit : 0;
        const size_t out_step = d >= 0 ? plan.batch_out_stride[d] / per_unit : 0;
        const U *src = in + in_at / per_unit;
        U *dst = out + out_at / per_unit;
        for (size_t round = begin + lane; round < end; round += (size_t)lanes * ahead) {
            U held[RUNS_PER_ITEM][ahead];   // registers: the loops unroll, so every index is a constant
UNROLL_ON_DEVICE
            for (unsigned r = 0; r < RUNS_PER_ITEM; ++r)
UNROLL_ON_DEVICE
                for (unsigned k = 0; k < ahead; ++k)
                    if (r < runs && round + k * lanes < end)
                        held[r][k] = src[r * in_step + round + k * lanes];
UNROLL_ON_DEVICE
            for (unsigned r = 0; r < RUNS_PER_ITEM; ++r)
UNROLL_ON_DEVICE
                for (unsigned k = 0; k < ahead; ++k)
                    if (r < runs && round + k * lanes < end)
                        dst[r * out_step + round + k * lanes] = held[r][k];
        }
    }
};

/** @brief The strided copy: groups of @p lanes lanes (a power of two, at most 32) take the items in turn. */
template <class U>
static __global__ void __launch_bounds__(COPY_BLOCK) strided_runs(const run_items<U> work, unsigned lanes)
{
    const size_t thread = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t groups = (size_t)gridDim.x * blockDim.x / lanes;
    for (size_t item = thread / lanes; item < work.count(); item += groups)
        work.copy(item, threadIdx.x % lanes, lanes);
}

/** @brief The work of strided_runs() in accesses of type U. */
template <class U>
static inline run_items<U> run_items_of(const void *in, void *out, const permute_plan &plan, size_t element_bytes)
{
    const unsigned per_unit = (unsigned)(sizeof(U) / element_bytes);
    const size_t last = plan.batch_rank > 0 ? plan.batch_extent[plan.batch_rank - 1] : 1;
    const size_t units = plan.cols / per_unit;
    return {(const U *)in, (U *)out, plan, units, per_unit, last, ceil_div(last, RUNS_PER_ITEM),
            ceil_div(units, RUN_PIECE)};
}

/** @brief The lanes that copy one run: a power of two up to 32, fewer for a short run, so that a warp copies several. */
static inline unsigned lanes_for(size_t units)
{
    unsigned lanes = 1;
    while (lanes < 32 && lanes < units)
        lanes *= 2;
    return lanes;
}

/** @brief The widest access, 16 bytes down to one element, that every run's start and length are whole ones of. */
static inline unsigned widest_access(const void *in, const void *out, const permute_plan &plan, size_t element_bytes)
{
    unsigned bytes = 16;
    for (; bytes > element_bytes; bytes /= 2) {
        bool fits = (uintptr_t)in % bytes == 0 && (uintptr_t)out % bytes == 0 && plan.cols * element_bytes % bytes == 0;
        for (int d = 0; d < plan.batch_rank; ++d)
            fits = fits && plan.batch_in_stride[d] * element_bytes % bytes == 0 &&
                   plan.batch_out_stride[d] * element_bytes % bytes == 0;
        if (fits)
            break;
    }
    return bytes;
}

/** @brief strided_runs() in accesses of type U. */
template <class U>
static inline size_t strided_runs_as(const void *in, void *out, const permute_plan &plan, size_t element_bytes,
                                     cudaStream_t stream)
{
    const run_items<U> work = run_items_of<U>(in, out, plan, element_bytes);
    const unsigned lanes = lanes_for(work.units);
    const size_t blocks = ceil_div(work.count(), COPY_BLOCK / lanes);
    const dim3 grid((unsigned)(blocks < PERMUTE_MAX_BLOCKS ? blocks : PERMUTE_MAX_BLOCKS));
    strided_runs<U><<<grid, COPY_BLOCK, 0, stream>>>(work, lanes);
    return threads_launched(grid, dim3(COPY_BLOCK));
}

/** @brief Launch the strided copy in the widest accesses that fit. */
static inline size_t strided_copy_launch(const void *in, void *out, const permute_plan &plan, size_t element_bytes,
                                         cudaStream_t stream)
{
    switch (widest_access(in, out, plan, element_bytes)) {
    case 16:
        return strided_runs_as<uint4>(in, out, plan, element_bytes, stream);
    case 8:
        return strided_runs_as<uint2>(in, out, plan, element_bytes, stream);
    case 4:
        return strided_runs_as<uint32_t>(in, out, plan, element_bytes, stream);
    default:
        return strided_runs_as<uint16_t>(in, out, plan, element_bytes, stream);
    }
}

/** @brief The control: output element o, from the folded tensor's dimensions, one thread each. */
template <class T>
static __global__ void __launch_bounds__(COPY_BLOCK)
naive_permute(const T *__restrict__ in, T *__restrict__ out, const permute_plan plan)
{
    size_t stride[PERMUTE_MAX_RANK];   // of the folded input's dimensions
    size_t s = 1;
    for (int d = plan.rank - 1; d >= 0; --d) {
        stride[d] = s;
        s *= plan.dims[d];
    }
    for (size_t o = (size_t)blockIdx.x * blockDim.x + threadIdx.x; o < plan.count; o += (size_t)gridDim.x * blockDim.x) {
        size_t rest = o, from = 0;
        for (int d = plan.rank - 1; d >= 0; --d) {   // output dimension d is input dimension perm[d]
            const size_t n = plan.dims[plan.perm[d]];
            from += rest % n * stride[plan.perm[d]];
            rest /= n;
        }
        out[o] = in[from];
    }
}

/** @brief Launch the control on 2- or 4-byte elements. */
static inline size_t naive_permute_launch(const void *in, void *out, const permute_plan &plan, size_t element_bytes,
                                          cudaStream_t stream)
{
    const size_t blocks = ceil_div(plan.count, COPY_BLOCK);
    const dim3 grid((unsigned)(blocks < PERMUTE_MAX_BLOCKS ? blocks : PERMUTE_MAX_BLOCKS));
    if (element_bytes == 2)
        naive_permute<<<grid, COPY_BLOCK, 0, stream>>>((const uint16_t *)in, (uint16_t *)out, plan);
    else
        naive_permute<<<grid, COPY_BLOCK, 0, stream>>>((const uint32_t *)in, (uint32_t *)out, plan);
    return threads_launched(grid, dim3(COPY_BLOCK));
}

#endif /* TRANSPOSE_PERMUTE_KERNELS_CUH */
