#!/usr/bin/env bash
# A rolling upgrade to 1.5: servers before 1.5 and servers of this build
# lease from one PostgreSQL registry whose extension is still at 1.4. A
# server before 1.5 is played by calls to the registry's 1.4 SQL functions,
# made as a 1.4 server's worker made them (src/pg/pg_registry_pq.cpp at
# 63848a3); the server of this build leases through the tables.
#  - both take the lease table's lock to write: while a session holds it,
#    an old call and the new server's call both wait for it;
#  - a node id held live by one is refused to the other, both ways,
#    naming the holder;
#  - old to new: the new holder's IDs start above the old holder's
#    recorded bound plus its drift;
#  - new to old: the floor the old server is given is the new holder's
#    recorded bound plus its drift, above every ID the new holder issued;
#  - once the registry is updated to 1.5 (ALTER EXTENSION snowflake_id
#    UPDATE TO '1.5'), an old server's call is refused with the message
#    saying to update it, and servers of this build go on leasing;
#  - the registry updated to 1.6 last, while a server of this build holds
#    a lease and its renewal waits for the update: the update moves the
#    tables into the schema snowflake_id and says where the status went;
#    the waiting renewal finds the tables there and goes through (no
#    failure, the lease never lost), every lease and the layout come
#    through, and a server starting afterwards leases there.
source "$(dirname "$0")/../lib/suite.sh"

sf_new registry preload=no
sf_start registry || sf_die "the registry did not start"
sf_psql registry -c "CREATE EXTENSION snowflake_id VERSION '1.4'"
sf_expect_eq "the registry's extension is at 1.4" 1.4 \
    "$(sf_psql registry -c "SELECT extversion FROM pg_extension WHERE extname = 'snowflake_id'")"
registry_conf="snowflake_id.registry = '$(sf_connstr registry)'"
ttl_conf="snowflake_id.lease_ttl = '6s'"
epoch_ms=1577836800000 # the default layout: 0 datacenter, 10 worker, 12 sequence bits
now_ms="(extract(epoch FROM clock_timestamp()) * 1000)::bigint"

# An old server's calls, as its worker made them, with a lease of a
# minute: the test ends it itself (expire, below) where it must, and on a
# loaded machine the steps between may take longer than a real server's
# few seconds. old_acquire NODE INSTANCE: a static node id for that run of
# the old server, "node_id fence floor_ms".
old_acquire() {
    sf_psql registry -c "SELECT node_id || ' ' || fence || ' ' || floor_ms
        FROM public.snowflake_registry_acquire($1, NULL, NULL, 7001, $2, 'oldhost', 5432,
            '/data/old', 1, 0, 10, 12, $epoch_ms, 1000, 60000, $now_ms)"
}
# old_renew NODE FENCE INSTANCE BOUND_MS: the lease's new expiry, in ms.
old_renew() {
    sf_psql registry -c "SELECT (extract(epoch FROM r) OPERATOR(pg_catalog.*) 1000)::bigint
        FROM public.snowflake_registry_renew($1, $2, $3, $4, 60000) r"
}
# Time passing for a lease, as the registry judges it: its end moved into
# the past.
expire() {
    sf_psql registry -c "UPDATE snowflake_registry_lease
        SET expires_at = clock_timestamp() - interval '1 s' WHERE node_id = $1" >/dev/null
}
# The greatest time (ms since 1970) the IDs in a file carry.
max_id_ms() {
    sf_psql registry -c "CREATE TEMP TABLE ids (id bigint); COPY ids FROM '$1';
        SELECT max((id >> 22) + $epoch_ms) FROM ids" | tail -1
}

# --- an old server holds node id 5, its bound 30 s ahead ---------------------
sf_expect_eq "the old server leases node id 5" "5 1 0" "$(old_acquire 5 101)"
old_bound=$(sf_psql registry -c "SELECT $now_ms + 30000")
old_renew 5 1 101 "$old_bound" >/dev/null

