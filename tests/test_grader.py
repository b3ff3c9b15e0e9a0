"""The grader, python3 -m lab.grade (docs/grading.md, "Checking the grader"), and the reference timings' hashes.

Each test has its own GRADE_WORK; GRADER_TEST_TIMEOUT (default 120) is the grader's --timeout.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from conftest import ROOT, assert_exit, clean_env, first_lines, host_memory, make_command, one_error_line, run
from lab import grade as grader
from lab import machine, reference, results, schema, tables
from lab.compiled import Compiled, calls_outside
from lab.grade import (CHECKS, Program, describe_finding, exercise_names, find_tool, graded_rows, pick_finding,
                       run_sanitizer, sanitizer_records)

pytestmark = pytest.mark.exercises

EXERCISES = exercise_names()
PLANTED_DIR = ROOT / "tests" / "graded_wrong"
# Each planted file's first line, by name: `// Caught by: CHECK (why)`; with "Nsight Compute", only counters catch it
PLANTED = {p.stem: p.read_text().split("\n", 1)[0] for p in sorted(PLANTED_DIR.glob("*.cu")) if p.is_file()}
TIMEOUT = os.environ.get("GRADER_TEST_TIMEOUT", "120")  # the grader's --timeout, per program run
CAUGHT_BY_RE = re.compile(r"^// Caught by: ([A-Za-z]+) \(.+\)$")
HAVE_CUOBJDUMP = find_tool("cuobjdump", "CUOBJDUMP") is not None
HAVE_NCU = find_tool("ncu", "NCU") is not None
NO_GPU_MODE = "--technique-only" if HAVE_CUOBJDUMP else "--build-only"  # what the grader can do without a GPU
solution_ids = "solution-{:.2}".format  # the tests' ids: solution-05, skeleton-05, planted-05_scalar_loads
skeleton_ids = "skeleton-{:.2}".format
planted_ids = "planted-{}".format


def caught_by(name: str) -> str:
    """The check a planted file's first line names, or ''."""
    return next(iter(CAUGHT_BY_RE.findall(PLANTED[name])), "")


def skeleton_untouched(name: str) -> bool:
    """An exercise file that still has its TODO (a solved exercise usually loses it)."""
    return "TODO(exercise" in (ROOT / "exercises" / name / "exercise.cu").read_text()


def grade(*args: str, work: Path, **env: str) -> subprocess.CompletedProcess:
    """python3 -m lab.grade ARGS, for an hour at most; its private copies in `work` (GRADE_WORK)."""
    return run([sys.executable, "-m", "lab.grade", *args], timeout=3600, GRADE_WORK=str(work), **env)


def verdicts(report: str) -> dict[str, tuple[str, str]]:
    """{check: (PASS/FAIL/SKIP, its line of why)} of a report: each check's first line."""
    found: dict[str, tuple[str, str]] = {}
    for fields in (line.split(maxsplit=2) for line in report.splitlines()):
        if len(fields) >= 2 and fields[0] in CHECKS:
            found.setdefault(fields[0], (fields[1], fields[2] if len(fields) > 2 else ""))
    return found


def grader_error(result: subprocess.CompletedProcess) -> str:
    """The grader's own error line, or the end of its output."""
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    return errors[0] if errors else first_lines(result.stdout[-300:] + result.stderr[-300:])


def as_exercise(solution_of: str, number: str, dest: Path) -> None:
    """A reference solution in the form of a student's file (it defines exercise_NN)."""
    text = (ROOT / "solutions" / solution_of / "solution.cu").read_text()
    dest.write_text(re.sub(rf"\bsolution_{number}\b", f"exercise_{number}", text))


@pytest.fixture
def work(tmp_path: Path) -> Path:
    return tmp_path / "grade-work"


@pytest.fixture
def pace(request) -> list[str]:
    """--quick, except with --run-slow (make grade-selftest), which grades as a teacher would."""
    return [] if request.config.getoption("--run-slow") else ["--quick"]


# ------------------------------------------------------------------ command line and files
# (why it is wrong, the arguments; {tmp} is a fresh folder)
BAD_COMMAND_LINES = [
    ("no exercise named", []),
    ("a number that is not an exercise", ["99"]),
    ("not a number", ["five"]),
    ("an exercise number and --all", ["05", "--all"]),
    ("--file and --solution together", ["05", "--solution", "--file", "tests/graded_wrong/05_scalar_loads.cu"]),
    ("--file with --all", ["--all", "--file", "tests/graded_wrong/05_scalar_loads.cu"]),
    ("--batch without --csv", ["05", "--batch", "tests/graded_wrong"]),
    ("--technique-only with --build-only", ["05", "--technique-only", "--build-only"]),
    ("--list with an exercise", ["--list", "05"]),
    ("--timeout 0", ["05", "--timeout", "0"]),
    ("a timed shape that is not ROWSxCOLS", ["05", "--shape", "8192"]),
    ("--file names a missing file", ["05", "--file", "{tmp}/no-such-file.cu"]),
    ("--batch names a missing folder", ["05", "--batch", "{tmp}/no-such-folder", "--csv", "{tmp}/x.csv"]),
    ("--batch on a folder without .cu files", ["05", "--batch", "{tmp}/empty", "--csv", "{tmp}/x.csv"]),
    ("--csv in a missing folder", ["05", "--batch", "tests/graded_wrong", "--csv", "{tmp}/no-such-folder/x.csv"]),
]


