#!/usr/bin/env bash
# A planned switchover with correct clocks raises no clock WARNING, on real
# servers (primary and synchronous standby on this machine's one clock):
#  - under a load beyond the layout's rate the generator runs at its drift
#    limit, and the reservation, sampled 200 times, is never more than
#    max_clock_drift + 1 s (+ 1 ms: a bound lies just past the last ID it
#    covers) ahead of the clock, the bound the resume WARNING and the README
#    use (a renewal once extended the old bound by 1 s: 1.5 s ahead);
#  - the primary is stopped cleanly while clients stream IDs and the standby
#    promoted: it resumes above every ID a client received and logs where,
#    with no WARNING.
source "$(dirname "$0")/../lib/suite.sh"

# 16 IDs per millisecond: two clients run the generator at its drift limit.
# There every call waits for the next millisecond and races the other client
# for its 16 IDs; a call that keeps losing (say, off the CPU on a busy
# machine while the other takes them) spends max_wait and fails with the
# capacity ERROR. With max_wait longer than the clients live (sf_await_ids
# gives up after about 40 s), no call can fail, however the two are
# scheduled; what this suite checks does not depend on max_wait.
sf_new primary "snowflake_id.worker_id = 1" "snowflake_id.sequence_bits = 4" \
    "snowflake_id.max_wait = '10min'"
sf_start primary || sf_die "primary did not start"
sf_psql primary -c "CREATE EXTENSION snowflake_id"
sf_new_standby primary standby "cluster_name = 'standby1'"
sf_start standby || sf_die "standby did not start"
sf_make_sync primary standby1

sf_stream_ids primary "$SF_WORK/old.1" 2000000 2>/dev/null &
client1=$!
sf_stream_ids primary "$SF_WORK/old.2" 2000000 2>/dev/null &
client2=$!
sf_await_ids 20000 "$client1" "$SF_WORK/old.1" "$client2" "$SF_WORK/old.2"

# The reservation's lead over the clock, sampled every 10 ms (the pace of the
# sampling, not a synchronisation) in one session: at least 200 times
# (several renewals), and on until a sample shows the generator at its drift
# limit (a lead above 1.5 s: there a renewal sets the bound 2 s ahead, and the
# next comes 1.5 s ahead) or 3,000 samples. So the load gets the time it
# needs to reach the limit, however slowly the machine samples. (2 s of
# samples missed it on a busy machine.)
read -r max_lead samples <<<"$(sf_psql primary -F ' ' -c "
    CREATE FUNCTION pg_temp.max_lead(OUT lead bigint, OUT samples int) LANGUAGE plpgsql AS \$\$
    BEGIN
        lead := 0;
        FOR i IN 1..3000 LOOP
            SELECT greatest(lead, (extract(epoch FROM reserved_until - clock_timestamp())
                                   * 1000)::bigint)
                INTO lead FROM snowflake_status();
            samples := i;
            EXIT WHEN i >= 200 AND lead > 1500;
            PERFORM pg_sleep(0.01);
        END LOOP;
    END \$\$" -c "SELECT * FROM pg_temp.max_lead()")"
sf_log "info: the reservation reached $max_lead ms ahead of the clock in $samples samples"
[ "$max_lead" -gt 1500 ] ||
    sf_die "the load did not run the generator at its drift limit (lead $max_lead ms in $samples samples)"
[ "$max_lead" -le 2001 ] ||
    sf_die "the reservation ran $max_lead ms ahead of the clock, beyond max_clock_drift + 1 s"
sf_log "ok: the reservation stays within max_clock_drift + 1 s of the clock"

# Switchover: stop the primary cleanly, promote the standby.
sf_stop primary fast
wait "$client1" || true
wait "$client2" || true
log_before=$(sf_server_log standby | wc -l)
sf_promote standby
sf_poll standby "SELECT pg_is_in_recovery()" f
sf_stream_ids standby "$SF_WORK/new" 20000
sf_expect_above "after the switchover" "$SF_WORK/old.1" "$SF_WORK/old.2" -- "$SF_WORK/new"
promoted_log=$(sf_server_log standby | tail -n +"$((log_before + 1))")
sf_expect_match "the promoted server logs where it resumes" \
    'snowflake_id: the generator resumes at .*durable reservation' "$promoted_log"
if grep -q 'WARNING: .*snowflake_id' <<<"$promoted_log"; then
    sf_die "a switchover with correct clocks logged a WARNING: $(printf '%s\n' "$promoted_log" |
        grep 'WARNING: .*snowflake_id')"
fi
sf_log "ok: no clock WARNING after a switchover with correct clocks"
