"""Adding a step takes one new folder and nothing else.

In a temporary copy of the repository (its files as git sees them, tracked or new, never its build
folder), the first step folder is copied to steps/NN_probe/, NN one past the last step, without
changing a byte inside: the step's number and name must come from the folder alone (the Makefile's
step_defines).  Then
  - make stepNN builds build/stepNN, whose step descriptor is the symbol stepNN;
  - make help lists it, and make print-bins (what make all builds) has it;
  - build/stepNN --list-variants lists a variant with the GPU hidden;
  - the copy's own test suite, sections build, badinput and nogpu, builds and tests it like
    every other step;
  - git status in the copy shows nothing changed but the new folder.
Then docs/examples/minimal_step.cu, the smallest complete step (common/harness.h shows it), goes
into steps/MM_minimal/ of another copy the same way: it must build, list its variants and, on a
GPU, pass bit for bit on the shapes tagged `grade` in tests/shapes.txt.

Each copy starts with the main build's object files, so that only the new step is compiled there.
The probe's checks are subtests of one test, so that the copy and its suite run once, on one
worker, whatever way pytest-xdist shares out the tests.  pytest keeps the copies of its last runs
under its temporary folder (the failure messages say where), to look into after a failure.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import BUILD, CPUS, ROOT, assert_exit, clean_env, first_lines, tagged

pytestmark = pytest.mark.addstep

EXAMPLE = "docs/examples/minimal_step.cu"
# What the copy's build folder starts with: the main build's objects, its library and the flags
# they were compiled with (a stale or missing main build only makes the copy compile more).
SEEDS = ("obj", "libcommon.a", "flags.txt")
# The sections of the copy's own suite that need no GPU.
SECTIONS = "build or badinput or nogpu"
# The copy's suite must run at least this many badinput and nogpu tests on the new step, and pass.
ENOUGH_TESTS = 10
# Its tests run side by side where there are cores to spare (this test runs beside the others).
SUITE_WORKERS = min(4, CPUS // 4)

# A pytest plugin for the copy's suite: every result, one JSON line each, with the test's
# parameters, markers and subtest, so that the results about the new step can be told apart
# whatever the tests' ids say (a Path parameter gets an id like `program0`, not its path).
RESULTS_PLUGIN = '''\
"""Writes every test result to $ADD_STEP_RESULTS, one JSON line each (tests/test_add_step.py)."""
import json
import os

ITEMS = {}


def pytest_collection_modifyitems(items):
    for item in items:
        callspec = getattr(item, "callspec", None)
        ITEMS[item.nodeid] = {"params": [str(value) for value in callspec.params.values()] if callspec else [],
                              "markers": sorted({mark.name for mark in item.iter_markers()})}


def pytest_runtest_logreport(report):
    if report.nodeid not in ITEMS:
        return  # the controller of pytest-xdist, which collects nothing: its workers write the results
    context = getattr(report, "context", None)  # a subtest's msg and keyword arguments
    record = {"nodeid": report.nodeid, "when": report.when, "outcome": report.outcome,
              "subtest": "" if context is None else f"{context.msg} {context.kwargs}",
              **ITEMS[report.nodeid]}
    with open(os.environ["ADD_STEP_RESULTS"], "a") as out:
        out.write(json.dumps(record) + "\\n")
'''


# ------------------------------------------------------------------ the temporary copy
class Copy:
    """A temporary copy of the repository, with its own build folder."""

    def __init__(self, root: Path):
        self.root = root

    def run(self, command, timeout: float = 600, **env: str) -> subprocess.CompletedProcess:
        """Run a command in the copy, with the copy's build folder and no outer pytest or git in
        the environment: the copy is a repository of its own, and its suite a run of its own."""
        environment = {k: v for k, v in clean_env(**{"BUILD": "build", **env}).items()
                       if not k.startswith(("PYTEST_", "GIT_"))}
        return subprocess.run([str(c) for c in command], cwd=self.root, capture_output=True, text=True,
                              timeout=timeout, env=environment, check=False)

    def make(self, *args: str) -> subprocess.CompletedProcess:
        """make in the copy.  Not conftest's make_command(): that names this run's build folder."""
        return self.run(["make", "-s", "--no-print-directory", "BUILD=build", f"-j{CPUS}", *args])

    def git(self, *args: str) -> subprocess.CompletedProcess:
        """git in the copy, as a nameless tester who signs nothing, whatever the user's settings."""
        return self.run(["git", "-c", "user.name=test", "-c", "user.email=test@localhost",
                         "-c", "commit.gpgsign=false", *args])


