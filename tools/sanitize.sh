#!/usr/bin/env bash
# compute-sanitizer's memcheck, racecheck and synccheck over one step's kernels.
#
#   make sanitize STEP=06                       (builds the step first)
#   make sanitize STEP=08 ARGS="--rows 5 --cols 1000"
#   tools/sanitize.sh STEP BINARY [step arguments...]   (what make runs)
#   tools/sanitize.sh --check-env               (exit 3 unless a GPU and compute-sanitizer are here)
#
# Every kernel variant of the step (or the one --variant names) runs under
# each tool with --check-only, so that only the step's own kernels run, at a
# small shape whose sides are odd and not multiples of any tile:
#   --rows 67 --cols 131             (unless ARGS give --rows/--cols)
#   the same with --offset 1         (pointers 4 bytes past a 16-byte boundary;
#                                     skipped when ARGS give --offset)
# Each run is
#   compute-sanitizer --tool TOOL --error-exitcode 99 --print-limit 20 \
#       build/stepNN --check-only --variant NAME --rows 67 --cols 131 [--offset 1]
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

if [ "${1:-}" = "--check-env" ]; then
    check_env
    exit 0
fi
[ $# -ge 2 ] || die "usage: tools/sanitize.sh STEP BINARY [step arguments...] (or: make sanitize STEP=06)" 2
STEP=$1 BIN=$2
shift 2
[[ $STEP =~ ^[0-9][0-9]$ ]] || die "bad step '$STEP': write two digits, e.g. 06" 2
check_env
[ -x "$BIN" ] || die "$BIN is missing: run 'make step$STEP' (make sanitize builds it)"

# The step arguments, without those that make no sense here; note --variant,
# --rows, --cols and --offset.
args=() variant="" has_shape="" has_offset=""
while [ $# -gt 0 ]; do
    case $1 in
        --check-only|--csv) shift ;;
        --reps|--warmup) shift 2 ;;
        --variant) variant=${2:-}; shift 2 ;;
        --rows|--cols) has_shape=1; args+=("$1" "${2:-}"); shift 2 ;;
        --offset) has_offset=1; args+=("$1" "${2:-}"); shift 2 ;;
        *) args+=("$1"); shift ;;
    esac
done
[ -n "$has_shape" ] || args=(--rows 67 --cols 131 "${args[@]}")

if [ -n "$variant" ]; then
    variants=("$variant")
else
    # The step program lists its kernels under "Kernels of this step" in --help.
    mapfile -t variants < <("$BIN" --help | awk '/^Kernels of this step/ {on = 1; next}
                                                  on && /^  [^ ]/ {print $1; next} on {exit}')
    [ ${#variants[@]} -gt 0 ] || die "$BIN --help lists no kernels" 1
fi
configs=("")
[ -n "$has_offset" ] || configs+=("--offset 1")

LOG=$(mktemp -d)
trap 'rm -rf "$LOG"' EXIT
failed=0 runs=0
for tool in ${SANITIZE_TOOLS:-memcheck racecheck synccheck}; do
    for v in "${variants[@]}"; do
        for extra in "${configs[@]}"; do
            # shellcheck disable=SC2206  # $extra is a flag and its value
            run_args=(--check-only --variant "$v" "${args[@]}" $extra)
            out=$LOG/run.txt
            "$SANITIZER" --tool "$tool" --error-exitcode 99 --print-limit 20 "$BIN" "${run_args[@]}" >"$out" 2>&1
            rc=$?
            # racecheck warnings do not set the exit code; a hazard of any kind fails here
            [ $rc -eq 0 ] && grep -qE '(ERROR|RACECHECK) SUMMARY: [1-9]' "$out" && rc=99
            runs=$((runs + 1))
            line=$(printf '%-9s step%s %s' "$tool" "$STEP" "${run_args[*]}")
            case $rc in
                0) echo "clean  $line" ;;
                3) grep -m1 '^error:' "$out" >&2
                   die "step$STEP could not run under compute-sanitizer (environment, exit 3)" ;;
                99) echo "ERRORS $line"; failed=$((failed + 1)); grep -E '^========= ' "$out" | head -40 ;;
                1) echo "WRONG  $line"; failed=$((failed + 1)); tail -20 "$out" ;;
                *) echo "FAILED $line (exit $rc)"; failed=$((failed + 1)); tail -20 "$out" ;;
            esac
        done
    done
done
echo "$((runs - failed)) clean, $failed with errors"
[ "$failed" -eq 0 ] || exit 1
