#!/usr/bin/env python3
"""Read the repository's result files by column name.

Every measurement in the documentation comes from a CSV file that a program
or tool wrote:

  docs/results/<gpu>.csv          the benchmark sweep (tools/bench.sh): the
                                  rows the step programs print with --csv
  docs/results/<gpu>-profile.csv  Nsight Compute counters (tools/ncu_profile.py)
  docs/results/<gpu>-peers.csv    other libraries' transposes (tools/peers.py)
  docs/reference-timings.csv      the exercise solutions
                                  (tools/reference_timings.sh)

This module is the one place that knows their columns.  Python tools import
it; shell scripts call its command line, so that no script ever reads a
column by its position:

  results.py value FILE --column C[,C...] [--where C=V ...] [--first]
      the cells of the one matching row, one per line
  results.py rows FILE [--column C,...] [--where C=V ...] [--separator S]
      the matching rows, one per line, cells separated by a tab
  results.py check FILE
      one line per row that failed its check; exit 1 if there is one
  results.py skipped FILE
      one line per row that says SKIP (a kernel this GPU cannot run)
  results.py merge OUT FILE...
      several runs' CSVs as one, the header once, ordered by shape; a file
      that cannot be read is left out, and the exit code is 1
  results.py header bench|profile|peers|reference
      the column names of a layout, comma-separated
  results.py reference-rows RUN.csv --exercise NAME ...
      a grader run's rows in the layout of docs/reference-timings.csv

Which rows are baselines is said by the `role` column, never by a name:
  copy     a plain copy of the same bytes (memcpy, copy_kernel); the copy
           bound of a run is the faster of them
  library  the library transpose (cuBLAS)
  kernel   the program's own kernels (in the grader: student, reference, step)
  bound    a variant that moves the bytes as the step's kernel does but
           copies instead of transposing (step 06's shared_copy); checked
           against the input, and neither a baseline nor ever the step's
           default or best kernel
The peers CSV has its own roles: copy, tutorial (the last step) and peer.
Files written before the `role` column still load: upgrade_legacy(), the one
clearly marked transition function, fills it in.

Exit codes: 0 done; 1 no row matches (value) or a row failed its check
(check); 2 bad command line, a missing file or a missing column.
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import sys
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

ROLE_COPY = "copy"
ROLE_LIBRARY = "library"
ROLE_KERNEL = "kernel"
ROLE_BOUND = "bound"
ROLES = (ROLE_COPY, ROLE_LIBRARY, ROLE_KERNEL, ROLE_BOUND)
# tools/peers.py's roles: the copy bound, the tutorial's last step, the others.
ROLE_TUTORIAL = "tutorial"
ROLE_PEER = "peer"
PEER_ROLES = (ROLE_COPY, ROLE_TUTORIAL, ROLE_PEER)
# The step column of docs/results/<gpu>-peers-profile.csv (make peers-profile):
# the peers' kernels, profiled like a step's.
PEERS_STEP = "peers"

# The layouts this repository writes, column by column.
BENCH_COLUMNS = (
    "gpu", "step", "kernel", "role", "rows", "cols", "offset",
    "median_ms", "min_ms", "gbps", "pct_of_copy", "vs_cublas", "check",
)
PROFILE_COLUMNS = (
    "gpu", "step", "kernel", "role", "rows", "cols", "offset", "metric", "value",
)
PEERS_COLUMNS = (
    "gpu", "peer", "version", "op", "role", "rows", "cols",
    "median_ms", "min_ms", "gbps", "pct_of_copy", "vs_tutorial", "check", "method",
)
REFERENCE_COLUMNS = (
    "exercise", "kernel", "role", "rows", "cols", "offset",
    "median_ms", "min_ms", "gbps", "pct_of_copy", "vs_cublas",
    "source", "sha256", "gpu", "driver", "cuda", "date",
)
# tools/timing_study.sh: the bench columns, plus the L2 flush each run used.
TIMING_COLUMNS = BENCH_COLUMNS + ("flush",)
LAYOUTS = {
    "bench": BENCH_COLUMNS,
    "timing": TIMING_COLUMNS,
    "profile": PROFILE_COLUMNS,
    "peers": PEERS_COLUMNS,
    "reference": REFERENCE_COLUMNS,
}
# The roles a layout's `role` column may hold.
LAYOUT_ROLES = {"peers": PEER_ROLES}

# The `exercise` cell of the baseline rows in docs/reference-timings.csv.
REFERENCE_BASELINE = "baseline"


class ResultsError(Exception):
    """A results file that is missing or does not have the expected columns."""


# ------------------------------------------------------------- shapes

SHAPE_PATTERN = re.compile(r"([1-9][0-9]*)x([1-9][0-9]*)(?:\+([0-9]+))?")


@dataclass(frozen=True)
class Shape:
    """A matrix shape as the programs take it: ROWSxCOLS[+OFFSET]."""

    rows: int
    cols: int
    offset: int = 0

    @classmethod
    def parse(cls, text: str) -> Shape:
        match = SHAPE_PATTERN.fullmatch(text.strip())
        if match is None:
            raise ValueError("'%s' is not ROWSxCOLS[+OFFSET]" % text)
        rows, cols, offset = match.groups()
        return cls(int(rows), int(cols), int(offset or 0))

    def __str__(self) -> str:
        """The command-line form: 33x4097+1, the offset only when it is not 0."""
        text = "%dx%d" % (self.rows, self.cols)
        return text + ("+%d" % self.offset if self.offset else "")

    def label(self) -> str:
        """The form the tables show: 33 x 4097, or 33 x 4097, offset 1."""
        text = "%d x %d" % (self.rows, self.cols)
        return text + (", offset %d" % self.offset if self.offset else "")


def shape_of(row: dict) -> Shape:
    """The shape a row was measured at."""
    return Shape(int(row["rows"]), int(row["cols"]), int(row.get("offset") or 0))


def number(text) -> float | None:
    """The float in a CSV cell, or None for an empty, "-" or NaN cell."""
    try:
        value = float(str(text).replace(",", ""))
    except (TypeError, ValueError):
        return None
    return None if value != value else value  # NaN is not equal to itself


# ------------------------------------------------------------- reading files

def read_table(path: str) -> tuple[list[str], list[dict]]:
    """The header and rows of a CSV file.

    Blank lines and repeats of the header line (several runs' output pasted
    together) are skipped.
    """
    if not os.path.isfile(path):
        raise ResultsError("%s does not exist" % path)
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if not header:
            raise ResultsError("%s is empty: no header line" % path)
        rows = [as_dict(header, cells) for cells in reader
                if any(cells) and cells != header]
    return header, rows


def as_dict(header: list[str], cells: list[str]) -> dict:
    """One CSV line as {column: cell}; a short line's missing cells are empty."""
    padded = cells + [""] * (len(header) - len(cells))
    return {column: padded[i] for i, column in enumerate(header)}


