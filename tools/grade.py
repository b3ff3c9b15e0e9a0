#!/usr/bin/env python3
"""Grade the exercises: correctness, sanitizers, technique and speed.

    tools/grade.py 05                      grade exercises/05_*/exercise.cu
    tools/grade.py --all                   every exercise, then a summary table
    tools/grade.py 05 --solution           the reference solution, graded as if it were yours
    tools/grade.py --all --solution        every reference solution (the grader's self-test)
    tools/grade.py 05 --file alice.cu      a student's file from anywhere
    tools/grade.py 05 --batch DIR --csv OUT.csv
                                           a class: DIR/*.cu, one file per student
                                           (the file's stem is the name), one CSV row each
    tools/grade.py ... --technique-only    only the checks of the compiled code: no GPU needed
    tools/grade.py ... --build-only        only build the grader programs: no GPU, no cuobjdump
    tools/grade.py --list                  the exercises found, one NN_name a line

An exercise is a folder exercises/NN_name/ (exercise.cu, grading.json) whose step
steps/NN_*/ exists, with its reference answer in solutions/NN_name/solution.cu: adding
one means adding those folders, nothing here.

Options:
    --timeout S      limit of every program run and build, in seconds (default 300);
                     past it the whole process group is killed and the check FAILs
    --shape RxC      the timed shape (default: $GRADE_SHAPE, else 8192x8192)
    --no-huge        skip the shape of more than 2^31 elements (it needs ~17 GB of GPU
                     and ~26 GB of host memory); the report says it was skipped
    --quick          the grader's self-test (make test): --no-huge, and once Correctness
                     FAILs the sanitizers are not run; every check still runs on a file
                     that passes Correctness

Each exercise gets four verdicts, PASS, FAIL or SKIP, each with one line of why:
  Correctness  bit-exact on the graded shapes (one process: --check-only --shapes LIST),
               on one shape of more than 2^31 elements where memory allows, and at every
               value of the exercise's parameter (exercise 02's block shape, for one)
  Sanitizers   compute-sanitizer memcheck, racecheck (warnings count), synccheck and
               initcheck on small odd shapes
  Technique    the compiled code (cuobjdump -sass, -res-usage) meets the exercise's
               requirements; where Nsight Compute is here, the counter the task is about
  Speed        the ratio to the reference solution, timed in the same run, is at least the
               exercise's floor (re-measured up to twice before it FAILs)
The requirements and the floor live in exercises/NN_name/grading.json; docs/grading.md
explains every check and the file's format.

Exit codes: 0 nothing FAILed; 1 something FAILed; 2 bad command line or a missing or
unreadable file; 3 no GPU, or a problem of the machine or the repository.

Environment: BUILD (build directory, default build), ARCH (passed to make), MAKE,
GRADE_SHAPE, GRADE_WORK (the folder of the private copies, default BUILD/grade-work),
and CUOBJDUMP, COMPUTE_SANITIZER, NCU to name those tools (default: PATH, then
$CUDA_HOME/bin, then /usr/local/cuda/bin).
"""

import argparse
import csv
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
from typing import Dict, List, Optional, Tuple, Union

import results as result_files  # tools/results.py: the one reader of result CSVs
from metrics import parse_ncu_raw_csv  # shared with tools/ncu_profile.py

ROOT = Path(__file__).resolve().parent.parent
BUILD = os.environ.get("BUILD") or "build"
BUILD_DIR = Path(BUILD) if Path(BUILD).is_absolute() else ROOT / BUILD
# Private copies of graded files, one folder each. GRADE_WORK moves them, so that
# several graders can run side by side on the same files (tests/test_grader.sh).
WORK_DIR = (Path(os.environ["GRADE_WORK"]).resolve() if os.environ.get("GRADE_WORK")
            else BUILD_DIR / "grade-work")

CHECKS = ("Correctness", "Sanitizers", "Technique", "Speed")
SANITIZER_TOOLS = ("memcheck", "racecheck", "synccheck", "initcheck")
# racecheck prints warnings as well as errors, and both must fail the check.
TOOL_OPTIONS = {
    "racecheck": ["--racecheck-report", "all", "--racecheck-detect-level", "warn"],
}
PROFILE_SHAPE = "1024x1024"  # whole tiles of 32 and of 64: no edge effects on ratios
DEFAULT_TIMED_SHAPE = "8192x8192"
SPEED_ATTEMPTS = 3  # one measurement and up to two more below the floor
BUILD_TIMEOUT = 900  # seconds a build may take at least (nvcc for five GPU generations is slow)
TIMED_OUT = 124  # exit code of a run killed for time, as timeout(1) gives
OUTPUT_LIMIT = 1 << 20  # bytes kept of each of a program's stdout and stderr
LISTING_LIMIT = 1 << 28  # the same for cuobjdump, whose listings are long
SANITIZER_EXIT = 99  # compute-sanitizer's exit code when it found something
# On sm_90 and newer, cuobjdump's SHARED includes 1 KiB the system reserves in every
# block that uses shared memory; the tile itself is the rest.
RESERVED_SHARED_FROM_SM = 90
RESERVED_SHARED_BYTES = 1024

# Used only while tools/shapes.sh and tests/shapes.txt do not provide a tag: odd sizes,
# 1-wide matrices, shapes past the grid's y limit, pointers 4 but not 16 bytes aligned.
FALLBACK_SHAPES = {
    "grade": "1x1,1x7,7x1,2x3+1,31x33,33x4097,4097x33,1000x1000,1000x1000+1,"
    "1001x999+2,33x4097+3,4097x33+1,10007x7919,3x5000000,5000000x3,3x5000000+1",
    "sanitize": "67x131,67x131+1,1x37,37x1,33x65+2",
    "huge": "32769x65537",
}
SHAPE_RE = re.compile(r"^[1-9][0-9]*x[1-9][0-9]*(?:\+[0-3])?$")
# The harness's --check-only line: PASS 07 shared_padded 33x4097+1 [(why)]
CHECK_LINE_RE = re.compile(
    r"^(PASS|FAIL|SKIP) (\d+) (\S+) ([0-9]+x[0-9]+(?:\+[0-9]+)?)(?: \((.*)\))?\s*$"
)
# What the harness says, with exit code 3, when a shape does not fit in memory.
DOES_NOT_FIT_RE = re.compile(r"memory but only|cannot allocate|out of host memory")
SOURCE_LOCATION_RE = re.compile(r"in (\S+?\.(?:cu|cuh|h|hpp|cpp|c)):(\d+)")

# Nsight Compute counters behind the "profile" requirements: (numerator, denominator).
PROFILE_METRICS = {
    "shared_ld_wavefronts_per_request": (
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
        "smsp__sass_inst_executed_op_shared_ld.sum",
    ),
    "shared_st_wavefronts_per_request": (
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
        "smsp__sass_inst_executed_op_shared_st.sum",
    ),
}
TECHNIQUE_CHECKS = (
    "instructions",
    "shared_bytes",
    "no_local_memory",
)


class UsageError(Exception):
    """A bad command line, or a missing or unreadable file: exit code 2."""


class EnvironmentProblem(Exception):
    """No GPU, a missing tool, or a repository that does not build: exit code 3."""


# ------------------------------------------------------------------ running programs


@dataclass
class Ran:
    """What a program run left behind."""

    rc: int
    out: str
    err: str
    timed_out: bool = False

    @property
    def text(self) -> str:
        return self.out + "\n" + self.err


def run(cmd: List[str], timeout: float, env: Optional[Dict[str, str]] = None,
        limit: int = OUTPUT_LIMIT) -> Ran:
    """Run cmd from the repository root in a process group of its own.

    Past `timeout` seconds the whole group is killed (make and its compilers, or a
    program and the kernel it hangs in), and the run reports TIMED_OUT. Output goes
    through files, and only its first `limit` bytes are read, so a program that
    prints without end cannot fill memory.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            [str(c) for c in cmd],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,
        )
        timed_out = False
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            kill_group(proc)
        except BaseException:
            kill_group(proc)
            raise
        rc = TIMED_OUT if timed_out else proc.returncode
        return Ran(rc, read_head(out, limit), read_head(err, limit), timed_out)


def kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def read_head(stream, limit: int) -> str:
    stream.seek(0)
    return stream.read(limit).decode("utf-8", errors="replace")


def first_error_line(text: str) -> str:
    """The first line that reports an error, without the harness's "error: " prefix."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in lines:
        if re.search(r"\berror\b", line, re.IGNORECASE) and not line.startswith("make"):
            return re.sub(r"^error:\s*", "", line)
    return lines[0] if lines else "(no message)"


