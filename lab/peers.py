"""Time the tutorial's answer beside other libraries' transposes: docs/results/<gpu>-peers.csv.

    make peers    or    python3 -m lab.peers [--gpu h200] [--shapes 8192x8192] [--reps 20]
    python3 -m lab.peers --dtype bf16      the bf16 answer and its peers -> docs/results/<gpu>-peers-bf16.csv
    python3 -m lab.peers --once --peers tutorial,triton --shapes 8192x8192    (for make peers-profile)

In one process, on one input x and one output y: the copy bound (y.copy_(x), the denominator of
"% of copy"), the tutorial's answer for the element type (build/peers/libtutorial.so) and the peers that
--peers names. A peer whose library is missing, or that has no transpose of the element type, is skipped
(a line `skip: <peer>: <why>`, a SKIP row). Each is checked bit for bit against numpy's transpose, on
an output poisoned with NaN, then timed as the C harness times (docs/timing.md; the env file's
`timing method`). --once runs each op once inside an NVTX range `once`, for Nsight Compute.

gbps = 2 x rows x cols x element bytes (4 or 2) / median, in 1e9 B/s; pct_of_copy = copy median /
median x 100; vs_tutorial = tutorial median / median. Exit codes: 0 every check passed, 1 a wrong
result, 2 bad command line, 3 no PyTorch, numpy or GPU.
"""

from __future__ import annotations

import ctypes
import importlib.util
import math
import os
import platform
import re
import statistics
import sys
import time
from dataclasses import dataclass

import pandas as pd

from lab import machine, results, schema

DEFAULT_LIB = machine.ROOT / "build" / "peers" / "libtutorial.so"
FLUSH_FACTOR = 4  # the L2 flush reads FLUSH_FACTOR x the L2 size
POISON_BYTE = 0xFF  # every element of y becomes all ones (0xFFFFFFFF, 0xFFFF), a NaN no input holds
BATCH = 32  # timed runs enqueued behind one hold
HOLD_MIN_MS = 0.5  # shortest hold; it also covers the first launches
HOLD_RETRIES = 4  # batches re-run with a longer hold before giving up
JAX_BATCH = 64  # calls per host-timed JAX batch
JAX_HOLD = (4096, 8)  # JAX's stream is held by a chain of 8 float32 matmuls of 4096 x 4096, some milliseconds
TUNE_REPS = 5  # timed runs of each configuration of a peer that tunes itself (cute) on each shape
WARMUP = 3  # untimed runs of each peer before its timed ones in each round
ROUNDS = 4  # the timed runs of a shape, split into rounds that take the peers in turn
SEED = 1  # of the random input
STARTED = time.monotonic()  # the progress lines say how long the run has taken, to show where the time goes
METHOD_EVENTS = "cuda events on the shared stream"
METHOD_JAX = (f"host clock on JAX's stream, held by {JAX_HOLD[1]} matmuls while the host enqueues: batches of "
              f"{JAX_BATCH} (flush; op) less batches of {JAX_BATCH} flushes")
TIMING_METHOD = (f"per run: poison y; flush L2 by reading {FLUSH_FACTOR}x its size; event; op; event; runs enqueued "
                 f"in batches of {BATCH} behind torch.cuda._sleep sized to cover the host's enqueuing; the peers take "
                 f"turns in {ROUNDS} rounds of a shape's runs; median and "
                 f"min; clocks left alone; JAX: {METHOD_JAX}")


@dataclass(frozen=True)
class DType:
    """An element type the peers run on: its --dtype name, PyTorch's name for it, the shapes it runs by
    default and the integer type of its size, in which the check compares bits."""

    name: str
    torch_name: str
    shapes: str
    bits_name: str

    @property
    def bytes(self) -> int:
        return machine.DTYPES[self.name]


DTYPES = {
    # float32: every shape of the last step's bar (lab.tables.BARS) that takes no offset.
    "float32": DType("float32", "float32", "8192x8192,32768x32768,16384x16384,4096x4096,12800x1280,1280x12800,"
                     "10007x7919,16385x16383,20000x20000,3000x50000,50000x3000,1x67108864,67108864x1", "int32"),
    # bf16: every shape of the bf16 step's bar that takes no offset.
    "bf16": DType("bf16", "bfloat16", "8192x8192,16384x16384,32768x32768,4096x4096,10007x7919,16385x16383,"
                  "12800x1280,1280x12800,20000x20000,3000x50000,50000x3000", "int16"),
}


class Unavailable(Exception):
    """A peer cannot run here; the message says why."""


def first_line(err: Exception) -> str:
    lines = str(err).strip().splitlines()
    return lines[0] if lines else type(err).__name__


