"""Grade the exercises: correctness, sanitizers, technique and speed.

    python3 -m lab.grade 05                   grade exercises/05_*/exercise.cu (5 and 05 are the same)
    python3 -m lab.grade --all                every exercise, then a summary table
    python3 -m lab.grade 05 --solution        the reference solution, graded as if it were yours
    python3 -m lab.grade --all --solution     every reference solution (the grader's self-test)
    python3 -m lab.grade 05 --file alice.cu   a student's file from anywhere
    python3 -m lab.grade 05 --batch DIR --csv OUT.csv   a class: DIR/*.cu, one CSV row per file
    python3 -m lab.grade ... --technique-only only the checks of the compiled code: no GPU needed
    python3 -m lab.grade ... --build-only     only build the grader programs: no GPU, no cuobjdump; NOT GRADED
    python3 -m lab.grade --list               the exercises found, one NN_name a line

Options: --timeout S (every program run and build, default 300 s: past it the process group is killed
and the check FAILs), --shape RxC (the timed shape, default $GRADE_SHAPE or 8192x8192), --no-huge (skip
the shape of more than 2^31 elements), --quick (the self-test's pace: --no-huge, no sanitizers once
Correctness FAILs). docs/grading.md explains the four checks, the exercise folders and grading.json.

Exit codes: 0 nothing FAILed; 1 something FAILed; 2 bad command line or a missing or unreadable
file; 3 no GPU, or a problem of the machine or the repository. Scripts call python3 -m lab.grade
to receive them: `make grade` can only exit 0, 1 or 2.

Environment: BUILD (build directory, default build), ARCH (seen by make), MAKE, GRADE_SHAPE,
GRADE_WORK (the folder of the private copies, default BUILD/grade-work), and CUOBJDUMP,
COMPUTE_SANITIZER, NCU, NM to name those tools (default: PATH, then $CUDA_HOME/bin, then
/usr/local/cuda/bin).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import functools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from lab import machine, results, schema
from lab.compiled import Compiled, calls_outside, check_requirement, plain_name, rule_problem
from lab.metrics import DERIVED, read_ncu_csv
from lab.sanitizer_report import describe_finding, pick_finding, sanitizer_records, summary_count
from lab.shapes import tagged

ROOT = schema.ROOT
BUILD = os.environ.get("BUILD") or "build"
BUILD_DIR = Path(BUILD) if Path(BUILD).is_absolute() else ROOT / BUILD
# Private copies of graded files, one folder each; GRADE_WORK lets graders run side by side.
WORK_DIR = Path(os.environ["GRADE_WORK"]).resolve() if os.environ.get("GRADE_WORK") else BUILD_DIR / "grade-work"

CHECKS = ("Correctness", "Sanitizers", "Technique", "Speed")
SANITIZER_TOOLS = ("memcheck", "racecheck", "synccheck", "initcheck")
TOOL_OPTIONS = {"racecheck": ["--racecheck-report", "all", "--racecheck-detect-level", "warn"]}  # warnings fail too
SANITIZER_EXIT = 99  # compute-sanitizer's exit code when it found something
PROFILE_SHAPE = "1024x1024"  # whole tiles of 32 and of 64: no edge effects on ratios
SPEED_ATTEMPTS = 3  # one measurement and up to two more below the floor
BUILD_TIMEOUT = 900  # seconds a build may take at least (nvcc for five GPU generations is slow)
TIMED_OUT = 124  # exit code of a run killed for time, as timeout(1) gives
OUTPUT_LIMIT = 1 << 20  # bytes kept of each of a program's stdout and stderr
LISTING_LIMIT = 1 << 28  # the same for cuobjdump, whose listings are long
GRADED_KERNELS = ("student", "reference", "step")  # those of a grader program (lab/grade_main.cu), graded one first

# A matrix, or (exercise 15) a tensor and its permutation, one digit an axis: 33x4097+1, 3x4x5x6:1302
SHAPE_RE = re.compile(r"[1-9][0-9]*x[1-9][0-9]*(?:\+[0-3])?|(?:[1-9][0-9]*x){0,5}[1-9][0-9]*:[0-5]{1,6}(?:\+[0-7])?")
# The harness's --check-only line: PASS 07 shared_padded 33x4097+1 [(why)]
CHECK_LINE_RE = re.compile(r"^(PASS|FAIL|SKIP) (\d+) (\S+) ((?:[0-9]+x)*[0-9]+(?::[0-9]+)?(?:\+[0-9]+)?)"
                           r"(?: \((.*)\))?\s*$")
DOES_NOT_FIT_RE = re.compile(r"memory but only|cannot allocate|out of host memory")  # exit 3: the shape is too big

# The Nsight Compute counter ratios a "profile" requirement may bound: name -> (numerator, denominator).
PROFILE_METRICS = {name: (DERIVED.at[name, "numerator"], DERIVED.at[name, "denominator"])
                   for name in ("shared_ld_wavefronts_per_request", "shared_st_wavefronts_per_request")}
MARKS = {"PASS": "ok   ", "FAIL": "MISS ", "SKIP": "skip "}  # before each requirement's line in a report
CSV_COLUMNS = ("name", "correctness", "sanitizers", "technique", "speed", "speed_ratio", "reason")


class UsageError(machine.Stop):
    """A bad command line, or a missing or unreadable file: exit code 2."""

    def __init__(self, message: str):
        super().__init__(message, machine.EXIT_USAGE)


EnvironmentProblem = machine.Stop  # no GPU, a missing tool, a repository that does not build: exit code 3


@dataclass
class Ran:
    rc: int
    out: str
    err: str
    timed_out: bool = False

    @property
    def text(self) -> str:
        return self.out + "\n" + self.err


def run(cmd: list, timeout: float, env: dict | None = None, limit: int = OUTPUT_LIMIT) -> Ran:
    """Run cmd from the repository root in its own process group (a timeout kills make's compilers too)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen([str(c) for c in cmd], cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=err, start_new_session=True)
        try:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=timeout)
        finally:
            timed_out = proc.returncode is None  # past the timeout, or interrupted
            if timed_out:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        out.seek(0)
        err.seek(0)
        text = [stream.read(limit).decode("utf-8", errors="replace") for stream in (out, err)]
        return Ran(TIMED_OUT if timed_out else proc.returncode, *text, timed_out)


