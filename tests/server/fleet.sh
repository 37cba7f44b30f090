#!/usr/bin/env bash
# The fleet simulator (bench/fleet/run --quick) against a PostgreSQL
# registry, the same behind PgBouncer (transaction pooling, as
# docs/many-servers.md recommends for a fleet) and a Redis registry: a
# simultaneous start of 96 servers, steady renewals, a
# restart wave, an outage of the registry, a decommission wave. Only what
# must hold whatever the machine's speed (the timing targets belong to
# make bench-fleet):
#  - no node id held by two servers at once (the simulator's tracker; it
#    also fails the run);
#  - every server of every wave got a node id, and every server holds one
#    at the end of each phase;
#  - no lease lost in the steady phases and the restart wave;
#  - the report is whole: every phase, with its calls.
set -euo pipefail
source "$(dirname "$0")/../lib/cluster.sh"
sf_init_workspace

out=$SF_WORK/fleet
rc=0
STORE=both QUICK=1 N=96 RTT_MS=2 FLEET_OUT=$out "$SF_ROOT/bench/fleet/run" >"$SF_WORK/run.log" 2>&1 ||
    rc=$?
if [ "$rc" != 0 ]; then
    tail -n 60 "$SF_WORK/run.log" >&2
fi
sf_expect_eq "bench/fleet/run's exit status" 0 "$rc"
rc=0
STORE=pg POOLER=pgbouncer QUICK=1 N=96 RTT_MS=2 FLEET_OUT=$out/pooler "$SF_ROOT/bench/fleet/run" \
    >"$SF_WORK/run-pooler.log" 2>&1 || rc=$?
if [ "$rc" != 0 ]; then
    tail -n 60 "$SF_WORK/run-pooler.log" >&2
fi
sf_expect_eq "bench/fleet/run's exit status, PostgreSQL behind PgBouncer" 0 "$rc"
sf_expect_match "the simulated servers reached the registry through PgBouncer" \
    'upstream=[^ ]*/pgbouncer/\.s\.PGSQL\.6432 ' "$(cat "$SF_WORK/run-pooler.log")"

for store in pg redis pooler/pg; do
    # Each check as "what<TAB>expected<TAB>got".
    while IFS=$'\t' read -r what want got; do
        sf_expect_eq "$store: $what" "$want" "$got"
    done < <(python3 - "$out/$store.json" <<'EOF'
import json, sys

report = json.load(open(sys.argv[1]))
phases = {p["name"]: p for p in report["phases"]}
checks = [
    ("phases reported", "start steady restart_wave steady_after_restart outage decommission "
     "steady_final stop", " ".join(p["name"] for p in report["phases"])),
    ("servers", 96, report["servers"]),
    ("node ids held by two servers at once", 0, report["double_holdings"]),
]
for name in ("start", "restart_wave", "decommission"):
    wave = phases[name]["wave"]
    checks.append((f"{name}: every server of the wave got a node id", wave["size"], wave["held"]))
for name in ("start", "steady", "restart_wave", "steady_after_restart", "outage", "decommission",
             "steady_final"):
    checks.append((f"{name}: servers without a node id at the end", 0,
                   phases[name]["not_holding_at_end"]))
for name in ("steady", "restart_wave", "steady_after_restart", "steady_final"):
    checks.append((f"{name}: leases lost", 0, phases[name]["leases_lost"]))
    checks.append((f"{name}: renewals confirmed", True, phases[name]["calls"]["renew"]["ok"] > 0))
checks.append(("stop: every server gave its node id back", 96,
               phases["stop"]["calls"]["release"]["ok"]))
for what, want, got in checks:
    print(f"{what}\t{want}\t{got}")
EOF
    )
done
