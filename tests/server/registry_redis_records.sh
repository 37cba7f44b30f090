#!/usr/bin/env bash
# Records a Redis registry loses one at a time, and records it never wrote.
# Asserts:
#  - a lease hash that neither the lease index nor the high-water marks list
#    (a hand edit, an update aborted halfway) is taken for the live lease it
#    is, not for a node id never leased: a server asking for 'auto' leases
#    another id and the hash is left as it was, and the id is listed from
#    then on;
#  - a lease whose hash is lost (deleted by hand; dropped 30 days after its
#    lease ended) keeps its fences and its floor in the high-water marks:
#    the id's next holder gets the next fence, not fence 1, and its IDs
#    start above the bound the lost record held, not at the clock;
#  - the marks, lost in their turn, come back with the next acquire.
source "$(dirname "$0")/../lib/suite.sh"

P=snowflake_id
sf_new_redis reg --appendonly yes --appendfsync always
reg_conf=$SF_REGISTRY_CONF
sf_redis reg HSET $P:meta quarantine_until_ms 0 >/dev/null
ttl_conf="snowflake_id.lease_ttl = '30s'"

node_of() { sf_psql "$1" -c "SELECT worker_id FROM snowflake_status()"; }
field() { sf_redis reg HGET "$P:lease:$1" "$2"; }
mark() { sf_redis reg ZSCORE "$P:$1" "$(printf '%010d' "$2")"; }

sf_new a "snowflake_id.worker_id = 'auto'" "$reg_conf" "$ttl_conf"
sf_start a || sf_die "a did not start"
sf_psql a -c "CREATE EXTENSION snowflake_id"
sf_poll a "SELECT lease_state FROM snowflake_status()" held
sf_expect_eq "a leases node id 0" 0 "$(node_of a)"
sf_expect_eq "its grant wrote its marks" "1 t" \
    "$(mark fences 0) $([ -n "$(mark floors 0)" ] && echo t || echo f)"

# --- a hash nobody lists ----------------------------------------------------------
# Node id 1, the lowest never leased, held live by a server only its hash
# names: an 'auto' server must not take it.
now=$(date +%s%3N)
sf_redis reg HSET $P:lease:1 fence 7 holder_system_id 99 holder_instance 99 \
    holder_host ghost holder_port 5432 holder_data_directory /srv/ghost holder_timeline 1 \
    holder_max_clock_drift_ms 1000 acquired_at_ms "$now" renewed_at_ms "$now" \
    expires_at_ms "$((now + 600000))" released_at_ms 0 \
    reserved_until_ms "$((now + 600000))" >/dev/null
orphan=$(sf_redis reg HGETALL $P:lease:1 | paste -sd' ')
sf_new b "snowflake_id.worker_id = 'auto'" "$reg_conf" "$ttl_conf"
sf_start b || sf_die "b did not start"
sf_psql b -c "CREATE EXTENSION snowflake_id"
sf_poll b "SELECT lease_state FROM snowflake_status()" held
b_node=$(node_of b)
sf_expect_eq "an 'auto' server does not take the id of a live hash nobody lists" t \
    "$([ "$b_node" != 1 ] && [ "$b_node" != 0 ] && echo t || echo f)"
sf_expect_eq "... and the hash is left as it was" "$orphan" \
    "$(sf_redis reg HGETALL $P:lease:1 | paste -sd' ')"
sf_expect_eq "... and listed from then on by its marks" 7 "$(mark fences 1)"

# --- a lost hash ----------------------------------------------------------------
# b renews (a bound 30 s ahead), then dies without giving its id back, and
# its hash is lost. The id's next holder starts above that bound, with the
# next fence: the floor keeps the IDs apart even had b lived on.
renewals=$(sf_psql b -c "SELECT lease_renewals FROM snowflake_status()")
sf_poll b "SELECT lease_renewals > $renewals FROM snowflake_status()" t
b_fence=$(field "$b_node" fence)
b_floor=$(( $(field "$b_node" reserved_until_ms) + $(field "$b_node" holder_max_clock_drift_ms) ))
sf_expect_eq "b's floor mark is its recorded bound plus its drift" "$b_floor" "$(mark floors "$b_node")"
b_pid=$(head -1 "$(sf_datadir b)/postmaster.pid")
kill -9 "$b_pid"
while [ -e "/proc/$b_pid" ]; do sleep 0.1; done
sf_redis reg DEL "$P:lease:$b_node" >/dev/null
# A server asking for b's id by number gets it at once (no record says it
# is held), above b's floor.
sf_new c "snowflake_id.worker_id = $b_node" "$reg_conf" "$ttl_conf"
sf_start c || sf_die "c did not start"
sf_psql c -c "CREATE EXTENSION snowflake_id"
sf_poll c "SELECT lease_state FROM snowflake_status()" held
sf_expect_eq "the id whose hash was lost is granted with the next fence" \
    "$((b_fence + 1))" "$(field "$b_node" fence)"
first=$(sf_psql c -c "SELECT snowflake_timestamp(snowflake_nextval())")
first_ms=$(sf_psql c -c "SELECT (extract(epoch FROM '$first'::timestamptz) * 1000)::bigint")
sf_expect_eq "its IDs start above the bound the lost hash held, plus b's drift" t \
    "$([ "$first_ms" -ge "$b_floor" ] && echo t || echo f)"

# --- lost marks -------------------------------------------------------------------
sf_redis reg DEL $P:fences $P:floors >/dev/null
sf_new d "snowflake_id.worker_id = 'auto'" "$reg_conf" "$ttl_conf"
sf_start d || sf_die "d did not start"
sf_psql d -c "CREATE EXTENSION snowflake_id"
sf_poll d "SELECT lease_state FROM snowflake_status()" held
sf_expect_eq "the next acquire writes the marks of every hash again" \
    "1 7 $((b_fence + 1))" "$(mark fences 0) $(mark fences 1) $(mark fences "$b_node")"
for n in a c d; do sf_stop "$n"; done
echo "registry_redis_records: all checks passed"
