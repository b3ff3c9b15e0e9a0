"""The tables and numbers that the write-ups' templates (`*.md.j2`) ask for; lab.docs renders them.

Each function reads the committed results in docs/results/ and returns Markdown (a note, a table,
its source) or, for value(), one number. A missing row is an error, never a made-up cell. gpu=
defaults to the page's GPU. Every ratio shown is the one its own run printed.
"""

from __future__ import annotations

import functools
import os
import re
import statistics
import textwrap
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from lab import bench, machine, results, schema
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
@functools.cache
def load(gpu: str, kind: str = "bench") -> pd.DataFrame:
    """A results file (gpu "": docs/reference-timings.csv) with one more column, `at`: the shape as text."""
    # The layout of a kind of results file (docs/results/<gpu>-<kind>.csv): its own, a bf16 file's that of its
    # float32 twin, a file of no layout of its own (a study's) a sweep's.
    layout = {"peers-profile": "profile", "reference-timings": "reference"}.get(kind, kind.removesuffix("-bf16"))
    try:
        frame = results.load(results.path(gpu, kind) if gpu else REFERENCE_CSV,
                             layout if layout in schema.LAYOUTS else "bench")
    except results.ResultsError as err:
        raise TemplateError(str(err)) from err
    sides = frame.reindex(columns=["rows", "cols", "offset"], fill_value=0)
    frame["at"] = [str(Shape(*side)) for side in sides.itertuples(index=False)]
    return frame


def select(gpu: str, kind: str = "bench", **equal) -> pd.DataFrame:
    """The rows of a results file whose columns hold the given values (at=: a shape as text)."""
    rows = load(gpu, kind)
    for column, wanted in equal.items():
        rows = rows[rows[column] == wanted]
    return rows


def only(rows: pd.DataFrame, what: str) -> pd.Series:
    """The first of the rows; an error naming what was asked for if there is none."""
    if rows.empty:
        raise TemplateError(f"no row for {what}")
    return rows.iloc[0]


def fastest_peer(rows: pd.DataFrame) -> pd.Series | None:
    """The peer row that passed its check with the highest % of copy, a tie going to the first name; None if none.
    One rule for every page, so that two pages never name different peers for the same run."""
    passed = rows[(rows["role"] == "peer") & (rows["check"] == "PASS")].dropna(subset=["pct_of_copy"])
    return None if passed.empty else passed.sort_values(["pct_of_copy", "peer"], ascending=[False, True]).iloc[0]


def shown(file: Path) -> str:
    """How a page names a results file: from the repository (docs/results/NAME for a copy of the folder)."""
    return (file.relative_to(ROOT) if file.is_relative_to(ROOT) else Path("docs/results", file.name)).as_posix()


def source(gpu: str, kind: str = "bench") -> str:
    """The line under a table: which file, measured on which GPU (from the env file beside it), and when the file
    was last written (make bench RERUN=... rewrites some steps' rows and keeps the others', so a row may be older)."""
    file, first = (results.path(gpu, kind) if gpu else REFERENCE_CSV), load(gpu, kind).iloc[0]
    if kind == "reference-timings":
        return f"*Source: {shown(file)} ({first['gpu']}, {first['date']}).*"
    env_file = file.with_name(f"{file.stem}-env.txt")   # its own: another file's date would be a wrong one
    pairs = [line.partition(":") for line in (env_file.read_text().splitlines() if env_file.is_file() else [])]
    env = {key.strip(): value.strip() for key, sep, value in pairs if sep}
    when = f", last written {env['date_utc']} UTC" if "date_utc" in env else ""
    return f"*Source: {shown(file)} ({env.get('gpu') or first['gpu']}{when}).*"


def the_run(gpu: str, step: str, shape: Shape, kind: str = "bench") -> pd.DataFrame:
    """The rows of the run of a step program at a shape; an error if the results have none."""
    run = select(gpu, kind, step=step, at=str(shape))
    if run.empty:
        raise TemplateError(f"no run of step {step} at {shape} in {results.path(gpu, kind).name}")
    return run


def variants_defined(step: str) -> frozenset:
    """The variant names the step's program defines today, as its --describe says: {"name", ...}."""
    return frozenset(variant["name"] for variant in machine.describe(step)["variants"])


def defined_default(step: str) -> str:
    """The first variant the step's program defines: its default."""
    return machine.describe(step)["default_variant"]


def kernels(run: pd.DataFrame) -> pd.DataFrame:
    """The program's own kernels, in the order it printed them, less those its step no longer defines."""
    own = run[run["role"] == "kernel"]
    return own.loc[[kernel in variants_defined(step) for step, kernel in zip(own["step"], own["kernel"], strict=True)]]


def copy_bound(run: pd.DataFrame) -> pd.Series:
    """The faster copy of a run (cudaMemcpy or the copy kernel)."""
    return only(run[(run["role"] == "copy") & (run["median_ms"] > 0)].nsmallest(1, "median_ms"), "a timed copy")


def library(run: pd.DataFrame) -> pd.Series:
    """The library transpose (cuBLAS) of a run."""
    return only(run[run["role"] == "library"], "the library")


def default_kernel(run: pd.DataFrame) -> pd.Series:
    """The step's default kernel: the first kernel its program prints."""
    return only(kernels(run), "a kernel")


# ------------------------------------------------------------- element types
def dtype_of(step: str) -> str:
    """"float32" or "bf16": the element type of a step (machine.element_bytes asks its program)."""
    return next(name for name, size in machine.DTYPES.items() if size == machine.element_bytes(step))


def known_dtype(dtype: str) -> str:
    """A template's dtype= parameter, or an error naming the element types there are."""
    if dtype not in machine.DTYPES:
        raise TemplateError(f"dtype= takes {', '.join(machine.DTYPES)}, not '{dtype}'")
    return dtype


# ------------------------------------------------------------- formatting
def formatter(write):
    """A cell's formatter: write(value) for a number, "-" for an empty cell."""
    return lambda value: "-" if pd.isna(value) else write(value)


@formatter
def fmt_ms(value: float) -> str:
    """A time in ms with four or five significant digits."""
    digits = next((digits for limit, digits in ((100, 1), (10, 2), (1, 3), (0.1, 4)) if value >= limit), 5)
    return f"{value:.{digits}f}"


fmt_gbps, fmt_pct = formatter("{:.0f}".format), formatter("{:.1f} %".format)
fmt_ratio, fmt_ratio3 = formatter("{:.2f}x".format), formatter("{:.3f}x".format)
CELLS = {"median_ms": fmt_ms, "gbps": fmt_gbps, "pct_of_copy": fmt_pct, "vs_cublas": fmt_ratio,
         "vs_tutorial": fmt_ratio, "check": formatter(str)}  # how the tables write each measured column