class Timer:
    """What every peer shares: the element type, the stream, poison, the L2 flush, the hold, the events."""

    def __init__(self, torch, dtype: DType):
        self.torch, self.dtype = torch, dtype
        self.torch_dtype = getattr(torch, dtype.torch_name)
        self.stream = torch.cuda.Stream()
        torch.cuda.set_stream(self.stream)  # PyTorch, Triton and torch.compile use it
        props = torch.cuda.get_device_properties(0)
        self.gpu_name, self.sm_count, self.l2_bytes = props.name, props.multi_processor_count, props.L2_cache_size
        self.torch_version = torch.__version__.split("+")[0]
        self.capability = 10 * props.major + props.minor
        self.flush_buffer = torch.zeros(FLUSH_FACTOR * self.l2_bytes // 4, dtype=torch.float32, device="cuda")
        self.flush_sink = torch.zeros((), dtype=torch.float32, device="cuda")
        self.events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                       for _ in range(BATCH)]
        self.hold_done = torch.cuda.Event()
        self.sleep_cycles_per_ms = self.measure_sleep_rate()

    def poison(self, y):
        y.view(-1).view(self.torch.uint8).fill_(POISON_BYTE)

    def flush(self):
        """Evict the matrices from L2 by reading a buffer 4x its size: reading leaves only
        clean lines, so nothing is written back inside the next timed window."""
        self.torch.sum(self.flush_buffer, dim=0, out=self.flush_sink)

    def measure_sleep_rate(self) -> float:
        """Clock cycles torch.cuda._sleep() spins per millisecond (the fastest of 3: the first wakes the clocks)."""
        start, stop = self.events[0]
        rates = []
        for _ in range(3):
            start.record()
            self.torch.cuda._sleep(20_000_000)
            stop.record()
            stop.synchronize()
            rates.append(20_000_000 / start.elapsed_time(stop))
        return max(rates)

    def enqueue_run(self, run, y, events):
        self.poison(y)
        self.flush()
        events[0].record()
        run()
        events[1].record()

    def time_events(self, run, y, reps: int) -> tuple[list[float], str]:
        """Milliseconds of reps runs, and a note for the method column ('' when every batch was held).

        The warm-up also measures how long the host takes to enqueue one run;
        the hold before each batch lasts twice that per run."""
        start = time.perf_counter()
        for _ in range(WARMUP):
            self.enqueue_run(run, y, self.events[0])
        host_ms = 1000 * (time.perf_counter() - start) / WARMUP
        self.stream.synchronize()
        times, note = [], ""
        while len(times) < reps:
            count = min(BATCH, reps - len(times))
            for attempt in range(HOLD_RETRIES + 1):
                self.torch.cuda._sleep(int(max(HOLD_MIN_MS, 2 * count * host_ms) * self.sleep_cycles_per_ms))
                self.hold_done.record()
                start = time.perf_counter()
                for i in range(count):
                    self.enqueue_run(run, y, self.events[i])
                enqueue_ms = 1000 * (time.perf_counter() - start)
                held = not self.hold_done.query()  # still sleeping: the GPU never waited for the host
                self.stream.synchronize()
                if held:
                    break
                host_ms = 2 * enqueue_ms / count
                if attempt == HOLD_RETRIES:
                    note = "; some batches not held (host slower than the GPU)"
            times += [a.elapsed_time(b) for a, b in self.events[:count]]
        return times, note

    def count_wrong(self, got, want) -> int:
        """Elements whose bits differ (0: a bit-exact match)."""
        bits = getattr(self.torch, self.dtype.bits_name)  # an integer as wide as an element
        return int((got.reshape(-1).view(bits) != want.reshape(-1).view(bits)).sum().item())


def host_input(torch, dtype: DType, rows: int, cols: int):
    """The input as numpy holds it: float32 values, or the bit patterns of their bf16 roundings
    (numpy has no bf16, and its transpose of the bits is as good a reference as of the values)."""
    import numpy as np

    values = np.random.default_rng(SEED).standard_normal((rows, cols), dtype=np.float32)
    if dtype.name == "float32":
        return values
    return torch.from_numpy(values).to(torch.bfloat16).view(getattr(torch, dtype.bits_name)).numpy()


class Case:
    """One matrix (dims: rows, cols), or lab.peers_permute's tensor and perm: x on the GPU, the output y and
    numpy's permutation of x (want; None for --once). rows x cols is its count, the last dimension as cols."""

    def __init__(self, timer: Timer, *dims: int, perm: tuple = (1, 0), reference: bool = True):
        import numpy as np

        torch, element = timer.torch, timer.torch_dtype
        self.dims, self.perm, self.cols = dims, perm, dims[-1]
        self.rows = math.prod(dims) // self.cols
        host = host_input(torch, timer.dtype, self.rows, self.cols).reshape(dims)
        self.x = torch.from_numpy(host).to("cuda").view(element)
        self.y = torch.empty([dims[p] for p in perm], dtype=element, device="cuda")
        self.want = None
        if reference:
            self.want = torch.from_numpy(np.ascontiguousarray(host.transpose(perm))).to("cuda").view(element)


