#!/usr/bin/env bash
# Calls that wait for a stalled synchronous standby before their reservation
# counts sleep like commit waiters, on real servers:
#  - synchronous_standby_names names a standby that never connects, so
#    every reservation waits; 25 calls that each need one all wait in
#    pg_stat_activity's IPC/SyncRep wait event;
#  - together they use no measurable CPU while they wait (the old wait woke
#    every millisecond: 25 waiters burned a third of a core);
#  - pg_cancel_backend and statement_timeout end a wait with their ERRORs;
#  - emptying synchronous_standby_names releases the others, each with an
#    ID, all different.
source "$(dirname "$0")/../lib/suite.sh"

waiters=25
sf_new p "snowflake_id.worker_id = 2" "max_connections = 60"
sf_start p || sf_die "server did not start"
sf_psql p -c "CREATE EXTENSION snowflake_id" -c "CREATE TABLE probe (x int)" \
    -c "SELECT snowflake_nextval()" >/dev/null

sf_psql p -c "ALTER SYSTEM SET synchronous_standby_names = 'ghost'" -c "SELECT pg_reload_conf()" \
    >/dev/null
# A commit waits for the standby once the checkpointer has published the
# setting; from then on every reservation waits too.
sf_psql p -c "INSERT INTO probe VALUES (1)" >/dev/null 2>&1 &
probe=$!
sf_poll p "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'
           AND query LIKE 'INSERT INTO probe%'" 1
# The reservation made before runs out as the clock passes it; then each
# call needs a new one.
sf_poll p "SELECT reserved_until < clock_timestamp() FROM snowflake_status()" t
sf_log "ok: the synchronous standby is stalled and the reservation has run out"

pids=()
for i in $(seq 1 "$waiters"); do
    sf_psql p -c "SELECT snowflake_nextval()" >"$SF_WORK/id.$i" 2>"$SF_WORK/id.$i.err" &
    pids+=("$!")
done
in_wait="SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'IPC'
         AND wait_event = 'SyncRep' AND query = 'SELECT snowflake_nextval()'"
sf_poll p "$in_wait" "$waiters"
sf_log "ok: $waiters calls wait for the standby in the SyncRep wait event"

# CPU time (user + system, in clock ticks) of the waiting backends.
backend_pids=$(sf_psql p -c "SELECT string_agg(pid::text, ' ') FROM pg_stat_activity
                             WHERE query = 'SELECT snowflake_nextval()'")
cpu_ticks() {
    local pid total=0 fields
    for pid in $backend_pids; do
        read -ra fields <"/proc/$pid/stat"
        # Fields 14 and 15 (utime, stime); the command name has no spaces here.
        total=$((total + fields[13] + fields[14]))
    done
    echo "$total"
}
before=$(cpu_ticks)
sleep 3 # the measuring window, not a synchronisation
used=$(($(cpu_ticks) - before))
tick=$(getconf CLK_TCK)
sf_log "info: $waiters waiting backends used $used ticks of 1/$tick s in 3 s"
[ "$used" -le 3 ] || sf_die "the waiting backends used $used ticks of CPU in 3 s; they should sleep"
sf_log "ok: the waiters use no measurable CPU"
sf_expect_eq "all still wait after the window" "$waiters" "$(sf_psql p -c "$in_wait")"

# Cancel one waiter; a new call with a statement_timeout times out.
sf_psql p -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity
              WHERE query = 'SELECT snowflake_nextval()' ORDER BY pid LIMIT 1" >/dev/null
sf_poll p "$in_wait" $((waiters - 1))
cancelled=0
for i in $(seq 1 "$waiters"); do
    if ! kill -0 "${pids[i - 1]}" 2>/dev/null; then
        wait "${pids[i - 1]}" && sf_die "the cancelled call succeeded"
        sf_expect_match "the cancelled call ends with the cancel ERROR" \
            'canceling statement due to user request' "$(cat "$SF_WORK/id.$i.err")"
        [ -s "$SF_WORK/id.$i" ] && sf_die "the cancelled call returned an ID"
        cancelled=$i
    fi
done
[ "$cancelled" != 0 ] || sf_die "no call was cancelled"
out=$(sf_psql p -c "SET statement_timeout = '300ms'" -c "SELECT snowflake_nextval()" 2>&1) &&
    sf_die "a call with statement_timeout returned: $out"
sf_expect_match "statement_timeout ends the wait" 'canceling statement due to statement timeout' \
    "$out"

# Release: every other waiter gets its ID.
sf_psql p -c "ALTER SYSTEM RESET synchronous_standby_names" -c "SELECT pg_reload_conf()" \
    >/dev/null
for i in $(seq 1 "$waiters"); do
    [ "$i" = "$cancelled" ] && continue
    wait "${pids[i - 1]}" || sf_die "waiter $i failed: $(cat "$SF_WORK/id.$i.err")"
done
wait "$probe" || sf_die "the probe commit failed"
released=$(cat "$SF_WORK"/id.* | grep -cE '^[0-9]+$')
sf_expect_eq "the released calls each returned an ID" $((waiters - 1)) "$released"
sf_expect_eq "all different" $((waiters - 1)) "$(cat "$SF_WORK"/id.* | grep -E '^[0-9]+$' | sort -u | wc -l)"
