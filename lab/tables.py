"""The tables and numbers that the write-ups' templates (`*.md.j2`) ask for; lab.docs renders them.

Each function reads the committed results in docs/results/ and returns Markdown (a note, a table,
its source) or, for value(), one number. A missing row is an error, never a made-up cell. gpu=
defaults to the page's GPU. Every ratio shown is the one its own run printed.
"""

from __future__ import annotations

import functools
import math
import os
import re
import textwrap
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from lab import results, schema
from lab import tuning as tuning_rule
from lab.metrics import explain
from lab.metrics import label as metric_label
from lab.results import Shape

ROOT = schema.ROOT
REFERENCE_CSV = ROOT / "docs" / "reference-timings.csv"
REFERENCE_MD = ROOT / "docs" / "reference-timings.md"


class TemplateError(Exception):
    """A call the committed results cannot answer: a bad parameter or a missing row."""


@dataclass(frozen=True)
class Page:
    """The document being rendered: its folder (for relative links) and its GPU."""

    folder: Path
    gpu: str

    def link(self, target: Path, text: str) -> str:
        return f"[{text}]({os.path.relpath(target, self.folder)})"


# ------------------------------------------------------------- the results files

# The layout of each kind of results file (docs/results/<gpu>-<kind>.csv) that is not a sweep's.
LAYOUT_OF = {"profile": "profile", "peers": "peers", "timing": "timing", "reference-timings": "reference"}


@functools.cache
def load(gpu: str, kind: str = "bench") -> pd.DataFrame:
    """A results file (gpu "": docs/reference-timings.csv) with one more column, `at`: the shape as text."""
    file = REFERENCE_CSV if not gpu else results.path(gpu, kind)
    try:
        frame = results.load(file, LAYOUT_OF.get(kind, "bench"))
    except results.ResultsError as err:
        raise TemplateError(str(err)) from err
    offset = frame["offset"] if "offset" in frame else pd.Series(0, index=frame.index)
    frame["at"] = [str(Shape(r, c, o)) for r, c, o in zip(frame["rows"], frame["cols"], offset, strict=True)]
    return frame


def read_env(file: Path) -> dict:
    """The `key: value` lines of an env file (docs/results/<gpu>-env.txt)."""
    if not file.is_file():
        return {}
    pairs = (line.partition(":") for line in file.read_text().splitlines())
    return {key.strip(): value.strip() for key, sep, value in pairs if sep}


def source(gpu: str, kind: str = "bench") -> str:
    """The line under a table: which file, measured on which GPU (from the env file beside it), and when."""
    file = REFERENCE_CSV if not gpu else results.path(gpu, kind)
    if kind == "reference-timings":
        first = load(gpu, kind).iloc[0]
        return f"*Source: {file.relative_to(ROOT)} ({first['gpu']}, {first['date']}).*"
    env = read_env(schema.RESULTS / f"{file.stem}-env.txt") or read_env(schema.RESULTS / f"{gpu}-env.txt")
    name = env.get("gpu") or load(gpu, kind)["gpu"].iloc[0]
    when = f", {env['date_utc']} UTC" if "date_utc" in env else ""
    return f"*Source: {file.relative_to(ROOT)} ({name}{when}).*"


@functools.cache
def runs(gpu: str, kind: str = "bench") -> dict:
    """{(step, shape): rows}: one entry per run of a step program at a shape, in file order."""
    return dict(tuple(load(gpu, kind).groupby(["step", "at"], sort=False)))


def the_run(gpu: str, step: str, shape: Shape, kind: str = "bench") -> pd.DataFrame:
    """The rows of one run; an error if the results have none."""
    run = runs(gpu, kind).get((step, str(shape)))
    if run is None:
        raise TemplateError(f"no run of step {step} at {shape} in {results.path(gpu, kind).name}")
    return run


@functools.cache
def variants_defined(step: str) -> frozenset:
    """The variant names the step's .cu file (steps/NN_*/*.cu) defines today."""
    text = "".join(cu.read_text() for cu in ROOT.glob(f"steps/{step}_*/*.cu"))
    return frozenset(re.findall(r'^\s*\{"(\w+)",', text, flags=re.M))


def kernels(run: pd.DataFrame) -> pd.DataFrame:
    """The program's own kernels, in the order it printed them, less those its step no longer defines."""
    return current(run[run["role"] == "kernel"])


