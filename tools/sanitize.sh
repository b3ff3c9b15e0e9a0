#!/usr/bin/env bash
# compute-sanitizer's memcheck, racecheck and synccheck over one step's kernels.
#
#   make sanitize STEP=06                       (builds the step first)
#   make sanitize STEP=08 ARGS="--shapes 5x1000,7x3+1 --variant tile"
#   tools/sanitize.sh STEP BINARY [step arguments...]   (what make runs)
#   tools/sanitize.sh --check-env               (exit 3 unless a GPU and compute-sanitizer are here)
#
# Each tool runs the step program once, with --check-only so that only the
# step's own kernels run, over every kernel variant (or the one --variant
# names) and every shape tagged `sanitize` in tests/shapes.txt: small shapes
# whose sides are odd and not multiples of any tile, 1-wide ones, and one
# with pointers 4 bytes past a 16-byte boundary (unless ARGS give --shapes,
# --rows, --cols or --offset). A run is
#   compute-sanitizer --tool TOOL --error-exitcode 99 --print-limit 20 \
#       build/stepNN --check-only --shapes 1x37,37x1,67x131,67x131+1,33x4097
# and prints one line. A run with any report from the tool, or a wrong
# result, fails, and its sanitizer output is shown.
#
#   memcheck   out-of-bounds and misaligned accesses, in global and shared memory
#   racecheck  shared-memory hazards: a missing __syncthreads() between the
#              writes of one thread and the reads of another
#   synccheck  __syncthreads() reached by only part of a block
#
# Environment: SANITIZE_TOOLS (default "memcheck racecheck synccheck"),
# COMPUTE_SANITIZER (default: compute-sanitizer on PATH, then $CUDA_HOME/bin,
# /usr/local/cuda/bin).
# Exit codes: 0 every run clean; 1 a tool reported an error or a result was
# wrong; 2 bad command line; 3 no GPU or no compute-sanitizer.
set -u -o pipefail

die() { echo "error: $1" >&2; exit "${2:-3}"; }

# shellcheck source=tools/cuda_env.sh
. "$(dirname "$0")/cuda_env.sh"

# One line and exit 3 when this machine cannot run the sanitizers at all.
check_env() {
    require_nvidia_gpu "make sanitize needs a GPU and compute-sanitizer"
    SANITIZER=$(find_cuda_tool compute-sanitizer "${COMPUTE_SANITIZER:-}" \
                /usr/local/cuda/compute-sanitizer/compute-sanitizer) \
        || die "compute-sanitizer not found: install it with the CUDA toolkit, put it on PATH or set COMPUTE_SANITIZER=/path/to/it"
}

# step_args ARGS...: the step arguments worth keeping under a sanitizer, in
# RUN_ARGS; the flags that only matter for timing are dropped. Without a
# shape among them, the `sanitize` shapes of tests/shapes.txt are added.
step_args() {
    local has_shape=""
    RUN_ARGS=(--check-only)
    while [ $# -gt 0 ]; do
        case $1 in
            --check-only|--csv) shift ;;
            --reps|--warmup|--flush) shift 2 ;;
            --rows|--cols|--offset|--shapes) has_shape=1; RUN_ARGS+=("$1" "${2:-}"); shift 2 ;;
            *) RUN_ARGS+=("$1"); shift ;;
        esac
    done
    if [ -z "$has_shape" ]; then
        local shapes
        shapes=$("$(dirname "$0")/shapes.sh" sanitize) || exit 2
        RUN_ARGS+=(--shapes "$shapes")
    fi
}

# sanitize TOOL: one run of the step program under TOOL; prints its line and
# returns 0 when clean, 1 when not.
sanitize() {
    local tool=$1 out=$LOG/$1.txt rc line
    "$SANITIZER" --tool "$tool" --error-exitcode 99 --print-limit 20 "$BIN" "${RUN_ARGS[@]}" >"$out" 2>&1
    rc=$?
    # racecheck warnings do not set the exit code; a hazard of any kind fails here
    [ $rc -eq 0 ] && grep -qE '(ERROR|RACECHECK) SUMMARY: [1-9]' "$out" && rc=99
    line=$(printf '%-9s step%s %s' "$tool" "$STEP" "${RUN_ARGS[*]}")
    case $rc in
        0) echo "clean  $line"; return 0 ;;
        3) grep -m1 '^error:' "$out" >&2
           die "step$STEP could not run under compute-sanitizer (environment, exit 3)" ;;
        99) echo "ERRORS $line"; grep -E '^========= ' "$out" | head -40 ;;
        1) echo "WRONG  $line"; grep -E '^FAIL ' "$out" | head -20; tail -20 "$out" ;;
        *) echo "FAILED $line (exit $rc)"; tail -20 "$out" ;;
    esac
    return 1
}

if [ "${1:-}" = "--check-env" ]; then
    check_env
    exit 0
fi
[ $# -ge 2 ] || die "usage: tools/sanitize.sh STEP BINARY [step arguments...] (or: make sanitize STEP=06)" 2
STEP=$1 BIN=$2
shift 2
[[ $STEP =~ ^[0-9][0-9]$ ]] || die "bad step '$STEP': write two digits, e.g. 06" 2
step_args "$@"
check_env
[ -x "$BIN" ] || die "$BIN is missing: run 'make step$STEP' (make sanitize builds it)"

LOG=$(mktemp -d)
trap 'rm -rf "$LOG"' EXIT
failed=0 runs=0
for tool in ${SANITIZE_TOOLS:-memcheck racecheck synccheck}; do
    sanitize "$tool" || failed=$((failed + 1))
    runs=$((runs + 1))
done
echo "$((runs - failed)) clean, $failed with errors"
[ "$failed" -eq 0 ] || exit 1
