#!/usr/bin/env bash
# Restarts must not repeat IDs:
#  - a backend crash makes the postmaster reinitialise shared memory; the
#    generator's floor must survive that, even with the clock set back;
#  - a planned restart right after a load that ran the generator ahead of the
#    clock (by up to max_clock_drift) must start above the IDs issued before.
# In both cases no ID repeats and none is below the largest one a client
# received before; and both resume right after the last ID (the exact floor
# recorded when the server stopped), not at the end of a reservation.
# tests/server/durable.sh covers the postmaster killed and the clock set back.
source "$(dirname "$0")/../lib/suite.sh"
sf_fake_clock
clock=$SF_CLOCK

# A drift bound large enough that, after the clock steps back 2.5 s, the
# generator can keep going by borrowing time instead of raising.
sf_new r "snowflake_id.worker_id = 4" "snowflake_id.max_clock_drift = '3s'" \
    "restart_after_crash = on"
sf_start r "${SF_FAKE_ENV[@]}" || sf_die "server did not start"
sf_psql r -c "CREATE EXTENSION snowflake_id"
# A fresh server starts max_clock_drift ahead of the clock; let the clock catch up.
sf_poll r "SELECT snowflake_timestamp(snowflake_nextval()) < clock_timestamp()" t

sf_stream_ids r "$SF_WORK/before" 5000

# Set the clock back, then crash a backend.
echo "-2.5" >"$clock"
sf_psql r -c "SELECT pg_sleep(600)" >/dev/null 2>&1 &
sleeper=$!
sf_poll r "SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(600)'" 1
victim=$(sf_psql r -c "SELECT pid FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(600)'")
kill -9 "$victim"
wait "$sleeper" || true
# The postmaster kills every backend and reinitialises: wait (bounded) until it answers again.
for _ in $(seq 1 600); do
    sf_psql r -c "SELECT 1" >/dev/null 2>&1 && break
    "$SF_CLIENT_BIN/pg_isready" -q -h "$(sf_sockdir r)" -p "$SF_PORT" -U postgres -t 1 || true
done
sf_expect_match "the server went through a crash-restart" \
    'all server processes terminated; reinitializing' "$(sf_server_log r)"

sf_stream_ids r "$SF_WORK/after" 5000
sf_expect_above "crash-restart with the clock set back" "$SF_WORK/before" -- "$SF_WORK/after"
# Resuming exactly where it was, not from the clock plus max_clock_drift
# (that would be at least 0.5 s later here, and hide a lost floor), as the
# log says: right after the last ID (its millisecond or the next), or, where
# the postmaster's clock is already past it, at that clock (libfaketime may
# leave the postmaster on the real clock while backends follow the clock
# file, and a slow restart passes the last ID either way). Not the first new
# ID's time: from the resume point on the catch-up clock moves at half
# speed, so how far the first ID lies above it depends on how fast the
# restart and the client were.
expect_resumed_after() { # WHAT NAME LAST_ID
    local what=$1 name=$2 last=$3 line at past logged
    line=$(sf_server_log "$name" | grep 'snowflake_id: the generator resumes at' | tail -1)
    at=$(sed -n 's/.*the generator resumes at \([0-9-]* [0-9:.]*Z\), above the last ID issued.*/\1/p' <<<"$line")
    if [ -n "$at" ]; then
        sf_expect_eq "$what: right after it" t "$(sf_psql "$name" -c "
            SELECT '$at'::timestamptz - snowflake_timestamp($last) BETWEEN interval '0' AND interval '1 ms'")"
        return
    fi
    at=$(sed -n 's/.*resumes at the wall clock (\([^)]*\)), which is past the last ID issued before the server stopped (\([^)]*\)).*/\1/p' <<<"$line")
    past=$(sed -n 's/.*resumes at the wall clock (\([^)]*\)), which is past the last ID issued before the server stopped (\([^)]*\)).*/\2/p' <<<"$line")
    [ -n "$at" ] || sf_die "$what: the log does not say where the generator resumed: $line"
    logged=$(cut -c1-23 <<<"$line")
    sf_expect_eq "$what: at the postmaster's clock, which had passed the last ID, not max_clock_drift beyond it" t "$(sf_psql "$name" -c "
        SELECT '$past'::timestamptz - snowflake_timestamp($last) BETWEEN interval '0' AND interval '1 ms'
           AND '$at'::timestamptz - '$logged+00'::timestamptz < interval '500 ms'")"
}
expect_resumed_after "the generator resumed at the last ID before the crash" r \
    "$(sort -n "$SF_WORK/before" | sed -n '$p')"
sf_expect_match "the log says where the generator resumed" \
    'LOG: +snowflake_id: the generator resumes .*the last ID issued before the server stopped' \
    "$(sf_server_log r)"
sf_stop r

# One ID per millisecond: 3,500 IDs run the generator max_clock_drift (3 s)
# ahead of the clock; a restart takes well under that.
sf_new p "snowflake_id.worker_id = 4" "snowflake_id.sequence_bits = 0" \
    "snowflake_id.max_clock_drift = '3s'"
sf_start p || sf_die "server p did not start"
sf_psql p -c "CREATE EXTENSION snowflake_id"
sf_stream_ids p "$SF_WORK/p.before" 3500
last_before=$(sort -n "$SF_WORK/p.before" | sed -n '$p')
sf_expect_eq "the load ran the generator ahead of the clock" t "$(sf_psql p -c "
    SELECT snowflake_timestamp($last_before) > clock_timestamp() + interval '2 s'")"
sf_stop p
sf_start p || sf_die "server p did not restart"
# Only meaningful while the old IDs are still ahead of the clock.
sf_expect_eq "after the restart the clock is still behind the last old ID" t \
    "$(sf_psql p -c "SELECT clock_timestamp() < snowflake_timestamp($last_before)")"
sf_stream_ids p "$SF_WORK/p.after" 300
sf_expect_above "planned restart after a load" "$SF_WORK/p.before" -- "$SF_WORK/p.after"
expect_resumed_after "the generator resumed at the last ID before the restart" p "$last_before"
sf_expect_match "the log says where the generator resumes, and why" \
    'LOG: +snowflake_id: the generator resumes at .*, above the last ID issued before the server stopped, [0-9]+ ms ahead of the wall clock' \
    "$(sf_server_log p)"
sf_expect_eq "a lead within max_clock_drift is no cause for a WARNING" 0 \
    "$(sf_server_log p | grep -c 'WARNING: .*behind' || true)"
echo "crash: all checks passed"
