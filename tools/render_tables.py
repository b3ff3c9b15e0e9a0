#!/usr/bin/env python3
"""Fill the generated blocks in README.md, docs/**/*.md and exercises/*/README.md.

Every number in the documentation comes from the committed result files
(read through tools/results.py); nobody types one by hand.  A document asks
for a block with a pair of marker lines, and this script replaces whatever
lies between them:

  <!-- BEGIN TABLE steps=03,04 shapes=8192x8192,4096x4096 [gpu=h200] -->
  <!-- END TABLE -->
      for each shape: the copy bound, cuBLAS, then every kernel of the listed
      steps, with median ms, GB/s, % of copy, vs cuBLAS and the check; a
      step's bounds (role `bound`: copies, not transposes) come last, marked.
      The baselines are those of the FIRST listed step's run at that shape;
      the ratios of every row are the ones its own run printed.
  <!-- BEGIN COMPACT steps=10,11,12 shapes=8192x8192,10007x7919 [variants=12] [study=NAME] [gpu=h200] -->
  <!-- END COMPACT -->
      one row per kernel and shape, with the copy bound and cuBLAS of the
      kernel's own run as columns; variants= limits the variants to those
      steps, the others show their default kernel alone.  study=NAME reads
      <gpu>-NAME.csv (a study such as tools/narrow_study.sh) instead of the
      sweep <gpu>.csv.
  <!-- BEGIN GAPS step=12 [over=1] [gpu=h200] -->
  <!-- END GAPS -->
      every swept shape where the step's default kernel trails the fastest
      kernel of any step by more than `over` points of % of copy, with the
      ratios of their median and fastest times.
  <!-- BEGIN PROFILE steps=06,07 shape=4096x4096 metrics=a,b,c [baselines=yes]
       [gpu=h200] -->   (on one line)
  <!-- END PROFILE -->
      kernels x Nsight Compute metrics, from <gpu>-profile.csv, labelled by
      tools/metrics.py.  The copy kernel and cuBLAS appear when they were
      profiled; baselines=yes asks `tools/ncu_profile.py plan` to profile them
      beside the last listed step.  peers=tutorial,torch.compile adds those
      peers of tools/peers.py, from <gpu>-peers-profile.csv (make
      peers-profile, which profiles what these tables name); with peers=,
      steps= may be left out.  variant=NAME profiles and shows only that
      variant of the steps (and the baselines): for a large shape.
  <!-- BEGIN LADDER shape=8192x8192 [gpu=h200] -->
  <!-- END LADDER -->
      one row per step (its default kernel), plus the baselines.
  <!-- BEGIN BAR step=10 [gpu=h200] -->
  <!-- END BAR -->
      the performance bar of the last step: each criterion, the measured
      value of the step's default kernel, and whether it is met.
  <!-- BEGIN PEERS [shapes=...] [gpu=h200] -->
  <!-- END PEERS -->
      PyTorch and CuPy against the copy bound, from <gpu>-peers.csv.
  <!-- BEGIN STEPS -->
  <!-- END STEPS -->
      the table of steps: one row per steps/NN_name/ directory, its idea
      being the title on the STEP_DEFINE("...") line of its .cu file.
  <!-- BEGIN EXPECTED ex=05 [also=04,05:scalar] [gpu=h200] -->
  <!-- END EXPECTED -->
      what speed an exercise can expect: the reference solution and the
      step, from docs/reference-timings.csv.  also= adds rows: NN is step
      NN's row there, NN:VARIANT a variant of step NN from <gpu>.csv at the
      same shape.
  <!-- BEGIN REFERENCE -->
  <!-- END REFERENCE -->
      the whole of docs/reference-timings.csv: machine, table, sources.
  <!-- BEGIN REFERENCE gpu=h100-80gb-hbm3 -->
      the same from another GPU's docs/results/<gpu>-reference-timings.csv.

One number inside a sentence is an inline pair on one line, replaced the same
way (the text between the two markers is the value):

  <!-- V step=02 shape=8192x8192 col=pct_of_copy -->38.9 %<!-- /V -->
      the default kernel of step 02 at 8192x8192, from <gpu>.csv; kernel=NAME
      picks a variant, kernel=copy_bound or kernel=cublas a baseline of that
      step's run.  col is one of median_ms, min_ms, gbps, pct_of_copy,
      vs_cublas.
  <!-- V flush=write kernel=tma shape=2048x2048 col=pct_of_copy -->99.4 %<!-- /V -->
      one row of the timing study, <gpu>-timing.csv (flush=read or write).
  <!-- V max=pct_of_copy min_side=2048 -->100.0 %<!-- /V -->
      the highest % of copy of any kernel in <gpu>.csv at shapes whose two
      sides are both at least min_side.
  <!-- V peer=torch.compile shape=8192x8192 col=vs_tutorial -->1.02x<!-- /V -->
      one peer of <gpu>-peers.csv (peer=tutorial: the tutorial's kernel);
      col is one of median_ms, gbps, pct_of_copy, vs_tutorial.
  <!-- V step=06 kernel=shared_32x8 shape=4096x4096 metric=NAME -->...<!-- /V -->
      one Nsight Compute metric of <gpu>-profile.csv.
  <!-- V peer=triton shape=32768x32768 metric=NAME -->...<!-- /V -->
      one Nsight Compute metric of a peer, from <gpu>-peers-profile.csv.
  <!-- V tuning=vec4_limit -->64 MiB<!-- /V -->
      the size up to which step 12's answer runs step 09's 16-byte kernel on
      this GPU, read off <gpu>.csv by tools/answer_tuning.py.
  Each takes gpu= as well.

Shapes are written ROWSxCOLS or ROWSxCOLS+OFFSET.  Marker lines must stand
alone on their line; markers inside fenced code blocks are left alone, so
documents can show the syntax.

Usage: tools/render_tables.py [--gpu h200] [--check] [FILE.md ...]
  --check   change nothing; exit 1 if any file would change (for make test).
Exit codes: 0 done (or up to date), 1 out of date (--check), 2 bad marker
or unreadable results.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys

import answer_tuning
import metrics
import results
from results import Shape

ROOT = results.ROOT
RESULTS = "docs/results"
REFERENCE_CSV = "docs/reference-timings.csv"
REFERENCE_MD = "docs/reference-timings.md"
KINDS = ("TABLE", "COMPACT", "GAPS", "PROFILE", "LADDER", "PEERS", "BAR", "STEPS", "EXPECTED", "REFERENCE",
         "TIMING")
BEGIN = re.compile(r"^\s*<!-- BEGIN (%s)\b(.*?)-->\s*$" % "|".join(KINDS))
END = re.compile(r"^\s*<!-- END (%s) -->\s*$" % "|".join(KINDS))
FENCE = re.compile(r"^\s*(```|~~~)")

# Columns whose cells are words, left-aligned; every other column after the
# first holds numbers and is right-aligned.
TEXT_COLUMNS = ("kernel", "library", "op", "check", "step", "idea", "write-up")

# How the tables name the baselines (display only: the role column says
# which rows are baselines).
DISPLAY_NAMES = {
    "memcpy": "cudaMemcpy D2D",
    "copy_kernel": "copy kernel",
    "cublas": "cuBLAS cublasSgeam",
}


class MarkerError(Exception):
    """A marker the script cannot understand: reported as file:line."""


# ------------------------------------------------------------- the result files

class Loaded:
    """One result file: its rows (None if it does not exist), path and origin."""

    def __init__(self, rows, path: str, origin: str):
        self.rows = rows
        self.path = path
        self.line = ("*Generated by tools/render_tables.py from %s (%s); do not edit "
                     "by hand.*" % (path, origin))


class Sources:
    """The committed result files, each loaded on first use."""

    def __init__(self):
        self._cache: dict = {}

    def _load(self, key, path, loader, origin_of):
        """The rows of @p path (None if it is missing), and origin_of(rows)."""
        if key not in self._cache:
            full = os.path.join(ROOT, path)
            try:
                rows = loader(full) if os.path.isfile(full) else None
            except results.ResultsError as err:
                raise MarkerError(str(err)) from err
            self._cache[key] = Loaded(rows, path, origin_of(rows))
        return self._cache[key]

    @staticmethod
    def _env_origin(gpu, env_stem):
        """origin_of for a file written beside an env file: the GPU and date it records."""
        def origin_of(rows):
            env = {}
            for stem in (env_stem, gpu):
                env = env or results.read_env(os.path.join(ROOT, RESULTS, stem + "-env.txt"))
            name = env.get("gpu") or (rows[0]["gpu"] if rows else gpu)
            when = env.get("date_utc")
            return "%s, %s UTC" % (name, when) if when else name
        return origin_of

    def bench(self, gpu: str) -> Loaded:
        return self._load(("bench", gpu), "%s/%s.csv" % (RESULTS, gpu),
                          results.load_bench, self._env_origin(gpu, gpu))

    def profile(self, gpu: str) -> Loaded:
        return self._load(("profile", gpu), "%s/%s-profile.csv" % (RESULTS, gpu),
                          results.load_profile, self._env_origin(gpu, gpu + "-profile"))

    def peer_profile(self, gpu: str) -> Loaded:
        """docs/results/<gpu>-peers-profile.csv (make peers-profile)."""
        return self._load(("peer_profile", gpu), "%s/%s-peers-profile.csv" % (RESULTS, gpu),
                          results.load_profile, self._env_origin(gpu, gpu + "-peers-profile"))

    def peers(self, gpu: str) -> Loaded:
        return self._load(("peers", gpu), "%s/%s-peers.csv" % (RESULTS, gpu),
                          results.load_peers, self._env_origin(gpu, gpu + "-peers"))

    def timing(self, gpu: str) -> Loaded:
        return self._load(("timing", gpu), "%s/%s-timing.csv" % (RESULTS, gpu),
                          results.load_timing, self._env_origin(gpu, gpu + "-timing"))

    def study(self, gpu: str, name: str) -> Loaded:
        """docs/results/<gpu>-<name>.csv: a study's step-program rows (bench layout)."""
        return self._load(("study", gpu, name), "%s/%s-%s.csv" % (RESULTS, gpu, name),
                          results.load_bench, self._env_origin(gpu, "%s-%s" % (gpu, name)))

    def runs(self, gpu: str) -> dict:
        """The bench rows of gpu grouped by run: {(step, Shape): rows}."""
        return results.group_runs(self.bench(gpu).rows or [])

    def reference(self, gpu: str = "") -> Loaded:
        """docs/reference-timings.csv, or with gpu the timings of another GPU,
        docs/results/<gpu>-reference-timings.csv; the origin is in their columns."""
        path = "%s/%s-reference-timings.csv" % (RESULTS, gpu) if gpu else REFERENCE_CSV
        return self._load(("reference", gpu), path, results.load_reference,
                          lambda rows: "%s, %s" % (rows[0]["gpu"], rows[0]["date"]) if rows else "-")


