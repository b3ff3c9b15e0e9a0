#!/usr/bin/env bash
# Nsight Compute counters for one step's kernels, printed as a short table.
#
#   make profile STEP=06                                  (builds the step first)
#   make profile STEP=07 ARGS="--rows 8192 --cols 8192 --variant shared_padded"
#   PROFILE_CUBLAS=1 make profile STEP=09                 (cuBLAS and the copy kernel too)
#   PROFILE_CSV=docs/results/h200-profile.csv make profile STEP=06
#   tools/profile.sh STEP BINARY [step arguments...]      (what make runs)
#   tools/profile.sh --check-env                          (exit 3 unless a GPU and ncu are here)
#
# For each kernel variant of the step (the one --variant names, or all of
# them), one short run of the step program under Nsight Compute:
#
#   ncu --clock-control none --csv --page raw --print-units base \
#       --kernel-name-base function --print-kernel-base function \
#       --kernel-name regex:transpose --metrics <the list below> \
#       build/stepNN --check-only --variant NAME --rows 4096 --cols 4096
#
# --check-only runs each kernel exactly once, with no timing loop and no
# baselines, so the run is short. The shape defaults to 4096 x 4096; ARGS
# override it. ncu never changes the GPU's clocks here (--clock-control
# none): the counters are taken at the clocks the benchmarks run at.
#
# The table has one column per kernel and one row per metric; a legend
# under it gives every metric's exact ncu name. Besides ncu's metrics it
# shows four ratios computed from them (named without "__", so that they
# cannot be mistaken for ncu metrics):
#   global_ld_sectors_per_request   l1tex__t_sectors_..._op_ld / l1tex__t_requests_..._op_ld
#   global_st_sectors_per_request   the same for stores (4 = fully coalesced 4-byte accesses)
#   shared_ld_wavefronts_per_request  shared load wavefronts / shared load instructions
#   shared_st_wavefronts_per_request  the same for stores (1 = no bank conflict, 32 = 32-way)
#
# Environment:
#   PROFILE_CSV=path   also write rows gpu,step,kernel,rows,cols,metric,value to
#                      this file (created with a header if new); rows of an
#                      earlier run of the same gpu, step, kernel and shape are
#                      replaced. `kernel` is the variant name, or copy_kernel and
#                      cublas for the baselines.
#   PROFILE_CUBLAS=1   also profile the baselines: one timed run of the step
#                      (--reps 1 --warmup 0) with no kernel filter; every kernel
#                      that is neither the step's own nor the copy kernel is
#                      cuBLAS's (its function name is printed so you can check).
#   PROFILE_METRICS    a comma-separated metric list instead of the default one
#   PROFILE_KERNEL     ncu's filter for the step's kernels (default regex:transpose)
#   PROFILE_GPU        the gpu column (default: the GPU's name as ncu reports it)
#   NCU                the ncu program (default: ncu on PATH, then $CUDA_HOME/bin,
#                      /usr/local/cuda/bin, /opt/nvidia/nsight-compute/*)
# A metric that this ncu or GPU does not know is dropped with a warning, and
# dram__throughput falls back to gpu__dram_throughput.
#
# Exit codes: 0 done; 1 a kernel gave a wrong result or ncu failed;
# 2 bad command line; 3 no GPU, no ncu, no python3 or no access to the
# GPU's performance counters.
set -u -o pipefail

die() { echo "error: $1" >&2; exit "${2:-3}"; }

# shellcheck source=tools/cuda_env.sh
. "$(dirname "$0")/cuda_env.sh"

