// Generated from steps/14_dispatch/dispatch_f32.cuh and steps/14_dispatch/dispatch_bf16.cuh and the headers they include, by `make amalgamate`
// (python3 -m lab.amalgamate). Do not edit: edit those files and run it again.
#ifndef TRANSPOSE_KERNELS_CUH
#define TRANSPOSE_KERNELS_CUH

// ---- from steps/14_dispatch/dispatch_f32.cuh ----
/**
 * @file dispatch_f32.cuh
 * @brief The float32 rule: which kernel of the tutorial runs on a given
 *        shape, pointers and GPU.
 *
 * No one kernel of the tutorial is the fastest on every shape (the sweeps
 * in docs/results/ on the H200 and the H100). The rule decides between
 * launches that are each bit-exact on every shape:
 *
 * | the matrix                                       | launch                              |
 * | ------------------------------------------------ | ----------------------------------- |
 * | one row or one column (a vector)                 | step 11's chunk kernel: a copy      |
 * | 2-55 rows (2-31 of whole aligned chunks), or 2-31 columns | slabs of 16-byte chunks    |
 * | 56-60 rows, a multiple of 4, rows of `in` not whole chunks | step 11's chunk kernel  |
 * | other matrices of fewer than 64 rows, or 32-63 columns of whole aligned chunks | step 09's launch |
 * | rows of `out` whole chunks (rows a multiple of 4), rows of `in` not | step 11's chunk kernel |
 * | rows not whole chunks, in a quarter of L2                     | step 09's 4-byte tiles              |
 * | under 128 columns, rows neither way whole chunks, columns filling at most 2/3 of their 64-column tiles | step 09's 4-byte tiles |
 * | rows of whole aligned chunks, rows of `out` on 64 bytes or the matrix in L2, up to the GPU's limit (a second limit where the rows are a power of two) | a 16-byte tile kernel: step 09's, or tiles_down.cuh's, per GPU |
 * | anything else, from a size measured per GPU, if tiles of 96 rows pad few more rows than tiles of 64 | step 11's default, sector runs of 96 floats |
 * | anything else                                    | step 11's default                   |
 *
 * Where step 11's sector runs run, their loads ask L2 for the 256 bytes
 * around each chunk if one column of tiles, `in` and `out`, fits in a
 * quarter of L2 (sr_lines_reused()); then the tile beside, one column
 * later, finds the rest of its lines in L2 (`make study
 * STUDIES=lines`).
 *
 * Why each row: on a matrix of few rows or columns, a 64x64 tile is
 * mostly empty, and a block moves too few bytes to pay for its start; a
 * slab along the long side does, moving 16-byte chunks (slab_chunks_pay();
 * `make study STUDIES=narrow` times them all on matrices of 2-63 rows and
 * columns). Step 09's tiles kept up from 56 rows, and from 32 rows or
 * columns of whole chunks; where only the rows of `out` are whole chunks,
 * step 11's chunk kernel led them, writing 16 bytes at a time. Up to a
 * size that depends on the GPU, a 16-byte tile kernel led step 11's;
 * beyond it, and wherever rows are not whole aligned chunks, step 11's
 * kernel did. Which tile kernel is measured per GPU too (rules.h). Step
 * 09's kernel writes 256 bytes of a row of `out` per tile, wherever that
 * row starts: on a matrix larger than L2 whose rows of `out` do not start
 * on 64 bytes it fell behind step 11's sector runs (f32_out_rows_fit();
 * `make study STUDIES=pitch`); in L2 the pieces of a row meet before they reach
 * DRAM. Matrices with a power-of-two number of rows, whose rows of `out`
 * are a power of two bytes apart, get a limit of their own. From a size on,
 * step 11's sector runs of 96 floats led those of 64; a run of 96 floats
 * spans 96 rows of `in`, so the rule takes them only where the last tile's
 * padding adds at most 1/4 of the rows (long_runs_fill(); `make
 * study STUDIES=runs`). The sizes of each GPU are a row of rules.h; any other GPU
 * gets the default documented there.
 *
 * Two rows were read off shapes past the bar's (`make study
 * STUDIES=dispatch`: weights, vocabularies and odd sizes): where the
 * rows of `out` are whole chunks and those of `in` are not (768 x 50257,
 * 6000 x 6001), the chunk kernel led the sector runs at any number of
 * rows, as it did from 56 rows; where rows are not whole chunks, step
 * 09's 4-byte tiles led in a quarter of L2 (1001 x 1003, 197 x 768). On
 * tall matrices of few columns neither way whole chunks, they won on some
 * (1000003 x 33 and x 77) and lost on others (3000003 x 57, 1800001 x
 * 113). A study of fifteen such matrices (`make study STUDIES=tall`, 33 to
 * 127 columns) split them by one quantity: the share of its 64-column
 * tiles a row fills, cols / (64 ceil(cols / 64)). The tiles led where it
 * was under 2/3, the sector runs above (tall_tiles_pay()). A set of
 * shapes never used to fit the rule checks it (`make study
 * STUDIES=held-out`).
 *
 * f32_pick() and f32_gpu_named() are the decision alone, so
 * tests/test_tiles.cu checks them on the host; f32_launch_choice() carries
 * it out. Nothing here exits or prints: a failed CUDA call is returned.
 */
#ifndef TRANSPOSE_DISPATCH_F32_CUH
#define TRANSPOSE_DISPATCH_F32_CUH

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cuda_runtime.h>

// ---- from steps/14_dispatch/rules.h ----
/**
 * @file rules.h
 * @brief The measured half of the float32 rule (dispatch_f32.cuh): for each
 *        GPU measured, which 64x64 16-byte tile kernel runs and up to which
 *        size, and from which size step 11's sector runs are 96 floats long.
 *
 * One row per GPU, named as the driver names it (cudaDeviceProp::name, the
 * `gpu` column of the sweeps in docs/results/). Each size was read off the
 * GPU's committed sweep (`docs/results/<gpu>.csv`, `make bench`) the same way:
 * group the swept shapes where the choice applies by size in bytes, take
 * the average % of copy that one kernel gains over the other at each size,
 * and split where the running sum of those gains, smallest size first,
 * peaks: the one limit that loses the fewest points over the sizes swept.
 *
 * - **tiles up to**: the 16-byte tile kernel against step 11's default, on
 *   matrices of whole aligned chunks whose rows of `out` start on 64 bytes.
 * - **rows a power of two**: the same, on matrices with a power-of-two
 *   number of rows (rows of `out` a power of two bytes apart), read off the
 *   sweep and the GPU's pitch study (`make study STUDIES=pitch`), which times them
 *   past the sweep's sizes.
 * - **long runs from**: step 11's sector runs of 96 floats against those of
 *   64, on rows that are not whole chunks, read from the largest size down;
 *   on the H200 also off the dispatch study's shapes (`make study
 *   STUDIES=dispatch`), where the long runs led from 333 x 25000 (32 MiB)
 *   and step 09's tiles took the odd matrices in a quarter of L2.
 * - **lines from**: the fewest rows on which step 11's sector runs ask L2
 *   for whole lines (where a column of tiles fits in a quarter of L2,
 *   sr_lines_reused()). On the H100 the lines gained from 10007 rows; on
 *   the H200 they lost up to 10007 rows (333 x 25000, 4097 x 4095, 10007 x
 *   7919) and gained from 16385 (`make study STUDIES=lines`).
 * - **tiles_down**: the tile kernel, tiles_down.cuh's where it gained more
 *   over step 11's default than step 09's kernel did and trailed it by at
 *   most 2 points at every swept shape; on the H100 it trailed by more at
 *   50000 x 3000, where its tiles down a matrix of few columns read each
 *   row of `in` in 256-byte pieces.
 *
 * Whether the rule picks the faster kernel is measured, not assumed: the
 * write-ups time the dispatch beside every kernel it chooses between on the
 * narrow, pitch and runs studies, and say per GPU where it falls behind
 * (docs/last-points.md).
 *
 * A GPU without a row gets the **default**: step 09's kernel up to the size
 * of its L2 for both limits, below which step 09's kernel led on every GPU
 * measured, no long runs, and lines wherever they are reused. To add a
 * GPU: run `make bench` and `make study` on it, read its row as above, and
 * add it here.
 */
#ifndef TRANSPOSE_RULES_H
#define TRANSPOSE_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Bytes in a MiB: the limits are sizes of swept matrices, in MiB where they are whole. */
#define RULES_MIB ((size_t)1 << 20)

/** A size no matrix reaches: the GPU never takes the long runs. */
#define RULES_NEVER SIZE_MAX

/** @brief One measured GPU: its name as the driver reports it, its tile kernel and its three sizes. */
struct f32_rules {
    const char *gpu;          /**< cudaDeviceProp::name */
    size_t tiles_up_to;       /**< the 16-byte tile kernel up to this size in bytes, step 11's beyond */
    size_t tiles_pow2_up_to;  /**< the same on a matrix with a power-of-two number of rows */
    size_t long_runs_from;    /**< step 11's sector runs of 96 floats from this size, of 64 below */
    bool tiles_down;          /**< the tile kernel: tiles_down.cuh's if true, step 09's if false */
    size_t lines_from_rows;   /**< step 11's sector runs ask L2 for lines from this many rows (where reused) */
};

/** One row per GPU of docs/results/gpus.csv. */
static const struct f32_rules F32_RULES[] = {
    /* GPU                    tiles up to       rows a power of two  long runs from  tiles_down  lines from  read off */
    {"NVIDIA H100 80GB HBM3", 1024 * RULES_MIB, 4096 * RULES_MIB, 67141636, false, 0},  /* h100-80gb-hbm3{,-pitch}.csv */
    {"NVIDIA H200", 1024 * RULES_MIB, 4096 * RULES_MIB, 16 * RULES_MIB, true, 16384},   /* h200{,-dispatch,-lines}.csv */
};

#endif /* TRANSPOSE_RULES_H */
// ---- end of steps/14_dispatch/rules.h ----
// ---- from steps/14_dispatch/per_device.cuh ----
/**
 * @file per_device.cuh
 * @brief What a rule needs to know of a GPU, asked once per device and kept.
 *
 * The rules read the GPU's name, L2 size or occupancy: calls that take
 * microseconds or more, too slow to make before every launch. per_device()
 * asks them on the first launch on each device and keeps the answer, so a
 * program that moves between GPUs (cudaSetDevice()) gets each GPU's own
 * rule. A mutex keeps two threads from filling the same entry at once.
 */
#ifndef TRANSPOSE_PER_DEVICE_CUH
#define TRANSPOSE_PER_DEVICE_CUH

#include <mutex>
#include <cuda_runtime.h>

/** Devices whose facts are kept; a device numbered higher is asked at every call. */
#define PER_DEVICE_KEPT 64

/**
 * @brief @p Ask's answer for the current device into @p facts: asked on the
 *        first call for that device, kept after; a CUDA error leaves
 *        nothing kept and is returned.
 */
template <class Facts, cudaError_t (*Ask)(Facts *)>
static cudaError_t per_device(Facts *facts)
{
    static std::mutex guard;
    static Facts kept[PER_DEVICE_KEPT];
    static bool asked[PER_DEVICE_KEPT];
    int device;
    const cudaError_t found = cudaGetDevice(&device);
    if (found != cudaSuccess)
        return found;
    if (device >= PER_DEVICE_KEPT)
        return Ask(facts);
    const std::lock_guard<std::mutex> hold(guard);
    if (!asked[device]) {
        const cudaError_t err = Ask(&kept[device]);
        if (err != cudaSuccess)
            return err;
        asked[device] = true;
    }
    *facts = kept[device];
    return cudaSuccess;
}

