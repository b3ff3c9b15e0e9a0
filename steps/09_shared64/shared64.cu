/**
 * @file shared64.cu
 * @brief Step 09: a 64x64 shared-memory tile, 16 elements per thread, moved
 *        with 16-byte loads and stores and a swizzle that keeps them
 *        conflict-free.
 *
 * ## The idea
 * Step 08 moved a 32x32 tile with 32x8 threads: 4 elements per thread.
 * This step keeps the 32x8 block but gives it a 64x64 tile, so each thread
 * moves 16 elements and each block has 16 KB of loads in flight instead of
 * 4 KB. It also moves them 16 bytes at a time (a `float4`, "a chunk" below)
 * wherever the shape allows, on both sides:
 *
 * 1. **Load.** A tile row is 64 floats = 16 chunks, so the 256 threads cover
 *    16 rows per pass and the tile in 4 passes: 4 `float4` loads per thread,
 *    all issued before the first is used. A warp reads 2 rows x 256
 *    contiguous bytes.
 * 2. **Into shared memory** as 4 `float4` stores, chunk by chunk.
 * 3. **Out again, transposed in registers.** Each thread owns one 4x4 block
 *    of the tile: it reads the block's 4 rows as 4 `float4`s, so that it
 *    holds 4 columns of 4 values each, and writes each column as one
 *    `float4` of `out`. A warp writes 2 rows of `out` x 256 contiguous bytes.
 *
 * Per thread and tile that is 4 global loads, 4 shared stores, 4 shared
 * loads and 4 global stores, all 16 bytes wide: a quarter of the
 * instructions of moving the same 16 floats one at a time.
 *
 * ## Bank conflicts with 16-byte accesses
 * Shared memory has 32 banks of 4 bytes, so one pass (a *wavefront*)
 * delivers 128 bytes: 8 chunks. A warp's 16-byte access moves 512 bytes and
 * needs at least 4 wavefronts; the hardware serves it a quarter-warp at a
 * time (lanes 0-7, 8-15, 16-23, 24-31), and a quarter-warp is conflict-free
 * when its 8 chunks lie in 8 different *bank groups* (chunk position % 8).
 *
 * - Loading (step 2), a quarter-warp stores chunks 0-7 (or 8-15) of one
 *   tile row: 8 neighbouring chunks, conflict-free in any layout.
 * - Storing (step 3), lanes 0-7 read chunk `c` of rows 0, 4, 8, ..., 28
 *   (the first row of 8 blocks that lie one under another). With plain
 *   rows of 16 chunks every row starts in bank group 0, so all 8 reads hit
 *   group `c % 8`: an 8-way conflict. Padding each row by one chunk (the
 *   16-byte version of step 07's trick) does not fix it either: rows 4
 *   apart then start 4 groups apart, only 2 distinct groups, 4-way.
 *
 * The fix is step 08's XOR swizzle at chunk granularity: chunk `c` of tile
 * row `r` is kept at position `c ^ ((r / 4) % 8)` of that row. Inside a row
 * XOR with a constant only permutes chunks 0-7 among themselves (and 8-15),
 * so loading stays conflict-free; rows 4 apart now have different XOR
 * masks, so the 8 reads of a quarter-warp land in 8 different groups. The
 * tile stays 64 x 64 floats, 16 KB, with no padding. The write-up draws the
 * layout.
 *
 * ## The variants
 * | variant | 16-byte paths               | shared layout                           |
 * | ------- | --------------------------- | --------------------------------------- |
 * | vec4    | where the shape allows      | chunk swizzle; word swizzle on fallback |
 * | scalar  | never: 4-byte accesses only | word swizzle `c ^ (r % 32)` (step 08)   |
 *
 * `scalar` is the 64x64 design that seed 000 measured at 99.5% of cuBLAS
 * (on its own GPU), written for any shape; it shows what the 16-byte
 * accesses add on top of the bigger tile.
 *
 * ## What it assumes
 * Nothing about the shape: any M, N >= 1. A 16-byte access needs a
 * 16-byte-aligned address, so `vec4` takes the 16-byte kernel only when
 * `cols % 4 == 0` (rows of `in` start on chunk boundaries), `rows % 4 == 0`
 * (rows of `out` do), and both base pointers are 16-byte aligned. Then every
 * edge tile is a whole number of chunks in both directions, so edges only
 * need a per-chunk bounds check. Any other shape or pointer goes to the
 * 4-byte kernel, which checks every element. The grid is clamped to the
 * hardware limits and blocks walk tiles with grid-stride loops; indices
 * are `size_t`.
 *
 * ## Build and run
 *
 *     make step09
 *     ./build/step09 --rows 8192 --cols 8192
 *     ./build/step09 --rows 8192 --cols 8192 --variant scalar
 *     ./build/step09 --rows 10007 --cols 7919        (odd shape: 4-byte kernel)
 *
 * Write-up: docs/steps/09_shared64.md
 */