def first_error_line(text: str) -> str:
    """The first line that reports an error, without the harness's "error: " prefix."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in lines:
        if re.search(r"\berror\b", line, re.IGNORECASE) and not line.startswith("make"):
            return re.sub(r"^error:\s*", "", line)
    return lines[0] if lines else "(no message)"


def stopped_why(ran: Ran, where: str) -> str:
    """Why a program stopped before its verdict on a shape (the kernel's fault)."""
    if ran.rc == 3:
        return (f"CUDA error on {where}: {first_error_line(ran.err)} (an out-of-bounds or misaligned access? "
                "memcheck names the line)")
    if ran.rc < 0:
        try:
            name = signal.Signals(-ran.rc).name
        except ValueError:
            name = f"signal {-ran.rc}"
        return f"the program crashed ({name}) on {where}"
    return f"the program stopped (exit {ran.rc}) before its verdict on {where}: {first_error_line(ran.text)}"


def progress(message: str) -> None:
    """For a person watching: nothing when stderr is not a terminal, where errors are one line."""
    if sys.stderr.isatty():
        print(f"   .. {message}", file=sys.stderr, flush=True)


def find_tool(name: str, variable: str) -> str | None:
    """A CUDA tool as lab.machine finds it, or None: a missing tool is a SKIP here, not a stop."""
    try:
        return machine.find_tool(name, variable)
    except machine.Stop:
        return None


def make(args: list, timeout: float) -> Ran:
    """make in the grader's build folder (ARCH reaches it from the environment)."""
    cmd = [os.environ.get("MAKE") or "make", "--no-print-directory", "BUILD=" + BUILD]
    return run(cmd + args, max(timeout, BUILD_TIMEOUT))


def make_path(path: Path) -> str:
    """A path as make should see it: relative to the repository when inside it."""
    return str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)


def require_gpu(exercise: str | None) -> str:
    """"NAME (compute capability X.Y)", or EnvironmentProblem: lab.machine's one line, and what runs without a GPU."""
    try:
        name, capability = machine.gpu()
    except machine.Stop as stop:
        make, python = (f"make grade EX={exercise}", exercise) if exercise else ("make grade", "--all")
        raise EnvironmentProblem(f"{stop}; without one, `{make} ONLY=technique` (python3 -m lab.grade {python} "
                                 "--technique-only) checks the compiled code, and ONLY=build only builds it") from None
    return f"{name} (compute capability {capability // 10}.{capability % 10})"


@dataclass
class Verdict:
    status: str  # PASS, FAIL or SKIP
    why: str
    details: list[str] = field(default_factory=list)
    stopped: bool = False  # the program had to be killed: do not run it again
    not_own: bool = False  # work was done outside the file's own kernels: its time is not the student's


@dataclass
class Grade:
    subject: Subject
    verdicts: dict[str, Verdict] = field(default_factory=dict)
    ratio: float | None = None

    @property
    def failed(self) -> bool:
        return any(v.status == "FAIL" for v in self.verdicts.values())

    @property
    def result(self) -> str:
        """FAIL, PASS, or NOT GRADED where every check was skipped (--build-only): no verdict on the kernel."""
        if self.failed:
            return "FAIL"
        return "PASS" if any(v.status == "PASS" for v in self.verdicts.values()) else "NOT GRADED"

    def reason(self) -> str:
        """Every FAIL's why; without a FAIL, what was skipped and why."""
        failed = [f"{k}: {v.why}" for k, v in self.verdicts.items() if v.status == "FAIL"]
        skipped = [f"{k} ({v.why})" for k, v in self.verdicts.items() if v.status == "SKIP"]
        return "; ".join(failed) if failed else ("skipped: " + "; ".join(skipped)) if skipped else ""


@dataclass
class Exercise:
    number: str  # "05"
    name: str  # "05_float4"
    rules: dict  # exercises/NN_name/grading.json


def exercise_names() -> list[str]:
    """The folders exercises/NN_name/ whose step exists (only those can be graded, against the step)."""
    folders = sorted((ROOT / "exercises").glob("[0-9][0-9]_*/"))
    return [p.name for p in folders if any((ROOT / "steps").glob(p.name[:2] + "_*/"))]


def load_exercise(number: str) -> Exercise:
    """Exercise NN with its grading.json, read and checked: any problem is one line naming it."""
    folders = sorted((ROOT / "exercises").glob(number + "_*/"))
    if not folders:
        raise UsageError(f"no exercise {number}: the exercises are {' '.join(n[:2] for n in exercise_names())}")
    name = folders[0].name
    if name not in exercise_names():
        raise UsageError(f"exercises/{name} cannot be graded: there is no steps/{number}_* to time it against")
    where = f"exercises/{name}/grading.json"
    try:
        rules = json.loads((ROOT / where).read_text())
    except OSError as e:
        raise UsageError(f"cannot read {where}: {e.strerror}") from e
    except ValueError as e:
        raise UsageError(f"{where} is not valid JSON: {e}") from e
    problem = rules_problem(rules)
    if problem:
        raise UsageError(f"{where}: {problem}")
    return Exercise(number, name, rules)


