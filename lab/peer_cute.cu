/**
 * @file peer_cute.cu
 * @brief A transpose written the way CuTe (CUTLASS's `cute/` headers)
 *        teaches it, as a peer of the tutorial's answer in lab/peers.py.
 *
 * The tutorial's steps build a tiled transpose by hand: indices, a shared
 * tile, padding or a swizzle, vector loads, guards at the edges. CuTe says
 * the same things as *layouts* (functions from coordinates to offsets) and
 * *tiled copies* (which thread moves which elements, with which
 * instruction). One thread block moves one BM x BN tile:
 *
 *   1. the input tile, BM rows of BN elements, is copied from global memory
 *      into a shared tile by a tiled copy whose threads each move one
 *      16-byte vector along a row (one element where the shape forbids
 *      vectors);
 *   2. the same shared memory is read through a second layout, the
 *      transposed one, by a second tiled copy whose threads each hold a
 *      vector of the *output's* row, and write it to global memory.
 *
 * Step 2 reads a column of the shared tile. Without care those reads hit
 * one memory bank many times over; the shared layout is therefore
 * composed with a cute::Swizzle, which XORs row bits into column bits so
 * that the rows one warp reads at once fall in different banks, while the
 * 16-byte vectors of step 1 stay whole. The edges of the matrix (any M, N
 * from 1 up) are guarded the CuTe way: an identity tensor gives every
 * element's (row, col), and a copy happens only where it lies inside
 * (tiles wholly inside the matrix, most of them, skip the guard).
 *
 * Built by `make peers-lib` (mk/peers.mk) into build/peers/libcute.so when
 * CuTe's headers are found. lab/peers.py loads it with ctypes, tries every
 * configuration in kConfigs on each shape and times the fastest.
 */
#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include <cute/tensor.hpp>
#include <cutlass/version.h>

// A named namespace: an unnamed one clashes with CuTe's own in nvcc's generated stubs.
namespace cute_peer {

using namespace cute;

/** log2 of a power of two, at compile time. */
constexpr int log2_of(int n) { return n > 1 ? 1 + log2_of(n / 2) : 0; }

/**
 * @brief Everything one kernel needs to know at compile time: the element
 *        type, the tile (BM x BN of the input), the threads of a block and
 *        how many elements each copy instruction moves on the input side
 *        (VIN) and on the output side (VOUT): 16 bytes' worth, or 1.
 */
template <class T, int BM, int BN, int THREADS, int VIN, int VOUT>
struct Plan {
    // A shared-memory bank is 4 bytes wide and there are 32 of them: a 128-byte line.
    static constexpr int kLineBits = log2_of(128 / sizeof(T));  // elements per line, as bits
    static constexpr int kWordBits = log2_of(4 / sizeof(T));    // elements per bank word, as bits

    // The swizzle Swizzle<B, M, S> XORs offset bits [M + S, M + S + B) into
    // bits [M, M + B). Bits below M are left alone: a VIN-element vector stays whole.
    static constexpr int kM = VIN > 1 ? log2_of(VIN) : kWordBits;
    // The source bits are the row bits that tell apart the rows one store
    // instruction reads: each thread holds VOUT consecutive rows, so from row bit log2(VOUT) up.
    static constexpr int kS = log2_of(BN) + log2_of(VOUT) - kM;
    // As many bits as pick a bank within one 128-byte line (CuTe asks S >= B).
    static constexpr int kB = kLineBits - kM < kS ? kLineBits - kM : kS;

    using SmemSwizzle = Swizzle<kB, kM, kS>;
    // The input's view of the shared tile: (BM, BN), row-major, swizzled.
    using SmemIn = decltype(composition(SmemSwizzle{},
                                        Layout<Shape<Int<BM>, Int<BN>>, Stride<Int<BN>, _1>>{}));
    // The output's view of the same bytes: (BN, BM), element (j, i) is the input's (i, j).
    using SmemOut = decltype(composition(SmemSwizzle{},
                                         Layout<Shape<Int<BN>, Int<BM>>, Stride<_1, Int<BN>>>{}));

