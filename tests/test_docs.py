"""The documentation: the rendered pages, the figures, the SASS summary, the checkers whose verdicts the write-ups
word their prose on (never what a GPU measured), the limits of a write-up, and the Doxygen site.

Every check has a planted case beside it, a copy made wrong on purpose, so that it is known to be able to
fail.  `make test PYTEST_ARGS="-m docs"` runs this file.
"""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import jinja2
import pandas as pd
import pytest

from conftest import BUILD, ROOT, assert_exit, first_lines, make_command, make_locked, rel, repo_files, run
from lab import docs, figures, machine, metrics, profile, results, sass, schema, tables

pytestmark = pytest.mark.docs

TEMPLATES = docs.templates()
FRONT_GPU = docs.front_page_gpu()


# ------------------------------------------------------------------ rendered pages
def test_lab_docs_check_passes():
    assert_exit(run([sys.executable, "-m", "lab.docs", "--check"]), 0)


PLANTED_PAGE = """# Planted

Step 01's naive kernel reaches {{ value(step="01", shape="8192x8192", col="pct_of_copy") }} of the copy bound
at 8192 x 8192.
"""


def test_a_stale_value_wrapped_across_two_lines_is_caught(tmp_path):
    """A value typed over by hand and wrapped onto the next line is still found, with the page's line."""
    template = tmp_path / "planted.md.j2"
    template.write_text(PLANTED_PAGE)
    page = docs.output_of(template)
    page.write_text(docs.render(docs.environment(tmp_path), template, FRONT_GPU))
    assert docs.stale(template) is None
    number = re.search(r"reaches ([0-9.]+) % of the copy bound\nat", page.read_text())
    assert number, f"no % of copy in the rendered page: {first_lines(page.read_text())}"
    typed = f"reaches {float(number[1]) + 0.1:.1f}\n% of the copy bound at"
    page.write_text(page.read_text().replace(number[0], typed))
    result = run([sys.executable, "-m", "lab.docs", "--check", template])
    assert_exit(result, 1)   # the page's line 4: its first line says where it comes from
    assert "planted.md is out of date at line 4" in result.stderr


def test_a_value_the_results_lack_is_refused_with_its_line(tmp_path):
    template = tmp_path / "planted.md.j2"
    template.write_text(PLANTED_PAGE.replace('step="01",', 'step="01", kernel="no_such_kernel",'))
    result = run([sys.executable, "-m", "lab.docs", "--check", template])
    assert_exit(result, 2)
    assert result.stderr.startswith("lab.docs: planted.md.j2:3: "), result.stderr


# ------------------------------------------------------------------ claims of the step pages
def quoted_kernels_without_a_row(template_text: str, page: str, step: str) -> list[str]:
    """'NN kernel at SHAPE' for each value() in a step page that quotes a measured column of a kernel of the page's
    own step where no table row of the rendered page shows that kernel at that shape."""
    rows, shape = set(), ""
    for line in page.splitlines():
        if line.startswith("| "):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            shape = cells[0] or shape   # table() leaves a repeated shape empty
            rows.add((shape, cells[1] if len(cells) > 1 else ""))
    default, missing = tables.defined_default(step), []
    for call in jinja2.Environment().parse(template_text).find_all(jinja2.nodes.Call):
        args = {k.key: k.value.value for k in call.kwargs if isinstance(k.value, jinja2.nodes.Const)}
        kernel = args.get("kernel") or default
        if getattr(call.node, "name", "") != "value" or args.get("step") != step or "col" not in args \
                or kernel in ("copy_bound", "cublas"):
            continue
        at = results.Shape.parse(args["shape"]).label()
        labels = {f"{step} {kernel}" if kernel == default else f"{step} {default} (--variant {kernel}{end}"
                  for end in (")", ": a bound)")}
        if not any((at, label) in rows for label in labels):
            missing.append(f"{step} {kernel} at {at}")
    return missing


@pytest.mark.parametrize("template", repo_files("docs/steps/*.md.j2"), ids=rel)
def test_a_step_page_shows_a_row_of_each_kernel_of_its_step_that_its_prose_quotes(template):
    page = docs.output_of(template).read_text()
    assert quoted_kernels_without_a_row(template.read_text(), page, template.name[:2]) == []


