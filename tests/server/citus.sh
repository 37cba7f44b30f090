#!/usr/bin/env bash
# snowflake_id in a real Citus cluster (`make test-citus`): Citus 13.2.2,
# built from the vendored source by tools/build-citus (cached per machine),
# staged beside the extension; a coordinator and two workers that talk over
# unix sockets (citus_add_node with the socket directory as host name).
# docs/many-servers.md#citus cites this file for each of its claims:
#  - static ids, then 'auto' ids with the registry on the coordinator: every
#    insert path carries the id of the node that evaluates the DEFAULT,
#    asserted path by path (INSERT single and multi-row, COPY, the three
#    INSERT ... SELECT methods, writes on a worker, a delegated function and
#    one that is not), into a table distributed by id, one by a tenant with
#    id in its primary key, and a reference table; no ID repeats;
#  - ALTER EXTENSION snowflake_id UPDATE on the coordinator updates 1.4 to the
#    current version on every node, with the extension's tables and views in
#    its own schema there too;
#  - moving the cluster from static ids to the registry: without the
#    procedure of docs/many-servers.md the registry hands out an id that
#    minted statically; with it, it hands out none of them, and a retired
#    static id is recorded, by the SQL block of the docs as written, with a
#    bound above its last ID plus its max_clock_drift plus 1 s; the block
#    raises a lower bound recorded already and leaves a live lease alone;
#  - a worker restart gets its id back; a coordinator (registry) outage
#    longer than lease_ttl stops the workers at their deadline, and they
#    recover by themselves;
#  - the preload order does not matter: the paths run again with every node
#    on 'snowflake_id,citus' after 'citus,snowflake_id';
#  - a worker with another epoch is refused, naming both layouts whole;
#  - a time-range query on the hash-distributed id, through the coordinator,
#    fans out to every shard, every task uses its shard's primary-key index
#    (citus.explain_all_tasks), and counts what a sequential scan counts;
#  - rows the coordinator fills in land on the shards of a worker refused a
#    node id, while an INSERT ... SELECT that fills in rows there fails.
set -euo pipefail
source "$(dirname "$0")/../lib/cluster.sh"
sf_init_workspace
citus_stage=$("$SF_ROOT/tools/build-citus") || sf_die "Citus did not build"
sf_stage
for d in "$($SF_PG_CONFIG --pkglibdir)" "$($SF_PG_CONFIG --sharedir)/extension"; do
    cp -a "$citus_stage$d/." "$SF_STAGE$d/"
done
chmod -R a+rX "$SF_STAGE"

shards=4
citus_node() { # NAME PRELOAD [CONF_LINE...]
    local name=$1 preload=$2
    shift 2
    # citus.local_hostname: how a node connects to itself (localhost by
    # default; these servers listen on their socket only).
    sf_new "$name" preload=no "shared_preload_libraries = '$preload'" \
        "citus.shard_count = $shards" "citus.local_hostname = '$(sf_sockdir "$name")'" "$@"
}
node_of() { sf_psql "$1" -c "SELECT worker_id FROM snowflake_status()"; }
set_preload() { sf_conf "$1" "shared_preload_libraries = '$2'"; }

# --- a cluster with static ids, the extension at 1.4 -------------------------
citus_node coord 'citus,snowflake_id' "snowflake_id.worker_id = 0"
citus_node w1 'citus,snowflake_id' "snowflake_id.worker_id = 1"
citus_node w2 'citus,snowflake_id' "snowflake_id.worker_id = 2"
for n in coord w1 w2; do sf_start "$n" || sf_die "$n did not start"; done
for n in coord w1 w2; do sf_psql "$n" -c "CREATE EXTENSION citus"; done
sf_psql coord -c "SELECT citus_set_coordinator_host('$(sf_sockdir coord)', $SF_PORT)" >/dev/null
for n in w1 w2; do
    sf_psql coord -c "SELECT citus_add_node('$(sf_sockdir "$n")', $SF_PORT)" >/dev/null
done
sf_psql coord -c "CREATE EXTENSION snowflake_id VERSION '1.4'"
for n in coord w1 w2; do
    sf_expect_eq "CREATE EXTENSION on the coordinator installs 1.4 on $n" 1.4 \
        "$(sf_psql "$n" -c "SELECT extversion FROM pg_extension WHERE extname = 'snowflake_id'")"
