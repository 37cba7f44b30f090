#!/usr/bin/env bash
# The machine's cache (tools/lib/cache.sh), which tools/fetch-pg and
# tools/build-citus keep their builds in: an entry is built once and reused;
# an entry changed, cut short or never sealed is built again, never used;
# two callers at once build it once. Against a cache in a temporary
# directory, with a builder that counts its runs.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tools/lib/cache.sh
source "$root/tools/lib/cache.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/sf-cache-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
export SF_CACHE_DIR=$work/cache
runs=$work/runs
: >"$runs"

fail() {
    echo "FAIL: $*" >&2
    exit 1
}
ok() { echo "ok: $*" >&2; }
expect_runs() {
    [ "$(wc -l <"$runs")" = "$1" ] || fail "$2: the builder ran $(wc -l <"$runs") times, expected $1"
    ok "$2"
}

# The builder: two files, a symbolic link, and a file that names the final
# place; BUILD_FAIL=1 makes it fail halfway.
build() {
    echo run >>"$runs"
    mkdir -p "$1/bin"
    echo "first" >"$1/a"
    [ -z "${BUILD_FAIL:-}" ] || return 1
    echo "final $2" >"$1/bin/b"
    ln -s ../a "$1/bin/link"
}

entry=$(sf_cache_root)/thing/v1-$(sf_cache_key input-1 compiler-1)
[ "$(sf_cache_key input-1 compiler-1)" != "$(sf_cache_key input-1 compiler-2)" ] ||
    fail "the key does not depend on every input"
ok "the key depends on every input"

sf_cache_entry "$entry" build
expect_runs 1 "a new entry is built"
[ "$(cat "$entry/bin/b")" = "final $entry" ] || fail "the builder was not told the entry's final place"
ok "the builder writes the entry's final place"
sf_cache_entry "$entry" build
expect_runs 1 "a sealed entry is reused"

echo "changed" >"$entry/a"
sf_cache_entry "$entry" build 2>"$work/err"
expect_runs 2 "a changed file rebuilds the entry"
grep -q "incomplete or changed" "$work/err" || fail "the rebuild does not say why"
[ "$(cat "$entry/a")" = first ] || fail "the rebuilt entry is not the builder's"
ok "the rebuild says why, and gives the builder's files"

rm "$entry/bin/b"
sf_cache_entry "$entry" build 2>/dev/null
expect_runs 3 "a lost file rebuilds the entry"

ln -sfn ../elsewhere "$entry/bin/link"
sf_cache_entry "$entry" build 2>/dev/null
expect_runs 4 "a link pointed elsewhere rebuilds the entry"

echo extra >"$entry/added"
sf_cache_entry "$entry" build 2>/dev/null
expect_runs 5 "a file added rebuilds the entry"

rm "$entry/.manifest"
sf_cache_entry "$entry" build 2>/dev/null
expect_runs 6 "an entry never sealed (killed before its manifest) is rebuilt"

rm -rf "$entry"
if BUILD_FAIL=1 sf_cache_entry "$entry" build; then fail "a failed build was reported as built"; fi
[ ! -e "$entry" ] || fail "a failed build left an entry"
compgen -G "$entry.build.*" >/dev/null && fail "a failed build left its directory"
expect_runs 7 "a failed build leaves nothing"
sf_cache_entry "$entry" build
expect_runs 8 "... and the next call builds it"

# A build cut short by a kill leaves its directory beside the entry: the
# next build clears it.
mkdir "$entry.build.stale"
rm -rf "$entry"
sf_cache_entry "$entry" build
expect_runs 9 "an entry is built beside a killed build's leftovers"
[ ! -e "$entry.build.stale" ] || fail "a killed build's directory was left"
ok "... which are removed"

# Two callers at once: the second waits for the first's build and reuses it.
rm -rf "$entry"
slow_build() {
    build "$@"
    sleep 0.5 # holds the build open; the lock, not this pause, orders the callers
}
sf_cache_entry "$entry" slow_build &
first=$!
for _ in $(seq 1 500); do
    [ -s "$runs" ] && [ "$(wc -l <"$runs")" = 10 ] && break
    sleep 0.01
done
sf_cache_entry "$entry" slow_build
wait "$first"
expect_runs 10 "two callers at once build the entry once"

echo "cache: all checks passed" >&2