# --- one lock for both ------------------------------------------------------
# A session holds the lease table's lock; a new server starting (node id 6)
# and an old server's renewal both wait for it, then go on once it is let go.
mkfifo "$SF_WORK/holder.in"
sf_psql registry <"$SF_WORK/holder.in" >"$SF_WORK/holder.out" 2>&1 &
holder_pid=$!
exec 3>"$SF_WORK/holder.in"
echo "BEGIN; LOCK TABLE snowflake_registry_lease IN SHARE ROW EXCLUSIVE MODE;" >&3
sf_poll registry "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
    WHERE c.relname = 'snowflake_registry_lease' AND l.mode = 'ShareRowExclusiveLock'
      AND l.granted" 1
sf_new n6 "snowflake_id.worker_id = 6" "$registry_conf" "$ttl_conf"
sf_start n6 3>&- || sf_die "n6 did not start" # the server keeps no end of the pipe
# Two new servers asking for 'auto' at once: both read before the lock is
# let go and pick the lowest never-leased id, but each writes, under the
# lock, only if the records it writes are as it read them: the second finds
# the first's grant, reads and decides again, and the two never get the
# same id (with a write that did not check, both would get it).
for n in a1 a2; do
    sf_new "$n" "snowflake_id.worker_id = 'auto'" "$registry_conf" "$ttl_conf"
    sf_start "$n" 3>&- || sf_die "$n did not start"
done
old_renew 5 1 101 "$old_bound" >"$SF_WORK/old_renew.out" &
old_pid=$!
# At least: a call that ran out of time while waiting leaves its backend
# queued, and the call asks again.
# A new server's write waits for the table's lock, or, when another new
# server writes the same node id (two 'auto' servers pick the same id
# first), for that id's advisory lock, held by the one waiting for the
# table.
sf_poll registry "SELECT count(*) >= 3 FROM pg_stat_activity WHERE wait_event_type = 'Lock'
    AND (query LIKE 'WITH unchanged AS %snowflake_registry_lease%'
         OR query LIKE 'SELECT pg_catalog.pg_advisory_xact_lock(%')" t
sf_log "ok: the new servers' calls wait for the lock an old call takes"
waiting="SELECT count(*) >= 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE"
sf_poll registry "$waiting '%snowflake_registry_renew%'" t
sf_log "ok: ... and so does the old server's call"
printf "COMMIT;\n\\q\n" >&3
exec 3>&-
wait "$holder_pid" || sf_die "the session holding the lock failed: $(cat "$SF_WORK/holder.out")"
wait "$old_pid" || sf_die "the old server's renewal failed once the lock was let go"
sf_psql n6 -c "CREATE EXTENSION snowflake_id"
sf_poll n6 "SELECT lease_state FROM snowflake_status()" held
for n in a1 a2; do
    sf_psql "$n" -c "CREATE EXTENSION snowflake_id"
    sf_poll "$n" "SELECT lease_state FROM snowflake_status()" held
done
# Their first grants, not only where they ended up: a grant overwritten by
# the other's would be found out by the renewal that follows it, and the
# server would lease again.
a1_node=$(sf_server_log a1 | grep -m1 -o 'leased node id [0-9]*')
a2_node=$(sf_server_log a2 | grep -m1 -o 'leased node id [0-9]*')
if [ -z "$a1_node" ] || [ "$a1_node" = "$a2_node" ]; then
    sf_die "two servers asking at once were both granted: $a1_node, $a2_node"
fi
sf_log "ok: two servers asking at once were granted different ids (${a1_node##* }, ${a2_node##* })"
for n in a1 a2; do sf_stop "$n"; done
sf_log "ok: once the lock is let go, both calls go through"

# --- old to new ---------------------------------------------------------------
sf_new n5 "snowflake_id.worker_id = 5" "$registry_conf" "$ttl_conf"
sf_start n5 || sf_die "n5 did not start"
sf_psql n5 -c "CREATE EXTENSION snowflake_id"
sf_poll n5 "SELECT lease_state FROM snowflake_status()" refused
sf_expect_match "a new server is refused the old server's live lease, naming it" \
    "node id 5 is held by another server: It is held by oldhost:5432, data directory /data/old, system identifier 7001, whose lease runs until [0-9-]+ [0-9:]+\.[0-9]{3}Z" \
    "$(sf_psql n5 -c "SELECT lease_message FROM snowflake_status()")"
