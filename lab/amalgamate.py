"""The capstone's kernels in one header, so that steps/14_dispatch/transpose/ can be copied on its own: every
repository header that the float32 and bf16 rules include, recursively, each once where it is first included,
between `// ---- from PATH ----` markers.

    python3 -m lab.amalgamate            write steps/14_dispatch/transpose/transpose_kernels.cuh
    python3 -m lab.amalgamate --check    change nothing; exit 1 if the committed file differs

`make amalgamate` runs the first, `make docs-tables` too. Kernel code may include only steps/ and
common/kernel_utils.cuh: a header that pulls in the harness (check.h, baselines.h, ...) is refused (exit 3), as the
library has no harness. Exit codes: 0 done (or up to date), 1 out of date (--check), 3 a header refused or missing.
"""

from __future__ import annotations

import re
from pathlib import Path

from lab import machine

ROOTS = ("steps/14_dispatch/dispatch_f32.cuh", "steps/14_dispatch/dispatch_bf16.cuh")
OUTPUT = "steps/14_dispatch/transpose/transpose_kernels.cuh"
SEARCH = ("common", ".")  # the Makefile's -Icommon -I., after the including file's own folder
KERNEL_SAFE = ("common/kernel_utils.cuh",)  # the harness's only header that kernel code may include
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def resolve(name: str, including: Path, root: Path) -> Path:
    """The file `#include "name"` in `including` finds, as nvcc would with the Makefile's flags."""
    for folder in (including.parent, *(root / s for s in SEARCH)):
        if (folder / name).is_file():
            return (folder / name).resolve()
    raise machine.Stop(f"{including.relative_to(root)} includes \"{name}\", which is not in the repository")


def inline(path: Path, root: Path, seen: set[Path]) -> list[str]:
    """path's lines, each repository include replaced by the header itself, or by a note where it came before."""
    name = path.relative_to(root).as_posix()
    lines = [f"// ---- from {name} ----"]
    for line in path.read_text().splitlines():
        found = INCLUDE.match(line)
        if not found:
            lines.append(line)
            continue
        header = resolve(found.group(1), path, root)
        included = header.relative_to(root).as_posix()
        if included.startswith("common/") and included not in KERNEL_SAFE:
            raise machine.Stop(f"{name} includes {included}, a header of the harness: the library's kernels may "
                               f"include steps/ and {', '.join(KERNEL_SAFE)} only")
        if header in seen:
            lines.append(f"// ({included}: above)")
            continue
        seen.add(header)
        lines += inline(header, root, seen)
    return lines + [f"// ---- end of {name} ----"]


def amalgamate(root: Path = machine.ROOT, roots=ROOTS) -> str:
    """The text of the generated header."""
    seen = {(root / r).resolve() for r in roots}
    body = [line for r in roots for line in inline((root / r).resolve(), root, seen)]
    head = [f"// Generated from {' and '.join(roots)} and the headers they include, by `make amalgamate`",
            "// (python3 -m lab.amalgamate). Do not edit: edit those files and run it again.",
            "#ifndef TRANSPOSE_KERNELS_CUH", "#define TRANSPOSE_KERNELS_CUH", ""]
    return "\n".join(head + body + ["", "#endif /* TRANSPOSE_KERNELS_CUH */", ""])


def main(argv: list[str] | None = None) -> int:
    parser = machine.Parser(prog="python3 -m lab.amalgamate", description=__doc__)
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if the file is out of date")
    args = parser.parse_args(argv)
    output, text = machine.ROOT / OUTPUT, amalgamate()
    if output.is_file() and output.read_text() == text:
        return 0
    if args.check:
        machine.say(f"lab.amalgamate: {OUTPUT} is out of date: run `make amalgamate`")
        return 1
    output.write_text(text)
    machine.say(f"lab.amalgamate: wrote {OUTPUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(machine.main(main))