def test_a_quoted_kernel_left_out_of_the_table_is_caught():
    template = ROOT / "docs/steps/13_bf16.md.j2"
    page = "\n".join(line for line in docs.output_of(template).read_text().splitlines()
                     if "(--variant port)" not in line)
    assert quoted_kernels_without_a_row(template.read_text(), page, "13") == ["13 port at 16384 x 16384",
                                                                               "13 port at 12800 x 1280"]


# The unit a metric's label must name: ncu's smsp__ averages are per SM sub-partition (SMSP), not per SM, and its
# warp latencies (smsp__average_warp_latency_*) are cycles per warp, not per instruction.
LABEL_UNITS = {r"smsp__.*\.avg": "SMSP", r"smsp__average_warp_latency_.*": "/ warp"}


def labels_without_their_unit(table: pd.DataFrame) -> list[str]:
    """The metrics of a table like lab/metrics.csv whose label does not name the unit LABEL_UNITS asks for."""
    return [metric for metric in table.index for pattern, unit in LABEL_UNITS.items()
            if re.fullmatch(pattern, metric) and unit not in table.at[metric, "label"]]


def test_metric_labels_name_their_unit_and_a_label_that_does_not_is_caught():
    assert labels_without_their_unit(metrics.TABLE) == []
    planted = metrics.TABLE.copy()
    planted.loc["smsp__cycles_active.avg", "label"] = "SM active cycles (average)"
    assert labels_without_their_unit(planted) == ["smsp__cycles_active.avg"]


# ------------------------------------------------------------------ findings: the verdicts the prose words
# Each checker of lab/tables.py on small frames made for it, the verdict held and then flipped; the committed results
# only have to render (a re-measured GPU changes the words, never a test).
def synthetic(*rows) -> pd.DataFrame:
    """A results frame of ("STEP KERNEL", "ROWSxCOLS[+OFFSET]", % of copy, median ms[, fastest ms[, role]])."""
    records = []
    for name, shape, pct, ms, *rest in rows:
        step, kernel = name.split()
        side = results.Shape.parse(shape)
        records.append({"step": step, "kernel": kernel, "role": rest[1] if len(rest) > 1 else "kernel",
                        "rows": side.rows, "cols": side.cols, "offset": side.offset, "pct_of_copy": pct,
                        "median_ms": ms, "min_ms": rest[0] if rest else ms})
    return pd.DataFrame(records)


def labels(shapes) -> list[str]:
    return [shape.label() for shape in shapes]


def test_slower_needs_both_runs_slower_and_a_planted_wrong_pick_is_caught():
    frame = synthetic(("study answer", "65x1220703", 90.0, 1.00), ("11 long_runs", "65x1220703", 90.0, 1.00),
                      ("study answer", "100x800003", 90.0, 1.00, 1.05), ("11 any_shape", "100x800003", 90.0, 1.00),
                      ("11 any_shape", "200x400003", 90.0, 1.00))
    assert labels(tables.slower(frame, ["study"], ["09", "11"])) == ["200 x 400003"]   # not timed: listed
    frame.loc[2, "median_ms"] = 1.05   # slower in its median run too: a wrong pick
    assert labels(tables.slower(frame, ["study"], ["09", "11"])) == ["100 x 800003", "200 x 400003"]


def test_the_pattern_findings_and_a_planted_pattern_that_flips_them():
    frame = synthetic(("study answer", "8196x8196", 88.0, 1.0),
                      ("study swap_down", "8196x8196", 89.0, 1.0, 1.0, "bound"),
                      ("study swap_across", "8196x8196", 78.0, 1.0, 1.0, "bound"),
                      ("study answer", "8256x8256", 97.0, 1.0),
                      ("study swap_down", "8256x8256", 96.0, 1.0, 1.0, "bound"))
    assert tables.behind(frame, ["study answer"], tables.BOUNDS_64, 2.0) == []
    assert tables.reaching(frame, tables.BOUNDS_64, 95.0, tables.off_256) == []   # 8256 floats: 256-byte rows
    frame.loc[0, "pct_of_copy"], frame.loc[2, "pct_of_copy"] = 85.0, 96.0
    assert labels(tables.behind(frame, ["study answer"], tables.BOUNDS_64, 2.0)) == ["8196 x 8196"]
    assert labels(tables.reaching(frame, tables.BOUNDS_64, 95.0, tables.off_256)) == ["8196 x 8196"]
    with pytest.raises(tables.NotMeasured):   # no shape asked for is in the file: no verdict, not "none"
        tables.behind(frame, ["study answer"], tables.BOUNDS_64, 2.0, tables.LARGE)


