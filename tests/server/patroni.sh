#!/usr/bin/env bash
# snowflake_id under Patroni (make test-patroni; docs/many-servers.md, Patroni):
# etcd and three Patroni members, started by the test on loopback ports it
# picks and stopped by it, for each configuration in CONFIGS:
#  - static: one worker id for the whole cluster (bootstrap.dcs);
#  - per_member: a worker id of each member's own (its own file);
#  - auto: 'auto' ids from a registry that is itself a Patroni cluster of
#    two, reached through a multi-host connection string with
#    target_session_attrs=read-write, and failed over under load once.
# Clients mint through a multi-host connection string with
# target_session_attrs=read-write while seeded random events happen: the
# leader's postmaster killed, a node lost (Patroni and PostgreSQL killed
# while replication is stalled, so the standbys miss its last WAL) and
# rejoined through pg_rewind, a switchover, a restart, synchronous_mode
# switched, etcd briefly down. After the events: no ID twice, per node id
# every ID above those received before it was requested, the leader mints,
# and snowflake_status is true on every member.
#
# SEED (default 1), SEEDS (runs SEED, SEED+1, ...), EVENTS (per
# configuration, default 4), CONFIGS (default "static per_member auto").
# The driver prints each configuration's events; SEED and CONFIGS replay them.
source "$(dirname "$0")/../lib/suite.sh"

# Patroni runs these beside pg_ctl; pg_rewind starts the stage's postgres
# (single-user crash recovery), which loads the stage's snowflake_id.
for f in pg_rewind pg_controldata pg_isready; do
    cp "$SF_CLIENT_BIN/$f" "$SF_STAGE_BIN/" 2>/dev/null || cp "$SF_PGBIN/$f" "$SF_STAGE_BIN/"
done

# The safety net if the driver dies: every Patroni and etcd it started (their
# pids in patroni.pids), what it froze, then every server under this run's
# workspace (sf_cleanup stops those in SF_STARTED).
# shellcheck disable=SC2317 # called from the EXIT trap
sweep() {
    local pid kind d
    SF_FROZEN_PIDS=$(cat "$SF_WORK/frozen.pids" 2>/dev/null || true)
    if [ -f "$SF_WORK/patroni.pids" ]; then
        while read -r pid kind; do
            [ "$kind" = patroni ] || [ "$kind" = etcd ] || continue
            # Not a pid reused since by another program.
            tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -q "$kind" || continue
            kill -9 "$pid" 2>/dev/null || true
        done <"$SF_WORK/patroni.pids"
    fi
    for d in "$SF_WORK"/seed-*/*/; do
        d=${d%/}
        [ ! -f "$d/data/postmaster.pid" ] || SF_STARTED+=("${d#"$SF_WORK"/}")
    done
}
# sf_cleanup reads the exit status from $?.
trap 'rc=$?; set +e; sweep; (exit "$rc"); sf_cleanup' EXIT

export SF_WORK SF_STAGE_BIN
rc=0
/usr/bin/python3 "$(dirname "$0")/patroni/driver.py" || rc=$?
exit "$rc"
