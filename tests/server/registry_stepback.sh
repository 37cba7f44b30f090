#!/usr/bin/env bash
# snowflake_id.on_clock_step_back = 'switch_node', on real servers: a
# registry, a node "stepper" with worker_id = 'auto' whose wall clock
# libfaketime sets back one hour while it mints, and a node "steady" on the
# real clock minting beside it.
#  - the step back is absorbed by a switch of node id: one statement of
#    300,000 calls runs through it without an error, and the longest pause
#    between two IDs is far below a renewal interval (the switch is one
#    registry round trip, not a wait for the clock or for the next renewal);
#  - the new node id is one whose recorded bound lies below the clock: not
#    the id a stopped node released a moment before (its bound is an hour
#    ahead of the stepped clock), but one never leased;
#  - IDs after the switch carry the new node id and sort below the ones
#    before it; no ID repeats across both nodes; snowflake_status counts one
#    switch; the registry shows the old lease released with a bound above
#    every ID issued on it;
#  - a second step back, with no id left whose bound is below the clock:
#    calls fail with the clock-behind ERROR, whose HINT gives the registry's
#    answer, and the node keeps its lease;
#  - 'switch_node' with a static worker id logs a WARNING at start.
source "$(dirname "$0")/../lib/suite.sh"
sf_fake_clock

sf_new_registry registry
# Four node ids (worker_bits = 2). lease_ttl 60 s: renewals every 20 s.
layout_conf="snowflake_id.worker_bits = 2"
node_conf=("snowflake_id.worker_id = 'auto'" "$SF_REGISTRY_CONF" "$layout_conf")

status() { sf_psql "$1" -c "SELECT $2 FROM snowflake_status()"; }

# Started one after the other: stepper leases 0, steady 1, gone 2.
sf_new stepper "${node_conf[@]}" "snowflake_id.on_clock_step_back = 'switch_node'"
sf_new steady "${node_conf[@]}"
sf_new gone "${node_conf[@]}"
sf_start stepper "${SF_FAKE_ENV[@]}" || sf_die "stepper did not start"
for n in stepper steady gone; do
    [ "$n" = stepper ] || sf_start "$n" || sf_die "$n did not start"
    sf_psql "$n" -c "CREATE EXTENSION snowflake_id"
    sf_poll "$n" "SELECT lease_state FROM snowflake_status()" held
done
sf_expect_eq "the nodes hold ids 0, 1 and 2" "0 1 2" \
    "$(for n in stepper steady gone; do status "$n" worker_id; done | tr '\n' ' ' | sed 's/ $//')"
# gone mints and stops cleanly: id 2 is released with a bound about a
# minute ahead of the real clock, an hour ahead of stepper's clock to come.
sf_stream_ids gone "$SF_WORK/gone.ids" 1000
sf_stop gone
sf_registry_poll registry 2 state released

# A fresh generator may start ahead of the clock; let the clock pass it, so
# that the step finds the generator on the wall clock.
sf_poll stepper "SELECT snowflake_timestamp(snowflake_nextval()) < clock_timestamp()" t

# --- the step back -----------------------------------------------------------
# Each row: the ID, and the microsecond (of the faked clock) it was made.
sf_psql steady -c "COPY (SELECT snowflake_nextval() FROM generate_series(1, 200000)) TO STDOUT" \
    >"$SF_WORK/steady.ids" &
steady_pid=$!
sf_psql stepper -c "COPY (SELECT snowflake_nextval(),
                                 (extract(epoch FROM clock_timestamp()) * 1000000)::bigint
                          FROM generate_series(1, 300000)) TO STDOUT" \
    >"$SF_WORK/stepper.rows" 2>"$SF_WORK/stepper.rows.err" &
stepper_pid=$!
sf_await_ids 1000 "$stepper_pid" "$SF_WORK/stepper.rows"
echo "-3600" >"$SF_CLOCK"
wait "$stepper_pid" || sf_die "the statement across the step failed: $(cat "$SF_WORK/stepper.rows.err")"
wait "$steady_pid" || sf_die "steady failed to mint"
sf_expect_eq "one statement of 300,000 calls ran through the step without an error" 300000 \
    "$(wc -l <"$SF_WORK/stepper.rows")"

sf_psql stepper -c "CREATE TABLE rows (n serial, id bigint, at_us bigint)" \
    -c "COPY rows (id, at_us) FROM '$SF_WORK/stepper.rows'"
sf_expect_eq "rows were made on both sides of the step" t "$(sf_psql stepper -c "
    SELECT min(at_us) < max(at_us) - 1800000000
       AND EXISTS (SELECT FROM rows r WHERE r.at_us < (SELECT at_us FROM rows WHERE n = 1))
    FROM rows")"
