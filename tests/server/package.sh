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
#  - the licence is one everywhere: LICENSE, debian/copyright (DEP-5, the
#    same text), META.json and the README;
#  - the package ships the licence and the docs under /usr/share/doc, as
#    Markdown the README's links still resolve in;
#  - its prerm warns, on removal, naming each cluster whose configuration
#    still preloads the library, and says nothing when none does (run
#    against a fake /etc/postgresql, never this system's clusters);
#  - unpacked (dpkg -x) over a copy of the server and preloaded, it passes the
#    regression suites run by `make installcheck`, which is also what its
#    autopkgtest (debian/tests) runs.
set -euo pipefail
source "$(dirname "$0")/../lib/cluster.sh"
sf_init_workspace

# --- one version everywhere ---------------------------------------------------
control_version=$(sf_extension_version)
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

# --- one licence everywhere ----------------------------------------------------
# LICENSE is the copyright line, then the licence's text; debian/copyright
# carries the same holder and, as its stand-alone License paragraph, the same
# text (continuation lines indented by one space, '.' for a blank line).
python3 - "$SF_ROOT" <<'EOF' || sf_die "the licence does not agree between its files"
import json, re, sys
root = sys.argv[1]
notice, _, text = open(f"{root}/LICENSE").read().partition("\n\n")
holder = re.fullmatch(r"Copyright \(c\) (\d{4}), (.+)", notice.strip())
assert holder, f"LICENSE does not start with a copyright line: {notice!r}"
assert text.startswith("Permission to use, copy, modify, and distribute this software"), \
    "LICENSE is not the PostgreSQL Licence"
paragraphs = open(f"{root}/debian/copyright").read().split("\n\n")
files = next(p for p in paragraphs if p.startswith("Files: *")).splitlines()
assert f"Copyright: {holder[1]}, {holder[2]}" in files, \
    f"debian/copyright's Files: * paragraph does not name {holder[1]}, {holder[2]}"
assert "License: PostgreSQL" in files, "debian/copyright: Files: * is not under PostgreSQL"
licence = next(p for p in paragraphs if p.startswith("License: PostgreSQL\n"))
body = "\n".join("" if l == " ." else l[1:] for l in licence.splitlines()[1:])
assert body.rstrip("\n") == text.rstrip("\n"), "debian/copyright's licence text differs from LICENSE"
meta = json.load(open(f"{root}/META.json"))
assert meta["license"] == "postgresql", f"META.json says license {meta['license']!r}"
assert re.search(r"\[PostgreSQL Licence\]\(LICENSE\)", open(f"{root}/README.md").read()), \
    "the README does not name the PostgreSQL Licence, linking to LICENSE"
EOF
sf_log "ok: LICENSE, debian/copyright, META.json and the README name one licence"

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
grep -qx "./usr/share/postgresql/15/extension/snowflake_id--$control_version.sql" <<<"$contents" ||
    sf_die "the package lacks snowflake_id--$control_version.sql, the full install script make builds"
sf_log "ok: ... and every install and update script, the built snowflake_id--$control_version.sql too"
sf_expect_match "... and the licence, as debian/copyright" \
    '^\./usr/share/doc/postgresql-15-snowflake-id/copyright$' "$contents"
cmp -s "$SF_ROOT/debian/copyright" <(dpkg-deb --fsys-tarfile "$deb" |
    tar -xOf - ./usr/share/doc/postgresql-15-snowflake-id/copyright) ||
    sf_die "the package's copyright file is not debian/copyright"
# The docs as they are in the tree, uncompressed, docs/ kept as a directory:
# the README's links to docs/*.md resolve in /usr/share/doc too. The
# upstream CHANGELOG.md is changelog.gz there, as Debian's policy has it.
for f in README.md CONTRIBUTING.md $(cd "$SF_ROOT" && git ls-files 'docs/*.md'); do
    grep -qx "./usr/share/doc/postgresql-15-snowflake-id/$f" <<<"$contents" ||
        sf_die "the package lacks /usr/share/doc/postgresql-15-snowflake-id/$f"
done
cmp -s "$SF_ROOT/CHANGELOG.md" <(dpkg-deb --fsys-tarfile "$deb" |
    tar -xOf - ./usr/share/doc/postgresql-15-snowflake-id/changelog.gz | gzip -dc) ||
    sf_die "the package's changelog.gz is not CHANGELOG.md"
sf_log "ok: ... and the README, CONTRIBUTING.md, docs/*.md, and CHANGELOG.md as changelog.gz"
sf_expect_match "it depends on its server" 'postgresql-15' "$(dpkg-deb -f "$deb" Depends)"
out=$(apt-get install --simulate "$deb" 2>&1) || sf_die "apt-get --simulate refused it: $out"
sf_expect_match "apt would install it on this system" '^Inst postgresql-15-snowflake-id ' "$out"