    // Input side: the threads of a row of threads cover 128 bytes of an input row (or the whole row).
    static constexpr int kThreadsAlongRow = BN / VIN < 32 ? BN / VIN : 32;
    using ThreadsIn = Layout<Shape<Int<THREADS / kThreadsAlongRow>, Int<kThreadsAlongRow>>,
                             Stride<Int<kThreadsAlongRow>, _1>>;
    using ValuesIn = Layout<Shape<_1, Int<VIN>>>;

    // Output side: as many threads along an output row as the swizzle keeps apart (2^B).
    static constexpr int kThreadsAlongOutRow = (1 << kB) < BM / VOUT ? (1 << kB) : BM / VOUT;
    using ThreadsOut = Layout<Shape<Int<THREADS / kThreadsAlongOutRow>, Int<kThreadsAlongOutRow>>,
                              Stride<Int<kThreadsAlongOutRow>, _1>>;
    using ValuesOut = Layout<Shape<_1, Int<VOUT>>>;

    static_assert(THREADS % kThreadsAlongRow == 0 && BM % (THREADS / kThreadsAlongRow) == 0,
                  "the input tiled copy must tile the BM x BN tile");
    static_assert(THREADS % kThreadsAlongOutRow == 0 && BN % (THREADS / kThreadsAlongOutRow) == 0,
                  "the output tiled copy must tile the BN x BM tile");

    /** The vector one copy instruction moves: 16 bytes, or one element. */
    template <int V>
    using Vector = conditional_t<V == 1, T, uint128_t>;
    using CopyIn = Copy_Atom<UniversalCopy<Vector<VIN>>, T>;
    using CopyOut = Copy_Atom<UniversalCopy<Vector<VOUT>>, T>;

