#!/usr/bin/env bash
# Three servers on this machine, each with its own node id (Twitter's split:
# 5 datacenter bits, 5 worker bits), generate at the same time. The union has
# no duplicate, and every ID decodes to the server that made it.
set -euo pipefail
source "$(dirname "$0")/../lib/cluster.sh"
PER_NODE=${PER_NODE:-200000}
sf_init_workspace
sf_stage

layout=("snowflake_id.datacenter_bits = 5" "snowflake_id.worker_bits = 5")
sf_new n1 "${layout[@]}" "snowflake_id.datacenter_id = 1" "snowflake_id.worker_id = 1"
sf_new n2 "${layout[@]}" "snowflake_id.datacenter_id = 1" "snowflake_id.worker_id = 2"
sf_new n3 "${layout[@]}" "snowflake_id.datacenter_id = 2" "snowflake_id.worker_id = 1"
for n in n1 n2 n3; do
    sf_start "$n" || sf_die "server $n did not start"
    sf_psql "$n" -c "CREATE EXTENSION snowflake_id"
done

for n in n1 n2 n3; do
    sf_gate_close "$n"
done
pids=()
for n in n1 n2 n3; do
    sf_psql "$n" -c "$SF_GATE_SQL" -c "COPY (SELECT snowflake_nextval() FROM generate_series(1, $PER_NODE)) TO STDOUT" \
        >"$SF_WORK/ids.$n" &
    pids+=($!)
done
for n in n1 n2 n3; do
    sf_gate_wait "$n" 1
done
for n in n1 n2 n3; do
    sf_gate_open "$n"
done
for pid in "${pids[@]}"; do
    wait "$pid" || sf_die "a generator failed"
done

# Load everything into n1 and check there, with n1's (identical) layout.
sf_psql n1 -c "CREATE TABLE made (node text, id bigint)"
for n in n1 n2 n3; do
    sed '/^$/d' "$SF_WORK/ids.$n" | sed "s/^/$n\t/" | sf_psql n1 -c "COPY made FROM STDIN"
done
sf_expect_eq "each server made $PER_NODE IDs" "3" \
    "$(sf_psql n1 -c "SELECT count(*) FROM (SELECT node FROM made GROUP BY node HAVING count(*) = $PER_NODE) s")"
sf_expect_eq "no duplicate in the union" "$((3 * PER_NODE))" \
    "$(sf_psql n1 -c "SELECT count(DISTINCT id) FROM made")"
sf_expect_eq "every ID decodes to its server's node" "0" "$(sf_psql n1 -c "
    SELECT count(*) FROM made, snowflake_decode(id) d
    WHERE (node, d.datacenter_id, d.worker_id) NOT IN (('n1', 1, 1), ('n2', 1, 2), ('n3', 2, 1))")"
# Whether the servers' generation overlapped in time: informational.
sf_log "info: the three servers' time ranges overlap: $(sf_psql n1 -c "
    SELECT max(lo) <= min(hi) FROM (SELECT node, min(snowflake_timestamp(id)) lo,
                                           max(snowflake_timestamp(id)) hi FROM made GROUP BY node) s")"
echo "multinode: all checks passed"
