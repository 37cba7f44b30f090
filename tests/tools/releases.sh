#!/usr/bin/env bash
# What shipped stays shipped (tools/check-releases, RELEASES): the tree
# passes; then, in throwaway copies, each thing the check exists for is
# done on purpose and must fail, naming what is wrong:
#  - a byte of a released script changed;
#  - an update script a release shipped deleted;
#  - RELEASES naming a commit whose control file is another version;
#  - a tag v<VERSION> on another commit than RELEASES names;
#  - RELEASES.sha256 out of step with the history;
#  - a later release shipping an older release's script changed (the first
#    release that shipped a script decides it, REFROZEN's one exception
#    pinned to its bytes);
#  - a new file that changes what installing or updating to a released
#    version runs: an update script to a released version (a shorter
#    path), a secondary control file for one; in the tree or only in
#    what make install installs;
#  - a released script left out of make install, or installed from
#    another file;
#  - a release missing from RELEASES: a deleted line (debian/changelog
#    released it, or a later release's script names it), a tag v* or a
#    package RELEASES does not record;
#  - a packaged release's line re-pointed at another commit of its version
#    (its debian/changelog entry says which), or that entry changed;
# and without the history: an unpacked archive is checked against
# RELEASES.sha256 (a changed byte fails there too), saying so; a shallow
# clone says it is shallow; under CI=true both fail.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd -P)
work=$(mktemp -d "${TMPDIR:-/tmp}/sf-releases-test.XXXXXX")
trap 'rm -rf "$work"' EXIT

fail() {
    echo "FAIL: $*" >&2
    exit 1
}
ok() { echo "ok: $*" >&2; }

# expect_failure WHAT PATTERN DIR [ENV...]: tools/check-releases in DIR
# fails, and its output matches PATTERN.
expect_failure() {
    local what=$1 pattern=$2 dir=$3 out
    shift 3
    if out=$(env "$@" "$dir/tools/check-releases" 2>&1); then
        fail "$what: the check passed: $out"
    fi
    # One line: a pattern may span the failures the check names.
    grep -qE -- "$pattern" <<<"${out//$'\n'/ }" || fail "$what: the output does not match /$pattern/: $out"
    ok "$what"
}

out=$("$root/tools/check-releases" 2>&1) || fail "the tree: $out"
echo "$out" >&2
# An unpacked release archive (PGXN's zip, a tarball) or a shallow clone:
# the tree was checked against RELEASES.sha256 above, as the output says;
# the checks below break things in a clone of the whole history.
if [ "$(git -C "$root" rev-parse --show-toplevel 2>/dev/null)" != "$root" ] ||
    [ "$(git -C "$root" rev-parse --is-shallow-repository)" = true ]; then
    echo "releases: the tree passes; the checks of the check itself need a clone with the history" >&2
    exit 0
fi

clone=$work/clone
git clone -q --no-checkout "$root" "$clone"
git -C "$clone" checkout -q "$(git -C "$root" rev-parse HEAD)"
# The clone as HEAD has it, with the tree's own RELEASES and check as they
# are now (committed or not).
head=$(git -C "$root" rev-parse HEAD)
restore() {
    git -C "$clone" reset -q --hard "$head"
    git -C "$clone" clean -qfdx
    cp "$root/RELEASES" "$root/RELEASES.sha256" "$clone/"
    cp "$root/tools/check-releases" "$root/tools/tag-releases" "$clone/tools/"
}
restore
out=$("$clone/tools/check-releases" 2>&1) || fail "a fresh clone: $out"
ok "a fresh clone passes"
# Tags made twice: the second run finds them all on their commits.
git -C "$clone" tag -l 'v*' | xargs -r git -C "$clone" tag -d >/dev/null
export GIT_COMMITTER_NAME=releases-test GIT_COMMITTER_EMAIL=releases-test@invalid
export GIT_AUTHOR_NAME=releases-test GIT_AUTHOR_EMAIL=releases-test@invalid
if ! "$clone/tools/tag-releases" 2>/dev/null || ! "$clone/tools/tag-releases" ||
    ! "$clone/tools/tag-releases" --check; then
    fail "tools/tag-releases in a clone"
