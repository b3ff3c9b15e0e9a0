"""Step 12's hand-kept limits (steps/12_tma/answer_tuning.h) against the committed sweeps (lab.tuning)."""

import shutil

import pandas as pd
import pytest

from lab import schema, tuning

pytestmark = pytest.mark.docs


def test_the_header_agrees_with_the_sweeps():
    assert tuning.check() == []


def test_a_limit_typed_over_is_caught(tmp_path):
    planted = tmp_path / "answer_tuning.h"
    planted.write_text(tuning.HEADER.read_text().replace("64 * ANSWER_MIB", "32 * ANSWER_MIB"))
    assert tuning.check(header=planted) == [
        "NVIDIA H200 has 32 MiB in answer_tuning.h, its sweep h200.csv implies 64 MiB"]
    assert tuning.main(header=planted) == 1


def test_a_gpu_without_a_row_is_caught(tmp_path):
    planted = tmp_path / "answer_tuning.h"
    text = tuning.HEADER.read_text()
    planted.write_text("\n".join(line for line in text.splitlines() if '{"NVIDIA H200"' not in line))
    assert tuning.check(header=planted) == ["NVIDIA H200 (gpus.csv) has no row in answer_tuning.h"]


def test_a_sweep_where_step_09_trails_at_64_mib_moves_the_limit(tmp_path):
    shutil.copy(schema.RESULTS / "gpus.csv", tmp_path)
    shutil.copy(schema.RESULTS / "h100-80gb-hbm3.csv", tmp_path)
    sweep = pd.read_csv(schema.RESULTS / "h200.csv", dtype=str, keep_default_na=False)
    slower = (sweep["step"] == "09") & (sweep["kernel"] == "vec4") & (sweep["offset"] == "0") & (
        (sweep["rows"] + "x" + sweep["cols"]).isin(["2048x8192", "4096x4096", "8192x2048"]))
    sweep.loc[slower, "pct_of_copy"] = (sweep.loc[slower, "pct_of_copy"].astype(float) - 10).map("{:.2f}".format)
    sweep.to_csv(tmp_path / "h200.csv", index=False)
    assert tuning.limits("h200", tmp_path) == 65536000  # 1280 x 12800 floats, 62.5 MiB
    assert tuning.check(results_dir=tmp_path) == [
        "NVIDIA H200 has 64 MiB in answer_tuning.h, its sweep h200.csv implies 62.5 MiB"]