# One line and exit 3 when this machine cannot profile at all.
check_env() {
    require_nvidia_gpu "make profile needs a GPU and Nsight Compute"
    NCU_BIN=$(find_cuda_tool ncu "${NCU:-}" /opt/nvidia/nsight-compute/*/ncu) \
        || die "Nsight Compute (ncu) not found: install it with the CUDA toolkit, put it on PATH or set NCU=/path/to/ncu"
    command -v python3 >/dev/null 2>&1 \
        || die "python3 not found: tools/profile.sh formats ncu's output with it"
}

if [ "${1:-}" = "--check-env" ]; then
    check_env
    exit 0
fi
[ $# -ge 2 ] || die "usage: tools/profile.sh STEP BINARY [step arguments...] (or: make profile STEP=06)" 2
STEP=$1 BIN=$2
shift 2
[[ $STEP =~ ^[0-9][0-9]$ ]] || die "bad step '$STEP': write two digits, e.g. 06" 2
check_env
[ -x "$BIN" ] || die "$BIN is missing: run 'make step$STEP' (make profile builds it)"

export NCU_BIN STEP BIN
exec python3 - "$@" <<'PYTHON'
import csv, os, re, subprocess, sys, tempfile

NCU, STEP, BIN = os.environ["NCU_BIN"], os.environ["STEP"], os.environ["BIN"]
ARGS = sys.argv[1:]

# (label, metric) in table order; "" separates groups.
METRICS = [
    ("global load sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
    ("global load requests", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"),
    ("global store sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"),
    ("global store requests", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"),
    ("", ""),
    ("shared load instructions", "smsp__sass_inst_executed_op_shared_ld.sum"),
    ("shared load wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
    ("shared load bank conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
    ("shared load bank conflicts (SASS)", "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
    ("shared store instructions", "smsp__sass_inst_executed_op_shared_st.sum"),
    ("shared store wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"),
    ("shared store bank conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"),
    ("shared store bank conflicts (SASS)", "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"),
    ("", ""),
    ("DRAM bytes read", "dram__bytes_read.sum"),
    ("DRAM bytes written", "dram__bytes_write.sum"),
    ("DRAM throughput, % of peak", "dram__throughput.avg.pct_of_peak_sustained_elapsed"),
    ("L1 hit rate %", "l1tex__t_sector_hit_rate.pct"),
    ("L2 hit rate %", "lts__t_sector_hit_rate.pct"),
    ("L2 sectors read", "lts__t_sectors_op_read.sum"),
    ("L2 sectors written", "lts__t_sectors_op_write.sum"),
    ("", ""),
    ("cp.async instructions", "smsp__inst_executed_op_ldgsts.sum"),
    ("stall: long scoreboard (cycles/instr)", "smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio"),
    ("stall: barrier (cycles/instr)", "smsp__average_warp_latency_issue_stalled_barrier.ratio"),
    ("SM active cycles (avg)", "smsp__cycles_active.avg"),
    ("", ""),
    ("achieved occupancy %", "sm__warps_active.avg.pct_of_peak_sustained_active"),
    ("theoretical occupancy %", "sm__maximum_warps_per_active_cycle_pct"),
    ("registers per thread", "launch__registers_per_thread"),
    ("static shared memory per block", "launch__shared_mem_per_block_static"),
    ("dynamic shared memory per block", "launch__shared_mem_per_block_dynamic"),
    ("grid size (blocks)", "launch__grid_size"),
    ("block size (threads)", "launch__block_size"),
    ("threads launched", "launch__thread_count"),
]
# Ratios shown after their inputs: name -> (label, numerator, denominator, shown after)
RATIOS = [
    ("global_ld_sectors_per_request", "  sectors / load request",
     "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"),
    ("global_st_sectors_per_request", "  sectors / store request",
     "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"),
    ("shared_ld_wavefronts_per_request", "  wavefronts / shared load",
     "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "smsp__sass_inst_executed_op_shared_ld.sum"),
    ("shared_st_wavefronts_per_request", "  wavefronts / shared store",
     "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "smsp__sass_inst_executed_op_shared_st.sum"),
]
FALLBACK = {"dram__throughput.avg.pct_of_peak_sustained_elapsed":
            "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"}
GPU_NAME_METRIC = "device__attribute_display_name"


def fail(message, code):
    sys.stderr.write("error: %s\n" % message)
    sys.exit(code)


def warn(message):
    sys.stderr.write("warning: %s\n" % message)


def last_value(args, flag, default):
    value = default
    for i, a in enumerate(args[:-1]):
        if a == flag:
            value = args[i + 1]
    return value


def without(args, flags_with_value, flags):
    """args minus the given flags (and the values of those that take one)."""
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a in flags_with_value:
            skip = True
        elif a not in flags:
            out.append(a)
    return out


def step_variants():
    """The variant names the step program lists in --help."""
    text = subprocess.run([BIN, "--help"], capture_output=True, text=True).stdout
    names, listing = [], False
    for line in text.splitlines():
        if line.startswith("Kernels of this step"):
            listing = True
        elif listing and line.startswith("  ") and line.strip():
            names.append(line.split()[0])
        elif listing:
            break
    if not names:
        fail("%s --help lists no kernels" % BIN, 1)
    return names


def base_name(metric):
    return metric.split(".")[0]


def unknown_metrics(log, metrics):
    """The requested metrics that ncu said it could not find."""
    lines = [l for l in log.splitlines() if "Failed to find metric" in l or "Invalid metric" in l]
    bad = []
    for m in metrics:
        pattern = r"(?<![A-Za-z0-9_])%s(?![A-Za-z0-9_])" % re.escape(base_name(m))
        if any(re.search(pattern, l) for l in lines):
            bad.append(m)
    return bad


def parse_raw_csv(text):
    """Rows of ncu's --page raw --csv output as dicts, units row skipped."""
    lines = text.splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID"')), None)
    if start is None:
        return []
    rows = list(csv.DictReader(lines[start:]))
    return [r for r in rows if (r.get("ID") or "").strip() not in ("", "ID")]


def run_ncu(metrics, kernel_filter, program_args, tag):
    """Profile one run of the step program.

    Returns (launch rows, metrics kept): a metric ncu does not know is
    dropped (or replaced by its FALLBACK) and the run is repeated.
    """
    metrics = list(metrics)
    while True:
        asked = metrics + ([GPU_NAME_METRIC] if STATE["gpu_name_metric"] else [])
        with tempfile.TemporaryDirectory() as tmp:
            log_path = os.path.join(tmp, "ncu.csv")
            cmd = [NCU, "--clock-control", "none", "--csv", "--page", "raw", "--print-units", "base",
                   "--kernel-name-base", "function", "--print-kernel-base", "function",
                   "--metrics", ",".join(asked), "--log-file", log_path]
            if kernel_filter:
                cmd += ["--kernel-name", kernel_filter]
            proc = subprocess.run(cmd + [BIN] + program_args, capture_output=True, text=True)
            log = open(log_path).read() if os.path.exists(log_path) else ""
        everything = "\n".join((log, proc.stdout, proc.stderr))
        bad = unknown_metrics(everything, asked)
        if bad:
            for m in bad:
                if m == GPU_NAME_METRIC:
                    STATE["gpu_name_metric"] = False
                    continue
                metrics.remove(m)
                if m in FALLBACK and FALLBACK[m] not in metrics:
                    warn("ncu does not know %s here; using %s instead" % (m, FALLBACK[m]))
                    metrics.append(FALLBACK[m])
                else:
                    warn("ncu does not know %s here; dropped" % m)
            continue
        if "ERR_NVGPUCTRPERM" in everything:
            fail("ncu may not read this GPU's performance counters (ERR_NVGPUCTRPERM): run as root "
                 "or allow profiling for all users (NVreg_RestrictProfilingToAdminUsers=0)", 3)
        if proc.returncode == 3:
            first = next((l for l in proc.stderr.splitlines() if l.startswith("error:")), "error: failed")
            fail("%s under ncu (%s): %s" % (BIN, tag, first[len("error: "):]), 3)
        if proc.returncode == 1 and "==ERROR==" not in everything:
            sys.stderr.write(proc.stdout[-2000:] + proc.stderr[-2000:])
            fail("%s gave a wrong result under ncu (%s)" % (BIN, tag), 1)
        rows = parse_raw_csv(log)
        if proc.returncode != 0 or not rows:
            errors = [l.strip() for l in everything.splitlines() if "==ERROR==" in l or l.startswith("error:")]
            detail = "; ".join(errors[:3]) or "no kernel matched %s" % (kernel_filter or "(any)")
            fail("ncu profiled nothing for %s (exit %d): %s" % (tag, proc.returncode, detail), 1)
        return rows, metrics


STATE = {"gpu_name_metric": True}   # False once ncu turns out not to know GPU_NAME_METRIC


def first_per_function(rows):
    """The first launch of each kernel function, in launch order."""
    seen, out = set(), []
    for r in rows:
        name = r.get("Kernel Name", "?")
        if name not in seen:
            seen.add(name)
            out.append((name, r))
    return out


def number(text):
    try:
        return float(str(text).replace(",", ""))
    except (TypeError, ValueError):
        return None


def clean(text):
    """A metric value as the CSV stores it: ncu's digits without thousands separators."""
    value = (text or "").strip()
    return value.replace(",", "") if number(value) is not None else value


def show(text):
    value = number(text)
    if value is None:
        return text or "-"
    if value == int(value) and abs(value) >= 1000:
        return "{:,}".format(int(value))
    if value == int(value):
        return "%d" % value
    return "%.2f" % value


def main():
    args = without(ARGS, ("--reps", "--warmup"), ("--check-only", "--csv", "--help", "-h"))
    rows = last_value(args, "--rows", "4096")
    cols = last_value(args, "--cols", "4096")
    args = ["--rows", rows, "--cols", cols] + without(args, ("--rows", "--cols", "--variant"), ())
    wanted = last_value(ARGS, "--variant", None)
    variants = [wanted] if wanted else step_variants()
    custom = os.environ.get("PROFILE_METRICS", "").strip()
    metrics = [m.strip() for m in custom.split(",") if m.strip()] if custom else [m for _, m in METRICS if m]
    kernel_filter = os.environ.get("PROFILE_KERNEL") or "regex:transpose"

    columns = []  # (label, function, {metric: value})
    own_functions = set()
    gpu = os.environ.get("PROFILE_GPU", "")
    for v in variants:
        launches, metrics = run_ncu(metrics, kernel_filter, ["--check-only", "--variant", v] + args, v)
        for i, (function, r) in enumerate(first_per_function(launches)):
            own_functions.add(function)
            columns.append((v if i == 0 else "%s:%s" % (v, function), function, r))
            gpu = gpu or (r.get(GPU_NAME_METRIC) or "").strip()
    if os.environ.get("PROFILE_CUBLAS", "") not in ("", "0"):
        launches, metrics = run_ncu(metrics, None,
                                    ["--variant", variants[0], "--reps", "1", "--warmup", "0"] + args,
                                    "baselines")
        others = [(f, r) for f, r in first_per_function(launches) if f not in own_functions]
        library = [(f, r) for f, r in others if "copy" not in f.lower()]
        for f, r in others:
            if "copy" in f.lower():
                label = "copy_kernel"
            else:
                label = "cublas" if len(library) == 1 else "cublas:%s" % f
            columns.append((label, f, r))
    if not gpu:
        gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                             capture_output=True, text=True).stdout.splitlines()[0].strip()
    gpu = gpu.replace(",", " ").replace('"', " ")

    # Rows of the table: ncu's metrics in the order above (a fallback takes
    # the place of the metric it replaces), each ratio after its inputs.
    labels = {m: l for l, m in METRICS if m}
    order = [m for _, m in METRICS] if not custom else list(metrics)
    for m, fallback in FALLBACK.items():
        labels.setdefault(fallback, labels.get(m, fallback))
        order = [fallback if x == m and m not in metrics else x for x in order]
    table = []  # (label, key, [values]); an empty label is a blank line
    for m in order:
        if not m:
            table.append(("", "", []))
        elif m in metrics:
            table.append((labels.get(m, m), m, [clean(r.get(m)) for _, _, r in columns]))
            for name, label, num, den in RATIOS:
                if num in metrics and den in metrics and m == max(num, den, key=order.index):
                    values = []
                    for _, _, r in columns:
                        a, b = number(r.get(num)), number(r.get(den))
                        values.append("%.2f" % (a / b) if a is not None and b else "-")
                    table.append((label, name, values))
    while table and not table[-1][0]:
        table.pop()

    head = ["metric"] + [c[0] for c in columns]
    body = [[label] + [show(v) for v in values] if label else [] for label, _, values in table]
    widths = [max(len(row[i]) for row in [head] + [b for b in body if b]) for i in range(len(head))]
    print("Step %s at %s x %s on %s: Nsight Compute, one launch per kernel, clocks not locked"
          % (STEP, rows, cols, gpu))
    print("  ".join(h.ljust(widths[0]) if i == 0 else h.rjust(widths[i]) for i, h in enumerate(head)))
    for row in body:
        print("  ".join(c.ljust(widths[0]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(row))
              if row else "")
    print("\nncu names:")
    for label, key, _ in table:
        if key and "__" in key:
            print("  %-36s %s" % (label.strip(), key))
    print("kernels:")
    for label, function, _ in columns:
        print("  %-36s %s" % (label, function))

    path = os.environ.get("PROFILE_CSV", "")
    if path:
        header = ["gpu", "step", "kernel", "rows", "cols", "metric", "value"]
        mine = {(gpu, STEP, c[0], rows, cols) for c in columns}
        kept = []
        if os.path.exists(path) and os.path.getsize(path) > 0:
            with open(path, newline="") as f:
                kept = [r for r in csv.DictReader(f)
                        if (r["gpu"], r["step"], r["kernel"], r["rows"], r["cols"]) not in mine]
        new = []
        for label, key, values in table:
            if key:
                for (kernel, _, _), value in zip(columns, values):
                    if value not in ("", "-"):
                        new.append(dict(zip(header, [gpu, STEP, kernel, rows, cols, key, value])))
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=header, lineterminator="\n")
            w.writeheader()
            w.writerows(kept + new)
        print("\n%d rows written to %s" % (len(new), path))


main()
PYTHON