@formatter
def fmt_metric(value: float) -> str:
    """A counter: whole numbers with thousands separators, others to 3 significant digits."""
    if value == int(value) and abs(value) >= 1:
        return f"{int(value):,}"
    return f"{value:.3g}" if abs(value) < 100 else f"{value:,.1f}"


def cells(row: pd.Series, *columns: str) -> list[str]:
    """Some measured columns of a row, as the tables write them."""
    return [CELLS[column](row[column]) for column in columns]


def markdown(header: list[str], body: list[list[str]],
             words=("kernel", "library", "op", "check", "idea", "write-up")) -> str:
    """A Markdown table: the first column and the columns of words left-aligned, those of numbers right-aligned."""
    align = ["---"] + ["---" if h in words else "--:" for h in header[1:]]
    return "\n".join("| " + " | ".join(row) + " |" for row in [header, align, *body])


def first_only(body: list[list[str]]) -> list[list[str]]:
    """The rows, the first cell left empty where it repeats the one above."""
    return [[""] + row[1:] if i and row[0] == body[i - 1][0] else row for i, row in enumerate(body)]


def block(*parts: str) -> str:
    """The parts that are not empty, as paragraphs; one-line ones wrapped at 100 characters."""
    return "\n\n".join(part if part.startswith("|") or "\n" in part
                       else textwrap.fill(part, width=100, break_long_words=False, break_on_hyphens=False)
                       for part in parts if part)


# ------------------------------------------------------------- parameters
def split(text: str | None) -> list[str]:
    return [item for item in (text or "").split(",") if item]


def step_list(text: str | None) -> list[str]:
    """The steps of a comma-separated list, each two digits (or the study program); an error if there are none."""
    steps = split(text)
    if not steps or not all(re.fullmatch(rf"\d\d|{machine.STUDY}", step) for step in steps):
        raise TemplateError(f"steps are two digits each, not '{text}'" if steps else "no step given")
    return steps


def shape_list(text: str | None) -> list[Shape]:
    shapes = [Shape.parse(item) for item in split(text)]  # a ValueError names a bad one
    if not shapes:
        raise TemplateError("no shape given")
    return shapes


# ------------------------------------------------------------- step tables
# How the tables name the baselines (display only: the role column says which rows they are). The
# cuBLAS row of a bf16 step times cuBLASLt's transform: cuBLAS has no bf16 geam (common/baselines.h).
DISPLAY_NAMES = {"memcpy": "cudaMemcpy D2D", "copy_kernel": "copy kernel"}
LIBRARY_NAMES = {"float32": "cuBLAS cublasSgeam", "bf16": "cuBLASLt cublasLtMatrixTransform"}
MEASURED = ("median_ms", "gbps", "pct_of_copy", "vs_cublas", "check")
MEASURED_HEADER = ["median ms", "GB/s", "% of copy", "vs cuBLAS", "check"]


def kernel_label(row: pd.Series) -> str:
    """How the tables name a row of a step's run. A run of a study that timed other variants alone (--variant)
    names them after the step's default all the same."""
    step, kernel, default = row["step"], row["kernel"], defined_default(row["step"])
    if row["role"] == "bound":
        return f"{step} {default} (--variant {kernel}: a bound)"
    if row["role"] != "kernel":  # a baseline
        return LIBRARY_NAMES[dtype_of(step)] if kernel == "cublas" else DISPLAY_NAMES.get(kernel, kernel)
    return f"{step} {kernel}" if kernel == default else f"{step} {default} (--variant {kernel})"


def labelled_rows(run: pd.DataFrame) -> list[tuple[str, pd.Series]]:
    """(label, row) of a run's kernels, its default first, then of its bounds."""
    rows = pd.concat([kernels(run), run[run["role"] == "bound"]])
    return [(kernel_label(row), row) for _, row in rows.iterrows()]


def baseline_rows(run: pd.DataFrame, first_cell: str) -> list[list[str]]:
    """The copy bound and cuBLAS of one run of the sweep (every run times both)."""
    best, blas = copy_bound(run), library(run)
    return [[first_cell, f"copy bound ({best['kernel']})"] + cells(best, *MEASURED),
            [first_cell, kernel_label(blas)] + cells(blas, *MEASURED)]


def table(page: Page, steps: str, shapes: str) -> str:
    """Per shape: the copy bound and cuBLAS of the first step's run, then every kernel of the steps."""
    gpu, steps = page.gpu, step_list(steps)
    body = []
    for shape in shape_list(shapes):
        body += baseline_rows(the_run(gpu, steps[0], shape), shape.label())
        body += [[shape.label(), label] + cells(row, *MEASURED)
                 for step in steps for label, row in labelled_rows(the_run(gpu, step, shape))]
    note = (f"Copy bound and cuBLAS: measured by the step {steps[0]} program at each shape. "
            "Each row's % of copy and vs cuBLAS come from its own run.")
    return block(note, markdown(["shape", "kernel"] + MEASURED_HEADER, first_only(body)), source(gpu))


def compact(page: Page, steps: str, shapes: str, variants: str | None = None, study: str | None = None,
            gpu: str | None = None, kernels: str | None = None, note: str = "yes") -> str:
    """One row per kernel and shape, the copy bound and cuBLAS of its own run beside it. variants=: the steps
    that show every variant (the others: their default kernel), or with kernels="a,b" those kernels and bounds alone;
    study=NAME: <gpu>-NAME.csv, not the sweep; note="no": without the note on the columns (a page's later tables)."""
    gpu, steps, kind = gpu or page.gpu, step_list(steps), study or "bench"
    every_variant = step_list(variants) if variants else steps
    body = []
    for shape in shape_list(shapes):
        for step in steps:
            run = the_run(gpu, step, shape, kind)
            rows = labelled_rows(run) if step in every_variant else labelled_rows(run)[:1]
            if kernels and step in every_variant:
                rows = [(label, row) for label, row in rows if row["kernel"] in kernels.split(",")]
                if not rows:
                    raise ValueError(f"step {step} timed none of the kernels {kernels} at {shape.label()}")
            baselines = [fmt_ms(copy_bound(run)["median_ms"]), fmt_ms(library(run)["median_ms"])]
            body += [[shape.label(), label] + baselines + cells(row, "median_ms", "pct_of_copy", "vs_cublas")
                     for label, row in rows]
    header = ["shape", "kernel", "copy ms", "cuBLAS ms", "kernel ms", "% of copy", "vs cuBLAS"]
    note = ("Median times; copy and cuBLAS were timed in the same run as the kernel, so "
            "% of copy = copy ms / kernel ms and vs cuBLAS = cuBLAS ms / kernel ms.") if note != "no" else ""
    return block(note, markdown(header, body), source(gpu, kind))


def write_up(step: str) -> Path | None:
    """docs/steps/NN_name.md of a step, or None."""
    return next(iter(sorted((ROOT / "docs" / "steps").glob(f"{step}_*.md"))), None)


