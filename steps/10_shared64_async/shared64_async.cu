/**
 * @file shared64_async.cu
 * @brief Step 10: step 09's 64x64 tile loaded with asynchronous copies
 *        (`cp.async`) and walked in column-major tile order.
 *
 * ## The idea
 * Step 09's `vec4` is within a few percent of the copy bound on aligned
 * shapes. Its profile shows no excess DRAM traffic: what is left is how
 * many bytes each multiprocessor keeps in flight, and in what order the
 * blocks touch DRAM. On odd shapes it shows that misaligned *writes* of
 * `out` cost far more than misaligned reads of `in`. This step changes:
 *
 * 1. **`cp.async`** (compute capability 8.0 and newer) copies the tile
 *    from global straight into shared memory. Nothing loaded passes through
 *    registers, so the kernel fits 32 registers instead of 47: 8 blocks per
 *    multiprocessor (the 2048-thread maximum) instead of 5, so 128 KB of
 *    tiles in flight instead of 80. `cp.async.commit_group` closes the
 *    thread's copies into a group, `cp.async.wait_group 0` waits for them.
 * 2. **Column-major tile order.** Blocks start roughly in the order of
 *    their index. In row-major order the blocks resident together read a
 *    few whole rows of tiles and write a short piece into *every* row of
 *    `out`. With a one-dimensional grid and raster_tile(), consecutive
 *    blocks walk down a column of tiles of `in` instead, that is along the
 *    same rows of `out`: the writes become long sequential runs and the
 *    reads are scattered, the better trade when writes are the expensive
 *    side.
 * 3. **Odd shapes** take step 09's 4-byte kernel on the same tile, with
 *    4-byte `cp.async` copies and the same tile order.
 * 4. **Vectors** (1 x N, N x 1) are copied: same bytes as the transpose.
 *
 * ## The variants
 * | variant     | loads    | tile order                    | isolates                 |
 * | ----------- | -------- | ----------------------------- | ------------------------ |
 * | col_async   | cp.async | column-major                  | the default              |
 * | col_sync    | plain    | column-major                  | what `cp.async` adds     |
 * | row_async   | cp.async | row-major                     | what the tile order adds |
 * | band8_async | cp.async | bands of 8 tile rows          | the GEMM-style raster    |
 *
 * Each variant uses its loads and tile order in both kernels, the 16-byte
 * one and the 4-byte one. Compute capability 7.x has no `cp.async`: there
 * every variant compiles to plain loads. The write-up shows what each
 * comparison measured on the H200.
 *
 * ## What it assumes
 * Nothing about the shape: any M, N >= 1 and 4-byte-aligned pointers. The
 * 16-byte kernel runs when rows % 4 == 0, cols % 4 == 0 and both pointers
 * are 16-byte aligned; any other matrix takes the 4-byte kernel, which
 * checks every element. A 1 x N or N x 1 matrix has the same bytes as its
 * transpose and is copied. Grids are clamped to the hardware limits and
 * blocks walk tiles with grid-stride loops; indices are `size_t`.
 *
 * ## Build and run
 *
 *     make step10
 *     ./build/step10 --rows 16384 --cols 16384
 *     ./build/step10 --rows 16384 --cols 16384 --variant row_async
 *     ./build/step10 --rows 16384 --cols 16384 --variant col_sync
 *     ./build/step10 --rows 10007 --cols 7919          (odd shape: the 4-byte kernel)
 *     ./build/step10 --rows 8192 --cols 8192 --offset 1 (misaligned pointers: the 4-byte kernel)
 *     ./build/step10 --rows 1 --cols 67108864          (a vector: the copy kernel)
 *
 * Write-up: docs/steps/10_shared64_async.md
 */
#include "harness.h"
#include "kernel_utils.cuh"

/** Side of the square tile, in floats (step 09's tile). */
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
/** Flag of a tile order made of bands of tile *columns* (see raster_tile()). */
#define COLUMN_BANDS 0x80000000u
/** Tile order: bands @p w tile columns wide, walked down the matrix (see raster_tile()). */
#define COLUMN_BAND(w) (COLUMN_BANDS | (w))
/** Column-major tile order: bands one tile column wide. */
#define COLUMN_MAJOR COLUMN_BAND(1)
/** Threads per block of the vector copy kernel. */
#define COPY_THREADS 256
/** float4s each copy thread has in flight at once. */
#define COPY_UNROLL 4