# --- the prerm warns about clusters that still preload the library -------------
dpkg-deb -e "$deb" "$SF_WORK/control"
prerm=$SF_WORK/control/prerm
[ -x "$prerm" ] || sf_die "the package has no prerm"
# A fake root with four clusters of 15 and one of 16, laid out as
# pg_createcluster does: "app" preloads it through conf.d, "auto" through
# ALTER SYSTEM (postgresql.auto.conf in its data directory), "gone" listed it
# once and a later file takes it out, "other" preloads a library whose name
# only starts the same, and 16's cluster, which the 15 package does not serve,
# preloads it too.
fake=$SF_WORK/prerm-root
fake_cluster() {  # major name line-for-postgresql.conf
    mkdir -p "$fake/etc/postgresql/$1/$2/conf.d" "$fake/var/lib/postgresql/$1/$2"
    printf "data_directory = '/var/lib/postgresql/%s/%s'\n%s\ninclude_dir = 'conf.d'\n" \
        "$1" "$2" "$3" >"$fake/etc/postgresql/$1/$2/postgresql.conf"
}
fake_cluster 15 app "#shared_preload_libraries = ''"
echo "shared_preload_libraries = 'pg_stat_statements, snowflake_id'   # IDs" \
    >"$fake/etc/postgresql/15/app/conf.d/snowflake_id.conf"
fake_cluster 15 auto "shared_preload_libraries = 'pg_stat_statements'"
echo "shared_preload_libraries = '\$libdir/snowflake_id'" \
    >"$fake/var/lib/postgresql/15/auto/postgresql.auto.conf"
fake_cluster 15 gone "shared_preload_libraries = 'snowflake_id'"
echo "shared_preload_libraries = ''" >"$fake/etc/postgresql/15/gone/conf.d/zz-off.conf"
fake_cluster 15 other "shared_preload_libraries = 'snowflake_idx'"
fake_cluster 16 main "shared_preload_libraries = 'snowflake_id'"
# conf.d in byte order, as the server reads it: B.conf before a.conf, so
# a.conf's setting is the one in force ("order" preloads it).
fake_cluster 15 order "#shared_preload_libraries = ''"
echo "shared_preload_libraries = 'snowflake_id'" >"$fake/etc/postgresql/15/order/conf.d/a.conf"
echo "shared_preload_libraries = 'pg_stat_statements'" >"$fake/etc/postgresql/15/order/conf.d/B.conf"
out=$(SNOWFLAKE_ID_PRERM_ROOT=$fake LANG=C.UTF-8 "$prerm" remove 2>&1) || sf_die "the prerm failed: $out"
sf_expect_match "prerm remove warns" '^postgresql-15-snowflake-id: WARNING: ' "$out"
sf_expect_match "... naming a cluster that preloads it through conf.d, and the file" \
    '^  15/app \(shared_preload_libraries in /etc/postgresql/15/app/conf\.d/snowflake_id\.conf\)$' \
    "$out"
sf_expect_match "... and one that preloads it through ALTER SYSTEM" \
    '^  15/auto \(shared_preload_libraries in /var/lib/postgresql/15/auto/postgresql\.auto\.conf\)$' \
    "$out"
sf_expect_match "... and one whose conf.d sets it last in byte order" \
    '^  15/order \(shared_preload_libraries in /etc/postgresql/15/order/conf\.d/a\.conf\)$' "$out"
sf_expect_eq "... and no other cluster" 3 "$(grep -c '^  1[56]/' <<<"$out")"
sf_expect_match "... and says what the next start would print" \
    'FATAL:  could not access file "snowflake_id"' "$out"
out=$(SNOWFLAKE_ID_PRERM_ROOT=$fake "$prerm" upgrade 1.6.0-2 2>&1) || sf_die "prerm upgrade failed: $out"
sf_expect_eq "prerm upgrade says nothing (the library stays)" "" "$out"
rm "$fake/etc/postgresql/15/app/conf.d/snowflake_id.conf" \
    "$fake/var/lib/postgresql/15/auto/postgresql.auto.conf" \
    "$fake/etc/postgresql/15/order/conf.d/a.conf"
out=$(SNOWFLAKE_ID_PRERM_ROOT=$fake "$prerm" remove 2>&1) || sf_die "the prerm failed: $out"
sf_expect_eq "prerm remove says nothing once no cluster of 15 preloads it" "" "$out"

# --- the installed files pass the regression suites ----------------------------
dpkg-deb -x "$deb" "$SF_WORK/unpacked"
SF_STAGE_FROM=$SF_WORK/unpacked sf_stage
sf_expect_eq "the stage's library is the package's" \
    "$(sha256sum <"$SF_WORK/unpacked/usr/lib/postgresql/15/lib/snowflake_id.so")" \
    "$(sha256sum <"$SF_STAGE$($SF_PG_CONFIG --pkglibdir)/snowflake_id.so")"
sf_expect_eq "the autopkgtest runs pg_buildext installcheck" "pg_buildext installcheck" \
    "$(grep -v '^#' "$SF_ROOT/debian/tests/installcheck" | grep pg_buildext)"
# shellcheck disable=SC2119 # no TREE: a copy of this tree's files, as meant
sf_installcheck || sf_die "make installcheck failed against the package's files"
sf_log "package: all checks passed"
