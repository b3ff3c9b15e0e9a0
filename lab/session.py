"""Everything that needs the GPU, in one command: what a GPU machine measures and sends back.

    make gpu-session [BATCHES="bench profile"] [RERUN="11 12"]
    python3 -m lab.session [BATCH ...] [--rerun 11,12]

    test       make test, slow tests included              -> docs/results/<gpu>-test.log
    bench      the sweep and the studies (make study)    -> <gpu>.csv, <gpu>-<study>.csv
    profile    Nsight Compute over lab/profile_plan.csv  -> <gpu>-profile.csv
    peers      the other libraries, and their counters   -> <gpu>-peers.csv, <gpu>-peers-bf16.csv,
                                                            <gpu>-peers-profile.csv, <gpu>-peers-permute*.csv
    reference  the exercise solutions' timings (make reference-timings)
    docs       the figures and the pages drawn from the results (make figures docs-tables)

No batch named: all of them, in this order. --rerun 11,12 measures only those
steps again in bench and profile and keeps the other steps' committed rows:
use it only when their machine code is unchanged (docs/results/sass-sm_90.csv
shows it). A sweep cut short goes on with `make bench RESUME=1`, from the run
files under build/bench/: a machine that sends back files should pack them
with docs/results (tar czf OUT/results.tgz docs/results build/bench). Every step
says how long it took. Exit code: 0 when every step passed, else 1 (2 bad
command line, 3 no GPU).
"""

from __future__ import annotations

import contextlib
import os
import shlex
import subprocess
import time
from pathlib import Path

from lab import machine, results, schema

BATCHES = ("test", "bench", "profile", "peers", "reference", "docs")


def step(name: str, command: list[str], log: Path | None = None) -> bool:
    """Run one command (its output into log, if given), say how long it took; True if it passed."""
    start = time.time()
    machine.say(f"session: {name}: {shlex.join(command)}")
    with open(log, "a") if log else contextlib.nullcontext() as out:
        rc = subprocess.run(command, cwd=machine.ROOT, stdout=out, stderr=subprocess.STDOUT if log else None).returncode
    machine.say(f"session: {name} took {time.time() - start:.0f} s (exit {rc})")
    return rc == 0


def test_log(gpu: str, gpu_name: str) -> Path:
    """docs/results/<gpu>-test.log, begun with where and when the tests ran."""
    log = schema.RESULTS / f"{gpu}-test.log"
    when = time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime())
    log.write_text(f"# make test on {gpu_name}, driver {machine.driver()}, {when}\n")
    return log


def commands(batch: str, gpu: str, rerun: str) -> list[list[str]]:
    """The make commands of one batch (make builds what each needs first)."""
    make = ["make", "--no-print-directory", f"GPU={gpu}"]
    return {
        "bench": [make + ["bench"] + ([f"RERUN={rerun}"] if rerun else []), make + ["study"]],
        "profile": [make + ["profile-plan"] + ([f"STEPS={rerun}"] if rerun else [])],
        "peers": [make + ["peers"], make + ["peers-profile"], make + ["peers-permute"]],
        # A new GPU's plots, and the pages that name every GPU of gpus.csv, drawn from what it measured.
        "docs": [make + ["figures"], make + ["docs-tables"]],
        # lab.reference itself writes an H200's where the docs quote it, another GPU's beside its other results.
        "reference": [make + ["reference-timings"]],
    }[batch]


def run(argv=None) -> int:
    parser = machine.Parser(prog="python3 -m lab.session", description=__doc__)
    parser.add_argument("batches", nargs="*", help=f"any of {', '.join(BATCHES)} (default: all, in this order)")
    parser.add_argument("--rerun", default="", help="bench and profile only these steps, e.g. 11,12")
    args = parser.parse_args(argv)
    if unknown := [b for b in args.batches if b not in BATCHES]:
        parser.error(f"unknown batch '{unknown[0]}': choose from {', '.join(BATCHES)}")
    name, _ = machine.gpu()
    gpu = results.gpu_slug(name)
    passed = [step("build", ["make", f"-j{os.cpu_count()}", "all"])]
    for batch in args.batches or BATCHES:
        if batch == "test":
            passed.append(step("test", ["make", "test", "PYTEST_ARGS=--run-slow"], test_log(gpu, name)))
        else:
            passed += [step(batch, command) for command in commands(batch, gpu, args.rerun.replace(",", " "))]
    return 0 if all(passed) else machine.EXIT_WRONG


if __name__ == "__main__":
    raise SystemExit(machine.main(run))
