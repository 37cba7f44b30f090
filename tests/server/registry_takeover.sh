#!/usr/bin/env bash
# snowflake_id.takeover on real servers with a registry: a standby promoted
# while its primary still runs (static worker id, lease_ttl 15 s) takes the
# live lease over, whose floor (the old primary's recorded bound plus its
# max_clock_drift) lies 10 s and more ahead of its clock.
#  - 'wait': the promoted standby holds the lease and issues nothing until its
#    clock reaches the floor: snowflake_nextval() raises 55000 naming the time
#    IDs resume and the setting, snowflake_status() says so, the log says
#    so; once its clock has passed that time it mints, and its first ID
#    carries no time ahead of its clock, above every ID of the old primary;
#  - 'wait' across a clean restart while it waits: the next run waits for
#    the same floor and does not blame its clock;
#  - 'wait' turned to 'lead' on reload while it waits: it mints at once,
#    ahead of its clock, on the catch-up clock, and logs why.
source "$(dirname "$0")/../lib/suite.sh"

sf_new_registry registry
lease_conf=("$SF_REGISTRY_CONF" "snowflake_id.lease_ttl = '15s'" "snowflake_id.takeover = 'wait'")

# try_id(): an ID, or the refusal's SQLSTATE, message and HINT.
try_id_sql="CREATE FUNCTION try_id() RETURNS text LANGUAGE plpgsql AS \$\$
DECLARE state text; message text; hint text;
BEGIN
    RETURN snowflake_nextval()::text;
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, message = MESSAGE_TEXT, hint = PG_EXCEPTION_HINT;
    RETURN format('%s|%s|%s', state, message, hint);
END \$\$"

# promote_over_live_lease PRIMARY STANDBY WORKER_ID: a primary minting and a
# standby of it, promoted while the primary runs; the standby takes the live
# lease over. The primary's IDs go to $SF_WORK/PRIMARY.ids.
promote_over_live_lease() {
    local primary=$1 standby=$2 worker=$3
    sf_new "$primary" "snowflake_id.worker_id = $worker" "${lease_conf[@]}"
    sf_start "$primary" || sf_die "$primary did not start"
    sf_psql "$primary" -c "CREATE EXTENSION snowflake_id"
    sf_psql "$primary" -c "$try_id_sql"
    sf_poll "$primary" "SELECT lease_state FROM snowflake_status()" held
    sf_stream_ids "$primary" "$SF_WORK/$primary.ids" 20000
    sf_new_standby "$primary" "$standby" "cluster_name = '$standby'"
    sf_start "$standby" || sf_die "$standby did not start"
    sf_poll "$primary" "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'" 1
    sf_stream_ids "$primary" "$SF_WORK/$primary.more" 20000
    cat "$SF_WORK/$primary.more" >>"$SF_WORK/$primary.ids"
    sf_promote_successor "$primary" "$standby" registry "$worker"
    sf_expect_eq "$standby took the live lease of node id $worker over" \
        "live $(sf_datadir "$standby")" \
        "$(sf_registry_lease registry "$worker" state) $(sf_registry_lease registry "$worker" data_directory)"
}

# --- 'wait': no ID before the clock reaches the floor --------------------------
promote_over_live_lease old new 21
log=$(sf_server_log new)
lead_ms=$(sed -n "s/.*snowflake_id: IDs resume at .*, above every ID the previous holder of node id 21 can have issued (\([0-9]*\) ms ahead of the wall clock); with snowflake_id.takeover = 'wait' none is issued before the clock reaches it$/\1/p" <<<"$log")
[ -n "$lead_ms" ] || sf_die "new logged no wait at its grant: $(grep 'snowflake_id' <<<"$log")"
sf_log "ok: new logs that IDs resume $lead_ms ms ahead of its clock at the grant"
sf_expect_eq "... and starts no catch-up clock" 0 \
    "$(grep -c 'the generator resumes at .*, above every ID the previous holder' <<<"$log" || true)"
status=$(sf_psql new -c "SELECT format('%s|%s', lease_state, lease_message) FROM snowflake_status()")
out=$(sf_psql new -c "SELECT try_id()")
# Meaningful only while the floor is still ahead: the old primary's last
# renewal (at most 5 s before the grant) recorded its clock + 15 s.
case "$out" in
55000*) ;;
*) sf_die "new issued an ID before this check could see it wait (the setup outlasted the lead of $lead_ms ms; raise lease_ttl): $out" ;;
esac
sf_expect_match "snowflake_status() says it waits for the floor, and why" \
    "^held\|no IDs until [-0-9]+ [0-9:.]+Z, [0-9]+ ms from now: the floor of the lease, taken from another holder, lies ahead of the clock \(snowflake_id.takeover = 'wait'\)$" \
    "$status"
sf_expect_match "snowflake_nextval() raises 55000 naming when IDs resume and the setting" \
    "^55000\|snowflake_id issues no IDs until [-0-9]+ [0-9:.]+Z, the floor of the lease of node id 21\|IDs resume by themselves at .*snowflake_id.takeover = 'lead'" \
    "$out"
