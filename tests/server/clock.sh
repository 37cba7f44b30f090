#!/usr/bin/env bash
# The generator against a real server whose wall clock is stepped with
# libfaketime while it runs:
#  - a step back within max_clock_drift is absorbed: IDs keep increasing;
#  - a step back beyond it fails at once with the documented ERROR when the
#    wait needed exceeds max_wait;
#  - a wait within max_wait can be cancelled (statement_timeout, pg_cancel_backend);
#  - once the clock is back, IDs continue above everything issued before.
set -euo pipefail
source "$(dirname "$0")/../lib/cluster.sh"
sf_init_workspace
sf_stage
clock=$SF_WORK/clock
echo "+0" >"$clock"
chmod 644 "$clock"

# Four IDs per millisecond, so that borrowing from the future starts quickly.
sf_new k "snowflake_id.worker_id = 5" "snowflake_id.sequence_bits = 2" \
    "snowflake_id.worker_bits = 10" "snowflake_id.max_clock_drift = 1000" \
    "snowflake_id.max_wait = '30s'"
mapfile -t fake_env < <(sf_faketime_env "$clock")
sf_start k "${fake_env[@]}" || sf_die "server did not start under libfaketime"
sf_psql k -c "CREATE EXTENSION snowflake_id" -c "CREATE TABLE ids (batch int, id bigint)"

batch() { # batch N COUNT: generate COUNT IDs in one statement, labelled N
    sf_psql k -c "INSERT INTO ids SELECT $1, snowflake_nextval() FROM generate_series(1, $2)"
}
batch 1 2000

# A step back of half a second, within the drift bound of one second.
echo "-0.5" >"$clock"
sf_expect_eq "the server's clock is behind its IDs" t "$(sf_psql k -c "
    SELECT clock_timestamp() < (SELECT max(snowflake_timestamp(id)) FROM ids)")"
batch 2 2000
sf_expect_eq "after a step back within the drift, IDs keep increasing" t \
    "$(sf_psql k -c "SELECT min(id) FILTER (WHERE batch = 2) > max(id) FILTER (WHERE batch = 1) FROM ids")"

# A step back of two minutes: the wait needed exceeds max_wait (30 s).
echo "-120" >"$clock"
start=$(date +%s)
out=$(sf_psql k -c "SELECT count(snowflake_nextval()) FROM generate_series(1, 10)" 2>&1 || true)
sf_expect_match "beyond the drift bound: the documented ERROR" \
    'ERROR: +the wall clock is 1[12][0-9]{4} ms behind the last issued snowflake ID' "$out"
sf_expect_match "its detail names the bounds" 'max_clock_drift = 1000 ms.*max_wait = 30000 ms' "$out"
elapsed=$(($(date +%s) - start))
[ "$elapsed" -lt 20 ] || sf_die "the error took $elapsed s: it waited instead of failing at once"
sf_log "ok: it failed at once ($elapsed s), not after max_wait"

# A step back of ten seconds: a call must wait about nine seconds, which
# max_wait allows; statement_timeout must cut the wait short.
echo "-10" >"$clock"
start=$(date +%s%N)
out=$(sf_psql k -c "SET statement_timeout = '300ms'" -c "SELECT snowflake_nextval()" 2>&1 || true)
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
sf_expect_match "statement_timeout cancels a waiting call" 'canceling statement due to statement timeout' "$out"
[ "$elapsed_ms" -lt 5000 ] || sf_die "the cancelled call returned after $elapsed_ms ms, not at the timeout"
sf_log "ok: it returned after $elapsed_ms ms, long before the clock caught up"

# The same wait, cancelled by another session; the wait shows in pg_stat_activity.
sf_psql k -c "SELECT snowflake_nextval()" >"$SF_WORK/waiter.out" 2>&1 &
waiter=$!
sf_poll k "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Extension' AND query LIKE '%snowflake_nextval%'" 1
start=$(date +%s%N)
sf_psql k -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE wait_event_type = 'Extension' AND query LIKE '%snowflake_nextval%'" >/dev/null
wait "$waiter" || true
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
[ "$elapsed_ms" -lt 5000 ] || sf_die "the cancelled call returned after $elapsed_ms ms, not at the cancel"
sf_expect_match "pg_cancel_backend cancels a waiting call" 'canceling statement due to user request' \
    "$(cat "$SF_WORK/waiter.out")"

# The clock is right again: IDs continue above everything issued before.
echo "+0" >"$clock"
batch 3 2000
sf_expect_eq "no duplicate across the steps" t "$(sf_psql k -c "SELECT count(*) = count(DISTINCT id) FROM ids")"
sf_expect_eq "after the clock returns, IDs are above all earlier ones" t \
    "$(sf_psql k -c "SELECT min(id) FILTER (WHERE batch = 3) > max(id) FILTER (WHERE batch < 3) FROM ids")"
echo "clock: all checks passed"
