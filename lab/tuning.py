"""Step 12's per-GPU limits, kept by hand in steps/12_tma/answer_tuning.h (whose comment states the rule),
against the committed sweeps docs/results/<gpu>.csv.

    python3 -m lab.tuning    print each GPU's step 09 lead per size, its limit and its row for the header;
                             exit 1 if a row disagrees with its sweep or a GPU of gpus.csv has none
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from lab import machine, results, schema

HEADER = schema.ROOT / "steps" / "12_tma" / "answer_tuning.h"
ANSWER = schema.ROOT / "steps" / "12_tma" / "answer.cuh"
TILE = 64  # common/tile64.cuh: the side of a tile
VEC = 4  # floats in a 16-byte chunk


def out_row_floats(answer: Path | str = ANSWER) -> int:
    """The floats on which answer.cuh asks every row of out to start (its ANSWER_OUT_ROW_ALIGN, in bytes, / 4)."""
    found = re.search(r"#define\s+ANSWER_OUT_ROW_ALIGN\s+(\d+)", Path(answer).read_text())
    if found is None:
        raise results.ResultsError(f"{answer} defines no ANSWER_OUT_ROW_ALIGN")
    return int(found.group(1)) // 4

LEADER = "09 vec4"  # step 09's default: the 16-byte kernel on these shapes
CHALLENGER = "11 any_shape"  # step 11's default
MIB = 1 << 20
ROW = re.compile(r'\{\s*"([^"]*)"\s*,\s*([^}]*?)\s*\}')  # {"NVIDIA H200", 64 * ANSWER_MIB}
LIMIT = re.compile(r"(\d+)\s*\*\s*ANSWER_MIB|(\d+)(?:ull|ul|u|l)?", re.IGNORECASE)


def leads(gpu: str, results_dir: Path | str = schema.RESULTS) -> pd.DataFrame:
    """Step 09's average lead over step 11 in points of % of copy, per size: index bytes, columns lead, shapes."""
    frame = results.load(Path(results_dir) / f"{gpu}.csv", "bench")
    frame = frame[(frame["role"] == "kernel") & (frame["offset"] == 0)
                  & (frame["rows"] % out_row_floats() == 0) & (frame["cols"] % VEC == 0)
                  & (frame["rows"] >= TILE) & (frame["cols"] >= TILE)]
    frame = frame.assign(run=frame["step"] + " " + frame["kernel"],
                         pct=pd.to_numeric(frame["pct_of_copy"], errors="coerce"))
    frame = frame[frame["run"].isin([LEADER, CHALLENGER])].drop_duplicates(["rows", "cols", "run"], keep="last")
    both = frame.pivot(index=["rows", "cols"], columns="run", values="pct").dropna().reset_index()
    if both.empty or LEADER not in both or CHALLENGER not in both:
        raise results.ResultsError(f"{gpu}.csv has no aligned shape timed by both step 09 and step 11: "
                                   "run `make bench` with both steps")
    both = both.assign(bytes=both["rows"] * both["cols"] * 4, lead=both[LEADER] - both[CHALLENGER],
                       shape=both["rows"].astype(str) + "x" + both["cols"].astype(str))
    return both.groupby("bytes").agg(lead=("lead", "mean"), shapes=("shape", " ".join)).sort_index()


def limits(gpu: str, results_dir: Path | str = schema.RESULTS) -> int:
    """The limit, in bytes, that docs/results/<gpu>.csv implies; 0 if step 09 leads at no size."""
    limit = 0
    for size, lead in leads(gpu, results_dir)["lead"].items():
        if lead <= 0:
            break
        limit = int(size)
    return limit


def label(size: int | None) -> str:
    return "an unreadable limit" if size is None else f"{size / MIB:g} MiB"


def header_rows(header: Path | str = HEADER) -> list[tuple[str, int | None]]:
    """The (GPU name, limit in bytes) rows of the header's ANSWER_TUNINGS; None for a limit not understood."""
    table = re.search(r"ANSWER_TUNINGS\[\](.*?)\};", Path(header).read_text(), re.S)
    table = re.sub(r"/\*.*?\*/|//[^\n]*", "", table[1] if table else "", flags=re.S)
    rows = []
    for name, expression in ROW.findall(table):
        match = LIMIT.fullmatch(expression)
        rows.append((name, None if match is None else int(match[1]) * MIB if match[1] else int(match[2])))
    return rows


def check(header: Path | str = HEADER, results_dir: Path | str = schema.RESULTS) -> list[str]:
    """One problem per header row that disagrees with its GPU's sweep, and per GPU of gpus.csv without a row."""
    rows = header_rows(header)
    names = [name for name, _ in rows]
    where = Path(header).name
    problems = [f"{name} has {names.count(name)} rows in {where}" for name in dict.fromkeys(names)
                if names.count(name) > 1]
    for name, limit in rows:
        gpu = results.gpu_slug(name)
        try:
            implied = limits(gpu, results_dir)
        except results.ResultsError as err:
            problems.append(f"{name}: {err}")
            continue
        if limit != implied:
            problems.append(f"{name} has {label(limit)} in {where}, its sweep {gpu}.csv implies {label(implied)}")
    known = pd.read_csv(Path(results_dir) / "gpus.csv", keep_default_na=False)
    problems += [f"{name} (gpus.csv) has no row in {where}" for name in known["name"] if name not in names]
    return problems


def main(header: Path | str = HEADER, results_dir: Path | str = schema.RESULTS) -> int:
    known = pd.read_csv(Path(results_dir) / "gpus.csv", keep_default_na=False)
    for gpu, name in known[["slug", "name"]].itertuples(index=False):
        print(name)
        try:
            table = leads(gpu, results_dir)
        except results.ResultsError as err:
            print(f"  {err}")
            continue
        for size, row in table.iterrows():
            print(f"  {label(int(size)):>12}  {row['lead']:+6.2f}  {row['shapes']}")
        limit = limits(gpu, results_dir)
        size = f"{limit // MIB} * ANSWER_MIB" if limit % MIB == 0 else str(limit)
        print(f'  limit: {label(limit)}   row: {{"{name}", {size}}},')
    problems = check(header, results_dir)
    for problem in problems:
        machine.say(f"lab.tuning: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
