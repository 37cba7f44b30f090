#!/usr/bin/env bash
# tools/code-map --check, the code map's check in the docs suite, against a
# copy of the tree's sources and CONTRIBUTING.md: it passes on the tree as
# it is, and fails when a unit is added without a row, when a unit's row
# outlives it, when a header's opening sentence changes, and when a unit
# opens with no comment.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/sf-code-map-test.XXXXXX")
trap 'rm -rf "$work"' EXIT

fail() {
    echo "FAIL: $*" >&2
    exit 1
}
ok() { echo "ok: $*" >&2; }
fresh_copy() {
    rm -rf "$work/tree"
    mkdir -p "$work/tree"
    cp -a "$root/src" "$root/CONTRIBUTING.md" "$work/tree/"
}
check() { "$root/tools/code-map" --root "$work/tree" --check >"$work/out" 2>&1; }
expect_failure() { # WHAT PATTERN
    if check; then
        fail "$1: the check passed"
    fi
    grep -q -- "$2" "$work/out" || fail "$1: the check failed without saying '$2': $(cat "$work/out")"
    ok "$1"
}

fresh_copy
check || fail "the tree's own map: $(cat "$work/out")"
ok "the tree's own map passes"

printf '// A unit nobody mapped.\n#pragma once\n' >"$work/tree/src/core/unmapped_unit.hpp"
tick='`'
expect_failure "a unit added without a row" "+| ${tick}unmapped_unit.hpp${tick} | A unit nobody mapped. |"

fresh_copy
rm "$work/tree/src/pg/pg_module.cpp"
expect_failure "a row whose unit is gone" "-| ${tick}pg_module.cpp${tick} |"

fresh_copy
sed -i '1s|.*|// The ID generator, described anew.|' "$work/tree/src/core/generator.hpp"
expect_failure "a header whose opening sentence changed" 'The ID generator, described anew.'

fresh_copy
printf '#pragma once\n' >"$work/tree/src/registry/silent.hpp"
expect_failure "a unit that opens with no comment" 'silent.hpp opens with no // comment'

fresh_copy
"$root/tools/code-map" --root "$work/tree" --write
cmp -s "$root/CONTRIBUTING.md" "$work/tree/CONTRIBUTING.md" || fail "--write changed a map that was right"
ok "--write leaves a right map as it is"