def require_columns(path: str, header: list[str], wanted) -> None:
    missing = [c for c in wanted if c not in header]
    if missing:
        raise ResultsError(
            "%s has no column %s (its columns: %s)"
            % (path, ", ".join(missing), ",".join(header))
        )


# ---- TRANSITION ONLY: files written before the `role` column ----------------
#
# The committed results from before the `role` and `offset` columns name
# their baselines memcpy, copy_kernel and cublas, and the peers' copy bound
# by "(copy bound)" in its op.  upgrade_legacy() is the only place where a
# name decides a role.  Delete it, and its one call in load(), once every
# file under docs/ has been regenerated in the new layouts.

def upgrade_legacy(layout: str | None, header: list[str],
                   rows: list[dict]) -> list[str]:
    """Give rows of an old layout the columns of the new one; the new header."""
    if layout == "peers" and "library" in header and "peer" not in header:
        for row in rows:
            peer, _, version = row["library"].partition(" ")
            op, copy_bound, _ = row["op"].partition(" (copy bound)")
            row.update(peer=peer, version=version, op=op,
                       role=ROLE_COPY if copy_bound else ROLE_PEER)
            for column in PEERS_COLUMNS:
                row.setdefault(column, "")
        return header + [c for c in PEERS_COLUMNS if c not in header]
    if layout not in ("bench", "profile", "reference"):
        return header
    if "role" not in header:
        for row in rows:
            kernel = row["kernel"]
            if kernel in ("memcpy", "copy_kernel"):
                row["role"] = ROLE_COPY
            elif kernel == "cublas" or kernel.startswith("cublas:"):
                row["role"] = ROLE_LIBRARY
            else:
                row["role"] = ROLE_KERNEL
        header = header + ["role"]
    if "offset" not in header:
        for row in rows:
            row["offset"] = "0"
        header = header + ["offset"]
    return header

