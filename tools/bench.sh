#!/usr/bin/env bash
# Run every step over the benchmark shapes and collect one CSV.
#
#   make bench [GPU=h200]                      (builds the steps first)
#   SHAPES="4096x4096 1x67108864" STEPS="01 05" make bench
#   BENCH_ARGS="--reps 50" make bench
#
# Each step program, run with --csv, prints a header line, the three
# baseline rows (memcpy, copy_kernel, cublas) and one row per kernel variant
# of the step.  This script keeps the first header, drops the repeats and
# writes:
#   $RESULTS/<gpu>.csv       gpu,step,kernel,rows,cols,median_ms,min_ms,gbps,
#                            pct_of_copy,vs_cublas,check
#   $RESULTS/<gpu>-env.txt   GPU, driver, CUDA versions, date, command
# RESULTS defaults to docs/results.  A run that fails, or a row whose check
# is not PASS, makes the script exit 1 after the CSV is written, with a list
# of what went wrong.  Exit 3: no GPU, or the step programs are missing.
#
# A sweep cut short goes on where it stopped with RESUME=1 (same GPU,
# SHAPES, STEPS, BENCH_ARGS): the runs that finished are kept.
#
# Environment: GPU, SHAPES, STEPS, BENCH_ARGS, RESUME, BUILD (default build),
# RESULTS (default docs/results), BENCH_COMMAND (how it was invoked, for the
# env file; mk/bench.mk sets it).
set -u -o pipefail

die() { echo "bench: error: $*" >&2; exit "${2:-3}"; }

cd "$(dirname "$0")/.." || exit 3
BUILD=${BUILD:-build}
RESULTS=${RESULTS:-docs/results}

