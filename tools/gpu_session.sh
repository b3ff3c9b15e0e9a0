#!/usr/bin/env bash
# Everything that needs the GPU, in batches that each fit in one sitting on a
# lent or shared GPU machine (ten minutes or less on an H100 or H200). Run
# from the repository root:
#
#   tools/gpu_session.sh test      build, then the full test suite   -> docs/results/<gpu>-test.log
#                                  and full reports of steps 01, 02 and
#                                  the last (its make run)           -> docs/results/<gpu>-reports.txt
#   tools/gpu_session.sh bench     the shape sweep                   -> docs/results/<gpu>.csv, <gpu>-env.txt
#                                  the old and new L2 flush          -> docs/results/<gpu>-timing.csv
#                                  step 12's rule on narrow matrices -> docs/results/<gpu>-narrow.csv
#   tools/gpu_session.sh profile   Nsight Compute, by the plan of tools/ncu_profile.py
#                                                                    -> docs/results/<gpu>-profile.csv
#                                  the other libraries               -> docs/results/<gpu>-peers.csv
#                                  and their Nsight Compute counters -> docs/results/<gpu>-peers-profile.csv
#   tools/gpu_session.sh grade     reference timings of the solutions -> docs/reference-timings.*
#                                  (an H200; another GPU: docs/results/<gpu>-reference-timings.csv)
#                                  the grader on a folder of submissions -> docs/results/<gpu>-grade-batch.log
#   tools/gpu_session.sh reference the reference timings alone (a minute; the batch takes four)
#
# Several may be given at once: tools/gpu_session.sh bench profile.
# RERUN_STEPS="11 12" re-measures only those steps in bench and profile and
# keeps the other steps' committed rows of docs/results/<gpu>.csv and
# <gpu>-profile.csv. Use it only when the other steps' machine code is
# unchanged (docs/results/sass-sm_90.csv shows it); the env file counts the
# kept runs. (RESUME=1 and RERUN_STEPS do not mix: this starts afresh.)
# GPU (default: from nvidia-smi, "NVIDIA H200" -> h200) names the files.
# When OUT is set, the results are packed into $OUT/results.tgz (small: what
# gets committed) and the test logs and the bench's per-run files into
# $OUT/run-files.tgz (large), so a remote machine can send them back; also
# when the session is stopped (SIGTERM, e.g. by timeout), so that a cut bench
# can go on elsewhere: unpack both, then RESUME=1 tools/gpu_session.sh bench.
# Exit code: the worst of the batches (0 when all passed).
# shellcheck disable=SC2317 # the batch functions are called through timed()
set -u -o pipefail
cd "$(dirname "$0")/.." || exit 3
export PATH=$PATH:/usr/local/cuda/bin
die() { echo "gpu_session: error: $1" >&2; exit "${2:-3}"; }
# shellcheck source=tools/cuda_env.sh
. tools/cuda_env.sh
require_nvidia_gpu "tools/gpu_session.sh runs GPU work"
GPU=${GPU:-$(gpu_slug "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)")}
export GPU
RESULTS=docs/results
JOBS=$(nproc)
mkdir -p "$RESULTS"

# the_gpu: "NVIDIA H200, 580.159.04", for the first line of a committed log.
the_gpu() {
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n 1
}

pack() {
    [ -n "${OUT:-}" ] || return 0
    tar czf "$OUT/results.tgz" "$RESULTS" docs/reference-timings.* 2>/dev/null
    tar czf "$OUT/run-files.tgz" build/test-logs build/bench 2>/dev/null
}
trap 'pack; exit 124' TERM

build() {
    make -j"$JOBS" all >/dev/null || die "the build failed: run make all and read its errors"
}

