#!/usr/bin/env bash
# Node ids leased from a registry (snowflake_id.registry), on real servers:
# one registry and the nodes that lease from it. The registry is a
# PostgreSQL database, or Redis with SF_REGISTRY_STORE=redis (tests/run-all
# runs both): the same scenarios, the same expectations.
#  - five nodes with worker_id = 'auto', started at once, get five
#    different node ids and mint together; no ID repeats and each decodes
#    to its node;
#  - a clean restart gets the same node id back; so does a crash restart,
#    and three crashes in a row each resume near the clock (from the
#    server's own WAL, not the registry's bound lease_ttl ahead);
#  - a static worker id that a live server holds is refused, naming both
#    servers, and the holder keeps minting;
#  - a node whose layout differs from the cluster's is refused a lease;
#  - with the registry stopped, nodes mint until their lease deadline and
#    then refuse with the documented ERROR; a node started meanwhile mints
#    nothing and says why; with it back they resume, and it leases an id;
#  - fencing: a node frozen with SIGSTOP until its lease expires, its id
#    taken by a new node whose clock is ten minutes behind (libfaketime), then
#    thawed with SIGCONT: the old node refuses, every ID of the new node is
#    above every ID of the old one, and no ID repeats.
#  - PostgreSQL store: a registry role whose search_path leads to another
#    role's look-alikes of the registry's tables and of built-in functions,
#    operators and types leases, renews and gives back in the extension's
#    own table, and runs none of them; nor does it use look-alike tables
#    in the extension's schema, where 1.5 kept the real ones.
source "$(dirname "$0")/../lib/suite.sh"
sf_fake_clock

sf_new_registry registry
registry_conf=$SF_REGISTRY_CONF
ttl_conf="snowflake_id.lease_ttl = '6s'"

state_of() { sf_psql "$1" -c "SELECT lease_state FROM snowflake_status()"; }
node_of() { sf_psql "$1" -c "SELECT worker_id FROM snowflake_status()"; }

# --- five 'auto' nodes at once ---------------------------------------------
nodes=(n1 n2 n3 n4 n5)
for n in "${nodes[@]}"; do
    sf_new "$n" "snowflake_id.worker_id = 'auto'" "$registry_conf" "$ttl_conf"
done
for n in "${nodes[@]}"; do
    sf_start "$n" &
done
wait
for n in "${nodes[@]}"; do
    sf_psql "$n" -c "CREATE EXTENSION snowflake_id"
    sf_poll "$n" "SELECT lease_state FROM snowflake_status()" held
done
sf_expect_eq "five nodes hold five different node ids" 5 \
    "$(for n in "${nodes[@]}"; do node_of "$n"; done | sort -u | wc -l)"
sf_expect_eq "the registry lists five live leases" "live live live live live" \
    "$(sf_registry_states registry)"
pids=()
for n in "${nodes[@]}"; do
    sf_stream_ids "$n" "$SF_WORK/$n.ids" 20000 &
    pids+=("$!")
done
for p in "${pids[@]}"; do wait "$p" || sf_die "a node failed to mint"; done
sf_expect_eq "no ID repeats across the five nodes" 0 "$(cat "$SF_WORK"/n?.ids | sort | uniq -d | wc -l)"
for n in "${nodes[@]}"; do
    sf_expect_eq "every ID of $n decodes to its node id" "$(node_of "$n")" "$(sf_psql "$n" -c "
        CREATE TEMP TABLE ids (id bigint);
        COPY ids FROM '$SF_WORK/$n.ids';
        SELECT string_agg(DISTINCT (snowflake_decode(id)).worker_id::text, ',') FROM ids")"
done

# --- a clean restart keeps the node id ---------------------------------------
before=$(node_of n1)
sf_stop n1
sf_start n1 || sf_die "n1 did not restart"
sf_poll n1 "SELECT lease_state FROM snowflake_status()" held
sf_expect_eq "after a clean restart n1 holds the same node id" "$before" "$(node_of n1)"
sf_stream_ids n1 "$SF_WORK/n1.after" 1000
sf_expect_above "n1 after its restart" "$SF_WORK/n1.ids" -- "$SF_WORK/n1.after"