def test_missed_names_the_bars_shapes_and_a_planted_bound_past_the_target_is_caught():
    frame = synthetic(("study answer", "32768x32768", 95.0, 1.0),
                      ("study swap_down", "32768x32768", 96.0, 1.0, 1.0, "bound"),
                      ("study answer", "1024x1024", 90.0, 1.0))   # not a shape of the bar
    assert labels(tables.missed(frame, "study", "last_step")) == ["32768 x 32768"]
    assert tables.missed(frame, "study", "last_step", tables.BOUNDS_64) == []
    frame.loc[1, "pct_of_copy"] = 98.0
    assert labels(tables.missed(frame, "study", "last_step", tables.BOUNDS_64)) == ["32768 x 32768"]


def test_busy_as_copy_and_peers_ahead_and_planted_cases_that_flip_them():
    def share(kernel: str, value: float) -> dict:
        step, name = kernel.split()
        return {"step": step, "kernel": name, "rows": 32768, "cols": 32768, "offset": 0,
                "metric": "dram_active_fraction", "value": value}
    counters = pd.DataFrame([share("12 answer", 0.80), share("12 copy_kernel", 0.85)])
    assert tables.busy_as_copy(counters, results.Shape(32768, 32768), ["12 answer"]) == []
    counters.loc[0, "value"] = 0.85
    assert tables.busy_as_copy(counters, results.Shape(32768, 32768), ["12 answer"]) == ["12 answer"]
    peers = pd.DataFrame([{"peer": "tutorial", "role": "tutorial", "rows": 8192, "cols": 8192, "pct_of_copy": 97.0,
                           "check": "PASS"}, {"peer": "triton", "role": "peer", "rows": 8192, "cols": 8192,
                                              "pct_of_copy": 97.5, "check": "PASS"}])
    assert tables.peers_ahead(peers) == []
    peers.loc[1, "pct_of_copy"] = 98.5
    assert tables.peers_ahead(peers) == ["triton at 8192 x 8192"]


@pytest.fixture
def results_copy(tmp_path, monkeypatch):
    """A copy of docs/results/ that the tables read instead, their caches emptied before and after."""
    folder = tmp_path / "results"
    shutil.copytree(schema.RESULTS, folder)
    monkeypatch.setattr(schema, "RESULTS", folder)
    tables.load.cache_clear()
    yield folder
    tables.load.cache_clear()


def test_a_gpu_added_by_its_files_and_a_row_of_gpus_csv_renders_every_template(results_copy):
    """The front page GPU's files under a new slug, less a study it has not run, and its row in gpus.csv."""
    for file in results_copy.glob(f"{FRONT_GPU}[.-]*"):
        shutil.copy(file, results_copy / file.name.replace(FRONT_GPU, "planted", 1))
    (results_copy / "planted-order.csv").unlink()
    with open(results_copy / "gpus.csv", "a") as gpus:
        gpus.write("planted,NVIDIA Planted,no\n")
    for template in TEMPLATES:
        docs.render(docs.environment(docs.root_of(template)), template, FRONT_GPU)
    page = docs.render(docs.environment(), ROOT / "docs/last-points.md.j2", FRONT_GPU)
    assert "| finding | NVIDIA H200 | NVIDIA H100 80GB HBM3 | NVIDIA Planted |" in page
    assert "| not measured |" in page


def test_an_unknown_finding_or_one_no_gpu_has_the_results_of_is_refused(monkeypatch):
    page = tables.Page(ROOT / "docs", FRONT_GPU)
    with pytest.raises(tables.TemplateError, match="no finding 'no_such_finding'"):
        tables.found(page, "no_such_finding")
    what, _, how = tables.FINDINGS["pitch_12"]
    monkeypatch.setitem(tables.FINDINGS, "pitch_12", (what, "no-such-study", how))
    with pytest.raises(tables.TemplateError, match="no GPU has the results of finding 'pitch_12'"):
        tables.found(page, "pitch_12")


