"""Step 12's per-GPU limits, kept by hand in steps/12_tma/answer_tuning.h (whose comment states the rule),
against the committed sweeps docs/results/<gpu>.csv and pitch studies <gpu>-pitch.csv.

    python3 -m lab.tuning    print each GPU's tile kernels' leads per size, its limits and its row for the header;
                             exit 1 if a row disagrees with its results (a GPU of gpus.csv without a row runs
                             answer.cuh's default for GPUs not measured: step 09's kernel up to the L2 size)

The tile kernel is step 12's tiles_down where its best split gains more points over step 11's default on the sweep
than step 09's vec4 does, and it trails step 09's kernel by at most 2 points at every shape where that one runs;
else step 09's. The first limit is read off the sweep for that kernel, up to
its largest matrix whose number of rows is not a power of two. The second is the same rule over
the matrices with a power-of-two number of rows alone, read off the sweep and the pitch study together (where the
GPU has one). The third is the size from
which step 11's default takes sector runs of 96 floats (its variant long_runs), read off the sweep.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pandas as pd

from lab import machine, results, schema

HEADER = schema.ROOT / "steps" / "12_tma" / "answer_tuning.h"
ANSWER = schema.ROOT / "steps" / "12_tma" / "answer.cuh"
TILE = 64  # steps/09_shared64/tile64.cuh: the side of a tile
VEC = 4  # floats in a 16-byte chunk


def out_row_floats(answer: Path | str = ANSWER) -> int:
    """The floats on which answer.cuh asks every row of out to start (its ANSWER_OUT_ROW_ALIGN, in bytes, / 4)."""
    found = re.search(r"#define\s+ANSWER_OUT_ROW_ALIGN\s+(\d+)", Path(answer).read_text())
    if found is None:
        raise results.ResultsError(f"{answer} defines no ANSWER_OUT_ROW_ALIGN")
    return int(found.group(1)) // 4

LEADER = "09 vec4"  # step 09's default: the 16-byte kernel on these shapes
TILES_DOWN = "12 tiles_down"  # step 09's tile down the columns, one per block (steps/09_shared64/tiles_down.cuh)
TILE_KERNELS = {LEADER: "false", TILES_DOWN: "true"}  # each tile kernel and the header's tiles_down field for it
MAX_TRAIL = 2.0  # points of % of copy tiles_down may trail step 09's kernel at one shape, the tuning check allows
CHALLENGER = "11 any_shape"  # step 11's default
LONG_RUNS = "11 long_runs"  # step 11's default with sector runs of 96 floats
NEVER = math.inf  # the header's ANSWER_NEVER: no matrix takes the long runs
MIB = 1 << 20
# {"NVIDIA H200", 64 * ANSWER_MIB, 64 * ANSWER_MIB, ANSWER_NEVER, true}
ROW = re.compile(r'\{\s*"([^"]*)"\s*,\s*([^,}]*?)\s*,\s*([^,}]*?)\s*,\s*([^,}]*?)\s*,\s*(true|false)\s*\}')
LIMIT = re.compile(r"(\d+)\s*\*\s*ANSWER_MIB|(\d+)(?:ull|ul|u|l)?|(ANSWER_NEVER)", re.IGNORECASE)


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


def average_lead(frame: pd.DataFrame, ahead: str, behind: str, missing: str) -> pd.DataFrame:
    """The average % of copy of run `ahead` less that of run `behind` ("<step> <kernel>") over the kernel rows of
    frame timed by both, per size: index bytes, columns lead and shapes. Raises ResultsError(missing) if none."""
    frame = frame[frame["role"] == "kernel"]
    frame = frame.assign(run=frame["step"] + " " + frame["kernel"],
                         pct=pd.to_numeric(frame["pct_of_copy"], errors="coerce"))
    frame = frame[frame["run"].isin([ahead, behind])].drop_duplicates(["rows", "cols", "offset", "run"], keep="last")
    both = frame.pivot(index=["rows", "cols", "offset"], columns="run", values="pct").dropna().reset_index()
    if both.empty or ahead not in both or behind not in both:
        raise results.ResultsError(missing)
    both = both.assign(bytes=both["rows"] * both["cols"] * 4, lead=both[ahead] - both[behind],
                       shape=both["rows"].astype(str) + "x" + both["cols"].astype(str))
    return both.groupby("bytes").agg(lead=("lead", "mean"), shapes=("shape", " ".join)).sort_index()


def leads(gpu: str, results_dir: Path | str = schema.RESULTS, pow2: bool = False, leader: str = LEADER) -> pd.DataFrame:
    """The tile kernel `leader`'s average lead over step 11 in points of % of copy, per size: index bytes, columns
    lead, shapes. With pow2, over the matrices with a power-of-two number of rows alone, the pitch study's too."""
    frame = timed_rows(gpu, results_dir, pow2)
    frame = frame[(frame["offset"] == 0) & (frame["rows"] % out_row_floats() == 0) & (frame["cols"] % VEC == 0)
                  & (frame["rows"] >= TILE) & (frame["cols"] >= TILE)]
    return average_lead(frame, leader, CHALLENGER, f"{gpu}.csv has no aligned shape timed by both {leader} and "
                        "step 11: run `make bench` with both steps")


