#!/usr/bin/env bash
# Failover to a synchronous standby whose wall clock is ten minutes behind the
# primary's, on real servers:
#  - the primary is killed (postmaster and every child at once, like a power
#    loss) while two clients stream IDs from it; the standby is promoted;
#  - the test is meaningful: the largest ID a client received from the old
#    primary lies in the promoted server's future, so a generator following
#    its clock would repeat IDs;
#  - the promoted server issues IDs at once, every one above every ID a client
#    received from the old primary, none repeated, and its log says where it
#    resumes (the durable reservation that WAL replay raised) and warns about
#    the clock;
#  - the wait for the synchronous standbys before a reservation counts is
#    cancellable, issues nothing when cancelled (and a later call waits as
#    well), and once synchronous_standby_names is empty again IDs continue
#    above everything issued before.
source "$(dirname "$0")/../lib/suite.sh"
sf_fake_clock


# 16 IDs per millisecond: the load below runs through a reservation (1 s of
# IDs, renewed every half second) about every 8,000 IDs. Two clients at the
# layout's capacity compete for every millisecond, and a session the
# scheduler wakes late can lose each one to the other for as long as it
# waits (docs/settings.md, max_wait): on a loaded machine, for all of the
# default 100 ms. What is tested here is the crash under load, not a fair
# share, so a call may wait a minute rather than fail.
sf_new primary "snowflake_id.worker_id = 1" "snowflake_id.sequence_bits = 4" \
    "snowflake_id.max_wait = '60s'"
sf_start primary || sf_die "primary did not start"
sf_psql primary -c "CREATE EXTENSION snowflake_id"

# The standby runs ten minutes behind; walreceiver names itself after cluster_name.
sf_new_standby primary standby "cluster_name = 'standby1'"
echo "-600" >"$SF_CLOCK"
sf_start standby "${SF_FAKE_ENV[@]}" || sf_die "standby did not start under libfaketime"
sf_expect_eq "the standby is in recovery" t "$(sf_psql standby -c 'SELECT pg_is_in_recovery()')"
sf_expect_eq "the standby's clock is ten minutes behind the primary's" t "$(sf_psql standby -c "
    SELECT clock_timestamp() < '$(sf_psql primary -c 'SELECT clock_timestamp()')'::timestamptz
                               - interval '590 s'")"
sf_make_sync primary standby1
sf_log "ok: the standby streams from the primary as its synchronous standby"

# The load: two clients stream IDs into files (psql writes what it received,
# also when the connection breaks), made here so that the poll below can
# count their lines before a client's shell has opened its own.
: >"$SF_WORK/old.1"
: >"$SF_WORK/old.2"
sf_stream_ids primary "$SF_WORK/old.1" 2000000 2>"$SF_WORK/old.1.err" &
client1=$!
sf_stream_ids primary "$SF_WORK/old.2" 2000000 2>"$SF_WORK/old.2.err" &
client2=$!
# Bounded poll until the clients received 40,000 IDs between them (2.5 s of
# ID time at 16 per ms, several reservations), both still streaming: how
# the two share them is the scheduler's.
received=()
for _ in $(seq 1 2000); do
    for client in 1 2; do
        pid=client$client
        kill -0 "${!pid}" 2>/dev/null ||
            sf_die "client $client ended before the crash: $(cat "$SF_WORK/old.$client.err")"
        received[client]=$(wc -l <"$SF_WORK/old.$client")
    done
    [ $((received[1] + received[2])) -lt 40000 ] || break
    sleep 0.02 # the pace of the poll; the condition is the line count
done
[ $((received[1] + received[2])) -ge 40000 ] || sf_die "the clients did not receive 40000 IDs in time"
sf_log "ok: the clients are receiving IDs (${received[1]} and ${received[2]} so far)"

# Power loss: the postmaster and all its children at once.
sf_crash primary
wait "$client1" || true
wait "$client2" || true
for client in 1 2; do
    f=$SF_WORK/old.$client
    grep -Ev '^[0-9]+$' "$f" >/dev/null && sf_die "$f holds something other than IDs"
    [ "$(wc -l <"$f")" -ge "${received[client]}" ] || sf_die "$f lost IDs it held before the crash"
done
sf_expect_match "the clients lost their connection mid-COPY" \
    'server closed the connection|connection to server was lost|terminating connection' \
    "$(cat "$SF_WORK"/old.*.err)"