@pytest.mark.parametrize("dtype, bar", [("float32", "last_step"), ("bf16", "bf16")])
def test_the_peers_run_every_shape_of_their_bar_that_takes_no_offset(dtype, bar):
    from lab import peers   # here: a test below names its results file `peers`
    ran = {str(results.Shape.parse(s)) for s in peers.DTYPES[dtype].shapes.split(",")}
    assert ran == {str(s) for criterion in tables.BARS[bar]["criteria"] for s in criterion[0] if not s.offset}


# ------------------------------------------------------------------ the copy bound
def above_copy_bound(frame: pd.DataFrame) -> list[str]:
    """The kernels measured above 101 % of the copy bound on matrices past L2 (tables.past_l2(): in L2, writes
    need not reach DRAM before a kernel ends, and the timings take microseconds: docs/timing.md)."""
    over = frame[frame["role"].isin(["kernel", "bound"]) & tables.past_l2(frame) & (frame["pct_of_copy"] > 101)]
    return [f"step {r.step} {r.kernel} at {r.rows}x{r.cols}+{r.offset}: {r.pct_of_copy} %" for r in over.itertuples()]


@pytest.mark.parametrize("gpu", results.gpus()["slug"])
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
    frame.loc[small, "pct_of_copy"] = 150.0  # in L2: left to docs/timing.md
    over = above_copy_bound(frame)
    assert len(over) == big.sum() and all("8192x8192+0: 101.5 %" in line for line in over)


# ------------------------------------------------------------------ the profile plan
def test_the_profile_plan_is_well_formed_and_covers_every_profile_table_of_the_templates():
    assert profile.check_plan() + profile.plan_covers_templates() == []


# Calls of the templates whose plan rows a planted plan lacks: (which call, the step whose rows go, which of them).
PLAN_PLANTS = {
    "a call's only row": (lambda a: "," not in a["steps"] and a.get("baselines") == "yes",
                          lambda a: a["steps"], lambda plan, a: plan["step"] != ""),
    "one of two variants": (lambda a: "," not in a["steps"] and "," in (a.get("variant") or ""),
                            lambda a: a["steps"], lambda plan, a: plan["variant"] == a["variant"].split(",")[-1]),
    "one step of two": (lambda a: "," in a["steps"] and bool(a.get("variant")),
                        lambda a: a["steps"].split(",")[0], lambda plan, a: plan["step"] != ""),
}


@pytest.mark.parametrize("plant", PLAN_PLANTS)
def test_a_plan_without_a_row_a_template_needs_is_caught(plant):
    call, step_of, which = PLAN_PLANTS[plant]
    plan = profile.read_plan()

    def rows_of(arguments: dict) -> pd.Series:
        return (plan["step"] == step_of(arguments)) & (plan["shape"] == arguments["shape"]) & which(plan, arguments)

    where, arguments = next(((w, a) for w, name, a in profile.template_calls()
                             if name == "profile" and call(a) and rows_of(a).any()), (None, None))
    assert where, f"no profile() call of the templates to plant '{plant}' on"
    step, shape = step_of(arguments), arguments["shape"]
    problems = profile.plan_covers_templates(plan[~rows_of(arguments)])
    assert any(where.split(":")[0] in p and f"step {step} at {shape}" in p for p in problems), problems


def test_a_plan_without_the_peers_a_template_shows_is_caught():
    plan = profile.read_plan()
    planted = plan[~((plan["step"] == "") & (plan["shape"] == "12800x1280"))]
    problems = profile.plan_covers_templates(planted)
    assert problems and all("no peer at 12800x1280" in p and "results.md.j2" in p for p in problems)


def test_a_peers_profile_table_asks_for_counters_that_were_measured():
    page = tables.Page(schema.ROOT / "docs", "h100-80gb-hbm3")
    assert "| tutorial |" in tables.peers_profile(page, shape="12800x1280", metrics="gpu__time_duration.sum")
    with pytest.raises(tables.TemplateError, match="has the metric not_a_counter"):
        tables.peers_profile(page, shape="12800x1280", metrics="not_a_counter")


