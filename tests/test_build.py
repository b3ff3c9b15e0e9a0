"""Every program builds without a warning (conftest.py's build and its log), every make target that runs
the steps builds them first, and the suite runs on the versions pyproject.toml pins (make setup).
"""

import os
import re

import pytest

from conftest import BUILD, LOGS, ROOT, STEPS, make_command, run
from lab import bench, environment

pytestmark = pytest.mark.build

PROGRAMS = run(make_command("print-bins")).stdout.split()


@pytest.mark.parametrize("program", PROGRAMS)
def test_program_builds(program):
    assert (ROOT / program).is_file(), f"{program} was not built: see {LOGS / 'build.log'}"


def test_the_build_prints_no_warning():
    log = (LOGS / "build.log").read_text()
    problems = [line for line in log.splitlines() if re.search(r"warning|error", line, re.IGNORECASE)]
    assert not problems, "\n".join(problems[:20])


def test_every_step_is_a_program():
    steps = sorted(p.name.split("_")[0] for p in (ROOT / "steps").glob("[0-9][0-9]_*") if p.is_dir())
    assert [f"{BUILD}/step{n}" for n in steps] == [p for p in PROGRAMS if "/step" in p]


def steps_linked(*make_args: str) -> list[str]:
    """The steps whose programs `make -n -B ARGS` would link: what a target builds before it runs, whatever is
    up to date (-n runs nothing, -B takes every file as out of date)."""
    dry = run(make_command("-n", "-B", *make_args))
    assert dry.returncode == 0, dry.stderr
    return sorted(set(re.findall(rf" -o {re.escape(str(BUILD))}/step(\d\d)\b", dry.stdout)))


@pytest.mark.parametrize(("variables", "steps"), [
    ([], STEPS),
    ([f"STEPS={STEPS[0]},{int(STEPS[4])}"], [STEPS[0], STEPS[4]]),  # 5 and 05 alike
    ([f"RERUN={STEPS[-2]} {STEPS[-1]}"], STEPS[-2:]),
    ([f"STEP={STEPS[4]}"], [STEPS[4]]),
], ids=["none named", "STEPS", "RERUN", "STEP"])
def test_make_bench_builds_the_steps_it_times(variables, steps):
    assert steps_linked("bench", *variables) == steps


def test_make_bench_passes_step_on():
    dry = run(make_command("-n", "bench", f"STEP={STEPS[4]}")).stdout
    assert f"--steps '{STEPS[4]}'" in dry, dry[-500:]


def test_make_study_builds_the_study_program_and_every_step_and_runs_each_study():
    """The studies run the study program beside the steps' own: make study builds them all, then runs each."""
    assert steps_linked("study") == STEPS
    dry = run(make_command("-n", "-B", "study")).stdout
    assert f" -o {BUILD}/study" in dry
    assert "for s in all;" in dry, dry[-500:]   # every study lab.bench knows: its own list, not a copy here
    assert bench.parse_args(["--study", "all", "--gpu", "g", "--study", "pattern"]).study == "pattern"   # each in turn
    assert "for s in pattern;" in run(make_command("-n", "study", "STUDIES=pattern")).stdout   # or those named


@pytest.mark.skipif("PYTHON" in os.environ or environment.AS_IS.is_file(),
                    reason="the suite runs on python3's own packages (PYTHON set, or the pins could not be installed)")
def test_the_suite_runs_on_the_pinned_versions():
    """make setup chose a Python with every pin (python3 itself, or .venv); one it lacks is seen as lacking."""
    lacking = [pin for pin in environment.pins() if not environment.installed(pin)]
    assert not lacking, f"this Python lacks {lacking}: run the tests with make test"
    assert not environment.installed("pytest==0.0.1")


@pytest.mark.parametrize("package, goes_on", [("pandas", True), ("no-such-package", False)])
def test_a_machine_without_pypi_goes_on_with_python3_only_where_it_imports_every_package(package, goes_on, tmp_path,
                                                                                          monkeypatch):
    """No PyPI (a GPU machine): python3's own versions do, with one note and a stamp; a package missing is exit 3."""
    def no_pypi(*args):
        raise environment.CannotSetUp("pip could not reach PyPI")

    monkeypatch.setattr(environment, "pins", lambda extra="test": [f"{package}==0.0.1"])
    monkeypatch.setattr(environment, "VENV", tmp_path / ".venv")
    monkeypatch.setattr(environment, "AS_IS", tmp_path / "build" / "python-as-is.txt")
    monkeypatch.setattr(environment, "make_venv", no_pypi)
    if goes_on:
        environment.set_up(False)
        assert environment.AS_IS.read_text().split() == [f"{package}==0.0.1"]
    else:
        with pytest.raises(environment.CannotSetUp):
            environment.set_up(False)
