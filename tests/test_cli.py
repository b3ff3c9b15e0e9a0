"""Bad command lines and a missing GPU: every program answers with one line on stderr and a
documented exit code (2: the command line; 3: the machine), before any GPU work, so none of
these tests needs a GPU.  `make run`, `make diff` and `make help` are held to the same rule."""

import json
import re

import pytest

from conftest import BUILD, ROOT, STEP_BINS, STEPS, assert_exit, first_lines, make_command, one_error_line, run
from lab import schema

# (why it is wrong, the arguments)
BAD_ARGUMENTS = [
    ("--rows abc", ["--rows", "abc"]),
    ("--rows 0", ["--rows", "0"]),
    ("--cols -5", ["--cols", "-5"]),
    ("--rows 12x", ["--rows", "12x"]),
    ("an overflowing M*N*4", ["--rows", "4294967296", "--cols", "4294967296"]),
    ("an unknown flag", ["--bogus"]),
    ("a missing value", ["--rows"]),
    ("an unknown --variant", ["--variant", "no_such_kernel"]),
    ("--shapes 0x5", ["--shapes", "0x5"]),
    ("--shapes 3x", ["--shapes", "3x"]),
    ("--shapes 1x1+9 (offset past 3)", ["--shapes", "1x1+9"]),
    ("an overflowing shape in --shapes", ["--shapes", "8x8,4294967296x4294967296"]),
    ("--shapes together with --rows", ["--shapes", "8x8", "--rows", "8"]),
    ("--flush bogus", ["--flush", "bogus"]),
]
NO_GPU = {"CUDA_VISIBLE_DEVICES": ""}


@pytest.mark.badinput
@pytest.mark.parametrize("program", STEP_BINS, ids=str)
def test_bad_command_lines_are_refused(program, subtests):
    for why, arguments in BAD_ARGUMENTS:
        with subtests.test(msg=f"refuses {why}"):
            assert_exit(run([program, *arguments], **NO_GPU), 2)
    with subtests.test(msg="--help"):
        assert_exit(run([program, "--help"], **NO_GPU), 0)


@pytest.mark.nogpu
@pytest.mark.parametrize("program", STEP_BINS, ids=str)
def test_without_a_gpu(program):
    """A run needs the GPU (exit 3); --describe (what the lab reads of a step) does not, and is JSON that says what
    --list-variants and the folder say."""
    assert_exit(run([program, "--shapes", "64x64"], **NO_GPU), 3)
    described, listed = run([program, "--describe"], **NO_GPU), run([program, "--list-variants"], **NO_GPU)
    assert_exit(described, 0)
    assert_exit(listed, 0)
    step = json.loads(described.stdout)
    lines = listed.stdout.splitlines()
    assert len(lines) == len(step["variants"]) <= 5   # a lesson has at most five kernels, its control included
    for v, line in zip(step["variants"], lines, strict=True):   # the line may add the element types it takes
        assert line.startswith(f"{v['name']}\t{v['min_cc']}\t{v['role']}\t{v['summary']}"), line
        assert re.fullmatch(r"[A-Za-z0-9_]+\t[0-9]+\t(kernel|bound)\t\S.*", line), f"--list-variants: {line!r}"
        assert ("--dtype" in line) == (v["element_types"] != [step["element_type"].replace("16-bit", "bf16")])
    assert step["default_variant"] == step["variants"][0]["name"] and step["title"]
    assert program.name == f"step{step['step']}" and list(ROOT.glob(f"steps/{step['step']}_{step['name']}/*.cu"))
    assert (step["element_type"], step["element_bytes"]) in (("float32", 4), ("16-bit", 2))
    assert step["csv_header"].split(",") == list(schema.BENCH)


STEP_LIST = " ".join(STEPS)


@pytest.mark.badinput
@pytest.mark.parametrize(("target", "step", "message"), [
    ("run", "99", f"error: no step '99': the steps are {STEP_LIST}"),
    ("diff", "99", f"error: no step '99': the steps are {STEP_LIST}"),
    ("run", "", f"error: say which step, e.g. make run STEP={STEPS[0]}"),
    ("diff", STEPS[0], f"error: step {STEPS[0]} is the first step: there is no step before it to compare with"),
])
def test_make_refuses_a_step(target, step, message):
    result = run(make_command(target, f"STEP={step}"))
    assert result.returncode == 2
    assert one_error_line(result) == message


@pytest.mark.badinput
def test_make_accepts_a_step_without_its_leading_zero():
    """STEP=1 and STEP=01 name the same step, as EX=5 and EX=05 name the same exercise."""
    result = run(make_command("run", "STEP=1", "ARGS=--list-variants"), **NO_GPU)
    assert result.returncode == 0, first_lines(result.stderr)
    assert result.stdout.strip()


@pytest.mark.badinput
def test_make_diff_shows_a_word_diff():
    result = run(make_command("diff", f"STEP={STEPS[1]}", "WORD_DIFF=plain"))
    assert result.returncode in (0, 1) and "diff --git" in result.stdout, first_lines(result.stderr)


@pytest.mark.badinput
def test_make_help_lists_every_step():
    listed = run(make_command("help")).stdout
    missing = [n for n in STEPS if not re.search(rf"^  make step{n} ", listed, re.MULTILINE)]
    assert not missing, f"make help does not list step(s) {missing}"


@pytest.mark.badinput
@pytest.mark.parametrize(("step", "args", "code", "message"), [
    ("01", ["--dtype", "fp8"], 2, "error: --dtype 'fp8' is not f32 or bf16"),
    ("12", ["--dtype", "bf16"], 2, "error: step 12 has no bf16 kernel"),
    ("13", ["--dtype", "f32", "--variant", "port"], 2, "error: step 13 has no f32 kernel named port"),
    ("14", ["--shapes", "4x4+7"], 2, "error: --shapes item '4x4+7' is not ROWSxCOLS"),   # 3 floats at most
    ("14", ["--dtype", "bf16", "--shapes", "4x4+7"], 3, ""),   # 7 bf16 elements: taken, then no GPU here
], ids=["unknown type", "no kernel of it", "a named kernel of the other type", "f32 offsets", "bf16 offsets"])
def test_dtype_chooses_the_element_type_or_says_why_not(step, args, code, message):
    """--dtype is checked, with the offsets it allows, before any GPU work: a usage error is exit 2 whatever the
    machine, and a good line goes on to need the GPU (exit 3 without one)."""
    result = run([BUILD / f"step{step}", *args], **NO_GPU)
    assert result.returncode == code, first_lines(result.stderr)
    assert one_error_line(result).startswith(message) if message else "error" in result.stderr
