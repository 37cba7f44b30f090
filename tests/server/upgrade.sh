#!/usr/bin/env bash
# pg_upgrade, as the README tells a DBA to run it: the new cluster preloads
# snowflake_id with the same settings, and snowflake_id.state is copied from
# the old data directory into the new one before the new cluster's first
# start. Within one major, on the server PG_CONFIG names, which must carry
# pg_upgrade and the programs it runs (the system's 15 does; for another
# major, PG_CONFIG=$(tools/fetch-pg --full 16) and so on); across majors,
# 15 to 19: tests/server/pg_upgrade_chain.sh:
#  - the table and its DEFAULT snowflake_nextval() come through, and the
#    extension keeps its version and its schema snowflake_id (1.6);
#  - the snowflake type's operator families come through whole and valid
#    (they hold built-in operators as loose members), serving
#    id = ANY(integer[]) by the key;
#  - with the new server's clock an hour behind the last IDs, the new
#    cluster resumes above them (the copied file's floor), with no duplicate;
#    its first ID checked the old cluster's origin row (a new system
#    identifier: docs/durability.md, "Logical restores") and the origin
#    table's trigger came through;
#  - the layout lock comes through: the new cluster started with another
#    epoch refuses to issue;
#  - without the copy, the new cluster would start from its wall clock: the
#    log says "no state file", which is why the README asks for the copy;
#  - in binary-upgrade mode (the server as pg_upgrade starts it, -b),
#    snowflake_nextval() refuses with its ERROR, the status reads, and the
#    state file is left as it was;
#  - back to the old cluster after the new one issued IDs, with the new
#    cluster's state file copied back (docs/upgrading.md): above them,
#    with its clock an hour behind them.
set -euo pipefail
source "$(dirname "$0")/../lib/cluster.sh"
sf_require_upgrade_programs
sf_init_workspace
sf_stage
sf_fake_clock
sf_stage_upgrade_programs
layout=("snowflake_id.worker_id = 4" "snowflake_id.epoch = '2024-01-01T00:00:00Z'")

sf_new old "${layout[@]}"
sf_start old "${SF_FAKE_ENV[@]}" || sf_die "the old cluster did not start"
sf_psql old -c "CREATE EXTENSION snowflake_id" \
    -c "CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT snowflake_nextval(), note text)" \
    -c "INSERT INTO orders (note) SELECT 'before' FROM generate_series(1, 20000)"
sf_psql old -c "COPY (SELECT id FROM orders) TO STDOUT" >"$SF_WORK/old.ids"
old_version=$(sf_psql old -c "SELECT extversion FROM pg_extension WHERE extname = 'snowflake_id'")
# The snowflake type's families hold built-in operators (integer's, for
# id = ANY(integer[])), which pg_upgrade's dump carries as loose members.
family_members="SELECT (SELECT count(*) FROM pg_amop WHERE amopfamily IN (SELECT oid FROM pg_opfamily
                           WHERE opfname LIKE 'snowflake%'))
                    + (SELECT count(*) FROM pg_amproc WHERE amprocfamily IN (SELECT oid FROM pg_opfamily
                           WHERE opfname LIKE 'snowflake%'))"
sf_psql old -c "CREATE TABLE keyed (id snowflake PRIMARY KEY)" \
    -c "INSERT INTO keyed SELECT g FROM generate_series(1, 1000) g"
old_members=$(sf_psql old -c "$family_members")
sf_stop old

# A copy of the old cluster's state file as a backup holds it: taken while
# it ran, before its last IDs and its stop.
sf_start old "${SF_FAKE_ENV[@]}" || sf_die "the old cluster did not start again"
sf_as_server cp -p "$(sf_datadir old)/snowflake_id.state" "$SF_WORK/backup.state"
sf_psql old -c "INSERT INTO orders (note) SELECT 'after the backup' FROM generate_series(1, 1000)"
sf_psql old -c "COPY (SELECT id FROM orders) TO STDOUT" >"$SF_WORK/old.ids"
sf_stop old