# ------------------------------------------------------------- formatting

number = results.number


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


def table(header, body):
    """A Markdown table; numeric columns are right-aligned."""
    align = ["---"] + ["---" if h in TEXT_COLUMNS else "--:" for h in header[1:]]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(cells) + " |" for cells in body]
    return lines


def link(path, doc_dir, text):
    """A Markdown link to a repository path, relative to the document."""
    return "[%s](%s)" % (text, os.path.relpath(os.path.join(ROOT, path), doc_dir))


def default_kernels(runs):
    """{step: name of its default kernel}: the first kernel row of its runs."""
    defaults = {}
    for (step, _), run in runs.items():
        kernel = results.default_kernel(run)
        if kernel is not None and step not in defaults:
            defaults[step] = kernel["kernel"]
    return defaults


def kernel_label(step, kernel, default):
    if kernel == default or default is None:
        return "%s %s" % (step, kernel)
    return "%s %s (--variant %s)" % (step, default, kernel)


def measured_rows(run, step, default):
    """(label, row) of a run's kernels, then of its bounds, marked as copies."""
    labelled = [(kernel_label(step, row["kernel"], default), row)
                for row in results.kernel_rows(run)]
    labelled += [("%s %s (--variant %s: a copy, the bound)" % (step, default, row["kernel"]), row)
                 for row in results.bound_rows(run)]
    return labelled


MEASURED_HEADER = ["median ms", "GB/s", "% of copy", "vs cuBLAS", "check"]


def measured_cells(row):
    """The cells under MEASURED_HEADER."""
    return [fmt_ms(row["median_ms"]), fmt_gbps(row["gbps"]),
            fmt_pct(row["pct_of_copy"]), fmt_ratio(row["vs_cublas"]),
            row.get("check") or "-"]


def baseline_body(run, first_cell):
    """Rows for the copy bound and cuBLAS of one run."""
    best, library = results.copy_bound(run), results.library_row(run)
    body = []
    if best is not None:
        body.append([first_cell, "copy bound (%s)" % best["kernel"]]
                    + measured_cells(best))
        first_cell = ""
    if library is not None:
        name = DISPLAY_NAMES.get(library["kernel"], library["kernel"])
        body.append([first_cell, name] + measured_cells(library))
    return body


def missing(gpu, path):
    return ["*No results committed yet for %s (%s is missing).*" % (gpu, path)]


