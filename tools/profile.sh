#!/usr/bin/env bash
# Nsight Compute counters for one step's kernels, printed as a short table.
#
#   make profile STEP=06                                  (builds the step first)
#   make profile STEP=07 ARGS="--shapes 8192x8192 --variant shared_padded"
#   PROFILE_CUBLAS=1 make profile STEP=09                 (cuBLAS and the copy kernel too)
#   PROFILE_CSV=docs/results/h200-profile.csv make profile STEP=06
#   tools/profile.sh STEP BINARY [step arguments...]      (what make runs)
#   tools/profile.sh --check-env                          (exit 3 unless a GPU and ncu are here)
#   tools/profile.sh --peers [--lib LIB] [--csv PATH]     (make peers-profile: the peers that
#                                                          the write-ups' PROFILE tables name)
#
# This script checks the machine (a GPU, ncu, python3) and hands over to
# tools/ncu_profile.py, which holds the program: for each kernel variant of the
# step (the one --variant names, or all of them that this GPU can run), one
# short run of the step program under Nsight Compute,
#
#   ncu --clock-control none --csv --page raw --print-units base \
#       --kernel-name-base function --print-kernel-base function \
#       --kernel-name regex:transpose --metrics <tools/metrics.py's list> \
#       build/stepNN --check-only --variant NAME --rows 4096 --cols 4096
#
# --check-only runs each kernel exactly once, with no timing loop and no
# baselines, so the run is short. The shape defaults to 4096 x 4096; ARGS
# give another one (--shapes ROWSxCOLS[+OFFSET], or --rows/--cols/--offset).
# ncu never changes the GPU's clocks here (--clock-control none): the
# counters are taken at the clocks the benchmarks run at.
#
# The table has one column per kernel and one row per metric; a legend
# under it gives every metric's exact ncu name. Besides ncu's metrics it
# shows the ratios of tools/metrics.py (named without "__", so that they
# cannot be mistaken for ncu metrics): sectors per global load and store
# request (4 = fully coalesced 4-byte accesses), and shared-memory
# wavefronts per load and store instruction (1 = no bank conflict, 32 =
# 32-way). `python3 tools/ncu_profile.py plan` lists what a full profiling
# session measures (every step, and what the write-ups' tables show).
#
# Environment:
#   PROFILE_CSV=path   also write rows gpu,step,kernel,role,rows,cols,offset,
#                      metric,value to this file (created with a header if
#                      new); rows of an earlier run of the same gpu, step,
#                      kernel and shape are replaced. `kernel` is the variant
#                      name, or copy_kernel (role copy) and cublas (role
#                      library) for the baselines.
#   PROFILE_CUBLAS=1   also profile the baselines: one timed run of the step
#                      (--reps 1 --warmup 0) with no kernel filter; every kernel
#                      that is neither the step's own nor the copy kernel is
#                      cuBLAS's (its function name is printed so you can check).
#   PROFILE_METRICS    a comma-separated metric list instead of the default one
#   PROFILE_KERNEL     ncu's filter for the step's kernels (default regex:transpose)
#   PROFILE_GPU        the gpu column (default: the GPU's name as ncu reports it)
#   NCU                the ncu program (default: ncu on PATH, then $CUDA_HOME/bin,
#                      /usr/local/cuda/bin, /opt/nvidia/nsight-compute/*)
# A metric that this ncu or GPU does not know is dropped with a warning, and
# dram__throughput falls back to gpu__dram_throughput.
#
# Exit codes: 0 done; 1 a kernel gave a wrong result or ncu failed;
# 2 bad command line; 3 no GPU, no ncu, no python3 or no access to the
# GPU's performance counters.
set -u -o pipefail

die() { echo "error: $1" >&2; exit "${2:-3}"; }

# shellcheck source=tools/cuda_env.sh
. "$(dirname "$0")/cuda_env.sh"

# One line and exit 3 when this machine cannot profile at all.
check_env() {
    require_nvidia_gpu "make profile needs a GPU and Nsight Compute"
    NCU_BIN=$(find_cuda_tool ncu "${NCU:-}" /opt/nvidia/nsight-compute/*/ncu) \
        || die "Nsight Compute (ncu) not found: install it with the CUDA toolkit, put it on PATH or set NCU=/path/to/ncu"
    command -v python3 >/dev/null 2>&1 \
        || die "python3 not found: tools/ncu_profile.py runs ncu and formats its output"
}

if [ "${1:-}" = "--check-env" ]; then
    check_env
    exit 0
fi
if [ "${1:-}" = "--peers" ]; then   # make peers-profile: see tools/ncu_profile.py peers
    shift
    check_env
    exec python3 "$(dirname "$0")/ncu_profile.py" peers --ncu "$NCU_BIN" "$@"
fi
[ $# -ge 2 ] || die "usage: tools/profile.sh STEP BINARY [step arguments...] (or: make profile STEP=06)" 2
[[ $1 =~ ^[0-9][0-9]$ ]] || die "bad step '$1': write two digits, e.g. 06" 2
check_env
exec python3 "$(dirname "$0")/ncu_profile.py" run --ncu "$NCU_BIN" "$@"
