#!/usr/bin/env bash
# Adding a step takes one new directory and nothing else.
#
# In a temporary copy of the repository (its files as git sees them, tracked
# or new, never its build directory), this copies the first step directory to
# steps/NN_probe/, NN one past the last step, without changing a byte inside:
# the step's number and name must come from the directory alone (the
# Makefile's step_defines). Then it checks that
#   - make stepNN builds build/stepNN, whose step descriptor is stepNN;
#   - make help lists it and make print-bins (what make all builds) has it;
#   - build/stepNN --list-variants lists a variant, with the GPU hidden;
#   - the copy's own test suite, sections build, badinput and nogpu, builds
#     and tests it like every other step;
#   - git status in the copy shows nothing changed but the new directory.
# Then docs/examples/minimal_step.cu, the smallest complete step (common/harness.h
# shows it), goes into steps/MM_minimal/ the same way: it must build, list its
# variants and, on a GPU, pass bit for bit on the shapes tagged `grade` in
# tests/shapes.txt.
#
# One PASS/FAIL/SKIP line per check (make test counts them); exit 1 if any
# check failed. No GPU is needed: the GPU check says SKIP without one.
#
# Environment: BUILD (the main build directory, default build): its object
# files are copied into the copy's build directory, so that only the new
# steps are compiled there. JOBS: parallel compile jobs. ADD_STEP_KEEP=1 keeps
# the copy and prints where it is.
set -u -o pipefail
cd "$(dirname "$0")/.." || exit 3
BUILD=${BUILD:-build}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
# The copy runs make on its own: nothing of an outer make may leak into it.
unset MAKEFLAGS MFLAGS MAKELEVEL

failures=0
pass() { echo "PASS new step: $*"; }
fail() { echo "FAIL new step: $*"; failures=$((failures + 1)); }
skip() { echo "SKIP new step: $*"; }
first_lines() { head -c 300 "$1" | tr '\n' ' '; }

# check NAME COMMAND...: PASS if the command succeeds, else FAIL with the
# first lines of its output.
check() {
    local name=$1 out=$LOGS/check.out
    shift
    if "$@" >"$out" 2>&1; then pass "$name"; else fail "$name: $(first_lines "$out")"; fi
}

# copy_repository DIR: the repository's files (tracked, or new and not
# ignored) into DIR, with their times, as a fresh git repository with one
# commit, so that git status can show what changed afterwards.
copy_repository() {
    local dir=$1
    mkdir -p "$dir" || return 1
    git ls-files -z -co --exclude-standard |
        while IFS= read -r -d '' f; do [ -f "$f" ] && printf '%s\0' "$f"; done |
        tar --null -T - -cf - | tar -xf - -C "$dir" || return 1
    (cd "$dir" && git init -q && git add -A &&
        git -c user.name=test -c user.email=test@localhost -c commit.gpgsign=false \
            commit -q -m "the repository as it was") || return 1
}

# seed_build DIR: the main build's objects into DIR/build, times kept, so that
# make in the copy compiles only what is new or changed. A missing or stale
# main build only makes the copy compile more.
seed_build() {
    local dir=$1/build f
    mkdir -p "$dir"
    for f in obj libcommon.a flags.txt; do
        [ -e "$BUILD/$f" ] && cp -a "$BUILD/$f" "$dir/"
    done
    return 0
}

