#!/usr/bin/env bash
# The quick grader behind make test's exercise checks and `make grade-selftest`:
# correctness on the graded shapes, then speed against the reference solution
# and the step, all timed in one run on the same buffers. `make grade` runs
# tools/grade.py instead, which adds the sanitizers and the technique checks
# (docs/grading.md).
#
#   tools/grade.sh NN               grade exercises/NN_*/exercise.cu
#   tools/grade.sh --all            grade every exercise, then a summary
#   tools/grade.sh --solution NN    grade solutions/NN_*/solution.cu as if it were yours
#   tools/grade.sh --all-solutions  every solution must pass:        one line PASS/FAIL each
#   tools/grade.sh --all-skeletons  every untouched skeleton must FAIL with exit code 1:
#                                   one line PASS/FAIL each (PASS = the grader rejected it)
#
# Exit codes: 0 pass, 1 a wrong result (or a kernel that crashes, hangs or
# does not compile), 2 bad command line, 3 environment (no GPU).
#
# Environment: BUILD (build directory, default build), ARCH (passed to make),
# GRADE_SHAPE (timed shape, default 8192x8192), GRADE_TIMEOUT (seconds per
# program run, default 300), GRADE_BLOCK (exercise 02 only: the block shape).
#
# The grader programs build/grade_NN (yours) and build/grade_NN_solution are
# built here through make (mk/exercises.mk) if they are missing or stale.
set -u
cd "$(dirname "$0")/.." || exit 3

BUILD=${BUILD:-build}
MAKE_CMD=${MAKE:-make}
TIMED_SHAPE=${GRADE_SHAPE:-8192x8192}
TIMEOUT=${GRADE_TIMEOUT:-300}
LOG=$(mktemp -d "${TMPDIR:-/tmp}/grade.XXXXXX") || exit 3
trap 'rm -rf "$LOG"' EXIT
# shellcheck source=tools/grade_lib.sh
. tools/grade_lib.sh
# The shapes tagged `grade` in tests/shapes.txt, ROWSxCOLS[+OFFSET]: odd
# sizes, 1-wide matrices, shapes past the grid's y limit (5,000,000 rows of
# 3), and pointers 4 but not 16 bytes aligned.
SHAPES=()

usage() {
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
}

# die_usage MESSAGE: one line on stderr, exit 2.
die_usage() {
    echo "error: $1 (see tools/grade.sh --help)" >&2
    exit 2
}

# Results of the last grade_one call, for the summary.
R_STATUS="" R_REASON="" R_GBPS="-" R_PCT="-" R_VSREF="-" R_VSSTEP="-"

# run_bin LOG BIN ARGS...: run a grader program with the time limit;
# stdout to LOG.out, stderr to LOG.err; returns its exit code.
run_bin() {
    local log=$1; shift
    timeout "$TIMEOUT" "$@" >"$log.out" 2>"$log.err"
}

# out_of_memory FILE: true if the harness said the GPU or host memory is too small.
out_of_memory() {
    grep -qE "memory but only|cannot allocate" "$1"
}

