#!/usr/bin/env bash
# Copies and successors (issue 42), on real servers with a registry (either
# store: SF_REGISTRY_STORE=redis runs it on Redis):
#  - a point-in-time copy (a base backup restored with recovery.signal: it
#    ends recovery on timeline 2, branching before the position its live
#    original recorded since) started beside the original with the same
#    static worker_id and registry: the copy is refused, naming the
#    original; the original, minting all along, gets no refused call;
#    the same copy restarted with 'auto' leases another id and logs that it
#    is a copy, and the original still gets no refused call;
#  - a split brain, then a clean restart of the successor: a standby
#    promoted while its primary runs takes the live lease over and marks
#    timeline 1 replaced; its lease given back by a clean stop, the old
#    primary still mints nothing, and snowflake_status() says replaced.
source "$(dirname "$0")/../lib/suite.sh"

sf_new_registry registry
registry_conf=$SF_REGISTRY_CONF
ttl_conf="snowflake_id.lease_ttl = '6s'"

# wait_for WHAT CMD...: bounded wait until CMD succeeds.
wait_for() {
    local what=$1
    shift
    for _ in $(seq 1 2000); do
        "$@" && return 0
        sleep 0.05 # the pace of the poll; the condition is CMD
    done
    sf_die "waited in vain for $what"
}
# recorded_position TIMELINE: the highest WAL position the registry holds
# for that timeline of the original's system ($system).
recorded_position() {
    local got
    if [ "$SF_REGISTRY_STORE" = redis ]; then
        got=$(sf_redis registry HGET "$SF_REDIS_PREFIX:timelines:$system" "$1:position")
    else
        got=$(sf_psql registry -c "SELECT wal_position FROM snowflake_id.snowflake_registry_timeline
                                   WHERE system_id = $system AND timeline = $1")
    fi
    echo "${got:-0}"
}
superseded_by() {
    if [ "$SF_REGISTRY_STORE" = redis ]; then
        sf_redis registry HGET "$SF_REDIS_PREFIX:timelines:$system" "$1:superseded_by"
    else
        sf_psql registry -c "SELECT superseded_by FROM snowflake_id.snowflake_registry_timeline
                             WHERE system_id = $system AND timeline = $1"
    fi
}
position_past() { [ "$(recorded_position "$1")" -gt "$2" ]; }
lease_state_is() { [ "$(sf_psql "$1" -c "SELECT lease_state FROM snowflake_status()")" = "$2" ]; }

# A client of the original: one ID a statement until told to stop, each
# refused call counted.
start_client() {
    rm -f "$SF_WORK/stop.$1" "$SF_WORK/fails.$1"
    touch "$SF_WORK/fails.$1"
    (
        while [ ! -f "$SF_WORK/stop.$1" ]; do
            sf_psql "$1" -c "INSERT INTO minted VALUES (snowflake_nextval())" 2>>"$SF_WORK/fails.$1" ||
                echo "refused" >>"$SF_WORK/fails.$1"
        done
    ) &
    client_pid=$!
}
stop_client() {
    touch "$SF_WORK/stop.$1"
    wait "$client_pid"
}
rows_of() { sf_psql "$1" -c "SELECT count(*) FROM minted"; }
rows_past() { [ "$(rows_of "$1")" -gt "$2" ]; }

# --- a point-in-time copy beside its live original ---------------------------
sf_new orig "snowflake_id.worker_id = 5" "$registry_conf" "$ttl_conf"
sf_start orig || sf_die "orig did not start"
sf_psql orig -c "CREATE EXTENSION snowflake_id" -c "CREATE TABLE minted (id bigint)"
sf_poll orig "SELECT lease_state FROM snowflake_status()" held
system=$(sf_psql orig -c "SELECT system_identifier FROM pg_control_system()")
start_client orig

sf_new_standby orig copy
copy_dir=$(sf_datadir copy)
# Restored as a point-in-time recovery: no standby, recovery ends at the
# end of the WAL the backup carries, on a new timeline.
sf_as_server rm -f "$copy_dir/standby.signal"
sf_as_server sed -i '/^primary_conninfo\|^primary_slot_name/d' "$copy_dir/postgresql.auto.conf"
sf_as_server touch "$copy_dir/recovery.signal"
# The copy branches at or before what the original has flushed now; the
# original records a later position at a renewal while it mints on.
branch_bound=$(sf_psql orig -c "SELECT pg_wal_lsn_diff(pg_current_wal_flush_lsn(), '0/0')::bigint")
sf_psql orig -c "SELECT pg_switch_wal()" >/dev/null
wait_for "the original to record a position past the copy's branch" position_past 1 "$branch_bound"

sf_start copy || sf_die "the copy did not start"
sf_poll copy "SELECT timeline_id FROM pg_control_checkpoint()" 2
wait_for "the copy to be refused" lease_state_is copy refused
sf_expect_match "the copy's refusal names its original" \
    "node id 5 is held by the server this one is a copy of: .*data directory $(sf_datadir orig)" \
    "$(sf_server_log copy)"
# Two renewals of the original while the copy asks again.
before=$(rows_of orig)
wait_for "the original to mint on" rows_past orig $((before + 20))
sf_expect_eq "the original is not replaced" held "$(sf_psql orig -c "SELECT lease_state FROM snowflake_status()")"
sf_expect_eq "timeline 1 is not replaced by a copy" "" "$(superseded_by 1)"

# The copy with 'auto': another id, and its log says of whom it is a copy.
sf_stop copy
sf_conf copy "snowflake_id.worker_id = 'auto'"
sf_start copy || sf_die "the copy did not start again"
wait_for "the copy to lease an id" lease_state_is copy held
copy_node=$(sf_psql copy -c "SELECT node_id FROM snowflake_status()")
[ "$copy_node" != 5 ] || sf_die "the copy took its original's node id"
sf_await_log copy "this server is a copy of .*data directory $(sf_datadir orig)" ||
    sf_die "the copy's log does not say it is a copy"
before=$(rows_of orig)
wait_for "the original to mint on beside the 'auto' copy" rows_past orig $((before + 20))
sf_stop copy
stop_client orig
sf_expect_eq "the original got no refused call while its copy ran" \
    0 "$(grep -c refused "$SF_WORK/fails.orig")"
sf_expect_eq "no ID twice" 0 "$(sf_psql orig -c "SELECT count(*) - count(DISTINCT id) FROM minted")"

# --- a split brain, then a clean restart of the successor ---------------------
sf_new_standby orig standby "cluster_name = 'standby1'"
sf_start standby || sf_die "the standby did not start"
sf_make_sync orig standby1
sf_psql orig -c "SELECT pg_switch_wal()" >/dev/null
sf_psql orig -c "INSERT INTO minted VALUES (snowflake_nextval())"
sf_promote standby
wait_for "the successor to lease" lease_state_is standby held
wait_for "the old primary to be refused as replaced" lease_state_is orig replaced
sf_expect_eq "timeline 1 is replaced by timeline 2" 2 "$(superseded_by 1)"
# A clean restart of the successor gives its lease back: the old primary
# stays replaced through it and after it.
sf_psql orig -c "ALTER SYSTEM SET synchronous_standby_names = ''" -c "SELECT pg_reload_conf()" >/dev/null
sf_stop standby
wait_for "the successor's lease to be given back" \
    test "$(sf_registry_lease registry 5 state)" = released
attempts_before=$(sf_server_log orig | grep -c "replaced by a promoted standby")
wait_for "the old primary to ask again after the give-back" \
    test "$(sf_server_log orig | grep -c "replaced by a promoted standby")" -gt "$attempts_before"
sf_expect_eq "the old primary stays replaced" replaced "$(sf_psql orig -c "SELECT lease_state FROM snowflake_status()")"
if sf_psql orig -c "SELECT snowflake_nextval()" >/dev/null 2>&1; then
    sf_die "the old primary minted after its successor's clean stop"
fi
sf_start standby || sf_die "the successor did not start again"
wait_for "the successor to lease again" lease_state_is standby held
sf_expect_eq "the old primary is still replaced" replaced "$(sf_psql orig -c "SELECT lease_state FROM snowflake_status()")"
echo "ok: registry_copies"
