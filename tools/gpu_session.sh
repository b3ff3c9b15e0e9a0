#!/usr/bin/env bash
# Everything that needs the GPU, in a few batches that each fit in one
# sitting on a lent or shared GPU machine. Run from the repository root:
#
#   tools/gpu_session.sh test      build, then the full test suite -> docs/results/<gpu>-test.log,
#                                  and full reports of steps 01 and 02 -> docs/results/<gpu>-reports.txt
#   tools/gpu_session.sh bench     the shape sweep               -> docs/results/<gpu>.csv, <gpu>-env.txt
#   tools/gpu_session.sh profile   Nsight Compute on every step  -> docs/results/<gpu>-profile.csv
#                                  and the PyTorch/CuPy peers    -> docs/results/<gpu>-peers.csv
#   tools/gpu_session.sh grade     reference timings of the exercise solutions
#
# GPU (default: from nvidia-smi, "NVIDIA H200" -> h200) names the files.
# When OUT is set, the results are also packed into $OUT/results.tgz.
set -u -o pipefail
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/cuda/bin
# shellcheck source=tools/cuda_env.sh
. tools/cuda_env.sh
GPU=${GPU:-$(gpu_slug "$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)")}
[ -n "$GPU" ] || { echo "error: no GPU visible (nvidia-smi found none)" >&2; exit 3; }
RESULTS=docs/results
JOBS=$(nproc)
mkdir -p "$RESULTS"

pack() {
    [ -n "${OUT:-}" ] || return 0
    tar czf "$OUT/results.tgz" "$RESULTS" docs/reference-timings.* build/test-logs 2>/dev/null
}

build() {
    make -j"$JOBS" all >/dev/null || { echo "error: the build failed" >&2; exit 3; }
}

case ${1:-} in
test)
    build
    GPU_JOBS=4 bash tests/run_all.sh 2>&1 | tee "$RESULTS/$GPU-test.log"
    status=${PIPESTATUS[0]}
    { echo "# make test on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)";
      echo "# $(nvcc --version | tail -n 1), $(date -u +%Y-%m-%dT%H:%MZ), command: GPU_JOBS=4 make test"; } \
        | cat - "$RESULTS/$GPU-test.log" > "$RESULTS/$GPU-test.log.tmp" && mv "$RESULTS/$GPU-test.log.tmp" "$RESULTS/$GPU-test.log"
    # The full human-readable report of the first two steps at a few shapes.
    reports=$RESULTS/$GPU-reports.txt
    : > "$reports"
    for step in 01 02; do
        for shape in 8192x8192 32768x32768 10007x7919; do
            echo "\$ ./build/step$step --rows ${shape%x*} --cols ${shape#*x}" >> "$reports"
            "./build/step$step" --rows "${shape%x*}" --cols "${shape#*x}" >> "$reports" 2>&1
            echo >> "$reports"
        done
    done
    pack
    exit "$status"
    ;;
bench)
    build
    make bench GPU="$GPU" RESUME="${RESUME:-}"
    status=$?
    pack
    exit "$status"
    ;;
profile)
    build
    csv=$RESULTS/$GPU-profile.csv
    rm -f "$csv"
    status=0
    # The shapes the write-ups' PROFILE tables quote: every step at 4096 x 4096,
    # the last two steps also at a large square and at odd shapes.
    profile() { PROFILE_CSV=$csv make -s profile STEP="$1" ARGS="--rows ${2%x*} --cols ${2#*x}" || status=1; }
    for step in $(ls -d steps/[0-9][0-9]_* | sed -E 's|steps/([0-9]{2})_.*|\1|'); do
        profile "$step" 4096x4096
    done
    for shape in 16384x16384 10007x7919; do profile 09 $shape; profile 10 $shape; done
    # The copy kernel and cuBLAS beside step 10 at a large square: how close to the copy is DRAM?
    PROFILE_CSV=$csv PROFILE_CUBLAS=1 make -s profile STEP=10 ARGS="--rows 16384 --cols 16384" || status=1
    for shape in 10007x7920 10008x7919 10008x7920; do profile 09 $shape; done
    # cuBLAS's and the copy kernel's launch (threads, grid) and counters beside step 04's.
    PROFILE_CSV=$csv PROFILE_CUBLAS=1 make -s profile STEP=04 ARGS="--rows 4096 --cols 4096" || status=1
    make -s peers GPU="$GPU" || status=1
    pack
    exit "$status"
    ;;
grade)
    build
    make reference-timings GPU="$GPU"
    status=$?
    pack
    exit "$status"
    ;;
*)
    echo "usage: tools/gpu_session.sh test|bench|profile|grade" >&2
    exit 2
    ;;
esac
