/**
 * @file shared64_async.cu
 * @brief Step 10: tiles of 128 x 64 floats, loaded with asynchronous copies
 *        (`cp.async`) and written with streaming stores; odd shapes written
 *        in whole 32-byte sectors.
 *
 * ## The idea
 * Step 09 is within a few percent of the copy bound on aligned shapes and
 * far from it on odd ones. This step attacks both gaps:
 *
 * 1. **Longer runs of `out`.** A step 09 tile writes 256 bytes into each of
 *    64 rows of `out`. Here a tile is 128 rows of `in` by 64 columns, so
 *    each of its 64 rows of `out` gets 512 contiguous bytes, and a warp
 *    writes all 512 with one 16-byte store instruction.
 * 2. **`cp.async`** (compute capability 8.0 and newer) copies the tile from
 *    global to shared memory without passing through registers. Eight
 *    16-byte loads per thread would otherwise need 32 registers to land in;
 *    without them the kernel fits 40 registers and 6 blocks (192 KB of
 *    tiles) per multiprocessor. `cp.async.commit_group` closes a group of
 *    copies and `cp.async.wait_group N` waits until at most N groups are
 *    still in flight.
 * 3. **Streaming stores** (`st.global.cs`): `out` is never read again, so it
 *    is marked evict-first in L2 rather than pushing out lines of `in`.
 * 4. **Odd shapes: whole sectors.** DRAM and L2 work in 32-byte sectors.
 *    When `rows` is odd (10007 x 7919), a 64-float run of an `out` row
 *    starts in the middle of a sector and shares its first and last sectors
 *    with the neighbouring tiles, written by other blocks at other times.
 *    The 4-byte kernel here moves each tile's boundary in `out` row j back
 *    to the sector boundary at or before it, so every block writes only
 *    whole sectors (except at the very ends of a row). For that it loads 8
 *    rows of `in` above its tile as well.
 *
 * ## The variants
 * | variant      | tile (in)       | loads    | stores      | isolates                     |
 * | ------------ | --------------- | -------- | ----------- | ---------------------------- |
 * | tall_cs      | 128 x 64        | cp.async | streaming   | the default                  |
 * | tall         | 128 x 64        | cp.async | ordinary    | the streaming stores         |
 * | wide_cs      | 64 x 128        | cp.async | streaming   | long reads instead of writes |
 * | halves_cs    | 128 x 64 as 2x  | cp.async | streaming   | overlap inside a block       |
 * | sync_loads   | 128 x 64        | plain    | streaming   | the asynchronous copy        |
 *
 * `halves_cs` loads the two 64-row halves as two copy groups and stores
 * the first half while the second is still landing: step 09's tile, two
 * per block, double-buffered. `sync_loads` is `tall_cs` with ordinary
 * loads into registers; it is also what compute capability 7.x runs for
 * every variant (no `cp.async` there). All variants share the vector copy
 * and the 4-byte whole-sector kernel, so they differ only on aligned shapes.
 *
 * ## What it assumes
 * Nothing about the shape: any M, N >= 1. The 16-byte kernel runs when
 * rows % 4 == 0, cols % 4 == 0 and both pointers are 16-byte aligned (then
 * every edge tile is whole chunks); any other matrix takes the 4-byte
 * kernel. A 1 x N or N x 1 matrix has the same bytes as its transpose and
 * is copied with a float4 copy kernel. Grids are clamped to the hardware
 * limits and blocks walk tiles with grid-stride loops; indices are
 * `size_t`.
 *
 * ## Build and run
 *     make step10
 *     ./build/step10 --rows 8192 --cols 8192
 *     ./build/step10 --rows 8192 --cols 8192 --variant sync_loads
 *     ./build/step10 --rows 10007 --cols 7919          (whole-sector 4-byte kernel)
 *     ./build/step10 --rows 1 --cols 67108864          (a vector: the copy kernel)
 *
 * Write-up: docs/steps/10_shared64_async.md
 */
#include "harness.h"
#include "kernel_utils.cuh"

