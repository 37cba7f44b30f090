#!/usr/bin/env bash
# Routine sequences of events that once broke servers with a registry of
# node ids, each played as a fixed scenario (issue 18); the lifecycle
# simulator (tests/lifecycle/) plays random sequences of the same events.
# With the registry a PostgreSQL database, or Redis with
# SF_REGISTRY_STORE=redis (tests/run-all runs both).
#  - two clean restarts with nothing minted between them: the server mints
#    again by itself, on the same node id, and its first ID lies within
#    max_clock_drift of the clock (it once refused for good, the state file
#    "older than the data directory", and every restart threw IDs a
#    lease_ttl ahead);
#  - four restarts in a row, minting between them: no lead adds up, no
#    WARNING blames the clock, and no LOG line calls the server the
#    previous holder of its own id;
#  - a registry that hangs (SIGSTOP): calls refuse at the deadline, and
#    snowflake_status says expired at once, with a failure counted and a
#    message; thawed, the server mints again by itself;
#  - a stop while the registry hangs (the give-back fails): the next start
#    takes its own lease back on the same id, near the clock;
#  - a state file copied back (older than the data directory): with a
#    registry it is set aside, the log says so, and the server mints above
#    every ID it issued before;
#  - (PostgreSQL store) a server that is its own registry: a clean restart
#    resumes near the clock on the same id;
#  - (PostgreSQL store) a server minting at its drift limit while the
#    registry hangs: it reaches the recorded bound before the deadline, and
#    snowflake_status says expired as soon as calls refuse.
source "$(dirname "$0")/../lib/suite.sh"

sf_new_registry registry
registry_conf=$SF_REGISTRY_CONF
drift_ms=100
settings=("snowflake_id.worker_id = 'auto'" "snowflake_id.lease_ttl = '3s'"
    "snowflake_id.max_clock_drift = '${drift_ms}ms'")
# A first ID after a clean restart may lie max_clock_drift ahead of the
# clock (a lease taken from another holder starts above its bound plus its
# drift), plus this much for the round trips of the measurement itself.
margin_ms=250

# lead_ms NAME: how far the time of a new ID lies ahead of the clock, in ms.
lead_ms() {
    sf_psql "$1" -c "SELECT round(extract(epoch FROM snowflake_timestamp(snowflake_nextval())) * 1000
                            - extract(epoch FROM clock_timestamp()) * 1000)::bigint"
}
expect_near_clock() {
    local what=$1 lead
    lead=$(lead_ms "$2")
    [ "$lead" -le $((drift_ms + margin_ms)) ] ||
        sf_die "$what: the first ID lies $lead ms ahead of the clock (at most $((drift_ms + margin_ms)))"
    sf_log "ok: $what: the first ID lies $lead ms ahead of the clock"
}
state_of() { sf_psql "$1" -c "SELECT lease_state FROM snowflake_status()"; }
node_of() { sf_psql "$1" -c "SELECT worker_id FROM snowflake_status()"; }
# The time a renewal may take to follow a registry that answers again: a
# lease_ttl, plus a renewal interval, plus the retry pause.
await_held() { sf_poll "$1" "SELECT lease_state FROM snowflake_status()" held; }

# registry_pids: the registry's processes, to freeze and thaw as one.
registry_pids() {
    local pm
    if [ "$SF_REGISTRY_STORE" = redis ]; then
        cat "$SF_WORK/registry/redis.pid"
    else
        pm=$(sf_as_server head -1 "$(sf_datadir registry)/postmaster.pid")
        echo "$pm $(pgrep -P "$pm" | tr '\n' ' ' || true)"
    fi
}

# --- two clean restarts with nothing minted between -------------------------
sf_new n1 "$registry_conf" "${settings[@]}"
sf_start n1 || sf_die "n1 did not start"
sf_psql n1 -c "CREATE EXTENSION snowflake_id"
await_held n1
sf_stream_ids n1 "$SF_WORK/n1.0" 1000
node=$(node_of n1)
sf_stop n1
sf_start n1 || sf_die "n1 did not restart"
await_held n1
sf_stop n1
sf_start n1 || sf_die "n1 did not restart a second time"
await_held n1
sf_expect_eq "after two clean restarts, nothing minted between, n1 holds the same node id" \
    "$node" "$(node_of n1)"
expect_near_clock "after two clean restarts" n1
sf_expect_eq "each clean shutdown left the state file the next start trusts" 0 \
    "$(sf_server_log n1 | grep -c 'older than the data directory' || true)"