def signal_name(rc: int) -> str:
    try:
        return signal.Signals(-rc).name
    except ValueError:
        return "signal %d" % -rc


def progress(message: str) -> None:
    """A line of progress for a person watching; nothing when stderr is not a terminal."""
    if sys.stderr.isatty():
        sys.stderr.write("   .. %s\n" % message)
        sys.stderr.flush()


def find_tool(name: str, variable: str, extra: Tuple[str, ...] = ()) -> Optional[str]:
    """A CUDA tool: $VARIABLE if set, else PATH, $CUDA_HOME/bin, /usr/local/cuda/bin."""
    override = os.environ.get(variable)
    if override:
        return shutil.which(override)
    found = shutil.which(name)
    if found:
        return found
    places = [os.environ.get("CUDA_HOME", ""), "/usr/local/cuda"]
    candidates = [os.path.join(p, "bin", name) for p in places if p] + list(extra)
    for candidate in candidates:
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def ncu_candidates() -> Tuple[str, ...]:
    base = Path("/opt/nvidia/nsight-compute")
    return tuple(str(p) for p in sorted(base.glob("*/ncu"))) if base.is_dir() else ()


# ------------------------------------------------------------------ exercises


@dataclass
class Exercise:
    number: str  # "05"
    name: str  # "05_float4"
    rules: dict  # exercises/NN_name/grading.json

    @property
    def directory(self) -> Path:
        return ROOT / "exercises" / self.name

    @property
    def floor(self) -> float:
        return float(self.rules["floor"])

    @property
    def parameter(self) -> Optional[dict]:
        return self.rules.get("parameter")


EXERCISE_DIR_RE = re.compile(r"[0-9]{2}_[A-Za-z0-9_]+")


def exercise_dirs() -> List[Path]:
    """Every exercises/NN_name/ folder, in order."""
    folder = ROOT / "exercises"
    return sorted(p for p in folder.iterdir()
                  if p.is_dir() and EXERCISE_DIR_RE.fullmatch(p.name)) if folder.is_dir() else []


def has_step(name: str) -> bool:
    return any(p.is_dir() for p in (ROOT / "steps").glob(name[:2] + "_*"))


def exercise_names() -> List[str]:
    """The exercises: exercises/NN_name/ folders whose step exists (only those can be
    graded, against the step's kernel; mk/exercises.mk builds the same list)."""
    return [p.name for p in exercise_dirs() if has_step(p.name)]


def load_exercise(number: str) -> Exercise:
    names = exercise_names()
    matches = [n for n in names if n.startswith(number + "_")]
    if not matches:
        stepless = [p.name for p in exercise_dirs() if p.name.startswith(number + "_")]
        if stepless:
            raise UsageError("exercises/%s cannot be graded: there is no steps/%s_* to time "
                             "it against" % (stepless[0], number))
        known = " ".join(n[:2] for n in names)
        raise UsageError("no exercise %s: the exercises are %s" % (number, known))
    name = matches[0]
    path = ROOT / "exercises" / name / "grading.json"
    return Exercise(number, name, read_rules(path))


def read_rules(path: Path) -> dict:
    """Read and check an exercise's grading.json; any problem is one line naming it."""
    where = path.relative_to(ROOT)
    try:
        rules = json.loads(path.read_text())
    except OSError as e:
        raise UsageError("cannot read %s: %s" % (where, e.strerror)) from e
    except ValueError as e:
        raise UsageError("%s is not valid JSON: %s" % (where, e)) from e
    problem = rules_problem(rules)
    if problem:
        raise UsageError("%s: %s" % (where, problem))
    return rules


def rules_problem(rules) -> Optional[str]:
    """What is wrong with a grading.json document, or None."""
    if not isinstance(rules, dict):
        return "the document must be an object"
    floor = rules.get("floor")
    if not isinstance(floor, (int, float)) or not 0 < floor <= 10:
        return '"floor" must be a number above 0 (the lowest speed ratio to the reference)'
    for item in rules.get("technique", []):
        if not isinstance(item, dict) or not isinstance(item.get("what"), str):
            return 'every "technique" entry needs a "what" that says it in words'
        if item.get("check") not in TECHNIQUE_CHECKS:
            return '"check" must be one of %s, not %r' % (
                ", ".join(TECHNIQUE_CHECKS),
                item.get("check"),
            )
        if item["check"] == "instructions" and not isinstance(item.get("opcode"), str):
            return 'an "instructions" requirement needs an "opcode" (a regular expression)'
        for key in ("opcode", "operands", "function"):
            try:
                re.compile(item.get(key) or "")
            except re.error as e:
                return '"%s" of %r is not a regular expression: %s' % (key, item["what"], e)
    for item in rules.get("profile", []):
        if not isinstance(item, dict) or item.get("metric") not in PROFILE_METRICS:
            return '"metric" must be one of %s' % ", ".join(PROFILE_METRICS)
        if "min" not in item and "max" not in item:
            return 'a "profile" entry needs a "min" or a "max"'
    parameter = rules.get("parameter")
    if parameter is not None:
        if parameter.get("set_by") not in ("environment", "define"):
            return '"parameter"."set_by" must be "environment" or "define"'
        if not parameter.get("name") or not parameter.get("values"):
            return '"parameter" needs a "name" and a list of "values"'
    for key in ("sanitize_shapes", "grade_shapes"):
        for shape in rules.get(key, []):
            if not SHAPE_RE.match(str(shape)):
                return "%r in %s is not ROWSxCOLS[+OFFSET]" % (shape, key)
    return None


# ------------------------------------------------------------------ shapes


def shapes_for(tag: str) -> Tuple[List[str], str]:
    """The shapes with a tag, and where they came from.

    tools/shapes.sh TAG is the one list; tests/shapes.txt is read directly while that
    script does not exist yet, and the built-in list is used while neither has the tag.
    """
    script = ROOT / "tools" / "shapes.sh"
    if script.is_file():
        ran = run(["bash", str(script), tag], 60)
        if ran.rc != 0:
            raise EnvironmentProblem(
                "tools/shapes.sh %s failed: %s" % (tag, first_error_line(ran.text))
            )
        if ran.out.strip():
            return checked_shapes(ran.out.strip(), "tools/shapes.sh " + tag), (
                "tools/shapes.sh " + tag
            )
    table = ROOT / "tests" / "shapes.txt"
    if table.is_file():
        found = []
        for line in table.read_text().splitlines():
            fields = line.split("#", 1)[0].split()
            if len(fields) > 1 and tag in fields[1:]:
                found.append(fields[0])
        if found:
            source = "tests/shapes.txt, tag " + tag
            return checked_shapes(",".join(found), source), source
    return FALLBACK_SHAPES[tag].split(","), "the grader's built-in list"


def checked_shapes(text: str, source: str) -> List[str]:
    shapes = [s.strip() for s in text.split(",") if s.strip()]
    for shape in shapes:
        if not SHAPE_RE.match(shape):
            raise EnvironmentProblem("%s gave %r, not ROWSxCOLS[+OFFSET]" % (source, shape))
    return shapes


def shape_elements(shape: str) -> int:
    rows, cols = shape.split("+")[0].split("x")
    return int(rows) * int(cols)


# ------------------------------------------------------------------ what is graded


@dataclass
class Subject:
    """One file graded against one exercise, and where its build products go."""

    exercise: Exercise
    mode: str  # "tree" (exercises/), "solution" (solutions/) or "file" (anywhere)
    source: Path
    name: str  # the student's name in reports and CSV rows
    work: Optional[Path] = None  # private build folder ("file" mode and variants)

    @property
    def label(self) -> str:
        try:
            return str(self.source.relative_to(ROOT))
        except ValueError:
            return str(self.source)

    @property
    def copy(self) -> Path:
        """The private copy of the source that "file" mode compiles."""
        assert self.work is not None
        return self.work / (slug(self.source.stem) + ".cu")

    @property
    def obj(self) -> Path:
        if self.mode == "file":
            return self.copy.with_name(self.copy.name + ".o")
        part = "exercises" if self.mode == "tree" else "solutions"
        base = "exercise.cu" if self.mode == "tree" else "solution.cu"
        return BUILD_DIR / "obj" / part / self.exercise.name / (base + ".o")

    @property
    def program(self) -> Path:
        if self.mode == "file":
            assert self.work is not None
            return self.work / ("grade_" + self.exercise.number)
        suffix = "_solution" if self.mode == "solution" else ""
        return BUILD_DIR / ("grade_" + self.exercise.number + suffix)


