#!/usr/bin/env bash
# Concurrency against a real server: CLIENTS sessions generate PER_CLIENT IDs
# each at the same time (at least 1,000,000 together). All IDs are unique and
# each session's IDs are strictly increasing in the order it received them.
#
# The sessions start together behind a gate (sf_gate_* in tests/lib/cluster.sh).
set -euo pipefail
source "$(dirname "$0")/../lib/cluster.sh"
CLIENTS=${CLIENTS:-4}
PER_CLIENT=${PER_CLIENT:-300000}
sf_init_workspace
sf_stage
sf_new c "snowflake_id.worker_id = 7"
sf_start c || sf_die "server did not start"
sf_psql c -c "CREATE EXTENSION snowflake_id"

sf_gate_close c
pids=()
for i in $(seq 1 "$CLIENTS"); do
    sf_psql c -c "$SF_GATE_SQL" \
        -c "COPY (SELECT snowflake_nextval() FROM generate_series(1, $PER_CLIENT)) TO STDOUT" \
        >"$SF_WORK/ids.$i" &
    pids+=($!)
done
sf_gate_wait c "$CLIENTS"
sf_gate_open c
for pid in "${pids[@]}"; do
    wait "$pid" || sf_die "a client failed"
done

total=0
for i in $(seq 1 "$CLIENTS"); do
    # The first line is the advisory lock's empty result.
    sed -i '/^$/d' "$SF_WORK/ids.$i"
    n=$(wc -l <"$SF_WORK/ids.$i")
    sf_expect_eq "client $i received $PER_CLIENT IDs" "$PER_CLIENT" "$n"
    sort -n -c -u "$SF_WORK/ids.$i" 2>/dev/null || sf_die "client $i: IDs not strictly increasing"
    sf_log "ok: client $i: strictly increasing"
    total=$((total + n))
done
[ "$total" -ge 1000000 ] || sf_die "only $total IDs generated"
dups=$(sort -n -m "$SF_WORK"/ids.* | uniq -d | wc -l)
sf_expect_eq "no duplicate among $total IDs" 0 "$dups"

# How much the clients overlapped in time: informational, since the OS decides.
interleaved=$(for i in $(seq 1 "$CLIENTS"); do sed "s/\$/ $i/" "$SF_WORK/ids.$i"; done |
    sort -n -k1,1 | awk '{ if ($2 != prev) switches++; prev = $2 } END { print switches - 1 }')
sf_log "info: the merged ID order switches client $interleaved times"
echo "concurrency: all checks passed"
