"""The columns of every results file, declared once: the bench layout's where the C code declares them
(CSV_HEADER in common/report.h: the step programs write it with --csv), the others here."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "docs" / "results"

CSV_HEADER = re.search(r'#define CSV_HEADER\s*\\?\s*"([^"]+)"', (ROOT / "common" / "report.h").read_text())
if CSV_HEADER is None:
    raise RuntimeError("common/report.h declares no CSV_HEADER")
BENCH = tuple(CSV_HEADER[1].split(","))
PROFILE = ("gpu", "step", "kernel", "role", "rows", "cols", "offset", "metric", "value")
# <gpu>-peers.csv (float32) and <gpu>-peers-bf16.csv (bf16) alike: results.peers_kind() names the file.
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
#   tutorial, peer   the peers run: the tutorial's answer (the last step of the element type), the others
STEP_ROLES = ("copy", "library", "kernel", "bound")
ROLES = {"bench": STEP_ROLES, "timing": STEP_ROLES, "profile": STEP_ROLES + ("peer", "tutorial"),
         "peers": ("copy", "tutorial", "peer"), "reference": ("copy", "library", "kernel")}