def current(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows less those of variants the step no longer defines: value() may quote them, the tables don't."""
    keep = [role != "kernel" or kernel in variants_defined(step)
            for step, kernel, role in zip(rows["step"], rows["kernel"], rows["role"], strict=True)]
    return rows[keep]


def copy_bound(run: pd.DataFrame) -> pd.Series | None:
    """The faster copy of a run, or None if it timed none."""
    copies = run[(run["role"] == "copy") & (run["median_ms"] > 0)]
    return copies.loc[copies["median_ms"].idxmin()] if len(copies) else None


def library(run: pd.DataFrame) -> pd.Series | None:
    """The library transpose (cuBLAS) of a run, or None."""
    rows = run[run["role"] == "library"]
    return rows.iloc[0] if len(rows) else None


def default_kernel(run: pd.DataFrame) -> pd.Series | None:
    """The step's default kernel: the first kernel its program prints."""
    rows = kernels(run)
    return rows.iloc[0] if len(rows) else None


@functools.cache
def default_names(gpu: str) -> dict:
    """{step: the name of its default kernel} over the sweep of one GPU."""
    first = kernels(load(gpu)).drop_duplicates("step")
    return dict(zip(first["step"], first["kernel"], strict=True))


# ------------------------------------------------------------- formatting

def fmt_ms(value: float) -> str:
    """A time in ms with four or five significant digits."""
    if pd.isna(value):
        return "-"
    for limit, digits in ((100, 1), (10, 2), (1, 3), (0.1, 4)):
        if value >= limit:
            return f"{value:.{digits}f}"
    return f"{value:.5f}"


def formatter(pattern: str):
    """A cell's formatter: the pattern for a number, "-" for an empty cell."""
    return lambda value: "-" if pd.isna(value) else pattern.format(value)


fmt_gbps, fmt_pct, fmt_ratio = formatter("{:.0f}"), formatter("{:.1f} %"), formatter("{:.2f}x")
fmt_ratio3 = formatter("{:.3f}x")


def fmt_metric(value: float) -> str:
    """A counter: whole numbers with thousands separators, others to 3 significant digits."""
    if pd.isna(value):
        return "-"
    if value == int(value) and abs(value) >= 1:
        return f"{int(value):,}"
    return f"{value:.3g}" if abs(value) < 100 else f"{value:,.1f}"


def fmt_text(value, empty: str = "-") -> str:
    return empty if pd.isna(value) or value == "" else str(value)


# Columns of words, left-aligned; every other column after the first holds numbers.
TEXT_COLUMNS = ("kernel", "library", "op", "check", "step", "idea", "write-up", "exercise")


def markdown(header: list[str], body: list[list[str]]) -> str:
    """A Markdown table; numeric columns are right-aligned."""
    align = ["---"] + ["---" if h in TEXT_COLUMNS else "--:" for h in header[1:]]
    return "\n".join("| " + " | ".join(cells) + " |" for cells in [header, align, *body])


def wrapped(part: str) -> str:
    """A one-line paragraph wrapped at 100 characters; tables and lists as they are."""
    if part.startswith("|") or "\n" in part:
        return part
    return textwrap.fill(part, width=100, break_long_words=False, break_on_hyphens=False)


def block(*parts: str) -> str:
    """The parts that are not empty, as paragraphs."""
    return "\n\n".join(wrapped(part) for part in parts if part)


# ------------------------------------------------------------- parameters

def split(text: str | None) -> list[str]:
    return [item for item in (text or "").split(",") if item]


def step_list(text: str | None, required: bool = True) -> list[str]:
    steps = split(text)
    if required and not steps:
        raise TemplateError("no step given")
    bad = [s for s in steps if not re.fullmatch(r"\d\d", s)]
    if bad:
        raise TemplateError(f"step '{bad[0]}' is not two digits")
    return steps


def shape_list(text: str | None) -> list[Shape]:
    shapes = [Shape.parse(item) for item in split(text)]  # a ValueError names a bad one
    if not shapes:
        raise TemplateError("no shape given")
    return shapes


# ------------------------------------------------------------- step tables

# How the tables name the baselines (display only: the role column says which rows they are).
DISPLAY_NAMES = {"memcpy": "cudaMemcpy D2D", "copy_kernel": "copy kernel", "cublas": "cuBLAS cublasSgeam"}
MEASURED_HEADER = ["median ms", "GB/s", "% of copy", "vs cuBLAS", "check"]


def measured_cells(row: pd.Series) -> list[str]:
    return [fmt_ms(row["median_ms"]), fmt_gbps(row["gbps"]), fmt_pct(row["pct_of_copy"]),
            fmt_ratio(row["vs_cublas"]), fmt_text(row["check"])]


def kernel_label(step: str, kernel: str, default: str) -> str:
    return f"{step} {kernel}" if kernel == default else f"{step} {default} (--variant {kernel})"


def labelled_rows(run: pd.DataFrame, step: str, default: str) -> list[tuple[str, pd.Series]]:
    """(label, row) of a run's kernels, then of its bounds, marked as copies."""
    rows = [(kernel_label(step, r["kernel"], default), r) for _, r in kernels(run).iterrows()]
    bounds = run[run["role"] == "bound"]
    return rows + [(f"{step} {default} (--variant {r['kernel']}: a copy, the bound)", r) for _, r in bounds.iterrows()]


def baseline_rows(run: pd.DataFrame, first_cell: str) -> list[list[str]]:
    """The copy bound and cuBLAS of one run of the sweep (every run times both)."""
    best, blas = copy_bound(run), library(run)
    return [[first_cell, f"copy bound ({best['kernel']})"] + measured_cells(best),
            ["", DISPLAY_NAMES.get(blas["kernel"], blas["kernel"])] + measured_cells(blas)]


def table(page: Page, steps: str, shapes: str, gpu: str | None = None) -> str:
    """Per shape: the copy bound and cuBLAS of the first step's run, then every kernel of the steps."""
    gpu, steps = gpu or page.gpu, step_list(steps)
    body = []
    for shape in shape_list(shapes):
        body += baseline_rows(the_run(gpu, steps[0], shape), shape.label())
        for step in steps:
            for label, row in labelled_rows(the_run(gpu, step, shape), step, default_names(gpu)[step]):
                body.append(["", label] + measured_cells(row))
    note = (f"Copy bound and cuBLAS: measured by the step {steps[0]} program at each shape. "
            "Each row's % of copy and vs cuBLAS come from its own run.")
    return block(note, markdown(["shape", "kernel"] + MEASURED_HEADER, body), source(gpu))


def compact(page: Page, steps: str, shapes: str, variants: str | None = None, study: str | None = None,
            gpu: str | None = None) -> str:
    """One row per kernel and shape, with the copy bound and cuBLAS of its own run as columns.

    variants= lists the steps that show every variant (the others: their default kernel);
    study=NAME reads docs/results/<gpu>-NAME.csv instead of the sweep.
    """
    gpu, steps, kind = gpu or page.gpu, step_list(steps), study or "bench"
    every_variant = set(step_list(variants, required=False) or steps)
    body = []
    for shape in shape_list(shapes):
        for step in steps:
            run = the_run(gpu, step, shape, kind)
            best, blas = copy_bound(run), library(run)
            rows = labelled_rows(run, step, default_kernel(run)["kernel"])
            for label, row in rows if step in every_variant else rows[:1]:
                body.append([shape.label(), label, fmt_ms(best["median_ms"]), fmt_ms(blas["median_ms"]),
                             fmt_ms(row["median_ms"]), fmt_pct(row["pct_of_copy"]), fmt_ratio(row["vs_cublas"])])
    header = ["shape", "kernel", "copy ms", "cuBLAS ms", "kernel ms", "% of copy", "vs cuBLAS"]
    note = ("Median times; copy and cuBLAS were timed in the same run as the kernel, so "
            "% of copy = copy ms / kernel ms and vs cuBLAS = cuBLAS ms / kernel ms.")
    return block(note, markdown(header, body), source(gpu, kind))


def write_up(step: str) -> Path | None:
    """docs/steps/NN_name.md of a step, or None."""
    return next(iter(sorted((ROOT / "docs" / "steps").glob(f"{step}_*.md"))), None)


def ladder(page: Page, shape: str, gpu: str | None = None) -> str:
    """The default kernel of every step at one shape, after the baselines."""
    gpu, shape = gpu or page.gpu, shape_list(shape)[0]
    steps = sorted(step for step, at in runs(gpu) if at == str(shape))
    if not steps:
        raise TemplateError(f"no run at {shape} in {results.path(gpu).name}")
    body = baseline_rows(the_run(gpu, steps[0], shape), "")
    for step in steps:
        kernel, page_of_step = default_kernel(the_run(gpu, step, shape)), write_up(step)
        cell = page.link(page_of_step, step) if page_of_step else step
        body.append([cell, kernel["kernel"]] + measured_cells(kernel))
    note = (f"{shape.label()}, the default kernel of each step. Copy bound and cuBLAS: measured by "
            f"the step {steps[0]} program. Each row's % of copy and vs cuBLAS come from its own run.")
    return block(note, markdown(["step", "kernel"] + MEASURED_HEADER, body), source(gpu))


def best_kernel(gpu: str, shape: Shape, column: str) -> pd.Series:
    """The kernel row of any step at a shape with the highest value of column."""
    rows = load(gpu)
    rows = kernels(rows[rows["at"] == str(shape)])
    return rows.loc[rows[column].idxmax()]


def gaps(page: Page, step: str, gpu: str | None = None) -> str:
    """Every swept shape where the step's default kernel trails the best kernel by more than a point."""
    gpu, step = gpu or page.gpu, step_list(step)[0]
    shapes = sorted((Shape.parse(at) for s, at in runs(gpu) if s == step),
                    key=lambda sh: (sh.rows * sh.cols, sh.rows, sh.offset))
    body = []
    for shape in shapes:
        ours, best = default_kernel(the_run(gpu, step, shape)), best_kernel(gpu, shape, "pct_of_copy")
        gap = best["pct_of_copy"] - ours["pct_of_copy"]
        if gap > 1:
            body.append([shape.label(), fmt_pct(ours["pct_of_copy"]),
                         f"{best['step']} {best['kernel']}: {fmt_pct(best['pct_of_copy'])}", f"{gap:.1f}",
                         f"{ours['median_ms'] / best['median_ms']:.3f}", f"{ours['min_ms'] / best['min_ms']:.3f}"])
    note = (f"Step {step}'s default kernel against the fastest kernel of any step, at every swept shape where it "
            f"trails by more than 1 point of % of copy (each from its own run). Time ratios above 1 mean step {step} "
            "is slower; where the fastest runs agree and only the medians differ, the gap is the run, not the kernel.")
    header = ["shape", f"step {step}", "fastest in the tutorial", "gap (points)", "median time ratio",
              "fastest-run time ratio"]
    return block(note, markdown(header, body) if body else "*No such shape.*", source(gpu))


# ------------------------------------------------------------- the performance bar

SQUARE = [Shape.parse(s) for s in ("32768x32768", "16384x16384", "8192x8192", "4096x4096", "12800x1280",
                                   "1280x12800")]
ODD = [Shape.parse(s) for s in ("10007x7919", "16385x16383", "20000x20000", "3000x50000", "50000x3000",
                                "8192x8192+1", "8192x8192+2", "8192x8192+3")]
VECTORS = [Shape(1, 67108864), Shape(67108864, 1)]


@dataclass(frozen=True)
class Bar:
    """What a step must reach: (shapes, column, least value, label) per criterion."""

    criteria: tuple
    least_geomean: float | None = None   # of vs cuBLAS over SQUARE
    peer_margin: float | None = None     # points of % of copy a peer may lead by


BARS = {
    "step10": Bar(((SQUARE, "pct_of_copy", 95.0, "% of copy >= 95"),
                   (SQUARE, "vs_cublas", 1.05, "vs cuBLAS >= 1.05x"),
                   ([Shape(10007, 7919)], "vs_cublas", 1.0, "vs cuBLAS >= 1.00x"),
                   (VECTORS, "pct_of_copy", 90.0, "% of copy >= 90")), least_geomean=1.10),
    # The last step: full speed on every shape, and at least cuBLAS's.
    "last_step": Bar(((SQUARE, "pct_of_copy", 97.0, "% of copy >= 97"),
                      (ODD, "pct_of_copy", 92.0, "% of copy >= 92"),
                      (VECTORS, "pct_of_copy", 95.0, "% of copy >= 95"),
                      (SQUARE + ODD + VECTORS, "vs_cublas", 1.0, "vs cuBLAS >= 1.00x")), peer_margin=1.0),
}


def bar_value(column: str, value: float) -> str:
    return fmt_pct(value) if column == "pct_of_copy" else fmt_ratio3(value)


def status(met: bool) -> str:
    return "met" if met else "**missed**"


def peer_bar_rows(gpu: str, shapes: list[Shape], margin: float) -> list[list[str]]:
    """Per shape the peers run measured: the best peer's % of copy against the tutorial's."""
    peers_ = load(gpu, "peers")
    body = []
    for shape in shapes:
        rows = peers_[peers_["at"] == str(shape)]
        ours = rows[rows["role"] == "tutorial"]["pct_of_copy"].dropna()
        theirs = rows[rows["role"] == "peer"].dropna(subset=["pct_of_copy"])
        if ours.empty or theirs.empty:
            continue
        best, peer = max(zip(theirs["pct_of_copy"], theirs["peer"], strict=True))
        body.append([shape.label(), f"no peer ahead by more than {margin:g} point",
                     f"{peer} {best:.1f} % against {ours.iloc[0]:.1f} %", status(best - ours.iloc[0] <= margin), "-"])
    return body


def bar(page: Page, step: str, criteria: str = "step10", gpu: str | None = None) -> str:
    """Each criterion of a bar against the step's default kernel, beside the best kernel at that shape."""
    gpu, step = gpu or page.gpu, step_list(step)[0]
    if criteria not in BARS:
        raise TemplateError(f"unknown bar criteria={criteria} (known: {', '.join(BARS)})")
    goal, body, ratios = BARS[criteria], [], []
    for shapes, column, least, label in goal.criteria:
        for shape in shapes:
            kernel, best = default_kernel(the_run(gpu, step, shape)), best_kernel(gpu, shape, column)
            measured = kernel[column]
            if column == "vs_cublas" and shapes is SQUARE:
                ratios.append(measured)
            body.append([shape.label(), label, bar_value(column, measured), status(measured >= least),
                         f"{best['step']} {best['kernel']}: {bar_value(column, best[column])}"])
    if goal.least_geomean:
        geomean = math.exp(sum(math.log(v) for v in ratios) / len(ratios))
        body.append(["geometric mean of the six", f"vs cuBLAS >= {goal.least_geomean:.2f}x", fmt_ratio3(geomean),
                     status(geomean >= goal.least_geomean), "-"])
    note = (f"Step {step}'s default kernel (`{default_names(gpu)[step]}`); every ratio is taken within one run of "
            "the step program. *Best in the tutorial*: the best kernel of any step and variant at that shape, "
            "in its own run.")
    if goal.peer_margin is not None:
        shapes = list(dict.fromkeys(shape for c in goal.criteria for shape in c[0]))
        body += peer_bar_rows(gpu, shapes, goal.peer_margin)
        note += (" The peer rows compare the step with the other libraries in the peers run (`make peers`), "
                 "at the shapes it measures.")
    header = ["shape", "criterion", "measured", "status", "best in the tutorial"]
    return block(note, markdown(header, body), source(gpu))


# ------------------------------------------------------------- Nsight Compute counters

def profile_rows(gpu: str, steps: list[str], shape: Shape, variant: str | None) -> list[tuple]:
    """(label, {metric: value}) of the steps' kernels: each default first, its variants, then baselines."""
    rows = load(gpu, "profile")
    rows = rows[rows["step"].isin(steps) & (rows["at"] == str(shape))]
    if rows.empty:
        raise TemplateError(f"no profile of steps {','.join(steps)} at {shape}")
    wide = rows.pivot_table(index=["step", "kernel", "role"], columns="metric", values="value",
                            aggfunc="last", sort=False)
    wide = current(wide.reset_index())
    if variant:
        wide = wide[(wide["role"] != "kernel") | (wide["kernel"] == variant)]
    defaults = default_names(gpu)
    wide = wide.assign(position=wide["step"].map(steps.index), baseline=wide["role"] != "kernel",
                       variant=wide["kernel"] != wide["step"].map(defaults))
    wide = wide.sort_values(["position", "baseline", "variant"], kind="stable")
    return [(DISPLAY_NAMES.get(row["kernel"], row["kernel"]) if row["baseline"]
             else kernel_label(row["step"], row["kernel"], defaults[row["step"]]), row)
            for _, row in wide.iterrows()]


def profile(page: Page, shape: str, metrics: str, steps: str, variant: str | None = None, baselines: str = "no",
            gpu: str | None = None) -> str:
    """Kernels x Nsight Compute metrics of some steps at one shape, from <gpu>-profile.csv.

    variant= keeps that variant of each step, and the baselines. baselines="yes" only tells
    lab.profile that the plan must profile the copy and cuBLAS rows too.
    """
    gpu, shape, wanted = gpu or page.gpu, shape_list(shape)[0], split(metrics)
    labelled = profile_rows(gpu, step_list(steps), shape, variant)
    missing = [m for m in wanted if all(m not in row or pd.isna(row[m]) for _, row in labelled)]
    if missing:
        raise TemplateError(f"no kernel at {shape} has the metric {missing[0]}")
    body = [[name] + [fmt_metric(row.get(m)) for m in wanted] for name, row in labelled]
    legend = "; ".join(f"{metric_label(m)} = {explain(m)}" for m in wanted if metric_label(m) != m)
    return block(f"{shape.label()}, one kernel launch each.",
                 markdown(["kernel"] + [metric_label(m) for m in wanted], body),
                 f"Metrics: {legend}." if legend else "", source(gpu, "profile"))


# ------------------------------------------------------------- other libraries and the timing study

def peers(page: Page, gpu: str | None = None) -> str:
    """PyTorch, CuPy and the others against the copy bound, from <gpu>-peers.csv."""
    gpu = gpu or page.gpu
    rows = load(gpu, "peers")
    # Most rows share one timing method; the others are marked and named in the note.
    counts = Counter(m for m in rows["method"] if isinstance(m, str))
    usual = counts.most_common(1)[0][0] if counts else ""
    others = sorted(m for m in counts if m != usual)
    body, last = [], None
    for _, row in rows.iterrows():
        shape = Shape.parse(row["at"]).label()
        op = f"`{row['op']}`" if isinstance(row["op"], str) else "-"
        op += " (copy bound)" if row["role"] == "copy" else ""
        op += " " + "\\*" * (others.index(row["method"]) + 1) if row["method"] in others else ""
        body.append([shape if shape != last else "", f"{row['peer']} {fmt_text(row['version'], '')}".strip(), op,
                     fmt_ms(row["median_ms"]), fmt_gbps(row["gbps"]), fmt_pct(row["pct_of_copy"]),
                     fmt_ratio(row["vs_tutorial"]), fmt_text(row["check"])])
        last = shape
    note = ("% of copy: against a device-to-device copy of the same bytes timed in the same run. "
            "vs tutorial: the tutorial's time over this one (above 1: faster than the tutorial).")
    note += f" Timing: {usual}." if usual else ""
    note += "".join(" " + "\\*" * (i + 1) + f": {method}." for i, method in enumerate(others))
    header = ["shape", "library", "op", "median ms", "GB/s", "% of copy", "vs tutorial", "check"]
    return block(note, markdown(header, body), source(gpu, "peers"))


FLUSH_NAMES = {"write": "memset of 2 x L2 (old)", "read": "read of 4 x L2 (now)"}


def timing(page: Page, gpu: str | None = None) -> str:
    """The copy bound and the default kernel under each L2 flush, per shape."""
    gpu = gpu or page.gpu
    body = []
    for flush, name in FLUSH_NAMES.items():
        for (step, at), run in runs(gpu, "timing").items():
            run = run[run["flush"] == flush]
            best, kernel = copy_bound(run), default_kernel(run)
            body.append([Shape.parse(at).label(), name, fmt_ms(best["median_ms"]), f"{step} {kernel['kernel']}",
                         fmt_ms(kernel["median_ms"]), fmt_pct(kernel["pct_of_copy"])])
    header = ["shape", "L2 flush", "copy bound ms", "kernel", "kernel ms", "% of copy"]
    note = "Median of the runs; the copy bound is the faster of cudaMemcpy and the copy kernel in the same run."
    return block(note, markdown(header, body), source(gpu, "timing"))


# ------------------------------------------------------------- the steps and the exercises

STEP_DEFINE = re.compile(r'^\s*STEP_DEFINE\(\s*"((?:[^"\\]|\\.)*)"', re.M)


def steps(page: Page) -> str:
    """The list of steps: one row per steps/NN_name/ folder, its idea the title on its STEP_DEFINE line."""
    body = []
    for folder in sorted(p for p in (ROOT / "steps").iterdir() if re.fullmatch(r"\d\d_\w+", p.name)):
        titled = [(cu, STEP_DEFINE.search(cu.read_text())) for cu in sorted(folder.glob("*.cu"))]
        cu, title = next(((cu, m.group(1)) for cu, m in titled if m), (None, None))
        if cu is None:
            raise TemplateError(f"{folder.relative_to(ROOT)} has no .cu file with STEP_DEFINE(\"title\", ...)")
        step, doc = folder.name[:2], write_up(folder.name[:2])
        body.append([page.link(cu, folder.name), re.sub(r"\\(.)", r"\1", title).replace("|", "\\|"),
                     page.link(doc, step) if doc else "-"])
    note = "*Source: the folders under steps/ and the STEP_DEFINE line of each step's .cu file.*"
    return block(markdown(["step", "idea", "write-up"], body), note)


def exercise_rows(ex: str) -> dict:
    """{kernel: row} of one exercise in docs/reference-timings.csv (kernel: reference, step, ...)."""
    rows = load("", "reference-timings")
    mine = rows[rows["exercise"].str.split("_").str[0] == ex]
    return {row["kernel"]: row for _, row in mine.iterrows()}


def also_row(gpu: str, item: str, shape: Shape) -> tuple[str, pd.Series]:
    """(label, row) of one also= item: NN is step NN's reference row, NN:VARIANT a variant from the sweep."""
    step, _, variant = item.partition(":")
    if not variant:
        return f"step {step}", exercise_rows(step)["step"]
    run = kernels(the_run(gpu, step_list(step)[0], shape))
    row = only(run[run["kernel"] == variant], f"step {step} kernel {variant} at {shape}")
    return f"step {step} `--variant {variant}` (from {results.path(gpu).relative_to(ROOT)})", row


def expected(page: Page, ex: str, also: str | None = None, gpu: str | None = None) -> str:
    """What speed an exercise can expect: the reference solution, the step, and the also= rows."""
    gpu, ex = gpu or page.gpu, step_list(ex)[0]
    mine = exercise_rows(ex)
    reference, step = mine["reference"], mine["step"]
    shape = Shape.parse(reference["at"])
    entries = [("the reference solution", reference), (f"step {ex}", step)]
    entries += [also_row(gpu, item, shape) for item in split(also)]
    body = [[label, fmt_ms(row["median_ms"]), fmt_gbps(row["gbps"]), fmt_pct(row["pct_of_copy"]),
             fmt_ratio(row["median_ms"] / reference["median_ms"])] for label, row in entries]
    note = (f"Measured on the {reference['gpu']} at {shape.label()}, the shape `make grade` times "
            f"({page.link(REFERENCE_MD, 'docs/reference-timings.md')}). A kernel as fast as the reference grades "
            f"about **1.00x vs reference** and **{fmt_ratio(step['median_ms'] / reference['median_ms'])} vs step "
            f"{ex}** there. *reference vs this*: the row's time over the reference's, as `make grade` computes "
            "*vs step*; above 1.00x the reference is faster. % of copy carries over to other GPUs better than "
            "GB/s does.")
    header = ["kernel", "median ms", "GB/s", "% of copy", "reference vs this"]
    return block(note, markdown(header, body), source("", "reference-timings"))


def reference(page: Page, gpu: str | None = None) -> str:
    """All of docs/reference-timings.csv (or another GPU's): machine, table, sources."""
    rows = load(gpu or "", "reference-timings")
    first = rows.iloc[0]
    machine = "\n".join([f"- GPU: {first['gpu']}", f"- Driver: {first['driver']}", f"- CUDA: {first['cuda']}",
                         f"- Date: {first['date']}",
                         f"- Shape: {Shape.parse(first['at']).label()} float32; the harness times each kernel on the "
                         "same buffers (median of its timed runs, L2 flushed in between)"])
    body = [[row["exercise"], row["kernel"], fmt_ms(row["median_ms"]), fmt_gbps(row["gbps"]),
             fmt_pct(row["pct_of_copy"]), fmt_ratio(row["vs_cublas"])] for _, row in rows.iterrows()]
    sources = rows.dropna(subset=["source"]).drop_duplicates("source")
    listing = "\n".join(f"- {row['source']}" + (f": `{row['sha256']}`" if isinstance(row["sha256"], str) else "")
                        for _, row in sources.iterrows())
    return block(machine, markdown(["exercise", "kernel", "median ms", "GB/s", "% of copy", "vs cuBLAS"], body),
                 "Sources of the rows above. A solution's sha256 covers the solution file and the exercise header "
                 "it includes, if any:", listing, source(gpu or "", "reference-timings"))


# ------------------------------------------------------------- one number in a sentence

MEASURED = {"median_ms": fmt_ms, "min_ms": fmt_ms, "gbps": formatter("{:,.0f}"), "pct_of_copy": fmt_pct}
BENCH_FORMATS = dict(MEASURED, vs_cublas=fmt_ratio)
PEER_FORMATS = dict(MEASURED, vs_tutorial=fmt_ratio)


def only(rows: pd.DataFrame, what: str) -> pd.Series:
    """The first of the rows; an error naming what was asked for if there is none."""
    if rows.empty:
        raise TemplateError(f"no row for {what}")
    return rows.iloc[0]


def quoted(row: pd.Series, col: str | None, formats: dict, what: str) -> str:
    """One cell of a row, as a sentence writes it."""
    if col not in formats:
        raise TemplateError(f"col= takes {', '.join(formats)}")
    if pd.isna(row[col]):
        raise TemplateError(f"{what} has no measured {col}")
    return formats[col](row[col])


def bench_row(gpu: str, step: str, shape: Shape, kernel: str | None) -> pd.Series:
    """A kernel of a step's run (its default without kernel=), or its copy_bound or cublas."""
    run = the_run(gpu, step_list(step)[0], shape)
    special = {"copy_bound": copy_bound, "cublas": library, None: default_kernel}
    row = special[kernel](run) if kernel in special else only(run[run["kernel"] == kernel], f"kernel {kernel}")
    if row is None:
        raise TemplateError(f"step {step}'s run at {shape} has no {kernel or 'kernel'} row")
    return row


def peer_row(gpu: str, peer: str, shape: Shape, what: str) -> pd.Series:
    """The tutorial's row of the peers run, or a peer's own (not its copy bound)."""
    rows = load(gpu, "peers")
    rows = rows[rows["at"] == str(shape)]
    mine = rows["role"] == "tutorial" if peer == "tutorial" else (rows["peer"] == peer) & (rows["role"] != "copy")
    return only(rows[mine], what)


def value(page: Page, shape: str | None = None, col: str | None = None, step: str | None = None,
          kernel: str | None = None, peer: str | None = None, metric: str | None = None, flush: str | None = None,
          max: str | None = None, min_side: str = "1", tuning: str | None = None, gpu: str | None = None) -> str:
    """One measured number, formatted as the tables write it (94.7 %, 1.05x, 0.1305, 2,097,152).

    step= [kernel=] shape= col=     a kernel of the sweep (kernel=copy_bound or cublas: a baseline)
    step= [kernel=] shape= metric=  a counter of <gpu>-profile.csv
    peer= shape= col=               a row of <gpu>-peers.csv
    flush= kernel= shape= col=      a row of the timing study, <gpu>-timing.csv
    max=pct_of_copy min_side=N      the highest % of copy at shapes with both sides >= N
    tuning=vec4_limit               the size up to which step 12's answer runs step 09's kernel
    """
    gpu = gpu or page.gpu
    what = ", ".join(f"{k}={v}" for k, v in dict(step=step, kernel=kernel, peer=peer, shape=shape, col=col,
                                                  metric=metric, flush=flush).items() if v)
    if max is not None:
        return highest(gpu, max, min_side)
    if tuning is not None:
        return vec4_limit(gpu, tuning)
    at = shape_list(shape)[0]
    if flush is not None:
        rows = load(gpu, "timing")
        row = only(rows[(rows["flush"] == flush) & (rows["kernel"] == kernel) & (rows["at"] == str(at))], what)
        return quoted(row, col, BENCH_FORMATS, what)
    if peer is not None:
        return quoted(peer_row(gpu, peer, at, what), col, PEER_FORMATS, what)
    if metric is not None:
        step, rows = step_list(step)[0], load(gpu, "profile")
        kernel = kernel or default_names(gpu).get(step)
        rows = rows[(rows["step"] == step) & (rows["kernel"] == kernel) & (rows["metric"] == metric)]
        return fmt_metric(only(rows[rows["at"] == str(at)], what)["value"])
    return quoted(bench_row(gpu, step, at, kernel), col, BENCH_FORMATS, what)


def highest(gpu: str, column: str, min_side: str) -> str:
    """The highest % of copy of any kernel or bound of the sweep at shapes whose sides are both >= min_side."""
    if column != "pct_of_copy":
        raise TemplateError("max= takes pct_of_copy")
    rows, side = load(gpu), int(min_side)
    rows = rows[rows["role"].isin(["kernel", "bound"]) & (rows["rows"] >= side) & (rows["cols"] >= side)]
    if rows["pct_of_copy"].dropna().empty:
        raise TemplateError(f"no kernel in {results.path(gpu).name} has both sides >= {side}")
    return fmt_pct(rows["pct_of_copy"].max())


def vec4_limit(gpu: str, tuning: str) -> str:
    """The size up to which step 12's answer runs step 09's kernel, read off the sweep (lab.tuning)."""
    if tuning != "vec4_limit":
        raise TemplateError("tuning= takes vec4_limit")
    limit = tuning_rule.limits(gpu)
    if limit == 0:
        raise TemplateError(f"{results.path(gpu).name} gives step 09's kernel no lead at any size")
    return tuning_rule.label(limit)


FUNCTIONS = (table, compact, gaps, profile, ladder, bar, peers, timing, steps, expected, reference, value)