@pytest.mark.parametrize("args", [a for _, a in BAD_COMMAND_LINES], ids=[w for w, _ in BAD_COMMAND_LINES])
def test_a_bad_command_line_is_one_line_and_exit_2(args, tmp_path, work):
    (tmp_path / "empty").mkdir()
    result = grade(*(a.format(tmp=tmp_path) for a in args), work=work)
    assert_exit(result, 2)
    if "{tmp}/no-such-file.cu" in args:
        assert "no-such-file.cu" in result.stderr, "the missing file is not named"


def test_help_exits_0(work):
    result = grade("--help", work=work)
    assert_exit(result, 0)
    assert "python3 -m lab.grade" in result.stdout


def test_no_gpu_visible_is_one_line_and_exit_3(work):
    """The one line says what runs without a GPU, as make spells it."""
    result = grade("05", "--file", "tests/graded_wrong/05_scalar_loads.cu", work=work, CUDA_VISIBLE_DEVICES="")
    assert_exit(result, 3)
    assert "make grade EX=05 ONLY=technique" in result.stderr and "--technique-only" in result.stderr, result.stderr
    assert "ONLY=build" in result.stderr, result.stderr


# (what, the one error line's start, make's variables; {tmp} is a fresh folder)
MAKE_GRADE_ERRORS = [
    ("FILE= alone", "error: --file and --batch grade one exercise", ["FILE=tests/graded_wrong/05_scalar_loads.cu"]),
    ("BATCH= names a missing folder", "error: no such directory: {tmp}/no-such-folder",
     ["EX=05", "BATCH={tmp}/no-such-folder", "CSV={tmp}/x.csv"]),
]


@pytest.mark.parametrize("message, variables", [e[1:] for e in MAKE_GRADE_ERRORS],
                         ids=[e[0] for e in MAKE_GRADE_ERRORS])
def test_make_grade_passes_the_graders_one_error_line(message, variables, tmp_path, work):
    """make grade hands EX, FILE, BATCH and CSV to the grader, whose one line is the error, before any GPU work."""
    variables = [v.format(tmp=tmp_path) for v in variables]
    result = run(make_command("grade", *variables), CUDA_VISIBLE_DEVICES="", GRADE_WORK=str(work))
    assert result.returncode != 0, "make grade exits 0"
    assert one_error_line(result).startswith(message.format(tmp=tmp_path)), first_lines(result.stderr)