def write_up(step_number):
    """docs/steps/NN_name.md of a step, or None."""
    for step in results.step_dirs():
        path = "docs/steps/%s_%s.md" % (step.number, step.name)
        if step.number == step_number and os.path.isfile(os.path.join(ROOT, path)):
            return path
    return None


# ------------------------------------------------------------- marker parameters

def split_list(params, key, where, required=True):
    value = params.get(key)
    if value is None:
        if required:
            raise MarkerError("%s: missing %s=" % (where, key))
        return []
    return [v for v in value.split(",") if v]


def step_list(params, key, where, required=True):
    steps = split_list(params, key, where, required)
    for step in steps:
        if not re.fullmatch(r"\d\d", step):
            raise MarkerError("%s: step '%s' is not two digits" % (where, step))
    return steps


def shape_list(params, key, where, required=True):
    try:
        return [Shape.parse(v) for v in split_list(params, key, where, required)]
    except ValueError as err:
        raise MarkerError("%s: %s" % (where, err)) from err


def yes_no(params, key, where):
    value = params.get(key, "no")
    if value not in ("yes", "no"):
        raise MarkerError("%s: %s= takes yes or no, not '%s'" % (where, key, value))
    return value == "yes"


# ------------------------------------------------------------- result blocks

def render_table(src, gpu, params, where, doc_dir):
    steps = step_list(params, "steps", where)
    shapes = shape_list(params, "shapes", where)
    loaded = src.bench(gpu)
    if loaded.rows is None:
        return missing(gpu, loaded.path)
    runs = src.runs(gpu)
    defaults = default_kernels(runs)
    body = []
    for shape in shapes:
        first = shape.label()
        # baselines from the first listed step that was run at this shape
        base_step = next((s for s in steps if (s, shape) in runs), None)
        if base_step is None:
            body.append([first, "not measured", "-", "-", "-", "-", "-"])
            continue
        base = baseline_body(runs[(base_step, shape)], first)
        if base_step != steps[0]:
            for cells in base:
                cells[1] += " (step %s run)" % base_step
        body += base
        for step in steps:
            run = runs.get((step, shape))
            if run is None:
                body.append(["", "%s not measured" % step, "-", "-", "-", "-", "-"])
                continue
            for label, row in measured_rows(run, step, defaults.get(step)):
                body.append(["", label] + measured_cells(row))
    note = ("Copy bound and cuBLAS: measured by the step %s program at each shape. "
            "Each row's %% of copy and vs cuBLAS come from its own run." % steps[0])
    return [loaded.line, "", note, ""] + table(["shape", "kernel"] + MEASURED_HEADER,
                                               body)


def render_compact(src, gpu, params, where, doc_dir):
    """One row per kernel and shape, the copy bound and cuBLAS of the same run as columns.

    With variants=NN,..., only those steps show every variant; the other
    steps show their default kernel alone (the step a write-up compares with).
    """
    steps = step_list(params, "steps", where)
    shapes = shape_list(params, "shapes", where)
    with_variants = set(step_list(params, "variants", where, required=False) or steps)
    loaded = src.study(gpu, params["study"]) if "study" in params else src.bench(gpu)
    if loaded.rows is None:
        return missing(gpu, loaded.path)
    runs = results.group_runs(loaded.rows)
    defaults = default_kernels(runs)
    body = []
    for shape in shapes:
        for step in steps:
            run = runs.get((step, shape))
            if run is None:
                body.append([shape.label(), "%s not measured" % step] + ["-"] * 5)
                continue
            copy, blas = results.copy_bound(run), results.library_row(run)
            labelled = measured_rows(run, step, defaults.get(step))
            if step not in with_variants:
                labelled = labelled[:1]   # the default kernel is the run's first kernel row
            for label, row in labelled:
                body.append([shape.label(), label,
                             fmt_ms(copy["median_ms"]) if copy else "-",
                             fmt_ms(blas["median_ms"]) if blas else "-",
                             fmt_ms(row["median_ms"]), fmt_pct(row["pct_of_copy"]),
                             fmt_ratio(row["vs_cublas"])])
    header = ["shape", "kernel", "copy ms", "cuBLAS ms", "kernel ms", "% of copy", "vs cuBLAS"]
    note = ("Median times; copy and cuBLAS were timed in the same run as the kernel, so "
            "% of copy = copy ms / kernel ms and vs cuBLAS = cuBLAS ms / kernel ms.")
    return [loaded.line, "", note, ""] + table(header, body)


def render_ladder(src, gpu, params, where, doc_dir):
    shape = shape_list(params, "shape", where)[0]
    loaded = src.bench(gpu)
    if loaded.rows is None:
        return missing(gpu, loaded.path)
    runs = src.runs(gpu)
    steps = sorted({s for (s, sh) in runs if sh == shape})
    if not steps:
        return [loaded.line, "", "*No run at %s in %s.*" % (shape.label(), loaded.path)]
    body = baseline_body(runs[(steps[0], shape)], "")
    for step in steps:
        kernel = results.default_kernel(runs[(step, shape)])
        if kernel is None:
            continue
        page = write_up(step)
        cell = link(page, doc_dir, step) if page else step
        body.append([cell, kernel["kernel"]] + measured_cells(kernel))
    note = ("%s, the default kernel of each step. Copy bound and cuBLAS: measured by "
            "the step %s program. Each row's %% of copy and vs cuBLAS come from its "
            "own run." % (shape.label(), steps[0]))
    return [loaded.line, "", note, ""] + table(["step", "kernel"] + MEASURED_HEADER,
                                               body)


# The performance bar: (shapes, column, at least, label) criteria on the
# default kernel of the step.
BAR_SQUARE_SHAPES = [Shape.parse(s) for s in (
    "32768x32768", "16384x16384", "8192x8192", "4096x4096", "12800x1280", "1280x12800")]
BAR_ODD_SHAPES = [Shape.parse(s) for s in (
    "10007x7919", "16385x16383", "20000x20000", "3000x50000", "50000x3000",
    "8192x8192+1", "8192x8192+2", "8192x8192+3")]