class Peer:
    """key (what --peers takes), name, role and op for the CSV. __init__ imports the library and
    sets version, or raises Unavailable; make(case) returns a function of no arguments that enqueues
    the op once, x -> y, on the shared stream. Adding a peer is one class and one entry in PEERS."""

    key = name = op = ""
    role = "peer"
    method = METHOD_EVENTS
    timed_last = False  # True: timed after every other peer, over every shape
    profilable = True  # whether Nsight Compute can see its kernels from the NVTX range of --once
    launch_error = None  # a library's function that names what failed in its last launch (NULL: nothing)

    def __init__(self, timer: Timer):
        self.timer = timer
        self.version = timer.torch_version  # PyTorch's own peers keep it; the others set their library's

    def make(self, case: Case):
        raise NotImplementedError

    def expected(self, case: Case):
        """(where the op writes, what must be there)."""
        return case.y, case.want

    def check(self, case: Case, run) -> int:
        out, want = self.expected(case)
        self.timer.poison(out)
        run()
        self.timer.stream.synchronize()
        if self.launch_error and (error := self.launch_error()):
            raise RuntimeError("the launch failed: " + error.decode())
        return self.timer.count_wrong(out, want)

    def time(self, case: Case, run, reps: int) -> tuple[list[float], str]:
        times, note = self.timer.time_events(run, self.expected(case)[0], reps)
        return times, self.method + note

    def release(self):
        """Free what make() created for the last shape."""


class CopyBound(Peer):
    """The same bytes copied device to device: a memcpy, with no kernel to profile."""

    key, name, role, op, profilable = "copy", "torch", "copy", "y.copy_(x)", False

    def expected(self, case):
        return case.y.view(case.x.shape), case.x

    def make(self, case):
        y, x = case.y.view(case.x.shape), case.x
        return lambda: y.copy_(x)


class Tutorial(Peer):
    """The answer's default kernel for the element type (the last step of that type), from
    build/peers/libtutorial.so: every function there takes the element size first."""

    key, name, role = "tutorial", "tutorial", "tutorial"
    lib_path = DEFAULT_LIB  # run() sets it from --lib

    def __init__(self, timer):
        super().__init__(timer)
        if not os.path.exists(self.lib_path):
            raise Unavailable(f"{self.lib_path} not found: run 'make peers', which builds it first")
        lib = self.lib = ctypes.CDLL(str(self.lib_path))
        for function in (lib.tutorial_step_number, lib.tutorial_kernel_name, lib.tutorial_launch_error):
            function.restype = ctypes.c_char_p
        lib.tutorial_transpose.restype = ctypes.c_size_t
        lib.tutorial_transpose.argtypes = ([ctypes.c_int] + [ctypes.c_void_p] * 2 + [ctypes.c_size_t] * 2
                                           + [ctypes.c_void_p])
        size = self.size = timer.dtype.bytes
        number = lib.tutorial_step_number(size)
        if number is None:
            raise Unavailable(f"{self.lib_path} holds no {timer.dtype.name} step: run 'make peers-lib' again")
        self.version, self.op = "step " + number.decode(), lib.tutorial_kernel_name(size).decode()
        if timer.capability < lib.tutorial_min_cc(size):
            raise Unavailable(f"{self.op} needs compute capability {lib.tutorial_min_cc(size) / 10:.1f}, "
                              f"this GPU is {timer.capability / 10:.1f}")
        lib.tutorial_setup(size)  # the step's one-time setup, never inside a timed run
        self.launch_error = lib.tutorial_launch_error

    def make(self, case):
        args = (self.size, case.x.data_ptr(), case.y.data_ptr(), case.rows, case.cols, self.timer.stream.cuda_stream)
        return lambda: self.lib.tutorial_transpose(*args)


def import_cupy(timer: Timer):
    """CuPy (14 or newer), with PyTorch's stream made its current stream."""
    try:
        import cupy
    except ImportError as err:
        raise Unavailable(f"CuPy is not installed ({first_line(err)})") from err
    try:
        cupy.cuda.Stream.from_external(timer.stream).use()  # the CUDA stream protocol
    except Exception as err:  # e.g. a CuPy built for another CUDA
        raise Unavailable(f"CuPy cannot use the GPU: {first_line(err)}") from err
    return cupy


