#!/usr/bin/env bash
# The generator against real servers whose wall clock is stepped with
# libfaketime while they run:
#  - a step back within max_clock_drift is absorbed: IDs keep increasing and
#    run ahead of the clock instead of following it back;
#  - a step back beyond it fails at once with the documented ERROR (55000)
#    when the wait needed exceeds max_wait;
#  - a wait within max_wait is cut short by statement_timeout and by
#    pg_cancel_backend (checked by state: the clock is still far behind, so
#    the wait cannot have run its course);
#  - once the clock is back, IDs continue above everything issued before;
#  - the timestamp field running out raises 2200H and never wraps;
#  - snowflake_status counts each step back once, the borrowed
#    milliseconds, the waits and the errors;
#  - demand beyond the layout's capacity, with a clock that never went back,
#    fails with an ERROR that names the capacity and the settings that help,
#    not the clock; after a step back within max_clock_drift, the same
#    demand fails with the clock-behind ERROR, although the IDs run no
#    further ahead than demand alone could take them.
source "$(dirname "$0")/../lib/suite.sh"
sf_fake_clock
clock=$SF_CLOCK

sqlstate_of() { # sqlstate_of SERVER QUERY: the SQLSTATE QUERY raises
    sf_psql "$1" -c "DO \$\$ BEGIN PERFORM ($2); RAISE NOTICE 'no error';
        EXCEPTION WHEN OTHERS THEN RAISE NOTICE '%', SQLSTATE; END \$\$" 2>&1 |
        sed -n 's/.*NOTICE: *//p'
}

sf_new k "snowflake_id.worker_id = 5" "snowflake_id.max_clock_drift = '3s'" \
    "snowflake_id.max_wait = '30s'"
sf_start k "${SF_FAKE_ENV[@]}" || sf_die "server did not start under libfaketime"
sf_psql k -c "CREATE EXTENSION snowflake_id" -c "CREATE TABLE ids (batch int, id bigint)"

batch() { # batch N COUNT: generate COUNT IDs in one statement, labelled N
    sf_psql k -c "INSERT INTO ids SELECT $1, snowflake_nextval() FROM generate_series(1, $2)"
}
last_ts="(SELECT max(snowflake_timestamp(id)) FROM ids)"

# A fresh server starts max_clock_drift ahead of the clock (see the README);
# let the clock catch up first. Then 2,000 IDs fit in the 4,096 of one
# millisecond: nothing is borrowed.
sf_poll k "SELECT snowflake_timestamp(snowflake_nextval()) < clock_timestamp()" t
# A step back of two seconds, within the drift bound of three: the clock is
# behind the IDs only until it has made up those two seconds. So one session
# mints, steps the clock (psql's \!), mints again and reads snowflake_status,
# keeping each reading with the clock's time in tables; the checks below
# compare those readings, however long psql starts take. (Read a few psql
# starts later, the clock had caught up on a busy machine.)
sf_psql k <<SQL
INSERT INTO ids SELECT 1, snowflake_nextval() FROM generate_series(1, 2000);
CREATE TABLE status_before AS SELECT clock_timestamp() AS clock, * FROM snowflake_status();
\! echo "-2" >"$clock"
CREATE TABLE stepped AS SELECT clock_timestamp() AS clock;
-- 20,000 IDs need about five new milliseconds: each borrowed from the future.
INSERT INTO ids SELECT 2, snowflake_nextval() FROM generate_series(1, 20000);
CREATE TABLE status_after AS SELECT clock_timestamp() AS clock, * FROM snowflake_status();
SQL
batch1_ts="(SELECT max(snowflake_timestamp(id)) FROM ids WHERE batch = 1)"
sf_expect_eq "before the step, the IDs do not run ahead of the clock" t \
    "$(sf_psql k -c "SELECT clock >= $batch1_ts FROM status_before")"
sf_expect_eq "after the step, the server's clock is behind its IDs" t \
    "$(sf_psql k -c "SELECT clock + interval '1 s' < $batch1_ts FROM stepped")"
sf_expect_eq "a step back within the drift is absorbed: IDs keep increasing" t \
    "$(sf_psql k -c "SELECT min(id) FILTER (WHERE batch = 2) > max(id) FILTER (WHERE batch = 1) FROM ids")"