BAR_VECTOR_SHAPES = [Shape(1, 67108864), Shape(67108864, 1)]
# Each bar: (shapes, CSV column, least value, label) per criterion; the value the
# geometric mean of vs cuBLAS over BAR_SQUARE_SHAPES must reach (or None); and by
# how many points of % of copy a peer may lead the step (None: peers not compared).
BARS = {
    # Step 10's bar.
    "step10": ([
        (BAR_SQUARE_SHAPES, "pct_of_copy", 95.0, "% of copy >= 95"),
        (BAR_SQUARE_SHAPES, "vs_cublas", 1.05, "vs cuBLAS >= 1.05x"),
        ([Shape(10007, 7919)], "vs_cublas", 1.0, "vs cuBLAS >= 1.00x"),
        (BAR_VECTOR_SHAPES, "pct_of_copy", 90.0, "% of copy >= 90"),
    ], 1.10, None),
    # The last step's bar: full speed on every shape, and at least cuBLAS's.
    "last_step": ([
        (BAR_SQUARE_SHAPES, "pct_of_copy", 97.0, "% of copy >= 97"),
        (BAR_ODD_SHAPES, "pct_of_copy", 92.0, "% of copy >= 92"),
        (BAR_VECTOR_SHAPES, "pct_of_copy", 95.0, "% of copy >= 95"),
        (BAR_SQUARE_SHAPES + BAR_ODD_SHAPES + BAR_VECTOR_SHAPES, "vs_cublas", 1.0,
         "vs cuBLAS >= 1.00x"),
    ], None, 1.0),
}


def bar_value(column, value):
    """A bar criterion's value as the bar table writes it: % of copy or a ratio."""
    return "%.1f %%" % value if column == "pct_of_copy" else "%.3fx" % value


def best_kernel(runs, shape, column):
    """(value, step, row) of the kernel of any step run at @p shape with the
    highest @p column (each value from its own run), or None."""
    best = None
    for (step, measured_at), run in runs.items():
        if measured_at != shape:
            continue
        for row in results.kernel_rows(run):
            value = number(row[column])
            if value is not None and (best is None or value > best[0]):
                best = (value, step, row)
    return best


def best_in_tutorial(runs, shape, column):
    """best_kernel() as "NN kernel: value", or "-"."""
    best = best_kernel(runs, shape, column)
    if best is None:
        return "-"
    value, step, row = best
    return "%s %s: %s" % (step, row["kernel"], bar_value(column, value))


def render_gaps(src, gpu, params, where, doc_dir):
    """Every swept shape where step @p step's default kernel trails the best
    kernel of any step by more than @p over points of % of copy, with the
    ratio of their fastest runs beside the ratio of their medians."""
    step = step_list(params, "step", where)[0]
    try:
        over = float(params.get("over", "1"))
    except ValueError as err:
        raise MarkerError("%s: over= takes a number of points" % where) from err
    if over < 0:
        raise MarkerError("%s: over= takes a number of points, 0 or more" % where)
    loaded = src.bench(gpu)
    if loaded.rows is None:
        return missing(gpu, loaded.path)
    runs = src.runs(gpu)
    body = []
    shapes = sorted({shape for (s, shape) in runs if s == step},
                    key=lambda sh: (sh.rows * sh.cols, sh.rows, sh.offset))
    for shape in shapes:
        ours = results.default_kernel(runs[(step, shape)])
        best = best_kernel(runs, shape, "pct_of_copy")
        if ours is None or best is None or number(ours["pct_of_copy"]) is None:
            continue
        value, other, row = best
        gap = value - number(ours["pct_of_copy"])
        if gap <= over:   # 0 where the step's own kernel is the best
            continue
        body.append([shape.label(), fmt_pct(ours["pct_of_copy"]),
                     "%s %s: %s" % (other, row["kernel"], fmt_pct(row["pct_of_copy"])),
                     "%.1f" % gap,
                     "%.3f" % (number(ours["median_ms"]) / number(row["median_ms"])),
                     "%.3f" % (number(ours["min_ms"]) / number(row["min_ms"]))])
    points = params.get("over", "1")
    note = ("Step %s's default kernel against the fastest kernel of any step, at every swept shape "
            "where it trails by more than %s point%s of %% of copy (each from its own run). "
            "Time ratios above 1 mean step %s is slower; where the fastest runs agree "
            "and only the medians differ, the gap is the run, not the kernel."
            % (step, points, "" if over == 1 else "s", step))
    if not body:
        return [loaded.line, "", note, "", "*No such shape.*"]
    return [loaded.line, "", note, ""] + table(
        ["shape", "step %s" % step, "fastest in the tutorial", "gap (points)",
         "median time ratio", "fastest-run time ratio"], body)


def peer_rows(peers, shapes, most_behind):
    """One bar row per shape of @p shapes that the peers run measured: the best
    peer's % of copy against the tutorial's, from the same run."""
    body = []
    for shape in shapes:
        rows = [r for r in peers if results.shape_of(r) == shape]
        ours = next((number(r["pct_of_copy"]) for r in rows
                     if r["role"] == results.ROLE_TUTORIAL), None)
        theirs = [(value, r["peer"]) for r in rows if r["role"] == results.ROLE_PEER
                  for value in [number(r["pct_of_copy"])] if value is not None]
        if ours is None or not theirs:
            continue
        best, peer = max(theirs)
        body.append([shape.label(), "no peer ahead by more than %g point" % most_behind,
                     "%s %.1f %% against %.1f %%" % (peer, best, ours),
                     "met" if best - ours <= most_behind else "**missed**", "-"])
    return body


def render_bar(src, gpu, params, where, doc_dir):
    """Each criterion of the bar against the step's default kernel, measured in one
    run per shape, beside the best kernel of any step at that shape."""
    step = step_list(params, "step", where)[0]
    name_of_bar = params.get("criteria", "step10")
    if name_of_bar not in BARS:
        raise MarkerError("%s: unknown bar criteria=%s (known: %s)"
                          % (where, name_of_bar, ", ".join(sorted(BARS))))
    criteria, least_geomean, peer_margin = BARS[name_of_bar]
    loaded = src.bench(gpu)
    if loaded.rows is None:
        return missing(gpu, loaded.path)
    runs = src.runs(gpu)
    body, ratios, name = [], [], "?"
    for shapes, column, least, label in criteria:
        for shape in shapes:
            kernel = results.default_kernel(runs.get((step, shape), []))
            value = number(kernel[column]) if kernel else None
            if value is None:
                body.append([shape.label(), label, "not measured", "-", "-"])
                continue
            name = kernel["kernel"]
            if column == "vs_cublas" and shapes is BAR_SQUARE_SHAPES:
                ratios.append(value)
            body.append([shape.label(), label, bar_value(column, value),
                         "met" if value >= least else "**missed**",
                         best_in_tutorial(runs, shape, column)])
    if least_geomean and ratios and len(ratios) == len(BAR_SQUARE_SHAPES):
        geomean = math.exp(sum(math.log(v) for v in ratios) / len(ratios))
        body.append(["geometric mean of the six", "vs cuBLAS >= %.2fx" % least_geomean,
                     "%.3fx" % geomean, "met" if geomean >= least_geomean else "**missed**",
                     "-"])
    if peer_margin is not None:
        shapes = [sh for c in criteria for sh in c[0]]
        body += peer_rows(src.peers(gpu).rows or [], list(dict.fromkeys(shapes)), peer_margin)
    note = ("Step %s's default kernel (`%s`); every ratio is taken within one run of "
            "the step program. *Best in the tutorial*: the best kernel of any step "
            "and variant at that shape, in its own run." % (step, name))
    if peer_margin is not None:
        note += (" The peer rows compare the step with the other libraries in the "
                 "peers run (`make peers`), at the shapes it measures.")
    return [loaded.line, "", note, ""] + table(
        ["shape", "criterion", "measured", "status", "best in the tutorial"], body)


