#!/usr/bin/env python3
"""Fill the generated result tables in README.md and docs/**/*.md.

Every number in the documentation comes from the committed result files in
docs/results/; nobody types one by hand.  A document asks for a table with
a pair of marker lines, and this script replaces whatever lies between them:

  <!-- BEGIN TABLE steps=03,04 shapes=8192x8192,4096x4096 [gpu=h200] -->
  <!-- END TABLE -->
      for each shape: the copy bound, cuBLAS, then every kernel of the listed
      steps, with median ms, GB/s, % of copy, vs cuBLAS and the check.
      The baselines are those of the FIRST listed step's run at that shape;
      the ratios of every row are the ones its own run printed.
  <!-- BEGIN PROFILE steps=06,07 shape=4096x4096 metrics=a,b,c [gpu=h200] -->
  <!-- END PROFILE -->
      kernels x Nsight Compute metrics, from <gpu>-profile.csv.
  <!-- BEGIN LADDER shape=8192x8192 [gpu=h200] -->
  <!-- END LADDER -->
      one row per step (its default kernel), plus the baselines.
  <!-- BEGIN PEERS [shapes=...] [gpu=h200] -->
  <!-- END PEERS -->
  <!-- BEGIN BAR step=10 [gpu=h200] -->
  <!-- END BAR -->
      (the performance bar of the last step: each criterion, the measured
      value of the step's default kernel, and whether it is met)
      PyTorch and CuPy against the copy bound, from <gpu>-peers.csv.

Marker lines must stand alone on their line; markers inside fenced code
blocks are left alone, so documents can show the syntax.

Usage: tools/render_tables.py [--gpu h200] [--check] [FILE.md ...]
  --check   change nothing; exit 1 if any file would change (for make test).
Exit codes: 0 done (or up to date), 1 out of date (--check), 2 bad marker.
"""
import argparse
import csv
import glob
import math
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = "docs/results"
BASELINES = ("memcpy", "copy_kernel", "cublas")
KINDS = ("TABLE", "PROFILE", "LADDER", "PEERS", "BAR")
BEGIN = re.compile(r"^\s*<!-- BEGIN (%s)\b(.*?)-->\s*$" % "|".join(KINDS))
END = re.compile(r"^\s*<!-- END (%s) -->\s*$" % "|".join(KINDS))
FENCE = re.compile(r"^\s*(```|~~~)")

# Short column labels for the Nsight Compute metrics the write-ups use.
# A metric not listed here is shown by its full name.
METRIC_LABELS = {
    "global_ld_sectors_per_request": "load sectors / request",
    "global_st_sectors_per_request": "store sectors / request",
    "shared_ld_wavefronts_per_request": "shared load wavefronts / instruction",
    "shared_st_wavefronts_per_request": "shared store wavefronts / instruction",
    "smsp__sass_inst_executed_op_shared_ld.sum": "shared load instructions",
    "smsp__sass_inst_executed_op_shared_st.sum": "shared store instructions",
    "gpu__time_duration.sum": "duration",
    "dram__bytes_read.sum": "DRAM read",
    "dram__bytes_write.sum": "DRAM write",
    "dram__bytes.sum": "DRAM bytes",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed": "DRAM % of peak",
    "l1tex__t_sector_hit_rate.pct": "L1 hit rate %",
    "lts__t_sector_hit_rate.pct": "L2 hit rate %",
    "lts__t_sectors_op_read.sum": "L2 read sectors",
    "lts__t_sectors_op_write.sum": "L2 write sectors",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": "global load requests",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": "global load sectors",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": "global store requests",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": "global store sectors",
    "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio": "sectors / load request",
    "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_st.ratio": "sectors / store request",
    "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": "shared load bank conflicts",
    "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": "shared store bank conflicts",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": "shared load bank conflicts",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": "shared store bank conflicts",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": "shared load wavefronts",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": "shared store wavefronts",
    "smsp__inst_executed_op_shared_ld.sum": "shared load instructions",
    "smsp__inst_executed_op_shared_st.sum": "shared store instructions",
    "smsp__inst_executed_op_global_ld.sum": "global load instructions",
    "smsp__inst_executed_op_global_st.sum": "global store instructions",
    "smsp__inst_executed.sum": "instructions",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed": "SM % of peak",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "achieved occupancy %",
    "launch__registers_per_thread": "registers / thread",
    "launch__occupancy_limit_registers": "block limit (registers)",
    "launch__occupancy_limit_shared_mem": "block limit (shared memory)",
    "launch__shared_mem_per_block_static": "static shared memory / block",
}


