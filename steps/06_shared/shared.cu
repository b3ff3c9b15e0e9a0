/**
 * @file shared.cu
 * @brief Step 06: stage a tile in shared memory so that reads AND writes are coalesced.
 *        The bank conflicts are left in on purpose.
 *
 * ## The idea
 * Steps 01 to 05 always left one side of the copy strided: a warp that reads
 * along a row of `in` writes down a column of `out`. A block can fix both
 * sides by going through shared memory, the on-chip scratchpad that all of
 * its threads see:
 *
 * 1. The block reads a TILE x TILE square of `in` row by row (coalesced) and
 *    stores it unchanged into `tile[TILE][TILE]`.
 * 2. `__syncthreads()`: the whole square is now in shared memory.
 * 3. The block writes the square to `out` row by row (coalesced), taking each
 *    row of `out` from a *column* of `tile`.
 *
 * The transpose now happens inside shared memory, where any access pattern
 * is cheap... almost.
 *
 * ## The catch: bank conflicts
 * Shared memory is split into 32 banks, 4 bytes wide; the 4-byte word at
 * index `i` lives in bank `i % 32`. A warp's 32 accesses finish in one pass
 * (one *wavefront*) only if they fall in 32 different banks (or on the same
 * word). `tile[r][c]` is word `r * 32 + c`, so its bank is `c`: a whole
 * column of a 32-wide tile sits in ONE bank. Step 3 reads a column per warp,
 * so the 32 reads are served one after another: a 32-way bank conflict and
 * 32 wavefronts where 1 would do. Step 07 removes it with one column of
 * padding, step 08 with an XOR swizzle.
 *
 * ## The variants: block shape
 * All variants are the same kernel, instantiated for a different tile and
 * thread-block shape. Names give the block as x-by-y, so `32x8` means 32
 * threads along a row times 8 rows. The default, `shared_32x8`, is the one the
 * benchmark uses.
 *
 * | variant       | tile  | elements per thread | bank conflict when reading a column |
 * | ------------- | ----- | ------------------- | ----------------------------------- |
 * | shared_32x8   | 32x32 | 4                   | 32-way                              |
 * | shared_32x32  | 32x32 | 1                   | 32-way                              |
 * | shared_16x16  | 16x16 | 1                   | 8-way                               |
 * | shared_8x8    | 8x8   | 1                   | 2-way                               |
 *
 * Smaller tiles conflict less (a warp then spans several rows of the tile,
 * and rows start in different banks) but give each block less work and
 * shorter contiguous runs in global memory. The write-up measures the
 * trade-off.
 *
 * ## What it assumes
 * Nothing about the shape: any M, N >= 1. Tiles that hang over the edge of
 * the matrix load and store only the elements that exist. The grid is
 * clamped to the hardware limits and each block walks tiles with
 * grid-stride loops (kernel_utils.cuh); indices are `size_t`. Accesses are
 * 4 bytes wide, so any 4-byte-aligned pointer works.
 *
 * ## Build and run
 *
 *     make step06
 *     ./build/step06 --rows 8192 --cols 8192
 *     ./build/step06 --rows 4096 --cols 4096 --variant shared_8x8
 *     make profile STEP=06 ARGS="--rows 4096 --cols 4096"
 *
 * Write-up: docs/steps/06_shared.md
 */
#include "harness.h"
#include "kernel_utils.cuh"

/** Number of shared-memory banks; also the number of threads in a warp. */
#define SMEM_BANKS 32

/**
 * @brief Transpose through a TILE x TILE shared-memory tile, without padding.
 *
 * The block is TILE x BLOCK_ROWS threads; each thread moves TILE / BLOCK_ROWS
 * elements of a tile, one every BLOCK_ROWS rows. A template, so that the
 * block-shape variants run exactly the same code.
 *
 * @tparam TILE       side of the square tile; also blockDim.x
 * @tparam BLOCK_ROWS blockDim.y
 */