fi
[ "$(git -C "$clone" rev-parse 'v1.5^{commit}')" = b3a12e306b02e49d2688cf571dd0e29bd468d4b4 ] ||
    fail "tools/tag-releases: v1.5 is not on b3a12e3"
ok "tools/tag-releases tags every release, and a second run changes nothing"

# The byte in the middle of a released update script.
script=snowflake_id--1.4--1.5.sql
size=$(stat -c %s "$clone/$script")
printf 'X' | dd of="$clone/$script" bs=1 seek=$((size / 2)) conv=notrunc status=none
expect_failure "a byte changed in $script" \
    "$script differs from what 1\.6 shipped \(87a5c57f6c7e\): a released script never changes" "$clone"
restore

rm "$clone/snowflake_id--1.2--1.3.sql"
expect_failure "an update script deleted" \
    "snowflake_id--1\.2--1\.3\.sql is missing: 1\.3 shipped it, and without it a database at 1\.2 cannot be updated.*this tree no longer installs 1\.3: " \
    "$clone"
restore

sed -i 's/^1\.5 b3a12e306b02e49d2688cf571dd0e29bd468d4b4/1.5 7c7bf2c64a5522ded86f0d3879cea8cb3caa054f/' "$clone/RELEASES"
expect_failure "RELEASES naming 1.4's commit for 1.5" \
    "1\.5 names 7c7bf2c64a55, whose snowflake_id\.control has default_version 1\.4, not 1\.5" "$clone"
restore

git -C "$clone" tag -f -a -m "on the wrong commit" v1.4 5535fdcaa8d063a69e48640737d242f80dd464b5 >/dev/null
expect_failure "a tag v1.4 on 1.3's commit" "the tag v1\.4 points at 5535fdcaa8d0, RELEASES at 7c7bf2c64a55" \
    "$clone"
out=$("$clone/tools/tag-releases" 2>&1) && fail "tools/tag-releases left a tag on the wrong commit: $out"
grep -q "v1.4 points at 5535fdcaa8d063a69e48640737d242f80dd464b5, RELEASES says 7c7bf2c" <<<"$out" ||
    fail "tools/tag-releases does not name both commits: $out"
ok "tools/tag-releases refuses it, naming both, and moves nothing"
git -C "$clone" tag -d v1.4 >/dev/null && "$clone/tools/tag-releases" 2>/dev/null

sed -i 1d "$clone/RELEASES.sha256"
expect_failure "RELEASES.sha256 out of step" \
    "RELEASES\.sha256 is not what RELEASES' commits shipped: tools/check-releases --write-manifest" "$clone"
restore

# A release 1.7 whose commit changed 1.6's script: recording it must not
# make its bytes the frozen ones.
printf -- '-- changed after 1.6\n' >>"$clone/snowflake_id--1.5--1.6.sql"
git -C "$clone" commit -q -am "1.7 changes a script 1.6 shipped"
echo "1.7 $(git -C "$clone" rev-parse HEAD) 2026-11-28 -" >>"$clone/RELEASES"
"$clone/tools/check-releases" --write-manifest >/dev/null 2>&1 || true
expect_failure "a release 1.7 shipping 1.6's script changed" \
    "snowflake_id--1\.5--1\.6\.sql: 1\.7 \([0-9a-f]{12}\) shipped it changed from what 1\.6 \(87a5c57f6c7e\) shipped.*snowflake_id--1\.5--1\.6\.sql differs from what 1\.6 shipped \(87a5c57f6c7e\)" \
    "$clone"
restore

