"""Step 15's tensors: a bad tensor is refused with one line before any GPU work, --plan prints the fold, and on
a GPU every kernel is bit for bit on the issue's shapes and odd ones, both element types, while planted wrong
folds and batch indices are caught."""

import json

import pytest

from conftest import BUILD, CPUS, assert_exit, first_lines, host_memory, one_error_line, run

STEP = BUILD / "step15"
NO_GPU = {"CUDA_VISIBLE_DEVICES": ""}
# The shapes (ML code's permutes), 4,096 matrices of 64 x 64, a rank-5 and a rank-6 case, then odd ones:
# size-1 dimensions, odd sizes, runs not whole 16-byte chunks, an offset, a batch past a grid dimension.
TENSORS = [("8,4096,32,128", "0,2,1,3"), ("8,32,4096,128", "0,2,1,3"), ("64,2048,2048", "0,2,1"),
           ("32,256,56,56", "0,2,3,1"), ("96,100,200", "2,1,0"), ("7,1000,13,77", "0,2,1,3"),
           ("4,16,8,64,32", "0,3,1,4,2"), ("4096,64,64", "0,2,1"), ("2,3,1,5,7,3", "5,4,3,2,1,0"),
           ("1,7,1,33", "3,2,1,0"), ("3,65,1,31", "0,3,2,1"), ("5,3,9", "1,0,2"), ("13,1,1", "2,1,0"),
           ("2,3,5", "0,1,2"), ("70000,3,2", "0,2,1"), ("3,70001,5,1", "2,0,1,3"), ("1100000,2,3", "0,2,1")]


@pytest.mark.badinput
@pytest.mark.parametrize(("args", "message"), [
    (["--dims", "2,3,4", "--perm", "0,0,1"], "error: the axes are not a permutation of 0 to 2"),
    (["--dims", "2,0,4", "--perm", "0,2,1"], "error: dimension 1 of the tensor is 0"),
    (["--dims", "1,1,1,1,1,1,1", "--perm", "0,1,2,3,4,5,6"], "error: the tensor has 7 dimensions"),
    (["--dims", "2,3", "--perm", "1,0,2"], "error: the permutation has 3 axes but the tensor 2 dimensions"),
    (["--dims", "2,3"], "error: --dims and --perm go together"),
    (["--dims", "2,3", "--perm", "1,0", "--shapes", "4x4"], "error: --dims cannot be combined"),
    (["--dims", "2,x", "--perm", "1,0"], "error: --dims item 'x' is not a positive integer"),
    (["--shapes", "2x3x4:001"], "error: the axes are not a permutation of 0 to 2"),
    (["--shapes", "8x8,2x0x4:021"], "error: dimension 1 of the tensor is 0"),
    (["--shapes", "1x1x1x1x1x1x1:0123456"], "error: the tensor has 7 dimensions"),
    (["--shapes", "3x5x7:210+9"], "error: --shapes offset '+9' is not 0-3"),
], ids=["not a permutation", "a dimension of 0", "rank 7", "ranks differ", "no perm", "with shapes", "not a number",
        "shapes: not a permutation", "shapes: a dimension of 0", "shapes: rank 7", "shapes: offset"])
def test_a_bad_tensor_is_refused(args, message):
    result = run([STEP, *args], **NO_GPU)
    assert result.returncode == 2, first_lines(result.stderr)
    assert one_error_line(result).startswith(message)


@pytest.mark.badinput
@pytest.mark.parametrize("args", [["--dims", "2,3", "--perm", "1,0"], ["--shapes", "8x8,2x3:10"]])
def test_a_step_of_matrices_refuses_a_tensor(args):
    result = run([BUILD / "step14", *args], **NO_GPU)
    assert result.returncode == 2 and "for a step of tensor kernels" in one_error_line(result)


@pytest.mark.nogpu
def test_plan_prints_the_fold_without_a_gpu():
    result = run([STEP, "--dims", "32,256,56,56", "--perm", "0,2,3,1", "--plan"], **NO_GPU)
    assert_exit(result, 0)
    plan = json.loads(result.stdout)
    assert plan["kind"] == "transpose" and plan["folded_dims"] == [32, 256, 3136]
    assert plan["folded_into"] == [0, 1, 2, 2]
    assert (plan["rows"], plan["cols"], plan["batch_extent"]) == (256, 3136, [32])


def check_lines(program, dims: str, perm: str, *args: str) -> dict[str, str]:
    """--check-only on one tensor: {kernel: PASS|FAIL|SKIP}, after checking the exit code agrees."""
    result = run([program, "--check-only", "--dims", dims, "--perm", perm, *args], timeout=900,
                 OMP_NUM_THREADS=str(max(1, CPUS // 2)))
    words = {line.split()[2]: line.split()[0] for line in result.stdout.splitlines() if line[:4] in ("PASS", "FAIL")}
    assert words and result.returncode == (1 if "FAIL" in words.values() else 0), first_lines(result.stderr)
    return words


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["f32", "bf16"])
@pytest.mark.parametrize(("dims", "perm"), TENSORS, ids=[f"{d}:{p}" for d, p in TENSORS])
def test_every_kernel_is_bit_exact_on_tensors(dims, perm, dtype):
    words = check_lines(STEP, dims, perm, "--dtype", dtype, *(["--offset", "1"] if dims.startswith("7,") else []))
    assert set(words.values()) == {"PASS"}, words


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["f32", "bf16"])
@pytest.mark.parametrize(("dims", "perm", "caught"), [
    ("2,3,4", "2,1,0", {"no_batch_index", "pitches_swapped", "strides_swapped"}),   # stray writes stay in the slack
    ("5,3,4", "1,0,2", {"no_batch_index", "strides_swapped"}),
])
def test_planted_wrong_folds_are_caught(dims, perm, caught, dtype):
    """The checker of tensors can fail: tests/planted_permute spoils the plan in one way per variant."""
    words = check_lines(BUILD / "tests" / "planted_permute", dims, perm, "--dtype", dtype)
    assert words["correct"] == "PASS" and {k for k, w in words.items() if w == "FAIL"} == caught, words


@pytest.mark.gpu
@pytest.mark.slow
@pytest.mark.parametrize(("dims", "perm"), [("2,40000,30000", "0,2,1"), ("3,20000,5,8000", "0,2,1,3")])
def test_bit_exact_past_2_to_the_31_elements(dims, perm):
    """Slow: 2.4 billion bf16 elements, a batched transpose and a strided copy."""
    with host_memory():
        words = check_lines(STEP, dims, perm, "--dtype", "bf16", "--variant", "permute")
    assert words == {"permute": "PASS"}, words
