#!/usr/bin/env bash
# The whole test suite (`make test`). Every test prints one line:
#   PASS <name> | FAIL <name> (<why>) | SKIP <name> (<why>)
# and the last line is `N passed, N failed, N skipped`. The exit code is 0
# only if nothing failed. GPU tests run when a GPU is visible and are
# reported as skipped, one line each, when none is.
#
# Sections, in this order:
#   build      every program, host and device warnings as errors
#   unit       host unit tests of common/
#   lint       shellcheck, ruff and cppcheck (zero findings), tests/shapes.txt
#   badinput   bad command lines and make targets: one line, exit 2, no GPU needed
#   nogpu      every program with the GPU hidden: exit 3, and --list-variants
#   addstep    a new step directory is all a new step needs (tests/test_add_step.sh)
#   gpu        every kernel bit for bit on the shapes of tests/shapes.txt, the
#              checker's own failures, reports, compute-sanitizer
#   exercises  the grader, tools/grade.py, through its tests (tests/test_grader.sh):
#              without a GPU its command line, builds and compiled-code checks; on
#              a GPU also every solution passes all four checks, every untouched
#              skeleton and every planted wrong answer fails (--quick, side by
#              side); then the reference timing hashes
#   docs       generated tables, diagrams, make docs
#
# Environment:
#   TEST_SECTIONS  the sections to run, e.g. "build nogpu" (spaces or commas; default all)
#   GPU_JOBS       GPU programs run at once (default 4; 1 runs them one by one).
#                  The >2^31-element checks need ~26 GB of host memory each and
#                  never run more than two at a time.
#   JOBS           parallel compile jobs (default: the number of CPUs)
#   BUILD          build directory (default build)
set -u
cd "$(dirname "$0")/.." || exit 3
BUILD=${BUILD:-build}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
GPU_JOBS=${GPU_JOBS:-4}
LOG=$BUILD/test-logs
ALL_SECTIONS="build unit lint badinput nogpu addstep gpu exercises docs"
SECTIONS=${TEST_SECTIONS:-$ALL_SECTIONS}
SECTIONS=${SECTIONS//,/ }

for s in $SECTIONS; do
    [[ " $ALL_SECTIONS " == *" $s "* ]] || {
        echo "error: unknown test section '$s' in TEST_SECTIONS: the sections are $ALL_SECTIONS" >&2
        exit 2
    }
done
[[ $GPU_JOBS =~ ^[1-9][0-9]*$ ]] || { echo "error: GPU_JOBS must be a positive number, not '$GPU_JOBS'" >&2; exit 2; }
mkdir -p "$LOG" || exit 3
rm -rf "$LOG/jobs"
mkdir -p "$LOG/jobs"

# Results are lines on stdout; they are counted from the log at the end, so
# tests may run in background jobs and still be counted.
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; }
skip() { echo "SKIP $*"; }
# section TITLE: a header, with the seconds since the suite started.
section() { printf '\n== %s  [%ds]\n' "$*" "$SECONDS"; }

# wanted SECTION: true if TEST_SECTIONS includes it.
wanted() { [[ " $SECTIONS " == *" $1 "* ]]; }

# first_lines FILE: its first lines on one line, short enough for a test line.
first_lines() { head -c 300 "$1" | tr '\n' ' '; }

# expect_exit CODE NAME -- COMMAND...: the command must exit with CODE and,
# for codes 2 and 3, print exactly one line on stderr and nothing on stdout.
expect_exit() {
    local want=$1 name=$2; shift 3
    local out=$LOG/last.$BASHPID.out err=$LOG/last.$BASHPID.err
    "$@" >"$out" 2>"$err"
    local got=$?
    if [ "$got" -ne "$want" ]; then
        fail "$name (exit $got, expected $want: $(first_lines "$err"))"
    elif [ "$want" -ge 2 ] && { [ "$(wc -l <"$err")" -ne 1 ] || [ -s "$out" ]; }; then
        fail "$name (exit $want as expected, but not exactly one line on stderr: $(first_lines "$err"))"
    else
        pass "$name"
    fi
}

# repo_files PATTERN...: the repository's files matching the patterns, tracked
# or new (not ignored), one per line; without git, what find sees outside build/.
repo_files() {
    local pattern
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git ls-files -co --exclude-standard -- "$@" | sort -u | while read -r f; do
            [ -f "$f" ] && echo "$f"
        done
    else
        for pattern in "$@"; do
            find . -path ./build -prune -o -path "./$pattern" -type f -print | sed 's|^\./||'
        done | sort -u
    fi
}