def test_a_plan_naming_a_peer_ncu_cannot_see_is_caught():
    plan = profile.read_plan()
    plan.loc[len(plan)] = {"step": "", "shape": "1280x12800", "variant": "", "baselines": "", "peers": "jax"}
    assert [p.split(": ", 1)[1] for p in profile.check_plan(plan)] == [
        "peer 'jax' cannot be profiled; those that can: tutorial, cublas, torch, torch.compile, triton, cute, cupy"]


def test_a_tensor_row_of_the_plan_is_step_15s_and_saved_as_the_matrix_its_program_reports():
    plan = profile.read_plan()
    plan.loc[len(plan)] = {"step": "12", "shape": "3x4x5:021", "variant": "", "baselines": "no", "peers": ""}
    plan.loc[len(plan)] = {"step": "15", "shape": "3x4x:021", "variant": "", "baselines": "no", "peers": ""}
    assert [p.split(": ", 1)[1] for p in profile.check_plan(plan)] == [
        "a tensor (3x4x5:021) is step 15's only", "'3x4x:021' is not ROWSxCOLS[+OFFSET], or a tensor DIMSxDIMS...:PERM"]
    build = ROOT / BUILD
    if not (build / "step15").is_file():
        pytest.skip(f"{build}/step15 is not built: make step15")
    # [32, 256, 56, 56] to NHWC folds to 32 matrices of 256 x 3136: the harness reports 8192 x 3136.
    assert profile.saved_shape("32x256x56x56:0231", build) == results.Shape(8192, 3136)
    assert profile.saved_shape("4096x4096+1", build) == results.Shape(4096, 4096, 1)


def test_lab_peers_once_refuses_the_copy_bound():
    result = run([sys.executable, "-m", "lab.peers", "--once", "--peers", "copy"])
    assert_exit(result, 2)
    assert "unknown peer 'copy'" in result.stderr


# ------------------------------------------------------------------ figures
def test_the_figures_and_their_index_maps_are_fresh_and_a_stale_map_is_caught(tmp_path):
    """make figures-check: docs/img/index-maps.csv is what tests/index_maps.cu prints, and the figures what
    lab.figures draws; a value of the kernels' arithmetic changed in the CSV is caught."""
    result = make_locked("figures-check", f"PYTHON={sys.executable}")
    assert result.returncode == 0, f"figures out of date: make figures ({first_lines(result.stderr)})"
    planted = tmp_path / "index-maps.csv"
    planted.write_text(figures.INDEX_MAPS.read_text().replace("\nvec4_load,0,0,", "\nvec4_load,0,0,1", 1))
    result = make_locked("figures-check", f"PYTHON={sys.executable}", f"INDEX_MAPS_CSV={planted}")
    assert result.returncode != 0 and f"error: {planted} is out of date" in result.stderr, first_lines(result.stderr)


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
def sm_90_build() -> Path:
    """A build folder of sm_90 code only, as lab.sass reads it (bringing it up to date through make): the suite's
    own where it is built for sm_90 alone (as without a GPU), else one of its own, to keep the suite's flags."""
    flags = ROOT / BUILD / "flags.txt"
    built_for = set(re.findall(r"code=sm_(\d+)", flags.read_text())) if flags.is_file() else set()
    return BUILD if built_for == {"90"} else BUILD / "sass-sm_90"


