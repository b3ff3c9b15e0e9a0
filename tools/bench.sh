#!/usr/bin/env bash
# Run every step over the benchmark shapes and collect one CSV.
#
#   make bench [GPU=h200]                      (builds the steps first)
#   SHAPES="4096x4096 1x67108864" STEPS="01 05" make bench
#   BENCH_ARGS="--reps 50" make bench
#
# Each step program runs once with every shape (`--shapes A,B,C --csv`),
# which saves a process and a CUDA context per shape; a program that does
# not take --shapes runs once per shape instead. Every run prints a header
# line and, for each shape, the baseline rows (role copy and library) and
# one row per kernel variant of the step (role kernel). tools/results.py
# merges the runs into:
#   $RESULTS/<gpu>.csv       gpu,step,kernel,role,rows,cols,offset,median_ms,
#                            min_ms,gbps,pct_of_copy,vs_cublas,check
#                            (ordered by shape, then by step)
#   $RESULTS/<gpu>-env.txt   GPU, driver, CUDA versions, timing method, date,
#                            command
# RESULTS defaults to docs/results. A run that fails, or a row whose check
# is FAIL, makes the script exit 1 after the CSV is written, with a list of
# what went wrong; rows that say SKIP (a kernel this GPU cannot run) are
# listed but are no failure. Exit 3: no GPU, or the step programs are missing.
#
# A sweep cut short goes on where it stopped with RESUME=1 (same GPU,
# SHAPES, STEPS, BENCH_ARGS): the steps whose run finished are kept. The
# same re-runs only the steps whose code changed, once their files under
# build/bench/<gpu>/ are deleted (tools/gpu_session.sh's RERUN_STEPS writes
# them from the committed CSV with tools/results.py split-steps).
#
# Environment: GPU, SHAPES (default: the `bench` shapes of tests/shapes.txt),
# STEPS (default: every steps/NN_*/ directory), BENCH_ARGS, RESUME, BUILD
# (default build), RESULTS (default docs/results), BENCH_COMMAND (how it was
# invoked, for the env file; mk/bench.mk sets it).
set -u -o pipefail

die() { echo "bench: error: $1" >&2; exit "${2:-3}"; }

cd "$(dirname "$0")/.." || exit 3
BUILD=${BUILD:-build}
RESULTS=${RESULTS:-docs/results}

# squeeze TEXT: its words, separated by single spaces (SHAPES may span lines).
squeeze() {
    local -a words
    read -r -d '' -a words <<< "$1"
    echo "${words[*]}"
}

# what the caller asked for, for the env file, before the defaults fill in
asked="${GPU:+GPU=$GPU }${SHAPES:+SHAPES=\"$(squeeze "$SHAPES")\" }"
asked+="${STEPS:+STEPS=\"$(squeeze "$STEPS")\" }${BENCH_ARGS:+BENCH_ARGS=\"${BENCH_ARGS}\"}"
asked=${asked% }
if [ -z "${SHAPES:-}" ]; then
    SHAPES=$(bash tools/shapes.sh bench) || die "cannot read the bench shapes of tests/shapes.txt" 2
