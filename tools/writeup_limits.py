#!/usr/bin/env python3
"""Check the write-up template's limits: what a student reads to the end.

    python3 tools/writeup_limits.py                 every docs/steps/*.md and steps/*/*.cu
    python3 tools/writeup_limits.py FILE ...        the named files (.md or .cu)

Each write-up must keep to:
  - at most 1,200 words of prose (sentences; not code, tables, headings,
    images, HTML comments or generated blocks);
  - at most 40 table rows (body rows; a table's header and its --- line
    are not counted);
  - at least one SVG figure (a Markdown image whose file ends in .svg).
Longer material belongs in the step's appendix, docs/appendix/NN_name.md.
A step's header (the first comment of its .cu file) is the manual for its
idea, what changed, what it assumes and how to run it: at most 210 words,
not counting the indented command lines. The write-up carries the rest.

Prints one line per file: words, table rows, figures, path; then one line
per broken limit. Exit codes: 0 all within limits, 1 a limit broken,
2 a file that cannot be read.
"""
import glob
import os
import re
import sys

MAX_PROSE_WORDS = 1200
MAX_TABLE_ROWS = 40
MIN_SVG_FIGURES = 1
MAX_HEADER_WORDS = 210

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORD = re.compile(r"[A-Za-z0-9][\w'.,%x-]*")
SVG_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\.svg\)")
TABLE_RULE = re.compile(r"^\|\s*:?-{3,}")


def prose_lines(text):
    """The lines of @p text a student reads as sentences."""
    fenced = generated = commented = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced:
            continue
        if stripped.startswith("<!-- BEGIN"):
            generated = True
        if generated:
            generated = not stripped.startswith("<!-- END")
            continue
        if commented or stripped.startswith("<!--"):
            commented = "-->" not in stripped
            continue
        if line.startswith(("    ", "\t")) or stripped.startswith(("|", "#", "![")):
            continue
        if re.fullmatch(r"\[[^\]]*\]\([^)]*\)", stripped):
            continue   # a line that is only a link
        yield stripped


def prose_words(text):
    """Words of prose: inline code counts as one word, a link as its text. An
    inline value's marker counts too, as the words of its line, so that the
    limit cannot be met by hiding text in markers."""
    count = 0
    for line in prose_lines(text):
        line = re.sub(r"`[^`]*`", "code", line)
        line = re.sub(r"\]\([^)]*\)", "]", line)
        count += len(WORD.findall(line))
    return count


def table_rows(text):
    """Body rows of every table: lines starting with '|' less each header and rule."""
    lines = [line.strip() for line in text.splitlines()]
    rows = sum(1 for line in lines if line.startswith("|"))
    rules = sum(1 for line in lines if TABLE_RULE.match(line))
    return rows - 2 * rules


def svg_figures(text):
    return len(SVG_IMAGE.findall(text))


def header_words(source):
    """Words of the first /** ... */ comment of @p source, less its indented
    (code) lines; 0 when the file has no such comment."""
    match = re.match(r"\s*/\*\*(.*?)\*/", source, re.S)
    if not match:
        return 0
    lines = [re.sub(r"^\s*\* ?", "", line) for line in match.group(1).splitlines()]
    return sum(len(line.split()) for line in lines if not line.startswith("    "))


def check_header(source, name, broken):
    words = header_words(source)
    print("%5d words of header               %s" % (words, name))
    if words == 0:
        broken.append("%s: no /** header comment */ at the top" % name)
    elif words > MAX_HEADER_WORDS:
        broken.append("%s: a header of %d words, more than %d" % (name, words, MAX_HEADER_WORDS))


def main(argv):
    paths = argv or (sorted(glob.glob(os.path.join(ROOT, "docs", "steps", "*.md"))) +
                     sorted(glob.glob(os.path.join(ROOT, "steps", "*", "*.cu"))))
    broken = []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as err:
            print("writeup_limits: cannot read %s: %s" % (path, err.strerror), file=sys.stderr)
            return 2
        name = os.path.relpath(path, ROOT)
        if path.endswith(".cu"):
            check_header(text, name, broken)
            continue
        words, rows, figures = prose_words(text), table_rows(text), svg_figures(text)
        print("%5d words %3d table rows %2d figures  %s" % (words, rows, figures, name))
        if words > MAX_PROSE_WORDS:
            broken.append("%s: %d words of prose, more than %d" % (name, words, MAX_PROSE_WORDS))
        if rows > MAX_TABLE_ROWS:
            broken.append("%s: %d table rows, more than %d" % (name, rows, MAX_TABLE_ROWS))
        if figures < MIN_SVG_FIGURES:
            broken.append("%s: no SVG figure" % name)
    for line in broken:
        print("writeup_limits: %s (move the rest to the step's appendix)" % line, file=sys.stderr)
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
