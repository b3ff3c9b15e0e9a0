"""Step 12's hand-kept limits (steps/12_tma/answer_tuning.h) against the committed sweeps (lab.tuning)."""

import shutil

import pandas as pd
import pytest

from lab import results, schema, tuning

pytestmark = pytest.mark.docs


def test_the_header_agrees_with_the_sweeps():
    assert tuning.check() == []


def header_row(name: str) -> tuple:
    """The header's row of the GPU named `name`: (name, limit, power-of-two limit, long runs' size, tiles_down)."""
    return next(row for row in tuning.header_rows() if row[0] == name)


def test_a_limit_typed_over_is_caught(tmp_path):
    _, first, second, *_ = header_row("NVIDIA H200")
    planted = tmp_path / "answer_tuning.h"
    written = f'{{"NVIDIA H200", {tuning.size_text(first)}, {tuning.size_text(second)}'
    halved = f'{{"NVIDIA H200", {tuning.size_text(first // 2)}, {tuning.size_text(second)}'
    assert written in tuning.HEADER.read_text()
    planted.write_text(tuning.HEADER.read_text().replace(written, halved))
    assert tuning.check(header=planted) == [
        f"NVIDIA H200 has {tuning.label(first // 2)} in answer_tuning.h, its sweep h200.csv implies "
        f"{tuning.label(first)}"]
    assert tuning.main(header=planted) == 1


@pytest.mark.parametrize("name", ["NVIDIA H200", "NVIDIA H100 80GB HBM3"])
def test_a_tile_kernel_typed_over_is_caught(tmp_path, name):
    *_, down = header_row(name)
    flipped = {"true": "false", "false": "true"}[down]
    line = next(line for line in tuning.HEADER.read_text().splitlines() if f'{{"{name}"' in line)
    planted = tmp_path / "answer_tuning.h"
    planted.write_text(tuning.HEADER.read_text().replace(line, line.replace(f", {down}}}", f", {flipped}}}")))
    problems = tuning.check(header=planted)
    assert problems[0].startswith(f"{name} has tiles_down {flipped} in answer_tuning.h, its sweep "
                                  f"{results.gpu_slug(name)}.csv implies {down}")


@pytest.mark.parametrize("gpu", ["h200", "h100-80gb-hbm3"])
def test_the_tile_kernel_is_the_one_that_gains_more(tmp_path, gpu):
    shutil.copy(schema.RESULTS / "gpus.csv", tmp_path)
    sweep = pd.read_csv(schema.RESULTS / f"{gpu}.csv", dtype=str, keep_default_na=False)
    for ahead, behind in (("12 tiles_down", "09 vec4"), ("09 vec4", "12 tiles_down")):
        planted = sweep.copy()
        run = planted["step"] + " " + planted["kernel"]
        lead = planted["pct_of_copy"].astype(float) + (run == ahead) * 20 - (run == behind) * 20
        planted["pct_of_copy"] = lead.map("{:.2f}".format)
        planted.to_csv(tmp_path / f"{gpu}.csv", index=False)
        assert tuning.tile_kernel(gpu, tmp_path) == ahead


def test_a_gpu_without_a_row_gets_the_default_and_is_no_problem(tmp_path):
    """A new GPU is its results and a row of gpus.csv: the answer runs its default for GPUs not measured there."""
    planted = tmp_path / "answer_tuning.h"
    text = tuning.HEADER.read_text()
    planted.write_text("\n".join(line for line in text.splitlines() if '{"NVIDIA H200"' not in line))
    assert tuning.check(header=planted) == []


def test_tiles_down_trailing_step_09_by_more_than_2_points_at_one_shape_keeps_step_09(tmp_path):
    shutil.copy(schema.RESULTS / "gpus.csv", tmp_path)
    sweep = pd.read_csv(schema.RESULTS / "h200.csv", dtype=str, keep_default_na=False)
    sweep.to_csv(tmp_path / "h200.csv", index=False)
    assert tuning.tile_kernel("h200", tmp_path) == tuning.TILES_DOWN and tuning.worst_trail("h200", tmp_path) <= 2
    at = (sweep["rows"] == "4096") & (sweep["cols"] == "4096") & (sweep["offset"] == "0")
    step09 = float(sweep.loc[at & (sweep["step"] == "09") & (sweep["kernel"] == "vec4"), "pct_of_copy"].iloc[0])
    sweep.loc[at & (sweep["step"] == "12") & (sweep["kernel"] == "tiles_down"), "pct_of_copy"] = f"{step09 - 2.5:.2f}"
    sweep.to_csv(tmp_path / "h200.csv", index=False)
    assert tuning.worst_trail("h200", tmp_path) == pytest.approx(2.5)
    assert tuning.tile_kernel("h200", tmp_path) == tuning.LEADER