# --- a crash restart within the lease takes the live lease back ---------------
sf_stream_ids n1 "$SF_WORK/n1.precrash" 1000
sf_crash n1
sf_start n1 || sf_die "n1 did not restart after SIGKILL"
sf_poll n1 "SELECT lease_state FROM snowflake_status()" held
sf_expect_eq "after SIGKILL n1 takes its own live lease back (same id)" "$before" "$(node_of n1)"
sf_stream_ids n1 "$SF_WORK/n1.postcrash" 1000
sf_expect_above "n1 after SIGKILL" "$SF_WORK/n1.ids" "$SF_WORK/n1.after" "$SF_WORK/n1.precrash" -- \
    "$SF_WORK/n1.postcrash"

# --- a crash loop: each crash restart resumes from its own WAL, near the clock --
# With the registry's recorded bound as the floor, each restart started up to
# lease_ttl (6 s) ahead, and each renewal then recorded that clock plus
# lease_ttl: the lead grew by about lease_ttl per crash. A crash restart of
# the same data directory in the same boot resumes above its own recovered
# reservations instead (max_clock_drift 1 s + a 1 s reservation at most).
# expect_near_clock NODE WHAT: NODE, just restarted and holding its lease,
# issues its first ID at most max_clock_drift (1 s) + a 1 s reservation
# ahead of its clock.
expect_near_clock() {
    local lead
    lead=$(sf_psql "$1" -c "SELECT round(1000 * extract(epoch FROM
        snowflake_timestamp(snowflake_nextval()) - clock_timestamp()))::int")
    [ "$lead" -le 2000 ] ||
        sf_die "$2: $1's first ID is $lead ms ahead of its clock (at most max_clock_drift + 1 s expected)"
    sf_log "ok: $2: $1 resumes $lead ms ahead of its clock"
}
for k in 1 2 3; do
    sf_stream_ids n1 "$SF_WORK/n1.loop$k" 5000
    sf_crash n1
    sf_start n1 || sf_die "n1 did not restart after crash $k"
    sf_poll n1 "SELECT lease_state FROM snowflake_status()" held
    expect_near_clock n1 "crash $k of a loop"
    sf_expect_match "crash $k: n1 says it took its lease back above its own WAL" \
        "took back node id $before, which this server held until it crashed" "$(sf_server_log n1)"
    sf_expect_eq "crash $k: still node id $before" "$before" "$(node_of n1)"
done
sf_stream_ids n1 "$SF_WORK/n1.loopend" 1000
sf_expect_above "n1 after a crash loop" "$SF_WORK/n1.ids" "$SF_WORK/n1.after" \
    "$SF_WORK/n1.precrash" "$SF_WORK/n1.postcrash" "$SF_WORK"/n1.loop? -- "$SF_WORK/n1.loopend"

# --- single-user crash recovery between the crash and the start ---------------
# What Patroni runs after a crash before pg_rewind: the recovery's run takes
# no lease and issues nothing, so its clean shutdown passes the crashed run's
# claim on the lease on, and calls its floor a reservation, not the last ID.
sf_crash n1
sf_as_server "$SF_STAGE_BIN/postgres" --single -D "$(sf_datadir n1)" postgres </dev/null \
    >"$SF_WORK/n1.single.log" 2>&1 || { cat "$SF_WORK/n1.single.log" >&2; sf_die "single-user recovery failed"; }
log_from=$(($(sf_server_log n1 | wc -l) + 1))
sf_start n1 || sf_die "n1 did not start after single-user recovery"
sf_poll n1 "SELECT lease_state FROM snowflake_status()" held
expect_near_clock n1 "after single-user recovery"
start_log=$(sf_server_log n1 | tail -n +"$log_from")
sf_expect_match "... taking back its lease at the floor the recovery recorded" \
    "took back node id $before, which the previous run of this server held until its clean shutdown" \
    "$start_log"
sf_expect_match "... whose start calls that floor the durable reservation" \
    'snowflake_id: the generator resumes .*(past|above) the durable reservation' "$start_log"
sf_expect_eq "... and blames no clock" 0 "$(grep -c 'WARNING: .*wall clock' <<<"$start_log" || true)"
sf_stream_ids n1 "$SF_WORK/n1.single" 1000
sf_expect_above "n1 after single-user recovery" "$SF_WORK/n1.ids" "$SF_WORK/n1.after" \
    "$SF_WORK/n1.precrash" "$SF_WORK/n1.postcrash" "$SF_WORK"/n1.loop? "$SF_WORK/n1.loopend" -- \
    "$SF_WORK/n1.single"