expire 5
sf_poll n5 "SELECT lease_state FROM snowflake_status()" held
sf_expect_eq "the new server took node id 5 over with the next fence" "2 $(sf_datadir n5)" \
    "$(sf_psql registry -c "SELECT fence || ' ' || holder_data_directory
                             FROM snowflake_registry_lease WHERE node_id = 5")"
sf_stream_ids n5 "$SF_WORK/n5.ids" 2000
first_ms=$(sf_psql registry -c "CREATE TEMP TABLE ids (id bigint); COPY ids FROM '$SF_WORK/n5.ids';
    SELECT min((id >> 22) + $epoch_ms) FROM ids" | tail -1)
sf_expect_eq "the new holder's IDs start above the old holder's bound plus its drift" t \
    "$([ "$first_ms" -gt $((old_bound + 1000)) ] && echo t || echo "f: $first_ms <= $old_bound + 1000")"

# --- new to old ---------------------------------------------------------------
out=$(old_acquire 5 102 2>&1 || true)
sf_expect_match "an old server is refused the new server's live lease, naming it" \
    "node id 5 is held by another server.*data directory $(sf_datadir n5)" \
    "$(echo "$out" | tr '\n' ' ')"
renewals=$(sf_psql n5 -c "SELECT lease_renewals FROM snowflake_status()")
sf_poll n5 "SELECT lease_renewals > $renewals FROM snowflake_status()" t
sf_crash n5
new_floor=$(sf_psql registry -c "SELECT reserved_until_ms + holder_max_clock_drift_ms
                                  FROM snowflake_registry_lease WHERE node_id = 5")
expire 5
got=$(old_acquire 5 102)
sf_expect_eq "the old server takes node id 5 over at the new holder's bound plus its drift" \
    "5 3 $new_floor" "$got"
last_ms=$(max_id_ms "$SF_WORK/n5.ids")
sf_expect_eq "... above every ID the new holder issued" t \
    "$([ "${got##* }" -gt "$last_ms" ] && echo t || echo "f: ${got##* } <= $last_ms")"

# --- the registry updated last ------------------------------------------------
sf_psql registry -c "ALTER EXTENSION snowflake_id UPDATE TO '1.5'"
out=$(old_renew 5 3 102 "$old_bound" 2>&1 || true)
sf_expect_match "after the registry's update, an old server's call is refused, saying why" \
    "ERROR: +this registry \(snowflake_id 1\.5\) no longer leases node ids through snowflake_registry_renew\(\).*DETAIL: +The server calling is of snowflake_id 1\.4 or before.*Update snowflake_id on every server before the registry.s extension" \
    "$(echo "$out" | tr '\n' ' ')"
renewals=$(sf_psql n6 -c "SELECT lease_renewals FROM snowflake_status()")
sf_poll n6 "SELECT lease_renewals > $renewals AND lease_state = 'held' FROM snowflake_status()" t
sf_log "ok: the new server goes on renewing on the updated registry"
sf_stream_ids n6 "$SF_WORK/n6.ids" 1000

# --- the registry updated to 1.6, while n6 holds its lease ---------------------
# Every record, as servers wrote it: what a move could lose or change.
records="SELECT (SELECT string_agg(node_id || ' ' || fence || ' ' || holder_instance || ' '
                                   || holder_data_directory || ' ' || acquired_at,
                                   ', ' ORDER BY node_id) FROM %s.snowflake_registry_lease)
               || ' / ' || (SELECT epoch_ms || ' ' || worker_bits || ' ' || recorded_by
                            FROM %s.snowflake_registry_layout)"
# shellcheck disable=SC2059 # the format is ours
records_before=$(sf_psql registry -c "$(printf "$records" public public)")
# The update, in a transaction kept open: it holds the lease table's lock
# from its first move to its COMMIT.
mkfifo "$SF_WORK/updater.in"
sf_psql registry <"$SF_WORK/updater.in" >"$SF_WORK/updater.out" 2>&1 &
updater_pid=$!
exec 3>"$SF_WORK/updater.in"
echo "BEGIN; ALTER EXTENSION snowflake_id UPDATE TO '1.6';" >&3
sf_poll registry "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
    WHERE c.relname = 'snowflake_registry_lease' AND l.mode = 'AccessExclusiveLock'
      AND l.granted" 1
read -r renewals failures < <(sf_psql n6 -F ' ' -c "SELECT lease_renewals, lease_failures
                                                FROM snowflake_status()")
# n6's next renewal waits for the update, under the tables' old name (its
# read, which takes no lock of its own but needs the tables).
sf_poll registry "SELECT count(*) >= 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock'
    AND query LIKE '%public.snowflake_registry_la%'" t
sf_log "ok: n6's renewal waits for the update"
printf "COMMIT;\n\\q\n" >&3
exec 3>&-
wait "$updater_pid" || sf_die "the update failed: $(cat "$SF_WORK/updater.out")"
sf_expect_match "the update says where snowflake_status went, both ways" \
    "WARNING: +the view snowflake_status moved into the schema snowflake_id.*HINT: +Read the status with SELECT \* FROM snowflake_status\(\) .*or SELECT \* FROM snowflake_id\.snowflake_status" \
    "$(tr '\n' ' ' <"$SF_WORK/updater.out")"
sf_expect_eq "the registry's extension is at 1.6, its tables and views in snowflake_id" \
    "1.6 snowflake_id.snowflake_registry_layout snowflake_id.snowflake_registry_lease snowflake_id.snowflake_registry_leases snowflake_id.snowflake_status" \
    "$(sf_psql registry -c "SELECT extversion || ' ' || (SELECT string_agg(c.oid::regclass::text, ' '
        ORDER BY c.relname) FROM pg_depend d JOIN pg_class c ON c.oid = d.objid
        WHERE d.refobjid = e.oid AND d.deptype = 'e' AND d.classid = 'pg_class'::regclass)
        FROM pg_extension e WHERE extname = 'snowflake_id'")"
sf_poll n6 "SELECT lease_renewals > $renewals FROM snowflake_status()" t
sf_expect_eq "the renewal that waited for the update went through: no failure, the lease held" \
    "$failures held" "$(sf_psql n6 -c "SELECT lease_failures || ' ' || lease_state FROM snowflake_status()")"
sf_expect_eq "... and never lost" "" "$(sf_server_log n6 | grep 'lease was lost' || true)"
# shellcheck disable=SC2059
sf_expect_eq "every lease and the layout came through" "$records_before" \
    "$(sf_psql registry -c "$(printf "$records" snowflake_id snowflake_id)")"
renewals=$(sf_psql n6 -c "SELECT lease_renewals FROM snowflake_status()")
sf_poll n6 "SELECT lease_renewals > $renewals AND lease_state = 'held' FROM snowflake_status()" t
sf_log "ok: n6 goes on renewing on the registry at 1.6"
sf_start a1 || sf_die "a1 did not start again"
sf_poll a1 "SELECT lease_state FROM snowflake_status()" held
sf_expect_eq "a server starting after the update leases in snowflake_id" "$(sf_datadir a1)" \
    "$(sf_psql registry -c "SELECT holder_data_directory FROM snowflake_id.snowflake_registry_lease
                            WHERE node_id = $(sf_psql a1 -c "SELECT worker_id FROM snowflake_status()")")"
sf_stream_ids n6 "$SF_WORK/n6.after.ids" 1000
sf_stream_ids a1 "$SF_WORK/a1.after.ids" 1000
sf_expect_eq "no ID repeats" 0 "$(cat "$SF_WORK"/*.ids | sort | uniq -d | wc -l)"