# ------------------------------------------------------------------ sanitizer reports
ARGS = "(const float *, float *, unsigned long, unsigned long)"  # a kernel's parameters in compute-sanitizer's report
# (what, the tool, what its one line must hold, the report as compute-sanitizer prints it)
SANITIZER_REPORTS = [
    ("racecheck race analysis", "racecheck", "race between Write at ex.cu:48 and Read at ex.cu:58 (480 hazards)",
     "========= COMPUTE-SANITIZER\n"
     f"========= Error: Race reported between Write access at k{ARGS}+0x2c0 in ex.cu:48\n"
     f"=========     and Read access at k{ARGS}+0x3b0 in ex.cu:58 [480 hazards]\n"
     "=========\n"
     "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)"),
    ("racecheck race analysis with full paths", "racecheck",
     "race between Read at convolution.cu:123 and Write at convolution.cu:63 (1088 hazards)",
     "========= ERROR: Race reported between Read access at 0x6360 in /home/u/demo/convolution.cu:123:"
     "convolution(pixel const*, int)\n"
     "=========     and Write access at 0x1fe0 in /home/u/demo/convolution.cu:63:convolution(pixel const*, int) "
     "[1088 hazards]"),
    ("racecheck warning only", "racecheck", "WAR hazard between Read at ex.cu:58 and Write at ex.cu:48",
     "========= Warning: Potential WAR hazard detected at __shared__ 0x84 in block (0, 1, 0) :\n"
     "=========     Read Thread (3, 2, 0) at k+0x3b0 in ex.cu:58\n"
     "=========     Write Thread (3, 5, 0) at k+0x2c0 in ex.cu:48\n"
     "=========     Current Value : 0\n"
     "========= RACECHECK SUMMARY: 1 hazard displayed (0 errors, 1 warning)"),
    ("memcheck", "memcheck", "memcheck: Invalid __global__ read of size 4 bytes at ex.cu:35 (out of bounds)",
     "========= Invalid __global__ read of size 4 bytes\n"
     f"=========     at k{ARGS}+0x1b0 in /tmp/x/ex.cu:35\n"
     "=========     by thread (31,0,0) in block (0,0,0)\n"
     "=========     Address 0x7f4c4e000804 is out of bounds\n"
     "========= \n"
     "========= ERROR SUMMARY: 1 error"),
    ("synccheck", "synccheck", "synccheck: Barrier error detected. Divergent thread(s) in block at ex.cu:52",
     "========= Barrier error detected. Divergent thread(s) in block\n"
     f"=========     at k{ARGS}+0x2d0 in ex.cu:52\n"
     "=========     by thread (0,4,0) in block (1,0,0)\n"
     "========= ERROR SUMMARY: 1 error"),
    ("racecheck hazard, as compute-sanitizer 2025.3 printed it on an H200", "racecheck",
     "RAW hazard between Write at 07_no_second_barrier.cu:41 and Read at 07_no_second_barrier.cu:51",
     "========= COMPUTE-SANITIZER\n"
     "========= Error: Potential RAW hazard detected at __shared__ 0x718 in block (0,46,0) :\n"
     f"=========     Write Thread (0,6,0) at transpose_padded_one_barrier{ARGS}+0x590 in 07_no_second_barrier.cu:41\n"
     f"=========     Read Thread (6,0,0) at transpose_padded_one_barrier{ARGS}+0x610 in 07_no_second_barrier.cu:51\n"
     "=========     Current Value : 207\n"
     "=========     Saved host backtrace up to driver entry point at kernel launch time\n"
     "=========         Host Frame: cudaLaunchKernel [0x77387] in grade_07\n"
     "=========         Host Frame: run_step in harness.c:467 [0xba04] in grade_07\n"
     "========="),
    ("initcheck, as compute-sanitizer 2025.3 printed it on an H200", "initcheck",
     "initcheck: Uninitialized __global__ memory read of size 8 bytes at 05_reads_past_row.cu:49",
     "========= COMPUTE-SANITIZER\n"
     "========= Uninitialized __global__ memory read of size 8 bytes\n"
     f"=========     at transpose_float2_per_pair{ARGS}+0x570 in 05_reads_past_row.cu:49\n"
     "=========     by thread (0,2,0) in block (0,2,0)\n"
     "=========     Address 0x7f759ca00090\n"
     "=========     Saved host backtrace up to driver entry point at kernel launch time\n"
     "=========         Host Frame: launch_row in harness.c:103 [0xaf70] in grade_05\n"
     "========= \n"
     "PASS 05 student 1x37\n"
     "========= ERROR SUMMARY: 1 error"),
    ("clean run", "racecheck", "nothing found",
     "========= COMPUTE-SANITIZER\n"
     "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"),
]


@pytest.mark.parametrize("tool, expected, report", [r[1:] for r in SANITIZER_REPORTS],
                         ids=[r[0] for r in SANITIZER_REPORTS])
def test_a_sanitizer_report_becomes_one_line_naming_the_source(tool, expected, report):
    found = pick_finding(sanitizer_records(report))
    assert expected in (describe_finding(tool, found) if found else "nothing found")


@pytest.mark.parametrize("correct, status", [(True, "FAIL"), (False, "PASS")],
                         ids=["right without the tool: a race", "already wrong: not blamed twice"])
def test_a_wrong_result_under_a_sanitizer(correct, status, tmp_path, monkeypatch):
    """A stand-in for compute-sanitizer that reports nothing but exits 1, as the program does when a check
    fails: a race if the kernel was right without the tool, and no second FAIL if Correctness already FAILed."""
    fake = tmp_path / "fake-sanitizer"
    fake.write_text('#!/bin/sh\necho "========= ERROR SUMMARY: 0 errors"\nexit 1\n')
    fake.chmod(0o755)
    monkeypatch.setenv("COMPUTE_SANITIZER", str(fake))
    assert run_sanitizer("racecheck", Program(Path("/bin/true")), ["1x37"], 30, correct).status == status


# ------------------------------------------------------------------ the timed run's CSV
TIMED_RUN = [
    "gpu,step,kernel,role,rows,cols,offset,median_ms,min_ms,gbps,pct_of_copy,vs_cublas,check",
    "NVIDIA H200,05,memcpy,copy,64,64,0,0.001000,0.001000,32.8,100.00,1.0000,-",
    "NVIDIA H200,05,cublas,library,64,64,0,0.002000,0.002000,16.4,50.00,1.0000,PASS",
    "NVIDIA H200,05,student,kernel,64,64,0,0.004000,0.003000,8.2,25.00,0.5000,PASS",
    "NVIDIA H200,05,reference,kernel,64,64,0,0.002000,0.002000,16.4,50.00,1.0000,PASS",
    "NVIDIA H200,05,step,kernel,64,64,0,0.003000,0.003000,10.9,33.33,0.6667,FAIL",
]
SHUFFLED = [12, 7, 2, 0, 3, 1, 4, 5, 6, 8, 9, 10, 11]  # the same columns in another order


