#!/usr/bin/env bash
# The old L2 flush against the new one, measured: docs/results/<gpu>-timing.csv.
#
#   make timing-study [GPU=h200]        or    bash tools/timing_study.sh
#
# Runs the last step's program (build/stepNN) at one small shape, 2048 x 2048
# (a transpose of about 12 us on the H200), and one large, 16384 x 16384
# (about 1 ms), twice each: with --flush write (the old method: a memset of
# 2x L2 leaves L2 full of dirty lines) and with --flush read (the method
# every program uses now: a kernel reads 4x L2 and leaves only clean lines).
# docs/timing.md explains the difference and shows the table made from:
#
#   $RESULTS/<gpu>-timing.csv      the program's --csv columns (gpu,step,kernel,
#                                  role,rows,cols,offset,median_ms,min_ms,gbps,
#                                  pct_of_copy,vs_cublas,check) plus `flush`
#                                  (write or read): every row of both runs
#   $RESULTS/<gpu>-timing-env.txt  GPU, driver, date, command, program
#
# Environment: GPU (names the files; default from nvidia-smi, "NVIDIA H200"
# -> h200), BUILD (default build), RESULTS (default docs/results),
# TIMING_ARGS (more options for the program; default --reps 100).
# Exit codes: 0 done, 1 a run failed or a check was not PASS (the CSV is
# still written), 3 no GPU or no program.
set -u -o pipefail

die() { echo "timing_study: error: $1" >&2; exit "${2:-3}"; }

cd "$(dirname "$0")/.." || exit 3
BUILD=${BUILD:-build}
RESULTS=${RESULTS:-docs/results}
TIMING_ARGS=${TIMING_ARGS:---reps 100}
SHAPES=2048x2048,16384x16384
flushes=(write read)   # the old method first

# shellcheck source=tools/cuda_env.sh
. tools/cuda_env.sh
require_nvidia_gpu "the timing study runs a step program"
gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n 1)
GPU=${GPU:-$(gpu_slug "$gpu_name")}

# The last step: the highest-numbered steps/NN_name/ directory.
step_dirs=(steps/[0-9][0-9]_*/)
last_dir=$(basename "${step_dirs[${#step_dirs[@]} - 1]}")
step=${last_dir%%_*}
program=$BUILD/step$step
[ -x "$program" ] || die "$program is missing: run 'make step$step' (make timing-study builds it)"

mkdir -p "$RESULTS" || exit 3
runs=$(mktemp -d) || exit 3
trap 'rm -rf "$runs"' EXIT

status=0
for flush in "${flushes[@]}"; do
    echo "timing_study: $program --shapes $SHAPES --flush $flush $TIMING_ARGS" >&2
    # shellcheck disable=SC2086  # TIMING_ARGS is a list of options
    "$program" --shapes "$SHAPES" --flush "$flush" --csv $TIMING_ARGS >"$runs/$flush.csv" \
        || { echo "timing_study: the run with --flush $flush failed" >&2; status=1; }
done

# Join the runs, adding the flush column; columns are found by name.
csv_out="$RESULTS/$GPU-timing.csv"
python3 - "$csv_out" "$runs" "${flushes[@]}" <<'EOF' || status=1
import csv
import sys

out_path, runs, flushes = sys.argv[1], sys.argv[2], sys.argv[3:]
rows, header = [], None
for flush in flushes:
    with open("%s/%s.csv" % (runs, flush), newline="") as f:
        reader = csv.DictReader(f)
        header = header or reader.fieldnames
        for row in reader:
            row["flush"] = flush
            rows.append(row)
if not rows:
    sys.exit("timing_study: error: the program printed no CSV rows")
with open(out_path, "w", newline="") as f:
    writer = csv.DictWriter(f, fieldnames=header + ["flush"], lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
bad = [r for r in rows if r["check"] != "PASS"]
for r in bad:
    print("timing_study: %s %s at %sx%s (flush %s): %s"
          % (r["step"], r["kernel"], r["rows"], r["cols"], r["flush"], r["check"]),
          file=sys.stderr)
sys.exit(1 if bad else 0)
EOF

{
    echo "gpu: $gpu_name"
    echo "driver: $driver"
    echo "date_utc: $(date -u '+%Y-%m-%d %H:%M')"
    echo "command: ${TIMING_COMMAND:-bash tools/timing_study.sh}"
    echo "program: $program --shapes $SHAPES --flush write|read --csv $TIMING_ARGS"
} >"$RESULTS/$GPU-timing-env.txt"

echo "timing_study: wrote $csv_out" >&2
exit "$status"