def slug(text: str) -> str:
    """A name safe for a folder and for make: letters, digits, '.', '_' and '-'."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._") or "student"


def tree_subject(exercise: Exercise, solution: bool) -> Subject:
    if solution:
        source = ROOT / "solutions" / exercise.name / "solution.cu"
        return Subject(exercise, "solution", source, exercise.name)
    source = exercise.directory / "exercise.cu"
    return Subject(exercise, "tree", source, exercise.name)


def file_subject(exercise: Exercise, path: Path, name: str) -> Subject:
    work = WORK_DIR / ("%s-%s" % (slug(name), exercise.number))
    return Subject(exercise, "file", path, name, work)


def readable_file(path: Path) -> Path:
    if not path.is_file():
        raise UsageError("no such file: %s" % path)
    try:
        path.read_bytes()
    except OSError as e:
        raise UsageError("cannot read %s: %s" % (path, e.strerror)) from e
    return path


# ------------------------------------------------------------------ building


def make(args: List[str], timeout: float) -> Ran:
    """Run make on the repository's Makefile; a build gets at least BUILD_TIMEOUT seconds."""
    timeout = max(timeout, BUILD_TIMEOUT)
    cmd = [os.environ.get("MAKE") or "make", "--no-print-directory", "BUILD=" + BUILD]
    if os.environ.get("ARCH"):
        cmd.append("ARCH=" + os.environ["ARCH"])
    return run(cmd + args, timeout)


def make_path(path: Path) -> str:
    """A path as make should see it: relative to the repository when inside it."""
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


@dataclass
class Built:
    """The outcome of a build: ok, or why not (and whose fault)."""

    ok: bool
    why: str = ""
    output: str = ""


def prepare_copy(subject: Subject, text: str) -> None:
    """Write the private copy of a graded file into a fresh work folder."""
    assert subject.work is not None and WORK_DIR in subject.work.parents
    if subject.work.exists():
        shutil.rmtree(subject.work)
    subject.work.mkdir(parents=True)
    subject.copy.write_text(text)


def build(subject: Subject, timeout: float, object_only: bool) -> Built:
    """Compile the graded file, then (unless object_only) link its grader program.

    A compile error is the student's (Built.ok False); a grader program that fails to
    link for reasons outside the graded file means the repository is broken
    (EnvironmentProblem).
    """
    symbol = "exercise_" + subject.exercise.number
    if subject.mode == "file":
        if not re.search(r"\b%s\b" % symbol, subject.copy.read_text(errors="replace")):
            return Built(
                False,
                "does not define %s: start from the skeleton, exercises/%s/exercise.cu"
                % (symbol, subject.exercise.name),
            )
        variables = ["GRADE_EX=" + subject.exercise.number, "GRADE_SRC=" + make_path(subject.copy)]
        object_target, program_target = "grade-file-object", "grade-file"
    else:
        variables = []
        object_target, program_target = make_path(subject.obj), make_path(subject.program)
    ran = make(variables + [object_target], timeout)
    if ran.timed_out:
        return Built(False, "the compiler did not finish within %ds" % max(timeout, BUILD_TIMEOUT),
                     ran.text)
    if ran.rc != 0:
        return Built(False, "does not compile: " + compiler_error(ran.text, subject), ran.text)
    if object_only:
        return Built(True)
    ran = make(variables + [program_target], timeout)
    if ran.rc == 0:
        return Built(True)
    if ran.timed_out:
        raise EnvironmentProblem("building %s took more than %ds"
                                 % (program_target, max(timeout, BUILD_TIMEOUT)))
    if re.search(r"(undefined reference|multiple definition).*\b%s\b" % symbol, ran.text):
        message = "does not link: " + compiler_error(ran.text, subject)
        return Built(False, message, ran.text)
    raise EnvironmentProblem(
        "the grader program %s does not build, and not because of %s: %s"
        % (make_path(subject.program), subject.label, first_error_line(ran.text))
    )


def compiler_error(text: str, subject: Subject) -> str:
    """The compiler's first error, naming the student's file rather than its copy."""
    line = first_error_line(text)
    if subject.mode == "file":
        line = line.replace(make_path(subject.copy), subject.source.name)
        line = line.replace(str(subject.copy), subject.source.name)
    return line


# ------------------------------------------------------------------ verdicts


@dataclass
class Verdict:
    status: str  # PASS, FAIL or SKIP
    why: str
    details: List[str] = field(default_factory=list)
    stopped: bool = False  # the program had to be killed: do not run it again


@dataclass
class Grade:
    subject: Subject
    verdicts: Dict[str, Verdict] = field(default_factory=dict)
    ratio: Optional[float] = None

    @property
    def failed(self) -> bool:
        return any(v.status == "FAIL" for v in self.verdicts.values())

    @property
    def result(self) -> str:
        return "FAIL" if self.failed else "PASS"

    def reason(self) -> str:
        """Every FAIL's why; without a FAIL, what was skipped and why."""
        failed = ["%s: %s" % (k, v.why) for k, v in self.verdicts.items() if v.status == "FAIL"]
        if failed:
            return "; ".join(failed)
        skipped = ["%s (%s)" % (k, v.why) for k, v in self.verdicts.items() if v.status == "SKIP"]
        return ("skipped: " + "; ".join(skipped)) if skipped else ""


# ------------------------------------------------------------------ technique: SASS

INSTRUCTION_RE = re.compile(
    r"^\s*/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_.]*)\s*([^;]*);"
)


@dataclass
class Compiled:
    """What cuobjdump shows of an object, per SASS architecture (75 for sm_75)."""

    # arch -> function -> [(opcode, operands)] in address order
    code: Dict[int, Dict[str, List[Tuple[str, str]]]] = field(default_factory=dict)
    # arch -> function -> {"REG": .., "STACK": .., "SHARED": .., "LOCAL": ..}
    resources: Dict[int, Dict[str, Dict[str, int]]] = field(default_factory=dict)


def disassemble(cuobjdump: str, obj: Path, timeout: float) -> Compiled:
    compiled = Compiled()
    ran = run([cuobjdump, "-sass", obj], timeout, limit=LISTING_LIMIT)
    if ran.rc != 0:
        raise EnvironmentProblem("cuobjdump -sass %s failed: %s" % (obj, first_error_line(ran.text)))
    for arch, function, line in elf_sections(ran.out):
        match = INSTRUCTION_RE.match(line)
        if match and function:
            listing = compiled.code.setdefault(arch, {}).setdefault(function, [])
            listing.append((match.group(2), match.group(3).strip()))
        elif function:
            compiled.code.setdefault(arch, {}).setdefault(function, [])
    ran = run([cuobjdump, "-res-usage", obj], timeout, limit=LISTING_LIMIT)
    if ran.rc != 0:
        raise EnvironmentProblem(
            "cuobjdump -res-usage %s failed: %s" % (obj, first_error_line(ran.text))
        )
    for arch, function, line in elf_sections(ran.out):
        counts = dict(re.findall(r"\b([A-Z]+):(\d+)", line))
        if function and "SHARED" in counts:
            values = {k: int(v) for k, v in counts.items()}
            compiled.resources.setdefault(arch, {})[function] = values
    return compiled


def elf_sections(text: str):
    """(arch, function, line) for every line of cuobjdump's machine-code sections.

    PTX sections are skipped: only SASS says what the GPU runs. `function` is the
    function the line belongs to, or None before the first.
    """
    arch, function, in_elf = 0, None, False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("Fatbin"):
            in_elf, arch, function = stripped.startswith("Fatbin elf"), 0, None
            continue
        if not in_elf:
            continue
        match = re.match(r"arch = sm_(\d+)", stripped)
        if match:
            arch = int(match.group(1))
            continue
        match = re.match(r"Function\s*:?\s*(\S+?):?$", stripped)
        if match:
            function = match.group(1)
            continue
        yield arch, function, line


def opcode_parts(opcode: str) -> Tuple[str, set]:
    parts = opcode.split(".")
    return parts[0], set(parts[1:])


def matching(listing: List[Tuple[str, str]], rule: dict) -> List[str]:
    """The opcodes of a listing that an "instructions" requirement counts."""
    base_re = re.compile(rule["opcode"])
    with_all = set(rule.get("with", []))
    with_any = set(rule.get("with_any", []))
    without = set(rule.get("without", []))
    operands_re = re.compile(rule["operands"]) if rule.get("operands") else None
    found = []
    for opcode, operands in listing:
        base, modifiers = opcode_parts(opcode)
        if not base_re.fullmatch(base):
            continue
        if not with_all <= modifiers or (with_any and not with_any & modifiers):
            continue
        if without & modifiers:
            continue
        if operands_re and not operands_re.search(operands):
            continue
        found.append(opcode)
    return found