def best_split(leads: pd.Series) -> int:
    """The size, in bytes, up to which the leader should run so that the sizes swept lose the fewest points: the
    size where the running sum of its leads (per size, smallest first) peaks; 0 if it never rises above 0.

    One size's noise cannot move the split much: a dip of a point between leads of three costs less than it saves.
    """
    running = leads.cumsum()
    if running.empty or running.max() <= 0:
        return 0
    return int(running.idxmax())


def measured_for_others(table: pd.DataFrame) -> pd.DataFrame:
    """The sizes of a leads() table up to its largest matrix whose number of rows is not a power of two: past it,
    the sweep says nothing of such matrices, and the second limit rules the others."""
    rows = table["shapes"].str.split().explode().str.split("x").str[0].astype(int)
    others = rows[~power_of_two(rows)]
    return table[table.index <= others.index.max()] if not others.empty else table.iloc[:0]


def limits(gpu: str, results_dir: Path | str = schema.RESULTS, pow2: bool = False, leader: str | None = None) -> int:
    """The limit, in bytes, that docs/results/<gpu>.csv implies (with pow2: the second limit, which the pitch
    study adds to): the best split of the tile kernel's leads over step 11 (the GPU's, tile_kernel(), by default),
    the first limit's among the sizes measured_for_others()."""
    table = leads(gpu, results_dir, pow2, leader or tile_kernel(gpu, results_dir))
    return best_split((table if pow2 else measured_for_others(table))["lead"])


def gain(gpu: str, results_dir: Path | str, leader: str) -> float:
    """The points of % of copy the tile kernel `leader` gains over step 11 on the sweep, run up to its best split;
    0 where the sweep has no aligned shape that both time."""
    try:
        running = leads(gpu, results_dir, leader=leader)["lead"].cumsum()
    except results.ResultsError:
        return 0.0
    return max(running.max(), 0.0)