    static constexpr int kBM = BM, kBN = BN, kThreads = THREADS;
    static constexpr size_t kSmemBytes = BM * BN * sizeof(T);
};

/**
 * @brief Which of a thread's copies lie inside the matrix: (copies down,
 *        copies across) -> bool, from the (row, col) of each copy's first
 *        element (@p coords, an identity tensor partitioned as the data is).
 *        A vector is inside when its first element is: vectors are only
 *        used where a row's length is a multiple of a vector's.
 */
template <class Coords, class Bounds>
__device__ auto inside(Coords const &coords, Bounds const &bounds)
{
    Tensor ok = make_tensor<bool>(make_shape(size<1>(coords), size<2>(coords)));
    CUTE_UNROLL
    for (int m = 0; m < size<1>(coords); ++m)
        CUTE_UNROLL
        for (int n = 0; n < size<2>(coords); ++n)
            ok(m, n) = elem_less(coords(0, m, n), bounds);
    return ok;
}

/**
 * @brief One block moves tile (blockIdx.x / tiles_n, blockIdx.x % tiles_n)
 *        of the rows x cols input @p in to the cols x rows output @p out.
 *
 * The grid is one-dimensional: a second grid axis stops at 65535 blocks,
 * too few for a 67108864 x 1 matrix.
 */
template <class P, class T>
__global__ void __launch_bounds__(P::kThreads)
transpose_kernel(const T *in, T *out, int64_t rows, int64_t cols, int64_t tiles_n)
{
    extern __shared__ __align__(128) unsigned char smem_bytes[];
    constexpr int BM = P::kBM, BN = P::kBN;

    // The whole matrices, row-major: in is (rows, cols), out is (cols, rows).
    Tensor m_in = make_tensor(make_gmem_ptr(in), make_layout(make_shape(rows, cols), LayoutRight{}));
    Tensor m_out = make_tensor(make_gmem_ptr(out), make_layout(make_shape(cols, rows), LayoutRight{}));

    // This block's tile of each, and of an identity tensor: (row, col) of every element, for the guards.
    const int64_t tile_m = blockIdx.x / tiles_n, tile_n = blockIdx.x % tiles_n;
    const auto tile_in = Shape<Int<BM>, Int<BN>>{};
    const auto tile_out = Shape<Int<BN>, Int<BM>>{};
    Tensor g_in = local_tile(m_in, tile_in, make_coord(tile_m, tile_n));      // (BM, BN)
    Tensor g_out = local_tile(m_out, tile_out, make_coord(tile_n, tile_m));   // (BN, BM)
    Tensor c_in = local_tile(make_identity_tensor(shape(m_in)), tile_in, make_coord(tile_m, tile_n));
    Tensor c_out = local_tile(make_identity_tensor(shape(m_out)), tile_out, make_coord(tile_n, tile_m));

    // One shared tile, two views of it.
    T *smem = reinterpret_cast<T *>(smem_bytes);
    Tensor s_in = make_tensor(make_smem_ptr(smem), typename P::SmemIn{});     // (BM, BN)
    Tensor s_out = make_tensor(make_smem_ptr(smem), typename P::SmemOut{});   // (BN, BM)

    // 1. Global -> shared. Each thread's part: (vector, copies down, copies across).
    auto copy_in = make_tiled_copy(typename P::CopyIn{}, typename P::ThreadsIn{}, typename P::ValuesIn{});
    auto thread_in = copy_in.get_slice(threadIdx.x);
    Tensor t_g_in = thread_in.partition_S(g_in);
    Tensor t_s_in = thread_in.partition_D(s_in);
    Tensor t_c_in = thread_in.partition_S(c_in);
    // Most tiles lie wholly inside the matrix and copy without a guard; only the edge tiles ask.
    const bool whole_tile = (tile_m + 1) * BM <= rows && (tile_n + 1) * BN <= cols;
    if (whole_tile)
        copy(copy_in, t_g_in, t_s_in);
    else
        copy_if(copy_in, inside(t_c_in, shape(m_in)), t_g_in, t_s_in);
    __syncthreads();

    // 2. Shared -> registers (down a column of the shared tile, element by element),
    //    then registers -> global, a vector of an output row at a time.
    auto copy_out = make_tiled_copy(typename P::CopyOut{}, typename P::ThreadsOut{}, typename P::ValuesOut{});
    auto thread_out = copy_out.get_slice(threadIdx.x);
    Tensor t_s_out = thread_out.partition_S(s_out);
    Tensor t_g_out = thread_out.partition_D(g_out);
    Tensor t_c_out = thread_out.partition_D(c_out);
    Tensor t_r_out = make_tensor<T>(shape(t_g_out));
    copy(t_s_out, t_r_out);
    if (whole_tile)
        copy(copy_out, t_r_out, t_g_out);
    else
        copy_if(copy_out, inside(t_c_out, shape(m_out)), t_r_out, t_g_out);
}

/** @brief Launch the kernel of plan P; the CUDA error of the launch (cudaSuccess: it started). */
template <class P, class T>
cudaError_t launch_plan(const T *in, T *out, int64_t rows, int64_t cols, cudaStream_t stream)
{
    constexpr int BM = P::kBM, BN = P::kBN;
    static bool smem_allowed = false;   // tiles of more than 48 KiB must ask for it, once per kernel
    if (!smem_allowed) {
        const cudaError_t err = cudaFuncSetAttribute(transpose_kernel<P, T>,
                                                     cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                     (int)P::kSmemBytes);
        if (err != cudaSuccess)
            return err;
        smem_allowed = true;
    }
    const int64_t tiles_n = (cols + BN - 1) / BN;
    const int64_t tiles = (rows + BM - 1) / BM * tiles_n;
    transpose_kernel<P, T><<<(unsigned)tiles, P::kThreads, P::kSmemBytes, stream>>>(
        in, out, rows, cols, tiles_n);
    return cudaGetLastError();
}

/**
 * @brief Pick the vector widths the shape allows and launch. A row of the
 *        input is read in 16-byte vectors when its length is a multiple of
 *        a vector (and the pointer is aligned), so every row starts on a
 *        vector; the output's rows likewise.
 */
template <class T, int BM, int BN, int THREADS>
cudaError_t launch_tile(const void *in, void *out, int64_t rows, int64_t cols, cudaStream_t stream)
{
    constexpr int V = 16 / sizeof(T);
    const bool vector_in = cols % V == 0 && (uintptr_t)in % 16 == 0;
    const bool vector_out = rows % V == 0 && (uintptr_t)out % 16 == 0;
    const T *x = (const T *)in;
    T *y = (T *)out;
    if (vector_in && vector_out)
        return launch_plan<Plan<T, BM, BN, THREADS, V, V>>(x, y, rows, cols, stream);
    if (vector_in)
        return launch_plan<Plan<T, BM, BN, THREADS, V, 1>>(x, y, rows, cols, stream);
    if (vector_out)
        return launch_plan<Plan<T, BM, BN, THREADS, 1, V>>(x, y, rows, cols, stream);
    return launch_plan<Plan<T, BM, BN, THREADS, 1, 1>>(x, y, rows, cols, stream);
}

using Launcher = cudaError_t (*)(const void *, void *, int64_t, int64_t, cudaStream_t);

/** A tile configuration: its name, and its launcher for 4-byte and for 2-byte elements. */
struct Config {
    const char *name;
    Launcher four_bytes, two_bytes;
};

#define CONFIG(BM, BN, THREADS)                                             \
    { #BM "x" #BN " tile, " #THREADS " threads",                            \
      launch_tile<uint32_t, BM, BN, THREADS>, launch_tile<uint16_t, BM, BN, THREADS> }

/** The configurations lab/peers.py tries on each shape (it keeps the fastest). */
const Config kConfigs[] = {
    CONFIG(32, 32, 128),
    CONFIG(64, 64, 256),
    CONFIG(64, 128, 256),
    CONFIG(128, 64, 256),
    CONFIG(128, 128, 256),
};
constexpr int kConfigCount = sizeof kConfigs / sizeof kConfigs[0];

}  // namespace cute_peer

