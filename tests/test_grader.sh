#!/usr/bin/env bash
# Tests of the exercise grader, tools/grade.py. Every test prints one line:
#   PASS <name> | FAIL <name> | SKIP <name> (<why>)
# and the exit code is 0 only if nothing failed.
#
# Without a GPU (CI): bad command lines and missing files (exit 2, one line on
# stderr), no GPU (exit 3, one line), --file and --batch on a file that does not
# compile, and the checks of the compiled code, which need only cuobjdump: every
# reference solution meets its exercise's technique requirements, every untouched
# skeleton and every planted file of tests/graded_wrong/ that says "Caught by:
# Technique" does not.
#
# With a GPU, as well: every solution passes all four checks, each planted file
# fails the check its first line names, and a batch of ten files, right and wrong
# answers mixed, gives the expected CSV.
#
#   bash tests/test_grader.sh            (BUILD=dir to build elsewhere)
#
# The planted files are tests/graded_wrong/NN_what.cu: NN is the exercise, and the
# first line is `// Caught by: CHECK (why)`.
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
export BUILD
LOG=$BUILD/test-logs/grader
rm -rf "$LOG"
mkdir -p "$LOG"
GRADE=(python3 tools/grade.py)
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

# verdict REPORT CHECK: the status (PASS/FAIL/SKIP) of CHECK in a saved report.
verdict() {
    awk -v check="$2" '$1 == check { print $2; exit }' "$1"
}