# --- worker_id changed on reload: the lease follows ----------------------------
old_n5=$(node_of n5)
sf_psql n5 -c "ALTER SYSTEM SET snowflake_id.worker_id = 50" -c "SELECT pg_reload_conf()" >/dev/null
sf_poll n5 "SELECT worker_id || ' ' || lease_state FROM snowflake_status()" "50 held"
sf_expect_eq "the lease n5 held before was given back" released \
    "$(sf_registry_lease registry "$old_n5" state)"
sf_stream_ids n5 "$SF_WORK/n5.more" 1000
sf_expect_eq "n5 mints on node id 50" 50 "$(sf_psql n5 -c "
    CREATE TEMP TABLE ids (id bigint); COPY ids FROM '$SF_WORK/n5.more';
    SELECT string_agg(DISTINCT (snowflake_decode(id)).worker_id::text, ',') FROM ids")"

# --- a static id held by a live server ---------------------------------------
taken=$(node_of n2)
sf_new dup "snowflake_id.worker_id = $taken" "$registry_conf" "$ttl_conf"
sf_start dup || sf_die "dup did not start"
sf_psql dup -c "CREATE EXTENSION snowflake_id"
sf_poll dup "SELECT lease_state FROM snowflake_status()" refused
out=$(sf_psql dup -c "SELECT snowflake_nextval()" 2>&1 || true)
sf_expect_match "a second server with the same static id is refused" \
    'ERROR: +the registry refused this server a node id lease' "$out"
sf_expect_match "... naming both servers" \
    "node id $taken is held by another server: It is held by .*data directory $(sf_datadir n2).*this server is .*data directory $(sf_datadir dup)" \
    "$out"
sf_stream_ids n2 "$SF_WORK/n2.more" 1000
sf_expect_eq "the holder keeps minting" 1000 "$(wc -l <"$SF_WORK/n2.more")"
sf_stop dup

# --- one layout per cluster --------------------------------------------------
sf_new wide "snowflake_id.worker_id = 'auto'" "snowflake_id.sequence_bits = 11" "$registry_conf" \
    "$ttl_conf"
sf_start wide || sf_die "wide did not start"
sf_psql wide -c "CREATE EXTENSION snowflake_id"
sf_poll wide "SELECT lease_state FROM snowflake_status()" refused
sf_expect_match "a node with another layout is refused a lease, naming both layouts" \
    "the layout of this server differs from the cluster's: The registry's cluster uses 0 datacenter, 10 worker and 12 sequence bits .*this server runs 0 datacenter, 10 worker and 11 sequence bits" \
    "$(sf_psql wide -c "SELECT lease_message FROM snowflake_status()")"
sf_stop wide

# A node in a data directory of a very long path, with another epoch: the
# refusal names both layouts whole, this server's epoch last, in
# snowflake_status and in the ERROR (no buffer on the way cuts it).
sf_new far "snowflake_id.worker_id = 'auto'" "snowflake_id.epoch = '2021-01-01'" \
    "$registry_conf" "$ttl_conf"
far_dir=$SF_WORK/far
for _ in 1 2 3 4; do far_dir=$far_dir/$(printf 'd%.0s' {1..200}); done
far_dir=$far_dir/data
sf_as_server mkdir -p "$(dirname "$far_dir")"
sf_as_server mv "$(sf_datadir far)" "$far_dir"
sf_as_server ln -s "$far_dir" "$(sf_datadir far)"  # for sf_stop
sf_as_server "$SF_STAGE_BIN/pg_ctl" -D "$far_dir" -l "$SF_WORK/far/server.log" -w -t 60 start \
    >/dev/null || sf_die "far did not start"
sf_psql far -c "CREATE EXTENSION snowflake_id"
sf_poll far "SELECT lease_state FROM snowflake_status()" refused
sf_expect_eq "far's data directory path is ${#far_dir} bytes long" "$far_dir" \
    "$(sf_psql far -c "SHOW data_directory")"
far_layouts='The registry.s cluster uses 0 datacenter, 10 worker and 12 sequence bits from epoch 2020-01-01 00:00:00\.000Z \(recorded by .*\); this server runs 0 datacenter, 10 worker and 12 sequence bits from epoch 2021-01-01 00:00:00\.000Z\. IDs of different layouts cannot be compared or decoded together\.'
sf_expect_match "a node with another epoch is refused, naming both layouts whole" \
    "^the layout of this server differs from the cluster.s: $far_layouts\$" \
    "$(sf_psql far -c "SELECT lease_message FROM snowflake_status()")"
