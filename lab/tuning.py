"""Step 12's per-GPU limits, kept by hand in steps/12_tma/answer_tuning.h (whose comment states the rule),
against the committed sweeps docs/results/<gpu>.csv and pitch studies <gpu>-pitch.csv.

    python3 -m lab.tuning    print each GPU's step 09 lead per size, its two limits and its row for the header;
                             exit 1 if a row disagrees with its results or a GPU of gpus.csv has none

The first limit is read off the sweep. The second is the same rule over the matrices with a power-of-two number
of rows alone, read off the sweep and the pitch study together (where the GPU has one).
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
TIE = 0.5  # points of % of copy: a smaller lead either way is within a run's noise, and counts as a tie
ROW = re.compile(r'\{\s*"([^"]*)"\s*,\s*([^,}]*?)\s*,\s*([^,}]*?)\s*\}')  # {"NVIDIA H200", 64 * ANSWER_MIB, ...}
LIMIT = re.compile(r"(\d+)\s*\*\s*ANSWER_MIB|(\d+)(?:ull|ul|u|l)?", re.IGNORECASE)


def power_of_two(n: pd.Series) -> pd.Series:
    return (n > 0) & ((n & (n - 1)) == 0)


def timed_rows(gpu: str, results_dir: Path | str, pow2: bool) -> pd.DataFrame:
    """The sweep's rows; with pow2, those of the pitch study too, of matrices with a power-of-two number of rows."""
    folder = Path(results_dir)
    frame = results.load(folder / f"{gpu}.csv", "bench")
    if not pow2:
        return frame
    study = folder / f"{gpu}-pitch.csv"
    if study.is_file():
        frame = pd.concat([frame, results.load(study, "bench")], ignore_index=True)
    return frame[power_of_two(frame["rows"].astype(int))]


def leads(gpu: str, results_dir: Path | str = schema.RESULTS, pow2: bool = False) -> pd.DataFrame:
    """Step 09's average lead over step 11 in points of % of copy, per size: index bytes, columns lead, shapes.
    With pow2, over the matrices with a power-of-two number of rows alone, the pitch study's too."""
    frame = timed_rows(gpu, results_dir, pow2)
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


def limits(gpu: str, results_dir: Path | str = schema.RESULTS, pow2: bool = False) -> int:
    """The limit, in bytes, that docs/results/<gpu>.csv implies (with pow2: the second limit, which the pitch
    study adds to): the largest size before the first where step 09 trails by more than TIE; 0 if none."""
    limit = 0
    for size, lead in leads(gpu, results_dir, pow2)["lead"].items():
        if lead < -TIE:
            break
        limit = int(size)
    return limit


def label(size: int | None) -> str:
    return "an unreadable limit" if size is None else f"{size / MIB:g} MiB"


def size_of(expression: str) -> int | None:
    """The bytes of a limit as the header writes it (64 * ANSWER_MIB, or a number); None if not understood."""
    match = LIMIT.fullmatch(expression)
    return None if match is None else int(match[1]) * MIB if match[1] else int(match[2])


def header_rows(header: Path | str = HEADER) -> list[tuple[str, int | None, int | None]]:
    """The (GPU name, limit, power-of-two limit) rows of the header's ANSWER_TUNINGS, in bytes; None for a limit
    not understood."""
    table = re.search(r"ANSWER_TUNINGS\[\](.*?)\};", Path(header).read_text(), re.S)
    table = re.sub(r"/\*.*?\*/|//[^\n]*", "", table[1] if table else "", flags=re.S)
    return [(name, size_of(first), size_of(second)) for name, first, second in ROW.findall(table)]


def row_text(name: str, first: int, second: int) -> str:
    """A row of ANSWER_TUNINGS as the header writes it."""
    sizes = [f"{size // MIB} * ANSWER_MIB" if size % MIB == 0 else str(size) for size in (first, second)]
    return f'{{"{name}", {sizes[0]}, {sizes[1]}}},'


def check(header: Path | str = HEADER, results_dir: Path | str = schema.RESULTS) -> list[str]:
    """One problem per header row that disagrees with its GPU's sweep, and per GPU of gpus.csv without a row."""
    rows = header_rows(header)
    names = [name for name, _, _ in rows]
    where = Path(header).name
    problems = [f"{name} has {names.count(name)} rows in {where}" for name in dict.fromkeys(names)
                if names.count(name) > 1]
    for name, *written in rows:
        gpu = results.gpu_slug(name)
        for limit, pow2 in zip(written, (False, True), strict=True):
            what, source = ((" for rows a power of two", f"{gpu}.csv and {gpu}-pitch.csv imply") if pow2
                            else ("", f"its sweep {gpu}.csv implies"))
            try:
                implied = limits(gpu, results_dir, pow2)
            except results.ResultsError as err:
                problems.append(f"{name}: {err}")
                continue
            if limit != implied:
                problems.append(f"{name} has {label(limit)}{what} in {where}, {source} {label(implied)}")
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
        print("  rows a power of two (the sweep and the pitch study):")
        for size, row in leads(gpu, results_dir, pow2=True).iterrows():
            print(f"  {label(int(size)):>12}  {row['lead']:+6.2f}  {row['shapes']}")
        first, second = limits(gpu, results_dir), limits(gpu, results_dir, pow2=True)
        print(f"  limits: {label(first)}, {label(second)}   row: {row_text(name, first, second)}")
    problems = check(header, results_dir)
    for problem in problems:
        machine.say(f"lab.tuning: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