def tile_bytes(arch: int, shared: int) -> int:
    if arch >= RESERVED_SHARED_FROM_SM and shared >= RESERVED_SHARED_BYTES:
        return shared - RESERVED_SHARED_BYTES
    return shared


def functions_of(rule: dict, arch: int, compiled: Compiled):
    """(code, resources) of the functions a requirement looks at on one architecture:
    all of the file's, or with "function" those whose (mangled) name the regex finds."""
    functions = compiled.code.get(arch, {})
    resources = compiled.resources.get(arch, {})
    if rule.get("function"):
        name_re = re.compile(rule["function"])
        functions = {f: code for f, code in functions.items() if name_re.search(f)}
        resources = {f: r for f, r in resources.items() if name_re.search(f)}
    return functions, resources


def measure(rule: dict, arch: int, compiled: Compiled) -> Tuple[int, str]:
    """The number a requirement bounds on one architecture, and how it was found."""
    functions, resources = functions_of(rule, arch, compiled)
    if rule.get("function") and not functions and not resources:
        return -1, "no compiled function whose name matches %r" % rule["function"]
    check = rule["check"]
    if check == "instructions":
        found = [op for listing in functions.values() for op in matching(listing, rule)]
        return len(found), tally(found) or "none"
    if check == "shared_bytes":
        sizes = [tile_bytes(arch, r.get("SHARED", 0)) for r in resources.values()]
        return max(sizes, default=0), "%d bytes of shared memory" % max(sizes, default=0)
    if check == "no_local_memory":
        spills = [op for listing in functions.values() for op, _ in listing
                  if opcode_parts(op)[0] in ("LDL", "STL")]
        local = sum(r.get("LOCAL", 0) for r in resources.values())
        stack = sum(r.get("STACK", 0) for r in resources.values())
        found = "LOCAL:%d STACK:%d, %d LDL/STL" % (local, stack, len(spills))
        return local + stack + len(spills), found
    raise AssertionError(check)


def what_is_there(rule: dict, arch: int, compiled: Compiled) -> str:
    """For a missing instruction: the instructions of the same kind the code does have."""
    if rule["check"] != "instructions" or rule.get("min") is None:
        return ""
    base_re = re.compile(rule["opcode"])
    present = [op for listing in functions_of(rule, arch, compiled)[0].values() for op, _ in listing
               if base_re.fullmatch(opcode_parts(op)[0])]
    found = measure(rule, arch, compiled)[1]
    return " (the code has %s)" % tally(present) if present and tally(present) != found else ""


def tally(opcodes: List[str]) -> str:
    counts: Dict[str, int] = {}
    for op in opcodes:
        counts[op] = counts.get(op, 0) + 1
    return ", ".join("%d x %s" % (n, op) for op, n in sorted(counts.items()))


def bounds(rule: dict) -> Tuple[Optional[float], Optional[float]]:
    if rule.get("check") == "no_local_memory":
        return None, 0
    return rule.get("min"), rule.get("max")


def within(value: float, low: Optional[float], high: Optional[float]) -> bool:
    return (low is None or value >= low) and (high is None or value <= high)


def check_requirement(rule: dict, compiled: Compiled) -> Verdict:
    """One requirement on every SASS architecture of the object it applies to."""
    archs = sorted(a for a in compiled.code if a >= rule.get("min_sm", 0))
    if not archs:
        built = ", ".join("sm_%d" % a for a in sorted(compiled.code)) or "no machine code"
        return Verdict("SKIP", "%s: needs sm_%d or newer, this build has %s"
                       % (rule["what"], rule.get("min_sm", 0), built))
    low, high = bounds(rule)
    for arch in archs:
        value, found = measure(rule, arch, compiled)
        if value < 0 or not within(value, low, high):
            return Verdict("FAIL", "%s: found %s on sm_%d%s" % (
                rule["what"], found, arch, what_is_there(rule, arch, compiled)))
    value, found = measure(rule, archs[-1], compiled)
    return Verdict("PASS", "%s (sm_%d: %s)" % (rule["what"], archs[-1], found))


def check_compiled_code(subject: Subject, timeout: float) -> Verdict:
    """The SASS part of Technique: every requirement of grading.json."""
    rules = subject.exercise.rules.get("technique", [])
    if not rules:
        return Verdict("SKIP", "no requirements in exercises/%s/grading.json"
                       % subject.exercise.name)
    cuobjdump = find_tool("cuobjdump", "CUOBJDUMP")
    if cuobjdump is None:
        return Verdict("SKIP", "cuobjdump not found (it comes with the CUDA toolkit; "
                       "put it on PATH or set CUOBJDUMP)")
    compiled = disassemble(cuobjdump, subject.obj, timeout)
    if not compiled.code:
        return Verdict("FAIL", "the compiled file holds no kernel at all")
    results = [check_requirement(rule, compiled) for rule in rules]
    details = ["%s %s" % ({"PASS": "ok  ", "FAIL": "MISS", "SKIP": "skip"}[r.status], r.why)
               for r in results]
    failed = [r for r in results if r.status == "FAIL"]
    if failed:
        more = len(failed) - 1
        more_text = " (and %d more unmet requirement%s)" % (more, "s" if more > 1 else "") if more else ""
        return Verdict("FAIL", failed[0].why + more_text, details)
    met = sum(r.status == "PASS" for r in results)
    why = "%d of %d requirements met in the compiled code" % (met, len(results))
    if met < len(results):
        why += " (%d skipped)" % (len(results) - met)
    return Verdict("PASS", why, details)


# ------------------------------------------------------------------ technique: Nsight Compute


def simple_name(function: str) -> str:
    """transpose_float2 from _Z16transpose_float2PKfPfmm (what ncu's filter matches)."""
    match = re.match(r"_ZL?(\d+)", function)
    if not match:
        return function
    start = match.end()
    return function[start:start + int(match.group(1))]


def check_profile(subject: Subject, program: Path, timeout: float) -> Optional[Verdict]:
    """The counter part of Technique, or None when the exercise has none."""
    wanted = subject.exercise.rules.get("profile", [])
    if not wanted:
        return None
    ncu = find_tool("ncu", "NCU", ncu_candidates())
    if ncu is None:
        return Verdict("SKIP", "profile checks skipped: Nsight Compute (ncu) not found")
    metrics = sorted({m for item in wanted for m in PROFILE_METRICS[item["metric"]]})
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "ncu.csv"
        cmd = [ncu, "--clock-control", "none", "--csv", "--page", "raw", "--print-units",
               "base", "--kernel-name-base", "function", "--metrics", ",".join(metrics),
               "--log-file", log]
        names = kernel_names(subject, timeout)
        if names:
            cmd += ["--kernel-name", "regex:" + "|".join(re.escape(n) for n in names)]
        cmd += [program, "--check-only", "--variant", "student", "--shapes", PROFILE_SHAPE]
        ran = run(cmd, timeout)
        table = log.read_text(errors="replace") if log.is_file() else ""
    everything = "\n".join((table, ran.text))
    if "ERR_NVGPUCTRPERM" in everything:
        return Verdict("SKIP", "profile checks skipped: ncu may not read this GPU's "
                       "performance counters (ERR_NVGPUCTRPERM)")
    rows = parse_ncu_raw_csv(table)
    if ran.rc != 0 or not rows:
        return Verdict("SKIP", "profile checks skipped: ncu profiled nothing (exit %d: %s)"
                       % (ran.rc, first_error_line(everything)))
    totals = {m: sum(number(r.get(m)) for r in rows) for m in metrics}
    results = []
    for item in wanted:
        numerator, denominator = PROFILE_METRICS[item["metric"]]
        if totals[denominator] == 0:
            results.append(Verdict("FAIL", "%s: no such instruction ran" % item["what"]))
            continue
        ratio = totals[numerator] / totals[denominator]
        status = "PASS" if within(ratio, item.get("min"), item.get("max")) else "FAIL"
        results.append(Verdict(status, "%s: measured %.2f at %s"
                               % (item["what"], ratio, PROFILE_SHAPE)))
    details = ["%s %s" % ("ok  " if r.status == "PASS" else "MISS", r.why) for r in results]
    failed = [r for r in results if r.status == "FAIL"]
    if failed:
        return Verdict("FAIL", failed[0].why, details)
    return Verdict("PASS", "%d profile requirements met (ncu)" % len(results), details)


def kernel_names(subject: Subject, timeout: float) -> List[str]:
    cuobjdump = find_tool("cuobjdump", "CUOBJDUMP")
    if cuobjdump is None:
        return []
    compiled = disassemble(cuobjdump, subject.obj, timeout)
    return sorted({simple_name(f) for functions in compiled.code.values() for f in functions})