out=$(sf_psql far -c "SELECT snowflake_nextval()" 2>&1 || true)
sf_expect_match "... and snowflake_nextval()'s DETAIL names both whole" \
    "DETAIL: +Registry .*: the layout of this server differs from the cluster.s: $far_layouts\\.\$" \
    "$out"
sf_stop far

# --- a drift the lease cannot cover is warned about at start -----------------
sf_new drifty "snowflake_id.worker_id = 'auto'" "$registry_conf" "$ttl_conf" \
    "snowflake_id.max_clock_drift = '3s'"
sf_start drifty || sf_die "drifty did not start"
sf_expect_match "max_clock_drift above lease_ttl / 3 logs a WARNING at start" \
    'WARNING: +snowflake_id.max_clock_drift \(3000 ms\) is more than a third of snowflake_id.lease_ttl \(6000 ms\)' \
    "$(sf_server_log drifty)"
sf_stop drifty

# --- a short registry outage, within the lease -------------------------------
failures=$(sf_psql n2 -c "SELECT lease_failures FROM snowflake_status()")
sf_registry_stop registry
sf_poll n2 "SELECT lease_failures > $failures FROM snowflake_status()" t
sf_expect_match "a failed renewal leaves the registry's error in lease_message" \
    'could not connect|connection|could not send' "$(sf_psql n2 -c "SELECT lease_message FROM snowflake_status()")"
sf_registry_start registry || sf_die "the registry did not restart"
sf_poll n2 "SELECT lease_message = '' AND lease_state = 'held' FROM snowflake_status()" t
sf_log "ok: once a renewal succeeds again, lease_message is cleared"

# --- the registry stopped, then back -----------------------------------------
# n3's deadline is lease_ttl (6 s) after its last renewal, which may have come
# before the outage above, or seconds before this one: IDs asked for a few
# psql starts after the stop came after the deadline on a busy machine
# (seen: "expired: the registry last confirmed it 6673 ms ago"). So one n3
# session waits for a renewal made since the registry came back, stops the
# registry from inside (psql's \!) at once, waits until a renewal has
# failed (n3 knows the registry is down) and mints: the IDs come a renewal
# interval (lease_ttl / 3) or the stop's time after the last renewal,
# whichever is longer, however slowly processes start.
stop_registry=$SF_WORK/stop-registry.sh
{
    declare -p SF_WORK SF_STAGE_BIN SF_REGISTRY_STORE
    declare -f sf_as_server sf_datadir sf_stop sf_stop_redis sf_registry_stop
    echo "sf_registry_stop registry"
} >"$stop_registry"
sf_psql n3 >"$SF_WORK/n3.during" 2>"$SF_WORK/n3.session" <<SQL ||
CREATE TEMP TABLE seen AS SELECT lease_renewals, lease_failures FROM snowflake_status();
DO \$\$ BEGIN
    FOR i IN 1..1000 LOOP
        IF (SELECT s.lease_renewals > seen.lease_renewals FROM snowflake_status() s, seen) THEN
            UPDATE seen SET lease_failures = (SELECT lease_failures FROM snowflake_status());
            RETURN;
        END IF;
        PERFORM pg_sleep(0.01); -- the pace of the poll; the condition is the renewal
    END LOOP;
    RAISE EXCEPTION 'n3 made no renewal since the registry came back';
END \$\$;
\! bash $stop_registry
DO \$\$ BEGIN
    FOR i IN 1..1000 LOOP
        IF (SELECT s.lease_failures > seen.lease_failures FROM snowflake_status() s, seen) THEN
            RAISE NOTICE 'a renewal failed; n3 mints with % ms left of its lease',
                (SELECT round(1000 * extract(epoch FROM lease_expires_at - clock_timestamp()))
                 FROM snowflake_status());
            RETURN;
        END IF;
        PERFORM pg_sleep(0.01); -- the pace of the poll; the condition is the failure
    END LOOP;
    RAISE EXCEPTION 'with the registry stopped, no renewal of n3 failed';
END \$\$;
COPY (SELECT snowflake_nextval() FROM generate_series(1, 1000)) TO STDOUT;
SQL
    sf_die "with the registry down, n3 did not mint: $(cat "$SF_WORK/n3.session")"