# why_of REPORT CHECK: the first 160 characters of CHECK's one line of why.
why_of() {
    awk -v check="$2" '$1 == check { $1 = ""; $2 = ""; sub(/^ +/, ""); print substr($0, 1, 160); exit }' "$1"
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

# ------------------------------------------------------------------ command line
echo "== tools/grade.py: command line and files"
expect_exit 0 "grade.py --help" -- "${GRADE[@]}" --help
expect_exit 2 "no exercise named" -- "${GRADE[@]}"
expect_exit 2 "a number that is not an exercise" -- "${GRADE[@]}" 99
expect_exit 2 "not a number" -- "${GRADE[@]}" five
expect_exit 2 "an exercise number and --all" -- "${GRADE[@]}" 05 --all
expect_exit 2 "--file and --solution together" -- "${GRADE[@]}" 05 --solution --file tests/graded_wrong/05_scalar_loads.cu
expect_exit 2 "--batch without --csv" -- "${GRADE[@]}" 05 --batch tests/graded_wrong
expect_exit 2 "--timeout 0" -- "${GRADE[@]}" 05 --timeout 0
expect_exit 2 "a timed shape that is not ROWSxCOLS" -- "${GRADE[@]}" 05 --shape 8192
expect_exit 2 "--file names a missing file" -- "${GRADE[@]}" 05 --file "$LOG/no-such-file.cu"
expect_exit 2 "--batch names a missing folder" -- "${GRADE[@]}" 05 --batch "$LOG/no-such-folder" --csv "$LOG/x.csv"
mkdir -p "$LOG/empty"
expect_exit 2 "--batch on a folder without .cu files" -- "${GRADE[@]}" 05 --batch "$LOG/empty" --csv "$LOG/x.csv"
if "${GRADE[@]}" 05 --file "$LOG/no-such-file.cu" 2>&1 | grep -q "no-such-file.cu"; then
    pass "the missing file is named"
else
    fail "the missing file is not named in the error"
fi
expect_exit 3 "no GPU visible (CUDA_VISIBLE_DEVICES empty): one line, exit 3" -- \
    env CUDA_VISIBLE_DEVICES= "${GRADE[@]}" 05 --file tests/graded_wrong/05_scalar_loads.cu

# ------------------------------------------------------------------ sanitizer reports
# compute-sanitizer's reports, in the forms its versions print, must each become one
# line that names the problem and the source lines.
echo "== tools/grade.py: one line per sanitizer report"
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

# ------------------------------------------------------------------ compiled code
echo "== tools/grade.py: checks of the compiled code (no GPU needed)"
if [ -z "$(python3 -c 'import sys; sys.path.insert(0, "tools"); import grade; print(grade.find_tool("cuobjdump", "CUOBJDUMP") or "")')" ]; then
    skip "technique checks (cuobjdump not found: it comes with the CUDA toolkit)"
    have_cuobjdump=0
else
    have_cuobjdump=1
fi

# results_of REPORT: "name status" for each RESULT line of a report.
results_of() {
    sed -n 's/^RESULT \([^:]*\): \(PASS\|FAIL\)$/\1 \2/p' "$1"
}

if [ "$have_cuobjdump" = 1 ]; then
    "${GRADE[@]}" --all --solution --technique-only >"$LOG/solutions-technique.txt" 2>&1
    count=0
    while read -r name status; do
        count=$((count + 1))
        if [ "$status" = PASS ]; then pass "technique: solution $name meets its requirements"
        else fail "technique: solution $name: $(why_of "$LOG/solutions-technique.txt" Technique)"; fi
    done < <(results_of "$LOG/solutions-technique.txt")
    [ "$count" -gt 0 ] || fail "technique: no solution was graded ($(tail -n 3 "$LOG/solutions-technique.txt" | tr '\n' ' '))"

    "${GRADE[@]}" --all --technique-only >"$LOG/skeletons-technique.txt" 2>&1
    while read -r name status; do
        if ! skeleton_untouched "exercises/$name/exercise.cu"; then
            skip "technique: skeleton $name (its TODO is gone: solved here?)"
        elif [ "$status" = FAIL ]; then pass "technique: untouched skeleton $name fails"
        else fail "technique: untouched skeleton $name passes its technique requirements"; fi
    done < <(results_of "$LOG/skeletons-technique.txt")

    for file in tests/graded_wrong/*.cu; do
        [ "$(caught_by "$file")" = Technique ] || continue
        head -n 1 "$file" | grep -q "Nsight Compute" && continue  # only the counters catch it
        base=$(basename "$file" .cu)
        "${GRADE[@]}" "${base:0:2}" --technique-only --file "$file" >"$LOG/$base.technique.txt" 2>&1
        rc=$?
        if [ "$rc" -eq 1 ] && [ "$(verdict "$LOG/$base.technique.txt" Technique)" = FAIL ]; then
            pass "technique: planted $base fails ($(why_of "$LOG/$base.technique.txt" Technique))"
        else
            fail "technique: planted $base was not caught (exit $rc, see $LOG/$base.technique.txt)"
        fi
    done

    # A file that does not compile: FAIL with the compiler's first error, naming the file.
    "${GRADE[@]}" 05 --technique-only --file tests/graded_wrong/05_does_not_compile.cu >"$LOG/nocompile.txt" 2>&1
    rc=$?
    if [ "$rc" -eq 1 ] && grep -q "Correctness  FAIL  does not compile: 05_does_not_compile.cu(.*error" "$LOG/nocompile.txt"; then
        pass "--file: a file that does not compile FAILs with the compiler's first error"
    else
        fail "--file: a file that does not compile (exit $rc, see $LOG/nocompile.txt)"
    fi

    # A batch without a GPU: one row per student, whatever each file does.
    dir=$LOG/batch-cpu
    mkdir -p "$dir"
    as_exercise solutions/05_float4/solution.cu 05 "$dir/alice.cu"
    cp tests/graded_wrong/05_does_not_compile.cu "$dir/bob.cu"
    cp tests/graded_wrong/05_scalar_loads.cu "$dir/carol.cu"
    printf 'this is not CUDA\n' >"$dir/dave.cu"
    "${GRADE[@]}" 05 --technique-only --batch "$dir" --csv "$LOG/batch-cpu.csv" >"$LOG/batch-cpu.txt" 2>&1
    rc=$?
    expected="name,correctness,sanitizers,technique,speed,speed_ratio
alice,SKIP,SKIP,PASS,SKIP,
bob,FAIL,SKIP,SKIP,SKIP,
carol,SKIP,SKIP,FAIL,SKIP,
dave,FAIL,SKIP,SKIP,SKIP,"
    got=$(cut -d, -f1-6 "$LOG/batch-cpu.csv" 2>/dev/null)
    if [ "$rc" -eq 1 ] && [ "$got" = "$expected" ]; then
        pass "--batch --technique-only: one CSV row per student, a compile error does not stop it"
    else
        fail "--batch --technique-only (exit $rc): got $(echo "$got" | tr '\n' ' ')"
    fi
    if grep -q '^dave,.*does not define exercise_05' "$LOG/batch-cpu.csv"; then
        pass "--batch: a file without the skeleton's symbol is told so"
    else
        fail "--batch: dave's reason is $(grep '^dave' "$LOG/batch-cpu.csv")"
    fi
fi

# ------------------------------------------------------------------ GPU
if ! gpu=$("$BUILD/tools/gpu_probe" 2>/dev/null) && ! { make -s "BUILD=$BUILD" "$BUILD/tools/gpu_probe" >/dev/null 2>&1 && gpu=$("$BUILD/tools/gpu_probe" 2>/dev/null); }; then
    echo "== tools/grade.py on a GPU: skipped, no GPU visible"
    skip "every solution passes all four checks (no GPU)"
    skip "each planted file fails its check (no GPU)"
    skip "a batch of ten files gives the expected CSV (no GPU)"
    echo
    echo "$failures failed"
    [ "$failures" -eq 0 ]
    exit
fi
# The GPU part grades every solution in full and every planted file, about ten
# minutes on an H200; make test keeps to a few minutes, so it runs on request.
if [ "${GRADER_GPU_TESTS:-0}" != 1 ]; then
    echo "== tools/grade.py on $gpu: not run (GRADER_GPU_TESTS=1 runs it, about ten minutes)"
    skip "every solution passes all four checks (set GRADER_GPU_TESTS=1)"
    skip "each planted file fails its check (set GRADER_GPU_TESTS=1)"
    skip "a batch of ten files gives the expected CSV (set GRADER_GPU_TESTS=1)"
    echo
    echo "$failures failed"
    [ "$failures" -eq 0 ]
    exit
fi
echo "== tools/grade.py on $gpu"
TIMEOUT=${GRADER_TEST_TIMEOUT:-120}

"${GRADE[@]}" --all --solution --timeout "$TIMEOUT" >"$LOG/solutions.txt" 2>&1
rc=$?
[ "$rc" -eq 0 ] || fail "grade.py --all --solution exits $rc (see $LOG/solutions.txt)"
awk '/^== / { name = $2; sub(":", "", name) }
     $1 ~ /^(Correctness|Sanitizers|Technique|Speed)$/ { print name, $1, $2 }' "$LOG/solutions.txt" |
    while read -r name check status; do
        if [ "$status" = FAIL ]; then fail "solution $name: $check FAILs"
        elif [ "$status" = SKIP ]; then skip "solution $name: $check (see $LOG/solutions.txt)"
        else pass "solution $name: $check"; fi
    done

have_ncu=$(python3 -c 'import sys; sys.path.insert(0, "tools"); import grade; print(1 if grade.find_tool("ncu", "NCU", grade.ncu_candidates()) else 0)')
for file in tests/graded_wrong/*.cu; do
    base=$(basename "$file" .cu)
    check=$(caught_by "$file")
    if head -n 1 "$file" | grep -q "Nsight Compute" && [ "$have_ncu" = 0 ]; then
        skip "planted $base is caught by $check (Nsight Compute not found)"
        continue
    fi
    timeout=$TIMEOUT
    [ "$check" = Correctness ] && timeout=30  # the hanging kernel
    "${GRADE[@]}" "${base:0:2}" --file "$file" --timeout "$timeout" >"$LOG/$base.txt" 2>&1
    rc=$?
    status=$(verdict "$LOG/$base.txt" "$check")
    if [ "$rc" -eq 1 ] && [ "$status" = FAIL ]; then
        pass "planted $base: $check FAILs ($(why_of "$LOG/$base.txt" "$check"))"
    else
        fail "planted $base: expected $check to FAIL, got ${status:-nothing} (exit $rc, see $LOG/$base.txt)"
    fi
    if [ "$check" = Speed ]; then  # only the speed may fail
        for other in Correctness Sanitizers Technique; do
            [ "$(verdict "$LOG/$base.txt" "$other")" = PASS ] || fail "planted $base: $other should PASS"
        done
    fi
    if [ "$base" = 07_no_second_barrier ]; then  # one line naming the hazard and the source line
        if grep -q "Sanitizers   FAIL  racecheck: .*07_no_second_barrier.cu:[0-9]" "$LOG/$base.txt"; then
            pass "planted $base: the racecheck line names the source lines"
        else
            fail "planted $base: no source line in $(grep -m1 'Sanitizers' "$LOG/$base.txt")"
        fi
    fi
done

# A class of ten: right and wrong answers mixed, one CSV row each.
dir=$LOG/batch-gpu
mkdir -p "$dir"
for name in alice bob carol; do as_exercise solutions/05_float4/solution.cu 05 "$dir/$name.cu"; done
cp exercises/05_float4/exercise.cu "$dir/dave.cu"
for planted in scalar_loads float4_loads one_block does_not_compile hangs reads_past_row; do
    cp "tests/graded_wrong/05_$planted.cu" "$dir/$planted.cu"
done
"${GRADE[@]}" 05 --batch "$dir" --csv "$LOG/batch-gpu.csv" --timeout "$TIMEOUT" >"$LOG/batch-gpu.txt" 2>&1
rc=$?
expected="alice,PASS,PASS,PASS,PASS
bob,PASS,PASS,PASS,PASS
carol,PASS,PASS,PASS,PASS
dave,FAIL,PASS,FAIL,SKIP
does_not_compile,FAIL,SKIP,SKIP,SKIP
float4_loads,PASS,PASS,FAIL,PASS
hangs,FAIL,SKIP,PASS,SKIP
one_block,PASS,PASS,PASS,FAIL
reads_past_row,PASS,FAIL,PASS,PASS
scalar_loads,PASS,PASS,FAIL,PASS"
got=$(tail -n +2 "$LOG/batch-gpu.csv" 2>/dev/null | cut -d, -f1-5)
if [ "$rc" -eq 1 ] && [ "$got" = "$expected" ]; then
    pass "a batch of ten files gives the expected CSV"
else
    fail "a batch of ten files (exit $rc): got $(echo "$got" | tr '\n' ' ') (see $LOG/batch-gpu.txt)"
fi

echo
echo "$failures failed"
[ "$failures" -eq 0 ]
