"""Run the step programs and collect their rows: docs/results/<gpu>.csv and the studies.

    python3 -m lab.bench                       every step over the `bench` shapes of tests/shapes.txt
    python3 -m lab.bench --steps 01,05 --shapes 4096x4096 --program-args="--reps 50"
    python3 -m lab.bench --resume              go on with a sweep that was cut short
    python3 -m lab.bench --rerun 11,12         measure these steps again, keep the others' committed rows
    python3 -m lab.bench --study NAME          one study (what each measures: the comment over its shapes in
                                               lab/bench.py) -> <gpu>-NAME.csv; --study permute: step 15's tensors
    python3 -m lab.bench --study all           every study but permute, in turn (make study)

Each program runs once with all its shapes (`--shapes A,B,C --csv`). Its rows,
stderr and exit code are kept under build/bench/<gpu>-<study>/, so that --resume
keeps the runs that finished. The rows are merged in shape order, then step
order, into the CSV; <file>-env.txt beside it says what ran, where and when.

Exit codes: 0 every check PASS (or SKIP: a kernel this GPU cannot run); 1 a run
failed or a check was not PASS (the CSV is still written, and what went wrong
is listed); 2 bad command line; 3 no GPU, or a program not built.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from lab import machine, results, schema, shapes

# About 128 MiB each: rows x cols close to 2^25 floats, 2 to 63 columns wide, then the same 2 to 63 rows high.
# The float32 rule (the study program's `answer`) runs step 09's launch, step 11's slabs or its sector runs
# there: the study times those, and step 11's chunk kernel. In bf16, step 13's default against its slabs, sector
# runs and 64 x 128 tiles, and step 11's slabs of single elements.
NARROW_WIDTHS = ("16777216x2,11184811x3,8388608x4,6710887x5,4793491x7,4194304x8,2796203x12,2097152x16,"
                 "1973791x17,1398101x24,1048576x32,1000003x33,699051x48,532576x63")
NARROW_SHAPES = NARROW_WIDTHS + "," + ",".join("x".join(reversed(s.split("x"))) for s in NARROW_WIDTHS.split(","))
NARROW_RUNS = (("09", "vec4"), ("11", "any_shape"), ("11", "long_runs"), ("11", "chunks"), ("11", "slabs"),
               ("study", "answer"), ("13", "prmt"), ("study", "slabs_bf16", "bf16"), ("study", "runs_bf16", "bf16"),
               ("study", "prmt_64x128", "bf16"), ("study", "slabs_elements", "bf16"))
# Rows of whole 16-byte chunks whose rows of out (rows x 4 bytes) start on 16, 32, 64 or 128 bytes: two in
# L2 (about 35 MiB), the rest past it. Then matrices of 1.25 to 4 GiB, past the H100's first limit: rows a power
# of two (rows of out 2^14 to 2^19 bytes apart), and four whose rows are not. The float32 rule runs step 09's
# kernel or step 11's: the study times all three.
PITCH_SHAPES = ("3000x3000,1028x8192,4100x4096,2500x10000,6004x6000,1000x20000,8200x8192,3000x12000,"
                "4112x4096,6000x6000,10000x2500,4096x4096,12000x4000,"
                "16384x20480,32768x16384,65536x8192,131072x4096,4096x131072,8192x65536,32768x24576,"
                "65536x16384,16384x65536,20480x16384,24576x24576,20000x32768,30000x30000")
PITCH_RUNS = (("09", "vec4"), ("11", "any_shape"), ("study", "answer"))
# Odd matrices of about 300 MiB or more: few rows or few columns (a run of 96 floats spans 96 rows of in, so
# the last tile of rows pads to a multiple of 96), rows on each side of long_runs_fill()'s line, and two of
# the sweep's. The float32 rule takes step 11's runs of 64 or of 96 floats: the study times all three.
RUNS_SHAPES = ("65x1220703,100x800003,129x620001,200x400003,300x266667,385x1000003,513x400003,897x400003,1000x80003,"
               "1220703x65,800003x100,620001x129,400003x200,266667x300,80003x1000,10007x7919,16385x16383")
RUNS_RUNS = (("11", "any_shape"), ("11", "long_runs"), ("study", "answer"))
# bf16 matrices past L2 whose rows of in do not start on 128 bytes, from 10000 to 100001 rows: one column of
# tiles (in and out) fills from a tenth of L2 to several times it. Rows a multiple of 16 take the 128 x 128
# tiles, the others the runs of 64 columns. Step 13's default asks L2 for whole lines where that column fits
# in a quarter of L2, or where a tile spans whole rows: the study times it beside the hint always and never.
# The last three are tall and at most a runs tile wide, so each tile's rows lie end to end in `in`
# (narrower ones take the slabs).
LINES_SHAPES = ("10000x40008,20000x20000,25008x25000,32000x16008,40000x10000,50000x3000,60000x6000,100000x1000,"
                "25009x25000,40001x10000,50001x3000,60001x6000,100001x1000,699051x48,838861x40,1000003x33")
LINES_RUNS = (("13", "prmt"), ("study", "prmt_lines", "bf16"), ("study", "prmt_sectors", "bf16"))
# bf16 matrices past L2 whose rows of in start off sectors (columns 8 past a multiple of 16) and whose rows of out
# start on them (rows a multiple of 16), so that the default takes 128 x 128 tiles, from square to 100 rows a column:
# step 13's default beside its tiles taken down the columns of tiles and along the rows on every shape. The default
# goes along the rows from 4 : 1 (T16_TALL_RATIO).
ORDER_SHAPES = "25008x25000,32000x16008,36000x12008,48048x12008,64000x8008,50000x3000,100000x1000"
ORDER_RUNS = (("13", "prmt"), ("study", "prmt_down", "bf16"), ("study", "prmt_across", "bf16"))
# float32 matrices past L2 whose rows are not whole 16-byte chunks, from 10007 to 100001 rows: the float32 rule
# takes step 11's sector runs there, whose loads ask L2 for lines where one column of tiles (rows x 512 bytes) fits
# in a quarter of L2: 25600 rows on the H100, 30720 on the H200 (28001 falls between).
F32_LINES_SHAPES = ("10007x7919,16385x16383,20001x20001,25001x25001,28001x20001,32001x16001,40001x10001,"
                    "60001x6001,100001x1001")
F32_LINES_RUNS = (("study", "answer"), ("study", "answer_lines"), ("study", "answer_sectors"))
# Matrices whose rows are whole 16-byte chunks, near the sweep's odd matrices (10007 x 7919, 16385 x 16383), where
# a bound of the transpose's pattern can run with 16-byte accesses: squares whose row pitch starts on 16, 32, 64,
# 128 and 256 bytes, then each odd matrix rounded up to a multiple of 4 and of 64 floats, then the bar's large
# shapes. The study times the float32 rule beside the copies in its tiles (copy_down, copy_across), swap_down and
# swap_across, its tiles moved untransposed in either tile order, and the same bounds moving 128 x 128 regions and
# 32 x 32 quadrants, whose pieces are twice and half as long; and step 13's default beside its bound.
PATTERN_SHAPES = ("8196x8196,8200x8200,8208x8208,8224x8224,8256x8256,10008x7920,10048x7936,16388x16384,"
                  "16448x16384,8192x8192,16384x16384,20000x20000,3000x50000,50000x3000")
PATTERN_RUNS = (("study", "answer"), ("study", "copy_down"), ("study", "copy_across"), ("study", "swap_down"),
                ("study", "swap_across"), ("study", "swap_down_128"), ("study", "swap_across_128"),
                ("study", "swap_down_32"), ("study", "swap_across_32"), ("13", "prmt"),
                ("study", "swap_down_bf16", "bf16"))
# Shapes past the bar's that the rules were fitted on, where each dispatch must stay within a point of the best
# kernel it chooses among: the weights, embeddings and activations of common models (hidden sizes 197-8192, their
# MLPs, vocabularies of 30522-151936), images, odd sizes, thin and tall ones, and misaligned ones. Each dispatch runs
# beside every candidate.
DISPATCH_SHAPES = ("4096x4096,4096x11008,11008x4096,4096x14336,14336x4096,5120x13824,768x3072,3072x768,"
                   "768x50257,50257x768,4096x32000,32000x4096,1024x4096,2048x5120,16384x1024,1536x6144,"
                   "1000x1000,1001x1003,4097x4095,6000x6001,25000x333,333x25000,77x1000003,1000003x77,12345x6789,"
                   "768x30522,30522x768,3584x18944,18944x3584,896x151936,151936x896,2560x10240,10240x2560,197x768,"
                   "768x197,257x1024,1024x257,4100x4100,5000x5003,5001x5003,3001x2999,1500x1501,1023x1025,"
                   "2000003x45,1500001x99,200x300001,2000x40001,123457x1001,77777x333,3000x5000+2,"
                   "1280x5120,5120x1280,1600x6400,6400x1600,3200x8640,8640x3200,4544x18176,18176x4544,50280x2560,"
                   "2560x50280,384x1536,1536x384,577x1024,1024x577,7001x3001,9999x9999,640x480,1920x1080,1080x1920,"
                   "100003x250,250x100003,3000003x57,1800001x113,12288x12288+1,6001x6000")
# A set never used to fit the rules checks how they carry (chosen before any of it was timed): other models'
# weights, vocabularies and vision tokens, odd, tall and thin shapes on each side of the rules' rows, a tiny one
# and misaligned ones.
HELD_OUT_SHAPES = ("2304x9216,9216x2304,1408x5632,5632x1408,3072x12288,12288x3072,49408x768,768x49408,256000x256,"
                   "256x256000,729x1152,1152x729,3999x4001,2501x2499,1234x5678,5678x1234,4000003x41,2500001x71,"
                   "700001x150,160x1000003,9000x7001,7001x9000,16000x16000+3,333x333,1000x3000+1")
# Tall, thin float32 matrices (half a GiB, over a million rows, 33 to 127 columns), chosen before any was timed:
# where the held-out run found step 09's tiles and the long runs each ahead, the share of its 64-column tiles a
# row fills (cols / (64 x ceil(cols / 64))) seemed to split them. These spread that share from 0.51 to 0.99.
TALL_SHAPES = ("4067205x33,3627507x37,3121343x43,2855697x47,2739137x49,2532411x53,2200291x61,2064889x65,"
               "1945185x69,1617081x83,1542733x87,1474921x91,1278265x105,1127881x119,1056833x127")
# Each dispatch runs twice, in step 14's program and in the study program: a small transpose's time moves by a few
# points from one run to the next, so a candidate counts as ahead only where it leads both runs (lab.tables).
F32_DISPATCH_RUNS = (("14", "transpose"), ("study", "answer")) + tuple(("study", k) for k in (
    "shared64", "tiles_down", "any_shape", "long_runs", "chunks", "slab_chunks"))
BF16_DISPATCH_RUNS = (("14", "transpose", "bf16"), ("study", "answer_bf16", "bf16")) + tuple(
    ("study", k, "bf16") for k in (
    "prmt_64x64", "prmt_128x64", "prmt_64x128", "prmt_128x128", "prmt_down", "prmt_across", "runs_bf16",
    "slabs_bf16"))
# One small transpose (about 12 us on an H200) and one large (about 1 ms), under each flush.
TIMING_SHAPES = "2048x2048,16384x16384"
FLUSHES = ("write", "read")  # the old method first


# Step 15's tensors: the permutes of ML code (attention's head split and merge, K transposed, NCHW to NHWC), a
# reversal, odd sizes, a rank-5 case, 4,096 matrices of 64 x 64, and batches of matrices a tile would leave mostly
# empty, 3 x 4 and 16 x 16; each in both element types.
PERMUTE_TENSORS = (("8,4096,32,128", "0,2,1,3"), ("8,32,4096,128", "0,2,1,3"), ("64,2048,2048", "0,2,1"),
                   ("32,256,56,56", "0,2,3,1"), ("96,100,200", "2,1,0"), ("7,1000,13,77", "0,2,1,3"),
                   ("16,64,32,16,64", "0,3,1,4,2"), ("4096,64,64", "0,2,1"), ("1000000,3,4", "0,2,1"),
                   ("65536,16,16", "0,2,1"))

# The studies that time runs of the tables above, each over its shapes: (runs, shapes) pairs per study.
TABLE_STUDIES = {
    "narrow": ((NARROW_RUNS, NARROW_SHAPES),),
    "pitch": ((PITCH_RUNS, PITCH_SHAPES),),
    "runs": ((RUNS_RUNS, RUNS_SHAPES),),
    "lines": ((LINES_RUNS, LINES_SHAPES), (F32_LINES_RUNS, F32_LINES_SHAPES)),
    "order": ((ORDER_RUNS, ORDER_SHAPES),),
    "pattern": ((PATTERN_RUNS, PATTERN_SHAPES),),
    "dispatch": ((F32_DISPATCH_RUNS, DISPATCH_SHAPES),),
    "dispatch-bf16": ((BF16_DISPATCH_RUNS, DISPATCH_SHAPES),),
    "held-out": ((F32_DISPATCH_RUNS, HELD_OUT_SHAPES),),
    "held-out-bf16": ((BF16_DISPATCH_RUNS, HELD_OUT_SHAPES),),
    "tall": ((F32_DISPATCH_RUNS, TALL_SHAPES),),
}
STUDIES = (*TABLE_STUDIES, "timing")


@dataclass
class Run:
    """One run of a step program: its file name under the run folder, and what it is given."""

    name: str
    step: str
    shapes: str
    options: tuple[str, ...] = ()  # --variant, --flush or --dtype
    columns: dict = field(default_factory=dict)  # the extra columns: the timing study's flush, a tensor's dims

    def command(self, args) -> list[str]:
        where = ("--shapes", self.shapes)
        if "dims" in self.columns:  # a tensor instead of matrices
            where = ("--dims", self.columns["dims"].replace("x", ","), "--perm", self.columns["perm"])
        return [str(machine.program(args.build, self.step)), *where, *self.options, "--csv", *args.program_args]


def runs_of(table, shapes: str) -> list[Run]:
    """One Run per (program, variant[, dtype]) of a study's table, each over all its shapes."""
    return [Run(f"{prog}-{variant}{'-' + dtype[0] if dtype else ''}", prog, shapes,
                ("--variant", variant, *(("--dtype", dtype[0]) if dtype else ())))
            for prog, variant, *dtype in table]


