#!/usr/bin/env python3
"""Time the transposes of PyTorch and CuPy against the copy bound.

    make peers                 or    tools/peers.py [--gpu h200] [--reps 20]

What a student would write instead of a kernel:
    PyTorch   y.copy_(x.t())        y preallocated, cols x rows
    CuPy      cp.copyto(y, x.T)
Each is timed like the step programs time their kernels: one checked run
first (the output poisoned with NaN, then compared bit for bit with the
input read through a transposed view), warm-up runs, then --reps runs, each
with a fresh L2 (a buffer of 4x the L2 size is written before it) and timed
with CUDA events around the call alone; the median is reported.

The copy bound is a device-to-device copy of the same bytes (y2.copy_(x) with
PyTorch, cp.copyto(y2, x) with CuPy where PyTorch is absent), timed the same
way in the same run; % of copy compares with it.  GB/s counts the bytes read
plus the bytes written, in units of 1e9 B/s, as the step programs do.

Writes docs/results/<gpu>-peers.csv (gpu,library,op,rows,cols,median_ms,gbps,
pct_of_copy) and <gpu>-peers-env.txt, only when every check passed.
A library that is not installed is skipped with a message.
Exit codes: 0 done (or nothing to time), 1 a result was wrong, 2 bad
command line, 3 no GPU.
"""
import argparse
import csv
import datetime
import os
import re
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_SHAPES = "8192x8192,32768x32768,4096x4096,12800x1280,1280x12800,10007x7919"
FLUSH_FACTOR = 4          # the L2 flush writes FLUSH_FACTOR x the L2 size
FALLBACK_L2 = 64 << 20    # bytes, when the library cannot tell


def slug(name):
    """"NVIDIA H200" -> "h200", as gpu_slug() in tools/cuda_env.sh names result files."""
    name = re.sub(r"^NVIDIA ", "", name)
    name = re.sub(r"^GeForce ", "", name)
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


class TorchBackend:
    """PyTorch: tensors, events and the ops to time."""

    def __init__(self, torch):
        self.t = torch
        self.library = "torch " + torch.__version__.split("+")[0]
        self.transpose_op = "y.copy_(x.t())"
        self.copy_op = "y.copy_(x)"

    def gpu_name(self):
        return self.t.cuda.get_device_name(0)

    def l2_bytes(self):
        props = self.t.cuda.get_device_properties(0)
        return getattr(props, "L2_cache_size", 0) or FALLBACK_L2

    def versions(self):
        return "torch %s (CUDA %s)" % (self.t.__version__, self.t.version.cuda)

    def setup(self, rows, cols, seed):
        gen = self.t.Generator(device="cuda").manual_seed(seed)
        x = self.t.randn(rows, cols, device="cuda", generator=gen)
        y = self.t.empty(cols, rows, device="cuda")
        return x, y

    def empty(self, count):
        return self.t.empty(count, dtype=self.t.float32, device="cuda")

    def like(self, x):
        return self.t.empty_like(x)

    def transpose(self, x, y):
        y.copy_(x.t())

    def copy(self, x, y):
        y.copy_(x)

    def poison(self, y):
        y.fill_(float("nan"))

    def flush(self, buf):
        buf.zero_()

    def same_bits_transposed(self, x, y):
        # compare the bit patterns, so that -0.0 == 0.0 or NaN cannot hide a fault
        i32 = self.t.int32
        return bool(self.t.equal(y.view(i32), x.view(i32).t()))

    def same_bits(self, x, y):
        i32 = self.t.int32
        return bool(self.t.equal(y.view(i32), x.view(i32)))

    def event(self):
        return self.t.cuda.Event(enable_timing=True)

    def record(self, event):
        event.record()

    def elapsed_ms(self, start, stop):
        stop.synchronize()
        return start.elapsed_time(stop)

    def synchronize(self):
        self.t.cuda.synchronize()

    def release(self):
        self.t.cuda.empty_cache()