static_assert(TILE % ROWS_PER_PASS == 0, "the 16-byte load passes must cover the tile");
static_assert(THREADS == CHUNKS_PER_ROW * CHUNKS_PER_ROW, "one thread per 4x4 block of the tile on the way out");
static_assert(CHUNKS_PER_ROW % BANK_GROUPS == 0, "the chunk swizzle must stay inside a row");
static_assert(TILE % VEC == 0, "tile boundaries keep their position inside a 16-byte chunk");
static_assert(TILE % BLOCK_COLS == 0 && TILE % BLOCK_ROWS == 0,
              "the 4-byte kernel moves whole warps of columns and whole block rows");
static_assert(SMEM_BANKS == BLOCK_COLS, "the word swizzle assumes one warp spans the banks once");

/**
 * @brief Most 256-thread blocks one multiprocessor can hold: 2048 threads on
 *        sm_80, sm_90 and sm_100, 1536 on sm_86, sm_87, sm_89 and sm_120,
 *        1024 on Turing (sm_75).
 */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 800 || __CUDA_ARCH__ == 900 || __CUDA_ARCH__ == 1000
#define MAX_BLOCKS_PER_SM 8
#elif __CUDA_ARCH__ >= 860
#define MAX_BLOCKS_PER_SM 6
#else
#define MAX_BLOCKS_PER_SM 4
#endif
/** @brief The smaller of two numbers, usable in preprocessor-level constants. */
#define MIN_OF(a, b) ((a) < (b) ? (a) : (b))

/**
 * @brief Blocks per multiprocessor to leave registers for (`__launch_bounds__`).
 *
 * With `cp.async` nothing loaded passes through registers, so both
 * kernels fit 32 registers: as many blocks as the multiprocessor holds (on
 * the H200, 8 blocks of 256 threads and 8 x 16 KB of tiles). Plain loads
 * hold 16 floats per thread: 5 blocks (48 registers), step 09's figure.
 */
#define MIN_BLOCKS_PER_SM(async) ((async) ? MAX_BLOCKS_PER_SM : MIN_OF(5, MAX_BLOCKS_PER_SM))

/** 1 where the GPU has `cp.async` (compute capability 8.0 and newer), else 0. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define HAS_CP_ASYNC 1
#else
#define HAS_CP_ASYNC 0
#endif

/**
 * @brief Where chunk @p chunk of tile row @p row lives, in float4 units
 *        (step 09's swizzle).
 *
 * XOR with the row's 4-row group number (mod 8) keeps a row's 16 chunks in
 * the row and spreads the first rows of 8 vertically adjacent 4x4 blocks
 * over the 8 bank groups.
 */
static __device__ __forceinline__ unsigned chunk_slot(unsigned row, unsigned chunk)
{
    return row * CHUNKS_PER_ROW + (chunk ^ ((row / VEC) % BANK_GROUPS));
}

/**
 * @brief Store 16 bytes at @p p (16-byte aligned) with one instruction.
 *
 * PTX rather than a float4 assignment: step 09 explains why.
 */
static __device__ __forceinline__ void store_float4(float *p, float4 v)
{
    asm volatile("st.global.v4.f32 [%0], {%1, %2, %3, %4};"
                 :: "l"(p), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w) : "memory");
}

/**
 * @brief Start copying 16 bytes from global to shared memory (`cp.async`).
 *
 * `.cg` caches the data in L2 only: it is read once. Only called where
 * HAS_CP_ASYNC; elsewhere the body is empty so that the file still
 * compiles for older GPUs.
 */
static __device__ __forceinline__ void cp_async_16(float4 *dst, const float *src)
{
#if HAS_CP_ASYNC
    const unsigned dst_shared = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(dst_shared), "l"(src) : "memory");
#endif
}

/** @brief Wait until all of this thread's `cp.async` copies have landed (nothing without `cp.async`). */
static __device__ __forceinline__ void copy_commit_and_wait(void)
{
#if HAS_CP_ASYNC
    asm volatile("cp.async.commit_group;\n\tcp.async.wait_group 0;" ::: "memory");
#endif
}