sf_stream_ids n1 "$SF_WORK/n1.1" 1000
sf_expect_above "n1 after two clean restarts" "$SF_WORK/n1.0" -- "$SF_WORK/n1.1"

# --- four restarts in a row, minting between ----------------------------------
files=("$SF_WORK/n1.0" "$SF_WORK/n1.1")
for round in 1 2 3 4; do
    sf_stop n1
    sf_start n1 || sf_die "n1 did not restart (round $round)"
    await_held n1
    expect_near_clock "restart $round of four" n1
    sf_stream_ids n1 "$SF_WORK/n1.r$round" 500
    sf_expect_above "n1 after restart $round" "${files[@]}" -- "$SF_WORK/n1.r$round"
    files+=("$SF_WORK/n1.r$round")
done
sf_expect_eq "n1 kept its node id through the restarts" "$node" "$(node_of n1)"
sf_expect_eq "no WARNING blames the clock for a lead the server made" 0 \
    "$(sf_server_log n1 | grep -c 'behind the last ID issued' || true)"
sf_expect_eq "no LOG line calls n1 the previous holder of its own id" 0 \
    "$(sf_server_log n1 | grep -c 'the previous holder' || true)"
sf_expect_match "n1 says it took its own lease back" "took back node id $node" "$(sf_server_log n1)"

# --- a registry that hangs -----------------------------------------------------
frozen=$(registry_pids)
SF_FROZEN_PIDS=$frozen
# shellcheck disable=SC2086
kill -STOP $frozen
failed=
for _ in $(seq 1 1000); do
    if ! failed=$(sf_psql n1 -c "SELECT snowflake_nextval()" 2>&1); then
        break
    fi
    failed=
    sleep 0.01 # the pace of the poll; the condition is the refusal
done
sf_expect_match "with the registry hung, calls refuse at the deadline" \
    "the node id lease of this server expired" "$failed"
sf_expect_eq "snowflake_status says expired as soon as a call refuses" expired "$(state_of n1)"
sf_poll n1 "SELECT lease_failures > 0 AND lease_message <> '' FROM snowflake_status()" t
sf_log "ok: the failure is counted and the message says why: $(sf_psql n1 -c \
    "SELECT lease_message FROM snowflake_status()")"

# --- a stop while the registry hangs: the give-back fails -----------------------
sf_stop n1
# shellcheck disable=SC2086
kill -CONT $frozen
SF_FROZEN_PIDS=
sf_start n1 || sf_die "n1 did not start after a failed give-back"
await_held n1
sf_expect_eq "after a failed give-back n1 takes its own lease back (same id)" "$node" "$(node_of n1)"
expect_near_clock "after a failed give-back" n1
sf_stream_ids n1 "$SF_WORK/n1.g" 500
sf_expect_above "n1 after a failed give-back" "${files[@]}" -- "$SF_WORK/n1.g"
files+=("$SF_WORK/n1.g")

# --- a state file copied back: set aside with a registry ------------------------
sf_stop n1
sf_as_server cp "$(sf_datadir n1)/snowflake_id.state" "$SF_WORK/n1.state.copy"
sf_start n1 || sf_die "n1 did not start"
await_held n1
sf_stream_ids n1 "$SF_WORK/n1.s" 2000
sf_stop n1
sf_as_server cp "$SF_WORK/n1.state.copy" "$(sf_datadir n1)/snowflake_id.state"
sf_start n1 || sf_die "n1 did not start with an old state file"
await_held n1
sf_expect_match "the log says the old state file is set aside, with its path" \
    "state file \"$(sf_datadir n1)/snowflake_id.state\" is older than the data directory; it is set aside" \
    "$(sf_server_log n1)"
sf_stream_ids n1 "$SF_WORK/n1.s2" 500
sf_expect_above "n1 with its old state file set aside" "${files[@]}" "$SF_WORK/n1.s" -- "$SF_WORK/n1.s2"
# The ids really involved: the one leased now, and the one the file named.
set_aside_node=$(sf_psql n1 -c "SELECT worker_id FROM snowflake_status()")
set_aside_log=$(sf_server_log n1 | grep -A1 'is set aside as')
sf_expect_match "... and the log names the node id it resumes on" \
    "the state file is set aside as .*; node id $set_aside_node resumes above the bound the registry recorded for it" \
    "$set_aside_log"
sf_expect_match "... and the one the file's IDs were issued on" \
    "DETAIL: +The set-aside file's IDs were issued on node id [0-9]+" "$set_aside_log"
sf_stop n1
sf_start n1 || sf_die "n1 did not restart after the set-aside"
await_held n1
sf_expect_eq "the next clean restart trusts the file again" 1 \
    "$(sf_server_log n1 | grep -c 'it is set aside' || true)"

