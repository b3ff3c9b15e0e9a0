#!/usr/bin/env bash
# The whole test suite (`make test`). Every test prints one line:
#   PASS <name> | FAIL <name> | SKIP <name> (<why>)
# and the last line is `N passed, N failed, N skipped`. The exit code is 0
# only if nothing failed. GPU tests run when a GPU is visible and are
# reported as skipped, one line each, when none is.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
LOG=$BUILD/test-logs
mkdir -p "$LOG"

# Results are lines on stdout; they are counted from the log at the end, so
# tests may run in background jobs (GPU_JOBS > 1) and still be counted.
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; }
skip() { echo "SKIP $*"; }
section() { printf '\n== %s\n' "$*"; }

# expect_exit CODE NAME -- COMMAND...: the command must exit with CODE and,
# for codes 2 and 3, print exactly one line on stderr and nothing on stdout.
expect_exit() {
    local want=$1 name=$2; shift 3
    local out=$LOG/last.$BASHPID.out err=$LOG/last.$BASHPID.err
    "$@" >"$out" 2>"$err"
    local got=$?
    if [ "$got" -ne "$want" ]; then
        fail "$name (exit $got, expected $want: $(head -c 300 "$err" | tr '\n' ' '))"
    elif [ "$want" -ge 2 ] && { [ "$(wc -l <"$err")" -ne 1 ] || [ -s "$out" ]; }; then
        fail "$name (exit $want as expected, but not exactly one line on stderr: $(head -c 300 "$err" | tr '\n' ' '))"
    else
        pass "$name"
    fi
}

run_tests() {
STEP_BINS=$(ls -d steps/[0-9][0-9]_* | sed -E 's|steps/([0-9]{2})_.*|'"$BUILD"'/step\1|')

# ------------------------------------------------------------------ build
section "Build: every program, host and device warnings as errors"
# Remove the programs first, so that one which no longer builds cannot pass as a stale file.
bins=$(make -s print-bins BUILD="$BUILD")
rm -f $bins
make -k -j"$JOBS" all BUILD="$BUILD" >"$LOG/build.log" 2>&1
for bin in $bins; do
    if [ -x "$bin" ]; then pass "build $bin"; else fail "build $bin (see $LOG/build.log)"; fi
done
if grep -qiE "warning|error" "$LOG/build.log"; then
    fail "the build printed warnings or errors:"
    grep -iE "warning|error" "$LOG/build.log" | head -20
fi

# ------------------------------------------------------------------ host unit tests
section "Host unit tests of common/"
if [ -x "$BUILD/tests/test_common" ]; then
    "$BUILD/tests/test_common" >"$LOG/unit.log" 2>&1
    while read -r status name; do
        case $status in PASS) pass "unit: $name" ;; FAIL) fail "unit: $name" ;; esac
    done <"$LOG/unit.log"
else
    fail "unit tests not built"
fi

# ------------------------------------------------------------------ bad command lines
section "Bad command lines: one line on stderr, exit code 2, before any GPU work"
for bin in $STEP_BINS; do
    expect_exit 2 "$bin rejects --rows abc" -- "$bin" --rows abc
    expect_exit 2 "$bin rejects --rows 0" -- "$bin" --rows 0
    expect_exit 2 "$bin rejects --cols -5" -- "$bin" --cols -5
    expect_exit 2 "$bin rejects --rows 12x" -- "$bin" --rows 12x
    expect_exit 2 "$bin rejects an overflowing M*N*4" -- "$bin" --rows 4294967296 --cols 4294967296
    expect_exit 2 "$bin rejects an unknown flag" -- "$bin" --bogus
    expect_exit 2 "$bin rejects a missing value" -- "$bin" --rows
    expect_exit 2 "$bin rejects an unknown --variant" -- "$bin" --variant no_such_kernel
    expect_exit 0 "$bin --help" -- "$bin" --help
done
# make adds a line of its own, so only the exit code is checked here.
if make -s run STEP=99 >/dev/null 2>&1; then fail "make run STEP=99 should fail"
elif [ "$(make -s run STEP=99 2>&1 >/dev/null | head -n 1)" = "error: no step '99': use a two-digit number from 01 to 10" ]; then
    pass "make run rejects an unknown step with one line"