# The steps are the directories steps/NN_name/; each builds $BUILD/stepNN.
STEP_NUMS=$(for d in steps/[0-9][0-9]_*/; do [ -d "$d" ] && { d=${d#steps/}; echo "${d%%_*}"; }; done)
STEP_BINS=$(for n in $STEP_NUMS; do echo "$BUILD/step$n"; done)
FIRST_BIN=$BUILD/step$(echo "$STEP_NUMS" | head -n 1)
LAST_STEP=$(echo "$STEP_NUMS" | tail -n 1)

# ------------------------------------------------------------------ build
build_section() {
    section "Build: every program, host and device warnings as errors"
    # Remove the programs first, so that one which no longer builds cannot pass as a stale file.
    local bins bin
    bins=$(make -s print-bins BUILD="$BUILD")
    # shellcheck disable=SC2086  # one path per word
    rm -f $bins
    make -k -j"$JOBS" all BUILD="$BUILD" >"$LOG/build.log" 2>&1
    for bin in $bins; do
        if [ -x "$bin" ]; then pass "build $bin"; else fail "build $bin (see $LOG/build.log)"; fi
    done
    if grep -qiE "warning|error" "$LOG/build.log"; then
        fail "the build printed warnings or errors:"
        grep -iE "warning|error" "$LOG/build.log" | head -20
    fi
}

# ------------------------------------------------------------------ host unit tests
unit_section() {
    section "Host unit tests of common/"
    local status name
    local program
    # test_common: common/'s host code; test_tiles: steps 11-12's index arithmetic, played on the host.
    for program in test_common test_tiles; do
        if [ -x "$BUILD/tests/$program" ]; then
            "$BUILD/tests/$program" >"$LOG/unit-$program.log" 2>&1 ||
                grep -q '^FAIL' "$LOG/unit-$program.log" || fail "unit: $program stopped early (see $LOG/unit-$program.log)"
            while read -r status name; do
                case $status in PASS) pass "unit: $name" ;; FAIL) fail "unit: $name" ;; esac
            done <"$LOG/unit-$program.log"
        else
            fail "unit tests not built: $BUILD/tests/$program"
        fi
    done
}

# ------------------------------------------------------------------ lint
lint_section() {
    section "Lint: shellcheck, ruff, cppcheck (zero findings), tests/shapes.txt"
    local f out=$LOG/lint.out
    if command -v shellcheck >/dev/null; then
        # -x follows the `# shellcheck source=` files that the scripts read.
        for f in $(repo_files '*.sh') .ci/run; do
            if shellcheck -x "$f" >"$out" 2>&1; then pass "shellcheck $f"
            else fail "shellcheck $f: $(grep -cE '^In ' "$out") finding(s); run: shellcheck -x $f"; fi
        done
    else
        skip "shellcheck (not installed: apt-get install shellcheck)"
    fi
    # ruff.toml at the root names the rules. pip may install ruff where only
    # `python3 -m ruff` finds it.
    local ruff=()
    if command -v ruff >/dev/null; then ruff=(ruff)
    elif python3 -m ruff --version >/dev/null 2>&1; then ruff=(python3 -m ruff); fi
    if [ ${#ruff[@]} -gt 0 ]; then
        for f in $(repo_files 'tools/*.py'); do
            if "${ruff[@]}" check --no-cache --quiet --output-format concise "$f" >"$out" 2>&1; then pass "ruff $f"
            else fail "ruff $f: $(grep -cE "^$f:" "$out") finding(s); run: ruff check $f"; fi
        done
    else
        skip "ruff (not installed: pip install ruff)"
    fi
    if command -v cppcheck >/dev/null; then
        # Only our headers: the CUDA headers are NVIDIA's, and cppcheck reads
        # through them to no purpose (they are not part of what we can fix).
        local cppcheck_args=("--enable=warning,style,performance,portability" --std=c11
                             --inline-suppr --error-exitcode=1 --quiet -Icommon)
        for f in $(repo_files 'common/*.c' 'tests/*.c' 'tools/*.c'); do
            if cppcheck "${cppcheck_args[@]}" "$f" >"$out" 2>&1; then pass "cppcheck $f"
            else fail "cppcheck $f: $(first_lines "$out"); run: cppcheck ${cppcheck_args[*]} $f"; fi
        done
    else
        skip "cppcheck (not installed: apt-get install cppcheck)"
    fi
    # tools/shapes.sh refuses a malformed tests/shapes.txt whatever the tag.
    if tools/shapes.sh --tags >"$out" 2>&1; then pass "tests/shapes.txt is well formed (tags: $(cat "$out"))"
    else fail "tests/shapes.txt: $(first_lines "$out")"; fi
    local tag
    for tag in check grade sanitize huge report bench; do
        if [ -n "$(tools/shapes.sh "$tag" 2>/dev/null)" ]; then pass "tests/shapes.txt has shapes tagged $tag"
        else fail "tests/shapes.txt has no shape tagged $tag"; fi
    done
    expect_exit 2 "tools/shapes.sh rejects an unknown tag" -- tools/shapes.sh no_such_tag
}

# ------------------------------------------------------------------ bad command lines
# Options are checked before any GPU work, so these pass without a GPU.
badinput_section() {
    section "Bad command lines: one line on stderr, exit code 2, before any GPU work"
    local bin
    for bin in $STEP_BINS; do
        if [ ! -x "$bin" ]; then fail "$bin is not built: its command-line tests cannot run"; continue; fi
        expect_exit 2 "$bin rejects --rows abc" -- "$bin" --rows abc
        expect_exit 2 "$bin rejects --rows 0" -- "$bin" --rows 0
        expect_exit 2 "$bin rejects --cols -5" -- "$bin" --cols -5
        expect_exit 2 "$bin rejects --rows 12x" -- "$bin" --rows 12x
        expect_exit 2 "$bin rejects an overflowing M*N*4" -- "$bin" --rows 4294967296 --cols 4294967296
        expect_exit 2 "$bin rejects an unknown flag" -- "$bin" --bogus
        expect_exit 2 "$bin rejects a missing value" -- "$bin" --rows
        expect_exit 2 "$bin rejects an unknown --variant" -- "$bin" --variant no_such_kernel
        expect_exit 2 "$bin rejects --shapes 0x5" -- "$bin" --shapes 0x5
        expect_exit 2 "$bin rejects --shapes 3x" -- "$bin" --shapes 3x
        expect_exit 2 "$bin rejects --shapes 1x1+9 (offset past 3)" -- "$bin" --shapes 1x1+9
        expect_exit 2 "$bin rejects an overflowing shape in --shapes" -- "$bin" --shapes 8x8,4294967296x4294967296
        expect_exit 2 "$bin rejects --shapes together with --rows" -- "$bin" --shapes 8x8 --rows 8
        expect_exit 2 "$bin rejects --flush bogus" -- "$bin" --flush bogus
        expect_exit 0 "$bin --help" -- "$bin" --help
    done
    # make adds a line of its own after ours (and may warn), so the test looks
    # for our one `error:` line and the exit code.
    local steps expected
    steps=$(echo "$STEP_NUMS" | paste -sd ' ')
    expect_make_error "make run rejects an unknown step, listing the steps found" \
        "error: no step '99': the steps are $steps" run STEP=99
    expect_make_error "make diff rejects an unknown step" \
        "error: no step '99': the steps are $steps" diff STEP=99
    expected="error: step ${steps%% *} is the first step: there is no step before it to compare with"
    expect_make_error "make diff rejects the first step" "$expected" diff STEP="${steps%% *}"
    local second
    second=$(echo "$STEP_NUMS" | sed -n 2p)
    if [ -n "$second" ] && make -s diff STEP="$second" >"$LOG/diff.out" 2>/dev/null &&
        grep -q "^diff --git" "$LOG/diff.out"; then
        pass "make diff STEP=$second shows a word diff against the step before"
    else
        fail "make diff STEP=$second printed no diff: $(first_lines "$LOG/diff.out")"
    fi
    make -s help >"$LOG/help.out" 2>/dev/null
    local n missing=""
    for n in $STEP_NUMS; do grep -qE "^  make step$n " "$LOG/help.out" || missing+=" $n"; done
    if [ -z "$missing" ]; then pass "make help lists every step found"
    else fail "make help does not list step(s)$missing"; fi
}

# expect_make_error NAME MESSAGE TARGET [VARIABLES...]: `make -s TARGET` must
# exit 2 and print MESSAGE as its one `error:` line.
expect_make_error() {
    local name=$1 message=$2 got status
    shift 2
    got=$(make -s --no-print-directory BUILD="$BUILD" "$@" 2>&1 >/dev/null)
    status=$?
    if [ "$status" -ne 2 ]; then
        fail "$name (exit $status, expected 2)"
    elif [ "$(echo "$got" | grep -c '^error:')" -ne 1 ] || [ "$(echo "$got" | grep '^error:')" != "$message" ]; then
        fail "$name (expected '$message', got: $(echo "$got" | tr '\n' ' ' | head -c 300))"
    else
        pass "$name"
    fi
}

# ------------------------------------------------------------------ no GPU
nogpu_section() {
    section "No GPU: one line on stderr, exit code 3 (CUDA_VISIBLE_DEVICES hides any GPU)"
    local bin status out=$LOG/variants.out
    for bin in $STEP_BINS "$BUILD/tools/gpu_probe"; do
        if [ ! -x "$bin" ]; then fail "$bin is not built: its no-GPU tests cannot run"; continue; fi
        expect_exit 3 "$bin without a GPU" -- env CUDA_VISIBLE_DEVICES= "$bin" --shapes 64x64
    done
    # --list-variants: name<TAB>min_cc<TAB>role<TAB>summary per line, exit 0, no GPU needed.
    for bin in $STEP_BINS; do
        [ -x "$bin" ] || continue
        env CUDA_VISIBLE_DEVICES= "$bin" --list-variants >"$out" 2>&1
        status=$?
        if [ "$status" -ne 0 ]; then
            fail "$bin --list-variants without a GPU (exit $status: $(first_lines "$out"))"
        elif [ ! -s "$out" ] || grep -qvP '^[A-Za-z0-9_]+\t[0-9]+\t(kernel|bound)\t\S.*$' "$out"; then
            fail "$bin --list-variants: expected lines of name<TAB>min_cc<TAB>role<TAB>summary, got: $(first_lines "$out")"
        else
            pass "$bin --list-variants without a GPU ($(cut -f1 "$out" | paste -sd ' '))"
        fi
    done
}

# ------------------------------------------------------------------ adding a step
addstep_section() {
    section "Adding a step: a new steps/NN_name/ directory is all it takes"
    BUILD=$BUILD bash tests/test_add_step.sh
}

# ------------------------------------------------------------------ GPU work
# Every GPU program runs as a job: a shell function whose test lines go to
# $LOG/jobs/NAME.log, printed in a fixed order once all jobs are done. Jobs
# run GPU_JOBS at a time; the >2^31-element checks run in a pool of their own,
# at most two at a time, because each needs ~26 GB of host memory.

# check_job BIN SHAPES LABEL: every kernel of BIN on every shape, in one
# process. Each `PASS|FAIL|SKIP NN kernel SHAPE` line of the harness becomes a
# test line; a process that stops early, or whose exit code disagrees with
# its lines, fails.
check_job() {
    local bin=$1 shapes=$2 out err variants expected got status word step kernel shape why
    out=$LOG/jobs/$(basename "$bin")-$3.out
    err=$out.err
    if ! variants=$("$bin" --list-variants 2>"$err" | grep -c .); then
        fail "$bin --list-variants: $(first_lines "$err")"
        return
    fi
    "$bin" --check-only --shapes "$shapes" >"$out" 2>"$err"
    status=$?
    while read -r word step kernel shape why; do
        case $word in
            PASS) pass "$bin $kernel bit-exact at $shape" ;;
            FAIL) fail "$bin $kernel bit-exact at $shape ${why:-}" ;;
            SKIP) skip "$bin $kernel at $shape ${why:-}" ;;
        esac
    done < <(grep -E '^(PASS|FAIL|SKIP) ' "$out")
    expected=$((variants * $(echo "$shapes" | tr ',' '\n' | grep -c .)))
    got=$(grep -cE '^(PASS|FAIL|SKIP) ' "$out")
    if [ "$got" -ne "$expected" ]; then
        fail "$bin --check-only --shapes ${shapes:0:60}...: $got of $expected result lines (exit $status: $(first_lines "$err"))"
    elif grep -q '^FAIL ' "$out" && [ "$status" -ne 1 ]; then
        fail "$bin --check-only: a FAIL line but exit $status, not 1"
    elif ! grep -q '^FAIL ' "$out" && [ "$status" -ne 0 ]; then
        fail "$bin --check-only: no FAIL line but exit $status: $(first_lines "$err")"
    fi
}