done

sf_psql coord >/dev/null <<'SQL'
CREATE TABLE events (id bigint PRIMARY KEY DEFAULT snowflake_nextval(), path text);
SELECT create_distributed_table('events', 'id');
CREATE TABLE orders (tenant_id int, id bigint DEFAULT snowflake_nextval(), path text,
                     PRIMARY KEY (tenant_id, id));
SELECT create_distributed_table('orders', 'tenant_id');
CREATE TABLE staging (tenant_id int, path text);
SELECT create_distributed_table('staging', 'tenant_id', colocate_with := 'orders');
INSERT INTO staging SELECT g % 20 + 1, 'staging' FROM generate_series(1, 1000) g;
CREATE TABLE ref (id bigint PRIMARY KEY DEFAULT snowflake_nextval(), path text);
SELECT create_reference_table('ref');
CREATE FUNCTION add_order(tenant int, p text) RETURNS bigint
LANGUAGE plpgsql SET search_path = public, pg_catalog AS $$
DECLARE
    r bigint;
BEGIN
    INSERT INTO orders (tenant_id, path) VALUES (tenant, p) RETURNING id INTO r;
    RETURN r;
END
$$;
SELECT create_distributed_function('add_order(int,text)', 'tenant', colocate_with := 'orders');
SQL

# How Citus plans the INSERT ... SELECTs of run_paths: a volatile DEFAULT
# keeps even a colocated one from being pushed down.
explain_method() { sf_psql coord -c "EXPLAIN $1" | sed -n 's/.*INSERT\/SELECT method: //p'; }
sf_expect_eq "INSERT ... SELECT between colocated tables is repartitioned, not pushed down" \
    repartition "$(explain_method "INSERT INTO orders (tenant_id, path) SELECT tenant_id, 'x' FROM staging")"
sf_expect_match "... because of the volatile DEFAULT" \
    'volatile functions are not allowed in distributed INSERT ... SELECT queries' \
    "$(sf_psql coord -c "SET client_min_messages = debug1" \
        -c "EXPLAIN INSERT INTO orders (tenant_id, path) SELECT tenant_id, 'x' FROM staging" 2>&1)"
sf_expect_eq "INSERT ... SELECT into the table distributed by id is repartitioned" \
    repartition "$(explain_method "INSERT INTO events (path) SELECT 'x' FROM staging")"
sf_expect_eq "INSERT ... SELECT with LIMIT is pulled to the coordinator" "pull to coordinator" \
    "$(explain_method "INSERT INTO orders (tenant_id, path) SELECT tenant_id, 'x' FROM staging ORDER BY tenant_id LIMIT 10")"

# run_paths P: every insert path, each row marked 'P <path>'.
run_paths() {
    local p=$1 n t
    sf_psql coord >/dev/null <<SQL
INSERT INTO events (path) VALUES ('$p single');
INSERT INTO orders (tenant_id, path) VALUES (1, '$p single');
INSERT INTO events (path) VALUES $(for _ in $(seq 1 50); do printf "('%s multi')," "$p"; done | sed 's/,$//');
INSERT INTO orders (tenant_id, path) VALUES $(for t in $(seq 1 20); do printf "(%d, '%s multi')," "$t" "$p"; done | sed 's/,$//');
INSERT INTO ref (path) VALUES ('$p coord'), ('$p coord');
INSERT INTO orders (tenant_id, path) SELECT tenant_id, '$p colocated' FROM staging;
INSERT INTO events (path) SELECT '$p repartition' FROM staging;
INSERT INTO orders (tenant_id, path) SELECT tenant_id, '$p pull' FROM staging ORDER BY tenant_id LIMIT 999;
SQL
    for _ in $(seq 1 2000); do echo "$p copy"; done | sf_psql coord -c "COPY events (path) FROM STDIN"
    for t in $(seq 1 2000); do printf '%d\t%s copy\n' $((t % 20 + 1)) "$p"; done |
        sf_psql coord -c "COPY orders (tenant_id, path) FROM STDIN"
    for n in w1 w2; do
        sf_psql "$n" >/dev/null <<SQL
INSERT INTO events (path) VALUES ('$p $n'), ('$p $n'), ('$p $n');
INSERT INTO orders (tenant_id, path) SELECT g, '$p $n' FROM generate_series(1, 20) g;
INSERT INTO ref (path) VALUES ('$p $n');
SQL
        for _ in $(seq 1 500); do echo "$p $n"; done | sf_psql "$n" -c "COPY events (path) FROM STDIN"
    done
    # Delegated: a top-level SELECT f(...) runs on the worker that holds the
    # tenant's shard. Not delegated: the same call inside a CTE.
    for t in $(seq 1 20); do echo "SELECT add_order($t, '$p fn');"; done | sf_psql coord >/dev/null
    for t in 1 2 3 4; do
        echo "WITH x AS (SELECT add_order($t, '$p fn in cte')) SELECT * FROM x;"
    done | sf_psql coord >/dev/null
}