ROWS = {"student": (0.004, "PASS"), "reference": (0.002, "PASS"), "step": (0.003, "FAIL")}  # (median_ms, check)
TIMED_RUNS = {  # a run's output: the rows the grader must read from it (none, not misread ones: Speed then FAILs)
    "as printed": ("\n".join(TIMED_RUN) + "\n", ROWS),
    "columns shuffled": ("\n".join(",".join(line.split(",")[i] for i in SHUFFLED) for line in TIMED_RUN) + "\n", ROWS),
    "no check column": ("\n".join(line.rsplit(",", 1)[0] for line in TIMED_RUN) + "\n", {}),
    "no output": ("", {}),
    "an error line": ("error: no GPU\n", {}),
}


@pytest.mark.parametrize("text, expected", list(TIMED_RUNS.values()), ids=list(TIMED_RUNS))
def test_the_timed_run_is_read_by_column_name(text, expected):
    assert {kernel: (row["median_ms"], row["check"]) for kernel, row in graded_rows(text).items()} == expected


# ------------------------------------------------------------------ exercises found from their folders
def in_tree(tree: Path, *args: str) -> subprocess.CompletedProcess:
    """python3 ARGS run in a copied tree, with its own lab package."""
    return subprocess.run([sys.executable, *args], cwd=tree, capture_output=True, text=True, timeout=120,
                          env=clean_env(GRADE_WORK=str(tree / "work")), check=False)


def test_exercises_are_found_from_their_folders(tmp_path, subtests):
    """In a copy of the lab whose exercises are 05, a new 11 and a 12 without its step."""
    tree = tmp_path / "tree"
    shutil.copytree(ROOT / "lab", tree / "lab", ignore=shutil.ignore_patterns("__pycache__"))
    rules = '{"floor": 0.75, "technique": [{"what": "no local memory", "check": "no_local_memory"}]}\n'
    for name in ("05_float4", "11_any_shape", "12_tma"):
        (tree / "exercises" / name).mkdir(parents=True)
        (tree / "exercises" / name / "grading.json").write_text(rules)
    for name in ("05_float4", "11_any_shape"):  # not 12_tma, an exercise without its step
        (tree / "steps" / name).mkdir(parents=True)
    with subtests.test(msg="a new exercise folder is listed"):
        result = in_tree(tree, "-m", "lab.grade", "--list")
        assert_exit(result, 0)
        assert result.stdout.split() == ["05_float4", "11_any_shape"], "12_tma has no step: it cannot be listed"
    with subtests.test(msg="an exercise folder without its step is refused"):
        result = in_tree(tree, "-m", "lab.grade", "12")
        assert_exit(result, 2)
        assert "no steps/12_*" in result.stderr
    (tree / "exercises" / "11_any_shape" / "grading.json").unlink()
    result = in_tree(tree, "-m", "lab.grade", "11")
    assert_exit(result, 2)
    assert "exercises/11_any_shape/grading.json" in result.stderr, "an exercise without grading.json is not refused"


# ------------------------------------------------------------------ builds and compiled code, without a GPU
@pytest.mark.parametrize("args", [[], ["--solution"]], ids=["skeletons", "solutions"])
def test_all_builds_every_exercise_in_order(args, work, subtests):
    """Each result says that nothing was graded."""
    result = grade("--all", *args, "--build-only", work=work)
    results = dict(re.findall(r"^RESULT (.*): (.*)$", result.stdout, re.M))
    assert list(results) == EXERCISES, grader_error(result)
    for name, status in results.items():
        with subtests.test(msg=name):
            assert status == "NOT GRADED (it builds; no check ran)", \
                verdicts(result.stdout.split(f"== {name}:", 1)[-1]).get("Correctness")
    assert_exit(result, 0)


# (exercise or planted file, the grader's arguments, the Technique verdict from the compiled code alone, exit code)
TECHNIQUE_CASES = {
    **{solution_ids(n): (n, ["--solution"], "PASS", 0) for n in EXERCISES},
    **{skeleton_ids(n): (n, [], "FAIL", 1) for n in EXERCISES},
    **{planted_ids(n): (n, ["--file", f"tests/graded_wrong/{n}.cu"], "FAIL", 1) for n in PLANTED
       if caught_by(n) == "Technique" and "Nsight Compute" not in PLANTED[n]},  # not those only Nsight Compute catches
}