# report_job BIN: the full report with baselines and timing must succeed.
report_job() {
    local bin=$1 out
    out=$LOG/jobs/$(basename "$bin")-report.out
    if "$bin" --reps 3 --warmup 1 --shapes "$REPORT_SHAPES" >"$out" 2>&1; then
        pass "$bin full report at $REPORT_SHAPES (baselines and timing)"
    else
        fail "$bin full report at $REPORT_SHAPES (exit $?): $(grep -m3 -E 'error|FAIL' "$out" | tr '\n' ' ' | head -c 300)"
    fi
}

# sanitize_job BIN: tools/sanitize.sh runs each tool once over every kernel
# and the `sanitize` shapes; each of its clean/ERRORS/WRONG/FAILED lines is a test.
sanitize_job() {
    local bin=$1 step out word tool rest
    step=${bin##*/step}
    out=$LOG/jobs/$(basename "$bin")-sanitize.out
    tools/sanitize.sh "$step" "$bin" >"$out" 2>&1
    local status=$?
    while read -r word tool rest; do
        case $word in
            clean) pass "compute-sanitizer $tool on $bin" ;;
            ERRORS | WRONG | FAILED) fail "compute-sanitizer $tool on $bin: $word (details: $out)" ;;
        esac
    done < <(grep -E '^(clean|ERRORS|WRONG|FAILED) ' "$out")
    if [ "$status" -ge 2 ]; then fail "tools/sanitize.sh $step $bin (exit $status): $(first_lines "$out")"; fi
}

