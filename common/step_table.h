/**
 * @file step_table.h
 * @brief What a step file declares: its launchers, its table of
 *        ::kernel_variant and its ::step_desc.
 *
 * These are the types alone. The harness that runs a step (harness.h,
 * run_step()) and the report that prints its results (report.h) both read
 * them, so they live here, where neither depends on the other for them.
 * A step file includes harness.h, which includes this header.
 */
#ifndef TRANSPOSE_STEP_TABLE_H
#define TRANSPOSE_STEP_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "permute.h"   // permute_plan: what a tensor kernel is given

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Launch one transpose on @p stream: @p in is rows x cols, row-major;
 *        @p out is cols x rows, row-major.
 *
 * The launcher must handle every shape with rows, cols >= 1 (grid limits,
 * more than 2^31 elements, widths that are not a multiple of the vector
 * width, and pointers that are 4-byte but not 16-byte aligned).
 * It only launches; the harness checks the launch and synchronises.
 *
 * @return the number of threads it launched, for the report.
 */
typedef size_t (*transpose_launcher)(const float *in, float *out,
                                     size_t rows, size_t cols,
                                     cudaStream_t stream);

/**
 * @brief The same for a step of 2-byte elements (bf16, fp16): @p in and
 *        @p out hold the elements' bits, which a transpose moves unchanged.
 *
 * The pointers are 2-byte aligned; `--offset E` starts both matrices E
 * elements (0-7) past a 16-byte boundary.
 */
typedef size_t (*transpose_launcher_16)(const uint16_t *in, uint16_t *out,
                                        size_t rows, size_t cols,
                                        cudaStream_t stream);

/**
 * @brief Launch one permute of a tensor (step 15) on @p stream: @p plan is
 *        the fold of the tensor (permute_fold()), @p element_bytes 4 or 2.
 *        The same launcher serves both element types. The pointers are
 *        element-aligned; `--offset E` starts both E elements past 16 bytes.
 * @return the number of threads it launched, for the report.
 */
typedef size_t (*permute_launcher)(const void *in, void *out, const permute_plan *plan, size_t element_bytes,
                                   cudaStream_t stream);

/**
 * @brief One-time preparation before the first launch, outside every timed
 *        region (for example cudaFuncSetAttribute()). May be NULL.
 */
typedef void (*step_setup_hook)(void);

/** @brief Any GPU the build supports can run the variant (::kernel_variant::min_cc). */
#define ANY_GPU 0

/**
 * @brief What a variant writes into `out`, and so what the harness checks it against.
 *
 * A step's kernels transpose. A variant may instead be a *bound*: a kernel
 * that moves the bytes as the step's kernel does, or half as it does, but
 * leaves out the transposition, to show what the transposition itself
 * costs. Its result is a copy, checked against the input, or the tiles
 * moved whole, checked against the reference with each whole tile
 * transposed back; the report gives it the CSV role `bound`, which no
 * summary takes for the step's kernel.
 */
enum variant_output {
    OUTPUT_TRANSPOSE = 0, /**< out (cols x rows) = the transpose of in: the default */
    OUTPUT_COPY,          /**< out (rows x cols) = in, bit for bit: a bound, role `bound` */
    /**
     * out (cols x rows) = in with every whole tile of SWAPPED_TILE_BYTES
     * a row moved to its transposed place but not transposed inside; edge
     * tiles transposed (verify_tiles_swapped()): a bound, role `bound`
     */
    OUTPUT_TILES_SWAPPED
};

/** The rows of the tile that ::OUTPUT_TILES_SWAPPED moves whole, in bytes: a square of 256-byte rows. */
#define SWAPPED_TILE_BYTES 256
/** That tile's side in floats: 64. */
#define SWAPPED_TILE (SWAPPED_TILE_BYTES / 4)
/** That tile's side in 2-byte elements: 128. */
#define SWAPPED_TILE_16 (SWAPPED_TILE_BYTES / 2)

