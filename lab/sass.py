"""What each step's kernels compile to: the evidence behind the write-ups' SASS claims.

    python3 -m lab.sass            write docs/results/sass-sm_90.csv
    python3 -m lab.sass --check    exit 1 if the committed file differs

One row per memory, barrier, byte-permute or shuffle instruction kind (LDG.E.128, BAR.SYNC, PRMT, ...) of every kernel
(demangled) of every step, with how often it appears in the code (not how often it runs), and the kernel's
registers, shared memory (on sm_90 and newer including the 1 KiB the system reserves) and stack. No GPU is
needed: cuobjdump reads the objects make brings up to date, and one nvcc gives the same code everywhere.

Exit codes: 0 done (or up to date), 1 out of date (--check), 2 bad command line, 3 cuobjdump, c++filt or make failing.
"""

from __future__ import annotations

import collections
import io
import os
import subprocess
from pathlib import Path

import pandas as pd

from lab import machine, results, schema
from lab.compiled import Compiled

# The instruction kinds worth counting: global, shared and local memory (ldmatrix and stmatrix too),
# asynchronous copies, barriers, byte permutes and shuffles.
KINDS = ("LDG", "STG", "LDS", "LDSM", "STS", "STSM", "LDL", "STL",
         "LDGSTS", "LDGDEPBAR", "DEPBAR", "BAR", "PRMT", "SHFL")
ARCH = "sm_90"   # the write-ups' SASS claims are about the H200's and H100's code


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


def summary(build: Path) -> pd.DataFrame:
    """Every row: steps, kernels and instructions in order."""
    cuobjdump = machine.find_tool("cuobjdump", "CUOBJDUMP")
    sources = sorted((machine.ROOT / "steps").glob("[0-9][0-9]_*/*.cu"))
    objects = [build / "obj" / source.relative_to(machine.ROOT).with_suffix(".cu.o") for source in sources]
    # make first: a stale object would describe code that is no longer there.
    output(["make", "-s", "-C", str(machine.ROOT), f"BUILD={build}", *map(str, objects)])
    rows = []
    for source, obj in zip(sources, objects, strict=True):
        step = source.parent.name[:2]
        sass, res_usage = (output([cuobjdump, option, "-arch", ARCH, str(machine.ROOT / obj)])
                           for option in ("-sass", "-res-usage"))
        compiled = Compiled.parse(sass, res_usage)
        for number, code in compiled.code.items():
            counts = {mangled: collections.Counter(op for op, _ in listing if op.split(".")[0] in KINDS)
                      for mangled, listing in code.items()}
            names = output(["c++filt"], "\n".join(counts)).splitlines() if counts else []
            for mangled, name in zip(counts, names, strict=True):
                usage = compiled.resources.get(number, {}).get(mangled, {})
                rows += [dict(step=step, kernel=name, registers=usage.get("REG", ""),
                              shared_bytes=usage.get("SHARED", ""), stack_bytes=usage.get("STACK", ""),
                              instruction=opcode, count=count) for opcode, count in counts[mangled].items()]
    return pd.DataFrame(rows, columns=schema.SASS).sort_values(["step", "kernel", "instruction"])


def run(argv=None) -> int:
    parser = machine.Parser(prog="python3 -m lab.sass", description=__doc__)
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if the committed file is stale")
    parser.add_argument("--build", type=Path, default=Path("build"), help="build folder (default %(default)s)")
    args = parser.parse_args(argv)
    target = schema.RESULTS / f"sass-{ARCH}.csv"
    frame, text = summary(args.build), io.StringIO()
    results.write(frame, text, "sass")
    if not args.check:
        target.write_text(text.getvalue())
        machine.say(f"wrote {os.path.relpath(target)} ({len(frame)} rows)")
    elif not target.is_file() or target.read_text() != text.getvalue():
        machine.say(f"{os.path.relpath(target)} is out of date: run python3 -m lab.sass")
        return machine.EXIT_WRONG
    return 0


if __name__ == "__main__":
    raise SystemExit(machine.main(run))