# --- a static id the registry never saw, its state file unreadable ---------------
# n4 minted on static id 9 without a registry; then the registry is set up
# and the state file is lost to corruption: the registry has no bound for
# id 9, so the file cannot be set aside. The refusal stands across
# restarts, until the file is dealt with.
sf_new n4 "snowflake_id.worker_id = 9" "${settings[@]:1}"
sf_start n4 || sf_die "n4 did not start"
sf_psql n4 -c "CREATE EXTENSION snowflake_id"
sf_stream_ids n4 "$SF_WORK/n4.0" 1000
sf_stop n4
sf_conf n4 "$registry_conf"
sf_as_server dd if=/dev/urandom of="$(sf_datadir n4)/snowflake_id.state" bs=8192 count=1 \
    conv=notrunc status=none
for round in 1 2; do
    sf_start n4 || sf_die "n4 did not start (round $round)"
    sf_poll n4 "SELECT lease_state FROM snowflake_status()" refused
    sf_expect_match "a static id the registry never saw: still refused (start $round)" \
        "cannot tell which IDs were issued before: the state file" \
        "$(sf_psql n4 -c "SELECT snowflake_nextval()" 2>&1 || true)"
    sf_stop n4
done
sf_as_server rm "$(sf_datadir n4)/snowflake_id.state"
sf_start n4 || sf_die "n4 did not start without its state file"
await_held n4
sf_stream_ids n4 "$SF_WORK/n4.1" 500
sf_expect_above "n4 once the file was dealt with" "$SF_WORK/n4.0" -- "$SF_WORK/n4.1"
sf_stop n4

# --- a lease taken over from another holder, then two clean restarts --------------
# n0, whose clock runs 10 s ahead, mints on static id 7 and stops; n2 takes
# id 7 and starts above n0's bound, seconds ahead of its own clock: a floor
# no record of n2's covers. It restarts twice with nothing minted between:
# it must trust its own state files, and the log must not blame its clock
# for the lead. A registry of their own, whose lease_ttl (30 s) lies well
# past the 10 s: libfaketime may leave the registry worker on the real
# clock, and the bound it records must still cover n0's IDs.
sf_new_registry registry2
registry2_conf=$SF_REGISTRY_CONF
long=("snowflake_id.lease_ttl = '30s'" "snowflake_id.max_clock_drift = '${drift_ms}ms'")
sf_fake_clock
echo "+10" >"$SF_CLOCK"
sf_new n0 "$registry2_conf" "${long[@]}" "snowflake_id.worker_id = 7"
sf_new n2 "$registry2_conf" "${long[@]}" "snowflake_id.worker_id = 7"
sf_start n0 "${SF_FAKE_ENV[@]}" || sf_die "n0 did not start"
sf_psql n0 -c "CREATE EXTENSION snowflake_id"
await_held n0
sf_stream_ids n0 "$SF_WORK/n0.0" 1000
sf_stop n0
sf_start n2 || sf_die "n2 did not start"
sf_psql n2 -c "CREATE EXTENSION snowflake_id"
await_held n2
sf_expect_match "n2 starts above n0's recorded bound" "above every ID the previous holder of node id 7" \
    "$(sf_server_log n2)"
sf_stop n2
sf_start n2 || sf_die "n2 did not restart"
await_held n2
sf_stop n2
sf_start n2 || sf_die "n2 did not restart a second time"
await_held n2
sf_expect_eq "n2's clean shutdowns left state files its next starts trust" 0 \
    "$(sf_server_log n2 | grep -c 'older than the data directory' || true)"
sf_expect_eq "no WARNING blames n2's clock for the lead of n0's lease" 0 \
    "$(sf_server_log n2 | grep -c 'behind the last ID issued' || true)"
sf_expect_match "the log names the lease as the lead's cause" "the lead comes from the node id lease" \
    "$(sf_server_log n2)"
sf_stream_ids n2 "$SF_WORK/n2.0" 500
sf_expect_above "n2 on n0's node id" "$SF_WORK/n0.0" -- "$SF_WORK/n2.0"
sf_stop n2

