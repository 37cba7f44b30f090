#!/usr/bin/env bash
# What only the Redis store of node ids has (the scenarios both stores share
# run in registry.sh, registry_failover.sh and registry_stepback.sh with
# SF_REGISTRY_STORE=redis):
#  - Redis restarted with its data lost (no persistence): the leases and
#    recorded bounds are gone. The holders' renewals find no lease, so they
#    stop at their deadlines; no server gets a node id until the registry's
#    quarantine (lease_ttl + max_clock_drift after it noticed) has passed,
#    a new server included; then every server leases an id again and no ID
#    repeats;
#    all of them start above the end of the quarantine;
#  - one lease_ttl and max_clock_drift per cluster: another is refused;
#  - key prefixes: two clusters share one Redis and do not see each other;
#  - a wrong password, a database Redis does not have, a Redis that may evict
#    keys, and a socket that is not Redis: a clear lease_message, no crash,
#    no ID; the password never appears in the log;
#  - a malformed URL, or one of an unknown scheme, stops the server at
#    start, without quoting it.
source "$(dirname "$0")/../lib/suite.sh"

ttl_conf="snowflake_id.lease_ttl = '3s'"
state_of() { sf_psql "$1" -c "SELECT lease_state FROM snowflake_status()"; }
node_of() { sf_psql "$1" -c "SELECT worker_id FROM snowflake_status()"; }

# --- data lost ----------------------------------------------------------------
# No persistence: a restart loses every key.
sf_new_redis lossy --appendonly no
lossy_conf=$SF_REGISTRY_CONF
sf_redis lossy HSET snowflake_id:meta quarantine_until_ms 0 >/dev/null
for n in a b; do
    sf_new "$n" "snowflake_id.worker_id = 'auto'" "$lossy_conf" "$ttl_conf"
    sf_start "$n" || sf_die "$n did not start"
    sf_psql "$n" -c "CREATE EXTENSION snowflake_id"
    sf_poll "$n" "SELECT lease_state FROM snowflake_status()" held
    sf_stream_ids "$n" "$SF_WORK/$n.before" 5000
done
# A new server arrives right after the loss: it must ask within the
# quarantine (4 s), which an initdb, or a start-up, on a busy machine can
# outlast. So it is made and started while Redis is down: its registry
# worker asks every second, and asks as soon as Redis is back.
sf_new c "snowflake_id.worker_id = 'auto'" "$lossy_conf" "$ttl_conf"
sf_stop_redis lossy
sf_start c || sf_die "c did not start"
sf_psql c -c "CREATE EXTENSION snowflake_id"
# c is refused from its first ask after the restart until the quarantine
# ends, 4 s after the first call that found the data gone, and leased at its
# next ask. So a session on c, in place before the restart, watches its
# state and, as soon as it moves on from waiting, reads its message and makes
# a call, a few ms apart, in one statement: three psql sessions started one
# after the other (a poll, then the message, then the call) each had to
# start within that window, which a loaded machine can outlast.
sf_psql c >"$SF_WORK/c.first" <<'SQL' &
CREATE FUNCTION pg_temp.first_answer() RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
    state text;
    detail text;
    deadline timestamptz := clock_timestamp() + interval '120 s';
BEGIN
    LOOP
        SELECT lease_state INTO state FROM public.snowflake_status();
        EXIT WHEN state IN ('refused', 'held') OR clock_timestamp() > deadline;
        PERFORM pg_catalog.pg_sleep(0.01); -- the pace of the poll; the condition is the state
    END LOOP;
    RETURN NEXT 'state: ' || state;
    RETURN NEXT 'message: ' || (SELECT lease_message FROM public.snowflake_status());
    BEGIN
        RETURN NEXT 'minted: ' || public.snowflake_nextval();
    EXCEPTION WHEN others THEN
        GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
        RETURN NEXT 'ERROR: ' || SQLERRM || ' DETAIL: ' || detail;
    END;
END $$;
SELECT * FROM pg_temp.first_answer();
SQL
watcher=$!
sf_poll c "SELECT count(*) FROM pg_stat_activity
    WHERE state = 'active' AND query LIKE 'SELECT * FROM pg_temp.first_answer()%'" 1
# Before the restart: the quarantine starts at the first call that finds the
# data gone, which may be a holder's renewal right after the restart.
lost_at_ms=$(($(date +%s%3N)))
sf_start_redis lossy || sf_die "redis did not restart"
sf_expect_eq "Redis came back without the leases and the layout" 0 \
    "$(sf_redis lossy EXISTS snowflake_id:layout snowflake_id:lease:0 snowflake_id:lease:1)"
wait "$watcher" || sf_die "the session watching c failed: $(cat "$SF_WORK/c.first")"
seen=$(cat "$SF_WORK/c.first")
refused_by_ms=$(($(date +%s%3N)))
sf_expect_eq "the new server's first answer from the registry is a refusal" "state: refused" \
    "$(sed -n 1p <<<"$seen")"
