#!/usr/bin/env python3
"""What each step's kernels compile to: the evidence behind the write-ups' SASS claims.

    python3 tools/sass_summary.py [--arch sm_90]          write docs/results/sass-<arch>.csv
    python3 tools/sass_summary.py --check [--arch sm_90]  exit 1 if the committed file differs

For every kernel of every step (build/obj/steps/NN_name/*.cu.o, built through
make when missing), one CSV row per memory or barrier instruction kind:

    step,kernel,registers,shared_bytes,stack_bytes,instruction,count

`kernel` is the demangled name, `instruction` the SASS opcode with its
modifiers (LDG.E.128, STS, LDGSTS.E.BYPASS.128, BAR.SYNC.DEFER_BLOCKING, ...),
`count` how many times it appears in the kernel's code (not how often it
runs). Registers, shared memory and stack come from `cuobjdump -res-usage`;
on sm_90 and newer its shared bytes include 1 KiB that the system reserves
in every block.
No GPU is needed: cuobjdump reads the object files, and CUDA 13.0's nvcc
gives the same machine code on every machine.

Exit codes: 0 done (or up to date), 1 out of date (--check), 3 cuobjdump,
c++filt or make missing or failing.
"""
import argparse
import collections
import csv
import io
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import results  # noqa: E402

# The instruction kinds worth counting: global, shared and local memory,
# asynchronous copies and barriers.
KINDS = ("LDG", "STG", "LDS", "STS", "LDL", "STL", "LDGSTS", "LDGDEPBAR", "DEPBAR", "BAR")
FUNCTION = re.compile(r"^\s*Function\s*:\s*(\S+)")
INSTRUCTION = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)")
RESOURCES = re.compile(r"^\s*Function\s+(\S+):\s*$")
USAGE = re.compile(r"REG:(\d+)\s+STACK:(\d+)\s+SHARED:(\d+)")
COLUMNS = ("step", "kernel", "registers", "shared_bytes", "stack_bytes", "instruction",
           "count")


class ToolError(Exception):
    """A tool this script needs is missing or failed."""


def run(command):
    """stdout of a command, or ToolError with its first line of complaint."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    except FileNotFoundError as err:
        raise ToolError("%s not found" % command[0]) from err
    if done.returncode != 0:
        first = (done.stderr or done.stdout).strip().splitlines()
        raise ToolError("%s failed: %s" % (" ".join(command), first[0] if first else "?"))
    return done.stdout


def step_objects(build):
    """(step number, object path) of every step, built through make if missing."""
    pairs = []
    for step in results.step_dirs():
        sources = sorted(f for f in os.listdir(step.path) if f.endswith(".cu"))
        for source in sources:
            pairs.append((step.number, os.path.join(build, "obj", "steps",
                                                    os.path.basename(step.path),
                                                    source + ".o")))
    missing = [path for _, path in pairs if not os.path.isfile(os.path.join(ROOT, path))]
    if missing:
        run(["make", "-s", "-C", ROOT, "BUILD=" + build] + missing)
    return pairs


def demangle(names):
    """Demangled C++ names, in order."""
    if not names:
        return []
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True,
                         text=True, check=True).stdout
    return out.splitlines()


def instruction_counts(cuobjdump, obj, arch):
    """{mangled kernel: Counter(opcode)} from the SASS of one architecture."""
    counts = collections.OrderedDict()
    current = None
    for line in run([cuobjdump, "-sass", "-arch", arch, obj]).splitlines():
        header = FUNCTION.match(line)
        if header:
            current = counts.setdefault(header.group(1), collections.Counter())
            continue
        found = INSTRUCTION.search(line)
        if current is not None and found:
            opcode = found.group(1)
            if opcode.split(".")[0] in KINDS:
                current[opcode] += 1
    return counts


def resource_usage(cuobjdump, obj, arch):
    """{mangled kernel: (registers, stack, shared)} of one architecture."""
    usage, current = {}, None
    for line in run([cuobjdump, "-res-usage", "-arch", arch, obj]).splitlines():
        header = RESOURCES.match(line)
        if header:
            current = header.group(1)
            continue
        found = USAGE.search(line)
        if current is not None and found:
            usage[current] = tuple(int(x) for x in found.groups())
            current = None
    return usage


def summary_rows(build, arch):
    """Every CSV row, steps and kernels in order, instructions sorted by name."""
    cuobjdump = shutil.which("cuobjdump") or shutil.which("cuobjdump",
                                                          path="/usr/local/cuda/bin")
    if cuobjdump is None:
        raise ToolError("cuobjdump not found: it comes with the CUDA toolkit, or from PyPI "
                        "as nvidia-cuda-cuobjdump (with nvidia-cuda-nvdisasm)")
    rows = []
    for step, obj in step_objects(build):
        path = os.path.join(ROOT, obj)
        counts = instruction_counts(cuobjdump, path, arch)
        usage = resource_usage(cuobjdump, path, arch)
        names = dict(zip(counts, demangle(list(counts))))  # noqa: B905 (Python 3.9)
        for mangled, name in names.items():
            registers, stack, shared = usage.get(mangled, ("", "", ""))
            for opcode in sorted(counts[mangled]):
                rows.append({"step": step, "kernel": name, "registers": registers,
                             "shared_bytes": shared, "stack_bytes": stack,
                             "instruction": opcode, "count": counts[mangled][opcode]})
    return sorted(rows, key=lambda r: (r["step"], r["kernel"], r["instruction"]))


def as_csv(rows):
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return text.getvalue()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--arch", default="sm_90", help="SASS architecture (default sm_90)")
    parser.add_argument("--check", action="store_true",
                        help="change nothing; exit 1 if the committed file is out of date")
    parser.add_argument("--build", default=os.environ.get("BUILD", "build"),
                        help="build directory (default $BUILD or build)")
    args = parser.parse_args()
    target = os.path.join(ROOT, "docs", "results", "sass-%s.csv" % args.arch)
    try:
        text = as_csv(summary_rows(args.build, args.arch))
    except (ToolError, subprocess.CalledProcessError) as err:
        print("sass_summary: error: %s" % err, file=sys.stderr)
        return 3
    if args.check:
        current = open(target).read() if os.path.isfile(target) else None
        if current != text:
            print("sass_summary: %s is out of date: run python3 tools/sass_summary.py"
                  % os.path.relpath(target, ROOT), file=sys.stderr)
            return 1
        return 0
    with open(target, "w") as out:
        out.write(text)
    print("sass_summary: wrote %s (%d rows)" % (os.path.relpath(target, ROOT),
                                                 text.count("\n") - 1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
