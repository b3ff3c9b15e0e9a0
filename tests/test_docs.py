"""The documentation: the rendered pages, the figures, the SASS summary, the claims the write-ups make about
the committed results, the limits of a write-up, and the Doxygen site.

Every check has a planted case beside it, a copy made wrong on purpose, so that it is known to be able to
fail.  `make test PYTEST_ARGS="-m docs"` runs this file and test_tuning.py.
"""

import contextlib
import fcntl
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jinja2
import pandas as pd
import pytest

from conftest import BUILD, LOGS, ROOT, assert_exit, first_lines, make_command, run
from lab import docs, figures, profile, results, sass, schema, tables

pytestmark = pytest.mark.docs

TEMPLATES = docs.templates()
GPUS = results.gpus()
FRONT_GPU = docs.front_page_gpu()


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def files(*patterns: str) -> list[Path]:
    """The repository's files matching the glob patterns, build/ left out, each once, in order."""
    found = {p for pattern in patterns for p in ROOT.glob(pattern)
             if p.is_file() and "build" not in p.relative_to(ROOT).parts}
    return sorted(found)


# The Markdown of the repository: the templates, the pages rendered from them and the hand-written ones.
GITHUB_MARKDOWN = files("README.md", "docs/**/*.md", "exercises/*/README.md", "solutions/**/*.md")
MARKDOWN_SOURCES = GITHUB_MARKDOWN + files("README.md.j2", "docs/**/*.md.j2", "exercises/*/README.md.j2")
WRITE_UPS = files("docs/steps/*.md")
STEP_SOURCES = files("steps/*/*.cu")


def by_path(paths: list[Path]):
    """parametrize's arguments for one test per file, each named by its path."""
    return {"argvalues": paths, "ids": [rel(p) for p in paths]}


# ------------------------------------------------------------------ rendered pages
@pytest.mark.parametrize("template", **by_path(TEMPLATES))
def test_page_matches_its_template(template):
    where = docs.stale(template)
    assert where is None, f"{rel(docs.output_of(template))} differs from its template at {where}: make docs-tables"


def test_lab_docs_check_passes():
    assert_exit(run([sys.executable, "-m", "lab.docs", "--check"]), 0)


PLANTED_PAGE = """# Planted

Step 01's naive kernel reaches {{ value(step="01", shape="8192x8192", col="pct_of_copy") }} of the copy bound
at 8192 x 8192.
"""


def test_a_stale_value_wrapped_across_two_lines_is_caught(tmp_path):
    template = tmp_path / "planted.md.j2"
    template.write_text(PLANTED_PAGE)
    page = docs.output_of(template)
    page.write_text(docs.render(docs.environment(tmp_path), template, FRONT_GPU))
    assert docs.stale(template) is None
    text = page.read_text()
    number = re.search(r"reaches ([0-9.]+) %", text)
    assert number, f"no % of copy in the rendered page: {first_lines(text)}"
    typed = f"{float(number[1]) + 0.1:.1f}"
    wrapped = text.replace(f"reaches {number[1]} % of the copy bound\nat", f"reaches {typed}\n% of the copy bound at")
    assert wrapped != text
    page.write_text(wrapped)
    assert docs.stale(template) == "line 4"  # the page's line 4: its first line says where it comes from
    result = run([sys.executable, "-m", "lab.docs", "--check", template])
    assert_exit(result, 1)
    assert "planted.md is out of date at line 4" in result.stderr


def test_a_value_the_results_lack_is_refused_with_its_line(tmp_path):
    template = tmp_path / "planted.md.j2"
    template.write_text(PLANTED_PAGE.replace('step="01",', 'step="01", kernel="no_such_kernel",'))
    with pytest.raises(docs.RenderError, match=r"^planted\.md\.j2:3: "):
        docs.stale(template)
    assert_exit(run([sys.executable, "-m", "lab.docs", "--check", template]), 2)


# ------------------------------------------------------------------ the narrow study (appendix 12)
def trailing_widths(frame: pd.DataFrame) -> list[str]:
    """The shapes at which step 12's answer trails the faster of step 09 and step 11 by more than a point
    of % of copy (or was not timed); every shape when nothing was timed."""
    timed = frame[(frame["role"] == "kernel") & frame["pct_of_copy"].notna()]
    shape = timed["rows"].astype(str) + "x" + timed["cols"].astype(str) + "+" + timed["offset"].astype(str)
    timed = timed.assign(shape=shape)
    ours = timed[timed["step"] == "12"].groupby("shape")["pct_of_copy"].max()
    best = timed[timed["step"].isin(["09", "11"])].groupby("shape")["pct_of_copy"].max()
    if best.empty:
        return ["nothing timed"]
    return [s.removesuffix("+0") for s, value in best.items() if s not in ours or ours[s] < value - 1.0]