@pytest.mark.parametrize("gpu", ["h200", "h100-80gb-hbm3"])
def test_a_sweep_where_the_tiles_trail_from_64_mib_moves_the_limits(tmp_path, gpu):
    for name in ("gpus.csv", f"{gpu}.csv", f"{gpu}-pitch.csv"):
        if (schema.RESULTS / name).is_file():
            shutil.copy(schema.RESULTS / name, tmp_path)
    for name in (f"{gpu}.csv", f"{gpu}-pitch.csv"):
        if not (tmp_path / name).is_file():
            continue
        frame = pd.read_csv(tmp_path / name, dtype=str, keep_default_na=False)
        big = frame["step"].str.cat(frame["kernel"], sep=" ").isin(tuning.TILE_KERNELS) & (
            frame["rows"].astype(int) * frame["cols"].astype(int) * 4 >= 64 << 20)
        frame.loc[big, "pct_of_copy"] = (frame.loc[big, "pct_of_copy"].astype(float) - 20).map("{:.2f}".format)
        frame.to_csv(tmp_path / name, index=False)
    assert tuning.limits(gpu, tmp_path) == 65536000  # 1280 x 12800 floats, 62.5 MiB: the largest size below
    assert tuning.limits(gpu, tmp_path, pow2=True) < 64 << 20


def test_a_power_of_two_limit_typed_over_is_caught(tmp_path):
    planted = tmp_path / "answer_tuning.h"
    planted.write_text(tuning.HEADER.read_text().replace('{"NVIDIA H100 80GB HBM3", 1024 * ANSWER_MIB, 4096',
                                                         '{"NVIDIA H100 80GB HBM3", 1024 * ANSWER_MIB, 1024'))
    assert tuning.check(header=planted) == [
        "NVIDIA H100 80GB HBM3 has 1024 MiB for rows a power of two in answer_tuning.h, "
        "h100-80gb-hbm3.csv and h100-80gb-hbm3-pitch.csv imply 4096 MiB"]


def test_a_pitch_study_where_step_09_trails_past_1_gib_moves_the_power_of_two_limit(tmp_path):
    for name in ("gpus.csv", "h200.csv", "h100-80gb-hbm3.csv"):
        shutil.copy(schema.RESULTS / name, tmp_path)
    study = pd.read_csv(schema.RESULTS / "h100-80gb-hbm3-pitch.csv", dtype=str, keep_default_na=False)
    big = (study["step"] == "09") & (study["kernel"] == "vec4") & (
        study["rows"].astype(int) * study["cols"].astype(int) > 1 << 28)
    assert big.any()
    study.loc[big, "pct_of_copy"] = (study.loc[big, "pct_of_copy"].astype(float) - 10).map("{:.2f}".format)
    study.to_csv(tmp_path / "h100-80gb-hbm3-pitch.csv", index=False)
    assert tuning.limits("h100-80gb-hbm3", tmp_path, pow2=True) == 1 << 30
    assert tuning.limits("h100-80gb-hbm3", tmp_path) == 1 << 30   # the first limit reads the sweep alone


def test_the_best_split_is_where_the_running_lead_peaks():
    sizes = [4, 8, 16, 32, 64, 128]
    assert tuning.best_split(pd.Series([3.7, -0.9, 3.3, 2.8, -0.6, -0.7], index=sizes)) == 32   # one dip: no stop
    assert tuning.best_split(pd.Series([1.0, -3.0, 0.5, 0.5, 0.5, 0.5], index=sizes)) == 4    # a deep dip stops it
    assert tuning.best_split(pd.Series([-1.0, 0.5, 0.4, -2.0, 0.0, 0.0], index=sizes)) == 0   # never ahead overall
    assert tuning.best_split(pd.Series([0.2] * 6, index=sizes)) == 128


def test_power_of_two():
    assert tuning.power_of_two(pd.Series([1, 2, 4096, 1 << 40, 0, 3, 24576, 20000])).tolist() == [
        True, True, True, True, False, False, False, False]