class CupyBackend:
    """CuPy: arrays, events and the ops to time."""

    def __init__(self, cp):
        self.cp = cp
        self.library = "cupy " + cp.__version__
        self.transpose_op = "cp.copyto(y, x.T)"
        self.copy_op = "cp.copyto(y, x)"

    def gpu_name(self):
        name = self.cp.cuda.runtime.getDeviceProperties(0)["name"]
        return name.decode() if isinstance(name, bytes) else name

    def l2_bytes(self):
        return self.cp.cuda.runtime.getDeviceProperties(0).get("l2CacheSize", 0) or FALLBACK_L2

    def versions(self):
        return "cupy %s (CUDA runtime %d)" % (self.cp.__version__, self.cp.cuda.runtime.runtimeGetVersion())

    def setup(self, rows, cols, seed):
        rng = self.cp.random.default_rng(seed)
        x = rng.standard_normal((rows, cols), dtype=self.cp.float32)
        y = self.cp.empty((cols, rows), dtype=self.cp.float32)
        return x, y

    def empty(self, count):
        return self.cp.empty(count, dtype=self.cp.float32)

    def like(self, x):
        return self.cp.empty_like(x)

    def transpose(self, x, y):
        self.cp.copyto(y, x.T)

    def copy(self, x, y):
        self.cp.copyto(y, x)

    def poison(self, y):
        y.fill(float("nan"))

    def flush(self, buf):
        buf.fill(0)

    def same_bits_transposed(self, x, y):
        i32 = self.cp.int32
        return bool(self.cp.array_equal(y.view(i32), x.view(i32).T))

    def same_bits(self, x, y):
        i32 = self.cp.int32
        return bool(self.cp.array_equal(y.view(i32), x.view(i32)))

    def event(self):
        return self.cp.cuda.Event()

    def record(self, event):
        event.record()

    def elapsed_ms(self, start, stop):
        stop.synchronize()
        return self.cp.cuda.get_elapsed_time(start, stop)

    def synchronize(self):
        self.cp.cuda.runtime.deviceSynchronize()

    def release(self):
        self.cp.get_default_memory_pool().free_all_blocks()


def load_backends():
    """(installed libraries that can see a GPU, count installed); says what it skips."""
    backends = []
    installed = 0
    try:
        import torch
        installed += 1
        if torch.cuda.is_available():
            backends.append(TorchBackend(torch))
        else:
            print("peers: PyTorch is installed but sees no GPU: skipping it", file=sys.stderr)
    except ImportError:
        print("peers: PyTorch is not installed: skipping it", file=sys.stderr)
    try:
        import cupy
        installed += 1
        if cupy.cuda.runtime.getDeviceCount() > 0:
            backends.append(CupyBackend(cupy))
    except ImportError:
        print("peers: CuPy is not installed: skipping it", file=sys.stderr)
    except Exception as err:  # CuPy raises its own CUDARuntimeError without a GPU
        print("peers: CuPy sees no GPU (%s): skipping it" % err, file=sys.stderr)
    return backends, installed


def time_op(lib, op, x, y, flush_buf, warmup, reps):
    """Median and min milliseconds of op(x, y), each run after an L2 flush."""
    for _ in range(warmup):
        op(x, y)
    start, stop = lib.event(), lib.event()
    times = []
    for _ in range(reps):
        lib.flush(flush_buf)       # evict x and y from L2: every run starts cold
        lib.record(start)
        op(x, y)
        lib.record(stop)
        times.append(lib.elapsed_ms(start, stop))
    return statistics.median(times), min(times)


def measure(lib, rows, cols, args, flush_buf, copy_lib):
    """Rows for one library at one shape: [(library, op, median_ms)], or None if wrong."""
    x, y = lib.setup(rows, cols, args.seed)
    lib.poison(y)
    lib.transpose(x, y)
    lib.synchronize()
    if not lib.same_bits_transposed(x, y):
        print("peers: error: %s %s gave a wrong transpose at %dx%d"
              % (lib.library, lib.transpose_op, rows, cols), file=sys.stderr)
        return None
    out = []
    if copy_lib:
        y2 = lib.like(x)
        lib.poison(y2)
        lib.copy(x, y2)
        lib.synchronize()
        if not lib.same_bits(x, y2):
            print("peers: error: %s %s gave a wrong copy" % (lib.library, lib.copy_op), file=sys.stderr)
            return None
        median_ms, _ = time_op(lib, lib.copy, x, y2, flush_buf, args.warmup, args.reps)
        out.append((lib.library, lib.copy_op + " (copy bound)", median_ms))
        del y2
    median_ms, _ = time_op(lib, lib.transpose, x, y, flush_buf, args.warmup, args.reps)
    out.append((lib.library, lib.transpose_op, median_ms))
    del x, y
    lib.release()
    return out