# --- an asynchronous standby restarted cleanly, then promoted ---------------------
# Its clean shutdown's exact record names its primary's lease, which it never
# held: promoted after the primary minted more (unseen by it) and died, it
# must start above the primary's recorded bound, not at its own replayed
# floor, with its clock a minute behind. (Found by review: the lease taken
# back as its own repeated 59,015 of the primary's IDs.)
sf_new p1 "snowflake_id.worker_id = 11" "$registry2_conf" "${long[@]}"
sf_start p1 || sf_die "p1 did not start"
sf_psql p1 -c "CREATE EXTENSION snowflake_id"
await_held p1
sf_stream_ids p1 "$SF_WORK/p1.0" 20000
sf_new_standby p1 s1
echo "-60" >"$SF_CLOCK"
sf_start s1 "${SF_FAKE_ENV[@]}" || sf_die "s1 did not start"
sf_stream_ids p1 "$SF_WORK/p1.1" 20000
lsn=$(sf_psql p1 -c "SELECT pg_current_wal_flush_lsn()")
sf_poll s1 "SELECT pg_last_wal_replay_lsn() >= '$lsn'" t
sf_stop s1
echo "primary_conninfo = ''" | sf_as_server tee -a "$(sf_datadir s1)/postgresql.auto.conf" >/dev/null
sf_start s1 "${SF_FAKE_ENV[@]}" || sf_die "s1 did not restart"
sf_stream_ids p1 "$SF_WORK/p1.2" 20000 # reservations s1 never receives
sf_crash p1
sf_promote s1
await_held s1
sf_expect_eq "the promoted standby does not take its primary's lease as its own" 0 \
    "$(sf_server_log s1 | grep -c 'took back node id' || true)"
sf_stream_ids s1 "$SF_WORK/s1.0" 40000
sf_expect_above "the promoted standby, a minute behind" "$SF_WORK/p1.0" "$SF_WORK/p1.1" \
    "$SF_WORK/p1.2" -- "$SF_WORK/s1.0"
sf_stop s1

# --- a server that is its own registry -------------------------------------------
if [ "$SF_REGISTRY_STORE" != redis ]; then
    sf_new self "snowflake_id.registry = '$(sf_connstr self)'" "${settings[@]}"
    sf_start self || sf_die "self did not start"
    sf_psql self -c "CREATE EXTENSION snowflake_id"
    await_held self
    self_node=$(node_of self)
    sf_stream_ids self "$SF_WORK/self.0" 1000
    for round in 1 2; do
        sf_stop self
        sf_start self || sf_die "self did not restart"
        await_held self
        sf_expect_eq "its own registry: restart $round keeps the node id" "$self_node" "$(node_of self)"
        expect_near_clock "its own registry: restart $round" self
    done
    # A smart shutdown waits for every client session: the worker's own
    # registry session must not be one of them between calls.
    start=$SECONDS
    sf_stop self smart
    sf_log "ok: its own registry: a smart shutdown completes ($((SECONDS - start)) s)"
    sf_start self || sf_die "self did not start after a smart shutdown"
    await_held self
    sf_expect_eq "its own registry: after a smart shutdown, the same node id" "$self_node" "$(node_of self)"
    expect_near_clock "its own registry: after a smart shutdown" self
fi
# --- runs without the library preloaded (no registry) ---------------------------
# Such runs issue nothing and leave the state file as it was: the next run
# with the library trusts it. A file copied back is still refused, also
# when a run without the library came after the copy.
if [ "$SF_REGISTRY_STORE" != redis ]; then
    preload() { sf_conf n3 "shared_preload_libraries = '$1'"; }
    sf_new n3 "snowflake_id.worker_id = 3"
    sf_start n3 || sf_die "n3 did not start"
    sf_psql n3 -c "CREATE EXTENSION snowflake_id"
    sf_stream_ids n3 "$SF_WORK/n3.0" 1000
    sf_stop n3
    preload ""
    for run in 1 2; do
        sf_start n3 || sf_die "n3 did not start without the library"
        sf_expect_match "without the library, run $run issues nothing" \
            "must be loaded via shared_preload_libraries" \
            "$(sf_psql n3 -c "SELECT snowflake_nextval()" 2>&1 || true)"
        sf_psql n3 -c "CREATE TABLE IF NOT EXISTS t (x int); INSERT INTO t VALUES ($run)"
        sf_stop n3
    done
    preload snowflake_id
    sf_start n3 || sf_die "n3 did not start with the library again"
    sf_stream_ids n3 "$SF_WORK/n3.1" 1000
    sf_expect_above "n3 after two runs without the library" "$SF_WORK/n3.0" -- "$SF_WORK/n3.1"
    sf_expect_match "the log says why the older state file is still right" \
        "ran without snowflake_id preloaded since the state file" "$(sf_server_log n3)"
    # A crash (after a checkpoint, so that recovery without the library
    # finds none of its WAL records to replay), then a run without the
    # library: the state file is a reservation, not an exact record, and
    # the WAL from where its own WAL copy went shows nothing after it.
    sf_stream_ids n3 "$SF_WORK/n3.c" 1000
    sf_psql n3 -c "CHECKPOINT"
    sf_crash n3
    preload ""
    sf_start n3 || sf_die "n3 did not recover without the library"
    sf_stop n3
    preload snowflake_id
    sf_start n3 || sf_die "n3 did not start with the library again"
    sf_stream_ids n3 "$SF_WORK/n3.c2" 1000
    sf_expect_above "n3 after a crash and a run without the library" \
        "$SF_WORK/n3.0" "$SF_WORK/n3.1" "$SF_WORK/n3.c" -- "$SF_WORK/n3.c2"
    # A copy of the state file, put back after IDs were issued, then a run
    # without the library: still refused.
    sf_stop n3
    sf_as_server cp "$(sf_datadir n3)/snowflake_id.state" "$SF_WORK/n3.state.copy"
    sf_start n3 || sf_die "n3 did not start"
    sf_stream_ids n3 "$SF_WORK/n3.2" 1000
    sf_stop n3
    sf_as_server cp "$SF_WORK/n3.state.copy" "$(sf_datadir n3)/snowflake_id.state"
    preload ""
    sf_start n3 || sf_die "n3 did not start without the library"
    sf_stop n3
    preload snowflake_id
    sf_start n3 || sf_die "n3 did not start"
    sf_expect_match "a state file copied back is still refused" \
        "is older than the data directory" \
        "$(sf_psql n3 -c "SELECT snowflake_nextval()" 2>&1 || true)"
    sf_stop n3
