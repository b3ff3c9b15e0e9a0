"""What each step's kernels compile to: the evidence behind the write-ups' SASS claims.

    python3 -m lab.sass [--arch sm_90]            write docs/results/sass-<arch>.csv
    python3 -m lab.sass --check [--arch sm_90]    exit 1 if the committed file differs

For every kernel of every step (build/obj/steps/NN_name/*.cu.o, brought up to
date by make), one row per memory or barrier instruction kind: `kernel`
is the demangled name, `instruction` the SASS opcode with its modifiers
(LDG.E.128, STS, BAR.SYNC.DEFER_BLOCKING, ...), `count` how often it appears in
the code (not how often it runs). Registers, shared memory and stack come from
`cuobjdump -res-usage`; on sm_90 and newer the shared bytes include the 1 KiB
the system reserves in every block. No GPU is needed: cuobjdump reads the
object files, and one nvcc gives the same machine code on every machine.

Exit codes: 0 done (or up to date), 1 out of date (--check), 2 bad command
line, 3 cuobjdump, c++filt or make missing or failing.
"""

from __future__ import annotations

import collections
import filecmp
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pandas as pd

from lab import machine, results, schema

# The instruction kinds worth counting: global, shared and local memory, asynchronous copies, barriers.
KINDS = ("LDG", "STG", "LDS", "STS", "LDL", "STL", "LDGSTS", "LDGDEPBAR", "DEPBAR", "BAR")
FUNCTION = re.compile(r"^\s*Function\s*:\s*(\S+)")
INSTRUCTION = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)")
RESOURCES = re.compile(r"^\s*Function\s+(\S+):\s*$")
USAGE = re.compile(r"REG:(\d+)\s+STACK:(\d+)\s+SHARED:(\d+)")


def output(command: list[str], stdin: str | None = None) -> str:
    """stdout of a tool, or Stop (exit 3) with its first complaint."""
    try:
        done = subprocess.run(command, input=stdin, capture_output=True, text=True)
    except FileNotFoundError:
        raise machine.Stop(f"{command[0]} not found") from None
    if done.returncode:
        first = (done.stderr or done.stdout).strip().splitlines() or ["?"]
        raise machine.Stop(f"{' '.join(command)} failed: {first[0]}")
    return done.stdout


def step_objects(build: Path) -> list[tuple[str, Path]]:
    """(step, object file) of every step source, brought up to date by make (a stale object would
    describe code that is no longer there)."""
    pairs = [(source.parent.name[:2], build / "obj" / source.relative_to(machine.ROOT).with_suffix(".cu.o"))
             for source in sorted((machine.ROOT / "steps").glob("[0-9][0-9]_*/*.cu"))]
    output(["make", "-s", "-C", str(machine.ROOT), f"BUILD={build}", *(str(obj) for _, obj in pairs)])
    return pairs


def instruction_counts(cuobjdump: str, obj: Path, arch: str) -> dict[str, collections.Counter]:
    """{mangled kernel: Counter(opcode)} of one architecture's SASS."""
    counts, current = {}, None
    for line in output([cuobjdump, "-sass", "-arch", arch, str(obj)]).splitlines():
        if header := FUNCTION.match(line):
            current = counts.setdefault(header.group(1), collections.Counter())
        elif current is not None and (found := INSTRUCTION.search(line)):
            if found.group(1).split(".")[0] in KINDS:
                current[found.group(1)] += 1
    return counts


def resource_usage(cuobjdump: str, obj: Path, arch: str) -> dict[str, tuple[int, int, int]]:
    """{mangled kernel: (registers, stack, shared)} of one architecture."""
    usage, current = {}, None
    for line in output([cuobjdump, "-res-usage", "-arch", arch, str(obj)]).splitlines():
        if header := RESOURCES.match(line):
            current = header.group(1)
        elif current is not None and (found := USAGE.search(line)):
            usage[current] = tuple(int(x) for x in found.groups())
            current = None
    return usage


def summary(build: Path, arch: str) -> pd.DataFrame:
    """Every row: steps, kernels and instructions in order."""
    cuobjdump = shutil.which("cuobjdump") or shutil.which("cuobjdump", path="/usr/local/cuda/bin")
    if cuobjdump is None:
        raise machine.Stop("cuobjdump not found: it comes with the CUDA toolkit, or from PyPI as "
                           "nvidia-cuda-cuobjdump (with nvidia-cuda-nvdisasm)")
    rows = []
    for step, obj in step_objects(build):
        counts = instruction_counts(cuobjdump, machine.ROOT / obj, arch)
        usage = resource_usage(cuobjdump, machine.ROOT / obj, arch)
        names = output(["c++filt"], "\n".join(counts)).splitlines() if counts else []
        for mangled, name in zip(counts, names, strict=True):
            registers, stack, shared = usage.get(mangled, ("", "", ""))
            rows += [dict(step=step, kernel=name, registers=registers, shared_bytes=shared, stack_bytes=stack,
                          instruction=opcode, count=count) for opcode, count in counts[mangled].items()]
    return pd.DataFrame(rows, columns=schema.SASS).sort_values(["step", "kernel", "instruction"])


def run(argv=None) -> int:
    parser = machine.Parser(prog="python3 -m lab.sass", description=__doc__)
    parser.add_argument("--arch", default="sm_90", help="SASS architecture (default %(default)s)")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if the committed file is stale")
    parser.add_argument("--build", type=Path, default=Path("build"), help="build folder (default %(default)s)")
    args = parser.parse_args(argv)
    target = schema.RESULTS / f"sass-{args.arch}.csv"
    frame = summary(args.build, args.arch)
    if args.check:
        with tempfile.TemporaryDirectory() as tmp:
            results.write(frame, Path(tmp, "sass.csv"), "sass")
            if not target.is_file() or not filecmp.cmp(target, Path(tmp, "sass.csv"), shallow=False):
                machine.say(f"{os.path.relpath(target)} is out of date: run python3 -m lab.sass")
                return machine.EXIT_WRONG
        return 0
    results.write(frame, target, "sass")
    machine.say(f"wrote {os.path.relpath(target)} ({len(frame)} rows)")
    return 0


if __name__ == "__main__":
    raise SystemExit(machine.main(run))
