# shellcheck shell=bash
# Shell functions shared by the tools that need a GPU or a CUDA tool
# (tools/bench.sh, tools/profile.sh, tools/sanitize.sh, tools/gpu_session.sh).
# Sourced, not run. require_nvidia_gpu calls the caller's die().

# gpu_slug NAME: the name result files use: "NVIDIA H200" -> h200,
# "NVIDIA GeForce RTX 3080" -> rtx-3080 (tools/peers.py's slug() matches).
gpu_slug() {
    echo "$1" | sed -e 's/^NVIDIA //' -e 's/^GeForce //' | tr '[:upper:]' '[:lower:]' \
        | sed -e 's/[^a-z0-9]\{1,\}/-/g' -e 's/^-//' -e 's/-$//'
}

# require_nvidia_gpu WHY: die (exit 3) with one line unless nvidia-smi sees a GPU.
# WHY says what needs it, e.g. "make profile needs a GPU and Nsight Compute".
require_nvidia_gpu() {
    command -v nvidia-smi >/dev/null 2>&1 || die "no NVIDIA GPU here (nvidia-smi not found): $1"
    nvidia-smi -L 2>/dev/null | grep -q '^GPU ' || die "nvidia-smi sees no GPU: $1"
}

# find_cuda_tool NAME OVERRIDE [MORE_PATHS...]: print the path of a CUDA tool.
# A non-empty OVERRIDE (the user's NCU=..., say) is the only candidate; else
# PATH, then $CUDA_HOME/bin, /usr/local/cuda/bin and MORE_PATHS. Status 1 if none.
find_cuda_tool() {
    local name=$1 override=$2 c
    shift 2
    if [ -n "$override" ]; then
        command -v "$override" 2>/dev/null
        return
    fi
    command -v "$name" 2>/dev/null && return 0
    for c in "${CUDA_HOME:-/nonexistent}/bin/$name" "/usr/local/cuda/bin/$name" "$@"; do
        [ -x "$c" ] && { echo "$c"; return 0; }
    done
    return 1
}
