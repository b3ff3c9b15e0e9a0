/**
 * @file shared_swizzle.cu
 * @brief Step 08: an XOR swizzle instead of padding: no bank conflicts and
 *        no wasted shared memory.
 *
 * ## The idea
 * Step 07 spread each column of the tile over the 32 banks by making every
 * row one word longer. Step 08 keeps the plain `float tile[32][32]` and
 * moves elements *within* their row instead: element `(r, c)` of the tile
 * is kept at column
 *
 *     c ^ r        (bitwise XOR)
 *
 * of row r. Its bank is then `(r * 32 + (c ^ r)) % 32 = c ^ r`.
 * - **Along a row** (fixed r, the load phase): `c -> c ^ r` is a bijection
 *   on 0..31, so the 32 elements of a row still fill 32 different columns
 *   and banks. Nothing collides, and the row still holds exactly its own
 *   32 elements: the tile needs no extra space.
 * - **Down a column** (fixed c, the store phase): `r -> c ^ r` is a
 *   bijection too, so the 32 elements of a column sit in 32 different banks.
 *
 * Both sides of the transpose take one pass per warp, as in step 07, and the
 * tile is 4096 bytes instead of 4224. The write-up has a table of the bank
 * numbers.
 *
 * ## What changed since step 07
 * The padding is gone; every access to `tile` goes through swizzled_col().
 * A second variant, `shared_swizzle_16x16`, applies the same swizzle to the
 * 16x16 tile and 16x16 block that padding could not make conflict-free in
 * step 07.
 *
 * The swizzle is not entirely free. With padding, the four tile elements a
 * thread touches are a fixed distance apart, one base address plus
 * constant offsets; with XOR they are not, so the compiler keeps one
 * address per element and the kernel needs more registers, which can lower
 * the number of blocks an SM holds. `make profile STEP=08` prints
 * `launch__registers_per_thread` and the achieved occupancy next to step 07's.
 *
 * | variant              | tile  | block | shared bytes per block | bank conflicts |
 * | -------------------- | ----- | ----- | ---------------------- | -------------- |
 * | shared_swizzle       | 32x32 | 32x8  | 4096                   | none           |
 * | shared_swizzle_16x16 | 16x16 | 16x16 | 1024                   | none           |
 *
 * ## What it assumes
 * Nothing about the shape: any M, N >= 1. Tiles that hang over the edge of
 * the matrix load and store only the elements that exist; the swizzle only
 * moves elements inside the tile, so the edge tests are those of step 07.
 * The grid is clamped to the hardware limits and each block walks tiles with
 * grid-stride loops (kernel_utils.cuh); indices are `size_t`. Accesses are
 * 4 bytes wide, so any 4-byte-aligned pointer works.
 *
 * ## Build and run
 *
 *     make step08
 *     ./build/step08 --rows 8192 --cols 8192
 *     ./build/step08 --rows 4096 --cols 4096 --variant shared_swizzle_16x16
 *     make profile STEP=08 ARGS="--rows 4096 --cols 4096"
 *
 * Write-up: docs/steps/08_shared_swizzle.md
 */
#include "harness.h"
#include "kernel_utils.cuh"

/** Number of shared-memory banks; also the number of threads in a warp. */
#define SMEM_BANKS 32

/**
 * @brief Where element (r, c) of the tile is kept inside row r: column c ^ r.
 *
 * For a power-of-two TILE and r, c < TILE, c ^ r is again below TILE, and
 * for a fixed r (or a fixed c) the map is one-to-one: XOR with the same
 * value twice gives back the original, so two different c cannot land on
 * the same column.
 */
__device__ __forceinline__ unsigned swizzled_col(unsigned r, unsigned c)
{
    return c ^ r;
}

/**
 * @brief Transpose through a TILE x TILE shared-memory tile laid out with
 *        swizzled_col(): no padding, no bank conflicts.
 *
 * The block is TILE x BLOCK_ROWS threads; each thread moves TILE / BLOCK_ROWS
 * elements of a tile, one every BLOCK_ROWS rows. A template, so that the
 * 32x8 and 16x16 variants run exactly the same code.
 *
 * @tparam TILE       side of the square tile; also blockDim.x
 * @tparam BLOCK_ROWS blockDim.y
 */
