"""Adding a step takes one new folder and nothing else: the first step copied to steps/NN_probe/ of a copy
of the repository, and docs/examples/minimal_step*.cu in steps/MM_minimal/ of another, are whole steps.
Each copy starts with the main build's objects, and stays in pytest's temporary folder after a failure.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import BUILD, CPUS, ROOT, assert_exit, clean_env, first_lines, rel, repo_files, tagged

pytestmark = pytest.mark.addstep

EXAMPLE = "docs/examples/minimal_step.cu"
EXAMPLE_16 = "docs/examples/minimal_step_16.cu"  # the same for 2-byte elements
MAKE = ["make", "-s", "--no-print-directory", "BUILD=build", f"-j{CPUS}"]  # the copy's build folder, not ours
GIT = ["git", "-c", "user.name=test", "-c", "user.email=test@localhost", "-c", "commit.gpgsign=false"]


def in_copy(root: Path, *command, **env: str) -> subprocess.CompletedProcess:
    """Run a command in a copy, with no outer pytest or git in the environment: it is a repository of its own."""
    environment = {k: v for k, v in clean_env(BUILD="build", **env).items() if not k.startswith(("PYTEST_", "GIT_"))}
    return subprocess.run([str(c) for c in command], cwd=root, capture_output=True, text=True, timeout=900,
                          env=environment, check=False)


def copy_with_a_new_step(folder: Path, name: str, file: str = "") -> tuple[Path, str, str]:
    """The repository committed in folder/repo (git status then shows what changed), the main build's objects
    in its build/, and steps/NN_name/ holding file, or else the first step's files: (copy, NN, first step)."""
    root = folder / "repo"
    for path in repo_files("**"):
        (root / rel(path)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, root / rel(path), follow_symlinks=False)
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "the repository as it was"]):
        result = in_copy(root, *GIT, *command)
        assert result.returncode == 0, f"git {command[0]} in the copy: {first_lines(result.stderr)}"
    seeds = ("obj", "libcommon.a", "flags.txt")  # one stale or missing only makes the copy compile more
    shutil.copytree(ROOT / BUILD, root / "build", symlinks=True, ignore=lambda where, names: [
        n for n in names if where == str(ROOT / BUILD) and n not in seeds])
    steps = sorted(p for p in (root / "steps").glob("[0-9][0-9]_*") if p.is_dir())
    new = root / "steps" / f"{int(steps[-1].name[:2], 10) + 1:02d}_{name}"
    if file:
        assert (root / file).is_file(), f"{file} is missing (common/harness.h shows it as the smallest step)"
        new.mkdir()
        shutil.copy2(root / file, new)
    else:
        shutil.copytree(steps[0], new)
    return root, new.name[:2], steps[0].name[:2]


def suite_tests_the_new_step(root: Path, first: str, number: str) -> None:
    """The copy's suite on the sections that need no GPU passes, and every test it runs on the first step it
    runs and passes on the new one (the ids name the program: build/stepNN).  Its conftest builds everything
    first; this file stays out (it would copy the copy), and no byte code is written (git status)."""
    report = root.parent / "suite.xml"
    suite = in_copy(root, sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-m",
                    "build or badinput or nogpu", f"--numprocesses={min(4, CPUS // 4)}",
                    "--ignore=tests/test_add_step.py", f"--junitxml={report}", PYTHONDONTWRITEBYTECODE="1")
    cases = ET.parse(report).getroot().iter("testcase") if report.is_file() else []
    outcomes = {f"{c.get('classname')}::{c.get('name')}": {e.tag for e in c} for c in cases}  # failure, skipped...
    summary = (suite.stdout.strip().splitlines() or [first_lines(suite.stderr)])[-1]
    failed = [name for name, tags in outcomes.items() if tags & {"failure", "error"}]
    assert suite.returncode == 0 and not failed, f"the copy's suite: {summary} {failed[:5]} (the copy: {root})"
    old, new = f"[build/step{first}]", f"[build/step{number}]"
    expected = [name.replace(old, new) for name in outcomes if old in name]
    missing = [name for name in expected if outcomes.get(name, {"missing"}) & {"skipped", "missing"}]
    assert expected and not missing, f"the copy's suite did not run or pass {missing or 'anything'} ({summary})"


def test_a_copied_step_folder_is_a_new_step(tmp_path, subtests):
    """steps/NN_probe/ alone makes step NN: built, tested, and nothing else changed. The copy's suite holds make help,
    print-bins, --list-variants and --describe's step number (which comes from the folder) to every step."""
    root, number, first = copy_with_a_new_step(tmp_path, "probe")
    step, program = f"step{number}", f"build/step{number}"
    with subtests.test(msg=f"make {step} builds {program}"):
        built = in_copy(root, *MAKE, step)
        assert built.returncode == 0, f"make {step}: {first_lines(built.stdout + built.stderr)} (the copy: {root})"
        assert (root / program).is_file(), f"make {step} succeeded but left no {program} (the copy: {root})"
    with subtests.test(msg=f"the copy's own suite builds and tests {step} as it does step{first}"):
        suite_tests_the_new_step(root, first, number)
    with subtests.test(msg=f"git status in the copy shows only the new steps/{number}_probe/"):
        status = in_copy(root, *GIT, "status", "--porcelain", "--untracked-files=normal")
        assert status.stdout.strip() == f"?? steps/{number}_probe/", f"git status: {first_lines(status.stdout)}"


@pytest.fixture(scope="module", params=[EXAMPLE, EXAMPLE_16])
def minimal(request, tmp_path_factory) -> tuple[Path, str]:
    """A copy of its own with a minimal example (float32, 2-byte) in steps/MM_minimal/, built: (the copy, MM)."""
    root, number, _ = copy_with_a_new_step(tmp_path_factory.mktemp("minimal_step"), "minimal", request.param)
    built = in_copy(root, *MAKE, f"step{number}")
    assert built.returncode == 0, f"make step{number}: {first_lines(built.stdout + built.stderr)} ({root})"
    return root, number


def test_the_minimal_example_builds_and_lists_its_variants(minimal):
    """docs/examples/minimal_step*.cu is a whole step as it stands: it builds and lists its kernels without a GPU."""
    root, number = minimal
    listed = in_copy(root, f"build/step{number}", "--list-variants", CUDA_VISIBLE_DEVICES="")
    assert_exit(listed, 0)
    assert listed.stdout.strip(), f"build/step{number} --list-variants listed nothing ({root})"


@pytest.mark.gpu
def test_the_minimal_example_is_bit_exact_on_the_grade_shapes(minimal):
    """Every kernel of the minimal example gives the exact transpose on the grade shapes."""
    root, number = minimal
    checked = in_copy(root, f"build/step{number}", "--check-only", "--shapes", tagged("grade"))
    lines = checked.stdout.splitlines()
    bad = [line for line in lines if line.startswith(("FAIL ", "SKIP "))]
    errors = [line for line in (checked.stdout + checked.stderr).splitlines() if "error" in line]
    assert checked.returncode == 0 and not bad, f"--check-only exit {checked.returncode}: {(bad + errors)[:3]}"
    assert any(line.startswith("PASS ") for line in lines), f"no PASS line: {first_lines(checked.stdout)}"