else fail "make run STEP=99: unexpected message"; fi

# ------------------------------------------------------------------ no GPU
section "No GPU: one line on stderr, exit code 3 (CUDA_VISIBLE_DEVICES hides any GPU)"
for bin in $STEP_BINS "$BUILD/tools/gpu_probe"; do
    expect_exit 3 "$bin without a GPU" -- env CUDA_VISIBLE_DEVICES= "$bin" --rows 64 --cols 64
done

# ------------------------------------------------------------------ GPU tests
# Shapes every step must transpose bit for bit: degenerate, odd, not multiples of
# 4/32/64, widths 1-5 and 4095/4097, past the grid limits, and more than 2^31 elements.
SHAPES="1x1 1x1000 1000x1 2x2 3x5 31x33 33x31 67x131 33x4097 4097x33 1000x1000 \
257x1 257x2 257x3 257x5 129x4095 129x4097 4096x4096 12800x1280 1280x12800 \
10007x7919 5000000x3 3x5000000 1x70000 70000x1"
OFFSET_SHAPES="33x4097 1000x1000 4096x4096 129x4095 1280x12800"
HUGE_SHAPE=32769x65537   # 2,147,581,953 elements: past 2^31
SANITIZE_SHAPES="67x131 1x37 37x1 33x4097"

gpu_name=$("$BUILD/tools/gpu_probe" 2>"$LOG/probe.err")
if [ $? -eq 0 ]; then
    section "GPU tests on $gpu_name"
    have_gpu=1
else
    section "GPU tests: SKIPPED, no GPU: $(cat "$LOG/probe.err")"
    have_gpu=0
fi

# run_gpu NAME -- COMMAND...: skip without a GPU, else the command must exit 0.
run_gpu() {
    local name=$1; shift 2
    if [ "$have_gpu" -eq 0 ]; then skip "$name (no GPU)"; return; fi
    local out=$LOG/gpu.$BASHPID.out
    if "$@" >"$out" 2>&1; then
        pass "$name"
    else
        fail "$name (exit $?): $(grep -m3 -E 'error|FAIL|expected' "$out" | tr '\n' ' ' | head -c 400)"
    fi
}

# All GPU checks of one step program; several steps run at once when GPU_JOBS > 1.
gpu_tests_for_step() {
    local bin=$1 shape offset
    for shape in $SHAPES; do
        run_gpu "$bin bit-exact at $shape (all kernels)" -- \
            "$bin" --check-only --rows "${shape%x*}" --cols "${shape#*x}"
    done
    for shape in $OFFSET_SHAPES; do
        for offset in 1 2; do
            run_gpu "$bin bit-exact at $shape, --offset $offset (misaligned)" -- \
                "$bin" --check-only --offset "$offset" --rows "${shape%x*}" --cols "${shape#*x}"
        done
    done
    run_gpu "$bin bit-exact at $HUGE_SHAPE (> 2^31 elements)" -- \
        "$bin" --check-only --rows "${HUGE_SHAPE%x*}" --cols "${HUGE_SHAPE#*x}"
    run_gpu "$bin full report at 2048x2048 (baselines and timing)" -- \
        "$bin" --reps 3 --warmup 1 --rows 2048 --cols 2048
    if [ "$have_gpu" -eq 1 ] && ! command -v compute-sanitizer >/dev/null; then
        skip "compute-sanitizer on $bin (not installed)"
        return
    fi
    for shape in $SANITIZE_SHAPES; do
        for tool in memcheck racecheck synccheck; do
            run_gpu "$tool $bin at $shape" -- compute-sanitizer --tool "$tool" --error-exitcode 9 \
                --print-limit 5 "$bin" --check-only --rows "${shape%x*}" --cols "${shape#*x}"
        done
    done
}

