"""The columns of every results file, declared once.

The step programs write the bench layout themselves (`--csv`), so its columns
are read from the one place the C code declares them, CSV_HEADER in
common/report.h.  The other layouts are written by this package and declared
here.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "docs" / "results"


def _bench_columns() -> tuple[str, ...]:
    """The columns of `stepNN --csv`, as common/report.h declares them."""
    header = (ROOT / "common" / "report.h").read_text()
    match = re.search(r'#define CSV_HEADER\s*\\?\s*"([^"]+)"', header)
    if match is None:
        raise RuntimeError("common/report.h declares no CSV_HEADER")
    return tuple(match.group(1).split(","))


BENCH = _bench_columns()
PROFILE = ("gpu", "step", "kernel", "role", "rows", "cols", "offset", "metric", "value")
PEERS = ("gpu", "peer", "version", "op", "role", "rows", "cols",
         "median_ms", "min_ms", "gbps", "pct_of_copy", "vs_tutorial", "check", "method")
REFERENCE = ("exercise", "kernel", "role", "rows", "cols", "offset", "median_ms", "min_ms", "gbps",
             "pct_of_copy", "vs_cublas", "source", "sha256", "gpu", "driver", "cuda", "date")
TIMING = BENCH + ("flush",)
SASS = ("step", "kernel", "registers", "shared_bytes", "stack_bytes", "instruction", "count")

LAYOUTS = {"bench": BENCH, "profile": PROFILE, "peers": PEERS, "reference": REFERENCE,
           "timing": TIMING, "sass": SASS}

# The `role` column says which rows are baselines, never a kernel's name:
#   copy     a plain copy of the same bytes; a run's copy bound is the fastest
#   library  the library transpose (cuBLAS)
#   kernel   the program's own kernels (in the grader: student, reference, step)
#   bound    moves the bytes as the kernel does but copies (step 06's shared_copy)
#   tutorial, peer   the peers run: the tutorial's last step, the others
ROLES = {"bench": ("copy", "library", "kernel", "bound"),
         "timing": ("copy", "library", "kernel", "bound"),
         "profile": ("copy", "library", "kernel", "bound", "peer", "tutorial"),
         "peers": ("copy", "tutorial", "peer"),
         "reference": ("copy", "library", "kernel")}
