"""What every test file shares: the paths, the build, the GPU, and the ways a program may fail.

Before any test, the controller builds every program once (`make -k all`, after deleting the programs, so
that one which no longer builds cannot pass as a stale file). Tests marked `gpu` skip, with the reason,
where CUDA sees no GPU; those marked `slow` run with --run-slow only.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lab import machine, shapes  # noqa: E402  (after the path is set)

CPUS = os.cpu_count() or 2


try:  # the GPU's name, or why there is none
    GPU_NAME, NO_GPU = machine.gpu()[0], ""
except machine.Stop as stop:
    GPU_NAME, NO_GPU = "", str(stop)
if NO_GPU:
    # Without a GPU the Makefile would build for five architectures; the tests need one, and
    # every make they run inherits it, so nothing is built twice.
    os.environ.setdefault("ARCH", "sm_90")


def make_command(*args: str) -> list[str]:
    """`make` with the build folder of this run, quiet, and with no outer make's flags."""
    return ["make", "-s", "--no-print-directory", f"BUILD={BUILD}", *args]


def clean_env(**extra: str) -> dict:
    """The environment for a program: no outer make's flags, OpenMP threads shared out."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    env.setdefault("OMP_NUM_THREADS", str(max(1, CPUS // 4)))
    env["OMP_WAIT_POLICY"] = "passive"  # many programs share the CPUs: no spinning threads
    env.update(extra)
    return env


def run(command, timeout: float = 600, **env: str) -> subprocess.CompletedProcess:
    """Run a command from the repository root; its output as text, never raising on failure."""
    return subprocess.run([str(c) for c in command], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env=clean_env(**env), check=False)


def make_locked(*args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    """make, one test at a time: two workers making the same target at once would race on its files (one
    removes an archive while the other links it)."""
    lock_path = ROOT / BUILD / ".tests-make.lock"
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return run(make_command(*args), timeout=timeout)


# The build folder, as the Makefile names it for this ARCH; the grader, which reads BUILD, uses it too.
BUILD = Path(os.environ.get("BUILD") or run(["make", "-s", "--no-print-directory", "print-build"]).stdout.strip())
os.environ["BUILD"] = str(BUILD)
LOGS = ROOT / BUILD / "test-logs"
STEPS = machine.steps()
STEP_BINS = [BUILD / f"step{n}" for n in STEPS]
FIRST_BIN = STEP_BINS[0]


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def repo_files(*patterns: str) -> list[Path]:
    """The repository's files (tracked, or new and not ignored) matching the glob patterns, each once, in order."""
    listed = run(["git", "ls-files", "-co", "--exclude-standard", "--", *(f":(glob){p}" for p in patterns)])
    return sorted({ROOT / f for f in listed.stdout.split() if (ROOT / f).is_file()})


def first_lines(text: str, limit: int = 300) -> str:
    return " ".join(text[:limit].split())


def assert_exit(result: subprocess.CompletedProcess, code: int) -> None:
    """The command exited with code; for 2 (bad input) and 3 (machine), with exactly one line
    on stderr and nothing on stdout, as every program here promises."""
    assert result.returncode == code, f"exit {result.returncode}, expected {code}: {first_lines(result.stderr)}"
    if code >= 2:
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and not result.stdout, f"not one line on stderr: {first_lines(result.stderr)}"


def one_error_line(result: subprocess.CompletedProcess) -> str:
    """The one `error:` line of a make target that failed (make may add lines of its own)."""
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, f"expected one error: line, got: {first_lines(result.stderr)}"
    return errors[0]


def tagged(tag: str) -> str:
    """The shapes of tests/shapes.txt with this tag, comma-separated for --shapes."""
    return ",".join(shapes.tagged(tag))


@contextlib.contextmanager
def host_memory(exclusive: bool = False):
    """Ration host memory between tests that run side by side (pytest-xdist).

    A check of more than 2^31 elements needs ~26 GB of host memory: one such check runs at once per 40 GiB
    (at least 1, at most 4 slots; a worker waits for the slot its process id names). A test that sizes its
    shape from the memory available now (exclusive) runs with none of them, so that what it measured cannot
    change under it.
    """
    slots = max(1, min(4, os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // (40 << 30)))
    LOGS.mkdir(parents=True, exist_ok=True)
    with open(LOGS / "host-memory.lock", "w") as gate:
        fcntl.flock(gate, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        with open(LOGS / f"host-memory-{os.getpid() % slots}.lock", "w") as slot:
            if not exclusive:
                fcntl.flock(slot, fcntl.LOCK_EX)
            yield


# ------------------------------------------------------------------ pytest hooks
def pytest_addoption(parser):
    parser.addoption("--run-slow", action="store_true", help="also run the tests marked slow")


def pytest_configure(config):
    """Build every program once, in the controller, before any worker starts: on the terminal as it
    goes, and into build.log, which test_build.py reads."""
    if hasattr(config, "workerinput") or config.option.collectonly:
        return
    LOGS.mkdir(parents=True, exist_ok=True)
    for program in run(make_command("print-bins")).stdout.split():
        (ROOT / program).unlink(missing_ok=True)
    command = make_command("-k", f"-j{CPUS}", "all")
    capture = config.pluginmanager.getplugin("capturemanager")
    with (capture.global_and_fixture_disabled() if capture else contextlib.nullcontext()), \
            open(LOGS / "build.log", "w") as log:
        print(f"Building every program first ({' '.join(command)}; the log: {LOGS / 'build.log'})", flush=True)
        build = subprocess.Popen(command, cwd=ROOT, env=clean_env(), stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True)
        for line in build.stdout:
            print(line, end="", flush=True)
            log.write(line)
        build.wait()


def pytest_report_header(config):
    return f"GPU: {GPU_NAME or 'none (' + NO_GPU + ')'}; build folder: {BUILD}"


def pytest_collection_modifyitems(config, items):
    slow = pytest.mark.skip(reason="slow: run with --run-slow (make test PYTEST_ARGS=--run-slow)")
    no_gpu = pytest.mark.skip(reason=f"no GPU: {NO_GPU}")
    for item in items:
        if "slow" in item.keywords and not config.getoption("--run-slow"):
            item.add_marker(slow)
        if "gpu" in item.keywords and NO_GPU:
            item.add_marker(no_gpu)