GPU_JOBS=${GPU_JOBS:-1}
if [ "$have_gpu" -eq 1 ] && [ "$GPU_JOBS" -gt 1 ]; then
    # Each job writes its own log; they are printed in step order afterwards.
    export OMP_NUM_THREADS=$(( $(nproc) / GPU_JOBS > 0 ? $(nproc) / GPU_JOBS : 1 ))
    running=0
    for bin in $STEP_BINS; do
        gpu_tests_for_step "$bin" >"$LOG/gpu-$(basename "$bin").log" 2>&1 &
        running=$((running + 1))
        if [ "$running" -ge "$GPU_JOBS" ]; then wait -n; running=$((running - 1)); fi
    done
    wait
    for bin in $STEP_BINS; do cat "$LOG/gpu-$(basename "$bin").log"; done
    unset OMP_NUM_THREADS
else
    for bin in $STEP_BINS; do gpu_tests_for_step "$bin"; done
fi

# The checker itself must be able to fail.
planted=$BUILD/tests/planted_wrong
run_gpu "planted: correct kernel passes" -- "$planted" --check-only --rows 33 --cols 65 --variant correct
for variant in writes_nothing drops_tail swaps_two copies; do
    if [ "$have_gpu" -eq 0 ]; then skip "planted: $variant is caught (no GPU)"; continue; fi
    expect_exit 1 "planted: $variant is caught (exit 1)" -- "$planted" --check-only --rows 33 --cols 65 --variant "$variant"
done

if [ "$have_gpu" -eq 1 ]; then
    expect_exit 3 "a matrix larger than GPU memory is refused with one line" -- \
        "${BUILD}/step01" --check-only --rows 1000000 --cols 1000000
    # A shape whose input, result and CPU reference (3 x 4 x N^2 bytes) need more than
    # the host's available memory: refused with one line by whichever check fails first.
    avail_kib=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
    side=$(awk -v kib="$avail_kib" 'BEGIN { printf "%d", sqrt(kib * 1024 / 12) + 1024 }')
    expect_exit 3 "a matrix larger than host memory is refused with one line (${side}x${side})" -- \
        "${BUILD}/step01" --check-only --rows "$side" --cols "$side"
else
    skip "a matrix larger than GPU memory is refused (no GPU)"
    skip "a matrix larger than host memory is refused (no GPU)"
fi

# ------------------------------------------------------------------ exercises
if [ -x tools/grade.sh ]; then
    section "Exercises"
    if [ "$have_gpu" -eq 1 ]; then
        while read -r status name; do
            case $status in PASS) pass "grade: $name" ;; FAIL) fail "grade: $name" ;; esac
        done < <(tools/grade.sh --all-solutions 2>&1 | grep -E '^(PASS|FAIL) ')
        while read -r status name; do
            case $status in PASS) pass "grade: $name" ;; FAIL) fail "grade: $name" ;; esac
        done < <(tools/grade.sh --all-skeletons 2>&1 | grep -E '^(PASS|FAIL) ')
    else
        skip "grade every solution and skeleton (no GPU)"
    fi
fi
if [ -x tools/check_reference_hashes.sh ]; then
    if tools/check_reference_hashes.sh >"$LOG/hashes.log" 2>&1; then
        pass "reference timings match the solutions' sources"
    else
        fail "reference timings are stale: $(head -c 400 "$LOG/hashes.log")"
    fi
fi

# ------------------------------------------------------------------ docs
section "Docs"
if [ -f tools/render_tables.py ] && command -v python3 >/dev/null; then
    if python3 tools/render_tables.py --check >"$LOG/tables.log" 2>&1; then
        pass "generated tables match the committed results"
    else
        fail "generated tables are out of date: run make tables ($(head -c 300 "$LOG/tables.log"))"
    fi
fi
if command -v doxygen >/dev/null; then
    if make -s docs BUILD="$BUILD" >"$LOG/docs.log" 2>&1; then
        pass "make docs (Doxygen, warnings are errors)"
    else
        fail "make docs: $(head -c 600 "$LOG/docs.log") $(head -c 600 "$BUILD/docs/doxygen.log" 2>/dev/null)"
    fi
else
    skip "make docs (doxygen not installed)"
fi

}

run_tests 2>&1 | tee "$LOG/all.log"
passed=$(grep -c '^PASS ' "$LOG/all.log")
failed=$(grep -c '^FAIL ' "$LOG/all.log")
skipped=$(grep -c '^SKIP ' "$LOG/all.log")
echo
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