def repository_files() -> list[str]:
    """The repository's files as git sees them: tracked, or new and not ignored (never build/).
    A tracked file deleted in the working tree is not there to copy."""
    listed = subprocess.run(["git", "ls-files", "-z", "-co", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, text=True, check=False)
    if listed.returncode != 0:
        pytest.fail(f"this test copies the repository with git: run it in a git checkout ({listed.stderr.strip()})")
    return sorted({name for name in listed.stdout.split("\0") if (ROOT / name).is_file()})


def make_copy(folder: Path) -> Copy:
    """The repository's files in folder/repo, with their times, as a fresh git repository with one
    commit (so that git status can show what changed afterwards), and the main build's objects in
    its build folder, times kept (so that make there compiles only what is new or changed)."""
    copy = Copy(folder / "repo")
    for name in repository_files():
        (copy.root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, copy.root / name, follow_symlinks=False)
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "the repository as it was"]):
        result = copy.git(*command)
        assert result.returncode == 0, f"git {command[0]} in the copy: {first_lines(result.stderr)}"
    (copy.root / "build").mkdir()
    for seed in SEEDS:
        main = ROOT / BUILD / seed
        if main.is_dir():
            shutil.copytree(main, copy.root / "build" / seed, symlinks=True)
        elif main.is_file():
            shutil.copy2(main, copy.root / "build" / seed)
    return copy


def step_folders(root: Path) -> list[str]:
    """The steps/NN_name/ folders of a repository, in order."""
    return sorted(p.name for p in (root / "steps").glob("[0-9][0-9]_*") if p.is_dir())


def after(number: str) -> str:
    """The step number one past this one, with its leading zero: '12' -> '13'."""
    return f"{int(number, 10) + 1:02d}"


def variant_names(result: subprocess.CompletedProcess) -> list[str]:
    """The names --list-variants printed, one a line, before its first tab."""
    return [line.split("\t")[0] for line in result.stdout.splitlines() if line.strip()]


def lists_variants(copy: Copy, program: str) -> list[str]:
    """The variants a program of the copy lists with the GPU hidden: exit 0 and at least one."""
    assert (copy.root / program).is_file(), f"{program} was not built, so it cannot list its variants"
    result = copy.run([program, "--list-variants"], CUDA_VISIBLE_DEVICES="")
    assert_exit(result, 0)
    names = variant_names(result)
    assert names, f"{program} --list-variants listed nothing: {first_lines(result.stdout + result.stderr)}"
    return names


# ------------------------------------------------------------------ the probe step
@pytest.fixture(scope="module")
def probe(tmp_path_factory) -> tuple[Copy, str]:
    """A copy with the first step folder copied, unchanged, to steps/NN_probe/: (the copy, NN)."""
    copy = make_copy(tmp_path_factory.mktemp("add_step"))
    folders = step_folders(copy.root)
    number = after(folders[-1][:2])
    shutil.copytree(copy.root / "steps" / folders[0], copy.root / "steps" / f"{number}_probe")
    return copy, number


