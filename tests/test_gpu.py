"""On a GPU: every kernel of every step bit for bit, the report, compute-sanitizer, the checker's own failures
(planted wrong kernels), shapes too large to fit, the float32 answer as the README runs it, and the peers'
libraries. Without a GPU each test is reported as skipped, with the reason."""

import re

import pytest

from conftest import BUILD, CPUS, FIRST_BIN, ROOT, STEP_BINS, STEPS, assert_exit, first_lines, \
    host_memory, make_command, make_locked, one_error_line, run, tagged
from lab import machine, schema
from lab.sanitizer_report import summary_count

pytestmark = pytest.mark.gpu

RESULT_LINE = re.compile(r"^(PASS|FAIL|SKIP) (\S+) (\S+) (\S+)(?: \((.*)\))?\s*$", re.MULTILINE)


def variants(program) -> list[list[str]]:
    """[name, min_cc, role, summary] per kernel variant the program defines."""
    listed = run([program, "--list-variants"])
    assert listed.returncode == 0, first_lines(listed.stderr)
    return [line.split("\t") for line in listed.stdout.splitlines()]


def check_every_kernel(program, shapes: str, subtests, threads: int = CPUS // 4) -> None:
    """`--check-only` over the shapes: a subtest per kernel and shape, one result line for each,
    and an exit code that agrees with the lines (1 for a FAIL, else 0)."""
    expected = len(variants(program)) * len(shapes.split(","))
    result = run([program, "--check-only", "--shapes", shapes], timeout=900, OMP_NUM_THREADS=str(max(1, threads)))
    lines = RESULT_LINE.findall(result.stdout)
    for word, _step, kernel, shape, why in lines:
        with subtests.test(msg=f"{kernel} at {shape}"):
            if word == "SKIP":
                pytest.skip(why)
            assert word == "PASS", why
    assert len(lines) == expected, f"{len(lines)} of {expected} result lines: {first_lines(result.stderr)}"
    failed = any(word == "FAIL" for word, *_ in lines)
    assert result.returncode == (1 if failed else 0), f"exit {result.returncode}: {first_lines(result.stderr)}"


@pytest.mark.parametrize("program", STEP_BINS, ids=str)
def test_bit_exact_at_check_shapes(program, subtests):
    check_every_kernel(program, tagged("check"), subtests)


@pytest.mark.slow
@pytest.mark.parametrize("program", STEP_BINS, ids=str)
def test_bit_exact_past_2_to_the_31_elements(program, subtests):
    """Slow: the CPU reference and the comparison walk 2 x 8.6 GB on the host."""
    with host_memory():
        check_every_kernel(program, tagged("huge"), subtests, threads=CPUS // 2)


@pytest.mark.parametrize("program", STEP_BINS, ids=str)
def test_full_report(program):
    result = run([program, "--reps", "3", "--warmup", "1", "--shapes", tagged("report")])
    assert result.returncode == 0, first_lines(result.stdout + result.stderr)


@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck", "initcheck"])
@pytest.mark.parametrize("step", STEPS)
def test_compute_sanitizer(step, tool):
    """Every kernel of every step, on the `sanitize` shapes; racecheck's hazards do not set the exit code, so its
    summary is counted too."""
    sanitizer = machine.find_tool("compute-sanitizer", "COMPUTE_SANITIZER")
    result = run([sanitizer, "--tool", tool, "--error-exitcode", "99", BUILD / f"step{step}", "--check-only",
                  "--shapes", tagged("sanitize")], timeout=900)
    output = result.stdout + result.stderr
    assert result.returncode == 0 and not summary_count(output), output[-2000:]


@pytest.mark.parametrize("program", ["planted_wrong", "planted_wrong_16"])
def test_planted_wrong_kernels_are_caught(program, subtests):
    """The checker can fail: every variant of tests/planted_wrong and planted_wrong_16 but `correct` is wrong."""
    planted = BUILD / "tests" / program
    result = run([planted, "--check-only", "--shapes", "33x65,7x5+3"])
    lines = {kernel: (word, why) for word, _step, kernel, _shape, why in RESULT_LINE.findall(result.stdout)}
    for name, min_cc, _role, summary in variants(planted):
        with subtests.test(msg=name):
            word, why = lines.get(name, ("missing", ""))
            if name == "correct":
                assert word == "PASS", why
            elif word == "SKIP" and int(min_cc) > 0 and "needs compute capability" in why:
                pytest.skip(why)
            else:
                assert word == "FAIL", f"{name} ({summary}) is not caught: {word} {why}"
    assert result.returncode == 1, f"exit {result.returncode}, expected 1 when a kernel is wrong"


@pytest.mark.parametrize("flush", ["write", "none"])   # test_full_report runs the default
def test_csv_over_two_shapes_with_each_flush_method(flush):
    result = run([FIRST_BIN, "--csv", "--flush", flush, "--reps", "2", "--warmup", "1", "--shapes", "64x64,96x128+1"])
    assert result.returncode == 0, first_lines(result.stderr)
    lines = result.stdout.splitlines()
    assert [line for line in lines if line.startswith("gpu,")] == [",".join(schema.BENCH)]
    assert any(",64,64,0," in line for line in lines) and any(",96,128,1," in line for line in lines)


def test_a_matrix_larger_than_gpu_memory_is_refused():
    assert_exit(run([FIRST_BIN, "--check-only", "--shapes", "1000000x1000000"]), 3)


def test_a_matrix_larger_than_host_memory_is_refused():
    """Input, result and CPU reference need 3 x 4 x N^2 bytes: sized past what is free now."""
    with host_memory(exclusive=True):
        meminfo = open("/proc/meminfo").read()
        available = int(re.search(r"^MemAvailable:\s+(\d+)", meminfo, re.MULTILINE)[1]) * 1024
        side = int((available / 12) ** 0.5) + 1024
        assert_exit(run([FIRST_BIN, "--check-only", "--shapes", f"{side}x{side}"]), 3)


@pytest.mark.parametrize("shape", ["10007x7919", "32768x32768"])
def test_the_float32_answer_as_the_readme_runs_it(shape):
    """make run: exit 0, every kernel's row PASS, and the cuBLAS row (% of copy, vs cuBLAS)."""
    rows, cols, answer = *shape.split("x"), machine.answer_step("float32")   # the last float32 step
    with host_memory():
        result = run(make_command("run", f"STEP={answer}", f"ARGS=--rows {rows} --cols {cols}"))
    assert result.returncode == 0, first_lines(result.stdout + result.stderr)
    assert not re.search(r" FAIL( \(| *$)", result.stdout, re.MULTILINE)
    assert re.search(rf"^{answer} .* PASS *$", result.stdout, re.MULTILINE), "no passing kernel row"
    assert re.search(r"^cublasSgeam .* PASS *$", result.stdout, re.MULTILINE), "no cuBLAS row"


def test_the_peers_library_transposes_both_element_types_bit_for_bit(subtests):
    """make peers-lib, then lab.peers' own check of each answer on odd shapes and vectors: PyTorch makes the
    input and numpy's transpose the reference, on an output poisoned with NaN."""
    pytest.importorskip("torch", reason="lab.peers needs PyTorch for a CUDA GPU (pip install torch)")
    from lab import peers

    built = make_locked("peers-lib")
    assert built.returncode == 0, first_lines(built.stdout + built.stderr, 2000)
    peers.Tutorial.lib_path = ROOT / BUILD / "peers" / "libtutorial.so"
    for dtype in machine.DTYPES:
        timer = peers.open_gpu(peers.DTYPES[dtype])
        tutorial = peers.Tutorial(timer)
        assert tutorial.version == f"step {machine.answer_step(dtype)}"
        for rows, cols in ((67, 131), (1000, 1000), (1, 4099), (4099, 1), (2048, 2050)):
            with subtests.test(msg=f"{dtype} {rows}x{cols}"):
                case = peers.Case(timer, rows, cols)
                assert tutorial.check(case, tutorial.make(case)) == 0


def test_every_configuration_of_the_cute_peer_is_bit_exact(subtests):
    """make peers-cute, then lab.peers' check of each configuration of lab/peer_cute.cu on both element types: one
    element, vectors, edge tiles, each side's 16-byte copies alone and together. An op that writes nothing fails it."""
    pytest.importorskip("torch", reason="lab.peers needs PyTorch for a CUDA GPU (pip install torch)")
    from lab import peers

    built = make_locked("peers-cute")
    if "CuTe's headers not found" in built.stderr:
        pytest.skip(one_error_line(built))
    assert built.returncode == 0, first_lines(built.stdout + built.stderr, 2000)
    peers.Tutorial.lib_path = ROOT / BUILD / "peers" / "libtutorial.so"  # libcute.so is found beside it
    for dtype in machine.DTYPES:
        timer = peers.open_gpu(peers.DTYPES[dtype])
        cute = peers.CuteTiled(timer)
        for rows, cols in ((1, 1), (1, 1000), (1000, 1), (67, 129), (1000, 1003), (1003, 1000), (4096, 4096)):
            case = peers.Case(timer, rows, cols)
            assert cute.check(case, lambda: None) == rows * cols  # the planted wrong op
            for config, name in enumerate(cute.configs):
                with subtests.test(msg=f"{dtype} {rows}x{cols} {name}"):
                    assert cute.check(case, cute.launcher(case, config)) == 0