@pytest.mark.parametrize("study", **by_path(files("docs/results/*-narrow.csv")))
def test_step_12_is_level_with_steps_09_and_11_at_every_narrow_width(study):
    trailing = trailing_widths(results.load(study, "bench"))
    assert trailing == [], f"{rel(study)}: step 12's answer trails by more than a point at {' '.join(trailing)}"


def test_a_narrow_study_where_step_12_trails_is_caught():
    frame = results.load(schema.RESULTS / f"{FRONT_GPU}-narrow.csv", "bench")
    planted = (frame["step"] == "12") & (frame["kernel"] == "answer") & (frame["rows"] == 1000003)
    assert planted.sum() == 1
    frame.loc[planted, "pct_of_copy"] -= 5
    assert trailing_widths(frame) == ["1000003x33"]


# ------------------------------------------------------------------ the copy bound
def above_copy_bound(frame: pd.DataFrame) -> list[str]:
    """The kernels measured above 101 % of the copy bound at shapes whose two sides are both at least 2048
    (smaller ones take microseconds: docs/timing.md)."""
    over = frame[frame["role"].isin(["kernel", "bound"]) & (frame["rows"] >= 2048) & (frame["cols"] >= 2048)
                 & (frame["pct_of_copy"] > 101)]
    return [f"step {r.step} {r.kernel} at {r.rows}x{r.cols}+{r.offset}: {r.pct_of_copy} %" for r in over.itertuples()]


@pytest.mark.parametrize("gpu", GPUS["slug"])
def test_no_kernel_beats_the_copy_bound(gpu):
    over = above_copy_bound(results.load(results.path(gpu), "bench"))
    assert over == [], f"{gpu}.csv: above 101 % of the copy bound (a timing error?): {'; '.join(over[:3])}"


def test_a_kernel_above_the_copy_bound_is_caught():
    frame = results.load(results.path(FRONT_GPU), "bench")
    at = (frame["step"] == "10") & (frame["role"] == "kernel") & (frame["offset"] == 0)
    big = at & (frame["rows"] == 8192) & (frame["cols"] == 8192)
    small = at & (frame["rows"] == 1024) & (frame["cols"] >= 2048)
    assert big.sum() >= 1 and small.sum() >= 1
    frame.loc[big, "pct_of_copy"] = 101.5
    frame.loc[small, "pct_of_copy"] = 150.0  # one side below 2048: left to docs/timing.md
    over = above_copy_bound(frame)
    assert len(over) == big.sum() and all("8192x8192+0: 101.5 %" in line for line in over)


# ------------------------------------------------------------------ the profile plan
def test_the_profile_plan_is_well_formed():
    assert profile.check_plan() == []


def test_the_profile_plan_covers_every_profile_table_of_the_templates():
    assert profile.plan_covers_templates() == []


def test_a_plan_without_a_row_a_template_needs_is_caught():
    plan = profile.read_plan()
    planted = plan[~((plan["step"] == "12") & (plan["shape"] == "16384x16384"))]
    problems = profile.plan_covers_templates(planted)
    assert problems and all("step 12 at 16384x16384" in p and "12_tma.md.j2" in p for p in problems)


def test_a_plan_naming_a_peer_ncu_cannot_see_is_caught():
    plan = profile.read_plan()
    plan.loc[len(plan)] = {"step": "", "shape": "1280x12800", "variant": "", "baselines": "", "peers": "jax"}
    assert [p.split(": ", 1)[1] for p in profile.check_plan(plan)] == [
        "peer 'jax' cannot be profiled; those that can: tutorial, cublas, torch, torch.compile, triton, cupy"]


def test_lab_peers_once_refuses_the_copy_bound():
    result = run([sys.executable, "-m", "lab.peers", "--once", "--peers", "copy"])
    assert_exit(result, 2)
    assert "unknown peer 'copy'" in result.stderr


# ------------------------------------------------------------------ figures
def test_the_figures_match_lab_figures():
    result = run([sys.executable, "-m", "lab.figures", "--check"])
    assert result.returncode == 0, f"figures out of date: python3 -m lab.figures ({first_lines(result.stderr)})"


