#!/usr/bin/env python3
"""Time the tutorial's last step against the transposes other libraries offer.

    make peers        or    tools/peers.py [--gpu h200] [--shapes 8192x8192] [--reps 20]

For each shape, in one process, on one input tensor x (rows x cols, float32,
random normal numbers from numpy) and one output tensor y (cols x rows):

    role      peer           op
    copy      torch          y.copy_(x): a device-to-device copy of the same bytes,
                             the denominator of every "% of copy"
    tutorial  tutorial       the last step's default kernel, through
                             build/peers/libtutorial.so (tools/peer_lib.cu)
    peer      cublas         cublasSgeam, C = 1 * A^T + 0 * C (cupy.cublas.geam)
    peer      torch          y.copy_(x.t())
    peer      torch.compile  the same expression, compiled once per shape
                             (inductor generates a Triton kernel)
    peer      triton         a tiled Triton kernel: 64x64 blocks, tl.load, tl.trans,
                             tl.store
    peer      jax            jax.jit(lambda x: x.T) on x shared through DLPack
    peer      cupy           cp.copyto(y, x.T)
    peer      cutensor       cutensorPermute (through CuPy's bindings)

`tools/peers.py --once --peers tutorial,triton --shapes 8192x8192` runs each
named op once and writes nothing: `make peers-profile` runs it under Nsight
Compute, one peer at a time, with the kernel-name pattern of the peer's class
(`kernels`) as the filter.

A peer whose library is absent is skipped with one line, `skip: <peer>: <why>`,
and a row whose check is SKIP. Each peer is first checked bit for bit: y is
poisoned with a NaN pattern, the op runs once, and y is compared with the
transpose numpy made on the CPU. Only a peer that passes is timed.

Timing follows the C harness (docs/timing.md). Everything runs on one CUDA
stream: PyTorch's current stream, which CuPy, Triton and the tutorial's
library are handed too. Per timed run: poison y, flush L2 by reading a
buffer of 4 x the L2 size, event start, the op, event stop. Warm-up runs
first. The timed runs are enqueued in batches of 32 behind a GPU-side sleep
(torch.cuda._sleep) long enough to cover enqueuing the batch, so the host's
launch overhead never falls inside a timed window; a batch whose sleep ended
before the host finished enqueuing is thrown away and run again with a
longer sleep. Median and min of the runs; GPU clocks left alone.

JAX runs on a stream of its own that CUDA events on PyTorch's stream cannot
bracket, and allocates its own output. It is timed by the host clock around
batches of 16 calls on its stream, each call after the same read flush, less
batches of 16 flushes alone; the CSV's `method` column says so.

Writes docs/results/<gpu>-peers.csv, with the columns
    gpu,peer,version,op,role,rows,cols,median_ms,min_ms,gbps,pct_of_copy,
    vs_tutorial,check,method
(gbps: 2 x rows x cols x 4 bytes, read and written, over the median, in
units of 1e9 B/s; pct_of_copy = copy median / this median x 100; vs_tutorial
= tutorial median / this median, above 1 is faster than the tutorial; SKIP
and FAIL rows leave the timing cells empty), and <gpu>-peers-env.txt
with the versions, the GPU, the driver, the date, the command and the timing
method. Exit codes: 0 every check passed, 1 a peer gave a wrong result,
2 bad command line, 3 no PyTorch, no numpy or no GPU.
"""
import argparse
import csv
import ctypes
import datetime
import os
import platform
import re
import statistics
import subprocess
import sys
import time
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_LIB = os.path.join(ROOT, "build", "peers", "libtutorial.so")
# The shapes of the tutorial's bar (README.md).
DEFAULT_SHAPES = ("8192x8192,32768x32768,4096x4096,12800x1280,1280x12800,"
                  "10007x7919,16385x16383,1x67108864")
CSV_COLUMNS = ["gpu", "peer", "version", "op", "role", "rows", "cols",
               "median_ms", "min_ms", "gbps", "pct_of_copy", "vs_tutorial",
               "check", "method"]

FLUSH_FACTOR = 4        # the L2 flush reads FLUSH_FACTOR x the L2 size
POISON_BYTE = 0xFF      # every float of y becomes 0xFFFFFFFF, a NaN no input holds
BATCH = 32              # timed runs enqueued behind one hold
HOLD_MIN_MS = 0.5       # shortest hold; it also covers the first launches
HOLD_RETRIES = 4        # batches re-run with a longer hold before giving up
JAX_BATCH = 16          # calls per host-timed JAX batch

METHOD_EVENTS = "cuda events on the shared stream"
METHOD_JAX = ("host clock on JAX's stream: batches of %d (flush; op) less"
              " batches of %d flushes" % (JAX_BATCH, JAX_BATCH))
TIMING_METHOD = (
    "per run: poison y; flush L2 by reading %dx its size; event; op; event;"
    " runs enqueued in batches of %d behind torch.cuda._sleep sized to cover"
    " the host's enqueuing; median and min; clocks left alone; JAX: %s"
    % (FLUSH_FACTOR, BATCH, METHOD_JAX))