fi
SHAPES=${SHAPES//,/ }
if [ -z "${STEPS:-}" ]; then
    STEPS=$(for d in steps/[0-9][0-9]_*/; do basename "$d" | cut -c1-2; done)
fi
STEPS=${STEPS//,/ }
read -r -a shapes <<< "$(squeeze "$SHAPES")"
read -r -a steps <<< "$(squeeze "$STEPS")"

command -v python3 >/dev/null || die "python3 not found: tools/results.py merges the runs"
command -v nvidia-smi >/dev/null || die "nvidia-smi not found: no NVIDIA driver on this machine"
gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
[ -n "$gpu_name" ] || die "nvidia-smi sees no GPU"
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n 1)

# shellcheck source=tools/cuda_env.sh
. tools/cuda_env.sh
GPU=${GPU:-$(gpu_slug "$gpu_name")}

for s in "${shapes[@]}"; do
    [[ $s =~ ^[1-9][0-9]*x[1-9][0-9]*(\+[0-3])?$ ]] \
        || die "bad shape '$s' in SHAPES: write ROWSxCOLS or ROWSxCOLS+OFFSET, e.g. 4096x4096" 2
done
for n in "${steps[@]}"; do
    [[ $n =~ ^[0-9][0-9]$ ]] || die "bad step '$n' in STEPS: write two digits, e.g. STEPS=\"01 05\"" 2
    [ -x "$BUILD/step$n" ] || die "$BUILD/step$n is missing: run 'make step$n' (make bench builds it)"
done

csv="$RESULTS/$GPU.csv"
env_file="$RESULTS/$GPU-env.txt"
# One CSV per run is kept here, so that a sweep cut short (a time limit, a
# lost machine) can go on with RESUME=1.
runs="$BUILD/bench/$GPU"
[ "${RESUME:-0}" = 1 ] || rm -rf "$runs"
mkdir -p "$RESULTS" "$runs" || exit 3
read -r -a extra_args <<< "${BENCH_ARGS:-}"

# takes_shape_list STEP: true if the step program understands --shapes.
# (The help is read whole: grep -q in a pipe could stop the program early.)
takes_shape_list() {
    local help
    help=$("$BUILD/step$1" --help 2>/dev/null)
    [[ $help == *--shapes* ]]
}

# single_shape_args SHAPE: --rows/--cols/--offset for a program without --shapes.
single_shape_args() {
    local dims=${1%+*} offset=0
    [ "$dims" = "$1" ] || offset=${1#*+}
    echo "--rows ${dims%x*} --cols ${dims#*x} --offset $offset"
}

# run_once NAME WHAT ARGS...: run one step program into $runs/NAME.{csv,err,rc},
# unless RESUME=1 and that run already finished.
total=0 done_runs=0 kept=0
run_once() {
    local name=$1 what=$2 rc
    shift 2
    done_runs=$((done_runs + 1))
    if [ "${RESUME:-0}" = 1 ] && [ "$(cat "$runs/$name.rc" 2>/dev/null)" = 0 ]; then
        printf '[%3d/%d] %s (kept from an earlier run of this sweep)\n' "$done_runs" "$total" "$what" >&2
        kept=$((kept + 1))
        return
    fi
    printf '[%3d/%d] %s\n' "$done_runs" "$total" "$what" >&2
    "$@" --csv "${extra_args[@]}" > "$runs/$name.csv" 2> "$runs/$name.err"
    rc=$?
    echo "$rc" > "$runs/$name.rc"
    [ "$rc" -eq 0 ] || sed 's/^/    /' "$runs/$name.err" | tail -n 20 >&2
}

# The runs of the sweep, "NAME STEP [SHAPE]": no SHAPE means every shape at once.
plan=()
shape_list=$(IFS=,; echo "${shapes[*]}")
for n in "${steps[@]}"; do
    if takes_shape_list "$n"; then
        plan+=("step$n $n")
    else
        for shape in "${shapes[@]}"; do plan+=("step${n}_$shape $n $shape"); done
    fi
done
total=${#plan[@]}
start=$SECONDS

for entry in "${plan[@]}"; do
    read -r name n shape <<< "$entry"
    if [ -z "$shape" ]; then
        run_once "$name" "step$n, ${#shapes[@]} shapes" "$BUILD/step$n" --shapes "$shape_list"
    else
        # shellcheck disable=SC2046 # the flags of one shape, split on purpose
        run_once "$name" "step$n $shape" "$BUILD/step$n" $(single_shape_args "$shape")
    fi
done

# Merge the runs (tools/results.py orders the rows by shape, then by step)
# and list what went wrong: runs that failed, rows that did not pass.
failures=()
outputs=()
for entry in "${plan[@]}"; do
    read -r name n shape <<< "$entry"
    rc=$(cat "$runs/$name.rc" 2>/dev/null || echo "missing")
    [ "$rc" = 0 ] || failures+=("step$n ${shape:-(all shapes)}: exit code $rc")
    [ -s "$runs/$name.csv" ] && outputs+=("$runs/$name.csv")
done
if [ ${#outputs[@]} -gt 0 ]; then
    python3 tools/results.py merge "$csv" "${outputs[@]}" \
        || failures+=("some runs printed a CSV that cannot be read (their rows are left out: see above)")
else
    python3 tools/results.py header bench > "$csv"
fi
while IFS= read -r bad; do
    failures+=("$bad")
done < <(python3 tools/results.py check "$csv")
skipped=$(python3 tools/results.py skipped "$csv")

# The timing method, in the program's own words: the "Timing" line of the
# table a run prints (one tiny run of the first step, same BENCH_ARGS).
if takes_shape_list "${steps[0]}"; then tiny=(--shapes 1x1); else tiny=(--rows 1 --cols 1); fi
timing=$("$BUILD/step${steps[0]}" "${tiny[@]}" "${extra_args[@]}" 2>/dev/null \
    | sed -n 's/^Timing *//p' | head -n 1)

{
    echo "gpu: $gpu_name"
    echo "driver: $driver"
    echo "cuda_driver_api: $(nvidia-smi | sed -n 's/.*CUDA Version: *\([0-9.]*\).*/\1/p' | head -n 1)"
    echo "nvcc: $(nvcc --version 2>/dev/null | grep -i release | head -n 1 || echo unknown)"
    echo "timing method: ${timing:-unknown (the step program printed no Timing line)}"
    echo "date_utc: $(date -u '+%Y-%m-%d %H:%M')"
    if [ -n "${BENCH_COMMAND:-}" ]; then
        echo "command: $BENCH_COMMAND $asked"
    else
        echo "command: ${asked:+$asked }tools/bench.sh"
    fi
    echo "shapes: ${shapes[*]}"
    echo "steps: ${steps[*]}"
    echo "runs: $total in $((SECONDS - start)) s$([ "$kept" -eq 0 ] || echo ", $kept of them kept from an earlier run of this sweep (RESUME=1)")"
} > "$env_file"

rows=$(python3 tools/results.py rows "$csv" --column kernel | wc -l)
echo "bench: wrote $csv ($rows rows) and $env_file in $((SECONDS - start)) s" >&2
if [ -n "$skipped" ]; then
    echo "bench: skipped (this GPU cannot run them):" >&2
    while IFS= read -r line; do echo "  $line"; done <<< "$skipped" >&2
fi
if [ ${#failures[@]} -ne 0 ]; then
    echo "bench: FAILED: ${#failures[@]} problem(s):" >&2
    printf '  %s\n' "${failures[@]}" >&2
    exit 1
fi
echo "bench: every check PASS" >&2