def profiled_kernels(rows, steps, shape):
    """({(step, kernel): {metric: value}}, [(step, kernel)] in file order,
    {(step, kernel): role}) of the rows of the given steps at one shape."""
    values, kernels, roles = {}, [], {}
    for row in rows:
        if row["step"] in steps and results.shape_of(row) == shape:
            key = (row["step"], row["kernel"])
            if key not in values:
                values[key] = {}
                kernels.append(key)
                roles[key] = row["role"]
            values[key][row["metric"]] = row["value"]
    return values, kernels, roles


def peer_profile_rows(src, gpu, peers, shape):
    """(label, {metric: value}) of each listed peer's kernels at one shape,
    from <gpu>-peers-profile.csv; [] if the file is missing."""
    loaded = src.peer_profile(gpu)
    values, kernels, _ = profiled_kernels(loaded.rows or [], [results.PEERS_STEP], shape)
    out = []
    for peer in peers:
        for _, kernel in kernels:
            if kernel == peer or kernel.startswith(peer + ":"):
                label = "%s (peers run)" % kernel if peer == "tutorial" else kernel
                out.append((label, values[(results.PEERS_STEP, kernel)]))
    return out


def render_profile(src, gpu, params, where, doc_dir):
    peers = split_list(params, "peers", where, required=False)
    steps = step_list(params, "steps", where, required=not peers)
    shape = shape_list(params, "shape", where)[0]
    wanted = split_list(params, "metrics", where)
    yes_no(params, "baselines", where)  # only read by tools/ncu_profile.py's plan
    loaded = src.profile(gpu) if steps else src.peer_profile(gpu)
    if loaded.rows is None:
        return missing(gpu, loaded.path)
    origin = loaded.line
    if steps and peers:
        origin += " " + src.peer_profile(gpu).line
    defaults = default_kernels(src.runs(gpu))
    values, kernels, roles = profiled_kernels(loaded.rows, steps, shape)
    variant = params.get("variant")
    if variant:   # that variant of each step, and the baselines
        kernels = [k for k in kernels if roles[k] != results.ROLE_KERNEL or k[1] == variant]
    # each step's default kernel first, its other variants next, baselines last
    rank = {k: i for i, k in enumerate(kernels)}
    kernels.sort(key=lambda k: (steps.index(k[0]), roles[k] != results.ROLE_KERNEL,
                                k[1] != defaults.get(k[0]), rank[k]))
    labelled = []
    for step, kernel in kernels:
        if roles[(step, kernel)] == results.ROLE_KERNEL:
            default = defaults.get(step) or next(k for s, k in kernels if s == step)
            name = kernel_label(step, kernel, default)
        else:
            name = DISPLAY_NAMES.get(kernel, kernel)
        labelled.append((name, values[(step, kernel)]))
    labelled += peer_profile_rows(src, gpu, peers, shape)
    if not labelled:
        what = ", ".join(["steps " + ", ".join(steps)] * bool(steps) + peers)
        return [origin, "", "*No profile of %s at %s in %s.*"
                % (what, shape.label(), loaded.path)]
    body = [[name] + [fmt_metric(measured.get(m)) for m in wanted]
            for name, measured in labelled]
    legend = "; ".join("%s = %s" % (metrics.label(m), metrics.explain(m))
                       for m in wanted if metrics.label(m) != m)
    out = [origin, "", "%s, one kernel launch each." % shape.label(), ""]
    out += table(["kernel"] + [metrics.label(m) for m in wanted], body)
    if legend:
        out += ["", "Metrics: " + legend + "."]
    return out


def peer_cells(row):
    """(peer, op) cells of a peers row: the copy bound and the tutorial say so."""
    peer = ("%s %s" % (row["peer"], row["version"])).strip()
    op = "`%s`" % row["op"] if row["op"] else "-"
    if row["role"] == results.ROLE_COPY:
        op += " (copy bound)"
    return peer, op


def drop_empty_columns(header, body, first_numeric):
    """header and body without the columns (from first_numeric on) that no
    row fills: an older CSV lacks some of them."""
    keep = [i for i in range(len(header))
            if i < first_numeric or any(cells[i] != "-" for cells in body)]
    return [header[i] for i in keep], [[cells[i] for i in keep] for cells in body]


def render_peers(src, gpu, params, where, doc_dir):
    shapes = shape_list(params, "shapes", where, required=False)
    loaded = src.peers(gpu)
    if loaded.rows is None:
        return missing(gpu, loaded.path)
    rows = loaded.rows
    if shapes:
        order = {s: i for i, s in enumerate(shapes)}
        rows = [row for row in rows if results.shape_of(row) in order]
        rows.sort(key=lambda row: order[results.shape_of(row)])
    if not rows:
        return [loaded.line, "", "*No rows for %s in %s.*"
                % (", ".join(map(str, shapes)), loaded.path)]
    # Most rows share one timing method; the others are marked and named below.
    methods = [row["method"] for row in rows if row["method"]]
    usual = max(set(methods), key=methods.count) if methods else ""
    others = sorted({m for m in methods if m != usual})
    body = []
    last = None
    for row in rows:
        shape = results.shape_of(row).label()
        peer, op = peer_cells(row)
        if row["method"] in others:
            op += " " + "\\*" * (others.index(row["method"]) + 1)
        body.append([shape if shape != last else "", peer, op,
                     fmt_ms(row["median_ms"]), fmt_gbps(row["gbps"]),
                     fmt_pct(row["pct_of_copy"]), fmt_ratio(row["vs_tutorial"]),
                     row["check"] or "-"])
        last = shape
    header, body = drop_empty_columns(
        ["shape", "library", "op", "median ms", "GB/s", "% of copy", "vs tutorial",
         "check"], body, 3)
    note = ("% of copy: against a device-to-device copy of the same bytes timed in the "
            "same run.")
    if "vs tutorial" in header:
        note += (" vs tutorial: the tutorial's time over this one (above 1.00x: faster "
                 "than the tutorial).")
    if usual:
        note += " Timing: %s." % usual
    for i, method in enumerate(others):
        note += " %s: %s." % ("\\*" * (i + 1), method)
    return [loaded.line, "", note, ""] + table(header, body)


