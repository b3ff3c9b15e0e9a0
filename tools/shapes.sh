#!/usr/bin/env bash
# Print the matrix shapes that tests/shapes.txt gives one tag, comma-separated,
# in the file's order, ready for a step program's --shapes:
#
#   tools/shapes.sh check       1x1,1x7,7x1,...
#   tools/shapes.sh --tags      the tags in use, one line
#   build/step07 --check-only --shapes "$(tools/shapes.sh sanitize)"
#
# Every run reads the whole file and refuses it if a line is malformed (a
# shape that is not ROWSxCOLS[+OFFSET] with OFFSET 0 to 3, a shape without a
# tag, or a shape listed twice), so a typo cannot silently drop a test.
# Exit codes: 0 done; 2 bad command line, unknown tag or malformed file.
set -u -o pipefail

SHAPES_FILE="$(dirname "$0")/../tests/shapes.txt"

die() { echo "error: $1" >&2; exit 2; }

usage() {
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
}

# read_shapes: fill SHAPE_OF_LINE and TAGS_OF_LINE, one entry per shape line;
# die with the file's line number on a malformed line.
read_shapes() {
    local number=0 line shape tags
    declare -gA seen=()
    SHAPE_OF_LINE=() TAGS_OF_LINE=()
    [ -r "$SHAPES_FILE" ] || die "cannot read $SHAPES_FILE"
    while IFS= read -r line || [ -n "$line" ]; do
        number=$((number + 1))
        line=${line%%#*}
        read -r shape tags <<<"$line"
        [ -n "${shape:-}" ] || continue
        local where="tests/shapes.txt:$number"
        [[ $shape =~ ^[1-9][0-9]*x[1-9][0-9]*(\+[0-3])?$ ]] \
            || die "$where: '$shape' is not ROWSxCOLS[+OFFSET] with OFFSET 0 to 3"
        [ -n "$tags" ] || die "$where: $shape has no tag"
        [ -z "${seen[$shape]:-}" ] || die "$where: $shape is listed twice (also line ${seen[$shape]})"
        seen[$shape]=$number
        SHAPE_OF_LINE+=("$shape")
        TAGS_OF_LINE+=("$tags")
    done <"$SHAPES_FILE"
}

# all_tags: every tag in use, in order of first appearance, space-separated.
all_tags() {
    local tags tag found=" "
    for tags in "${TAGS_OF_LINE[@]}"; do
        for tag in $tags; do
            [[ $found == *" $tag "* ]] || found+="$tag "
        done
    done
    found=${found# }
    echo "${found% }"
}

# shapes_with TAG: the shapes carrying TAG, comma-separated.
shapes_with() {
    local i list=""
    for i in "${!SHAPE_OF_LINE[@]}"; do
        [[ " ${TAGS_OF_LINE[$i]} " == *" $1 "* ]] && list+="${SHAPE_OF_LINE[$i]},"
    done
    echo "${list%,}"
}

case ${1:-} in
-h | --help) usage; exit 0 ;;
"") die "say which tag, e.g. tools/shapes.sh check (tools/shapes.sh --tags lists them)" ;;
esac
[ $# -eq 1 ] || die "one tag at a time, e.g. tools/shapes.sh check"
read_shapes
if [ "$1" = --tags ]; then
    all_tags
    exit 0
fi
list=$(shapes_with "$1")
[ -n "$list" ] || die "no shape in tests/shapes.txt has the tag '$1': the tags are $(all_tags)"
echo "$list"