def rules_problem(rules) -> str | None:
    """What is wrong with a grading.json document, or None."""
    if not isinstance(rules, dict):
        return "the document must be an object"
    floor = rules.get("floor")
    if not isinstance(floor, (int, float)) or not 0 < floor <= 10:
        return '"floor" must be a number above 0 (the lowest speed ratio to the reference)'
    for key in ("technique", "profile", "allow_symbols", "sanitize_shapes", "grade_shapes"):
        if not isinstance(rules.get(key, []), list):
            return f'"{key}" must be a list'
    problems = [rule_problem(item) for item in rules.get("technique", [])]
    if any(problems):
        return next(filter(None, problems))
    allowed = rules.get("allow_symbols", [])
    try:
        if not isinstance(allowed, list) or not all(isinstance(pattern, str) for pattern in allowed):
            raise TypeError
        calls_outside([], allowed)  # compiles each pattern
    except (re.error, TypeError):
        return '"allow_symbols" must be a list of regular expressions (symbols the file may call)'
    for item in rules.get("profile", []):
        if not isinstance(item, dict) or item.get("metric") not in PROFILE_METRICS:
            return f'"metric" must be one of {", ".join(PROFILE_METRICS)}'
        if "min" not in item and "max" not in item:
            return 'a "profile" entry needs a "min" or a "max"'
    parameter = rules.get("parameter")
    if parameter is not None:
        if not isinstance(parameter, dict):
            return '"parameter" must be an object'
        if parameter.get("set_by") != "environment":
            return '"parameter"."set_by" must be "environment"'
        if not parameter.get("name") or not isinstance(parameter.get("values"), list) or not parameter["values"]:
            return '"parameter" needs a "name" and a list of "values"'
    for key in ("sanitize_shapes", "grade_shapes"):
        for shape in rules.get(key, []):
            if not SHAPE_RE.fullmatch(str(shape)):
                return f"{shape!r} in {key} is not ROWSxCOLS[+OFFSET]"
    return None


def shapes_for(tag: str, extra: list | None = None) -> list[str]:
    """The shapes tests/shapes.txt tags `tag`, then those of `extra` not yet in (a bad file: exit 2)."""
    found = tagged(tag)
    return found + [s for s in extra or [] if s not in found]


@dataclass
class Subject:
    """One file graded against one exercise, and where its build products go."""

    exercise: Exercise
    mode: str  # "tree" (exercises/), "solution" (solutions/) or "file" (anywhere)
    source: Path
    name: str  # the student's name in reports and CSV rows
    work: Path | None = None  # private build folder ("file" mode)

    @property
    def symbol(self) -> str:
        """What lab/grade_main.cu links against: exercise_NN, or solution_NN for the reference."""
        return ("solution_" if self.mode == "solution" else "exercise_") + self.exercise.number

    @property
    def copy(self) -> Path:
        """The private copy of the source that "file" mode compiles."""
        return self.work / (slug(self.source.stem) + ".cu")

    @property
    def obj(self) -> Path:
        """The compiled file: beside the private copy, or where the Makefile puts the tree's files."""
        source = self.copy if self.mode == "file" else BUILD_DIR / "obj" / make_path(self.source)
        return source.with_name(source.name + ".o")

    @property
    def program(self) -> Path:
        folder = self.work if self.mode == "file" else BUILD_DIR
        return folder / ("grade_" + self.exercise.number + ("_solution" if self.mode == "solution" else ""))


