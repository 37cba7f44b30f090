#!/usr/bin/env bash
# A backend crash makes the postmaster reinitialise shared memory. The
# generator's floor must survive that: after a crash-restart with the clock
# set back, no ID repeats and none is below the largest one a client received
# before the crash.
set -euo pipefail
source "$(dirname "$0")/../lib/cluster.sh"
sf_init_workspace
sf_stage
clock=$SF_WORK/clock
echo "+0" >"$clock"
chmod 644 "$clock"

# A drift bound large enough that, after the clock steps back 10 s, the
# generator can keep going by borrowing time instead of raising.
sf_new r "snowflake_id.worker_id = 4" "snowflake_id.max_clock_drift = '60s'" \
    "restart_after_crash = on"
mapfile -t fake_env < <(sf_faketime_env "$clock")
sf_start r "${fake_env[@]}" || sf_die "server did not start"
sf_psql r -c "CREATE EXTENSION snowflake_id"

generate() { # generate FILE: 5000 IDs returned to this client
    sf_psql r -c "COPY (SELECT snowflake_nextval() FROM generate_series(1, 5000)) TO STDOUT" >"$1"
}
generate "$SF_WORK/before"

# Set the clock back, then crash a backend.
echo "-10" >"$clock"
sf_psql r -c "SELECT pg_sleep(600)" >/dev/null 2>&1 &
sleeper=$!
sf_poll r "SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(600)'" 1
victim=$(sf_psql r -c "SELECT pid FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(600)'")
kill -9 "$victim"
wait "$sleeper" || true
# The postmaster kills every backend and reinitialises: wait (bounded) until it answers again.
for _ in $(seq 1 600); do
    sf_psql r -c "SELECT 1" >/dev/null 2>&1 && break
    "$SF_PGBIN/pg_isready" -q -h "$(sf_sockdir r)" -p "$SF_PORT" -U postgres -t 1 || true
done
sf_expect_match "the server went through a crash-restart" \
    'all server processes terminated; reinitializing' "$(sf_server_log r)"

generate "$SF_WORK/after"
# sed reads its whole input: no SIGPIPE for sort under pipefail.
max_before=$(sort -n "$SF_WORK/before" | sed -n '$p')
min_after=$(sort -n "$SF_WORK/after" | sed -n '1p')
[ "$min_after" -gt "$max_before" ] ||
    sf_die "after the crash-restart an ID ($min_after) is not above the largest before it ($max_before)"
sf_log "ok: every ID after the crash-restart is above every ID before it"
sf_expect_eq "no duplicate across the crash" 0 \
    "$(sort -n "$SF_WORK/before" "$SF_WORK/after" | uniq -d | wc -l)"
echo "crash: all checks passed"