# planted_job: the checker must be able to fail. Every variant of
# tests/planted_wrong except `correct` is wrong and must be reported FAIL,
# except one that needs a newer GPU than any (its min_cc): SKIP, with why.
planted_job() {
    local planted=$BUILD/tests/planted_wrong out=$LOG/jobs/planted.out name min_cc summary line
    "$planted" --check-only --shapes 33x65 >"$out" 2>&1
    local status=$?
    if [ "$status" -eq 1 ]; then pass "planted: exit 1 when a kernel is wrong"
    else fail "planted: exit $status, expected 1 ($(first_lines "$out"))"; fi
    while IFS=$'\t' read -r name min_cc summary; do
        line=$(grep -E "^(PASS|FAIL|SKIP) [^ ]+ $name " "$out")
        if [ "$name" = correct ]; then
            if [[ $line == PASS* ]]; then pass "planted: correct kernel passes"
            else fail "planted: correct kernel: '$line'"; fi
        elif [[ $line == FAIL* ]]; then
            pass "planted: $name is caught"
        elif [[ $line == SKIP*"needs compute capability"* ]] && [ "$min_cc" -gt 0 ]; then
            pass "planted: $name (min_cc $min_cc) is skipped with the reason: ${line#* * * * }"
        else
            fail "planted: $name ($summary) is not caught: '$line'"
        fi
    done < <("$planted" --list-variants 2>/dev/null)
}

# extras_job: what only needs one step program: the CSV over several shapes
# and the other flush methods.
extras_job() {
    local bin=$FIRST_BIN out=$LOG/jobs/extras.csv
    local header="gpu,step,kernel,role,rows,cols,offset,median_ms,min_ms,gbps,pct_of_copy,vs_cublas,check"
    "$bin" --csv --reps 2 --warmup 1 --shapes 64x64,96x128+1 >"$out" 2>"$out.err"
    local status=$?
    if [ "$status" -ne 0 ]; then
        fail "$bin --csv over two shapes (exit $status): $(first_lines "$out.err")"
    elif [ "$(grep -c '^gpu,' "$out")" -ne 1 ] || [ "$(head -n 1 "$out")" != "$header" ]; then
        fail "$bin --csv over two shapes: expected the header '$header' once, first: $(head -n 1 "$out")"
    elif ! grep -q ',64,64,0,' "$out" || ! grep -q ',96,128,1,' "$out"; then
        fail "$bin --csv over two shapes: rows missing for 64x64 or 96x128+1"
    else
        pass "$bin --csv over two shapes: one header, rows for both"
    fi
    local flush
    for flush in write none; do
        if "$bin" --flush "$flush" --reps 2 --warmup 1 --shapes 256x256 >"$out" 2>&1; then
            pass "$bin --flush $flush"
        else
            fail "$bin --flush $flush (exit $?): $(first_lines "$out")"
        fi
    done
}

# limits_job: shapes too large for the GPU or the host are refused with one
# line. It runs alone, after every other job: the host-memory test sizes its
# shape from the memory available now, which must not change under it.
limits_job() {
    local bin=$FIRST_BIN
    expect_exit 3 "a matrix larger than GPU memory is refused with one line" -- \
        "$bin" --check-only --shapes 1000000x1000000
    # A shape whose input, result and CPU reference (3 x 4 x N^2 bytes) need more than
    # the host's available memory: refused with one line by whichever check fails first.
    local avail_kib side
    avail_kib=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
    side=$(awk -v kib="$avail_kib" 'BEGIN { printf "%d", sqrt(kib * 1024 / 12) + 1024 }')
    expect_exit 3 "a matrix larger than host memory is refused with one line (${side}x${side})" -- \
        "$bin" --check-only --shapes "${side}x${side}"
}

# acceptance_job: the last step as the README tells a reader to run it
# (make run), at an odd shape and at 32768 x 32768: it exits 0, every kernel's
# row ends in PASS (SKIP only for a kernel this GPU lacks), and the report has
# its cuBLAS row, so that % of copy and vs cuBLAS are printed.
acceptance_job() {
    local shape args out status
    for shape in 10007x7919 32768x32768; do
        args="--rows ${shape%x*} --cols ${shape#*x}"
        out=$LOG/jobs/acceptance-$shape.out
        make -s --no-print-directory run STEP="$LAST_STEP" ARGS="$args" BUILD="$BUILD" >"$out" 2>&1
        status=$?
        if [ "$status" -ne 0 ]; then
            fail "make run STEP=$LAST_STEP ARGS=\"$args\" (exit $status): $(first_lines "$out")"
        elif grep -qE ' FAIL( \(| *$)' "$out" || ! grep -qE "^$LAST_STEP .* PASS *\$" "$out" \
                || ! grep -qE '^cublasSgeam .* PASS *$' "$out"; then
            fail "make run STEP=$LAST_STEP ARGS=\"$args\": a FAIL row, or no passing kernel or cuBLAS row (see $out)"
        else
            pass "make run STEP=$LAST_STEP ARGS=\"$args\": every kernel bit-exact, with % of copy and vs cuBLAS"
        fi
    done
}

# grader_job [PART]: tests/test_grader.sh, the grader's tests, on one part
# (cpu, solution:NN, skeleton:NN, planted:NAME) with tools/grade.py --quick, or
# without PART all of it (on a machine without a GPU: the no-GPU tests, and one
# SKIP line per GPU test). Each of its PASS/FAIL/SKIP lines is a test.
grader_job() {
    local out=$LOG/jobs/grader-${1:-all}.out status word rest
    out=${out//:/-}
    if [ $# -gt 0 ]; then
        BUILD=$BUILD bash tests/test_grader.sh --quick "$1" >"$out" 2>&1
    else
        BUILD=$BUILD bash tests/test_grader.sh >"$out" 2>&1
    fi
    status=$?
    while read -r word rest; do
        case $word in
            PASS) pass "grader: $rest" ;; FAIL) fail "grader: $rest" ;; SKIP) skip "grader: $rest" ;;
        esac
    done < <(grep -E '^(PASS|FAIL|SKIP) ' "$out")
    if [ "$status" -ne 0 ] && ! grep -q '^FAIL ' "$out"; then
        fail "tests/test_grader.sh (exit $status, no FAIL line): $(tail -c 300 "$out" | tr '\n' ' ')"
    fi
}

# job_log NAME: the log file of a job (NAME is KIND:ARGUMENT, e.g. check:build/step07).
job_log() {
    local file=${1//\//_}
    echo "$LOG/jobs/${file//:/-}.log"
}

# run_job NAME: run one job into its log; its time goes to jobs/times.txt.
run_job() {
    local kind=${1%%:*} arg=${1#*:} start=$SECONDS
    case $kind in
        check) check_job "$arg" "$CHECK_SHAPES" check ;;
        huge) check_job "$arg" "$HUGE_SHAPES" huge ;;
        report) report_job "$arg" ;;
        sanitize) sanitize_job "$arg" ;;
        planted) planted_job ;;
        extras) extras_job ;;
        limits) limits_job ;;
        acceptance) acceptance_job ;;
        grader) if [ "$arg" = "$1" ]; then grader_job; else grader_job "$arg"; fi ;;
    esac >"$(job_log "$1")" 2>&1
    echo "$((SECONDS - start))s $1" >>"$LOG/jobs/times.txt"
}

