"""The Triton peer of lab.peers: a tiled transpose of any element type, at its best block shape.

Imported only when that peer runs, so that lab.peers works where Triton is not installed. The autotuner
tries every configuration once per shape and element type, outside every check and timing, and keeps the
fastest, so the peer is timed at its best, not at a block shape picked for another matrix.
"""

import triton
import triton.language as tl

CONFIGS = [triton.Config({"BLOCK_M": m, "BLOCK_N": n}, num_warps=warps)
           for m, n in ((32, 32), (64, 64), (64, 128), (128, 64), (128, 128)) for warps in (4, 8)]


@triton.autotune(configs=CONFIGS, key=["rows", "cols"])
@triton.jit
def transpose_tile_kernel(x_ptr, y_ptr, rows, cols, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # y (cols x rows) = x (rows x cols)^T, one BLOCK_M x BLOCK_N block per program.
    # The grid is one-dimensional: a 2-D grid's second axis stops at 65535
    # programs, too few for a 67108864 x 1 matrix.
    pid = tl.program_id(0)
    blocks_n = tl.cdiv(cols, BLOCK_N)
    block_m = (pid // blocks_n).to(tl.int64)  # 64-bit offsets: > 2^31 elements
    block_n = (pid % blocks_n).to(tl.int64)
    offs_m = block_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = block_n * BLOCK_N + tl.arange(0, BLOCK_N)
    in_mask = (offs_m[:, None] < rows) & (offs_n[None, :] < cols)
    tile = tl.load(x_ptr + offs_m[:, None] * cols + offs_n[None, :], mask=in_mask)
    out_mask = (offs_n[:, None] < cols) & (offs_m[None, :] < rows)
    tl.store(y_ptr + offs_n[:, None] * rows + offs_m[None, :], tl.trans(tile), mask=out_mask)


def launch(x, y, rows: int, cols: int) -> None:
    """y = x^T with the configuration the autotuner keeps for this shape (tuned on the first call)."""

    def grid(meta):
        return (triton.cdiv(rows, meta["BLOCK_M"]) * triton.cdiv(cols, meta["BLOCK_N"]),)

    transpose_tile_kernel[grid](x, y, rows, cols)


def best() -> str:
    """The configuration kept for the shape tuned last, for the results' op column."""
    config = transpose_tile_kernel.best_config
    return f"{config.kwargs['BLOCK_M']}x{config.kwargs['BLOCK_N']} blocks, {config.num_warps} warps"
