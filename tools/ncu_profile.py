#!/usr/bin/env python3
"""Nsight Compute counters for one step's kernels, printed as a short table.

tools/profile.sh is the entry point (`make profile STEP=06` runs it): it
checks for a GPU and finds ncu, then runs

  tools/ncu_profile.py run --ncu NCU STEP BINARY [step arguments...]

which, for each kernel variant of the step (the one --variant names, or all
of them), profiles one short run of the step program:

  ncu --clock-control none --csv --page raw --print-units base \\
      --kernel-name-base function --print-kernel-base function \\
      --kernel-name regex:transpose --metrics <tools/metrics.py's list> \\
      BINARY --check-only --variant NAME --rows 4096 --cols 4096

and prints one column per kernel and one row per metric, with the ratios
of tools/metrics.py after their inputs.

  tools/ncu_profile.py plan

prints what a full profiling session measures, one `STEP SHAPE BASELINES
VARIANT` line per run: every step of steps/NN_*/ at 4096x4096, and every
step and shape that a PROFILE table of the documentation shows (BASELINES is
1 where the table asks for the copy kernel and cuBLAS beside it:
`baselines=yes`; VARIANT is `-` for every variant of the step, or the one
the table names with `variant=`).

  tools/ncu_profile.py peers --ncu NCU [--lib LIB] [--csv PATH]

profiles the peers of tools/peers.py that the documentation's PROFILE
tables name (`peers=tutorial,torch.compile`), at their shapes: for each
peer and shape, one run of `tools/peers.py --once` under ncu, with the
peer's kernel-name pattern (its class's `kernels`) as the filter, so every
kernel ncu sees is that peer's.  The rows go to
docs/results/<gpu>-peers-profile.csv (`make peers-profile`), in the layout
of the step profiles, with `peers` in the step column.

  tools/ncu_profile.py peers-plan [FILE.md ...]

prints that plan (of the given documents, or of all of them), `SHAPE
PEER,PEER` per line, and exits 2 if a table names a peer that has no
kernel-name pattern or a shape with an offset (make test runs it; no GPU
needed).

The environment variables (PROFILE_CSV, PROFILE_CUBLAS, PROFILE_METRICS,
PROFILE_KERNEL, PROFILE_GPU) are described in tools/profile.sh.

Exit codes: 0 done; 1 a kernel gave a wrong result or ncu failed; 2 bad
command line; 3 the GPU's counters cannot be read, or the program could
not run.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile

import metrics
import results
from results import Shape

DEFAULT_SHAPE = Shape(4096, 4096)
DEFAULT_KERNEL_FILTER = "regex:transpose"
GPU_NAME_METRIC = "device__attribute_display_name"


class ProfileError(Exception):
    """Stop with a message and an exit code."""

    def __init__(self, message: str, code: int):
        super().__init__(message)
        self.code = code


def warn(message: str) -> None:
    print("warning: %s" % message, file=sys.stderr)


# ------------------------------------------------------------- the step program

def last_value(args: list[str], flag: str, default: str | None) -> str | None:
    """The value after the last occurrence of flag, or default."""
    value = default
    for i, arg in enumerate(args[:-1]):
        if arg == flag:
            value = args[i + 1]
    return value


def without(args: list[str], flags_with_value, flags) -> list[str]:
    """args minus the given flags (and the values of those that take one)."""
    out, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg in flags_with_value:
            skip = True
        elif arg not in flags:
            out.append(arg)
    return out


def requested_shape(args: list[str]) -> Shape:
    """The one shape the step arguments ask for (4096 x 4096 by default)."""
    shapes = last_value(args, "--shapes", None)
    try:
        if shapes is not None:
            if "," in shapes:
                raise ProfileError(
                    "profile one shape at a time, not --shapes %s" % shapes, 2)
            return Shape.parse(shapes)
        return Shape(
            int(last_value(args, "--rows", str(DEFAULT_SHAPE.rows))),
            int(last_value(args, "--cols", str(DEFAULT_SHAPE.cols))),
            int(last_value(args, "--offset", "0")),
        )
    except ValueError as err:
        raise ProfileError("bad shape in the step arguments: %s" % err, 2) from err


def program_args(args: list[str], shape: Shape) -> list[str]:
    """The step arguments to pass on: the shape, and what the user added.

    Timing options and the output format are dropped: under ncu every kernel
    runs once, with --check-only.  --rows/--cols/--offset are understood by
    every version of the harness.
    """
    kept = without(
        args,
        ("--reps", "--warmup", "--rows", "--cols", "--offset", "--shapes", "--variant",
         "--flush"),
        ("--check-only", "--csv", "--help", "-h"),
    )
    return ["--rows", str(shape.rows), "--cols", str(shape.cols),
            "--offset", str(shape.offset)] + kept


def step_variants(binary: str) -> list[tuple[str, int, str]]:
    """(name, min_cc, role) of every kernel of the step program, default first.

    `--list-variants` prints `name<TAB>min_cc<TAB>role<TAB>summary`, role
    being `kernel` or `bound` as in the bench CSV; a program that does not
    know it lists its kernels in --help instead (all of them role kernel).
    """
    listed = subprocess.run([binary, "--list-variants"], capture_output=True, text=True)
    if listed.returncode == 0 and "\t" in listed.stdout:
        variants = []
        for line in listed.stdout.splitlines():
            fields = line.split("\t")
            min_cc = fields[1] if len(fields) > 1 else ""
            role = fields[2] if len(fields) > 3 and fields[2] in results.ROLES else \
                results.ROLE_KERNEL
            variants.append((fields[0], int(min_cc) if min_cc.isdigit() else 0, role))
        return variants
    text = subprocess.run([binary, "--help"], capture_output=True, text=True).stdout
    names, listing = [], False
    for line in text.splitlines():
        if line.startswith("Kernels of this step"):
            listing = True
        elif listing and line.startswith("  ") and line.strip():
            names.append((line.split()[0], 0, results.ROLE_KERNEL))
        elif listing:
            break
    if not names:
        raise ProfileError("%s --help lists no kernels" % binary, 1)
    return names


def gpu_compute_capability() -> int | None:
    """10 * major + minor of the first GPU, or None if nvidia-smi cannot say."""
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"],
            capture_output=True, text=True,
        ).stdout
    except OSError:
        return None
    match = re.match(r"\s*(\d+)\.(\d)", out)
    return 10 * int(match.group(1)) + int(match.group(2)) if match else None


def gpu_name_from_smi() -> str:
    out = subprocess.run(
        ["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
        capture_output=True, text=True,
    ).stdout.splitlines()
    return out[0].strip() if out else "unknown GPU"


# ------------------------------------------------------------- running ncu

def base_name(metric: str) -> str:
    return metric.split(".")[0]


def unknown_metrics(log: str, asked: list[str]) -> list[str]:
    """The requested metrics that ncu said it could not find."""
    lines = [
        line for line in log.splitlines()
        if "Failed to find metric" in line or "Invalid metric" in line
    ]
    bad = []
    for metric in asked:
        pattern = r"(?<![A-Za-z0-9_])%s(?![A-Za-z0-9_])" % re.escape(base_name(metric))
        if any(re.search(pattern, line) for line in lines):
            bad.append(metric)
    return bad


class Profiler:
    """Runs the step program under ncu and remembers what ncu lacks."""

    def __init__(self, ncu: str, binary: str, metric_list: list[str]):
        self.ncu = ncu
        self.binary = binary
        self.metrics = list(metric_list)
        self.ask_gpu_name = True  # False once ncu turns out not to know GPU_NAME_METRIC

    def command(self, kernel_filter: str | None, args: list[str], log_path: str):
        asked = self.metrics + ([GPU_NAME_METRIC] if self.ask_gpu_name else [])
        cmd = [self.ncu, "--clock-control", "none", "--csv", "--page", "raw",
               "--print-units", "base", "--kernel-name-base", "function",
               "--print-kernel-base", "function", "--metrics", ",".join(asked),
               "--log-file", log_path]
        if kernel_filter:
            cmd += ["--kernel-name", kernel_filter]
        return cmd + [self.binary] + args, asked

    def drop_unknown(self, bad: list[str]) -> None:
        """Forget the metrics ncu does not know, asking for a fallback instead."""
        for metric in bad:
            if metric == GPU_NAME_METRIC:
                self.ask_gpu_name = False
                continue
            self.metrics.remove(metric)
            instead = metrics.FALLBACK.get(metric)
            if instead and instead not in self.metrics:
                warn("ncu does not know %s here; using %s instead" % (metric, instead))
                self.metrics.append(instead)
            else:
                warn("ncu does not know %s here; dropped" % metric)

    def run(self, kernel_filter: str | None, args: list[str], tag: str) -> list[dict]:
        """The launch rows of one profiled run; unknown metrics are dropped and
        the run repeated."""
        while True:
            with tempfile.TemporaryDirectory() as tmp:
                log_path = os.path.join(tmp, "ncu.csv")
                cmd, asked = self.command(kernel_filter, args, log_path)
                proc = subprocess.run(cmd, capture_output=True, text=True)
                log = ""
                if os.path.exists(log_path):
                    with open(log_path) as f:
                        log = f.read()
            everything = "\n".join((log, proc.stdout, proc.stderr))
            bad = unknown_metrics(everything, asked)
            if bad:
                self.drop_unknown(bad)
                continue
            check_run(proc, everything, self.binary, tag)
            rows = metrics.parse_ncu_raw_csv(log)
            if proc.returncode != 0 or not rows:
                errors = [
                    line.strip() for line in everything.splitlines()
                    if "==ERROR==" in line or line.startswith("error:")
                ]
                detail = "; ".join(errors[:3]) or "no kernel matched %s" % (
                    kernel_filter or "(any)")
                raise ProfileError("ncu profiled nothing for %s (exit %d): %s"
                                   % (tag, proc.returncode, detail), 1)
            return rows


def check_run(proc, everything: str, binary: str, tag: str) -> None:
    """Stop with the right exit code if the program could not run or was wrong."""
    if "ERR_NVGPUCTRPERM" in everything:
        raise ProfileError(
            "ncu may not read this GPU's performance counters (ERR_NVGPUCTRPERM): run "
            "as root or allow profiling for all users "
            "(NVreg_RestrictProfilingToAdminUsers=0)", 3)
    if proc.returncode == 3:
        first = next((line for line in proc.stderr.splitlines()
                      if line.startswith("error:")), "error: failed")
        raise ProfileError("%s under ncu (%s): %s"
                           % (binary, tag, first[len("error: "):]), 3)
    if proc.returncode == 1 and "==ERROR==" not in everything:
        sys.stderr.write(proc.stdout[-2000:] + proc.stderr[-2000:])
        raise ProfileError("%s gave a wrong result under ncu (%s)" % (binary, tag), 1)


def first_per_function(rows: list[dict]) -> list[tuple[str, dict]]:
    """The first launch of each kernel function, in launch order."""
    seen, out = set(), []
    for row in rows:
        name = row.get("Kernel Name", "?")
        if name not in seen:
            seen.add(name)
            out.append((name, row))
    return out


# ------------------------------------------------------------- the table

class Column:
    """One profiled kernel: a column of the table, rows of the CSV."""

    def __init__(self, kernel: str, role: str, function: str, values: dict):
        self.kernel = kernel      # the CSV's kernel: a variant, copy_kernel, cublas
        self.role = role          # results.ROLE_*
        self.function = function  # the kernel function ncu saw
        self.values = values      # ncu's row: metric -> text


def profile_variants(profiler, variants, shape_args, kernel_filter) -> list[Column]:
    """variants: (name, role) pairs; a bound keeps its role `bound` in the CSV."""
    columns = []
    for name, role in variants:
        launches = profiler.run(kernel_filter, ["--check-only", "--variant", name]
                                + shape_args, name)
        for i, (function, row) in enumerate(first_per_function(launches)):
            kernel = name if i == 0 else "%s:%s" % (name, function)
            columns.append(Column(kernel, role, function, row))
    return columns


# The harness's own kernels (common/timing_kernels.cu): the L2 flush and the
# hold that queues a batch of timed runs.  They are not baselines, and the
# hold must not be profiled: ncu stops the host at each profiled launch, so
# the host cannot release the hold, and it spins until its timeout.
HARNESS_KERNELS = ("flush_by_reading", "hold_until_released")
NOT_HARNESS = "regex:^(?!(%s)$)" % "|".join(HARNESS_KERNELS)


def profile_baselines(profiler, first_variant, shape_args, own) -> list[Column]:
    """The copy kernel and cuBLAS, from one timed run of the step program.

    ncu only sees function names, and the filter leaves out the harness's:
    every kernel that is neither the step's own nor the copy kernel is the
    library's (its name is printed so you can check).
    """
    launches = profiler.run(
        NOT_HARNESS, ["--variant", first_variant, "--reps", "1", "--warmup", "0"] + shape_args,
        "baselines")
    others = [(f, r) for f, r in first_per_function(launches) if f not in own]
    library = [(f, r) for f, r in others if "copy" not in f.lower()]
    columns = []
    for function, row in others:
        if "copy" in function.lower():
            columns.append(Column("copy_kernel", results.ROLE_COPY, function, row))
        else:
            kernel = "cublas" if len(library) == 1 else "cublas:%s" % function
            columns.append(Column(kernel, results.ROLE_LIBRARY, function, row))
    return columns


def gpu_column(columns) -> str:
    """The CSV's gpu cell: PROFILE_GPU, else the name ncu reported, else nvidia-smi's."""
    gpu = os.environ.get("PROFILE_GPU", "") or next(
        (c.values.get(GPU_NAME_METRIC, "").strip() for c in columns
         if c.values.get(GPU_NAME_METRIC, "").strip()), "") or gpu_name_from_smi()
    return gpu.replace(",", " ").replace('"', " ")


def clean(text) -> str:
    """A value as the CSV stores it: ncu's digits without thousands separators."""
    value = (text or "").strip()
    return value.replace(",", "") if results.number(value) is not None else value