# ---- end of TRANSITION ONLY ---------------------------------------------------


def layout_of(header: list[str]) -> str | None:
    """Which of LAYOUTS a header belongs to, judged by its telling columns."""
    if "metric" in header:
        return "profile"
    if "exercise" in header:
        return "reference"
    if "op" in header and ("peer" in header or "library" in header):
        return "peers"
    if "check" in header and "median_ms" in header:
        return "bench"
    return None


def load(path: str, layout: str | None = None) -> list[dict]:
    """Every row of a results file, as dicts keyed by column name.

    The layout (bench, profile, peers, reference) is told by the header
    unless given; every column of it must exist.
    """
    header, rows = read_table(path)
    layout = layout or layout_of(header)
    header = upgrade_legacy(layout, header, rows)
    if layout is not None:
        require_columns(path, header, LAYOUTS[layout])
    roles = LAYOUT_ROLES.get(layout, ROLES)
    for index, row in enumerate(rows, start=1):
        check_row(path, index, row, roles)
    return rows


def check_row(path: str, index: int, row: dict, roles) -> None:
    """Refuse a row whose role or shape cells cannot be right."""
    where = "%s, data row %d" % (path, index)
    role = row.get("role")
    if role is not None and role not in roles:
        raise ResultsError("%s: unknown role '%s' (expected one of %s)"
                           % (where, role, ", ".join(roles)))
    for column in ("rows", "cols", "offset"):
        if column in row and not row[column].isdigit():
            raise ResultsError("%s: %s is '%s', not a whole number"
                               % (where, column, row[column]))


def load_bench(path: str) -> list[dict]:
    """A step program's --csv output, or docs/results/<gpu>.csv."""
    return load(path, "bench")


def load_profile(path: str) -> list[dict]:
    """docs/results/<gpu>-profile.csv: one row per kernel and metric."""
    return load(path, "profile")


def load_timing(path: str) -> list[dict]:
    """docs/results/<gpu>-timing.csv: the old and the new L2 flush, side by side."""
    return load(path, "timing")


def load_peers(path: str) -> list[dict]:
    """docs/results/<gpu>-peers.csv: PyTorch and CuPy."""
    return load(path, "peers")


def load_reference(path: str) -> list[dict]:
    """docs/reference-timings.csv: the exercise solutions and their steps."""
    return load(path, "reference")


def read_env(path: str) -> dict:
    """The `key: value` lines of an env file (docs/results/<gpu>-env.txt)."""
    env = {}
    if os.path.isfile(path):
        with open(path) as f:
            for line in f:
                key, sep, value = line.partition(":")
                if sep and key.strip() not in env:
                    env[key.strip()] = value.strip()
    return env


# ------------------------------------------------------------- runs and roles

def is_baseline(row: dict) -> bool:
    return row["role"] in (ROLE_COPY, ROLE_LIBRARY)