# The shapes of the README's tables and plots.  The 32768 x 32768 and
# 16384 x 16384 runs take most of the time: every step program checks its
# output against a CPU reference, which at 32768^2 means 4 GiB on the host.
# Keep the largest shapes to these few so the sweep stays near 6 minutes.
DEFAULT_SHAPES="
32768x32768 16384x16384
1024x1024 1024x2048 1024x4096 1024x8192
2048x1024 2048x2048 2048x4096 2048x8192
4096x1024 4096x2048 4096x4096 4096x8192
8192x1024 8192x2048 8192x4096 8192x8192
12800x1280 1280x12800 10007x7919
4097x4097 33x1000003 1000003x33 1x67108864 67108864x1
"
# what the caller asked for, for the env file, before the defaults fill in
asked="${GPU:+GPU=$GPU }${SHAPES:+SHAPES=\"$(echo ${SHAPES})\" }${STEPS:+STEPS=\"$(echo ${STEPS})\" }${BENCH_ARGS:+BENCH_ARGS=\"${BENCH_ARGS}\"}"
asked=${asked% }
SHAPES=${SHAPES:-$DEFAULT_SHAPES}
SHAPES=${SHAPES//,/ }

if [ -z "${STEPS:-}" ]; then
    STEPS=$(for d in steps/[0-9][0-9]_*/; do basename "$d" | cut -c1-2; done)
fi
STEPS=${STEPS//,/ }

command -v nvidia-smi >/dev/null || die "nvidia-smi not found: no NVIDIA driver on this machine"
gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
[ -n "$gpu_name" ] || die "nvidia-smi sees no GPU"
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n 1)

# shellcheck source=tools/cuda_env.sh
. tools/cuda_env.sh
GPU=${GPU:-$(gpu_slug "$gpu_name")}

for s in $SHAPES; do
    [[ $s =~ ^[1-9][0-9]*x[1-9][0-9]*$ ]] || die "bad shape '$s' in SHAPES: write ROWSxCOLS, e.g. 4096x4096" 2
done
for n in $STEPS; do
    [[ $n =~ ^[0-9][0-9]$ ]] || die "bad step '$n' in STEPS: write two digits, e.g. STEPS=\"01 05\"" 2
    [ -x "$BUILD/step$n" ] || die "$BUILD/step$n is missing: run 'make step$n' (make bench builds it)"
done

csv="$RESULTS/$GPU.csv"
env_file="$RESULTS/$GPU-env.txt"
# One CSV per run (step program at one shape) is kept here, so that a sweep
# cut short (a time limit, a lost machine) can go on with RESUME=1.
runs="$BUILD/bench/$GPU"
[ "${RESUME:-0}" = 1 ] || rm -rf "$runs"
mkdir -p "$RESULTS" "$runs" || exit 3

read -r -a extra_args <<< "${BENCH_ARGS:-}"
nshapes=$(echo $SHAPES | wc -w)
nsteps=$(echo $STEPS | wc -w)
total=$((nshapes * nsteps))
failures=()
kept=0
i=0
start=$SECONDS

for shape in $SHAPES; do
    rows=${shape%x*}
    cols=${shape#*x}
    for n in $STEPS; do
        i=$((i + 1))
        run="$runs/step${n}_$shape"
        if [ "${RESUME:-0}" = 1 ] && [ "$(cat "$run.rc" 2>/dev/null)" = 0 ]; then
            printf '[%3d/%d] step%s %s (kept from the interrupted sweep)\n' "$i" "$total" "$n" "$shape" >&2
            kept=$((kept + 1))
            continue
        fi
        printf '[%3d/%d] step%s %s\n' "$i" "$total" "$n" "$shape" >&2
        "$BUILD/step$n" --rows "$rows" --cols "$cols" --csv "${extra_args[@]}" \
            > "$run.csv" 2> "$run.err"
        rc=$?
        echo $rc > "$run.rc"
        [ $rc -eq 0 ] || sed 's/^/    /' "$run.err" | tail -n 20 >&2
    done
done

# Collect the runs in sweep order: the first header once, then the data rows.
header=""
: > "$runs/rows.csv"
for shape in $SHAPES; do
    for n in $STEPS; do
        run="$runs/step${n}_$shape"
        rc=$(cat "$run.rc" 2>/dev/null || echo "missing")
        [ "$rc" = 0 ] || failures+=("step$n $shape: exit code $rc")
        [ -f "$run.csv" ] || continue
        [ -n "$header" ] || header=$(grep -m 1 '^gpu,step,kernel,' "$run.csv")
        awk -F, 'NF >= 11 && !/^gpu,step,kernel,/' "$run.csv" >> "$runs/rows.csv"
    done
done
[ -n "$header" ] || header="gpu,step,kernel,rows,cols,median_ms,min_ms,gbps,pct_of_copy,vs_cublas,check"
{ echo "$header"; cat "$runs/rows.csv"; } > "$csv.tmp" && mv "$csv.tmp" "$csv"

# Every kernel row must say PASS.  The copy baselines (memcpy, copy_kernel)
# are not transposes; a harness that does not check them may leave the
# column as "-", which is accepted for those two only.
check_col=$(echo "$header" | tr ',' '\n' | grep -n -x check | cut -d: -f1)
while IFS= read -r bad; do
    failures+=("$bad")
done < <(awk -F, -v c="${check_col:-11}" '
    $c != "PASS" && !(($3 == "memcpy" || $3 == "copy_kernel") && ($c == "-" || $c == "")) {
        printf "step%s %sx%s %s: check=%s\n", $2, $4, $5, $3, $c
    }' "$runs/rows.csv")

{
    echo "gpu: $gpu_name"
    echo "driver: $driver"
    echo "cuda_driver_api: $(nvidia-smi | sed -n 's/.*CUDA Version: *\([0-9.]*\).*/\1/p' | head -n 1)"
    echo "nvcc: $(nvcc --version 2>/dev/null | grep -i release | head -n 1 || echo unknown)"
    echo "date_utc: $(date -u '+%Y-%m-%d %H:%M')"
    if [ -n "${BENCH_COMMAND:-}" ]; then
        echo "command: $BENCH_COMMAND $asked"
    else
        echo "command: ${asked:+$asked }tools/bench.sh"
    fi
    echo "shapes: $(echo $SHAPES)"
    echo "steps: $(echo $STEPS)"
    echo "runs: $total in $((SECONDS - start)) s$([ $kept -eq 0 ] || echo ", $kept of them kept from an interrupted sweep (RESUME=1)")"
} > "$env_file"

echo "bench: wrote $csv ($(wc -l < "$runs/rows.csv") rows) and $env_file in $((SECONDS - start)) s" >&2
if [ ${#failures[@]} -ne 0 ]; then
    echo "bench: FAILED: ${#failures[@]} problem(s):" >&2
    printf '  %s\n' "${failures[@]}" >&2
    exit 1
fi
echo "bench: every check PASS" >&2