class CublasGeam(Peer):
    """cuBLAS's transpose, the bar of every step program, called through CuPy."""

    key, name, op = "cublas", "cublas", "cublasSgeam C = 1 * A^T + 0 * C (cupy.cublas.geam)"

    def __init__(self, timer):
        super().__init__(timer)
        if timer.dtype.name != "float32":
            raise Unavailable(f"cuBLAS has no {timer.dtype.name} geam; cuBLASLt's cublasLtMatrixTransform is the "
                              f"`cublas` row of step {machine.answer_step(timer.dtype.name)}'s own program "
                              f"(make run STEP={machine.answer_step(timer.dtype.name)})")
        self.cp = import_cupy(timer)
        try:
            import cupy.cublas
            from cupy_backends.cuda.libs import cublas

            version = cublas.getVersion(self.cp.cuda.device.get_cublas_handle())  # 10000 major + 100 minor + patch
            self.version = f"{version // 10000}.{version // 100 % 100}.{version % 100}"
        except Exception as err:  # CuPy without its cuBLAS module, or no libcublas
            raise Unavailable(f"cuBLAS through CuPy: {first_line(err)}") from err
        self.geam = cupy.cublas.geam

    def make(self, case):
        x, y = self.cp.from_dlpack(case.x), self.cp.from_dlpack(case.y)
        # With beta = 0 cuBLAS does not read B: y as B (and C) is the harness's in-place form too.
        return lambda: self.geam("T", "N", 1.0, x, 0.0, y, out=y)


class TorchEager(Peer):
    """What a PyTorch user writes: copy a transposed view into y."""

    key, name, op = "torch", "torch", "y.copy_(x.t())"

    def make(self, case):
        x, y = case.x, case.y
        return lambda: y.copy_(x.t())


class TorchCompile(Peer):
    """The eager peer's expression through torch.compile, which writes a Triton kernel."""

    key, name = "torch.compile", "torch.compile"
    op = "torch.compile(y.copy_(x.t())), dynamic=False (a Triton kernel)"

    def __init__(self, timer):
        super().__init__(timer)
        try:
            import triton
        except ImportError as err:
            raise Unavailable("torch.compile needs Triton on a GPU, and Triton is not installed") from err
        self.version = f"{timer.torch_version} (triton {triton.__version__})"

    def expression(self, case):
        """What torch.compile compiles (lab.peers_permute's peer permutes instead)."""
        return lambda x, y: y.copy_(x.t())

    def make(self, case):
        torch = self.timer.torch
        torch._dynamo.reset()  # a fresh compile specialised to this shape
        compiled = torch.compile(self.expression(case), dynamic=False)
        compiled(case.x, case.y)  # compile now, outside every check and timing
        self.timer.stream.synchronize()
        x, y = case.x, case.y
        return lambda: compiled(x, y)


class TritonTiled(Peer):
    """The way a transpose is written in Triton (lab/peer_triton.py), at its best tile for each matrix."""

    key, name = "triton", "triton"
    described = "tiled kernel, tl.load, tl.trans, tl.store; the fastest of {count} configurations: {best}"

    def __init__(self, timer):
        super().__init__(timer)
        try:
            import triton

            from lab import peer_triton
        except Exception as err:  # not installed, or broken
            raise Unavailable(f"Triton is not installed ({first_line(err)})") from err
        self.kernel, self.version = peer_triton, triton.__version__

    def plan(self, case) -> list[int]:
        return self.kernel.matrix_plan(case.rows, case.cols)

    def make(self, case):
        x, y, plan = case.x, case.y, self.plan(case)
        self.kernel.launch(x, y, plan)  # tune and compile now, outside every check and timing
        self.timer.stream.synchronize()
        self.op = self.described.format(count=len(self.kernel.TRANSPOSE_CONFIGS), best=self.kernel.best(plan))
        return lambda: self.kernel.launch(x, y, plan)


