#!/usr/bin/env bash
# A mixed fleet on one Redis registry during a rolling upgrade: 1.4 servers,
# which run their Lua scripts (frozen in tests/server/fixtures/redis-1.4/
# and played here with redis-cli EVAL), beside servers of this build, which
# WATCH, read, decide in C++ and write in MULTI/EXEC. Asserts:
#  - a node id never has two live holders, whichever kind holds it and
#    whichever kind asks;
#  - the floor rule across old -> new and new -> old takeovers: the new
#    holder starts above the bound the old one recorded, plus its drift;
#  - a new server's step that an old script overtakes between its reads and
#    its EXEC writes nothing and decides again (a test hook,
#    SNOWFLAKE_ID_TEST_REDIS_PAUSE, holds the step at exactly that point).
source "$(dirname "$0")/../lib/suite.sh"

fixtures=$(cd "$(dirname "$0")/fixtures/redis-1.4" && pwd)
P=snowflake_id
sf_new_redis mixed --appendonly yes --appendfsync always
mixed_conf=$SF_REGISTRY_CONF
sf_redis mixed HSET $P:meta quarantine_until_ms 0 >/dev/null
# A lease_ttl long enough that no lease of the test expires unrenewed.
ttl_conf="snowflake_id.lease_ttl = '30s'"

node_of() { sf_psql "$1" -c "SELECT worker_id FROM snowflake_status()"; }
now_ms() { date +%s%3N; }

# old SCRIPT ARG...: a 1.4 server's call, its reply one element a line.
old() {
    local script=$1
    shift
    sf_redis mixed EVAL "$(cat "$fixtures/prelude.lua" "$fixtures/$script.lua")" 1 $P "$@"
}
# old_acquire INSTANCE NODE: a 1.4 server (system id 7000 + INSTANCE, its
# own host) asks for NODE ('' for 'auto') with the cluster's layout.
old_acquire() {
    local instance=$1 node=$2 layout
    layout=$(sf_redis mixed HMGET $P:layout datacenter_bits worker_bits sequence_bits epoch_ms \
        max_clock_drift_ms lease_ttl_ms | paste -sd' ')
    # shellcheck disable=SC2086 # the layout's six numbers, one argument each
    old acquire "$node" '' '' "$((7000 + instance))" "$instance" "old-$instance" 5432 \
        "/srv/old-$instance" 1 $layout "$(now_ms)"
}
field() { sf_redis mixed HGET "$P:lease:$1" "$2"; }
drift_ms() { sf_redis mixed HGET $P:layout max_clock_drift_ms; }

# --- a new server first: it records the layout --------------------------------
sf_new a "snowflake_id.worker_id = 'auto'" "$mixed_conf" "$ttl_conf"
sf_start a || sf_die "a did not start"
sf_psql a -c "CREATE EXTENSION snowflake_id"
sf_poll a "SELECT lease_state FROM snowflake_status()" held
sf_expect_eq "the new server leases node id 0" 0 "$(node_of a)"

# --- never two live holders -----------------------------------------------------
reply=$(old_acquire 101 '' | paste -sd' ')
sf_expect_match "an old server beside it gets node id 1, not the new server's" '^ok 1 1 ' "$reply"
old1_fence=1
reply=$(old_acquire 102 0 | paste -sd' ')
sf_expect_match "an old server asking for the new server's live id is refused" \
    "^refused 55000 node id 0 is held by another server" "$reply"
sf_new b "snowflake_id.worker_id = 1" "$mixed_conf" "$ttl_conf"
sf_start b || sf_die "b did not start"
sf_psql b -c "CREATE EXTENSION snowflake_id"
sf_poll b "SELECT lease_state FROM snowflake_status()" refused
sf_expect_match "a new server asking for an old server's live id is refused, naming it" \
    'node id 1 is held by another server: It is held by old-101:5432, data directory /srv/old-101, system identifier 7101, whose lease runs until [0-9-]+ [0-9:]+\.[0-9]{3}Z' \
    "$(sf_psql b -c "SELECT lease_message FROM snowflake_status()")"
sf_stop b
sf_expect_eq "... and the old server still holds it" 101 "$(field 1 holder_instance)"

