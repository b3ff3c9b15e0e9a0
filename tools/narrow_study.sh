#!/usr/bin/env bash
# Matrices narrower than a tile, measured: docs/results/<gpu>-narrow.csv.
#
#   make narrow-study [GPU=h200]        or    bash tools/narrow_study.sh
#
# Step 12's answer (steps/12_tma/answer.cuh) runs step 09's launch on a matrix
# with fewer than 64 columns where that launch runs its 16-byte kernel or
# a row holds at least a warp's 32 columns, and step 11's chunk kernel on
# narrower ones. This study times the three side by side on tall matrices
# of about 128 MiB, 2 to 63 columns wide: step 09's default, step 11's
# `chunks` and step 12's `answer`, each program in its own run with its own
# copy bound. Appendix 12 shows the table made from:
#
#   $RESULTS/<gpu>-narrow.csv      the programs' --csv rows, one header
#   $RESULTS/<gpu>-narrow-env.txt  GPU, driver, date, command, programs
#
# Environment: GPU (names the files; default from nvidia-smi, "NVIDIA H200"
# -> h200), BUILD (default build), RESULTS (default docs/results),
# NARROW_ARGS (more options for the programs).
# Exit codes: 0 done, 1 a run failed or a check was not PASS (the CSV is
# still written), 3 no GPU or no program.
set -u -o pipefail

die() { echo "narrow_study: error: $1" >&2; exit "${2:-3}"; }

cd "$(dirname "$0")/.." || exit 3
BUILD=${BUILD:-build}
RESULTS=${RESULTS:-docs/results}
NARROW_ARGS=${NARROW_ARGS:-}
# About 128 MiB each: rows x cols close to 2^25 floats, cols from 2 to 63.
SHAPES=16777216x2,11184811x3,8388608x4,6710887x5,4793491x7,4194304x8,2796203x12,2097152x16
SHAPES=$SHAPES,1973791x17,1398101x24,1048576x32,1000003x33,699051x48,532576x63
# program and variant: step 09's default launch, step 11's chunk kernel, the answer
runs=("09 vec4" "11 chunks" "12 answer")

# shellcheck source=tools/cuda_env.sh
. tools/cuda_env.sh
require_nvidia_gpu "the narrow study runs step programs"
gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n 1)
GPU=${GPU:-$(gpu_slug "$gpu_name")}
for run in "${runs[@]}"; do
    [ -x "$BUILD/step${run%% *}" ] || die "$BUILD/step${run%% *} is missing: run 'make step${run%% *}' (make narrow-study builds it)"
done

mkdir -p "$RESULTS" || exit 3
parts=$(mktemp -d) || exit 3
trap 'rm -rf "$parts"' EXIT

status=0
for run in "${runs[@]}"; do
    step=${run%% *} variant=${run#* }
    echo "narrow_study: $BUILD/step$step --variant $variant --shapes ... --csv $NARROW_ARGS" >&2
    # shellcheck disable=SC2086  # NARROW_ARGS is a list of options
    "$BUILD/step$step" --variant "$variant" --shapes "$SHAPES" --csv $NARROW_ARGS >"$parts/$step.csv" \
        || { echo "narrow_study: step $step --variant $variant failed" >&2; status=1; }
done

csv_out="$RESULTS/$GPU-narrow.csv"
python3 tools/results.py merge "$csv_out" "$parts"/*.csv || status=1
python3 tools/results.py check "$csv_out" || status=1

{
    echo "gpu: $gpu_name"
    echo "driver: $driver"
    echo "date_utc: $(date -u '+%Y-%m-%d %H:%M')"
    echo "command: ${NARROW_COMMAND:-bash tools/narrow_study.sh}"
    echo "programs: ${runs[*]/#/step} (--variant), --shapes $SHAPES --csv $NARROW_ARGS"
} >"$RESULTS/$GPU-narrow-env.txt"

echo "narrow_study: wrote $csv_out" >&2
exit "$status"
