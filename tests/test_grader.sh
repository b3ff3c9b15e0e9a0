#!/usr/bin/env bash
# Tests of the exercise grader, tools/grade.py. Every test prints one line:
#   PASS <name> | FAIL <name> | SKIP <name> (<why>)
# and the exit code is 0 only if nothing failed.
#
#   bash tests/test_grader.sh [--quick] [PART...]      (BUILD=dir to build elsewhere)
#
# The parts:
#   cpu           what needs no GPU: bad command lines and missing files, through
#                 tools/grade.py and through `make grade` (one line, exit 2), no GPU
#                 (exit 3, one line), one line per sanitizer report, the timed run's CSV
#                 read by column name, the exercises found from their folders, every
#                 solution and every skeleton built through the grader (--build-only),
#                 --file and --batch on files that do not compile; and, where cuobjdump
#                 is found, the checks of the compiled code: every solution meets its
#                 technique requirements, every untouched skeleton and every planted
#                 file that says "Caught by: Technique" does not
#   solutions     every reference solution passes all four checks (GPU)
#   solution:NN   the same for exercise NN
#   skeletons     every untouched skeleton FAILs its Correctness (GPU)
#   skeleton:NN   the same for exercise NN
#   planted       every file of tests/graded_wrong/ FAILs the check its first line
#                 names (GPU)
#   planted:NAME  the same for tests/graded_wrong/NAME.cu
#   batch         a class of ten files, right and wrong answers mixed, gives the
#                 expected CSV (GPU)
#
# Without a PART: cpu, then the GPU parts when GRADER_GPU_TESTS=1 (make grade-selftest;
# ten minutes or more on an H200); otherwise each GPU test is one SKIP line that says so.
# Without a GPU, every GPU test is one SKIP line. --quick grades with tools/grade.py
# --quick (no shape of more than 2^31 elements, no sanitizers after a Correctness
# FAIL): make test runs the parts that way, side by side (tests/run_all.sh).
#
# The planted files are tests/graded_wrong/NN_what.cu: NN is the exercise, and the
# first line is `// Caught by: CHECK (why)`.
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
export BUILD
GRADE=(python3 tools/grade.py)
QUICK=()
if [ "${1:-}" = --quick ]; then
    QUICK=(--quick)
    shift
fi
PARTS=("$@")
# One log folder per run, so that runs side by side (make test) keep apart; the
# grader's private copies go there too (GRADE_WORK), for the same reason.
LOG=$BUILD/test-logs/grader/$(echo "${PARTS[*]:-all}" | tr -c 'A-Za-z0-9_\n' '-')
rm -rf "$LOG"
mkdir -p "$LOG"
export GRADE_WORK=$LOG/work
TIMEOUT=${GRADER_TEST_TIMEOUT:-120}
failures=0

pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
skip() { echo "SKIP $*"; }

# expect_exit CODE NAME -- COMMAND...: COMMAND must exit with CODE; for codes 2
# and 3 it must print exactly one line on stderr and nothing on stdout.
expect_exit() {
    local want=$1 name=$2
    shift 3
    local out=$LOG/last.out err=$LOG/last.err got
    "$@" >"$out" 2>"$err"
    got=$?
    if [ "$got" -ne "$want" ]; then
        fail "$name (exit $got, expected $want: $(head -c 300 "$err" | tr '\n' ' '))"
    elif [ "$want" -ge 2 ] && { [ "$(wc -l <"$err")" -ne 1 ] || [ -s "$out" ]; }; then
        fail "$name (exit $want, but not one line on stderr and nothing on stdout: $(head -c 300 "$err" | tr '\n' ' '))"
    else
        pass "$name"
    fi
}

# expect_make_error NAME MESSAGE VARIABLE=VALUE...: `make grade` with the variables
# must fail, its one `error:` line (the grader's) starting with MESSAGE.
expect_make_error() {
    local name=$1 message=$2 got status line
    shift 2
    got=$(env CUDA_VISIBLE_DEVICES= make -s --no-print-directory grade "BUILD=$BUILD" "$@" 2>&1 >/dev/null)
    status=$?
    line=$(echo "$got" | grep '^error:')
    if [ "$status" -eq 0 ]; then
        fail "$name (make grade exits 0)"
    elif [ "$(echo "$got" | grep -c '^error:')" -ne 1 ] || [[ $line != "$message"* ]]; then
        fail "$name (expected '$message...', got: $(echo "$got" | tr '\n' ' ' | head -c 300))"
    else
        pass "$name"
    fi
}

# verdict REPORT CHECK: the status (PASS/FAIL/SKIP) of CHECK in a saved report.
verdict() {
    awk -v check="$2" '$1 == check { print $2; exit }' "$1"
}

# why_of REPORT CHECK: the first 160 characters of CHECK's one line of why.
why_of() {
    awk -v check="$2" '$1 == check { $1 = ""; $2 = ""; sub(/^ +/, ""); print substr($0, 1, 160); exit }' "$1"
}