class MarkerError(Exception):
    """A marker the script cannot understand: reported as file:line."""


# ------------------------------------------------------------- reading data

def read_csv(path):
    """Rows of a CSV as dicts, or None when the file does not exist."""
    full = os.path.join(ROOT, path)
    if not os.path.isfile(full):
        return None
    with open(full, newline="") as f:
        return [row for row in csv.DictReader(f) if row.get("gpu")]


def read_env(gpu, stem):
    """The key: value lines of <stem>-env.txt, else of <gpu>-env.txt."""
    for name in (stem + "-env.txt", gpu + "-env.txt"):
        full = os.path.join(ROOT, RESULTS, name)
        if os.path.isfile(full):
            env = {}
            with open(full) as f:
                for line in f:
                    key, sep, value = line.partition(":")
                    if sep:
                        env[key.strip()] = value.strip()
            return env
    return {}


class Results:
    """One GPU's committed result files, loaded on first use."""

    def __init__(self, gpu):
        self.gpu = gpu
        self._cache = {}

    def load(self, stem):
        """(rows or None, csv path, provenance line) for docs/results/<stem>.csv."""
        if stem not in self._cache:
            path = "%s/%s.csv" % (RESULTS, stem)
            rows = read_csv(path)
            env = read_env(self.gpu, stem)
            name = env.get("gpu") or (rows[0]["gpu"] if rows else self.gpu)
            when = env.get("date_utc")
            origin = "%s, %s UTC" % (name, when) if when else name
            line = ("*Generated by tools/render_tables.py from %s (%s); do not edit by hand.*"
                    % (path, origin))
            self._cache[stem] = (rows, path, line)
        return self._cache[stem]

    def bench(self):
        """Bench rows grouped by run: {(step, rows, cols): [row, ...]} in CSV order."""
        rows, path, line = self.load(self.gpu)
        runs = {}
        for row in rows or []:
            runs.setdefault((row["step"], row["rows"], row["cols"]), []).append(row)
        return rows, runs, path, line


# ------------------------------------------------------------- formatting