using cute_peer::kConfigs;
using cute_peer::kConfigCount;
using cute_peer::Launcher;

extern "C" {

/** @brief The CUTLASS version of the headers this library was built with, e.g. "4.2.0". */
const char *cute_version(void)
{
#define CUTE_PEER_STR2(x) #x
#define CUTE_PEER_STR(x) CUTE_PEER_STR2(x)
    return CUTE_PEER_STR(CUTLASS_MAJOR) "." CUTE_PEER_STR(CUTLASS_MINOR) "." CUTE_PEER_STR(CUTLASS_PATCH);
}

/** @brief How many tile configurations there are. */
int cute_config_count(void) { return kConfigCount; }

/** @brief The name of configuration @p config, e.g. "64x64 tile, 256 threads"; NULL if there is none. */
const char *cute_config_name(int config)
{
    return config >= 0 && config < kConfigCount ? kConfigs[config].name : NULL;
}

/**
 * @brief Launch configuration @p config on @p stream: @p in is rows x cols,
 *        row-major, @p out cols x rows; elements of @p element_bytes bytes
 *        (4: float32; 2: bf16, moved as their bits).
 * @return 0 if the kernel was launched, -1 for an element size or
 *         configuration there is none of, else the CUDA error of the launch
 *         (cute_error_string() names it)
 */
int cute_transpose(int element_bytes, int config, const void *in, void *out, size_t rows, size_t cols,
                   void *stream)
{
    if (config < 0 || config >= kConfigCount || (element_bytes != 4 && element_bytes != 2))
        return -1;
    if (rows == 0 || cols == 0)
        return 0;
    const Launcher launch = element_bytes == 4 ? kConfigs[config].four_bytes : kConfigs[config].two_bytes;
    return (int)launch(in, out, (int64_t)rows, (int64_t)cols, (cudaStream_t)stream);
}

/** @brief What a return value of cute_transpose() means. */
const char *cute_error_string(int error)
{
    return error == -1 ? "no such element size or configuration" : cudaGetErrorString((cudaError_t)error);
}

}  // extern "C"