# The pause: consecutive rows' times, the step's hour added back where the
# clock jumped.
pause_ms=$(sf_psql stepper -c "
    SELECT max(CASE WHEN d < -1800000000 THEN d + 3600000000 ELSE d END) / 1000
    FROM (SELECT at_us - lag(at_us) OVER (ORDER BY n) AS d FROM rows) s")
sf_log "the longest pause between two IDs across the switch: $pause_ms ms"
[ "$pause_ms" -lt 2000 ] ||
    sf_die "a pause of $pause_ms ms: the switch waited for more than a registry round trip"
sf_log "ok: no pause near a renewal interval (20 s), let alone the step (1 h)"

sf_expect_eq "snowflake_status counts one switch" 1 "$(status stepper lease_switches)"
sf_expect_eq "stepper switched to id 3, never leased, not to the released id 2" 3 \
    "$(status stepper worker_id)"
sf_expect_eq "IDs before the switch carry node 0, after it node 3, in one run each" "0 3" \
    "$(sf_psql stepper -c "
        SELECT string_agg(w::text, ' ' ORDER BY first_n) FROM (
            SELECT (snowflake_decode(id)).worker_id AS w, min(n) AS first_n FROM rows GROUP BY 1) s")"
sf_expect_eq "... and switch exactly once in issue order" 1 "$(sf_psql stepper -c "
    SELECT count(*) FROM (SELECT (snowflake_decode(id)).worker_id
                                 <> lag((snowflake_decode(id)).worker_id) OVER (ORDER BY n) AS c
                          FROM rows) s WHERE c")"
sf_expect_eq "IDs after the switch sort below the ones before it (documented)" t "$(sf_psql stepper -c "
    SELECT max(id) FILTER (WHERE (snowflake_decode(id)).worker_id = 3)
         < min(id) FILTER (WHERE (snowflake_decode(id)).worker_id = 0) FROM rows")"
sf_expect_eq "IDs on each node increase in issue order" 0 "$(sf_psql stepper -c "
    SELECT count(*) FROM (SELECT id, lag(id) OVER (PARTITION BY (snowflake_decode(id)).worker_id
                                                   ORDER BY n) AS prev FROM rows) s
    WHERE id <= prev")"
cut -f1 "$SF_WORK/stepper.rows" >"$SF_WORK/stepper.ids"
sf_expect_eq "no ID repeats across stepper, steady and gone" 0 \
    "$(cat "$SF_WORK/stepper.ids" "$SF_WORK/steady.ids" "$SF_WORK/gone.ids" | sort | uniq -d | wc -l)"
last_node0_ms=$(sf_psql stepper -c "
    SELECT (extract(epoch FROM max(snowflake_timestamp(id))) * 1000)::bigint
    FROM rows WHERE (snowflake_decode(id)).worker_id = 0")
sf_expect_eq "the registry shows id 0 released, id 3 live" "released live" \
    "$(sf_registry_lease registry 0 state) $(sf_registry_lease registry 3 state)"
sf_expect_eq "... id 0 with a bound above its last ID" t \
    "$(sf_psql stepper -c "SELECT $(sf_registry_lease registry 0 reserved_until_ms) > $last_node0_ms")"
sf_expect_match "the server log names both node ids" \
    'LOG: +snowflake_id: the clock is [0-9]+ ms behind the last ID issued on node id 0 .*switched to node id 3' \
    "$(sf_server_log stepper)"

# --- a second step back, no id left below the clock --------------------------
# Ids 0 and 2 have bounds an hour ahead of the clock now, id 1 is live.
# The last millisecond's sequence numbers are still to be had; 5,000 calls
# need a new millisecond.
echo "-7200" >"$SF_CLOCK"
out=$(sf_psql stepper -c "SELECT count(snowflake_nextval()) FROM generate_series(1, 5000)" 2>&1 ||
    true)
sf_expect_match "with no id free below the clock, the clock-behind ERROR" \
    'ERROR: +the wall clock is [0-9]+ ms behind the last issued snowflake ID' "$out"
sf_expect_match "... whose HINT gives the registry's answer" \
    "HINT: +snowflake_id.on_clock_step_back = 'switch_node' found no other node id \(registry .*: no node id is free for a server whose clock reads" \
    "$out"
sf_expect_eq "stepper keeps its lease on id 3" "held 3 1" \
    "$(sf_psql stepper -c "SELECT lease_state || ' ' || worker_id || ' ' || lease_switches FROM snowflake_status()")"

# --- 'switch_node' with a static worker id ------------------------------------
sf_new static "snowflake_id.worker_id = 1" "snowflake_id.on_clock_step_back = 'switch_node'"
sf_start static || sf_die "static did not start"
sf_expect_match "'switch_node' with a static worker id logs a WARNING at start" \
    "WARNING: +snowflake_id.on_clock_step_back = 'switch_node' needs worker_id = 'auto' and a registry" \
    "$(sf_server_log static)"
sf_log "PASS"
