#!/usr/bin/env python3
"""Write the small tables that gnuplot draws, from a benchmark CSV.

  tools/plot_data.py docs/results/h200.csv OUTDIR [--steps "01 02 05"]

tools/plot.sh runs it, then gnuplot on what it wrote into OUTDIR:

  ladder_<shape>.dat  step kernel gbps: each step's default kernel at one of
                      LADDER_SHAPES, in step order
  ladder_<shape>.gp   copy_gbps = ..., cublas_gbps = ...: the baselines there
  size_<step>.dat     side gbps: one step's default kernel on square matrices
                      whose side is a power of two >= 1024; the first line,
                      side "01 naive", names the curve
  size_base.dat       side copy_gbps cublas_gbps on the same shapes
  ladder_shapes.txt   the ladder shapes that were measured, space-separated
  series.txt          the steps that have a size curve, space-separated
  gpu_name.txt        the GPU, for the titles

Every step program measures the baselines again in its own run; the lines
drawn are the median of those runs at each shape.  The steps are those of
steps/NN_*/ unless --steps names some.  Exit codes: 0 done, 1 nothing to
draw, 2 a missing or unreadable CSV.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

import results
from results import Shape

LADDER_SHAPES = [Shape(8192, 8192), Shape(32768, 32768)]
SMALLEST_SIDE = 1024


def median_or_nan(values: list) -> str:
    """The median of the numbers, as gnuplot reads it (NaN: nothing measured)."""
    numbers = [v for v in values if v is not None]
    return "%.1f" % statistics.median(numbers) if numbers else "NaN"


def gbps(row) -> float | None:
    return results.number(row["gbps"]) if row is not None else None


def baselines(runs: dict, shape: Shape) -> tuple[str, str]:
    """(copy bound, cuBLAS) GB/s at a shape: medians over the runs there."""
    at_shape = [run for (_, s), run in runs.items() if s == shape]
    copies = [gbps(results.copy_bound(run)) for run in at_shape]
    library = [gbps(results.library_row(run)) for run in at_shape]
    return median_or_nan(copies), median_or_nan(library)


def is_size_shape(shape: Shape) -> bool:
    """Square, unshifted, and a power of two of at least SMALLEST_SIDE."""
    side = shape.rows
    return (shape.cols == side and shape.offset == 0 and side >= SMALLEST_SIDE
            and side & (side - 1) == 0)


def write(path: str, lines: list[str]) -> None:
    with open(path, "w") as f:
        f.write("".join(line + "\n" for line in lines))


def write_ladders(runs: dict, out: str) -> list[str]:
    """ladder_<shape>.dat and .gp for each measured ladder shape; their names."""
    drawn = []
    for shape in LADDER_SHAPES:
        bars = []
        for (step, s), run in sorted(runs.items(), key=lambda item: item[0][0]):
            kernel = results.default_kernel(run)
            if s == shape and kernel is not None and gbps(kernel) is not None:
                bars.append("%s %s %s" % (step, kernel["kernel"], kernel["gbps"]))
        if not bars:
            continue
        copy, library = baselines(runs, shape)
        write(os.path.join(out, "ladder_%s.dat" % shape), bars)
        write(os.path.join(out, "ladder_%s.gp" % shape),
              ["copy_gbps = %s" % copy, "cublas_gbps = %s" % library])
        drawn.append(str(shape))
    return drawn


def write_sizes(runs: dict, steps: list[str], out: str) -> list[str]:
    """size_<step>.dat for each step with square power-of-two runs, and
    size_base.dat; the steps drawn."""
    drawn = []
    for step in steps:
        points = []
        for (s, shape), run in runs.items():
            kernel = results.default_kernel(run)
            if s == step and is_size_shape(shape) and kernel and gbps(kernel):
                points.append((shape.rows, kernel["gbps"], kernel["kernel"]))
        if points:
            points.sort()
            title = 'side "%s %s"' % (step, points[0][2])
            write(os.path.join(out, "size_%s.dat" % step),
                  [title] + ["%d %s" % (side, value) for side, value, _ in points])
            drawn.append(step)
    shapes = sorted({shape for (_, shape) in runs if is_size_shape(shape)},
                    key=lambda shape: shape.rows)
    write(os.path.join(out, "size_base.dat"),
          ["%d %s %s" % ((shape.rows,) + baselines(runs, shape)) for shape in shapes])
    return drawn


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Tables for gnuplot from a bench CSV.")
    parser.add_argument("csv", help="a benchmark CSV, e.g. docs/results/h200.csv")
    parser.add_argument("out", help="the folder to write the tables into")
    parser.add_argument("--steps", default="",
                        help="the steps of the size plot (default: every step)")
    args = parser.parse_args(argv)
    try:
        rows = results.load_bench(args.csv)
    except results.ResultsError as err:
        print("plot: error: %s" % err, file=sys.stderr)
        return 2
    steps = args.steps.replace(",", " ").split() or [
        step.number for step in results.step_dirs()]
    runs = results.group_runs(rows)
    os.makedirs(args.out, exist_ok=True)
    ladders = write_ladders(runs, args.out)
    series = write_sizes(runs, steps, args.out)
    write(os.path.join(args.out, "ladder_shapes.txt"), [" ".join(ladders)])
    write(os.path.join(args.out, "series.txt"), [" ".join(series)])
    write(os.path.join(args.out, "gpu_name.txt"), [rows[0]["gpu"] if rows else "?"])
    if not ladders and not series:
        print("plot: error: %s has neither %s nor square power-of-two shapes"
              % (args.csv, " nor ".join(map(str, LADDER_SHAPES))), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
