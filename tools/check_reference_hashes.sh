#!/usr/bin/env bash
# Check that docs/reference-timings.csv still describes the solutions as
# they are: every solution's source must hash to the sha256 recorded when
# the timings were taken (tools/reference_timings.sh), and every solution
# must have a row. `make test` runs this.
#
# Exit codes: 0 all match (or the CSV has not been generated yet: a note
# says so), 1 one line per stale or missing solution.
set -u
cd "$(dirname "$0")/.." || exit 3
CSV=docs/reference-timings.csv
REGEN="run \`make reference-timings\` on a GPU machine"
# shellcheck source=tools/grade_lib.sh
. tools/grade_lib.sh

# check_csv FILE: every solution's row of FILE matches its source; 1 if not.
check_csv() {
    local csv=$1 recorded stale=0 file sum
    # The reference solutions' rows, "source sha256", read by column name.
    if ! recorded=$(python3 tools/results.py rows "$csv" --where kernel=reference \
            --column source,sha256 --separator ' ' 2>&1); then
        echo "$csv cannot be read ($recorded): $REGEN"
        return 1
    fi
    while read -r file sum; do
        [ -n "$file" ] || continue
        if [ ! -f "$file" ]; then
            echo "$file is in $csv but no longer exists: $REGEN"
            stale=1
        elif [ "$(source_hash "$file")" != "$sum" ]; then
            echo "$file changed since $csv was generated: $REGEN"
            stale=1
        fi
    done <<<"$recorded"
    for file in solutions/[0-9][0-9]_*/solution.cu; do
        [ -f "$file" ] || continue
        if ! grep -q "^$file " <<<"$recorded"; then
            echo "$file has no reference timing in $csv: $REGEN"
            stale=1
        fi
    done
    return "$stale"
}

if [ ! -f "$CSV" ]; then
    echo "note: $CSV not generated yet ($REGEN); nothing to check"
    exit 0
fi
require_python
stale=0
# The H200's timings, which the docs quote, and any other GPU's beside its results.
for csv in "$CSV" docs/results/*-reference-timings.csv; do
    [ -f "$csv" ] || continue
    check_csv "$csv" || stale=1
done
exit "$stale"