# run_pool WIDTH JOB...: run the jobs, at most WIDTH at a time.
run_pool() {
    local width=$1 running=0 job
    shift
    for job in "$@"; do
        run_job "$job" &
        running=$((running + 1))
        if [ "$running" -ge "$width" ]; then wait -n; running=$((running - 1)); fi
    done
    wait
}

# show_jobs JOB...: print the logs of finished jobs, in this order.
show_jobs() {
    local job
    for job in "$@"; do cat "$(job_log "$job")" 2>/dev/null; done
}

gpu_work() {
    local gpu_name have_gpu=1
    gpu_name=$("$BUILD/tools/gpu_probe" 2>"$LOG/probe.err") || have_gpu=0
    CHECK_SHAPES=$(tools/shapes.sh check) HUGE_SHAPES=$(tools/shapes.sh huge) REPORT_SHAPES=$(tools/shapes.sh report)
    local bin huge=() rest=() gpu_order=() sanitizer=1
    if wanted gpu; then
        tools/sanitize.sh --check-env >"$LOG/sanitizer.err" 2>&1 || sanitizer=0
        for bin in $STEP_BINS; do
            huge+=("huge:$bin")
            [ "$sanitizer" -eq 1 ] && rest+=("sanitize:$bin")
            gpu_order+=("check:$bin" "huge:$bin" "report:$bin" "sanitize:$bin")
        done
        for bin in $STEP_BINS; do rest+=("check:$bin" "report:$bin"); done
        rest+=(planted extras)
        gpu_order+=(planted extras limits acceptance)
    fi
    local grade_order=() name
    if wanted exercises && [ "$have_gpu" -eq 1 ] && [ -f tests/test_grader.sh ]; then
        # One job per solution, skeleton and planted file, so that they run side by
        # side; the exercises are those the grader finds (tools/grade.py --list).
        grade_order+=(grader:cpu)
        for name in $(python3 tools/grade.py --list 2>/dev/null); do
            grade_order+=("grader:solution:${name:0:2}" "grader:skeleton:${name:0:2}")
        done
        for name in tests/graded_wrong/*.cu; do
            [ -f "$name" ] && name=${name##*/} && grade_order+=("grader:planted:${name%.cu}")
        done
        rest=("${grade_order[@]}" "${rest[@]}")
        # The graders build what they miss through make: build it all once
        # here, so that jobs side by side never build the same file at once.
        make -s -j"$JOBS" all BUILD="$BUILD" >"$LOG/grade-build.log" 2>&1
    fi

    if [ "$have_gpu" -eq 1 ]; then
        export OMP_WAIT_POLICY=passive   # many processes share the CPUs: no spinning threads
        if [ "$GPU_JOBS" -le 1 ]; then
            run_pool 1 "${huge[@]}" "${rest[@]}"
        else
            # Two pools side by side; the CPUs are shared out between their
            # processes' OpenMP threads (the CPU reference and the checks).
            local cpus huge_threads rest_threads
            cpus=$(nproc 2>/dev/null || echo 2)
            huge_threads=$((cpus / 2 > 0 ? cpus / 2 : 1))
            rest_threads=$((cpus / GPU_JOBS / 2 > 0 ? cpus / GPU_JOBS / 2 : 1))
            OMP_NUM_THREADS=$huge_threads run_pool 2 "${huge[@]}" &
            OMP_NUM_THREADS=$rest_threads run_pool "$GPU_JOBS" "${rest[@]}" &
            wait
        fi
        if wanted gpu; then run_pool 1 limits acceptance; fi   # alone: they need the memory
    fi

    if wanted gpu; then
        if [ "$have_gpu" -eq 1 ]; then
            section "GPU tests on $gpu_name ($GPU_JOBS at a time)"
            [ "$sanitizer" -eq 1 ] || for bin in $STEP_BINS; do
                skip "compute-sanitizer on $bin ($(first_lines "$LOG/sanitizer.err"))"
            done
            show_jobs "${gpu_order[@]}"
        else
            section "GPU tests: SKIPPED, no GPU: $(cat "$LOG/probe.err")"
            local nshapes
            nshapes=$(echo "$CHECK_SHAPES" | tr ',' '\n' | grep -c .)
            for bin in $STEP_BINS; do
                skip "$bin every kernel bit-exact at the $nshapes check shapes of tests/shapes.txt (no GPU)"
                skip "$bin every kernel bit-exact at $HUGE_SHAPES, more than 2^31 elements (no GPU)"
                skip "$bin full report at $REPORT_SHAPES (no GPU)"
                skip "compute-sanitizer memcheck, racecheck, synccheck on $bin (no GPU)"
            done
            skip "planted: every wrong kernel of tests/planted_wrong is caught (no GPU)"
            skip "$FIRST_BIN --csv over two shapes, --flush write and none (no GPU)"
            skip "a matrix larger than GPU memory is refused (no GPU)"
            skip "a matrix larger than host memory is refused (no GPU)"
            skip "make run STEP=$LAST_STEP at 10007x7919 and 32768x32768: every kernel bit-exact (no GPU)"
        fi
    fi
    if wanted exercises; then
        section "Exercises"
        if [ "$have_gpu" -eq 0 ]; then
            # The grader's tests: those that need no GPU, then one SKIP line per GPU test.
            if [ -f tests/test_grader.sh ]; then run_job grader; grade_order=(grader); fi
        elif [ -f tests/test_grader.sh ]; then
            skip "grader: a batch of ten files gives the expected CSV (make grade-selftest runs it)"
        fi
        show_jobs "${grade_order[@]}"
        if [ -x tools/check_reference_hashes.sh ]; then
            if tools/check_reference_hashes.sh >"$LOG/hashes.log" 2>&1; then
                pass "reference timings match the solutions' sources"
            else
                fail "reference timings are stale: $(first_lines "$LOG/hashes.log")"
            fi
        fi
    fi
}