def number(text) -> float:
    try:
        return float(str(text).replace(",", ""))
    except (TypeError, ValueError):
        return 0.0


# ------------------------------------------------------------------ correctness


@dataclass
class Program:
    """A grader program to run, with the environment it runs in, and what it stands for."""

    path: Path
    label: str = ""  # "" for the default; "GRADE_BLOCK=16x16" for a parameter value
    env: Optional[Dict[str, str]] = None

    def where(self) -> str:
        return " with " + self.label if self.label else ""


def check_shapes(program: Program, shapes: List[str], timeout: float) -> Verdict:
    """The student's kernel on every shape, in one process (--check-only --shapes)."""
    cmd = [program.path, "--check-only", "--variant", "student", "--shapes", ",".join(shapes)]
    ran = run(cmd, timeout, program.env)
    results: Dict[str, Tuple[str, str]] = {}
    for line in ran.out.splitlines():
        match = CHECK_LINE_RE.match(line.strip())
        if match and match.group(3) == "student":
            results[match.group(4)] = (match.group(1), match.group(5) or "")
    missing = [s for s in shapes if s not in results]
    failed = [s for s in shapes if results.get(s, ("",))[0] == "FAIL"]
    at = program.where()
    if failed:
        first = failed[0]
        detail = results[first][1]
        more = " and %d more shape%s" % (len(failed) - 1, "s" if len(failed) > 2 else "") \
            if len(failed) > 1 else ""
        return Verdict("FAIL", "wrong result%s on %s%s%s" % (
            at, first, " (%s)" % detail if detail else "", more))
    shape = missing[0] if missing else shapes[-1]
    if ran.timed_out:
        return Verdict("FAIL", "did not finish within %ds%s on %s (an endless loop?)"
                       % (timeout, at, shape), stopped=True)
    if ran.rc == 2:
        raise EnvironmentProblem("%s rejected its command line (%s): is the harness older "
                                 "than tools/grade.py?" % (program.path, first_error_line(ran.err)))
    if ran.rc == 3 and DOES_NOT_FIT_RE.search(ran.err):
        raise EnvironmentProblem(first_error_line(ran.err))
    if missing or ran.rc != 0:
        return Verdict("FAIL", stopped_why(ran, shape + at))
    skipped = [s for s in shapes if results[s][0] == "SKIP"]
    if skipped:
        return Verdict("SKIP", "the kernel cannot run on this GPU: " + results[skipped[0]][1])
    return Verdict("PASS", "bit-exact on %d shapes%s" % (len(shapes), at))


def stopped_why(ran: Ran, where: str) -> str:
    """Why a program stopped before its verdict on a shape (the kernel's fault)."""
    if ran.rc == 3:
        return ("CUDA error on %s: %s (an out-of-bounds or misaligned access? memcheck "
                "names the line)" % (where, first_error_line(ran.err)))
    if ran.rc < 0:
        return "the program crashed (%s) on %s" % (signal_name(ran.rc), where)
    return "the program stopped (exit %d) before its verdict on %s: %s" % (
        ran.rc, where, first_error_line(ran.text))


def check_huge(program: Program, shape: str, timeout: float) -> Verdict:
    """The student's kernel past 2^31 elements, where the GPU and the host have room."""
    cmd = [program.path, "--check-only", "--variant", "student", "--shapes", shape]
    ran = run(cmd, timeout, program.env)
    if ran.rc == 3 and DOES_NOT_FIT_RE.search(ran.err):
        return Verdict("SKIP", "%s (%d elements) does not fit here: %s"
                       % (shape, shape_elements(shape), first_error_line(ran.err)))
    verdict = check_shapes_output(ran, shape, timeout)
    return verdict


def check_shapes_output(ran: Ran, shape: str, timeout: float) -> Verdict:
    for line in ran.out.splitlines():
        match = CHECK_LINE_RE.match(line.strip())
        if match and match.group(3) == "student" and match.group(4) == shape:
            status, detail = match.group(1), match.group(5) or ""
            if status == "FAIL":
                return Verdict("FAIL", "wrong result on %s (%s)" % (shape, detail))
            if status == "SKIP":
                return Verdict("SKIP", "%s: %s" % (shape, detail))
            return Verdict("PASS", "bit-exact on %s (%d elements)"
                           % (shape, shape_elements(shape)))
    if ran.timed_out:
        return Verdict("FAIL", "did not finish within %ds on %s" % (timeout, shape),
                       stopped=True)
    return Verdict("FAIL", stopped_why(ran, shape))


# ------------------------------------------------------------------ sanitizers


@dataclass
class SanitizerFinding:
    header: str
    lines: List[str]

    @property
    def text(self) -> str:
        return " ".join([self.header] + self.lines)


SANITIZER_NOISE = (
    "COMPUTE-SANITIZER",
    "ERROR SUMMARY",
    "RACECHECK SUMMARY",
    "LEAK SUMMARY",
    "Target application returned",
)


def sanitizer_records(text: str) -> List[SanitizerFinding]:
    """compute-sanitizer's reports: a header line, then its indented lines."""
    records: List[SanitizerFinding] = []
    for line in text.splitlines():
        if not line.startswith("========="):
            continue
        body = line[len("========="):]
        if not body.strip():
            continue
        if body.startswith("  ") and records:
            if not body.strip().startswith(("Host Frame:", "Saved host backtrace")):
                records[-1].lines.append(body.strip())
        else:
            records.append(SanitizerFinding(body.strip(), []))
    return [r for r in records if not r.header.startswith(SANITIZER_NOISE)]


def summary_count(text: str) -> int:
    """Hazards or errors the summary lines count (racecheck warnings included)."""
    total = 0
    for match in re.finditer(r"(?:RACECHECK|ERROR) SUMMARY: (\d+)", text):
        total += int(match.group(1))
    return total


def locations(text: str) -> List[str]:
    return ["%s:%s" % (os.path.basename(f), n) for f, n in SOURCE_LOCATION_RE.findall(text)]


def describe_finding(tool: str, finding: SanitizerFinding) -> str:
    """One line: what the tool found and at which lines of the source."""
    header = re.sub(r"^(?:Error|Warning|ERROR|WARNING):\s*", "", finding.header)
    whole = finding.text
    if tool == "racecheck":
        accesses = re.findall(r"(Read|Write)\b[^;]*?\bin (\S+?\.(?:cu|cuh|h)):(\d+)",
                              whole.replace(" and ", " ; "))
        sides = ["%s at %s:%s" % (kind, os.path.basename(f), n) for kind, f, n in accesses]
        hazards = re.search(r"\[(\d+) hazards?\]", whole)
        kind = re.search(r"Potential (\w+) hazard", header)
        what = ("%s hazard" % kind.group(1)) if kind else "race"
        count = " (%s hazards)" % hazards.group(1) if hazards else ""
        between = " between " + " and ".join(dict.fromkeys(sides)) if sides else ""
        return "racecheck: shared-memory %s%s%s: a missing __syncthreads()?" % (
            what, between, count)
    where = locations(whole)
    place = " at " + where[0] if where else ""
    header = re.sub(r"\s+at\s+.*$", "", header) if where else header
    extra = ""
    if tool == "memcheck" and "out of bounds" in whole:
        extra = " (out of bounds)"
    return "%s: %s%s%s" % (tool, header.rstrip(".:"), place, extra)


def shorten(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 3] + "..."


def pick_finding(records: List[SanitizerFinding]) -> Optional[SanitizerFinding]:
    """The record to show: a race analysis, else one that names a source line."""
    if not records:
        return None
    for record in records:
        if "Race reported" in record.header:
            return record
    for record in records:
        if locations(record.text) and not record.header.startswith("Program hit"):
            return record
    return records[0]


