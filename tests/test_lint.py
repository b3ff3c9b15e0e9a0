"""Lint with zero findings: ruff on the lab and the tests, cppcheck on the host C files,
shellcheck on the shell scripts; and tests/shapes.txt, the one list of test shapes, well formed."""

import importlib.util
import shutil

import pytest

from conftest import ROOT, assert_exit, first_lines, rel, repo_files, run
from lab import shapes

pytestmark = pytest.mark.lint


def needs(tool: str):
    return pytest.mark.skipif(shutil.which(tool) is None, reason=f"{tool} is not installed (.ci/run installs it)")


@pytest.mark.skipif(importlib.util.find_spec("ruff") is None,
                    reason="ruff is not installed for this Python (make setup installs pyproject.toml's pins)")
def test_ruff():
    result = run(["python3", "-m", "ruff", "check", "--no-cache", "--output-format", "concise", "lab", "tests"])
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr


CPPCHECK = ["cppcheck", "--enable=warning,style,performance,portability", "--std=c11", "--inline-suppr",
            "--error-exitcode=1", "--quiet", "-Icommon"]


@needs("cppcheck")
@pytest.mark.parametrize("source", repo_files("common/*.c", "tests/*.c"), ids=rel)
def test_cppcheck(source):
    result = run([*CPPCHECK, source])
    assert result.returncode == 0, f"{first_lines(result.stderr, 1000)}; run: {' '.join(CPPCHECK)} {source}"


@needs("shellcheck")
@pytest.mark.parametrize("script", [*repo_files("**/*.sh"), ROOT / ".ci/run"], ids=rel)
def test_shellcheck(script):
    result = run(["shellcheck", "-x", script])
    assert result.returncode == 0, result.stdout[-3000:]


@pytest.mark.parametrize("tag", ["check", "grade", "sanitize", "huge", "report", "bench"])
def test_shapes_file_has_tag(tag):
    assert shapes.tagged(tag)


@pytest.mark.parametrize("line", ["64x64+4 check", "64x check", "64x64", "1x1 check\n1x1 grade"])
def test_shapes_file_refuses_a_malformed_line(line, tmp_path, monkeypatch):
    planted = tmp_path / "shapes.txt"
    planted.write_text(line + "\n")
    monkeypatch.setattr(shapes, "FILE", planted)
    with pytest.raises(shapes.machine.Stop):
        shapes.read()


def test_shapes_file_refuses_an_unknown_tag():
    assert_exit(run(["python3", "-m", "lab.shapes", "no_such_tag"]), 2)
