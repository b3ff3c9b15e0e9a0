"""Render the write-ups: every `X.md.j2` in the repository into the `X.md` beside it.

    python3 -m lab.docs [TEMPLATE ...]           write the outputs (default: every template)
    python3 -m lab.docs --check [TEMPLATE ...]   change nothing; fail if a committed output differs

A template named on the command line may lie outside the repository (a test's planted page): it is
then loaded from its own folder.

The templates are Jinja2 (README.md.j2, docs/**/*.md.j2, exercises/*/README.md.j2); the
functions they call are lab.tables', which read the committed results.  The check renders
each template again and compares the whole file, byte for byte, with the committed one, so a
stale number is caught wherever it stands.

Exit codes: 0 done (or up to date), 1 an output is out of date (--check), 2 a template error
(an unknown function or parameter, a row the results do not have), named by file and line.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import traceback
from pathlib import Path

import jinja2

from lab import results, tables

ROOT = tables.ROOT
HEADER = "<!-- generated from {name} by `make docs-tables`; edit that file -->\n"


def templates() -> list[Path]:
    """README.md.j2, every docs/**/*.md.j2 and every exercises/*/README.md.j2."""
    found = [ROOT / "README.md.j2"] + sorted((ROOT / "docs").rglob("*.md.j2"))
    return [t for t in found + sorted((ROOT / "exercises").glob("*/README.md.j2")) if t.is_file()]


def front_page_gpu() -> str:
    """The GPU whose results a page shows unless a call names another (docs/results/gpus.csv)."""
    gpus = results.gpus()
    return gpus[gpus["front_page"] == "yes"]["slug"].iloc[0]


def environment(root: Path = ROOT) -> jinja2.Environment:
    """Jinja2 as the templates expect it, loading from root: nothing escaped, an undefined name an error."""
    return jinja2.Environment(loader=jinja2.FileSystemLoader(root), undefined=jinja2.StrictUndefined,
                              keep_trailing_newline=True, autoescape=False)


def root_of(template: Path) -> Path:
    """The folder a template is loaded from: the repository, or its own folder if it lies outside."""
    return ROOT if template.is_relative_to(ROOT) else template.parent


class RenderError(Exception):
    """A template that cannot be rendered: the message names the file and line."""


def template_line(template: Path, err: Exception) -> int | None:
    """The line of the template that was running when err was raised, if the traceback shows it."""
    lines = [frame.lineno for frame in traceback.extract_tb(err.__traceback__) if frame.filename == str(template)]
    return getattr(err, "lineno", None) or (lines[-1] if lines else None)


def render(env: jinja2.Environment, template: Path, gpu: str) -> str:
    """The text of the output of one template, its header line first (env loads from root_of(template))."""
    page = tables.Page(template.parent, gpu)
    functions = {fn.__name__: functools.partial(fn, page) for fn in tables.FUNCTIONS}
    name = template.relative_to(root_of(template)).as_posix()
    try:
        gpus = results.gpus().to_dict("records")   # [{slug, name, front_page}], for pages that loop
        text = env.get_template(name).render(gpus=gpus, **functions)
    except (jinja2.TemplateError, tables.TemplateError, TypeError, ValueError, KeyError) as err:
        line = template_line(template, err)
        where = f"{name}:{line}" if line else name
        raise RenderError(f"{where}: {type(err).__name__}: {err}") from err
    return HEADER.format(name=template.name) + text


def first_difference(old: str, new: str) -> str:
    """Where two texts first differ, as 'line N'."""
    old_lines, new_lines = old.splitlines(keepends=True), new.splitlines(keepends=True)
    for number, (a, b) in enumerate(zip(old_lines, new_lines, strict=False), start=1):
        if a != b:
            return f"line {number}"
    return f"line {min(len(old_lines), len(new_lines)) + 1}"


def output_of(template: Path) -> Path:
    """The page a template renders to: X.md for X.md.j2."""
    return template.with_suffix("")


def stale(template: Path, gpu: str | None = None, env: jinja2.Environment | None = None) -> str | None:
    """None when the committed page beside template is what it renders to, else where they first differ
    ("line N"). Raises RenderError for a template that cannot be rendered."""
    template = template.resolve()
    text = render(env or environment(root_of(template)), template, gpu or front_page_gpu())
    output = output_of(template)
    old = output.read_text() if output.is_file() else ""
    return None if old == text else first_difference(old, text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m lab.docs", description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if an output is out of date")
    parser.add_argument("templates", nargs="*", type=Path, help="*.md.j2 files (default: all of them)")
    args = parser.parse_args(argv)
    envs, gpu, out_of_date = {}, front_page_gpu(), 0
    for template in [t.resolve() for t in args.templates] or templates():
        output, root = output_of(template), root_of(template)
        env = envs.setdefault(root, environment(root))
        try:
            text = render(env, template, gpu)
        except RenderError as err:
            print(f"lab.docs: {err}", file=sys.stderr)
            return 2
        old = output.read_text() if output.is_file() else ""
        if old == text:
            continue
        out_of_date += 1
        shown = os.path.relpath(output, ROOT) if root == ROOT else output
        if args.check:
            print(f"lab.docs: {shown} is out of date at {first_difference(old, text)}: run `make docs-tables`",
                  file=sys.stderr)
        else:
            output.write_text(text)
            print(f"lab.docs: wrote {shown}", file=sys.stderr)
    return 1 if args.check and out_of_date else 0


if __name__ == "__main__":
    sys.exit(main())
