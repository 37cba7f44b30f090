#!/usr/bin/env bash
# The ways a DBA installs snowflake_id, tested as they are used:
#  - META.json (PGXN) is complete and carries the version of the control
#    file (tools/check-meta, which `make dist` runs too), as does
#    debian/changelog (the module's magic block gets it from the Makefile;
#    startup.sh checks it on PostgreSQL 18);
#  - dpkg-buildpackage -us -uc -b builds postgresql-15-snowflake-id the
#    pg_buildext way, from a copy of the tree;
#  - the package holds the library, the control file and every script, and
#    would install here (apt-get --simulate resolves its dependencies);
#  - unpacked (dpkg -x) over a copy of the server and preloaded, it passes the
#    regression suites run by `make installcheck`, which is also what its
#    autopkgtest (debian/tests) runs.
set -euo pipefail
source "$(dirname "$0")/../lib/cluster.sh"
sf_init_workspace

# --- one version everywhere ---------------------------------------------------
control_version=$(sed -n "s/^default_version = '\(.*\)'/\1/p" "$SF_ROOT/snowflake_id.control")
semver=$control_version.0
out=$("$SF_ROOT/tools/check-meta" 2>&1) || sf_die "META.json: $out"
sf_log "ok: META.json: every key PGXN requires, the control file's version (tools/check-meta)"
meta_pg=$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["prereqs"]["runtime"]["requires"]["PostgreSQL"])' "$SF_ROOT/META.json")
sf_expect_eq "META.json: the oldest PostgreSQL is the one the code refuses below" \
    "$(sed -n 's/^#if PG_VERSION_NUM < \([0-9]*\)0000$/\1/p' "$SF_ROOT/src/pg/pg_compat.hpp").0.0" \
    "$meta_pg"
sf_expect_eq "debian/pgversions starts at the same major" "${meta_pg%%.*}+" \
    "$(cat "$SF_ROOT/debian/pgversions")"
sf_expect_eq "debian/changelog: the upstream version is the control file's" "$semver" \
    "$(dpkg-parsechangelog -l "$SF_ROOT/debian/changelog" -S Version | sed 's/-[^-]*$//')"

# --- the package ------------------------------------------------------------------
src=$SF_WORK/src
mkdir -p "$src"
(cd "$SF_ROOT" && tar -cf - --exclude=./build --exclude=./.git --exclude='*.o' --exclude='*.so' \
    --exclude=./results --exclude=./tmp_check --exclude=./debian/.debhelper . ) | tar -xf - -C "$src"
(cd "$src" && dpkg-buildpackage -us -uc -b >"$SF_WORK/build.log" 2>&1) ||
    { tail -40 "$SF_WORK/build.log" >&2; sf_die "dpkg-buildpackage failed"; }
deb=$SF_WORK/postgresql-15-snowflake-id_${semver}-1_amd64.deb
[ -f "$deb" ] || sf_die "no $(basename "$deb"); built: $(ls "$SF_WORK"/*.deb)"
sf_log "ok: dpkg-buildpackage built $(basename "$deb")"

contents=$(dpkg-deb -c "$deb" | awk '{print $6}')
sf_expect_match "the package holds the library" '^\./usr/lib/postgresql/15/lib/snowflake_id\.so$' \
    "$contents"
sf_expect_match "... and the control file" \
    '^\./usr/share/postgresql/15/extension/snowflake_id\.control$' "$contents"
for f in "$SF_ROOT"/snowflake_id--*.sql; do
    grep -qx "./usr/share/postgresql/15/extension/$(basename "$f")" <<<"$contents" ||
        sf_die "the package lacks $(basename "$f")"
done
sf_log "ok: ... and every install and update script"
sf_expect_match "it depends on its server" 'postgresql-15' "$(dpkg-deb -f "$deb" Depends)"
out=$(apt-get install --simulate "$deb" 2>&1) || sf_die "apt-get --simulate refused it: $out"
sf_expect_match "apt would install it on this system" '^Inst postgresql-15-snowflake-id ' "$out"

# --- the installed files pass the regression suites ----------------------------
dpkg-deb -x "$deb" "$SF_WORK/unpacked"
SF_STAGE_FROM=$SF_WORK/unpacked sf_stage
sf_expect_eq "the stage's library is the package's" \
    "$(sha256sum <"$SF_WORK/unpacked/usr/lib/postgresql/15/lib/snowflake_id.so")" \
    "$(sha256sum <"$SF_STAGE$($SF_PG_CONFIG --pkglibdir)/snowflake_id.so")"
sf_expect_eq "the autopkgtest runs pg_buildext installcheck" "pg_buildext installcheck" \
    "$(grep -v '^#' "$SF_ROOT/debian/tests/installcheck" | grep pg_buildext)"
sf_installcheck || sf_die "make installcheck failed against the package's files"
sf_log "package: all checks passed"