EXIT_WRONG, EXIT_ENVIRONMENT = 1, 3   # argparse exits with 2 on a bad command line


class Unavailable(Exception):
    """A peer cannot run here; the message says why."""


def slug(name):
    """"NVIDIA H200" -> "h200", as gpu_slug() in tools/cuda_env.sh names files."""
    name = re.sub(r"^NVIDIA ", "", name)
    name = re.sub(r"^GeForce ", "", name)
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def parse_shapes(text):
    """"8192x8192,1x67108864" -> [(8192, 8192), (1, 67108864)]."""
    shapes = []
    for item in re.split(r"[,\s]+", text.strip()):
        match = re.fullmatch(r"([1-9][0-9]*)x([1-9][0-9]*)", item)
        if not match:
            raise ValueError("bad shape '%s': write ROWSxCOLS, e.g. 8192x8192" % item)
        shapes.append((int(match.group(1)), int(match.group(2))))
    return shapes


def dotted(version):
    """cuBLAS's and cuTENSOR's 10000 * major + 100 * minor + patch -> "13.1.0"."""
    return "%d.%d.%d" % (version // 10000, version // 100 % 100, version % 100)


def first_line(err):
    """The first line of an exception's message, with its type when it is empty."""
    text = str(err).strip().splitlines()
    return text[0] if text else type(err).__name__


# ---------------------------------------------------------------- the GPU side


class Case:
    """One shape: x on the GPU, the output y, and numpy's transpose of x
    (want; None when reference is False, for --once, which checks nothing)."""

    def __init__(self, torch, rows, cols, seed, reference=True):
        import numpy as np
        self.rows, self.cols = rows, cols
        rng = np.random.default_rng(seed)
        host = rng.standard_normal((rows, cols), dtype=np.float32)
        self.x = torch.from_numpy(host).to("cuda")
        self.want = None
        if reference:
            want = np.ascontiguousarray(host.T)   # the CPU reference
            self.want = torch.from_numpy(want).to("cuda")
            del want
        del host
        self.y = torch.empty((cols, rows), dtype=torch.float32, device="cuda")


class Bench:
    """The machinery every peer shares: the stream, poison, flush, hold, events."""

    def __init__(self, torch):
        self.torch = torch
        self.stream = torch.cuda.Stream()
        torch.cuda.set_stream(self.stream)   # PyTorch, Triton and torch.compile use it
        props = torch.cuda.get_device_properties(0)
        self.gpu_name = props.name
        self.capability = 10 * props.major + props.minor
        self.sm_count = props.multi_processor_count
        self.l2_bytes = props.L2_cache_size
        self.flush_buffer = torch.zeros(FLUSH_FACTOR * self.l2_bytes // 4,
                                        dtype=torch.float32, device="cuda")
        self.flush_sink = torch.zeros((), dtype=torch.float32, device="cuda")
        self.events = [(torch.cuda.Event(enable_timing=True),
                        torch.cuda.Event(enable_timing=True)) for _ in range(BATCH)]
        self.hold_done = torch.cuda.Event()
        self.sleep_cycles_per_ms = self.measure_sleep_rate()

    def poison(self, y):
        """Fill y with the NaN pattern (a fill kernel, on the stream)."""
        y.view(-1).view(self.torch.uint8).fill_(POISON_BYTE)

    def flush(self):
        """Evict the matrices from L2 by reading a buffer 4x its size.

        Reading leaves L2 full of clean lines: nothing is written back later,
        so the next timed window pays for nothing but its own op."""
        self.torch.sum(self.flush_buffer, dim=0, out=self.flush_sink)

    def measure_sleep_rate(self):
        """Clock cycles torch.cuda._sleep() spins per millisecond, on this GPU now."""
        start, stop = self.events[0]
        cycles = 20_000_000
        rates = []
        for _ in range(3):   # the first wakes the clocks; keep the fastest
            start.record()
            self.torch.cuda._sleep(cycles)
            stop.record()
            stop.synchronize()
            rates.append(cycles / start.elapsed_time(stop))
        return max(rates)

    def hold(self, ms):
        """Keep the stream busy for about ms milliseconds; hold_done marks the end."""
        self.torch.cuda._sleep(int(ms * self.sleep_cycles_per_ms))
        self.hold_done.record()

    def enqueue_run(self, run, y, events=None):
        """One run: poison, flush, then the op, between events when given."""
        self.poison(y)
        self.flush()
        if events:
            events[0].record()
        run()
        if events:
            events[1].record()

    def time_events(self, run, y, warmup, reps):
        """Milliseconds of each of reps runs of run(), and a note ('' when all held).

        The warm-up runs also measure how long the host takes to enqueue one
        run; the hold before each batch lasts twice that per run."""
        start = time.perf_counter()
        for _ in range(warmup):
            self.enqueue_run(run, y, self.events[0])
        host_ms = 1000 * (time.perf_counter() - start) / warmup if warmup else 1.0
        self.stream.synchronize()
        times, note = [], ""
        while len(times) < reps:
            count = min(BATCH, reps - len(times))
            for attempt in range(HOLD_RETRIES + 1):
                self.hold(max(HOLD_MIN_MS, 2 * count * host_ms))
                start = time.perf_counter()
                for i in range(count):
                    self.enqueue_run(run, y, self.events[i])
                enqueue_ms = 1000 * (time.perf_counter() - start)
                # Still sleeping: the GPU never waited for the host in this batch.
                held = not self.hold_done.query()
                self.stream.synchronize()
                if held:
                    break
                host_ms = 2 * enqueue_ms / count
                if attempt == HOLD_RETRIES:
                    note = "; some batches not held (host slower than the GPU)"
            times += [a.elapsed_time(b) for a, b in self.events[:count]]
        return times, note

    def count_wrong(self, got, want):
        """Elements of got whose bits differ from want's (0: a bit-exact match)."""
        i32 = self.torch.int32
        got_bits = got.reshape(-1).view(i32)
        want_bits = want.reshape(-1).view(i32)
        return int((got_bits != want_bits).sum().item())


# ---------------------------------------------------------------- the peers
#
# A peer is a class: its name, role and op for the CSV; __init__ imports its
# library and sets self.version, or raises Unavailable; make(case) returns a
# function of no arguments that enqueues the op once, case.x -> case.y, on
# the shared stream. Adding a peer is one class and one entry in PEERS.


class Peer:
    """The parts every peer shares: check and time what make() returns."""

    key = ""                 # the name --peers takes
    name = ""                # the CSV's peer column
    role = "peer"            # copy, tutorial or peer
    op = ""                  # the CSV's op column
    method = METHOD_EVENTS   # the CSV's method column
    # A regular expression for the names of the kernel functions the op
    # launches, for Nsight Compute (`make peers-profile`); "" if it cannot
    # be profiled that way (a library call that is a memcpy, or kernels whose
    # names are not known in advance).
    kernels = ""

    def __init__(self, bench):
        self.bench = bench
        self.version = ""

    def make(self, case):
        raise NotImplementedError

    def expected(self, case):
        """(where the op writes, what must be there): y and the transpose."""
        return case.y, case.want

    def check(self, case, run):
        """Number of wrong elements after one run on a poisoned output."""
        out, want = self.expected(case)
        self.bench.poison(out)
        run()
        self.bench.stream.synchronize()
        return self.bench.count_wrong(out, want)

    def time(self, case, run, warmup, reps):
        """(list of milliseconds, note for the method column)."""
        out, _ = self.expected(case)
        times, note = self.bench.time_events(run, out, warmup, reps)
        return times, self.method + note

    def release(self):
        """Free what make() created for the last shape."""


class CopyBound(Peer):
    """The copy bound: the same bytes copied device to device (cudaMemcpyAsync)."""

    key, name, role, op = "copy", "torch", "copy", "y.copy_(x)"

    def __init__(self, bench):
        super().__init__(bench)
        self.version = bench.torch.__version__.split("+")[0]

    def expected(self, case):
        # the same bytes as the transpose, in x's shape: a plain copy of x
        return case.y.view(case.x.shape), case.x

    def make(self, case):
        y, x = case.y.view(case.x.shape), case.x
        return lambda: y.copy_(x)


class Tutorial(Peer):
    """The last step's default kernel, from build/peers/libtutorial.so."""

    key, name, role = "tutorial", "tutorial", "tutorial"
    kernels = "^transpose_"   # every kernel of the tutorial's common/ headers
    lib_path = DEFAULT_LIB   # main() sets it from --lib

    def __init__(self, bench):
        super().__init__(bench)
        if not os.path.exists(self.lib_path):
            raise Unavailable("%s not found: run 'make peers', which builds it first"
                              % os.path.relpath(self.lib_path))
        lib = ctypes.CDLL(self.lib_path)
        for fn in (lib.tutorial_step_number, lib.tutorial_kernel_name,
                   lib.tutorial_launch_error):
            fn.restype = ctypes.c_char_p
        lib.tutorial_transpose.restype = ctypes.c_size_t
        lib.tutorial_transpose.argtypes = [ctypes.c_void_p, ctypes.c_void_p,
                                           ctypes.c_size_t, ctypes.c_size_t,
                                           ctypes.c_void_p]
        self.lib = lib
        self.version = "step " + lib.tutorial_step_number().decode()
        self.op = lib.tutorial_kernel_name().decode()
        min_cc = lib.tutorial_min_cc()
        if bench.capability < min_cc:
            raise Unavailable("%s needs compute capability %d.%d, this GPU is %d.%d"
                              % (self.op, min_cc // 10, min_cc % 10,
                                 bench.capability // 10, bench.capability % 10))
        lib.tutorial_setup()   # the step's one-time setup, never inside a timed run

    def make(self, case):
        args = (case.x.data_ptr(), case.y.data_ptr(), case.rows, case.cols,
                self.bench.stream.cuda_stream)
        return lambda: self.lib.tutorial_transpose(*args)

    def check(self, case, run):
        wrong = super().check(case, run)
        error = self.lib.tutorial_launch_error()
        if error:
            raise RuntimeError("the launch failed: " + error.decode())
        return wrong


def import_cupy(bench):
    """CuPy, with PyTorch's stream made its current stream."""
    try:
        import cupy
    except ImportError as err:
        raise Unavailable("CuPy is not installed (%s)" % first_line(err)) from err
    try:
        if hasattr(bench.stream, "__cuda_stream__"):   # the CUDA stream protocol
            cupy.cuda.Stream.from_external(bench.stream).use()
        else:
            with warnings.catch_warnings():   # deprecated since CuPy 14, still works
                warnings.simplefilter("ignore", FutureWarning)
                warnings.simplefilter("ignore", DeprecationWarning)
                cupy.cuda.ExternalStream(bench.stream.cuda_stream).use()
    except Exception as err:   # e.g. a CuPy built for another CUDA
        raise Unavailable("CuPy cannot use the GPU: %s" % first_line(err)) from err
    return cupy


class CublasGeam(Peer):
    """cuBLAS's transpose, the bar of every step program, called through CuPy."""

    key, name = "cublas", "cublas"
    op = "cublasSgeam C = 1 * A^T + 0 * C (cupy.cublas.geam)"
    # cuBLAS 12 and 13 name their geam kernels so; ncu says so if one does not.
    kernels = "geam|^transpose_readWrite"

    def __init__(self, bench):
        super().__init__(bench)
        self.cp = import_cupy(bench)
        try:
            import cupy.cublas
            from cupy_backends.cuda.libs import cublas
            version = cublas.getVersion(self.cp.cuda.device.get_cublas_handle())
        except Exception as err:   # CuPy without its cuBLAS module, or no libcublas
            raise Unavailable("cuBLAS through CuPy: %s" % first_line(err)) from err
        self.geam = cupy.cublas.geam
        self.version = dotted(version)

    def make(self, case):
        x, y = self.cp.from_dlpack(case.x), self.cp.from_dlpack(case.y)
        # With beta = 0 cuBLAS does not read B; passing y as B (and C) is the
        # in-place form the C harness uses too.
        return lambda: self.geam("T", "N", 1.0, x, 0.0, y, out=y)


class TorchEager(Peer):
    """What a PyTorch user writes: copy a transposed view into y."""

    key, name, op = "torch", "torch", "y.copy_(x.t())"

    def __init__(self, bench):
        super().__init__(bench)
        self.version = bench.torch.__version__.split("+")[0]

    def make(self, case):
        x, y = case.x, case.y
        return lambda: y.copy_(x.t())


def copy_transposed(x, y):
    """What torch.compile compiles: the eager peer's expression."""
    return y.copy_(x.t())


class TorchCompile(Peer):
    """The same expression through torch.compile, which writes a Triton kernel."""

    key, name = "torch.compile", "torch.compile"
    op = "torch.compile(y.copy_(x.t())), dynamic=False (a Triton kernel)"
    kernels = "^triton_"   # inductor names its kernels triton_poi_..., triton_red_...

    def __init__(self, bench):
        super().__init__(bench)
        if triton is None:
            raise Unavailable("torch.compile needs Triton on a GPU, and Triton is "
                              "not installed")
        self.version = "%s (triton %s)" % (bench.torch.__version__.split("+")[0],
                                           triton.__version__)

    def make(self, case):
        torch = self.bench.torch
        torch._dynamo.reset()   # a fresh compile specialised to this shape
        compiled = torch.compile(copy_transposed, dynamic=False)
        compiled(case.x, case.y)   # compile now, outside every check and timing
        self.bench.stream.synchronize()
        x, y = case.x, case.y
        return lambda: compiled(x, y)


try:
    import triton
    import triton.language as tl
except Exception:   # not installed or broken: the Triton peer is skipped
    triton = None

if triton is not None:
    @triton.jit
    def transpose_tile_kernel(x_ptr, y_ptr, rows, cols,
                              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
        # y (cols x rows) = x (rows x cols)^T, one BLOCK_M x BLOCK_N block per
        # program. The grid is one-dimensional: a 2-D grid's second axis stops
        # at 65535 programs, too few for a 67108864 x 1 matrix.
        pid = tl.program_id(0)
        blocks_n = tl.cdiv(cols, BLOCK_N)
        block_m = (pid // blocks_n).to(tl.int64)   # 64-bit offsets: > 2^31 elements
        block_n = (pid % blocks_n).to(tl.int64)
        offs_m = block_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = block_n * BLOCK_N + tl.arange(0, BLOCK_N)
        in_mask = (offs_m[:, None] < rows) & (offs_n[None, :] < cols)
        tile = tl.load(x_ptr + offs_m[:, None] * cols + offs_n[None, :], mask=in_mask)
        out_mask = (offs_n[:, None] < cols) & (offs_m[None, :] < rows)
        tl.store(y_ptr + offs_n[:, None] * rows + offs_m[None, :], tl.trans(tile),
                 mask=out_mask)


class TritonTiled(Peer):
    """transpose_tile_kernel above: the way a transpose is written in Triton."""

    key, name = "triton", "triton"
    kernels = "^transpose_tile_kernel$"
    block_m, block_n, num_warps = 64, 64, 4
    op = ("tiled kernel: %dx%d blocks, tl.load, tl.trans, tl.store, %d warps"
          % (block_m, block_n, num_warps))

    def __init__(self, bench):
        super().__init__(bench)
        if triton is None:
            raise Unavailable("Triton is not installed")
        self.version = triton.__version__

    def make(self, case):
        x, y, rows, cols = case.x, case.y, case.rows, case.cols
        grid = (triton.cdiv(rows, self.block_m) * triton.cdiv(cols, self.block_n),)

        def run():
            transpose_tile_kernel[grid](x, y, rows, cols, BLOCK_M=self.block_m,
                                        BLOCK_N=self.block_n, num_warps=self.num_warps)
        run()   # compile now, outside every check and timing
        self.bench.stream.synchronize()
        return run


class JaxJit(Peer):
    """XLA's transpose: JAX allocates the output and runs on its own stream."""

    key, name, op = "jax", "jax", "jax.jit(lambda x: x.T)"
    method = METHOD_JAX

    def __init__(self, bench):
        super().__init__(bench)
        # JAX would otherwise take 75 % of the GPU's memory when it starts.
        os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
        try:
            import jax
            import jax.numpy as jnp
            import jaxlib
            jax.devices("gpu")   # raises when JAX has no GPU backend
        except ImportError as err:
            raise Unavailable("JAX is not installed (%s)" % first_line(err)) from err
        except Exception as err:   # e.g. installed without its CUDA plugin
            raise Unavailable("JAX cannot use the GPU: %s" % first_line(err)) from err
        self.jax, self.jnp = jax, jnp
        self.version = "%s (jaxlib %s)" % (jax.__version__, jaxlib.__version__)
        self.transpose = jax.jit(lambda a: a.T)
        self.flush_sum = jax.jit(self.jnp.sum)
        self.flush_buffer = None
        self.x = None
        self.poisoned = True   # whether the last check's output started as poison

    def make(self, case):
        jax, jnp = self.jax, self.jnp
        if self.flush_buffer is None:
            self.flush_buffer = jnp.zeros(FLUSH_FACTOR * self.bench.l2_bytes // 4,
                                          dtype=jnp.float32)
        self.bench.stream.synchronize()
        self.x = jax.dlpack.from_dlpack(case.x)   # the same data, shared if JAX can
        self.transpose(self.x).block_until_ready()   # compile outside the check
        self.flush_sum(self.flush_buffer).block_until_ready()
        return lambda: self.transpose(self.x)

    def check(self, case, run):
        """Poison a buffer of y's size, free it, and let JAX's output take it.

        JAX allocates its output itself; its allocator hands the block just
        freed to the next request of the same size, so the output starts as
        NaN. Whether it did is checked, not assumed: if not, every element is
        still compared, and the row's method column says the output was not
        poisoned."""
        poison = self.jnp.full((case.cols, case.rows), -1, dtype=self.jnp.int32)
        poison_address = poison.block_until_ready().unsafe_buffer_pointer()
        poison.delete()
        out = run().block_until_ready()
        self.poisoned = out.unsafe_buffer_pointer() == poison_address
        got = self.bench.torch.from_dlpack(out)
        if not got.is_contiguous():   # a layout trick instead of a transpose
            return case.rows * case.cols
        return self.bench.count_wrong(got, case.want)

    def time_batch(self, with_op):
        """Host seconds for JAX_BATCH flushes, each followed by the op if with_op."""
        start = time.perf_counter()
        for _ in range(JAX_BATCH):
            last = self.flush_sum(self.flush_buffer)
            if with_op:
                last = self.transpose(self.x)
        last.block_until_ready()   # one stream: the last to finish
        return time.perf_counter() - start

    def time(self, case, run, warmup, reps):
        for _ in range(max(1, warmup)):
            self.time_batch(False)
            self.time_batch(True)
        times = []
        for _ in range(reps):
            flush_only = self.time_batch(False)
            with_op = self.time_batch(True)
            times.append(1000 * (with_op - flush_only) / JAX_BATCH)
        note = "" if self.poisoned else "; checked on an unpoisoned output"
        return times, self.method + note

    def release(self):
        self.x = None


class CupyCopyto(Peer):
    """What a CuPy user writes: copy a transposed view into y."""

    key, name, op = "cupy", "cupy", "cp.copyto(y, x.T)"

    def __init__(self, bench):
        super().__init__(bench)
        self.cp = import_cupy(bench)
        self.version = self.cp.__version__

    def make(self, case):
        cp = self.cp
        x, y = cp.from_dlpack(case.x), cp.from_dlpack(case.y)
        return lambda: cp.copyto(y, x.T)


class CutensorPermute(Peer):
    """cuTENSOR's permutation of the two modes, planned once per shape."""

    key, name = "cutensor", "cutensor"
    op = "cutensorPermute B[c,r] = A[r,c] (CuPy's bindings)"

    def __init__(self, bench):
        super().__init__(bench)
        self.cp = import_cupy(bench)
        try:
            import cupyx.cutensor  # noqa: F401  (loads libcutensor)
            from cupy_backends.cuda.libs import cutensor
            self.handle = self.cp.cuda.device.get_cutensor_handle().ptr
        except Exception as err:   # ImportError, or the library is missing
            raise Unavailable("cuTENSOR is not installed (%s)"
                              % first_line(err)) from err
        self.ct = cutensor
        version = cutensor.get_version()
        self.version = dotted(version)
        self.made = []   # what make() created, destroyed by release()

    def descriptor(self, shape, pointers):
        """A row-major float32 tensor descriptor, with the pointers' alignment."""
        import numpy as np
        alignment = 256
        while any(p % alignment for p in pointers):
            alignment //= 2
        extent = np.array(shape, dtype=np.int64)
        stride = np.array([shape[1], 1], dtype=np.int64)
        desc = self.ct.createTensorDescriptor(self.handle, 2, extent.ctypes.data,
                                              stride.ctypes.data, self.ct.R_32F,
                                              alignment)
        self.made.append((self.ct.destroyTensorDescriptor, desc))
        return desc

    def make(self, case):
        import numpy as np
        ct, handle = self.ct, self.handle
        x_ptr, y_ptr = case.x.data_ptr(), case.y.data_ptr()
        desc_x = self.descriptor((case.rows, case.cols), [x_ptr])
        desc_y = self.descriptor((case.cols, case.rows), [y_ptr])
        modes_x = np.array([ord("r"), ord("c")], dtype=np.int32)
        modes_y = np.array([ord("c"), ord("r")], dtype=np.int32)
        op = ct.createPermutation(handle, desc_x, modes_x.ctypes.data, ct.OP_IDENTITY,
                                  desc_y, modes_y.ctypes.data, ct.COMPUTE_32F)
        self.made.append((ct.destroyOperationDescriptor, op))
        pref = ct.createPlanPreference(handle, ct.ALGO_DEFAULT, ct.JIT_MODE_NONE)
        self.made.append((ct.destroyPlanPreference, pref))
        plan = ct.createPlan(handle, op, pref, 0)   # a permutation needs no workspace
        self.made.append((ct.destroyPlan, plan))
        self.alpha = np.ones(1, dtype=np.float32)   # a host scalar, kept alive
        alpha = self.alpha.ctypes.data
        return lambda: ct.permute(handle, plan, alpha, x_ptr, y_ptr)

    def release(self):
        self.bench.stream.synchronize()
        while self.made:
            destroy, handle = self.made.pop()
            destroy(handle)


# The table: the copy bound and the tutorial first, their medians are the
# denominators of the other rows.
PEERS = [CopyBound, Tutorial, CublasGeam, TorchEager, TorchCompile, TritonTiled,
         JaxJit, CupyCopyto, CutensorPermute]


# ---------------------------------------------------------------- one shape


def row_for(bench, peer, rows, cols, check, times=None, method=""):
    """A CSV row as a dict; the ratio columns are filled in by add_ratios().

    peer may be a Peer or, for a peer that could not start, its class."""
    row = dict.fromkeys(CSV_COLUMNS, "")
    row.update(gpu=bench.gpu_name, peer=peer.name, version=getattr(peer, "version", ""),
               op=peer.op, role=peer.role, rows=rows, cols=cols, check=check,
               method=method)
    if times:
        row["median_ms"] = statistics.median(times)
        row["min_ms"] = min(times)
        row["gbps"] = 2 * rows * cols * 4 / (row["median_ms"] * 1e6)   # read + written
    return row


def measure_peer(bench, peer, case, args):
    """Check one peer at one shape and, if it passed, time it: one CSV row."""
    label = "%dx%d %s" % (case.rows, case.cols, peer.key)
    print("peers: %s" % label, file=sys.stderr, flush=True)

    def row(check, times=None, method=""):
        return row_for(bench, peer, case.rows, case.cols, check, times, method)
    try:
        run = peer.make(case)
    except Exception as err:   # e.g. a compiler that cannot handle the shape
        print("skip: %s: %dx%d: %s" % (peer.key, case.rows, case.cols, first_line(err)))
        return row("SKIP")
    try:
        wrong = peer.check(case, run)
        if wrong:
            print("peers: error: %s gave %d wrong elements" % (label, wrong),
                  file=sys.stderr)
            return row("FAIL")
        return row("PASS", *peer.time(case, run, args.warmup, args.reps))
    except RuntimeError as err:   # a failed launch
        print("peers: error: %s: %s" % (label, first_line(err)), file=sys.stderr)
        return row("FAIL")
    finally:
        peer.release()


def add_ratios(rows):
    """Fill pct_of_copy and vs_tutorial from the copy and tutorial rows of one shape."""
    def median_of(role):
        found = [r["median_ms"] for r in rows if r["role"] == role and r["median_ms"]]
        return found[0] if found else None
    copy_ms, tutorial_ms = median_of("copy"), median_of("tutorial")
    for row in rows:
        if row["median_ms"] and copy_ms:
            row["pct_of_copy"] = 100.0 * copy_ms / row["median_ms"]
        if row["median_ms"] and tutorial_ms:
            row["vs_tutorial"] = tutorial_ms / row["median_ms"]


def measure_shape(bench, entries, rows, cols, args):
    """Every row of one shape. entries: (class, its Peer or None), in table order."""
    free, _ = bench.torch.cuda.mem_get_info()
    needed = 3 * rows * cols * 4   # x, y and the reference
    if needed > 0.9 * free:
        print("skip: %dx%d: x, y and the reference need %.1f GiB, %.1f GiB is free"
              % (rows, cols, needed / 2**30, free / 2**30))
        return [row_for(bench, peer or cls, rows, cols, "SKIP")
                for cls, peer in entries]
    case = Case(bench.torch, rows, cols, args.seed)
    out = [measure_peer(bench, peer, case, args) if peer
           else row_for(bench, cls, rows, cols, "SKIP") for cls, peer in entries]
    add_ratios(out)
    del case
    bench.torch.cuda.empty_cache()
    return out


# ---------------------------------------------------------------- --once


def run_once(bench, entries, shapes, seed, skipped):
    """Each peer's op once per shape, for a profiler: no check, no poison, no
    flush, no timing, nothing written (make peers-profile runs it under ncu).

    Exit code 0, or EXIT_ENVIRONMENT when a peer cannot run here."""
    for cls, peer in entries:
        if peer is None:
            print("error: %s cannot run here: %s" % (cls.key, skipped[cls]),
                  file=sys.stderr)
            return EXIT_ENVIRONMENT
    for rows, cols in shapes:
        case = Case(bench.torch, rows, cols, seed, reference=False)
        for _, peer in entries:
            run = peer.make(case)
            run()
            bench.stream.synchronize()
            peer.release()
            print("once: %s %dx%d" % (peer.key, rows, cols))
        del case
        bench.torch.cuda.empty_cache()
    return 0


# ---------------------------------------------------------------- output


def formatted(row):
    """The row with its numbers written as the CSV holds them."""
    formats = {"median_ms": "%.6f", "min_ms": "%.6f", "gbps": "%.1f",
               "pct_of_copy": "%.1f", "vs_tutorial": "%.3f"}
    return {k: (formats[k] % v if k in formats and v != "" else v)
            for k, v in row.items()}


def print_table(rows):
    line = "%-12s %-14s %-24s %10s %7s %9s %8s  %s"
    print(line % ("shape", "peer", "op", "median ms", "GB/s", "% of copy",
                  "vs tut.", "check"))
    for row in map(formatted, rows):
        print(line % ("%sx%s" % (row["rows"], row["cols"]), row["peer"],
                      row["op"][:24], row["median_ms"], row["gbps"],
                      row["pct_of_copy"], row["vs_tutorial"], row["check"]))


def write_csv(path, rows):
    with open(path, "w", newline="") as f:
        out = csv.DictWriter(f, fieldnames=CSV_COLUMNS, lineterminator="\n")
        out.writeheader()
        for row in rows:
            out.writerow(formatted(row))


def driver_version():
    """"580.159.04 (CUDA 13.0)", from nvidia-smi and libcuda; '' parts if absent."""
    text = ""
    try:
        text = subprocess.run(["nvidia-smi", "--query-gpu=driver_version",
                               "--format=csv,noheader"], capture_output=True,
                              text=True, timeout=30).stdout.split("\n")[0].strip()
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        version = ctypes.c_int()
        ctypes.CDLL("libcuda.so.1").cuDriverGetVersion(ctypes.byref(version))
        text += " (CUDA %d.%d)" % (version.value // 1000, version.value % 1000 // 10)
    except OSError:
        pass
    return text.strip()


def write_env(path, bench, peers, skipped, args):
    torch = bench.torch
    lines = [
        "gpu: %s (compute capability %d.%d, %d SMs, L2 %d MiB)"
        % (bench.gpu_name, bench.capability // 10, bench.capability % 10,
           bench.sm_count, bench.l2_bytes >> 20),
        "driver: %s" % driver_version(),
        "python: %s" % platform.python_version(),
        "torch: %s (CUDA %s)" % (torch.__version__, torch.version.cuda),
    ]
    for peer in peers:
        lines.append("%s: %s, %s" % (peer.key, peer.version, peer.op))
    for cls, why in skipped.items():
        lines.append("%s: skipped: %s" % (cls.key, why))
    lines += [
        "date_utc: %s" % datetime.datetime.now(datetime.timezone.utc)
        .strftime("%Y-%m-%d %H:%M"),
        "command: %s" % " ".join(["tools/peers.py"] + sys.argv[1:]),
        "reps: %d, warmup: %d" % (args.reps, args.warmup),
        "timing method: %s" % TIMING_METHOD,
    ]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


# ---------------------------------------------------------------- main


def parse_args():
    keys = [cls.key for cls in PEERS]
    parser = argparse.ArgumentParser(
        description="Time the tutorial's last step beside cuBLAS, PyTorch, "
                    "torch.compile, Triton, JAX, CuPy and cuTENSOR, each checked "
                    "bit for bit, against the copy bound.",
        epilog="Exit codes: 0 every check passed, 1 a wrong result, 2 bad command "
               "line, 3 no PyTorch, numpy or GPU.")
    parser.add_argument("--gpu", help="name of the result files (default: from the "
                        "GPU's name, e.g. h200)")
    parser.add_argument("--shapes", default=DEFAULT_SHAPES,
                        help="comma-separated ROWSxCOLS list (default: %(default)s)")
    parser.add_argument("--reps", type=int, default=20,
                        help="timed runs per peer and shape (default %(default)s)")
    parser.add_argument("--warmup", type=int, default=3,
                        help="untimed runs first (default %(default)s)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random input")
    parser.add_argument("--peers", default=",".join(keys[2:]),
                        help="which peers besides the copy bound and the tutorial: "
                             "a comma-separated list of " + ", ".join(keys[2:]))
    parser.add_argument("--lib", default=DEFAULT_LIB,
                        help="the tutorial's shared library (default "
                             "build/peers/libtutorial.so, from make peers)")
    parser.add_argument("--results", default=os.path.join(ROOT, "docs", "results"),
                        help="folder to write to (default docs/results)")
    parser.add_argument("--once", action="store_true",
                        help="run each of --peers once per shape and stop: no check, "
                             "no timing, no files (for Nsight Compute: make "
                             "peers-profile); --peers may name the tutorial too")
    args = parser.parse_args()
    try:
        args.shapes = parse_shapes(args.shapes)
    except ValueError as err:
        parser.error(str(err))
    if args.reps < 1 or args.warmup < 0:
        parser.error("--reps must be at least 1 and --warmup at least 0")
    wanted = [k for k in re.split(r"[,\s]+", args.peers.strip()) if k]
    # --once runs what it is told, the tutorial included; the copy bound is
    # a memcpy, which has no kernel to profile.
    allowed = keys[1:] if args.once else keys[2:]
    unknown = [k for k in wanted if k not in allowed]
    if unknown:
        parser.error("unknown peer '%s': choose from %s"
                     % (unknown[0], ", ".join(allowed)))
    if args.once:
        args.peers = [cls for cls in PEERS[1:] if cls.key in wanted]
    else:
        args.peers = PEERS[:2] + [cls for cls in PEERS[2:] if cls.key in wanted]
    return args


def open_gpu():
    """A Bench on GPU 0, or None after one line saying why not."""
    try:   # PyTorch first, so that its absence is what the line names
        import torch
    except ImportError as err:
        print("peers: error: %s: install PyTorch for a CUDA GPU; it provides the "
              "copy bound, the stream and the timing" % first_line(err), file=sys.stderr)
        return None
    try:
        import numpy  # noqa: F401  (the CPU reference)
    except ImportError as err:
        print("peers: error: %s: install numpy; it makes the reference transpose"
              % first_line(err), file=sys.stderr)
        return None
    if not torch.cuda.is_available():
        print("peers: error: PyTorch %s sees no GPU (is this a CUDA build, is the "
              "driver loaded?)" % torch.__version__, file=sys.stderr)
        return None
    return Bench(torch)


def main():
    args = parse_args()
    Tutorial.lib_path = os.path.abspath(args.lib)
    bench = open_gpu()
    if bench is None:
        return EXIT_ENVIRONMENT
    entries, skipped = [], {}
    for cls in args.peers:
        try:
            entries.append((cls, cls(bench)))
        except Unavailable as err:
            print("skip: %s: %s" % (cls.key, err))
            entries.append((cls, None))
            skipped[cls] = str(err)
    if args.once:
        return run_once(bench, entries, args.shapes, args.seed, skipped)
    rows = []
    for shape_rows, shape_cols in args.shapes:
        rows += measure_shape(bench, entries, shape_rows, shape_cols, args)
    print_table(rows)

    gpu = args.gpu or slug(bench.gpu_name)
    os.makedirs(args.results, exist_ok=True)
    csv_path = os.path.join(args.results, gpu + "-peers.csv")
    write_csv(csv_path, rows)
    write_env(os.path.join(args.results, gpu + "-peers-env.txt"), bench,
              [peer for _, peer in entries if peer], skipped, args)
    print("peers: wrote %s" % os.path.relpath(csv_path), file=sys.stderr)
    failed = [r for r in rows if r["check"] == "FAIL"]
    return EXIT_WRONG if failed else 0


if __name__ == "__main__":
    sys.exit(main())
