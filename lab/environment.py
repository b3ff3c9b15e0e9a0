"""The lab's Python: the packages pyproject.toml pins, set up once (`make setup`, which every
make target that runs the lab asks for first).

    python3 -m lab.environment          set up (or see that all is set up)
    python3 -m lab.environment --venv   make .venv even where python3 has the pins (CI: a fresh machine)

Where python3 imports every pinned version and cuobjdump is found, the lab runs on python3 as it is.
Otherwise it runs from .venv/, made here from the pins (once, from PyPI), with NVIDIA's cuobjdump and
nvdisasm wheels linked into .venv/bin where the toolkit lacks them; delete .venv to go back to python3.
A machine without PyPI whose python3 imports every package at other versions goes on with it, with one
note, and build/python-as-is.txt remembers that (delete it to retry). PYTHON=python3 skips all this.

Exit codes: 0 set up, 2 bad command line, 3 this machine cannot set it up (one line says what
is missing and what to do).
"""

import argparse
import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
STAMP = VENV / "pins.txt"  # the pins last installed into .venv: it is brought up to date when they change
# Written where the pins could not be installed but python3 imports every package at other versions (a GPU
# machine without PyPI): the lab then runs on python3 as it is, without trying PyPI again for these pins.
AS_IS = ROOT / "build" / "python-as-is.txt"
TOOLS = ("cuobjdump", "nvdisasm")


class CannotSetUp(Exception):
    """One line: what is missing and what to do (exit 3)."""


def pins(extra: str = "test") -> list:
    """pyproject.toml's dependencies with its test extra (["pandas==3.1.1", ...]), or another extra alone."""
    import tomllib  # Python 3.11 or later, as main() checked

    with open(ROOT / "pyproject.toml", "rb") as file:
        project = tomllib.load(file)["project"]
    return (project["dependencies"] if extra == "test" else []) + project["optional-dependencies"][extra]


def version_of(pin: str) -> "str | None":  # a string: Python before 3.10 must get as far as main()
    """The version of a pin's package ("pandas==3.1.1") that this Python has, or None."""
    import importlib.metadata  # Python 3.8 or later, as main() checked

    try:
        return importlib.metadata.version(pin.split("==")[0])
    except importlib.metadata.PackageNotFoundError:
        return None


def installed(pin: str) -> bool:
    """Whether this Python has the pinned version ("pandas==3.1.1")."""
    return version_of(pin) == pin.split("==")[1]


def have_cuobjdump() -> bool:
    """cuobjdump where the lab looks for it (lab.machine.find_tool: the CUDA toolkit, .venv/bin)."""
    from lab import machine  # here, after main() checked the Python version

    try:
        return bool(machine.find_tool("cuobjdump", "CUOBJDUMP"))
    except machine.Stop:
        return False


def pip_install(requirements: list) -> None:
    """pip install into .venv; on failure, pip's last line."""
    pip = subprocess.run([str(VENV / "bin" / "python"), "-m", "pip", "install", "--disable-pip-version-check",
                          "--quiet", "--retries", "2", "--timeout", "15", *requirements],  # no PyPI: fail soon
                         capture_output=True, text=True)
    if pip.returncode != 0:
        last = (pip.stderr.strip().splitlines() or ["no output"])[-1]
        raise CannotSetUp(f"pip could not install {requirements[0]} and the rest into .venv ({last}): run make again "
                          "where PyPI can be reached, or install pyproject.toml's pins into python3 yourself")


def make_venv(why: str) -> None:
    if importlib.util.find_spec("ensurepip") is None:
        raise CannotSetUp(f"{why}, and this python3 cannot make a virtual environment (no ensurepip): install "
                          "Debian's python3-venv, or install pyproject.toml's pins into python3 yourself")
    import venv

    print(f"lab: {why}: making .venv from pyproject.toml's pins (once; a minute or two, from PyPI)",
          file=sys.stderr, flush=True)
    try:
        venv.create(VENV, with_pip=True)
    except subprocess.CalledProcessError as err:
        raise CannotSetUp(f"python3 could not make .venv ({err}): install pyproject.toml's pins into python3 "
                          "yourself") from err


def recorded(path: Path, wanted: list) -> bool:
    """Whether a stamp (.venv's pins.txt, or AS_IS) holds exactly these pins."""
    return path.is_file() and path.read_text().split() == wanted


def record(path: Path, wanted: list) -> None:
    path.parent.mkdir(exist_ok=True)
    path.write_text("\n".join(wanted) + "\n")


def run_as_is(wanted: list, err: CannotSetUp) -> bool:
    """Where python3 has every package but ruff (whose test then skips), at any version, go on with it: one note,
    and a stamp so that the makes to come do not try PyPI again. False where a package is missing altogether."""
    if not all(version_of(pin) for pin in wanted if not pin.startswith("ruff==")):
        return False
    print(f"lab: going on with python3's own packages, at other versions than the pins: {err}", file=sys.stderr)
    record(AS_IS, wanted)
    return True


def set_up(always_venv: bool) -> None:
    wanted, why = pins(), ""
    if not always_venv and not VENV.exists() and recorded(AS_IS, wanted):
        return  # this machine could not install these pins before: python3 as it is (delete build/ to try again)
    if not VENV.exists():
        missing = [pin for pin in wanted if not installed(pin)]
        if not (missing or always_venv or not have_cuobjdump()):
            return  # python3 as it is
        why = f"python3 lacks {missing[0]}" if missing else "--venv" if always_venv else "cuobjdump not found"
    try:
        if why:
            make_venv(why)
        if not recorded(STAMP, wanted):
            pip_install(wanted)
            record(STAMP, wanted)
        if not have_cuobjdump():
            pip_install(pins("cuda-tools"))
            for tool in TOOLS:  # where lab.machine.find_tool looks, and on PATH with the venv's bin/
                for wheel in VENV.glob(f"lib/python*/site-packages/nvidia/cu*/bin/{tool}"):
                    (VENV / "bin" / tool).unlink(missing_ok=True)
                    (VENV / "bin" / tool).symlink_to(wheel)
    except CannotSetUp as err:
        if not STAMP.is_file():  # never finished: gone, so that the next try starts afresh
            shutil.rmtree(VENV, ignore_errors=True)
        if VENV.exists() or why == "cuobjdump not found":  # the pins are there: without cuobjdump, checks skip
            print(f"lab: going on without cuobjdump: {err}", file=sys.stderr)
            return
        if not always_venv and run_as_is(wanted, err):
            return
        raise


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m lab.environment", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--venv", action="store_true", help="make .venv even where python3 has the pins")
    args = parser.parse_args(argv)
    if sys.version_info < (3, 11):
        print(f"error: python3 is Python {sys.version.split()[0]}; the lab needs 3.11 or newer: put one first on "
              "PATH as python3", file=sys.stderr)
        return 3
    try:
        set_up(args.venv)
    except CannotSetUp as err:
        print(f"error: {err} (or run make with PYTHON=python3, or export it, to use python3's packages as they are)",
              file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