def number(text):
    """The float in a CSV cell, or None."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if value == value else None  # NaN -> None


def fmt_ms(text):
    value = number(text)
    if value is None:
        return text or "-"
    for limit, digits in ((100, 1), (10, 2), (1, 3), (0.1, 4)):
        if value >= limit:
            return "%.*f" % (digits, value)
    return "%.5f" % value


def fmt_gbps(text):
    value = number(text)
    return "%.0f" % value if value is not None else (text or "-")


def fmt_pct(text):
    value = number(text)
    return "%.1f %%" % value if value is not None else (text or "-")


def fmt_ratio(text):
    value = number(text)
    return "%.2fx" % value if value is not None else (text or "-")


def fmt_metric(text):
    value = number(text)
    if value is None:
        return text or "-"
    if value == int(value) and abs(value) >= 1:
        return "{:,}".format(int(value))
    return "%.3g" % value if abs(value) < 100 else "{:,.1f}".format(value)


def shape_label(rows, cols):
    return "%s x %s" % (rows, cols)


def table(header, body):
    """A Markdown table; numeric-looking columns are right-aligned."""
    align = ["---"] + ["--:" if h not in ("kernel", "library", "op", "check", "step") else "---"
                       for h in header[1:]]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(cells) + " |" for cells in body]
    return lines


def kernel_rows(run):
    return [r for r in run if r["kernel"] not in BASELINES]


def default_kernels(runs):
    """{step: name of its default kernel}: the first kernel row of its runs."""
    defaults = {}
    for (step, _, _), run in runs.items():
        kernels = kernel_rows(run)
        if kernels and step not in defaults:
            defaults[step] = kernels[0]["kernel"]
    return defaults


def kernel_label(step, kernel, default):
    if kernel == default or default is None:
        return "%s %s" % (step, kernel)
    return "%s %s (--variant %s)" % (step, default, kernel)


def baselines(run):
    """(copy-bound row, cublas row) of one run; either may be None."""
    copies = [r for r in run if r["kernel"] in ("memcpy", "copy_kernel")]
    best = max(copies, key=lambda r: number(r["gbps"]) or 0.0) if copies else None
    cublas = next((r for r in run if r["kernel"] == "cublas"), None)
    return best, cublas


def measured_cells(row):
    return [fmt_ms(row["median_ms"]), fmt_gbps(row["gbps"]), fmt_pct(row["pct_of_copy"]),
            fmt_ratio(row["vs_cublas"]), row.get("check") or "-"]


def baseline_body(run, first_cell):
    """Rows for the copy bound and cuBLAS of one run."""
    best, cublas = baselines(run)
    body = []
    if best is not None:
        body.append([first_cell, "copy bound (%s)" % best["kernel"]] + measured_cells(best))
        first_cell = ""
    if cublas is not None:
        body.append([first_cell, "cuBLAS cublasSgeam"] + measured_cells(cublas))
    return body


def missing(gpu, path):
    return ["*No results committed yet for %s (%s is missing).*" % (gpu, path)]


# ------------------------------------------------------------- the blocks

def split_list(params, key, where, required=True):
    value = params.get(key)
    if value is None:
        if required:
            raise MarkerError("%s: missing %s=" % (where, key))
        return []
    items = [v for v in value.split(",") if v]
    if key in ("steps",):
        for v in items:
            if not re.fullmatch(r"\d\d", v):
                raise MarkerError("%s: step '%s' is not two digits" % (where, v))
    if key in ("shapes", "shape"):
        for v in items:
            if not re.fullmatch(r"\d+x\d+", v):
                raise MarkerError("%s: shape '%s' is not ROWSxCOLS" % (where, v))
    return items


def render_table(results, params, where):
    steps = split_list(params, "steps", where)
    shapes = split_list(params, "shapes", where)
    rows, runs, path, line = results.bench()
    if rows is None:
        return missing(results.gpu, path)
    defaults = default_kernels(runs)
    body = []
    for shape in shapes:
        r, c = shape.split("x")
        first = shape_label(r, c)
        # baselines from the first listed step that was run at this shape
        base_step = next((s for s in steps if (s, r, c) in runs), None)
        if base_step is None:
            body.append([first, "not measured", "-", "-", "-", "-", "-"])
            continue
        base = baseline_body(runs[(base_step, r, c)], first)
        if base_step != steps[0]:
            for cells in base:
                cells[1] += " (step %s run)" % base_step
        body += base
        for step in steps:
            run = runs.get((step, r, c))
            if run is None:
                body.append(["", "%s not measured" % step, "-", "-", "-", "-", "-"])
                continue
            for row in kernel_rows(run):
                body.append(["", kernel_label(step, row["kernel"], defaults.get(step))]
                            + measured_cells(row))
    note = ("Copy bound and cuBLAS: measured by the step %s program at each shape. Each row's "
            "%% of copy and vs cuBLAS come from its own run." % steps[0])
    return [line, "", note, ""] + table(
        ["shape", "kernel", "median ms", "GB/s", "% of copy", "vs cuBLAS", "check"], body)


def render_ladder(results, params, where, doc_dir):
    shape = split_list(params, "shape", where)[0]
    r, c = shape.split("x")
    rows, runs, path, line = results.bench()
    if rows is None:
        return missing(results.gpu, path)
    steps = sorted({s for (s, rr, cc) in runs if (rr, cc) == (r, c)})
    if not steps:
        return [line, "", "*No run at %s in %s.*" % (shape_label(r, c), path)]
    body = baseline_body(runs[(steps[0], r, c)], "")
    for step in steps:
        kernels = kernel_rows(runs[(step, r, c)])
        if not kernels:
            continue
        pages = glob.glob(os.path.join(ROOT, "docs", "steps", step + "_*.md"))
        cell = step
        if pages:
            cell = "[%s](%s)" % (step, os.path.relpath(pages[0], doc_dir))
        body.append([cell, kernels[0]["kernel"]] + measured_cells(kernels[0]))
    note = ("%s, the default kernel of each step. Copy bound and cuBLAS: measured by the step %s "
            "program. Each row's %% of copy and vs cuBLAS come from its own run."
            % (shape_label(r, c), steps[0]))
    return [line, "", note, ""] + table(
        ["step", "kernel", "median ms", "GB/s", "% of copy", "vs cuBLAS", "check"], body)


# The performance bar: (shapes, column, at least) criteria on the default kernel.
BAR_SQUARE_SHAPES = ["32768x32768", "16384x16384", "8192x8192", "4096x4096", "12800x1280", "1280x12800"]
BAR_CRITERIA = [
    (BAR_SQUARE_SHAPES, "pct_of_copy", 95.0, "% of copy >= 95"),
    (BAR_SQUARE_SHAPES, "vs_cublas", 1.05, "vs cuBLAS >= 1.05x"),
    (["10007x7919"], "vs_cublas", 1.0, "vs cuBLAS >= 1.00x"),
    (["1x67108864", "67108864x1"], "pct_of_copy", 90.0, "% of copy >= 90"),
]


def render_bar(results, params, where):
    """Each criterion of the bar against the step's default kernel, measured in one run per shape."""
    step = split_list(params, "step", where)[0]
    rows, runs, path, line = results.bench()
    if rows is None:
        return missing(results.gpu, path)
    body, ratios = [], []
    for shapes, column, least, label in BAR_CRITERIA:
        for shape in shapes:
            r, c = shape.split("x")
            kernels = kernel_rows(runs.get((step, r, c), []))
            if not kernels:
                body.append([shape_label(r, c), label, "not measured", "-"])
                continue
            value = number(kernels[0][column])
            if column == "vs_cublas" and shapes is BAR_SQUARE_SHAPES:
                ratios.append(value)
            shown = "%.1f %%" % value if column == "pct_of_copy" else "%.3fx" % value
            body.append([shape_label(r, c), label, shown, "met" if value >= least else "**missed**"])
    if ratios and len(ratios) == len(BAR_SQUARE_SHAPES):
        geomean = math.exp(sum(math.log(v) for v in ratios) / len(ratios))
        body.append(["geometric mean of the six", "vs cuBLAS >= 1.10x", "%.3fx" % geomean,
                     "met" if geomean >= 1.10 else "**missed**"])
    note = ("Step %s's default kernel (`%s`); every ratio is taken within one run of the step program."
            % (step, kernels[0]["kernel"] if kernels else "?"))
    return [line, "", note, ""] + table(["shape", "criterion", "measured", "status"], body)