def test_a_figure_changed_or_drawn_by_nothing_is_caught(tmp_path, monkeypatch, capsys):
    planted = tmp_path / "img"
    shutil.copytree(figures.IMG, planted)
    changed = sorted(planted.glob("fig-*.svg"))[0]
    changed.write_text(changed.read_text() + "\n")
    (planted / "fig-drawn-by-nothing.svg").write_text("<svg/>\n")
    monkeypatch.setattr(figures, "IMG", planted)
    assert figures.main(["--check"]) == 1
    stderr = capsys.readouterr().err
    assert f"docs/img/{changed.name}: missing or out of date" in stderr
    assert "docs/img/fig-drawn-by-nothing.svg: nothing in lab/figures.py draws it" in stderr


# ------------------------------------------------------------------ the SASS summary
def sass_tools_or_skip() -> None:
    missing = [tool for tool, found in (
        ("cuobjdump", shutil.which("cuobjdump") or shutil.which("cuobjdump", path="/usr/local/cuda/bin")),
        ("c++filt", shutil.which("c++filt"))) if not found]
    if missing:
        pytest.skip(f"{' and '.join(missing)} not found: lab.sass reads the compiled code with cuobjdump and "
                    "c++filt (CUDA toolkit, or PyPI's nvidia-cuda-cuobjdump)")


def sm_90_build() -> Path:
    """A build folder whose step objects hold sm_90 code only, as lab.sass reads them (it brings them up to
    date through make): the suite's own where it is built for sm_90 alone (ARCH=sm_90, as without a GPU,
    or a GPU of compute capability 9.0), else one of its own, so that the suite's build keeps its flags."""
    flags = ROOT / BUILD / "flags.txt"
    built_for = set(re.findall(r"code=sm_(\d+)", flags.read_text())) if flags.is_file() else set()
    return BUILD if built_for == {"90"} else BUILD / "sass-sm_90"


@contextlib.contextmanager
def one_make_at_a_time():
    """lab.sass brings the objects up to date through make: two runs side by side must not build one object."""
    LOGS.mkdir(parents=True, exist_ok=True)
    with open(LOGS / "sass.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def test_the_sass_summary_matches_the_compiled_steps():
    sass_tools_or_skip()
    with one_make_at_a_time():
        result = run([sys.executable, "-m", "lab.sass", "--check", "--build", sm_90_build()], ARCH="sm_90")
    assert result.returncode == 0, f"python3 -m lab.sass --check: exit {result.returncode}: " \
                                   f"{first_lines(result.stderr)}"


def test_a_sass_summary_typed_over_is_caught(tmp_path, monkeypatch):
    sass_tools_or_skip()
    committed = pd.read_csv(schema.RESULTS / "sass-sm_90.csv", dtype=str, keep_default_na=False)
    committed.loc[0, "count"] = str(int(committed.loc[0, "count"]) + 1)
    committed.to_csv(tmp_path / "sass-sm_90.csv", index=False)
    monkeypatch.setattr(schema, "RESULTS", tmp_path)
    monkeypatch.setenv("ARCH", "sm_90")
    for variable in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL"):
        monkeypatch.delenv(variable, raising=False)
    with one_make_at_a_time():
        assert sass.run(["--check", "--build", str(sm_90_build())]) == 1


# ------------------------------------------------------------------ limits of a write-up
MAX_PROSE_WORDS, MAX_TABLE_ROWS, MAX_HEADER_WORDS, MAX_README_WORDS = 1200, 40, 210, 1200
MAX_PROSE_VALUES, MAX_LINE = 10, 200
WORD = re.compile(r"[A-Za-z0-9][\w'.,%x-]*")
TABLE_RULE = re.compile(r"^\|\s*:?-{3,}")
SVG_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\.svg\)")


def prose_lines(text: str):
    """(line number, text) of each line a student reads as sentences: not code (fenced or indented), table
    rows, headings, images, HTML comments, generated <!-- BEGIN ... --> <!-- END ... --> blocks, or a line
    that is only a link (the rules of the course's prose_words.py, which the old writeup_limits.py kept)."""
    fenced = generated = commented = False
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            fenced = not fenced
        elif fenced:
            continue
        elif re.match(r"<!--\s*BEGIN\b", stripped):
            generated = True
        elif re.match(r"<!--\s*END\b", stripped):
            generated = False
        elif generated:
            continue
        elif commented or stripped.startswith("<!--"):
            commented = "-->" not in stripped
        elif line.startswith(("    ", "\t")) or stripped.startswith(("|", "#", "![")):
            continue
        elif not re.fullmatch(r"\[[^\]]*\]\([^)]*\)", stripped):
            yield number, stripped


