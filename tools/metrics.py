"""The Nsight Compute metrics this repository collects, and their short labels.

One table for the profiler (tools/ncu_profile.py, which collects them and
prints them) and for the write-ups' tables (tools/render_tables.py, which
shows them under these labels).  A metric missing here is shown by its
full ncu name.  parse_ncu_raw_csv() reads what ncu prints, for the profiler
and for the grader's counter checks (tools/grade.py).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass


@dataclass(frozen=True)
class Ratio:
    """A value computed from two ncu metrics, stored under its own name.

    The names have no "__", so that they cannot be mistaken for ncu's.
    """

    name: str
    numerator: str
    denominator: str


GLOBAL_LD_SECTORS = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
GLOBAL_LD_REQUESTS = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
GLOBAL_ST_SECTORS = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"
GLOBAL_ST_REQUESTS = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"
SHARED_LD_INSTRUCTIONS = "smsp__sass_inst_executed_op_shared_ld.sum"
SHARED_LD_WAVEFRONTS = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
SHARED_ST_INSTRUCTIONS = "smsp__sass_inst_executed_op_shared_st.sum"
SHARED_ST_WAVEFRONTS = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
DRAM_THROUGHPUT = "dram__throughput.avg.pct_of_peak_sustained_elapsed"

# Metric -> short label.  The profiler collects them in this order; each
# group is printed as a block of its table.
GROUPS = [
    {
        GLOBAL_LD_SECTORS: "global load sectors",
        GLOBAL_LD_REQUESTS: "global load requests",
        GLOBAL_ST_SECTORS: "global store sectors",
        GLOBAL_ST_REQUESTS: "global store requests",
    },
    {
        SHARED_LD_INSTRUCTIONS: "shared load instructions",
        SHARED_LD_WAVEFRONTS: "shared load wavefronts",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum":
            "shared load bank conflicts",
        "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum":
            "shared load bank conflicts (SASS)",
        SHARED_ST_INSTRUCTIONS: "shared store instructions",
        SHARED_ST_WAVEFRONTS: "shared store wavefronts",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum":
            "shared store bank conflicts",
        "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum":
            "shared store bank conflicts (SASS)",
    },
    {
        "dram__bytes_read.sum": "DRAM read",
        "dram__bytes_write.sum": "DRAM write",
        DRAM_THROUGHPUT: "DRAM % of peak",
        "l1tex__t_sector_hit_rate.pct": "L1 hit rate %",
        "lts__t_sector_hit_rate.pct": "L2 hit rate %",
        "lts__t_sectors_op_read.sum": "L2 read sectors",
        "lts__t_sectors_op_write.sum": "L2 write sectors",
    },
    {
        "smsp__inst_executed_op_ldgsts.sum": "cp.async instructions",
        "smsp__inst_executed.sum": "instructions executed",
        "smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio":
            "stall: long scoreboard (cycles / instruction)",
        "smsp__average_warp_latency_issue_stalled_barrier.ratio":
            "stall: barrier (cycles / instruction)",
        "smsp__cycles_active.avg": "SM active cycles (average)",
        "gpu__time_duration.sum": "duration (ns)",
    },
    {
        "sm__warps_active.avg.pct_of_peak_sustained_active": "achieved occupancy %",
        "sm__maximum_warps_per_active_cycle_pct": "theoretical occupancy %",
        "launch__registers_per_thread": "registers / thread",
        "launch__shared_mem_per_block_static": "static shared memory / block",
        "launch__shared_mem_per_block_dynamic": "dynamic shared memory / block",
        "launch__grid_size": "grid size (blocks)",
        "launch__waves_per_multiprocessor": "waves per multiprocessor",
        "launch__block_size": "block size (threads)",
        "launch__thread_count": "threads launched",
    },
]

# Ratios the profiler computes; each is shown after the later of its inputs.
RATIOS = [
    Ratio("global_ld_sectors_per_request", GLOBAL_LD_SECTORS, GLOBAL_LD_REQUESTS),
    Ratio("global_st_sectors_per_request", GLOBAL_ST_SECTORS, GLOBAL_ST_REQUESTS),
    Ratio("shared_ld_wavefronts_per_request", SHARED_LD_WAVEFRONTS,
          SHARED_LD_INSTRUCTIONS),
    Ratio("shared_st_wavefronts_per_request", SHARED_ST_WAVEFRONTS,
          SHARED_ST_INSTRUCTIONS),
]
RATIO_LABELS = {
    "global_ld_sectors_per_request": "load sectors / request",
    "global_st_sectors_per_request": "store sectors / request",
    "shared_ld_wavefronts_per_request": "shared load wavefronts / instruction",
    "shared_st_wavefronts_per_request": "shared store wavefronts / instruction",
}

# A metric that some ncu versions or GPUs lack -> the one to ask for instead.
FALLBACK = {DRAM_THROUGHPUT: "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"}

LABELS = {m: label for group in GROUPS for m, label in group.items()}
LABELS.update(RATIO_LABELS)
for _wanted, _instead in FALLBACK.items():
    LABELS[_instead] = LABELS[_wanted]

# The metrics the profiler asks ncu for by default, in table order.
DEFAULT_METRICS = [m for group in GROUPS for m in group]


def label(metric: str) -> str:
    """The short label of a metric, or its full name if it has none."""
    return LABELS.get(metric, metric)


def ratio(name: str) -> Ratio | None:
    """The Ratio called name, or None if name is an ncu metric."""
    return next((r for r in RATIOS if r.name == name), None)


def explain(metric: str) -> str:
    """How a metric is obtained: its ncu name, or a ratio of two."""
    computed = ratio(metric)
    if computed is None:
        return "`%s`" % metric
    return "`%s` / `%s`" % (computed.numerator, computed.denominator)


def parse_ncu_raw_csv(text: str) -> list[dict]:
    """Rows of ncu's `--page raw --csv` output as dicts, the units row skipped."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        return []
    rows = list(csv.DictReader(lines[start:]))
    return [r for r in rows if (r.get("ID") or "").strip() not in ("", "ID")]