fi

# --- IDs running ahead of the clock reach the recorded bound first --------------
# A server that mints at its drift limit reaches the bound the registry
# recorded (the clock at the last renewal plus lease_ttl) max_clock_drift
# before the lease's deadline: with the registry hung, calls refuse from
# then on, and snowflake_status must say so at once (it once said `held`
# until the deadline). Its own registry and layout (2 sequence bits: 4 IDs
# per ms, fewer than a loop of calls asks for): the store does not matter,
# the status does.
if [ "$SF_REGISTRY_STORE" != redis ]; then
    sf_new_registry registry_b
    sf_new nb "$SF_REGISTRY_CONF" "snowflake_id.worker_id = 'auto'" "snowflake_id.lease_ttl = '3s'" \
        "snowflake_id.max_clock_drift = '1s'" "snowflake_id.max_wait = '1s'" \
        "snowflake_id.sequence_bits = 2"
    SF_REGISTRY_CONF=$registry_conf
    sf_start nb || sf_die "nb did not start"
    sf_psql nb -c "CREATE EXTENSION snowflake_id"
    await_held nb
    pm=$(sf_as_server head -1 "$(sf_datadir registry_b)/postmaster.pid")
    frozen="$pm $(pgrep -P "$pm" | tr '\n' ' ')"
    SF_FROZEN_PIDS=$frozen
    # shellcheck disable=SC2086
    kill -STOP $frozen
    # Single calls, many more than 4 per ms, take the generator to its
    # drift limit within a fraction of a second and keep it there (at the
    # limit a call waits for the clock). Single calls only: a block is
    # refused once its last ID would pass the bound, before a single call
    # would be. The first refusal and the status are read in the same
    # session, at once.
    seen=$(sf_psql nb -c "DO \$\$
        DECLARE msg text; st text; ahead bigint;
        BEGIN
            FOR i IN 1..100000000 LOOP
                BEGIN
                    PERFORM snowflake_nextval();
                EXCEPTION WHEN object_not_in_prerequisite_state THEN
                    GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT;
                    SELECT lease_state, ahead_of_clock_ms INTO st, ahead FROM snowflake_status();
                    RAISE NOTICE 'status % (ahead % ms) | %', st, ahead, msg;
                    RETURN;
                END;
            END LOOP;
        END \$\$" 2>&1) || sf_die "nb: the loop of calls failed: $seen"
    sf_log "nb: $seen"
    sf_expect_match "nb at its drift limit, registry hung: calls refuse, the lease expired" \
        "the node id lease of this server expired" "$seen"
    sf_expect_match "... and snowflake_status says expired at the same moment" \
        "status expired " "$seen"
    # shellcheck disable=SC2086
    kill -CONT $frozen
    SF_FROZEN_PIDS=
    await_held nb
    sf_psql nb -c "SELECT snowflake_nextval()" >/dev/null
    sf_stop nb
    sf_stop registry_b
fi
sf_log "lifecycle scenarios: all passed ($SF_REGISTRY_STORE store)"
