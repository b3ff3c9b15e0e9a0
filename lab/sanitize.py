"""compute-sanitizer's memcheck, racecheck, synccheck and initcheck over one step's kernels.

    make sanitize STEP=06 [ARGS="--shapes 5x1000,7x3+1 --variant tile"]
    python3 -m lab.sanitize [--tools memcheck,racecheck] 06 build/step06 [program arguments]

Each tool runs the program once with --check-only, so that only the step's own
kernels run, over every kernel variant (or the one --variant names) and the
shapes tagged `sanitize` in tests/shapes.txt (small, odd, one misaligned),
unless the arguments give a shape:

    compute-sanitizer --tool TOOL --error-exitcode 99 --print-limit 20 build/stepNN --check-only --shapes ...

    memcheck   out-of-bounds and misaligned accesses, in global and shared memory
    racecheck  shared-memory hazards: a missing __syncthreads() between one thread's writes and another's reads
    synccheck  __syncthreads() reached by only part of a block
    initcheck  global memory read before anything wrote it

Each run prints one line, `clean TOOL ...`, `ERRORS TOOL ...` (with the tool's
report), `WRONG TOOL ...` (a wrong result) or `FAILED TOOL ...`, then a count.
COMPUTE_SANITIZER=/path names the tool. Exit codes: 0 every run clean; 1 a
tool reported an error or a result was wrong; 2 bad command line; 3 no GPU or
no compute-sanitizer.
"""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

from lab import machine, shapes
from lab.sanitizer_report import summary_count

TOOLS = ("memcheck", "racecheck", "synccheck", "initcheck")
# Flags that only matter for timing, and how many values each takes.
TIMING_FLAGS = {"--check-only": 0, "--csv": 0, "--reps": 1, "--warmup": 1, "--flush": 1}
SHAPE_FLAGS = ("--rows", "--cols", "--offset", "--shapes")


def program_args(args: list[str]) -> list[str]:
    """The arguments worth keeping under a sanitizer, with the `sanitize` shapes unless a shape is given."""
    kept, i = ["--check-only"], 0
    while i < len(args):
        skip = TIMING_FLAGS.get(args[i])
        kept += [] if skip is not None else [args[i]]
        i += 1 + (skip or 0)
    if not any(flag in args for flag in SHAPE_FLAGS):
        kept += ["--shapes", ",".join(shapes.tagged("sanitize"))]
    return kept


def sanitize(sanitizer: str, tool: str, command: list[str], step: str) -> bool:
    """One run of the program under one tool; prints its line (and report) and says whether it was clean."""
    done = subprocess.run([sanitizer, "--tool", tool, "--error-exitcode", "99", "--print-limit", "20", *command],
                          capture_output=True, text=True)
    out = done.stdout + done.stderr
    rc = done.returncode
    if rc == 0 and summary_count(out):
        rc = 99  # racecheck's warnings do not set the exit code; a hazard of any kind fails here
    line = f"{tool:9} step{step} {shlex.join(command[1:])}"
    if rc == 0:
        print(f"clean  {line}")
        return True
    if rc == machine.EXIT_ENVIRONMENT:
        machine.say(next((text for text in out.splitlines() if text.startswith("error:")), ""))
        raise machine.Stop(f"step{step} could not run under compute-sanitizer (exit 3)")
    report = {99: ("ERRORS", [t for t in out.splitlines() if t.startswith("========= ")][:40]),
              machine.EXIT_WRONG: ("WRONG", [t for t in out.splitlines() if t.startswith("FAIL ")][:20]
                                   + out.splitlines()[-20:])}
    word, details = report.get(rc, ("FAILED", out.splitlines()[-20:]))
    print(f"{word:6} {line}" + (f" (exit {rc})" if word == "FAILED" else ""))
    print("\n".join(details))
    return False


def run(argv=None) -> int:
    parser = machine.Parser(prog="python3 -m lab.sanitize", description=__doc__)
    parser.add_argument("--tools", default=",".join(TOOLS), help="comma-separated (default %(default)s)")
    parser.add_argument("--check-env", action="store_true", help="exit 3 unless a GPU and compute-sanitizer are here")
    parser.add_argument("step", nargs="?", help="the step's number, e.g. 06")
    parser.add_argument("binary", nargs="?", help="the program, e.g. build/step06")
    parser.add_argument("program_args", nargs="...", help="the program's arguments: --shapes, --variant, ...")
    args = parser.parse_args(argv)
    tools = [t for t in args.tools.split(",") if t]
    if unknown := [t for t in tools if t not in TOOLS]:
        parser.error(f"unknown tool '{unknown[0]}': choose from {', '.join(TOOLS)}")
    if not args.check_env and not (args.step and args.binary and re.fullmatch(r"\d{1,2}", args.step)):
        parser.error("give a step number and its program, e.g. 06 build/step06")
    command = program_args(args.program_args) if args.binary else []
    machine.gpu()
    sanitizer = machine.find_tool("compute-sanitizer", "COMPUTE_SANITIZER",
                                  "/usr/local/cuda/compute-sanitizer/compute-sanitizer")
    if args.check_env:
        return 0
    if not Path(args.binary).is_file():
        raise machine.Stop(f"{args.binary} is missing: build it first (make sanitize STEP={args.step} does)")
    clean = [sanitize(sanitizer, tool, [args.binary, *command], args.step.zfill(2)) for tool in tools]
    print(f"{sum(clean)} clean, {len(clean) - sum(clean)} with errors")
    return 0 if all(clean) else machine.EXIT_WRONG


if __name__ == "__main__":
    raise SystemExit(machine.main(run))