@pytest.mark.skipif(not HAVE_CUOBJDUMP, reason=machine.CUOBJDUMP_MISSING)
@pytest.mark.parametrize("name, args, expected, exit_code", list(TECHNIQUE_CASES.values()), ids=list(TECHNIQUE_CASES))
def test_technique_without_a_gpu(name, args, expected, exit_code, work):
    """Every solution PASSes, every untouched skeleton and planted file FAILs its technique requirements."""
    if not args and not skeleton_untouched(name):  # a skeleton
        pytest.skip(f"exercises/{name}/exercise.cu has lost its TODO: solved here?")
    result = grade(name[:2], "--technique-only", *args, work=work)
    status, why = verdicts(result.stdout).get("Technique", ("", grader_error(result)))
    assert status == expected and result.returncode == exit_code, f"{status}, exit {result.returncode}: {why}"
    if "--file" in args:  # a planted file that uses `symbol` from outside is caught by its name
        assert all(symbol in why for symbol in re.findall(r"uses `([^`]+)`", PLANTED[name])), why


# What no graded file may use from outside it (nm -u): a library, a copy through the host, another file's kernel
# or launcher, a host callback, dlopen. (What the solutions use is allowed: their Technique PASSes above.)
NOT_ALLOWED = ["cublasSgeam", "cublasLtMatrixTransform", "cutensorPermute", "cudaMemcpy", "cudaMemcpyAsync",
               "cudaMemcpy2DAsync", "cudaLaunchHostFunc", "cudaGetDriverEntryPointByVersion", "dlopen", "dlsym",
               "step05", "solution_05", "cublas_transpose", "transpose_reference", "cudaMallocManaged",
               "cudaMallocHost", "cudaHostAlloc", "cudaHostRegister", "malloc", "_Znwm",
               "launch_float4(float const*, float*, unsigned long, unsigned long, CUstream_st*)"]


def test_the_allowed_symbols_leave_out_what_no_file_may_use():
    assert calls_outside(NOT_ALLOWED, []) == NOT_ALLOWED


def fake_ncu(tmp_path: Path, launched: list[str], reference: list[str]) -> str:
    """A stand-in for ncu that writes, to its --log-file, the table ncu --csv --page raw prints for these launches:
    the student's variant runs launched, the reference's variant reference."""
    header = '"ID","Kernel Name","gpu__time_duration.sum"\n"","","nsecond"\n'
    for variant, names in (("student", launched), ("reference", reference)):
        rows = "".join(f'"{i}","{name}","1000"\n' for i, name in enumerate(names))
        table = header + rows if names else "==WARNING== No kernels were profiled.\n"
        (tmp_path / f"table-{variant}.csv").write_text(table)
    fake = tmp_path / "fake-ncu"
    fake.write_text("#!/bin/sh\nwhile [ $# -gt 0 ]; do case $1 in --log-file) log=$2;; --variant) variant=$2;; esac; "
                    f'shift; done\ncp {tmp_path}/table-$variant.csv "$log"\n')
    fake.chmod(0o755)
    return str(fake)


FLOAT2, STEP = "_Z16transpose_float2PKfPfmm", "_Z11step_kernelPKfPfmm"  # the file's kernel, the step's
# What the student's and the reference's launchers ran at the timed shape, the function the exercise's
# requirements name, the verdict.
LAUNCHES = {
    "the file's kernel": ([FLOAT2], [FLOAT2], "", "PASS"),
    "cuBLAS's kernel": ([FLOAT2, "_Z11geam_kernelIfEvv"], [FLOAT2], "", "FAIL geam_kernel"),
    "no kernel: the host did the work": ([], [FLOAT2], "", "FAIL no kernel ran"),
    "a kernel of the file that Technique does not check": ([FLOAT2], [FLOAT2], "pair_store", "FAIL transpose_float2"),
    # The exercise hands this shape to the step, as the reference's launch shows: a SKIP, not a FAIL of every file.
    "the step's kernel, which the reference's runs too": ([STEP], [STEP], "", "SKIP hands the work to the step"),
}


@pytest.mark.parametrize("launched, reference, function, expected", list(LAUNCHES.values()), ids=list(LAUNCHES))
def test_the_kernels_run_at_the_timed_shape_must_be_the_files_own(launched, reference, function, expected, tmp_path,
                                                                  monkeypatch):
    monkeypatch.setenv("NCU", fake_ncu(tmp_path, launched, reference))
    monkeypatch.setattr(grader, "disassemble", lambda *_: Compiled(code={90: {FLOAT2: []}}))
    monkeypatch.setattr(Path, "is_file", lambda self: True)  # the reference's object, "disassembled" above
    rules = {"floor": 0.8, "technique": [{"what": "w", "check": "no_local_memory", "function": function}]}
    subject = grader.Subject(grader.Exercise("05", "05_float4", rules), "tree", Path("x.cu"), "x")
    verdict = grader.check_launches(subject, "8192x8192", 30)
    status, *named = expected.split(" ", 1)
    assert verdict.status == status and all(n in verdict.why for n in named), verdict.why
    assert verdict.not_own == (status == "FAIL")