#endif /* TRANSPOSE_PER_DEVICE_CUH */
// ---- end of steps/14_dispatch/per_device.cuh ----
// ---- from steps/09_shared64/shared64.cuh ----
/**
 * @file shared64.cuh
 * @brief Step 09's two kernels: a 64x64 tile moved with float4 loads and
 *        stores through a chunk-swizzled shared tile, and the same tile
 *        moved with 4-byte accesses for any shape. Step 09 teaches them
 *        (steps/09_shared64/shared64.cu); they live here because the
 *        capstone's float32 rule runs them too (steps/14_dispatch/dispatch_f32.cuh).
 */
#ifndef TRANSPOSE_SHARED64_CUH
#define TRANSPOSE_SHARED64_CUH

#include <stddef.h>
#include <cuda_runtime.h>

// ---- from common/kernel_utils.cuh ----
/**
 * @file kernel_utils.cuh
 * @brief Small helpers that the steps' launchers and kernels share.
 *
 * The grid is limited to 2^31-1 blocks in x and 65535 in y. A 5,000,000 x 3
 * matrix cut into 32-row tiles needs 156,250 tiles in one direction, so no
 * launcher may map tiles to blocks one to one. Instead each launcher asks
 * grid_for_tiles() for a grid no larger than the limits, and each kernel
 * walks the tiles with grid-stride loops:
 * @code
 * for (size_t tile_row = blockIdx.y; tile_row < tiles_y; tile_row += gridDim.y)
 *     for (size_t tile_col = blockIdx.x; tile_col < tiles_x; tile_col += gridDim.x)
 *         ...
 * @endcode
 * On ordinary shapes each block does exactly one tile and the loops cost
 * one compare each.
 */
#ifndef TRANSPOSE_KERNEL_UTILS_CUH
#define TRANSPOSE_KERNEL_UTILS_CUH

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime.h>

/** @brief Largest grid size in x that every GPU of compute capability 3.0+ accepts. */
#define MAX_GRID_X 2147483647u
/** @brief Largest grid size in y and z. */
#define MAX_GRID_Y 65535u

/**
 * @brief Most threads one multiprocessor holds at once, on the GPU being
 *        compiled for: the one occupancy table of this repository.
 *
 * | compute capability           | threads | 256-thread blocks |
 * | ---------------------------- | ------- | ----------------- |
 * | 8.0, 9.0, 10.0               | 2048    | 8                 |
 * | 8.6, 8.7, 8.9, 12.0          | 1536    | 6                 |
 * | 7.5 (Turing)                 | 1024    | 4                 |
 *
 * A GPU not in the table gets the middle row: asking `__launch_bounds__`
 * for too few blocks costs occupancy, asking for too many costs spills.
 * The host pass of nvcc sees no `__CUDA_ARCH__`; `__launch_bounds__` is
 * only read by the device passes, so the host value does not matter.
 */
#if !defined(__CUDA_ARCH__)
#define MAX_THREADS_PER_SM 2048
#elif __CUDA_ARCH__ == 750
#define MAX_THREADS_PER_SM 1024
#elif __CUDA_ARCH__ == 800 || __CUDA_ARCH__ == 900 || __CUDA_ARCH__ == 1000
#define MAX_THREADS_PER_SM 2048
#else
#define MAX_THREADS_PER_SM 1536
#endif

/**
 * @brief Most blocks of @p threads threads one multiprocessor holds, as far
 *        as its thread limit goes (for blocks of 128 threads or more, the
 *        limit that binds). For `__launch_bounds__(threads, blocks)`.
 */
#define MAX_BLOCKS_PER_SM(threads) (MAX_THREADS_PER_SM / (threads))

/**
 * @brief `#pragma unroll` for code that also runs on the host (steps 11 and
 *        12, tested by tests/test_tiles.cu): only the device compiler knows it.
 */
#ifdef __CUDA_ARCH__
#define UNROLL_ON_DEVICE _Pragma("unroll")
#else
#define UNROLL_ON_DEVICE
#endif

/** @brief a / b, rounded up. */
static inline __host__ __device__ size_t ceil_div(size_t a, size_t b)
{
    return (a + b - 1) / b;
}

/**
 * @brief A grid of tiles_x x tiles_y blocks, clamped to the grid limits.
 *
 * Kernels launched on it must walk the tiles with grid-stride loops
 * (see the file comment), so clamping never drops work.
 */
static inline dim3 grid_for_tiles(size_t tiles_x, size_t tiles_y)
{
    dim3 grid;
    grid.x = (unsigned)(tiles_x < MAX_GRID_X ? tiles_x : MAX_GRID_X);
    grid.y = (unsigned)(tiles_y < MAX_GRID_Y ? tiles_y : MAX_GRID_Y);
    grid.z = 1;
    return grid;
}

/**
 * @brief When loads of `in` ask L2 for more than the sectors they read
 *        (steps 12 and 13): never, always, or where lines_reused() holds.
 */
enum lines_rule { LINES_NEVER, LINES_ALWAYS, LINES_WHERE_REUSED };

/**
 * @brief True where the rest of a block that one tile's loads fetched
 *        whole is still in an L2 of @p l2_bytes when the tile beside reads
 *        it. Tiles go down a column first, so the tile beside comes one
 *        column of tiles later; in between, that column's pieces of `in` and
 *        `out` (@p column_bytes together) pass through L2. Whole blocks pay
 *        where those fill at most a quarter of it (appendices 12 and 13).
 */
static inline __host__ __device__ bool lines_reused(size_t column_bytes, size_t l2_bytes)
{
    return column_bytes <= l2_bytes / 4;
}

/** @brief True when @p p may be read or written as a float4 (16-byte aligned). */
static inline __host__ __device__ bool is_aligned_16(const void *p)
{
    return ((uintptr_t)p & 15u) == 0;
}

/** @brief Total number of threads in a launch of @p grid x @p block. */
static inline size_t threads_launched(dim3 grid, dim3 block)
{
    return (size_t)grid.x * grid.y * grid.z * block.x * block.y * block.z;
}

/**
 * @brief An attribute of the current GPU (cudaDevAttrL2CacheSize, ...), or
 *        0 where the runtime cannot say: kernel code never exits, and the
 *        error stays for the caller's cudaGetLastError().
 */
static inline int device_attribute(cudaDeviceAttr attribute)
{
    int device, value;
    if (cudaGetDevice(&device) != cudaSuccess || cudaDeviceGetAttribute(&value, attribute, device) != cudaSuccess)
        return 0;
    return value;
}

/** Threads per block of the copy kernel. */
#define COPY_THREADS 256

/**
 * @brief out[i] = in[i] for i < count elements of type T, 16 bytes at a
 *        time where possible: the copy bound's kernel, and the transpose
 *        of a matrix of one row or one column.
 *
 * The first `head` elements (fewer than 16 bytes) are copied one by one so
 * that the rest starts on a 16-byte boundary; `vec_count` 16-byte chunks
 * follow; the last elements are again copied one by one. head is the same
 * for both pointers (the launcher checks this), otherwise it launches with
 * vec_count = 0 and everything takes the one-by-one loop.
 */
template <class T>
static __global__ void copy_chunks(const T *__restrict__ in, T *__restrict__ out, size_t count, size_t head,
                                   size_t vec_count)
{
    constexpr size_t per_chunk = 16 / sizeof(T);
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const uint4 *in16 = reinterpret_cast<const uint4 *>(in + head);
    uint4 *out16 = reinterpret_cast<uint4 *>(out + head);
    for (size_t i = first; i < vec_count; i += stride)
        out16[i] = in16[i];
    // One by one: the head, and everything after the chunks.
    const size_t tail_start = head + per_chunk * vec_count;
    for (size_t i = first; i < head + (count - tail_start); i += stride) {
        const size_t index = i < head ? i : tail_start + (i - head);
        out[index] = in[index];
    }
}

/** @brief Launch copy_chunks<T>() over @p count elements: 16-byte chunks if both pointers sit alike. */
template <class T>
static inline size_t copy_elements_launch(const T *in, T *out, size_t count, cudaStream_t stream)
{
    constexpr size_t per_chunk = 16 / sizeof(T);
    const size_t head = (per_chunk - ((uintptr_t)in & 15) / sizeof(T)) % per_chunk;  // until `in` is aligned
    const int same_alignment =
        ((uintptr_t)in & 15) == ((uintptr_t)out & 15) && ((uintptr_t)in % sizeof(T)) == 0;
    const size_t vec_count = same_alignment && count > head ? (count - head) / per_chunk : 0;
    const size_t scalar_head = vec_count > 0 ? head : 0;
    const size_t work = vec_count > 0 ? vec_count : count;
    const dim3 block(COPY_THREADS);
    const dim3 grid = grid_for_tiles(ceil_div(work, COPY_THREADS), 1);
    copy_chunks<T><<<grid, block, 0, stream>>>(in, out, count, scalar_head, vec_count);
    return threads_launched(grid, block);
}

#endif /* TRANSPOSE_KERNEL_UTILS_CUH */
// ---- end of common/kernel_utils.cuh ----
// ---- from steps/09_shared64/tile64.cuh ----
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

// (common/kernel_utils.cuh: above)

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
// ---- end of steps/09_shared64/tile64.cuh ----
                        // transpose_tile_words()

/**
 * @brief The 16-byte kernel: 4 float4 loads and 4 float4 stores per thread
 *        and tile, through a chunk-swizzled 64x64 shared tile.
 *
 * Only valid when vec4_fits() (the launcher checks): then a tile's height
 * and width are multiples of 4 and edge tiles need only a per-chunk check.
 */
static __global__ void __launch_bounds__(THREADS, REGISTER_LOAD_BLOCKS_PER_SM)
transpose_shared64_vec4(const float *__restrict__ in, float *__restrict__ out,
                        size_t rows, size_t cols)
{
    __shared__ float4 tile[TILE * CHUNKS_PER_ROW];   // 16 KB, laid out by chunk_slot()

    const unsigned tid = threadIdx.y * BLOCK_COLS + threadIdx.x;   // 0..255
    // Load role: row tid / 16 (+ 16 per pass), chunk tid % 16, so a warp
    // reads 2 rows x 256 contiguous bytes.
    const unsigned load_row = tid / CHUNKS_PER_ROW;    // row inside the tile, first pass
    const unsigned load_chunk = tid % CHUNKS_PER_ROW;  // chunk (4 columns) inside the tile
    // Store role: one 4x4 block of the tile, chosen by store_block_vec4() from tid.
    // `out` as float4s: 16-byte aligned, and rows % 4 == 0 makes each of its rows whole float4s.
    float4 *out4 = reinterpret_cast<float4 *>(out);

    const size_t tiles_y = ceil_div(rows, TILE);
    const size_t tiles_x = ceil_div(cols, TILE);
    for (size_t tile_y = blockIdx.y; tile_y < tiles_y; tile_y += gridDim.y) {
        for (size_t tile_x = blockIdx.x; tile_x < tiles_x; tile_x += gridDim.x) {
            const size_t row0 = tile_y * TILE;                 // first row of `in` in this tile
            const size_t col0 = tile_x * TILE;                 // first column of `in` in this tile
            const unsigned height = tile_extent(rows, row0);   // a multiple of 4
            const unsigned width = tile_extent(cols, col0);    // a multiple of 4

            // Load: all 4 loads are issued before the first shared store
            // waits for its data.
            const float *src = in + (row0 + load_row) * cols + col0 + load_chunk * VEC;
            const bool chunk_in = load_chunk * VEC < width;
            float4 v[TILE / ROWS_PER_PASS];
#pragma unroll
            for (unsigned p = 0; p < TILE / ROWS_PER_PASS; ++p)
                if (chunk_in && load_row + p * ROWS_PER_PASS < height)
                    v[p] = *reinterpret_cast<const float4 *>(src + p * ROWS_PER_PASS * cols);
#pragma unroll
            for (unsigned p = 0; p < TILE / ROWS_PER_PASS; ++p)
                if (chunk_in && load_row + p * ROWS_PER_PASS < height)
                    tile[chunk_slot(load_row + p * ROWS_PER_PASS, load_chunk)] = v[p];
            __syncthreads();   // the whole tile is in shared memory

            // Store: read the 4x4 block as 4 rows, write it as 4 columns.
            store_block_vec4(tile, out4, rows, row0, col0, height, width, tid);
            __syncthreads();   // everyone is done reading before the next tile overwrites it
        }
    }
}

