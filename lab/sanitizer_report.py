"""compute-sanitizer's reports, each turned into one line that names the problem and the source lines, for
the grader's Sanitizers check: describe_finding(tool, pick_finding(sanitizer_records(output)))."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

SOURCE_LOCATION_RE = re.compile(r"in (\S+?\.(?:cu|cuh|h|hpp|cpp|c)):(\d+)")
# Lines of its own that are not reports.
NOISE = ("COMPUTE-SANITIZER", "ERROR SUMMARY", "RACECHECK SUMMARY", "LEAK SUMMARY", "Target application returned")


@dataclass
class SanitizerFinding:
    header: str
    lines: list[str]

    @property
    def text(self) -> str:
        return " ".join([self.header] + self.lines)


def sanitizer_records(text: str) -> list[SanitizerFinding]:
    """compute-sanitizer's reports: a header line, then its indented lines."""
    records: list[SanitizerFinding] = []
    for line in text.splitlines():
        body = line[len("========="):] if line.startswith("=========") else ""
        if not body.strip():
            continue
        if not (body.startswith("  ") and records):
            records.append(SanitizerFinding(body.strip(), []))
        elif not body.strip().startswith(("Host Frame:", "Saved host backtrace")):
            records[-1].lines.append(body.strip())
    return [r for r in records if not r.header.startswith(NOISE)]


def summary_count(text: str) -> int:
    """Hazards or errors the summary lines count (racecheck warnings included)."""
    return sum(int(n) for n in re.findall(r"(?:RACECHECK|ERROR) SUMMARY: (\d+)", text))


def locations(text: str) -> list[str]:
    return [f"{os.path.basename(f)}:{n}" for f, n in SOURCE_LOCATION_RE.findall(text)]


def describe_finding(tool: str, finding: SanitizerFinding) -> str:
    """One line: what the tool found and at which lines of the source."""
    header = re.sub(r"^(?:Error|Warning|ERROR|WARNING):\s*", "", finding.header)
    whole = finding.text
    if tool == "racecheck":
        accesses = re.findall(r"(Read|Write)\b[^;]*?\bin (\S+?\.(?:cu|cuh|h)):(\d+)", whole.replace(" and ", " ; "))
        sides = dict.fromkeys(f"{kind} at {os.path.basename(f)}:{n}" for kind, f, n in accesses)
        hazards = re.search(r"\[(\d+) hazards?\]", whole)
        kind = re.search(r"Potential (\w+) hazard", header)
        return ("racecheck: shared-memory " + (f"{kind.group(1)} hazard" if kind else "race")
                + (" between " + " and ".join(sides) if sides else "")
                + (f" ({hazards.group(1)} hazards)" if hazards else "") + ": a missing __syncthreads()?")
    where = locations(whole)
    if where:
        header = re.sub(r"\s+at\s+.*$", "", header)
    extra = " (out of bounds)" if tool == "memcheck" and "out of bounds" in whole else ""
    return f"{tool}: {header.rstrip('.:')}" + (f" at {where[0]}" if where else "") + extra


def pick_finding(records: list[SanitizerFinding]) -> SanitizerFinding | None:
    """The record to show: a race analysis, else one that names a source line."""
    races = [r for r in records if "Race reported" in r.header]
    located = [r for r in records if locations(r.text) and not r.header.startswith("Program hit")]
    return (races + located + records or [None])[0]