def ratio_value(columns_row: dict, ratio: metrics.Ratio) -> str:
    a = results.number(columns_row.get(ratio.numerator))
    b = results.number(columns_row.get(ratio.denominator))
    return "%.2f" % (a / b) if a is not None and b else "-"


def grouped_order(collected: list[str]) -> list[str | None]:
    """The collected metrics in tools/metrics.py's groups, None between groups.

    A fallback takes the place of the metric it replaces.
    """
    order: list[str | None] = []
    for group in metrics.GROUPS:
        present = [m if m in collected else metrics.FALLBACK.get(m) for m in group]
        present = [m for m in present if m in collected]
        if present and order:
            order.append(None)
        order += present
    return order


def table_rows(columns: list[Column], collected: list[str], custom: bool):
    """(label, metric, [values]) in table order; a None entry is a blank line.

    Each ratio follows the later of its inputs.
    """
    order = list(collected) if custom else grouped_order(collected)
    table = []
    for metric in order:
        if metric is None:
            table.append(None)
            continue
        if metric not in collected:
            continue
        table.append((metrics.label(metric), metric,
                      [clean(c.values.get(metric)) for c in columns]))
        for ratio in metrics.RATIOS:
            inputs = (ratio.numerator, ratio.denominator)
            if all(m in collected for m in inputs) and metric == max(
                    inputs, key=order.index):
                table.append(("  " + metrics.label(ratio.name), ratio.name,
                              [ratio_value(c.values, ratio) for c in columns]))
    while table and table[-1] is None:
        table.pop()
    return table