def test_a_batch_without_a_gpu_gives_one_row_per_student(tmp_path, work):
    """A compile error (the compiler's first, naming the student's file, not its copy), a file that is not CUDA
    (it lacks exercise_05) and a wrong technique do not stop it."""
    batch = tmp_path / "batch"
    batch.mkdir()
    as_exercise("05_float4", "05", batch / "alice.cu")
    shutil.copy(PLANTED_DIR / "05_does_not_compile.cu", batch / "bob.cu")
    shutil.copy(PLANTED_DIR / "05_scalar_loads.cu", batch / "carol.cu")
    (batch / "dave.cu").write_text("this is not CUDA\n")
    csv = tmp_path / "batch.csv"
    result = grade("05", NO_GPU_MODE, "--batch", str(batch), "--csv", str(csv), work=work)
    assert result.returncode == 1, grader_error(result)
    technique = ("PASS", "FAIL") if HAVE_CUOBJDUMP else ("SKIP", "SKIP")
    rows = pd.read_csv(csv, dtype=str, keep_default_na=False)
    assert list(rows.columns) == ["name", "correctness", "sanitizers", "technique", "speed", "speed_ratio", "reason"]
    assert rows.iloc[:, :6].values.tolist() == [
        ["alice", "SKIP", "SKIP", technique[0], "SKIP", ""],
        ["bob", "FAIL", "SKIP", "SKIP", "SKIP", ""],
        ["carol", "SKIP", "SKIP", technique[1], "SKIP", ""],
        ["dave", "FAIL", "SKIP", "SKIP", "SKIP", ""]]
    reasons = rows.set_index("name")["reason"]
    assert re.match(r"Correctness: does not compile: bob\.cu\(.*error", reasons["bob"]), reasons["bob"]
    assert "does not define exercise_05" in reasons["dave"]


@pytest.mark.parametrize("name", PLANTED, ids=planted_ids)
def test_planted_file_names_its_exercise_and_check(name):
    assert caught_by(name) in CHECKS, f"its first line must be `// Caught by: CHECK (why)`, CHECK one of {CHECKS}"
    assert any(e.startswith(name[:3]) for e in EXERCISES), f"{name[:2]} is not an exercise"


# ------------------------------------------------------------------ the reference timings' hashes
def test_the_reference_timings_match_the_solutions():
    assert_exit(run([sys.executable, "-m", "lab.reference", "--check"]), 0)


@pytest.mark.parametrize("how", ["changed", "gone", "never timed"])
def test_a_stale_reference_timing_is_caught(how, tmp_path, monkeypatch):
    if not reference.CANONICAL.is_file():
        pytest.skip(f"{reference.CANONICAL} not generated yet")
    recorded = pd.read_csv(reference.CANONICAL, dtype=str, keep_default_na=False)
    original = recorded.copy()
    row = recorded.index[recorded["kernel"] == "reference"][0]
    source = recorded.at[row, "source"]
    expected = [f"{source} has no reference timing"]  # the starts of the lines the check must give
    if how == "changed":
        recorded.at[row, "sha256"] = "0" * 64
        expected = [f"{source} changed since"]
    elif how == "gone":
        recorded.at[row, "source"] = source.replace("solution.cu", "gone.cu")
        expected.insert(0, f"{recorded.at[row, 'source']} is in")
    else:
        recorded = recorded.drop(index=row)
    recorded.to_csv(tmp_path / "timings.csv", index=False)
    monkeypatch.setattr(reference, "CANONICAL", tmp_path / "timings.csv")
    monkeypatch.setattr(schema, "RESULTS", tmp_path / "results")  # no other GPU's timings
    # A solution the committed file has not timed yet (a new exercise) is flagged either way: not this test's.
    solutions = (str(p.relative_to(ROOT)) for p in sorted(ROOT.glob("solutions/*/solution.cu")))
    new_ones = tuple(f"{s} has no reference timing" for s in solutions if s not in set(original["source"]))
    problems = [p for p in reference.check_reference_hashes() if not p.startswith(new_ones)]
    assert len(problems) == len(expected), problems
    assert all(p.startswith(e) for p, e in zip(problems, expected, strict=True)), problems


def test_an_exercise_the_canonical_gpu_has_not_timed_quotes_another(monkeypatch):
    """expected() quotes docs/reference-timings.csv, or, for an exercise that file lacks, another GPU's file,
    and names that file under its table."""
    committed = tables.select

    def select_without_05(gpu, kind="bench", **equal):   # the canonical file as if exercise 05 were new
        rows = committed(gpu, kind, **equal)
        return rows[~rows["exercise"].str.startswith("05_")] if (gpu, kind) == ("", "reference-timings") else rows

    monkeypatch.setattr(tables, "select", select_without_05)
    others = [slug for slug in results.gpus()["slug"] if results.path(slug, "reference-timings").is_file()]
    if not any(slug != "h200" for slug in others):
        pytest.skip("no second GPU's reference timings are committed")
    assert tables.exercise_timings("05") not in ("", "h200")
    assert tables.exercise_timings("06") == ""
    page = tables.expected(tables.Page(ROOT, "h200"), "05")
    assert f"{tables.exercise_timings('05')}-reference-timings.csv" in page