/** @brief One kernel of a step, selectable with `--variant NAME`. */
typedef struct kernel_variant {
    const char *name;            /**< short name: the CSV's `kernel` column */
    const char *summary;         /**< one line for `--help` and `--list-variants` */
    transpose_launcher launch;   /**< the launcher */
    int min_cc;                  /**< lowest compute capability, as 10 * major + minor
                                      (90 for Hopper), or ::ANY_GPU; on an older GPU the
                                      variant is reported as SKIP with the reason */
    /**
     * What it writes: ::OUTPUT_TRANSPOSE, or ::OUTPUT_COPY or
     * ::OUTPUT_TILES_SWAPPED for a bound.
     * In C++ (every step, exercise and solution file) it defaults to
     * ::OUTPUT_TRANSPOSE, so a variant written with only the four members
     * above is a transpose. C has no default member values: C code names all
     * seven: the last two are the launchers of 2-byte elements and of tensors.
     */
#ifdef __cplusplus
    variant_output output = OUTPUT_TRANSPOSE;
    /** The launcher of a step of 2-byte elements (STEP_DEFINE_16()), whose `launch` is NULL. */
    transpose_launcher_16 launch16 = nullptr;
    /** The launcher of a tensor kernel (variant_permute()), whose `launch` and `launch16` are NULL. */
    permute_launcher permute = nullptr;
#else
    enum variant_output output;
    /** The launcher of a step of 2-byte elements; NULL in a float32 step. */
    transpose_launcher_16 launch16;
    /** The launcher of a tensor kernel; NULL in a step of matrices. */
    permute_launcher permute;
#endif
} kernel_variant;

#ifdef __cplusplus
/**
 * @brief A variant of a step of 2-byte elements: write
 *        `variant16("name", "summary", launcher)` in the step's table.
 */
static inline kernel_variant variant16(const char *name, const char *summary, transpose_launcher_16 launch,
                                       int min_cc = ANY_GPU, variant_output output = OUTPUT_TRANSPOSE)
{
    kernel_variant v = {name, summary, nullptr, min_cc, output};
    v.launch16 = launch;
    return v;
}

/**
 * @brief A variant that serves both element types: @p launch on float32,
 *        @p launch16 on 2-byte elements. Write
 *        `variant_both("name", "summary", launcher, launcher16)`.
 */
static inline kernel_variant variant_both(const char *name, const char *summary, transpose_launcher launch,
                                          transpose_launcher_16 launch16, int min_cc = ANY_GPU)
{
    kernel_variant v = {name, summary, launch, min_cc};
    v.launch16 = launch16;
    return v;
}

/**
 * @brief A tensor kernel (step 15), for both element types: write
 *        `variant_permute("name", "summary", launcher)` in the step's table.
 */
static inline kernel_variant variant_permute(const char *name, const char *summary, permute_launcher launch,
                                             int min_cc = ANY_GPU)
{
    kernel_variant v = {name, summary, nullptr, min_cc};
    v.permute = launch;
    return v;
}
#endif

/** @brief Number of entries of a variant table (a true array, not a pointer). */
#define VARIANT_COUNT(table) ((int)(sizeof(table) / sizeof((table)[0])))

/** @brief What a step tells the harness about itself. */
typedef struct step_desc {
    const char *number;                /**< two digits, e.g. "05": the CSV's `step` column */
    const char *name;                  /**< directory name without the number, e.g. "float4" */
    const char *title;                 /**< one line for the report header, `--help` and the
                                            README's step table */
    const kernel_variant *variants;    /**< the step's kernels; the first is the default,
                                            and must be a transpose (::OUTPUT_TRANSPOSE) */
    int variant_count;                 /**< number of entries in @p variants */
    step_setup_hook setup;             /**< called once before the first launch; may be NULL */
    size_t element_bytes;              /**< 4 (float32, STEP_DEFINE()) or 2 (STEP_DEFINE_16()) */
} step_desc;

/**
 * @brief Bytes per element of @p step: its element_bytes, or 4 (float32)
 *        where a ::step_desc written by hand leaves it 0.
 */
static inline size_t step_element_bytes(const step_desc *step)
{
    return step->element_bytes != 0 ? step->element_bytes : sizeof(float);
}

/** @brief Whether @p v has a launcher for elements of @p element_bytes bytes (4: `launch`, 2: `launch16`). */
static inline int variant_takes(const kernel_variant *v, size_t element_bytes)
{
    if (v->permute != NULL)   /* a tensor kernel takes both */
        return element_bytes == sizeof(float) || element_bytes == sizeof(uint16_t);
    if (element_bytes == sizeof(float))
        return v->launch != NULL;
    return element_bytes == sizeof(uint16_t) && v->launch16 != NULL;   /* no launcher for any other size */
}

/** @brief "float32" or "16-bit": what the report calls the elements of @p step. */
static inline const char *step_element_name(const step_desc *step)
{
    return step_element_bytes(step) == 2 ? "16-bit" : "float32";
}

#ifdef __cplusplus
}
#endif

#endif /* TRANSPOSE_STEP_TABLE_H */
