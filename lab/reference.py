"""The reference solutions' timings, which the exercises' expected speeds quote (docs/grading.md).

    python3 -m lab.reference            time every exercise's reference solution and its step on
                                        this GPU (make reference-timings; a GPU machine)
    python3 -m lab.reference --check    the recorded timings still describe the solutions (make test)

Each exercise's grader program (build/grade_NN_solution) checks every kernel on --shape (default 8192x8192),
then times the baselines, the reference solution and the step's default kernel on the same buffers.

Exit codes: 0 done (or all match); 1 a wrong result, a build failure (nothing written) or a
stale timing; 2 bad command line; 3 no GPU.
"""

from __future__ import annotations

import datetime
import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd

from lab import machine, results, schema
from lab.grade import BUILD_DIR, ROOT, exercise_names, first_error_line, make, make_path, progress, read_run, run

CANONICAL = ROOT / "docs" / "reference-timings.csv"  # the H200's, which the documents quote
BASELINE = "baseline"  # the `exercise` cell of the copy and library rows
REGENERATE = "run `make reference-timings` on a GPU machine"


def source_hash(solution: Path) -> str:
    """sha256 of a solution's code and included exercise headers less comments: what decides its speed."""
    text = solution.read_text()
    for include in re.findall(r'^\s*#\s*include\s*"((?:\.\./\.\./)?exercises/[^"]+)"', text, re.M):
        text += ((solution.parent if include.startswith("../") else ROOT) / include).read_text()
    code = re.sub(r'("(?:\\.|[^"\\\n])*")|//[^\n]*|/\*.*?\*/', lambda m: m.group(1) or " ", text, flags=re.S)
    return hashlib.sha256(" ".join(code.split()).encode()).hexdigest()


def check_reference_hashes(notes: list[str] | None = None) -> list[str]:
    """One line per solution whose recorded timing no longer describes its source (changed, gone), or that no
    GPU has timed. A solution one GPU has timed and another not yet goes into notes, if given: the documents
    quote the GPU that has (tables.exercise_row())."""
    problems, timed, files = [], {}, [CANONICAL] + sorted(schema.RESULTS.glob("*-reference-timings.csv"))
    for path in filter(Path.is_file, files):
        where = make_path(path)
        try:
            recorded = results.load(path, "reference").query("kernel == 'reference'")
        except results.ResultsError as e:
            problems.append(f"{where} cannot be read ({e}): {REGENERATE}")
            continue
        timed[where] = set(recorded["source"])
        for source, sha256 in zip(recorded["source"], recorded["sha256"], strict=True):
            if not (ROOT / source).is_file():
                problems.append(f"{source} is in {where} but no longer exists: {REGENERATE}")
            elif source_hash(ROOT / source) != sha256:
                problems.append(f"{source} changed since {where} was generated: {REGENERATE}")
    for solution in map(make_path, sorted(ROOT.glob("solutions/[0-9][0-9]_*/solution.cu"))):
        missing = [where for where, sources in timed.items() if solution not in sources]
        if timed and len(missing) == len(timed):
            problems += [f"{solution} has no reference timing in {where}: {REGENERATE}" for where in missing]
        elif notes is not None:
            notes += [f"{solution} is not timed in {where} yet: {REGENERATE} of that GPU" for where in missing]
    return problems


def version(cmd: list[str], pattern: str) -> str:
    try:
        found = re.search(pattern, subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return found.group(1) if found else "unknown"


def exercise_rows(name: str, shape: str, timeout: int) -> pd.DataFrame:
    """One exercise's run as rows of the layout: its baselines, reference and step; Stop if a kernel is wrong."""
    progress(f"timing {name} on {shape}")
    ran = run([BUILD_DIR / f"grade_{name[:2]}_solution", "--shapes", shape, "--csv"], timeout)
    if ran.rc == machine.EXIT_ENVIRONMENT:
        raise machine.Stop(first_error_line(ran.err))
    rows = read_run(ran.out)
    if ran.rc != 0 or rows is None or len(results.failures(rows)):
        raise machine.Stop(f"exercise {name}: a kernel gave a wrong result or the run failed (exit {ran.rc}): "
                           "nothing written", machine.EXIT_WRONG)
    solution = ROOT / "solutions" / name / "solution.cu"
    step = sorted((ROOT / "steps").glob(name[:2] + "_*/*.cu"))[0]
    rows = rows.assign(exercise=name, source="", sha256="")
    rows.loc[rows["kernel"] == "reference", ["source", "sha256"]] = [make_path(solution), source_hash(solution)]
    rows.loc[rows["kernel"] == "step", "source"] = make_path(step)
    rows.loc[rows["role"] != "kernel", "exercise"] = BASELINE
    return rows[(rows["role"] != "kernel") | rows["kernel"].isin(["reference", "step"])]


def reference_timings(shape: str, timeout: int) -> int:
    """Time every exercise on this GPU, write its reference timings, re-render the documents."""
    machine.gpu()  # Stop (exit 3) where there is no GPU
    names = exercise_names()
    built = make([make_path(BUILD_DIR / f"grade_{n[:2]}_solution") for n in names], timeout)
    if built.rc != 0:
        raise machine.Stop(f"the grader programs do not build: {first_error_line(built.text)}", machine.EXIT_WRONG)
    frames = []
    for name in names:
        rows = exercise_rows(name, shape, timeout)
        frames.append(rows if not frames else rows[rows["exercise"] != BASELINE])  # the baselines once, first
    frame = pd.concat(frames, ignore_index=True).assign(
        driver=version(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"], r"(\S+)"),
        cuda=version([os.environ.get("NVCC", "nvcc"), "--version"], r"release ([0-9.]+)"),
        date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"))
    gpu = results.gpu_slug(frame["gpu"].iloc[0])
    target = CANONICAL if gpu == "h200" else results.path(gpu, "reference-timings")
    results.write(frame, target, "reference")
    print(f"wrote {make_path(target)} ({frame['gpu'].iloc[0]})")
    if target == CANONICAL:  # the documents quote it: render them again
        return subprocess.run([sys.executable, "-m", "lab.docs"], cwd=ROOT).returncode
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = machine.Parser(prog="python3 -m lab.reference", description=__doc__)
    parser.add_argument("--check", action="store_true", help="compare the recorded hashes with the sources")
    parser.add_argument("--shape", default="8192x8192", help="the timed shape (default 8192x8192)")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per program run (default 600)")
    args = parser.parse_args(argv)
    if not re.fullmatch(r"[1-9][0-9]*x[1-9][0-9]*", args.shape):
        parser.error(f"--shape must be ROWSxCOLS, not {args.shape!r}")
    if not args.check:
        return reference_timings(args.shape, args.timeout)
    if not CANONICAL.is_file():
        print(f"note: {make_path(CANONICAL)} not generated yet ({REGENERATE}); nothing to check")
    notes: list[str] = []
    problems = check_reference_hashes(notes)
    lines = [f"note: {note}" for note in notes] + (problems or ["the reference timings match the solutions' sources"])
    print("\n".join(lines))
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(machine.main(main))
