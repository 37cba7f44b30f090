#!/usr/bin/env bash
# Node id leases across a promotion and a restore from backup, on real
# servers with a registry:
#  - promotion: a primary with a synchronous standby is killed (SIGKILL of
#    every process) while it mints; the standby holds no lease while it
#    replays (snowflake_status says so); promoted, it takes over the
#    primary's lease at once (same system identifier, higher timeline),
#    keeps the node id, and every ID it mints is above every ID a client
#    received from the old primary;
#  - promotion while the old primary still runs (split brain), a static id:
#    the promoted standby takes the live lease over, and the old primary's
#    next renewal is refused as replaced: it stops minting at once, leases
#    nothing else, and its ERROR says why;
#  - the same with 'auto': the promoted standby leases an id free at its
#    clock instead (no lead, one server per node id), the old primary is
#    refused as replaced; on_replaced = 'lease_another' lets it lease an
#    id no live lease holds (a third one, or its own once the lease ended
#    for it has run out);
#  - restore from backup, the case that repeats IDs without a registry: a
#    base backup taken while a node mints, the node minting on afterwards
#    (WAL the backup never sees), then the restored copy started with its
#    clock an hour behind. While the original holds its lease the copy is
#    refused its node id; once the original is gone and its lease expired,
#    the copy takes the id and every ID it mints is above every ID the
#    original minted: the registry's recorded bound survives what the backup
#    lost;
#  - a lead from a lease, replayed and promoted again: a standby promoted
#    while its primary runs takes the live lease over and resumes above the
#    registry's recorded bound, seconds ahead of the clock; its own
#    synchronous standby replays the reservations it makes meanwhile, and,
#    promoted after it is killed, resumes as far ahead of the clock and
#    says the lead comes from the lease: no WARNING blames its clock.
source "$(dirname "$0")/../lib/suite.sh"
sf_fake_clock