def test_a_copied_step_folder_is_a_new_step(probe, subtests):
    """steps/NN_probe/ alone makes step NN: built, listed, tested, and nothing else changed."""
    copy, number = probe
    step, program = f"step{number}", f"build/step{number}"
    where = f"(the copy: {copy.root})"
    with subtests.test(msg=f"make {step} builds {program}"):
        built = copy.make(step)
        assert built.returncode == 0, f"make {step}: {first_lines(built.stdout + built.stderr)} {where}"
        assert (copy.root / program).is_file(), f"make {step} succeeded but left no {program} {where}"
    with subtests.test(msg=f"{program} holds the step descriptor {step} (its number from the folder)"):
        descriptor_is_named(copy, program, step)
    with subtests.test(msg=f"make help lists {step} ({number}_probe)"):
        listed = copy.make("help").stdout
        assert re.search(rf"^  make {step} +{number}_probe", listed, re.MULTILINE), (
            f"make help does not list {step}: {' '.join(re.findall(r'^  make step.*$', listed, re.MULTILINE)[:3])}")
    with subtests.test(msg=f"make print-bins includes {program}"):
        bins = copy.make("print-bins").stdout
        assert program in bins.split(), f"make print-bins does not include {program}: {first_lines(bins)}"
    with subtests.test(msg=f"{program} --list-variants lists a variant without a GPU"):
        lists_variants(copy, program)
    with subtests.test(msg=f"the copy's own suite ({SECTIONS}) builds and tests {step}"):
        suite_tests_the_new_step(copy, program, step, number)
    with subtests.test(msg=f"git status in the copy shows only the new steps/{number}_probe/"):
        status = copy.git("status", "--porcelain", "--untracked-files=normal")
        assert status.stdout.strip() == f"?? steps/{number}_probe/", (
            f"git status in the copy shows more than the new folder: {first_lines(status.stdout + status.stderr)}")


def descriptor_is_named(copy: Copy, program: str, step: str) -> None:
    """The program's symbols include its step descriptor, named after the folder's number: the
    number reached the code from the folder's name, the file itself says nothing of it."""
    if not shutil.which("nm"):
        pytest.skip("nm is not installed (binutils)")
    symbols = copy.run(["nm", program])
    assert symbols.returncode == 0, f"nm {program}: {first_lines(symbols.stderr)}"
    assert re.search(rf" [A-Za-z] {step}$", symbols.stdout, re.MULTILINE), (
        f"{program} has no symbol {step}: the number did not come from the folder")


def suite_tests_the_new_step(copy: Copy, program: str, step: str, number: str) -> None:
    """The copy's own suite, limited to the sections that need no GPU, passes as a whole, and has
    built the new step and run at least ENOUGH_TESTS of its command-line tests on it."""
    suite, records = run_copy_suite(copy)
    summary = (suite.stdout.strip().splitlines() or [first_lines(suite.stderr)])[-1]
    failed = [describe(r) for r in records if r["outcome"] == "failed"]
    assert not failed, f"the copy's suite failed ({summary}): {'; '.join(failed[:5])} (the copy: {copy.root})"
    assert suite.returncode == 0, f"the copy's suite exited {suite.returncode}: {first_lines(suite.stdout[-600:])}"
    mine = [r for r in records if is_about(r, step, number)]
    built, tested = passed_in(mine, "build"), passed_in(mine, "badinput", "nogpu")
    assert built and len(tested) >= ENOUGH_TESTS, (
        f"the copy's suite did not build and test {program} (build tests: {len(built)}, "
        f"badinput and nogpu tests: {len(tested)}, at least {ENOUGH_TESTS} expected; {summary})")