sf_log "info: $(sed -n 's/.*NOTICE: *//p' "$SF_WORK/n3.session")"
sf_expect_eq "with the registry down, n3 mints until its deadline" 1000 \
    "$(wc -l <"$SF_WORK/n3.during")"
# Bounded poll: the deadline is at most lease_ttl (6 s) after the last renewal.
for _ in $(seq 1 200); do
    out=$(sf_psql n3 -c "SELECT snowflake_nextval()" 2>&1) || break
    sf_psql n3 -c "SELECT pg_sleep(0.05)" >/dev/null
done
sf_expect_match "past the deadline n3 refuses, naming the registry and the last renewal" \
    'ERROR: +the node id lease of this server expired: the registry last confirmed it [0-9]+ ms ago' \
    "$out"
sf_expect_match "... with the registry's last word" "DETAIL: +Registry $SF_REGISTRY_TEXT" "$out"
sf_poll n3 "SELECT lease_state FROM snowflake_status()" expired
# A node that starts while the registry is down mints nothing, and says why.
sf_new late "snowflake_id.worker_id = 'auto'" "$registry_conf" "$ttl_conf"
sf_start late || sf_die "late did not start"
sf_psql late -c "CREATE EXTENSION snowflake_id"
sf_poll late "SELECT lease_failures > 0 FROM snowflake_status()" t
out=$(sf_psql late -c "SELECT snowflake_nextval()" 2>&1 || true)
sf_expect_match "a node started with the registry down refuses, naming the registry" \
    "ERROR: +snowflake_id has no node id yet: it waits for a lease from the registry.*DETAIL: +Registry $SF_REGISTRY_TEXT" \
    "$(echo "$out" | tr '\n' ' ')"
sf_registry_start registry || sf_die "the registry did not restart"
sf_poll n3 "SELECT lease_state FROM snowflake_status()" held
sf_poll late "SELECT lease_state FROM snowflake_status()" held
sf_stream_ids late "$SF_WORK/late.ids" 1000
sf_log "ok: once the registry is back, the late node leases an id and mints"
sf_stream_ids n3 "$SF_WORK/n3.back" 1000
sf_expect_above "n3 once the registry is back" "$SF_WORK/n3.ids" "$SF_WORK/n3.during" -- \
    "$SF_WORK/n3.back"

# --- fencing: SIGSTOP, takeover by a node ten minutes behind, SIGCONT ---------
# A static id, so that the thawed node cannot simply lease another one.
frozen=900
sf_new old "snowflake_id.worker_id = $frozen" "$registry_conf" "$ttl_conf"
sf_start old || sf_die "old did not start"
sf_psql old -c "CREATE EXTENSION snowflake_id"
sf_poll old "SELECT lease_state FROM snowflake_status()" held
sf_stream_ids old "$SF_WORK/old.before" 5000
pm=$(sf_as_server head -1 "$(sf_datadir old)/postmaster.pid")
old_pids="$pm $(pgrep -P "$pm" | tr '\n' ' ')"
SF_FROZEN_PIDS=$old_pids
# shellcheck disable=SC2086
kill -STOP $old_pids
sf_registry_poll registry "$frozen" state expired
sf_log "ok: the frozen node's lease expired"
echo "-600" >"$SF_CLOCK"
sf_new taker "snowflake_id.worker_id = $frozen" "$registry_conf" "$ttl_conf"
sf_start taker "${SF_FAKE_ENV[@]}" || sf_die "taker did not start"
sf_psql taker -c "CREATE EXTENSION snowflake_id"
sf_poll taker "SELECT lease_state FROM snowflake_status()" held
sf_expect_eq "the taker's clock is ten minutes behind" t "$(sf_psql taker -c "
    SELECT clock_timestamp() < to_timestamp($(sf_registry_clock registry)) - interval '590 s'")"
sf_stream_ids taker "$SF_WORK/taker.ids" 5000
sf_expect_above "the new holder of node id $frozen" "$SF_WORK/old.before" -- "$SF_WORK/taker.ids"
# shellcheck disable=SC2086
kill -CONT $old_pids
out=$(sf_psql old -c "SELECT snowflake_nextval()" 2>&1 || true)
sf_expect_match "the thawed old holder refuses" \
    'ERROR: +(the node id lease of this server expired|the registry refused this server a node id lease)' \
    "$out"