/**
 * @brief Which tile the @p t-th block works on, in bands of @p GROUP tile rows.
 *
 * Blocks run roughly in the order of their index. Row-major order
 * (GROUP 1) makes the blocks resident at one moment read a few whole rows
 * of tiles, and write a short piece into every row of `out`. Here the
 * tiles are numbered down a band of GROUP tile rows first, then along it,
 * so the resident blocks cover a patch about GROUP tiles high: fewer, longer
 * runs of `out`, shorter runs of `in`. The last band may be lower. A band
 * at least as high as the matrix (COLUMN_MAJOR) is column-major order:
 * consecutive blocks walk down a column of tiles of `in`, that is along
 * the same rows of `out`.
 */
static __device__ __forceinline__ void raster_tile(size_t t, size_t tiles_y, size_t tiles_x, unsigned order,
                                                   size_t *tile_y, size_t *tile_x)
{
    if (order & COLUMN_BANDS) {                                 // bands of tile columns: the same walk, transposed
        raster_tile(t, tiles_x, tiles_y, order & ~COLUMN_BANDS, tile_x, tile_y);
        return;
    }
    const size_t group = order < tiles_y ? order : tiles_y;   // a band no higher than the matrix
    const size_t band = t / (group * tiles_x);                 // band of tile rows
    const size_t first = band * group;                         // its first tile row
    const size_t height = tiles_y - first < group ? tiles_y - first : group;
    const size_t local = t - band * group * tiles_x;           // position inside the band
    *tile_y = first + local % height;
    *tile_x = local / height;
}

/**
 * @brief The 16-byte kernel: step 09's 64x64 tile and chunk swizzle, one
 *        tile per block, loaded with `cp.async` and walked in raster bands.
 *
 * Load: a warp copies 2 rows x 256 contiguous bytes of `in` straight into
 * shared memory (4 copies per thread). Store: each thread reads one 4x4
 * block as 4 float4s and writes its 4 columns as 4 float4s of `out`; a warp
 * writes 2 rows x 256 contiguous bytes. The grid is one-dimensional and
 * raster_tile() turns the block index into a tile.
 *
 * Only valid when rows % 4 == 0, cols % 4 == 0 and both pointers are
 * 16-byte aligned (the launcher checks): edge tiles are whole chunks.
 *
 * @tparam GROUP tile rows per raster band (1: row-major order)
 * @tparam ASYNC load with `cp.async` (sm_80+) or with plain loads through registers
 */
template <unsigned GROUP, bool ASYNC>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS_PER_SM(ASYNC))
transpose_async64(const float *__restrict__ in, float *__restrict__ out, size_t rows, size_t cols)
{
    const bool async = ASYNC && HAS_CP_ASYNC;          // known at compile time
    __shared__ float4 tile[TILE * CHUNKS_PER_ROW];     // 16 KB, swizzled by chunk_slot()

    const unsigned tid = threadIdx.x;
    const unsigned load_row = tid / CHUNKS_PER_ROW;    // tile row of this thread's first load
    const unsigned load_chunk = tid % CHUNKS_PER_ROW;  // tile chunk (4 columns) it loads
    const unsigned group = tid % CHUNKS_PER_ROW;       // 4-row group it stores = chunk of an `out` row
    const unsigned block_col = tid / CHUNKS_PER_ROW;   // 4-column group it stores = 4 rows of `out`

    const size_t tiles_y = ceil_div(rows, TILE);
    const size_t tiles_x = ceil_div(cols, TILE);
    for (size_t t = blockIdx.x; t < tiles_y * tiles_x; t += gridDim.x) {
        size_t tile_y, tile_x;
        raster_tile(t, tiles_y, tiles_x, GROUP, &tile_y, &tile_x);
        const size_t row0 = tile_y * TILE;   // first row of `in` in this tile
        const size_t col0 = tile_x * TILE;   // first column of `in` in this tile
        const unsigned height = (unsigned)(rows - row0 < TILE ? rows - row0 : TILE);   // multiple of 4
        const unsigned width = (unsigned)(cols - col0 < TILE ? cols - col0 : TILE);    // multiple of 4

        const float *src = in + (row0 + load_row) * cols + col0 + load_chunk * VEC;
        const bool chunk_in = load_chunk * VEC < width;
        float4 v[TILE / ROWS_PER_PASS];   // only for plain loads
#pragma unroll
        for (unsigned p = 0; p < TILE / ROWS_PER_PASS; ++p) {
            const unsigned r = load_row + p * ROWS_PER_PASS;   // row inside the tile
            if (chunk_in && r < height) {
                if (async)
                    cp_async_16(&tile[chunk_slot(r, load_chunk)], src + p * ROWS_PER_PASS * cols);
                else
                    v[p] = *reinterpret_cast<const float4 *>(src + p * ROWS_PER_PASS * cols);
            }
        }
#pragma unroll
        for (unsigned p = 0; p < TILE / ROWS_PER_PASS; ++p) {
            const unsigned r = load_row + p * ROWS_PER_PASS;
            if (!async && chunk_in && r < height)
                tile[chunk_slot(r, load_chunk)] = v[p];
        }
        if (async)
            copy_commit_and_wait();   // this thread's copies are in shared memory
        __syncthreads();              // so are everyone's

        if (group * VEC < height && block_col * VEC < width) {
            float4 b[VEC];   // b[k] = tile row group*4 + k, columns block_col*4 .. +3
#pragma unroll
            for (unsigned k = 0; k < VEC; ++k)
                b[k] = tile[chunk_slot(group * VEC + k, block_col)];
            // Column j of the block is one chunk of `out` row col0 + block_col*4 + j.
            float *dst = out + (col0 + block_col * VEC) * rows + row0 + group * VEC;
            store_float4(dst, make_float4(b[0].x, b[1].x, b[2].x, b[3].x));
            store_float4(dst + rows, make_float4(b[0].y, b[1].y, b[2].y, b[3].y));
            store_float4(dst + 2 * rows, make_float4(b[0].z, b[1].z, b[2].z, b[3].z));
            store_float4(dst + 3 * rows, make_float4(b[0].w, b[1].w, b[2].w, b[3].w));
        }
        __syncthreads();   // everyone is done reading before the next tile overwrites it
    }
}