# grade_one NN MODE VERBOSE: grade exercise NN; MODE is `student` (the
# exercise file) or `solution`. Sets the R_ variables and returns 0, 1 or 3.
grade_one() {
    local nn=$1 mode=$2 verbose=$3
    local dir name bin what
    dir=$(exercise_dir "$nn")
    name=$(basename "$dir")
    R_STATUS=FAIL R_REASON="" R_GBPS="-" R_PCT="-" R_VSREF="-" R_VSSTEP="-"
    if [ "$mode" = solution ]; then
        bin=$BUILD/grade_${nn}_solution
        what=solutions/$name/solution.cu
    else
        bin=$BUILD/grade_$nn
        what=$dir/exercise.cu
    fi
    local log=$LOG/$nn-$mode
    mkdir -p "$log" || return 3
    [ "$verbose" = 1 ] && echo "== Exercise $nn ($name): $what"
    if [ "$verbose" = 1 ] && [ "$nn" = 02 ] && [ -n "${GRADE_BLOCK:-}" ]; then
        echo "  block shape: GRADE_BLOCK=$GRADE_BLOCK (yours and the reference's)"
    fi
    if ! build "$bin"; then
        R_REASON="does not compile (the compiler's messages are above)"
        return 1
    fi

    # 1. Is the machine usable? The reference on a 1x1 matrix must pass.
    run_bin "$log/env" "$bin" --rows 1 --cols 1 --check-only --variant reference
    local rc=$?
    if [ "$rc" -eq 3 ]; then
        R_STATUS=ENV R_REASON=$(first_error "$log/env.err")
        return 3
    elif [ "$rc" -ne 0 ]; then
        R_STATUS=ERROR R_REASON="the reference solution failed on 1x1 (exit $rc): the repository is broken"
        return 1
    fi

    # 2. Correctness of the student's kernel on every shape.
    local shape dims offset rows cols count=0
    for shape in "${SHAPES[@]}"; do
        dims=${shape%+*}
        offset=0
        [ "$dims" != "$shape" ] && offset=${shape#*+}
        rows=${dims%x*}
        cols=${dims#*x}
        run_bin "$log/check" "$bin" --rows "$rows" --cols "$cols" --offset "$offset" \
            --check-only --variant student
        rc=$?
        case $rc in
        0) count=$((count + 1)); continue ;;
        1) R_REASON="wrong result on $dims, --offset $offset" ;;
        124 | 137) R_REASON="did not finish within ${TIMEOUT}s on $dims, --offset $offset (an endless loop?)" ;;
        3)
            if out_of_memory "$log/check.err"; then
                R_STATUS=ENV R_REASON=$(first_error "$log/check.err")
                return 3
            fi
            R_REASON="CUDA error on $dims, --offset $offset: $(first_error "$log/check.err"); an out-of-bounds or misaligned access? Try: compute-sanitizer $bin --variant student --check-only --rows $rows --cols $cols --offset $offset" ;;
        *) R_REASON="the grader crashed (exit $rc) on $dims, --offset $offset" ;;
        esac
        if [ "$verbose" = 1 ]; then
            echo "  correctness: FAIL: $R_REASON"
            sed -e 's/^/    /' "$log/check.err" | head -n 12
        fi
        return 1
    done
    [ "$verbose" = 1 ] && echo "  correctness: PASS on all $count shapes (ROWSxCOLS+OFFSET): ${SHAPES[*]}"

    # 3. One timed run: student, reference and step on the same buffers.
    dims=$TIMED_SHAPE
    run_bin "$log/time" "$bin" --rows "${dims%x*}" --cols "${dims#*x}" --csv
    rc=$?
    if [ "$rc" -eq 3 ] && out_of_memory "$log/time.err"; then
        R_STATUS=ENV R_REASON=$(first_error "$log/time.err")
        return 3
    elif [ "$rc" -eq 3 ] || [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        R_REASON="the timed run on $dims failed (exit $rc): $(first_error "$log/time.err")"
        return 1
    fi
    # Each graded kernel's row, read by column name (tools/results.py):
    # check, median_ms, gbps, pct_of_copy, one per array entry.
    local -a student reference step
    local gpu
    mapfile -t student < <(timed_cells "$log/time.out" student)
    mapfile -t reference < <(timed_cells "$log/time.out" reference)
    mapfile -t step < <(timed_cells "$log/time.out" step)
    gpu=$(python3 tools/results.py value "$log/time.out" --column gpu --first 2>/dev/null)
    if [ ${#student[@]} -eq 0 ] || [ ${#reference[@]} -eq 0 ] || [ ${#step[@]} -eq 0 ]; then
        R_STATUS=ERROR R_REASON="the timed run on $dims printed no results (exit $rc): $(head -n 1 "$log/time.err")"
        return 1
    fi
    if [ "${student[0]}" != PASS ]; then
        R_REASON="wrong result in the timed run on $dims"
        [ "$verbose" = 1 ] && sed -e 's/^/    /' "$log/time.err" | head -n 12
        return 1
    fi
    if [ "${reference[0]}" != PASS ] || [ "${step[0]}" != PASS ]; then
        R_STATUS=ERROR R_REASON="the reference or the step gave a wrong result on $dims: the repository is broken"
        return 1
    fi
    R_GBPS=${student[2]}
    R_PCT=${student[3]}
    R_VSREF=$(time_ratio "${reference[1]}" "${student[1]}")
    R_VSSTEP=$(time_ratio "${step[1]}" "${student[1]}")
    R_STATUS=PASS
    if [ "$verbose" = 1 ]; then
        echo "  speed on $dims, $gpu (median of the harness's timed runs; GB/s counts read + write):"
        printf '    %-10s %10s %9s %10s\n' kernel "median ms" "GB/s" "% of copy"
        timed_line student "${student[@]}"
        timed_line reference "${reference[@]}"
        timed_line step "${step[@]}"
        echo "  vs reference: $R_VSREF (reference time / your time: above 1.00x you are faster)"
        echo "  vs step $nn:   $R_VSSTEP; what to expect: $dir/README.md"
    fi
    return 0
}

# timed_cells CSV KERNEL: check, median_ms, gbps and pct_of_copy of KERNEL's
# row, one per line; nothing if the run printed no such row.
timed_cells() {
    python3 tools/results.py value "$1" --where kernel="$2" \
        --column check,median_ms,gbps,pct_of_copy 2>/dev/null
}

# timed_line NAME CHECK MEDIAN_MS GBPS PCT: one line of the speed table
# (awk formats the numbers: the shell's printf would follow the locale).
timed_line() {
    awk -v name="$1" -v ms="$3" -v gbps="$4" -v pct="$5" \
        'BEGIN { printf "    %-10s %10.4f %9.1f %9.1f%%\n", name, ms, gbps, pct }'
}

# time_ratio A_MS B_MS: A / B as the summary shows it, e.g. 1.03x.
time_ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / b }'
}

# result_line NN: the one-line verdict of the last grade_one.
result_line() {
    local name
    name=$(basename "$(exercise_dir "$1")")
    case $R_STATUS in
    PASS) echo "PASS $name: $R_GBPS GB/s, $R_PCT% of copy, $R_VSREF the reference's speed" ;;
    *) echo "FAIL $name: $R_REASON" ;;
    esac
}