#include "harness.h"
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
/**
 * Blocks per multiprocessor to leave registers for (`__launch_bounds__`).
 * 5 x 256 threads allow 48 registers, which both kernels fit without
 * spilling; at 6 (40 registers) the float4 kernel spills (`-Xptxas -v`).
 * 5 blocks keep up to 80 KB of tiles per multiprocessor in flight.
 * Turing (sm_75) runs at most 1024 threads per multiprocessor: 4 blocks.
 */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define MIN_BLOCKS_PER_SM 4
#else
#define MIN_BLOCKS_PER_SM 5
#endif
/** Shared-memory banks (4 bytes each). */
#define SMEM_BANKS 32
/** Chunks per 128-byte wavefront: the number of bank groups. */
#define BANK_GROUPS (SMEM_BANKS / VEC)

static_assert(TILE % ROWS_PER_PASS == 0, "the 16-byte load passes must cover the tile");
static_assert(THREADS == CHUNKS_PER_ROW * CHUNKS_PER_ROW,
              "one thread per 4x4 block of the tile on the way out");
static_assert(CHUNKS_PER_ROW % BANK_GROUPS == 0, "the chunk swizzle must stay inside a row");
static_assert(TILE % BLOCK_COLS == 0 && TILE % BLOCK_ROWS == 0,
              "the 4-byte kernel moves whole warps of columns and whole block rows");
static_assert(SMEM_BANKS == BLOCK_COLS, "the word swizzle assumes one warp spans the banks once");

/**
 * @brief Where chunk @p chunk of tile row @p row lives, in float4 units.
 *
 * Rows are 16 chunks, unpadded; the XOR with the row's 4-row group number
 * (mod 8) spreads the first rows of 8 vertically adjacent 4x4 blocks over
 * the 8 bank groups (see the file comment).
 */
static __device__ __forceinline__ unsigned chunk_slot(unsigned row, unsigned chunk)
{
    return row * CHUNKS_PER_ROW + (chunk ^ ((row / VEC) % BANK_GROUPS));
}

/**
 * @brief Store 16 bytes at @p p (16-byte aligned) with one instruction.
 *
 * Written as `*(float4 *)p = v`, a float4 assembled from four different
 * registers was split by the compiler into four 4-byte stores (four `STG.E`
 * in the SASS instead of one `STG.E.128`). The same ordinary store written
 * as one PTX instruction stays whole.
 */
static __device__ __forceinline__ void store_float4(float *p, float4 v)
{
    asm volatile("st.global.v4.f32 [%0], {%1, %2, %3, %4};"
                 :: "l"(p), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w) : "memory");
}

/**
 * @brief Where element (@p row, @p col) lives in the 4-byte kernel's tile.
 *
 * Step 08's swizzle, stretched to 64 columns: XOR with `row % 32` permutes
 * columns 0-31 among themselves (and 32-63), so a row is still conflict-free,
 * and a column's 32 consecutive rows land in 32 different banks.
 */
static __device__ __forceinline__ unsigned word_slot(unsigned row, unsigned col)
{
    return row * TILE + (col ^ (row % SMEM_BANKS));
}

