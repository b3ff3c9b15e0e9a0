"""Read and write the results files by column name, with pandas: docs/results/<gpu>.csv (make bench) and
<gpu>-profile.csv, <gpu>-peers.csv, <gpu>-peers-bf16.csv, <gpu>-reference-timings.csv (make profile, peers,
reference-timings)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from lab import schema

SHAPE = re.compile(r"([1-9][0-9]*)x([1-9][0-9]*)(?:\+([0-9]+))?")


class ResultsError(Exception):
    """A results file that is missing, or lacks a column its layout needs."""


@dataclass(frozen=True)
class Shape:
    """A matrix shape as the programs take it: ROWSxCOLS[+OFFSET]."""

    rows: int
    cols: int
    offset: int = 0

    @classmethod
    def parse(cls, text: str) -> Shape:
        match = SHAPE.fullmatch(text.strip())
        if match is None:
            raise ValueError(f"'{text}' is not ROWSxCOLS[+OFFSET]")
        return cls(int(match[1]), int(match[2]), int(match[3] or 0))

    def __str__(self) -> str:
        return f"{self.rows}x{self.cols}" + (f"+{self.offset}" if self.offset else "")

    def label(self) -> str:
        """The form the tables show: 33 x 4097, or 33 x 4097, offset 1."""
        return f"{self.rows} x {self.cols}" + (f", offset {self.offset}" if self.offset else "")


def gpu_slug(name: str) -> str:
    """The file-name form of a GPU's name: "NVIDIA H100 80GB HBM3" -> "h100-80gb-hbm3"."""
    name = re.sub(r"^nvidia\s+", "", name.strip(), flags=re.IGNORECASE)
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def path(gpu: str, kind: str = "bench") -> Path:
    return schema.RESULTS / (f"{gpu}.csv" if kind == "bench" else f"{gpu}-{kind}.csv")


def peers_kind(dtype: str, base: str = "peers") -> str:
    """The kind of the peers file of an element type: <gpu>-peers.csv holds float32 (as it always has),
    <gpu>-peers-bf16.csv bf16, in the same columns (schema.PEERS); base "peers-permute" names step 15's."""
    return base if dtype == "float32" else f"{base}-{dtype}"


def gpus() -> pd.DataFrame:
    """The GPUs with committed results (docs/results/gpus.csv): slug, name, front_page."""
    return pd.read_csv(schema.RESULTS / "gpus.csv", keep_default_na=False)


def load(file: Path | str, layout: str) -> pd.DataFrame:
    """A results file as a DataFrame, checked against its layout's columns and roles."""
    file = Path(file)
    if not file.is_file():
        raise ResultsError(f"{file} does not exist")
    frame = pd.read_csv(file, dtype={"step": str, "exercise": str}, keep_default_na=False, na_values=[""])
    missing = [c for c in schema.LAYOUTS[layout] if c not in frame.columns]
    if missing:
        raise ResultsError(f"{file} has no column {', '.join(missing)}")
    if "role" in frame and len(bad := frame[~frame["role"].isin(schema.ROLES[layout])]):
        raise ResultsError(f"{file}: row {bad.index[0] + 2} has role '{bad['role'].iloc[0]}'")
    if "step" in frame:
        frame["step"] = frame["step"].str.zfill(2)
    return frame


def write(frame: pd.DataFrame, file: Path | str, layout: str) -> None:
    frame.loc[:, list(schema.LAYOUTS[layout])].to_csv(file, index=False)


def failures(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[~frame["check"].isin(["PASS", "SKIP"])]
