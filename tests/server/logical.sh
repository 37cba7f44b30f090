#!/usr/bin/env bash
# Active-active logical replication (PostgreSQL 16 or later: origin = none),
# the recipe of docs/many-servers.md run as written: the settings, tables and
# SQL in tests/server/logical/. Each node publishes the application's tables
# and subscribes to every other node; writers on every node insert into the
# same tables at the same time. After each step every row has arrived
# everywhere (counts and id sets equal), no subscription has stopped on an
# error (a duplicate key among them) and the IDs each node made decode to
# the node id its snowflake_status shows.
#  - 'auto' node ids from one registry (lease_ttl 4 s):
#    two nodes, then a third added with copy_data from one of them;
#    a node restarted: the same node id, its new IDs above its earlier ones;
#    a node stopped past lease_ttl (immediate stop: its lease stays until it
#    expires) while the others write, then back: it leases again, and what
#    it missed arrives;
#    a subscription dropped and re-created on its kept slot while its peer
#    writes: nothing lost, nothing applied twice;
#    a new node from a copy of a running node's data directory, started as a
#    primary on the same timeline: the registry gives it a node id of its own
#    while the original keeps its own, and the subscriptions it inherited are
#    dropped without touching the original's slots.
#  - static ids, no registry: two nodes, then a third from a copy of one of
#    them, given its own worker_id by hand before its first start.
set -euo pipefail
source "$(dirname "$0")/../lib/cluster.sh"

major=$($SF_PG_CONFIG --version | sed -n 's/^PostgreSQL \([0-9]*\).*/\1/p')
if [ "${major:-0}" -lt 16 ]; then
    sf_die "the logical suite needs PostgreSQL 16 or later (CREATE SUBSCRIPTION ... origin = none);" \
        "$SF_PG_CONFIG is $($SF_PG_CONFIG --version): run it as tests/all-versions does for 16"
fi

sf_init_workspace
sf_stage

recipes=$SF_ROOT/tests/server/logical
mapfile -t node_conf <"$recipes/node.conf"
mapfile -t copy_conf <"$recipes/copy.conf"
# Rows per writer: transactions of ROWS items (and as many events) each.
TXNS=40
ROWS=25
WRITERS=2

total=0 # rows of items (and of events) written so far, on all nodes
round=0

node_of() { sf_psql "$1" -c "SELECT worker_id FROM snowflake_status()"; }

# new_node NAME [CONF_LINE...]: a node with the recipe's settings, its
# tables and its publication (app.sql), not subscribed to anything yet.
new_node() {
    local name=$1
    shift
    sf_new "$name" "cluster_name = '$name'" "${node_conf[@]}" "$@"
    sf_start "$name" || sf_die "$name did not start"
    sf_psql "$name" -f "$recipes/app.sql"
}

# subscribe NODE PEER COPY_DATA: NODE subscribes to PEER's publication.
subscribe() {
    sf_psql "$1" -v sub="$1_from_$2" -v conninfo="$(sf_connstr "$2")" -v copy_data="$3" \
        -f "$recipes/subscribe.sql" 2>>"$SF_WORK/subscribe.log"
}

# mesh NODE...: every pair subscribes both ways, with nothing to copy.
mesh() {
    local a b
    for a in "$@"; do
        for b in "$@"; do
            [ "$a" = "$b" ] || subscribe "$a" "$b" false
        done
    done
}