sf_expect_match "the new server is refused while the registry waits out the old leases" \
    '^message: the Redis registry holds no record of earlier leases: it hands out node ids from .*The registry is new, or Redis lost its data' \
    "$(sed -n 2p <<<"$seen")"
sf_expect_match "... and mints nothing, saying why" \
    '^ERROR: +the registry refused this server a node id lease.*holds no record of earlier leases' \
    "$(sed -n 3p <<<"$seen")"
quarantine_ms=$(sf_redis lossy HGET snowflake_id:meta quarantine_until_ms)
# lease_ttl + max_clock_drift from the first call after the loss, which came
# between the loss and c's refusal.
sf_expect_eq "the quarantine lasts lease_ttl + max_clock_drift from the first call after the loss" t \
    "$(sf_psql c -c "SELECT $quarantine_ms BETWEEN $lost_at_ms + 4000 AND $refused_by_ms + 4000")"
# The old holders find their leases gone and stop at their deadlines, and
# lease again once the quarantine is over: their log says they stopped
# (below; their state may be held again before a poll could see it). Held
# on a lease that ends after the quarantine's end, not merely held: an old
# holder still shows its lease from before the loss until its deadline, and
# a poll that took that one read its node id while it held none (a fresh-
# clone CI: "a leased its id at , before the quarantine ended").
for n in a b c; do
    sf_poll "$n" "SELECT lease_state = 'held' AND lease_expires_at > to_timestamp($quarantine_ms / 1000.0)
                  FROM snowflake_status()" t
done
sf_log "ok: after the quarantine every server holds a lease again"
for n in a b; do
    sf_expect_match "$n had stopped: its renewal found the lease gone, or its deadline passed" \
        'WARNING: +snowflake_id: the node id lease (was lost: the lease on node id [0-9]+ was lost|expired without a confirmed renewal)' \
        "$(sf_server_log "$n")"
done
for n in a b c; do
    acquired=$(sf_redis lossy HGET "snowflake_id:lease:$(node_of "$n")" acquired_at_ms)
    [ "$acquired" -ge "$quarantine_ms" ] ||
        sf_die "$n leased its id at $acquired, before the quarantine ended at $quarantine_ms"
done
sf_log "ok: no lease was handed out before the quarantine ended"
sf_expect_eq "three servers, three node ids" 3 "$(for n in a b c; do node_of "$n"; done | sort -u | wc -l)"
for n in a b c; do
    sf_stream_ids "$n" "$SF_WORK/$n.after" 5000
done
sf_expect_eq "every ID after the loss carries a time after the quarantine's end" t \
    "$(sf_psql a -c "CREATE TEMP TABLE after (id bigint);
        $(for n in a b c; do echo "COPY after FROM '$SF_WORK/$n.after';"; done)
        SELECT min(snowflake_timestamp(id)) > to_timestamp($quarantine_ms / 1000.0) FROM after")"
sf_expect_eq "no ID repeats across the loss" 0 \
    "$(cat "$SF_WORK"/*.before "$SF_WORK"/*.after | sort | uniq -d | wc -l)"
for n in a b; do
    sf_expect_above "$n after the loss" "$SF_WORK/$n.before" -- "$SF_WORK/$n.after"
done
# --- one lease_ttl per cluster -------------------------------------------------
sf_new longttl "snowflake_id.worker_id = 'auto'" "$lossy_conf" "snowflake_id.lease_ttl = '9s'"
sf_start longttl || sf_die "longttl did not start"
sf_psql longttl -c "CREATE EXTENSION snowflake_id"
sf_poll longttl "SELECT lease_state FROM snowflake_status()" refused
sf_expect_match "a server with another lease_ttl is refused, naming both" \
    "the lease_ttl or max_clock_drift of this server differs from the cluster's: The Redis registry's cluster uses lease_ttl 3000 ms and max_clock_drift 1000 ms .*this server runs 9000 ms and 1000 ms" \
    "$(sf_psql longttl -c "SELECT lease_message FROM snowflake_status()")"
sf_stop longttl
for n in a b c; do sf_stop "$n"; done

# --- key prefixes: two clusters in one Redis -----------------------------------
sf_new_redis shared --appendonly yes --appendfsync always
for p in east west; do
    sf_redis shared HSET "$p:meta" quarantine_until_ms 0 >/dev/null
    sf_new "$p" "snowflake_id.worker_id = 'auto'" "$ttl_conf" \
        "snowflake_id.registry = 'redis+unix://$SF_REDIS_SOCKET?prefix=$p'"
    sf_start "$p" || sf_die "$p did not start"
    sf_psql "$p" -c "CREATE EXTENSION snowflake_id"
    sf_poll "$p" "SELECT lease_state FROM snowflake_status()" held
done
sf_expect_eq "each prefix is a cluster of its own: both lease node id 0" "0 0" \
    "$(node_of east) $(node_of west)"
sf_expect_eq "... under their own keys" "east:lease:0 west:lease:0" \
    "$(sf_redis shared --scan --pattern '*:lease:*' | sort | tr '\n' ' ' | sed 's/ $//')"
