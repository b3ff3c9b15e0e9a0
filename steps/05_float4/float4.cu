/**
 * @file float4.cu
 * @brief Step 05: 16-byte loads and 16-byte stores, through a 4 x 4 block transposed in registers.
 *
 * ## What changed since step 04
 * A thread moves a *quad*, a 4 x 4 block of `in`: four float4 loads of its
 * rows, then four float4 stores of its columns (pieces of four rows of
 * `out`); the transpose in between is only a choice of registers. Each
 * thread moves 16 elements with 8 memory instructions, where step 04
 * moved 4.
 *
 * ## The alignment rule
 * A float4 access needs a 16-byte-aligned address. The kernel views each
 * matrix as float4s from the 16-byte boundary at or before element 0 and
 * shifts the quad grid to match (floats_past_16()). Then loads are float4
 * when cols % 4 == 0, stores when rows % 4 == 0; edge quads and all other
 * cases go scalar, checking every element. Stores index a float4 array
 * (`out4[k] = v`); a cast `*(float4 *)(out + k)` compiled to 4-byte stores.
 *
 * ## What it assumes
 * `in` and `out` do not overlap and are 4-byte aligned; any M, N >= 1.
 * Variant `scalar` measures the fallback alone.
 *
 * ## Build and run
 *
 *     make step05
 *     ./build/step05 --shapes 8192x8192,8192x8192+1
 *     ./build/step05 --shapes 10007x7919 --variant scalar
 *
 * Write-up: docs/steps/05_float4.md
 */
#include "harness.h"
#include "kernel_utils.cuh"

/** Side of a quad, the square block of elements one thread moves: one float4 per row. */
#define QUAD 4
/** Threads per block along a row of the output: 8 quads = 32 input rows. */
#define BLOCK_QUADS_X 8
/** Threads per block down the output: 32 quads = 128 input columns. */
#define BLOCK_QUADS_Y 32

static_assert(QUAD * sizeof(float) == sizeof(float4), "a row of a quad must be exactly one float4");
static_assert(BLOCK_QUADS_X * QUAD * sizeof(float) == 128,
              "the lanes of a warp that share an output row must store 128 contiguous bytes");
static_assert(BLOCK_QUADS_X * BLOCK_QUADS_Y % 32 == 0, "a block must be whole warps");

/** @brief How many floats @p p lies past the last 16-byte boundary: 0 to 3. */
static __host__ __device__ inline size_t floats_past_16(const void *p)
{
    return ((uintptr_t)p & 15u) / sizeof(float);
}

/** @brief Quads needed to cover @p n elements when the first quad starts @p shift elements early. */
static __host__ __device__ inline size_t quad_count(size_t n, size_t shift)
{
    return ceil_div(n + shift, QUAD);
}

/** @brief True when element (@p row, @p col) of a rows x cols matrix exists; indices may be negative. */
static __device__ __forceinline__ bool inside(long long row, long long col, size_t rows, size_t cols)
{
    return row >= 0 && col >= 0 && (size_t)row < rows && (size_t)col < cols;
}

/**
 * @brief q[i][j] = in(r0 + i, 4 qc + j - s_in) with four float4 loads.
 *
 * @p in4 is `in` seen as float4s from the 16-byte boundary at or before
 * `in`; with cols % 4 == 0 each input row is @p row_float4s = cols / 4 of
 * them and the quad's columns are float4 number @p qc of each row.
 */
static __device__ __forceinline__ void load_quad_float4(const float4 *__restrict__ in4, size_t row_float4s,
                                                        size_t r0, size_t qc, float q[QUAD][QUAD])
{
#pragma unroll
    for (int i = 0; i < QUAD; ++i) {
        const float4 v = __ldg(&in4[(r0 + i) * row_float4s + qc]);   // row r0 + i of the quad
        q[i][0] = v.x;
        q[i][1] = v.y;
        q[i][2] = v.z;
        q[i][3] = v.w;
    }
}

/**
 * @brief out(c0 + j, 4 qr + i - s_out) = q[i][j] with four float4 stores:
 *        column j of the quad is float4 number @p qr of output row c0 + j.
 *
 * @p out4 is `out` seen as float4s, as in load_quad_float4(); with
 * rows % 4 == 0 each output row is @p row_float4s = rows / 4 of them.
 */
static __device__ __forceinline__ void store_quad_float4(float4 *__restrict__ out4, size_t row_float4s,
                                                         size_t c0, size_t qr, float q[QUAD][QUAD])
{
    // The transpose happens here: store j gathers element j of every loaded row.
#pragma unroll
    for (int j = 0; j < QUAD; ++j)
        out4[(c0 + j) * row_float4s + qr] = make_float4(q[0][j], q[1][j], q[2][j], q[3][j]);
}

/** @brief q[i][j] = in(r0 + i, c0 + j) one float at a time; elements outside the matrix are set to 0. */
static __device__ __forceinline__ void load_quad_scalar(const float *__restrict__ in, size_t rows, size_t cols,
                                                        long long r0, long long c0, float q[QUAD][QUAD])
{
#pragma unroll
    for (int i = 0; i < QUAD; ++i) {
#pragma unroll
        for (int j = 0; j < QUAD; ++j) {
            const long long r = r0 + i, c = c0 + j;   // (row, col) of `in`
            q[i][j] = inside(r, c, rows, cols) ? __ldg(&in[(size_t)r * cols + (size_t)c]) : 0.0f;
        }
    }
}