# why_in REPORT NAME CHECK: CHECK's one line of why in NAME's part of a report of
# several exercises (each part starts with `== NAME: FILE`).
why_in() {
    awk -v name="$2" -v check="$3" '/^== / { part = $2; sub(/:$/, "", part) }
        part == name && $1 == check { $1 = ""; $2 = ""; sub(/^ +/, ""); print substr($0, 1, 160); exit }' "$1"
}

# results_of REPORT: "name status" for each RESULT line of a report.
results_of() {
    sed -n 's/^RESULT \([^:]*\): \(PASS\|FAIL\)$/\1 \2/p' "$1"
}

# grader_error REPORT: the grader's own error line, or the report's last lines.
grader_error() {
    grep -m1 '^error:' "$1" || tail -n 3 "$1" | tr '\n' ' '
}

# caught_by FILE: the check a planted file's first line names.
caught_by() {
    sed -n '1s/^\/\/ Caught by: \([A-Za-z]*\).*/\1/p' "$1"
}

# as_exercise SOLUTION NN DEST: a reference solution in the form of a student's file.
as_exercise() {
    sed -e "s/\bsolution_$2\b/exercise_$2/" "$1" >"$3"
}

# skeleton_untouched FILE: true while FILE still has its TODO (a solved exercise
# usually loses it; a skeleton edited only around the TODO is still a skeleton).
skeleton_untouched() {
    grep -q 'TODO(exercise' "$1"
}

# The exercises, as the grader finds them: NN_name, one a line.
EXERCISES=$("${GRADE[@]}" --list 2>"$LOG/list.err") || {
    fail "tools/grade.py --list: $(head -c 300 "$LOG/list.err")"
    EXERCISES=""
}

# exercise_name NN: NN_name, or nothing.
exercise_name() {
    echo "$EXERCISES" | grep -m1 "^$1_"
}