def ladder(page: Page, shape: str, gpu: str | None = None, dtype: str = "float32") -> str:
    """The baselines, then the default kernel of every step of one element type (dtype=) at one shape."""
    gpu, shape = gpu or page.gpu, shape_list(shape)[0]
    measured = select(gpu, at=str(shape))["step"].unique()
    steps = [step for step in machine.steps_of(known_dtype(dtype)) if step in measured]
    if not steps:
        raise TemplateError(f"no run of a {dtype} step at {shape} in {results.path(gpu).name}")
    body = baseline_rows(the_run(gpu, steps[0], shape), "")
    for step in steps:
        kernel, doc = default_kernel(the_run(gpu, step, shape)), write_up(step)
        body.append([page.link(doc, step) if doc else step, kernel["kernel"]] + cells(kernel, *MEASURED))
    note = (f"{shape.label()}, the default kernel of each step. Copy bound and cuBLAS: measured by "
            f"the step {steps[0]} program. Each row's % of copy and vs cuBLAS come from its own run.")
    return block(note, markdown(["step", "kernel"] + MEASURED_HEADER, body), source(gpu))


def best_kernel(gpu: str, shape: Shape, column: str, step: str) -> pd.Series:
    """The kernel row with the highest value of column at a shape, of any step whose elements are of step's type:
    a bf16 kernel is never compared with a float32 one, and the other way round."""
    rows = select(gpu, at=str(shape))
    rows = rows[rows["step"].isin(machine.steps_of(dtype_of(step)))]
    return only(kernels(rows).nlargest(1, column), f"a {dtype_of(step)} kernel")


def gaps(page: Page, step: str, gpu: str | None = None) -> str:
    """Every swept shape where the step's default kernel trails the best kernel by more than a point."""
    gpu, step = gpu or page.gpu, step_list(step)[0]
    shapes = sorted(map(Shape.parse, select(gpu, step=step)["at"].unique()),
                    key=lambda sh: (sh.rows * sh.cols, sh.rows, sh.offset))
    body = []
    for shape in shapes:
        ours, best = default_kernel(the_run(gpu, step, shape)), best_kernel(gpu, shape, "pct_of_copy", step)
        gap = best["pct_of_copy"] - ours["pct_of_copy"]
        if gap > 1:
            body.append([shape.label(), fmt_pct(ours["pct_of_copy"]),
                         f"{best['step']} {best['kernel']}: {fmt_pct(best['pct_of_copy'])}", f"{gap:.1f}",
                         f"{ours['median_ms'] / best['median_ms']:.3f}", f"{ours['min_ms'] / best['min_ms']:.3f}"])
    note = (f"Step {step}'s default kernel against the fastest kernel of any {dtype_of(step)} step, at every swept "
            "shape where it trails by more than 1 point of % of copy (each from its own run). Time ratios above 1 "
            f"mean step {step} is slower; where the fastest runs agree and only the medians differ, the gap is the "
            "run, not the kernel.")
    header = ["shape", f"step {step}", "fastest in the tutorial", "gap (points)", "median time ratio",
              "fastest-run time ratio"]
    return block(note, markdown(header, body) if body else "*No such shape.*", source(gpu))


# ------------------------------------------------------------- the performance bar
SQUARE = shape_list("32768x32768,16384x16384,8192x8192,4096x4096,12800x1280,1280x12800")
ODD = shape_list("10007x7919,16385x16383,20000x20000,3000x50000,50000x3000,8192x8192+1,8192x8192+2,8192x8192+3")
VECTORS = shape_list("1x67108864,67108864x1")

# What a step must reach: (shapes, column, least value, label) per criterion; least_geomean: of vs cuBLAS
# over SQUARE; peer_margin: the points of % of copy a peer may lead by.
BARS = {
    "step10": dict(criteria=((SQUARE, "pct_of_copy", 95.0, "% of copy >= 95"),
                             (SQUARE, "vs_cublas", 1.05, "vs cuBLAS >= 1.05x"),
                             ([Shape(10007, 7919)], "vs_cublas", 1.0, "vs cuBLAS >= 1.00x"),
                             (VECTORS, "pct_of_copy", 90.0, "% of copy >= 90")), least_geomean=1.10),
    # The last step: full speed on every shape, and at least cuBLAS's.
    "last_step": dict(criteria=((SQUARE, "pct_of_copy", 97.0, "% of copy >= 97"),
                                (ODD, "pct_of_copy", 95.0, "% of copy >= 95"),
                                (VECTORS, "pct_of_copy", 97.0, "% of copy >= 97"),
                                (SQUARE + ODD + VECTORS, "vs_cublas", 1.0, "vs cuBLAS >= 1.00x")), peer_margin=1.0),
    # The bf16 step: the same shapes, against the bf16 copy and cuBLASLt's transform (its step's library row).
    "bf16": dict(criteria=((SQUARE, "pct_of_copy", 97.0, "% of copy >= 97"),
                           (ODD, "pct_of_copy", 95.0, "% of copy >= 95"),
                           (SQUARE + ODD, "vs_cublas", 1.0, "vs cuBLASLt >= 1.00x")), peer_margin=1.0),
}
BAR_FORMAT = {"pct_of_copy": fmt_pct, "vs_cublas": fmt_ratio3}
STATUS = {True: "met", False: "**missed**"}


def bar(page: Page, step: str, criteria: str = "step10", gpu: str | None = None, note: str = "yes") -> str:
    """Each criterion of a bar against the step's default kernel, beside the best kernel there (note="no": no note)."""
    gpu, step = gpu or page.gpu, step_list(step)[0]
    if criteria not in BARS:
        raise TemplateError(f"unknown bar criteria={criteria} (known: {', '.join(BARS)})")
    goal, body = BARS[criteria], []
    for shapes, column, least, label in goal["criteria"]:
        for shape in shapes:
            measured, best = default_kernel(the_run(gpu, step, shape))[column], best_kernel(gpu, shape, column, step)
            body.append([shape.label(), label, BAR_FORMAT[column](measured), STATUS[measured >= least],
                         f"{best['step']} {best['kernel']}: {BAR_FORMAT[column](best[column])}"])
    least_geomean, margin = goal.get("least_geomean"), goal.get("peer_margin")
    if least_geomean:
        geomean = statistics.geometric_mean(default_kernel(the_run(gpu, step, s))["vs_cublas"] for s in SQUARE)
        body.append(["geometric mean of the six", f"vs cuBLAS >= {least_geomean:.2f}x", fmt_ratio3(geomean),
                     STATUS[geomean >= least_geomean], "-"])
    text = (f"Step {step}'s default kernel (`{defined_default(step)}`); every ratio is taken within one run of "
            "the step program. *Best in the tutorial*: the best kernel of any step and variant at that shape, "
            "in its own run.")
    if margin is not None:  # per shape the peers run measured, the best peer against the tutorial
        text += (" The peer rows compare the step with the other libraries in the peers run (`make peers`), "
                 "at the shapes it measures.")
        for shape in dict.fromkeys(shape for criterion in goal["criteria"] for shape in criterion[0]):
            rows = select(gpu, results.peers_kind(dtype_of(step)), at=str(shape)).dropna(subset=["pct_of_copy"])
            ours, top = rows[rows["role"] == "tutorial"]["pct_of_copy"], fastest_peer(rows)
            if len(ours) and top is not None:
                best, peer = top["pct_of_copy"], top["peer"]
                body.append([shape.label(), f"no peer ahead by more than {margin:g} point",
                             f"{peer} {best:.1f} % against {ours.iloc[0]:.1f} %",
                             STATUS[best - ours.iloc[0] <= margin], "-"])
    header = ["shape", "criterion", "measured", "status", "best in the tutorial"]
    return block(text if note != "no" else "", markdown(header, body), source(gpu))