# next_step_number: one past the highest steps/NN_*/ of the current directory.
next_step_number() {
    local last
    last=$(find steps -mindepth 1 -maxdepth 1 -type d -name '[0-9][0-9]_*' | sort | tail -n 1)
    last=${last#steps/}
    printf '%02d' $((10#${last%%_*} + 1))
}

# in_copy COMMAND...: run in the copy with its own build directory.
in_copy() { (cd "$COPY" && env BUILD=build "$@"); }

git rev-parse --is-inside-work-tree >/dev/null 2>&1 || {
    fail "this test copies the repository with git: run it in a git checkout"
    exit 1
}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/add_step.XXXXXX") || exit 3
if [ "${ADD_STEP_KEEP:-}" = 1 ]; then
    echo "keeping the copy in $WORK"
else
    trap 'rm -rf "$WORK"' EXIT
fi
COPY=$WORK/repo LOGS=$WORK/logs
mkdir -p "$LOGS"

if ! copy_repository "$COPY"; then
    fail "could not copy the repository into $COPY"
    exit 1
fi
seed_build "$COPY"

# ------------------------------------------------------------------ the probe step
first=$(cd "$COPY" && find steps -mindepth 1 -maxdepth 1 -type d -name '[0-9][0-9]_*' | sort | head -n 1)
NN=$(cd "$COPY" && next_step_number)
probe=steps/${NN}_probe
cp -a "$COPY/$first" "$COPY/$probe"
echo "($first copied to $probe in a temporary copy of the repository)"

check "make step$NN builds build/step$NN" in_copy make -s -j"$JOBS" "step$NN"
if command -v nm >/dev/null && [ -x "$COPY/build/step$NN" ]; then
    # nm writes to a file first: with pipefail, `nm | grep -q` fails when grep
    # stops reading early.
    nm "$COPY/build/step$NN" >"$LOGS/symbols.out" 2>&1
    if grep -qE " [A-Za-z] step$NN\$" "$LOGS/symbols.out"; then
        pass "build/step$NN holds the step descriptor step$NN (number from the directory)"
    else
        fail "build/step$NN has no symbol step$NN: the number did not come from the directory"
    fi
fi
in_copy make -s help >"$LOGS/help.out" 2>&1
if grep -qE "^  make step$NN +${NN}_probe" "$LOGS/help.out"; then pass "make help lists step$NN (${NN}_probe)"
else fail "make help does not list step$NN: $(grep -m3 'make step' "$LOGS/help.out" | tr '\n' ' ')"; fi
in_copy make -s print-bins >"$LOGS/bins.out" 2>&1
if [[ " $(cat "$LOGS/bins.out") " == *" build/step$NN "* ]]; then pass "make print-bins includes build/step$NN"
else fail "make print-bins does not include build/step$NN: $(first_lines "$LOGS/bins.out")"; fi
if in_copy env CUDA_VISIBLE_DEVICES= "build/step$NN" --list-variants >"$LOGS/variants.out" 2>&1 &&
    [ "$(grep -c . "$LOGS/variants.out")" -ge 1 ]; then
    pass "build/step$NN --list-variants lists $(cut -f1 "$LOGS/variants.out" | paste -sd ' ') without a GPU"
else
    fail "build/step$NN --list-variants: $(first_lines "$LOGS/variants.out")"
fi

# The copy's own test suite, limited to the sections that need no GPU.
in_copy env TEST_SECTIONS="build badinput nogpu" JOBS="$JOBS" make --no-print-directory test \
    >"$LOGS/suite.out" 2>&1
counts=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$LOGS/suite.out" | tail -n 1)
mine=$(grep -E "^(PASS|FAIL|SKIP) .*build/step$NN\b" "$LOGS/suite.out")
built=$(echo "$mine" | grep -c "^PASS build build/step$NN\$")
tested=$(echo "$mine" | grep -c "^PASS build/step$NN ")
if [[ $'\n'$mine == *$'\nFAIL'* ]]; then
    fail "the copy's make test failed on step$NN: $(echo "$mine" | grep -m3 '^FAIL' | tr '\n' ' ')"
elif [ "$built" -ne 1 ] || [ "$tested" -lt 10 ]; then
    fail "the copy's make test did not build and test step$NN (built: $built, tests: $tested; $counts)"
else
    pass "the copy's make test (build, badinput, nogpu) built step$NN and passed its $tested tests (whole copy: $counts)"
fi

in_copy git status --porcelain --untracked-files=normal >"$LOGS/status.out" 2>&1
if [ "$(cat "$LOGS/status.out")" = "?? $probe/" ]; then
    pass "git status in the copy shows only the new $probe/"
else
    fail "git status in the copy shows more than $probe/: $(first_lines "$LOGS/status.out")"
fi

# ------------------------------------------------------------------ the minimal example
example=docs/examples/minimal_step.cu
MM=$(printf '%02d' $((10#$NN + 1)))
minimal=steps/${MM}_minimal
if [ ! -f "$COPY/$example" ]; then
    fail "$example is missing (common/harness.h shows it as the smallest complete step)"
else
    mkdir -p "$COPY/$minimal"
    cp -a "$COPY/$example" "$COPY/$minimal/"
    check "$example builds as step $MM ($minimal/)" in_copy make -s -j"$JOBS" "step$MM"
    if in_copy env CUDA_VISIBLE_DEVICES= "build/step$MM" --list-variants >"$LOGS/minimal.out" 2>&1 &&
        [ "$(grep -c . "$LOGS/minimal.out")" -ge 1 ]; then
        pass "$example lists its variants: $(cut -f1 "$LOGS/minimal.out" | paste -sd ' ')"
    else
        fail "$example --list-variants: $(first_lines "$LOGS/minimal.out")"
    fi
    shapes=$(tools/shapes.sh grade)
    if [ ! -x "$COPY/build/tools/gpu_probe" ] || ! "$COPY/build/tools/gpu_probe" >/dev/null 2>"$LOGS/probe.err"; then
        skip "$example bit-exact on the grade shapes of tests/shapes.txt (no GPU: $(first_lines "$LOGS/probe.err"))"
    elif in_copy "build/step$MM" --check-only --shapes "$shapes" >"$LOGS/minimal.out" 2>&1 &&
        ! grep -qE '^(FAIL|SKIP) ' "$LOGS/minimal.out"; then
        pass "$example bit-exact on the $(echo "$shapes" | tr ',' '\n' | grep -c .) grade shapes of tests/shapes.txt"
    else
        fail "$example --check-only on the grade shapes: $(grep -m3 -E '^(FAIL|SKIP) |error' "$LOGS/minimal.out" | tr '\n' ' ')"
    fi
fi

[ "$failures" -eq 0 ]