def render_timing(src, gpu, params, where, doc_dir):
    """The copy bound and the default kernel under each L2 flush, per shape."""
    loaded = src.timing(gpu)
    if loaded.rows is None:
        return missing(gpu, loaded.path)
    body = []
    for flush in ("write", "read"):
        runs = results.group_runs([r for r in loaded.rows if r["flush"] == flush])
        for (step, shape), run in runs.items():
            copy, kernel = results.copy_bound(run), results.default_kernel(run)
            if copy is None or kernel is None:
                continue
            body.append([shape.label(), FLUSH_NAMES[flush], fmt_ms(copy["median_ms"]),
                         "%s %s" % (step, kernel["kernel"]), fmt_ms(kernel["median_ms"]),
                         fmt_pct(kernel["pct_of_copy"])])
    header = ["shape", "L2 flush", "copy bound ms", "kernel", "kernel ms", "% of copy"]
    note = ("Median of the runs; the copy bound is the faster of cudaMemcpy and the copy "
            "kernel in the same run.")
    return [loaded.line, "", note, ""] + table(header, body)


FLUSH_NAMES = {"write": "memset of 2 x L2 (old)", "read": "read of 4 x L2 (now)"}


# ------------------------------------------------------------- the steps

STEP_DEFINE_TITLE = re.compile(r'^\s*STEP_DEFINE\(\s*"((?:[^"\\]|\\.)*)"', re.M)
STEP_DESC_START = re.compile(r'extern\s+"C"\s+const\s+step_desc\s+\w+\s*=\s*\{')
STRING_LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"')


def c_string(text):
    """The value of a C string literal's body (only \\" and \\\\ occur here)."""
    return re.sub(r"\\(.)", r"\1", text)


def step_title(source):
    """The title of a step file: the string on its STEP_DEFINE("...") line.

    Files of the older form, `extern "C" const step_desc stepNN = {"NN",
    "name", "title", ...}`, give the third string of the initializer.
    """
    match = STEP_DEFINE_TITLE.search(source)
    if match:
        return c_string(match.group(1))
    start = STEP_DESC_START.search(source)
    if start:
        initializer = source[start.end():source.find("}", start.end())]
        strings = STRING_LITERAL.findall(initializer)
        if len(strings) >= 3:
            return c_string(strings[2])
    return None


def step_source(step):
    """(path, title) of the .cu file that defines the step, or (None, None)."""
    folder = os.path.join(ROOT, step.path)
    for entry in sorted(os.listdir(folder)):
        if entry.endswith(".cu"):
            with open(os.path.join(folder, entry)) as f:
                title = step_title(f.read())
            if title is not None:
                return "%s/%s" % (step.path, entry), title
    return None, None


def render_steps(src, gpu, params, where, doc_dir):
    body = []
    for step in results.step_dirs():
        path, title = step_source(step)
        if path is None:
            raise MarkerError("%s: %s has no .cu file with STEP_DEFINE(\"title\", ...)"
                              % (where, step.path))
        page = write_up(step.number)
        name = "%s_%s" % (step.number, step.name)
        body.append([link(path, doc_dir, name), title.replace("|", "\\|"),
                     link(page, doc_dir, step.number) if page else "-"])
    line = ("*Generated by tools/render_tables.py from the directories under steps/ "
            "and the STEP_DEFINE line of each step's .cu file; do not edit by hand.*")
    return [line, ""] + table(["step", "idea", "write-up"], body)


# ------------------------------------------------------------- exercises

def reference_rows_of(rows, exercise_number):
    """{kernel: row} of one exercise in docs/reference-timings.csv."""
    return {r["kernel"]: r for r in rows
            if r["exercise"].split("_")[0] == exercise_number}


def expected_extra(src, gpu, item, shape, rows, where):
    """(label, row) for one also= item: NN or NN:VARIANT."""
    step, _, variant = item.partition(":")
    if not re.fullmatch(r"\d\d", step):
        raise MarkerError("%s: also= takes NN or NN:VARIANT, not '%s'" % (where, item))
    if not variant:
        row = reference_rows_of(rows, step).get("step")
        return "step %s" % step, row
    run = src.runs(gpu).get((step, shape), [])
    row = next((r for r in results.kernel_rows(run) if r["kernel"] == variant), None)
    label = "step %s `--variant %s` (from %s)" % (step, variant, src.bench(gpu).path)
    return label, row


def render_expected(src, gpu, params, where, doc_dir):
    exercise = step_list(params, "ex", where)[0]
    loaded = src.reference()
    if loaded.rows is None:
        return missing("the exercises", loaded.path)
    mine = reference_rows_of(loaded.rows, exercise)
    reference, step = mine.get("reference"), mine.get("step")
    if reference is None or step is None:
        return [loaded.line, "", "*Exercise %s has no reference timing in %s.*"
                % (exercise, loaded.path)]
    shape = results.shape_of(reference)
    reference_ms = number(reference["median_ms"])
    entries = [("the reference solution", reference), ("step %s" % exercise, step)]
    for item in split_list(params, "also", where, required=False):
        entries.append(expected_extra(src, gpu, item, shape, loaded.rows, where))
    body = []
    for label, row in entries:
        if row is None:
            body.append([label, "-", "-", "-", "not measured"])
            continue
        ms = number(row["median_ms"])
        versus = "%.2fx" % (ms / reference_ms) if ms and reference_ms else "-"
        body.append([label, fmt_ms(row["median_ms"]), fmt_gbps(row["gbps"]),
                     fmt_pct(row["pct_of_copy"]), versus])
    grade_vs_step = number(step["median_ms"]) / reference_ms if reference_ms else None
    note = ("Measured on the %s at %s, the shape `make grade` times (%s). A kernel as "
            "fast as the reference grades about **1.00x vs reference** and **%s vs "
            "step %s** there. *reference vs this*: the row's time over the "
            "reference's, as `make grade` computes *vs step*; above 1.00x the "
            "reference is faster. %% of copy carries over to other GPUs better than "
            "GB/s does."
            % (reference["gpu"], shape.label(),
               link(REFERENCE_MD, doc_dir, REFERENCE_MD),
               "%.2fx" % grade_vs_step if grade_vs_step else "-", exercise))
    return [loaded.line, "", note, ""] + table(
        ["kernel", "median ms", "GB/s", "% of copy", "reference vs this"], body)


