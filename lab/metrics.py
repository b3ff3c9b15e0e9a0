"""The Nsight Compute metrics the lab uses; lab/metrics.csv is their one definition.

Each row of lab/metrics.csv: `metric`, ncu's name, or for a ratio the lab
computes a name without "__" (so it cannot be mistaken for ncu's); `label`,
its short name in the tables; and for a ratio its `numerator` and
`denominator` (sectors per request = sectors / requests). The rows are in the
order the tables show them, each ratio after its two inputs.

The profiler (lab.profile) asks ncu for the raw metrics and stores the ratios
beside them; the tables (lab.tables) show them under their labels.
read_ncu_csv() reads what `ncu --csv --page raw` prints.
"""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd

TABLE = pd.read_csv(Path(__file__).with_name("metrics.csv"), keep_default_na=False).set_index("metric")
DERIVED = TABLE[TABLE["numerator"] != ""]
RAW = [metric for metric in TABLE.index if metric not in DERIVED.index]  # what the profiler asks ncu for
# A metric that some ncu versions or GPUs lack -> the one the profiler asks for instead.
FALLBACK = {"dram__throughput.avg.pct_of_peak_sustained_elapsed":
            "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"}
REPLACES = {instead: wanted for wanted, instead in FALLBACK.items()}


def label(metric: str) -> str:
    """The short label of a metric (a fallback has the label of the one it replaces), or its full name."""
    return TABLE["label"].get(REPLACES.get(metric, metric), metric)


def explain(metric: str) -> str:
    """How a metric is obtained: its ncu name, or the ratio of two."""
    if metric in DERIVED.index:
        return f"`{DERIVED.at[metric, 'numerator']}` / `{DERIVED.at[metric, 'denominator']}`"
    return f"`{metric}`"


def known(metric: str) -> bool:
    """Whether the profiler collects or computes this metric."""
    return metric in TABLE.index or metric in REPLACES


def derive(values: dict[str, float]) -> dict[str, float]:
    """The ratios whose two inputs are among values (and whose denominator is not 0)."""
    return {name: values[row.numerator] / values[row.denominator] for name, row in DERIVED.iterrows()
            if row.numerator in values and values.get(row.denominator)}


def in_table_order(found: list[str]) -> list[str]:
    """The given metrics in the order of lab/metrics.csv (a fallback in the place of the one it
    replaces), those it does not list last."""
    place = {metric: i for i, metric in enumerate(TABLE.index)}
    return sorted(found, key=lambda m: place.get(REPLACES.get(m, m), len(place)))


def read_ncu_csv(text: str) -> pd.DataFrame:
    """ncu's `--csv --page raw` output: one row per profiled launch, one column per metric.

    ncu's own messages before the table, and the row of units after its header,
    are left out. Every cell stays text.
    """
    start = text.find('"ID"')
    if start < 0:
        return pd.DataFrame()
    table = pd.read_csv(io.StringIO(text[start:]), dtype=str, keep_default_na=False)
    return table[table["ID"].str.strip().str.isdigit()].reset_index(drop=True)