def run_sanitizer(tool: str, program: Program, shapes: List[str], timeout: float,
                  correct: bool = True) -> Verdict:
    """One tool on the student's kernel. A wrong result under the tool points to a race
    only when the kernel was right without it (@p correct); otherwise Correctness
    has already said so, and this check judges only what the tool itself reports."""
    sanitizer = find_tool("compute-sanitizer", "COMPUTE_SANITIZER")
    assert sanitizer is not None
    cmd = [sanitizer, "--tool", tool] + TOOL_OPTIONS.get(tool, [])
    cmd += ["--error-exitcode", str(SANITIZER_EXIT), "--print-limit", "20"]
    cmd += [program.path, "--check-only", "--variant", "student", "--shapes", ",".join(shapes)]
    ran = run(cmd, timeout, program.env)
    records = sanitizer_records(ran.text)
    found = pick_finding(records)
    at = program.where()
    if found is not None and (summary_count(ran.text) > 0 or ran.rc == SANITIZER_EXIT
                              or "hazard" in found.text or "Race" in found.header):
        return Verdict("FAIL", describe_finding(tool, found) + at,
                       [shorten(r.text, 240) for r in records[:3]])
    if ran.timed_out:
        return Verdict("FAIL", "%s: did not finish within %ds%s" % (tool, timeout, at))
    if ran.rc == SANITIZER_EXIT or summary_count(ran.text) > 0:
        return Verdict("FAIL", "%s reported errors%s: %s" % (tool, at, first_error_line(ran.text)))
    if ran.rc == 1 and correct:
        return Verdict("FAIL", "%s: wrong result under the tool%s (a result that depends on "
                       "timing: a race?)" % (tool, at))
    if ran.rc == 1:
        return Verdict("PASS", "%s: no errors reported%s (the result is wrong, as Correctness "
                       "says)" % (tool, at))
    if ran.rc != 0:
        return Verdict("FAIL", "%s: the program stopped (exit %d)%s: %s"
                       % (tool, ran.rc, at, first_error_line(ran.err)))
    return Verdict("PASS", "%s clean%s" % (tool, at))


SANITIZER_WORKS: Dict[str, Optional[str]] = {}  # "" once it ran the reference cleanly


def sanitizer_problem(program: Path, timeout: float) -> Optional[str]:
    """Why compute-sanitizer cannot judge here, or None; asked once per grader run.

    It must run the reference solution on 1x1 cleanly: a tool that cannot do that
    would blame every student for its own trouble.
    """
    if "answer" in SANITIZER_WORKS:
        return SANITIZER_WORKS["answer"]
    sanitizer = find_tool("compute-sanitizer", "COMPUTE_SANITIZER")
    if sanitizer is None:
        answer: Optional[str] = ("compute-sanitizer not found (it comes with the CUDA "
                                 "toolkit; put it on PATH or set COMPUTE_SANITIZER)")
    else:
        ran = run([sanitizer, "--tool", "memcheck", "--error-exitcode", str(SANITIZER_EXIT),
                   program, "--check-only", "--variant", "reference", "--shapes", "1x1"],
                  timeout)
        answer = None
        if ran.rc != 0:
            answer = "compute-sanitizer cannot run the reference solution here (exit %d: %s)" % (
                ran.rc, first_error_line(ran.text))
    SANITIZER_WORKS["answer"] = answer
    return answer


# ------------------------------------------------------------------ speed


@dataclass
class Timing:
    ratio: float
    lines: List[str]


def time_once(program: Path, shape: str, timeout: float) -> Union[Timing, Verdict]:
    """One timed run of student, reference and step on the same buffers."""
    ran = run([program, "--csv", "--shapes", shape], timeout)
    if ran.timed_out:
        return Verdict("FAIL", "the timed run at %s did not finish within %ds"
                       % (shape, timeout), stopped=True)
    if ran.rc == 3 and DOES_NOT_FIT_RE.search(ran.err):
        return Verdict("SKIP", "the timed shape %s does not fit here: %s"
                       % (shape, first_error_line(ran.err)))
    rows = graded_rows(ran.out)
    if "student" not in rows or ran.rc not in (0, 1):
        return Verdict("FAIL", "timed run: " + stopped_why(ran, shape))
    if rows["student"]["check"] != "PASS":
        return Verdict("FAIL", "wrong result in the timed run at %s" % shape)
    for other in GRADED_KERNELS[1:]:
        if other not in rows or rows[other]["check"] != "PASS":
            # The machine was confirmed with the reference, so yours broke it: a write
            # outside `out` can land in the input the others read next.
            return Verdict("FAIL", "the %s kernel went wrong after yours ran at %s: does "
                           "your kernel write outside `out`?" % (other, shape))
    student_ms = result_files.number(rows["student"]["median_ms"])
    reference_ms = result_files.number(rows["reference"]["median_ms"])
    if not student_ms or not reference_ms or student_ms <= 0 or reference_ms <= 0:
        raise EnvironmentProblem("the timed run at %s printed no times" % shape)
    lines = ["%-9s %9.4f ms %8s GB/s %7s %% of copy" % (
        k, result_files.number(rows[k]["median_ms"]) or 0.0, rows[k]["gbps"] or "-",
        rows[k]["pct_of_copy"] or "-") for k in GRADED_KERNELS]
    return Timing(reference_ms / student_ms, lines)


# The kernels of a grader program (tools/grade_main.cu), the graded one first.
GRADED_KERNELS = ("student", "reference", "step")


def graded_rows(text: str) -> Dict[str, dict]:
    """The rows of student, reference and step in a --csv run, by kernel name.

    tools/results.py reads the run as it reads every results file: by column name,
    after checking that every column of the layout is there and every role is known.
    Output it cannot read (no header, a missing column) gives no rows.
    """
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "run.csv")
        with open(path, "w") as f:
            f.write(text)
        try:
            rows = result_files.load_bench(path)
        except result_files.ResultsError:
            return {}
    return {row["kernel"]: row for row in result_files.kernel_rows(rows)
            if row["kernel"] in GRADED_KERNELS}


def ratio_text(ratio: float) -> str:
    """2 decimals, or 2 significant digits below 0.1 (0.0026x, not 0.00x)."""
    return "%.2fx" % ratio if ratio >= 0.1 else "%.2gx" % ratio


def check_speed(subject: Subject, program: Path, shape: str, timeout: float) -> Tuple[
        Verdict, Optional[float]]:
    floor = subject.exercise.floor
    best: Optional[Timing] = None
    for attempt in range(SPEED_ATTEMPTS):
        if attempt:
            progress("below the floor: timing again (%d of %d)" % (attempt + 1, SPEED_ATTEMPTS))
        outcome = time_once(program, shape, timeout)
        if isinstance(outcome, Verdict):
            return outcome, None
        if best is None or outcome.ratio > best.ratio:
            best = outcome
        if best.ratio >= floor:
            break
    assert best is not None
    details = best.lines + ["ratio = reference time / your time; floor %.2fx (%s)"
                            % (floor, "exercises/%s/grading.json" % subject.exercise.name)]
    if best.ratio >= floor:
        return Verdict("PASS", "%s the reference (floor %.2fx) at %s"
                       % (ratio_text(best.ratio), floor, shape), details), best.ratio
    return Verdict("FAIL", "correct but too slow (%s the reference, floor %.2fx) at %s, "
                   "best of %d runs" % (ratio_text(best.ratio), floor, shape, SPEED_ATTEMPTS),
                   details), best.ratio


# ------------------------------------------------------------------ parameters


def parameter_programs(subject: Subject, timeout: float) -> Tuple[List[Program], Optional[str]]:
    """The grader programs for the other values of the exercise's parameter.

    Returns (programs, why not) where `why not` is a FAIL reason (a value that does not
    compile, or a file without the #define to change).
    """
    parameter = subject.exercise.parameter
    if not parameter:
        return [], None
    name, values = parameter["name"], [str(v) for v in parameter["values"]]
    if parameter["set_by"] == "environment":
        programs = []
        for value in values:
            env = dict(os.environ)
            env[name] = value
            programs.append(Program(subject.program, "%s=%s" % (name, value), env))
        return programs, None
    text = subject.source.read_text(errors="replace")
    if subject.mode == "solution":
        number_ = subject.exercise.number
        text = re.sub(r"\bsolution_%s\b" % number_, "exercise_" + number_, text)
    programs = []
    for value in values:
        changed = with_define(text, name, value)
        if changed is None:
            return [], "the file has no `#define %s` to change; the task asks the kernel to " \
                       "depend on it only through that constant" % name
        base = subject.work or WORK_DIR / ("%s-%s" % (subject.mode, subject.exercise.number))
        variant = Subject(subject.exercise, "file", subject.source, subject.name,
                          base / ("%s-%s" % (slug(name), slug(value))))
        prepare_copy(variant, changed)
        progress("building with %s=%s" % (name, value))
        built = build(variant, timeout, object_only=False)
        if not built.ok:
            return [], "with %s=%s: %s" % (name, value, built.why)
        programs.append(Program(variant.program, "%s=%s" % (name, value)))
    return programs, None


def with_define(text: str, name: str, value: str) -> Optional[str]:
    pattern = re.compile(r"^([ \t]*#[ \t]*define[ \t]+%s[ \t]+)(\S+)" % re.escape(name), re.M)
    changed, count = pattern.subn(lambda m: m.group(1) + value, text)
    return changed if count else None


# ------------------------------------------------------------------ grading one subject