# nodes_of P PATH: the node ids the rows of a path carry, comma-separated.
nodes_of() {
    sf_psql coord -c "SELECT string_agg(DISTINCT (snowflake_decode(id)).worker_id::text, ',')
                      FROM (SELECT id, path FROM events UNION ALL SELECT id, path FROM orders
                            UNION ALL SELECT id, path FROM ref) s
                      WHERE path = '$1 $2'"
}
# by_tenant P PATH: tenant:node ids of the rows of a path, for every tenant.
by_tenant() {
    sf_psql coord -c "SELECT string_agg(tenant_id || ':' || n, ' ' ORDER BY tenant_id)
                      FROM (SELECT tenant_id,
                                   string_agg(DISTINCT (snowflake_decode(id)).worker_id::text, ',') n
                            FROM orders WHERE path = '$1 $2' GROUP BY tenant_id) s"
}

# check_paths P: which node's id each path carries, against the node ids
# the nodes report now.
check_paths() {
    local p=$1 c w1 w2 want_tenant t node
    c=$(node_of coord)
    w1=$(node_of w1)
    w2=$(node_of w2)
    # tenant:node id of the worker that holds the tenant's shard.
    want_tenant=$(for t in $(seq 1 20); do
        node=$(sf_psql coord -c "SELECT nodename FROM pg_dist_shard_placement
                WHERE shardid = get_shard_id_for_distribution_column('orders', $t)")
        case $node in
        "$(sf_sockdir w1)") echo "$t:$w1" ;;
        "$(sf_sockdir w2)") echo "$t:$w2" ;;
        *) sf_die "tenant $t is on an unexpected node $node" ;;
        esac
    done | paste -sd' ')
    for path in single multi copy coord; do
        sf_expect_eq "$p: INSERT $path through the coordinator carries the coordinator's id" \
            "$c" "$(nodes_of "$p" "$path")"
    done
    sf_expect_eq "$p: a write on w1 carries w1's id" "$w1" "$(nodes_of "$p" w1)"
    sf_expect_eq "$p: a write on w2 carries w2's id" "$w2" "$(nodes_of "$p" w2)"
    sf_expect_eq "$p: the coordinator's, w1's and w2's rows carry three different node ids" 3 \
        "$(for path in single w1 w2; do nodes_of "$p" "$path"; done | sort -u | wc -l)"
    for path in colocated pull fn; do
        sf_expect_eq "$p: $path: each row carries the id of the worker that holds its tenant" \
            "$want_tenant" "$(by_tenant "$p" "$path")"
    done
    sf_expect_eq "$p: repartition: the rows carry the ids of the workers that run the SELECT" \
        "$(printf '%s\n' "$w1" "$w2" | sort | paste -sd,)" \
        "$(nodes_of "$p" repartition | tr , '\n' | sort | paste -sd,)"
    sf_expect_eq "$p: a distributed function called in a CTE runs on the coordinator" \
        "$c" "$(nodes_of "$p" "fn in cte")"
    local sums
    sums=$(for n in coord w1 w2; do
        sf_psql "$n" -c "SELECT md5(string_agg(id::text, ',' ORDER BY id)) FROM ref"
    done | sort -u | wc -l)
    sf_expect_eq "$p: every node's copy of the reference table holds the same IDs" 1 "$sums"
    sf_expect_eq "$p: no ID repeats across the tables" 0 "$(sf_psql coord -c "
        SELECT count(*) - count(DISTINCT id)
        FROM (SELECT id FROM events UNION ALL SELECT id FROM orders UNION ALL SELECT id FROM ref) s")"
}