def render_reference(src, gpu, params, where, doc_dir):
    # Without gpu=: the timings the grader and the docs quote.
    loaded = src.reference(params.get("gpu", ""))
    if loaded.rows is None:
        return missing("the exercises", loaded.path)
    first = loaded.rows[0]
    shape = results.shape_of(first)
    out = [loaded.line, "",
           "- GPU: " + first["gpu"],
           "- Driver: " + first["driver"],
           "- CUDA: " + first["cuda"],
           "- Date: " + first["date"],
           "- Shape: %s float32; the harness times each kernel on the same"
           % shape.label(),
           "  buffers (median of its timed runs, L2 flushed in between)", ""]
    body = [[r["exercise"], r["kernel"], fmt_ms(r["median_ms"]), fmt_gbps(r["gbps"]),
             fmt_pct(r["pct_of_copy"]), fmt_ratio(r["vs_cublas"])] for r in loaded.rows]
    out += table(["exercise", "kernel", "median ms", "GB/s", "% of copy", "vs cuBLAS"],
                 body)
    out += ["", "Sources of the rows above. A solution's sha256 covers the solution "
            "file and the exercise header it includes, if any:", ""]
    seen = set()
    for row in loaded.rows:
        if row["source"] and row["source"] not in seen:
            seen.add(row["source"])
            out.append("- " + row["source"] + (": `%s`" % row["sha256"]
                                               if row["sha256"] else ""))
    return out


# ------------------------------------------------------------- inline values

INLINE = re.compile(r"<!-- V ([^>]*?) -->(.*?)<!-- /V -->")
# The columns a marker may quote, and how each is written in a sentence.
MEASURED_FORMATS = {"median_ms": fmt_ms, "min_ms": fmt_ms, "gbps": lambda t: "{:,.0f}".format(number(t)),
                    "pct_of_copy": fmt_pct}
BENCH_FORMATS = dict(MEASURED_FORMATS, vs_cublas=fmt_ratio)
PEER_FORMATS = dict(MEASURED_FORMATS, vs_tutorial=fmt_ratio)
INLINE_KEYS = {"step", "kernel", "shape", "col", "peer", "metric", "gpu", "flush", "max",
               "min_side", "tuning"}


def measured(text, where, what):
    """text if it holds a number; else the marker cannot be filled."""
    if number(text) is None:
        raise MarkerError("%s: %s has no measured value ('%s')" % (where, what, text))
    return text


def quoted(row, params, formats, where, what):
    """The cell of @p row that the marker's col= names, written by @p formats."""
    col = params.get("col", "")
    if col not in formats:
        raise MarkerError("%s: col= takes %s" % (where, ", ".join(formats)))
    return formats[col](measured(row[col], where, what))


def inline_bench_row(src, gpu, params, where):
    """The bench row a V marker names: a kernel of a step's run, or its baseline."""
    step = step_list(params, "step", where)[0]
    shape = shape_list(params, "shape", where)[0]
    run = src.runs(gpu).get((step, shape))
    if run is None:
        raise MarkerError("%s: no run of step %s at %s in %s"
                          % (where, step, shape.label(), src.bench(gpu).path))
    kernel = params.get("kernel")
    if kernel == "copy_bound":
        row = results.copy_bound(run)
    elif kernel == "cublas":
        row = results.library_row(run)
    elif kernel is None:
        row = results.default_kernel(run)
    else:
        row = next((r for r in run if r["kernel"] == kernel), None)
    if row is None:
        raise MarkerError("%s: step %s's run at %s has no kernel '%s'"
                          % (where, step, shape.label(), kernel))
    return row


def inline_value(src, gpu, params, where):
    """The text a V marker stands for."""
    unknown = set(params) - INLINE_KEYS
    if unknown:
        raise MarkerError("%s: V takes no %s" % (where, ", ".join(sorted(unknown))))
    what = " ".join("%s=%s" % kv for kv in sorted(params.items()))
    if "max" in params:
        return inline_max(src, gpu, params, where)
    if "tuning" in params:
        return inline_tuning(src, gpu, params, where)
    shape = shape_list(params, "shape", where)[0]
    if "flush" in params:
        for row in src.timing(gpu).rows or []:
            if (row["flush"] == params["flush"] and row["kernel"] == params.get("kernel")
                    and results.shape_of(row) == shape):
                return quoted(row, params, BENCH_FORMATS, where, what)
        raise MarkerError("%s: no timing-study row for %s" % (where, what))
    if "metric" in params and "peer" in params:
        for row in src.peer_profile(gpu).rows or []:
            if (row["step"] == results.PEERS_STEP and row["kernel"] == params["peer"]
                    and row["metric"] == params["metric"] and results.shape_of(row) == shape):
                return fmt_metric(measured(row["value"], where, what))
        raise MarkerError("%s: no peers-profile row for %s" % (where, what))
    if "metric" in params:
        kernel = params.get("kernel")
        step = step_list(params, "step", where)[0]
        if kernel is None:
            kernel = default_kernels(src.runs(gpu)).get(step)
        for row in src.profile(gpu).rows or []:
            if (row["step"] == step and row["kernel"] == kernel
                    and row["metric"] == params["metric"] and results.shape_of(row) == shape):
                return fmt_metric(measured(row["value"], where, what))
        raise MarkerError("%s: no profile row for %s" % (where, what))
    if "peer" in params:
        role = results.ROLE_TUTORIAL if params["peer"] == "tutorial" else None
        for row in src.peers(gpu).rows or []:
            if results.shape_of(row) != shape:
                continue
            if (row["role"] == role if role else
                    row["peer"] == params["peer"] and row["role"] != results.ROLE_COPY):
                return quoted(row, params, PEER_FORMATS, where, what)
        raise MarkerError("%s: no peers row for %s" % (where, what))
    return quoted(inline_bench_row(src, gpu, params, where), params, BENCH_FORMATS, where, what)


def inline_max(src, gpu, params, where):
    """max=pct_of_copy min_side=N: the highest % of copy of any kernel or bound of
    the sweep at shapes whose rows and cols are both at least N."""
    if params["max"] != "pct_of_copy":
        raise MarkerError("%s: max= takes pct_of_copy" % where)
    try:
        side = int(params.get("min_side", "1"))
    except ValueError as err:
        raise MarkerError("%s: min_side= takes a number" % where) from err
    values = [number(r["pct_of_copy"]) for r in src.bench(gpu).rows or []
              if r["role"] in (results.ROLE_KERNEL, results.ROLE_BOUND)
              and int(r["rows"]) >= side and int(r["cols"]) >= side]
    values = [v for v in values if v is not None]
    if not values:
        raise MarkerError("%s: no kernel of %s has both sides >= %d"
                          % (where, src.bench(gpu).path, side))
    return fmt_pct(str(max(values)))


def inline_tuning(src, gpu, params, where):
    """tuning=vec4_limit: the size up to which step 12's answer runs step 09's
    16-byte kernel on this GPU, read off its sweep as tools/answer_tuning.py
    reads it into steps/12_tma/answer_tuning.h."""
    if params["tuning"] != "vec4_limit":
        raise MarkerError("%s: tuning= takes vec4_limit" % where)
    limit = answer_tuning.vec4_limit(answer_tuning.lead_by_size(src.bench(gpu).rows or []))
    if limit == 0:
        raise MarkerError("%s: %s gives step 09's kernel no lead at any size"
                          % (where, src.bench(gpu).path))
    return "%d MiB" % (limit >> 20)