@dataclass
class Options:
    timeout: float
    timed_shape: str
    technique_only: bool = False
    build_only: bool = False
    no_huge: Optional[str] = None  # why the huge shape is not checked ("--no-huge"), or None
    quick: bool = False  # no sanitizers after a Correctness FAIL

    @property
    def needs_gpu(self) -> bool:
        return not (self.technique_only or self.build_only)


def grade(subject: Subject, options: Options) -> Grade:
    """All four checks of one file. The student's faults are FAILs, never exceptions."""
    result = Grade(subject)
    verdicts = result.verdicts
    timeout = options.timeout
    if options.needs_gpu:
        confirm_machine(subject.exercise, timeout)
    if subject.mode == "file":
        prepare_copy(subject, subject.source.read_text(errors="replace"))
    progress("building %s" % subject.label)
    built = build(subject, timeout, object_only=options.technique_only)
    if not built.ok:
        verdicts["Correctness"] = Verdict("FAIL", built.why, compiler_lines(built.output))
        for check in CHECKS[1:]:
            verdicts[check] = Verdict("SKIP", "nothing to check: it does not build")
        return result
    if options.build_only:
        return built_only(subject, timeout)
    progress("reading the compiled code")
    technique = check_compiled_code(subject, timeout)
    if options.technique_only:
        for check in ("Correctness", "Sanitizers", "Speed"):
            verdicts[check] = Verdict("SKIP", "--technique-only")
        verdicts["Technique"] = technique
        return ordered(result)

    program = Program(subject.program)
    others, others_why_not = parameter_programs(subject, timeout)
    verdicts["Correctness"] = correctness(program, others, others_why_not, timeout,
                                          options.no_huge,
                                          subject.exercise.rules.get("grade_shapes", []))
    if verdicts["Correctness"].stopped:
        verdicts["Sanitizers"] = Verdict("SKIP", "not run: the kernel did not finish")
    elif options.quick and verdicts["Correctness"].status == "FAIL":
        verdicts["Sanitizers"] = Verdict("SKIP", "--quick: not run after Correctness FAILed")
    else:
        verdicts["Sanitizers"] = sanitizers(subject, program, others, timeout,
                                            verdicts["Correctness"].status == "PASS")
    correct = verdicts["Correctness"].status == "PASS"
    if technique.status == "PASS" and correct:
        progress("profiling with Nsight Compute")
        profiled = check_profile(subject, program.path, timeout)
        if profiled is not None:
            technique = merge_technique(technique, profiled)
    verdicts["Technique"] = technique
    if correct:
        progress("timing at %s" % options.timed_shape)
        verdicts["Speed"], result.ratio = check_speed(subject, program.path,
                                                      options.timed_shape, timeout)
    else:
        verdicts["Speed"] = Verdict("SKIP", "a kernel that is not correct is not timed")
    return ordered(result)


def built_only(subject: Subject, timeout: float) -> Grade:
    """--build-only: the grader program is built; so are the parameter's other values."""
    result = Grade(subject)
    others, why_not = parameter_programs(subject, timeout)
    if why_not:
        result.verdicts["Correctness"] = Verdict("FAIL", why_not)
    else:
        why = "--build-only: built %s" % make_path(subject.program)
        rebuilt = [o.label for o in others if o.path != subject.program]
        if rebuilt:
            why += ", and again with %s" % ", ".join(rebuilt)
        result.verdicts["Correctness"] = Verdict("SKIP", why)
    for check in CHECKS[1:]:
        result.verdicts[check] = Verdict("SKIP", "--build-only")
    return result


def ordered(result: Grade) -> Grade:
    result.verdicts = {k: result.verdicts[k] for k in CHECKS if k in result.verdicts}
    return result


def compiler_lines(output: str) -> List[str]:
    lines = [line for line in output.splitlines() if line.strip()
             and not line.startswith(("make", "  NVCC", "  LINK", "  CC", "  AR"))]
    return lines[:20]


CONFIRMED: Dict[str, Path] = {}  # exercise number -> its reference grader program


def confirm_machine(exercise: Exercise, timeout: float) -> Path:
    """Build the reference's grader program and make it pass on 1x1, once per exercise.

    Everything that fails after this is the graded file's doing; anything that fails
    here is the machine's or the repository's (EnvironmentProblem).
    """
    if exercise.number in CONFIRMED:
        return CONFIRMED[exercise.number]
    program = BUILD_DIR / ("grade_%s_solution" % exercise.number)
    progress("building %s" % make_path(program))
    built = make([make_path(program)], timeout)
    if built.rc != 0:
        raise EnvironmentProblem("the reference grader %s does not build: %s"
                                 % (make_path(program), first_error_line(built.text)))
    ran = run([program, "--check-only", "--variant", "reference", "--shapes", "1x1"], timeout)
    if ran.rc == 3:
        raise EnvironmentProblem(first_error_line(ran.err))
    if ran.rc == 2:
        raise EnvironmentProblem("%s rejected --shapes (%s): is the harness older than "
                                 "tools/grade.py?" % (make_path(program), first_error_line(ran.err)))
    if ran.rc != 0:
        raise EnvironmentProblem("the reference solution of exercise %s fails on 1x1 (exit %d): "
                                 "the repository is broken" % (exercise.number, ran.rc))
    CONFIRMED[exercise.number] = program
    return program


def correctness(program: Program, others: List[Program], others_why_not: Optional[str],
                timeout: float, no_huge: Optional[str], own: Optional[List[str]] = None) -> Verdict:
    """The graded shapes (and the exercise's own, @p own), the huge shape, then the
    parameter's other values."""
    shapes, source = shapes_for("grade")
    own = [s for s in own or [] if s not in shapes]
    if own:
        shapes, source = shapes + own, source + ", then the exercise's own"
    progress("checking %d shapes (%s)" % (len(shapes), source))
    main = check_shapes(program, shapes, timeout)
    if main.status != "PASS":
        return main
    details = ["%s (%s): %s" % (main.why, source, ", ".join(shapes))]
    notes = []
    for shape in shapes_for("huge")[0]:
        if no_huge:
            details.append("SKIP %s: %s" % (shape, no_huge))
            notes.append("%s SKIPPED (%s)" % (shape, no_huge))
            continue
        progress("checking %s" % shape)
        verdict = check_huge(program, shape, timeout)
        if verdict.status == "FAIL":
            return Verdict("FAIL", verdict.why, details, verdict.stopped)
        details.append("%s %s" % (verdict.status, verdict.why))
        notes.append("%s %s" % (shape, "too" if verdict.status == "PASS"
                                else "SKIPPED (does not fit here)"))
    if others_why_not:
        return Verdict("FAIL", others_why_not, details)
    for other in others:
        progress("checking %d shapes%s" % (len(shapes), other.where()))
        verdict = check_shapes(other, shapes, timeout)
        if verdict.status != "PASS":
            return Verdict(verdict.status, verdict.why, details, verdict.stopped)
        details.append(verdict.why)
    if others:
        notes.append("also " + ", ".join(o.label for o in others))
    return Verdict("PASS", "; ".join([main.why] + notes), details)


def sanitizers(subject: Subject, program: Program, others: List[Program],
               timeout: float, correct: bool = True) -> Verdict:
    problem = sanitizer_problem(CONFIRMED[subject.exercise.number], timeout)
    if problem:
        return Verdict("SKIP", problem)
    shapes, source = shapes_for("sanitize")
    shapes = shapes + [s for s in subject.exercise.rules.get("sanitize_shapes", [])
                       if s not in shapes]
    parameter = subject.exercise.parameter or {}
    runs = [(tool, program) for tool in SANITIZER_TOOLS]
    for other in others:
        runs += [(tool, other) for tool in parameter.get("sanitize_tools", SANITIZER_TOOLS)]
    details = []
    for tool, prog in runs:
        progress("%s%s" % (tool, prog.where()))
        verdict = run_sanitizer(tool, prog, shapes, timeout, correct)
        if verdict.status == "FAIL":
            return verdict
        details.append(verdict.why)
    why = "%s clean on %d shapes" % (", ".join(SANITIZER_TOOLS), len(shapes))
    if others:
        why += "; %s also at %s" % (", ".join(parameter.get("sanitize_tools", SANITIZER_TOOLS)),
                                    ", ".join(o.label for o in others))
    return Verdict("PASS", why, details + ["shapes (%s, then the exercise's own): %s"
                                           % (source, ", ".join(shapes))])


def merge_technique(sass: Verdict, profiled: Verdict) -> Verdict:
    details = sass.details + profiled.details
    if profiled.status == "FAIL":
        return Verdict("FAIL", profiled.why, details)
    return Verdict("PASS", "%s; %s" % (sass.why, profiled.why), details)


# ------------------------------------------------------------------ reports


