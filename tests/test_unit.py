"""Host unit tests: common/'s host code (test_common), step 15's fold and batched tiles (test_permute,
test_permute_tiles), and the index arithmetic of steps 11-12 (test_tiles) and step 13 (test_tiles16) played on the
host.  Each program prints one `PASS name` or `FAIL name` line per check; each line is a subtest here, so that a
failure names its check."""

import pytest

from conftest import BUILD, first_lines, run

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("program", ["test_common", "test_permute", "test_permute_tiles", "test_tiles", "test_tiles16"])
def test_unit_program(program, subtests):
    result = run([BUILD / "tests" / program], timeout=300)
    lines = [line.split(" ", 1) for line in result.stdout.splitlines() if line.startswith(("PASS ", "FAIL "))]
    assert lines, f"{program} printed no PASS or FAIL line (exit {result.returncode}): {first_lines(result.stderr)}"
    for status, name in lines:
        with subtests.test(msg=name):
            assert status == "PASS", name
    failed = any(status == "FAIL" for status, _ in lines)
    assert result.returncode == (1 if failed else 0), f"exit {result.returncode}: {first_lines(result.stderr)}"