sf_poll old "SELECT lease_state FROM snowflake_status()" refused
out=$(sf_psql old -c "SELECT snowflake_nextval()" 2>&1 || true)
sf_expect_match "... and keeps refusing, naming the new holder" \
    "node id $frozen is held by another server: It is held by .*data directory $(sf_datadir taker)" \
    "$out"
sf_expect_eq "no ID repeats across every node" 0 \
    "$(cat "$SF_WORK"/*.ids "$SF_WORK"/*.before "$SF_WORK"/*.after "$SF_WORK"/*.during \
        "$SF_WORK"/*.back "$SF_WORK"/*.more | sort | uniq -d | wc -l)"

# --- search_path: a registry role led to look-alikes runs none of them ---------
# The registry role's search_path starts with a schema an ordinary role owns,
# holding look-alikes of the registry's tables and of the built-in
# functions, operators and types the worker's statements use; each
# look-alike notes that it ran. The worker names everything by its schema:
# the lease lands in the extension's table, and nothing of the look-alikes
# is touched or run. Look-alike tables also wait in the extension's schema
# (public), where the tables were up to 1.5 and a worker that guessed their
# schema from the extension's would look (1.6 keeps them in snowflake_id):
# the worker finds the tables as the extension's members. (pg_temp is the
# worker's own session's: no other role can plant anything there.) The
# Redis store runs no SQL.
if [ "$SF_REGISTRY_STORE" != redis ]; then
    sf_psql registry <<'SQL'
CREATE ROLE sf_mallory;
CREATE ROLE sf_lessee LOGIN;
GRANT SELECT, INSERT, UPDATE
    ON snowflake_id.snowflake_registry_lease, snowflake_id.snowflake_registry_layout,
       snowflake_id.snowflake_registry_timeline TO sf_lessee;
CREATE SCHEMA evil AUTHORIZATION sf_mallory;
CREATE TABLE evil.snowflake_registry_layout (LIKE snowflake_id.snowflake_registry_layout);
CREATE TABLE evil.snowflake_registry_lease (LIKE snowflake_id.snowflake_registry_lease);
CREATE TABLE public.snowflake_registry_layout (LIKE snowflake_id.snowflake_registry_layout);
CREATE TABLE public.snowflake_registry_lease (LIKE snowflake_id.snowflake_registry_lease);
ALTER TABLE evil.snowflake_registry_layout OWNER TO sf_mallory;
ALTER TABLE evil.snowflake_registry_lease OWNER TO sf_mallory;
ALTER TABLE public.snowflake_registry_layout OWNER TO sf_mallory;
ALTER TABLE public.snowflake_registry_lease OWNER TO sf_mallory;
ALTER ROLE sf_lessee SET search_path = evil, pg_catalog, public;

SET ROLE sf_mallory;
GRANT USAGE ON SCHEMA evil TO PUBLIC;
GRANT ALL ON evil.snowflake_registry_layout, evil.snowflake_registry_lease,
    public.snowflake_registry_layout, public.snowflake_registry_lease TO PUBLIC;