# REFROZEN's release re-pointed at a commit with other bytes of its script.
sed -i "s/^default_version = .*/default_version = '1.6'/" "$clone/snowflake_id.control"
printf -- '-- changed\n' >>"$clone/snowflake_id--1.4--1.5.sql"
git -C "$clone" commit -q -am "1.6 again, with 1.4 to 1.5 changed"
sed -i "s/^1\.6 87a5c57f6c7e9a77139392c86eb51fd52d425321/1.6 $(git -C "$clone" rev-parse HEAD)/" "$clone/RELEASES"
"$clone/tools/check-releases" --write-manifest >/dev/null 2>&1 || true
expect_failure "REFROZEN's release on other bytes" \
    "snowflake_id--1\.4--1\.5\.sql: 1\.6 \([0-9a-f]{12}\) shipped other bytes than REFROZEN's sha256 70756376ea9b" \
    "$clone"
restore

# 1.6's line re-pointed at a later commit of 1.6 (one that changed its
# scripts' comments), the tree and the manifest made to agree, no tag v1.6:
# the Debian package's changelog entry still says which commit released it.
later16=4929d06e8a060c4d1895e00a2549b50bbb24f0fa
git -C "$clone" tag -d v1.6 >/dev/null
sed -i "s/^1\.6 87a5c57f6c7e9a77139392c86eb51fd52d425321/1.6 $later16/" "$clone/RELEASES"
for file in snowflake_id--1.5--1.6.sql snowflake_id--1.6.sql; do
    git -C "$clone" show "$later16:$file" >"$clone/$file"
done
"$clone/tools/check-releases" --write-manifest >/dev/null 2>&1 || true
expect_failure "RELEASES re-pointing 1.6 at a later commit of 1.6" \
    "RELEASES: 1\.6 names 4929d06e8a06, but its 1\.6\.0-1 entry of debian/changelog is its parent's already: the release's commit is the one that last touched the entry" \
    "$clone"
restore
"$clone/tools/tag-releases" 2>/dev/null
sed -i 's/^snowflake-id (1\.5\.0-1) unstable/snowflake-id (1.5.0-1) bookworm/' "$clone/debian/changelog"
expect_failure "1.5.0-1's changelog entry changed" \
    "debian/changelog's 1\.5\.0-1 entry in the tree is not what 1\.5's commit b3a12e306b02 has: a released entry never changes" \
    "$clone"
restore

# New files that change what updating to a released version runs.
cp "$clone/snowflake_id--1.5--1.6.sql" "$clone/snowflake_id--1.4--1.6.sql"
expect_failure "a new update script to 1.6" \
    "snowflake_id--1\.4--1\.6\.sql \(in the tree\) is new: an update script to 1\.6, which no release shipped, changes what updating a database to 1\.6 runs .*only a version above it may get new files; a change to what a released version runs is a new version instead: 1\.7, with its update script snowflake_id--1\.6--1\.7\.sql" \
    "$clone"
restore
printf "requires = 'plpgsql'\n" >"$clone/snowflake_id--1.5.control"
expect_failure "a secondary control file for 1.5" \
    "snowflake_id--1\.5\.control \(in the tree\) is new: a secondary control file for 1\.5, which no release shipped" \
    "$clone"
restore
echo 'DATA += src/snowflake_id--1.3--1.6.sql' >>"$clone/Makefile"
expect_failure "make install installing a new update script to 1.6 from elsewhere" \
    "snowflake_id--1\.3--1\.6\.sql \(installed by make install from src/snowflake_id--1\.3--1\.6\.sql\) is new: an update script to 1\.6" \
    "$clone"
restore

# What make install installs.
sed -i 's/\tsnowflake_id--1\.4--1\.5\.sql /\t/' "$clone/Makefile"
expect_failure "snowflake_id--1.4--1.5.sql left out of the Makefile's DATA" \
    "snowflake_id--1\.4--1\.5\.sql, which 1\.6 shipped, is not among what make install installs \(make -s -n install\): put it back into the Makefile's DATA.*what make install installs does not install 1\.5" \
    "$clone"
