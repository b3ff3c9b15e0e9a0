#!/usr/bin/env bash
# Draw the benchmark figures from docs/results/<gpu>.csv with gnuplot.
#
#   make plot [GPU=h200]        or        tools/plot.sh [gpu]
#
# Writes, as SVG and PNG:
#   docs/img/<gpu>-ladder.*   GB/s of each step's default kernel at 8192 x 8192
#                             (and at 32768 x 32768 when measured), with the
#                             copy bound and cuBLAS drawn as horizontal lines
#   docs/img/<gpu>-sizes.*    GB/s against the side of a square matrix
#                             (1024 .. 32768) for every step, cuBLAS and copy
#
# tools/plot_data.py reads the CSV (by column name, through tools/results.py)
# and writes the small tables gnuplot draws; its docstring describes them.
# A step's default kernel is its first kernel row. Every step program
# measures the baselines again in its own run; the lines drawn here are the
# median of those runs at each shape.
# Environment: GPU (default h200), RESULTS (default docs/results),
# IMG (default docs/img), PLOT_STEPS (the steps of the size plot; default:
# every steps/NN_*/ directory).
# Exit 3 without gnuplot or python3, 1 when the CSV is missing or has
# nothing to draw.
set -eu -o pipefail

cd "$(dirname "$0")/.."
GPU=${1:-${GPU:-}}
GPU=${GPU:-h200}
RESULTS=${RESULTS:-docs/results}
IMG=${IMG:-docs/img}
csv="$RESULTS/$GPU.csv"

command -v gnuplot >/dev/null || { echo "plot: error: gnuplot not found: apt-get install gnuplot-nox" >&2; exit 3; }
command -v python3 >/dev/null || { echo "plot: error: python3 not found: tools/plot_data.py reads the CSV" >&2; exit 3; }
[ -f "$csv" ] || { echo "plot: error: $csv not found: run 'make bench' first" >&2; exit 1; }

data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
mkdir -p "$IMG"

python3 tools/plot_data.py "$csv" "$data" --steps "${PLOT_STEPS:-}" || exit 1
ladder_shapes=$(cat "$data/ladder_shapes.txt")
series=$(cat "$data/series.txt")
gpu_name=$(cat "$data/gpu_name.txt")

for fmt in svg png; do
    if [ -n "$ladder_shapes" ]; then
        gnuplot -e "data='$data'; shapes='$ladder_shapes'; gpu_name='$gpu_name'; fmt='$fmt'; out='$IMG/$GPU-ladder.$fmt'" \
            tools/plot_ladder.gp
    fi
    if [ -n "$series" ]; then
        gnuplot -e "data='$data'; series='$series'; gpu_name='$gpu_name'; fmt='$fmt'; out='$IMG/$GPU-sizes.$fmt'" \
            tools/plot_sizes.gp
    fi
done
if [ -n "$ladder_shapes" ]; then
    echo "plot: wrote $IMG/$GPU-ladder.svg and .png ($ladder_shapes)" >&2
fi
if [ -n "$series" ]; then
    echo "plot: wrote $IMG/$GPU-sizes.svg and .png (steps $series)" >&2
fi
