"""What the measuring commands share: exit codes, the GPU, the CUDA tools, the steps.

Every command stops with one line on stderr and an exit code a script can act
on: 1 a wrong result or a failed run, 2 a bad command line (argparse's own),
3 this machine cannot do the job (no GPU, no ncu, a program not built).
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import datetime
import functools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from lab import schema

EXIT_WRONG, EXIT_USAGE, EXIT_ENVIRONMENT = 1, 2, 3
ROOT = schema.ROOT


class Stop(Exception):
    """Stop the command: main() prints the message as one line and exits with code."""

    def __init__(self, message: str, code: int = EXIT_ENVIRONMENT):
        super().__init__(message)
        self.code = code


class Parser(argparse.ArgumentParser):
    """argparse, with a bad command line answered by one line (not the usage) and exit 2,
    and --help showing the module's manual (its docstring, as written)."""

    def __init__(self, **kwargs):
        super().__init__(formatter_class=argparse.RawDescriptionHelpFormatter, **kwargs)

    def error(self, message):
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see --help)\n")


def main(command, argv=None) -> int:
    """Run command(argv); a Stop becomes its one line on stderr and its exit code, and so does
    a results file that cannot be read (exit 1)."""
    from lab import results  # here, not above: lab.environment imports this module before pandas is installed

    try:
        return command(argv)
    except Stop as err:
        print(f"error: {err}", file=sys.stderr)
        return err.code
    except results.ResultsError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_WRONG


def gpu() -> tuple[str, int]:
    """(name, compute capability as 10 * major + minor) of the first GPU CUDA can use, or Stop (exit 3).

    Asked of the driver, not of nvidia-smi, so that CUDA_VISIBLE_DEVICES is obeyed:
    a GPU the programs cannot use is no GPU here.
    """
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError as err:
        raise Stop("no NVIDIA driver here (libcuda.so.1 cannot be loaded): this needs a GPU") from err
    count, device, major, minor = ctypes.c_int(0), ctypes.c_int(0), ctypes.c_int(0), ctypes.c_int(0)
    if cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(count)) != 0 or count.value == 0:
        hidden = os.environ.get("CUDA_VISIBLE_DEVICES")
        why = f" (CUDA_VISIBLE_DEVICES={hidden!r})" if hidden is not None else ""
        raise Stop(f"CUDA sees no GPU{why}: this needs a GPU")
    name = ctypes.create_string_buffer(256)
    cuda.cuDeviceGet(ctypes.byref(device), 0)
    cuda.cuDeviceGetName(name, len(name), device)
    cuda.cuDeviceGetAttribute(ctypes.byref(major), 75, device)  # CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
    cuda.cuDeviceGetAttribute(ctypes.byref(minor), 76, device)  # ..._MINOR
    return name.value.decode(), 10 * major.value + minor.value


def driver() -> str:
    """"580.159.04 (CUDA 13.0)": the driver as nvidia-smi and libcuda name it; '' parts if absent."""
    text = ""
    try:
        text = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=60).stdout.split("\n")[0].strip()
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        version = ctypes.c_int()
        ctypes.CDLL("libcuda.so.1").cuDriverGetVersion(ctypes.byref(version))
        text += f" (CUDA {version.value // 1000}.{version.value % 1000 // 10})"
    except OSError:
        pass
    return text.strip()


# What to do without cuobjdump, said the same way by the grader, lab.sass, the tests' skip reasons and the README.
CUOBJDUMP_MISSING = ("cuobjdump not found: not every CUDA toolkit has it; `make setup` puts NVIDIA's in .venv/bin "
                     "(the nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm wheels pinned in pyproject.toml); "
                     "or set CUOBJDUMP=")


def find_tool(name: str, override: str) -> str:
    """The path of a CUDA tool, or Stop (exit 3).

    The environment variable `override` (NCU, COMPUTE_SANITIZER, ...) names it
    outright; else PATH, $CUDA_HOME/bin, /usr/local/cuda/bin, .venv/bin (where
    `make setup` links the tools of NVIDIA's wheels) and the folders where
    Nsight Compute installs itself (/opt/nvidia/nsight-compute/<version>/, ncu's).
    """
    if os.environ.get(override):
        found = shutil.which(os.environ[override])
        if found is None:
            raise Stop(f"{override}={os.environ[override]} is not a program")
        return found
    places = [Path(os.environ.get("CUDA_HOME", "/nonexistent"), "bin", name), Path("/usr/local/cuda/bin", name),
              ROOT / ".venv" / "bin" / name, *sorted(Path("/opt/nvidia/nsight-compute").glob(f"*/{name}"))]
    found = shutil.which(name) or next((str(p) for p in places if os.access(p, os.X_OK)), None)
    if found is None:
        raise Stop(CUOBJDUMP_MISSING if name == "cuobjdump" else
                   f"{name} not found: it comes with the CUDA toolkit; put it on PATH or set {override}=")
    return found