def parse_shapes(text):
    shapes = []
    for item in text.replace(" ", ",").split(","):
        if not item:
            continue
        match = re.fullmatch(r"([1-9][0-9]*)x([1-9][0-9]*)", item)
        if not match:
            raise ValueError("bad shape '%s': write ROWSxCOLS, e.g. 8192x8192" % item)
        shapes.append((int(match.group(1)), int(match.group(2))))
    return shapes


def main():
    parser = argparse.ArgumentParser(description="Time PyTorch and CuPy transposes against the copy bound.")
    parser.add_argument("--gpu", help="name of the result files (default: from the GPU name, e.g. h200)")
    parser.add_argument("--shapes", default=DEFAULT_SHAPES, help="comma-separated ROWSxCOLS list")
    parser.add_argument("--reps", type=int, default=20, help="timed runs per op (default 20)")
    parser.add_argument("--warmup", type=int, default=3, help="untimed runs first (default 3)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random input")
    parser.add_argument("--results", default=os.path.join(ROOT, "docs", "results"),
                        help="folder to write to (default docs/results)")
    args = parser.parse_args()
    try:
        shapes = parse_shapes(args.shapes)
    except ValueError as err:
        parser.error(str(err))
    if args.reps < 1 or args.warmup < 0:
        parser.error("--reps must be >= 1 and --warmup >= 0")

    backends, installed = load_backends()
    if installed == 0:
        print("peers: neither PyTorch nor CuPy is installed: nothing to time", file=sys.stderr)
        return 0
    if not backends:
        print("peers: error: no GPU visible to PyTorch or CuPy", file=sys.stderr)
        return 3
    gpu_name = backends[0].gpu_name()
    gpu = args.gpu or slug(gpu_name)
    # The copy bound comes from the first library (PyTorch when present).
    copy_lib = backends[0]
    results = []  # (library, op, rows, cols, median_ms, gbps, pct_of_copy)
    for rows, cols in shapes:
        nbytes = 2 * rows * cols * 4  # read + written
        copy_ms = None
        for lib in backends:
            print("peers: %s %dx%d" % (lib.library, rows, cols), file=sys.stderr)
            flush_buf = lib.empty(FLUSH_FACTOR * lib.l2_bytes() // 4)
            timed = measure(lib, rows, cols, args, flush_buf, lib is copy_lib)
            del flush_buf
            lib.release()
            if timed is None:
                return 1
            for library, op, median_ms in timed:
                if op.endswith("(copy bound)"):
                    copy_ms = median_ms
                gbps = nbytes / (median_ms * 1e6)
                pct = 100.0 * copy_ms / median_ms
                results.append((library, op, rows, cols, median_ms, gbps, pct))

    print("%-12s %-30s %-13s %10s %8s %9s" % ("library", "op", "shape", "median ms", "GB/s", "% of copy"))
    for library, op, rows, cols, median_ms, gbps, pct in results:
        print("%-12s %-30s %-13s %10.4f %8.0f %8.1f%%"
              % (library, op, "%dx%d" % (rows, cols), median_ms, gbps, pct))

    os.makedirs(args.results, exist_ok=True)
    csv_path = os.path.join(args.results, gpu + "-peers.csv")
    with open(csv_path, "w", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(["gpu", "library", "op", "rows", "cols", "median_ms", "gbps", "pct_of_copy"])
        for library, op, rows, cols, median_ms, gbps, pct in results:
            out.writerow([gpu_name, library, op, rows, cols, "%.5f" % median_ms, "%.1f" % gbps, "%.1f" % pct])
    with open(os.path.join(args.results, gpu + "-peers-env.txt"), "w") as f:
        f.write("gpu: %s\n" % gpu_name)
        for lib in backends:
            f.write("library: %s\n" % lib.versions())
        f.write("date_utc: %s\n" % datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"))
        f.write("command: %s\n" % " ".join(["tools/peers.py"] + sys.argv[1:]))
        f.write("reps: %d, warmup: %d, L2 flush: %dx L2\n" % (args.reps, args.warmup, FLUSH_FACTOR))
    print("peers: wrote %s" % csv_path, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