# ------------------------------------------------------------- findings: the verdicts the prose words
# A finding lists where, in one GPU's results, a condition holds: most often where a claim of the prose fails. A page
# words its sentences on it ({% if found("name") %}) and shows it per GPU (findings()), so that a re-measured GPU
# changes the words, never a test. A name is a step ("12": any of its kernels) or a step and kernel ("12 answer").
SAME_KERNEL = 1.02  # one kernel's fastest runs in two programs of a study differed by up to 1.3 %
BOUNDS_64 = ("study swap_down", "study swap_across")  # 64 x 64 float32 tiles moved whole, down or along the rows
OTHER_PIECES = ("study swap_down_128", "study swap_across_128", "study swap_down_32", "study swap_across_32")
LARGE = shape_list("32768x32768,16384x16384,20000x20000,3000x50000,50000x3000")  # the bar's, rows of whole chunks


def trails_candidates(runs):
    """A dispatch study's finding (runs: its table in lab.bench, the dispatch's two runs first): where the dispatch
    trails its best candidate by over a point."""
    names = [f"{program} {kernel}" for program, kernel, *_ in runs]
    return lambda frame: behind(frame, names[:2], names[2:], 1.0)


def by_shape(frame: pd.DataFrame, names, columns: list[str], best: str, roles=("kernel", "bound")) -> pd.DataFrame:
    """Per Shape, the best ("max" or "min") of the columns among the kernels and bounds named."""
    rows = frame[frame["role"].isin(roles)]
    rows = rows[rows["step"].isin(names) | (rows["step"] + " " + rows["kernel"]).isin(names)]
    shapes = [Shape(*side) for side in rows[["rows", "cols", "offset"]].itertuples(index=False)]
    return rows.groupby(shapes, sort=False)[columns].agg(best)


class NotMeasured(Exception):
    """A finding's file holds none of the rows it compares: its verdict would rest on nothing."""


def measured_rows(found: pd.DataFrame | pd.Series) -> pd.DataFrame | pd.Series:
    """found, or NotMeasured where it is empty."""
    if found.empty:
        raise NotMeasured
    return found


def slower(frame: pd.DataFrame, ours, others) -> list[Shape]:
    """Where ours is slower than the fastest of others by over SAME_KERNEL in both its fastest and its median run, or
    was not timed. A wrong pick is slower in both; one lucky fast run of the other program, in one."""
    columns = ["min_ms", "median_ms"]
    theirs = measured_rows(by_shape(frame, others, columns, "min"))
    mine = by_shape(frame, ours, columns, "min").reindex(theirs.index)
    return [s for s in theirs.index if mine.loc[s].isna().any() or (mine.loc[s] > theirs.loc[s] * SAME_KERNEL).all()]


def behind(frame: pd.DataFrame, ours, others, margin: float, shapes=lambda shape: True) -> list[Shape]:
    """Where (of shapes: a collection, or a test of a Shape) the best % of copy of ours, a kernel or a bound, trails
    the best of others by more than margin points."""
    mine, theirs = (by_shape(frame, names, ["pct_of_copy"], "max")["pct_of_copy"] for names in (ours, others))
    both = pd.DataFrame({"mine": mine, "theirs": theirs}).dropna()
    wanted = shapes if callable(shapes) else shapes.__contains__
    both = measured_rows(both[[wanted(s) for s in both.index]])
    return [s for s, row in both.iterrows() if row["mine"] < row["theirs"] - margin]


def reaching(frame: pd.DataFrame, names, least: float, where) -> list[Shape]:
    """The shapes (where where(shape)) at which the best % of copy of the kernels named is at least least."""
    best = measured_rows(by_shape(frame, names, ["pct_of_copy"], "max")["pct_of_copy"])
    return [s for s, pct in best.items() if where(s) and pct >= least]


def bar_targets(bar: str) -> dict[Shape, float]:
    """{shape: least % of copy} of a bar's criteria on % of copy."""
    return {s: least for shapes, column, least, _ in BARS[bar]["criteria"] if column == "pct_of_copy" for s in shapes}


def missed(frame: pd.DataFrame, step: str, bar: str, others=(), roles=("bound",)) -> list[Shape]:
    """The bar's shapes where the step's default misses its % of copy target; with others, only those where the
    best of the others (of those roles) reaches it."""
    ours = by_shape(frame, [f"{step} {defined_default(step)}"], ["pct_of_copy"], "max")["pct_of_copy"]
    best = by_shape(frame, others, ["pct_of_copy"], "max", roles)["pct_of_copy"]
    measured_rows(ours[[s in bar_targets(bar) for s in ours.index]])   # none of the bar's shapes: no verdict
    if others:
        measured_rows(best)
    return [s for s, least in bar_targets(bar).items()
            if s in ours and ours[s] < least and (not others or best.get(s, 0) >= least)]


def busy_as_copy(frame: pd.DataFrame, shape: Shape, names) -> list[str]:
    """The kernels named whose dram_active_fraction (a profile's) at shape is no smaller than the copy kernel's."""
    at = frame[(frame["rows"] == shape.rows) & (frame["cols"] == shape.cols) & (frame["offset"] == shape.offset)
               & (frame["metric"] == "dram_active_fraction")]
    share = dict(zip(at["step"] + " " + at["kernel"], pd.to_numeric(at["value"]), strict=True))
    copy = max(v for name, v in share.items() if name.endswith(" copy_kernel"))
    return [name for name in names if share[name] >= copy]


def peers_ahead(frame: pd.DataFrame) -> list[str]:
    """'peer at SHAPE' of each peer (checked PASS) more than a point of copy ahead of the tutorial there."""
    passed = frame[frame["check"] == "PASS"]
    ours = {(r.rows, r.cols): r.pct_of_copy for r in passed[passed["role"] == "tutorial"].itertuples()}
    return [f"{r.peer} at {Shape(r.rows, r.cols).label()}" for r in passed[passed["role"] == "peer"].itertuples()
            if (r.rows, r.cols) in ours and r.pct_of_copy > ours[(r.rows, r.cols)] + 1]