def render_profile(results, params, where):
    steps = split_list(params, "steps", where)
    shape = split_list(params, "shape", where)[0]
    metrics = split_list(params, "metrics", where)
    r, c = shape.split("x")
    rows, path, line = results.load(results.gpu + "-profile")
    if rows is None:
        return missing(results.gpu, path)
    _, runs, _, _ = results.bench()
    defaults = default_kernels(runs)
    values = {}
    kernels = []  # (step, kernel) in CSV order
    for row in rows:
        if row["step"] in steps and (row["rows"], row["cols"]) == (r, c):
            key = (row["step"], row["kernel"])
            if key not in values:
                values[key] = {}
                kernels.append(key)
            values[key][row["metric"]] = row["value"]
    # each step's default kernel first, its other variants next, baselines last
    rank = {k: i for i, k in enumerate(kernels)}
    kernels.sort(key=lambda k: (steps.index(k[0]), k[1] in BASELINES,
                                k[1] != defaults.get(k[0]), rank[k]))
    if not kernels:
        return [line, "", "*No profile of steps %s at %s in %s.*"
                % (", ".join(steps), shape_label(r, c), path)]
    labels = [METRIC_LABELS.get(m, m) for m in metrics]
    body = []
    for step, kernel in kernels:
        default = defaults.get(step) or next(k for s, k in kernels if s == step)
        name = {"cublas": "cuBLAS cublasSgeam", "copy_kernel": "copy kernel"}.get(kernel)
        body.append([name or kernel_label(step, kernel, default)]
                    + [fmt_metric(values[(step, kernel)].get(m)) for m in metrics])
    legend = "; ".join("%s = `%s`" % (METRIC_LABELS[m], m) for m in metrics if m in METRIC_LABELS)
    out = [line, "", "%s, one kernel launch each." % shape_label(r, c), ""]
    out += table(["kernel"] + labels, body)
    if legend:
        out += ["", "Metrics: " + legend + "."]
    return out


def render_peers(results, params, where):
    shapes = split_list(params, "shapes", where, required=False)
    rows, path, line = results.load(results.gpu + "-peers")
    if rows is None:
        return missing(results.gpu, path)
    if shapes:
        order = {s: i for i, s in enumerate(shapes)}
        rows = [row for row in rows if row["rows"] + "x" + row["cols"] in order]
        rows.sort(key=lambda row: order[row["rows"] + "x" + row["cols"]])
    if not rows:
        return [line, "", "*No rows for %s in %s.*" % (", ".join(shapes), path)]
    body = []
    last = None
    for row in rows:
        shape = shape_label(row["rows"], row["cols"])
        code, sep, note = row["op"].partition(" (")  # "y.copy_(x) (copy bound)"
        op = "`%s`" % code + (" (" + note if sep else "")
        body.append([shape if shape != last else "", row["library"], op,
                     fmt_ms(row["median_ms"]), fmt_gbps(row["gbps"]), fmt_pct(row["pct_of_copy"])])
        last = shape
    note = "% of copy: against a device-to-device copy of the same bytes timed in the same run."
    return [line, "", note, ""] + table(
        ["shape", "library", "op", "median ms", "GB/s", "% of copy"], body)


