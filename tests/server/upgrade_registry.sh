#!/usr/bin/env bash
# pg_upgrade of a node with worker_id = 'auto' (docs/upgrading.md), leasing
# from the registry store SF_REGISTRY_STORE names (PostgreSQL by default, or
# redis), within one major, on the server PG_CONFIG names (it must carry
# pg_upgrade: the system's 15 does):
#  - the copy forgotten, the new cluster's clock 10 minutes behind the old
#    IDs: snowflake_nextval() refuses (WARNING at start, ERROR 55000 naming
#    the copy), and no node id is leased meanwhile;
#  - the file copied, the clock right: the node takes its own node id back
#    as after a restart (its log says so, no "previous holder" line), its
#    first ID lies within a second of the clock, and every new ID is above
#    every old one;
#  - a second upgrade, the clock an hour behind the IDs: the same node id
#    again, and the WARNING a static node gives for its clock, not the
#    takeover's "the lead comes from the node id lease" line.
set -euo pipefail
source "$(dirname "$0")/../lib/cluster.sh"
sf_require_upgrade_programs
sf_init_workspace
sf_stage
sf_fake_clock
sf_stage_upgrade_programs
SF_REGISTRY_STORE=${SF_REGISTRY_STORE:-pg}
sf_new_registry registry
# A max_clock_drift longer than a pg_upgrade takes: a takeover's floor (the
# old holder's bound plus its drift) still lies ahead of the clock when the
# new cluster starts, so that a start taken for one shows.
conf=("snowflake_id.worker_id = 'auto'" "$SF_REGISTRY_CONF" "snowflake_id.epoch = '2024-01-01T00:00:00Z'"
    "snowflake_id.max_clock_drift = '90s'" "snowflake_id.lease_ttl = '300s'")

# The application's role: INSERT on its table and nothing of the
# extension's (the restore check the new system identifier calls for reads
# snowflake_origin without the caller's rights).
app_grants="GRANT SELECT, INSERT ON orders TO app"
as_app() {
    local name=$1
    shift
    sf_psql "$name" -c "SET ROLE app" "$@"
}
status_of() {
    sf_psql "$1" -c "SET ROLE pg_monitor" -c "SET default_transaction_read_only = on" \
        -c "SELECT $2 FROM snowflake_status()"
}
sqlstate_of() {
    as_app "$1" -c "DO \$\$ BEGIN PERFORM snowflake_nextval(); EXCEPTION WHEN OTHERS THEN
        RAISE NOTICE '%', SQLSTATE; END \$\$" 2>&1 | sed -n 's/.*NOTICE: *//p'
}

# upgrade FROM NAME: a new cluster NAME, pg_upgrade from FROM (stopped) into it.
upgrade() {
    local from=$1 name=$2
    sf_new "$name" "${conf[@]}"
    mkdir -p "$SF_WORK/$name/run"
    [ "$(id -u)" = 0 ] && chown postgres: "$SF_WORK/$name/run"
    (cd "$SF_WORK/$name/run" && sf_as_server "$SF_STAGE_BIN/pg_upgrade" \
        -b "$SF_STAGE_BIN" -B "$SF_STAGE_BIN" -d "$(sf_datadir "$from")" -D "$(sf_datadir "$name")" \
        -s "$SF_WORK/$name/run" -p 50432 -P 50433 >"$SF_WORK/$name/upgrade.log" 2>&1) ||
        { tail -30 "$SF_WORK/$name/upgrade.log" >&2; sf_die "pg_upgrade into $name failed"; }
    sf_log "ok: pg_upgrade from $from into $name"
}

# The old cluster's first run starts without a state file, at its clock
# plus max_clock_drift: with its clock 90 s behind, at the real time, so
# that its IDs lie near the real clock after its restart.
echo "-90" >"$SF_CLOCK"
sf_new old "${conf[@]}"
sf_start old "${SF_FAKE_ENV[@]}" || sf_die "the old cluster did not start"
sf_psql old -c "CREATE EXTENSION snowflake_id" -c "CREATE ROLE app LOGIN" \
    -c "CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT snowflake_nextval(), note text)" \
    -c "$app_grants"
sf_poll old "SELECT lease_state FROM snowflake_status()" held
sf_psql old -c "INSERT INTO orders (note) VALUES ('first run')"
sf_stop old
echo "+0" >"$SF_CLOCK"
sf_start old "${SF_FAKE_ENV[@]}" || sf_die "the old cluster did not restart"
sf_poll old "SELECT lease_state FROM snowflake_status()" held
node=$(status_of old worker_id)
as_app old -c "INSERT INTO orders (note) SELECT 'old' FROM generate_series(1, 20000)"
sf_psql old -c "COPY (SELECT id FROM orders) TO STDOUT" >"$SF_WORK/old.ids"
sf_stop old