def off_256(shape: Shape) -> bool:
    """Whether a float32 matrix's rows of in or of out are a pitch that is not a multiple of 256 bytes."""
    return (shape.cols * 4) % 256 != 0 or (shape.rows * 4) % 256 != 0


# {name: (what it lists, the results file it reads (<gpu>-KIND.csv), how)}
FINDINGS = {
    "gaps_13": ("matrices past L2 where another bf16 kernel leads the default by more than a point", "bench",
                lambda f: behind(f, ["13 prmt"], ["13"], 1.0, lambda s: s.rows * s.cols * 2 >= PAST_L2_BYTES)),
    "misses_14": ("the bar's shapes where the float32 dispatch misses its % of copy", "bench",
                  lambda f: missed(f, "14", "last_step")),
    "misses_13": ("the bf16 bar's shapes where the default misses its % of copy", "bench",
                  lambda f: missed(f, "13", "bf16")),
    "tutorial_14": ("the bar's shapes where the dispatch misses and another float32 kernel of the tutorial meets it",
                    "bench", lambda f: missed(f, "14", "last_step", machine.steps_of("float32"), ["kernel"])),
    "tutorial_13": ("the bf16 bar's shapes where the default misses and another bf16 kernel meets it", "bench",
                    lambda f: missed(f, "13", "bf16", machine.steps_of("bf16"), ["kernel"])),
    "bar_12": ("the bar's shapes where the dispatch misses and a bound of its pattern reaches it", "pattern",
               lambda f: missed(f, "study", "last_step", BOUNDS_64 + OTHER_PIECES)),
    "bound_12": ("the bar's shapes where the dispatch trails its better bound by more than a point", "pattern",
                 lambda f: behind(f, ["study answer"], BOUNDS_64, 1.0, bar_targets("last_step"))),
    "halves_12": ("large matrices where a copy in tiles down the columns is not 2 points behind one along the rows",
                  "pattern", lambda f: behind(f, ["study copy_across"], ["study copy_down"], -2.0, LARGE)),
    "pieces_12": ("the bar's shapes where a bound on 512- or 128-byte pieces leads by more than a point", "pattern",
                  lambda f: behind(f, BOUNDS_64, OTHER_PIECES, 1.0, bar_targets("last_step"))),
    "idle_12": ("at 32768 x 32768, kernels under which DRAM is active as much as under the copy", "profile",
                lambda f: busy_as_copy(f, Shape(32768, 32768), ["study answer"])),
    "bar_13": ("the bf16 bar's shapes where the default misses and its bound reaches it", "pattern",
               lambda f: missed(f, "13", "bf16", ["study swap_down_bf16"])),
    "bound_13": ("the bf16 bar's shapes where the default trails its bound by more than a point", "pattern",
                 lambda f: behind(f, ["13 prmt"], ["study swap_down_bf16"], 1.0, bar_targets("bf16"))),
    "idle_13": ("at 16384 x 16384, bf16 kernels under which DRAM is active as much as under the copy", "profile",
                lambda f: busy_as_copy(f, Shape(16384, 16384), ["13 prmt"])),
    "idle_odd": ("at 10007 x 7919, kernels under which DRAM is active as much as under the copy", "profile",
                 lambda f: busy_as_copy(f, Shape(10007, 7919), ["13 prmt", "study answer"])),
    "pattern": ("shapes where the dispatch trails its better bound by more than 2 points", "pattern",
                lambda f: behind(f, ["study answer"], BOUNDS_64, 2.0)),
    "pattern_256": ("pitches off 256 bytes where a bound reaches 95 %", "pattern",
                    lambda f: reaching(f, BOUNDS_64, 95.0, off_256)),
    "pattern_pieces": ("shapes where a bound on 512- or 128-byte pieces leads by more than a point", "pattern",
                       lambda f: behind(f, BOUNDS_64, OTHER_PIECES, 1.0)),
    "order": ("shapes where the default trails the better tile order by more than 2 points", "order",
              lambda f: behind(f, ["13 prmt"], ["study prmt_down", "study prmt_across"], 2.0)),
    "rows_order": ("shapes where the rows' order leads the columns' by more than 2 points", "order",
                   lambda f: behind(f, ["study prmt_down"], ["study prmt_across"], 2.0)),
    "columns_order": ("shapes where the columns' order leads the rows' by more than 2 points", "order",
                      lambda f: behind(f, ["study prmt_across"], ["study prmt_down"], 2.0)),
    "peers": ("peers ahead of the float32 answer by more than a point of copy", "peers", peers_ahead),
    "peers_bf16": ("peers ahead of the bf16 answer by more than a point of copy", "peers-bf16", peers_ahead),
    "lines_12": ("shapes where the dispatch is slower than lines always or never", "lines",
                 lambda f: slower(f, ["study answer"], ["study answer_lines", "study answer_sectors"])),
    "lines_13": ("shapes where the bf16 default is slower than lines always or never", "lines",
                 lambda f: slower(f, ["13 prmt"], ["study prmt_lines", "study prmt_sectors"])),
    "narrow_12": ("the narrow study's thin shapes where the dispatch is slower than steps 09 and 11", "narrow",
                  lambda f: slower(f, ["study answer"], ["09", "11"])),
    "narrow_13": ("shapes where the bf16 default is slower than its slabs, runs or tiles", "narrow",
                  lambda f: slower(f, ["13 prmt"], ["study slabs_bf16", "study runs_bf16", "study prmt_64x128"])),
    "pitch_12": ("the pitch study's shapes where the dispatch is slower than steps 09 and 11", "pitch",
                 lambda f: slower(f, ["study answer"], ["09", "11"])),
    "sectors_11": ("at 10007 x 7919, step 11's words or chunks ahead of its default, sector runs", "bench",
                   lambda f: behind(f, ["11 any_shape"], ["11 words", "11 chunks"], 0.0, [Shape(10007, 7919)])),
    "runs_12": ("shapes where the dispatch is slower than either run length", "runs",
                lambda f: slower(f, ["study answer"], ["11"])),
    "dispatch_f32": ("float32 shapes where the dispatch trails the best of its candidates by more than a point",
                     "dispatch", trails_candidates(bench.F32_DISPATCH_RUNS)),
    "dispatch_bf16": ("bf16 shapes where the dispatch trails the best of its candidates by more than a point",
                      "dispatch-bf16", trails_candidates(bench.BF16_DISPATCH_RUNS)),
    "held_out_f32": ("float32 shapes held out of the fit where the dispatch trails its best candidate by over a point",
                     "held-out", trails_candidates(bench.F32_DISPATCH_RUNS)),
    "held_out_bf16": ("bf16 shapes held out of the fit where the dispatch trails its best candidate by over a point",
                      "held-out-bf16", trails_candidates(bench.BF16_DISPATCH_RUNS)),
    "tall_f32": ("tall, thin float32 shapes where the dispatch trails its best candidate by over a point", "tall",
                 trails_candidates(bench.F32_DISPATCH_RUNS)),
}


