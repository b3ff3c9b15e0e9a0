"""The Nsight Compute metrics the lab uses, defined here and nowhere else.

    raw       ncu's own names, which the profiler (lab.profile) asks for
    derived   ratios of two raw metrics, named without "__" so that they cannot
              be mistaken for ncu's: sectors per request = sectors / requests
    labels    the short names the tables show (lab.tables imports label())

read_ncu_csv() reads what `ncu --csv --page raw` prints, for the profiler and
for the grader's counter checks.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import pandas as pd

GLOBAL_LD_SECTORS = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
GLOBAL_LD_REQUESTS = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
GLOBAL_ST_SECTORS = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"
GLOBAL_ST_REQUESTS = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"
SHARED_LD_INSTRUCTIONS = "smsp__sass_inst_executed_op_shared_ld.sum"
SHARED_LD_WAVEFRONTS = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
SHARED_ST_INSTRUCTIONS = "smsp__sass_inst_executed_op_shared_st.sum"
SHARED_ST_WAVEFRONTS = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
DRAM_THROUGHPUT = "dram__throughput.avg.pct_of_peak_sustained_elapsed"

# Raw metric -> label, in the order the profiler's table shows them.
RAW = {
    GLOBAL_LD_SECTORS: "global load sectors",
    GLOBAL_LD_REQUESTS: "global load requests",
    GLOBAL_ST_SECTORS: "global store sectors",
    GLOBAL_ST_REQUESTS: "global store requests",
    SHARED_LD_INSTRUCTIONS: "shared load instructions",
    SHARED_LD_WAVEFRONTS: "shared load wavefronts",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": "shared load bank conflicts",
    "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": "shared load bank conflicts (SASS)",
    SHARED_ST_INSTRUCTIONS: "shared store instructions",
    SHARED_ST_WAVEFRONTS: "shared store wavefronts",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": "shared store bank conflicts",
    "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": "shared store bank conflicts (SASS)",
    "dram__bytes_read.sum": "DRAM read",
    "dram__bytes_write.sum": "DRAM write",
    DRAM_THROUGHPUT: "DRAM % of peak",
    "l1tex__t_sector_hit_rate.pct": "L1 hit rate %",
    "lts__t_sector_hit_rate.pct": "L2 hit rate %",
    "lts__t_sectors_op_read.sum": "L2 read sectors",
    "lts__t_sectors_op_write.sum": "L2 write sectors",
    "smsp__inst_executed_op_ldgsts.sum": "cp.async instructions",
    "smsp__inst_executed.sum": "instructions executed",
    "smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio": "stall: long scoreboard (cycles / instruction)",
    "smsp__average_warp_latency_issue_stalled_barrier.ratio": "stall: barrier (cycles / instruction)",
    "smsp__cycles_active.avg": "SM active cycles (average)",
    "gpu__time_duration.sum": "duration (ns)",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "achieved occupancy %",
    "sm__maximum_warps_per_active_cycle_pct": "theoretical occupancy %",
    "launch__registers_per_thread": "registers / thread",
    "launch__shared_mem_per_block_static": "static shared memory / block",
    "launch__shared_mem_per_block_dynamic": "dynamic shared memory / block",
    "launch__grid_size": "grid size (blocks)",
    "launch__waves_per_multiprocessor": "waves per multiprocessor",
    "launch__block_size": "block size (threads)",
    "launch__thread_count": "threads launched",
}


@dataclass(frozen=True)
class Derived:
    """A value computed from two raw metrics, stored in the results under its own name."""

    numerator: str
    denominator: str
    label: str


DERIVED = {
    "global_ld_sectors_per_request": Derived(GLOBAL_LD_SECTORS, GLOBAL_LD_REQUESTS, "load sectors / request"),
    "global_st_sectors_per_request": Derived(GLOBAL_ST_SECTORS, GLOBAL_ST_REQUESTS, "store sectors / request"),
    "shared_ld_wavefronts_per_request": Derived(SHARED_LD_WAVEFRONTS, SHARED_LD_INSTRUCTIONS,
                                                "shared load wavefronts / instruction"),
    "shared_st_wavefronts_per_request": Derived(SHARED_ST_WAVEFRONTS, SHARED_ST_INSTRUCTIONS,
                                                "shared store wavefronts / instruction"),
}

# A metric that some ncu versions or GPUs lack -> the one to ask for instead.
FALLBACK = {DRAM_THROUGHPUT: "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"}


def label(metric: str) -> str:
    """The short label of a metric, raw or derived, or its full name if it has none."""
    if metric in DERIVED:
        return DERIVED[metric].label
    wanted = next((raw for raw, instead in FALLBACK.items() if instead == metric), metric)
    return RAW.get(wanted, metric)


def explain(metric: str) -> str:
    """How a metric is obtained: its ncu name, or the ratio of two."""
    if metric in DERIVED:
        return f"`{DERIVED[metric].numerator}` / `{DERIVED[metric].denominator}`"
    return f"`{metric}`"


def known(metric: str) -> bool:
    """Whether the profiler collects or derives this metric."""
    return metric in RAW or metric in DERIVED or metric in FALLBACK.values()


def derive(values: dict[str, float]) -> dict[str, float]:
    """The derived metrics whose two inputs are among values (and the denominator is not 0)."""
    return {name: values[d.numerator] / values[d.denominator] for name, d in DERIVED.items()
            if d.numerator in values and values.get(d.denominator)}


def read_ncu_csv(text: str) -> pd.DataFrame:
    """ncu's `--csv --page raw` output: one row per profiled launch, one column per metric.

    ncu prints its own messages before the table and a row of units after the
    header; both are left out. Every cell stays text.
    """
    start = text.find('"ID"')
    if start < 0:
        return pd.DataFrame()
    table = pd.read_csv(io.StringIO(text[start:]), dtype=str, keep_default_na=False)
    return table[table["ID"].str.strip().str.isdigit()].reset_index(drop=True)