/**
 * @brief Where element (@p row, @p col) lives in the 4-byte kernel's tile
 *        (step 09's word swizzle).
 *
 * XOR with `row % 32` keeps a row's 32-column halves in place, so a warp's
 * 32 consecutive columns of a row hit 32 banks, and spreads a column's 32
 * consecutive rows over the 32 banks too.
 */
static __device__ __forceinline__ unsigned word_slot(unsigned row, unsigned col)
{
    return row * TILE + (col ^ (row % SMEM_BANKS));
}

/**
 * @brief Start copying 4 bytes from global to shared memory (`cp.async`).
 *
 * Only `.ca` (cache in L1 too) takes 4-byte copies. Empty without
 * HAS_CP_ASYNC, like cp_async_16().
 */
static __device__ __forceinline__ void cp_async_4(float *dst, const float *src)
{
#if HAS_CP_ASYNC
    const unsigned dst_shared = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(dst_shared), "l"(src) : "memory");
#endif
}

/**
 * @brief The 4-byte kernel, for any shape and any 4-byte-aligned pointers:
 *        step 09's `scalar` with `cp.async` loads and the tile order of
 *        transpose_async64().
 *
 * Load: a warp copies 32 consecutive floats of one row of `in` into the
 * tile (16 copies per thread). Store: a warp writes 32 consecutive floats
 * of one row of `out`, read down a column of the tile. Every element is
 * bounds-checked, so edge tiles of any size are fine.
 *
 * @tparam GROUP tile rows per raster band (see raster_tile())
 * @tparam ASYNC load with `cp.async` (sm_80+) or with plain loads through registers
 */