run_paths static
check_paths static
sf_expect_eq "static: the coordinator and the workers carry ids 0, 1 and 2" "0 1 2" \
    "$(node_of coord) $(node_of w1) $(node_of w2)"

# --- ALTER EXTENSION UPDATE across the cluster -------------------------------
current_version=$(sf_extension_version)
sf_psql coord -c "ALTER EXTENSION snowflake_id UPDATE" 2>/dev/null
for n in coord w1 w2; do
    sf_expect_eq "ALTER EXTENSION UPDATE on the coordinator updates $n to $current_version" \
        "$current_version" \
        "$(sf_psql "$n" -c "SELECT extversion FROM pg_extension WHERE extname = 'snowflake_id'")"
    sf_expect_eq "... and $n keeps no table or view of the extension in public" 0 \
        "$(sf_public_extension_relations "$n")"
done

# --- a retired static id: a server that minted on id 3 and is gone ----------
old_drift_ms=2000
sf_new old "snowflake_id.worker_id = 3" "snowflake_id.max_clock_drift = '${old_drift_ms}ms'"
sf_start old || sf_die "old did not start"
sf_psql old -c "CREATE EXTENSION snowflake_id"
sf_stream_ids old "$SF_WORK/old.ids" 1000
# Its last ID's time, as the docs say to read it.
old_last_ms=$(sf_psql old -c "SELECT (extract(epoch FROM last_issued_at) * 1000)::bigint
                              FROM snowflake_status()")
sf_stop old

# --- static ids to a registry, without the procedure -------------------------
# A registry in a database of its own on the coordinator, and a new server
# with 'auto': the registry knows nothing of the static ids and hands out
# the lowest, 0, which the coordinator has minted on.
sf_psql coord -c "CREATE DATABASE naive"
sf_psql coord -d naive -c "CREATE EXTENSION snowflake_id"
# A lease_ttl a stall of a loaded machine does not outlast (renewals every
# 5 s); the outage below shortens it for its own phase.
ttl_conf="snowflake_id.lease_ttl = '15s'"
sf_new late "snowflake_id.worker_id = 'auto'" "$ttl_conf" \
    "snowflake_id.registry = 'host=$(sf_sockdir coord) port=$SF_PORT user=postgres dbname=naive'"
sf_start late || sf_die "late did not start"
sf_psql late -c "CREATE EXTENSION snowflake_id"
sf_poll late "SELECT lease_state FROM snowflake_status()" held
sf_expect_eq "without the procedure, the registry hands out id 0, which minted statically" \
    "0 0" "$(node_of late) $(sf_psql coord -c "SELECT (snowflake_decode(snowflake_nextval())).worker_id")"
sf_stop late

# --- static ids to a registry, with the procedure ----------------------------
# docs/many-servers.md, "From static ids to a registry".
registry_conf="snowflake_id.registry = '$(sf_connstr coord)'"
# 1. Every retired static id that minted, as a released lease whose bound lies
#    above every ID it can have issued: the block of the docs, as written.
retire_sql=$(sed -n '/^ *-- retire-static-id/,/^ *```$/p' "$SF_ROOT/docs/many-servers.md" |
    sed -e '$d' -e 's/^   //')
grep -qx '\\set retired 3' <<<"$retire_sql" || sf_die "no retire-static-id block in docs/many-servers.md"
# retire ID: runs the block for node id ID; prints the rows it wrote.
retire() {
    local sql
    # shellcheck disable=SC2001 # one line of many: ${//} cannot anchor at a line
    sql=$(sed 's/^\\set retired 3$/\\set retired '"$1"'/' <<<"$retire_sql")
    grep -qxF "\\set retired $1" <<<"$sql" || sf_die "the block does not set retired to $1"
    sf_psql coord <<<"$sql
\echo :ROW_COUNT"
}
sf_expect_eq "the docs' block records retired id 3" 1 "$(retire 3)"
sf_expect_eq "the retired server's last_issued_at is the time of its last ID" "$old_last_ms" \
    "$(sf_psql coord -c "CREATE TEMP TABLE old_ids (id bigint);
        COPY old_ids FROM '$SF_WORK/old.ids';
        SELECT max((extract(epoch FROM snowflake_timestamp(id)) * 1000)::bigint) FROM old_ids")"
sf_expect_eq "the retired id's bound lies above its last ID plus its max_clock_drift plus 1 s" t \
    "$(sf_psql coord -c "SELECT reserved_until_ms > $old_last_ms + $old_drift_ms + 1000
                         FROM snowflake_id.snowflake_registry_lease WHERE node_id = 3 AND released_at IS NOT NULL")"
# An id with a row already, its bound below the retired server's IDs (leased
# once, long ago, or retired with too small a margin): raised, and marked
# released if it had only expired.
for how in "released_at = clock_timestamp() - interval '1 day'" \
    "released_at = NULL, expires_at = clock_timestamp() - interval '1 day'"; do
    sf_psql coord -c "UPDATE snowflake_id.snowflake_registry_lease SET reserved_until_ms = 1, $how
                      WHERE node_id = 3"
    sf_expect_eq "the block raises a lower bound recorded already ($how)" "1 t t" \
        "$(retire 3) $(sf_psql coord -c "SELECT reserved_until_ms > $old_last_ms + $old_drift_ms + 1000
                                         AND released_at IS NOT NULL, fence = 1
                                         FROM snowflake_id.snowflake_registry_lease WHERE node_id = 3" | tr '|' ' ')"
done
# 2. Every running server, restarted with the registry and its static id: the
#    registry records a live lease of each.
for n in coord w1 w2; do
    sf_conf "$n" "$registry_conf" "$ttl_conf"
    sf_stop "$n"
    sf_start "$n" || sf_die "$n did not restart with the registry"
done
for n in coord w1 w2; do sf_poll "$n" "SELECT lease_state FROM snowflake_status()" held; done
sf_expect_eq "the registry holds the three static ids live and the retired one released" \
    "0:live 1:live 2:live 3:released" \
    "$(sf_psql coord -c "SELECT string_agg(node_id || ':' || state, ' ' ORDER BY node_id)
                         FROM snowflake_id.snowflake_registry_leases")"
# The block on an id a running server holds: it writes nothing.
live_before=$(sf_psql coord -c "SELECT fence || ' ' || holder_instance || ' ' || holder_max_clock_drift_ms
                                FROM snowflake_id.snowflake_registry_lease WHERE node_id = 1")
sf_expect_eq "the block leaves a live lease alone" "0" "$(retire 1)"
sf_expect_eq "... its holder, fence and bound as they were" "$live_before t" \
    "$(sf_psql coord -c "SELECT fence || ' ' || holder_instance || ' ' || holder_max_clock_drift_ms,
                                released_at IS NULL
                                  AND reserved_until_ms < (extract(epoch FROM clock_timestamp()) * 1000)::bigint + 60000
                         FROM snowflake_id.snowflake_registry_lease WHERE node_id = 1" | tr '|' ' ')"
# 3. Then 'auto', by a restart: each keeps its id (its state file's). A new
#    server gets an id that never minted.
for n in coord w1 w2; do
    sf_conf "$n" "snowflake_id.worker_id = 'auto'"
    sf_stop "$n"
    sf_start "$n" || sf_die "$n did not restart with 'auto'"
done
for n in coord w1 w2; do sf_poll "$n" "SELECT lease_state FROM snowflake_status()" held; done
sf_expect_eq "with 'auto', the coordinator and the workers keep ids 0, 1 and 2" "0 1 2" \
    "$(node_of coord) $(node_of w1) $(node_of w2)"
sf_conf late "$registry_conf"
sf_start late || sf_die "late did not restart"
sf_poll late "SELECT lease_state FROM snowflake_status()" held
sf_expect_eq "with the procedure, a new server gets id 4, none that minted" 4 "$(node_of late)"
sf_stop late

# --- 'auto' ids with the registry on the coordinator -------------------------
t_mid=$(sf_psql coord -c "SELECT date_trunc('milliseconds', clock_timestamp())")
run_paths auto
check_paths auto

# --- a worker restart, in the other preload order ----------------------------
w1_max=$(sf_psql coord -c "SELECT max(id) FROM events WHERE (snowflake_decode(id)).worker_id = 1")
set_preload w1 'snowflake_id,citus'
sf_stop w1
sf_start w1 || sf_die "w1 did not restart"
sf_poll w1 "SELECT lease_state FROM snowflake_status()" held
sf_expect_eq "a restarted worker gets its id back" 1 "$(node_of w1)"
sf_expect_eq "... and its IDs continue above its earlier ones" t \
    "$(sf_psql w1 -c "INSERT INTO events (path) VALUES ('restart') RETURNING id > $w1_max")"

# --- the coordinator, which is the registry, down for longer than lease_ttl ---
# lease_ttl is reloadable and takes effect at the next renewal (within 5 s):
# the registry's row shows it, expiring 3 s after the renewal (and the 1 ms
# every lease's end adds for the registry's clock read to the ms,
# src/core/lease_rules.cpp).
for n in w1 w2; do
    sf_conf "$n" "snowflake_id.lease_ttl = '3s'"
    sf_psql "$n" -c "SELECT pg_reload_conf()" >/dev/null
done
for id in 1 2; do
    sf_poll coord "SELECT expires_at - renewed_at - interval '1 ms' FROM snowflake_id.snowflake_registry_lease
        WHERE node_id = $id" 00:00:03
done
sf_stop coord
for n in w1 w2; do
    # Bounded poll: the deadline is lease_ttl (3 s) after the last renewal.
    for _ in $(seq 1 1000); do
        out=$(sf_psql "$n" -c "SELECT snowflake_nextval()" 2>&1) || break
        sf_psql "$n" -c "SELECT pg_sleep(0.02)" >/dev/null # the pace of the poll
    done
    sf_expect_match "with the registry down, $n refuses at its deadline" \
        'ERROR: +the node id lease of this server expired: the registry last confirmed it [0-9]+ ms ago' \
        "$out"
done
set_preload coord 'snowflake_id,citus'
sf_start coord || sf_die "the coordinator did not restart"
for n in coord w1 w2; do sf_poll "$n" "SELECT lease_state FROM snowflake_status()" held; done
sf_log "ok: with the coordinator back, the workers lease again by themselves"
sf_expect_eq "... on the same ids" "0 1 2" "$(node_of coord) $(node_of w1) $(node_of w2)"
for n in w1 w2; do
    sf_conf "$n" "$ttl_conf"
    sf_psql "$n" -c "SELECT pg_reload_conf()" >/dev/null
done

# --- every path again, every node on 'snowflake_id,citus' --------------------
set_preload w2 'snowflake_id,citus'
sf_stop w2
sf_start w2 || sf_die "w2 did not restart"
sf_poll w2 "SELECT lease_state FROM snowflake_status()" held
for n in coord w1 w2; do
    sf_expect_eq "$n runs with snowflake_id preloaded before citus" "snowflake_id,citus" \
        "$(sf_psql "$n" -c "SHOW shared_preload_libraries")"
done
run_paths swapped
check_paths swapped

# --- a worker with another epoch ----------------------------------------------
citus_node w3 'citus,snowflake_id' "snowflake_id.worker_id = 'auto'" "$registry_conf" "$ttl_conf" \
    "snowflake_id.epoch = '2021-01-01'"
sf_start w3 || sf_die "w3 did not start"
sf_psql w3 -c "CREATE EXTENSION citus"
sf_psql coord -c "SELECT citus_add_node('$(sf_sockdir w3)', $SF_PORT)" >/dev/null
sf_expect_eq "citus_add_node installs snowflake_id on the new worker" "$current_version" \
    "$(sf_psql w3 -c "SELECT extversion FROM pg_extension WHERE extname = 'snowflake_id'")"
sf_poll w3 "SELECT lease_state FROM snowflake_status()" refused
layouts='The registry.s cluster uses 0 datacenter, 10 worker and 12 sequence bits from epoch 2020-01-01 00:00:00\.000Z \(recorded by .*\); this server runs 0 datacenter, 10 worker and 12 sequence bits from epoch 2021-01-01 00:00:00\.000Z\. IDs of different layouts cannot be compared or decoded together\.'
sf_expect_match "a worker with another epoch is refused, naming both layouts whole" \
    "^the layout of this server differs from the cluster.s: $layouts\$" \
    "$(sf_psql w3 -c "SELECT lease_message FROM snowflake_status()")"
out=$(sf_psql w3 -c "INSERT INTO events (path) VALUES ('w3')" 2>&1 || true)
sf_expect_match "... and an INSERT on it fails, naming both layouts" \
    "DETAIL: +Registry .*: the layout of this server differs from the cluster.s: $layouts\\.\$" "$out"

# A worker without a node id fails statements sent to the coordinator that
# fill in rows on it: a table whose shards are on every worker, w3 included.
sf_psql coord >/dev/null <<'SQL'
CREATE TABLE probe (k int, id bigint DEFAULT snowflake_nextval(), PRIMARY KEY (k, id));
SELECT create_distributed_table('probe', 'k', colocate_with := 'none');
SQL
sf_expect_eq "a table made now has a shard on w3" t "$(sf_psql coord -c "
    SELECT count(*) > 0 FROM pg_dist_shard_placement p JOIN pg_dist_shard s USING (shardid)
    WHERE s.logicalrelid = 'probe'::regclass AND p.nodename = '$(sf_sockdir w3)'")"
sf_psql coord -c "INSERT INTO probe (k) SELECT g FROM generate_series(1, 40) g"
sf_expect_eq "rows the coordinator fills in still land on w3's shards, with the coordinator's id" \
    "t $(node_of coord)" "$(sf_psql coord -c "
    SELECT count(*) > 0, string_agg(DISTINCT (snowflake_decode(id)).worker_id::text, ',')
    FROM probe
    WHERE get_shard_id_for_distribution_column('probe', k) IN (
        SELECT shardid FROM pg_dist_shard_placement WHERE nodename = '$(sf_sockdir w3)')" | tr '|' ' ')"
out=$(sf_psql coord -c "INSERT INTO probe (k) SELECT k FROM probe" 2>&1 || true)
sf_expect_match "an INSERT ... SELECT through the coordinator fails on w3's missing node id" \
    "ERROR: +the registry refused this server a node id lease" "$out"
sf_expect_match "... saying why" "DETAIL: .*the layout of this server differs from the cluster.s" "$out"
sf_expect_eq "the workers' copies of the registry tables stay empty" 0 \
    "$(sf_psql w1 -c "SELECT count(*) FROM snowflake_id.snowflake_registry_lease")"

# --- a time-range query on the hash-distributed id ---------------------------
# Citus shows one task's plan unless told to show all.
plan=$(sf_psql coord -c "SET citus.explain_all_tasks = on" -c "EXPLAIN SELECT count(*) FROM events
                         WHERE id >= snowflake_from_timestamp('$t_mid')")
sf_expect_match "a time range on id fans out to every shard" "Task Count: $shards" "$plan"
sf_expect_eq "... and every task scans its shard by the primary key's index" \
    "$(sf_psql coord -c "SELECT 'events_pkey_' || shardid FROM pg_dist_shard
                         WHERE logicalrelid = 'events'::regclass ORDER BY 1")" \
    "$(grep -Eo '(Index (Only )?Scan using|Bitmap Index Scan on) [a-z_0-9]+' <<<"$plan" |
        awk '{print $NF}' | sort)"
sf_expect_eq "... and no task scans its shard sequentially" 0 "$(grep -c 'Seq Scan' <<<"$plan" || true)"
by_index=$(sf_psql coord -c "SELECT count(*) FROM events WHERE id >= snowflake_from_timestamp('$t_mid')")
sf_expect_match "... while a range on snowflake_timestamp(id) scans sequentially" 'Seq Scan' \
    "$(sf_psql coord -c "EXPLAIN SELECT count(*) FROM events WHERE snowflake_timestamp(id) >= '$t_mid'")"
by_scan=$(sf_psql coord -c "SELECT count(*) FROM events WHERE snowflake_timestamp(id) >= '$t_mid'")
total=$(sf_psql coord -c "SELECT count(*) FROM events")
sf_expect_eq "the time-range query counts what the sequential scan counts" "$by_scan" "$by_index"
sf_expect_eq "... a part of the table, not none or all" t \
    "$([ "$by_index" -gt 0 ] && [ "$by_index" -lt "$total" ] && echo t || echo f)"

echo "citus: all checks passed"