def run_copy_suite(copy: Copy) -> tuple[subprocess.CompletedProcess, list[dict]]:
    """Run the copy's own pytest on the sections SECTIONS: (its result, every test result it wrote).

    Its conftest builds everything in the copy first, as it does here.  This file stays out of it
    (--ignore, and the markers), so that it does not copy the copy in turn; no byte code is
    written, so that git status in the copy shows no __pycache__/."""
    plugin_dir = copy.root.parent / "plugin"
    plugin_dir.mkdir(exist_ok=True)
    (plugin_dir / "add_step_results.py").write_text(RESULTS_PLUGIN)
    results = copy.root.parent / "results.jsonl"
    results.unlink(missing_ok=True)
    suite = copy.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-m", SECTIONS,
                      f"--numprocesses={SUITE_WORKERS}", "--ignore=tests/test_add_step.py", "-p", "add_step_results"],
                     timeout=900, PYTHONPATH=str(plugin_dir), PYTHONDONTWRITEBYTECODE="1",
                     ADD_STEP_RESULTS=str(results))
    records = [json.loads(line) for line in results.read_text().splitlines()] if results.exists() else []
    return suite, records


def describe(record: dict) -> str:
    """A result of the copy's suite in words: its test, parameters and subtest."""
    return " ".join([record["nodeid"], *record["params"], record["subtest"]]).strip()


def is_about(record: dict, step: str, number: str) -> bool:
    """Whether a result names the new step: stepNN in its test, parameters or subtest, or NN as a
    parameter of its own."""
    return bool(re.search(rf"\b{step}\b", describe(record))) or number in record["params"]


def passed_in(records: list[dict], *sections: str) -> list[dict]:
    """The tests and subtests of these sections that passed."""
    return [r for r in records if r["when"] == "call" and r["outcome"] == "passed"
            and any(section in r["markers"] for section in sections)]


# ------------------------------------------------------------------ the minimal example
@pytest.fixture(scope="module")
def minimal(tmp_path_factory) -> tuple[Copy, str, subprocess.CompletedProcess]:
    """A copy of its own with docs/examples/minimal_step.cu in steps/MM_minimal/, MM one past the last
    step, and make stepMM run: (the copy, MM, make's result)."""
    copy = make_copy(tmp_path_factory.mktemp("minimal_step"))
    assert (copy.root / EXAMPLE).is_file(), f"{EXAMPLE} is missing (common/harness.h shows it as the smallest step)"
    number = after(step_folders(copy.root)[-1][:2])
    folder = copy.root / "steps" / f"{number}_minimal"
    folder.mkdir()
    shutil.copy2(copy.root / EXAMPLE, folder)
    return copy, number, copy.make(f"step{number}")


def test_the_minimal_example_builds_and_lists_its_variants(minimal, subtests):
    """docs/examples/minimal_step.cu is a whole step as it stands: it builds and lists its kernels."""
    copy, number, built = minimal
    with subtests.test(msg=f"{EXAMPLE} builds as step {number} (steps/{number}_minimal/)"):
        assert built.returncode == 0, f"make step{number}: {first_lines(built.stdout + built.stderr)} ({copy.root})"
    with subtests.test(msg=f"{EXAMPLE} lists its variants without a GPU"):
        lists_variants(copy, f"build/step{number}")


@pytest.mark.gpu
def test_the_minimal_example_is_bit_exact_on_the_grade_shapes(minimal):
    """Every kernel of the minimal example gives the exact transpose on the grade shapes."""
    copy, number, built = minimal
    assert built.returncode == 0, f"make step{number}: {first_lines(built.stdout + built.stderr)}"
    shapes = tagged("grade")
    checked = copy.run([f"build/step{number}", "--check-only", "--shapes", shapes])
    bad = [line for line in checked.stdout.splitlines() if line.startswith(("FAIL ", "SKIP "))]
    errors = [line for line in (checked.stdout + checked.stderr).splitlines() if "error" in line]
    assert checked.returncode == 0 and not bad, (
        f"{EXAMPLE} --check-only on the grade shapes (exit {checked.returncode}): {' '.join((bad + errors)[:3])}")
    assert any(line.startswith("PASS ") for line in checked.stdout.splitlines()), (
        f"{EXAMPLE} --check-only printed no PASS line: {first_lines(checked.stdout)}")
