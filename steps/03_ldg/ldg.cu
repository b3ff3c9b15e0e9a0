/**
 * @file ldg.cu
 * @brief Step 03: send step 02's strided reads through the read-only data path (`__ldg`).
 *
 * ## What changed since step 02
 * The kernel is step 02's, thread for thread: 32 x 8 blocks, one element per
 * thread, `threadIdx.x` along a row of the output (a column of the input),
 * so writes are coalesced and reads strided. Two things are new:
 * - the pointers are declared `const float *__restrict__ in` and
 *   `float *__restrict__ out`: a promise that the two never overlap, so
 *   nothing the kernel writes can change what it reads;
 * - the read is `__ldg(&in[...])`, which compiles to a non-coherent load
 *   (`ld.global.nc`, SASS `LDG.E.CONSTANT`): the read-only data path.
 *
 * ## Why it might be faster
 * A warp's strided read touches 32 sectors and uses 4 bytes of each; the
 * next seven warps of the block read the next seven columns of the same
 * rows, i.e. the same 32 sectors. Whatever keeps those sectors close to the
 * SM between the first warp and the eighth decides how much traffic reaches
 * L2. On Kepler and Maxwell ordinary global loads were not cached in L1 by
 * default, but loads through the read-only (texture) path were: that is
 * what `__ldg` was for.
 *
 * Since Volta, L1 and the texture cache are one unit and ordinary global
 * loads are cached in L1 too. So on an H200 this step asks a real question
 * whose answer may be "no": the write-up measures it with Nsight Compute
 * (L1 and L2 hit rates, sectors per request), against two comparison
 * variants that isolate the effect:
 * - `restrict`: the same `__restrict__` pointers and a plain load; nvcc then
 *   picks the same non-coherent load by itself;
 * - `l2_only`: the load is `__ldcg` (cache in L2, not in L1), which shows
 *   what the L1 hits are worth by taking them away.
 *
 * ## What it assumes
 * `in` and `out` do not overlap (that is what `__restrict__` promises; the
 * harness allocates them separately). Nothing about the shape: any
 * M, N >= 1, past the grid limits and past 2^31 elements (see step 01).
 *
 * ## Build and run
 *
 *     make step03
 *     ./build/step03 --rows 8192 --cols 8192
 *     ./build/step03 --rows 8192 --cols 8192 --variant l2_only
 *     make run STEP=03 ARGS="--rows 4096 --cols 4096"
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

static const kernel_variant step03_variants[] = {
    {"ldg", "step 02 with const __restrict__ pointers and __ldg on the strided read",
     launch_ldg<LOAD_LDG>},
    {"restrict", "const __restrict__ pointers, plain load: the compiler chooses the load",
     launch_ldg<LOAD_PLAIN>},
    {"l2_only", "__ldcg: the strided read is cached in L2 only, never in L1",
     launch_ldg<LOAD_L2_ONLY>},
};

/* Not static: the exercise grader links this step's kernel by this name. */
extern "C" const step_desc step03 = {
    "03", "ldg", "Read-only data path (__ldg) for the strided reads",
    step03_variants, (int)(sizeof step03_variants / sizeof step03_variants[0]),
};

STEP_MAIN(step03)
