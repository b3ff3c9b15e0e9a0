"""Time step 15 beside other libraries' permutes: docs/results/<gpu>-peers-permute.csv (and -bf16).

    make peers-permute    or    python3 -m lab.peers_permute [--dtype bf16] [--reps 20] [--gpu h200]

lab.peers' timer, checks, rounds and columns (plus dims and perm), on lab.bench's permute tensors: the copy bound,
step 15 (build/peers/libpermute.so), PyTorch eager and torch.compile writing `.permute(p)` into y, a Triton kernel
on step 15's fold (lab/peer_triton.py) and JAX's `jnp.transpose`, each checked bit for bit first.
cuTENSOR's cutensorPermute is a peer too, but its wheel cannot be installed where the GPU machines are: SKIP rows.
Exit codes: 0 every check passed, 1 a wrong result, 2 bad command line, 3 no PyTorch, numpy or GPU.
"""

from __future__ import annotations

import ctypes
import os

from lab import bench, machine, peers, results

DEFAULT_LIB = machine.ROOT / "build" / "peers" / "libpermute.so"
PLAN_SIZES = 20  # what permute_plan_of() writes (steps/15_permute/library/permute_library.cu)


class Step15(peers.Peer):
    """Step 15's default kernel, from build/peers/libpermute.so."""

    key, name, role = "tutorial", "tutorial", "tutorial"
    lib_path = DEFAULT_LIB

    def __init__(self, timer):
        super().__init__(timer)
        if not os.path.exists(self.lib_path):
            raise peers.Unavailable(f"{self.lib_path} not found: run 'make peers-permute', which builds it first")
        self.lib = ctypes.CDLL(str(self.lib_path))
        self.lib.permute_kernel_name.restype = self.lib.permute_launch_error.restype = ctypes.c_char_p
        self.lib.permute_tensor.restype = ctypes.c_size_t
        self.version, self.op = "step 15", self.lib.permute_kernel_name().decode()
        self.launch_error = self.lib.permute_launch_error

    def arrays(self, case):
        rank = len(case.dims)
        return rank, (ctypes.c_size_t * rank)(*case.dims), (ctypes.c_int * rank)(*case.perm)

    def plan(self, case) -> list[int]:
        """Step 15's fold of the case, as permute_plan_of() writes it."""
        out = (ctypes.c_size_t * PLAN_SIZES)()
        if self.lib.permute_plan_of(*self.arrays(case), out) != 0:
            raise RuntimeError(f"step 15 refuses {case.dims} {case.perm}")
        return list(out)

    def make(self, case):
        args = (self.timer.dtype.bytes, ctypes.c_void_p(case.x.data_ptr()), ctypes.c_void_p(case.y.data_ptr()),
                *self.arrays(case), ctypes.c_void_p(self.timer.stream.cuda_stream))
        return lambda: self.lib.permute_tensor(*args)


class TorchPermute(peers.Peer):
    key, name, op = "torch", "torch", "y.copy_(x.permute(p))"

    def make(self, case):
        x, y, perm = case.x, case.y, case.perm
        return lambda: y.copy_(x.permute(perm))


class TorchCompilePermute(peers.TorchCompile):
    op = "torch.compile(y.copy_(x.permute(p))), dynamic=False (a Triton kernel)"

    def expression(self, case):
        perm = case.perm
        return lambda x, y: y.copy_(x.permute(perm))


class TritonPermute(peers.TritonTiled):
    described = "step 15's fold, then a tiled Triton kernel, the fastest configuration: {best}"

    def __init__(self, timer):
        super().__init__(timer)
        self.fold = Step15(timer)

    def plan(self, case):
        return self.fold.plan(case)


class JaxPermute(peers.JaxJit):
    op = "jax.jit(lambda x: jnp.transpose(x, p))"

    def make(self, case):
        perm = case.perm
        self.transpose = self.jax.jit(lambda a: self.jnp.transpose(a, perm))
        return super().make(case)  # its check compares the elements in order, whatever the output's shape


class CuTensor(peers.Peer):
    key, name, op = "cutensor", "cutensor", "cutensorPermute"

    def __init__(self, timer):
        super().__init__(timer)
        raise peers.Unavailable("cuTENSOR's wheel (nvidia-cutensor) cannot be installed where the GPU machines are")


PEERS = [peers.CopyBound, Step15, TorchPermute, TorchCompilePermute, TritonPermute, JaxPermute, CuTensor]


def run(argv=None) -> int:
    parser = machine.Parser(prog="python3 -m lab.peers_permute", description=__doc__)
    parser.add_argument("--gpu", help="name of the result files (default: from the GPU's name, e.g. h200)")
    parser.add_argument("--dtype", choices=list(peers.DTYPES), default="float32")
    parser.add_argument("--reps", type=int, default=20, help="timed runs per peer and tensor (default %(default)s)")
    parser.add_argument("--lib", default=str(DEFAULT_LIB), help="step 15's library (make peers-permute builds it)")
    args = parser.parse_args(argv)
    Step15.lib_path = os.path.abspath(args.lib)
    timer = peers.open_gpu(peers.DTYPES[args.dtype])
    entries, skipped = peers.start_peers(timer, PEERS)
    rows = []
    for dims, perm in bench.PERMUTE_TENSORS:  # e.g. "8,4096,32,128", "0,2,1,3"
        case = peers.Case(timer, *map(int, dims.split(",")), perm=tuple(map(int, perm.split(","))))
        out = peers.measure_case(timer, entries, case, args.reps)  # by index into entries
        rows += [{**out[i], "dims": dims.replace(",", "x"), "perm": perm} for i in range(len(entries))]
    kind = results.peers_kind(args.dtype, "peers-permute")
    return peers.write_results(rows, timer, entries, skipped, args, kind, "peers-permute", "lab.peers_permute",
                               keys=["dims", "perm"])


if __name__ == "__main__":
    raise SystemExit(machine.main(run))