def slug(text: str) -> str:
    """A name safe for a folder and for make: letters, digits, '.', '_' and '-'."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._") or "student"


def build(subject: Subject, timeout: float, object_only: bool) -> Verdict | None:
    """Compile the graded file and, unless object_only, link its grader program: None, or its FAIL."""
    text = subject.source.read_text(errors="replace")
    if not re.search(rf"\bkernel_variant\s+{subject.symbol}\b", text):
        return Verdict("FAIL", missing_symbol_why(subject, text))
    variables = []
    if subject.mode == "file":  # a copy in a fresh private folder, built with mk/grade_file.mk's rules
        shutil.rmtree(subject.work, ignore_errors=True)
        subject.work.mkdir(parents=True)
        subject.copy.write_text(text)
        variables = ["GRADE_EX=" + subject.exercise.number, "GRADE_SRC=" + make_path(subject.copy)]
    ran = make(variables + [make_path(subject.obj)], timeout)
    if ran.timed_out:
        return Verdict("FAIL", f"the compiler did not finish within {max(timeout, BUILD_TIMEOUT)}s")
    if ran.rc != 0:
        return does_not_compile(subject, ran.text)
    if object_only:
        return None
    ran = make(variables + [make_path(subject.program)], timeout)
    if ran.rc == 0:
        return None
    if ran.timed_out:
        raise EnvironmentProblem(f"building {make_path(subject.program)} took more than {max(timeout, BUILD_TIMEOUT)}s")
    clash = re.search(r"(undefined reference to|multiple definition of) `([^']+)'", ran.text)
    if clash and clash.group(2) == subject.symbol:
        return Verdict("FAIL", missing_symbol_why(subject))
    if clash:
        advice = " (make your file's own functions and variables static)" if "multiple" in clash.group(1) else ""
        return Verdict("FAIL", f"does not link: {clash.group(1)} {clash.group(2)}{advice}")
    raise EnvironmentProblem(f"the grader program {make_path(subject.program)} does not build, and not because of "
                             f"{make_path(subject.source)}: {first_error_line(ran.text)}")


def missing_symbol_why(subject: Subject, text: str = "") -> str:
    """Why a file does not link with lab/grade_main.cu, naming the symbols its text declares instead."""
    instead = ", ".join(dict.fromkeys(re.findall(r"\bkernel_variant\s+((?:exercise|solution)_\d\d)\b", text)))
    return (f'does not define {subject.symbol}, the symbol the grader links against: keep the skeleton\'s '
            f'extern "C" const kernel_variant {subject.symbol}' + (f" (it defines {instead})" if instead else ""))


def does_not_compile(subject: Subject, output: str) -> Verdict:
    """The compiler's first error, naming the student's file rather than its copy, then its first 20 lines."""
    why = first_error_line(output)
    if subject.mode == "file":
        for copy in (make_path(subject.copy), str(subject.copy)):
            why = why.replace(copy, subject.source.name)
    lines = [line for line in output.splitlines() if line.strip()
             and not line.startswith(("make", "  NVCC", "  LINK", "  CC", "  AR"))]
    return Verdict("FAIL", "does not compile: " + why, lines[:20])


def disassemble(obj: Path, timeout: float) -> Compiled | None:
    cuobjdump = find_tool("cuobjdump", "CUOBJDUMP")
    if cuobjdump is None:
        return None
    listings = []
    for option in ("-sass", "-res-usage"):
        ran = run([cuobjdump, option, obj], timeout, limit=LISTING_LIMIT)
        if ran.rc != 0:
            raise EnvironmentProblem(f"cuobjdump {option} {obj} failed: {first_error_line(ran.text)}")
        listings.append(ran.out)
    return Compiled.parse(*listings)


def own_work(subject: Subject) -> Verdict:
    """FAIL where the object calls what ALLOWED_SYMBOLS and "allow_symbols" do not: work not the file's kernels'."""
    nm = find_tool("nm", "NM")
    listed = run([nm, "--undefined-only", "--demangle", subject.obj], 60) if nm else None
    if listed is None or listed.rc != 0:
        return Verdict("SKIP", "calls outside your file not checked: nm " + ("failed" if nm else "not found"))
    needed = [line.split(None, 1)[1] for line in listed.out.splitlines() if len(line.split(None, 1)) == 2]
    outside = calls_outside(needed, subject.exercise.rules.get("allow_symbols", []))
    if outside:
        more = f" and {len(outside) - 3} more" if len(outside) > 3 else ""
        return not_own(f"uses {', '.join(outside[:3])}{more} from outside your file (it may use CUDA's launch and "
                       "attribute functions and the harness's helpers)")
    return Verdict("PASS", "uses nothing outside your file but CUDA's launch and attribute functions and the "
                           "harness's helpers")


def check_compiled_code(subject: Subject, timeout: float) -> Verdict:
    """The machine-code part of Technique: what the file calls, then every requirement of grading.json."""
    own = own_work(subject)
    if own.status == "FAIL":
        return own
    rules = subject.exercise.rules.get("technique", [])
    if not rules:
        return Verdict("SKIP", f"no requirements in exercises/{subject.exercise.name}/grading.json")
    compiled = disassemble(subject.obj, timeout)
    if compiled is None:
        return Verdict("SKIP", machine.CUOBJDUMP_MISSING)
    if not compiled.code:
        return Verdict("FAIL", "the compiled file holds no kernel at all")
    verdicts = [Verdict(*check_requirement(rule, compiled)) for rule in rules]
    details = [MARKS[v.status] + v.why for v in [own, *verdicts]]
    failed = [v.why for v in verdicts if v.status == "FAIL"]
    if failed:
        more = f" (and {len(failed) - 1} more unmet requirement{'s' if len(failed) > 2 else ''})"
        return Verdict("FAIL", failed[0] + (more if len(failed) > 1 else ""), details)
    met = sum(v.status == "PASS" for v in verdicts)
    skipped = f" ({len(verdicts) - met} skipped)" if met < len(verdicts) else ""
    return Verdict("PASS", f"{met} of {len(verdicts)} requirements met in the compiled code{skipped}", details)


def run_ncu(ncu: str, options: list, program: Path, variant: str, shape: str, timeout: float) -> tuple[Ran, str]:
    """One variant at a shape under Nsight Compute: the run, and the raw CSV table it logged ('' if none)."""
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "ncu.csv"
        ran = run([ncu, "--csv", "--page", "raw", *options, "--log-file", log, program, "--check-only", "--variant",
                   variant, "--shapes", shape], timeout)
        return ran, log.read_text(errors="replace") if log.is_file() else ""


def check_profile(subject: Subject, timeout: float) -> Verdict:
    """The counter part of Technique, for an exercise that names counters."""
    wanted = subject.exercise.rules["profile"]
    ncu = find_tool("ncu", "NCU")
    if ncu is None:
        return Verdict("SKIP", "profile checks skipped: Nsight Compute (ncu) not found")
    counters = sorted({m for item in wanted for m in PROFILE_METRICS[item["metric"]]})
    options = ["--clock-control", "none", "--print-units", "base", "--kernel-name-base", "function",
               "--metrics", ",".join(counters)]
    compiled = disassemble(subject.obj, timeout)
    if compiled is not None:
        options += ["--kernel-name", "regex:" + "|".join(map(re.escape, compiled.kernel_names()))]
    ran, table = run_ncu(ncu, options, subject.program, "student", PROFILE_SHAPE, timeout)
    if "ERR_NVGPUCTRPERM" in table + ran.text:
        return Verdict("SKIP", "profile checks skipped: ncu may not read this GPU's performance counters "
                               "(ERR_NVGPUCTRPERM)")
    rows = read_ncu_csv(table).apply(lambda column: pd.to_numeric(column.str.replace(",", ""), errors="coerce"))
    if ran.rc != 0 or rows.empty or any(m not in rows for m in counters):
        return Verdict("SKIP", f"profile checks skipped: ncu profiled nothing (exit {ran.rc}: "
                               f"{first_error_line(table + ran.text)})")
    verdicts = []
    for item in wanted:
        numerator, denominator = (rows[m].sum() for m in PROFILE_METRICS[item["metric"]])
        if denominator == 0:
            verdicts.append(Verdict("FAIL", f"{item['what']}: no such instruction ran"))
            continue
        ratio = numerator / denominator
        low, high = item.get("min", -float("inf")), item.get("max", float("inf"))
        status = "PASS" if low <= ratio <= high else "FAIL"
        verdicts.append(Verdict(status, f"{item['what']}: measured {ratio:.2f} at {PROFILE_SHAPE}"))
    details = [MARKS[v.status] + v.why for v in verdicts]
    failed = [v for v in verdicts if v.status == "FAIL"]
    if failed:
        return Verdict("FAIL", failed[0].why, details)
    return Verdict("PASS", f"{len(verdicts)} profile requirements met (ncu)", details)


def kernels_run(ncu: str, program: Path, variant: str, shape: str, timeout: float) -> list[str] | Verdict:
    """The mangled names of the kernels one variant runs at a shape (ncu), or a SKIP: why ncu gave no list."""
    ran, table = run_ncu(ncu, ["--print-kernel-base", "mangled", "--metrics", "gpu__time_duration.sum"], program,
                         variant, shape, timeout)
    if ran.rc != 0 or "==ERROR==" in table + ran.text:
        return Verdict("SKIP", f"the kernels run at {shape} were not listed: ncu failed (exit {ran.rc}: "
                               f"{first_error_line(table + ran.text)})")
    launched = list(dict.fromkeys(read_ncu_csv(table).get("Kernel Name", [])))
    if not launched and "No kernels were profiled" not in table + ran.text:
        return Verdict("SKIP", f"the kernels run at {shape} were not listed: ncu printed no table")
    return launched


def check_launches(subject: Subject, shape: str, timeout: float) -> Verdict:
    """The kernels the student's launcher runs at the timed shape, as Nsight Compute lists them: each must be
    one the file defines, and one that Technique checked where every requirement names its function."""
    ncu, compiled = find_tool("ncu", "NCU"), disassemble(subject.obj, timeout)
    if ncu is None or compiled is None:
        missing = "ncu" if ncu is None else "cuobjdump"
        return Verdict("SKIP", f"the kernels run at {shape} were not listed: {missing} not found")
    launched = kernels_run(ncu, subject.program, "student", shape, timeout)
    if isinstance(launched, Verdict):
        return launched
    rules = subject.exercise.rules.get("technique", [])
    checked = [r["function"] for r in rules] if all(r.get("function") for r in rules) else []
    if not launched:
        return not_own(f"no kernel ran at {shape}: the work was done without one of your kernels")
    own = compiled.functions()
    foreign = [n for n in launched if n not in own or (checked and not any(re.search(c, n) for c in checked))]
    if not foreign:
        return Verdict("PASS", f"at {shape} only your own kernels ran (ncu): {', '.join(map(plain_name, launched))}")
    if reference_hands_on(ncu, subject, shape, timeout):
        return Verdict("SKIP", f"at {shape} the exercise's own launcher hands the work to the step's kernel (the "
                               "reference solution's does too): time a shape its kernel takes, such as the default")
    if foreign[0] not in own:
        return not_own(f"at {shape} {plain_name(foreign[0])} ran, a kernel your file does not define")
    return not_own(f"at {shape} your launcher ran {plain_name(foreign[0])}, not the kernel that Technique checks "
                   f"({', '.join(checked)})")


def reference_hands_on(ncu: str, subject: Subject, shape: str, timeout: float) -> bool:
    """Whether the reference solution, run at this shape in the same grader program, also runs a kernel its own
    file does not define: then the shape is one the exercise leaves to the step, and no file can pass there."""
    solution = BUILD_DIR / "obj" / "solutions" / subject.exercise.name / "solution.cu.o"
    compiled = disassemble(solution, timeout) if solution.is_file() else None
    launched = kernels_run(ncu, subject.program, "reference", shape, timeout)
    return compiled is not None and isinstance(launched, list) and any(n not in compiled.functions() for n in launched)


def not_own(why: str) -> Verdict:
    """A Technique FAIL for work done outside the file's own kernels: Speed is then not timed."""
    return Verdict("FAIL", why + ": the timed work must be your own kernel's", not_own=True)