def test_a_reworded_comment_leaves_the_hash_alone(tmp_path):
    """The hash covers the code (and the exercise headers it includes), not the comments."""
    solutions = sorted(ROOT.glob("solutions/[0-9][0-9]_*/solution.cu"))
    solution = next((s for s in solutions if '#include "../../exercises/' in s.read_text()), solutions[0])
    copy = tmp_path / "solutions" / solution.parent.name / "solution.cu"
    copy.parent.mkdir(parents=True)
    (tmp_path / "exercises").symlink_to(ROOT / "exercises")  # its includes, at the same place
    copy.write_text("// a comment of the copy's own\n" + solution.read_text().replace("*/", " (reworded) */", 1))
    assert reference.source_hash(copy) == reference.source_hash(solution)
    copy.write_text(solution.read_text() + "\nstatic int one_more_line;\n")
    assert reference.source_hash(copy) != reference.source_hash(solution)


# ------------------------------------------------------------------ on a GPU
@pytest.mark.gpu
@pytest.mark.parametrize("name", EXERCISES, ids=solution_ids)
def test_solution_passes_all_four_checks(name, work, pace, subtests):
    """The reference solution passes all four checks (a SKIP says why, and does not fail)."""
    with contextlib.nullcontext() if pace else host_memory():  # in full: the shape of more than 2^31 elements
        result = grade(name[:2], "--solution", "--timeout", TIMEOUT, *pace, work=work)
    found = verdicts(result.stdout)
    for check in CHECKS:
        with subtests.test(msg=check):
            status, why = found.get(check, ("", grader_error(result)))
            if status == "SKIP":
                pytest.skip(why)
            assert status == "PASS", f"{check} {status or 'not reported'}: {why}"
    assert result.returncode == 0, f"exit {result.returncode}: {grader_error(result)}"


# What a GPU must catch: each untouched skeleton (Correctness) and each planted file (the check its first line
# names), with the grader's arguments.
WRONG_ANSWERS = {**{skeleton_ids(n): (n, [], "Correctness") for n in EXERCISES},
                 **{planted_ids(n): (n, ["--file", f"tests/graded_wrong/{n}.cu"], caught_by(n)) for n in PLANTED}}


@pytest.mark.gpu
@pytest.mark.slow  # a teacher's check of the grader, not a student's: the GPU session runs it
@pytest.mark.parametrize("name, args, check", list(WRONG_ANSWERS.values()), ids=list(WRONG_ANSWERS))
def test_a_wrong_answer_fails_the_check_it_names(name, args, check, work, pace, subtests):
    planted = PLANTED[name] if args else ""
    if not args and not skeleton_untouched(name):
        pytest.skip(f"exercises/{name}/exercise.cu has lost its TODO: solved here?")
    if "Nsight Compute" in planted and not HAVE_NCU:
        pytest.skip(f"{check} FAILs only through Nsight Compute, not found here")
    timeout = "30" if planted and check == "Correctness" else TIMEOUT  # the kernel that hangs
    with contextlib.nullcontext() if pace or not planted else host_memory():  # in full: more than 2^31 elements
        result = grade(name[:2], *args, "--timeout", timeout, *pace, work=work)
    found = verdicts(result.stdout)
    status, why = found.get(check, ("", grader_error(result)))
    assert status == "FAIL" and result.returncode == 1, f"{check} {status or 'not reported'}, " \
        f"exit {result.returncode}: {why}"
    if check == "Speed":  # a correct kernel that is only slow: nothing else may fail
        for other in CHECKS[:3]:
            with subtests.test(msg=f"{other} PASSes"):
                assert found.get(other, ("",))[0] == "PASS", found.get(other)
    if "racecheck" in planted:  # one line naming the hazard and the source lines
        assert re.match(rf"racecheck: .*{re.escape(name)}\.cu:[0-9]", why), why