def worst_trail(gpu: str, results_dir: Path | str = schema.RESULTS) -> float:
    """The most points of % of copy by which tiles_down trails step 09's kernel at one swept shape where step 09's
    kernel runs (aligned, up to its limits); 0 where it never trails, inf where no shape is timed by both."""
    frame = results.load(Path(results_dir) / f"{gpu}.csv", "bench")
    frame = frame[(frame["role"] == "kernel") & (frame["offset"] == 0) & (frame["rows"] % out_row_floats() == 0)
                  & (frame["cols"] % VEC == 0) & (frame["rows"] >= TILE) & (frame["cols"] >= TILE)]
    frame = frame.assign(run=frame["step"] + " " + frame["kernel"], pct=pd.to_numeric(frame["pct_of_copy"]))
    both = frame[frame["run"].isin([LEADER, TILES_DOWN])].pivot_table(
        index=["rows", "cols"], columns="run", values="pct", aggfunc="last").dropna().reset_index()
    if both.empty or LEADER not in both or TILES_DOWN not in both:
        return math.inf
    size = both["rows"] * both["cols"] * 4
    first, second = limits(gpu, results_dir, leader=LEADER), limits(gpu, results_dir, pow2=True, leader=LEADER)
    runs = (size <= first) | (power_of_two(both["rows"]) & (size <= second))
    trail = (both[LEADER] - both[TILES_DOWN])[runs]
    return max(trail.max(), 0.0) if not trail.empty else 0.0   # step 09's kernel runs nowhere: nothing to trail


def tile_kernel(gpu: str, results_dir: Path | str = schema.RESULTS) -> str:
    """The GPU's tile kernel: tiles_down ("12 tiles_down") where it gains more over step 11 on the sweep than step
    09's kernel does, and trails it by at most MAX_TRAIL points at every swept shape where step 09's kernel runs;
    step 09's ("09 vec4") elsewhere."""
    gains_more = gain(gpu, results_dir, TILES_DOWN) > gain(gpu, results_dir, LEADER)
    if gains_more and worst_trail(gpu, results_dir) <= MAX_TRAIL:
        return TILES_DOWN
    return LEADER


def long_run_leads(gpu: str, results_dir: Path | str = schema.RESULTS) -> pd.DataFrame:
    """Step 11's long runs' average lead over its default in points of % of copy, per size, over the swept shapes
    where the default runs its sector runs (rows of in or of out not whole chunks, both sides at least 64)."""
    frame = results.load(Path(results_dir) / f"{gpu}.csv", "bench")
    frame = frame[((frame["rows"] % VEC != 0) | (frame["cols"] % VEC != 0)) & (frame["rows"] >= TILE)
                  & (frame["cols"] >= TILE)]
    return average_lead(frame, LONG_RUNS, CHALLENGER, f"{gpu}.csv has no odd shape timed by step 11's default "
                        "and its long_runs: run `make bench` with step 11")


def long_runs_from(gpu: str, results_dir: Path | str = schema.RESULTS) -> float:
    """The size from which step 11's default takes its long runs: the best split of their leads over the default,
    read from the largest size down; NEVER if they lose points at every split."""
    start = best_split(long_run_leads(gpu, results_dir)["lead"].sort_index(ascending=False))
    return NEVER if start == 0 else start


def label(size: float | None) -> str:
    if size is None:
        return "an unreadable limit"
    return "never" if size == NEVER else f"{round(size / MIB, 1):g} MiB"


def size_of(expression: str) -> float | None:
    """The bytes of a limit as the header writes it (64 * ANSWER_MIB, a number, or ANSWER_NEVER); None if not
    understood."""
    match = LIMIT.fullmatch(expression)
    if match is None:
        return None
    return int(match[1]) * MIB if match[1] else int(match[2]) if match[2] else NEVER


def header_rows(header: Path | str = HEADER) -> list[tuple[str, float | None, float | None, float | None, str]]:
    """The (GPU name, limit, power-of-two limit, long runs' size, tiles_down) rows of the header's ANSWER_TUNINGS,
    sizes in bytes (None for a size not understood), tiles_down as written ("true" or "false")."""
    table = re.search(r"ANSWER_TUNINGS\[\](.*?)\};", Path(header).read_text(), re.S)
    table = re.sub(r"/\*.*?\*/|//[^\n]*", "", table[1] if table else "", flags=re.S)
    return [(name, *(size_of(size) for size in sizes), down) for name, *sizes, down in ROW.findall(table)]