sf_expect_eq "and they run ahead of the clock instead of following it back" t \
    "$(sf_psql k -c "SELECT min(snowflake_timestamp(id)) > (SELECT clock FROM status_after)
                     FROM ids WHERE batch = 2")"
before_after() { sf_psql k -c "SELECT $1 FROM status_before b, status_after a"; }
sf_expect_eq "snowflake_status counts the step back once, over 20,000 calls" \
    "$(before_after "b.clock_backwards + 1")" "$(before_after "a.clock_backwards")"
sf_expect_eq "... and shows the generator ahead of the clock" t "$(before_after "a.ahead_of_clock_ms > 0")"
sf_expect_eq "... and the milliseconds borrowed" t \
    "$(before_after "a.sequence_exhausted > b.sequence_exhausted")"
status() { sf_psql k -c "SELECT $1 FROM snowflake_status()"; }
errors_before=$(status errors)

# How far the clock is behind the last issued ID decides what a call does
# (absorb, wait, fail); after a step set relative to the real clock, the
# less, the longer psql starts take since that ID (a wait had ended before
# its cancel came on a busy machine). So the steps below are set relative to
# the last issued ID, by the session that calls (psql's \!) where the
# call's wait is checked.
clock_behind=$SF_WORK/clock-behind.sh
cat >"$clock_behind" <<EOF
# sh $clock_behind LAST_MS MS: puts the clock MS ms behind LAST_MS (ms since 1970).
offset_ms=\$((\$1 - \$2 - \$(date +%s%3N)))
sign=+
if [ "\$offset_ms" -lt 0 ]; then sign=-; offset_ms=\$((-offset_ms)); fi
printf '%s%d.%03d\n' "\$sign" \$((offset_ms / 1000)) \$((offset_ms % 1000)) >"$clock"
EOF
last_issued_ms() { sf_psql k -c "SELECT (extract(epoch FROM last_issued_at) * 1000)::bigint
                                  FROM snowflake_status()"; }

# The clock two minutes behind the last ID: the wait needed exceeds max_wait
# (30 s). The 10,000 calls use up what is left of the current millisecond
# first.
sh "$clock_behind" "$(last_issued_ms)" 120000
out=$(sf_psql k -c "SELECT count(snowflake_nextval()) FROM generate_series(1, 10000)" 2>&1 || true)
sf_expect_match "beyond the drift bound: the documented ERROR" \
    'ERROR: +the wall clock is 1[12][0-9]{4} ms behind the last issued snowflake ID' "$out"
sf_expect_match "it fails at once instead of waiting max_wait" \
    'this call waited 0 ms of snowflake_id.max_wait = 30000 ms' "$out"
sf_expect_match "its hint points at the clock and the bounds" 'HINT: +Check the server.s clock' "$out"
sf_expect_eq "with SQLSTATE 55000" 55000 \
    "$(sqlstate_of k "SELECT count(snowflake_nextval()) FROM generate_series(1, 10000)")"
out=$(sf_psql k -c "SELECT count(*) FROM snowflake_nextval(5000)" 2>&1 || true)
sf_expect_match "a block beyond the drift bound: its own ERROR" \
    'ERROR: +a block of 5000 IDs would end more than snowflake_id.max_clock_drift ahead of the wall clock' "$out"
sf_expect_match "... naming the block's last ID" "DETAIL: +The block's last ID needs timestamp" "$out"
sf_expect_match "... and the hint at the clock, for blocks" \
    'HINT: +Check the server.s clock \(NTP\)\..*; a smaller block needs less room' "$out"
sf_expect_eq "snowflake_status counts the three errors" $((errors_before + 3)) "$(status errors)"

# The clock 20 s behind the last ID: a call must wait about 17 s, which
# max_wait (30 s) allows. statement_timeout must cut the wait short.
still_waiting="SELECT clock_timestamp() + interval '3000 ms' < $last_ts"
out=$(sf_psql k -c "SET statement_timeout = '300ms'" -c "\\! sh $clock_behind $(last_issued_ms) 20000" \
    -c "SELECT count(snowflake_nextval()) FROM generate_series(1, 10000)" 2>&1 || true)
sf_expect_match "statement_timeout cancels a waiting call" 'canceling statement due to statement timeout' "$out"
sf_expect_eq "... before the clock could end the wait" t "$(sf_psql k -c "$still_waiting")"

# The same wait, cancelled by another session; it shows in pg_stat_activity.
waiting_query="SELECT count(snowflake_nextval()) FROM generate_series(1, 10001)"
sf_psql k -c "\\! sh $clock_behind $(last_issued_ms) 20000" -c "$waiting_query" \
    >"$SF_WORK/waiter.out" 2>&1 &
waiter=$!
in_wait="FROM pg_stat_activity WHERE wait_event_type = 'Extension' AND query = '$waiting_query'"
sf_poll k "SELECT count(*) $in_wait" 1
sf_psql k -c "SELECT pg_cancel_backend(pid) $in_wait" >/dev/null
wait "$waiter" || true
sf_expect_match "pg_cancel_backend cancels a waiting call" 'canceling statement due to user request' \
    "$(cat "$SF_WORK/waiter.out")"
sf_expect_eq "... before the clock could end the wait" t "$(sf_psql k -c "$still_waiting")"

# A wait of about 5 s while another session keeps setting the waiter's
# latch (NOTIFY to a channel it listens on, every 5 ms): the early wake-ups
# must count only the time really slept, so the call succeeds. (Charging the
# 5 s asked for at every wake-up would exhaust max_wait = 30 s in 6 pokes.)
# The waiter sets the clock so that its next millisecond is max_clock_drift
# + 5 s ahead of it.
waits_before=$(status waits)
waiting_query="SELECT snowflake_nextval() FROM generate_series(1, 10002)"
sf_psql k -c "LISTEN poke" -c "\\! sh $clock_behind $(last_issued_ms) $((3000 + 5000))" \
    -c "$waiting_query" >"$SF_WORK/poked.out" 2>&1 &
waiter=$!
in_wait="FROM pg_stat_activity WHERE wait_event_type = 'Extension' AND query = '$waiting_query'"
sf_poll k "SELECT count(*) $in_wait" 1
sf_psql k -c "DO \$\$ BEGIN
    FOR i IN 1..2000 LOOP
        EXIT WHEN NOT EXISTS (SELECT $(printf '%s' "$in_wait" | sed 's/^FROM/1 FROM/'));
        PERFORM pg_notify('poke', '');
        COMMIT;
        PERFORM pg_sleep(0.005);
    END LOOP; END \$\$"
wait "$waiter" || sf_die "the poked call failed: $(tail -n 3 "$SF_WORK/poked.out")"
sf_expect_eq "snowflake_status counts the call that waited" $((waits_before + 1)) "$(status waits)"
sf_expect_eq "a wait with early wake-ups completes within max_wait" 10002 \
    "$(grep -c '^[0-9]' "$SF_WORK/poked.out")"

# The clock is right again: IDs continue above everything issued before.
echo "+0" >"$clock"
batch 3 2000
sf_expect_eq "no duplicate across the steps" t "$(sf_psql k -c "SELECT count(*) = count(DISTINCT id) FROM ids")"
sf_expect_eq "after the clock returns, IDs are above all earlier ones" t \
    "$(sf_psql k -c "SELECT min(id) FILTER (WHERE batch = 3) > max(id) FILTER (WHERE batch < 3) FROM ids")"
sf_stop k

# Demand beyond the layout's capacity, with a clock that never goes back:
# 4 IDs per millisecond (2 sequence bits), max_clock_drift 50 ms and
# max_wait 0, so that the first call that needs a millisecond beyond the
# drift fails. 1,000,000 calls in one statement need 250 s of the clock's
# milliseconds; the statement takes far less, so it reaches the limit.
sf_new cap "snowflake_id.worker_id = 2" "snowflake_id.sequence_bits = 2" \
    "snowflake_id.max_clock_drift = 50" "snowflake_id.max_wait = 0"
sf_start cap "${SF_FAKE_ENV[@]}" || sf_die "the layout of 4 IDs per millisecond did not start"
sf_psql cap -c "CREATE EXTENSION snowflake_id"
many="SELECT count(snowflake_nextval()) FROM generate_series(1, 1000000)"
capacity_error="ERROR: +demand for snowflake IDs exceeds the layout's capacity of 4 IDs per millisecond"
out=$(sf_psql cap -c "$many" 2>&1 || true)
sf_expect_match "demand beyond the capacity: an ERROR that names it" "$capacity_error" "$out"
sf_expect_match "... says the clock did not go back and names the drift" \
    'DETAIL: .*\(2 sequence bits\); the clock did not go back\..*snowflake_id\.max_clock_drift = 50 ms' \
    "$out"
sf_expect_match "... and hints at the settings that help" \
    'HINT: .*snowflake_id\.sequence_bits.*snowflake_id\.max_wait.*snowflake_id\.max_clock_drift' "$out"
if grep -q 'NTP' <<<"$out"; then
    sf_die "the ERROR of demand beyond the capacity blames the clock: $out"
fi
sf_log "ok: ... and does not blame the clock"
sf_expect_eq "with SQLSTATE 55000" 55000 "$(sqlstate_of cap "$many")"
# A block per row: the argument refers to the row (a constant one would be
# evaluated once, and its block read again for every row).
out=$(sf_psql cap -c "SELECT count(*) FROM generate_series(1, 250000) g,
                          LATERAL snowflake_nextval(4 + 0 * g)" 2>&1 || true)
sf_expect_match "blocks beyond the capacity: the same ERROR" "$capacity_error" "$out"
sf_expect_match "... naming the block's last ID" "DETAIL: .*The block's last ID needs timestamp" "$out"
sf_expect_match "... and smaller blocks first in the hint" 'HINT: +Take smaller blocks\.' "$out"
sf_expect_eq "snowflake_status saw no step back" 0 \
    "$(sf_psql cap -c "SELECT clock_backwards FROM snowflake_status()")"

# A step back within max_clock_drift, then the same demand. Once the IDs are
# back at the clock, the drift becomes 60 s (a reload) and the clock steps
# back 50 s: the statement reaches the drift limit after about 40,000 IDs,
# long before the clock has caught up. The IDs then run exactly
# max_clock_drift ahead of the clock, as far as demand alone could take
# them, but the clock went back, and the ERROR says so.
sf_poll cap "SELECT ahead_of_clock_ms FROM snowflake_status()" 0
sf_psql cap -c "ALTER SYSTEM SET snowflake_id.max_clock_drift = '60s'" \
    -c "SELECT pg_reload_conf()" >/dev/null
sf_poll cap "SELECT current_setting('snowflake_id.max_clock_drift')" 1min
echo "-50" >"$clock"
out=$(sf_psql cap -c "$many" 2>&1 || true)
sf_expect_match "a step back within the drift, then demand: the clock-behind ERROR" \
    'ERROR: +the wall clock is 60000 ms behind the last issued snowflake ID' "$out"
sf_expect_match "... saying how far the clock went back" \
    'DETAIL: .*The wall clock went back: it reads [0-9]+ ms before an earlier reading\.' "$out"
sf_expect_match "... with the hint at the clock" 'HINT: +Check the server.s clock \(NTP\)' "$out"
sf_expect_eq "snowflake_status counts the step back" 1 \
    "$(sf_psql cap -c "SELECT clock_backwards FROM snowflake_status()")"
echo "+0" >"$clock"
sf_stop cap

# Exhaustion: 23 timestamp bits (8,388,607 ms) from an epoch chosen, once
# the cluster exists, so that the layout ends 300 s from then (the server
# must start and mint before it ends, which a loaded machine's initdb alone
# outlasted with 20 s); then the clock jumps ten minutes ahead.
sf_new x "snowflake_id.worker_id = 1" "snowflake_id.worker_bits = 20" \
    "snowflake_id.sequence_bits = 20"
sf_conf x "snowflake_id.epoch = '$(($(date +%s%3N) - 8388607 + 300000))'"
sf_start x "${SF_FAKE_ENV[@]}" || sf_die "the short-lived layout did not start"
sf_psql x -c "CREATE EXTENSION snowflake_id"
sf_psql x -c "SELECT snowflake_nextval()" >/dev/null
echo "+600" >"$clock"
out=$(sf_psql x -c "SELECT snowflake_nextval()" 2>&1 || true)
sf_expect_match "past the layout's end: the exhaustion ERROR" \
    'ERROR: +the timestamp field of the ID layout is exhausted' "$out"
sf_expect_eq "with SQLSTATE 2200H" 2200H "$(sqlstate_of x "SELECT snowflake_nextval()")"
echo "clock: all checks passed"