def print_report(result: Grade, title: str) -> None:
    print("== %s" % title)
    for check, verdict in result.verdicts.items():
        print("  %-12s %-4s  %s" % (check, verdict.status, verdict.why))
        for line in verdict.details:
            print("  %-12s %-4s    %s" % ("", "", line))
    print("RESULT %s: %s" % (result.subject.name, result.result))
    print()
    sys.stdout.flush()


def print_summary(results: List[Grade], heading: str) -> None:
    print("== Summary: %s" % heading)
    print("%-22s %-11s %-10s %-9s %-5s %7s  %s" % (
        "", "correctness", "sanitizers", "technique", "speed", "ratio", "result"))
    for r in results:
        v = r.verdicts
        ratio = ratio_text(r.ratio) if r.ratio is not None else "-"
        print("%-22s %-11s %-10s %-9s %-5s %7s  %s" % (
            r.subject.name[:22], v["Correctness"].status, v["Sanitizers"].status,
            v["Technique"].status, v["Speed"].status, ratio, r.result))


CSV_COLUMNS = ("name", "correctness", "sanitizers", "technique", "speed", "speed_ratio",
               "reason")


def csv_row(result: Grade) -> dict:
    v = result.verdicts
    return {
        "name": result.subject.name,
        "correctness": v["Correctness"].status,
        "sanitizers": v["Sanitizers"].status,
        "technique": v["Technique"].status,
        "speed": v["Speed"].status,
        "speed_ratio": "%.3g" % result.ratio if result.ratio is not None else "",
        "reason": result.reason(),
    }


# ------------------------------------------------------------------ command line


class Parser(argparse.ArgumentParser):
    """argparse, but a bad command line is one line on stderr and exit code 2."""

    def error(self, message):
        raise UsageError("%s (see tools/grade.py --help)" % message)


def parse_args(argv: List[str]) -> argparse.Namespace:
    parser = Parser(prog="tools/grade.py", add_help=False)
    parser.add_argument("-h", "--help", action="store_true")
    parser.add_argument("exercise", nargs="?", help="exercise number, e.g. 05")
    parser.add_argument("--all", action="store_true", help="every exercise")
    parser.add_argument("--solution", action="store_true",
                        help="grade the reference solution as if it were the student's")
    parser.add_argument("--file", type=Path, help="grade this file (a student's exercise.cu)")
    parser.add_argument("--batch", type=Path, help="grade DIR/*.cu, one file per student")
    parser.add_argument("--csv", type=Path, help="with --batch: write one row per student here")
    parser.add_argument("--technique-only", action="store_true",
                        help="only the checks of the compiled code (no GPU needed)")
    parser.add_argument("--build-only", action="store_true",
                        help="only build the grader programs (no GPU, no cuobjdump needed)")
    parser.add_argument("--list", action="store_true", help="list the exercises found")
    parser.add_argument("--timeout", default="300", help="seconds per program run (default 300)")
    parser.add_argument("--no-huge", action="store_true")
    parser.add_argument("--quick", action="store_true",
                        help="the self-test's pace: --no-huge, no sanitizers after a Correctness FAIL")
    parser.add_argument("--shape", default=os.environ.get("GRADE_SHAPE") or DEFAULT_TIMED_SHAPE,
                        help="the timed shape ROWSxCOLS (default 8192x8192)")
    args = parser.parse_args(argv)
    if args.help:
        return args
    if args.list:
        if len(argv) > 1:
            raise UsageError("--list takes nothing else (see tools/grade.py --help)")
        return args
    if args.technique_only and args.build_only:
        raise UsageError("--technique-only and --build-only cannot be combined "
                         "(see tools/grade.py --help)")
    if args.all and args.exercise:
        raise UsageError("give an exercise number or --all, not both (see tools/grade.py --help)")
    if not args.all and not args.exercise:
        raise UsageError("say which exercise (e.g. 05) or --all (see tools/grade.py --help)")
    if args.exercise is not None:
        if not re.fullmatch(r"[0-9]{1,2}", args.exercise):
            raise UsageError("not an exercise number: %s (see tools/grade.py --help)"
                             % args.exercise)
        args.exercise = "%02d" % int(args.exercise)
    given = [flag for flag, on in (("--file", args.file), ("--batch", args.batch),
                                   ("--solution", args.solution)) if on]
    if len(given) > 1:
        raise UsageError("%s cannot be combined (see tools/grade.py --help)" % " and ".join(given))
    if args.all and (args.file or args.batch):
        raise UsageError("--file and --batch grade one exercise: give its number, not --all")
    if bool(args.batch) != bool(args.csv):
        raise UsageError("--batch DIR and --csv OUT.csv go together (see tools/grade.py --help)")
    if not re.fullmatch(r"[1-9][0-9]*", args.timeout):
        raise UsageError("--timeout must be a whole number of seconds, not %r" % args.timeout)
    args.timeout = int(args.timeout)
    if not re.fullmatch(r"[1-9][0-9]*x[1-9][0-9]*", args.shape):
        raise UsageError("the timed shape must be ROWSxCOLS, not %r" % args.shape)
    return args


def batch_files(directory: Path) -> List[Path]:
    if not directory.is_dir():
        raise UsageError("no such directory: %s" % directory)
    files = sorted(p for p in directory.glob("*.cu") if p.is_file())
    if not files:
        raise UsageError("no .cu files in %s" % directory)
    for path in files:
        readable_file(path)
    return files


def require_gpu(timeout: float) -> str:
    """The GPU's name, or EnvironmentProblem with the probe's one line."""
    probe = BUILD_DIR / "tools" / "gpu_probe"
    if not os.access(probe, os.X_OK):
        built = make([make_path(probe)], timeout)
        if built.rc != 0:
            raise EnvironmentProblem("cannot build %s to look for a GPU: %s"
                                     % (make_path(probe), first_error_line(built.text)))
    ran = run([probe], 60)
    if ran.rc != 0:
        raise EnvironmentProblem(first_error_line(ran.err or ran.out))
    return ran.out.strip()


def main(argv: List[str]) -> int:
    args = parse_args(argv)
    if args.help:
        print(__doc__.strip())
        return 0
    if args.list:
        for name in exercise_names():
            print(name)
        return 0
    no_huge = "--no-huge" if args.no_huge else "--quick" if args.quick else None
    options = Options(args.timeout, args.shape, args.technique_only, args.build_only,
                      no_huge, args.quick)
    exercises = ([load_exercise(n[:2]) for n in exercise_names()] if args.all
                 else [load_exercise(args.exercise)])
    if args.file:
        subjects = [file_subject(exercises[0], readable_file(args.file), args.file.stem)]
    elif args.batch:
        subjects = [file_subject(exercises[0], f, f.stem) for f in batch_files(args.batch)]
        if args.csv.parent and not args.csv.parent.is_dir():
            raise UsageError("no such directory for --csv: %s" % args.csv.parent)
    else:
        subjects = [tree_subject(e, args.solution) for e in exercises]
    if args.technique_only:
        if find_tool("cuobjdump", "CUOBJDUMP") is None:
            raise EnvironmentProblem("cuobjdump not found: it comes with the CUDA toolkit; "
                                     "put it on PATH or set CUOBJDUMP")
        heading = "technique only, no GPU used"
    elif args.build_only:
        heading = "build only, no GPU used"
    else:
        gpu = require_gpu(args.timeout)
        heading = "%s; speed timed at %s" % (gpu, args.shape)
    writer = None
    out = open(args.csv, "w", newline="") if args.csv else None
    try:
        if out is not None:
            writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS)
            writer.writeheader()
        grades = []
        for subject in subjects:
            result = grade(subject, options)
            grades.append(result)
            title = "%s, exercise %s: %s" % (subject.name, subject.exercise.name, subject.label)
            if subject.mode != "file":
                title = "%s: %s" % (subject.exercise.name, subject.label)
            print_report(result, title)
            if writer is not None and out is not None:
                writer.writerow(csv_row(result))
                out.flush()
    finally:
        if out is not None:
            out.close()
    if len(grades) > 1:
        print_summary(grades, heading)
    if args.csv:
        print("wrote %s (%d rows)" % (args.csv, len(grades)))
    return 1 if any(r.failed for r in grades) else 0


def entry() -> int:
    try:
        return main(sys.argv[1:])
    except UsageError as e:
        sys.stderr.write("error: %s\n" % e)
        return 2
    except EnvironmentProblem as e:
        sys.stderr.write("error: %s\n" % e)
        return 3
    except KeyboardInterrupt:
        sys.stderr.write("error: interrupted\n")
        return 130


if __name__ == "__main__":
    sys.exit(entry())