@dataclass
class Program:
    path: Path
    label: str = ""  # "" for the default; "GRADE_BLOCK=16x16" for a parameter value
    env: dict | None = None

    def where(self) -> str:
        return " with " + self.label if self.label else ""


def check_lines(ran: Ran) -> dict[str, tuple[str, str]]:
    """The student's --check-only verdicts of a run: shape -> (status, why)."""
    found = {}
    for line in ran.out.splitlines():
        match = CHECK_LINE_RE.match(line.strip())
        if match and match.group(3) == "student":
            found[match.group(4)] = (match.group(1), match.group(5) or "")
    return found


def wrong_why(shape: str, detail: str, at: str) -> str:
    """A FAIL line: a write outside the output says so first, as the harness words it."""
    if detail.startswith("wrote"):
        return f"{detail}{at} on {shape}"
    return f"wrong result{at} on {shape}" + (f" ({detail})" if detail else "")


def check_shapes(program: Program, shapes: list[str], timeout: float, may_not_fit: bool = False) -> Verdict:
    """The student's kernel on every shape in one process; a shape too big is a SKIP where it `may_not_fit`."""
    ran = run([program.path, "--check-only", "--variant", "student", "--shapes", ",".join(shapes)],
              timeout, program.env)
    found, at = check_lines(ran), program.where()
    failed = [s for s in shapes if found.get(s, ("",))[0] == "FAIL"]
    if failed:
        more = f" and {len(failed) - 1} more shape{'s' if len(failed) > 2 else ''}" if len(failed) > 1 else ""
        return Verdict("FAIL", wrong_why(failed[0], found[failed[0]][1], at) + more)
    missing = [s for s in shapes if s not in found]
    shape = missing[0] if missing else shapes[-1]
    if ran.timed_out:
        return Verdict("FAIL", f"did not finish within {timeout}s{at} on {shape} (an endless loop?)", stopped=True)
    if ran.rc == 2:
        raise EnvironmentProblem(f"{program.path} rejected its command line ({first_error_line(ran.err)}): is the "
                                 "harness older than lab/grade.py?")
    if ran.rc == 3 and DOES_NOT_FIT_RE.search(ran.err):
        if may_not_fit:
            return Verdict("SKIP", f"{shape} does not fit here: {first_error_line(ran.err)}")
        raise EnvironmentProblem(first_error_line(ran.err))
    if missing or ran.rc != 0:
        return Verdict("FAIL", stopped_why(ran, shape + at))
    skipped = [s for s in shapes if found[s][0] == "SKIP"]
    if skipped:
        return Verdict("SKIP", "the kernel cannot run on this GPU: " + found[skipped[0]][1])
    return Verdict("PASS", f"bit-exact on {len(shapes)} shapes{at}" if len(shapes) > 1 else f"bit-exact on {shape}{at}")


