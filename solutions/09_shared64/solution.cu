/**
 * @file solution.cu
 * @brief Reference solution to exercise 09: fill step 09's 64 x 64 shared tile with float4 loads.
 *
 * The tile is step 09's 64 x 64, padded to `tile[64][65]` (one padding
 * column) rather than swizzled, moved by a 32 x 8 block, 16 elements per
 * thread. The load phase changes: a tile row
 * is 64 floats = 16 float4, so the block's 256 threads load 16 rows per pass
 * with one 16-byte load each (4 passes per tile) instead of 8 rows with two
 * 4-byte loads each (8 passes). The store phase is unchanged in spirit: a
 * warp writes 32 consecutive floats of one output row, taking them from a
 * column of the tile.
 *
 * A float4 load needs a 16-byte-aligned address. In a tile, the quad a
 * thread loads starts at column tile_col * 64 + 4 q; its address
 * `in + row * cols + col` is 16-byte aligned for every row exactly when `in`
 * is and `cols % 4 == 0`. Then a quad is either wholly inside the matrix or
 * wholly outside it. Otherwise every thread loads its four elements one at
 * a time, each only if it exists.
 *
 * The padded rows are 65 floats, so tile rows are not 16-byte aligned and
 * the four values go into shared memory as four 4-byte stores.
 *
 * Task: exercises/09_shared64/README.md. Grade: `make grade EX=09`.
 */
#include "harness.h"
#include "kernel_utils.cuh"

/** Side of the square tile. */
#define TILE 64
/** One padding column: a column of the tile then spans all 32 banks. */
#define PAD 1
/** Threads per block along x (one warp). */
#define BLOCK_COLS 32
/** Threads per block along y. */
#define BLOCK_ROWS 8
/** Threads per block. */
#define THREADS (BLOCK_COLS * BLOCK_ROWS)
/** Floats per vector load. */
#define VEC 4
/** float4 quads in one tile row. */
#define QUADS_PER_ROW (TILE / VEC)
/** Tile rows the block loads per pass, one quad per thread. */
#define LOAD_ROWS_PER_PASS (THREADS / QUADS_PER_ROW)
/** Output rows the block stores per pass, one float per thread. */
#define STORE_ROWS_PER_PASS (THREADS / TILE)

static_assert(TILE % VEC == 0, "a tile row must be whole quads");
static_assert(THREADS % QUADS_PER_ROW == 0 && TILE % LOAD_ROWS_PER_PASS == 0,
              "the load passes must cover the tile exactly");
static_assert(THREADS % TILE == 0 && TILE % STORE_ROWS_PER_PASS == 0,
              "the store passes must cover the tile exactly");
static_assert(TILE % 32 == 0, "a warp's 32 stores must stay in one output row");

/**
 * @brief Transpose through a padded TILE x TILE shared tile, loading it with
 *        float4 loads when the rows are 16-byte aligned.
 */
static __global__ void transpose_shared64_float4(const float *__restrict__ in, float *__restrict__ out,
                                                 size_t rows, size_t cols)
{
    __shared__ float tile[TILE][TILE + PAD];
    const unsigned id = threadIdx.y * BLOCK_COLS + threadIdx.x;  // 0 .. THREADS - 1
    const unsigned quad = id % QUADS_PER_ROW;   // which quad of a tile row this thread loads
    const unsigned load_row = id / QUADS_PER_ROW;  // its first tile row
    const unsigned lane = id % TILE;            // which column of an output row it stores
    const unsigned store_row = id / TILE;       // its first output row within the tile
    // The same answer for every thread, so the branch below never diverges.
    const bool quads_aligned = is_aligned_16(in) && cols % VEC == 0;

    const size_t tiles_y = ceil_div(rows, TILE);  // tiles down `in`
    const size_t tiles_x = ceil_div(cols, TILE);  // tiles along a row of `in`
    for (size_t tile_y = blockIdx.y; tile_y < tiles_y; tile_y += gridDim.y) {
        for (size_t tile_x = blockIdx.x; tile_x < tiles_x; tile_x += gridDim.x) {
            const size_t col = tile_x * TILE + quad * VEC;  // first column of `in` in the quad
#pragma unroll
            for (unsigned pass = 0; pass < TILE; pass += LOAD_ROWS_PER_PASS) {
                const unsigned r = load_row + pass;    // row inside the tile
                const size_t row = tile_y * TILE + r;  // row of `in`
                if (row >= rows || col >= cols)
                    continue;
                const float *src = in + row * cols + col;
                float *dst = &tile[r][quad * VEC];
                if (quads_aligned) {
                    // cols % 4 == 0 and col % 4 == 0, so col + 3 < cols: the whole quad exists.
                    const float4 v = *(const float4 *)src;
                    dst[0] = v.x;
                    dst[1] = v.y;
                    dst[2] = v.z;
                    dst[3] = v.w;
                } else {
#pragma unroll
                    for (int k = 0; k < VEC; ++k)
                        if (col + k < cols)
                            dst[k] = src[k];
                }
            }
            __syncthreads();  // the whole tile is in shared memory

            const size_t out_col = tile_y * TILE + lane;  // column of `out` = row of `in`
#pragma unroll
            for (unsigned pass = 0; pass < TILE; pass += STORE_ROWS_PER_PASS) {
                const unsigned r = store_row + pass;       // row of the output tile
                const size_t out_row = tile_x * TILE + r;  // row of `out` = column of `in`
                if (out_row < cols && out_col < rows)
                    out[out_row * rows + out_col] = tile[lane][r];  // conflict-free column, coalesced write
            }
            __syncthreads();  // everyone is done with `tile` before the next tile overwrites it
        }
    }
}

/** @brief Launch transpose_shared64_float4() with 32 x 8 blocks, one 64 x 64 tile each. */
static size_t launch_shared64_float4(const float *in, float *out, size_t rows, size_t cols,
                                     cudaStream_t stream)
{
    const dim3 block(BLOCK_COLS, BLOCK_ROWS);
    const dim3 grid = grid_for_tiles(ceil_div(cols, TILE), ceil_div(rows, TILE));
    transpose_shared64_float4<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** @brief The reference kernel, as the grader (lab/grade_main.cu) links it: not static. */
extern "C" const kernel_variant solution_09 = {
    "shared64_float4", "64x64 padded shared tile filled with float4 loads (scalar when unaligned), 32x8 block",
    launch_shared64_float4, ANY_GPU,
};