def size_text(size: float) -> str:
    """A size as the header writes it."""
    if size == NEVER:
        return "ANSWER_NEVER"
    return f"{int(size) // MIB} * ANSWER_MIB" if size % MIB == 0 else str(int(size))


def row_text(name: str, first: int, second: int, third: float, leader: str) -> str:
    """A row of ANSWER_TUNINGS as the header writes it."""
    return f'{{"{name}", {size_text(first)}, {size_text(second)}, {size_text(third)}, {TILE_KERNELS[leader]}}},'


def check(header: Path | str = HEADER, results_dir: Path | str = schema.RESULTS) -> list[str]:
    """One problem per header row that disagrees with its GPU's sweep (a GPU without a row gets the default)."""
    rows = header_rows(header)
    names = [name for name, *_ in rows]
    where = Path(header).name
    problems = [f"{name} has {names.count(name)} rows in {where}" for name in dict.fromkeys(names)
                if names.count(name) > 1]
    for name, *written, down in rows:
        gpu = results.gpu_slug(name)
        leader = tile_kernel(gpu, results_dir)
        if down != TILE_KERNELS[leader]:
            problems.append(f"{name} has tiles_down {down} in {where}, its sweep {gpu}.csv implies "
                            f"{TILE_KERNELS[leader]} ({leader} gains more over step 11)")
        readers = (("", f"its sweep {gpu}.csv implies", lambda g=gpu: limits(g, results_dir)),
                   (" for rows a power of two", f"{gpu}.csv and {gpu}-pitch.csv imply",
                    lambda g=gpu: limits(g, results_dir, pow2=True)),
                   (" for the long runs", f"its sweep {gpu}.csv implies", lambda g=gpu: long_runs_from(g, results_dir)))
        for limit, (what, source, read) in zip(written, readers, strict=True):
            try:
                implied = read()
            except results.ResultsError as err:
                problems.append(f"{name}: {err}")
                continue
            if limit != implied:
                problems.append(f"{name} has {label(limit)}{what} in {where}, {source} {label(implied)}")
    # A GPU of gpus.csv without a row is no problem: answer_gpu_named() gives it the documented default.
    return problems


def print_leads(table: pd.DataFrame) -> None:
    for size, row in table.iterrows():
        print(f"  {label(int(size)):>12}  {row['lead']:+6.2f}  {row['shapes']}")


def main(header: Path | str = HEADER, results_dir: Path | str = schema.RESULTS) -> int:
    known = pd.read_csv(Path(results_dir) / "gpus.csv", keep_default_na=False)
    for gpu, name in known[["slug", "name"]].itertuples(index=False):
        print(name)
        for leader in TILE_KERNELS:
            try:
                table = leads(gpu, results_dir, leader=leader)
            except results.ResultsError as err:
                print(f"  {err}")
                continue
            print(f"  {leader} against step 11 (gains {gain(gpu, results_dir, leader):.2f} points up to its split):")
            print_leads(table)
        leader = tile_kernel(gpu, results_dir)
        try:
            pow2_table = leads(gpu, results_dir, pow2=True, leader=leader)
        except results.ResultsError as err:
            print(f"  {err}")
            continue
        print(f"  {leader}, rows a power of two (the sweep and the pitch study):")
        print_leads(pow2_table)
        print("  step 11's long runs against its default, on odd shapes:")
        try:
            print_leads(long_run_leads(gpu, results_dir))
            third = long_runs_from(gpu, results_dir)
        except results.ResultsError as err:
            print(f"  {err}")
            third = NEVER
        first, second = limits(gpu, results_dir, leader=leader), limits(gpu, results_dir, pow2=True, leader=leader)
        print(f"  tile kernel {leader}; limits: {label(first)}, {label(second)}, long runs from {label(third)}   "
              f"row: {row_text(name, first, second, third, leader)}")
    problems = check(header, results_dir)
    for problem in problems:
        machine.say(f"lab.tuning: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