/** Threads per block along x: one warp. */
#define BLOCK_COLS 32
/** Threads per block along y. */
#define BLOCK_ROWS 8
/** Threads per block. */
#define THREADS (BLOCK_COLS * BLOCK_ROWS)
/** Floats per 16-byte chunk (one float4). */
#define VEC 4
/** Shared-memory banks (4 bytes each). */
#define SMEM_BANKS 32
/** Chunks per 128-byte wavefront: the number of bank groups. */
#define BANK_GROUPS (SMEM_BANKS / VEC)
/** Side of the 4-byte kernel's square tile, in floats (step 09's tile). */
#define TILE 64
/** Floats per 32-byte DRAM/L2 sector. */
#define SECTOR_FLOATS 8
/** Rows of `in` the 4-byte kernel loads above its tile: enough to reach back to a sector boundary. */
#define HALO SECTOR_FLOATS
/** Threads per block of the vector copy kernel. */
#define COPY_THREADS 256
/** float4s each copy thread has in flight at once. */
#define COPY_UNROLL 4

static_assert(TILE % BLOCK_COLS == 0 && (TILE + HALO) % BLOCK_ROWS == 0,
              "the 4-byte kernel moves whole warps of columns and whole block rows");
static_assert(TILE % SECTOR_FLOATS == 0, "tile boundaries keep their position inside a sector");
static_assert(SMEM_BANKS == BLOCK_COLS, "the word swizzle assumes one warp spans the banks once");

/**
 * @brief Blocks per multiprocessor to leave registers for (`__launch_bounds__`).
 *
 * A 16-byte-kernel block uses 32 KB of shared memory, so 6 fit in a Hopper
 * multiprocessor (228 KB); 6 x 256 threads leave 40 registers, enough when
 * `cp.async` holds no loaded data in registers. Plain loads hold 32 floats
 * per thread and get 64 registers (4 blocks). The 4-byte kernel: 5, as in
 * step 09. Turing runs at most 1024 threads per multiprocessor: 4.
 */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define MIN_BLOCKS_PER_SM(async) 4
#define SECTOR_MIN_BLOCKS_PER_SM 4
#else
#define MIN_BLOCKS_PER_SM(async) ((async) ? 6 : 4)
#define SECTOR_MIN_BLOCKS_PER_SM 5
#endif

/** 1 where the GPU has `cp.async` (compute capability 8.0 and newer), else 0. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define HAS_CP_ASYNC 1
#else
#define HAS_CP_ASYNC 0
#endif

/**
 * @brief Where chunk @p chunk of tile row @p row lives, in float4 units, for
 *        rows of @p chunks_per_row chunks (step 09's swizzle).
 *
 * XOR with the row's 4-row group number (mod 8) permutes each aligned run
 * of 8 chunks, so a quarter-warp writing 8 neighbouring chunks of a row is
 * conflict-free, and the first rows of 8 vertically adjacent 4x4 blocks
 * land in 8 different bank groups.
 */
static __device__ __forceinline__ unsigned chunk_slot(unsigned row, unsigned chunk,
                                                      unsigned chunks_per_row)
{
    return row * chunks_per_row + (chunk ^ ((row / VEC) % BANK_GROUPS));
}

/** @brief Where element (@p row, @p col) lives in the 4-byte kernel's tile (step 09's word swizzle). */
static __device__ __forceinline__ unsigned word_slot(unsigned row, unsigned col)
{
    return row * TILE + (col ^ (row % SMEM_BANKS));
}

/**
 * @brief Store 16 bytes at @p p (16-byte aligned) with one instruction;
 *        @p STREAM marks them evict-first (`.cs`).
 *
 * PTX rather than a float4 assignment: step 09 explains why.
 */
template <bool STREAM>
static __device__ __forceinline__ void store_float4(float *p, float4 v)
{
    if (STREAM)
        asm volatile("st.global.cs.v4.f32 [%0], {%1, %2, %3, %4};"
                     :: "l"(p), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w) : "memory");
    else
        asm volatile("st.global.v4.f32 [%0], {%1, %2, %3, %4};"
                     :: "l"(p), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w) : "memory");
}