def correctness(subject: Subject, others: list[Program], options: Options) -> Verdict:
    """The graded shapes (and the exercise's own), the huge shape, then the parameter's other values."""
    shapes = shapes_for("grade", subject.exercise.rules.get("grade_shapes"))
    progress(f"checking {len(shapes)} shapes")
    main = check_shapes(Program(subject.program), shapes, options.timeout)
    if main.status != "PASS":
        return main
    details = [f"{main.why} (tests/shapes.txt tag grade, then the exercise's own): {', '.join(shapes)}"]
    notes = []
    for shape in shapes_for("huge"):
        if options.no_huge:
            details.append(f"SKIP {shape}: {options.no_huge}")
            notes.append(f"{shape} SKIPPED ({options.no_huge})")
            continue
        progress(f"checking {shape}")
        verdict = check_shapes(Program(subject.program), [shape], options.timeout, may_not_fit=True)
        if verdict.status == "FAIL":
            return Verdict("FAIL", verdict.why, details, verdict.stopped)
        details.append(f"{verdict.status} {verdict.why}")
        notes.append(f"{shape} too" if verdict.status == "PASS" else f"{shape} SKIPPED (does not fit here)")
    for other in others:
        progress(f"checking {len(shapes)} shapes{other.where()}")
        verdict = check_shapes(other, shapes, options.timeout)
        if verdict.status != "PASS":
            return Verdict(verdict.status, verdict.why, details, verdict.stopped)
        details.append(verdict.why)
    if others:
        notes.append("also " + ", ".join(o.label for o in others))
    return Verdict("PASS", "; ".join([main.why] + notes), details)


def run_sanitizer(tool: str, program: Program, shapes: list[str], timeout: float, correct: bool) -> Verdict:
    """One tool on the student's kernel; a wrong result under it is a race only if it was right without (`correct`)."""
    cmd = [find_tool("compute-sanitizer", "COMPUTE_SANITIZER"), "--tool", tool, *TOOL_OPTIONS.get(tool, []),
           "--error-exitcode", str(SANITIZER_EXIT), "--print-limit", "20",
           program.path, "--check-only", "--variant", "student", "--shapes", ",".join(shapes)]
    ran = run(cmd, timeout, program.env)
    records = sanitizer_records(ran.text)
    found, at = pick_finding(records), program.where()
    reported = summary_count(ran.text) > 0 or ran.rc == SANITIZER_EXIT
    if found is not None and (reported or "hazard" in found.text or "Race" in found.header):
        return Verdict("FAIL", describe_finding(tool, found) + at, [r.text[:240] for r in records[:3]])
    if ran.timed_out:
        return Verdict("FAIL", f"{tool}: did not finish within {timeout}s{at}")
    if reported:
        return Verdict("FAIL", f"{tool} reported errors{at}: {first_error_line(ran.text)}")
    if ran.rc == 1 and correct:
        return Verdict("FAIL", f"{tool}: wrong result under the tool{at} (a result that depends on timing: a race?)")
    if ran.rc == 1:
        return Verdict("PASS", f"{tool}: no errors reported{at} (the result is wrong, as Correctness says)")
    if ran.rc != 0:
        return Verdict("FAIL", f"{tool}: the program stopped (exit {ran.rc}){at}: {first_error_line(ran.err)}")
    return Verdict("PASS", f"{tool} clean{at}")


@functools.cache
def sanitizer_problem(program: Path, timeout: float) -> str | None:
    """Why compute-sanitizer cannot judge here (it must run the reference on 1x1 cleanly), or None."""
    sanitizer = find_tool("compute-sanitizer", "COMPUTE_SANITIZER")
    if sanitizer is None:
        return "compute-sanitizer not found (it comes with the CUDA toolkit; put it on PATH or set COMPUTE_SANITIZER)"
    ran = run([sanitizer, "--tool", "memcheck", "--error-exitcode", str(SANITIZER_EXIT), program,
               "--check-only", "--variant", "reference", "--shapes", "1x1"], timeout)
    if ran.rc != 0:
        return f"compute-sanitizer cannot run the reference solution here (exit {ran.rc}: {first_error_line(ran.text)})"
    return None


def sanitizers(subject: Subject, others: list[Program], options: Options, correct: bool) -> Verdict:
    problem = sanitizer_problem(confirm_machine(subject.exercise.number, options.timeout), options.timeout)
    if problem:
        return Verdict("SKIP", problem)
    shapes = shapes_for("sanitize", subject.exercise.rules.get("sanitize_shapes"))
    other_tools = (subject.exercise.rules.get("parameter") or {}).get("sanitize_tools", SANITIZER_TOOLS)
    runs = [(tool, Program(subject.program)) for tool in SANITIZER_TOOLS]
    runs += [(tool, other) for other in others for tool in other_tools]
    details = []
    for tool, program in runs:
        progress(tool + program.where())
        verdict = run_sanitizer(tool, program, shapes, options.timeout, correct)
        if verdict.status == "FAIL":
            return verdict
        details.append(verdict.why)
    why = f"{', '.join(SANITIZER_TOOLS)} clean on {len(shapes)} shapes"
    if others:
        why += f"; {', '.join(other_tools)} also at {', '.join(o.label for o in others)}"
    return Verdict("PASS", why, details + [f"shapes (tests/shapes.txt tag sanitize, then the exercise's own): "
                                           f"{', '.join(shapes)}"])