def finding(name: str, gpu: str) -> list[str] | None:
    """What a finding lists on one GPU, or None where it lacks the results file or the rows the finding compares."""
    if name not in FINDINGS:
        raise TemplateError(f"no finding '{name}' (known: {', '.join(FINDINGS)})")
    _, kind, how = FINDINGS[name]
    if not results.path(gpu, kind).is_file():
        return None
    try:
        listed = how(load(gpu, kind))
    except NotMeasured:   # the file has no rows of what the finding compares: not measured there
        return None
    return [str(item.label()) if isinstance(item, Shape) else item for item in listed]


def found(page: Page, name: str) -> list[str]:
    """What a finding lists on every GPU of gpus.csv that has its results file, each item after the GPU's name."""
    listed = {g.name: finding(name, g.slug) for g in results.gpus().itertuples()}
    if all(items is None for items in listed.values()):
        raise TemplateError(f"no GPU has the results of finding '{name}'")
    return [f"{gpu_name}: {item}" for gpu_name, items in listed.items() for item in items or []]


def findings(page: Page, names: str) -> str:
    """One row per finding, one column per GPU of gpus.csv: what it lists there, "none" or "not measured"."""
    gpus = results.gpus()
    def cell(items: list[str] | None) -> str:
        return "not measured" if items is None else "; ".join(items) or "none"

    body = [[FINDINGS[name][0]] + [cell(finding(name, slug)) for slug in gpus["slug"]] for name in split(names)]
    return markdown(["finding", *gpus["name"]], body, words=list(gpus["name"]))


def measured(page: Page, kind: str = "bench", step: str | None = None, kernel: str | None = None) -> list[dict]:
    """The GPUs of gpus.csv (as the pages' `gpus`) that have <gpu>-KIND.csv, with rows of step and kernel if given
    (a kernel newer than a GPU's last measurement has none there), for a page's loops."""
    wanted = {column: v for column, v in {"step": step, "kernel": kernel}.items() if v is not None}
    return [g for g in results.gpus().to_dict("records")
            if results.path(g["slug"], kind).is_file() and not select(g["slug"], kind, **wanted).empty]


# ------------------------------------------------------------- Nsight Compute counters
def profile(page: Page, shape: str, metrics: str, steps: str, variant: str | None = None, baselines: str = "no",
            gpu: str | None = None) -> str:
    """Kernels x Nsight Compute metrics at one shape: per step its default kernel, its variants (variant=: only
    those of a comma-separated list), its baselines. baselines="yes" only tells lab.profile to profile the copy and
    cuBLAS too."""
    gpu, shape, wanted, steps = gpu or page.gpu, shape_list(shape)[0], split(metrics), step_list(steps)
    rows = select(gpu, "profile", at=str(shape))
    wide = rows[rows["step"].isin(steps)].pivot_table(index=["step", "kernel", "role"], columns="metric",
                                                      values="value", aggfunc="last", sort=False).reset_index()
    wide = pd.concat([kernels(wide), wide[wide["role"] != "kernel"]])
    if variant:  # only the variants named, and a step's bounds are its variants too
        wide = wide[wide["kernel"].isin(split(variant)) | ~wide["role"].isin(["kernel", "bound"])]
    wide = wide.assign(position=wide["step"].map(steps.index), baseline=wide["role"] != "kernel",
                       variant=wide["kernel"] != wide["step"].map(defined_default))
    wide = wide.sort_values(["position", "baseline", "variant"], kind="stable")
    names = [kernel_label(row) for _, row in wide.iterrows()]
    return counters(f"{shape.label()}, one kernel launch each.", "kernel", names, wide, wanted, source(gpu, "profile"),
                    f"kernel of steps {','.join(steps)} at {shape}")


def counters(note: str, first: str, names: list[str], wide: pd.DataFrame, wanted: list[str], under: str,
             who: str) -> str:
    """A row per kernel (first column: names) of Nsight Compute metrics, what each is; an error if one is missing."""
    if missing := next((m for m in wanted if m not in wide or wide[m].isna().all()), None):
        raise TemplateError(f"no {who} has the metric {missing}")
    body = [[name] + [fmt_metric(row[m]) for m in wanted] for name, row in wide.set_axis(names).iterrows()]
    legend = "; ".join(f"{metric_label(m)} = {explain(m)}" for m in wanted if metric_label(m) != m)
    return block(note, markdown([first] + [metric_label(m) for m in wanted], body),
                 f"Metrics: {legend}." if legend else "", under)


def peers_profile(page: Page, shape: str, metrics: str, gpu: str | None = None) -> str:
    """The tutorial and the other libraries x Nsight Compute metrics at one shape (`make peers-profile`)."""
    gpu, shape, wanted = gpu or page.gpu, shape_list(shape)[0], split(metrics)
    rows = select(gpu, "peers-profile", at=str(shape))
    wide = rows.pivot_table(index="kernel", columns="metric", values="value", aggfunc="last", sort=False)
    return counters(f"{shape.label()}, one kernel launch each, under Nsight Compute.", "library", list(wide.index),
                    wide, wanted, source(gpu, "peers-profile"),
                    f"library at {shape} in {results.path(gpu, 'peers-profile').name}")


# ------------------------------------------------------------- other libraries and the timing study
def peers(page: Page, gpu: str | None = None, dtype: str = "float32") -> str:
    """PyTorch, CuPy and the others against the copy bound, from <gpu>-peers.csv (dtype=bf16: <gpu>-peers-bf16.csv)."""
    gpu, kind = gpu or page.gpu, results.peers_kind(known_dtype(dtype))
    rows = load(gpu, kind)
    # Most rows share one timing method; the others are marked and named in the note.
    counts = Counter(m for m in rows["method"] if isinstance(m, str))
    usual = counts.most_common(1)[0][0] if counts else ""
    others = sorted(m for m in counts if m != usual)
    body = []
    for _, row in rows.iterrows():
        peer = row["peer"] if pd.isna(row["version"]) else f"{row['peer']} {row['version']}"
        op = f"`{row['op']}`" if isinstance(row["op"], str) else "-"
        op += " (copy bound)" if row["role"] == "copy" else ""
        op += " " + "\\*" * (others.index(row["method"]) + 1) if row["method"] in others else ""
        body.append([Shape.parse(row["at"]).label(), peer, op]
                    + cells(row, "median_ms", "gbps", "pct_of_copy", "vs_tutorial", "check"))
    note = ("% of copy: against a device-to-device copy of the same bytes timed in the same run. "
            "vs tutorial: the tutorial's time over this one (above 1: faster than the tutorial).")
    note += f" Timing: {usual}." if usual else ""
    note += "".join(" " + "\\*" * (i + 1) + f": {method}." for i, method in enumerate(others))
    header = ["shape", "library", "op", "median ms", "GB/s", "% of copy", "vs tutorial", "check"]
    return block(note, markdown(header, first_only(body)), source(gpu, kind))