# write NODE...: a round of writes, WRITERS sessions on each NODE held at a
# gate and let go together; the node ids before and after (the same) in
# made_by[NODE].
declare -A made_by
write() {
    local n k pids=()
    round=$((round + 1))
    for n in "$@"; do
        # At the clock, not ahead of it (as after a start): the nodes' IDs
        # then share milliseconds, and two nodes on one node id would issue
        # the same IDs, which must show here as a duplicate key.
        sf_poll "$n" "SELECT lease_state IN ('held', 'none') AND ahead_of_clock_ms = 0
                      FROM snowflake_status()" t
        made_by[$n]=$(node_of "$n")
        sf_gate_close "$n"
        for k in $(seq 1 "$WRITERS"); do
            sf_psql "$n" -c "$SF_GATE_SQL" -c "DO \$\$ BEGIN
                FOR t IN 1..$TXNS LOOP
                    WITH i AS (INSERT INTO items (note)
                               SELECT 'round $round' FROM generate_series(1, $ROWS) RETURNING id)
                    INSERT INTO events (item_id) SELECT id FROM i;
                    COMMIT;
                END LOOP;
            END \$\$" >/dev/null 2>"$SF_WORK/writer.$n.$k.err" &
            pids+=($!)
        done
    done
    for n in "$@"; do sf_gate_wait "$n" "$WRITERS"; done
    sf_gate_open "$@"
    for k in "${pids[@]}"; do
        wait "$k" || sf_die "a writer of round $round failed: $(cat "$SF_WORK"/writer.*.err)"
    done
    total=$((total + $# * WRITERS * TXNS * ROWS))
    sf_expect_eq "round $round: $* write with $# different node ids" "$#" \
        "$(for n in "$@"; do echo "${made_by[$n]}"; done | sort -u | wc -l)"
    for n in "$@"; do
        sf_expect_eq "round $round: $n kept node id ${made_by[$n]} while it wrote" "${made_by[$n]}" \
            "$(node_of "$n")"
    done
}

# await_rows NODE ALL_NODES...: bounded poll until NODE holds all $total
# rows of each table; a conflict in the log of any node fails at once (an
# apply worker that hits one retries forever).
await_rows() {
    local node=$1 n got=
    shift
    for _ in $(seq 1 1000); do
        got=$(sf_psql "$node" -c "SELECT (SELECT count(*) FROM items) || ' ' ||
                                         (SELECT count(*) FROM events)")
        [ "$got" = "$total $total" ] && return 0
        for n in "$@"; do
            if grep -E 'duplicate key|conflict' "$SF_WORK/$n/server.log" >&2; then
                sf_die "round $round: $n's log reports a conflict (above)"
            fi
        done
        sf_psql "$node" -c "SELECT pg_sleep(0.01)" >/dev/null
    done
    sf_die "round $round: $node holds $got rows of items and events, not $total"
}

# converged WRITERS_OF_LAST_ROUND -- NODE...: every row everywhere, the
# same ids everywhere, no subscription stopped or failed, no duplicate key
# in any log, and every node's rows of the last round decode to its node id.
converged() {
    local writers=() n subs want_decode=
    while [ "$1" != -- ]; do
        writers+=("$1")
        shift
    done
    shift
    for n in "$@"; do
        await_rows "$n" "$@"
    done
    sf_log "ok: round $round: all $total rows of each table on each of $*"
    local sums=()
    for n in "$@"; do
        sums+=("$(sf_psql "$n" -c "SELECT md5(string_agg(id::text, ',' ORDER BY id)) FROM items")
$(sf_psql "$n" -c "SELECT md5(string_agg(id::text || item_id, ',' ORDER BY id)) FROM events")")
    done
    for n in "${sums[@]:1}"; do
        [ "$n" = "${sums[0]}" ] || sf_die "round $round: the nodes hold different rows"
    done
    sf_log "ok: round $round: the same ids in items and events on each of $*"
    subs=$(($# - 1))
    for n in "$@"; do
        # Not pg_stat_subscription_stats' error counts: an apply worker
        # counts a lost connection to a restarted peer among them.
        sf_poll "$n" "SELECT count(*) FROM pg_subscription s JOIN pg_stat_subscription w
                      ON w.subid = s.oid AND w.relid IS NULL AND w.pid IS NOT NULL" "$subs"
        sf_log "ok: round $round: $n's $subs subscriptions each have an apply worker"
        if grep -E 'duplicate key|conflict' "$SF_WORK/$n/server.log" >&2; then
            sf_die "round $round: $n's log reports a conflict (above)"
        fi
    done
    for n in "${writers[@]}"; do
        want_decode="$want_decode $n:${made_by[$n]}"
    done
    for n in "$@"; do
        sf_expect_eq "round $round: on $n, each writer's IDs decode to its node id" "${want_decode# }" \
            "$(sf_psql "$n" -c "SELECT string_agg(made_on || ':' || ids, ' ' ORDER BY made_on)
                FROM (SELECT i.made_on, string_agg(DISTINCT w::text, ',') ids
                      FROM items i JOIN events e ON e.item_id = i.id,
                           LATERAL (VALUES ((snowflake_decode(i.id)).worker_id),
                                           ((snowflake_decode(e.id::bigint)).worker_id)) v(w)
                      WHERE i.note = 'round $round' GROUP BY i.made_on) s")"
    done
}

# above_earlier NODE: NODE's IDs of the last round are above every ID made
# before on the node id it wrote them with.
above_earlier() {
    sf_expect_eq "round $round: $1's new IDs lie above every earlier ID of node id ${made_by[$1]}" t \
        "$(sf_psql "$1" -c "SELECT (SELECT min(id) FROM items WHERE note = 'round $round'
                                    AND made_on = '$1')
                                 > (SELECT max(id) FROM items WHERE note <> 'round $round'
                                    AND (snowflake_decode(id)).worker_id = ${made_by[$1]})")"
}

# copy_node ORIGINAL COPY [CONF_LINE...]: COPY, a new node from a base backup
# of the running ORIGINAL started as a primary (no standby.signal: crash
# recovery to the backup's end, on the same timeline), with copy.conf in its
# postgresql.auto.conf for its first start and its inherited subscriptions
# dropped (detach-copy.sql, which resets that setting); restarted with them
# gone.
copy_node() {
    local original=$1 copy=$2
    shift 2
    sf_new_standby "$original" "$copy" "cluster_name = '$copy'" "$@"
    sf_as_server rm -f "$(sf_datadir "$copy")/standby.signal"
    printf '%s\n' "${copy_conf[@]}" |
        sf_as_server tee -a "$(sf_datadir "$copy")/postgresql.auto.conf" >/dev/null
    # sf_copy_backup's physical slot, where the server has no pg_basebackup.
    sf_psql "$original" -c "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots
                             WHERE slot_name = '$copy'" >/dev/null
    sf_start "$copy" || sf_die "$copy did not start"
    # Its node id in its first run, once it has one (it mints nothing
    # without): the original's must not be it, in this run or the next.
    sf_poll "$copy" "SELECT lease_state IN ('held', 'none') FROM snowflake_status()" t
    copy_first_node=$(node_of "$copy")
    sf_expect_eq "$copy started as a primary on $original's timeline" \
        "false $(sf_psql "$original" -c "SELECT timeline_id FROM pg_control_checkpoint()")" \
        "$(sf_psql "$copy" -c "SELECT pg_is_in_recovery() || ' ' || timeline_id FROM pg_control_checkpoint()")"
    sf_expect_eq "$copy holds $original's subscriptions, none of them running" \
        "$(sf_psql "$original" -c "SELECT count(*) || ' 0' FROM pg_subscription")" \
        "$(sf_psql "$copy" -c "SELECT count(*) || ' ' || (SELECT count(pid) FROM pg_stat_subscription)
                                FROM pg_subscription")"
    sf_psql "$copy" -f "$recipes/detach-copy.sql"
    sf_stop "$copy"
    sf_start "$copy" || sf_die "$copy did not restart"
    sf_expect_eq "$copy: no subscription left, logical replication workers allowed again" "0 8" \
        "$(sf_psql "$copy" -c "SELECT count(*) || ' ' || current_setting('max_logical_replication_workers')
                               FROM pg_subscription")"
}

# --- 'auto' node ids from a registry ------------------------------------------
sf_new_registry registry
auto_conf=("snowflake_id.worker_id = 'auto'" "$SF_REGISTRY_CONF" "snowflake_id.lease_ttl = '4s'")

new_node a1 "${auto_conf[@]}"
new_node a2 "${auto_conf[@]}"
# Why app.sql names its tables: FOR ALL TABLES takes in the extension's own.
sf_expect_eq "a publication FOR ALL TABLES would publish the extension's tables" \
    "snowflake_id.snowflake_origin snowflake_id.snowflake_registry_layout snowflake_id.snowflake_registry_lease snowflake_id.snowflake_registry_timeline" \
    "$(sf_psql a1 -c "CREATE PUBLICATION everything FOR ALL TABLES" \
        -c "SELECT string_agg(schemaname || '.' || tablename, ' ' ORDER BY tablename)
            FROM pg_publication_tables WHERE pubname = 'everything' AND schemaname = 'snowflake_id'" \
        -c "DROP PUBLICATION everything")"
mesh a1 a2
write a1 a2
converged a1 a2 -- a1 a2

# A third node, empty: the writes pause while it copies the table from one
# node and subscribes to the other without a copy (rows written meanwhile
# on a2 would be in a1's copy and in a2's stream, or in neither).
new_node a3 "${auto_conf[@]}"
subscribe a3 a1 true
sf_expect_match "copy_data with origin = none warns that a1's table holds rows from elsewhere" \
    'WARNING: +subscription "a3_from_a1" requested copy_data with origin = NONE but might copy data that had a different origin' \
    "$(cat "$SF_WORK/subscribe.log")"
sf_poll a3 "SELECT count(*) FROM items" "$total"
subscribe a3 a2 false
subscribe a1 a3 false
subscribe a2 a3 false
sf_poll a3 "SELECT count(*) FROM pg_subscription_rel WHERE srsubstate <> 'r'" 0
write a1 a2 a3
converged a1 a2 a3 -- a1 a2 a3

# --- a node restarted ----------------------------------------------------------
a2_id=${made_by[a2]}
sf_stop a2
sf_start a2 || sf_die "a2 did not restart"
write a1 a2 a3
sf_expect_eq "a2 holds node id $a2_id again after its restart" "$a2_id" "${made_by[a2]}"
above_earlier a2
converged a1 a2 a3 -- a1 a2 a3

# --- a node stopped for longer than lease_ttl -----------------------------------
# An immediate stop gives nothing back: a3's lease lasts until it expires.
a3_id=${made_by[a3]}
sf_stop a3 immediate
write a1 a2
sf_registry_poll registry "$a3_id" state expired
sf_log "ok: a3's lease of node id $a3_id expired while it was down"
sf_start a3 || sf_die "a3 did not start again"
write a1 a2 a3
sf_log "info: a3 leased node id ${made_by[a3]} on its return (before: $a3_id)"
[ "${made_by[a3]}" != "$a3_id" ] || above_earlier a3
converged a1 a2 a3 -- a1 a2 a3

# --- a subscription dropped and re-created ---------------------------------------
# While a2 writes, a1 drops its subscription to a2 (keeping the slot); a2
# writes on until a1 has dropped it, and a1 subscribes again on the kept slot.
round=$((round + 1))
sf_psql a2 -c "CREATE TABLE writer_stop ()" # a2's own: not in the publication
sf_psql a2 -c "DO \$\$ BEGIN
    FOR t IN 1..100000 LOOP
        WITH i AS (INSERT INTO items (note) VALUES ('round $round') RETURNING id)
        INSERT INTO events (item_id) SELECT id FROM i;
        COMMIT;
        EXIT WHEN EXISTS (SELECT FROM writer_stop);
    END LOOP;
END \$\$" >/dev/null &
writer=$!
sf_poll a1 "SELECT count(*) > 0 FROM items WHERE note = 'round $round'" t
IFS='|' read -r slot applied < <(sf_psql a1 -v sub=a1_from_a2 -f "$recipes/unsubscribe.sql")
sf_expect_eq "the dropped subscription's slot stays on a2" "$slot" \
    "$(sf_psql a2 -c "SELECT slot_name FROM pg_replication_slots WHERE slot_name = '$slot'")"
sf_psql a2 -c "INSERT INTO writer_stop DEFAULT VALUES"
wait "$writer" || sf_die "a2's writer failed"
total=$(sf_psql a2 -c "SELECT count(*) FROM items")
sf_log "info: $(sf_psql a1 -c "SELECT $total - count(*) FROM items") rows of a2 have not reached a1, which applied up to $applied"
sf_psql a1 -v sub=a1_from_a2 -v conninfo="$(sf_connstr a2)" -v slot="$slot" \
    -v applied_up_to="$applied" -f "$recipes/resubscribe.sql" >/dev/null
made_by[a2]=$(node_of a2)
converged a2 -- a1 a2 a3

# --- a new node from a copy of another's data ----------------------------------
# The writes pause: the copy holds what a2 held, and subscribes to every
# node without a copy from the moment it starts.
copy_node a2 a4
sf_poll a4 "SELECT lease_state FROM snowflake_status()" held
a4_id=$(node_of a4)
if [ "$copy_first_node" = "$a2_id" ] || [ "$a4_id" = "$a2_id" ]; then
    sf_die "a4, a copy of a2, leased a2's node id $a2_id (first run: $copy_first_node, then: $a4_id)"
fi
sf_log "ok: a4, a copy of a2, leased node id $copy_first_node, then $a4_id, never a2's $a2_id"
sf_expect_eq "a2 never lost its lease" 0 "$(grep -c 'lease was lost' "$SF_WORK/a2/server.log" || true)"
sf_expect_eq "the registry still has a2 as the holder of node id $a2_id" "live $(sf_datadir a2)" \
    "$(sf_registry_lease registry "$a2_id" state) $(sf_registry_lease registry "$a2_id" data_directory)"
for n in a1 a2 a3; do
    subscribe a4 "$n" false
    subscribe "$n" a4 false
done
write a1 a2 a3 a4
sf_expect_eq "a2 kept its node id" "$a2_id" "${made_by[a2]}"
converged a1 a2 a3 a4 -- a1 a2 a3 a4
for n in a1 a2 a3 a4; do sf_stop "$n"; done
sf_registry_stop registry

# --- static ids, no registry ------------------------------------------------------
total=0
new_node s1 "snowflake_id.worker_id = 1"
new_node s2 "snowflake_id.worker_id = 2"
mesh s1 s2
write s1 s2
converged s1 s2 -- s1 s2
# The copy's worker_id is set before its first start: nothing else would
# stop it minting as s1 (its settings and its state file are s1's).
copy_node s1 s3 "snowflake_id.worker_id = 3"
for n in s1 s2; do
    subscribe s3 "$n" false
    subscribe "$n" s3 false
done
write s1 s2 s3
sf_expect_eq "the static nodes write as 1, 2 and 3" "1 2 3" "${made_by[s1]} ${made_by[s2]} ${made_by[s3]}"
converged s1 s2 s3 -- s1 s2 s3

echo "logical: all checks passed"