/**
 * @brief Start copying 16 bytes from global to shared memory (`cp.async`).
 *
 * `.cg` caches the data in L2 only: it is read once, so L1 has no use for
 * it. Only called where HAS_CP_ASYNC; elsewhere the body is empty so that
 * the file still compiles for older GPUs.
 */
static __device__ __forceinline__ void cp_async_16(float4 *dst, const float *src)
{
#if HAS_CP_ASYNC
    const unsigned dst_shared = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(dst_shared), "l"(src) : "memory");
#endif
}

/** @brief Close this thread's copies issued so far into one group (nothing without `cp.async`). */
static __device__ __forceinline__ void copy_commit(void)
{
#if HAS_CP_ASYNC
    asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}

/**
 * @brief Wait until at most @p pending (0 or 1) of this thread's copy
 *        groups are in flight.
 *
 * `wait_group` takes its count as an immediate; in the unrolled callers
 * @p pending is a constant, so only one branch survives.
 */
static __device__ __forceinline__ void copy_wait(unsigned pending)
{
#if HAS_CP_ASYNC
    if (pending == 0)
        asm volatile("cp.async.wait_group 0;" ::: "memory");
    else
        asm volatile("cp.async.wait_group 1;" ::: "memory");
#endif
}

/**
 * @brief The 16-byte kernel: a TILE_ROWS x TILE_COLS tile of `in`, loaded
 *        in @p PARTS slices of rows, each slice one group of copies.
 *
 * Load: a tile row is TILE_COLS / 4 chunks; consecutive threads take
 * consecutive chunks, so a warp reads 512 contiguous bytes (TILE_COLS 128)
 * or 2 rows x 256 (TILE_COLS 64). Store: each thread owns 4x4 blocks; it
 * reads a block's 4 rows from shared memory and writes its 4 columns as 4
 * float4s of `out`. The 4-row group runs fastest across threads, so a warp
 * writes 512 contiguous bytes of one `out` row (slices of 128 rows) or 2
 * rows x 256 (slices of 64). Slice k is stored once its group has landed,
 * while the later slices are still in flight.
 *
 * Only valid when rows % 4 == 0, cols % 4 == 0 and both pointers are
 * 16-byte aligned (the launcher checks): edge tiles are whole chunks.
 *
 * @tparam TILE_ROWS rows of `in` per tile
 * @tparam TILE_COLS columns of `in` per tile
 * @tparam PARTS     slices the rows are loaded and stored in (1 or 2)
 * @tparam ASYNC     load with `cp.async` (sm_80+) or with plain loads
 * @tparam STREAM    streaming (evict-first) stores
 */