def show(text: str) -> str:
    value = results.number(text)
    if value is None:
        return text or "-"
    if value == int(value) and abs(value) >= 1000:
        return "{:,}".format(int(value))
    if value == int(value):
        return "%d" % value
    return "%.2f" % value


def print_table(step: str, shape: Shape, gpu: str, columns, table) -> None:
    head = ["metric"] + [c.kernel for c in columns]
    body = [None if entry is None else [entry[0]] + [show(v) for v in entry[2]]
            for entry in table]
    widths = [max(len(row[i]) for row in [head] + [b for b in body if b])
              for i in range(len(head))]

    def line(cells):
        return "  ".join(c.ljust(widths[0]) if i == 0 else c.rjust(widths[i])
                         for i, c in enumerate(cells))

    print("Step %s at %s on %s: Nsight Compute, one launch per kernel, clocks not "
          "locked" % (step, shape.label(), gpu))
    print(line(head))
    for row in body:
        print(line(row) if row else "")
    print("\nncu names:")
    for entry in table:
        if entry is not None:
            label, metric = entry[0].strip(), entry[1]
            print("  %-44s %s" % (label, metrics.explain(metric).replace("`", "")))
    print("kernels:")
    for c in columns:
        print("  %-44s %s" % (c.kernel, c.function))