run_test() {
    GPU_JOBS=${GPU_JOBS:-4} bash tests/run_all.sh 2>&1 | tee "$RESULTS/$GPU-test.log.tmp"
    local status=${PIPESTATUS[0]}
    { echo "# make test on $(the_gpu)"
      echo "# $(nvcc --version | tail -n 1), $(date -u +%Y-%m-%dT%H:%MZ), command: make test"
      cat "$RESULTS/$GPU-test.log.tmp"; } >"$RESULTS/$GPU-test.log"
    rm -f "$RESULTS/$GPU-test.log.tmp"
    # The full human-readable report of the first two steps at a few shapes.
    local reports=$RESULTS/$GPU-reports.txt step
    : >"$reports"
    for step in 01 02; do
        echo "\$ ./build/step$step --shapes 8192x8192,32768x32768,10007x7919" >>"$reports"
        "./build/step$step" --shapes 8192x8192,32768x32768,10007x7919 >>"$reports" 2>&1 || status=1
        echo >>"$reports"
    done
    # The last step as the README runs it, from the test's acceptance job
    # (tests/run_all.sh names the shapes; each left acceptance-<shape>.out).
    local out shape dirs=(steps/[0-9][0-9]_*/) last
    last=${dirs[-1]#steps/} last=${last%%_*}
    for out in build/test-logs/jobs/acceptance-*.out; do
        [ -f "$out" ] || continue
        shape=${out##*/acceptance-} shape=${shape%.out}
        { echo "\$ make run STEP=$last ARGS=\"--rows ${shape%x*} --cols ${shape#*x}\""
          cat "$out"
          echo; } >>"$reports"
    done
    return "$status"
}

# RERUN_STEPS read once, as the two-digit numbers the bench's run files and
# the profile plan use ("9 12" -> 09 12); empty: every step.
rerun=()
for step in ${RERUN_STEPS:-}; do
    [[ $step =~ ^[0-9]+$ ]] || die "RERUN_STEPS: '$step' is not a step number (e.g. RERUN_STEPS=\"11 12\")" 2
    rerun+=("$(printf '%02d' "$((10#$step))")")
done

# rerun_wanted STEP: true unless RERUN_STEPS is set and leaves STEP out.
rerun_wanted() {
    [ ${#rerun[@]} -eq 0 ] || [[ " ${rerun[*]} " == *" $1 "* ]]
}

run_bench() {
    local status=0 resume=${RESUME:-} step
    if [ ${#rerun[@]} -gt 0 ]; then   # the committed sweep's runs, less the steps to re-run
        [ -f "$RESULTS/$GPU.csv" ] || die "RERUN_STEPS needs the committed $RESULTS/$GPU.csv" 2
        rm -rf "build/bench/$GPU"
        python3 tools/results.py split-steps "$RESULTS/$GPU.csv" "build/bench/$GPU" ||
            die "cannot read $RESULTS/$GPU.csv"
        for step in "${rerun[@]}"; do rm -f "build/bench/$GPU/step$step".*; done
        resume=1
    fi
    make bench GPU="$GPU" RESUME="$resume" || status=1
    make timing-study GPU="$GPU" || status=1
    make narrow-study GPU="$GPU" || status=1
    return "$status"
}

run_profile() {
    local csv=$RESULTS/$GPU-profile.csv status=0 step shape baselines
    if [ ${#rerun[@]} -gt 0 ]; then   # keep the rows of the other steps
        python3 tools/results.py drop-steps "$csv" "${rerun[@]}" || die "cannot read $csv"
    else
        rm -f "$csv"
    fi
    # The plan: every step at 4096 x 4096, plus what the write-ups' PROFILE tables show.
    while read -r step shape baselines variant; do
        rerun_wanted "$step" || continue
        [ "$variant" = - ] && variant="" || variant=" --variant $variant"
        PROFILE_CSV=$csv PROFILE_CUBLAS=$baselines make -s profile STEP="$step" ARGS="--shapes $shape$variant" ||
            status=1
    done < <(python3 tools/ncu_profile.py plan)
    timed peers make -s peers GPU="$GPU" || status=1
    timed peers-profile make -s peers-profile GPU="$GPU" || status=1
    return "$status"
}

run_reference() {
    if [ "$GPU" = h200 ]; then
        make reference-timings GPU="$GPU"   # the timings the docs quote
    else
        REFERENCE_CSV=$RESULTS/$GPU-reference-timings.csv make reference-timings GPU="$GPU"
    fi
}

run_grade() {
    local status=0 log=$RESULTS/$GPU-grade-batch.log
    run_reference || status=1
    # The one grader test that make test leaves out on a GPU: a class's folder at once.
    { echo "# bash tests/test_grader.sh batch on $(the_gpu), $(date -u +%Y-%m-%dT%H:%MZ)"
      bash tests/test_grader.sh batch 2>&1; } | tee "$log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
    return "$status"
}

# timed NAME COMMAND...: run COMMAND, then say how long it took, so that the
# next session on a lent machine can be planned from the log.
timed() {
    local name=$1 start=$SECONDS status
    shift
    "$@"
    status=$?
    echo "gpu_session: $name took $((SECONDS - start)) s (exit $status)"
    return "$status"
}

[ $# -gt 0 ] || die "say which batch: test, bench, profile, grade or reference (see the top of $0)" 2
worst=0
timed build build
for batch in "$@"; do
    case $batch in
    test) timed test run_test || worst=1 ;;
    bench) timed bench run_bench || worst=1 ;;
    profile) timed profile run_profile || worst=1 ;;
    grade) timed grade run_grade || worst=1 ;;
    reference) timed reference run_reference || worst=1 ;;
    *) die "unknown batch '$batch': use test, bench, profile, grade or reference" 2 ;;
    esac
done
pack
exit "$worst"