# The application's role: INSERT on its table and nothing of the
# extension's (the restore check the new system identifier calls for reads
# snowflake_origin without the caller's rights).
app_grants="GRANT SELECT, INSERT ON orders TO app"
# as_app NAME [psql args]: as an application connects, an ordinary role.
as_app() {
    local name=$1
    shift
    sf_psql "$name" -c "SET ROLE app" "$@"
}
# sqlstate_of NAME: the SQLSTATE snowflake_nextval() raises for app on NAME.
sqlstate_of() {
    as_app "$1" -c "DO \$\$ BEGIN PERFORM snowflake_nextval(); EXCEPTION WHEN OTHERS THEN
        RAISE NOTICE '%', SQLSTATE; END \$\$" 2>&1 | sed -n 's/.*NOTICE: *//p'
}

# upgrade_to NAME [copy-state] [PG_UPGRADE_OPTION...]: a new cluster NAME,
# pg_upgrade from old into it.
upgrade_to() {
    local name=$1 copy=${2:-}
    shift $(($# < 2 ? $# : 2))
    sf_new "$name" "${layout[@]}"
    mkdir -p "$SF_WORK/$name/run"
    [ "$(id -u)" = 0 ] && chown postgres: "$SF_WORK/$name/run"
    local runs=("$*")
    # --check first, as DBAs do: it starts both clusters in binary-upgrade
    # mode, and the real run and the copy must not depend on its absence.
    [ "${1:-}" != --check ] || { shift; runs=(--check "$*"); }
    local options
    for options in "${runs[@]}"; do
        # shellcheck disable=SC2086 # options are words
        (cd "$SF_WORK/$name/run" && sf_as_server "$SF_STAGE_BIN/pg_upgrade" \
            -b "$SF_STAGE_BIN" -B "$SF_STAGE_BIN" -d "$(sf_datadir old)" -D "$(sf_datadir "$name")" \
            -s "$SF_WORK/$name/run" -p 50432 -P 50433 $options >>"$SF_WORK/$name/upgrade.log" 2>&1) ||
            { tail -30 "$SF_WORK/$name/upgrade.log" >&2; sf_die "pg_upgrade $options into $name failed"; }
        sf_log "ok: pg_upgrade $options into $name"
    done
    if [ "$copy" = copy-state ]; then
        # The step the README asks for, before the new cluster's first start.
        sf_as_server cp -p "$(sf_datadir old)/snowflake_id.state" "$(sf_datadir "$name")/"
    fi
}

# --- with the state file copied, the clock an hour behind ----------------------
upgrade_to new copy-state --check
echo "-3600" >"$SF_CLOCK"
sf_start new "${SF_FAKE_ENV[@]}" || sf_die "the upgraded cluster did not start"
sf_expect_eq "the extension keeps its version" "$old_version" \
    "$(sf_psql new -c "SELECT extversion FROM pg_extension WHERE extname = 'snowflake_id'")"
sf_expect_eq "the rows came through" 21000 "$(sf_psql new -c "SELECT count(*) FROM orders")"
sf_expect_eq "the schema snowflake_id came through as the extension's, with its view" "1 1" \
    "$(sf_psql new -c "SELECT (SELECT count(*) FROM pg_depend WHERE deptype = 'e'
                                 AND classid = 'pg_namespace'::regclass
                                 AND objid = 'snowflake_id'::regnamespace)
                       || ' ' || (SELECT count(*) FROM snowflake_id.snowflake_status)")"
sf_expect_eq "the snowflake type's families came through whole" "$old_members" \
    "$(sf_psql new -c "$family_members")"
sf_expect_eq "... and are valid" "true true true" "$(sf_psql new -c "SELECT string_agg(amvalidate(oid)::text, ' ')
    FROM pg_opclass WHERE opcname IN ('snowflake_ops', 'snowflake_hash_ops', 'snowflake_minmax_ops')")"
sf_expect_eq "... and serve id = ANY(integer[]) by the key" 3 \
    "$(sf_psql new -c "SET enable_seqscan = off" -c "SELECT count(*) FROM keyed WHERE id = ANY (ARRAY[1, 2, 3])")"
sf_expect_match "the new cluster resumes from the copied file" \
    'LOG: +snowflake_id: the generator resumes at .*, above ' "$(sf_server_log new)"
sf_psql new -c "CREATE ROLE app LOGIN" -c "$app_grants"
as_app new -c "INSERT INTO orders (note) SELECT 'after' FROM generate_series(1, 20000)"
sf_psql new -c "COPY (SELECT id FROM orders WHERE note = 'after') TO STDOUT" >"$SF_WORK/new.ids"
sf_expect_above "after pg_upgrade with the clock an hour behind" "$SF_WORK/old.ids" -- "$SF_WORK/new.ids"
sf_expect_eq "the new cluster's own state file replaced pg_upgrade's mark" "" \
    "$(sf_as_server ls "$(sf_datadir new)/snowflake_id.upgraded" 2>/dev/null || true)"
# pg_upgrade gives the new cluster a new system identifier: its first ID
# checked the old cluster's origin row (docs/durability.md, "Logical
# restores"), finding the floor above it already, and the trigger that
# calls for a check when a restore brings rows came through.
sf_expect_eq "the old cluster's origin was checked by the new one" 1 \
    "$(sf_psql new -c "SELECT count(*) FROM snowflake_id.snowflake_origin
                       WHERE system_identifier <> snowflake_system_identifier()
                         AND checked_by = snowflake_system_identifier()")"
sf_expect_eq "... and the origin table's trigger came through" 1 \
    "$(sf_psql new -c "SELECT count(*) FROM pg_trigger
                       WHERE tgrelid = 'snowflake_id.snowflake_origin'::regclass
                         AND tgname = 'snowflake_origin_arrived' AND tgenabled = 'O'")"
sf_expect_eq "the test means something: the old IDs are an hour ahead of the new clock" t \
    "$(sf_psql new -c "SELECT snowflake_timestamp($(sort -n "$SF_WORK/old.ids" | tail -1))
                       > clock_timestamp() + interval '3000 s'")"
sf_stop new

# The layout lock came through: another epoch is refused.
sf_conf new "snowflake_id.epoch = '2025-01-01T00:00:00Z'"
sf_start new "${SF_FAKE_ENV[@]}" || sf_die "the upgraded cluster did not restart"
out=$(sf_psql new -c "SELECT snowflake_nextval()" 2>&1 || true)
sf_expect_match "the upgraded cluster refuses a changed epoch" \
    'ERROR: +the snowflake ID layout changed since IDs were issued' "$out"
sf_stop new

# --- the mistakes: the copy forgotten, a backup's copy, an unreadable copy --------
# The new cluster's clock 10 minutes behind the old cluster's last IDs: from
# the wall clock plus max_clock_drift, it would repeat them.
echo "-600" >"$SF_CLOCK"
upgrade_to bare
bare_state=$(sf_datadir bare)/snowflake_id.state
sf_start bare "${SF_FAKE_ENV[@]}" || sf_die "the second upgraded cluster did not start"
sf_expect_match "without the copy, the start warns that it refuses" \
    'WARNING: +snowflake_id: this cluster was made by pg_upgrade and has no state file "snowflake_id.state"; snowflake_nextval\(\) refuses to issue IDs' \
    "$(sf_server_log bare)"
sf_psql bare -c "CREATE ROLE app LOGIN"
out=$(as_app bare -c "SELECT snowflake_nextval()" 2>&1 || true)
sf_expect_match "... and snowflake_nextval() refuses" \
    'ERROR: +snowflake_id cannot tell which IDs were issued before: this cluster was made by pg_upgrade and has no state file' \
    "$out"
grep -Fq -- "cp -p OLD_DATADIR/snowflake_id.state $(sf_datadir bare)/" <<<"$out" ||
    sf_die "the HINT does not name the copy to make: $out"
sf_log "ok: ... naming the copy to make"
sf_expect_match "... and the way out if the file is lost, with its risk" \
    "remove \"$(sf_datadir bare)/snowflake_id.upgraded\" and restart.*can repeat IDs" "$out"
sf_expect_eq "... SQLSTATE object_not_in_prerequisite_state" 55000 "$(sqlstate_of bare)"
sf_stop bare
sf_start bare "${SF_FAKE_ENV[@]}" || sf_die "the second upgraded cluster did not restart"
sf_expect_eq "the refusal outlives a restart" 55000 "$(sqlstate_of bare)"
sf_stop bare

# A copy from a backup, taken before the old cluster's last IDs.
sf_as_server cp -p "$SF_WORK/backup.state" "$bare_state"
sf_start bare "${SF_FAKE_ENV[@]}" || sf_die "the second upgraded cluster did not start with the backup"
out=$(as_app bare -c "SELECT snowflake_nextval()" 2>&1 || true)
sf_expect_match "a backup's copy is refused" \
    'ERROR: +.*the state file "snowflake_id.state" is not the one the old cluster left when pg_upgrade stopped it' \
    "$out"
sf_stop bare

# The way out the HINT names, the file lost: the mark removed, the start
# is the start of a cluster without a file (nothing is issued here: on
# this clock it would repeat IDs, the risk the HINT states).
sf_as_server rm "$bare_state" "$(sf_datadir bare)/snowflake_id.upgraded"
: >"$SF_WORK/bare/server.log"
sf_start bare "${SF_FAKE_ENV[@]}" || sf_die "the second upgraded cluster did not start without its mark"
sf_expect_match "without the mark, the start is that of a cluster without a file" \
    'LOG: +snowflake_id: no state file; the generator starts at' "$(sf_server_log bare)"
sf_stop bare

# A copy made as root without -p: root's, mode 0600 (without root, a mode
# the server cannot read).
if [ "$(id -u)" = 0 ]; then
    cp "$(sf_datadir old)/snowflake_id.state" "$bare_state"
else
    cp "$(sf_datadir old)/snowflake_id.state" "$bare_state" && chmod 000 "$bare_state"
fi
sf_start bare "${SF_FAKE_ENV[@]}" || sf_die "the second upgraded cluster did not start with a root copy"
out=$(as_app bare -c "SELECT snowflake_nextval()" 2>&1 || true)
sf_expect_match "a copy the server cannot read is called so, not corrupt" \
    'ERROR: +.*the state file "snowflake_id.state" cannot be read by the server: Permission denied' "$out"
grep -Fq -- "chown postgres: $bare_state" <<<"$out" || [ "$(id -u)" != 0 ] ||
    sf_die "the HINT does not name the chown that repairs it: $out"
sf_log "ok: ... and the HINT names the repair"
sf_stop bare
if [ "$(id -u)" = 0 ]; then chown postgres: "$bare_state"; else chmod 600 "$bare_state"; fi
sf_start bare "${SF_FAKE_ENV[@]}" || sf_die "the second upgraded cluster did not start with the copy repaired"
sf_psql bare -c "$app_grants"
as_app bare -c "INSERT INTO orders (note) SELECT 'bare' FROM generate_series(1, 20000)"
sf_psql bare -c "COPY (SELECT id FROM orders WHERE note = 'bare') TO STDOUT" >"$SF_WORK/bare.ids"
sf_expect_above "the copy repaired, with the clock 10 minutes behind" "$SF_WORK/old.ids" -- "$SF_WORK/bare.ids"
sf_expect_eq "the test means something: the old IDs are 10 minutes ahead of this clock" t \
    "$(sf_psql bare -c "SELECT snowflake_timestamp($(sort -n "$SF_WORK/old.ids" | tail -1))
                        > clock_timestamp() + interval '500 s'")"
sf_stop bare

# --- binary-upgrade mode -----------------------------------------------------------
# The old cluster, left as it was by pg_upgrade's copy mode, started as
# pg_upgrade starts it.
echo "+0" >"$SF_CLOCK"
sf_as_server "$SF_STAGE_BIN/pg_ctl" -D "$(sf_datadir old)" -l "$SF_WORK/old/binary-upgrade.log" \
    -o -b -w -t 60 start >/dev/null || sf_die "the old cluster did not start in binary-upgrade mode"
out=$(sf_psql old -c "SELECT snowflake_nextval()" 2>&1 || true)
sf_expect_match "in binary-upgrade mode snowflake_nextval() refuses" \
    'ERROR: +cannot issue snowflake IDs while pg_upgrade runs the server' "$out"
sf_expect_eq "... and the status reads" 1 "$(sf_psql old -c "SELECT count(*) FROM snowflake_status()")"
sf_stop old
sf_expect_match "... the log says why" 'LOG: +snowflake_id: binary-upgrade mode \(pg_upgrade\): no IDs are issued' \
    "$(cat "$SF_WORK/old/binary-upgrade.log")"
sf_expect_match "... and that the old cluster's file is handed over" \
    'DETAIL: +The state file "snowflake_id.state" is this cluster.s record of its last stop' \
    "$(cat "$SF_WORK/old/binary-upgrade.log")"
sf_expect_eq "... and the old cluster, having its own file, is not marked as made by pg_upgrade" "" \
    "$(sf_as_server ls "$(sf_datadir old)/snowflake_id.upgraded" 2>/dev/null || true)"

# --- back to the old cluster after the new one issued IDs ----------------------
# docs/upgrading.md: the new cluster's file copied back before the old
# cluster's first start. The new cluster's IDs lie an hour ahead of this
# clock: the old cluster's own file ends below them, and the wall clock
# cannot carry it above; the copied file, of another system identifier, is
# taken as it is.
echo "-3600" >"$SF_CLOCK"
sf_as_server cp -p "$(sf_datadir new)/snowflake_id.state" "$(sf_datadir old)/"
sf_start old "${SF_FAKE_ENV[@]}" || sf_die "the old cluster did not start again"
sf_psql old -c "INSERT INTO orders (note) SELECT 'back' FROM generate_series(1, 20000)"
sf_psql old -c "COPY (SELECT id FROM orders WHERE note = 'back') TO STDOUT" >"$SF_WORK/back.ids"
sf_expect_above "back on the old cluster with the new one's file" \
    "$SF_WORK/old.ids" "$SF_WORK/new.ids" -- "$SF_WORK/back.ids"
sf_expect_eq "the test means something: the new cluster's IDs are an hour ahead of the old one's clock" t \
    "$(sf_psql old -c "SELECT snowflake_timestamp($(sort -n "$SF_WORK/new.ids" | tail -1))
                       > clock_timestamp() + interval '3000 s'")"
sf_stop old

# --- --link, after the old cluster's last run --------------------------------------
# pg_upgrade --link leaves the old cluster unusable: last. Its state file is
# not among the files linked, and is copied as in copy mode.
upgrade_to linked copy-state --link
sf_start linked "${SF_FAKE_ENV[@]}" || sf_die "the cluster upgraded with --link did not start"
sf_psql linked -c "CREATE ROLE app LOGIN" -c "$app_grants"
as_app linked -c "INSERT INTO orders (note) SELECT 'linked' FROM generate_series(1, 20000)"
sf_psql linked -c "COPY (SELECT id FROM orders WHERE note = 'linked') TO STDOUT" >"$SF_WORK/linked.ids"
sf_expect_above "after pg_upgrade --link" "$SF_WORK/old.ids" "$SF_WORK/new.ids" "$SF_WORK/back.ids" \
    -- "$SF_WORK/linked.ids"
sf_stop linked
echo "upgrade: all checks passed"