# ------------------------------------------------------------------ docs
# inline_value_tests: a number in a sentence (<!-- V ... -->) is filled from the
# committed results, a typed-over one is caught by --check, and a marker that
# names no measured row is refused with exit 2.
inline_value_tests() {
    local doc=docs/.inline-test.md want got rc
    want=$(python3 -c '
import csv
for r in csv.DictReader(open("docs/results/h200.csv")):
    if r["step"] == "01" and r["rows"] == "8192" and r["cols"] == "8192" and r["role"] == "kernel" and r["offset"] == "0":
        print("%.1f %%" % float(r["pct_of_copy"])); break' 2>/dev/null)
    printf 'x <!-- V step=01 shape=8192x8192 col=pct_of_copy -->99.9 %%<!-- /V --> y\n' >"$doc"
    python3 tools/render_tables.py --check "$doc" >/dev/null 2>&1; rc=$?
    python3 tools/render_tables.py "$doc" >/dev/null 2>&1
    got=$(sed -n 's/.*-->\(.*\)<!-- \/V.*/\1/p' "$doc")
    if [ -n "$want" ] && [ "$rc" -eq 1 ] && [ "$got" = "$want" ]; then
        pass "an inline value typed over is caught (--check exit 1) and refilled from the results ($want)"
    else
        fail "inline value: --check exit $rc, filled '$got', expected '$want' from docs/results/h200.csv"
    fi
    printf 'x <!-- V step=01 kernel=no_such_kernel shape=8192x8192 col=pct_of_copy -->1<!-- /V -->\n' >"$doc"
    python3 tools/render_tables.py "$doc" >/dev/null 2>&1; rc=$?
    if [ "$rc" -eq 2 ]; then pass "an inline value that names no measured kernel is refused (exit 2)"
    else fail "an inline value naming no measured kernel: exit $rc, expected 2"; fi
    rm -f "$doc"
}

# lower_pct SRC DST POINTS STEP KERNEL SHAPE...: a copy of the results file SRC
# in which step STEP's kernel KERNEL is POINTS points of % of copy slower at each
# SHAPE (ROWSxCOLS, offset 0): a planted measurement for a checker to catch.
lower_pct() {
    python3 - "$@" <<'PY'
import csv, sys
src, dst, points, step, kernel, shapes = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4], sys.argv[5], set(sys.argv[6:])
rows = list(csv.DictReader(open(src)))
for r in rows:
    if (r["step"], r["kernel"], r["offset"]) == (step, kernel, "0") and "%sx%s" % (r["rows"], r["cols"]) in shapes:
        r["pct_of_copy"] = "%.2f" % (float(r["pct_of_copy"]) - points)
with open(dst, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)
PY
}

# answer_tuning_tests: steps/12_tma/answer_tuning.h (step 12's measured limits) matches
# the committed sweeps; a limit typed over is caught; and a sweep in which step
# 09's kernel no longer leads at 64 MiB moves that GPU's limit down.
answer_tuning_tests() {
    local dir=$LOG/answer-tuning rc
    if python3 tools/answer_tuning.py --check >"$LOG/answer-tuning.log" 2>&1; then
        pass "steps/12_tma/answer_tuning.h matches the committed sweeps"
    else
        fail "steps/12_tma/answer_tuning.h is out of date: run make tables ($(first_lines "$LOG/answer-tuning.log"))"
    fi
    rm -rf "$dir"; mkdir -p "$dir"
    sed 's/[0-9]*ull}/1ull}/' steps/12_tma/answer_tuning.h >"$dir/typed.h"
    python3 tools/answer_tuning.py --check --header "$dir/typed.h" >/dev/null 2>&1; rc=$?
    if [ "$rc" -eq 1 ]; then pass "a limit typed into steps/12_tma/answer_tuning.h is caught (--check exit 1)"
    else fail "a limit typed into steps/12_tma/answer_tuning.h: --check exit $rc, expected 1"; fi
    cp docs/results/h200-env.txt "$dir/"
    # Step 09's kernel 10 points slower at the three 64 MiB shapes: the H200's limit must fall below 64 MiB.
    lower_pct docs/results/h200.csv "$dir/h200.csv" 10 09 vec4 2048x8192 4096x4096 8192x2048
    python3 tools/answer_tuning.py --results "$dir" --header "$dir/moved.h" >/dev/null 2>&1
    if grep -q '"NVIDIA H200", 65536000ull' "$dir/moved.h" 2>/dev/null; then
        pass "a sweep where step 09's kernel trails at 64 MiB moves the H200's limit to 62 MiB"
    else
        fail "answer_tuning.py on a sweep with step 09 trailing at 64 MiB: $(grep H200 "$dir/moved.h" 2>/dev/null || echo 'no header')"
    fi
}

