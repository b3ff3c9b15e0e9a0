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
#                             (1024 .. 32768) for the key steps, cuBLAS and copy
#
# A step's default kernel is its first row that is not a baseline.  Every
# step program measures the baselines again in its own run; the lines drawn
# here are the median of those runs at each shape.
# Environment: GPU (default h200), RESULTS (default docs/results),
# IMG (default docs/img), PLOT_STEPS (default "01 02 05 07 09 10").
# Exit 3 without gnuplot, 1 when the CSV is missing.
set -eu -o pipefail

cd "$(dirname "$0")/.."
GPU=${1:-${GPU:-}}
GPU=${GPU:-h200}
RESULTS=${RESULTS:-docs/results}
IMG=${IMG:-docs/img}
PLOT_STEPS=${PLOT_STEPS:-01 02 05 07 09 10}
csv="$RESULTS/$GPU.csv"

command -v gnuplot >/dev/null || { echo "plot: error: gnuplot not found: apt-get install gnuplot-nox" >&2; exit 3; }
[ -f "$csv" ] || { echo "plot: error: $csv not found: run 'make bench' first" >&2; exit 1; }

data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
mkdir -p "$IMG"

# Split the CSV into small whitespace-separated tables for gnuplot.
#   base.dat     rows cols copy_gbps cublas_gbps    (medians over the runs)
#   default.dat  step kernel rows cols gbps         (first kernel row of a run)
awk -F, -v out="$data" '
function median(list,    v, n, i, j, t) {
    n = split(list, v, " ")
    for (i = 2; i <= n; i++)              # insertion sort: at most a dozen values
        for (j = i; j > 1 && v[j] + 0 < v[j - 1] + 0; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
{
    step = $col["step"]; kernel = $col["kernel"]; shape = $col["rows"] " " $col["cols"]
    # a run is one step program at one shape; keys must not contain spaces
    run = step "/" $col["rows"] "x" $col["cols"]
    gbps = $col["gbps"]
    if (!(shape in seen)) { seen[shape] = 1; shapes[++nshapes] = shape }
    if (kernel == "memcpy" || kernel == "copy_kernel") {
        if (!(run in copy) || gbps + 0 > copy[run] + 0) copy[run] = gbps
        if (!(run in copy_listed)) { copy_listed[run] = 1; copy_runs[shape] = copy_runs[shape] " " run }
    } else if (kernel == "cublas") {
        cublas[shape] = cublas[shape] " " gbps
    } else if (!(run in has_default)) {
        has_default[run] = 1
        print step, kernel, shape, gbps > (out "/default.dat")
    }
    if (!(gpu_name)) gpu_name = $col["gpu"]
}
END {
    for (s = 1; s <= nshapes; s++) {
        shape = shapes[s]; list = ""
        n = split(copy_runs[shape], runs, " ")
        for (r = 1; r <= n; r++) list = list " " copy[runs[r]]
        print shape, (n ? median(list) : "NaN"), (cublas[shape] != "" ? median(cublas[shape]) : "NaN") > (out "/base.dat")
    }
    print gpu_name > (out "/gpu_name.txt")
}' "$csv"
[ -s "$data/default.dat" ] || { echo "plot: error: $csv has no kernel rows" >&2; exit 1; }
gpu_name=$(cat "$data/gpu_name.txt")

# The ladder: one panel per shape that was measured.
ladder_shapes=""
for shape in "8192 8192" "32768 32768"; do
    awk -v s="$shape" '$3 " " $4 == s { print $1, $2, $5 }' "$data/default.dat" \
        | sort > "$data/ladder_${shape/ /x}.dat"
    if [ -s "$data/ladder_${shape/ /x}.dat" ]; then
        ladder_shapes+="${shape/ /x} "
        awk -v s="$shape" '$1 " " $2 == s { printf "copy_gbps = %s\ncublas_gbps = %s\n", $3, $4 }' \
            "$data/base.dat" > "$data/ladder_${shape/ /x}.gp"
    fi
done

# Bandwidth against size: square shapes whose side is a power of two >= 1024.
series=""
for step in $PLOT_STEPS; do
    awk -v st="$step" '$1 == st && $3 == $4 && $3 >= 1024 { n = $3; while (n % 2 == 0) n /= 2; if (n == 1) print $3, $5, $2 }' \
        "$data/default.dat" | sort -n > "$data/series.tmp"
    if [ -s "$data/series.tmp" ]; then
        { printf 'side "%s %s"\n' "$step" "$(head -n 1 "$data/series.tmp" | cut -d' ' -f3)"; cut -d' ' -f1,2 "$data/series.tmp"; } \
            > "$data/size_$step.dat"
        series+="$step "
    fi
done
awk '$1 == $2 && $1 >= 1024 { n = $1; while (n % 2 == 0) n /= 2; if (n == 1) print $1, $3, $4 }' \
    "$data/base.dat" | sort -n > "$data/size_base.dat"

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
[ -n "$ladder_shapes" ] && echo "plot: wrote $IMG/$GPU-ladder.svg and .png (${ladder_shapes% })" >&2
[ -n "$series" ] && echo "plot: wrote $IMG/$GPU-sizes.svg and .png (steps ${series% })" >&2
[ -n "$ladder_shapes$series" ] || { echo "plot: error: $csv has neither 8192x8192 nor square power-of-two shapes" >&2; exit 1; }
