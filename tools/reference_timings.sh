#!/usr/bin/env bash
# Time every exercise's reference solution and its step on this GPU, and
# rewrite docs/reference-timings.csv and docs/reference-timings.md.
#
#   make reference-timings             run on a GPU machine (the committed files: an NVIDIA H200)
#   tools/reference_timings.sh --md    only rewrite the .md from the committed .csv (no GPU)
#
# Each exercise's grader program (build/grade_NN_solution) runs once on
# REFERENCE_SHAPE (default 8192x8192): the harness checks every kernel bit
# for bit, then times the baselines, the reference solution and the step's
# default kernel on the same buffers. The CSV records the GPU, driver, CUDA
# version and date, and the sha256 of each solution's source (the solution
# file and the exercise header it includes), which
# tools/check_reference_hashes.sh compares with the sources in `make test`.
#
# The CSV's columns are named in tools/results.py (REFERENCE_COLUMNS); the
# table in docs/reference-timings.md is its generated REFERENCE block
# (tools/render_tables.py).
#
# Exit codes: 0 files written, 1 a wrong result or a build failure (nothing
# written), 2 bad command line, 3 environment (no GPU, no python3).
set -u
cd "$(dirname "$0")/.." || exit 3

BUILD=${BUILD:-build}
MAKE_CMD=${MAKE:-make}
SHAPE=${REFERENCE_SHAPE:-8192x8192}
# The committed timings the docs quote come from an H200 (docs/reference-timings.csv);
# another GPU's go beside its other results: REFERENCE_CSV=docs/results/<gpu>-reference-timings.csv.
CANONICAL_CSV=docs/reference-timings.csv
CSV=${REFERENCE_CSV:-$CANONICAL_CSV}
MD=docs/reference-timings.md
# shellcheck source=tools/grade_lib.sh
. tools/grade_lib.sh

# write_md: the blocks generated from the CSV: docs/reference-timings.md and
# the expected speeds in each exercise's README.md.
write_md() {
    python3 tools/render_tables.py "$MD" exercises/*/README.md || exit 1
    echo "wrote $MD and the expected speeds in exercises/*/README.md"
}

case ${1:-} in
-h | --help)
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
    exit 0 ;;
--md)
    [ -f "$CSV" ] || { echo "error: $CSV does not exist: run make reference-timings on a GPU machine" >&2; exit 3; }
    require_python
    write_md
    exit 0 ;;
"") ;;
*) echo "error: unknown argument $1 (see tools/reference_timings.sh --help)" >&2; exit 2 ;;
esac
[[ $SHAPE =~ ^[1-9][0-9]*x[1-9][0-9]*$ ]] || {
    echo "error: REFERENCE_SHAPE must be ROWSxCOLS, not '$SHAPE'" >&2; exit 2; }

require_python
require_gpu
bins=""
for nn in $(all_numbers); do bins+=" $BUILD/grade_${nn}_solution"; done
# shellcheck disable=SC2086 # a list of paths without spaces
build $bins || { echo "error: the grader programs do not build" >&2; exit 1; }

driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1)
cuda=$("${NVCC:-nvcc}" --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p')
date=$(date -u +%Y-%m-%d)
tmp=$(mktemp) || exit 3
out=$(mktemp) || exit 3
trap 'rm -f "$tmp" "$out"' EXIT
python3 tools/results.py header reference >"$tmp"

first=$(all_numbers | head -n 1)
for nn in $(all_numbers); do
    name=$(basename "$(exercise_dir "$nn")")
    solution=solutions/$name/solution.cu
    step=""
    for f in steps/"$nn"_*/*.cu; do [ -f "$f" ] && { step=$f; break; }; done
    echo "timing $name on $SHAPE ..." >&2
    timeout 600 "$BUILD/grade_${nn}_solution" --rows "${SHAPE%x*}" --cols "${SHAPE#*x}" --csv >"$out"
    rc=$?
    [ "$rc" -eq 3 ] && exit 3  # the harness has said why, in one line
    if [ "$rc" -ne 0 ] || ! python3 tools/results.py check "$out" >&2; then
        echo "error: exercise $nn: a kernel gave a wrong result or the run failed (exit $rc): nothing written" >&2
        exit 1
    fi
    # The reference and the step as rows of exercise $name; the first
    # exercise's run also gives the baselines, which come first.
    baselines=()
    [ "$nn" = "$first" ] && baselines=(--baselines)
    python3 tools/results.py reference-rows "$out" --exercise "$name" \
        --source "$solution" --sha256 "$(source_hash "$solution")" --step-source "$step" \
        --driver "${driver:-unknown}" --cuda "${cuda:-unknown}" --date "$date" \
        "${baselines[@]}" >>"$tmp" || exit 1
done

gpu=$(python3 tools/results.py value "$tmp" --column gpu --first)
case $gpu in
*H200*) ;;
*) echo "note: this ran on '$gpu'; the committed reference timings are meant to come from an NVIDIA H200" >&2 ;;
esac
mv "$tmp" "$CSV"
echo "wrote $CSV"
if [ "$CSV" = "$CANONICAL_CSV" ]; then write_md; fi
