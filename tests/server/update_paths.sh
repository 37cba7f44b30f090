#!/usr/bin/env bash
# Every update path from what users really have: each release recorded in
# RELEASES is installed from that release commit's own scripts and control
# file (git show COMMIT:FILE), with this tree's library, then updated with
# this tree's scripts (ALTER EXTENSION snowflake_id UPDATE), and must then
# hold exactly what a fresh install holds: tests/lib/extension_catalog.sql
# describes both (members, function definitions, operators, operator
# classes and families, casts, tables and views, comments, owners,
# privileges), and any difference fails with the diff. The updated
# database then answers the README's query by time (WHERE id >= now() -
# interval '1 day', which a 1.5.0-1 install updated to 1.6 refused), also
# on a table of the application's written before the update (from 1.4, which
# has the snowflake type), by the key's index, and passes the regression
# suites that exercise the functions.
# Also:
#  - a server of the 1.5.0-1 package, which leased through the registry's
#    functions, calling a registry updated from that release: a clear
#    ERROR that says to update the server first;
#  - each release updated to the last release with that release's scripts
#    (1.5.0-1 updated to 1.6.0-1, as its users did), then to the newest;
#  - a stand-in for a missing operator made by a DBA on such a 1.6, with a
#    function of the name 1.7 gives it, a commutator (a shell operator) and
#    a view using it: the update refuses all three in one ERROR, the shell alone once the operator is dropped, and
#    goes through once both are;
#  - 1.6, and 1.5.0-1 updated to 1.6, in a schema whose name needs quoting
#    ("App Schema"), compared with a fresh install there;
#  - a 1.6 where the DBA revoked and granted privileges, changed comments
#    and made a function of a name 1.5.0-1 had: all kept by the update;
#  - the update to the newest run again over a database it updated (the
#    version set back by hand): it changes nothing;
#  - through every release in turn: 1.0, then each later release's own
#    update scripts, then this tree's;
#  - 1.5 as installed from every commit that changed its scripts between
#    the 1.5 release and the 1.6 release (1.5's scripts changed after
#    1.5.0-1 shipped), then updated.
# The suites run on the update from each release, the update through every
# release and the update run twice; the other paths compare the catalog and
# run the README's query. One server, one database per path. SF_UPDATE_PATHS_ONLY="1.5 ..." runs
# only the direct paths from those releases.
set -euo pipefail
source "$(dirname "$0")/../lib/cluster.sh"
sf_init_workspace
sf_stage
git -C "$SF_ROOT" rev-parse --verify -q HEAD >/dev/null ||
    sf_die "$SF_ROOT is not a git checkout: the releases' scripts come from its history"

PG_REGRESS=$(dirname "$($SF_PG_CONFIG --pgxs)")/../test/regress/pg_regress
ext_dir=$SF_STAGE$($SF_PG_CONFIG --sharedir)/extension
newest=$(sf_extension_version)
# The suites that exercise the functions and leave the extension in place
# (CREATE EXTENSION IF NOT EXISTS, no DROP EXTENSION).
suites=(snowflake_errors snowflake_toolkit snowflake_partitioning snowflake_registry
    snowflake_type snowflake_search_path snowflake_time snowflake_adopt snowflake_date_bin
    snowflake_public)

mkdir -p "$SF_WORK/tree" "$SF_WORK/regress"
cp "$ext_dir"/snowflake_id[-.]* "$SF_WORK/tree/"
cp -r "$SF_ROOT/sql" "$SF_ROOT/expected" "$SF_WORK/regress/"
chmod -R a+rX "$SF_WORK/regress"