def write_profile_csv(path, gpu, step, shape, columns, table) -> int:
    """Add this run's rows to PROFILE_CSV, replacing an earlier run of the same
    kernels at the same shape.  Returns the number of rows written."""
    mine = {(gpu, step, c.kernel, shape) for c in columns}
    kept = []
    if os.path.exists(path) and os.path.getsize(path) > 0:
        kept = [r for r in results.load_profile(path)
                if (r["gpu"], r["step"], r["kernel"], results.shape_of(r)) not in mine]
    new = []
    for entry in table:
        if entry is None:
            continue
        for i, column in enumerate(columns):
            value = entry[2][i]
            if value not in ("", "-"):
                new.append({
                    "gpu": gpu, "step": step, "kernel": column.kernel,
                    "role": column.role, "rows": shape.rows, "cols": shape.cols,
                    "offset": shape.offset, "metric": entry[1], "value": value,
                })
    results.write_csv(path, results.PROFILE_COLUMNS, kept + new)
    return len(new)


# ------------------------------------------------------------- commands

def wanted_metrics() -> tuple[list[str], bool]:
    """(the metrics to collect, whether PROFILE_METRICS chose them)."""
    custom = os.environ.get("PROFILE_METRICS", "").strip()
    if custom:
        return [m.strip() for m in custom.split(",") if m.strip()], True
    return list(metrics.DEFAULT_METRICS), False


