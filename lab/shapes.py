"""The matrix shapes of tests/shapes.txt, by tag.

    python3 -m lab.shapes sanitize     1x37,37x1,67x131,...   (ready for a program's --shapes)

A malformed line (a bad shape, no tag, a shape listed twice) refuses the whole file: a typo cannot drop a test.
Exit codes: 0 done; 2 bad command line, unknown tag or malformed file.
"""

from __future__ import annotations

import re

from lab import machine

FILE = machine.ROOT / "tests" / "shapes.txt"


def read() -> dict[str, list[str]]:
    """{shape: its tags}, in the file's order; Stop (exit 2) on a malformed line."""
    found: dict[str, list[str]] = {}
    for number, line in enumerate(FILE.read_text().splitlines(), start=1):
        shape, *tags = line.split("#")[0].split() or [""]
        if not shape:
            continue
        where = f"tests/shapes.txt:{number}"
        if not re.fullmatch(r"[1-9][0-9]*x[1-9][0-9]*(\+[0-3])?", shape):
            raise machine.Stop(f"{where}: '{shape}' is not ROWSxCOLS[+OFFSET] with OFFSET 0 to 3", 2)
        if not tags:
            raise machine.Stop(f"{where}: {shape} has no tag", 2)
        if shape in found:
            raise machine.Stop(f"{where}: {shape} is listed twice", 2)
        found[shape] = tags
    return found


def tagged(tag: str) -> list[str]:
    """The shapes carrying tag, in the file's order; Stop (exit 2) if none does."""
    found = read()
    shapes = [shape for shape, shape_tags in found.items() if tag in shape_tags]
    if not shapes:
        known = " ".join(dict.fromkeys(name for shape_tags in found.values() for name in shape_tags))
        raise machine.Stop(f"no shape in tests/shapes.txt has the tag '{tag}': the tags are {known}", 2)
    return shapes


def run(argv=None) -> int:
    parser = machine.Parser(prog="python3 -m lab.shapes", description=__doc__)
    parser.add_argument("tag", help="print this tag's shapes, comma-separated")
    print(",".join(tagged(parser.parse_args(argv).tag)))
    return 0


if __name__ == "__main__":
    raise SystemExit(machine.main(run))
