"""The columns of every results file, declared once for the lab. The step programs write the bench layout
with --csv (CSV_HEADER in common/report.h) and say it in --describe; tests/test_cli.py holds the two equal."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "docs" / "results"

BENCH = ("gpu", "step", "kernel", "role", "rows", "cols", "offset", "median_ms", "min_ms", "gbps", "pct_of_copy",
         "vs_cublas", "check")
PROFILE = ("gpu", "step", "kernel", "role", "rows", "cols", "offset", "metric", "value")
# <gpu>-peers.csv (float32) and <gpu>-peers-bf16.csv (bf16) alike: results.peers_kind() names the file.
PEERS = ("gpu", "peer", "version", "op", "role", "rows", "cols",
         "median_ms", "min_ms", "gbps", "pct_of_copy", "vs_tutorial", "check", "method")
REFERENCE = ("exercise", "kernel", "role", "rows", "cols", "offset", "median_ms", "min_ms", "gbps",
             "pct_of_copy", "vs_cublas", "source", "sha256", "gpu", "driver", "cuda", "date")
TIMING = BENCH + ("flush",)
PERMUTE = BENCH + ("dtype", "dims", "perm")  # step 15's tensors: rows x cols is the fold's matrix (its count)
PEERS_PERMUTE = PEERS + ("dims", "perm")  # lab.peers_permute: rows x cols is the count, the last dimension as cols
SASS = ("step", "kernel", "registers", "shared_bytes", "stack_bytes", "instruction", "count")

LAYOUTS = {"bench": BENCH, "profile": PROFILE, "peers": PEERS, "reference": REFERENCE,
           "timing": TIMING, "sass": SASS, "permute": PERMUTE,
           "peers-permute": PEERS_PERMUTE}

# The `role` column says which rows are baselines, never a kernel's name:
#   copy     a plain copy of the same bytes; a run's copy bound is the fastest
#   library  the library transpose (cuBLAS)
#   kernel   the program's own kernels (in the grader: student, reference, step)
#   bound    moves the bytes as the kernel does but copies (step 06's shared_copy)
#   tutorial, peer   the peers run: the tutorial's answer (the last step of the element type), the others
STEP_ROLES = ("copy", "library", "kernel", "bound")
ROLES = {"bench": STEP_ROLES, "timing": STEP_ROLES, "permute": STEP_ROLES, "profile": STEP_ROLES + ("peer", "tutorial"),
         "peers": ("copy", "tutorial", "peer"), "peers-permute": ("copy", "tutorial", "peer"),
         "reference": ("copy", "library", "kernel")}