/**
 * @brief The 4-byte kernel: the same 64x64 tile and 32x8 block for any shape
 *        and any 4-byte-aligned pointers, with 16 loads in flight per thread
 *        (transpose_tile_words() in tile64.cuh).
 */
static __global__ void __launch_bounds__(THREADS, REGISTER_LOAD_BLOCKS_PER_SM)
transpose_shared64_scalar(const float *__restrict__ in, float *__restrict__ out,
                          size_t rows, size_t cols)
{
    __shared__ float tile[TILE * TILE];   // 16 KB, laid out by word_slot()

    const size_t tiles_y = ceil_div(rows, TILE);
    const size_t tiles_x = ceil_div(cols, TILE);
    for (size_t tile_y = blockIdx.y; tile_y < tiles_y; tile_y += gridDim.y)
        for (size_t tile_x = blockIdx.x; tile_x < tiles_x; tile_x += gridDim.x)
            transpose_tile_words<load_through_registers>(tile, in, out, rows, cols, tile_y * TILE,
                                                         tile_x * TILE, threadIdx.x, threadIdx.y);
}

/**
 * @brief Launch one 32x8 block per 64x64 tile, tiles along rows (blockIdx.x
 *        runs along a row of tiles), the grid clamped to its limits: the
 *        16-byte kernel when @p vectors and vec4_fits(), else the 4-byte one.
 */
static inline size_t shared64_launch(const float *in, float *out, size_t rows, size_t cols, bool vectors,
                                     cudaStream_t stream)
{
    const dim3 block(BLOCK_COLS, BLOCK_ROWS);
    const dim3 grid = grid_for_tiles(ceil_div(cols, TILE), ceil_div(rows, TILE));
    if (vectors && vec4_fits(in, out, rows, cols))
        transpose_shared64_vec4<<<grid, block, 0, stream>>>(in, out, rows, cols);
    else
        transpose_shared64_scalar<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

#endif /* TRANSPOSE_SHARED64_CUH */
// ---- end of steps/09_shared64/shared64.cuh ----
// ---- from steps/11_any_shape/any_shape.cuh ----
/**
 * @file any_shape.cuh
 * @brief Step 11's kernel: 16-byte global loads and stores on rows of any
 *        length and any 4-byte alignment, for steps 11 and 12.
 *
 * Steps 09 and 10 use float4 only when every row starts on a 16-byte
 * boundary (step 05 shifts its quads, but only along rows of whole
 * chunks). Here the matrix is seen as what memory really is: one flat array of
 * aligned 16-byte *chunks*. A row that starts in the middle of a chunk is
 * still made of whole chunks, plus a few floats at each end:
 *
 * - **Load.** For each row of its 64x64 tile, the block reads the aligned
 *   chunks that cover the row's 64 floats: 16, or 17 when the row starts
 *   mid-chunk. Each float is then put at its own column of the shared
 *   tile, which undoes the row's shift (`shift`, 0-3 floats).
 * - **Store.** Each row of `out` that the tile touches is a run of up to 64
 *   floats. Its aligned chunks that lie wholly inside the run are written
 *   as float4; the 0-3 floats before the first and after the last are
 *   written one by one. Every float of `out` belongs to exactly one tile,
 *   so every float is written exactly once.
 *
 * Only the first and last chunk of the whole input can stick out of the
 * matrix; those are read float by float. Nothing else is ever 4 bytes wide.
 *
 * The per-thread functions take the thread's index as an argument and run
 * on the host too: tests/test_tiles.cu plays a whole block, thread by
 * thread, on every shape and alignment, without a GPU.
 */
#ifndef TRANSPOSE_ANY_SHAPE_CUH
#define TRANSPOSE_ANY_SHAPE_CUH

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime.h>

// (common/kernel_utils.cuh: above)
// (steps/09_shared64/tile64.cuh: above)
                        // rows_are_whole_chunks()
// ---- from steps/11_any_shape/sector_runs.cuh ----
/**
 * @file sector_runs.cuh
 * @brief Step 11's kernel for odd shapes: tiles whose runs of `out` start
 *        on 32-byte sector boundaries, so that every store instruction fills
 *        whole sectors whatever the shape.
 *
 * On a row of `out` that does not start on a sector boundary, a 64-float
 * tile column (a *run* of `out`) spans 9 sectors instead of 8, and the first
 * and last are shared with the runs of the tiles above and below: every
 * store instruction of a warp (32 floats, 128 bytes) then touches 5 sectors
 * instead of 4, two of them partly. Here a tile owns, in each row `j` of
 * `out`, the run that starts at the row's first sector boundary at or after
 * 64 k (`k`: the tile's row of tiles), and ends where the next tile's run
 * begins. The runs of one row partition it, and each (but the row's first)
 * starts on a sector boundary.
 *
 * The price is on the load side: a tile column now needs rows `64 k` to
 * `64 k + 71` of `in` (up to 7 more than 64, depending on the row of `out`),
 * so the tile is 72 rows tall. Each of those rows is read as the aligned
 * 16-byte chunks that cover it (17, as step 11's chunk kernel reads a row
 * that starts mid-chunk), so loads are 16 bytes wide whatever the shape;
 * stores stay 4 bytes wide, 32 consecutive floats from a sector boundary.
 *
 * **Longer runs.** The tile's run length is a template parameter, `Run`:
 * 64 floats (256 bytes, 72 x 64 tiles) by default, or 96 (384 bytes, 104 x
 * 64 tiles). Longer runs write each row of `out` in fewer pieces, and each
 * multiprocessor holds more loads in flight, at the price of larger tiles
 * and fewer blocks per multiprocessor; which length is faster depends on
 * the GPU and the size (appendix 11).
 *
 * The per-thread functions take the thread's index and run on the host too:
 * tests/test_tiles.cu plays a whole block on every shape and alignment.
 */
#ifndef TRANSPOSE_SECTOR_RUNS_CUH
#define TRANSPOSE_SECTOR_RUNS_CUH

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime.h>

// (common/kernel_utils.cuh: above)
// (steps/09_shared64/tile64.cuh: above)

/** Floats in a 32-byte sector. */
#define SR_SECTOR 8
/** Rows of `in` a tile of runs of @p run floats may need: @p run plus up to 7 for the shift of a run. */
#define SR_ROWS(run) ((run) + SR_SECTOR)
/** Floats in a run of `out`: the default tile's, 64. */
#define SR_RUN TILE
/** Floats in a long run: 96 (384 bytes), the longest whose 7 loads a thread fit 4 blocks' registers. */
#define SR_LONG_RUN (3 * TILE / 2)
/** Floats per row of the shared tile: 64 + 1, so that a column read is conflict-free. */
#define SR_STRIDE (TILE + 1)
/** Rows of `out` each warp writes: 64 rows, 8 warps. */
#define SR_ROWS_PER_WARP (TILE / (THREADS / 32))

/**
 * Blocks per multiprocessor wanted: 5 x 256 threads leave 48 registers,
 * enough for the 5 chunks a thread loads before it stores; a tile of long
 * runs holds 7 chunks per thread, and 4 blocks leave 64 registers for them.
 * A register more than the limit spills the held chunks to local memory,
 * which costs far more than the blocks gain (appendix 11).
 */
#define SR_BLOCKS_WANTED(run) ((run) > TILE ? 4 : 5)
/** The same for `__launch_bounds__`, no more than the multiprocessor's thread limit allows. */
#define SR_BLOCKS_PER_SM(run) \
    (MAX_BLOCKS_PER_SM(THREADS) < SR_BLOCKS_WANTED(run) ? MAX_BLOCKS_PER_SM(THREADS) : SR_BLOCKS_WANTED(run))


/**
 * @brief The floats from the start of row @p j of `out` to its first sector
 *        boundary (0-7), for `out` starting @p lead floats past a boundary.
 */
static __host__ __device__ __forceinline__ unsigned sr_row_shift(size_t rows, unsigned lead, size_t j)
{
    return (unsigned)((SR_SECTOR - (j * rows + lead) % SR_SECTOR) % SR_SECTOR);
}

/**
 * @brief The run of row @p j of `out` that the tiles at row0 = Run k own:
 *        [first, last) in columns of `out` (rows of `in`).
 */
template <unsigned Run>
static __host__ __device__ __forceinline__ void sr_run(size_t rows, unsigned lead, size_t row0, size_t j,
                                                       size_t *first, size_t *last)
{
    const size_t shift = sr_row_shift(rows, lead, j);
    const size_t start = row0 == 0 ? 0 : row0 + shift;
    const size_t end = row0 + Run + shift;
    *first = start < rows ? start : rows;
    *last = end < rows ? end : rows;
}

/** @brief Rows of `in` the tile at @p row0 loads: Run + 8, or fewer at the matrix's end. */
template <unsigned Run>
static __host__ __device__ __forceinline__ unsigned sr_height(size_t rows, size_t row0)
{
    return rows - row0 < SR_ROWS(Run) ? (unsigned)(rows - row0) : SR_ROWS(Run);
}

/** Aligned 16-byte chunks that cover 64 floats starting anywhere in a chunk. */
#define SR_CHUNKS_PER_ROW (TILE / 4 + 1)
/** Chunk loads per tile: 72 rows of 17 chunks (104 rows for long runs). */
#define SR_CHUNK_ITEMS(run) (SR_ROWS(run) * SR_CHUNKS_PER_ROW)
/** Chunk loads per thread: 1224 over 256 threads, 5 (1768 for long runs, 7). */
#define SR_LOAD_PASSES(run) ((SR_CHUNK_ITEMS(run) + THREADS - 1) / THREADS)

/** @brief One chunk of a tile row, loaded but not yet put in the tile. */
struct sr_chunk {
    float4 value;   /**< the 16 bytes */
    int column;     /**< tile column of value.x: 4k - shift, may be negative */
    unsigned row;   /**< tile row */
    bool held;      /**< value is to be put in the tile */
};

/**
 * @brief Load the 16-byte chunk at @p p of `in`. With @p Lines, the load
 *        asks L2 to fetch the aligned 256 bytes around it, two 128-byte
 *        lines (`ld.global.nc.L2::256B`, LDG.E.LTC256B in the SASS);
 *        without, the 32-byte sectors it reads.
 *
 * A tile's 17 chunks of a row of `in` start and end inside such lines,
 * whose rest the tiles beside it read. Asked for sectors, L2 fetches those
 * parts from DRAM one by one; asked for lines, it fetches them once, and
 * the tile beside finds its part in L2 if it is still there
 * (sr_lines_reused()). Step 13 asks for 128 bytes; a float32 piece is
 * 17 chunks, 272 bytes from a 16-byte boundary, and the two aligned
 * 256-byte blocks around it always cover it.
 */
template <bool Lines>
static __host__ __device__ __forceinline__ float4 sr_fetch(const float4 *p)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800   // the hint is PTX for sm_80 and newer
    if (Lines) {
        float4 v;
        asm("ld.global.nc.L2::256B.v4.f32 {%0, %1, %2, %3}, [%4];"
            : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
            : "l"(p));
        return v;
    }
#endif
    return *p;
}

/**
 * @brief lines_reused() for the sector runs on @p rows rows: one column of
 *        tiles holds rows x 64 floats of `in` and of `out`, rows x 512 bytes
 *        (a quarter of the H100's 50 MiB L2 at 25600 rows).
 */
static __host__ __device__ __forceinline__ bool sr_lines_reused(size_t rows, size_t l2_bytes)
{
    return lines_reused(2 * rows * TILE * sizeof(float), l2_bytes);
}