# planted_names: the stems of tests/graded_wrong/*.cu.
planted_names() {
    local file
    for file in tests/graded_wrong/*.cu; do
        [ -f "$file" ] && basename "$file" .cu
    done
}

# have_tool NAME: true if tools/grade.py finds cuobjdump or ncu (it looks beyond PATH).
have_tool() {
    python3 -c 'import sys; sys.path.insert(0, "tools"); import grade
sys.exit(0 if (grade.find_tool("cuobjdump", "CUOBJDUMP") if sys.argv[1] == "cuobjdump"
               else grade.find_tool("ncu", "NCU", grade.ncu_candidates())) else 1)' "$1"
}

# ================================================================== cpu
part_cpu() {
    command_line_tests
    make_tests
    sanitizer_report_tests
    wrong_under_tool_tests
    csv_tests
    discovery_tests
    build_tests
    technique_tests
}

command_line_tests() {
    echo "== tools/grade.py: command line and files"
    expect_exit 0 "grade.py --help" -- "${GRADE[@]}" --help
    expect_exit 2 "no exercise named" -- "${GRADE[@]}"
    expect_exit 2 "a number that is not an exercise" -- "${GRADE[@]}" 99
    expect_exit 2 "not a number" -- "${GRADE[@]}" five
    expect_exit 2 "an exercise number and --all" -- "${GRADE[@]}" 05 --all
    expect_exit 2 "--file and --solution together" -- "${GRADE[@]}" 05 --solution --file tests/graded_wrong/05_scalar_loads.cu
    expect_exit 2 "--file with --all" -- "${GRADE[@]}" --all --file tests/graded_wrong/05_scalar_loads.cu
    expect_exit 2 "--batch without --csv" -- "${GRADE[@]}" 05 --batch tests/graded_wrong
    expect_exit 2 "--technique-only with --build-only" -- "${GRADE[@]}" 05 --technique-only --build-only
    expect_exit 2 "--list with an exercise" -- "${GRADE[@]}" --list 05
    expect_exit 2 "--timeout 0" -- "${GRADE[@]}" 05 --timeout 0
    expect_exit 2 "a timed shape that is not ROWSxCOLS" -- "${GRADE[@]}" 05 --shape 8192
    expect_exit 2 "--file names a missing file" -- "${GRADE[@]}" 05 --file "$LOG/no-such-file.cu"
    expect_exit 2 "--batch names a missing folder" -- "${GRADE[@]}" 05 --batch "$LOG/no-such-folder" --csv "$LOG/x.csv"
    mkdir -p "$LOG/empty"
    expect_exit 2 "--batch on a folder without .cu files" -- "${GRADE[@]}" 05 --batch "$LOG/empty" --csv "$LOG/x.csv"
    expect_exit 2 "--csv in a missing folder" -- "${GRADE[@]}" 05 --batch tests/graded_wrong --csv "$LOG/no-such-folder/x.csv"
    if "${GRADE[@]}" 05 --file "$LOG/no-such-file.cu" 2>&1 | grep -q "no-such-file.cu"; then
        pass "the missing file is named"
    else
        fail "the missing file is not named in the error"
    fi
    expect_exit 3 "no GPU visible (CUDA_VISIBLE_DEVICES empty): one line, exit 3" -- \
        env CUDA_VISIBLE_DEVICES= "${GRADE[@]}" 05 --file tests/graded_wrong/05_scalar_loads.cu
}

# make grade passes EX, FILE, BATCH and CSV to tools/grade.py, whose one line is the error.
make_tests() {
    echo "== make grade: EX=, FILE=, BATCH= (errors before any GPU work)"
    expect_make_error "make grade EX=99: no such exercise" "error: no exercise 99" EX=99
    expect_make_error "make grade FILE= names a missing file" \
        "error: no such file: $LOG/no-such-file.cu" EX=05 FILE="$LOG/no-such-file.cu"
    expect_make_error "make grade FILE= without EX=" "error: --file and --batch grade one exercise" \
        FILE=tests/graded_wrong/05_scalar_loads.cu
    expect_make_error "make grade BATCH= names a missing folder" \
        "error: no such directory: $LOG/no-such-folder" EX=05 BATCH="$LOG/no-such-folder" CSV="$LOG/x.csv"
    expect_make_error "make grade BATCH= on a folder without .cu files" \
        "error: no .cu files in $LOG/empty" EX=05 BATCH="$LOG/empty" CSV="$LOG/x.csv"
}

# compute-sanitizer's reports, in the forms its versions print, must each become one
# line that names the problem and the source lines.
sanitizer_report_tests() {
    echo "== tools/grade.py: one line per sanitizer report"
    local name tool expected report got
    while IFS='|' read -r name tool expected report; do
        got=$(REPORT="$report" TOOL="$tool" python3 -c '
import os, sys
sys.path.insert(0, "tools")
import grade
text = os.environ["REPORT"].replace("\\n", "\n")
found = grade.pick_finding(grade.sanitizer_records(text))
print(grade.describe_finding(os.environ["TOOL"], found) if found else "nothing found")')
        if [[ $got == *"$expected"* ]]; then pass "sanitizer report: $name"
        else fail "sanitizer report: $name: got '$got', expected '$expected'"; fi
    done <<'REPORTS'
racecheck race analysis|racecheck|race between Write at ex.cu:48 and Read at ex.cu:58 (480 hazards)|========= COMPUTE-SANITIZER\n========= Error: Race reported between Write access at k(const float *, float *, unsigned long, unsigned long)+0x2c0 in ex.cu:48\n=========     and Read access at k(const float *, float *, unsigned long, unsigned long)+0x3b0 in ex.cu:58 [480 hazards]\n=========\n========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)
racecheck race analysis with full paths|racecheck|race between Read at convolution.cu:123 and Write at convolution.cu:63 (1088 hazards)|========= ERROR: Race reported between Read access at 0x6360 in /home/u/demo/convolution.cu:123:convolution(pixel const*, int)\n=========     and Write access at 0x1fe0 in /home/u/demo/convolution.cu:63:convolution(pixel const*, int) [1088 hazards]
racecheck warning only|racecheck|WAR hazard between Read at ex.cu:58 and Write at ex.cu:48|========= Warning: Potential WAR hazard detected at __shared__ 0x84 in block (0, 1, 0) :\n=========     Read Thread (3, 2, 0) at k+0x3b0 in ex.cu:58\n=========     Write Thread (3, 5, 0) at k+0x2c0 in ex.cu:48\n=========     Current Value : 0\n========= RACECHECK SUMMARY: 1 hazard displayed (0 errors, 1 warning)
memcheck out of bounds|memcheck|memcheck: Invalid __global__ read of size 4 bytes at ex.cu:35 (out of bounds)|========= Invalid __global__ read of size 4 bytes\n=========     at k(const float *, float *, unsigned long, unsigned long)+0x1b0 in /tmp/x/ex.cu:35\n=========     by thread (31,0,0) in block (0,0,0)\n=========     Address 0x7f4c4e000804 is out of bounds\n========= \n========= ERROR SUMMARY: 1 error
initcheck|initcheck|initcheck: Uninitialized __global__ memory read of size 8 bytes at ex.cu:61|========= Uninitialized __global__ memory read of size 8 bytes\n=========     at k(const float *, float *, unsigned long, unsigned long)+0x740 in ex.cu:61\n=========     by thread (0,0,0) in block (0,0,0)\n=========     Address 0x7f00000000a0\n========= ERROR SUMMARY: 1 error
synccheck|synccheck|synccheck: Barrier error detected. Divergent thread(s) in block at ex.cu:52|========= Barrier error detected. Divergent thread(s) in block\n=========     at k(const float *, float *, unsigned long, unsigned long)+0x2d0 in ex.cu:52\n=========     by thread (0,4,0) in block (1,0,0)\n========= ERROR SUMMARY: 1 error
racecheck hazard, as compute-sanitizer 2025.3 printed it on an H200|racecheck|RAW hazard between Write at 07_no_second_barrier.cu:41 and Read at 07_no_second_barrier.cu:51|========= COMPUTE-SANITIZER\n========= Error: Potential RAW hazard detected at __shared__ 0x718 in block (0,46,0) :\n=========     Write Thread (0,6,0) at transpose_padded_one_barrier(const float *, float *, unsigned long, unsigned long)+0x590 in 07_no_second_barrier.cu:41\n=========     Read Thread (6,0,0) at transpose_padded_one_barrier(const float *, float *, unsigned long, unsigned long)+0x610 in 07_no_second_barrier.cu:51\n=========     Current Value : 207\n=========     Saved host backtrace up to driver entry point at kernel launch time\n=========         Host Frame: cudaLaunchKernel [0x77387] in grade_07\n=========         Host Frame: run_step in harness.c:467 [0xba04] in grade_07\n=========
initcheck, as compute-sanitizer 2025.3 printed it on an H200|initcheck|initcheck: Uninitialized __global__ memory read of size 8 bytes at 05_reads_past_row.cu:49|========= COMPUTE-SANITIZER\n========= Uninitialized __global__ memory read of size 8 bytes\n=========     at transpose_float2_per_pair(const float *, float *, unsigned long, unsigned long)+0x570 in 05_reads_past_row.cu:49\n=========     by thread (0,2,0) in block (0,2,0)\n=========     Address 0x7f759ca00090\n=========     Saved host backtrace up to driver entry point at kernel launch time\n=========         Host Frame: launch_row in harness.c:103 [0xaf70] in grade_05\n========= \nPASS 05 student 1x37\n========= ERROR SUMMARY: 1 error
clean run|racecheck|nothing found|========= COMPUTE-SANITIZER\n========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)
REPORTS
}

# A wrong result under a tool, with no report from it: a race if the kernel was right
# without the tool, and no second FAIL if Correctness already FAILed. A stand-in for
# compute-sanitizer exits 1, as the program does when a check fails.
wrong_under_tool_tests() {
    echo "== tools/grade.py: a wrong result under a sanitizer"
    local fake=$LOG/fake-sanitizer got
    mkdir -p "$LOG"
    printf '#!/bin/sh\necho "========= ERROR SUMMARY: 0 errors"\nexit 1\n' >"$fake"
    chmod +x "$fake"
    got=$(COMPUTE_SANITIZER=$fake python3 -c '
import sys
sys.path.insert(0, "tools")
import grade
program = grade.Program(grade.Path("/bin/true"))
for correct in (True, False):
    print(grade.run_sanitizer("racecheck", program, ["1x37"], 30, correct).status)' 2>&1 | tr '\n' ' ')
    if [ "$got" = "FAIL PASS " ]; then
        pass "sanitizer: a wrong result only under the tool FAILs as a race; an already wrong kernel is not blamed twice"
    else
        fail "sanitizer: a wrong result under the tool: got '$got', expected 'FAIL PASS '"
    fi
}

# The timed run's rows are read through tools/results.py, by column name: the same
# run with its columns in another order gives the same cells, and a run that lacks a
# column gives no rows at all (the Speed check then FAILs, rather than misreading).
csv_tests() {
    echo "== tools/grade.py: the timed run's CSV, read by column name (tools/results.py)"
    local got
    got=$(python3 - <<'PYTHON' 2>&1
import sys
sys.path.insert(0, "tools")
import grade
rows = [
    "gpu,step,kernel,role,rows,cols,offset,median_ms,min_ms,gbps,pct_of_copy,vs_cublas,check",
    "NVIDIA H200,05,memcpy,copy,64,64,0,0.001000,0.001000,32.8,100.00,1.0000,-",
    "NVIDIA H200,05,cublas,library,64,64,0,0.002000,0.002000,16.4,50.00,1.0000,PASS",
    "NVIDIA H200,05,student,kernel,64,64,0,0.004000,0.003000,8.2,25.00,0.5000,PASS",
    "NVIDIA H200,05,reference,kernel,64,64,0,0.002000,0.002000,16.4,50.00,1.0000,PASS",
    "NVIDIA H200,05,step,kernel,64,64,0,0.003000,0.003000,10.9,33.33,0.6667,FAIL",
]
order = [12, 7, 2, 0, 3, 1, 4, 5, 6, 8, 9, 10, 11]  # the same columns, shuffled
shuffled = [",".join(line.split(",")[i] for i in order) for line in rows]
for name, text in (("as printed", rows), ("shuffled", shuffled)):
    got = grade.graded_rows("\n".join(text) + "\n")
    cells = {k: (got[k]["median_ms"], got[k]["check"]) for k in got}
    want = {"student": ("0.004000", "PASS"), "reference": ("0.002000", "PASS"),
            "step": ("0.003000", "FAIL")}
    if cells != want:
        print("%s: got %s" % (name, cells))
missing = [",".join(c for c in line.split(",")[:12]) for line in rows]  # no `check`
if grade.graded_rows("\n".join(missing) + "\n"):
    print("a run without the check column gave rows")
if grade.graded_rows("") or grade.graded_rows("error: no GPU\n"):
    print("a run that printed no CSV gave rows")
PYTHON
)
    if [ -z "$got" ]; then
        pass "the timed run's rows are read by column name, in any column order"
    else
        fail "the timed run's CSV: $(echo "$got" | tr '\n' ' ' | head -c 300)"
    fi
    if grep -qE 'csv\.(DictReader|reader)\b' tools/grade.py; then
        fail "tools/grade.py reads CSV itself: the harness's runs go through tools/results.py"
    else
        pass "tools/grade.py has no CSV reader of its own (tools/results.py reads the runs)"
    fi
}

# The grader finds the exercises from their folders: a copy of the grader in a tree
# with new exercise folders lists them and reads their grading.json, with nothing
# changed in the grader; a folder without its step cannot be graded, and says why.
discovery_tests() {
    echo "== tools/grade.py: exercises are found from their folders"
    local tree=$LOG/tree listed wanted="" dir name
    for dir in exercises/[0-9][0-9]_*/; do
        name=$(basename "$dir")
        compgen -G "steps/${name:0:2}_*/" >/dev/null && wanted+=$name$'\n'
    done
    if [ "$EXERCISES"$'\n' = "$wanted" ]; then
        pass "grade.py --list names every exercises/NN_name/ folder whose step exists ($(echo "$EXERCISES" | wc -l))"
    else
        fail "grade.py --list gives $(echo "$EXERCISES" | tr '\n' ' '), expected $(echo "$wanted" | tr '\n' ' ')"
    fi
    mkdir -p "$tree/tools" "$tree/steps/05_float4" "$tree/steps/11_any_shape" \
        "$tree/exercises/05_float4" "$tree/exercises/11_any_shape" "$tree/exercises/12_tma"
    cp tools/grade.py tools/results.py tools/metrics.py "$tree/tools/"
    cp exercises/05_float4/grading.json "$tree/exercises/05_float4/"
    printf '{"floor": 0.75, "technique": [{"what": "no local memory", "check": "no_local_memory"}]}\n' \
        >"$tree/exercises/11_any_shape/grading.json"
    cp "$tree/exercises/11_any_shape/grading.json" "$tree/exercises/12_tma/"
    listed=$(python3 "$tree/tools/grade.py" --list 2>&1 | tr '\n' ' ')
    if [ "$listed" = "05_float4 11_any_shape " ]; then
        pass "a new exercises/11_any_shape/ folder is found (12_tma, without its step, is not)"
    else
        fail "exercise folders of a new tree: listed '$listed', expected '05_float4 11_any_shape '"
    fi
    listed=$(cd "$tree" && python3 -c 'import sys; sys.path.insert(0, "tools"); import grade
e = grade.load_exercise("11"); print(e.name, e.floor, len(e.rules["technique"]))' 2>&1)
    if [ "$listed" = "11_any_shape 0.75 1" ]; then pass "the new exercise's grading.json is read"
    else fail "the new exercise's grading.json: got '$listed'"; fi
    expect_exit 2 "an exercise folder without its step: one line, exit 2" -- python3 "$tree/tools/grade.py" 12
    if grep -q "no steps/12_\*" "$LOG/last.err"; then pass "an exercise folder without its step is told why"
    else fail "an exercise folder without its step: $(head -c 300 "$LOG/last.err")"; fi
    rm "$tree/exercises/11_any_shape/grading.json"
    expect_exit 2 "an exercise without grading.json: one line, exit 2" -- python3 "$tree/tools/grade.py" 11
    if grep -q "exercises/11_any_shape/grading.json" "$LOG/last.err"; then pass "the missing grading.json is named"
    else fail "the missing grading.json is not named: $(head -c 300 "$LOG/last.err")"; fi
}

# Every solution and every skeleton, built as the grader builds them (the grader
# program, and the parameter's other values where the file is rebuilt for them).
build_tests() {
    echo "== tools/grade.py --build-only: every solution and skeleton builds through the grader"
    builds_through_grader solution --solution
    builds_through_grader skeleton
}

# builds_through_grader KIND [ARGS...]: one test per exercise of
# `tools/grade.py --all --build-only ARGS`, whose files are of KIND
# (solution: with --solution; skeleton: the exercise as it stands).
builds_through_grader() {
    local kind=$1 report=$LOG/$1s-build.txt name status count=0
    shift
    "${GRADE[@]}" --all --build-only "$@" >"$report" 2>&1
    while read -r name status; do
        count=$((count + 1))
        if [ "$status" = PASS ]; then pass "build: $kind $name ($(why_in "$report" "$name" Correctness | sed 's/^--build-only: //'))"
        else fail "build: $kind $name does not build: $(why_in "$report" "$name" Correctness)"; fi
    done < <(results_of "$report")
    [ "$count" -gt 0 ] || fail "build: no $kind was built ($(grader_error "$report"))"
}

# The checks of the compiled code (cuobjdump), and --file and --batch on files that
# do not compile; without cuobjdump the last two run with --build-only.
technique_tests() {
    echo "== tools/grade.py: checks of the compiled code (no GPU needed)"
    local mode=--technique-only report name status count=0 file base rc
    if ! have_tool cuobjdump; then
        skip "technique checks (cuobjdump not found: it comes with the CUDA toolkit)"
        mode=--build-only
    else
        report=$LOG/solutions-technique.txt
        "${GRADE[@]}" --all --solution --technique-only >"$report" 2>&1
        while read -r name status; do
            count=$((count + 1))
            if [ "$status" = PASS ]; then pass "technique: solution $name meets its requirements"
            else fail "technique: solution $name: $(why_in "$report" "$name" Technique)"; fi
        done < <(results_of "$report")
        [ "$count" -gt 0 ] || fail "technique: no solution was graded ($(grader_error "$report"))"

        report=$LOG/skeletons-technique.txt
        "${GRADE[@]}" --all --technique-only >"$report" 2>&1
        while read -r name status; do
            if ! skeleton_untouched "exercises/$name/exercise.cu"; then
                skip "technique: skeleton $name (its TODO is gone: solved here?)"
            elif [ "$status" = FAIL ]; then pass "technique: untouched skeleton $name fails"
            else fail "technique: untouched skeleton $name passes its technique requirements"; fi
        done < <(results_of "$report")

        for file in tests/graded_wrong/*.cu; do
            [ "$(caught_by "$file")" = Technique ] || continue
            head -n 1 "$file" | grep -q "Nsight Compute" && continue  # only the counters catch it
            base=$(basename "$file" .cu)
            report=$LOG/$base.technique.txt
            "${GRADE[@]}" "${base:0:2}" --technique-only --file "$file" >"$report" 2>&1
            rc=$?
            if [ "$rc" -eq 1 ] && [ "$(verdict "$report" Technique)" = FAIL ]; then
                pass "technique: planted $base fails ($(why_of "$report" Technique))"
            else
                fail "technique: planted $base was not caught (exit $rc, see $report)"
            fi
        done
    fi

    # A file that does not compile: FAIL with the compiler's first error, naming the file.
    report=$LOG/nocompile.txt
    "${GRADE[@]}" 05 "$mode" --file tests/graded_wrong/05_does_not_compile.cu >"$report" 2>&1
    rc=$?
    if [ "$rc" -eq 1 ] && grep -q "Correctness  FAIL  does not compile: 05_does_not_compile.cu(.*error" "$report"; then
        pass "--file $mode: a file that does not compile FAILs with the compiler's first error"
    else
        fail "--file $mode: a file that does not compile (exit $rc, see $report)"
    fi

    # A batch without a GPU: one row per student, whatever each file does.
    local dir=$LOG/batch-cpu expected got technique=FAIL
    [ "$mode" = --technique-only ] || technique=SKIP
    mkdir -p "$dir"
    as_exercise solutions/05_float4/solution.cu 05 "$dir/alice.cu"
    cp tests/graded_wrong/05_does_not_compile.cu "$dir/bob.cu"
    cp tests/graded_wrong/05_scalar_loads.cu "$dir/carol.cu"
    printf 'this is not CUDA\n' >"$dir/dave.cu"
    "${GRADE[@]}" 05 "$mode" --batch "$dir" --csv "$LOG/batch-cpu.csv" >"$LOG/batch-cpu.txt" 2>&1
    rc=$?
    expected="name,correctness,sanitizers,technique,speed,speed_ratio
alice,SKIP,SKIP,${technique/FAIL/PASS},SKIP,
bob,FAIL,SKIP,SKIP,SKIP,
carol,SKIP,SKIP,$technique,SKIP,
dave,FAIL,SKIP,SKIP,SKIP,"
    got=$(cut -d, -f1-6 "$LOG/batch-cpu.csv" 2>/dev/null)
    if [ "$rc" -eq 1 ] && [ "$got" = "$expected" ]; then
        pass "--batch $mode: one CSV row per student, a compile error does not stop it"
    else
        fail "--batch $mode (exit $rc): got $(echo "$got" | tr '\n' ' ')"
    fi
    if grep -q '^dave,.*does not define exercise_05' "$LOG/batch-cpu.csv"; then
        pass "--batch: a file without the skeleton's symbol is told so"
    else
        fail "--batch: dave's reason is $(grep '^dave' "$LOG/batch-cpu.csv")"
    fi
}

# ================================================================== GPU parts
# NO_GPU: why the GPU tests cannot run here, empty when a GPU is visible. The
# probe (the test suite's) is built if it is missing.
NO_GPU=""
probe=$BUILD/tools/gpu_probe
[ -x "$probe" ] || make -s "BUILD=$BUILD" "$probe" >/dev/null 2>&1
if [ ! -x "$probe" ]; then
    NO_GPU="no GPU probe: $probe does not build"
elif ! "$probe" >/dev/null 2>"$LOG/probe.err"; then
    NO_GPU="no GPU: $(head -n 1 "$LOG/probe.err" | sed 's/^error: //')"
fi

# run_grade REPORT ARGS...: tools/grade.py ARGS (quick where asked) into REPORT;
# returns its exit code.
run_grade() {
    local report=$1
    shift
    "${GRADE[@]}" "$@" "${QUICK[@]}" >"$report" 2>&1
}

part_solution() {
    local nn=$1 name report rc check status why failed=0
    name=$(exercise_name "$nn")
    if [ -z "$name" ]; then fail "solution $nn: no such exercise (the exercises: $(echo "$EXERCISES" | tr '\n' ' '))"; return; fi
    if [ -n "$NO_GPU" ]; then skip "solution $name passes all four checks ($NO_GPU)"; return; fi
    report=$LOG/solution-$name.txt
    run_grade "$report" "$nn" --solution --timeout "$TIMEOUT"
    rc=$?
    for check in Correctness Sanitizers Technique Speed; do
        status=$(verdict "$report" "$check")
        why=$(why_of "$report" "$check")
        case $status in
            PASS) pass "solution $name: $check PASS ($why)" ;;
            SKIP) skip "solution $name: $check ($why)" ;;
            FAIL) fail "solution $name: $check FAILs: $why (see $report)"; failed=1 ;;
        esac
    done
    if [ "$rc" -ne 0 ] && [ "$failed" = 0 ]; then
        fail "solution $name: grade.py exits $rc: $(grader_error "$report")"
    fi
}

part_skeleton() {
    local nn=$1 name report rc status why
    name=$(exercise_name "$nn")
    if [ -z "$name" ]; then fail "skeleton $nn: no such exercise (the exercises: $(echo "$EXERCISES" | tr '\n' ' '))"; return; fi
    if ! skeleton_untouched "exercises/$name/exercise.cu"; then
        skip "skeleton $name (its TODO is gone: solved here?)"
        return
    fi
    if [ -n "$NO_GPU" ]; then skip "untouched skeleton $name FAILs Correctness ($NO_GPU)"; return; fi
    report=$LOG/skeleton-$name.txt
    run_grade "$report" "$nn" --timeout "$TIMEOUT"
    rc=$?
    status=$(verdict "$report" Correctness)
    if [ "$rc" -eq 1 ] && [ "$status" = FAIL ]; then
        pass "untouched skeleton $name FAILs Correctness ($(why_of "$report" Correctness))"
    else
        fail "untouched skeleton $name: expected Correctness to FAIL and exit 1, got ${status:-nothing}, exit $rc: $(grader_error "$report")"
    fi
}

part_planted() {
    local base=$1 file check report rc status why timeout other
    file=tests/graded_wrong/$base.cu
    if [ ! -f "$file" ]; then fail "planted $base: no file $file"; return; fi
    check=$(caught_by "$file")
    if [ -z "$check" ]; then fail "planted $base: its first line does not say '// Caught by: CHECK (why)'"; return; fi
    if [ -n "$NO_GPU" ]; then skip "planted $base: $check FAILs ($NO_GPU)"; return; fi
    if head -n 1 "$file" | grep -q "Nsight Compute" && ! have_tool ncu; then
        skip "planted $base: $check FAILs (Nsight Compute not found)"
        return
    fi
    timeout=$TIMEOUT
    [ "$check" = Correctness ] && timeout=30  # the hanging kernel
    report=$LOG/$base.txt
    run_grade "$report" "${base:0:2}" --file "$file" --timeout "$timeout"
    rc=$?
    status=$(verdict "$report" "$check")
    if [ "$rc" -eq 1 ] && [ "$status" = FAIL ]; then
        pass "planted $base: $check FAILs ($(why_of "$report" "$check"))"
    else
        fail "planted $base: expected $check to FAIL, got ${status:-nothing} (exit $rc, see $report)"
    fi
    if [ "$check" = Speed ]; then  # only the speed may fail
        for other in Correctness Sanitizers Technique; do
            [ "$(verdict "$report" "$other")" = PASS ] || fail "planted $base: $other should PASS"
        done
    fi
    if [ "$base" = 07_no_second_barrier ]; then  # one line naming the hazard and the source line
        if grep -q "Sanitizers   FAIL  racecheck: .*07_no_second_barrier.cu:[0-9]" "$report"; then
            pass "planted $base: the racecheck line names the source lines"
        else
            fail "planted $base: no source line in $(grep -m1 'Sanitizers' "$report")"
        fi
    fi
}

# A class of ten: right and wrong answers mixed, one CSV row each (never --quick: the
# expected CSV has the skeleton's sanitizers run).
part_batch() {
    local dir=$LOG/batch-gpu name planted rc expected got
    if [ -n "$NO_GPU" ]; then skip "a batch of ten files gives the expected CSV ($NO_GPU)"; return; fi
    mkdir -p "$dir"
    for name in alice bob carol; do as_exercise solutions/05_float4/solution.cu 05 "$dir/$name.cu"; done
    cp exercises/05_float4/exercise.cu "$dir/dave.cu"
    for planted in scalar_loads float4_loads one_block does_not_compile hangs reads_past_row; do
        cp "tests/graded_wrong/05_$planted.cu" "$dir/$planted.cu"
    done
    "${GRADE[@]}" 05 --batch "$dir" --csv "$LOG/batch-gpu.csv" --timeout "$TIMEOUT" >"$LOG/batch-gpu.txt" 2>&1
    rc=$?
    # A pattern: each planted file pins the verdict it exists for; @(PASS|FAIL)
    # leaves free one that depends on the GPU: scalar loads run close to the
    # 0.80x floor of the float2 reference (0.73x on the H200 of
    # docs/results/h200-grade-batch.log), on either side of it by the GPU.
    expected="alice,PASS,PASS,PASS,PASS
bob,PASS,PASS,PASS,PASS
carol,PASS,PASS,PASS,PASS
dave,FAIL,PASS,FAIL,SKIP
does_not_compile,FAIL,SKIP,SKIP,SKIP
float4_loads,PASS,PASS,FAIL,PASS
hangs,FAIL,SKIP,PASS,SKIP
one_block,PASS,PASS,PASS,FAIL
reads_past_row,PASS,FAIL,PASS,PASS
scalar_loads,PASS,PASS,FAIL,@(PASS|FAIL)"
    got=$(tail -n +2 "$LOG/batch-gpu.csv" 2>/dev/null | cut -d, -f1-5)
    shopt -s extglob
    # shellcheck disable=SC2053  # $expected is a pattern on purpose
    if [ "$rc" -eq 1 ] && [[ $got == $expected ]]; then
        pass "a batch of ten files gives the expected CSV"
    else
        fail "a batch of ten files (exit $rc): got $(echo "$got" | tr '\n' ' ') (see $LOG/batch-gpu.txt)"
    fi
}

# gpu_parts_not_run WHY: the GPU tests a run without PART leaves out, one SKIP each.
gpu_parts_not_run() {
    local name
    for name in $EXERCISES; do skip "solution $name passes all four checks ($1)"; done
    for name in $EXERCISES; do skip "untouched skeleton $name FAILs Correctness ($1)"; done
    for name in $(planted_names); do skip "planted $name: $(caught_by "tests/graded_wrong/$name.cu") FAILs ($1)"; done
    skip "a batch of ten files gives the expected CSV ($1)"
}

# run_part PART: one part of the command line.
run_part() {
    local part=$1 item
    case $part in
        cpu) part_cpu ;;
        solutions | skeletons | planted)
            echo "== tools/grade.py on the GPU: $part"
            if [ "$part" = planted ]; then
                for item in $(planted_names); do part_planted "$item"; done
            else
                for item in $EXERCISES; do "part_${part%s}" "${item:0:2}"; done
            fi ;;
        solution:[0-9][0-9]) part_solution "${part#*:}" ;;
        skeleton:[0-9][0-9]) part_skeleton "${part#*:}" ;;
        planted:?*) part_planted "${part#*:}" ;;
        batch) echo "== tools/grade.py on the GPU: a batch"; part_batch ;;
        *) fail "unknown part '$part' (see the head of tests/test_grader.sh)" ;;
    esac
}

if [ ${#PARTS[@]} -gt 0 ]; then
    for part in "${PARTS[@]}"; do run_part "$part"; done
else
    part_cpu
    if [ -n "$NO_GPU" ]; then
        echo "== tools/grade.py on a GPU: skipped, $NO_GPU"
        gpu_parts_not_run "$NO_GPU"
    elif [ "${GRADER_GPU_TESTS:-0}" != 1 ]; then
        echo "== tools/grade.py on a GPU: not run (GRADER_GPU_TESTS=1 runs it, ten minutes or more)"
        gpu_parts_not_run "set GRADER_GPU_TESTS=1"
    else
        for part in solutions skeletons planted batch; do run_part "$part"; done
    fi
fi

echo
echo "$failures failed"
[ "$failures" -eq 0 ]