old_max=$(sort -n "$SF_WORK/old.1" "$SF_WORK/old.2" | sed -n '$p')
old_min=$(sort -n "$SF_WORK/old.1" "$SF_WORK/old.2" | sed -n '1p')
sf_log "info: the clients received $(cat "$SF_WORK"/old.1 "$SF_WORK"/old.2 | wc -l) IDs from the old primary"

# Promotion.
log_before=$(sf_server_log standby | wc -l)
sf_promote standby
sf_poll standby "SELECT pg_is_in_recovery()" f
sf_log "ok: the standby was promoted"

# Meaningful only if the old primary's IDs are in the promoted server's future.
sf_expect_eq "the load spanned several reservation windows" t "$(sf_psql standby -c "
    SELECT snowflake_timestamp($old_max) - snowflake_timestamp($old_min) > interval '2 s'")"
sf_expect_eq "the old primary's largest ID lies ahead of the promoted server's clock" t \
    "$(sf_psql standby -c "SELECT snowflake_timestamp($old_max) > clock_timestamp() + interval '590 s'")"

sf_stream_ids standby "$SF_WORK/new" 50000
sf_expect_eq "the promoted server issued 50000 IDs at once" 50000 "$(wc -l <"$SF_WORK/new")"
sf_expect_above "after failover" "$SF_WORK/old.1" "$SF_WORK/old.2" -- "$SF_WORK/new"

promo_log=$(sf_server_log standby | tail -n +"$((log_before + 1))")
sf_expect_match "the promoted server logs where it resumes" \
    'LOG: +snowflake_id: the generator resumes at .*, above the durable reservation, (5[5-9]|6[01])[0-9]{4} ms ahead of the wall clock' \
    "$promo_log"
sf_expect_match "... and that WAL replay raised the reservation" \
    'DETAIL: +WAL replay raised the reservation to this point\.' \
    "$(printf '%s\n' "$promo_log" | grep -A1 'LOG: .*resumes at .*above the durable reservation')"
sf_expect_match "... and warns that the clock is behind" \
    'WARNING: +snowflake_id: the wall clock \(.*\) is (5[5-9]|6[01])[0-9]{4} ms behind the durable reservation' \
    "$promo_log"

# The wait for synchronous standbys: none answers to 'nobody'.
sf_psql standby -c "ALTER SYSTEM SET synchronous_standby_names = 'nobody'" \
    -c "SELECT pg_reload_conf()" >/dev/null
sf_poll standby "SHOW synchronous_standby_names" nobody
# 200,000 IDs need 12.5 s of ID time: beyond any reservation made so far.
waiting_query="SELECT count(snowflake_nextval()) FROM generate_series(1, 200000)"
in_wait="FROM pg_stat_activity WHERE wait_event = 'SyncRep' AND query = '$waiting_query'"
# cancel_in_wait WHAT: runs the query, waits until it waits for the
# synchronous standby, cancels it, and checks it returned only the ERROR.
cancel_in_wait() {
    local waiter
    sf_psql standby -c "$waiting_query" >"$SF_WORK/waiter.out" 2>&1 &
    waiter=$!
    sf_poll standby "SELECT count(*) $in_wait" 1
    sf_log "ok: $1: the call waits for the synchronous standby (wait event SyncRep)"
    sf_psql standby -c "SELECT pg_cancel_backend(pid) $in_wait" >/dev/null
    wait "$waiter" && sf_die "$1: the cancelled call succeeded: $(cat "$SF_WORK/waiter.out")"
    sf_expect_match "$1: pg_cancel_backend ends the wait with an ERROR" \
        'ERROR: +canceling statement due to user request' "$(cat "$SF_WORK/waiter.out")"
    sf_expect_eq "$1: the call returned no result" 0 "$(grep -cE '^[0-9]+$' "$SF_WORK/waiter.out" || true)"
}
cancel_in_wait "a call needing a new reservation"
# A cancel leaves the reservation unconfirmed: a later call waits as well.
cancel_in_wait "a later call"

sf_psql standby -c "ALTER SYSTEM RESET synchronous_standby_names" -c "SELECT pg_reload_conf()" >/dev/null
sf_poll standby "SHOW synchronous_standby_names" ""
sf_stream_ids standby "$SF_WORK/last" 20000
sf_expect_eq "with no synchronous standby named, IDs are issued again" 20000 "$(wc -l <"$SF_WORK/last")"
sf_expect_above "after the cancelled wait" "$SF_WORK/old.1" "$SF_WORK/old.2" "$SF_WORK/new" -- "$SF_WORK/last"
echo "failover: all checks passed"