def read_run(text: str) -> pd.DataFrame | None:
    """A program's --csv output, read by lab.results (by column name, every column checked), or None."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "run.csv"
        path.write_text(text)
        try:
            return results.load(path, "bench")
        except (results.ResultsError, ValueError, pd.errors.ParserError):
            return None


def graded_rows(text: str) -> dict[str, pd.Series]:
    """The rows of student, reference and step in a --csv run, by kernel name; none if unreadable."""
    frame = read_run(text)
    if frame is None:
        return {}
    kernels = frame[(frame["role"] == "kernel") & frame["kernel"].isin(GRADED_KERNELS)]
    return {row["kernel"]: row for _, row in kernels.iterrows()}


def ratio_text(ratio: float) -> str:
    """2 decimals, or 2 significant digits below 0.1 (0.0026x, not 0.00x)."""
    return f"{ratio:.2f}x" if ratio >= 0.1 else f"{ratio:.2g}x"


def time_once(program: Path, shape: str, timeout: float) -> tuple[float, list[str]] | Verdict:
    """One timed run of student, reference and step on the same buffers: (ratio, lines)."""
    ran = run([program, "--csv", "--shapes", shape], timeout)
    if ran.timed_out:
        return Verdict("FAIL", f"the timed run at {shape} did not finish within {timeout}s", stopped=True)
    if ran.rc == 3 and DOES_NOT_FIT_RE.search(ran.err):
        return Verdict("SKIP", f"the timed shape {shape} does not fit here: {first_error_line(ran.err)}")
    rows = graded_rows(ran.out)
    if "student" not in rows or ran.rc not in (0, 1):
        return Verdict("FAIL", "timed run: " + stopped_why(ran, shape))
    if rows["student"]["check"] != "PASS":
        return Verdict("FAIL", f"wrong result in the timed run at {shape}")
    for other in GRADED_KERNELS[1:]:
        if other not in rows or rows[other]["check"] != "PASS":
            # The machine was confirmed with the reference: a write outside `out` lands in their input.
            return Verdict("FAIL", f"the {other} kernel went wrong after yours ran at {shape}: does your kernel "
                                   "write outside `out`?")
    lines = [f"{k:<9} {rows[k]['median_ms']:9.4f} ms {rows[k]['gbps']:8} GB/s {rows[k]['pct_of_copy']:7} % of copy"
             for k in GRADED_KERNELS]
    return rows["reference"]["median_ms"] / rows["student"]["median_ms"], lines


def check_speed(subject: Subject, shape: str, timeout: float) -> tuple[Verdict, float | None]:
    floor = subject.exercise.rules["floor"]  # the lowest speed ratio to the reference that passes
    best = None
    for attempt in range(SPEED_ATTEMPTS):
        if attempt:
            progress(f"below the floor: timing again ({attempt + 1} of {SPEED_ATTEMPTS})")
        outcome = time_once(subject.program, shape, timeout)
        if isinstance(outcome, Verdict):
            return outcome, None
        best = outcome if best is None or outcome[0] > best[0] else best
        if best[0] >= floor:
            break
    ratio, lines = best
    details = lines + [f"ratio = reference time / your time; floor {floor:.2f}x "
                       f"(exercises/{subject.exercise.name}/grading.json)"]
    if ratio >= floor:
        return Verdict("PASS", f"{ratio_text(ratio)} the reference (floor {floor:.2f}x) at {shape}", details), ratio
    return Verdict("FAIL", f"correct but too slow ({ratio_text(ratio)} the reference, floor {floor:.2f}x) at {shape}, "
                           f"best of {SPEED_ATTEMPTS} runs", details), ratio


def parameter_programs(subject: Subject) -> list[Program]:
    """The grader program once more for each of the parameter's other values, set in its environment."""
    parameter = subject.exercise.rules.get("parameter")
    if not parameter:
        return []
    name = parameter["name"]
    return [Program(subject.program, f"{name}={v}", {**os.environ, name: str(v)}) for v in parameter["values"]]


@functools.cache
def confirm_machine(number: str, timeout: float) -> Path:
    """The reference's grader program, built and passing on 1x1: what fails later is the graded file's fault."""
    program = BUILD_DIR / f"grade_{number}_solution"
    progress(f"building {make_path(program)}")
    built = make([make_path(program)], timeout)
    if built.rc != 0:
        raise EnvironmentProblem(f"the reference grader {make_path(program)} does not build: "
                                 f"{first_error_line(built.text)}")
    ran = run([program, "--check-only", "--variant", "reference", "--shapes", "1x1"], timeout)
    if ran.rc in (2, 3):
        raise EnvironmentProblem(first_error_line(ran.err))
    if ran.rc != 0:
        raise EnvironmentProblem(f"the reference solution of exercise {number} fails on 1x1 (exit {ran.rc}): "
                                 "the repository is broken")
    return program


def grade(subject: Subject, options: Options) -> Grade:
    """All four checks of one file. The student's faults are FAILs, never exceptions."""
    result = Grade(subject)
    verdicts = result.verdicts
    if not (options.technique_only or options.build_only):
        confirm_machine(subject.exercise.number, options.timeout)
    progress(f"building {make_path(subject.source)}")
    failed = build(subject, options.timeout, object_only=options.technique_only)
    if failed:
        verdicts["Correctness"] = failed
        verdicts.update((check, Verdict("SKIP", "nothing to check: it does not build")) for check in CHECKS[1:])
        return result
    if options.build_only:
        verdicts["Correctness"] = Verdict("SKIP", f"--build-only: built {make_path(subject.program)}")
        verdicts.update((check, Verdict("SKIP", "--build-only")) for check in CHECKS[1:])
        return result
    progress("reading the compiled code")
    technique = check_compiled_code(subject, options.timeout)
    if options.technique_only:
        verdicts.update((check, Verdict("SKIP", "--technique-only")) for check in CHECKS)
        verdicts["Technique"] = technique
        return result
    others = parameter_programs(subject)
    verdicts["Correctness"] = correctness(subject, others, options)
    correct = verdicts["Correctness"].status == "PASS"
    if verdicts["Correctness"].stopped:
        verdicts["Sanitizers"] = Verdict("SKIP", "not run: the kernel did not finish")
    elif options.quick and verdicts["Correctness"].status == "FAIL":
        verdicts["Sanitizers"] = Verdict("SKIP", "--quick: not run after Correctness FAILed")
    else:
        verdicts["Sanitizers"] = sanitizers(subject, others, options, correct)
    if technique.status == "PASS" and correct:
        progress(f"listing the kernels run at {options.timed_shape} with Nsight Compute")
        launched = check_launches(subject, options.timed_shape, options.timeout)
        technique = launched if launched.status == "FAIL" else Verdict(
            "PASS", technique.why, technique.details + [MARKS[launched.status] + launched.why])
    if technique.status == "PASS" and correct and subject.exercise.rules.get("profile"):
        progress("profiling with Nsight Compute")
        profiled = check_profile(subject, options.timeout)
        why = profiled.why if profiled.status == "FAIL" else f"{technique.why}; {profiled.why}"
        technique = Verdict("FAIL" if profiled.status == "FAIL" else "PASS", why, technique.details + profiled.details)
    verdicts["Technique"] = technique
    if technique.not_own:
        verdicts["Speed"] = Verdict("SKIP", "not timed: the work is not all your own kernels' (see Technique)")
    elif correct:
        progress(f"timing at {options.timed_shape}")
        verdicts["Speed"], result.ratio = check_speed(subject, options.timed_shape, options.timeout)
    else:
        verdicts["Speed"] = Verdict("SKIP", "a kernel that is not correct is not timed")
    return result


