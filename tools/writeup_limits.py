#!/usr/bin/env python3
"""Check the write-up template's limits: what a student reads to the end.

    python3 tools/writeup_limits.py                 every docs/steps/*.md
    python3 tools/writeup_limits.py FILE.md ...     the named files

Each write-up must keep to:
  - at most 1,200 words of prose (sentences; not code, tables, headings,
    images, HTML comments or generated blocks);
  - at most 40 table rows (body rows; a table's header and its --- line
    are not counted);
  - at least one SVG figure (a Markdown image whose file ends in .svg).
Longer material belongs in the step's appendix, docs/appendix/NN_name.md.

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


def main(argv):
    paths = argv or sorted(glob.glob(os.path.join(ROOT, "docs", "steps", "*.md")))
    broken = []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as err:
            print("writeup_limits: cannot read %s: %s" % (path, err.strerror), file=sys.stderr)
            return 2
        words, rows, figures = prose_words(text), table_rows(text), svg_figures(text)
        name = os.path.relpath(path, ROOT)
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