/**
 * @brief Start load @p p of thread @p tid: chunk k of tile row r, item
 *        `p * THREADS + tid` = r * 17 + k. The two chunks of the whole
 *        matrix that stick out of it are read float by float, straight
 *        into the tile.
 */
template <unsigned Run, bool Lines>
static __host__ __device__ __forceinline__ sr_chunk sr_load_chunk(float *tile, const float *in, size_t count,
                                                                  size_t cols, size_t row0, size_t col0,
                                                                  unsigned height, unsigned width, unsigned p,
                                                                  unsigned tid)
{
    sr_chunk c;
    c.held = false;
    const unsigned item = p * THREADS + tid;
    c.row = item / SR_CHUNKS_PER_ROW;
    const unsigned k = item % SR_CHUNKS_PER_ROW;
    if (item >= SR_CHUNK_ITEMS(Run) || c.row >= height)
        return c;
    const unsigned lead = (unsigned)((uintptr_t)in & 15) / sizeof(float);
    const float4 *chunks = reinterpret_cast<const float4 *>(in - lead);
    const size_t flat = (row0 + c.row) * cols + col0 + lead;   // the row's first float, from `chunks`
    c.column = (int)(k * 4) - (int)(flat % 4);
    if (c.column >= (int)width)
        return c;
    const size_t chunk = flat / 4 + k;
    if (chunk * 4 >= lead && chunk * 4 + 4 <= lead + count) {
        c.value = sr_fetch<Lines>(&chunks[chunk]);   // LDG.E.128 (LDG.E.LTC256B.128 with Lines)
        c.held = true;
        return c;
    }
    const float *floats = reinterpret_cast<const float *>(chunks);
    for (unsigned e = 0; e < 4; ++e) {
        const int col = c.column + (int)e;
        const size_t at = chunk * 4 + e;
        if (col >= 0 && col < (int)width && at >= lead && at < lead + count)
            tile[c.row * SR_STRIDE + col] = floats[at];
    }
    return c;
}

/**
 * @brief Load rows row0 .. row0 + Run + 7 of the tile's 64 columns of `in` (those
 *        inside the matrix) into @p tile, 16 bytes at a time: each row as the
 *        aligned chunks that cover it, every float put at its own column.
 *        All of a thread's loads are issued before the first is stored.
 */
template <unsigned Run, bool Lines = false>
static __host__ __device__ __forceinline__ void sr_load_tile(float *tile, const float *in, size_t rows, size_t cols,
                                                             size_t row0, size_t col0, unsigned width, unsigned tid)
{
    const unsigned height = sr_height<Run>(rows, row0);
    sr_chunk c[SR_LOAD_PASSES(Run)];
UNROLL_ON_DEVICE
    for (unsigned p = 0; p < SR_LOAD_PASSES(Run); ++p)
        c[p] = sr_load_chunk<Run, Lines>(tile, in, rows * cols, cols, row0, col0, height, width, p, tid);
UNROLL_ON_DEVICE
    for (unsigned p = 0; p < SR_LOAD_PASSES(Run); ++p) {
        if (!c[p].held)
            continue;
        const float v[4] = {c[p].value.x, c[p].value.y, c[p].value.z, c[p].value.w};
UNROLL_ON_DEVICE
        for (unsigned e = 0; e < 4; ++e) {
            const int col = c[p].column + (int)e;
            if (col >= 0 && col < (int)width)
                tile[c[p].row * SR_STRIDE + col] = v[e];
        }
    }
}

/**
 * @brief Write the tile's runs: warp w writes rows w, w + 8, ... of the
 *        tile's 64 rows of `out`, 32 consecutive floats per instruction from
 *        the run's first (sector-aligned) float.
 */
template <unsigned Run>
static __host__ __device__ __forceinline__ void sr_store_tile(const float *tile, float *out, size_t rows,
                                                              unsigned lead, size_t row0, size_t col0,
                                                              unsigned width, unsigned tid)
{
    const unsigned lane = tid % 32, warp = tid / 32;
UNROLL_ON_DEVICE
    for (unsigned m = 0; m < SR_ROWS_PER_WARP; ++m) {
        const unsigned cc = warp + m * (THREADS / 32);   // tile column = row col0 + cc of `out`
        if (cc >= width)
            continue;
        size_t first, last;
        sr_run<Run>(rows, lead, row0, col0 + cc, &first, &last);
UNROLL_ON_DEVICE
        for (unsigned i = lane; i < SR_ROWS(Run); i += 32) {   // a run is at most Run + 7 floats
            const size_t r = first + i;
            if (r < last)
                out[(col0 + cc) * rows + r] = tile[(r - row0) * SR_STRIDE + cc];
        }
    }
}

/** @brief Floats between the last 32-byte boundary at or before @p p and @p p. */
static __host__ __device__ __forceinline__ unsigned sr_lead(const float *p)
{
    return (unsigned)((uintptr_t)p % (SR_SECTOR * sizeof(float))) / sizeof(float);
}

/**
 * @brief First row and column of tile @p t of runs of @p Run floats, in
 *        column-major tile order: tiles go down a band of 64 columns of `in`.
 */
template <unsigned Run>
static __host__ __device__ __forceinline__ void sr_tile(size_t t, size_t tiles_y, size_t *row0, size_t *col0)
{
    *row0 = (t % tiles_y) * Run;
    *col0 = (t / tiles_y) * TILE;
}

/**
 * @brief Transpose in (Run + 8) x 64 tiles whose runs of `out` start on
 *        sector boundaries, in column-major tile order: 16-byte loads,
 *        4-byte stores. Valid for rows, cols >= 2.
 */
template <unsigned Run, bool Lines>
static __global__ void __launch_bounds__(THREADS, SR_BLOCKS_PER_SM(Run))
transpose_sector_runs(const float *__restrict__ in, float *__restrict__ out, size_t rows, size_t cols)
{
    __shared__ float tile[SR_ROWS(Run) * SR_STRIDE];   // 18.3 KB (26.4 KB for long runs)
    const unsigned lead = sr_lead(out);
    const size_t tiles_y = ceil_div(rows, Run);
    const size_t tiles_x = ceil_div(cols, TILE);
    for (size_t t = blockIdx.x; t < tiles_y * tiles_x; t += gridDim.x) {
        size_t row0, col0;
        sr_tile<Run>(t, tiles_y, &row0, &col0);
        const unsigned width = tile_extent(cols, col0);
        sr_load_tile<Run, Lines>(tile, in, rows, cols, row0, col0, width, threadIdx.x);
        __syncthreads();   // the whole tile is in shared memory
        sr_store_tile<Run>(tile, out, rows, lead, row0, col0, width, threadIdx.x);
        __syncthreads();   // everyone is done reading before the next tile overwrites it
    }
}

/**
 * @brief One block per tile of runs of @p Run floats, a clamped 1-D grid;
 *        vectors are copied. @p Lines: the loads ask L2 for lines (sr_fetch()).
 */
