"""The capstone as a project would take it: steps/14_dispatch/transpose/ copied out of the repository.

Its kernels travel as one generated header, which must be what `make amalgamate` makes of the steps' headers
today, and which refuses a header of the harness.  A copy of steps/14_dispatch/ alone builds the example
(example/Makefile: nvcc for the library, cc for the C program) without a GPU; the library refuses bad arguments
before any CUDA call (tests/api_arguments.c, run with the GPU hidden); and on a GPU the example is bit-exact.
"""

import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import NO_GPU, ROOT, assert_exit, first_lines, run
from lab import amalgamate, machine

CAPSTONE = ROOT / "steps" / "14_dispatch"


@pytest.mark.build
def test_the_committed_amalgamation_is_fresh_and_a_stale_one_is_caught_and_rewritten(tmp_path, monkeypatch):
    assert amalgamate.main(["--check"]) == 0, "stale: run `make amalgamate`"
    planted = tmp_path / "transpose_kernels.cuh"
    planted.write_text(amalgamate.amalgamate().replace("#define TILE 64", "#define TILE 32"))
    monkeypatch.setattr(amalgamate, "OUTPUT", str(planted))   # absolute: ROOT / OUTPUT is the planted file
    assert amalgamate.main(["--check"]) == 1
    assert amalgamate.main([]) == 0 and amalgamate.main(["--check"]) == 0


@pytest.mark.build
def test_a_header_of_the_harness_is_refused(tmp_path):
    for path, text in {"common/check.h": "", "common/kernel_utils.cuh": "", "steps/99_x/a.cuh": '#include "b.cuh"\n',
                       "steps/99_x/b.cuh": '#include "kernel_utils.cuh"\n#include "check.h"\n'}.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    with pytest.raises(machine.Stop, match=r"^steps/99_x/b.cuh includes common/check.h, a header of the harness"):
        amalgamate.amalgamate(tmp_path, ("steps/99_x/a.cuh",))
    (tmp_path / "steps/99_x/b.cuh").write_text('#include "kernel_utils.cuh"\n')
    assert amalgamate.amalgamate(tmp_path, ("steps/99_x/a.cuh",)).count("// ---- from ") == 3


@pytest.fixture(scope="module")
def copied(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """steps/14_dispatch/ copied alone into a folder of its own, and its example's build there: for this GPU, or
    for sm_90 without one."""
    folder = tmp_path_factory.mktemp("project") / "14_dispatch"
    shutil.copytree(CAPSTONE, folder, ignore=shutil.ignore_patterns("example", "*.o"))
    shutil.copytree(CAPSTONE / "example", folder / "example", ignore=shutil.ignore_patterns("example", "*.o"))
    arch = "sm_90" if NO_GPU else f"sm_{machine.gpu()[1]}"
    built = run(["make", "-C", folder / "example", f"ARCH={arch}"])
    assert built.returncode == 0, first_lines(built.stdout + built.stderr, 1000)
    return folder, built


@pytest.mark.build
def test_the_copied_folder_builds_the_example_without_the_repository(copied):
    folder, built = copied
    assert "warning" not in (built.stdout + built.stderr).lower(), first_lines(built.stderr, 1000)
    assert (folder / "example" / "example").is_file()


@pytest.mark.build
def test_the_library_refuses_bad_arguments_before_any_cuda_call(copied, tmp_path):
    folder, _ = copied
    program, home = tmp_path / "api_arguments", Path(machine.find_tool("nvcc", "NVCC")).resolve().parent.parent
    linked = run(["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", f"-I{folder / 'transpose'}", f"-I{home}/include",
                  ROOT / "tests" / "api_arguments.c", folder / "example" / "transpose.o", f"-L{home}/lib64",
                  f"-Wl,-rpath,{home}/lib64", "-lcudart", "-lstdc++", "-o", program])
    assert linked.returncode == 0, first_lines(linked.stderr, 1000)
    result = run([program], CUDA_VISIBLE_DEVICES="")
    failed = [line for line in result.stdout.splitlines() if not line.startswith("PASS ")]
    assert result.returncode == 0 and not failed and result.stdout, failed or first_lines(result.stderr)


@pytest.mark.nogpu
def test_the_example_without_a_gpu_says_so_in_one_line(copied):
    folder, _ = copied
    assert_exit(run([folder / "example" / "example"], CUDA_VISIBLE_DEVICES=""), 3)


@pytest.mark.gpu
def test_the_example_is_bit_exact(copied):
    folder, _ = copied
    result = run([folder / "example" / "example"], timeout=300)
    lines = result.stdout.splitlines()
    assert result.returncode == 0 and lines and all(line.startswith("PASS ") for line in lines), \
        first_lines(result.stdout + result.stderr, 1000)