template <int TILE_ROWS, int TILE_COLS, int PARTS, bool ASYNC, bool STREAM>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS_PER_SM(ASYNC))
transpose_tile_async(const float *__restrict__ in, float *__restrict__ out, size_t rows, size_t cols)
{
    const unsigned CHUNKS = TILE_COLS / VEC;           // chunks per tile row
    const unsigned PART_ROWS = TILE_ROWS / PARTS;      // tile rows per slice
    const unsigned LOAD_ROWS = THREADS / CHUNKS;       // tile rows per pass of loads
    const unsigned LOAD_PASSES = PART_ROWS / LOAD_ROWS;
    const unsigned GROUPS = PART_ROWS / VEC;           // 4-row groups per slice = chunks of an `out` row
    const unsigned STORE_COLS = THREADS / GROUPS;      // 4-column groups per pass of stores
    const unsigned STORE_PASSES = CHUNKS / STORE_COLS;
    static_assert(PARTS == 1 || PARTS == 2, "copy_wait() handles at most one newer group");
    static_assert(THREADS % CHUNKS == 0 && PART_ROWS % LOAD_ROWS == 0, "load passes cover a slice");
    static_assert(THREADS % GROUPS == 0 && CHUNKS % STORE_COLS == 0, "store passes cover a slice");
    static_assert(GROUPS % BANK_GROUPS == 0 && CHUNKS % BANK_GROUPS == 0,
                  "the swizzle permutes aligned runs of 8 chunks");
    static_assert(TILE_ROWS * TILE_COLS * sizeof(float) <= 48 * 1024, "static shared memory limit");
    const bool async = ASYNC && HAS_CP_ASYNC;   // known at compile time
    __shared__ float4 tile[TILE_ROWS * CHUNKS];  // swizzled by chunk_slot()

    const unsigned tid = threadIdx.y * BLOCK_COLS + threadIdx.x;
    const unsigned load_row = tid / CHUNKS;      // tile row of this thread's first load
    const unsigned load_chunk = tid % CHUNKS;    // tile chunk (4 columns) it loads
    const unsigned group = tid % GROUPS;         // 4-row group it stores = chunk of an `out` row
    const unsigned store_col = tid / GROUPS;     // 4-column group of its first store pass

    const size_t tiles_y = ceil_div(rows, TILE_ROWS);
    const size_t tiles_x = ceil_div(cols, TILE_COLS);
    for (size_t tile_y = blockIdx.y; tile_y < tiles_y; tile_y += gridDim.y) {
        for (size_t tile_x = blockIdx.x; tile_x < tiles_x; tile_x += gridDim.x) {
            const size_t row0 = tile_y * TILE_ROWS;   // first row of `in` in this tile
            const size_t col0 = tile_x * TILE_COLS;   // first column of `in` in this tile
            const unsigned height = (unsigned)(rows - row0 < TILE_ROWS ? rows - row0 : TILE_ROWS);
            const unsigned width = (unsigned)(cols - col0 < TILE_COLS ? cols - col0 : TILE_COLS);
            const bool chunk_in = load_chunk * VEC < width;

            // Load, slice by slice; each slice's copies form one group.
#pragma unroll
            for (unsigned part = 0; part < PARTS; ++part) {
                float4 v[LOAD_PASSES];   // only for plain loads
#pragma unroll
                for (unsigned p = 0; p < LOAD_PASSES; ++p) {
                    const unsigned r = part * PART_ROWS + load_row + p * LOAD_ROWS;   // row inside the tile
                    const float *src = in + (row0 + r) * cols + col0 + load_chunk * VEC;
                    if (chunk_in && r < height) {
                        if (async)
                            cp_async_16(&tile[chunk_slot(r, load_chunk, CHUNKS)], src);
                        else
                            v[p] = *reinterpret_cast<const float4 *>(src);
                    }
                }
#pragma unroll
                for (unsigned p = 0; p < LOAD_PASSES; ++p) {
                    const unsigned r = part * PART_ROWS + load_row + p * LOAD_ROWS;
                    if (!async && chunk_in && r < height)
                        tile[chunk_slot(r, load_chunk, CHUNKS)] = v[p];
                }
                if (async)
                    copy_commit();
            }

            // Store, slice by slice, each as soon as its copies have landed.
#pragma unroll
            for (unsigned part = 0; part < PARTS; ++part) {
                if (async)
                    copy_wait(PARTS - 1 - part);   // this thread's copies of the slice are in
                __syncthreads();                   // so are everyone's
                const unsigned r = part * PART_ROWS + group * VEC;   // first tile row of the 4x4 block
#pragma unroll
                for (unsigned s = 0; s < STORE_PASSES; ++s) {
                    const unsigned c = store_col + s * STORE_COLS;   // 4-column group = 4 rows of `out`
                    if (r < height && c * VEC < width) {
                        float4 b[VEC];   // b[k] = tile row r + k, columns 4c .. 4c + 3
#pragma unroll
                        for (unsigned k = 0; k < VEC; ++k)
                            b[k] = tile[chunk_slot(r + k, c, CHUNKS)];
                        // Column j of the block is one chunk of `out` row col0 + 4c + j.
                        float *dst = out + (col0 + c * VEC) * rows + row0 + r;
                        store_float4<STREAM>(dst, make_float4(b[0].x, b[1].x, b[2].x, b[3].x));
                        store_float4<STREAM>(dst + rows, make_float4(b[0].y, b[1].y, b[2].y, b[3].y));
                        store_float4<STREAM>(dst + 2 * rows, make_float4(b[0].z, b[1].z, b[2].z, b[3].z));
                        store_float4<STREAM>(dst + 3 * rows, make_float4(b[0].w, b[1].w, b[2].w, b[3].w));
                    }
                }
            }
            __syncthreads();   // everyone is done reading before the next tile overwrites it
        }
    }
}