template <unsigned Run = SR_RUN, bool Lines = false>
static inline size_t sector_runs_launch(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    if (rows == 1 || cols == 1)
        return copy_elements_launch(in, out, rows * cols, stream);
    const dim3 block(THREADS);
    const dim3 grid = grid_for_tiles(ceil_div(rows, Run) * ceil_div(cols, TILE), 1);
    transpose_sector_runs<Run, Lines><<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

#endif /* TRANSPOSE_SECTOR_RUNS_CUH */
// ---- end of steps/11_any_shape/sector_runs.cuh ----

/** Chunks that cover 64 floats which start anywhere inside a chunk. */
#define AS_CHUNKS_PER_ROW (TILE / VEC + 1)
/**
 * Floats per tile row in shared memory: 64 + 2. Row r starts 2r banks
 * further on, so the 32 lanes of a warp that read 4 chunks x 8 columns on
 * the way out (rows r + 4j, columns c..c+7) fall in 32 different banks,
 * whatever the shape (docs/steps/11_any_shape.md).
 */
#define AS_STRIDE (TILE + 2)
/** Lanes of a warp that load different chunks of one tile row. */
#define AS_LOAD_LANES 8
/** Tile rows one pass of loads covers: 256 threads / 8 chunks. */
#define AS_ROWS_PER_PASS (THREADS / AS_LOAD_LANES)
/** Lanes of a warp that store different chunks of one row of `out`. */
#define AS_STORE_LANES 4
/**
 * Blocks per multiprocessor for `__launch_bounds__`: 5 x 256 threads leave
 * 48 registers for the 5 float4 a thread holds between load and scatter.
 */
#define AS_BLOCKS_PER_SM (MAX_BLOCKS_PER_SM(THREADS) < 5 ? MAX_BLOCKS_PER_SM(THREADS) : 5)

static_assert(TILE % AS_ROWS_PER_PASS == 0, "the load passes must cover the tile");
static_assert(THREADS / AS_STORE_LANES == TILE, "one group of store lanes per row of `out`");

/**
 * @brief A matrix seen as a flat array of aligned 16-byte chunks.
 *
 * Element `i` of the matrix is float `lead + i` from @p chunks: the chunk
 * that holds it is `(lead + i) / 4`, its place in that chunk `(lead + i) % 4`.
 */
template <class T>
struct chunked {
    T *chunks;       /**< the aligned chunk that holds element 0 */
    unsigned lead;   /**< floats between that chunk's start and element 0: 0-3 */
};

/**
 * @brief View @p p (4-byte aligned) as chunks: step back to the 16-byte
 *        boundary at or before it.
 *
 * By pointer arithmetic, not through an integer, so that the compiler
 * still knows the pointer is global memory and emits `LDG`/`STG`, not
 * generic `LD`/`ST`.
 */
static __host__ __device__ __forceinline__ chunked<const float4> as_chunks(const float *p)
{
    const unsigned lead = (unsigned)((uintptr_t)p & 15) / 4;
    return chunked<const float4>{reinterpret_cast<const float4 *>(p - lead), lead};
}

/** @brief The same for the output. */
static __host__ __device__ __forceinline__ chunked<float4> as_chunks(float *p)
{
    const unsigned lead = (unsigned)((uintptr_t)p & 15) / 4;
    return chunked<float4>{reinterpret_cast<float4 *>(p - lead), lead};
}

/**
 * @brief Load one tile row's chunks, as far as this thread is concerned,
 *        and put each float at its column of the tile.
 *
 * Row @p r of the tile starts at element `first` of `in`; its floats begin
 * `shift` floats into the chunk `first_chunk`. Chunk @p k of the row holds
 * tile columns `4k - shift` .. `4k - shift + 3`; those outside 0..width-1
 * belong to the neighbouring tiles (or rows) and are dropped.
 */
struct row_chunk {
    float4 value;   /**< the chunk, once loaded */
    int column;     /**< tile column of its first float: 4k - shift (may be negative) */
    bool held;      /**< value holds a chunk still to be put in the tile */
};

/**
 * @brief Start loading chunk @p k of tile row @p r: a 16-byte load, or,
 *        for the two chunks at the ends of the matrix that stick out of
 *        it, float by float straight into the tile.
 */
static __host__ __device__ __forceinline__ row_chunk load_row_chunk(float *tile, chunked<const float4> in, size_t count,
                                                           size_t first, unsigned r, unsigned k, unsigned width)
{
    row_chunk c;
    c.held = false;
    const size_t flat = first + in.lead;        // the row's first float, counted from in.chunks
    const unsigned shift = (unsigned)(flat % VEC);
    c.column = (int)(k * VEC) - (int)shift;
    if (c.column >= (int)width)                 // the row ends before this chunk
        return c;
    const size_t chunk = flat / VEC + k;
    if (chunk * VEC >= in.lead && chunk * VEC + VEC <= in.lead + count) {
        c.value = in.chunks[chunk];             // LDG.E.128
        c.held = true;
        return c;
    }
    // The chunk sticks out of the matrix (only at its first or last float).
    const float *floats = reinterpret_cast<const float *>(in.chunks);
    for (unsigned e = 0; e < VEC; ++e) {
        const int col = c.column + (int)e;
        const size_t at = chunk * VEC + e;   // counted from in.chunks
        if (col >= 0 && col < (int)width && at >= in.lead && at < in.lead + count)
            tile[r * AS_STRIDE + col] = floats[at];
    }
    return c;
}

/** @brief Put a loaded chunk's floats at their columns of tile row @p r. */
static __host__ __device__ __forceinline__ void place_row_chunk(float *tile, const row_chunk &c, unsigned r, unsigned width)
{
    if (!c.held)
        return;
    const float v[VEC] = {c.value.x, c.value.y, c.value.z, c.value.w};
UNROLL_ON_DEVICE
    for (unsigned e = 0; e < VEC; ++e) {
        const int col = c.column + (int)e;
        if (col >= 0 && col < (int)width)
            tile[r * AS_STRIDE + col] = v[e];
    }
}

/**
 * @brief Load the tile at (@p row0, @p col0) of `in` into @p tile, every
 *        float at its own column: all of a thread's 16-byte loads are
 *        started before the first is put in the tile.
 *
 * Thread t loads chunks `t % 8` and `t % 8 + 8` of rows `t / 8` and
 * `t / 8 + 32`; threads 0-63 also load the 17th chunk of row t, which only
 * a row that starts mid-chunk needs.
 */
static __host__ __device__ __forceinline__ void load_tile_any_shape(float *tile, chunked<const float4> in,
                                                                    size_t count, size_t cols, size_t row0,
                                                                    size_t col0, unsigned height, unsigned width,
                                                                    unsigned tid)
{
    row_chunk c[2][2];
UNROLL_ON_DEVICE
    for (unsigned pass = 0; pass < 2; ++pass)
UNROLL_ON_DEVICE
        for (unsigned half = 0; half < 2; ++half) {
            const unsigned r = tid / AS_LOAD_LANES + pass * AS_ROWS_PER_PASS;
            const unsigned k = tid % AS_LOAD_LANES + half * AS_LOAD_LANES;
            c[pass][half].held = false;
            if (r < height)
                c[pass][half] = load_row_chunk(tile, in, count, (row0 + r) * cols + col0, r, k, width);
        }
    row_chunk last;   // the 17th chunk of row tid
    last.held = false;
    if (tid < height)
        last = load_row_chunk(tile, in, count, (row0 + tid) * cols + col0, tid, AS_CHUNKS_PER_ROW - 1, width);
UNROLL_ON_DEVICE
    for (unsigned pass = 0; pass < 2; ++pass)
UNROLL_ON_DEVICE
        for (unsigned half = 0; half < 2; ++half)
            place_row_chunk(tile, c[pass][half], tid / AS_LOAD_LANES + pass * AS_ROWS_PER_PASS, width);
    place_row_chunk(tile, last, tid, width);
}

/**
 * @brief Write the tile, transposed: tile column `cc` is the run of
 *        `height` floats of `out` row `col0 + cc` that starts at column
 *        `row0`.
 *
 * The run's first `head` floats (0-3) share a chunk with the end of the
 * run of the tile above, so they are written one by one, as are the 0-3
 * floats after the run's last whole chunk. Runs never overlap, and a whole
 * chunk lies inside one run: every float is written exactly once.
 *
 * Thread t works on run `t / 4`. The 4 lanes of a run write the 64-byte
 * aligned groups of 4 chunks that the run's whole chunks fall in, one
 * group per pass, so that one store instruction writes whole 32-byte
 * sectors. (Groups counted from the run's first whole chunk would, on
 * most shapes, end half-way through a sector that the next pass then
 * finishes: L2 would receive those sectors twice.)
 */
static __host__ __device__ __forceinline__ void store_tile_any_shape(const float *tile, chunked<float4> out,
                                                                     float *out_floats, size_t rows, size_t row0,
                                                                     size_t col0, unsigned height, unsigned width,
                                                                     unsigned tid)
{
    const unsigned cc = tid / AS_STORE_LANES;   // tile column = row of `out`
    const unsigned lane = tid % AS_STORE_LANES;
    if (cc >= width)
        return;
    const size_t first = (col0 + cc) * rows + row0;   // element of `out` that tile row 0 goes to
    const size_t flat = first + out.lead;              // the same, counted from out.chunks
    const unsigned head_wanted = (unsigned)((VEC - flat % VEC) % VEC);
    const unsigned head = head_wanted < height ? head_wanted : height;   // floats before the first whole chunk
    const unsigned whole = (height - head) / VEC;                     // whole chunks in the run
    const unsigned tail = height - head - whole * VEC;                // floats after the last one
    const size_t chunk0 = (flat + head) / VEC;                        // the first whole chunk
    const unsigned skew = (unsigned)(chunk0 % AS_STORE_LANES);        // its place in its 64-byte group
    // Slot j is chunk `chunk0 - skew + j`: whole chunk w sits at slot w + skew.
UNROLL_ON_DEVICE
    for (unsigned j = lane; j < TILE / VEC + AS_STORE_LANES; j += AS_STORE_LANES)
        if (j >= skew && j - skew < whole) {
            const unsigned w = j - skew;
            const float *src = tile + (head + w * VEC) * AS_STRIDE + cc;   // 4 rows of one column
            out.chunks[chunk0 + w] = make_float4(src[0], src[AS_STRIDE], src[2 * AS_STRIDE], src[3 * AS_STRIDE]);
        }
    // The 0-6 single floats: edge e < head is tile row e, the others follow the whole chunks.
UNROLL_ON_DEVICE
    for (unsigned e = lane; e < 2 * (VEC - 1); e += AS_STORE_LANES)
        if (e < head + tail) {
            const unsigned r = e < head ? e : head + whole * VEC + (e - head);
            out_floats[first + r] = tile[r * AS_STRIDE + cc];
        }
}

/** @brief Floats between the 32-byte sector boundary at or before @p p and @p p: 0-7. */
static __host__ __device__ __forceinline__ unsigned sector_lead(const float *p)
{
    return (unsigned)((uintptr_t)p & 31) / 4;
}

/**
 * @brief The chunk kernel's tiles: 64x64, in column-major tile order,
 *        with the whole grid moved up by @p shift_r rows and left by
 *        @p shift_c columns.
 *
 * When both pointers sit the same few floats past alignment (`--offset
 * 1`), every row of `in` and of `out` still starts at the same place in
 * its chunk, if the rows are whole chunks. Moving the grid by that many
 * floats puts every tile row of `in` and every run of `out` back on a
 * chunk boundary: step 05's shifted quad grid, for tiles. The first band
 * of tiles is then short, 64 - shift wide. With no shift this is step 10's
 * grid. Any shift gives a partition of the matrix, so the kernel is
 * correct for any shift; only the speed depends on choosing it well.
 */
struct tile_grid {
    size_t tiles_y;    /**< bands of tile rows */
    size_t tiles_x;    /**< bands of tile columns */
    unsigned shift_r;  /**< rows the grid is moved up: 0-7 */
    unsigned shift_c;  /**< columns the grid is moved left: 0-7 */
};

/** @brief The grid for a rows x cols matrix, moved by @p shift_r and @p shift_c. */
static __host__ __device__ __forceinline__ tile_grid make_tile_grid(size_t rows, size_t cols, unsigned shift_r,
                                                                    unsigned shift_c)
{
    return tile_grid{ceil_div(rows + shift_r, TILE), ceil_div(cols + shift_c, TILE), shift_r, shift_c};
}

/**
 * @brief Band @p i of a side of @p n elements cut into 64s after a first
 *        band of 64 - @p shift: its first element and its length.
 */
static __host__ __device__ __forceinline__ void shifted_band(size_t i, unsigned shift, size_t n, size_t *first,
                                                             unsigned *length)
{
    const size_t start = i == 0 ? 0 : i * TILE - shift;
    const size_t end = (i + 1) * TILE - shift;
    *first = start;
    *length = (unsigned)((end < n ? end : n) - start);
}

/**
 * @brief First row and column, height and width of tile @p t of @p grid, in
 *        column-major tile order (step 10's): consecutive tiles go down a
 *        column of tiles of `in`, so the blocks in flight write along the
 *        same rows of `out`.
 */
static __host__ __device__ __forceinline__ void grid_tile(const tile_grid &grid, size_t t, size_t rows, size_t cols,
                                                          size_t *row0, size_t *col0, unsigned *height,
                                                          unsigned *width)
{
    shifted_band(t % grid.tiles_y, grid.shift_r, rows, row0, height);
    shifted_band(t / grid.tiles_y, grid.shift_c, cols, col0, width);
}

/**
 * @brief The grid the chunk kernel uses: moved by the pointers' places in
 *        their sectors when @p Shifted, so that runs of `out` start on
 *        sector boundaries (the rows of `out` set the row shift, those of
 *        `in` the column shift); step 10's grid otherwise.
 */
template <bool Shifted>
static __host__ __device__ __forceinline__ tile_grid chunk_grid(const float *in, const float *out, size_t rows,
                                                                size_t cols)
{
    return make_tile_grid(rows, cols, Shifted ? sector_lead(out) : 0, Shifted ? sector_lead(in) : 0);
}

/**
 * @brief The chunk kernel: 64x64 tiles in column-major order, each moved
 *        with 16-byte accesses whatever the shape; with @p Shifted, on a
 *        grid moved to the pointers' alignment.
 *
 * Valid for rows, cols >= 2 and 4-byte-aligned pointers; the launcher
 * copies vectors.
 */
template <bool Shifted>
static __global__ void __launch_bounds__(THREADS, AS_BLOCKS_PER_SM)
transpose_any_shape(const float *__restrict__ in, float *__restrict__ out, size_t rows, size_t cols)
{
    __shared__ float tile[TILE * AS_STRIDE];   // 16.5 KB
    const chunked<const float4> in_chunks = as_chunks(in);
    const chunked<float4> out_chunks = as_chunks(out);
    const tile_grid grid = chunk_grid<Shifted>(in, out, rows, cols);
    for (size_t t = blockIdx.x; t < grid.tiles_y * grid.tiles_x; t += gridDim.x) {
        size_t row0, col0;
        unsigned height, width;
        grid_tile(grid, t, rows, cols, &row0, &col0, &height, &width);
        load_tile_any_shape(tile, in_chunks, rows * cols, cols, row0, col0, height, width, threadIdx.x);
        __syncthreads();   // the whole tile is in shared memory
        store_tile_any_shape(tile, out_chunks, out, rows, row0, col0, height, width, threadIdx.x);
        __syncthreads();   // everyone is done reading before the next tile overwrites it
    }
}

/**
 * @brief Launch transpose_any_shape<Shifted>(), the chunk kernel, on
 *        every shape: one block per tile, a one-dimensional grid clamped to
 *        its limit. Vectors are copied.
 */
template <bool Shifted>
static inline size_t chunks_launch_on(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    if (rows == 1 || cols == 1)
        return copy_elements_launch(in, out, rows * cols, stream);
    const tile_grid tiles = chunk_grid<Shifted>(in, out, rows, cols);
    const dim3 block(THREADS);
    const dim3 grid = grid_for_tiles(tiles.tiles_y * tiles.tiles_x, 1);
    transpose_any_shape<Shifted><<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief The chunk kernel on step 10's grid, on every shape. */
static inline size_t chunks_launch(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return chunks_launch_on<false>(in, out, rows, cols, stream);
}

/**
 * @brief Step 11's default, and step 12's kernel where TMA cannot describe
 *        the matrix: the chunk kernel where every row of both matrices
 *        starts on a 16-byte boundary; the chunk kernel on a shifted grid
 *        where the rows are whole chunks but the pointers are not aligned;
 *        sector runs (steps/11_any_shape/sector_runs.cuh, 16-byte loads, 4-byte stores)
 *        everywhere else.
 *
 * Why three: on rows that are whole chunks, 64-float runs of `out` start
 * on sector boundaries (after the shift, if the pointers need one), and
 * the chunk kernel moves them 16 bytes at a time from 64-row tiles. On any
 * other row a run straddles 9 sectors and shares two of them with the
 * tiles above and below; sector runs keep every sector whole
 * (docs/steps/11_any_shape.md measures both). @p Run is the length of
 * the sector runs: 64 floats, or SR_LONG_RUN; with @p Lines their loads
 * ask L2 for lines (sr_fetch(), the capstone's float32 rule).
 */
template <unsigned Run = SR_RUN, bool Lines = false>
static inline size_t any_shape_launch(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    if (vec4_fits(in, out, rows, cols))
        return chunks_launch_on<false>(in, out, rows, cols, stream);
    if (rows_are_whole_chunks(rows, cols))
        return chunks_launch_on<true>(in, out, rows, cols, stream);
    return sector_runs_launch<Run, Lines>(in, out, rows, cols, stream);
}

#endif /* TRANSPOSE_ANY_SHAPE_CUH */
// ---- end of steps/11_any_shape/any_shape.cuh ----
// ---- from steps/13_bf16/slab_chunks.cuh ----
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

// (common/kernel_utils.cuh: above)
// ---- from steps/11_any_shape/slabs.cuh ----
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

// (common/kernel_utils.cuh: above)
// (steps/09_shared64/tile64.cuh: above)

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
// ---- end of steps/11_any_shape/slabs.cuh ----

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
// ---- end of steps/13_bf16/slab_chunks.cuh ----
// ---- from steps/14_dispatch/tiles_down.cuh ----
/**
 * @file tiles_down.cuh
 * @brief Step 09's 16-byte tile taken down the columns of `in`, one tile
 *        per block: the float32 rule's tile kernel on a GPU where it
 *        measured ahead of step 09's (rules.h: the H200).
 *
 * Step 09's kernel takes its tiles along the rows of `in` and walks them
 * in grid-stride loops. Two changes:
 *
 * - **Order.** blockIdx.x runs down a column of tiles of `in`, so the
 *   blocks in flight write neighbouring 256-byte pieces of the same rows of
 *   `out`, the half of the pattern that costs DRAM least
 *   (docs/last-points.md, the bounds of the pattern).
 * - **No loops.** One block per tile, so the tile's position is two
 *   products of block indices: the kernel fits 32 registers, and a
 *   multiprocessor holds 8 blocks instead of step 09's 5. A grid past the
 *   limits (more than 65535 columns of tiles) would need the loops back;
 *   the launcher gives such a matrix step 09's kernel.
 *
 * Going down the columns, the blocks in flight read each row of `in` in
 * 256-byte pieces: on a matrix of few columns of tiles (50000 x 3000, 47 of
 * them) step 09's order, whose blocks read whole rows, led on the H100
 * (docs/appendix/12_tma.md).
 */
#ifndef TRANSPOSE_TILES_DOWN_CUH
#define TRANSPOSE_TILES_DOWN_CUH

#include <stddef.h>
#include <cuda_runtime.h>

// (common/kernel_utils.cuh: above)
// (steps/09_shared64/shared64.cuh: above)
// (steps/09_shared64/tile64.cuh: above)
                                          // vec4_fits(), load_chunk_column()

/** Blocks per multiprocessor: all 8 that 2048 threads allow, at 32 registers a thread. */
#define TD_BLOCKS_PER_SM MAX_BLOCKS_PER_SM(THREADS)

/**
 * @brief Load a tile as step 09's kernel does: thread @p tid takes chunk
 *        tid % 16 of tile rows tid / 16, + 16, + 32 and + 48, all 4 loads
 *        before the first store into the chunk-swizzled tile.
 *
 * The tile starts at (@p row0, @p col0) and is @p height x @p width, both
 * multiples of 4 (vec4_fits()), so a chunk is wholly inside or outside it.
 */
static __device__ __forceinline__ void td_load_tile(float4 *tile, const float *__restrict__ in, size_t cols,
                                                    size_t row0, size_t col0, unsigned height, unsigned width,
                                                    unsigned tid)
{
    const unsigned row = tid / CHUNKS_PER_ROW, chunk = tid % CHUNKS_PER_ROW;
    if (chunk * VEC >= width)
        return;
    const float4 *in4 = reinterpret_cast<const float4 *>(in);   // rows of whole chunks on 16 bytes
    const size_t first = ((row0 + row) * cols + col0) / VEC + chunk, pass = ROWS_PER_PASS * cols / VEC;
    float4 v[TILE / ROWS_PER_PASS];
    load_chunk_column(v, in4, first, pass, row, height);
#pragma unroll
    for (unsigned p = 0; p < TILE / ROWS_PER_PASS; ++p)
        if (row + p * ROWS_PER_PASS < height)
            tile[chunk_slot(row + p * ROWS_PER_PASS, chunk)] = v[p];
}

/** @brief One 64x64 tile per block, tile (blockIdx.x, blockIdx.y) = (row, column) of tiles of `in`. */
static __global__ void __launch_bounds__(THREADS, TD_BLOCKS_PER_SM)
transpose_tiles_down(const float *__restrict__ in, float *__restrict__ out, size_t rows, size_t cols)
{
    __shared__ float4 tile[TILE * CHUNKS_PER_ROW];   // 16 KB, laid out by chunk_slot()
    const size_t row0 = (size_t)blockIdx.x * TILE, col0 = (size_t)blockIdx.y * TILE;
    const unsigned height = tile_extent(rows, row0), width = tile_extent(cols, col0);
    td_load_tile(tile, in, cols, row0, col0, height, width, threadIdx.x);
    __syncthreads();   // the whole tile is in shared memory
    store_block_vec4(tile, reinterpret_cast<float4 *>(out), rows, row0, col0, height, width, threadIdx.x);
}

/** @brief Whether one block per tile fits the grid's limits. */
static inline bool tiles_down_fit(size_t rows, size_t cols)
{
    return ceil_div(rows, TILE) <= MAX_GRID_X && ceil_div(cols, TILE) <= MAX_GRID_Y;
}

/**
 * @brief transpose_tiles_down() where vec4_fits() and the grid fits, else
 *        step 09's launch (its 16-byte kernel, or its 4-byte one).
 */
static inline size_t tiles_down_launch(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    if (!vec4_fits(in, out, rows, cols) || !tiles_down_fit(rows, cols))
        return shared64_launch(in, out, rows, cols, true, stream);
    const dim3 block(THREADS), grid((unsigned)ceil_div(rows, TILE), (unsigned)ceil_div(cols, TILE));
    transpose_tiles_down<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

#endif /* TRANSPOSE_TILES_DOWN_CUH */
// ---- end of steps/14_dispatch/tiles_down.cuh ----

/** @brief The launches the float32 rule chooses between. */
enum f32_kernel {
    F32_CHUNKS,      /**< chunks_launch(): step 11's chunk kernel on step 10's grid */
    F32_SLABS,       /**< slab_chunks_launch(): step 11's slabs moving 16-byte chunks, on 2-63 rows or columns */
    F32_SHARED64,    /**< shared64_launch(): step 09's 16-byte kernel, or its 4-byte one */
    F32_TILES_DOWN,  /**< tiles_down_launch(): step 09's 16-byte tile down the columns, one per block */
    F32_ANY_SHAPE,   /**< any_shape_launch(): step 11's default */
    F32_LONG_RUNS,   /**< any_shape_launch<SR_LONG_RUN>(): step 11's default, sector runs of 96 floats */
};

/** Bytes on which every row of `out` must start for step 09's 16-byte kernel to lead: two 32-byte sectors. */
#define F32_OUT_ROW_ALIGN 64

/** @brief Whether every row of the @p rows-float rows of @p out starts on F32_OUT_ROW_ALIGN bytes. */
static inline bool f32_out_rows_fit(const float *out, size_t rows)
{
    return (uintptr_t)out % F32_OUT_ROW_ALIGN == 0 && rows * sizeof(float) % F32_OUT_ROW_ALIGN == 0;
}

/** @brief What the float32 rule needs to know of the GPU it runs on. */
struct f32_gpu {
    size_t tiles_up_to;       /**< the 16-byte tile kernel leads up to this many bytes (rules.h) */
    size_t tiles_pow2_up_to;  /**< the same, on a matrix with a power-of-two number of rows */
    size_t l2_bytes;          /**< the size of L2: below it, where the rows of `out` start does not matter */
    size_t long_runs_from;    /**< step 11's sector runs are 96 floats long from this many bytes (SIZE_MAX: never) */
    bool tiles_down;          /**< up to the limits, tiles_down.cuh's kernel runs instead of step 09's */
    size_t lines_from_rows;   /**< step 11's sector runs ask for lines only from this many rows (rules.h) */
};

/**
 * A matrix takes the long runs only if their tiles pad at most 1 row in
 * this many more than tiles of 64 rows do (long_runs_fill()); `make study
 * STUDIES=runs` times both run lengths on either side of the line.
 */
#define F32_LONG_RUNS_PAD 4

/**
 * @brief Whether tiles of SR_LONG_RUN rows of `in` cover @p rows with at
 *        most rows / F32_LONG_RUNS_PAD idle rows more than tiles of
 *        SR_RUN rows: 65 rows (96 against 128), 129 (192 both ways) or
 *        300 (64 more) yes, 100 (64 more) no.
 */
static inline bool long_runs_fill(size_t rows)
{
    const size_t padded_long = ceil_div(rows, SR_LONG_RUN) * SR_LONG_RUN;
    const size_t padded_short = ceil_div(rows, SR_RUN) * SR_RUN;
    // Tiles of 96 may pad fewer rows than tiles of 64 (65 rows: 96 against
    // 128), so the difference is not taken in size_t, where it would wrap.
    return padded_long * F32_LONG_RUNS_PAD <= padded_short * F32_LONG_RUNS_PAD + rows;
}

/**
 * A tall matrix under two tiles wide takes step 09's 4-byte tiles where its
 * columns fill at most 2 parts in this many of the 64-column tiles that
 * cover them (tall_tiles_pay(); `make study STUDIES=tall`).
 */
#define F32_TALL_FILL_OF 3

/**
 * @brief Whether a matrix of @p cols columns, fewer than two tiles, fills
 *        at most 2 / F32_TALL_FILL_OF of its 64-column tiles: 33 columns
 *        (0.52), 77 (0.60) or 83 (0.65) yes; 43 (0.67), 57 or 127 no.
 */
static inline bool tall_tiles_pay(size_t cols)
{
    return cols < 2 * TILE && cols * F32_TALL_FILL_OF <= 2 * ceil_div(cols, TILE) * TILE;
}

/** Rows not whole chunks take step 09's 4-byte tiles up to 1 / this of L2 (the dispatch study). */
#define F32_L2_SHARE 4

/** @brief Whether @p n is a power of two (1, 2, 4, ...). */
static inline bool is_power_of_two(size_t n)
{
    return n != 0 && (n & (n - 1)) == 0;
}

/**
 * @brief The launch the rule runs on a @p rows x @p cols matrix whose
 *        rows are whole aligned chunks when @p vec4 (vec4_fits()) and
 *        whose rows of `out` start on F32_OUT_ROW_ALIGN bytes when
 *        @p out_fits (f32_out_rows_fit()), on @p gpu.
 */
static inline f32_kernel f32_pick(size_t rows, size_t cols, bool vec4, bool out_fits, f32_gpu gpu)
{
    if (rows == 1 || cols == 1)
        return F32_CHUNKS;
    if (slab_chunks_pay<float>(rows, cols, vec4))
        return F32_SLABS;
    // Few rows of `out` made of whole chunks, rows of `in` not: the chunk kernel writes them 16 bytes at a time.
    if (rows < TILE && !vec4 && rows % VEC == 0)
        return F32_CHUNKS;
    if (rows < TILE || (cols < TILE && vec4))
        return F32_SHARED64;
    const bool out_rows_chunks = rows % VEC == 0, in_rows_chunks = cols % VEC == 0;
    // The same from a tile's 64 rows on: the chunk kernel writes each row of `out` 16 bytes at a time.
    if (out_rows_chunks && !in_rows_chunks)
        return F32_CHUNKS;
    const size_t bytes = rows * cols * sizeof(float);
    // Past the row above, rows not whole chunks means rows of `out` not whole chunks. In a quarter of L2, where
    // a sector's pieces meet in L2 before it is written back: step 09's 4-byte tiles.
    if (!out_rows_chunks && bytes <= gpu.l2_bytes / F32_L2_SHARE)
        return F32_SHARED64;
    // Past it, on a tall matrix whose columns leave much of their tiles empty, the same 4-byte tiles.
    if (!out_rows_chunks && !in_rows_chunks && tall_tiles_pay(cols))
        return F32_SHARED64;
    const bool writes_fit = out_fits || bytes <= gpu.l2_bytes;   // in L2 the pieces of a row of out meet
    const size_t limit = is_power_of_two(rows) ? gpu.tiles_pow2_up_to : gpu.tiles_up_to;
    if (vec4 && writes_fit && bytes <= limit)
        return gpu.tiles_down ? F32_TILES_DOWN : F32_SHARED64;
    return bytes >= gpu.long_runs_from && long_runs_fill(rows) ? F32_LONG_RUNS : F32_ANY_SHAPE;
}

/**
 * @brief The f32_gpu of the GPU named @p gpu with @p l2_bytes of L2:
 *        its limits and tile kernel from its row of F32_RULES, or, on
 *        a GPU not measured, step 09's kernel up to the L2 size for both
 *        and no long runs.
 */
static inline f32_gpu f32_gpu_named(const char *gpu, size_t l2_bytes)
{
    for (size_t i = 0; i < sizeof F32_RULES / sizeof F32_RULES[0]; ++i)
        if (strcmp(gpu, F32_RULES[i].gpu) == 0)
            return {F32_RULES[i].tiles_up_to, F32_RULES[i].tiles_pow2_up_to, l2_bytes,
                    F32_RULES[i].long_runs_from, F32_RULES[i].tiles_down, F32_RULES[i].lines_from_rows};
    return {l2_bytes, l2_bytes, l2_bytes, RULES_NEVER, false, 0};
}

/** @brief The ::f32_gpu of the current GPU, asked of the runtime (its name and L2 size). */
static inline cudaError_t f32_gpu_ask(f32_gpu *gpu)
{
    int device;
    cudaDeviceProp prop;
    cudaError_t err = cudaGetDevice(&device);
    if (err == cudaSuccess)
        err = cudaGetDeviceProperties(&prop, device);
    if (err == cudaSuccess)
        *gpu = f32_gpu_named(prop.name, (size_t)prop.l2CacheSize);
    return err;
}

/** @brief The ::f32_gpu of the current GPU, asked on the first call on each device and kept. */
static inline cudaError_t f32_gpu_here(f32_gpu *gpu)
{
    return per_device<f32_gpu, f32_gpu_ask>(gpu);
}

/** @brief Whether @p rule asks for lines on @p rows rows of @p gpu (sr_lines_reused(), from its lines_from_rows). */
static inline bool f32_lines(lines_rule rule, size_t rows, f32_gpu gpu)
{
    if (rule == LINES_WHERE_REUSED)
        return rows >= gpu.lines_from_rows && sr_lines_reused(rows, gpu.l2_bytes);
    return rule == LINES_ALWAYS;
}

/** @brief Step 11's default with runs of @p Run floats, its loads asking for lines if @p lines. */
template <unsigned Run>
static inline size_t f32_runs_launch(bool lines, const float *in, float *out, size_t rows, size_t cols,
                                     cudaStream_t stream)
{
    if (lines)
        return any_shape_launch<Run, true>(in, out, rows, cols, stream);
    return any_shape_launch<Run, false>(in, out, rows, cols, stream);
}

/** @brief Run @p kernel on @p gpu; @p rule: when step 11's sector runs ask L2 for lines. */
static inline size_t f32_launch_choice(f32_kernel kernel, lines_rule rule, f32_gpu gpu, const float *in, float *out,
                                       size_t rows, size_t cols, cudaStream_t stream)
{
    switch (kernel) {
    case F32_CHUNKS:
        return chunks_launch(in, out, rows, cols, stream);
    case F32_SLABS:
        return slab_chunks_launch(in, out, rows, cols, stream);
    case F32_SHARED64:
        return shared64_launch(in, out, rows, cols, true, stream);
    case F32_TILES_DOWN:
        return tiles_down_launch(in, out, rows, cols, stream);
    case F32_LONG_RUNS:
        return f32_runs_launch<SR_LONG_RUN>(f32_lines(rule, rows, gpu), in, out, rows, cols, stream);
    case F32_ANY_SHAPE:
    default:
        return f32_runs_launch<SR_RUN>(f32_lines(rule, rows, gpu), in, out, rows, cols, stream);
    }
}

/** @brief The kernel f32_pick() names for @p in, @p out, @p rows x @p cols on @p gpu. */
static inline f32_kernel f32_pick_for(const float *in, const float *out, size_t rows, size_t cols, f32_gpu gpu)
{
    return f32_pick(rows, cols, vec4_fits(in, out, rows, cols), f32_out_rows_fit(out, rows), gpu);
}

/**
 * @brief Run the kernel the rule picks for this shape on @p gpu (f32_gpu_here());
 *        @p rule: when step 11's sector runs ask L2 for lines.
 */
static inline size_t dispatch_f32_launch(f32_gpu gpu, const float *in, float *out, size_t rows, size_t cols,
                                         cudaStream_t stream, lines_rule rule = LINES_WHERE_REUSED)
{
    return f32_launch_choice(f32_pick_for(in, out, rows, cols, gpu), rule, gpu, in, out, rows, cols, stream);
}

/** @brief What f32_pick()'s @p kernel is, and the row of the rule that picks it, in words. */
static inline const char *f32_kernel_named(f32_kernel kernel)
{
    switch (kernel) {
    case F32_CHUNKS:
        return "chunks: step 11's chunk kernel (a vector, copied; or rows of out whole chunks, rows of in not)";
    case F32_SLABS:
        return "slabs: slabs of 16-byte chunks along the long side (2-55 rows or 2-31 columns)";
    case F32_SHARED64:
        return "shared64: step 09's tile kernel (a short side under 64; rows of whole aligned chunks up to this "
               "GPU's limit in rules.h; rows not whole chunks in a quarter of L2)";
    case F32_TILES_DOWN:
        return "tiles_down: step 09's 16-byte tile down the columns, one tile per block (rows of whole aligned "
               "chunks, up to this GPU's limit in rules.h)";
    case F32_LONG_RUNS:
        return "long_runs: step 11's default, sector runs of 96 floats (rows not whole aligned chunks or past the "
               "tile limit, from this GPU's size in rules.h)";
    case F32_ANY_SHAPE:
    default:
        return "any_shape: step 11's default, sector runs of 64 floats or the chunk kernel (rows not whole "
               "aligned chunks, or past the tile limit in rules.h)";
    }
}

#endif /* TRANSPOSE_DISPATCH_F32_CUH */
// ---- end of steps/14_dispatch/dispatch_f32.cuh ----
// ---- from steps/14_dispatch/dispatch_bf16.cuh ----
/**
 * @file dispatch_bf16.cuh
 * @brief The bf16 rule: step 13's default, `prmt`, on the GPU current at
 *        each call.
 *
 * The rule is step 13's (steps/13_bf16/prmt_default.cuh, prmt_pick()):
 * slabs of 16-byte chunks on thin matrices, sector runs where rows of `out`
 * start off 32-byte sectors, else the PRMT store on 128 x 128 tiles past
 * L2, 64 x 64 below one wave of 64 x 128 tiles, and 64 x 128 between,
 * with two rows of its own (bf16_pick()). It
 * needs two facts of the GPU, the size of L2 and how many blocks it holds;
 * here they are asked once per device (per_device()), and a failure to ask
 * is returned, not fatal.
 */
#ifndef TRANSPOSE_DISPATCH_BF16_CUH
#define TRANSPOSE_DISPATCH_BF16_CUH

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime.h>

// (steps/14_dispatch/per_device.cuh: above)
// ---- from steps/13_bf16/prmt_default.cuh ----
/**
 * @file prmt_default.cuh
 * @brief Step 13's default, `prmt`: which tile, tile order and L2 hint the
 *        PRMT store runs with on a given shape, and the launch.
 *
 * The rule, in the order it is applied:
 *
 * | the matrix                                           | launch                                 |
 * | ---------------------------------------------------- | -------------------------------------- |
 * | 2-63 rows or columns where slabs pay (slab_chunks_pay()) | step 11's slabs of 16-byte chunks  |
 * | rows of `out` not starting on 32-byte sectors         | sector runs of 144 elements            |
 * | larger than L2, more than 64 rows and columns         | 128 x 128 tiles                        |
 * | fewer 64 x 128 tiles than one wave of resident blocks | 64 x 64 tiles                          |
 * | anything else                                         | 64 x 128 tiles                         |
 *
 * The tile kernels take their tiles down the columns of tiles, or along
 * their rows from 4 : 1 where rows of `in` start off sectors
 * (t16_along_rows_pays()); their loads ask L2 for whole lines where the
 * tile beside reuses them (lines_for()). Where rows are not whole aligned
 * chunks, the tile kernels hand the matrix to the sector runs.
 *
 * prmt_pick() is the decision alone, from the shape, the pointers and
 * what the GPU holds (::prmt_gpu); prmt_launch_choice() carries it out.
 * The capstone (steps/14_dispatch/) runs the same rule for bf16.
 */
#ifndef TRANSPOSE_PRMT_DEFAULT_CUH
#define TRANSPOSE_PRMT_DEFAULT_CUH

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime.h>

// (common/kernel_utils.cuh: above)
// ---- from steps/13_bf16/bf16.cuh ----
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

// (common/kernel_utils.cuh: above)
// (steps/11_any_shape/slabs.cuh: above)

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
// ---- end of steps/13_bf16/bf16.cuh ----
// (steps/13_bf16/slab_chunks.cuh: above)

/** The default tile: 64 rows of 128 elements, 16 KB, the bytes of step 09's float32 tile. */
template <bool Lines = true>
using tile_64x128 = tile16<64, 128, Lines>;
/** The float32 tile's shape in elements: 64 x 64, 8 KB. */
template <bool Lines = true>
using tile_64x64 = tile16<64, 64, Lines>;
/** 256 bytes from each row of `in` and into each of `out`: 128 x 128, 32 KB, 4 blocks per multiprocessor. */
template <bool Lines = true>
using tile_128x128 = tile16<128, 128, Lines>;
/**
 * Runs of 144 elements (288 bytes, 9 sectors) in each row of `out`, as step
 * 11's runs of 96 floats: a tile loads 160 rows of 9 chunks. Each of its 288
 * threads loads the same chunk of every 32nd row, 5 in all, held in
 * registers at once (56 a thread, 4 blocks, no spill), and works out the
 * chunk's tile column and checks once per tile (t16r_load_rows()).
 */
template <bool Lines = true>
using runs_144 = runs16_rows<144, Lines>;

/** How the default's tile kernel takes its tiles: down the columns of tiles, or along their rows. */
enum tile_order { DOWN_COLUMNS, ALONG_ROWS };

/** @brief The default's tile order on @p in, @p rows x @p cols (t16_along_rows_pays()). */
static inline tile_order order_for(const uint16_t *in, size_t rows, size_t cols)
{
    return t16_along_rows_pays(in, rows, cols) ? ALONG_ROWS : DOWN_COLUMNS;
}

/** @brief What the rule needs to know of the GPU it runs on. */
struct prmt_gpu {
    size_t l2_bytes;          /**< the size of L2 */
    size_t resident_blocks;   /**< blocks of the 64 x 128 PRMT kernel the GPU holds at once: one wave */
};

/** @brief The current GPU's ::prmt_gpu, asked of the runtime; zeros where it cannot say. */
static inline prmt_gpu prmt_gpu_asked(void)
{
    return {(size_t)device_attribute(cudaDevAttrL2CacheSize), t16_resident_blocks<tile_64x128<>, T16_PRMT>()};
}

/** @brief The ::prmt_gpu of the GPU the program runs on, asked on the first call and kept. */
static inline prmt_gpu prmt_gpu_here(void)
{
    static prmt_gpu gpu = {0, 0};
    if (gpu.l2_bytes == 0 || gpu.resident_blocks == 0)
        gpu = prmt_gpu_asked();
    return gpu;
}

/**
 * @brief Whether @p rule (kernel_utils.cuh) asks for lines on tiles
 *        @p tile_cols wide taken in @p order, on an L2 of @p l2_bytes.
 *        Where the matrix is no wider than a tile, a tile's rows lie end
 *        to end in `in`: whole lines fetch only what the tile reads, and
 *        they paid (narrow study, 1000003 x 33). Along the rows the tile
 *        beside, which reads the rest of the lines, comes next.
 */
static inline bool lines_for(lines_rule rule, tile_order order, size_t rows, size_t cols, unsigned tile_cols,
                             size_t l2_bytes)
{
    if (rule == LINES_WHERE_REUSED)
        return order == ALONG_ROWS || cols <= tile_cols || t16_lines_reused(rows, tile_cols, l2_bytes);
    return rule == LINES_ALWAYS;
}

/** @brief The launches the default chooses between. */
enum prmt_kernel {
    PRMT_SLABS,           /**< slab_chunks_launch(): 2-63 rows or columns where slabs pay */
    PRMT_RUNS,            /**< sector runs of 144 elements: rows of `out` off sectors */
    PRMT_TILES_128x128,   /**< the PRMT store on 128 x 128 tiles: past L2 */
    PRMT_TILES_64x64,     /**< the PRMT store on 64 x 64 tiles: below one wave of 64 x 128 tiles */
    PRMT_TILES_64x128,    /**< the PRMT store on 64 x 128 tiles: anything else */
};

/** @brief One decision of the rule: the launch, whether its loads ask for lines, and its tile order. */
struct prmt_choice {
    prmt_kernel kernel;   /**< the launch */
    bool lines;           /**< its loads ask L2 for whole lines */
    tile_order order;     /**< its tiles down the columns or along the rows (tile kernels only) */
};

/**
 * @brief The rule: the launch of the default on @p in, @p out, @p rows x
 *        @p cols on @p gpu; @p rule: when the loads ask L2 for whole lines;
 *        @p order: how the tile kernel takes its tiles.
 *
 * A matrix larger than L2, of more than 64 rows, takes 128 x 128 tiles,
 * whose 256-byte pieces of rows of `in` and `out` make longer DRAM bursts
 * both ways; one that fits in L2 keeps 64 x 128 tiles, twice as many
 * blocks, or 64 x 64 below one wave of those. Where rows of `out` do not
 * start on sectors, the sector runs, which shift every run to start on
 * one, write whole sectors instead.
 */
static inline prmt_choice prmt_pick(lines_rule rule, tile_order order, const uint16_t *in, const uint16_t *out,
                                    size_t rows, size_t cols, prmt_gpu gpu)
{
    if (slab_chunks_pay<uint16_t>(rows, cols, vec8_fits(in, out, rows, cols)))
        return {PRMT_SLABS, false, DOWN_COLUMNS};
    if (!t16_rows_on_sectors(out, rows))
        return {PRMT_RUNS, lines_for(rule, DOWN_COLUMNS, rows, cols, T16R_COLS, gpu.l2_bytes), DOWN_COLUMNS};
    // A 128 x 128 tile on 64 rows or columns or fewer is half empty or worse: those keep 64 x 128 tiles past L2.
    if (rows * cols * sizeof(uint16_t) > gpu.l2_bytes && rows > tile_64x128<>::rows && cols > tile_64x128<>::rows)
        return {PRMT_TILES_128x128, lines_for(rule, order, rows, cols, tile_128x128<>::cols, gpu.l2_bytes), order};
    const size_t tiles = ceil_div(rows, tile_64x128<>::rows) * ceil_div(cols, tile_64x128<>::cols);
    if (t16_fewer_than_one_wave(tiles, gpu.resident_blocks))
        return {PRMT_TILES_64x64, lines_for(rule, order, rows, cols, tile_64x64<>::cols, gpu.l2_bytes), order};
    return {PRMT_TILES_64x128, lines_for(rule, order, rows, cols, tile_64x128<>::cols, gpu.l2_bytes), order};
}

/**
 * @brief The PRMT kernel on @p TileOf tiles (runs where rows are not whole
 *        chunks), with or without lines, its tiles taken in @p order.
 */
template <template <bool> class TileOf>
static inline size_t launch_prmt_tiles(bool lines, tile_order order, const uint16_t *in, uint16_t *out,
                                       size_t rows, size_t cols, cudaStream_t stream)
{
    if (order == ALONG_ROWS)
        return lines ? transpose16_launch<TileOf<true>, T16_PRMT, runs_144<true>, true>(in, out, rows, cols, stream)
                     : transpose16_launch<TileOf<false>, T16_PRMT, runs_144<false>, true>(in, out, rows, cols, stream);
    if (lines)
        return transpose16_launch<TileOf<true>, T16_PRMT, runs_144<true>>(in, out, rows, cols, stream);
    return transpose16_launch<TileOf<false>, T16_PRMT, runs_144<false>>(in, out, rows, cols, stream);
}

/** @brief Run the launch @p choice names (prmt_pick()). */
static inline size_t prmt_launch_choice(prmt_choice choice, const uint16_t *in, uint16_t *out, size_t rows,
                                        size_t cols, cudaStream_t stream)
{
    switch (choice.kernel) {
    case PRMT_SLABS:
        return slab_chunks_launch<uint16_t>(in, out, rows, cols, stream);
    case PRMT_RUNS:
        if (choice.lines)
            return transpose16_runs_launch<runs_144<true>>(in, out, rows, cols, stream);
        return transpose16_runs_launch<runs_144<false>>(in, out, rows, cols, stream);
    case PRMT_TILES_128x128:
        return launch_prmt_tiles<tile_128x128>(choice.lines, choice.order, in, out, rows, cols, stream);
    case PRMT_TILES_64x64:
        return launch_prmt_tiles<tile_64x64>(choice.lines, choice.order, in, out, rows, cols, stream);
    case PRMT_TILES_64x128:
    default:
        return launch_prmt_tiles<tile_64x128>(choice.lines, choice.order, in, out, rows, cols, stream);
    }
}

/** @brief The default with lines asked by @p rule and its tiles taken in @p order, on this GPU. */
static inline size_t prmt_launch_by(lines_rule rule, tile_order order, const uint16_t *in, uint16_t *out,
                                    size_t rows, size_t cols, cudaStream_t stream)
{
    return prmt_launch_choice(prmt_pick(rule, order, in, out, rows, cols, prmt_gpu_here()), in, out, rows, cols,
                              stream);
}

/** @brief Step 13's default: the PRMT store, its loads asking for whole lines where the tile beside reuses them. */
static inline size_t prmt_default_launch(const uint16_t *in, uint16_t *out, size_t rows, size_t cols,
                                         cudaStream_t stream)
{
    return prmt_launch_by(LINES_WHERE_REUSED, order_for(in, rows, cols), in, out, rows, cols, stream);
}

#endif /* TRANSPOSE_PRMT_DEFAULT_CUH */
// ---- end of steps/13_bf16/prmt_default.cuh ----

/** @brief The ::prmt_gpu of the current GPU, asked of the runtime; its error where it cannot say. */
static inline cudaError_t bf16_gpu_ask(prmt_gpu *gpu)
{
    *gpu = prmt_gpu_asked();
    if (gpu->l2_bytes != 0 && gpu->resident_blocks != 0)
        return cudaSuccess;
    const cudaError_t err = cudaGetLastError();   // the call that failed left it here
    return err != cudaSuccess ? err : cudaErrorUnknown;
}

/** @brief The ::prmt_gpu of the current GPU, asked on the first call on each device and kept. */
static inline cudaError_t bf16_gpu_here(prmt_gpu *gpu)
{
    return per_device<prmt_gpu, bf16_gpu_ask>(gpu);
}

/** Matrices in 1 / this of L2 keep 64 x 64 tiles where step 13 takes 64 x 128 (the dispatch study). */
#define BF16_L2_SHARE 2

/** Rows of `in` of at most this many bytes: the sector runs' loads ask L2 for whole lines (the dispatch study). */
#define BF16_SHORT_ROW_BYTES 1024

/**
 * @brief Step 13's choice for @p in, @p out, @p rows x @p cols on @p gpu
 *        (lines where reused, its own tile order), with two rows read off
 *        shapes past the bar's (`make study STUDIES=dispatch-bf16`):
 *        - in half of L2, 64 x 64 tiles led 64 x 128 (768 x 3072 to
 *          2048 x 5120): twice the blocks, and the bytes come back
 *          from L2, not DRAM;
 *        - sector runs on rows of `in` of at most 1 KB ask for whole
 *          lines: each line then holds a large part of a row, all of it
 *          read (1000003 x 77, 77777 x 333; not 123457 x 1001, where
 *          they cost).
 */
static inline prmt_choice bf16_pick(const uint16_t *in, const uint16_t *out, size_t rows, size_t cols, prmt_gpu gpu)
{
    prmt_choice choice = prmt_pick(LINES_WHERE_REUSED, order_for(in, rows, cols), in, out, rows, cols, gpu);
    const size_t bytes = rows * cols * sizeof(uint16_t);
    if (choice.kernel == PRMT_TILES_64x128 && bytes <= gpu.l2_bytes / BF16_L2_SHARE)
        choice.kernel = PRMT_TILES_64x64;
    if (choice.kernel == PRMT_RUNS && cols * sizeof(uint16_t) <= BF16_SHORT_ROW_BYTES)
        choice.lines = true;
    return choice;
}

/** @brief Run the launch bf16_pick() names for this shape on @p gpu (bf16_gpu_here()). */
static inline size_t dispatch_bf16_launch(prmt_gpu gpu, const uint16_t *in, uint16_t *out, size_t rows,
                                          size_t cols, cudaStream_t stream)
{
    return prmt_launch_choice(bf16_pick(in, out, rows, cols, gpu), in, out, rows, cols, stream);
}

/** @brief What bf16_pick()'s @p kernel is, and the row of the rule that picks it, in words. */
static inline const char *bf16_kernel_named(prmt_kernel kernel)
{
    switch (kernel) {
    case PRMT_SLABS:
        return "slabs: slabs of 16-byte chunks along the long side (2-63 rows or 2-31 columns)";
    case PRMT_RUNS:
        return "runs: sector runs of 144 elements (rows of out not starting on 32-byte sectors)";
    case PRMT_TILES_128x128:
        return "prmt 128x128: the PRMT store on 128 x 128 tiles (larger than L2, over 64 rows and columns; "
               "sector runs where rows are not whole aligned chunks)";
    case PRMT_TILES_64x64:
        return "prmt 64x64: the PRMT store on 64 x 64 tiles (in half of L2, or fewer 64 x 128 tiles than the GPU "
               "holds at once; sector runs where rows are not whole aligned chunks)";
    case PRMT_TILES_64x128:
    default:
        return "prmt 64x128: the PRMT store on 64 x 128 tiles (in L2, one wave or more; sector runs where rows "
               "are not whole aligned chunks)";
    }
}

#endif /* TRANSPOSE_DISPATCH_BF16_CUH */
// ---- end of steps/14_dispatch/dispatch_bf16.cuh ----

#endif /* TRANSPOSE_KERNELS_CUH */
