"""The Triton peers of lab.peers and lab.peers_permute: a plan as step 15 folds a permutation (a matrix is one
transpose of rows x cols), then a Triton kernel for each case, a batched tiled transpose or a copy of runs, at
its best configuration for each shape.

Imported only when a Triton peer runs, so that lab.peers works where Triton is not installed. Triton's autotuner
tries every configuration once per shape and element type (outside every check and timing) and keeps the fastest,
so the peer is timed at its best, not at a tile picked for another shape. The batch is up to five dimensions, the
last the fastest: a program's batch index is written in them, as step 15's permute_batch_offsets() does. The grid
is one-dimensional: a 2-D grid's second axis stops at 65535 programs, too few for a 67108864 x 1 matrix.
"""

import triton
import triton.language as tl

TRANSPOSE_CONFIGS = [triton.Config({"BM": m, "BN": n}, num_warps=w)
                     for m, n in ((32, 32), (64, 64), (64, 128), (128, 64), (128, 128)) for w in (4, 8)]
COPY_CONFIGS = [triton.Config({"BLOCK": b}, num_warps=w) for b in (128, 256, 512, 1024) for w in (4, 8)]


@triton.jit
def batch_offsets(b, e0, e1, e2, e3, e4, i0, i1, i2, i3, i4, o0, o1, o2, o3, o4):
    """Where batch b starts in x and in y: its digits in the extents, the last the fastest, times the strides."""
    d = b % e4
    b = b // e4
    src, dst = d * i4, d * o4
    d = b % e3
    b = b // e3
    src, dst = src + d * i3, dst + d * o3
    d = b % e2
    b = b // e2
    src, dst = src + d * i2, dst + d * o2
    d = b % e1
    b = b // e1
    src, dst = src + d * i1, dst + d * o1
    return src + b * i0, dst + b * o0


@triton.autotune(configs=TRANSPOSE_CONFIGS, key=["rows", "cols", "in_pitch", "out_pitch", "batches"])
@triton.jit
def batched_transpose(x, y, rows, cols, in_pitch, out_pitch, batches, e0, e1, e2, e3, e4, i0, i1, i2, i3, i4,
                      o0, o1, o2, o3, o4, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)  # 64-bit offsets: > 2^31 elements
    tiles_n = tl.cdiv(cols, BN)
    tiles = tl.cdiv(rows, BM) * tiles_n
    src, dst = batch_offsets(pid // tiles, e0, e1, e2, e3, e4, i0, i1, i2, i3, i4, o0, o1, o2, o3, o4)
    m = (pid % tiles) // tiles_n * BM + tl.arange(0, BM)
    n = (pid % tiles) % tiles_n * BN + tl.arange(0, BN)
    tile = tl.load(x + src + m[:, None] * in_pitch + n[None, :], mask=(m[:, None] < rows) & (n[None, :] < cols))
    tl.store(y + dst + n[:, None] * out_pitch + m[None, :], tl.trans(tile),
             mask=(n[:, None] < cols) & (m[None, :] < rows))


@triton.autotune(configs=COPY_CONFIGS, key=["run", "batches"])
@triton.jit
def strided_runs(x, y, run, batches, e0, e1, e2, e3, e4, i0, i1, i2, i3, i4, o0, o1, o2, o3, o4,
                 BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    pieces = tl.cdiv(run, BLOCK)
    src, dst = batch_offsets(pid // pieces, e0, e1, e2, e3, e4, i0, i1, i2, i3, i4, o0, o1, o2, o3, o4)
    k = (pid % pieces) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y + dst + k, tl.load(x + src + k, mask=k < run), mask=k < run)


def matrix_plan(rows: int, cols: int) -> list[int]:
    """A matrix's plan: one transpose of rows x cols (kind 2), a batch of one."""
    return [2, rows, cols, cols, rows] + [1] * 5 + [0] * 10


def launch(x, y, plan) -> None:
    """y = the permutation of x that plan (kind, rows, cols, in_pitch, out_pitch, 5 extents, 10 strides) folds."""
    kind, rows, cols, in_pitch, out_pitch, *batch = plan
    batches = 1
    for extent in batch[:5]:
        batches *= extent
    if kind == 2:  # PERMUTE_TRANSPOSE
        def grid(meta):
            return (triton.cdiv(rows, meta["BM"]) * triton.cdiv(cols, meta["BN"]) * batches,)
        batched_transpose[grid](x, y, rows, cols, in_pitch, out_pitch, batches, *batch)
    else:  # a copy is one run; a strided copy, one run per batch index
        def grid(meta):
            return (triton.cdiv(cols, meta["BLOCK"]) * batches,)
        strided_runs[grid](x, y, cols, batches, *batch)


def best(plan) -> str:
    """The configuration kept for the shape tuned last, for the op column."""
    if plan[0] == 2:
        c = batched_transpose.best_config
        return f"{c.kwargs['BM']}x{c.kwargs['BN']} tiles, {c.num_warps} warps"
    c = strided_runs.best_config
    return f"runs in blocks of {c.kwargs['BLOCK']}, {c.num_warps} warps"