/**
 * @brief The 16-byte kernel: 4 float4 loads and 4 float4 stores per thread
 *        and tile, through a chunk-swizzled 64x64 shared tile.
 *
 * Only valid when rows % 4 == 0, cols % 4 == 0 and both pointers are
 * 16-byte aligned (the launcher checks): then a tile's height and width are
 * multiples of 4 and edge tiles need only a per-chunk bounds check.
 */
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS_PER_SM)
transpose_shared64_vec4(const float *__restrict__ in, float *__restrict__ out,
                        size_t rows, size_t cols)
{
    __shared__ float4 tile[TILE * CHUNKS_PER_ROW];   // 16 KB, swizzled by chunk_slot()

    const unsigned tid = threadIdx.y * BLOCK_COLS + threadIdx.x;   // 0..255
    // Load role: row tid / 16 (+ 16 per pass), chunk tid % 16, so a warp
    // reads 2 rows x 256 contiguous bytes.
    const unsigned load_row = tid / CHUNKS_PER_ROW;    // row inside the tile, first pass
    const unsigned load_chunk = tid % CHUNKS_PER_ROW;  // chunk (4 columns) inside the tile
    // Store role: one 4x4 block. `group` runs fastest, so 16 neighbouring
    // lanes write 16 consecutive chunks of one row of `out`.
    const unsigned group = tid % CHUNKS_PER_ROW;       // 4-row group of the tile = chunk of an `out` row
    const unsigned block_col = tid / CHUNKS_PER_ROW;   // 4-column group of the tile = 4 rows of `out`

    const size_t tiles_y = ceil_div(rows, TILE);
    const size_t tiles_x = ceil_div(cols, TILE);
    for (size_t tile_y = blockIdx.y; tile_y < tiles_y; tile_y += gridDim.y) {
        for (size_t tile_x = blockIdx.x; tile_x < tiles_x; tile_x += gridDim.x) {
            const size_t row0 = tile_y * TILE;   // first row of `in` in this tile
            const size_t col0 = tile_x * TILE;   // first column of `in` in this tile
            const unsigned height = (unsigned)(rows - row0 < TILE ? rows - row0 : TILE);   // multiple of 4
            const unsigned width = (unsigned)(cols - col0 < TILE ? cols - col0 : TILE);    // multiple of 4

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
}

/**
 * @brief The 4-byte kernel: the same 64x64 tile and 32x8 block for any shape
 *        and any 4-byte-aligned pointers.
 *
 * Each thread loads elements (ty + 8i, tx) and (ty + 8i, tx + 32) of the
 * tile for i = 0..7, so a warp reads 128 contiguous bytes of one row, and
 * stores the same pattern transposed. 16 loads are in flight per thread.
 */
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS_PER_SM)
transpose_shared64_scalar(const float *__restrict__ in, float *__restrict__ out,
                          size_t rows, size_t cols)
{
    __shared__ float tile[TILE * TILE];   // 16 KB, swizzled by word_slot()

    const unsigned tx = threadIdx.x;
    const unsigned ty = threadIdx.y;
    const size_t tiles_y = ceil_div(rows, TILE);
    const size_t tiles_x = ceil_div(cols, TILE);
    for (size_t tile_y = blockIdx.y; tile_y < tiles_y; tile_y += gridDim.y) {
        for (size_t tile_x = blockIdx.x; tile_x < tiles_x; tile_x += gridDim.x) {
            const size_t row0 = tile_y * TILE;
            const size_t col0 = tile_x * TILE;
            const unsigned height = (unsigned)(rows - row0 < TILE ? rows - row0 : TILE);
            const unsigned width = (unsigned)(cols - col0 < TILE ? cols - col0 : TILE);

            // Load: a warp reads 32 consecutive floats of one row of `in`;
            // all 16 loads are issued before the first shared store.
            const float *src = in + (row0 + ty) * cols + col0 + tx;
            float v[TILE / BLOCK_ROWS][TILE / BLOCK_COLS];
#pragma unroll
            for (unsigned i = 0; i < TILE / BLOCK_ROWS; ++i)
#pragma unroll
                for (unsigned h = 0; h < TILE / BLOCK_COLS; ++h)
                    if (ty + i * BLOCK_ROWS < height && tx + h * BLOCK_COLS < width)
                        v[i][h] = src[i * BLOCK_ROWS * cols + h * BLOCK_COLS];
#pragma unroll
            for (unsigned i = 0; i < TILE / BLOCK_ROWS; ++i)
#pragma unroll
                for (unsigned h = 0; h < TILE / BLOCK_COLS; ++h) {
                    const unsigned r = ty + i * BLOCK_ROWS, c = tx + h * BLOCK_COLS;   // (row, col) inside the tile
                    if (r < height && c < width)
                        tile[word_slot(r, c)] = v[i][h];
                }
            __syncthreads();   // the whole tile is in shared memory

            // Store: row c of this tile of `out` is column c of `tile`; a
            // warp writes 32 consecutive floats of one row of `out`.
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
}

/**
 * @brief True when the 16-byte kernel may run: every row of `in` and of
 *        `out` starts on a 16-byte boundary.
 */
static bool vec4_fits(const float *in, const float *out, size_t rows, size_t cols)
{
    return rows % VEC == 0 && cols % VEC == 0 && is_aligned_16(in) && is_aligned_16(out);
}

/** @brief Launch the 4-byte kernel: one 32x8 block per 64x64 tile, clamped to the grid limits. */
static size_t launch_scalar(const float *in, float *out, size_t rows, size_t cols,
                            cudaStream_t stream)
{
    const dim3 block(BLOCK_COLS, BLOCK_ROWS);
    const dim3 grid = grid_for_tiles(ceil_div(cols, TILE), ceil_div(rows, TILE));
    transpose_shared64_scalar<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/**
 * @brief Launch the 16-byte kernel when vec4_fits(), else the 4-byte one
 *        (the default variant).
 */
static size_t launch_vec4(const float *in, float *out, size_t rows, size_t cols,
                          cudaStream_t stream)
{
    if (!vec4_fits(in, out, rows, cols))
        return launch_scalar(in, out, rows, cols, stream);
    const dim3 block(BLOCK_COLS, BLOCK_ROWS);
    const dim3 grid = grid_for_tiles(ceil_div(cols, TILE), ceil_div(rows, TILE));
    transpose_shared64_vec4<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

static const kernel_variant step09_variants[] = {
    {"vec4", "64x64 tile, 32x8 block, float4 loads/stores and a chunk swizzle (4-byte kernel if misaligned)",
     launch_vec4},
    {"scalar", "64x64 tile, 32x8 block, 16 four-byte elements per thread, word swizzle",
     launch_scalar},
};

/* Not static: the exercise grader links this step's kernels by this name. */
extern "C" const step_desc step09 = {
    "09", "shared64", "64x64 shared tile, 16 elements per thread, 16-byte accesses",
    step09_variants, (int)(sizeof step09_variants / sizeof step09_variants[0]),
};

STEP_MAIN(step09)
