"""Render the write-ups: every `X.md.j2` in the repository (README.md.j2, docs/**/*.md.j2,
exercises/*/README.md.j2) into the `X.md` beside it, with Jinja2 and the functions of lab.tables.

    python3 -m lab.docs [TEMPLATE ...]           write the outputs (default: every template)
    python3 -m lab.docs --check [TEMPLATE ...]   change nothing; fail if a committed output differs

The check compares each whole page, byte for byte, so a stale number is caught wherever it stands. A template
named on the command line may lie outside the repository (a test's planted page): it loads from its own folder.

Exit codes: 0 done (or up to date), 1 an output is out of date (--check), 2 a template error (an unknown
function or parameter, a row the results do not have), named by file and line, 3 a step program the tables
ask (--describe) is not built in $BUILD (make docs-tables builds them).
"""

from __future__ import annotations

import functools
import os
import traceback
from pathlib import Path

import jinja2

from lab import machine, results, tables

ROOT = tables.ROOT
HEADER = "<!-- generated from {name} by `make docs-tables`; edit that file -->\n"


def templates() -> list[Path]:
    found = [ROOT / "README.md.j2"] + sorted((ROOT / "docs").rglob("*.md.j2"))
    return [t for t in found + sorted((ROOT / "exercises").glob("*/README.md.j2")) if t.is_file()]


def front_page_gpu() -> str:
    """The GPU whose results a page shows unless a call names another (docs/results/gpus.csv)."""
    return results.gpus().query("front_page == 'yes'")["slug"].iloc[0]


def environment(root: Path = ROOT) -> jinja2.Environment:
    """Jinja2 as the templates expect it, loading from root: nothing escaped, an undefined name an error."""
    return jinja2.Environment(loader=jinja2.FileSystemLoader(root), undefined=jinja2.StrictUndefined,
                              keep_trailing_newline=True, autoescape=False)


def root_of(template: Path) -> Path:
    """The folder a template is loaded from: the repository, or its own folder if it lies outside."""
    return ROOT if template.is_relative_to(ROOT) else template.parent


class RenderError(Exception):
    """A template that cannot be rendered: the message names the file and line."""


def render(env: jinja2.Environment, template: Path, gpu: str) -> str:
    """The text of the output of one template, its header line first (env loads from root_of(template))."""
    page = tables.Page(template.parent, gpu)
    functions = {fn.__name__: functools.partial(fn, page) for fn in tables.FUNCTIONS}
    name = template.relative_to(root_of(template)).as_posix()
    try:
        gpus = results.gpus().to_dict("records")   # [{slug, name, front_page}], for pages that loop
        text = env.get_template(name).render(gpus=gpus, **functions)
    except (jinja2.TemplateError, tables.TemplateError, TypeError, ValueError, KeyError) as err:
        # The template's line: a syntax error's own, else the template's last frame in the traceback.
        lines = [frame.lineno for frame in traceback.extract_tb(err.__traceback__) if frame.filename == str(template)]
        line = getattr(err, "lineno", None) or (lines[-1] if lines else None)
        where = f"{name}:{line}" if line else name
        raise RenderError(f"{where}: {type(err).__name__}: {err}") from err
    return HEADER.format(name=template.name) + text


def output_of(template: Path) -> Path:
    return template.with_suffix("")


def stale(template: Path, gpu: str | None = None) -> str | None:
    """None when the page beside template is what it renders to, else "line N", where they first differ."""
    template = template.resolve()
    text = render(environment(root_of(template)), template, gpu or front_page_gpu())
    output = output_of(template)
    old = output.read_text() if output.is_file() else ""
    # commonprefix compares any sequences: here, the lists of lines of the two texts.
    same = os.path.commonprefix([old.splitlines(keepends=True), text.splitlines(keepends=True)])
    return None if old == text else f"line {len(same) + 1}"


def main(argv: list[str] | None = None) -> int:
    parser = machine.Parser(prog="python3 -m lab.docs", description=__doc__)
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if an output is out of date")
    parser.add_argument("templates", nargs="*", type=Path, help="*.md.j2 files (default: all of them)")
    args = parser.parse_args(argv)
    gpu, out_of_date, failed = front_page_gpu(), 0, 0
    for template in [t.resolve() for t in args.templates] or templates():
        output = output_of(template)
        try:
            where = stale(template, gpu)
        except RenderError as err:   # say so, and go on with the other pages
            machine.say(f"lab.docs: {err}")
            failed += 1
            continue
        if where is None:
            continue
        out_of_date += 1
        shown = os.path.relpath(output, ROOT) if root_of(template) == ROOT else output
        if args.check:
            machine.say(f"lab.docs: {shown} is out of date at {where}: run `make docs-tables`")
        else:
            output.write_text(render(environment(root_of(template)), template, gpu))
            machine.say(f"lab.docs: wrote {shown}")
    return 2 if failed else 1 if args.check and out_of_date else 0


if __name__ == "__main__":
    raise SystemExit(machine.main(main))