CREATE TABLE evil.ran (what text);
GRANT INSERT ON evil.ran TO PUBLIC;
CREATE FUNCTION evil.noted(what text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN INSERT INTO evil.ran VALUES (what); RETURN true; END $$;
-- Built-in functions with their exact signatures, ahead of pg_catalog.
CREATE FUNCTION evil.clock_timestamp() RETURNS timestamptz LANGUAGE plpgsql AS $$
BEGIN INSERT INTO evil.ran VALUES ('clock_timestamp'); RETURN '3000-01-01'; END $$;
CREATE FUNCTION evil.floor(numeric) RETURNS numeric LANGUAGE plpgsql AS $$
BEGIN INSERT INTO evil.ran VALUES ('floor'); RETURN 0; END $$;
CREATE FUNCTION evil.ceil(numeric) RETURNS numeric LANGUAGE plpgsql AS $$
BEGIN INSERT INTO evil.ran VALUES ('ceil'); RETURN 0; END $$;
-- Built-in operators with their exact signatures, ahead of pg_catalog.
CREATE FUNCTION evil.numeric_mul(numeric, integer) RETURNS numeric LANGUAGE plpgsql AS $$
BEGIN INSERT INTO evil.ran VALUES ('numeric *'); RETURN $1 OPERATOR(pg_catalog.*) $2; END $$;
CREATE FUNCTION evil.bigint_interval_mul(bigint, interval) RETURNS interval LANGUAGE plpgsql AS $$
BEGIN INSERT INTO evil.ran VALUES ('bigint * interval'); RETURN $1 OPERATOR(pg_catalog.*) $2; END $$;
CREATE FUNCTION evil.ts_plus(timestamptz, interval) RETURNS timestamptz LANGUAGE plpgsql AS $$
BEGIN INSERT INTO evil.ran VALUES ('timestamptz +'); RETURN $1 OPERATOR(pg_catalog.+) $2; END $$;
CREATE FUNCTION evil.name_eq(name, name) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN INSERT INTO evil.ran VALUES ('name ='); RETURN $1 OPERATOR(pg_catalog.=) $2; END $$;
CREATE FUNCTION evil.oid_eq(oid, oid) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN INSERT INTO evil.ran VALUES ('oid ='); RETURN $1 OPERATOR(pg_catalog.=) $2; END $$;
CREATE FUNCTION evil.int4_eq(integer, integer) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN INSERT INTO evil.ran VALUES ('integer ='); RETURN $1 OPERATOR(pg_catalog.=) $2; END $$;
CREATE OPERATOR evil.* (LEFTARG = numeric, RIGHTARG = integer, FUNCTION = evil.numeric_mul);
CREATE OPERATOR evil.* (LEFTARG = bigint, RIGHTARG = interval, FUNCTION = evil.bigint_interval_mul);
CREATE OPERATOR evil.+ (LEFTARG = timestamptz, RIGHTARG = interval, FUNCTION = evil.ts_plus);
CREATE OPERATOR evil.= (LEFTARG = name, RIGHTARG = name, FUNCTION = evil.name_eq);
CREATE OPERATOR evil.= (LEFTARG = oid, RIGHTARG = oid, FUNCTION = evil.oid_eq);
CREATE OPERATOR evil.= (LEFTARG = integer, RIGHTARG = integer, FUNCTION = evil.int4_eq);
-- Types that are no keywords resolve through the search_path too: text
-- and timestamptz, as domains that note every value cast to them.
CREATE DOMAIN evil.text AS pg_catalog.text CHECK (evil.noted('text'));
CREATE DOMAIN evil.timestamptz AS pg_catalog.timestamptz CHECK (evil.noted('timestamptz'));
SQL
    lessee_conf="snowflake_id.registry = '$(sf_connstr registry | sed 's/user=postgres/user=sf_lessee/')'"
    sf_new lured "snowflake_id.worker_id = 'auto'" "$lessee_conf" "$ttl_conf"
    sf_start lured || sf_die "lured did not start"
    sf_psql lured -c "CREATE EXTENSION snowflake_id"
    sf_poll lured "SELECT lease_state FROM snowflake_status()" held
    lured_node=$(node_of lured)
    sf_expect_eq "the lured node's lease is in the extension's table, under its name" \
        "$(sf_datadir lured) 1" "$(sf_psql registry -c "
            SELECT holder_data_directory || ' ' || count(*) OVER ()
            FROM snowflake_id.snowflake_registry_lease WHERE node_id = $lured_node")"
    sf_poll lured "SELECT lease_renewals > 0 FROM snowflake_status()" t
    sf_stream_ids lured "$SF_WORK/lured.ids" 1000
    sf_stop lured
    sf_registry_poll registry "$lured_node" state released
    sf_log "ok: the lured node gave its lease back into the extension's table"
    sf_expect_eq "no look-alike ran" "" "$(sf_psql registry -c "SELECT string_agg(what, ', ') FROM evil.ran")"
    sf_expect_eq "the look-alike tables stay empty, in the extension's schema too" "0 0 0 0" \
        "$(sf_psql registry -c "
        SELECT (SELECT count(*) FROM evil.snowflake_registry_lease) || ' '
               || (SELECT count(*) FROM evil.snowflake_registry_layout) || ' '
               || (SELECT count(*) FROM public.snowflake_registry_lease) || ' '
               || (SELECT count(*) FROM public.snowflake_registry_layout)")"
    sf_expect_eq "the test means something: the lessee's own unqualified statements use the look-alikes" \
        "clock_timestamp, integer =, text" "$(sf_psql registry -c "
            SET ROLE sf_lessee; SET search_path = evil, pg_catalog, public;
            SELECT clock_timestamp(), 1 = 1, 'x'::text;
            RESET ROLE; SELECT string_agg(what, ', ' ORDER BY what) FROM evil.ran" | tail -1)"
fi