def planned_runs(args) -> list[Run]:
    if args.study in TABLE_STUDIES:
        return [run for table, shapes in TABLE_STUDIES[args.study] for run in runs_of(table, shapes)]
    if args.study == "timing":
        answer = machine.answer_step("float32", args.build)  # the last step taking float32, as the programs say
        return [Run(f"flush-{f}", answer, TIMING_SHAPES, ("--flush", f), {"flush": f}) for f in FLUSHES]
    if args.study == "permute":
        return [Run(f"permute-{i}-{dtype}", "15", "", ("--dtype", dtype),
                    {"dtype": dtype, "dims": dims.replace(",", "x"), "perm": perm})
                for i, (dims, perm) in enumerate(PERMUTE_TENSORS) for dtype in ("f32", "bf16")]
    return [Run(f"step{s}", s, ",".join(args.shapes)) for s in args.steps]


def exit_code(folder: Path, run: Run) -> str:
    """The exit code a run left in folder/NAME.rc, or 'missing'."""
    rc_file = folder / f"{run.name}.rc"
    return rc_file.read_text().strip() if rc_file.is_file() else "missing"


def execute(run: Run, folder: Path, args) -> None:
    """Run one program into folder/NAME.{csv,err,rc}, unless --resume and it finished before."""
    if args.resume and exit_code(folder, run) == "0":
        machine.say(f"bench: {run.name}: kept from an earlier run (--resume)")
        return
    command = run.command(args)
    machine.say("bench: " + shlex.join(command))
    with open(folder / f"{run.name}.csv", "w") as out, open(folder / f"{run.name}.err", "w") as err:
        rc = subprocess.run(command, stdout=out, stderr=err).returncode
    (folder / f"{run.name}.rc").write_text(f"{rc}\n")
    if rc:
        lines = (folder / f"{run.name}.err").read_text().splitlines()[-20:]
        machine.say("\n".join("    " + line for line in lines))