template <unsigned GROUP, bool ASYNC>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS_PER_SM(ASYNC))
transpose_async64_scalar(const float *__restrict__ in, float *__restrict__ out, size_t rows, size_t cols)
{
    const bool async = ASYNC && HAS_CP_ASYNC;   // known at compile time
    __shared__ float tile[TILE * TILE];         // 16 KB, swizzled by word_slot()

    const unsigned tx = threadIdx.x % BLOCK_COLS;   // lane: column of `in`, then of `out`
    const unsigned ty = threadIdx.x / BLOCK_COLS;   // warp: row of `in`, then of `out`
    const size_t tiles_y = ceil_div(rows, TILE);
    const size_t tiles_x = ceil_div(cols, TILE);
    for (size_t t = blockIdx.x; t < tiles_y * tiles_x; t += gridDim.x) {
        size_t tile_y, tile_x;
        raster_tile(t, tiles_y, tiles_x, GROUP, &tile_y, &tile_x);
        const size_t row0 = tile_y * TILE;
        const size_t col0 = tile_x * TILE;
        const unsigned height = (unsigned)(rows - row0 < TILE ? rows - row0 : TILE);
        const unsigned width = (unsigned)(cols - col0 < TILE ? cols - col0 : TILE);

        const float *src = in + (row0 + ty) * cols + col0 + tx;
        float v[TILE / BLOCK_ROWS][TILE / BLOCK_COLS];   // only for plain loads
#pragma unroll
        for (unsigned i = 0; i < TILE / BLOCK_ROWS; ++i)
#pragma unroll
            for (unsigned h = 0; h < TILE / BLOCK_COLS; ++h) {
                const unsigned r = ty + i * BLOCK_ROWS, c = tx + h * BLOCK_COLS;   // (row, col) inside the tile
                const float *p = src + i * BLOCK_ROWS * cols + h * BLOCK_COLS;
                if (r < height && c < width) {
                    if (async)
                        cp_async_4(&tile[word_slot(r, c)], p);
                    else
                        v[i][h] = *p;
                }
            }
#pragma unroll
        for (unsigned i = 0; i < TILE / BLOCK_ROWS; ++i)
#pragma unroll
            for (unsigned h = 0; h < TILE / BLOCK_COLS; ++h) {
                const unsigned r = ty + i * BLOCK_ROWS, c = tx + h * BLOCK_COLS;
                if (!async && r < height && c < width)
                    tile[word_slot(r, c)] = v[i][h];
            }
        if (async)
            copy_commit_and_wait();   // this thread's copies are in shared memory
        __syncthreads();              // so are everyone's

        // Row c of this tile of `out` is column c of `tile`.
        float *dst = out + (col0 + ty) * rows + row0 + tx;
#pragma unroll
        for (unsigned i = 0; i < TILE / BLOCK_ROWS; ++i)
#pragma unroll
            for (unsigned h = 0; h < TILE / BLOCK_COLS; ++h) {
                const unsigned c = ty + i * BLOCK_ROWS;   // column of the tile = row of `out`
                const unsigned r = tx + h * BLOCK_COLS;   // row of the tile = column of `out`
                if (r < height && c < width)
                    dst[i * BLOCK_ROWS * rows + h * BLOCK_COLS] = tile[word_slot(r, c)];
            }
        __syncthreads();   // everyone is done reading before the next tile overwrites it
    }
}

/**
 * @brief out[i] = in[i] for i < count: the transpose of a vector.
 *
 * The first @p head floats (0-3) are copied one by one so that the
 * @p vec_count float4s after them start on a 16-byte boundary; the floats
 * after the float4s are again copied one by one. With vec_count = 0
 * (pointers of different alignment) everything is copied one by one.
 * Each thread keeps COPY_UNROLL float4 loads in flight.
 */
__global__ void __launch_bounds__(COPY_THREADS)
transpose_vector_copy(const float *__restrict__ in, float *__restrict__ out, size_t count,
                      size_t head, size_t vec_count)
{
    const float4 *in4 = reinterpret_cast<const float4 *>(in + head);
    float4 *out4 = reinterpret_cast<float4 *>(out + head);
    const size_t per_block = (size_t)COPY_THREADS * COPY_UNROLL;
    for (size_t base = blockIdx.x * per_block + threadIdx.x; base < vec_count;
         base += gridDim.x * per_block) {
        float4 v[COPY_UNROLL];
#pragma unroll
        for (int u = 0; u < COPY_UNROLL; ++u)
            if (base + u * COPY_THREADS < vec_count)
                v[u] = in4[base + u * COPY_THREADS];
#pragma unroll
        for (int u = 0; u < COPY_UNROLL; ++u)
            if (base + u * COPY_THREADS < vec_count)
                out4[base + u * COPY_THREADS] = v[u];
    }

    // The scalar leftovers: [0, head) and [head + 4 * vec_count, count).
    const size_t body_end = head + VEC * vec_count;
    const size_t leftovers = count - VEC * vec_count;
    for (size_t i = (size_t)blockIdx.x * COPY_THREADS + threadIdx.x; i < leftovers;
         i += (size_t)gridDim.x * COPY_THREADS) {
        const size_t e = i < head ? i : body_end + (i - head);
        out[e] = in[e];
    }
}