def steps() -> list[str]:
    """The step numbers, from the steps/NN_name/ folders: ["01", ..., "12"]."""
    return sorted(p.name[:2] for p in (ROOT / "steps").glob("[0-9][0-9]_*") if p.is_dir())


# The element types of the steps, by name, and their size in bytes.
DTYPES = {"float32": 4, "bf16": 2}


STUDY = "study"  # the lab's study program, build/study (lab/study/study.cu), which the studies run beside the steps


def program_name(step: str) -> str:
    """The file name of a step's program, stepNN, or of the study program."""
    return STUDY if step == STUDY else f"step{step}"


def making(build: Path, step: str) -> str:
    """The make command that builds build/stepNN: 'make step05', or 'make ARCH=sm_90 step05' for build/sm_90."""
    target = "study-program" if step == STUDY else f"step{step}"
    return f"make {'ARCH=' + build.name + ' ' if build.name.startswith('sm_') else ''}{target}"


def program(build: Path, step: str) -> Path:
    """build/stepNN (or build/study), or Stop (exit 3) when it was not built."""
    path = build / program_name(step)
    if not os.access(path, os.X_OK):
        raise Stop(f"{path} is missing: run '{making(build, step)}'")
    return path


TENSOR_STEP = "15"  # the step whose program takes tensors (--dims, --perm) and prints their fold (--plan)


def fold(dims: str, perm: str, build: Path | None = None) -> dict:
    """Step 15's fold of a tensor (dims and perm comma-separated), as its program prints it with --plan: the rule's
    own output, never a copy of it."""
    build = build or ROOT / os.environ.get("BUILD", "build")
    ran = subprocess.run([str(program(build, TENSOR_STEP)), "--dims", dims, "--perm", perm, "--plan"],
                         capture_output=True, text=True, timeout=60)
    if ran.returncode:
        raise Stop(f"{program_name(TENSOR_STEP)} --dims {dims} --perm {perm} --plan: "
                   f"{(ran.stderr.strip().splitlines() or ['exit ' + str(ran.returncode)])[-1]}", 2)
    return json.loads(ran.stdout)


@functools.cache
def describe(step: str, build: Path | None = None) -> dict:
    """What a step's program in build ($BUILD as make sets it, else build/) says of itself with --describe (see
    common/report.h); Stop (exit 3) where it is not built, or too old to answer. The lab never reads the sources."""
    build = build or ROOT / os.environ.get("BUILD", "build")
    path = program(build, step)
    ran = subprocess.run([str(path), "--describe"], capture_output=True, text=True, timeout=60)
    if ran.returncode == 0:
        with contextlib.suppress(json.JSONDecodeError):
            return json.loads(ran.stdout)
    raise Stop(f"{path} --describe gave no description (exit {ran.returncode}): rebuild it, '{making(build, step)}'")


def element_bytes(step: str, build: Path | None = None) -> int:
    """Bytes per element of a step, 4 (float32) or 2 (bf16): a kernel is compared only with kernels of its size."""
    return describe(step, build)["element_bytes"]


def steps_of(dtype: str, build: Path | None = None) -> list[str]:
    """The steps whose elements are of this type ("float32" or "bf16"), in order."""
    return [step for step in steps() if element_bytes(step, build) == DTYPES[dtype]]


def answer_step(dtype: str = "float32", build: Path | None = None) -> str:
    """The tutorial's answer for an element type: the last step whose default kernel takes it (--describe's
    element_types; a step may take both through --dtype), the kernel the README puts forward. A step of tensor
    kernels (step 15) takes matrices too, but is not the matrices' answer."""
    found = [step for step in steps() if dtype in (d := describe(step, build))["element_types"] and not d["tensors"]]
    if not found:
        raise Stop(f"no step under steps/ has {dtype} elements")
    return found[-1]


def write_env(path: Path, fields: dict) -> None:
    """A `key: value` file beside a results CSV: what ran, where and when."""
    fields = {"date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"), **fields}
    path.write_text("".join(f"{key}: {value}\n" for key, value in fields.items()))


def say(message: str) -> None:
    """Progress, on stderr, so that stdout stays the command's result."""
    print(message, file=sys.stderr, flush=True)


def print_answers(argv) -> int:
    """`python3 -m lab.machine`, for make peers-lib: the float32 answer and the bf16 one ("12 13")."""
    print(*(answer_step(dtype) for dtype in DTYPES))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(print_answers))