/**
 * @brief The 4-byte kernel for any shape and pointers: a 64x64 tile whose
 *        writes to `out` are cut at 32-byte sector boundaries.
 *
 * Tile (tile_y, tile_x) owns, in `out` row j = col0 + c, the elements from
 * `start(j, tile_y) = row0 - shift_j` up to `start(j, tile_y + 1)`, where
 * shift_j (0-7) is how many floats element (j, row0) lies past a sector
 * boundary; the first tile starts at 0 and the last ends at `rows`. Since
 * row0 is a multiple of 8, shift_j is the same for every tile_y, so the
 * pieces of neighbouring tiles meet exactly: every element is written
 * once, and every piece starts on a sector boundary. The tile therefore
 * needs up to 7 rows of `in` above row0; it loads HALO = 8.
 *
 * Load: a warp reads 32 consecutive floats of a row (18 loads per thread in
 * flight). Store: a warp writes 32 consecutive floats of an `out` row,
 * starting on a sector boundary: 4 whole sectors per instruction.
 */
__global__ void __launch_bounds__(THREADS, SECTOR_MIN_BLOCKS_PER_SM)
transpose_sector_aligned(const float *__restrict__ in, float *__restrict__ out,
                         size_t rows, size_t cols)
{
    __shared__ float tile[(HALO + TILE) * TILE];   // 18 KB; tile row i is `in` row row0 - HALO + i

    const unsigned tx = threadIdx.x;
    const unsigned ty = threadIdx.y;
    const size_t tiles_y = ceil_div(rows, TILE);
    const size_t tiles_x = ceil_div(cols, TILE);
    for (size_t tile_y = blockIdx.y; tile_y < tiles_y; tile_y += gridDim.y) {
        for (size_t tile_x = blockIdx.x; tile_x < tiles_x; tile_x += gridDim.x) {
            const size_t row0 = tile_y * TILE;
            const size_t col0 = tile_x * TILE;
            const size_t end_row = rows - row0 < TILE ? rows : row0 + TILE;   // one past the tile's last row
            const unsigned width = (unsigned)(cols - col0 < TILE ? cols - col0 : TILE);

            // Load rows row0 - HALO .. end_row - 1 (those inside the matrix).
            float v[(HALO + TILE) / BLOCK_ROWS][TILE / BLOCK_COLS];
#pragma unroll
            for (unsigned i = 0; i < (HALO + TILE) / BLOCK_ROWS; ++i)
#pragma unroll
                for (unsigned h = 0; h < TILE / BLOCK_COLS; ++h) {
                    const unsigned r = ty + i * BLOCK_ROWS, c = tx + h * BLOCK_COLS;   // (row, col) inside the tile
                    if (row0 + r >= HALO && row0 + r - HALO < end_row && c < width)
                        v[i][h] = in[(row0 + r - HALO) * cols + col0 + c];
                }
#pragma unroll
            for (unsigned i = 0; i < (HALO + TILE) / BLOCK_ROWS; ++i)
#pragma unroll
                for (unsigned h = 0; h < TILE / BLOCK_COLS; ++h) {
                    const unsigned r = ty + i * BLOCK_ROWS, c = tx + h * BLOCK_COLS;
                    if (row0 + r >= HALO && row0 + r - HALO < end_row && c < width)
                        tile[word_slot(r, c)] = v[i][h];
                }
            __syncthreads();   // the whole tile is in shared memory

            // Store: warp ty writes `out` rows col0 + ty, col0 + ty + 8, ...
            for (unsigned c = ty; c < width; c += BLOCK_ROWS) {
                float *dst = out + (col0 + c) * rows;   // `out` row col0 + c
                const unsigned shift = (unsigned)(((uintptr_t)(dst + row0) / sizeof(float)) % SECTOR_FLOATS);
                const size_t start = tile_y == 0 ? 0 : row0 - shift;
                const size_t end = tile_y + 1 == tiles_y ? rows : row0 + TILE - shift;
                for (size_t e = start + tx; e < end; e += BLOCK_COLS)
                    dst[e] = tile[word_slot((unsigned)(e + HALO - row0), c)];
            }
            __syncthreads();   // everyone is done reading before the next tile overwrites it
        }
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

/** @brief Launch transpose_sector_aligned(): one 32x8 block per 64x64 tile, clamped to the grid limits. */
static size_t launch_sector_aligned(const float *in, float *out, size_t rows, size_t cols,
                                    cudaStream_t stream)
{
    const dim3 block(BLOCK_COLS, BLOCK_ROWS);
    const dim3 grid = grid_for_tiles(ceil_div(cols, TILE), ceil_div(rows, TILE));
    transpose_sector_aligned<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/**
 * @brief Launch transpose_tile_async<...>() when every row of `in` and `out`
 *        starts on a 16-byte boundary; otherwise the vector copy (1 x N,
 *        N x 1) or the 4-byte whole-sector kernel.
 */
template <int TILE_ROWS, int TILE_COLS, int PARTS, bool ASYNC, bool STREAM>
static size_t launch_tiles(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    if (rows == 1 || cols == 1)
        return launch_vector_copy(in, out, rows * cols, stream);
    if (!(rows % VEC == 0 && cols % VEC == 0 && is_aligned_16(in) && is_aligned_16(out)))
        return launch_sector_aligned(in, out, rows, cols, stream);
    const void *kernel = (const void *)transpose_tile_async<TILE_ROWS, TILE_COLS, PARTS, ASYNC, STREAM>;
    // The kernel reads nothing twice, so give the L1/shared split all it can
    // to shared memory: that is what lets 6 blocks of 32 KB fit.
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                    cudaSharedmemCarveoutMaxShared));
    const dim3 block(BLOCK_COLS, BLOCK_ROWS);
    const dim3 grid = grid_for_tiles(ceil_div(cols, TILE_COLS), ceil_div(rows, TILE_ROWS));
    transpose_tile_async<TILE_ROWS, TILE_COLS, PARTS, ASYNC, STREAM><<<grid, block, 0, stream>>>(
        in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief 128 x 64 tiles, cp.async, streaming stores (the default). */
static size_t launch_tall_cs(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return launch_tiles<128, 64, 1, true, true>(in, out, rows, cols, stream);
}

/** @brief 128 x 64 tiles, cp.async, ordinary stores. */
static size_t launch_tall(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return launch_tiles<128, 64, 1, true, false>(in, out, rows, cols, stream);
}

/** @brief 64 x 128 tiles (512-byte reads, 256-byte writes), cp.async, streaming stores. */
static size_t launch_wide_cs(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return launch_tiles<64, 128, 1, true, true>(in, out, rows, cols, stream);
}

/** @brief 128 x 64 tiles as two 64-row halves: the first is stored while the second lands. */
static size_t launch_halves_cs(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return launch_tiles<128, 64, 2, true, true>(in, out, rows, cols, stream);
}

/** @brief 128 x 64 tiles, plain loads through registers, streaming stores. */
static size_t launch_sync_loads(const float *in, float *out, size_t rows, size_t cols, cudaStream_t stream)
{
    return launch_tiles<128, 64, 1, false, true>(in, out, rows, cols, stream);
}

static const kernel_variant step10_variants[] = {
    {"tall_cs", "128x64 tiles (512-byte writes), cp.async, streaming stores; whole-sector 4-byte kernel if misaligned",
     launch_tall_cs},
    {"tall", "128x64 tiles, cp.async, ordinary stores", launch_tall},
    {"wide_cs", "64x128 tiles (512-byte reads), cp.async, streaming stores", launch_wide_cs},
    {"halves_cs", "128x64 tiles as two cp.async groups, first half stored while the second lands",
     launch_halves_cs},
    {"sync_loads", "128x64 tiles, plain loads through registers, streaming stores", launch_sync_loads},
};

/* Not static: the exercise grader links this step's kernels by this name. */
extern "C" const step_desc step10 = {
    "10", "shared64_async", "128x64 tiles, cp.async loads, streaming stores, whole-sector odd shapes",
    step10_variants, (int)(sizeof step10_variants / sizeof step10_variants[0]),
};

STEP_MAIN(step10)