def test_the_sass_summary_matches_the_compiled_steps_and_one_typed_over_is_caught(tmp_path, monkeypatch):
    """One test, so that two makes never build the same objects side by side."""
    for tool in ("cuobjdump", "c++filt"):
        if not (shutil.which(tool) or shutil.which(tool, path="/usr/local/cuda/bin")):
            pytest.skip(machine.CUOBJDUMP_MISSING if tool == "cuobjdump" else
                        f"{tool} not found: lab.sass reads the compiled code with cuobjdump and c++filt")
    monkeypatch.setenv("ARCH", "sm_90")
    for variable in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL"):
        monkeypatch.delenv(variable, raising=False)
    result = run([sys.executable, "-m", "lab.sass", "--check", "--build", sm_90_build()])
    assert result.returncode == 0, f"python3 -m lab.sass --check: {first_lines(result.stderr)}"
    committed = pd.read_csv(schema.RESULTS / "sass-sm_90.csv", dtype=str, keep_default_na=False)
    committed.loc[0, "count"] = str(int(committed.loc[0, "count"]) + 1)
    committed.to_csv(tmp_path / "sass-sm_90.csv", index=False)
    monkeypatch.setattr(schema, "RESULTS", tmp_path)
    assert sass.run(["--check", "--build", str(sm_90_build())]) == 1


# The fetch hint of the line-asking loads of each element type: the float32 sector runs (256 bytes, in step 14's
# dispatch), step 13's bf16 kernels (128 bytes). A kernel's element type shows in its signature.
LINE_HINTS = {"14": ("LTC256B", "float const*"), "13": ("LTC128B", "short const*")}


# Lines = true in a kernel's name: the flag after a tile's, a run's or a slab's own parameters
# (`tile16<64u, 128u, true>`, `runs16_rows<144u, true>`), not step 13's tile order (`(t16_store)1, true>`).
LINES_TRUE = re.compile(r"(?:\du|short), true>")


def line_hint_mismatches(summary: pd.DataFrame, step: str) -> list[str]:
    """The step's kernels of the hint's element type whose 16-byte loads disagree with its appendix: those built
    with Lines = true (LINES_TRUE) load with the hint (LDG.E.LTC128B for ld.global.nc.L2::128B), the others
    without."""
    hint, elements = LINE_HINTS[step]
    rows = summary[(summary["step"] == step) & summary["kernel"].str.contains(elements, regex=False)
                   & summary["instruction"].str.match(rf"LDG\.E\.({hint}\.)?128")]
    return [kernel for kernel, own in rows.groupby("kernel")
            if bool(LINES_TRUE.search(kernel)) != own["instruction"].str.contains(hint).any()]


@pytest.mark.parametrize("step", sorted(LINE_HINTS))
def test_loads_ask_l2_for_whole_lines_where_the_appendix_says_and_a_swap_is_caught(step):
    committed = pd.read_csv(schema.RESULTS / "sass-sm_90.csv", dtype=str, keep_default_na=False)
    assert line_hint_mismatches(committed, step) == []
    kernels = committed[(committed["step"] == step)
                        & committed["kernel"].str.contains(LINE_HINTS[step][1], regex=False)]["kernel"]
    assert kernels.str.contains(LINES_TRUE).any() and kernels.str.contains(", false>").any()
    swapped = committed.copy()
    swapped["instruction"] = swapped["instruction"].str.replace(f"LDG.E.{LINE_HINTS[step][0]}.128", "LDG.E.128",
                                                                regex=False)
    assert line_hint_mismatches(swapped, step), "a summary without the hint must disagree with the appendix"


# ------------------------------------------------------------------ limits of a write-up, and Doxygen markup
WORD = re.compile(r"[A-Za-z0-9][\w'.,%x-]*")
SVG_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\.svg\)")


def prose_lines(text: str):
    """(line number, text) of each line a student reads as sentences: not code (fenced or indented), table rows,
    headings, images, HTML comments, generated <!-- BEGIN --> ... <!-- END --> blocks, or a line only a link."""
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


def test_the_best_peer_is_the_fastest_that_passed_its_check(monkeypatch):
    rows = [("tutorial", "tutorial", 90.0, "PASS"), ("triton", "peer", 95.0, "FAIL"), ("jax", "peer", 80.0, "PASS"),
            ("torch", "peer", 85.0, "PASS"), ("cupy", "peer", 85.0, "PASS")]   # a tie goes to the first name
    frame = pd.DataFrame([dict(peer=peer, version="step 99", op="x", role=role, at="8x8", pct_of_copy=pct, check=check)
                          for peer, role, pct, check in rows])
    monkeypatch.setattr(tables, "load", lambda gpu, kind="bench": frame)
    monkeypatch.setattr(tables, "source", lambda gpu, kind="bench": "")
    text = tables.peers_best(tables.Page(ROOT / "docs", FRONT_GPU))
    assert "| 8 x 8 | 90.0 % | cupy 85.0 % |" in text and "triton" not in text and "(step 99 x)" in text