# --- the copy forgotten, the clock 10 minutes behind ---------------------------------
echo "-600" >"$SF_CLOCK"
upgrade old new
sf_start new "${SF_FAKE_ENV[@]}" || sf_die "the upgraded cluster did not start"
sf_expect_match "without the copy, the start warns that it refuses" \
    'WARNING: +snowflake_id: this cluster was made by pg_upgrade and has no state file' "$(sf_server_log new)"
out=$(as_app new -c "SELECT snowflake_nextval()" 2>&1 || true)
sf_expect_match "... and snowflake_nextval() refuses" \
    'ERROR: +snowflake_id cannot tell which IDs were issued before: this cluster was made by pg_upgrade' "$out"
sf_expect_match "... naming the copy" 'HINT: +.*cp -p OLD_DATADIR/snowflake_id.state' "$out"
sf_expect_eq "... SQLSTATE object_not_in_prerequisite_state" 55000 "$(sqlstate_of new)"
sf_poll new "SELECT lease_state FROM snowflake_status()" refused
sf_expect_eq "... and it leases no node id meanwhile" released "$(sf_registry_states registry)"
sf_stop new

# --- the copy made, the clock right ------------------------------------------------
echo "+0" >"$SF_CLOCK"
sf_as_server cp -p "$(sf_datadir old)/snowflake_id.state" "$(sf_datadir new)/"
: >"$SF_WORK/new/server.log"
sf_start new "${SF_FAKE_ENV[@]}" || sf_die "the upgraded cluster did not start with the copy"
sf_poll new "SELECT lease_state FROM snowflake_status()" held
sf_expect_eq "the upgraded cluster has its node id back" "$node" "$(status_of new worker_id)"
first_lead=$(as_app new -c "SELECT extract(epoch FROM snowflake_timestamp(snowflake_nextval()) - clock_timestamp())")
sf_log "the first ID after the upgrade lies ${first_lead} s from the clock"
sf_expect_eq "... and its first ID lies within a second of the clock, not max_clock_drift ahead" t \
    "$(sf_psql new -c "SELECT abs($first_lead) < 1")"
sf_expect_match "the log says it took its node id back as after a restart" \
    "LOG: +snowflake_id: took back node id $node, which the cluster this one was upgraded from held" \
    "$(sf_server_log new)"
if grep -q "previous holder of node id" "$SF_WORK/new/server.log"; then
    sf_die "the upgraded cluster resumed above a previous holder: $(grep 'previous holder' "$SF_WORK/new/server.log")"
fi
sf_log "ok: ... and no line about a previous holder"
as_app new -c "INSERT INTO orders (note) SELECT 'new' FROM generate_series(1, 20000)"
sf_psql new -c "COPY (SELECT id FROM orders WHERE note = 'new') TO STDOUT" >"$SF_WORK/new.ids"
sf_expect_above "after pg_upgrade with 'auto'" "$SF_WORK/old.ids" -- "$SF_WORK/new.ids"
sf_expect_eq "pg_upgrade's mark is gone" "" \
    "$(sf_as_server ls "$(sf_datadir new)/snowflake_id.upgraded" 2>/dev/null || true)"
sf_stop new

# --- a second upgrade, the clock an hour behind ------------------------------------
echo "-3600" >"$SF_CLOCK"
upgrade new again
sf_as_server cp -p "$(sf_datadir new)/snowflake_id.state" "$(sf_datadir again)/"
sf_start again "${SF_FAKE_ENV[@]}" || sf_die "the twice upgraded cluster did not start"
sf_poll again "SELECT lease_state FROM snowflake_status()" held
sf_expect_eq "the twice upgraded cluster has its node id back" "$node" "$(status_of again worker_id)"
sf_expect_match "the clock an hour behind gets the WARNING a static node gives" \
    'WARNING: +snowflake_id: the wall clock \(.*\) is [0-9]+ ms behind the last ID issued before the server stopped' \
    "$(sf_server_log again)"
if grep -q "the lead comes from the node id lease\|previous holder of node id" "$SF_WORK/again/server.log"; then
    sf_die "the upgrade was taken for a takeover: $(grep 'lead comes from\|previous holder' "$SF_WORK/again/server.log")"
fi
sf_log "ok: ... not the takeover's line"
as_app again -c "INSERT INTO orders (note) SELECT 'again' FROM generate_series(1, 20000)"
sf_psql again -c "COPY (SELECT id FROM orders WHERE note = 'again') TO STDOUT" >"$SF_WORK/again.ids"
sf_expect_above "after the second upgrade, the clock an hour behind" "$SF_WORK/old.ids" "$SF_WORK/new.ids" \
    -- "$SF_WORK/again.ids"
sf_stop again
echo "upgrade_registry: all checks passed"
