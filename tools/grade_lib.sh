# shellcheck shell=bash
# Shell functions shared by tools/reference_timings.sh and
# tools/check_reference_hashes.sh (the grader itself is tools/grade.py).
# Sourced, not run; the caller has already changed to the repository root and
# set BUILD and MAKE_CMD where needed.

# exercise_dir NN: exercises/NN_name, or nothing.
exercise_dir() {
    local d
    for d in exercises/"$1"_*/; do
        [ -d "$d" ] && { echo "${d%/}"; return; }
    done
}

# all_numbers: the two-digit numbers of every exercise, in order.
all_numbers() {
    local d
    for d in exercises/[0-9][0-9]_*/; do
        [ -d "$d" ] && basename "$d" | cut -c1-2
    done
}

# build TARGET...: build programs through make, its output on stderr.
build() {
    "$MAKE_CMD" --no-print-directory BUILD="$BUILD" ${ARCH:+ARCH="$ARCH"} "$@" >&2
}

# require_gpu: unless a CUDA GPU is usable, one line on stderr and exit 3.
# The test suite's probe decides; it is built quietly if it is missing.
require_gpu() {
    local probe=$BUILD/tools/gpu_probe why
    if [ ! -x "$probe" ] && ! build "$probe" >/dev/null 2>&1; then
        echo "error: cannot build $probe to look for a GPU: run make all and read its errors" >&2
        exit 3
    fi
    if ! why=$("$probe" 2>&1 >/dev/null); then
        echo "${why%%$'\n'*}" >&2
        exit 3
    fi
}

# require_python: unless python3 is here, one line on stderr and exit 3.
# tools/results.py reads the programs' CSV output by column name with it.
require_python() {
    command -v python3 >/dev/null 2>&1 && return 0
    echo "error: python3 not found: tools/results.py reads the results with it" >&2
    exit 3
}

# solution_sources FILE: FILE, then the exercise headers it includes
# (`#include "../../exercises/..."`): everything that decides its speed.
solution_sources() {
    local dir inc
    echo "$1"
    dir=$(dirname "$1")
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\(\.\.\/\.\.\/exercises\/[^"]*\)".*/\1/p' "$1" |
        while read -r inc; do
            realpath --relative-to=. "$dir/$inc"
        done
}

# source_hash FILE: sha256 of FILE and the exercise headers it includes,
# concatenated in that order.
source_hash() {
    local files
    files=$(solution_sources "$1") || return 1
    # shellcheck disable=SC2086 # one path per line, no spaces in the repository's paths
    cat $files | sha256sum | cut -d' ' -f1
}