def table_rows(text: str) -> int:
    """Body rows of every table: the lines that start with '|', less each table's header and rule."""
    lines = [line.strip() for line in text.splitlines()]
    rules = sum(bool(re.match(r"^\|\s*:?-{3,}", line)) for line in lines)
    return sum(line.startswith("|") for line in lines) - 2 * rules


def header_words(source: str) -> int:
    """Words of the leading /** ... */ comment of a step's source, less its indented command lines."""
    match = re.match(r"\s*/\*\*(.*?)\*/", source, re.S)
    lines = [re.sub(r"^\s*\* ?", "", line) for line in match.group(1).splitlines()] if match else []
    return sum(len(line.split()) for line in lines if not line.startswith("    "))


def prose_values(template_text: str) -> list[int]:
    """The lines of the generated values ({{ ... }}) in a template's prose: not its table and figure blocks
    ({{ compact(...) }}, {{ profile(...) }}, ...), nor headings, images, table rows or code."""
    prose = {number for number, _ in prose_lines(template_text)}
    blocks = {fn.__name__ for fn in tables.FUNCTIONS} - {"value"}
    return [node.lineno for output in jinja2.Environment().parse(template_text).find_all(jinja2.nodes.Output)
            for node in output.nodes if node.lineno in prose and not isinstance(node, jinja2.nodes.TemplateData)
            and not (isinstance(node, jinja2.nodes.Call) and getattr(node.node, "name", "") in blocks)]


def doxygen_markup(text: str) -> list[str]:
    """The lines that show Doxygen markup (@ref, {#id}, \\ref) as text on GitHub: outside code."""
    fenced, found = False, []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and re.search(r"@ref\b|\{#[A-Za-z_]|\\ref\b", re.sub(r"`[^`]*`", "", line)):
            found.append(f"{number}: {line.strip()[:80]}")
    return found


# The Markdown of the repository: the pages rendered from templates and the hand-written ones, then the templates.
GITHUB_MARKDOWN = repo_files("README.md", "docs/**/*.md", "exercises/*/README.md", "solutions/**/*.md")
MARKDOWN_SOURCES = GITHUB_MARKDOWN + repo_files("README.md.j2", "docs/**/*.md.j2", "exercises/*/README.md.j2")
WRITE_UPS = repo_files("docs/steps/*.md")
APPENDIX = "move the rest to the step's appendix"
# {limit: (the files it holds for, what it measures in a file's text, whether that is within it, what to do)}
LIMITS = {
    "prose_words": (WRITE_UPS, prose_words, lambda words: words <= 1200, APPENDIX),
    "table_rows": (WRITE_UPS, table_rows, lambda rows: rows <= 40, APPENDIX),
    "appendix_words": (repo_files("docs/appendix/*.md", "docs/last-points.md"), prose_words,
                       lambda words: words <= 1500, "keep what a student needs; the history stays in git"),
    "svg_figure": (WRITE_UPS, SVG_IMAGE.search, bool, "no SVG figure (![caption](../img/NAME.svg))"),
    "header_words": (repo_files("steps/*/*.cu"), header_words, lambda words: 0 < words <= 210, "none, or over 210"),
    "readme_words": (repo_files("README.md"), lambda text: len(WORD.findall(text)), lambda words: words <= 1200,
                     "words in all: prose, tables and code (not the '|' and '---' of a table)"),
    "prose_values": (TEMPLATES, prose_values, lambda lines: len(lines) <= 10, "generated values in prose: a table"),
    "long_lines": (MARKDOWN_SOURCES, lambda text: [n for n, line in enumerate(text.splitlines(), 1)
                                                   if len(line) > 200 and not line.startswith("|")],
                   lambda lines: lines == [], "lines over 200 characters that are not table rows"),
    "doxygen_markup": (GITHUB_MARKDOWN, doxygen_markup, lambda lines: lines == [],
                       "shows as text on GitHub (docs/Doxyfile's filter adds links)"),
}