def with_long_runs(sweep: pd.DataFrame, lead_from: int) -> pd.DataFrame:
    """The sweep with step 11's long runs planted at its odd shapes: 3 points ahead of the default on matrices of
    at least lead_from bytes, 3 behind on smaller ones."""
    odd = (sweep["step"] == "11") & (sweep["kernel"] == "any_shape") & (
        (sweep["rows"].astype(int) % 4 != 0) | (sweep["cols"].astype(int) % 4 != 0))
    planted = sweep[odd].copy()
    size = planted["rows"].astype(int) * planted["cols"].astype(int) * 4
    planted["kernel"] = "long_runs"
    planted["pct_of_copy"] = (planted["pct_of_copy"].astype(float) + (size >= lead_from).map({True: 3, False: -3})
                              ).map("{:.2f}".format)
    return pd.concat([sweep, planted], ignore_index=True)


@pytest.mark.parametrize("gpu", ["h200", "h100-80gb-hbm3"])
def test_the_long_runs_size_is_where_they_stop_trailing(tmp_path, gpu):
    shutil.copy(schema.RESULTS / "gpus.csv", tmp_path)
    sweep = pd.read_csv(schema.RESULTS / f"{gpu}.csv", dtype=str, keep_default_na=False)
    with_long_runs(sweep, 10007 * 7919 * 4).to_csv(tmp_path / f"{gpu}.csv", index=False)
    assert tuning.long_runs_from(gpu, tmp_path) == 10007 * 7919 * 4   # 4097 x 4097 trails, the larger lead
    with_long_runs(sweep, 1 << 40).to_csv(tmp_path / f"{gpu}.csv", index=False)
    assert tuning.long_runs_from(gpu, tmp_path) == tuning.NEVER   # trailing at every size: never


def test_a_long_runs_size_typed_over_is_caught(tmp_path):
    shutil.copy(schema.RESULTS / "gpus.csv", tmp_path)
    for gpu in ("h200", "h100-80gb-hbm3"):
        sweep = pd.read_csv(schema.RESULTS / f"{gpu}.csv", dtype=str, keep_default_na=False)
        with_long_runs(sweep, 1 << 40).to_csv(tmp_path / f"{gpu}.csv", index=False)
    shutil.copy(schema.RESULTS / "h100-80gb-hbm3-pitch.csv", tmp_path)
    problems = tuning.check(results_dir=tmp_path)
    typed = [(name, long_runs) for name, _, _, long_runs, _ in tuning.header_rows() if long_runs != tuning.NEVER]
    assert typed, "answer_tuning.h takes the long runs on no GPU: nothing for this test to plant against"
    assert problems == [f"{name} has {tuning.label(long_runs)} for the long runs in answer_tuning.h, its sweep "
                        f"{results.gpu_slug(name)}.csv implies never" for name, long_runs in typed]


def test_the_header_reads_answer_never():
    assert tuning.size_of("ANSWER_NEVER") == tuning.NEVER and tuning.label(tuning.NEVER) == "never"
    assert tuning.size_text(tuning.NEVER) == "ANSWER_NEVER" and tuning.size_text(3 << 20) == "3 * ANSWER_MIB"


def test_the_first_limit_stops_at_the_largest_matrix_whose_rows_are_not_a_power_of_two(tmp_path):
    for name in ("gpus.csv", "h200.csv"):
        shutil.copy(schema.RESULTS / name, tmp_path)
    sweep = pd.read_csv(tmp_path / "h200.csv", dtype=str, keep_default_na=False)
    run = sweep["step"] + " " + sweep["kernel"]
    largest = (sweep["rows"] == "32768") & (sweep["cols"] == "32768") & (run == tuning.TILES_DOWN)
    assert largest.any()
    sweep.loc[largest, "pct_of_copy"] = "150.00"   # a lead at 4 GiB that would outweigh every dip before it
    sweep.to_csv(tmp_path / "h200.csv", index=False)
    assert tuning.limits("h200", tmp_path, pow2=True) == 4 << 30
    assert tuning.limits("h200", tmp_path) <= 20000 * 20000 * 4   # 32768 rows: the second limit's to read
    assert tuning.measured_for_others(tuning.leads("h200", tmp_path)).index.max() == 20000 * 20000 * 4