resume_at=$(sed -n 's/^55000|snowflake_id issues no IDs until \(.*Z\), the floor.*/\1/p' <<<"$out")
# Waits for the state, not for a time: the clock past the floor, with a
# deadline far beyond it (the floor lies at most lease_ttl + max_clock_drift
# ahead of the clock).
sf_poll new "SELECT clock_timestamp() > '$resume_at'::timestamptz OR pg_sleep(0.1) IS NULL" t
# The clock is read after the ID is issued (a materialized CTE first).
first=$(sf_psql new -c "WITH s AS MATERIALIZED (SELECT try_id() AS t)
                         SELECT format('%s|%s', t, snowflake_timestamp(t::bigint) <= clock_timestamp()) FROM s")
sf_expect_match "once its clock has passed the floor, new mints, and its first ID is not ahead of its clock" \
    '^[0-9]+\|t$' "$first"
sf_expect_eq "... nor before the floor" t \
    "$(sf_psql new -c "SELECT snowflake_timestamp(${first%|*}) >= '$resume_at'::timestamptz")"
echo "${first%|*}" >"$SF_WORK/new.ids"
sf_stream_ids new "$SF_WORK/new.more" 20000
cat "$SF_WORK/new.more" >>"$SF_WORK/new.ids"
sf_expect_above "new after the takeover" "$SF_WORK/old.ids" -- "$SF_WORK/new.ids"
# (A catch-up clock from the reservations it replayed may still run: they
# lie at most max_clock_drift + 1 s ahead of the old primary's clock.)
ahead=$(sf_psql new -c "SELECT ahead_of_clock_ms < 2000 FROM snowflake_status()")
sf_expect_eq "... and runs near its clock, not a lease's lead ahead" t "$ahead"
sf_stop new
sf_stop old

# --- 'wait' across a clean restart while it waits ------------------------------
# The exact record of the shutdown says the floor's lead came from a lease:
# the next run takes its own lease back and waits for the same floor, not
# ahead on the catch-up clock, and does not blame its clock for the lead.
promote_over_live_lease old3 new3 23
out=$(sf_psql new3 -c "SELECT try_id()")
case "$out" in
55000*) ;;
*) sf_die "new3 issued an ID before this check could see it wait (raise lease_ttl): $out" ;;
esac
resume_at=$(sed -n 's/^55000|snowflake_id issues no IDs until \(.*Z\), the floor.*/\1/p' <<<"$out")
sf_stop new3
sf_start new3 || sf_die "new3 did not start again"
sf_poll new3 "SELECT lease_state FROM snowflake_status()" held
log=$(sf_server_log new3)
# Meaningful only if the restart came before the floor.
grep -Eq "snowflake_id: the generator resumes at .*, above (the last ID issued before the server stopped|the durable reservation), [0-9]+ ms ahead of the wall clock" <<<"$log" ||
    sf_die "new3's restart came after its floor (raise lease_ttl): $(grep 'the generator resumes' <<<"$log")"
sf_expect_match "after a clean restart new3 waits for the same floor" \
    "snowflake_id: with snowflake_id.takeover = 'wait' no ID is issued before the clock reaches that point, which a node id lease taken over put ahead of it" \
    "$log"
sf_expect_eq "... and no WARNING blames its clock" 0 "$(grep -c 'WARNING: .*the wall clock .* behind' <<<"$log" || true)"
sf_poll new3 "SELECT clock_timestamp() > '$resume_at'::timestamptz OR pg_sleep(0.1) IS NULL" t
first=$(sf_psql new3 -c "WITH s AS MATERIALIZED (SELECT try_id() AS t)
                          SELECT format('%s|%s', t, snowflake_timestamp(t::bigint) <= clock_timestamp()) FROM s")
sf_expect_match "... then mints at its clock" '^[0-9]+\|t$' "$first"
echo "${first%|*}" >"$SF_WORK/new3.ids"
sf_expect_above "new3 after its restart" "$SF_WORK/old3.ids" -- "$SF_WORK/new3.ids"
sf_stop new3
sf_stop old3

# --- 'wait' turned to 'lead' while it waits ------------------------------------
promote_over_live_lease old2 new2 22
out=$(sf_psql new2 -c "SELECT try_id()")
case "$out" in
55000*) ;;
*) sf_die "new2 issued an ID before this check could see it wait (raise lease_ttl): $out" ;;
esac
sf_log "ok: new2 waits for the floor"
sf_conf new2 "snowflake_id.takeover = 'lead'"
sf_psql new2 -c "SELECT pg_reload_conf()" >/dev/null
sf_poll new2 "SHOW snowflake_id.takeover" lead
first=$(sf_psql new2 -c "WITH s AS MATERIALIZED (SELECT try_id() AS t)
                          SELECT format('%s|%s', t, snowflake_timestamp(t::bigint) > clock_timestamp()) FROM s")
# Meaningful only if the gate was still closed when the call came.
grep -q "snowflake_id: snowflake_id.takeover = 'lead' now: the generator resumes at .*, ahead of the wall clock, instead of waiting for it" \
    "$SF_WORK/new2/server.log" ||
    sf_die "new2's clock reached the floor before the reload could open the gate (raise lease_ttl): $first"
sf_log "ok: with 'lead' on reload, new2 opens the gate and logs why"
sf_expect_match "... and mints at once, ahead of its clock" '^[0-9]+\|t$' "$first"
echo "${first%|*}" >"$SF_WORK/new2.ids"
sf_stream_ids new2 "$SF_WORK/new2.more" 20000
cat "$SF_WORK/new2.more" >>"$SF_WORK/new2.ids"
sf_expect_above "new2 after the takeover" "$SF_WORK/old2.ids" -- "$SF_WORK/new2.ids"
sf_expect_eq "... on the catch-up clock" t \
    "$(sf_psql new2 -c "SELECT catching_up FROM snowflake_status()")"