def prose_words(text: str) -> int:
    """Words of prose: inline code counts as one word, a link as its text."""
    return sum(len(WORD.findall(re.sub(r"\]\([^)]*\)", "]", re.sub(r"`[^`]*`", "x", line))))
               for _, line in prose_lines(text))


def table_rows(text: str) -> int:
    """Body rows of every table: the lines that start with '|', less each table's header and rule."""
    lines = [line.strip() for line in text.splitlines()]
    return sum(line.startswith("|") for line in lines) - 2 * sum(bool(TABLE_RULE.match(line)) for line in lines)


def header_words(source: str) -> int:
    """Words of the leading /** ... */ comment of a step's source, less its indented command lines."""
    match = re.match(r"\s*/\*\*(.*?)\*/", source, re.S)
    lines = [re.sub(r"^\s*\* ?", "", line) for line in match.group(1).splitlines()] if match else []
    return sum(len(line.split()) for line in lines if not line.startswith("    "))


TABLE_FUNCTIONS = {fn.__name__ for fn in tables.FUNCTIONS} - {"value"}


def prose_values(template_text: str) -> list[int]:
    """The lines of the generated values ({{ ... }}) in a template's prose: not its table and figure blocks
    ({{ compact(...) }}, {{ profile(...) }}, ...), nor headings, images, table rows or code."""
    prose = {number for number, _ in prose_lines(template_text)}
    found = []
    for output in jinja2.Environment().parse(template_text).find_all(jinja2.nodes.Output):
        for node in output.nodes:
            block = isinstance(node, jinja2.nodes.Call) and getattr(node.node, "name", "") in TABLE_FUNCTIONS
            if not isinstance(node, jinja2.nodes.TemplateData) and not block and node.lineno in prose:
                found.append(node.lineno)
    return found


def long_lines(text: str) -> list[int]:
    """The lines over 200 characters that are not table rows."""
    return [n for n, line in enumerate(text.splitlines(), 1) if len(line) > MAX_LINE and not line.startswith("|")]


@pytest.mark.parametrize("write_up", **by_path(WRITE_UPS))
def test_write_up_prose_words(write_up):
    words = prose_words(write_up.read_text())
    assert words <= MAX_PROSE_WORDS, f"{words} words of prose: move the rest to the step's appendix"


@pytest.mark.parametrize("write_up", **by_path(WRITE_UPS))
def test_write_up_table_rows(write_up):
    rows = table_rows(write_up.read_text())
    assert rows <= MAX_TABLE_ROWS, f"{rows} table rows: move the rest to the step's appendix"


@pytest.mark.parametrize("write_up", **by_path(WRITE_UPS))
def test_write_up_has_an_svg_figure(write_up):
    assert SVG_IMAGE.search(write_up.read_text()), "no SVG figure (![caption](../img/NAME.svg))"


@pytest.mark.parametrize("source", **by_path(STEP_SOURCES))
def test_step_header_words(source):
    words = header_words(source.read_text())
    assert 0 < words <= MAX_HEADER_WORDS, f"a header of {words} words (none, or more than {MAX_HEADER_WORDS})"


def readme_words(text: str) -> int:
    """Every word of the page: prose, tables and code alike (not the '|' and '---' of a table)."""
    return len(WORD.findall(text))


def test_readme_words_in_all():
    words = readme_words((ROOT / "README.md").read_text())
    assert words <= MAX_README_WORDS, f"README.md: {words} words in all (prose, tables and code)"


@pytest.mark.parametrize("template", **by_path(TEMPLATES))
def test_template_prose_values(template):
    lines = prose_values(template.read_text())
    assert len(lines) <= MAX_PROSE_VALUES, f"{len(lines)} generated values in prose, at lines {lines}: use a table"


@pytest.mark.parametrize("markdown", **by_path(MARKDOWN_SOURCES))
def test_markdown_line_length(markdown):
    lines = long_lines(markdown.read_text())
    assert lines == [], f"lines over {MAX_LINE} characters that are not table rows: {lines[:5]}"