sf_new_registry registry
registry_conf=$SF_REGISTRY_CONF
ttl_conf="snowflake_id.lease_ttl = '6s'"
# live_leases_of DATADIR: how many live leases the registry shows for the
# server of that data directory, on either store.
live_leases_of() {
    local n=0 member node
    if [ "$SF_REGISTRY_STORE" != redis ]; then
        sf_psql registry -c "SELECT count(*) FROM snowflake_id.snowflake_registry_lease l
                             WHERE l.holder_data_directory = '$1'
                               AND l.released_at IS NULL AND l.expires_at > clock_timestamp()"
        return
    fi
    for member in $(sf_redis registry ZRANGE "$SF_REDIS_PREFIX:leases" 0 -1); do
        node=$((10#$member))
        if [ "$(sf_registry_lease registry "$node" state)" = live ] &&
            [ "$(sf_registry_lease registry "$node" data_directory)" = "$1" ]; then
            n=$((n + 1))
        fi
    done
    echo "$n"
}
# lease_ms NODE_ID WHAT: when node id NODE_ID's lease was acquired or runs
# out (WHAT: acquired or expires), in ms since 1970 on the registry's clock.
lease_ms() {
    if [ "$SF_REGISTRY_STORE" = redis ]; then
        sf_redis registry HGET "$SF_REDIS_PREFIX:lease:$1" "$2_at_ms"
    else
        sf_psql registry -c "SELECT (1000 * extract(epoch FROM $2_at))::bigint
                             FROM snowflake_id.snowflake_registry_lease WHERE node_id = $1"
    fi
}
# lease_of NODE_ID [REGISTRY]: the lease's state and its holder's data directory.
lease_of() {
    local reg=${2:-registry}
    echo "$(sf_registry_lease "$reg" "$1" state) $(sf_registry_lease "$reg" "$1" data_directory)"
}

# --- promotion of a synchronous standby --------------------------------------
sf_new primary "snowflake_id.worker_id = 11" "$registry_conf" "$ttl_conf"
sf_start primary || sf_die "primary did not start"
sf_psql primary -c "CREATE EXTENSION snowflake_id"
sf_poll primary "SELECT lease_state FROM snowflake_status()" held
sf_psql primary -c "SELECT snowflake_nextval()" >/dev/null
sf_new_standby primary standby "cluster_name = 'standby1'"
sf_start standby || sf_die "standby did not start"
sf_expect_eq "the standby holds no lease and says so" \
    "waiting||a standby takes no node id lease: it asks the registry for one once promoted" \
    "$(sf_psql standby -c "SELECT format('%s|%s|%s', lease_state, worker_id, lease_message)
                           FROM snowflake_status()")"
sf_make_sync primary standby1
sf_stream_ids primary "$SF_WORK/primary.ids" 2000000 2>/dev/null &
client=$!
sf_await_ids 20000 "$client" "$SF_WORK/primary.ids"
sf_crash primary
wait "$client" || true
sf_expect_match "the old primary's lease is still live" "^live $(sf_datadir primary)$" "$(lease_of 11)"
sf_promote standby
sf_poll standby "SELECT lease_state FROM snowflake_status()" held
sf_expect_eq "the promoted standby keeps the node id" 11 \
    "$(sf_psql standby -c "SELECT worker_id FROM snowflake_status()")"
sf_expect_match "the registry shows it as the holder, on timeline 2" \
    "^live $(sf_datadir standby)$" "$(lease_of 11)"
sf_expect_eq "... timeline" 2 \
    "$(sf_registry_lease registry 11 timeline)"
sf_stream_ids standby "$SF_WORK/promoted.ids" 20000
sf_expect_above "after the promotion" "$SF_WORK/primary.ids" -- "$SF_WORK/promoted.ids"

# --- promotion while the old primary still runs -------------------------------
sf_new split "snowflake_id.worker_id = 33" "$registry_conf" "$ttl_conf"
sf_start split || sf_die "split did not start"
sf_psql split -c "CREATE EXTENSION snowflake_id"
sf_poll split "SELECT lease_state FROM snowflake_status()" held
sf_psql split -c "SELECT snowflake_nextval()" >/dev/null
sf_new_standby split splitstandby "cluster_name = 'splitstandby'"
sf_start splitstandby || sf_die "splitstandby did not start"
sf_poll split "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'" 1
sf_promote_successor split splitstandby registry 33
sf_expect_match "the promoted standby took the live lease over" \
    "^live $(sf_datadir splitstandby)$" "$(lease_of 33)"
# The old primary's next renewal finds its own standby, promoted, holding
# its id: it is refused as replaced, stops at once and leases nothing else.
sf_poll split "SELECT lease_state FROM snowflake_status()" replaced
sf_expect_match "the old primary says it was replaced, and by whom" \
    "WARNING: +snowflake_id: this server was replaced by a promoted standby \(timeline 2\) of its own; snowflake_nextval\(\) refuses to issue IDs" \
    "$(sf_server_log split)"
sf_expect_match "... naming the standby's data directory" \
    "DETAIL: +Node id 33 is held by .*data directory $(sf_datadir splitstandby), .* on timeline 2" \
    "$(sf_server_log split)"
out=$(sf_psql split -c "SELECT snowflake_nextval()" 2>&1 || true)
sf_expect_match "... and it mints no more, with an ERROR that names the cause" \
    'ERROR: +this server was replaced by a promoted standby of its own and issues no IDs' "$out"
sf_expect_eq "... whose HINT never advises another id or 'auto'" 0 \
    "$(grep -c "'auto'\|worker_id" <<<"$(grep HINT <<<"$out")" || true)"
sf_expect_eq "the old primary holds no lease of any id in the registry" 0 \
    "$(live_leases_of "$(sf_datadir split)")"
sf_stop split
sf_stop splitstandby

# --- 'auto': a promotion while the old primary still runs ----------------------
# The promoted standby does not take the live lease over (it would mint about
# lease_ttl ahead of its clock, and two servers would issue on one node id):
# it leases an id free at its clock and ends the old lease for its holder,
# which is refused as replaced at its next renewal. With on_replaced =
# 'lease_another' the old primary leases an id no live lease holds and mints
# again.
sf_new autosplit "snowflake_id.worker_id = 'auto'" "$registry_conf" "$ttl_conf"
sf_start autosplit || sf_die "autosplit did not start"
sf_psql autosplit -c "CREATE EXTENSION snowflake_id"
sf_poll autosplit "SELECT lease_state FROM snowflake_status()" held
old_node=$(sf_psql autosplit -c "SELECT worker_id FROM snowflake_status()")
sf_stream_ids autosplit "$SF_WORK/autosplit.before" 20000
sf_new_standby autosplit autostandby "cluster_name = 'autostandby'"
sf_start autostandby || sf_die "autostandby did not start"
sf_poll autosplit "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'" 1
sf_stream_ids autosplit "$SF_WORK/autosplit.more" 20000
sf_poll autosplit "SELECT count(*) FROM pg_stat_replication WHERE replay_lsn = pg_current_wal_lsn()" 1
sf_expect_eq "the old primary's lease is live at the promotion" live "$(sf_registry_lease registry "$old_node" state)"
sf_promote autostandby
sf_poll autostandby "SELECT lease_state FROM snowflake_status()" held
new_node=$(sf_psql autostandby -c "SELECT worker_id FROM snowflake_status()")
[ "$new_node" != "$old_node" ] ||
    sf_die "the promoted 'auto' standby took its old primary's live lease on node id $old_node over"
sf_log "ok: the promoted standby leased node id $new_node, not its old primary's $old_node"
sf_stream_ids autostandby "$SF_WORK/autostandby.ids" 20000
# A takeover resumes above the old lease's bound plus max_clock_drift: at
# least lease_ttl (6 s) - lease_ttl / 3 + 1 s ahead at the promotion. An id
# free at its clock leads by max_clock_drift (1 s) at most.
ahead=$(sf_psql autostandby -c "SELECT ahead_of_clock_ms FROM snowflake_status()")
[ "$ahead" -lt 3000 ] ||
    sf_die "the promoted standby mints $ahead ms ahead of its clock: an id free at its clock needs no lead"
sf_log "ok: ... and mints at its clock ($ahead ms ahead)"
sf_expect_eq "... and its log resumes above no previous holder's bound" 0 \
    "$(grep -c 'above every ID the previous holder of node id' "$SF_WORK/autostandby/server.log" || true)"
sf_expect_eq "the old lease, ended for its holder, names the promoted standby until it expires" \
    "live $(sf_datadir autostandby) 2" \
    "$(lease_of "$old_node") $(sf_registry_lease registry "$old_node" timeline)"
sf_poll autosplit "SELECT lease_state FROM snowflake_status()" replaced
out=$(sf_psql autosplit -c "SELECT snowflake_nextval()" 2>&1 || true)
sf_expect_match "the old primary with 'auto' is refused too, and leases no other id" \
    'ERROR: +this server was replaced by a promoted standby of its own and issues no IDs' "$out"
sf_expect_eq "... none at all" 0 \
    "$(live_leases_of "$(sf_datadir autosplit)")"
# The old lease, ended for its holder, is renewed by no one: it runs out at
# a time fixed now. Until then its id is not free; afterwards it is, and
# taking it back is right (the registry's recorded bound covers every ID
# the old primary minted on it). On a loaded machine the setup may outlast
# lease_ttl: which case the grant fell in decides what it may lease.
old_lease_ends_ms=$(lease_ms "$old_node" expires)
[ -n "$old_lease_ends_ms" ] || sf_die "the registry has no lease of node id $old_node"
sf_conf autosplit "snowflake_id.on_replaced = 'lease_another'"
sf_psql autosplit -c "SELECT pg_reload_conf()" >/dev/null
sf_poll autosplit "SELECT lease_state FROM snowflake_status()" held
third_node=$(sf_psql autosplit -c "SELECT worker_id FROM snowflake_status()")
[ "$third_node" != "$new_node" ] ||
    sf_die "with on_replaced = 'lease_another' the old primary leased node id $third_node, live for the promoted standby"
sf_expect_match "the registry shows the old primary as the holder of node id $third_node" \
    "^live $(sf_datadir autosplit)$" "$(lease_of "$third_node")"
granted_ms=$(lease_ms "$third_node" acquired)
if [ "$granted_ms" -lt "$old_lease_ends_ms" ]; then
    [ "$third_node" != "$old_node" ] ||
        sf_die "with on_replaced = 'lease_another' the old primary leased node id $third_node at $granted_ms, while its lease for the promoted standby ran until $old_lease_ends_ms"
    sf_log "ok: with on_replaced = 'lease_another' the old primary leases a third node id, $third_node, and mints"
else
    sf_log "ok: with on_replaced = 'lease_another' the old primary leases node id $third_node, not the promoted standby's (its old lease had run out $((granted_ms - old_lease_ends_ms)) ms before)"
fi
sf_stream_ids autosplit "$SF_WORK/autosplit.after" 20000
sf_expect_eq "no ID twice across the three" 0 \
    "$(sort "$SF_WORK"/autosplit.before "$SF_WORK"/autosplit.more "$SF_WORK"/autostandby.ids \
        "$SF_WORK"/autosplit.after | uniq -d | wc -l)"
sf_stop autosplit
sf_stop autostandby

# --- restore from a base backup, the clock an hour behind ---------------------
sf_new original "snowflake_id.worker_id = 22" "$registry_conf" "$ttl_conf"
sf_start original || sf_die "original did not start"
sf_psql original -c "CREATE EXTENSION snowflake_id"
sf_poll original "SELECT lease_state FROM snowflake_status()" held
sf_stream_ids original "$SF_WORK/original.before" 20000
# The backup, then more IDs the backup knows nothing of, a reservation
# window and more later.
sf_new_standby original copy
sf_as_server rm -f "$(sf_datadir copy)/standby.signal"
sf_stream_ids original "$SF_WORK/original.after" 20000
before_tail=$(sf_psql original -c "SELECT reserved_until FROM snowflake_status()")
sf_poll original "SELECT snowflake_timestamp(snowflake_nextval()) > '$before_tail'" t
sf_stream_ids original "$SF_WORK/original.tail" 20000
echo "-3600" >"$SF_CLOCK"
sf_start copy "${SF_FAKE_ENV[@]}" || sf_die "the restored copy did not start"
sf_expect_eq "the copy's clock is an hour behind" t "$(sf_psql copy -c "
    SELECT clock_timestamp() < to_timestamp($(sf_registry_clock registry)) - interval '3590 s'")"
sf_poll copy "SELECT lease_state FROM snowflake_status()" refused
# Meaningful only if the copy's own state, backup plus replayed WAL, is
# behind what the original minted later: without a registry it would resume
# there and, with its clock behind, repeat those IDs.
local_resume=$(grep -o 'snowflake_id: the generator resumes at [^ ,]*' "$SF_WORK/copy/server.log" |
    head -1 | awk '{print $6}')
sf_expect_eq "the copy's own durable state lies below the original's last IDs" t \
    "$(sf_psql original -c "SELECT '$local_resume'::timestamptz
        < '$(sf_psql original -c "SELECT snowflake_timestamp($(sort -n "$SF_WORK/original.tail" | tail -1))")'::timestamptz")"
out=$(sf_psql copy -c "SELECT snowflake_nextval()" 2>&1 || true)
sf_expect_match "while the original holds its lease, the copy is refused its node id" \
    "node id 22 is held by another server: It is held by .*data directory $(sf_datadir original)" "$out"
sf_crash original
# The copy retries: it takes the id over once the original's lease expires
# (polling for "expired" in between would race with it).
sf_poll copy "SELECT lease_state FROM snowflake_status()" held
sf_expect_match "once the original is gone, the registry shows the copy as the holder" \
    "^live $(sf_datadir copy)$" "$(lease_of 22)"
sf_stream_ids copy "$SF_WORK/copy.ids" 20000
sf_expect_above "the restored copy, once it holds the id" "$SF_WORK/original.before" \
    "$SF_WORK/original.after" "$SF_WORK/original.tail" -- "$SF_WORK/copy.ids"

# --- a lead from a lease, replayed by a standby, promoted -----------------------
# lead1, a standby of leadprimary promoted while leadprimary runs, takes the
# live lease over at the registry's recorded bound (about lease_ttl ahead of
# the clock) and mints on the catch-up clock; its reservations say the lead
# comes from the lease (StateRecord::lead_from_lease). lead2, lead1's
# synchronous standby, replays them; promoted once lead1 is killed, it
# resumes at the replayed bound, as far ahead of the clock, and must put the
# lead down to the lease, not to its clock (which is the same real clock).
# A registry of its own: a Redis registry records the cluster's lease_ttl and
# refuses servers that run another. lease_ttl 30 s: lead1 starts 21 to 31 s
# ahead (the bound of leadprimary's last renewal, made at most lease_ttl / 3
# before, plus max_clock_drift), and the catch-up clock eats the lead at half
# the speed of real time: the setup may take 20 s and more on a loaded
# machine and lead2 still resumes well past what a correct clock explains.
sf_new_registry leadregistry
lead_conf=("$SF_REGISTRY_CONF" "snowflake_id.lease_ttl = '30s'" "snowflake_id.worker_id = 44")
sf_new leadprimary "${lead_conf[@]}"
sf_start leadprimary || sf_die "leadprimary did not start"
sf_psql leadprimary -c "CREATE EXTENSION snowflake_id"
sf_poll leadprimary "SELECT lease_state FROM snowflake_status()" held
sf_stream_ids leadprimary "$SF_WORK/leadprimary.ids" 20000
sf_new_standby leadprimary lead1 "cluster_name = 'lead1'"
sf_start lead1 || sf_die "lead1 did not start"
sf_poll leadprimary "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'" 1
sf_promote_successor leadprimary lead1 leadregistry 44
sf_expect_match "lead1 took leadprimary's live lease over" "^live $(sf_datadir lead1)$" "$(lease_of 44 leadregistry)"
sf_expect_match "... and resumes above the bound the registry recorded for leadprimary" \
    'snowflake_id: the generator resumes at .*, above every ID the previous holder of node id 44 can have issued' \
    "$(sf_server_log lead1)"
sf_new_standby lead1 lead2 "cluster_name = 'lead2'"
sf_start lead2 || sf_die "lead2 did not start"
# Synchronous: lead1 hands out no ID before lead2 has its reservation.
sf_make_sync lead1 lead2
sf_stream_ids lead1 "$SF_WORK/lead1.ids" 2000000 2>/dev/null &
client=$!
sf_await_ids 20000 "$client" "$SF_WORK/lead1.ids"
lead1_ahead=$(sf_psql lead1 -c "SELECT ahead_of_clock_ms FROM snowflake_status()")
# Not a product failure if it is not: the setup took too long for lease_ttl.
[ "$lead1_ahead" -gt 10000 ] ||
    sf_die "lead1 mints only $lead1_ahead ms ahead of its clock before the kill (above 10000 needed): the lease's lead was used up before lead2's promotion could test it; raise lease_ttl"
sf_log "ok: lead1 mints $lead1_ahead ms ahead of its clock before the kill"
sf_crash lead1
wait "$client" || true
sf_promote lead2
sf_poll lead2 "SELECT lease_state FROM snowflake_status()" held
sf_expect_eq "lead2 keeps the node id" 44 "$(sf_psql lead2 -c "SELECT worker_id FROM snowflake_status()")"
sf_expect_match "the registry shows lead2 as the holder" "^live $(sf_datadir lead2)$" "$(lease_of 44 leadregistry)"
sf_expect_eq "... on timeline 3" 3 "$(sf_registry_lease leadregistry 44 timeline)"
sf_stream_ids lead2 "$SF_WORK/lead2.ids" 20000
sf_expect_above "lead2 after its promotion" "$SF_WORK/leadprimary.ids" "$SF_WORK/lead1.ids" -- \
    "$SF_WORK/lead2.ids"
lead2_log=$(sf_server_log lead2)
# Meaningful only if lead2 resumed further ahead of the clock than a correct
# clock explains (max_clock_drift 1 s + a 1 s reservation + 1 ms), where a
# lead not put down to the lease draws the WARNING.
lead2_ahead=$(sed -n 's/.*snowflake_id: the generator resumes at .*, above the durable reservation, \([0-9]*\) ms ahead of the wall clock$/\1/p' \
    <<<"$lead2_log")
[ -n "$lead2_ahead" ] ||
    sf_die "lead2 did not resume ahead of its clock at its promotion: $(grep 'the generator resumes' <<<"$lead2_log")"
[ "$lead2_ahead" -gt 2001 ] ||
    sf_die "lead2 resumed only $lead2_ahead ms ahead of its clock (above 2001 needed): the lease's lead was used up before the promotion could test it; raise lease_ttl"
sf_log "ok: lead2 resumes at its promotion $lead2_ahead ms ahead of its clock, from the WAL it replayed"
sf_expect_match "lead2 puts the lead down to the node id lease" \
    'LOG: +snowflake_id: the lead comes from the node id lease taken over from another holder' \
    "$lead2_log"
sf_expect_eq "... and no WARNING blames its clock" 0 "$(grep -c 'the wall clock .* behind' <<<"$lead2_log" || true)"
sf_expect_eq "... nor a HINT" 0 "$(grep -c "Check the server's clock" <<<"$lead2_log" || true)"