# narrow_study_tests: appendix 12 says step 12's answer is level (within a point)
# with the faster of step 09's launch and step 11's chunk kernel at every width
# of docs/results/<gpu>-narrow.csv; the claim is checked on each committed file,
# and a file where the answer falls behind must be caught.
narrow_level() {
    python3 - "$1" <<'PY'
import csv, sys
best, ours = {}, {}
for r in csv.DictReader(open(sys.argv[1])):
    if r["role"] != "kernel" or not r["pct_of_copy"]:
        continue
    shape, value = (r["rows"], r["cols"], r["offset"]), float(r["pct_of_copy"])
    if r["step"] == "12":
        ours[shape] = value
    else:
        best[shape] = max(best.get(shape, 0.0), value)
behind = ["%sx%s" % s[:2] for s in best if s not in ours or ours[s] < best[s] - 1.0]
print(" ".join(behind))
sys.exit(1 if behind or not best else 0)
PY
}
narrow_study_tests() {
    local file behind planted=$LOG/narrow-planted.csv
    for file in docs/results/*-narrow.csv; do
        [ -f "$file" ] || continue
        if behind=$(narrow_level "$file"); then
            pass "$file: step 12's answer is level with step 09 or step 11 at every width"
        else
            fail "$file: step 12's answer trails by more than a point at: $behind (appendix 12 says it does not)"
        fi
    done
    lower_pct docs/results/h200-narrow.csv "$planted" 5 12 answer 1000003x33
    if behind=$(narrow_level "$planted"); then
        fail "a narrow study where the answer trails by 5 points at 33 columns was not caught"
    else
        pass "a narrow study where the answer trails at 33 columns is caught ($behind)"
    fi
}

# peer_profile_plan_tests: every peer a PROFILE table names (peers=...) has a
# kernel-name pattern that make peers-profile can filter on; a planted table
# naming one without (JAX allocates and names its own kernels) is refused
# with one line and exit 2, and so is tools/peers.py --once asked for the
# copy bound, which is a memcpy and has no kernel.
peer_profile_plan_tests() {
    local planted=$LOG/planted-peers.md
    if python3 tools/ncu_profile.py peers-plan >"$LOG/peers-plan.log" 2>&1; then
        pass "every peer the PROFILE tables name can be profiled ($(paste -sd ' ' "$LOG/peers-plan.log" | head -c 200))"
    else
        fail "tools/ncu_profile.py peers-plan: $(first_lines "$LOG/peers-plan.log")"
    fi
    printf '%s\n' '<!-- BEGIN PROFILE peers=tutorial,jax shape=64x64 metrics=gpu__time_duration.sum -->' \
        '<!-- END PROFILE -->' >"$planted"
    expect_exit 2 "a planted PROFILE table naming a peer with no kernel pattern is refused" -- \
        python3 tools/ncu_profile.py peers-plan "$planted"
    python3 tools/peers.py --once --peers copy >"$LOG/peers-once.out" 2>&1
    if [ $? -eq 2 ] && grep -q "unknown peer 'copy'" "$LOG/peers-once.out"; then
        pass "tools/peers.py --once refuses the copy bound (a memcpy: no kernel to profile), exit 2"
    else
        fail "tools/peers.py --once --peers copy: expected exit 2 and 'unknown peer', got: $(first_lines "$LOG/peers-once.out")"
    fi
}

# profile_rows_kept: tools/results.py drop-steps (gpu_session.sh's RERUN_STEPS)
# removes the named steps' rows of a profile and keeps every other row as it was.
profile_rows_kept() {
    local copy=$LOG/profile-drop.csv
    cp docs/results/h200-profile.csv "$copy"
    if ! python3 tools/results.py drop-steps "$copy" 11 12 2>"$LOG/profile-drop.err"; then
        fail "results.py drop-steps: $(head -n 1 "$LOG/profile-drop.err")"
    elif grep -q '^[^,]*,1[12],' "$copy"; then
        fail "results.py drop-steps 11 12 left rows of step 11 or 12"
    elif ! diff -q <(grep -v '^[^,]*,1[12],' docs/results/h200-profile.csv) "$copy" >/dev/null; then
        fail "results.py drop-steps 11 12 changed the rows of other steps"
    else
        pass "results.py drop-steps: the named steps' profile rows go, the others stay as they were"
    fi
}

# sweep_split_merges_back: the per-step runs that results.py split-steps writes
# (gpu_session.sh's RERUN_STEPS) merge back into the committed sweep, byte for byte.
sweep_split_merges_back() {
    local dir=$LOG/split-steps
    rm -rf "$dir"
    if python3 tools/results.py split-steps docs/results/h200.csv "$dir" 2>"$LOG/split.err" &&
        python3 tools/results.py merge "$LOG/split-merged.csv" "$dir"/step*.csv 2>>"$LOG/split.err" &&
        cmp -s "$LOG/split-merged.csv" docs/results/h200.csv; then
        pass "results.py split-steps: the per-step runs merge back into docs/results/h200.csv"
    else
        fail "results.py split-steps then merge does not give docs/results/h200.csv back: $(head -n 1 "$LOG/split.err")"
    fi
}

# copy_bound_respected: no kernel of a committed sweep beats the copy of its own
# bytes by more than timing noise (101 %) at shapes whose two sides are both at
# least 2048; smaller ones take microseconds and are left to docs/timing.md.
copy_bound_respected() {
    local csv over
    for csv in docs/results/*.csv; do
        case $csv in   # the sweeps only, <gpu>.csv (a slug may hold dashes: h100-80gb-hbm3)
        *-profile.csv | *-peers.csv | *-timing.csv | *-reference-timings.csv | */sass-*.csv) continue ;;
        esac
        over=$(python3 - "$csv" <<'PYTHON'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["role"] in ("kernel", "bound") and r["pct_of_copy"] and \
            int(r["rows"]) >= 2048 and int(r["cols"]) >= 2048 and float(r["pct_of_copy"]) > 101:
        print("step %s %s at %sx%s+%s: %s %%" % (r["step"], r["kernel"], r["rows"],
                                                r["cols"], r["offset"], r["pct_of_copy"]))
PYTHON
)
        if [ -z "$over" ]; then
            pass "$csv: no kernel above 101 % of the copy bound at 2048 x 2048 and larger"
        else
            fail "$csv: above 101 % of the copy bound (a timing error?): $(echo "$over" | head -n 3 | tr '\n' ';')"
        fi
    done
}

# writeup_limits_respected: every write-up keeps the template's limits (prose
# words, table rows, an SVG figure), and a planted write-up that breaks them
# is caught, so the check can fail.
writeup_limits_respected() {
    local planted=$LOG/planted-writeup.md i
    if python3 tools/writeup_limits.py >"$LOG/writeup-limits.log" 2>&1; then
        pass "every write-up: at most 1,200 words of prose, 40 table rows, an SVG figure; every step header at most 210 words"
    else
        fail "a write-up breaks the template's limits: $(grep writeup_limits: "$LOG/writeup-limits.log" | head -n 2 | tr '\n' ' ')"
    fi
    { echo "# Planted"; echo; printf 'word %.0s' $(seq 1201); echo; echo; echo "| a | b |"; echo "| --- | --- |"
      for i in $(seq 41); do echo "| $i | x |"; done; } >"$planted"
    python3 tools/writeup_limits.py "$planted" >"$LOG/planted-writeup.log" 2>&1
    if grep -q "1201 words of prose, more than 1200" "$LOG/planted-writeup.log" &&
        grep -q "41 table rows, more than 40" "$LOG/planted-writeup.log" &&
        grep -q "no SVG figure" "$LOG/planted-writeup.log"; then
        pass "a planted write-up with 1,201 words, 41 table rows and no figure is caught on all three"
    else
        fail "tools/writeup_limits.py missed a limit of a planted write-up (1,201 words, 41 table rows, no figure)"
    fi
    { echo "/**"; printf ' * word %.0s\n' $(seq 211); echo " */"; } >"$LOG/planted_header.cu"
    if python3 tools/writeup_limits.py "$LOG/planted_header.cu" 2>&1 | grep -q "header of 211 words"; then
        pass "a planted step header of 211 words is caught"
    else
        fail "tools/writeup_limits.py let a planted step header of 211 words pass"
    fi
}

# Doxygen markup that shows as literal text where Doxygen does not read it: @ref, {#id}, \ref.
DOXYGEN_MARKUP_RE='@ref|\{#[A-Za-z_]|\\ref '

# markup_leaks FILE: lines of FILE's text that show Doxygen or marker syntax a
# reader should never see: that markup, or an inline value marker.
markup_leaks() {
    grep -nE "$DOXYGEN_MARKUP_RE|<!-- /?V " "$1" | head -n 3
}