def render_inline(path, lines, default_gpu, src):
    """lines with every V marker outside fenced code filled."""
    in_fence = False
    out = []
    for index, line in enumerate(lines):
        if FENCE.match(line):
            in_fence = not in_fence
        if in_fence or "<!-- V " not in line:
            out.append(line)
            continue
        where = "%s:%d" % (path, index + 1)

        def fill(match, where=where):
            params = parse_params(match.group(1), where)
            value = inline_value(src, params.get("gpu", default_gpu), params, where)
            return "<!-- V %s -->%s<!-- /V -->" % (match.group(1), value)
        out.append(INLINE.sub(fill, line))
    return out


# ------------------------------------------------------------- documents

def parse_params(text, where):
    params = {}
    for word in text.split():
        key, sep, value = word.partition("=")
        if not sep or not value:
            raise MarkerError("%s: expected key=value, got '%s'" % (where, word))
        params[key] = value
    return params


RENDERERS = {
    "TABLE": (render_table, {"steps", "shapes", "gpu"}),
    "COMPACT": (render_compact, {"steps", "shapes", "variants", "gpu", "study"}),
    "GAPS": (render_gaps, {"step", "over", "gpu"}),
    "PROFILE": (render_profile, {"steps", "peers", "shape", "metrics", "baselines", "variant",
                                 "gpu"}),
    "LADDER": (render_ladder, {"shape", "gpu"}),
    "PEERS": (render_peers, {"shapes", "gpu"}),
    "BAR": (render_bar, {"step", "gpu", "criteria"}),
    "STEPS": (render_steps, set()),
    "EXPECTED": (render_expected, {"ex", "also", "gpu"}),
    "REFERENCE": (render_reference, {"gpu"}),
    "TIMING": (render_timing, {"gpu"}),
}


def blocks(path, lines):
    """(kind, params, where, begin index, end index) of every marked block."""
    in_fence = False
    i = 0
    while i < len(lines):
        if FENCE.match(lines[i]):
            in_fence = not in_fence
        begin = None if in_fence else BEGIN.match(lines[i])
        if begin is None:
            i += 1
            continue
        kind = begin.group(1)
        where = "%s:%d" % (path, i + 1)
        j = i + 1
        while j < len(lines) and not END.match(lines[j]):
            if BEGIN.match(lines[j]):
                raise MarkerError("%s: BEGIN %s has no END before the next BEGIN"
                                  % (where, kind))
            j += 1
        if j == len(lines):
            raise MarkerError("%s: BEGIN %s has no END %s" % (where, kind, kind))
        end_kind = END.match(lines[j]).group(1)
        if end_kind != kind:
            raise MarkerError("%s: BEGIN %s ends with END %s" % (where, kind, end_kind))
        params = parse_params(begin.group(2), where)
        unknown = set(params) - RENDERERS[kind][1]
        if unknown:
            raise MarkerError("%s: %s takes no %s"
                              % (where, kind, ", ".join(sorted(unknown))))
        yield kind, params, where, i, j
        i = j + 1


def render_document(path, text, default_gpu, src):
    """The document with every marked block regenerated."""
    lines = text.split("\n")
    doc_dir = os.path.dirname(os.path.join(ROOT, path))
    out = []
    done = 0
    for kind, params, where, begin, end in blocks(path, lines):
        render = RENDERERS[kind][0]
        out += lines[done:begin + 1]
        out += [""] + render(src, params.get("gpu", default_gpu), params, where,
                             doc_dir) + [""]
        out.append(lines[end])
        done = end + 1
    return "\n".join(render_inline(path, out + lines[done:], default_gpu, src))


def documents():
    """README.md, every Markdown file under docs/, every exercise's README.md."""
    paths = ["README.md"] if os.path.isfile(os.path.join(ROOT, "README.md")) else []
    for folder, _, files in sorted(os.walk(os.path.join(ROOT, "docs"))):
        paths += sorted(os.path.relpath(os.path.join(folder, f), ROOT)
                        for f in files if f.endswith(".md"))
    exercises = os.path.join(ROOT, "exercises")
    for entry in sorted(os.listdir(exercises)) if os.path.isdir(exercises) else []:
        if os.path.isfile(os.path.join(exercises, entry, "README.md")):
            paths.append("exercises/%s/README.md" % entry)
    return paths


def profile_blocks(paths=None):
    """(params, where) of every PROFILE block in the given documents (default:
    all of them)."""
    for path in paths or documents():
        with open(os.path.join(ROOT, path)) as f:
            lines = f.read().split("\n")
        for kind, params, where, _, _ in blocks(path, lines):
            if kind == "PROFILE":
                yield params, where


def profile_requests():
    """(steps, Shape, baselines, variant or None) of every PROFILE block in the
    documents that names steps=.

    tools/ncu_profile.py's plan profiles exactly what the documents show.
    """
    return [(step_list(params, "steps", where), shape_list(params, "shape", where)[0],
             yes_no(params, "baselines", where), params.get("variant"))
            for params, where in profile_blocks() if "steps" in params]


def peer_profile_requests(paths=None):
    """(Shape, [peer]) of every PROFILE block that names peers=: what
    `tools/ncu_profile.py peers` profiles.  paths: the documents to read
    (default: all of them)."""
    return [(shape_list(params, "shape", where)[0], split_list(params, "peers", where))
            for params, where in profile_blocks(paths) if "peers" in params]


def main():
    parser = argparse.ArgumentParser(
        description="Fill the generated blocks in the docs.")
    parser.add_argument("--gpu", default="h200",
                        help="results to use: docs/results/<gpu>.csv (default h200)")
    parser.add_argument("--check", action="store_true",
                        help="change nothing; exit 1 if a file is out of date")
    parser.add_argument("files", nargs="*",
                        help="Markdown files (default: README.md, docs/**/*.md, "
                             "exercises/*/README.md)")
    args = parser.parse_args()

    paths = [os.path.relpath(os.path.abspath(p), ROOT) for p in args.files]
    paths = paths or documents()
    src = Sources()
    stale = []
    for path in paths:
        with open(os.path.join(ROOT, path)) as f:
            text = f.read()
        try:
            new = render_document(path, text, args.gpu, src)
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
            print("render_tables: %s is out of date: run 'make tables'" % path,
                  file=sys.stderr)
        return 1 if stale else 0
    for path in stale:
        print("render_tables: updated %s" % path, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