# --- old -> new: the new holder starts above the old one's bound ----------------
# 20 s ahead: far above where a new server's IDs would start without the
# floor (its clock plus max_clock_drift).
bound=$(($(now_ms) + 20000))
reply=$(old renew 1 "$old1_fence" 101 "$bound" 30000 | paste -sd' ')
sf_expect_match "the old server records a bound 20 s ahead" '^ok [0-9]+$' "$reply"
reply=$(old release 1 "$old1_fence" 101 "$bound" | paste -sd' ')
sf_expect_eq "... and gives the id back" "ok 1" "$reply"
sf_new c "snowflake_id.worker_id = 1" "$mixed_conf" "$ttl_conf"
sf_start c || sf_die "c did not start"
sf_psql c -c "CREATE EXTENSION snowflake_id"
sf_poll c "SELECT lease_state FROM snowflake_status()" held
floor=$((bound + $(drift_ms)))
sf_expect_eq "the new server holds node id 1 with the next fence" 2 "$(field 1 fence)"
sf_expect_eq "... and its IDs carry times above the old bound plus the old drift" t \
    "$(sf_psql c -c "SELECT snowflake_timestamp(snowflake_nextval()) > to_timestamp($floor / 1000.0)")"

# --- new -> old: the old holder starts above the new one's bound ----------------
last_ms=$(sf_psql c -c "SELECT (extract(epoch FROM max(snowflake_timestamp(snowflake_nextval())))
    * 1000)::bigint FROM generate_series(1, 5000)")
sf_stop c
sf_expect_eq "the new server gave node id 1 back" t \
    "$(sf_psql a -c "SELECT $(field 1 released_at_ms) > 0")"
reply=$(old_acquire 103 1 | paste -sd' ')
sf_expect_match "an old server takes node id 1 with the next fence" '^ok 1 3 [0-9]+ [0-9]+$' "$reply"
old_floor=$(echo "$reply" | cut -d' ' -f4)
[ "$old_floor" -gt "$last_ms" ] ||
    sf_die "the old holder's floor $old_floor is not above the new holder's last ID time $last_ms"
sf_log "ok: ... above the last ID the new server issued on it ($old_floor > $last_ms)"

# --- a race: an old script overtakes a new server's step ------------------------
# The hook holds r's acquire between its reads and its EXEC; the old server
# takes the id r decided on; r's EXEC finds a watched key changed, writes
# nothing, and decides again.
hook=mixed-hook
sf_redis mixed RPUSH "$hook:arm" 1 >/dev/null
sf_new r "snowflake_id.worker_id = 'auto'" "$mixed_conf" "$ttl_conf"
sf_start r "SNOWFLAKE_ID_TEST_REDIS_PAUSE=$hook" || sf_die "r did not start"
[ -n "$(sf_redis mixed BLPOP "$hook:paused" 60)" ] ||
    sf_die "r's acquire did not reach the point between its reads and its EXEC"
sf_log "ok: r's acquire has read the registry and waits before its EXEC"
next=$(sf_redis mixed GET $P:next_id)
reply=$(old_acquire 104 '' | paste -sd' ')
sf_expect_match "meanwhile an old server takes the lowest never-leased id, $next" "^ok $next 1 " \
    "$reply"
sf_redis mixed RPUSH "$hook:resume" 1 >/dev/null
sf_psql r -c "CREATE EXTENSION snowflake_id"
sf_poll r "SELECT lease_state FROM snowflake_status()" held
# Deciding again after a race, r spreads its choice over the ids never
# leased: another one than the old server's, at fence 1.
r_node=$(node_of r)
sf_expect_eq "r took another id never leased, not the old server's" "t 1" \
    "$([ "$r_node" != "$next" ] && echo t || echo f) $(field "$r_node" fence)"
sf_expect_eq "the old server's lease is untouched" "104 1" \
    "$(field "$next" holder_instance) $(field "$next" fence)"
# At least once: a's renewal, on a key r watches too, can overtake it again.
sf_expect_eq "r's first EXEC found its reads overtaken, and r decided again" t \
    "$([ "$(sf_redis mixed LLEN "$hook:retried")" -ge 1 ] && echo t || echo f)"

# --- no id has two live holders -------------------------------------------------
# The registry keeps one record per id: a second live holder would be a
# server that holds an id whose record names another.
for n in a r; do
    sf_expect_eq "$n's lease record names $n, live" "$(sf_psql "$n" -c "SHOW data_directory") 0" \
        "$(field "$(node_of "$n")" holder_data_directory) $(field "$(node_of "$n")" released_at_ms)"
done
for n in a r; do sf_stop "$n"; done
echo "registry_redis_mixed: all checks passed"