def kernel_rows(rows: list[dict]) -> list[dict]:
    """The program's own kernels, in the order it printed them; no bounds."""
    return [r for r in rows if r["role"] == ROLE_KERNEL]


def bound_rows(rows: list[dict]) -> list[dict]:
    """The program's bounds (copies, not transposes), in the order it printed them."""
    return [r for r in rows if r["role"] == ROLE_BOUND]


def group_runs(rows: list[dict]) -> dict:
    """{(step, Shape): rows}: one entry per run of a step program at a shape.

    Every run times its own baselines, so a row's ratios are only ever
    compared with the baselines of the same run.
    """
    runs: dict = {}
    for row in rows:
        runs.setdefault((row["step"], shape_of(row)), []).append(row)
    return runs


def copy_bound(run: list[dict]) -> dict | None:
    """The faster copy of a run (the copy bound), or None if none was timed."""
    timed = [r for r in run if r["role"] == ROLE_COPY and number(r["median_ms"])]
    return min(timed, key=lambda r: number(r["median_ms"])) if timed else None


def library_row(run: list[dict]) -> dict | None:
    """The library transpose (cuBLAS) of a run, or None."""
    return next((r for r in run if r["role"] == ROLE_LIBRARY), None)


def default_kernel(run: list[dict]) -> dict | None:
    """The step's default kernel: its first kernel row."""
    kernels = kernel_rows(run)
    return kernels[0] if kernels else None


def describe(row: dict) -> str:
    """A row in a few words: step07 33x4097+1 shared_padded: check=FAIL."""
    return "step%s %s %s: check=%s" % (
        row["step"], shape_of(row), row["kernel"], row["check"] or "(empty)")


def problems(rows: list[dict]) -> list[str]:
    """One line per row whose check is neither PASS nor SKIP.

    A copy is not a transpose; a harness that does not check it may leave
    its cell empty or "-".
    """
    return [
        describe(row) for row in rows
        if row["check"] not in ("PASS", "SKIP")
        and not (row["role"] == ROLE_COPY and row["check"] in ("", "-"))
    ]


def skipped(rows: list[dict]) -> list[str]:
    """One line per row that says SKIP: a kernel this GPU cannot run."""
    return [describe(row) for row in rows if row["check"] == "SKIP"]


# ------------------------------------------------------------- the steps

STEP_DIR = re.compile(r"(\d\d)_(\w+)")


@dataclass(frozen=True)
class StepDir:
    """One steps/NN_name/ directory."""

    number: str   # "07"
    name: str     # "shared_padded"
    path: str     # "steps/07_shared_padded", relative to the repository root


def step_dirs(root: str = ROOT) -> list[StepDir]:
    """Every steps/NN_name/ directory, in order: the list of steps."""
    found = []
    folder = os.path.join(root, "steps")
    for entry in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        match = STEP_DIR.fullmatch(entry)
        if match and os.path.isdir(os.path.join(folder, entry)):
            found.append(StepDir(match.group(1), match.group(2), "steps/" + entry))
    return found


# ------------------------------------------------------------- writing files