template <int TILE, int BLOCK_ROWS>
__global__ void __launch_bounds__(TILE * BLOCK_ROWS)
transpose_shared_swizzle(const float *__restrict__ in, float *__restrict__ out,
                         size_t rows, size_t cols)
{
    static_assert((TILE & (TILE - 1)) == 0, "XOR keeps a column inside the tile only for a power-of-two TILE");
    static_assert(TILE % BLOCK_ROWS == 0, "each thread must move a whole number of tile rows");
    static_assert(SMEM_BANKS % TILE == 0, "a warp must cover whole rows of the tile");
    static_assert(TILE * BLOCK_ROWS <= 1024, "a block holds at most 1024 threads");

    __shared__ float tile[TILE][TILE];   // element (r, c) lives at tile[r][swizzled_col(r, c)]

    const size_t tiles_y = ceil_div(rows, TILE);
    const size_t tiles_x = ceil_div(cols, TILE);
    for (size_t tile_y = blockIdx.y; tile_y < tiles_y; tile_y += gridDim.y) {
        for (size_t tile_x = blockIdx.x; tile_x < tiles_x; tile_x += gridDim.x) {
            const size_t row0 = tile_y * TILE;   // first row of `in` in this tile
            const size_t col0 = tile_x * TILE;   // first column of `in` in this tile

            // Load: a warp reads along a row of `in` (coalesced); element
            // (r, threadIdx.x) goes to its swizzled column of row r.
            const size_t in_col = col0 + threadIdx.x;
#pragma unroll
            for (int i = 0; i < TILE / BLOCK_ROWS; ++i) {
                const unsigned r = threadIdx.y + i * BLOCK_ROWS;   // row inside the tile
                const size_t in_row = row0 + r;                    // row of `in`
                if (in_row < rows && in_col < cols)
                    tile[r][swizzled_col(r, threadIdx.x)] = in[in_row * cols + in_col];
            }
            __syncthreads();   // the whole tile is loaded

            // Store: row (col0 + r) of `out` is column r of the tile, that is
            // elements (threadIdx.x, r), found at their swizzled columns.
            const size_t out_col = row0 + threadIdx.x;   // column of `out` = row of `in`
#pragma unroll
            for (int i = 0; i < TILE / BLOCK_ROWS; ++i) {
                const unsigned r = threadIdx.y + i * BLOCK_ROWS;   // column inside the tile
                const size_t out_row = col0 + r;                   // row of `out` = column of `in`
                if (out_row < cols && out_col < rows)
                    out[out_row * rows + out_col] = tile[threadIdx.x][swizzled_col(threadIdx.x, r)];
            }
            __syncthreads();   // everyone is done reading before the next tile overwrites it
        }
    }
}

/**
 * @brief Launch transpose_shared_swizzle<TILE, BLOCK_ROWS>() over the whole
 *        matrix: one block per tile, clamped to the grid limits.
 */
template <int TILE, int BLOCK_ROWS>
static size_t launch_shared_swizzle(const float *in, float *out, size_t rows, size_t cols,
                                    cudaStream_t stream)
{
    const dim3 block(TILE, BLOCK_ROWS);
    const dim3 grid = grid_for_tiles(ceil_div(cols, TILE), ceil_div(rows, TILE));
    transpose_shared_swizzle<TILE, BLOCK_ROWS><<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief 32x32 swizzled tile, 32x8 block: four elements per thread (the default). */
static size_t launch_shared_swizzle_32x8(const float *in, float *out, size_t rows, size_t cols,
                                         cudaStream_t stream)
{
    return launch_shared_swizzle<32, 8>(in, out, rows, cols, stream);
}

/** @brief 16x16 swizzled tile, 16x16 block: one element per thread. */
static size_t launch_shared_swizzle_16x16(const float *in, float *out, size_t rows, size_t cols,
                                          cudaStream_t stream)
{
    return launch_shared_swizzle<16, 16>(in, out, rows, cols, stream);
}

/** The kernels of step 08; the first is the default. */
static const kernel_variant step08_variants[] = {
    {"shared_swizzle", "32x32 tile with column c^r, 32x8 block, 4 elements per thread; no padding, no conflicts",
     launch_shared_swizzle_32x8},
    {"shared_swizzle_16x16", "16x16 tile with column c^r, 16x16 block; the case padding could not fix",
     launch_shared_swizzle_16x16},
};

/** Step 08 for the harness. Not static: the exercise grader links this step's kernels by this name. */
extern "C" const step_desc step08 = {
    "08", "shared_swizzle", "XOR-swizzled shared-memory tile: no bank conflicts, no padding",
    step08_variants, (int)(sizeof step08_variants / sizeof step08_variants[0]),
};

STEP_MAIN(step08)