/** @brief out(c0 + j, r0 + i) = q[i][j] one float at a time, for the elements inside the matrix only. */
static __device__ __forceinline__ void store_quad_scalar(float *__restrict__ out, size_t rows, size_t cols,
                                                         long long r0, long long c0, float q[QUAD][QUAD])
{
#pragma unroll
    for (int j = 0; j < QUAD; ++j) {
#pragma unroll
        for (int i = 0; i < QUAD; ++i) {
            const long long r = r0 + i, c = c0 + j;   // (row, col) of `in` = (col, row) of `out`
            if (inside(r, c, rows, cols))
                out[(size_t)c * rows + (size_t)r] = q[i][j];
        }
    }
}

/**
 * @brief Each thread moves one 4 x 4 quad; a block of 8 x 32 threads covers
 *        32 input rows x 128 input columns.
 *
 * Quad (qr, qc) starts at input row r0 = 4 qr - s_out and column
 * c0 = 4 qc - s_in, where s_in and s_out are floats_past_16() of the two
 * pointers (0 when they are 16-byte aligned). That puts the quad's row
 * pieces on 16-byte boundaries of `in` when cols % 4 == 0, and its column
 * pieces on 16-byte boundaries of `out` when rows % 4 == 0. Each side takes
 * its float4 path when its condition holds and the quad lies wholly inside
 * the matrix, and the scalar path otherwise. With @p vectors false every
 * quad takes the scalar paths.
 */
__global__ void transpose_float4(const float *__restrict__ in, float *__restrict__ out,
                                 size_t rows, size_t cols, bool vectors)
{
    const size_t col_shift = floats_past_16(in);    // s_in
    const size_t row_shift = floats_past_16(out);   // s_out
    // The same memory as float4s from the 16-byte boundary at or before element 0 (exact for
    // any 4-byte aligned pointer; checked below, not assumed). Only float4s wholly inside the
    // matrix are ever accessed. Then float4 k of in4 is aligned for every k, and with
    // cols % 4 == 0 every input row is a whole number of them (likewise out4 and rows).
    const float4 *in4 = (const float4 *)(in - col_shift);
    float4 *out4 = (float4 *)(out - row_shift);
    const bool vector_loads = vectors && cols % QUAD == 0 && is_aligned_16(in4);
    const bool vector_stores = vectors && rows % QUAD == 0 && is_aligned_16(out4);
    const size_t quad_rows = quad_count(rows, row_shift);
    const size_t quad_cols = quad_count(cols, col_shift);
    const size_t tiles_y = ceil_div(quad_cols, BLOCK_QUADS_Y);   // tiles down the output
    const size_t tiles_x = ceil_div(quad_rows, BLOCK_QUADS_X);   // tiles along an output row
    for (size_t tile_y = blockIdx.y; tile_y < tiles_y; tile_y += gridDim.y) {
        for (size_t tile_x = blockIdx.x; tile_x < tiles_x; tile_x += gridDim.x) {
            const size_t qr = tile_x * BLOCK_QUADS_X + threadIdx.x;   // quad index down `in`
            const size_t qc = tile_y * BLOCK_QUADS_Y + threadIdx.y;   // quad index along a row of `in`
            if (qr >= quad_rows || qc >= quad_cols)
                continue;
            const long long r0 = (long long)(qr * QUAD) - (long long)row_shift;  // >= -3
            const long long c0 = (long long)(qc * QUAD) - (long long)col_shift;  // >= -3
            const bool whole = inside(r0, c0, rows, cols) && inside(r0 + 3, c0 + 3, rows, cols);
            float q[QUAD][QUAD];                                                 // q[i][j] = in(r0 + i, c0 + j)
            if (whole && vector_loads)
                load_quad_float4(in4, cols / QUAD, (size_t)r0, qc, q);
            else
                load_quad_scalar(in, rows, cols, r0, c0, q);
            if (whole && vector_stores)
                store_quad_float4(out4, rows / QUAD, (size_t)c0, qr, q);
            else
                store_quad_scalar(out, rows, cols, r0, c0, q);
        }
    }
}

/** @brief Launch transpose_float4() over the whole matrix. */
static size_t launch_quads(const float *in, float *out, size_t rows, size_t cols, bool vectors,
                           cudaStream_t stream)
{
    const size_t quad_rows = quad_count(rows, floats_past_16(out));
    const size_t quad_cols = quad_count(cols, floats_past_16(in));
    const dim3 block(BLOCK_QUADS_X, BLOCK_QUADS_Y);
    const dim3 grid = grid_for_tiles(ceil_div(quad_rows, BLOCK_QUADS_X), ceil_div(quad_cols, BLOCK_QUADS_Y));
    transpose_float4<<<grid, block, 0, stream>>>(in, out, rows, cols, vectors);
    return threads_launched(grid, block);
}

/** @brief The default: float4 loads and stores wherever the addresses allow. */
static size_t launch_float4(const float *in, float *out, size_t rows, size_t cols,
                            cudaStream_t stream)
{
    return launch_quads(in, out, rows, cols, true, stream);
}

/** @brief The same kernel with every quad on the scalar path. */
static size_t launch_scalar(const float *in, float *out, size_t rows, size_t cols,
                            cudaStream_t stream)
{
    return launch_quads(in, out, rows, cols, false, stream);
}

/** The kernels of step 05; the first is the default. */
static const kernel_variant variants[] = {
    {"float4", "4x4 quads per thread: float4 loads and float4 stores where aligned, scalar elsewhere",
     launch_float4, ANY_GPU},
    {"scalar", "the same quads with the float4 paths switched off: the cost of the fallback",
     launch_scalar, ANY_GPU},
};

STEP_DEFINE("float4 loads and stores through a 4x4 register transpose", variants, NULL)