/** @brief Launch transpose_vector_copy() for a 1 x N or N x 1 matrix of @p count floats. */
static size_t launch_vector_copy(const float *in, float *out, size_t count, cudaStream_t stream)
{
    const uintptr_t in_addr = (uintptr_t)in, out_addr = (uintptr_t)out;
    const size_t head = (16 - in_addr % 16) % 16 / sizeof(float);   // floats until `in` is 16-byte aligned
    const bool same_alignment = in_addr % 16 == out_addr % 16;
    const size_t vec_count = same_alignment && count > head ? (count - head) / VEC : 0;
    const size_t used_head = vec_count > 0 ? head : 0;
    const size_t blocks = vec_count > 0 ? ceil_div(vec_count, (size_t)COPY_THREADS * COPY_UNROLL)
                                        : ceil_div(count, COPY_THREADS);
    const dim3 block(COPY_THREADS);
    const dim3 grid = grid_for_tiles(blocks, 1);
    transpose_vector_copy<<<grid, block, 0, stream>>>(in, out, count, used_head, vec_count);
    return threads_launched(grid, block);
}

/**
 * @brief True when the 16-byte kernel may run: every row of `in` and of
 *        `out` starts on a 16-byte boundary.
 */
static bool vec4_fits(const float *in, const float *out, size_t rows, size_t cols)
{
    return rows % VEC == 0 && cols % VEC == 0 && is_aligned_16(in) && is_aligned_16(out);
}

/**
 * @brief Launch transpose_async64<GROUP, ASYNC>() when vec4_fits(); else the
 *        vector copy (1 x N, N x 1) or transpose_async64_scalar<GROUP, ASYNC>().
 */
template <unsigned GROUP, bool ASYNC>
static size_t launch_tiles(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    if (rows == 1 || cols == 1)
        return launch_vector_copy(in, out, rows * cols, stream);
    const bool vec4 = vec4_fits(in, out, rows, cols);
    const void *kernel = vec4 ? (const void *)transpose_async64<GROUP, ASYNC>
                              : (const void *)transpose_async64_scalar<GROUP, ASYNC>;
    // The kernel reads nothing twice, so give the L1/shared split all it can
    // to shared memory: 8 blocks need 128 KB of it.
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                    cudaSharedmemCarveoutMaxShared));
    const size_t tiles = ceil_div(rows, TILE) * ceil_div(cols, TILE);
    const dim3 block(THREADS);
    const dim3 grid((unsigned)(tiles < MAX_GRID_X ? tiles : MAX_GRID_X));
    if (vec4)
        transpose_async64<GROUP, ASYNC><<<grid, block, 0, stream>>>(in, out, rows, cols);
    else
        transpose_async64_scalar<GROUP, ASYNC><<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief cp.async loads, column-major tile order: blocks walk along rows of `out` (the default). */
static size_t launch_col_async(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return launch_tiles<COLUMN_MAJOR, true>(in, out, rows, cols, stream);
}

/** @brief Plain loads through registers, column-major tile order: what cp.async adds. */
static size_t launch_col_sync(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return launch_tiles<COLUMN_MAJOR, false>(in, out, rows, cols, stream);
}

/** @brief cp.async loads, row-major tile order: what the tile order adds. */
static size_t launch_row_async(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return launch_tiles<1, true>(in, out, rows, cols, stream);
}

/** @brief cp.async loads, bands of 8 tile rows (the GEMM-style raster): a middle way. */
static size_t launch_band8_async(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return launch_tiles<8, true>(in, out, rows, cols, stream);
}

static const kernel_variant step10_variants[] = {
    {"col_async", "64x64 tile, cp.async loads, column-major tile order (writes walk along rows of out)",
     launch_col_async},
    {"col_sync", "the same with plain loads through registers: what cp.async adds", launch_col_sync},
    {"row_async", "cp.async, row-major tile order: what the tile order adds", launch_row_async},
    {"band8_async", "cp.async, bands of 8 tile rows (GEMM-style raster order)", launch_band8_async},
};

/* Not static: the exercise grader links this step's kernels by this name. */
extern "C" const step_desc step10 = {
    "10", "shared64_async", "64x64 tiles, cp.async loads, column-major tile order",
    step10_variants, (int)(sizeof step10_variants / sizeof step10_variants[0]),
};

STEP_MAIN(step10)