template <int TILE, int BLOCK_ROWS>
__global__ void __launch_bounds__(TILE * BLOCK_ROWS)
transpose_shared(const float *__restrict__ in, float *__restrict__ out,
                 size_t rows, size_t cols)
{
    static_assert(TILE % BLOCK_ROWS == 0, "each thread must move a whole number of tile rows");
    static_assert(SMEM_BANKS % TILE == 0, "a warp must cover whole rows of the tile");
    static_assert(TILE * BLOCK_ROWS <= 1024, "a block holds at most 1024 threads");

    __shared__ float tile[TILE][TILE];   // no padding: tile[r][c] is in bank (r * TILE + c) % 32

    const size_t tiles_y = ceil_div(rows, TILE);
    const size_t tiles_x = ceil_div(cols, TILE);
    for (size_t tile_y = blockIdx.y; tile_y < tiles_y; tile_y += gridDim.y) {
        for (size_t tile_x = blockIdx.x; tile_x < tiles_x; tile_x += gridDim.x) {
            const size_t row0 = tile_y * TILE;   // first row of `in` in this tile
            const size_t col0 = tile_x * TILE;   // first column of `in` in this tile

            // Load: a warp reads along a row of `in` (coalesced) and stores
            // along a row of `tile` (consecutive words: no conflict).
            const size_t in_col = col0 + threadIdx.x;
#pragma unroll
            for (int i = 0; i < TILE / BLOCK_ROWS; ++i) {
                const unsigned r = threadIdx.y + i * BLOCK_ROWS;   // row inside the tile
                const size_t in_row = row0 + r;                    // row of `in`
                if (in_row < rows && in_col < cols)
                    tile[r][threadIdx.x] = in[in_row * cols + in_col];
            }
            __syncthreads();   // the whole tile is loaded

            // Store: row (col0 + r) of `out` is column r of the tile. A warp
            // writes along a row of `out` (coalesced) but reads down a column
            // of `tile`: TILE words that are TILE apart, the bank conflict.
            const size_t out_col = row0 + threadIdx.x;   // column of `out` = row of `in`
#pragma unroll
            for (int i = 0; i < TILE / BLOCK_ROWS; ++i) {
                const unsigned r = threadIdx.y + i * BLOCK_ROWS;   // column inside the tile
                const size_t out_row = col0 + r;                   // row of `out` = column of `in`
                if (out_row < cols && out_col < rows)
                    out[out_row * rows + out_col] = tile[threadIdx.x][r];
            }
            __syncthreads();   // everyone is done reading before the next tile overwrites it
        }
    }
}

/**
 * @brief Launch transpose_shared<TILE, BLOCK_ROWS>() over the whole matrix:
 *        one block per tile, clamped to the grid limits.
 */
template <int TILE, int BLOCK_ROWS>
static size_t launch_shared(const float *in, float *out, size_t rows, size_t cols,
                            cudaStream_t stream)
{
    const dim3 block(TILE, BLOCK_ROWS);
    const dim3 grid = grid_for_tiles(ceil_div(cols, TILE), ceil_div(rows, TILE));
    transpose_shared<TILE, BLOCK_ROWS><<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief 32x32 tile, 32x8 block: four elements per thread (the default). */
static size_t launch_shared_32x8(const float *in, float *out, size_t rows, size_t cols,
                                 cudaStream_t stream)
{
    return launch_shared<32, 8>(in, out, rows, cols, stream);
}

/** @brief 32x32 tile, 32x32 block: one element per thread. */
static size_t launch_shared_32x32(const float *in, float *out, size_t rows, size_t cols,
                                  cudaStream_t stream)
{
    return launch_shared<32, 32>(in, out, rows, cols, stream);
}

/** @brief 16x16 tile, 16x16 block: one element per thread. */
static size_t launch_shared_16x16(const float *in, float *out, size_t rows, size_t cols,
                                  cudaStream_t stream)
{
    return launch_shared<16, 16>(in, out, rows, cols, stream);
}

/** @brief 8x8 tile, 8x8 block: one element per thread. */
static size_t launch_shared_8x8(const float *in, float *out, size_t rows, size_t cols,
                                cudaStream_t stream)
{
    return launch_shared<8, 8>(in, out, rows, cols, stream);
}

/** The kernels of step 06; the first is the default. */
static const kernel_variant step06_variants[] = {
    {"shared_32x8", "32x32 shared tile, 32x8 block, 4 elements per thread; 32-way bank conflict",
     launch_shared_32x8},
    {"shared_32x32", "32x32 shared tile, 32x32 block, 1 element per thread; 32-way bank conflict",
     launch_shared_32x32},
    {"shared_16x16", "16x16 shared tile, 16x16 block, 1 element per thread; 8-way bank conflict",
     launch_shared_16x16},
    {"shared_8x8", "8x8 shared tile, 8x8 block, 1 element per thread; 2-way bank conflict",
     launch_shared_8x8},
};

/** Step 06 for the harness. Not static: the exercise grader links this step's kernels by this name. */
extern "C" const step_desc step06 = {
    "06", "shared", "Shared-memory tile: coalesced reads and writes, bank conflicts left in",
    step06_variants, (int)(sizeof step06_variants / sizeof step06_variants[0]),
};

STEP_MAIN(step06)