# The Markdown GitHub shows: no Doxygen markup outside code (the site gets its
# links from docs/Doxyfile's filter, so the files need none).
markdown_has_no_doxygen_markup() {
    local f leaks=""
    for f in README.md docs/*.md docs/steps/*.md docs/appendix/*.md exercises/*/README.md; do
        [ -f "$f" ] || continue
        leaks+=$(awk '/^```|^~~~/{fence=!fence; next} !fence' "$f" | grep -nE "$DOXYGEN_MARKUP_RE" | sed "s|^|$f:|" | head -n 2)
    done
    if [ -z "$leaks" ]; then pass "the Markdown GitHub shows has no Doxygen markup (@ref, {#id})"
    else fail "Doxygen markup in Markdown GitHub shows as text: $(echo "$leaks" | head -n 3 | tr '\n' ' ')"; fi
}

# rendered_pages_clean: the site's index and two step pages, as headless
# Chromium renders them (scripts run), show neither Doxygen nor marker syntax,
# and their numbers keep their units ("93.3 % of", not "93.3 of").
rendered_pages_clean() {
    local browser page text leaks
    browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
    if [ -z "$browser" ]; then skip "rendered pages in headless Chromium (chromium not installed)"; return; fi
    for page in index md_docs_steps_06_shared md_docs_steps_10_shared64_async; do
        text=$LOG/$page.txt
        if ! timeout 60 "$browser" --headless --no-sandbox --disable-gpu --dump-dom \
                "file://$PWD/$BUILD/docs/html/$page.html" 2>/dev/null |
                sed -e 's/<[^>]*>//g' >"$text" || [ ! -s "$text" ]; then
            fail "headless Chromium could not render $BUILD/docs/html/$page.html"
            continue
        fi
        leaks=$(markup_leaks "$text"; grep -nE '[0-9] of copy|[0-9]x[a-z]' "$text" | head -n 2)
        if [ -z "$leaks" ]; then pass "headless Chromium: $page.html shows no markup and no lost unit"
        else fail "headless Chromium: $page.html shows $(echo "$leaks" | tr '\n' ' ' | head -c 300)"; fi
    done
}

docs_section() {
    section "Docs"
    if [ -f tools/render_tables.py ] && command -v python3 >/dev/null; then
        if python3 tools/render_tables.py --check >"$LOG/tables.log" 2>&1; then
            pass "generated tables match the committed results"
        else
            fail "generated tables are out of date: run make tables ($(first_lines "$LOG/tables.log"))"
        fi
    fi
    if [ -f tools/render_tables.py ] && command -v python3 >/dev/null; then inline_value_tests; fi
    if [ -f tools/answer_tuning.py ] && command -v python3 >/dev/null; then answer_tuning_tests; fi
    if command -v python3 >/dev/null; then narrow_study_tests; fi
    copy_bound_respected
    if command -v python3 >/dev/null; then peer_profile_plan_tests; fi
    profile_rows_kept
    sweep_split_merges_back
    if [ -f tools/figures.py ] && command -v python3 >/dev/null; then
        if python3 tools/figures.py --check >"$LOG/figures.log" 2>&1; then
            pass "the write-ups' figures match tools/figures.py"
        else
            fail "figures are out of date: run python3 tools/figures.py ($(first_lines "$LOG/figures.log"))"
        fi
    fi
    if command -v cuobjdump >/dev/null && command -v c++filt >/dev/null; then
        if BUILD=$BUILD python3 tools/sass_summary.py --check >"$LOG/sass.log" 2>&1; then
            pass "docs/results/sass-sm_90.csv matches the steps' compiled code"
        else
            fail "the SASS summary is out of date: run python3 tools/sass_summary.py ($(first_lines "$LOG/sass.log"))"
        fi
    else
        skip "SASS summary check (cuobjdump or c++filt not found)"
    fi
    diagrams_up_to_date
    writeup_limits_respected
    markdown_has_no_doxygen_markup
    if command -v doxygen >/dev/null; then
        if make -s docs BUILD="$BUILD" >"$LOG/docs.log" 2>&1; then
            pass "make docs (Doxygen, warnings are errors)"
            rendered_pages_clean
        else
            fail "make docs: $(head -c 600 "$LOG/docs.log") $(head -c 600 "$BUILD/docs/doxygen.log" 2>/dev/null)"
        fi
    else
        skip "make docs (doxygen not installed)"
    fi
}

# diagrams_up_to_date: each committed docs/img/NAME.svg is what its NAME.dot
# renders to. Layout differs between Graphviz versions, so the comparison is
# made only with the version that wrote the SVG (its "Generated by" line).
diagrams_up_to_date() {
    local dot_file svg fresh=$LOG/diagram.svg made_by here
    for dot_file in docs/img/*.dot; do
        [ -f "$dot_file" ] || continue
        svg=${dot_file%.dot}.svg
        if [ ! -f "$svg" ]; then fail "$svg is missing: run make diagrams"; continue; fi
        if ! command -v dot >/dev/null; then skip "$svg matches $dot_file (Graphviz not installed)"; continue; fi
        made_by=$(grep -m1 -o 'Generated by graphviz version [0-9.]*' "$svg")
        here="Generated by graphviz version $(dot -V 2>&1 | grep -o '[0-9][0-9.]*' | head -n 1)"
        if [ "$made_by" != "$here" ]; then
            skip "$svg matches $dot_file (written by ${made_by#Generated by }, this is ${here#Generated by })"
        elif dot -Tsvg "$dot_file" -o "$fresh" 2>"$LOG/dot.err" && cmp -s "$fresh" "$svg"; then
            pass "$svg matches $dot_file"
        else
            fail "$svg is out of date: run make diagrams ($(first_lines "$LOG/dot.err"))"
        fi
    done
}

run_tests() {
    if wanted build; then build_section; fi
    if wanted unit; then unit_section; fi
    if wanted lint; then lint_section; fi
    if wanted badinput; then badinput_section; fi
    if wanted nogpu; then nogpu_section; fi
    if wanted addstep; then addstep_section; fi
    if wanted gpu || wanted exercises; then gpu_work; fi
    if wanted docs; then docs_section; fi
}

run_tests 2>&1 | tee "$LOG/all.log"
passed=$(grep -c '^PASS ' "$LOG/all.log")
failed=$(grep -c '^FAIL ' "$LOG/all.log")
skipped=$(grep -c '^SKIP ' "$LOG/all.log")
echo
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
