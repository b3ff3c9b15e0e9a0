"""Steps of two element sizes (--describe's element_bytes): the answer of each type is what make peers and the
timing study take, a table never compares a bf16 kernel with a float32 one, and the peers' library holds both.
"""

import ctypes
import re
import sys
import types

import pandas as pd

import pytest

from conftest import BUILD, ROOT, assert_exit, first_lines, make_locked, run
from lab import bench, machine, peers, results, tables

pytestmark = pytest.mark.unit

FRONT_GPU = "h200"  # the committed sweep the planted tables start from


def bf16_kernel() -> str:
    """A kernel the bf16 step defines, for the planted rows."""
    return min(tables.variants_defined("13"))


def test_a_step_is_float32_unless_its_program_says_2_bytes():
    assert machine.element_bytes("12") == 4
    assert machine.element_bytes("13") == 2
    assert machine.steps_of("bf16") == ["13"]
    assert machine.answer_step("float32") == "14" and machine.answer_step("bf16") == "14"   # step 14 takes both


def test_the_timing_study_runs_the_float32_answer():
    runs = bench.planned_runs(types.SimpleNamespace(study="timing", build=BUILD))
    assert [run.step for run in runs] == ["14", "14"]


def test_a_step_not_built_or_too_old_to_describe_itself_is_one_line(tmp_path):
    with pytest.raises(machine.Stop, match=r"step05 is missing: run 'make step05'$"):
        machine.describe("05", tmp_path)
    assert_exit(run([sys.executable, "-m", "lab.docs", "--check"], BUILD=str(tmp_path)), 3)
    old = tmp_path / "sm_90" / "step05"
    old.parent.mkdir()
    old.write_text("#!/bin/sh\necho \"error: unknown option '--describe'\" >&2\nexit 2\n")
    old.chmod(0o755)
    with pytest.raises(machine.Stop, match=r"gave no description \(exit 2\): rebuild it, 'make ARCH=sm_90 step05'$"):
        machine.describe("05", old.parent)


# ------------------------------------------------------------------ the tables
def with_a_bf16_run(frame, shape: str = "8192x8192", pct_of_copy: float = 150.0):
    """The committed sweep without its step 13 rows, and a planted step 13 run at a shape: step 12's rows
    renamed, its one kernel the bf16 step's default there, faster than the copy bound, so that it would win any
    comparison it took part in."""
    frame = frame[frame["step"] != "13"]
    planted = frame[(frame["step"] == "12") & (frame["at"] == shape)].copy()
    assert len(planted), f"no step 12 run at {shape} in {FRONT_GPU}.csv"
    kernel = planted["role"] == "kernel"
    planted.loc[kernel, "kernel"] = bf16_kernel()
    planted.loc[kernel, "pct_of_copy"] = pct_of_copy
    planted["step"] = "13"
    return pd.concat([frame, planted], ignore_index=True)


@pytest.fixture
def planted_sweep(monkeypatch):
    """tables.load() of the front GPU's sweep gives it with a planted bf16 run; other files as committed."""
    committed = tables.load.__wrapped__

    def load(gpu, kind="bench"):
        frame = committed(gpu, kind)
        return with_a_bf16_run(frame) if (gpu, kind) == (FRONT_GPU, "bench") else frame

    monkeypatch.setattr(tables, "load", load)


def test_a_bf16_kernel_is_never_the_best_in_the_tutorial_for_a_float32_step(planted_sweep):
    shape = results.Shape(8192, 8192)
    assert tables.best_kernel(FRONT_GPU, shape, "pct_of_copy", "12")["step"] != "13"
    assert tables.best_kernel(FRONT_GPU, shape, "pct_of_copy", "13")["step"] == "13"


def test_the_gaps_of_a_float32_step_ignore_a_bf16_kernel(planted_sweep):
    page = tables.Page(ROOT / "docs", FRONT_GPU)
    assert f"13 {bf16_kernel()}" not in tables.gaps(page, "12")


def test_the_ladder_shows_the_steps_of_one_element_type(planted_sweep):
    page = tables.Page(ROOT, FRONT_GPU)
    row = re.compile(rf"^\| (13|\[13\]\([^)]*\)) \| {bf16_kernel()} \|", re.M)   # the step cell links its write-up
    answer = f"| {tables.defined_default(machine.answer_step('float32'))} |"   # the float32 answer's default
    float32 = tables.ladder(page, "8192x8192")
    assert not row.search(float32) and answer in float32
    bf16 = tables.ladder(page, "8192x8192", dtype="bf16")
    assert row.search(bf16) and answer not in bf16
    assert "cuBLASLt cublasLtMatrixTransform" in bf16 and "cublasSgeam" not in bf16


def test_a_ladder_of_an_unknown_element_type_is_refused():
    with pytest.raises(tables.TemplateError, match="dtype= takes float32, bf16"):
        tables.ladder(tables.Page(ROOT, FRONT_GPU), "8192x8192", dtype="fp8")


# ------------------------------------------------------------------ the peers
@pytest.mark.parametrize(("peer", "why"), [(peers.CupyCopyto, "CuPy has no bf16"),
                                         (peers.CublasGeam, r"cublasLtMatrixTransform .* step 14")])
def test_a_peer_without_bf16_names_what_to_compare_with(peer, why):
    timer = types.SimpleNamespace(dtype=peers.DTYPES["bf16"], torch_version="0")
    with pytest.raises(peers.Unavailable, match=why):
        peer(timer)


def test_the_library_for_the_peers_holds_both_answers():
    """make peers-lib builds build/peers/libtutorial.so; loaded without a GPU, it names each answer's step and
    default kernel, and no step of another element size."""
    built = make_locked("peers-lib")
    assert built.returncode == 0, first_lines(built.stdout + built.stderr, 2000)
    lib = ctypes.CDLL(str(ROOT / BUILD / "peers" / "libtutorial.so"))
    lib.tutorial_step_number.restype = lib.tutorial_kernel_name.restype = ctypes.c_char_p
    for dtype, size in machine.DTYPES.items():
        step = machine.answer_step(dtype)
        listed = run([BUILD / f"step{step}", "--list-variants"], CUDA_VISIBLE_DEVICES="")
        assert_exit(listed, 0)
        assert lib.tutorial_step_number(size) == step.encode()
        assert lib.tutorial_kernel_name(size).decode() == listed.stdout.split("\t", 1)[0]
    assert lib.tutorial_step_number(8) is None