def write_csv(path: str, columns, rows: list[dict]) -> None:
    """Write rows under a header, atomically (a temporary file, then a rename)."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as f:
        writer = csv.DictWriter(
            f, fieldnames=list(columns), lineterminator="\n", extrasaction="ignore"
        )
        writer.writeheader()
        writer.writerows(rows)
    os.replace(tmp, path)


def merge_runs(paths: list[str]) -> tuple[list[dict], list[str]]:
    """The rows of several runs' CSVs, ordered by shape, then by file, and
    one message per file that could not be read (its rows are left out).

    The shapes come in the order they first appear, so a sweep reads the
    same whether each run covered one shape or all of them.
    """
    rows: list[dict] = []
    errors = []
    for path in paths:
        try:
            rows += load_bench(path)
        except ResultsError as err:
            errors.append(str(err))
    first_seen: dict = {}
    for row in rows:
        first_seen.setdefault(shape_of(row), len(first_seen))
    rows.sort(key=lambda row: first_seen[shape_of(row)])  # stable: file order kept
    return rows, errors


def reference_rows(run: list[dict], args) -> list[dict]:
    """One grader run's rows in the layout of docs/reference-timings.csv.

    The reference solution and the step become rows of the exercise; with
    --baselines, the copies and the library come first, as `baseline`.
    """
    common = {"driver": args.driver, "cuda": args.cuda, "date": args.date}
    out = []

    def add(row, exercise, source, sha256):
        cells = {c: row.get(c, "") for c in REFERENCE_COLUMNS}
        cells.update(common, exercise=exercise, source=source, sha256=sha256)
        out.append(cells)

    if args.baselines:
        for row in run:
            if is_baseline(row):
                add(row, REFERENCE_BASELINE, "", "")
    for row in kernel_rows(run):
        if row["kernel"] == "reference":
            add(row, args.exercise, args.source, args.sha256)
        elif row["kernel"] == "step":
            add(row, args.exercise, args.step_source, "")
    return out


# ------------------------------------------------------------- command line

def parse_where(items: list[str]) -> list[tuple[str, str]]:
    conditions = []
    for item in items or []:
        column, sep, value = item.partition("=")
        if not sep or not column:
            raise ResultsError("--where takes COLUMN=VALUE, not '%s'" % item)
        conditions.append((column, value))
    return conditions


def select(path: str, where: list[str], columns: str | None):
    """(matching rows, the columns asked for) of a results file."""
    rows = load(path)
    header = list(rows[0]) if rows else read_table(path)[0]
    conditions = parse_where(where)
    wanted = [c for c in (columns or "").split(",") if c] or header
    if rows:
        require_columns(path, header, [c for c, _ in conditions] + wanted)
    matching = [r for r in rows if all(r[c] == v for c, v in conditions)]
    return matching, wanted


def command_value(args) -> int:
    matching, wanted = select(args.file, args.where, args.column)
    condition = " and ".join(args.where or []) or "any condition"
    if not matching:
        print("results: no row of %s has %s" % (args.file, condition), file=sys.stderr)
        return 1
    if len(matching) > 1 and not args.first:
        print(
            "results: %d rows of %s have %s: add --where, or --first"
            % (len(matching), args.file, condition),
            file=sys.stderr,
        )
        return 1
    for column in wanted:
        print(matching[0][column])
    return 0


def command_rows(args) -> int:
    matching, wanted = select(args.file, args.where, args.column)
    for row in matching:
        print(args.separator.join(row[c] for c in wanted))
    return 0


def command_check(args) -> int:
    lines = problems(load(args.file, "bench"))
    for line in lines:
        print(line)
    return 1 if lines else 0


def command_skipped(args) -> int:
    for line in skipped(load(args.file, "bench")):
        print(line)
    return 0


def command_merge(args) -> int:
    rows, errors = merge_runs(args.files)
    write_csv(args.out, BENCH_COLUMNS, rows)
    for error in errors:
        print("results: left out: %s" % error, file=sys.stderr)
    return 1 if errors else 0


def command_drop_steps(args) -> int:
    """Rewrite a profile CSV without the rows of some steps (to profile them again)."""
    rows = load(args.file, "profile")
    steps = {step.zfill(2) for step in args.steps}
    write_csv(args.file, PROFILE_COLUMNS, [r for r in rows if r["step"].zfill(2) not in steps])
    return 0


def command_split_steps(args) -> int:
    """Write a sweep's rows back as the per-step runs tools/bench.sh merges
    (DIR/stepNN.csv, .rc 0, empty .err), so RESUME=1 keeps them."""
    rows = load(args.file, "bench")
    os.makedirs(args.dir, exist_ok=True)
    for step in sorted({r["step"] for r in rows}):
        name = os.path.join(args.dir, "step%s" % step.zfill(2))
        write_csv(name + ".csv", BENCH_COLUMNS, [r for r in rows if r["step"] == step])
        with open(name + ".rc", "w") as rc, open(name + ".err", "w"):
            rc.write("0\n")
    return 0


def command_header(args) -> int:
    print(",".join(LAYOUTS[args.layout]))
    return 0


def command_reference_rows(args) -> int:
    rows = reference_rows(load(args.run_csv, "bench"), args)
    writer = csv.DictWriter(
        sys.stdout, fieldnames=list(REFERENCE_COLUMNS), lineterminator="\n"
    )
    if args.header:
        writer.writeheader()
    writer.writerows(rows)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description="Read the result CSVs by column name (see the module's docstring)."
    )
    sub = parser.add_subparsers(dest="command", required=True)

    def add_selection(p):
        p.add_argument("file", help="a results CSV")
        p.add_argument("--where", action="append", metavar="COLUMN=VALUE",
                       help="keep rows whose COLUMN is exactly VALUE (repeatable)")
        p.add_argument("--column", metavar="C[,C...]",
                       help="the columns to print (default: all)")

    p = sub.add_parser("value", help="the cells of the one matching row, one per line")
    add_selection(p)
    p.add_argument("--first", action="store_true",
                   help="several rows may match: take the first")
    p.set_defaults(handler=command_value)

    p = sub.add_parser("rows", help="the matching rows, one per line")
    add_selection(p)
    p.add_argument("--separator", default="\t", help="between cells (default: a tab)")
    p.set_defaults(handler=command_rows)

    p = sub.add_parser("check", help="rows that failed their check; exit 1 if any")
    p.add_argument("file", help="a step program's or grader's --csv output")
    p.set_defaults(handler=command_check)

    p = sub.add_parser("skipped", help="rows that say SKIP (this GPU cannot run them)")
    p.add_argument("file", help="a step program's or grader's --csv output")
    p.set_defaults(handler=command_skipped)

    p = sub.add_parser("merge", help="several runs' CSVs as one, ordered by shape")
    p.add_argument("out", help="the CSV to write")
    p.add_argument("files", nargs="+", help="the runs' CSVs")
    p.set_defaults(handler=command_merge)

    p = sub.add_parser("drop-steps", help="rewrite a profile CSV without the rows of STEP...")
    p.add_argument("file", help="a <gpu>-profile.csv")
    p.add_argument("steps", nargs="+", metavar="STEP", help="e.g. 11 12")
    p.set_defaults(handler=command_drop_steps)

    p = sub.add_parser("split-steps", help="a sweep's rows as the per-step runs of tools/bench.sh")
    p.add_argument("file", help="a <gpu>.csv")
    p.add_argument("dir", help="where the runs go, e.g. build/bench/h200")
    p.set_defaults(handler=command_split_steps)

    p = sub.add_parser("header", help="the column names of a layout")
    p.add_argument("layout", choices=sorted(LAYOUTS))
    p.set_defaults(handler=command_header)

    p = sub.add_parser("reference-rows",
                       help="a grader run as rows of docs/reference-timings.csv")
    p.add_argument("run_csv", metavar="RUN.csv", help="the grader's --csv output")
    p.add_argument("--exercise", required=True, help="e.g. 05_float4")
    p.add_argument("--source", required=True, help="the solution's path")
    p.add_argument("--sha256", required=True, help="the hash of the solution's sources")
    p.add_argument("--step-source", required=True, help="the step's .cu file")
    p.add_argument("--driver", required=True)
    p.add_argument("--cuda", required=True)
    p.add_argument("--date", required=True)
    p.add_argument("--baselines", action="store_true",
                   help="also the run's copy and library rows, first")
    p.add_argument("--header", action="store_true", help="print the header line first")
    p.set_defaults(handler=command_reference_rows)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.handler(args)
    except ResultsError as err:
        print("results: error: %s" % err, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