class CuteTiled(Peer):
    """A transpose as CuTe (CUTLASS's cute/ headers) teaches it, from build/peers/libcute.so (lab/peer_cute.cu,
    next to the tutorial's library): every configuration there is timed on each shape, and the fastest kept."""

    key, name = "cute", "cute"

    def __init__(self, timer):
        super().__init__(timer)
        path = os.path.join(os.path.dirname(Tutorial.lib_path), "libcute.so")
        if not os.path.exists(path):
            raise Unavailable(f"{path} not found: make peers builds it where CUTLASS's CuTe headers are found (pip "
                              "install nvidia-cutlass==4.2.0.0, or make peers CUTE_INCLUDE=<the folder holding cute/>)")
        lib = self.lib = ctypes.CDLL(path)
        for function in (lib.cute_version, lib.cute_config_name, lib.cute_error_string):
            function.restype = ctypes.c_char_p
        lib.cute_transpose.argtypes = ([ctypes.c_int] * 2 + [ctypes.c_void_p] * 2 + [ctypes.c_size_t] * 2
                                       + [ctypes.c_void_p])
        self.version = "CUTLASS " + lib.cute_version().decode()
        self.configs = [lib.cute_config_name(i).decode() for i in range(lib.cute_config_count())]

    def launcher(self, case, config: int):
        """A function of no arguments that launches configuration `config` once, x -> y, on the shared stream."""
        args = (self.timer.dtype.bytes, config, case.x.data_ptr(), case.y.data_ptr(), case.rows, case.cols,
                self.timer.stream.cuda_stream)

        def run():
            error = self.lib.cute_transpose(*args)
            if error:
                raise RuntimeError("cute_transpose: " + self.lib.cute_error_string(error).decode())
        return run

    def make(self, case):
        """Time each configuration as every peer is timed, TUNE_REPS runs (outside every check and timing)."""
        runs = [self.launcher(case, i) for i in range(len(self.configs))]
        medians = [statistics.median(self.timer.time_events(run, case.y, TUNE_REPS)[0]) for run in runs]
        best = medians.index(min(medians))
        self.op = (f"tiled copies via a swizzled shared tile, 16-byte vectors where the shape allows; the fastest "
                   f"of {len(runs)} configurations: {self.configs[best]}")
        return runs[best]


