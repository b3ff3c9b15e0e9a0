"""Every program builds, with host and device warnings as errors.

conftest.py has already run `make -k all` once, after deleting the programs; these tests read
what it left: each program must exist, and the build log must hold no warning or error.
"""

import re

import pytest

from conftest import BUILD, LOGS, ROOT, make_command, run

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