def test_a_planted_write_up_breaks_every_limit():
    rows = "\n".join(f"| {i} | x |" for i in range(41))
    text = f"# Planted\n\n{'word ' * 1201}\n\n| a | b |\n| --- | --- |\n{rows}\n\n![a PNG](../img/x.png)\n"
    assert (prose_words(text), table_rows(text), SVG_IMAGE.search(text)) == (1201, 41, None)


def test_what_is_not_prose_is_not_counted():
    text = ("# A heading of words\n\nOne `inline code` [link text](x.md).\n\n```\ncode words\n```\n\n"
            "    indented code\n\n<!-- a\ncomment -->\n<!-- BEGIN TABLE -->\ngenerated words\n<!-- END TABLE -->\n"
            "![caption words](../img/x.svg)\n[only a link](y.md)\n| a | row |\n")
    assert prose_words(text) == 4  # One, x (the inline code), link, text


def test_a_planted_step_header_of_211_words_is_caught():
    source = "/**\n" + " * word\n" * 211 + " *     ./build/step01 --shapes 8x8\n */\n__global__ void k() {}\n"
    assert header_words(source) == 211
    assert header_words("__global__ void k() {}\n") == 0


def test_a_planted_readme_of_1201_words_is_caught():
    assert readme_words("# Title\n\n" + "word " * 1199 + "\n\n| a |\n| --- |\n") == 1201


def test_a_template_with_11_values_in_prose_is_caught():
    value = '{{ value(step="01", shape="8192x8192", col="pct_of_copy") }}'
    prose = "".join(f"Sentence {i} quotes {value}.\n" for i in range(11))
    text = f'# {{{{ title }}}}\n\n{{{{ compact(steps="01", shapes="8192x8192") }}}}\n\n{prose}\n| {value} |\n'
    assert prose_values(text) == list(range(5, 16))


def test_a_planted_long_line_is_caught():
    text = "x" * 200 + "\n" + "y" * 201 + "\n| " + "z" * 300 + " |\n"
    assert long_lines(text) == [2]


# ------------------------------------------------------------------ Doxygen
DOXYGEN_MARKUP = re.compile(r"@ref\b|\{#[A-Za-z_]|\\ref\b")


def doxygen_markup(text: str) -> list[str]:
    """The lines that show Doxygen markup (@ref, {#id}, \\ref) as text on GitHub: outside code."""
    fenced, found = False, []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and DOXYGEN_MARKUP.search(re.sub(r"`[^`]*`", "", line)):
            found.append(f"{number}: {line.strip()[:80]}")
    return found


@pytest.mark.parametrize("markdown", **by_path(GITHUB_MARKDOWN))
def test_markdown_has_no_doxygen_markup(markdown):
    found = doxygen_markup(markdown.read_text())
    assert found == [], f"Doxygen markup shows as text on GitHub (docs/Doxyfile's filter adds links): {found[:3]}"


def test_planted_doxygen_markup_is_caught():
    text = "See @ref naive.cu.\n## Title {#title}\nAnd \\ref x.\n`@ref` in code\n```\n\\ref y\n```\n"
    assert [line.split(":")[0] for line in doxygen_markup(text)] == ["1", "2", "3"]


def doxygen_or_skip() -> None:
    if shutil.which("doxygen") is None:
        pytest.skip("doxygen not found: install it (apt-get install doxygen) for make docs")


def test_make_docs_passes_without_a_warning():
    doxygen_or_skip()
    result = run(make_command("docs"))
    log = ROOT / BUILD / "docs" / "doxygen.log"
    assert result.returncode == 0, f"make docs: {first_lines(result.stderr, 600)}"
    assert result.stderr == "", f"make docs warned: {first_lines(result.stderr, 600)}"
    assert log.is_file() and "warning" not in log.read_text().lower()


def test_doxyfile_makes_a_warning_fatal(tmp_path):
    doxygen_or_skip()
    page = tmp_path / "planted.md"
    page.write_text("# Planted\n\nA link to [no page](nowhere.md).\n")
    settings = (ROOT / "docs" / "Doxyfile").read_text() + "\n".join([
        "", f"INPUT = {page}", f"OUTPUT_DIRECTORY = {tmp_path / 'out'}", "USE_MDFILE_AS_MAINPAGE =", ""])
    result = subprocess.run(["doxygen", "-"], input=settings, cwd=ROOT, capture_output=True, text=True,
                            timeout=300, check=False)
    assert result.returncode != 0 and "nowhere.md" in result.stderr, first_lines(result.stderr)