for p in east west; do sf_stop "$p"; done

# --- connection errors --------------------------------------------------------
sf_new_redis locked --requirepass 'right-pw'
locked_sock=$SF_REDIS_SOCKET
# expect_no_lease NAME URL PATTERN: a server with that registry leases
# nothing, says PATTERN in lease_message, keeps running, and mints nothing.
expect_no_lease() {
    local name=$1 url=$2 pattern=$3 out
    sf_new "$name" "snowflake_id.worker_id = 'auto'" "$ttl_conf" "snowflake_id.registry = '$url'"
    sf_start "$name" || sf_die "$name did not start"
    sf_psql "$name" -c "CREATE EXTENSION snowflake_id"
    sf_poll "$name" "SELECT lease_failures > 1 FROM snowflake_status()" t
    sf_expect_match "$name: lease_message says what is wrong" "$pattern" \
        "$(sf_psql "$name" -c "SELECT lease_message FROM snowflake_status()")"
    out=$(sf_psql "$name" -c "SELECT snowflake_nextval()" 2>&1 || true)
    sf_expect_match "$name: no ID" 'ERROR: +snowflake_id has no node id yet' "$out"
    local failures
    failures=$(sf_psql "$name" -c "SELECT lease_failures FROM snowflake_status()")
    sf_poll "$name" "SELECT lease_failures > $failures FROM snowflake_status()" t
    sf_log "ok: $name: its registry worker is alive and keeps asking"
    ! grep -Eq 'terminated by signal|exited with exit code' "$SF_WORK/$name/server.log" ||
        sf_die "$name: a process crashed: $(grep -E 'terminated by signal|exited with exit code' \
            "$SF_WORK/$name/server.log")"
    sf_log "ok: $name: no process crashed"
    sf_stop "$name"
}
expect_no_lease wrongpw "redis+unix://:not-the-pw@$locked_sock" \
    'Redis refused the user name or password .*(WRONGPASS|invalid)'
! grep -q 'not-the-pw' "$SF_WORK/wrongpw/server.log" || sf_die "the password appears in the log"
sf_log "ok: the password is not in the log"
expect_no_lease nodb "redis+unix://:right-pw@$locked_sock?db=99" \
    'could not select database 99 .*DB index is out of range'
sf_new_redis evicting --maxmemory-policy allkeys-lru
expect_no_lease evicting "redis+unix://$SF_REDIS_SOCKET" \
    'Redis may evict the registry.s keys .*maxmemory-policy is allkeys-lru; the registry needs noeviction'
# A PostgreSQL server's socket is no Redis.
sf_new pgsock preload=no
sf_start pgsock || sf_die "pgsock did not start"
expect_no_lease garbage "redis+unix://$(sf_sockdir pgsock)/.s.PGSQL.$SF_PORT" \
    '(no answer to a command|no Redis reply|could not send a command) \(Redis at unix socket .*\.s\.PGSQL'
sf_new okpw "snowflake_id.worker_id = 'auto'" "$ttl_conf" \
    "snowflake_id.registry = 'redis+unix://:right-pw@$locked_sock'"
sf_redis locked -a right-pw --no-auth-warning HSET snowflake_id:meta quarantine_until_ms 0 >/dev/null
sf_start okpw || sf_die "okpw did not start"
sf_psql okpw -c "CREATE EXTENSION snowflake_id"
sf_poll okpw "SELECT lease_state FROM snowflake_status()" held
sf_log "ok: with the right password the server leases an id"
sf_stop okpw

# --- a malformed URL stops the server at start ---------------------------------
sf_new badurl "snowflake_id.worker_id = 'auto'" \
    "snowflake_id.registry = 'redis://user:hush-hush@localhost:70000'"
if sf_start badurl; then
    sf_die "the server started with a malformed Redis URL"
fi
sf_expect_match "a malformed URL is FATAL at start, naming the fault" \
    'FATAL: +invalid value for parameter "snowflake_id.registry": invalid Redis URL.*DETAIL: +The port "70000" is not a number from 1 to 65535' \
    "$(sf_server_log badurl | tr '\n' ' ')"
! grep -q 'hush-hush' "$SF_WORK/badurl/server.log" || sf_die "the password appears in the log"
sf_log "ok: ... without quoting the password"
sf_new badscheme "snowflake_id.worker_id = 'auto'" \
    "snowflake_id.registry = 'memcached://user:hush-hush@localhost'"
if sf_start badscheme; then
    sf_die "the server started with a registry URL of an unknown scheme"
fi
sf_expect_match "an unknown URL scheme is FATAL at start" \
    "FATAL: +invalid value for parameter \"snowflake_id.registry\": the registry's URL scheme is neither PostgreSQL's nor Redis's" \
    "$(sf_server_log badscheme)"
! grep -q 'hush-hush' "$SF_WORK/badscheme/server.log" || sf_die "the password appears in the log"
sf_log "ok: ... without quoting the password"
echo "registry_redis: all checks passed"