def print_report(result: Grade) -> None:
    subject = result.subject
    whose = f"{subject.name}, exercise " if subject.mode == "file" else ""
    print(f"== {whose}{subject.exercise.name}: {make_path(subject.source)}")
    for check in CHECKS:
        verdict = result.verdicts[check]
        print(f"  {check:<12} {verdict.status:<4}  {verdict.why}")
        for line in verdict.details:
            print(f"  {'':<12} {'':<4}    {line}")
    built = " (it builds; no check ran)" if result.result == "NOT GRADED" else ""
    print(f"RESULT {result.subject.name}: {result.result}{built}\n", flush=True)


def print_summary(grades: list[Grade], heading: str) -> None:
    print(f"== Summary: {heading}")
    print(f"{'':<22} {' '.join(check.lower() for check in CHECKS)} {'ratio':>7}  result")
    for g in grades:
        statuses = " ".join(f"{g.verdicts[check].status:<{len(check)}}" for check in CHECKS)  # under each heading
        ratio = ratio_text(g.ratio) if g.ratio is not None else "-"
        print(f"{g.subject.name[:22]:<22} {statuses} {ratio:>7}  {g.result}")


Options = argparse.Namespace  # how to grade: the command line, as parse_args reads and checks it


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = machine.Parser(prog="python3 -m lab.grade", description=__doc__)
    parser.add_argument("exercise", nargs="?")
    for flag in ("--all", "--solution", "--technique-only", "--build-only", "--list", "--no-huge", "--quick"):
        parser.add_argument(flag, action="store_true")
    for flag in ("--file", "--batch", "--csv"):
        parser.add_argument(flag, type=Path)
    parser.add_argument("--timeout", default="300")
    parser.add_argument("--shape", dest="timed_shape", default=os.environ.get("GRADE_SHAPE") or "8192x8192")
    args = parser.parse_args(argv)
    if args.list and len(argv) == 1:
        return args
    given = [flag for flag, on in (("--file", args.file), ("--batch", args.batch), ("--solution", args.solution)) if on]
    see = " (see python3 -m lab.grade --help)"
    whole = "[1-9][0-9]*"  # a whole number above 0
    refusals = [  # (wrong, the one line that says so): the first that applies is the error
        (args.list, "--list takes nothing else" + see),
        (not re.fullmatch(whole, args.timeout), f"--timeout must be a whole number of seconds, not {args.timeout!r}"),
        (not re.fullmatch(f"{whole}x{whole}", args.timed_shape),
         f"the timed shape must be ROWSxCOLS, not {args.timed_shape!r}"),
        (args.technique_only and args.build_only, "--technique-only and --build-only cannot be combined" + see),
        (args.all and args.exercise, "give an exercise number or --all, not both" + see),
        (not args.all and not args.exercise, "say which exercise (e.g. 05) or --all" + see),
        (args.exercise and not re.fullmatch("[0-9]{1,2}", args.exercise),
         f"not an exercise number: {args.exercise}" + see),
        (len(given) > 1, " and ".join(given) + " cannot be combined" + see),
        (args.all and (args.file or args.batch), "--file and --batch grade one exercise: give its number, not --all"),
        (bool(args.batch) != bool(args.csv), "--batch DIR and --csv OUT.csv go together" + see),
    ]
    refused = next((why for wrong, why in refusals if wrong), None)
    if refused:
        raise UsageError(refused)
    args.timeout = int(args.timeout)
    args.no_huge = "--no-huge" if args.no_huge else "--quick" if args.quick else None  # why the huge shape is skipped
    if args.exercise:
        args.exercise = f"{int(args.exercise):02d}"
    return args


def subjects_of(args: argparse.Namespace) -> list[Subject]:
    exercises = [load_exercise(n[:2]) for n in exercise_names()] if args.all else [load_exercise(args.exercise)]
    if args.solution:
        return [Subject(e, "solution", ROOT / "solutions" / e.name / "solution.cu", e.name) for e in exercises]
    if not (args.file or args.batch):
        return [Subject(e, "tree", ROOT / "exercises" / e.name / "exercise.cu", e.name) for e in exercises]
    files, number = [args.file], exercises[0].number
    if args.batch:
        if not args.batch.is_dir():
            raise UsageError(f"no such directory: {args.batch}")
        files = sorted(p for p in args.batch.glob("*.cu") if p.is_file())
        if not files:
            raise UsageError(f"no .cu files in {args.batch}")
        if not args.csv.parent.is_dir():
            raise UsageError(f"no such directory for --csv: {args.csv.parent}")
    for path in files:
        try:
            path.read_bytes()
        except OSError as e:  # missing, a folder, or unreadable: strerror says which
            raise UsageError(f"cannot read {path}: {e.strerror}") from e
    return [Subject(exercises[0], "file", f, f.stem, WORK_DIR / f"{slug(f.stem)}-{number}") for f in files]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.list:
        print("\n".join(exercise_names()))
        return 0
    subjects = subjects_of(args)
    if args.technique_only and find_tool("cuobjdump", "CUOBJDUMP") is None:
        raise EnvironmentProblem(machine.CUOBJDUMP_MISSING)
    heading = ("technique only, no GPU used" if args.technique_only else "build only, no GPU used" if args.build_only
               else f"{require_gpu(args.exercise)}; speed timed at {args.timed_shape}")
    grades = []
    with open(args.csv, "w", newline="") if args.csv else open(os.devnull, "w") as out:
        writer = csv.writer(out)
        writer.writerow(CSV_COLUMNS)
        for subject in subjects:
            result = grade(subject, args)
            grades.append(result)
            print_report(result)
            ratio = f"{result.ratio:.3g}" if result.ratio is not None else ""
            writer.writerow([subject.name] + [result.verdicts[c].status for c in CHECKS] + [ratio, result.reason()])
            out.flush()
    if len(grades) > 1:
        print_summary(grades, heading)
    if args.csv:
        print(f"wrote {args.csv} ({len(grades)} rows)")
    return 1 if any(g.failed for g in grades) else 0


if __name__ == "__main__":
    sys.exit(machine.main(main))