def peers_best(page: Page, dtype: str = "float32", shapes: str | None = None) -> str:
    """Per shape (of shapes, if given) and GPU with a peers file of the element type: the tutorial's % of copy and
    the fastest peer that passed its check, with its own. A summary of the tables peers() shows whole."""
    kind, columns, timed = results.peers_kind(known_dtype(dtype)), {}, set()
    wanted = set(shape_list(shapes)) if shapes else None
    if not (gpus := measured(page, kind)):
        raise TemplateError(f"no GPU has a {results.path('GPU', kind).name}")
    for g in gpus:
        rows = load(g["slug"], kind)
        timed |= {f"{t.version} {t.op}" for t in rows[rows["role"] == "tutorial"].itertuples()}
        for at, run in rows.groupby("at", sort=False):
            if wanted is not None and Shape.parse(at) not in wanted:
                continue
            best = fastest_peer(run)
            columns.setdefault(at, {})[g["slug"]] = [
                fmt_pct(only(run[run["role"] == "tutorial"], f"the tutorial at {at}")["pct_of_copy"]),
                "-" if best is None else f"{best['peer']} {fmt_pct(best['pct_of_copy'])}"]
    body = [[Shape.parse(at).label()] + [cell for g in gpus for cell in by_gpu.get(g["slug"], ["-", "-"])]
            for at, by_gpu in columns.items()]
    header = ["shape"] + [f"{g['name'].removeprefix('NVIDIA ')} {what}" for g in gpus
                          for what in ("tutorial", "best peer")]
    note = (f"% of copy of the tutorial ({', '.join(sorted(timed))}) and of the fastest other library that passed "
            "its check, at each shape (make peers).")
    return block(note, markdown(header, body, words=("shape",) + tuple(h for h in header if "peer" in h)),
                 *(source(g["slug"], kind) for g in gpus))


def timing(page: Page, gpu: str | None = None) -> str:
    """The copy bound and the default kernel under each L2 flush, per shape."""
    gpu, body = gpu or page.gpu, []
    for flush, name in {"write": "memset of 2 x L2 (old)", "read": "read of 4 x L2 (now)"}.items():
        for (step, at), run in load(gpu, "timing").groupby(["step", "at"], sort=False):
            run = run[run["flush"] == flush]
            kernel = default_kernel(run)
            body.append([Shape.parse(at).label(), name, fmt_ms(copy_bound(run)["median_ms"]),
                         f"{step} {kernel['kernel']}"] + cells(kernel, "median_ms", "pct_of_copy"))
    header = ["shape", "L2 flush", "copy bound ms", "kernel", "kernel ms", "% of copy"]
    note = "Median of the runs; the copy bound is the faster of cudaMemcpy and the copy kernel in the same run."
    return block(note, markdown(header, body), source(gpu, "timing"))


# ------------------------------------------------------------- the steps and the exercises
def steps(page: Page) -> str:
    """One row per steps/NN_name/ folder, its idea the title on the STEP_DEFINE line (as --describe gives it)."""
    body = []
    for step in machine.steps():
        folder, doc = next((ROOT / "steps").glob(f"{step}_*")), write_up(step)
        body.append([page.link(next(folder.glob("*.cu")), folder.name),
                     machine.describe(step)["title"].replace("|", "\\|"), page.link(doc, step) if doc else "-"])
    note = "*Source: the folders under steps/ and the STEP_DEFINE line of each step's .cu file.*"
    return block(markdown(["step", "idea", "write-up"], body), note)


def exercise_timings(ex: str) -> str:
    """Where an exercise's timings are: "" for docs/reference-timings.csv, or, for an exercise that GPU has not
    timed yet, the slug of the first other GPU whose <gpu>-reference-timings.csv has it."""
    for gpu in ["", *(slug for slug in results.gpus()["slug"] if slug != "h200")]:
        if gpu and not results.path(gpu, "reference-timings").is_file():
            continue
        if (select(gpu, "reference-timings")["exercise"].str.split("_").str[0] == ex).any():
            return gpu
    raise TemplateError(f"no reference timings of exercise {ex} on any GPU")


def exercise_row(ex: str, kernel: str, missing_ok: bool = False) -> pd.Series | None:
    """One row of an exercise (kernel: reference or step), from the file exercise_timings() names; with
    missing_ok, None where that file has none (a step re-built since it was timed)."""
    rows = select(exercise_timings(ex), "reference-timings", kernel=kernel)
    rows = rows[rows["exercise"].str.split("_").str[0] == ex]
    return None if missing_ok and rows.empty else only(rows, f"exercise {ex}'s {kernel}")


def expected(page: Page, ex: str, also: str | None = None) -> str:
    """What speed an exercise can expect: the reference solution, the step, and the also= rows
    (NN: step NN's row of docs/reference-timings.csv; NN:VARIANT: that variant of step NN in the sweep)."""
    gpu, ex = page.gpu, step_list(ex)[0]
    reference, step = exercise_row(ex, "reference"), exercise_row(ex, "step", missing_ok=True)
    shape = Shape.parse(reference["at"])
    entries = [("the reference solution", reference)] + ([(f"step {ex}", step)] if step is not None else [])
    for other, _, variant in (item.partition(":") for item in split(also)):
        if not variant:
            entries.append((f"step {other}", exercise_row(other, "step")))
            continue
        row = only(kernels(select(gpu, step=other, at=str(shape), kernel=variant)), f"step {other} {variant}")
        entries.append((f"step {other} `--variant {variant}` (from {shown(results.path(gpu))})", row))
    body = [[label] + cells(row, "median_ms", "gbps", "pct_of_copy") + [fmt_ratio(row["median_ms"] /
            reference["median_ms"])] for label, row in entries]
    note = (f"Measured on the {reference['gpu']} at {shape.label()}, the shape `make grade` times "
            f"({page.link(REFERENCE_MD, 'docs/reference-timings.md')}). A kernel as fast as the reference grades "
            "about **1.00x vs reference**"
            + (f" and **{fmt_ratio(step['median_ms'] / reference['median_ms'])} vs step {ex}**" if step is not None
               else f" (step {ex}'s row waits for `make reference-timings`)")
            + " there. *reference vs this*: the row's time over the reference's, as `make grade` computes "
            "*vs step*; above 1.00x the reference is faster. % of copy carries over to other GPUs better than "
            "GB/s does.")
    header = ["kernel", "median ms", "GB/s", "% of copy", "reference vs this"]
    return block(note, markdown(header, body), source(exercise_timings(ex), "reference-timings"))


