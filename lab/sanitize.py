"""compute-sanitizer's memcheck, racecheck, synccheck and initcheck over one step's kernels.

    make sanitize STEP=06 [ARGS="--shapes 5x1000,7x3+1 --variant tile"]
    python3 -m lab.sanitize [--tools memcheck,racecheck] 06 build/step06 [program arguments]

Each tool runs the program once with --check-only, so that only the step's own
kernels run, over every kernel variant (or the one --variant names) and the
shapes tagged `sanitize` in tests/shapes.txt (small, odd, one misaligned),
unless the arguments give a shape (timing flags such as --reps go along, unused):

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

The grader's Sanitizers check reads the same reports, each turned into one line that names the problem and the
source lines: describe_finding(tool, pick_finding(sanitizer_records(output))).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

from lab import machine, shapes

TOOLS = ("memcheck", "racecheck", "synccheck", "initcheck")
SHAPE_FLAGS = ("--rows", "--cols", "--offset", "--shapes")
SOURCE_LOCATION_RE = re.compile(r"in (\S+?\.(?:cu|cuh|h|hpp|cpp|c)):(\d+)")
# Lines of compute-sanitizer's own that are not reports.
NOISE = ("COMPUTE-SANITIZER", "ERROR SUMMARY", "RACECHECK SUMMARY", "LEAK SUMMARY", "Target application returned")


@dataclass
class SanitizerFinding:
    header: str
    lines: list[str]

    @property
    def text(self) -> str:
        return " ".join([self.header] + self.lines)


def sanitizer_records(text: str) -> list[SanitizerFinding]:
    """compute-sanitizer's reports: a header line, then its indented lines."""
    records: list[SanitizerFinding] = []
    for line in text.splitlines():
        body = line[len("========="):] if line.startswith("=========") else ""
        if not body.strip():
            continue
        if not (body.startswith("  ") and records):
            records.append(SanitizerFinding(body.strip(), []))
        elif not body.strip().startswith(("Host Frame:", "Saved host backtrace")):
            records[-1].lines.append(body.strip())
    return [r for r in records if not r.header.startswith(NOISE)]


def summary_count(text: str) -> int:
    """Hazards or errors the summary lines count (racecheck warnings included)."""
    return sum(int(n) for n in re.findall(r"(?:RACECHECK|ERROR) SUMMARY: (\d+)", text))


def locations(text: str) -> list[str]:
    return [f"{os.path.basename(f)}:{n}" for f, n in SOURCE_LOCATION_RE.findall(text)]


def describe_finding(tool: str, finding: SanitizerFinding) -> str:
    """One line: what the tool found and at which lines of the source."""
    header = re.sub(r"^(?:Error|Warning|ERROR|WARNING):\s*", "", finding.header)
    whole = finding.text
    if tool == "racecheck":
        accesses = re.findall(r"(Read|Write)\b[^;]*?\bin (\S+?\.(?:cu|cuh|h)):(\d+)", whole.replace(" and ", " ; "))
        sides = dict.fromkeys(f"{kind} at {os.path.basename(f)}:{n}" for kind, f, n in accesses)
        hazards = re.search(r"\[(\d+) hazards?\]", whole)
        kind = re.search(r"Potential (\w+) hazard", header)
        return ("racecheck: shared-memory " + (f"{kind.group(1)} hazard" if kind else "race")
                + (" between " + " and ".join(sides) if sides else "")
                + (f" ({hazards.group(1)} hazards)" if hazards else "") + ": a missing __syncthreads()?")
    where = locations(whole)
    if where:
        header = re.sub(r"\s+at\s+.*$", "", header)
    extra = " (out of bounds)" if tool == "memcheck" and "out of bounds" in whole else ""
    return f"{tool}: {header.rstrip('.:')}" + (f" at {where[0]}" if where else "") + extra


def pick_finding(records: list[SanitizerFinding]) -> SanitizerFinding | None:
    """The record to show: a race analysis, else one that names a source line."""
    races = [r for r in records if "Race reported" in r.header]
    located = [r for r in records if locations(r.text) and not r.header.startswith("Program hit")]
    return (races + located + records or [None])[0]


def program_args(args: list[str]) -> list[str]:
    """--check-only and the arguments given, with the `sanitize` shapes unless they give a shape."""
    given = any(flag in args for flag in SHAPE_FLAGS)
    return ["--check-only", *args] + ([] if given else ["--shapes", ",".join(shapes.tagged("sanitize"))])


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