# ------------------------------------------------------------------ modes
grade_single() {  # NN MODE
    local nn
    [[ $1 =~ ^[0-9]{1,2}$ ]] || die_usage "not an exercise number: $1"
    nn=$(printf '%02d' "$((10#$1))")
    [ -n "$(exercise_dir "$nn")" ] || die_usage "no exercise $1: the exercises are $(all_numbers | paste -sd ' ')"
    require_gpu
    grade_one "$nn" "$2" 1
    local rc=$?
    if [ "$rc" -eq 3 ]; then
        echo "error: $R_REASON" >&2
        exit 3
    fi
    result_line "$nn"
    exit "$rc"
}

grade_all() {
    require_gpu
    local nn rc worst=0 rows=""
    for nn in $(all_numbers); do
        grade_one "$nn" student 1
        rc=$?
        if [ "$rc" -eq 3 ]; then
            echo "error: $R_REASON" >&2
            exit 3
        fi
        result_line "$nn"
        echo
        [ "$rc" -ne 0 ] && worst=1
        local pct=-
        [ "$R_STATUS" = PASS ] && pct="$R_PCT%"
        rows+=$(printf '%-22s %-6s %9s %8s %13s %9s' "$(basename "$(exercise_dir "$nn")")" \
            "$R_STATUS" "$R_GBPS" "$pct" "$R_VSREF" "$R_VSSTEP")$'\n'
    done
    echo "== Summary: each exercise timed on $TIMED_SHAPE; vs = reference or step time / your time"
    printf '%-22s %-6s %9s %8s %13s %9s\n' exercise result "GB/s" "% copy" "vs reference" "vs step"
    printf '%s' "$rows"
    exit "$worst"
}

# grade_every MODE: one PASS/FAIL line per exercise (for the test suite).
grade_every() {
    require_gpu
    local nn rc name file failed=0
    for nn in $(all_numbers); do
        name=$(basename "$(exercise_dir "$nn")")
        if [ "$1" = solution ]; then
            grade_one "$nn" solution 0 >/dev/null
            rc=$?
            [ "$rc" -eq 3 ] && { echo "error: $R_REASON" >&2; exit 3; }
            if [ "$rc" -eq 0 ]; then
                echo "PASS $name solution: $R_GBPS GB/s, $R_PCT% of copy"
            else
                echo "FAIL $name solution: $R_REASON"
                failed=1
            fi
        else
            file=exercises/$name/exercise.cu
            if git rev-parse -q --verify HEAD >/dev/null 2>&1 &&
                git ls-files --error-unmatch "$file" >/dev/null 2>&1 &&
                ! git diff --quiet HEAD -- "$file" 2>/dev/null; then
                echo "SKIP $name skeleton (edited since the last commit)"
                continue
            fi
            grade_one "$nn" student 0 >/dev/null
            rc=$?
            [ "$rc" -eq 3 ] && { echo "error: $R_REASON" >&2; exit 3; }
            if [ "$rc" -eq 1 ] && [ "$R_STATUS" = FAIL ] && [ "${R_REASON#wrong result}" != "$R_REASON" ]; then
                echo "PASS $name skeleton rejected: $R_REASON"
            else
                echo "FAIL $name skeleton: expected a wrong result and exit 1, got exit $rc ($R_STATUS${R_REASON:+: $R_REASON})"
                failed=1
            fi
        fi
    done
    exit "$failed"
}

[[ $TIMED_SHAPE =~ ^[1-9][0-9]*x[1-9][0-9]*$ ]] || die_usage "GRADE_SHAPE must be ROWSxCOLS, not '$TIMED_SHAPE'"
[[ $TIMEOUT =~ ^[1-9][0-9]*$ ]] || die_usage "GRADE_TIMEOUT must be a number of seconds, not '$TIMEOUT'"
if [ "${1:-}" != -h ] && [ "${1:-}" != --help ]; then
    require_python
    shape_list=$(bash tools/shapes.sh grade) || { echo "error: cannot read the grade shapes of tests/shapes.txt" >&2; exit 3; }
    IFS=, read -r -a SHAPES <<< "$shape_list"
fi

case ${1:-} in
-h | --help) usage; exit 0 ;;
"") die_usage "say which exercise, e.g. tools/grade.sh 05, or --all" ;;
--all) [ $# -eq 1 ] || die_usage "--all takes no argument"; grade_all ;;
--all-solutions) [ $# -eq 1 ] || die_usage "--all-solutions takes no argument"; grade_every solution ;;
--all-skeletons) [ $# -eq 1 ] || die_usage "--all-skeletons takes no argument"; grade_every student ;;
--solution) [ $# -eq 2 ] || die_usage "--solution takes one exercise number"; grade_single "$2" solution ;;
-*) die_usage "unknown option $1" ;;
*) [ $# -eq 1 ] || die_usage "one exercise number at a time (or --all)"; grade_single "$1" student ;;
esac