@pytest.mark.parametrize("limit, path", [(limit, p) for limit, (paths, *_) in LIMITS.items() for p in paths],
                         ids=[f"{limit}-{rel(p)}" for limit, (paths, *_) in LIMITS.items() for p in paths])
def test_a_file_keeps_its_limit(limit, path):
    _, measure, within, advice = LIMITS[limit]
    measured = measure(path.read_text())
    assert within(measured), f"{limit}: {measured}: {advice}"


NOT_PROSE = ("# A heading of words\n\nOne `inline code` [link text](x.md).\n\n```\ncode words\n```\n\n"
             "    indented code\n\n<!-- a\ncomment -->\n<!-- BEGIN TABLE -->\ngenerated words\n<!-- END TABLE -->\n"
             "![caption words](../img/x.svg)\n[only a link](y.md)\n| a | row |\n")  # 4 words: One x link text
TABLE = "| a | b |\n| --- | --- |\n" + "".join(f"| {i} | x |\n" for i in range(41))
VALUE = '{{ value(step="01", shape="8192x8192", col="pct_of_copy") }}'
PLANTED = [  # (limit, a text made to break it, what it measures there)
    ("prose_words", NOT_PROSE + "word " * 1197, 1201),
    ("table_rows", f"# Planted\n\n{TABLE}\n![a PNG](../img/x.png)\n", 41),
    ("appendix_words", NOT_PROSE + "word " * 1497, 1501),
    ("svg_figure", "# Planted\n\n![a PNG](../img/x.png)\n[an SVG link](../img/x.svg)\n", None),
    ("header_words", "/**\n" + " * word\n" * 211 + " *     ./build/step01 --shapes 8x8\n */\nvoid k() {}\n", 211),
    ("header_words", "void k() {}\n", 0),
    ("readme_words", "# Title\n\n" + "word " * 1199 + "\n\n| a |\n| --- |\n", 1201),
    ("prose_values", '# {{ title }}\n\n{{ compact(steps="01", shapes="8192x8192") }}\n\n'
     + "".join(f"Sentence {i} quotes {VALUE}.\n" for i in range(11)) + f"\n| {VALUE} |\n", list(range(5, 16))),
    ("long_lines", "x" * 200 + "\n" + "y" * 201 + "\n| " + "z" * 300 + " |\n", [2]),
    ("doxygen_markup", "See @ref naive.cu.\n## Title {#title}\nAnd \\ref x.\n`@ref` in code\n```\n\\ref y\n```\n",
     ["1: See @ref naive.cu.", "2: ## Title {#title}", "3: And \\ref x."]),
]


@pytest.mark.parametrize("limit, text, measured", PLANTED, ids=[p[0] for p in PLANTED])
def test_a_planted_text_breaks_the_limit(limit, text, measured):
    _, measure, within, _ = LIMITS[limit]
    assert measure(text) == measured and not within(measured)


# ------------------------------------------------------------------ Doxygen
needs_doxygen = pytest.mark.skipif(shutil.which("doxygen") is None,
                                   reason="doxygen not found: install it (apt-get install doxygen) for make docs")


@needs_doxygen
def test_make_docs_passes_without_a_warning():
    result = run(make_command("docs"))
    log = ROOT / BUILD / "docs" / "doxygen.log"
    assert result.returncode == 0 and result.stderr == "", f"make docs: {first_lines(result.stderr, 600)}"
    assert log.is_file() and "warning" not in log.read_text().lower()


@needs_doxygen
def test_doxyfile_makes_a_warning_fatal(tmp_path):
    page = tmp_path / "planted.md"
    page.write_text("# Planted\n\nA link to [no page](nowhere.md).\n")
    settings = (ROOT / "docs" / "Doxyfile").read_text() + "\n".join([
        "", f"INPUT = {page}", f"OUTPUT_DIRECTORY = {tmp_path / 'out'}", "USE_MDFILE_AS_MAINPAGE =", ""])
    result = subprocess.run(["doxygen", "-"], input=settings, cwd=ROOT, capture_output=True, text=True,
                            timeout=300, check=False)
    assert result.returncode != 0 and "nowhere.md" in result.stderr, first_lines(result.stderr)
