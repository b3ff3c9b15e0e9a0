/**
 * @file ldg.cu
 * @brief Step 03: send step 02's strided reads through the read-only data path (`__ldg`).
 *
 * ## What changed since step 02
 * The kernel is step 02's, thread for thread, with two additions: the
 * pointers are `const float *__restrict__ in` and `float *__restrict__ out`
 * (a promise that they never overlap), and the read is `__ldg(&in[...])`,
 * a non-coherent load (`LDG.E.CONSTANT`) through the read-only data path.
 *
 * ## Why it might be faster
 * The eight warps of a block read the same 32 sectors, one column each;
 * whatever keeps those sectors near the SM decides how much traffic
 * reaches L2. On Kepler and Maxwell only the read-only path cached global
 * loads in L1. Since Volta, L1 caches ordinary loads too, so on an H200 the
 * answer may be "no". Two variants isolate the effect: `restrict` (a plain
 * load: nvcc picks the non-coherent one by itself) and `l2_only` (`__ldcg`:
 * no L1 at all).
 *
 * ## What it assumes
 * `in` and `out` do not overlap. Nothing about the shape (see step 01).
 *
 * ## Build and run
 *
 *     make step03
 *     ./build/step03 --shapes 8192x8192
 *     ./build/step03 --shapes 8192x8192 --variant l2_only
 *
 * Write-up: docs/steps/03_ldg.md
 */
#include "harness.h"
#include "kernel_utils.cuh"

/** Threads per block along a row of the output (one warp). */
#define BLOCK_COLS 32
/** Rows of the output covered by one block. */
#define BLOCK_ROWS 8

/** @brief How the strided read of the input is issued; one kernel per choice. */
enum load_path {
    LOAD_LDG,      /**< `__ldg`: the read-only data path, forced */
    LOAD_PLAIN,    /**< an ordinary load; `__restrict__` leaves the choice to the compiler */
    LOAD_L2_ONLY   /**< `__ldcg`: cached in L2 only, never in L1 */
};

/** @brief Read `*p` the way @p PATH says; the switch folds away at compile time. */
template <load_path PATH>
static __device__ __forceinline__ float load_input(const float *__restrict__ p)
{
    switch (PATH) {
    case LOAD_LDG:     return __ldg(p);
    case LOAD_L2_ONLY: return __ldcg(p);
    default:           return *p;
    }
}

/**
 * @brief Step 02's kernel with `__restrict__` pointers and the read issued by
 *        load_input(); a block covers an 8 x 32 patch of `out`.
 *
 * `out` is cols x rows, so its row index runs over the input's columns and
 * its column index over the input's rows.
 */
template <load_path PATH>
__global__ void transpose_ldg(const float *__restrict__ in, float *__restrict__ out,
                              size_t rows, size_t cols)
{
    const size_t tiles_y = ceil_div(cols, BLOCK_ROWS);   // tiles down the output
    const size_t tiles_x = ceil_div(rows, BLOCK_COLS);   // tiles along an output row
    for (size_t tile_y = blockIdx.y; tile_y < tiles_y; tile_y += gridDim.y) {
        for (size_t tile_x = blockIdx.x; tile_x < tiles_x; tile_x += gridDim.x) {
            const size_t out_row = tile_y * BLOCK_ROWS + threadIdx.y;  // = column of `in`
            const size_t out_col = tile_x * BLOCK_COLS + threadIdx.x;  // = row of `in`
            if (out_row < cols && out_col < rows)                      // strided read, coalesced write
                out[out_row * rows + out_col] = load_input<PATH>(&in[out_col * cols + out_row]);
        }
    }
}

/** @brief Launch transpose_ldg() with load path @p PATH over the whole matrix. */
template <load_path PATH>
static size_t launch_ldg(const float *in, float *out, size_t rows, size_t cols,
                         cudaStream_t stream)
{
    const dim3 block(BLOCK_COLS, BLOCK_ROWS);
    const dim3 grid = grid_for_tiles(ceil_div(rows, BLOCK_COLS), ceil_div(cols, BLOCK_ROWS));
    transpose_ldg<PATH><<<grid, block, 0, stream>>>(in, out, rows, cols);
    return threads_launched(grid, block);
}

/** The kernels of step 03; the first is the default. */
static const kernel_variant variants[] = {
    {"ldg", "step 02 with const __restrict__ pointers and __ldg on the strided read",
     launch_ldg<LOAD_LDG>, ANY_GPU},
    {"restrict", "const __restrict__ pointers, plain load: the compiler chooses the load",
     launch_ldg<LOAD_PLAIN>, ANY_GPU},
    {"l2_only", "__ldcg: the strided read is cached in L2 only, never in L1",
     launch_ldg<LOAD_L2_ONLY>, ANY_GPU},
};

STEP_DEFINE("Read-only data path (__ldg) for the strided reads", variants, NULL)