def reference(page: Page, gpu: str | None = None) -> str:
    """All of docs/reference-timings.csv (or another GPU's): machine, table, sources."""
    rows = load(gpu or "", "reference-timings")
    first = rows.iloc[0]
    machine = "\n".join([f"- {name}: {first[name.lower()]}" for name in ("GPU", "Driver", "CUDA", "Date")]
                        + [f"- Shape: {Shape.parse(first['at']).label()} float32; the harness times each kernel on "
                           "the same buffers (median of its timed runs, L2 flushed in between)"])
    body = [[row["exercise"], row["kernel"]] + cells(row, "median_ms", "gbps", "pct_of_copy", "vs_cublas")
            for _, row in rows.iterrows()]
    sources = rows.dropna(subset=["source"]).drop_duplicates("source")
    listing = "\n".join(f"- {row['source']}" + (f": `{row['sha256']}`" if isinstance(row["sha256"], str) else "")
                        for _, row in sources.iterrows())
    return block(machine, markdown(["exercise", "kernel", "median ms", "GB/s", "% of copy", "vs cuBLAS"], body),
                 "Sources of the rows above. A solution's sha256 covers the solution file and the exercise header "
                 "it includes, if any:", listing, source(gpu or "", "reference-timings"))


# ------------------------------------------------------------- one number in a sentence
PAST_L2_BYTES = 128 << 20  # twice the L2 of every GPU measured (60 MB on the H200): most of a copy's writes reach DRAM


def past_l2(rows: pd.DataFrame) -> pd.Series:
    """Whether each row's matrix is at least PAST_L2_BYTES (rows x cols x its step's element size). Below that
    the writes of a kernel or a copy may still sit in L2 when it ends, so the copy is no hard bound."""
    size = rows["step"].map({step: machine.element_bytes(step) for step in rows["step"].unique()})
    return rows["rows"].astype("int64") * rows["cols"].astype("int64") * size >= PAST_L2_BYTES


def value(page: Page, shape: str | None = None, col: str | None = None, step: str | None = None,
          kernel: str | None = None, peer: str | None = None, metric: str | None = None, flush: str | None = None,
          max: str | None = None, gpu: str | None = None,
          dtype: str = "float32", over: str | None = None) -> str:
    """One number as the tables write it: step= [kernel=] shape= and col= (kernel=copy_bound or cublas: a
    baseline) or metric= (over=KERNEL: its ratio to that kernel's, same step and shape, as "1.05");
    peer= shape= col= [dtype=bf16: the bf16 peers]; flush= kernel= shape= col=;
    max=pct_of_copy (the highest % of copy of a matrix past L2: past_l2())."""
    gpu = gpu or page.gpu
    what = ", ".join(f"{k}={v}" for k, v in dict(step=step, kernel=kernel, peer=peer, shape=shape, col=col,
                                                  metric=metric, flush=flush).items() if v)
    if max is not None:
        if max != "pct_of_copy":
            raise TemplateError("max= takes pct_of_copy")
        rows = load(gpu)
        rows = rows[rows["role"].isin(["kernel", "bound"]) & past_l2(rows)]
        if rows["pct_of_copy"].dropna().empty:
            raise TemplateError(f"no kernel in {results.path(gpu).name} has a matrix past L2")
        return fmt_pct(rows["pct_of_copy"].max())
    at = str(shape_list(shape)[0])
    if metric is not None:
        step = step_list(step)[0]
        kernel = kernel or defined_default(step)
        measured = [only(select(gpu, "profile", step=step, kernel=name, metric=metric, at=at), f"{what} ({name})")
                    ["value"] for name in (kernel, over or kernel)]
        return f"{measured[0] / measured[1]:.2f}" if over else fmt_metric(measured[0])
    if flush is not None:
        row = only(select(gpu, "timing", flush=flush, kernel=kernel, at=at), what)
    elif peer is not None:
        rows = select(gpu, results.peers_kind(known_dtype(dtype)), at=at)
        mine = rows["role"] == "tutorial" if peer == "tutorial" else (rows["peer"] == peer) & (rows["role"] != "copy")
        row = only(rows[mine], what)
    else:
        run = the_run(gpu, step_list(step)[0], at)
        special = {"copy_bound": copy_bound, "cublas": library, None: default_kernel}
        row = special[kernel](run) if kernel in special else only(run[run["kernel"] == kernel], what)
    quoted = {**CELLS, "gbps": formatter("{:,.0f}".format)}  # a sentence writes GB/s with a thousands separator
    if col not in quoted or col not in row:
        raise TemplateError(f"col= takes {', '.join(c for c in quoted if c in row)}")
    if pd.isna(row[col]):
        raise TemplateError(f"{what} has no measured {col}")
    return quoted[col](row[col])


def permute(page: Page, dtype: str = "f32", gpu: str | None = None, counter: str | None = None) -> str:
    """Step 15 on the tensors of lab.bench's permute study: its % of copy, its control's, and the best peer's of
    lab.peers_permute where it ran; where nothing was measured, a line that says so. counter=METRIC: that
    counter of its default and of its control on NCHW to NHWC (rows 8192 x 3136 once folded), from the plan's
    step 15 rows (make profile-plan STEPS=15)."""
    gpu, path = gpu or page.gpu, results.path(gpu or page.gpu, "permute")
    if counter is not None:
        try:
            return " against ".join(value(page, "8192x3136", step="15", kernel=kernel, metric=counter, gpu=gpu)
                                    for kernel in ("permute", "naive"))
        except TemplateError:   # no profile, or none of these rows in it
            return f"not measured on the {gpu} yet"
    if not path.is_file():
        return f"*Not measured on the {gpu} yet: `make bench` writes {shown(path)}, `make peers-permute` its peers.*"
    rows = load(gpu, "permute")
    peers_kind = results.peers_kind("float32" if dtype == "f32" else dtype, "peers-permute")
    others = load(gpu, peers_kind) if results.path(gpu, peers_kind).is_file() else None
    body = []
    for (dims, perm), run in rows[rows["dtype"] == dtype].groupby(["dims", "perm"], sort=False):
        pct = {k: fmt_pct(run.loc[run["kernel"] == k, "pct_of_copy"].max()) for k in ("permute", "naive")}
        ours = best = "not measured"
        if others is not None:  # step 15 and the peers in one run: the ratio to compare
            same = others[(others["dims"] == dims) & (others["perm"] == perm)].dropna(subset=["pct_of_copy"])
            ours = fmt_pct(same.loc[same["role"] == "tutorial", "pct_of_copy"].max())
            if (top := fastest_peer(same)) is not None:
                best = f"{top['peer']} {fmt_pct(top['pct_of_copy'])}"
        body.append([f"[{dims.replace('x', ', ')}] ({perm})", pct["permute"], pct["naive"], ours, best])
    header = ["tensor (perm)", "step 15, % of copy", "naive control", "step 15 beside the peers", "best peer"]
    return block(markdown(header, body), source(gpu, "permute"), source(gpu, peers_kind) if others is not None else "")


FUNCTIONS = (table, compact, gaps, profile, peers_profile, ladder, bar, peers, peers_best, timing, steps, expected,
             reference, value, found, findings, measured, permute)
