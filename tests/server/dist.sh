#!/usr/bin/env bash
# The release archive (`make dist`, tools/dist), tested as a PGXN user gets it:
#  - it is NAME-VERSION.zip from META.json, everything under NAME-VERSION/,
#    and carries META.json, the control file, every script in the Makefile's
#    DATA, the sources, the regression suites; nothing .gitattributes marks
#    export-ignore; only files of HEAD;
#  - unpacked in a fresh directory, `make` builds it and `make installcheck`
#    passes against a staged server with the library built there;
#  - `make dist` refuses where there is no commit to pack (the unpacked
#    archive), refuses a commit whose META.json is incomplete or disagrees
#    with the control file, and warns that uncommitted changes stay out.
set -euo pipefail
source "$(dirname "$0")/../lib/cluster.sh"
sf_init_workspace
repo=$SF_ROOT

git -C "$repo" rev-parse --verify -q HEAD >/dev/null || sf_die "$repo is not a git checkout"
read -r name version < <(git -C "$repo" show HEAD:META.json |
    python3 -c 'import json, sys; m = json.load(sys.stdin); print(m["name"], m["version"])')
control_version=$(git -C "$repo" show HEAD:snowflake_id.control |
    sed -n "s/^default_version = '\(.*\)'/\1/p")

# --- the archive --------------------------------------------------------------
make -s -C "$repo" dist DIST_DIR="$SF_WORK/out" 2>"$SF_WORK/dist.err" ||
    { cat "$SF_WORK/dist.err" >&2; sf_die "make dist failed"; }
zip=$SF_WORK/out/$name-$version.zip
[ -f "$zip" ] || sf_die "make dist wrote no $(basename "$zip"): $(ls "$SF_WORK/out")"
sf_expect_eq "the archive is named from META.json, the control file's version" \
    "snowflake_id-$control_version.0.zip" "$(basename "$zip")"
sf_expect_match "make dist says where it wrote it" "wrote $zip" "$(cat "$SF_WORK/dist.err")"

listing=$(unzip -Z1 "$zip")
files=$(grep -v '/$' <<<"$listing" | sort)
# shellcheck disable=SC2001 # per line of a listing: ${//} cannot anchor at each line
sf_expect_eq "one top directory, $name-$version/" "$name-$version/" \
    "$(sed 's|/.*|/|' <<<"$listing" | sort -u)"
# shellcheck disable=SC2001 # per line, as above
files=$(sed "s|^$name-$version/||" <<<"$files")

want=(META.json Makefile snowflake_id.control tests/installcheck.conf)
# shellcheck disable=SC2016 # $(DATA) is make's, not the shell's
data=$(make -s -C "$repo" --no-print-directory --eval 'print-data: ; @echo $(DATA)' print-data)
[ -n "$data" ] || sf_die "the Makefile's DATA is empty"
for f in $data; do want+=("$f"); done
while read -r f; do want+=("$f"); done < <(git -C "$repo" ls-tree -r --name-only HEAD -- src sql expected)
for f in "${want[@]}"; do
    grep -qxF "$f" <<<"$files" || sf_die "the archive lacks $f"
done
sf_log "ok: it holds META.json, the control file, its DATA, src/, sql/ and expected/ (${#want[@]} files)"
sf_expect_eq "every install and update script is in the Makefile's DATA" \
    "$(git -C "$repo" ls-tree --name-only HEAD | grep -E '^snowflake_id--.*\.sql$' | sort)" \
    "$(tr ' ' '\n' <<<"$data" | sort)"
sf_expect_eq "nothing of .ci/ nor .gitattributes (export-ignore)" "" \
    "$(grep -E '^(\.ci/|\.gitattributes$)' <<<"$files" || true)"
sf_expect_eq "nothing but HEAD's files" "" \
    "$(comm -23 <(echo "$files") <(git -C "$repo" ls-tree -r --name-only HEAD | sort))"

# --- built and tested from the unpacked archive ---------------------------------
unzip -q "$zip" -d "$SF_WORK/unpacked"
tree=$SF_WORK/unpacked/$name-$version
out=$(make -C "$tree" dist 2>&1) && sf_die "make dist in the unpacked archive succeeded: $out"
sf_expect_match "make dist refuses outside a git checkout" 'is not a git checkout' "$out"

SF_ROOT=$tree sf_stage
[ -f "$tree/snowflake_id.so" ] || sf_die "make in the unpacked archive built no snowflake_id.so"
sf_expect_eq "the stage's library is the one built from the archive" \
    "$(sha256sum <"$tree/snowflake_id.so")" \
    "$(sha256sum <"$SF_STAGE$($SF_PG_CONFIG --pkglibdir)/snowflake_id.so")"
sf_installcheck "$tree" || sf_die "make installcheck failed in the unpacked archive"
sf_log "ok: make && make installcheck pass in the unpacked archive"

# --- refusals and the warning, in a clone -----------------------------------------
clone=$SF_WORK/clone
git clone -q "$repo" "$clone"
git -C "$clone" checkout -q "$(git -C "$repo" rev-parse HEAD)"
git_clone() { git -C "$clone" -c user.name=dist-test -c user.email=dist-test@invalid "$@"; }

echo "uncommitted" >>"$clone/README.md"
make -s -C "$clone" dist DIST_DIR="$SF_WORK/dirty" 2>"$SF_WORK/dirty.err" ||
    { cat "$SF_WORK/dirty.err" >&2; sf_die "make dist failed in a dirty tree"; }
sf_expect_match "a dirty tree: make dist warns" 'uncommitted changes are NOT in the archive' \
    "$(cat "$SF_WORK/dirty.err")"
sf_expect_match "... naming the file" '^ M README.md$' "$(cat "$SF_WORK/dirty.err")"
sf_expect_eq "... and the archive carries HEAD's README.md, not the change" \
    "$(git -C "$clone" show HEAD:README.md | sha256sum)" \
    "$(unzip -p "$SF_WORK/dirty/$name-$version.zip" "$name-$version/README.md" | sha256sum)"
git -C "$clone" checkout -q README.md

python3 - "$clone/META.json" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
del m["abstract"]
json.dump(m, open(sys.argv[1], "w"), indent=3)
EOF
git_clone commit -qam "META.json without abstract"
out=$(make -s -C "$clone" dist DIST_DIR="$SF_WORK/no_abstract" 2>&1) &&
    sf_die "make dist packed a META.json without abstract: $out"
sf_expect_match "a META.json without abstract: refused, naming the key" "requires: abstract$" "$out"
sf_expect_match "... saying no archive was written" "no archive written" "$out"
sf_expect_eq "... and no archive written" "" "$(ls "$SF_WORK/no_abstract" 2>/dev/null || true)"

git_clone revert --no-edit HEAD >/dev/null
sed -i "s/^default_version = .*/default_version = '9.9'/" "$clone/snowflake_id.control"
git_clone commit -qam "control file ahead of META.json"
out=$(make -s -C "$clone" dist DIST_DIR="$SF_WORK/ahead" 2>&1) &&
    sf_die "make dist packed a META.json whose version is not the control file's: $out"
sf_expect_match "a control file at 9.9: refused, naming both versions" \
    "version is \"$version\", the control file's default_version 9.9 makes it 9.9.0" "$out"
sf_log "dist: all checks passed"