def collect(runs: list[Run], folder: Path, layout: str) -> tuple[pd.DataFrame, list[str]]:
    """The rows of every run, and one line per run that failed or printed an unreadable CSV."""
    frames, problems = [], []
    for run in runs:
        csv, rc = folder / f"{run.name}.csv", exit_code(folder, run)
        if rc != "0":
            problems.append(f"{machine.program_name(run.step)} ({run.name}): exit code {rc}")
        if csv.is_file() and csv.stat().st_size:
            try:
                frames.append(results.load(csv, "bench").assign(**run.columns))
            except results.ResultsError as err:
                problems.append(f"left out: {err}")
    frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=list(schema.LAYOUTS[layout]))
    return frame, problems


def in_shape_order(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows by shape (in the order shapes first appear), then by step, each run's own order kept,
    so that a sweep reads the same however its runs were split."""
    shape = pd.MultiIndex.from_frame(frame[["rows", "cols", "offset"]]).factorize()[0]   # in the order first seen
    program = pd.to_numeric(frame["step"], errors="coerce").fillna(99)   # the study program after the steps
    return frame.iloc[(shape * 100 + program).argsort(kind="stable").to_numpy()]


def timing_line(run: Run, args) -> str:
    """The timing method in the program's own words: the `Timing` line of one tiny run."""
    command = [str(machine.program(args.build, run.step)), "--shapes", "1x1", *run.options, *args.program_args]
    out = subprocess.run(command, capture_output=True, text=True).stdout
    found = re.search(r"^Timing\s+(.*)$", out, re.MULTILINE)
    return found.group(1) if found else "unknown (the program printed no Timing line)"


def measure(args) -> int:
    gpu_name, _ = machine.gpu()
    gpu = args.gpu or results.gpu_slug(gpu_name)
    kind = "bench" if args.study == "sweep" else args.study
    layout = args.study if args.study in ("timing", "permute") else "bench"
    folder = args.build / "bench" / f"{gpu}-{args.study}"
    folder.mkdir(parents=True, exist_ok=True)
    runs, start, path = planned_runs(args), time.time(), results.path(gpu, kind)
    for run in runs:  # every program is there before the first runs
        run.command(args)
    if args.rerun and not path.is_file():
        raise machine.Stop(f"--rerun keeps the other steps' rows of {path}, which does not exist", 2)
    for run in runs:
        execute(run, folder, args)
    frame, problems = collect(runs, folder, layout)
    if args.rerun:  # the committed rows of the steps not measured again
        kept = results.load(path, "bench")
        frame = pd.concat([kept[~kept["step"].isin(args.steps)], frame], ignore_index=True)
    if layout == "bench":  # the timing study keeps its runs apart: all of write, then all of read; permute, its tensors
        frame = in_shape_order(frame)
    results.write(frame, path, layout)
    problems += [f"step{r.step} {results.Shape(r.rows, r.cols, r.offset)} {r.kernel}: check={r.check}"
                 for r in results.failures(frame).itertuples()]
    machine.write_env(path.with_name(path.stem + "-env.txt"), {
        "gpu": gpu_name, "driver": machine.driver(), "timing method": timing_line(runs[0], args),
        "command": shlex.join(["python3", "-m", "lab.bench", *args.argv]),
        "programs": ", ".join(shlex.join([machine.program_name(r.step), *r.options]) for r in runs),
        "shapes": " ".join(dict.fromkeys(r.shapes or f"{r.columns['dims']}:{r.columns['perm']}" for r in runs)),
        "options": shlex.join(args.program_args),
        "took": f"{time.time() - start:.0f} s" + (", keeping the runs that had finished" if args.resume else "")})
    machine.say(f"bench: wrote {os.path.relpath(path)} ({len(frame)} rows)")
    for r in frame[frame["check"] == "SKIP"].itertuples():
        machine.say(f"bench: skipped (this GPU cannot run it): step{r.step} {r.rows}x{r.cols} {r.kernel}")
    if problems:
        machine.say(f"bench: FAILED: {len(problems)} problem(s):\n  " + "\n  ".join(problems))
        return machine.EXIT_WRONG
    machine.say("bench: every check PASS")
    return 0


def parse_args(argv):
    parser = machine.Parser(prog="python3 -m lab.bench", description=__doc__)
    parser.add_argument("--study", choices=("sweep", "all", "permute") + STUDIES, default="sweep",
                        help="the shape sweep (default), one of the studies, or all of them in turn; permute: "
                        "step 15's tensors, which make bench runs after the sweep")
    parser.add_argument("--gpu", help="names the files: docs/results/<gpu>.csv (default: from the GPU's name)")
    parser.add_argument("--shapes", help="sweep: ROWSxCOLS[+OFFSET] list (default: the `bench` shapes)")
    parser.add_argument("--steps", help="sweep: two-digit step numbers (default: every step)")
    parser.add_argument("--resume", action="store_true", help="keep the runs of an earlier sweep that finished")
    parser.add_argument("--rerun", help="sweep: measure these steps, keep the other steps' committed rows")
    parser.add_argument("--program-args", default="", help="more options for the programs, e.g. --reps 50 "
                        "(the timing study: --reps 100 unless given)")
    parser.add_argument("--build", type=Path, default=Path("build"), help="where the programs are (default build)")
    args = parser.parse_args(argv)
    args.argv = argv
    if args.study != "sweep" and (args.shapes or args.steps or args.rerun):
        parser.error(f"--shapes, --steps and --rerun are for the sweep, not --study {args.study}")
    if args.steps and args.rerun:
        parser.error("--rerun names the steps to measure: leave out --steps")
    args.steps = [s.zfill(2) for s in (args.rerun or args.steps or "").replace(",", " ").split()] or machine.steps()
    if bad := [s for s in args.steps if s not in machine.steps()]:
        parser.error(f"no step '{bad[0]}': the steps are {' '.join(machine.steps())}")
    args.shapes = args.shapes.replace(",", " ").split() if args.shapes else shapes.tagged("bench")
    for shape in args.shapes:
        try:
            results.Shape.parse(shape)
        except ValueError as err:
            parser.error(f"{err} in --shapes")
    args.program_args = shlex.split(args.program_args or ("--reps 100" if args.study == "timing" else ""))
    return args


def run(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    if args.study != "all":
        return measure(args)
    # Each study in turn, as if named alone (argparse keeps the last --study); the worst exit code (a failed check
    # is 1) stands for all.
    return max(measure(parse_args([*argv, "--study", study])) for study in STUDIES)


if __name__ == "__main__":
    raise SystemExit(machine.main(run))