class JaxJit(Peer):
    """XLA's transpose: JAX allocates the output and runs on its own stream (and threads,
    which an NVTX range of this one cannot follow: not profilable)."""

    key, name, op, method, profilable = "jax", "jax", "jax.jit(lambda x: x.T)", METHOD_JAX, False
    timed_last = True  # its hold is a chain of matmuls, which heats the GPU: no event-timed run may follow it

    def __init__(self, timer):
        super().__init__(timer)
        os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # else JAX takes 75 % of the memory
        try:
            import jax
            import jaxlib

            jax.devices("gpu")  # raises when JAX has no GPU backend
        except ImportError as err:
            raise Unavailable(f"JAX is not installed ({first_line(err)})") from err
        except Exception as err:  # e.g. installed without its CUDA plugin
            raise Unavailable(f"JAX cannot use the GPU: {first_line(err)}") from err
        self.jax, self.jnp = jax, jax.numpy
        self.version = f"{jax.__version__} (jaxlib {jaxlib.__version__})"
        self.transpose = jax.jit(lambda a: a.T)
        self.flush_sum = jax.jit(self.jnp.sum)
        self.hold = jax.jit(self.matmul_chain)
        self.flush_buffer = self.x = self.hold_matrix = None
        self.poisoned = True  # whether the last check's output started as poison

    @staticmethod
    def matmul_chain(a):
        """JAX_HOLD[1] dependent matmuls: the GPU is busy for longer than the host takes to enqueue a batch."""
        for _ in range(JAX_HOLD[1]):
            a = a @ a
        return a

    def make(self, case):
        if self.flush_buffer is None:  # float32 whatever the element type: it only has to evict L2
            self.flush_buffer = self.jnp.zeros(FLUSH_FACTOR * self.timer.l2_bytes // 4, dtype=self.jnp.float32)
            self.hold_matrix = self.jnp.zeros((JAX_HOLD[0], JAX_HOLD[0]), dtype=self.jnp.float32)
            self.hold(self.hold_matrix).block_until_ready()  # compile it now
        self.timer.stream.synchronize()
        self.x = self.jax.dlpack.from_dlpack(case.x)  # the same data, shared if JAX can
        self.transpose(self.x).block_until_ready()  # compile outside the check
        self.flush_sum(self.flush_buffer).block_until_ready()
        return lambda: self.transpose(self.x)

    def check(self, case, run):
        """Poison a buffer of y's size and free it: JAX's allocator hands that block to the
        output, which then starts as NaN. Whether it did is checked, not assumed."""
        bits = getattr(self.jnp, self.timer.dtype.bits_name)  # as wide as an element: a block of y's size
        poison = self.jnp.full((case.cols, case.rows), -1, dtype=bits)
        address = poison.block_until_ready().unsafe_buffer_pointer()
        poison.delete()
        out = run().block_until_ready()
        self.poisoned = out.unsafe_buffer_pointer() == address
        got = self.timer.torch.from_dlpack(out)
        if not got.is_contiguous():  # a layout trick instead of a transpose
            return case.rows * case.cols
        return self.timer.count_wrong(got, case.want)

    def time_batch(self, with_op: bool) -> float:
        """Host seconds for the hold, then JAX_BATCH flushes, each followed by the op if with_op.
        Behind the hold, both batches take the GPU's time, not the host's: their difference is the ops'."""
        start = time.perf_counter()
        last = self.hold(self.hold_matrix)
        for _ in range(JAX_BATCH):
            last = self.flush_sum(self.flush_buffer)
            if with_op:
                last = self.transpose(self.x)
        last.block_until_ready()  # one stream: the last to finish
        return time.perf_counter() - start

    def time(self, case, run, reps):
        for _ in range(WARMUP):
            self.time_batch(False)
            self.time_batch(True)
        times = []
        for _ in range(reps):
            flush_only = self.time_batch(False)
            times.append(1000 * (self.time_batch(True) - flush_only) / JAX_BATCH)
        return times, self.method + ("" if self.poisoned else "; checked on an unpoisoned output")

    def release(self):
        self.x = None


class CupyCopyto(Peer):
    """What a CuPy user writes: copy a transposed view into y."""

    key, name, op = "cupy", "cupy", "cp.copyto(y, x.T)"

    def __init__(self, timer):
        super().__init__(timer)
        if timer.dtype.name != "float32":
            raise Unavailable(f"CuPy has no {timer.dtype.name} dtype")
        self.cp = import_cupy(timer)
        self.version = self.cp.__version__

    def make(self, case):
        x, y = self.cp.from_dlpack(case.x), self.cp.from_dlpack(case.y)
        return lambda: self.cp.copyto(y, x.T)


# The copy bound and the tutorial first: their medians are the other rows' denominators.
PEERS = [CopyBound, Tutorial, CublasGeam, TorchEager, TorchCompile, TritonTiled, CuteTiled, JaxJit, CupyCopyto]
BY_KEY = {cls.key: cls for cls in PEERS}


def row(timer, peer, case_rows: int, cols: int, check: str, times=(), method="") -> dict:
    """One CSV row; the ratio columns are added per shape by ratios(). peer: a Peer, or the
    class of one that could not start."""
    median = statistics.median(times) if times else None
    return dict(gpu=timer.gpu_name, peer=peer.name, version=getattr(peer, "version", ""), op=peer.op,
                role=peer.role, rows=case_rows, cols=cols, median_ms=median, min_ms=min(times, default=None),
                gbps=2 * case_rows * cols * timer.dtype.bytes / (median * 1e6) if median else None, check=check,
                method=method)


def prepare(timer, peer, case):
    """Make one peer's op at one shape and check it: (the op, None) if it passed, else (None, its row)."""
    label = f"{case.rows}x{case.cols} {peer.key}"
    machine.say(f"peers: {label} ({time.monotonic() - STARTED:.0f} s)")
    try:
        run = peer.make(case)
    except Exception as err:  # e.g. a compiler that cannot handle the shape
        print(f"skip: {label}: {first_line(err)}")
        return None, row(timer, peer, case.rows, case.cols, "SKIP")
    try:
        wrong = peer.check(case, run)
        if not wrong:
            return run, None
        machine.say(f"peers: error: {label} gave {wrong} wrong elements")
    except RuntimeError as err:  # a failed launch
        machine.say(f"peers: error: {label}: {first_line(err)}")
    peer.release()
    return None, row(timer, peer, case.rows, case.cols, "FAIL")


def time_in_rounds(timer, case, ready: dict, reps: int) -> dict:
    """The rows of the peers that passed their check (ready: index -> (peer, op)).

    Their timed runs are split into ROUNDS rounds, each taking the peers in turn, so that a drift
    of the GPU's clocks or temperature while the shape is measured falls on every peer alike."""
    times = {i: [] for i in ready}
    methods = {i: "" for i in ready}
    failed = {}
    for n in range(ROUNDS):
        count = reps // ROUNDS + (n < reps % ROUNDS)
        for i, (peer, run) in ready.items():
            if count == 0 or i in failed:
                continue
            try:
                got, method = peer.time(case, run, count)
            except RuntimeError as err:  # a failed launch
                machine.say(f"peers: error: {case.rows}x{case.cols} {peer.key}: {first_line(err)}")
                failed[i] = row(timer, peer, case.rows, case.cols, "FAIL")
                continue
            times[i] += got
            methods[i] = max(methods[i], method, key=len)  # a round's note ("some batches not held") stays
    return {i: failed.get(i) or row(timer, peer, case.rows, case.cols, "PASS", times[i], methods[i])
            for i, (peer, _) in ready.items()}


def measure_shape(timer, entries, rows: int, cols: int, args) -> dict:
    """The rows of one shape, by index into entries: (class, its Peer or None)."""
    free, _ = timer.torch.cuda.mem_get_info()
    need = 3 * rows * cols * timer.dtype.bytes  # x, y and the reference
    if need > 0.9 * free:
        print(f"skip: {rows}x{cols}: x, y and the reference need {need / 2**30:.1f} GiB, "
              f"{free / 2**30:.1f} GiB is free")
        return {i: row(timer, peer or cls, rows, cols, "SKIP") for i, (cls, peer) in enumerate(entries)}
    case = Case(timer, rows, cols)
    out = measure_case(timer, entries, case, args.reps)
    del case
    timer.torch.cuda.empty_cache()
    return out


def measure_case(timer, entries, case, reps: int) -> dict:
    """The rows of one case (a shape, or lab.peers_permute's tensor), by index into entries: each peer made and
    checked (prepare()), then those that passed timed in rounds."""
    out, ready = {}, {}
    for i, (cls, peer) in enumerate(entries):
        if peer is None:
            out[i] = row(timer, cls, case.rows, case.cols, "SKIP")
            continue
        run, out[i] = prepare(timer, peer, case)
        if run is not None:
            ready[i] = (peer, run)
    try:
        out.update(time_in_rounds(timer, case, ready, reps))
    finally:
        for peer, _ in ready.values():
            peer.release()
    return out


def measure_all(timer, entries, shapes, args) -> list[dict]:
    """Every row, shape by shape in table order. The peers marked timed_last are timed in a second
    pass over the shapes, after every other peer of every shape."""
    passes = [[e if e[0].timed_last == last else (e[0], None) for e in entries] for last in (False, True)]
    passes = [p for p in passes if any(peer for _, peer in p)]
    found = [[measure_shape(timer, p, s.rows, s.cols, args) for s in shapes] for p in passes]
    rows = []
    for n in range(len(shapes)):
        for i, (cls, peer) in enumerate(entries):
            mine = [f[n][i] for p, f in zip(passes, found, strict=True) if p[i][1] is not None]
            rows.append(mine[0] if mine else row(timer, peer or cls, shapes[n].rows, shapes[n].cols, "SKIP"))
    return rows


def ratios(frame: pd.DataFrame, keys=("rows", "cols")) -> pd.DataFrame:
    """pct_of_copy and vs_tutorial, from the copy and tutorial rows of each shape (or of each tensor: keys)."""

    def of(role):
        medians = frame["median_ms"].where(frame["role"] == role)
        return medians.groupby([frame[k] for k in keys]).transform("first")

    frame["pct_of_copy"] = 100 * of("copy") / frame["median_ms"]
    frame["vs_tutorial"] = of("tutorial") / frame["median_ms"]
    return frame.round({"median_ms": 6, "min_ms": 6, "gbps": 1, "pct_of_copy": 1, "vs_tutorial": 3})


def run_once(timer, entries, shapes) -> int:
    """Each peer's op once per shape inside an NVTX range `once` (what Nsight Compute profiles)."""
    for cls, peer in entries:
        if peer is None:
            raise machine.Stop(f"{cls.key} cannot run here (see the skip line above)")
    for shape in shapes:
        case = Case(timer, shape.rows, shape.cols, reference=False)
        for _, peer in entries:
            run = peer.make(case)  # compiling and tuning stay outside the range
            timer.stream.synchronize()
            timer.torch.cuda.nvtx.range_push("once")
            run()
            timer.stream.synchronize()
            timer.torch.cuda.nvtx.range_pop()
            peer.release()
            print(f"once: {peer.key} {shape}")
        del case
        timer.torch.cuda.empty_cache()
    return 0


def write_results(rows, timer, entries, skipped: dict, args, kind: str, layout: str, program: str,
                  keys=("rows", "cols")) -> int:
    """The rows with their ratios (per shape, or per tensor: keys), printed and written in layout to the GPU's file
    of kind and, beside them, the env file: the GPU, the versions, each peer's op or why it was skipped, the command
    and the timing method. The exit code: 1 if a check failed."""
    frame = ratios(pd.DataFrame(rows, columns=schema.LAYOUTS[layout]), keys)
    print(frame.drop(columns=["gpu", "version", "method", "op"]).to_string(index=False))
    path = results.path(args.gpu or results.gpu_slug(timer.gpu_name), kind)
    results.write(frame, path, layout)
    torch = timer.torch
    fields = {"gpu": f"{timer.gpu_name} (compute capability {timer.capability / 10:.1f}, {timer.sm_count} SMs, "
                     f"L2 {timer.l2_bytes >> 20} MiB)",
              "driver": machine.driver(), "python": platform.python_version(),
              "pytorch": f"{torch.__version__} (CUDA {torch.version.cuda})",  # "torch" is a peer's key
              "dtype": timer.dtype.name}
    for cls, peer in entries:
        fields[cls.key] = f"{peer.version}, {peer.op}" if peer else f"skipped: {skipped[cls.key]}"
    fields.update({"command": " ".join([f"python3 -m {program}", *sys.argv[1:]]),
                   "reps": f"{args.reps}, warmup: {WARMUP}", "timing method": TIMING_METHOD})
    machine.write_env(path.with_name(f"{path.stem}-env.txt"), fields)
    machine.say(f"peers: wrote {os.path.relpath(path)}")
    return machine.EXIT_WRONG if (frame["check"] == "FAIL").any() else 0


def parse_args(argv):
    parser = machine.Parser(prog="python3 -m lab.peers", description=__doc__)
    others = [cls.key for cls in PEERS[2:]]
    parser.add_argument("--gpu", help="name of the result files (default: from the GPU's name, e.g. h200)")
    parser.add_argument("--dtype", choices=list(DTYPES), default="float32",
                        help="the element type: float32 (default, <gpu>-peers.csv) or bf16 (<gpu>-peers-bf16.csv)")
    parser.add_argument("--shapes", help="comma-separated ROWSxCOLS (default: float32 "
                        f"{DTYPES['float32'].shapes}; bf16 {DTYPES['bf16'].shapes})")
    parser.add_argument("--reps", type=int, default=20, help="timed runs per peer and shape (default %(default)s)")
    parser.add_argument("--peers", default=",".join(others),
                        help="the peers besides the copy bound and the tutorial: any of " + ", ".join(others))
    parser.add_argument("--lib", default=str(DEFAULT_LIB),
                        help="the tutorial's library (make peers-lib builds it; the CuTe peer's libcute.so beside it)")
    parser.add_argument("--once", action="store_true",
                        help="run each of --peers (the tutorial too) once per shape, for Nsight Compute")
    args = parser.parse_args(argv)
    args.dtype = DTYPES[args.dtype]
    try:
        args.shapes = [results.Shape.parse(s) for s in re.split(r"[,\s]+", (args.shapes or args.dtype.shapes).strip())]
    except ValueError as err:
        parser.error(str(err))
    if any(s.offset for s in args.shapes):
        parser.error("the peers take no offset: write ROWSxCOLS")
    if args.reps < 1:
        parser.error("--reps must be at least 1")
    wanted = [k for k in re.split(r"[,\s]+", args.peers.strip()) if k]
    # --once runs what it is told, the tutorial included; the copy bound is a memcpy: no kernel to profile.
    allowed = [cls.key for cls in PEERS[1 if args.once else 2:]]
    unknown = [k for k in wanted if k not in allowed]
    if unknown:
        parser.error(f"unknown peer '{unknown[0]}': choose from {', '.join(allowed)}")
    args.peers = [cls for cls in PEERS if cls.key in wanted or (not args.once and cls in PEERS[:2])]
    return args


def open_gpu(dtype: DType) -> Timer:
    """A Timer on GPU 0 for the element type, or Stop (exit 3) with what is missing."""
    try:  # PyTorch first, so that its absence is what the line names
        import torch
    except ImportError as err:
        raise machine.Stop(f"{first_line(err)}: install PyTorch for a CUDA GPU; it gives the copy bound, "
                           "the stream and the timing") from err
    if importlib.util.find_spec("numpy") is None:
        raise machine.Stop("numpy is not installed: it makes the reference transpose")
    if not torch.cuda.is_available():
        raise machine.Stop(f"PyTorch {torch.__version__} sees no GPU (a CUDA build? the driver loaded?)")
    return Timer(torch, dtype)


def start_peers(timer, classes) -> tuple[list, dict]:
    """(entries: (class, its Peer, or None where it cannot run here), {key: why} of those that cannot)."""
    entries, skipped = [], {}
    for cls in classes:
        try:
            entries.append((cls, cls(timer)))
        except Unavailable as err:
            print(f"skip: {cls.key}: {err}")
            entries.append((cls, None))
            skipped[cls.key] = str(err)
    return entries, skipped


def run(argv=None) -> int:
    args = parse_args(argv)
    Tutorial.lib_path = os.path.abspath(args.lib)
    timer = open_gpu(args.dtype)
    entries, skipped = start_peers(timer, args.peers)
    if args.once:
        return run_once(timer, entries, args.shapes)
    rows = measure_all(timer, entries, args.shapes, args)
    kind = results.peers_kind(timer.dtype.name)  # <gpu>-peers.csv or <gpu>-peers-bf16.csv
    return write_results(rows, timer, entries, skipped, args, kind, "peers", "lab.peers")


if __name__ == "__main__":
    raise SystemExit(machine.main(run))