def runnable_variants(binary: str, wanted: str | None) -> list[tuple[str, str]]:
    """(name, role) of the variants to profile: the one asked for, or those this GPU can run."""
    listed = step_variants(binary)
    if wanted:
        return [next(((n, role) for n, _, role in listed if n == wanted),
                     (wanted, results.ROLE_KERNEL))]
    gpu_cc = gpu_compute_capability()
    names = []
    for name, min_cc, role in listed:
        if gpu_cc is not None and min_cc > gpu_cc:
            warn("%s needs compute capability %d.%d, this GPU is %d.%d: not profiled"
                 % (name, min_cc // 10, min_cc % 10, gpu_cc // 10, gpu_cc % 10))
        else:
            names.append((name, role))
    if not names:
        raise ProfileError("no kernel of %s runs on this GPU" % binary, 3)
    return names


def command_run(args) -> int:
    if not re.fullmatch(r"\d\d", args.step):
        raise ProfileError("bad step '%s': write two digits, e.g. 06" % args.step, 2)
    if not os.access(args.binary, os.X_OK):
        raise ProfileError("%s is missing: run 'make step%s' (make profile builds it)"
                           % (args.binary, args.step), 3)
    shape = requested_shape(args.args)
    shape_args = program_args(args.args, shape)
    variants = runnable_variants(args.binary, last_value(args.args, "--variant", None))
    collected, custom = wanted_metrics()
    profiler = Profiler(args.ncu, args.binary, collected)
    kernel_filter = os.environ.get("PROFILE_KERNEL") or DEFAULT_KERNEL_FILTER

    columns = profile_variants(profiler, variants, shape_args, kernel_filter)
    if os.environ.get("PROFILE_CUBLAS", "") not in ("", "0"):
        own = {c.function for c in columns}
        columns += profile_baselines(profiler, variants[0][0], shape_args, own)
    gpu = gpu_column(columns)

    table = table_rows(columns, profiler.metrics, custom)
    print_table(args.step, shape, gpu, columns, table)
    path = os.environ.get("PROFILE_CSV", "")
    if path:
        count = write_profile_csv(path, gpu, args.step, shape, columns, table)
        print("\n%d rows written to %s" % (count, path))
    return 0


ALL_VARIANTS = "-"   # the plan's VARIANT field when every variant is profiled


def profiling_plan(default_shape: Shape) -> list[tuple[str, Shape, bool, str]]:
    """(step, shape, with baselines, variant) of every run a full session profiles.

    Every step at the default shape, then every step and shape of a PROFILE
    table in the documentation; baselines where the table asks for them
    (beside its last step).  variant is ALL_VARIANTS, or the one variant a
    table asks for (`variant=answer`: a large shape, where each run of the
    program under ncu takes a minute).  Each (step, shape) is listed once;
    two tables that want different variants of it get them all.
    """
    import render_tables

    plan: dict = {}
    for step in results.step_dirs():
        plan[(step.number, default_shape)] = (False, ALL_VARIANTS)
    for steps, shape, baselines, variant in render_tables.profile_requests():
        for step in steps:
            with_baselines = baselines and step == steps[-1]
            wanted = variant or ALL_VARIANTS
            if (step, shape) in plan:
                had_baselines, had = plan[(step, shape)]
                with_baselines = with_baselines or had_baselines
                wanted = had if had == wanted else ALL_VARIANTS
            plan[(step, shape)] = (with_baselines, wanted)
    return [(step, shape, baselines, variant)
            for (step, shape), (baselines, variant) in plan.items()]


def command_plan(args) -> int:
    try:
        shape = Shape.parse(args.shape)
    except ValueError as err:
        raise ProfileError(str(err), 2) from err
    for step, step_shape, baselines, variant in profiling_plan(shape):
        print("%s %s %d %s" % (step, step_shape, 1 if baselines else 0, variant))
    return 0


def peer_profiling_plan(paths=None) -> list[tuple[Shape, list[str]]]:
    """(shape, peers) of every PROFILE table that names peers, merged by shape
    (paths: the documents to read, default all)."""
    import render_tables

    plan: dict = {}
    for shape, keys in render_tables.peer_profile_requests(paths):
        for key in keys:
            plan.setdefault(shape, [])
            if key not in plan[shape]:
                plan[shape].append(key)
    return list(plan.items())


def peer_patterns() -> dict:
    """{peer key: its kernel-name pattern}, for the peers that have one."""
    import peers   # tools/peers.py; imports Triton if it is there, not PyTorch

    return {cls.key: cls.kernels for cls in peers.PEERS if cls.kernels}


def profile_peer(profiler, lib: str, key: str, pattern: str, shape: Shape) -> list[Column]:
    """The kernels of one peer at one shape: one run of tools/peers.py --once."""
    script = os.path.join(results.ROOT, "tools", "peers.py")
    launches = profiler.run("regex:" + pattern,
                            [script, "--once", "--lib", lib, "--peers", key,
                             "--shapes", "%dx%d" % (shape.rows, shape.cols)],
                            "%s at %s" % (key, shape))
    role = results.ROLE_KERNEL if key == "tutorial" else results.ROLE_LIBRARY
    return [Column(key if i == 0 else "%s:%s" % (key, function), role, function, row)
            for i, (function, row) in enumerate(first_per_function(launches))]


def ncu_version(ncu: str) -> str:
    """The last line of `ncu --version`, e.g. "Version 2025.3.1.0 (build ...)"."""
    try:
        proc = subprocess.run([ncu, "--version"], capture_output=True, text=True)
    except OSError:
        return ""
    lines = proc.stdout.strip().splitlines()
    return lines[-1].strip() if lines else ""


def write_peers_env(path: str, gpu: str, ncu: str, plan, patterns) -> None:
    """<gpu>-peers-profile-env.txt: what ran, where and when, as `key: value` lines."""
    import datetime

    now = datetime.datetime.now(datetime.timezone.utc)
    lines = ["gpu: %s" % gpu,
             "date_utc: %s" % now.strftime("%Y-%m-%d %H:%M"),
             "command: make peers-profile (tools/ncu_profile.py peers)",
             "ncu: %s, clocks not locked (--clock-control none)" % ncu_version(ncu),
             "shapes: %s" % ", ".join(str(shape) for shape, _ in plan)]
    keys = dict.fromkeys(key for _, shape_keys in plan for key in shape_keys)
    lines += ["%s: kernels matching %s" % (key, patterns[key]) for key in keys]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def checked_peer_plan(paths=None) -> tuple[list[tuple[Shape, list[str]]], dict]:
    """(the peers' plan, {peer: pattern}), or ProfileError (exit 2) when a
    table asks for what cannot be profiled."""
    patterns = peer_patterns()
    plan = peer_profiling_plan(paths)
    if not plan:
        raise ProfileError("no PROFILE table of the documentation names peers=", 2)
    for shape, keys in plan:
        if shape.offset:
            raise ProfileError("tools/peers.py takes no offset: %s" % shape, 2)
        for key in keys:
            if key not in patterns:
                raise ProfileError("peer '%s' cannot be profiled: it has no kernel-name "
                                   "pattern (`kernels` in tools/peers.py); those that do: %s"
                                   % (key, ", ".join(sorted(patterns))), 2)
    return plan, patterns


def command_peers_plan(args) -> int:
    plan, _ = checked_peer_plan([os.path.relpath(os.path.abspath(f), results.ROOT)
                                 for f in args.files])
    for shape, keys in plan:
        print("%s %s" % (shape, ",".join(keys)))
    return 0


def command_peers(args) -> int:
    import peers as peer_table   # tools/peers.py: its slug() names the file

    plan, patterns = checked_peer_plan()
    if not os.path.exists(args.lib):
        raise ProfileError("%s is missing: run 'make peers-lib' (make peers-profile "
                           "builds it)" % args.lib, 3)
    collected, custom = wanted_metrics()
    profiler = Profiler(args.ncu, sys.executable, collected)
    for shape, keys in plan:
        columns = []
        for key in keys:
            columns += profile_peer(profiler, os.path.abspath(args.lib), key,
                                    patterns[key], shape)
        gpu = gpu_column(columns)
        table = table_rows(columns, profiler.metrics, custom)
        print_table(results.PEERS_STEP, shape, gpu, columns, table)
        path = args.csv or os.path.join(results.ROOT, "docs", "results",
                                        "%s-peers-profile.csv" % peer_table.slug(gpu))
        count = write_profile_csv(path, gpu, results.PEERS_STEP, shape, columns, table)
        print("\n%d rows written to %s\n" % (count, path))
    write_peers_env(re.sub(r"\.csv$", "", path) + "-env.txt", gpu, args.ncu, plan, patterns)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description="Nsight Compute counters of a step's kernels "
                    "(see tools/profile.sh).")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("run", help="profile the kernels of one step program")
    p.add_argument("--ncu", required=True, help="the ncu program")
    p.add_argument("step", help="the step's two-digit number")
    p.add_argument("binary", help="the step program, e.g. build/step06")
    p.add_argument("args", nargs=argparse.REMAINDER,
                   help="the step program's arguments")
    p.set_defaults(handler=command_run)
    p = sub.add_parser("plan", help="print what a full profiling session measures")
    p.add_argument("--shape", default=str(DEFAULT_SHAPE),
                   help="every step's shape (default %s)" % DEFAULT_SHAPE)
    p.set_defaults(handler=command_plan)
    p = sub.add_parser("peers", help="profile the peers the documentation's tables name")
    p.add_argument("--ncu", required=True, help="the ncu program")
    p.add_argument("--lib", default=os.path.join(results.ROOT, "build", "peers",
                                                 "libtutorial.so"),
                   help="the tutorial's shared library (default build/peers/libtutorial.so)")
    p.add_argument("--csv", default="",
                   help="the file to write (default docs/results/<gpu>-peers-profile.csv)")
    p.set_defaults(handler=command_peers)
    p = sub.add_parser("peers-plan", help="print (and check) what `peers` profiles: "
                       "SHAPE PEER,PEER per line")
    p.add_argument("files", nargs="*",
                   help="Markdown files to read (default: the documentation)")
    p.set_defaults(handler=command_peers_plan)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.handler(args)
    except (ProfileError, results.ResultsError) as err:
        print("error: %s" % err, file=sys.stderr)
        return getattr(err, "code", 2)


if __name__ == "__main__":
    sys.exit(main())
