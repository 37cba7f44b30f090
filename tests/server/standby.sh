#!/usr/bin/env bash
# On a hot standby snowflake_nextval() refuses (the standby carries the
# primary's worker id), while the decoders work. snowflake_status means
# something on the server it is read on: on the standby, NULL for what
# concerns issued IDs and the generator's clock, and the primary's
# reservation as replayed; on the primary after a crash, no last issued ID
# until this run issues one; on the standby once promoted, the primary's
# columns again.
source "$(dirname "$0")/../lib/suite.sh"
sf_new primary "snowflake_id.worker_id = 3"
sf_start primary || sf_die "primary did not start"
sf_psql primary -c "CREATE EXTENSION snowflake_id" \
    -c "CREATE TABLE t (id bigint PRIMARY KEY DEFAULT snowflake_nextval())" \
    -c "INSERT INTO t SELECT FROM generate_series(1, 100)"
sf_new_standby primary standby
sf_start standby || sf_die "standby did not start"
sf_expect_eq "the standby is in recovery" t "$(sf_psql standby -c 'SELECT pg_is_in_recovery()')"

out=$(sf_psql standby -c "SELECT snowflake_nextval()" 2>&1 || true)
sf_expect_match "snowflake_nextval() refuses on a standby" \
    'ERROR: +cannot issue snowflake IDs during recovery' "$out"
sf_expect_match "with a hint" 'HINT: +Call snowflake_nextval\(\) on the primary' "$out"
sf_expect_eq "with SQLSTATE read_only_sql_transaction" 25006 "$(sf_psql standby -c "
    DO \$\$ BEGIN PERFORM snowflake_nextval(); EXCEPTION WHEN OTHERS THEN
        RAISE NOTICE '%', SQLSTATE; END \$\$" 2>&1 | sed -n 's/.*NOTICE: *//p')"
sf_expect_eq "decoding works on the standby" "100|3" \
    "$(sf_psql standby -c "SELECT count(*), min(d.worker_id) FROM t, snowflake_decode(id) d")"
sf_expect_eq "the primary still generates" t \
    "$(sf_psql primary -c "SELECT snowflake_nextval() > max(id) FROM t")"

# --- snowflake_status on the standby ----------------------------------------
status() { sf_psql "$1" -c "SELECT $2 FROM snowflake_status()"; }
# await_replay: returns once the standby has replayed everything the primary
# has flushed so far (reservations are flushed before their IDs are issued).
await_replay() {
    local lsn
    lsn=$(sf_psql primary -c "SELECT pg_current_wal_flush_lsn()")
    sf_poll standby "SELECT pg_last_wal_replay_lsn() >= '$lsn'" t
}
# A reservation made while the standby streams: once the one in force has
# lapsed, the next ID needs a new one, so the standby's value comes from
# replay and not from the state file in the base backup.
first_reserved=$(status primary reserved_until)
sf_poll primary "SELECT reserved_until < clock_timestamp() FROM snowflake_status()" t
sf_psql primary -c "INSERT INTO t SELECT FROM generate_series(1, 100)"
primary_reserved=$(status primary reserved_until)
sf_expect_eq "the primary made a new reservation" t \
    "$(sf_psql primary -c "SELECT '$primary_reserved'::timestamptz > '$first_reserved'")"
await_replay
sf_expect_eq "on the standby reserved_until is the primary's, as replayed" "$primary_reserved" \
    "$(status standby reserved_until)"
sf_expect_eq "on the standby, no last issued ID, no lead, no catch-up: NULL" "(,,)" \
    "$(status standby "row(last_issued_at, ahead_of_clock_ms, catching_up)")"
sf_expect_eq "on the standby, nothing issued, the refusals counted, no lease without a registry" \
    "0|2|none" "$(status standby "concat_ws('|', ids_issued, errors, lease_state)")"
# expect_last_issued NAME WHAT: NAME issues an ID ($issued), and its status
# shows that ID's time as last_issued_at, below reserved_until, with the
# clock columns set.
expect_last_issued() {
    issued=$(sf_psql "$1" -c "SELECT snowflake_nextval()")
    sf_expect_eq "$2" t "$(status "$1" "last_issued_at = snowflake_timestamp($issued)
        AND reserved_until > last_issued_at
        AND ahead_of_clock_ms IS NOT NULL AND catching_up IS NOT NULL")"
}
expect_last_issued primary "on the primary the same columns show its own last ID"

# --- the primary after a crash ----------------------------------------------
# SIGKILL leaves no exact floor: the restart resumes at the end of the
# reservation that crash recovery replayed, where no ID need exist.
sf_crash primary
sf_start primary || sf_die "the primary did not restart after SIGKILL"
sf_expect_eq "after a crash, no ID issued by this run yet: last_issued_at is NULL" \
    "t|t|0" "$(status primary "concat_ws('|', last_issued_at IS NULL, reserved_until IS NOT NULL,
                                         ids_issued)")"
expect_last_issued primary "its first ID after the crash is its last_issued_at"

# --- the standby promoted ---------------------------------------------------
sf_psql primary -c "INSERT INTO t SELECT FROM generate_series(1, 100)"
sf_stop primary
sf_promote standby
# pg_ctl returns once pg_control says so, a moment before sessions see it.
sf_poll standby "SELECT pg_is_in_recovery()" f
sf_expect_eq "promoted: no ID issued by this run yet, the generator's clock set" "t|t|t|0" \
    "$(status standby "concat_ws('|', last_issued_at IS NULL, ahead_of_clock_ms IS NOT NULL,
                                 catching_up IS NOT NULL, ids_issued)")"
expect_last_issued standby "promoted: its first ID is its last_issued_at"
sf_expect_eq "... and lies above every ID the primary stored" t \
    "$(sf_psql standby -c "SELECT max(id) < $issued FROM t")"
echo "standby: all checks passed"