restore
# shellcheck disable=SC2016 # make's $(...), for make to expand
echo 'DATA := $(filter-out snowflake_id--1.0.sql,$(DATA)) src/snowflake_id--1.0.sql' >>"$clone/Makefile"
expect_failure "snowflake_id--1.0.sql installed from another file" \
    "make install installs snowflake_id--1\.0\.sql, which 1\.0 shipped, from src/snowflake_id--1\.0\.sql, not from the released snowflake_id--1\.0\.sql" \
    "$clone"
restore

# A release missing from RELEASES.
sed -i '/^1\.6 /d' "$clone/RELEASES"
expect_failure "RELEASES without 1.6's line" \
    "the tag v1\.6 names no release in RELEASES: add the release's line.*debian/changelog has 1\.6\.0-1 released \(unstable\), but RELEASES has no line 1\.6 <commit> <date> 1\.6\.0-1" \
    "$clone"
restore
sed -i '/^1\.2 /d' "$clone/RELEASES"
git -C "$clone" tag -d v1.2 >/dev/null
expect_failure "RELEASES without 1.2's line, and no tag v1.2" \
    "RELEASES records no 1\.2, yet 1\.3 shipped snowflake_id--1\.1--1\.2\.sql: databases at 1\.2 exist; put its line back" \
    "$clone"
restore
"$clone/tools/tag-releases" 2>/dev/null
sed -i 's/^\(1\.5 .*\) 1\.5\.0-1$/\1 1.5.0-2/' "$clone/RELEASES"
expect_failure "RELEASES naming a package debian/changelog never released" \
    "RELEASES: 1\.5's package 1\.5\.0-2 is not a released entry of debian/changelog" "$clone"
restore
git -C "$clone" tag v1.7 "$head"
expect_failure "a tag v1.7 RELEASES does not record" "the tag v1\.7 names no release in RELEASES" "$clone"
git -C "$clone" tag -d v1.7 >/dev/null
out=$("$clone/tools/check-releases" 2>&1) || fail "the clone after the checks: $out"

# expect_fallback WHAT DIR PATTERN: without the history, the check in DIR
# passes against RELEASES.sha256, its output matching PATTERN, and fails
# under CI=true.
expect_fallback() {
    local what=$1 dir=$2 pattern=$3 out
    cp "$root/RELEASES" "$root/RELEASES.sha256" "$dir/"
    cp "$root/tools/check-releases" "$dir/tools/"
    # Without CI=true, which this suite itself may run under (CI does).
    out=$(env -u CI "$dir/tools/check-releases" 2>&1) || fail "$what: $out"
    grep -qE -- "$pattern" <<<"$out" || fail "$what: the output does not match /$pattern/: $out"
    ok "$what passes against RELEASES.sha256, saying why"
    expect_failure "... and fails under CI=true" "no history to check the releases against" "$dir" CI=true
}

# An unpacked release archive: the files of the commit, no .git.
unpacked=$work/unpacked
mkdir "$unpacked"
git -C "$clone" archive HEAD | tar -xf - -C "$unpacked"
expect_fallback "an unpacked archive" "$unpacked" \
    "not a git checkout .*: checking against RELEASES\.sha256 alone"
printf 'X' | dd of="$unpacked/$script" bs=1 seek=$((size / 2)) conv=notrunc status=none
expect_failure "... and fails on a byte changed there" \
    "$script differs from what a release shipped \(RELEASES\.sha256\)" "$unpacked" -u CI
git -C "$clone" show "HEAD:$script" >"$unpacked/$script"
cp "$unpacked/snowflake_id--1.5--1.6.sql" "$unpacked/snowflake_id--1.4--1.6.sql"
expect_failure "... and on a new update script to 1.6 there" \
    "snowflake_id--1\.4--1\.6\.sql \(in the tree\) is new: an update script to 1\.6" "$unpacked" -u CI

shallow=$work/shallow
git clone -q --depth 1 "file://$clone" "$shallow"
expect_fallback "a shallow clone" "$shallow" "a shallow clone \(git fetch --unshallow\): checking against"
echo "releases: all checks passed" >&2
