"""Settings of the simulated cluster and the bounds the invariants use.

Every number an invariant depends on is a named constant here, and the
driver prints them at the start of a run.
"""

LEASE_TTL_MS = 3000  # snowflake_id.lease_ttl (the smallest it accepts)
RENEW_MS = LEASE_TTL_MS // 3  # the worker renews every lease_ttl / 3
MAX_CLOCK_DRIFT_MS = 200  # snowflake_id.max_clock_drift
# The registry worker gives one call to the registry 5 s (README, "Running
# the registry highly available"): a renewal sent into a hung registry can
# take that long to fail before the worker tries again.
REGISTRY_CALL_TIMEOUT_MS = 5000

# Invariant 3: a node that is up, whose registry answers, mints within
# LIVENESS_BOUND_MS of the moment both are so.
LIVENESS_MARGIN_MS = REGISTRY_CALL_TIMEOUT_MS
LIVENESS_BOUND_MS = LEASE_TTL_MS + RENEW_MS + LIVENESS_MARGIN_MS

# Invariant 4: after a clean restart the first ID's time lies at most
# max_clock_drift + RESTART_MARGIN_MS ahead of the wall clock read right after
# (or of the newest ID the node issued before the stop, if that is later: a
# clean stop resumes right after the last ID).
RESTART_MARGIN_MS = 1000

# Invariant 6, after a crash restart of the same data directory that gets its
# node id back: the server resumes at its own last durable reservation. A
# reservation reaches at most max_clock_drift + RESERVATION_WINDOW_MS ahead
# of the clock it is made on, plus the lead the node already had (docs/
# durability.md, "Reservations"); it was made before the crash, and from the
# restart on the catch-up clock uses the lead up at half speed at least. So
# the first ID lies at most max(0, A - the time since the crash / 2) +
# CRASH_LEAD_MARGIN_MS ahead of the clock, A = max(0, the lead at the crash)
# + max_clock_drift + RESERVATION_WINDOW_MS. The lead at the crash is
# measured by a probe right before the kill (or from the newest ID recorded,
# if that gives more): the probe reads the clock once its psql has returned,
# a moment after the ID was issued, so a node catching up has a lead up to
# half of that moment larger than measured. CRASH_LEAD_MARGIN_MS covers a
# psql tail of 600 ms (the second status reading, the exit; on the loaded
# 2-core machine here 100 to 300 ms). A crash restart that resumes at the
# registry's bound instead resumes lease_ttl + max_clock_drift past the last
# renewal, made at most a renewal interval before the crash: 2.2 s or more
# past the crash, where this bound allows 1.5 s; it fails the bound if it
# resumes within 1.4 s of the crash (2.4 s if the last renewal was half an
# interval old): a backend crash restart here, a kill -9 on a quiet machine.
# Later than lease_ttl + max_clock_drift after the last renewal, that bound
# is past, and a server resuming there shows no lead at all.
# After a promotion (promote), the same form with another reach: the promoted
# standby resumes above the registry's recorded bound + max_clock_drift (a
# renewal made before the kill recorded its clock + lease_ttl, or its
# catch-up clock + lease_ttl / 2), or above the reservations it replayed,
# whichever is higher; CRASH_LEAD_MARGIN_MS covers the same psql tail.
RESERVATION_WINDOW_MS = 1000
CRASH_LEAD_MARGIN_MS = 300
CRASH_LOOP_CRASHES = 3  # kill -9 of one node's postmaster, in quick succession

# Invariant 6, on every node after every step (the registry floor): a server
# that takes a node id another run held (a crash restart that cannot resume
# from its own WAL, a switch to a node id held before) resumes above the
# bound the registry recorded + max_clock_drift; a renewal records at most
# lease_ttl past the holder's clock or its newest IDs' time, whichever is
# later. So no node runs further ahead than lease_ttl + max_clock_drift +
# FLOOR_LEAD_MARGIN_MS + the lead the newest ID of any node had when the step
# began (a holder's lead carries into the bound its renewals record) + how
# far the step set a clock forward (a renewal records the holder's own
# clock). The margin covers a renewal made after the holder's newest
# recorded ID: its clock ran on meanwhile, up to a renewal interval.
FLOOR_LEAD_MARGIN_MS = RENEW_MS

# Invariant 5: a disagreement between snowflake_status and a call must show
# in this many probes in a row (each reads the status before and after its
# call), over at least this long, before it counts: one probe can fall on a
# change of state, and the registry worker publishes a change a moment after
# the generator sees it.
STATUS_MISMATCH_REPEATS = 3
STATUS_MISMATCH_MS = 250

# The ID layout, set explicitly on every node (the README's defaults).
EPOCH = "2020-01-01T00:00:00Z"
EPOCH_UNIX_MS = 1577836800000
DATACENTER_BITS = 0
WORKER_BITS = 10
SEQUENCE_BITS = 12

NODES = ("n1", "n2", "n3")
STATIC_ID_BASE = 500  # a static worker_id reloaded on node k is 500 + k

LIBFAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"

# Bounds of the harness's own waits.
START_TIMEOUT_S = 60
STOP_TIMEOUT_S = 60
PSQL_TIMEOUT_S = 30
POLL_PACE_S = 0.05  # the pace of a bounded poll, never a wait for a condition

# Client pacing: a pause after each call so three clients leave the two
# cores to the servers; longer after a failure (a node down).
CLIENT_PACE_OK_S = 0.01
CLIENT_PACE_ERR_S = 0.05
CLIENT_MAX_BLOCK = 300


def describe():
    return (
        f"lease_ttl {LEASE_TTL_MS} ms, renewal every {RENEW_MS} ms, "
        f"max_clock_drift {MAX_CLOCK_DRIFT_MS} ms; liveness bound "
        f"{LIVENESS_BOUND_MS} ms (lease_ttl + renewal + margin {LIVENESS_MARGIN_MS} ms); "
        f"restart bound max_clock_drift + {RESTART_MARGIN_MS} ms; "
        f"crash lead bound max(0, lead at the crash + max_clock_drift + reservation window "
        f"{RESERVATION_WINDOW_MS} ms - time since the crash / 2) + {CRASH_LEAD_MARGIN_MS} ms; "
        f"promotion lead bound max(0, max_clock_drift + max(lease_ttl, lead at the kill + "
        f"lease_ttl / 2, lead at the kill + reservation window) - time since the kill / 2) + "
        f"{CRASH_LEAD_MARGIN_MS} ms; "
        f"registry floor lead bound lead of the newest ID + "
        f"{LEASE_TTL_MS + MAX_CLOCK_DRIFT_MS + FLOOR_LEAD_MARGIN_MS} ms (lease_ttl + "
        f"max_clock_drift + margin {FLOOR_LEAD_MARGIN_MS}); "
        f"status mismatch counted after {STATUS_MISMATCH_REPEATS} probes in a row over "
        f"{STATUS_MISMATCH_MS} ms"
    )