# use_scripts COMMIT|tree: the stage's scripts and control file become
# those of COMMIT (every snowflake_id*.sql and the control file at the top
# of its tree), or this tree's again.
use_scripts() {
    local f
    rm -f "$ext_dir"/snowflake_id[-.]*
    if [ "$1" = tree ]; then
        cp "$SF_WORK/tree"/* "$ext_dir/"
    else
        for f in $(git -C "$SF_ROOT" ls-tree --name-only "$1" | grep -E '^snowflake_id(--.*\.sql|\.control)$'); do
            git -C "$SF_ROOT" show "$1:$f" >"$ext_dir/$f"
        done
    fi
    chmod a+r "$ext_dir"/snowflake_id[-.]*
}

catalog() {
    sf_psql main -d "$1" -f "$SF_ROOT/tests/lib/extension_catalog.sql"
}

sf_new main "snowflake_id.worker_id = 7"
sf_start main || sf_die "the server did not start"

use_scripts tree
sf_psql main -c "CREATE DATABASE fresh"
sf_psql main -d fresh -c "CREATE EXTENSION snowflake_id"
catalog fresh >"$SF_WORK/fresh.catalog"
fresh_members=$(grep -c $'\tmember\t' "$SF_WORK/fresh.catalog")
sf_log "a fresh install of $newest: $fresh_members members, $(wc -l <"$SF_WORK/fresh.catalog") lines of catalog"

# compare DB WHAT [catalog-only]: DB's catalog against the fresh install's,
# the README's query, then (unless catalog-only) the suites on DB.
compare() {
    local db=$1 what=$2 only=${3:-} out=$SF_WORK/regress/out_$1
    catalog "$db" >"$SF_WORK/$db.catalog"
    if ! diff -u --label "fresh install of $newest" --label "$what" \
        "$SF_WORK/fresh.catalog" "$SF_WORK/$db.catalog" >"$SF_WORK/$db.diff"; then
        cat "$SF_WORK/$db.diff" >&2
        sf_die "$what differs from a fresh install of $newest (the diff above: - fresh, + updated)"
    fi
    sf_log "ok: $what: the same as a fresh install, $(grep -c $'\tmember\t' "$SF_WORK/$db.catalog") members compared ($(wc -l <"$SF_WORK/$db.catalog") lines)"
    # The README's headline query, on the updated database.
    sf_expect_eq "$what: the README's query by time, WHERE id >= now() - interval '1 day'" "3 2" \
        "$(sf_psql main -d "$db" \
            -c "CREATE TEMP TABLE readme_events (id snowflake PRIMARY KEY DEFAULT snowflake_nextval(), body text)" \
            -c "INSERT INTO readme_events (id, body) VALUES (snowflake_from_timestamp(now() - interval '2 days'), 'old')" \
            -c "INSERT INTO readme_events (body) VALUES ('new'), ('newer')" \
            -c "SELECT count(*) || ' ' || count(*) FILTER (WHERE id >= now() - interval '1 day') FROM readme_events")"
    if [ "$(sf_psql main -d "$db" -c "SELECT to_regclass('app_events') IS NOT NULL")" = t ]; then
        sf_expect_eq "$what: ... and on the rows written before the update" 1 \
            "$(sf_psql main -d "$db" \
                -c "SELECT count(*) FROM app_events WHERE id >= now() - interval '1 day'")"
        sf_expect_match "$what: ... by the key's index, as an ID range" \
            "Index Cond: \\(\\(id >= snowflake_first_at_or_after\\(" \
            "$(sf_psql main -d "$db" -c "SET enable_seqscan = off" \
                -c "EXPLAIN (COSTS OFF) SELECT * FROM app_events WHERE id >= now() - interval '1 day'")"
    fi
    [ "$only" != catalog-only ] || return 0
    mkdir -p "$out"
    if ! "$PG_REGRESS" --inputdir="$SF_WORK/regress" --outputdir="$out" --bindir="$SF_CLIENT_BIN" \
        --host="$(sf_sockdir main)" --port="$SF_PORT" --user=postgres --use-existing \
        --dbname="$db" "${suites[@]}" >"$out/pg_regress.log" 2>&1; then
        cat "$out/pg_regress.log" "$out/regression.diffs" >&2 || true
        sf_die "$what: the regression suites fail on the updated database"
    fi
    sf_log "ok: $what: ${#suites[@]} regression suites pass on it"
}

# install DB COMMIT VERSION: a database with VERSION installed from
# COMMIT's own scripts.
install() {
    sf_psql main -c "CREATE DATABASE $1"
    use_scripts "$2"
    sf_psql main -d "$1" -c "CREATE EXTENSION snowflake_id VERSION '$3'" ||
        sf_die "CREATE EXTENSION snowflake_id VERSION '$3' from $2's scripts failed with this tree's library"
    # Data of the application's, where the version has the snowflake type
    # (1.4): a row of two days ago and one of now, under the type's index,
    # which the update must leave working.
    sf_psql main -d "$1" -c "DO \$\$ BEGIN IF to_regtype('snowflake') IS NOT NULL THEN
        CREATE TABLE app_events (id snowflake PRIMARY KEY, body text);
        INSERT INTO app_events VALUES (snowflake_from_timestamp(now() - interval '2 days'), 'old'),
                                      (snowflake_nextval(), 'new');
        END IF; END \$\$"
}

update() {
    use_scripts "${2:-tree}"
    local out
    out=$(sf_psql main -d "$1" -c "ALTER EXTENSION snowflake_id UPDATE" 2>&1) ||
        sf_die "ALTER EXTENSION snowflake_id UPDATE in $1 with ${2:-this tree}'s scripts failed: $out"
}

releases=()
while read -r version commit _; do
    [[ -z $version || $version == \#* ]] && continue
    git -C "$SF_ROOT" cat-file -e "$commit^{commit}" 2>/dev/null ||
        sf_die "RELEASES: $version's commit $commit is not in this repository"
    releases+=("$version:$commit")
done <"$SF_ROOT/RELEASES"
[ "${#releases[@]}" -gt 0 ] || sf_die "RELEASES lists no release"

summary=()
for r in "${releases[@]}"; do
    version=${r%%:*} commit=${r#*:}
    [ -z "${SF_UPDATE_PATHS_ONLY:-}" ] || [[ " $SF_UPDATE_PATHS_ONLY " == *" $version "* ]] || continue
    db=from_${version//./_}
    install "$db" "$commit" "$version"
    update "$db"
    compare "$db" "$version (${commit:0:7}) updated to $newest"
    summary+=("$version: $(grep -c $'\tmember\t' "$SF_WORK/$db.catalog")")
done

# The last release's 1.6 in a schema whose name needs quoting, and 1.5.0-1
# updated to it there: the update looks its objects up by the schema's
# bare name (pg_extension's), not by @extschema@, which is the quoted
# identifier; each the same as a fresh install in such a schema.
last=${releases[-1]}
first15=$(grep -E '^1\.5 ' "$SF_ROOT/RELEASES" | cut -d' ' -f2)
quoted_install() {
    sf_psql main -c "CREATE DATABASE $1"
    use_scripts "$2"
    sf_psql main -d "$1" -c 'CREATE SCHEMA "App Schema"' \
        -c "CREATE EXTENSION snowflake_id VERSION '$3' SCHEMA \"App Schema\""
}
quoted_install fresh_quoted tree "$newest"
catalog fresh_quoted >"$SF_WORK/fresh_quoted.catalog"
quoted_install quoted_1_6 "${last#*:}" "${last%%:*}"
quoted_install quoted_1_5 "$first15" 1.5
update quoted_1_5 "${last#*:}"
for db in quoted_1_6 quoted_1_5; do
    update "$db"
    catalog "$db" >"$SF_WORK/$db.catalog"
    diff -u "$SF_WORK/fresh_quoted.catalog" "$SF_WORK/$db.catalog" >&2 ||
        sf_die "$db: updated in the schema \"App Schema\", it differs from a fresh install there"
    sf_log "ok: $db: updated in the schema \"App Schema\", the same as a fresh install there"
done
summary+=("1.6 and 1.5.0-1 in a schema \"App Schema\": $(grep -c $'\tmember\t' "$SF_WORK/quoted_1_5.catalog")")

# A 1.6 where the DBA changed privileges and a comment, and made a function
# of the name and arguments of one that 1.5.0-1 had: the update keeps all
# of it, and records no privilege of the DBA's as the extension's own
# (pg_init_privs, which pg_dump leaves out).
db=dba_1_6
install "$db" "${last#*:}" "${last%%:*}"
sf_psql main -c "CREATE ROLE sf_update_paths_app"
sf_psql main -d "$db" -c "REVOKE SELECT ON snowflake_id.snowflake_status FROM PUBLIC" \
    -c "REVOKE USAGE ON SCHEMA snowflake_id FROM PUBLIC" \
    -c "GRANT EXECUTE ON FUNCTION snowflake_accept_layout() TO sf_update_paths_app" \
    -c "COMMENT ON FUNCTION snowflake_nextval() IS 'the DBA''s'" \
    -c "COMMENT ON SCHEMA snowflake_id IS 'the DBA''s schema'" \
    -c "CREATE FUNCTION snowflake_registry_is_live(l snowflake_id.snowflake_registry_lease,
            t timestamptz) RETURNS boolean LANGUAGE sql AS 'SELECT true'"
dba_state() {
    sf_psql main -d "$db" -c "SELECT concat_ws(' | ',
        (SELECT relacl::text FROM pg_class WHERE oid = 'snowflake_id.snowflake_status'::regclass),
        (SELECT nspacl::text FROM pg_namespace WHERE nspname = 'snowflake_id'),
        (SELECT proacl::text FROM pg_proc WHERE oid = 'snowflake_accept_layout()'::regprocedure),
        (SELECT initprivs::text FROM pg_init_privs
         WHERE objoid = 'snowflake_accept_layout()'::regprocedure AND privtype = 'e'),
        obj_description('snowflake_nextval()'::regprocedure, 'pg_proc'),
        obj_description('snowflake_id'::regnamespace, 'pg_namespace'),
        to_regprocedure('snowflake_registry_is_live(snowflake_id.snowflake_registry_lease, timestamptz)'))"
}
before=$(dba_state)
sf_expect_match "a 1.6 with the DBA's privileges, comments and function" "sf_update_paths_app=X.*the DBA's.*snowflake_registry_is_live" "$before"
update "$db"
sf_expect_eq "... the update to $newest keeps them all" "$before" "$(dba_state)"

# A server of the 1.5.0-1 package leased through the registry's functions
# (its library's call, as it sends it); a registry updated from that 1.5 to
# 1.6 answered it 42704 type "snowflake_registry_layout" does not exist
# from the old function bodies. Updated to the newest, it refuses it
# clearly: update the server first.
if [ -d "$SF_WORK/regress/out_from_1_5" ]; then
    out=$(sf_psql main -d from_1_5 -v VERBOSITY=verbose -c "SELECT node_id, fence, floor_ms
        FROM public.snowflake_registry_acquire(NULL, NULL, NULL, 7001, 101, 'hosta', 5432,
            '/data/a', 1, 0, 2, 12, 1577836800000, 1000, 60000, 0)" 2>&1) &&
        sf_die "the registry leased to a server of the 1.5.0-1 package: $out"
    sf_expect_match "a server of 1.5.0-1 calling the repaired registry: 0A000, naming its version" \
        "ERROR:  0A000: this registry \(snowflake_id $newest\) no longer leases node ids" "$out"
    sf_expect_match "... and the DETAIL says to update the server first" \
        "or of the 1.5 of the 1.5.0-1 package; .*Update snowflake_id on every server before" "$out"
fi

if [ -z "${SF_UPDATE_PATHS_ONLY:-}" ]; then
    # Each earlier release updated to the last release with the last
    # release's scripts, as its users did, then to the newest.
    last=${releases[-1]}
    for r in "${releases[@]:0:${#releases[@]}-1}"; do
        version=${r%%:*} commit=${r#*:}
        db=via_${version//./_}
        install "$db" "$commit" "$version"
        update "$db" "${last#*:}"
        update "$db"
        compare "$db" "$version (${commit:0:7}) updated to ${last%%:*} (${last#*:}), then to $newest" catalog-only
        summary+=("$version, then ${last%%:*}: $(grep -c $'\tmember\t' "$SF_WORK/$db.catalog")")
    done

    # The update run again over a database it brought to the newest version
    # (its version set back by hand) changes nothing.
    db=from_${last%%:*}
    db=${db//./_}
    sf_psql main -d "$db" -c "UPDATE pg_extension SET extversion = '${last%%:*}'
                              WHERE extname = 'snowflake_id'"
    update "$db"
    compare "$db" "${last%%:*} updated to $newest, then the update to $newest run again"
    summary+=("the update to $newest run twice: $(grep -c $'\tmember\t' "$SF_WORK/$db.catalog")")

    # 1.5.0-1 updated to 1.6, where a DBA made a stand-in for a missing
    # operator: the update refuses to take it over, naming it, and once it
    # is dropped, updates.
    db=stand_in
    install "$db" "$first15" 1.5
    update "$db" "${last#*:}"
    sf_psql main -d "$db" -c "CREATE FUNCTION snowflake_ge(snowflake, timestamptz) RETURNS boolean
        LANGUAGE sql IMMUTABLE AS 'SELECT \$1::bigint >= snowflake_from_timestamp(\$2)'" \
        -c "CREATE OPERATOR >= (LEFTARG = snowflake, RIGHTARG = timestamptz, FUNCTION = snowflake_ge,
                                COMMUTATOR = <=)" \
        -c "CREATE TABLE app_rows (id snowflake)" \
        -c "CREATE VIEW app_recent AS SELECT * FROM app_rows WHERE id >= now()"
    use_scripts tree
    out=$(sf_psql main -d "$db" -v VERBOSITY=verbose -c "ALTER EXTENSION snowflake_id UPDATE" 2>&1) &&
        sf_die "the update took over an operator made outside the extension: $out"
    sf_expect_match "an operator and its function of the DBA's where the update creates them: refused, naming them and the shell of its commutator" \
        "ERROR:  42710: snowflake_id 1.7 creates 3 objects that exist and are not snowflake_id's: function snowflake_ge\(snowflake,timestamp with time zone\), operator >=\(snowflake,timestamp with time zone\), shell operator <=\(timestamp with time zone,snowflake\)" \
        "$out"
    sf_expect_match "... with a HINT: drop them, never with CASCADE" "HINT:  Drop each of them .*never with CASCADE" "$out"
    sf_expect_eq "... and the extension stays at ${last%%:*}" "${last%%:*}" \
        "$(sf_psql main -d "$db" -c "SELECT extversion FROM pg_extension WHERE extname = 'snowflake_id'")"
    # As docs/upgrading.md says: the dependents, the operator and its function
    # dropped; the shell alone is still refused.
    sf_psql main -d "$db" -c "DROP VIEW app_recent" -c "DROP OPERATOR >= (snowflake, timestamptz)" \
        -c "DROP FUNCTION snowflake_ge(snowflake, timestamptz)"
    out=$(sf_psql main -d "$db" -c "ALTER EXTENSION snowflake_id UPDATE" 2>&1) &&
        sf_die "the update took over the shell of an operator made outside the extension: $out"
    sf_expect_match "the shell operator left behind: refused, named as a shell" \
        "ERROR:  snowflake_id 1.7 creates an object that exists and is not snowflake_id's: shell operator <=\(timestamp with time zone,snowflake\)$" \
        "$(head -1 <<<"$out")"
    sf_psql main -d "$db" -c "DROP OPERATOR <= (timestamptz, snowflake)"
    update "$db"
    compare "$db" "1.5.0-1 updated to ${last%%:*}, a stand-in operator dropped, then updated to $newest" catalog-only
    sf_psql main -d "$db" -c "CREATE VIEW app_recent AS SELECT * FROM app_rows WHERE id >= now()"
    sf_expect_eq "... and the DBA's view made again uses the extension's operator" 1 \
        "$(sf_psql main -d "$db" -c "SELECT count(*) FROM pg_depend d JOIN pg_rewrite r ON r.oid = d.objid
            WHERE d.classid = 'pg_rewrite'::regclass AND r.ev_class = 'app_recent'::regclass
              AND d.refobjid = '>=(snowflake, timestamptz)'::regoperator
              AND EXISTS (SELECT FROM pg_depend e WHERE e.objid = d.refobjid AND e.deptype = 'e'
                          AND e.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'snowflake_id'))")"
    summary+=("1.5, then ${last%%:*}, a stand-in refused: $(grep -c $'\tmember\t' "$SF_WORK/$db.catalog")")

    # 1.6 as this tree installs it (CREATE EXTENSION ... VERSION '1.6' runs
    # the frozen snowflake_id--1.6.sql), then updated.
    use_scripts tree
    sf_psql main -c "CREATE DATABASE tree_1_6"
    sf_psql main -d tree_1_6 -c "CREATE EXTENSION snowflake_id VERSION '1.6'"
    update tree_1_6
    compare tree_1_6 "1.6 installed from this tree's snowflake_id--1.6.sql, updated to $newest" catalog-only
    summary+=("1.6 from this tree: $(grep -c $'\tmember\t' "$SF_WORK/tree_1_6.catalog")")

    # Through every release in turn, each step with that release's scripts.
    first=${releases[0]}
    install through "${first#*:}" "${first%%:*}"
    for r in "${releases[@]:1}"; do
        update through "${r#*:}"
    done
    update through
    compare through "${first%%:*} updated through every release to $newest"
    summary+=("through every release: $(grep -c $'\tmember\t' "$SF_WORK/through.catalog")")

    # 1.5 from each commit that changed its scripts after the 1.5 release
    # and before the 1.6 release.
    from=$(grep -E '^1\.5 ' "$SF_ROOT/RELEASES" | cut -d' ' -f2)
    to=$(grep -E '^1\.6 ' "$SF_ROOT/RELEASES" | cut -d' ' -f2)
    for commit in $(git -C "$SF_ROOT" rev-list --full-history --reverse "$from..$to" -- \
        snowflake_id--1.5.sql snowflake_id--1.4--1.5.sql snowflake_id.control); do
        [ "$(git -C "$SF_ROOT" show "$commit:snowflake_id.control" |
            sed -n "s/^default_version = '\(.*\)'$/\1/p")" = 1.5 ] || continue
        db=at_${commit:0:7}
        install "$db" "$commit" 1.5
        update "$db"
        compare "$db" "1.5 at ${commit:0:7} updated to $newest" catalog-only
        summary+=("1.5 at ${commit:0:7}: $(grep -c $'\tmember\t' "$SF_WORK/$db.catalog")")
    done
fi

sf_log "update paths: every one the same as a fresh install of $newest ($fresh_members members); members compared per path:"
printf '  %s\n' "${summary[@]}" >&2