# ------------------------------------------------------------- documents

def parse_params(text, where):
    params = {}
    for word in text.split():
        key, sep, value = word.partition("=")
        if not sep or not value:
            raise MarkerError("%s: expected key=value, got '%s'" % (where, word))
        params[key] = value
    return params


ALLOWED = {
    "TABLE": {"steps", "shapes", "gpu"},
    "PROFILE": {"steps", "shape", "metrics", "gpu"},
    "LADDER": {"shape", "gpu"},
    "PEERS": {"shapes", "gpu"},
    "BAR": {"step", "gpu"},
}


def render_block(kind, params, where, default_gpu, cache, doc_dir):
    unknown = set(params) - ALLOWED[kind]
    if unknown:
        raise MarkerError("%s: %s takes no %s" % (where, kind, ", ".join(sorted(unknown))))
    gpu = params.get("gpu", default_gpu)
    results = cache.setdefault(gpu, Results(gpu))
    if kind == "TABLE":
        return render_table(results, params, where)
    if kind == "PROFILE":
        return render_profile(results, params, where)
    if kind == "LADDER":
        return render_ladder(results, params, where, doc_dir)
    if kind == "BAR":
        return render_bar(results, params, where)
    return render_peers(results, params, where)


def render_document(path, text, default_gpu, cache):
    """The document with every marked block regenerated."""
    lines = text.split("\n")
    out = []
    i = 0
    in_fence = False
    doc_dir = os.path.dirname(os.path.join(ROOT, path))
    while i < len(lines):
        line = lines[i]
        if FENCE.match(line):
            in_fence = not in_fence
        begin = None if in_fence else BEGIN.match(line)
        if begin is None:
            out.append(line)
            i += 1
            continue
        kind = begin.group(1)
        where = "%s:%d" % (path, i + 1)
        j = i + 1
        while j < len(lines) and not END.match(lines[j]):
            if BEGIN.match(lines[j]):
                raise MarkerError("%s: BEGIN %s has no END before the next BEGIN" % (where, kind))
            j += 1
        if j == len(lines):
            raise MarkerError("%s: BEGIN %s has no END %s" % (where, kind, kind))
        if END.match(lines[j]).group(1) != kind:
            raise MarkerError("%s: BEGIN %s ends with END %s" % (where, kind, END.match(lines[j]).group(1)))
        params = parse_params(begin.group(2), where)
        out.append(line)
        out += [""] + render_block(kind, params, where, default_gpu, cache, doc_dir) + [""]
        out.append(lines[j])
        i = j + 1
    return "\n".join(out)


def documents():
    paths = ["README.md"] if os.path.isfile(os.path.join(ROOT, "README.md")) else []
    for folder, _, files in sorted(os.walk(os.path.join(ROOT, "docs"))):
        paths += sorted(os.path.relpath(os.path.join(folder, f), ROOT) for f in files if f.endswith(".md"))
    return paths


def main():
    parser = argparse.ArgumentParser(description="Fill the generated result tables in the docs.")
    parser.add_argument("--gpu", default="h200", help="results to use: docs/results/<gpu>.csv (default h200)")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a file is out of date")
    parser.add_argument("files", nargs="*", help="Markdown files (default: README.md and docs/**/*.md)")
    args = parser.parse_args()

    paths = [os.path.relpath(os.path.abspath(p), ROOT) for p in args.files] or documents()
    cache = {}
    stale = []
    for path in paths:
        with open(os.path.join(ROOT, path)) as f:
            text = f.read()
        try:
            new = render_document(path, text, args.gpu, cache)
        except MarkerError as err:
            print("render_tables: error: %s" % err, file=sys.stderr)
            return 2
        if new != text:
            stale.append(path)
            if not args.check:
                with open(os.path.join(ROOT, path), "w") as f:
                    f.write(new)
    if args.check:
        for path in stale:
            print("render_tables: %s is out of date: run 'make tables'" % path, file=sys.stderr)
        return 1 if stale else 0
    for path in stale:
        print("render_tables: updated %s" % path, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