@pytest.mark.gpu
@pytest.mark.slow
def test_a_batch_of_ten_files_gives_the_expected_csv(tmp_path, work):
    """A class, right and wrong answers mixed, one CSV row each, graded in full (the skeleton's
    sanitizers run after its Correctness FAIL) but for the shape past 2^31 elements (--no-huge):
    ten of those take minutes and host memory, and test_solution_passes_all_four_checks grades it."""
    batch = tmp_path / "batch"
    batch.mkdir()
    for student in ("alice", "bob", "carol"):
        as_exercise("05_float4", "05", batch / f"{student}.cu")
    shutil.copy(ROOT / "exercises" / "05_float4" / "exercise.cu", batch / "dave.cu")
    for planted in ("scalar_loads", "float4_loads", "one_block", "does_not_compile", "hangs", "reads_past_row"):
        shutil.copy(PLANTED_DIR / f"05_{planted}.cu", batch / f"{planted}.cu")
    csv = tmp_path / "batch.csv"
    result = grade("05", "--batch", str(batch), "--csv", str(csv), "--timeout", TIMEOUT, "--no-huge", work=work)
    # Each planted file pins the verdict it exists for; (PASS|FAIL) leaves free one that depends on
    # the GPU: scalar loads run close to the 0.80x floor of the float2 reference, on either side of
    # it by the GPU.
    expected = ["alice,PASS,PASS,PASS,PASS", "bob,PASS,PASS,PASS,PASS", "carol,PASS,PASS,PASS,PASS",
                "dave,FAIL,PASS,FAIL,SKIP", "does_not_compile,FAIL,SKIP,SKIP,SKIP", "float4_loads,PASS,PASS,FAIL,PASS",
                "hangs,FAIL,SKIP,PASS,SKIP", "one_block,PASS,PASS,PASS,FAIL", "reads_past_row,PASS,FAIL,PASS,PASS",
                "scalar_loads,PASS,PASS,FAIL,(PASS|FAIL)"]
    rows = pd.read_csv(csv, dtype=str, keep_default_na=False) if csv.is_file() else pd.DataFrame()
    got = [",".join(row) for row in rows.iloc[:, :5].values.tolist()]
    assert result.returncode == 1, grader_error(result)
    assert len(got) == len(expected) and all(re.fullmatch(e, g) for e, g in zip(expected, got, strict=False)), got


GOOD_RULES = {"floor": 0.8, "technique": [{"what": "no shared memory", "check": "shared_bytes", "max": 0}]}
METRIC = next(iter(grader.PROFILE_METRICS))
# A grading.json with one mistake each (what the teacher got wrong, its document, the words of the one-line problem).
BAD_RULES = {
    "not an object": ([], "must be an object"),
    "floor zero": ({"floor": 0}, '"floor" must be a number'),
    "floor as text": ({"floor": "fast"}, '"floor" must be a number'),
    "a rule without what": ({**GOOD_RULES, "technique": [{"check": "shared_bytes"}]}, 'needs a "what"'),
    "an unknown check": ({**GOOD_RULES, "technique": [{"what": "x", "check": "speed"}]}, '"check" must be one of'),
    "instructions without an opcode": ({**GOOD_RULES, "technique": [{"what": "x", "check": "instructions"}]},
                                       'needs an "opcode"'),
    "an opcode that is no pattern": ({**GOOD_RULES, "technique": [{"what": "x", "check": "instructions",
                                                                   "opcode": "LDG("}]}, "not a regular expression"),
    "an unknown metric": ({**GOOD_RULES, "profile": [{"metric": "speed", "min": 1}]}, '"metric" must be one of'),
    "a bound missing": ({**GOOD_RULES, "profile": [{"metric": METRIC}]}, 'needs a "min" or a "max"'),
    "a parameter set otherwise": ({**GOOD_RULES, "parameter": {"set_by": "argv", "name": "N", "values": [1]}},
                                  '"set_by" must be "environment"'),
    "a parameter without values": ({**GOOD_RULES, "parameter": {"set_by": "environment", "name": "N"}},
                                   'needs a "name" and a list of "values"'),
    "a parameter that is no object": ({**GOOD_RULES, "parameter": "N"}, '"parameter" must be an object'),
    "values as text": ({**GOOD_RULES, "parameter": {"set_by": "environment", "name": "N", "values": "16x16"}},
                       'needs a "name" and a list of "values"'),
    "a shape that is none": ({**GOOD_RULES, "grade_shapes": ["4096"]}, "is not ROWSxCOLS"),
    "shapes as text": ({**GOOD_RULES, "grade_shapes": "4096x4096"}, '"grade_shapes" must be a list'),
    "techniques as an object": ({**GOOD_RULES, "technique": {"what": "x"}}, '"technique" must be a list'),
    "allow_symbols as text": ({**GOOD_RULES, "allow_symbols": "cudaX"}, '"allow_symbols" must be a list'),
    "an allowed symbol that is no pattern": ({**GOOD_RULES, "allow_symbols": ["("]}, '"allow_symbols" must be a list'),
    "an allowed symbol that is no text": ({**GOOD_RULES, "allow_symbols": [1]}, '"allow_symbols" must be a list'),
}


@pytest.mark.parametrize("document", [GOOD_RULES, {**GOOD_RULES, "allow_symbols": ["cudaGetDriverEntryPoint"]}],
                         ids=["good", "good with allow_symbols"])
def test_a_good_grading_document_has_no_problem(document):
    assert grader.rules_problem(document) is None


@pytest.mark.parametrize("mistake", BAD_RULES)
def test_each_mistake_in_a_grading_document_is_named(mistake):
    document, words = BAD_RULES[mistake]
    assert words in (grader.rules_problem(document) or "no problem found")
