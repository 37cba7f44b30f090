"""The driver's own calls to a node: one snowflake_nextval() between two
readings of snowflake_status, and the invariants they check:
  3 liveness: a node that is up, whose registry answers, mints within a bound;
  4 after a clean restart, the first ID's time is near the wall clock;
  5 snowflake_status agrees with what the call did;
  6 after a crash, a failover, any event, a node's IDs lie no further ahead
    of its clock than its durable reservations or its registry floor explain.
"""

import datetime
import os
import re
import time

from . import config
from .ledger import Violation, node_bits, ts_ms
from .clients import SINGLE, parse_rows
from .procs import HarnessError, psql

STATUS = ("SELECT 'S|' || lease_state || '|' || coalesce(worker_id::text, '') "
          "FROM snowflake_status()")
MINT = "SELECT 'I|' || snowflake_nextval() || '|' || pg_postmaster_start_time()"

# What a refusal says about the lease, and the lease_state it maps to
# (docs/reference.md, snowflake_status). A success maps to 'held' (or
# 'switching', the moment the worker moves the generator to another id).
REFUSALS = (
    (re.compile(r"the node id lease of this server expired"), {"expired"}),
    (re.compile(r"the registry refused this server a node id lease"), {"refused"}),
    (re.compile(r"snowflake_id has no node id yet"), {"waiting"}),
    (re.compile(r"this server was replaced by a promoted standby"), {"replaced"}),
)
SUCCESS_STATES = {"held", "switching"}

# A server's log: the WARNING that blames the wall clock for a lead
# (src/pg/pg_resume.cpp, log_resume), and the lines that say where the
# generator resumed and why (copied into the event log after a promotion).
CLOCK_WARNING = re.compile(r"WARNING:\s+snowflake_id: the wall clock")
RESUME_LINES = ("snowflake_id: the generator resumes", "snowflake_id: the lead comes from",
                "snowflake_id: took back node id", "snowflake_id: leased node id",
                "snowflake_id: the server starts as a standby")
TAKEOVER_LINE = re.compile(r"snowflake_id: the generator resumes at (\S+ \S+), above every ID "
                           r"the previous holder of node id (\d+) can have issued")


def catch_up_limit(reach_ms, since_ms):
    """How far ahead of its clock a server may lie since_ms after an event
    (a crash, a promotion) that left it resuming at most reach_ms ahead:
    its catch-up clock uses a lead up at half speed at least
    (docs/durability.md), plus CRASH_LEAD_MARGIN_MS for the probe's tail."""
    return max(0, reach_ms - since_ms / 2) + config.CRASH_LEAD_MARGIN_MS


def utc_ms(text):
    """ms since 1970 of a time as the server's messages write it
    (snowflake::format_utc: 2026-11-26 04:41:31.393Z)."""
    t = datetime.datetime.strptime(text, "%Y-%m-%d %H:%M:%S.%fZ")
    return round(t.replace(tzinfo=datetime.timezone.utc).timestamp() * 1000)
NOT_PRELOADED = "must be loaded via shared_preload_libraries"

# SKIP_INVARIANTS=4,5,6,7,8,9: report a failure of those invariants in the log
# and go on (to see what else a seed finds while a known failure is being
# fixed). Invariants 1 to 3 cannot be skipped: the steps after them would mean
# nothing.
SKIPPED = ({int(x) for x in os.environ.get("SKIP_INVARIANTS", "").split(",") if x}
           & {4, 5, 6, 7, 8, 9})


class Probe:
    """The outcome of one probe."""

    def __init__(self, node, rc, out, err, wall_ms):
        self.node = node
        self.wall_ms = wall_ms  # the real clock read right after the call returned
        statuses = [l.split("|") for l in out.splitlines() if l.startswith("S|")]
        mint = [l.split("|", 2) for l in out.splitlines() if l.startswith("I|")]
        self.id = int(mint[0][1]) if mint else None
        self.run = mint[0][2] if mint else None
        # Both status readings, or none: a status query that failed (no
        # preload, no connection) says nothing.
        self.before = self.after = None
        if len(statuses) == 2:
            self.before, self.after = (tuple(s[1:3]) for s in statuses)
        errors = [l for l in err.splitlines() if "ERROR:" in l or "FATAL:" in l
                  or "could not connect" in l or "timed out" in l or "closed" in l]
        self.error = errors[0].strip() if errors else (err.strip().splitlines() or [""])[0]
        self.stderr = err  # the DETAIL and HINT lines too

    @property
    def ok(self):
        return self.id is not None

    def expected_states(self):
        if self.ok:
            # a server without a registry (copies.logical_restore) has no lease
            return SUCCESS_STATES if getattr(self.node, "leases", True) else {"none"}
        for pattern, states in REFUSALS:
            if pattern.search(self.error):
                return states
        return None

    def mismatch(self):
        """A disagreement of snowflake_status with the call, or None."""
        want = self.expected_states()
        if want is None or self.before is None:
            return None
        seen = (self.before[0], self.after[0])
        if not (want & set(seen)):
            what = f"ID {self.id}" if self.ok else f"'{self.error}'"
            return (f"the call gave {what}, while snowflake_status.lease_state read "
                    f"{seen[0]!r} before it and {seen[1]!r} after it (expected one of "
                    f"{sorted(want)})")
        if self.ok:
            held = {int(w) for s, w in (self.before, self.after) if s == "held" and w}
            if held and node_bits(self.id) not in held:
                return (f"ID {self.id} carries node id {node_bits(self.id)}, while "
                        f"snowflake_status.worker_id read {self.before[1]!r} before it and "
                        f"{self.after[1]!r} after it")
        return None

    def describe(self):
        if self.ok:
            return f"ID {self.id} (time {ts_ms(self.id)}, node id {node_bits(self.id)})"
        return f"error: {self.error}"


class Prober:
    def __init__(self, ledger, log):
        self.ledger = ledger
        self.log = log  # the simulation's event log (a list of lines)
        self.mismatches = {}  # node name -> consecutive mismatching probes
        self.largest_lead = None  # (lead ms, node name, where): for the seed's summary
        self.step = 0  # the step being run (0: the set-up), for that summary

    def probe(self, node, timeout=config.PSQL_TIMEOUT_S):
        rc, out, err = psql(node.dir, STATUS, MINT, STATUS, timeout=timeout)
        p = Probe(node, rc, out, err, time.time() * 1000)
        if p.ok:
            self.ledger.add(node.name, "probe", p.run, [p.id])
        return p

    def mint_many(self, node, n, stream):
        """n calls of snowflake_nextval() in one COPY, its IDs recorded; (count, error)."""
        rc, out, err = psql(node.dir, SINGLE.format(n=n))
        rows = parse_rows(out)
        by_run = {}
        for run, i in rows:
            by_run.setdefault(run, []).append(i)
        for run, ids in by_run.items():
            self.ledger.add(node.name, stream, run, ids)
        errors = [l.strip() for l in err.splitlines() if "ERROR:" in l or "FATAL:" in l]
        return len(rows), (errors[0] if errors else err.strip())

    def observe(self, node, timeout=config.PSQL_TIMEOUT_S):
        """A probe, checked against snowflake_status (invariant 5). A mismatch
        is probed again at a poll's pace, and counts once it has shown in
        STATUS_MISMATCH_REPEATS probes in a row spanning at least
        STATUS_MISMATCH_MS: a status published a moment after the call saw
        the change is not a disagreement."""
        first_seen = None
        while True:
            p = self.probe(node, timeout)
            m = p.mismatch()
            if m is None:
                if p.expected_states() is not None and p.before is not None:
                    self.mismatches[node.name] = 0
                return p
            n = self.mismatches.get(node.name, 0) + 1
            self.mismatches[node.name] = n
            first_seen = first_seen or time.monotonic()
            lasted_ms = (time.monotonic() - first_seen) * 1000
            self.log.append(f"    {node.name}: status mismatch {n} ({lasted_ms:.0f} ms): {m}")
            if n >= config.STATUS_MISMATCH_REPEATS and lasted_ms >= config.STATUS_MISMATCH_MS:
                v = Violation(5, f"{node.name}: {m} ({n} probes in a row, over "
                                 f"{lasted_ms:.0f} ms)")
                if 5 not in SKIPPED:
                    raise v
                self.log.append(f"    SKIPPED {v}")
                print(f"    SKIPPED {v}", flush=True)
                self.mismatches[node.name] = 0
                return p
            time.sleep(config.POLL_PACE_S)

    def await_mint(self, node, since, bound_ms, why, between=None):
        """Invariant 3: polls until the node mints; fails once bound_ms have
        passed since `since` (time.monotonic()). Returns the successful probe.
        between(), if given, runs before each probe (copies.py: a probe of
        another server)."""
        deadline = since + bound_ms / 1000
        errors = []
        while True:
            if between is not None:
                between()
            left = deadline - time.monotonic()
            p = self.observe(node, timeout=max(5, min(config.PSQL_TIMEOUT_S, left + 5)))
            if p.ok:
                return p
            if not errors or errors[-1] != p.error:
                errors.append(p.error)
            if time.monotonic() > deadline:
                raise Violation(3, f"{node.name} ({why}) has not minted within {bound_ms} ms; "
                                   f"its errors, in order: {' | '.join(errors[-4:])}")
            time.sleep(config.POLL_PACE_S)

    def check_restart(self, node, probe, prev_run):
        """Invariant 4, after a clean restart: the new run's first ID lies at most
        max_clock_drift + RESTART_MARGIN_MS ahead of the wall clock read right
        after the first successful probe, or of the newest ID of the run
        before the stop, whichever is later."""
        self.ledger.check()
        first = self.ledger.first.get((node.name, probe.run))
        wall = probe.wall_ms + node.clock_offset_s * 1000
        before = self.ledger.max_ts.get((node.name, prev_run), 0) if prev_run else 0
        floor = max(wall, before)
        lead = ts_ms(first) - floor
        limit = config.MAX_CLOCK_DRIFT_MS + config.RESTART_MARGIN_MS
        self.log.append(f"    {node.name}: first ID after the restart is {lead:.0f} ms ahead of "
                        f"max(wall clock, last ID before); allowed {limit} ms")
        if lead > limit:
            self.fail(4, f"{node.name}: after a clean restart the first ID {first} carries "
                               f"{ts_ms(first)}, {lead:.0f} ms ahead of the wall clock "
                               f"({wall:.0f}) read right after"
                               + (f" and of the newest ID before the stop ({before})"
                                  if before else "")
                               + f"; allowed max_clock_drift + {config.RESTART_MARGIN_MS} = "
                                 f"{limit} ms")

    def lead(self, node, probe):
        """How far the probe's ID lies ahead of the node's own clock read right
        after the call: the real clock plus the node's libfaketime offset (0
        at every check: each event restores it before the checks)."""
        return ts_ms(probe.id) - (probe.wall_ms + node.clock_offset_s * 1000)

    def check_crash_lead(self, node, probe, crash):
        """Invariant 6 after a crash restart of the same data directory that
        got its node id back (or kept it: a backend crash). The server resumes
        at its own last durable reservation, made before the crash and at
        most max_clock_drift + the reservation window ahead of the clock then,
        plus the lead the node had; from the restart on, the catch-up clock
        uses that lead up at half speed at least. So its first successful
        probe lies at most max(0, A - (time since the crash) / 2) +
        CRASH_LEAD_MARGIN_MS ahead of its clock, A = max(0, its lead at the
        crash) + max_clock_drift + the reservation window. Its lead at the
        crash: the newest ID it issued before (all of the run the crash ended;
        for a backend crash, which keeps the run, those recorded before the
        kill) minus its clock at the kill, or the lead of a probe made right
        before the kill, whichever is larger. Returns the lead, or None if the
        crash bound does not apply (then only the registry floor does)."""
        self.ledger.check()
        newest = crash.get("newest") or self.ledger.newest.get((node.name, crash.get("prev_run")))
        lead = self.lead(node, probe)
        what = f"{node.name} after {crash['how']}"
        if not newest:
            self.note(f"{what}: no ID recorded before the crash, so no lead to compare with; "
                      f"only the registry floor bound applies")
            return None
        if node_bits(probe.id) != node_bits(newest):
            self.note(f"{what}: node id {node_bits(probe.id)} after the crash, "
                      f"{node_bits(newest)} before (taken from the registry): only the "
                      f"registry floor bound applies")
            return None
        clock = probe.wall_ms + node.clock_offset_s * 1000
        before = ts_ms(newest) - crash["killed_ms"]
        if crash.get("probe_lead_ms") is not None:
            before = max(before, crash["probe_lead_ms"])
        since = clock - crash["killed_ms"]
        reach = max(0, before) + config.MAX_CLOCK_DRIFT_MS + config.RESERVATION_WINDOW_MS
        limit = catch_up_limit(reach, since)
        self.note(f"{what}: first ID {lead:.0f} ms ahead of its clock, {since:.0f} ms after "
                  f"the crash (lead at the crash {before:.0f} ms); allowed {limit:.0f} ms")
        if lead > limit:
            self.fail(6, f"{what}: the first ID after the restart, {probe.id}, carries "
                         f"{ts_ms(probe.id)}, {lead:.0f} ms ahead of the node's clock "
                         f"({clock:.0f}) read right after the call, {since:.0f} ms after the "
                         f"crash; its lead at the crash ({crash['killed_ms']:.0f}) was "
                         f"{before:.0f} ms (its newest ID before it: {newest}). Allowed: max(0, "
                         f"max(0, {before:.0f}) + max_clock_drift {config.MAX_CLOCK_DRIFT_MS} + "
                         f"reservation window {config.RESERVATION_WINDOW_MS} - {since:.0f} / 2) + "
                         f"margin {config.CRASH_LEAD_MARGIN_MS} = {limit:.0f} ms: a crash restart "
                         f"of the same data directory resumes at its own last reservation, not at "
                         f"the registry's recorded bound")
        return lead

    def check_promotion(self, node, probe, promo):
        """After a promotion (promote): the standby took its crashed primary's
        node id lease over (same system identifier, the next timeline), so
        - (invariant 2) its IDs on that node id lie above every ID the old
          primary issued on it, and the first of them at or above the bound
          the registry had recorded for it (read after the kill, before the
          promotion) plus max_clock_drift: what it resumes above whatever WAL
          an asynchronous standby lacked; and its log says it resumed at or
          above that bound on the lease it took over (a promotion slower
          than the bound passes the first two whatever the server did);
        - (invariant 6) its first successful probe lies at most max(0, A -
          (time since the kill) / 2) + CRASH_LEAD_MARGIN_MS ahead of its
          clock, A = max_clock_drift + the largest of lease_ttl, L +
          lease_ttl / 2 and L + the reservation window, plus what a clock set
          forward earlier in the seed still adds; L = max(0, its lead at the
          kill). The registry's bound came from a renewal made before the
          kill: the clock then + lease_ttl, or the catch-up clock + lease_ttl
          / 2 (docs/durability.md); what a synchronous standby replayed is a
          reservation, at most max_clock_drift + the window ahead of the
          generator's clock; the promoted server resumes above the higher of
          the two and its catch-up clock runs at half speed at least;
        - (invariant 6) its log shows no WARNING blaming the wall clock for
          the lead, unless the node's clock was set forward earlier in the
          seed: the lead comes from the lease or the replayed reservations.
        A promoted standby that came back on another node id than its
        primary had, or a primary that had issued no ID, leave the registry
        floor bound alone to check."""
        self.ledger.check()
        what = f"{node.name} after the promotion of its {promo['kind']} standby"
        try:
            with open(node.log, errors="replace") as f:
                log = f.read().splitlines()
        except OSError as e:
            raise HarnessError(f"{what}: cannot read its log: {e}") from e
        for line in log:
            if any(k in line for k in RESUME_LINES):
                self.note(f"{node.name}'s log: {line.split('snowflake_id: ', 1)[-1][:200]}")
        warnings = [l for l in log if CLOCK_WARNING.search(l)]
        if promo["forward_steps"]:
            self.note(f"{what}: its clock was set forward earlier in this seed, which can "
                      f"explain a WARNING about the wall clock: not checked")
        elif warnings:
            self.fail(6, f"{what}: the promoted server's log blames the wall clock for its lead, "
                         f"though the node's clock was never set forward in this seed (the lead "
                         f"comes from the node id lease or the replayed reservations): "
                         f"{warnings[0].strip()}")
        prev_run = promo["prev_run"]
        node_id = promo["node_id"]
        if node_id is None and self.ledger.newest.get((node.name, prev_run)):
            node_id = node_bits(self.ledger.newest[(node.name, prev_run)])
        if node_id is None:
            self.note(f"{what}: no ID recorded before the kill, so no lead to compare with; "
                      f"only the registry floor bound applies")
            return None
        if node_bits(probe.id) != node_id:
            return self.check_promotion_elsewhere(node, probe, promo, what, node_id)
        old = self.ledger.span.get((node.name, prev_run, node_id))
        first = self.ledger.span[(node.name, probe.run, node_id)][0]
        if old and first <= old[1]:
            raise Violation(2, f"{what}: its ID {first} (time {ts_ms(first)}) on node id "
                               f"{node_id} is not above the newest ID the old primary issued "
                               f"on it, {old[1]} (time {ts_ms(old[1])}): a promoted standby "
                               f"resumes above every bound its primary recorded")
        bound = promo["recorded_bound_ms"]
        # Where the server says it resumed on the lease it took over: seen
        # however slow the promotion was (a first ID later than the bound
        # lies above it whatever the server did).
        took = [m for m in map(TAKEOVER_LINE.search, log) if m and int(m.group(2)) == node_id]
        if not took:
            raise Violation(2, f"{what}: its log does not say that it resumed above the bound "
                               f"the previous holder of node id {node_id} recorded ('the "
                               f"generator resumes at ..., above every ID the previous holder "
                               f"of node id {node_id} can have issued'): a promoted standby "
                               f"takes its primary's lease over with the registry's floor, "
                               f"which covers the WAL an asynchronous standby lacks")
        resumed_ms = utc_ms(took[0].group(1))
        if bound is None:
            self.note(f"{what}: the registry showed no bound for node id {node_id} after the "
                      f"kill: the first ID is compared with the old primary's IDs only")
        else:
            floor = bound + config.MAX_CLOCK_DRIFT_MS
            if resumed_ms < floor:
                raise Violation(2, f"{what}: its log says it resumed at {took[0].group(1)} "
                                   f"({resumed_ms}) on node id {node_id}, below the bound the "
                                   f"registry recorded for the old primary ({bound}, read "
                                   f"after the kill) + max_clock_drift "
                                   f"{config.MAX_CLOCK_DRIFT_MS} = {floor}")
            self.note(f"{what}: resumed at {resumed_ms} on node id {node_id}, first ID at "
                      f"{ts_ms(first)}: {resumed_ms - floor} and {ts_ms(first) - floor} ms above "
                      f"the registry's recorded bound {bound} + max_clock_drift")
            if ts_ms(first) < floor:
                raise Violation(2, f"{what}: its first ID on node id {node_id}, {first}, carries "
                                   f"{ts_ms(first)}, below the bound the registry recorded for "
                                   f"the old primary ({bound}, read after the kill) + "
                                   f"max_clock_drift {config.MAX_CLOCK_DRIFT_MS} = {floor}: the "
                                   f"promoted standby did not resume above the registry's floor, "
                                   f"and IDs its primary issued past the WAL it replayed can "
                                   f"repeat")
        killed, before, stepped, clock, lead, since = self.promotion_leads(node, probe, promo)
        held = max(0, before)
        reach = (config.MAX_CLOCK_DRIFT_MS + stepped
                 + max(config.LEASE_TTL_MS, held + config.LEASE_TTL_MS // 2,
                       held + config.RESERVATION_WINDOW_MS))
        limit = catch_up_limit(reach, since)
        self.note(f"{what}: first ID {lead:.0f} ms ahead of its clock, {since:.0f} ms after "
                  f"the kill (lead at the kill {before:.0f} ms); allowed {limit:.0f} ms")
        if lead > limit:
            self.fail(6, f"{what}: the first ID after the promotion, {probe.id}, carries "
                         f"{ts_ms(probe.id)}, {lead:.0f} ms ahead of the node's clock "
                         f"({clock:.0f}) read right after the call, {since:.0f} ms after the "
                         f"kill of its primary; the primary's lead at the kill ({killed:.0f}) was "
                         f"{before:.0f} ms. Allowed: max(0, max_clock_drift "
                         f"{config.MAX_CLOCK_DRIFT_MS} + clock set forward before {stepped:.0f} "
                         f"+ max(lease_ttl {config.LEASE_TTL_MS}, {held:.0f} + lease_ttl / 2, "
                         f"{held:.0f} + reservation window {config.RESERVATION_WINDOW_MS}) - "
                         f"{since:.0f} / 2) + margin {config.CRASH_LEAD_MARGIN_MS} = "
                         f"{limit:.0f} ms: a promoted standby resumes above the registry's "
                         f"bound, recorded at most lease_ttl past the clock of a renewal made "
                         f"before the kill (lease_ttl / 2 past a catch-up clock), or above the "
                         f"reservations it replayed, and catches up from there")
        return lead

    def promotion_leads(self, node, probe, promo):
        """What a promotion's lead is measured with: the kill's time, the
        primary's lead at the kill, what a clock set forward earlier still
        adds, the node's clock after the probe, the probe's lead, and the
        time since the kill (ms)."""
        killed = promo["killed_ms"]
        before = self.ledger.max_ts.get((node.name, promo["prev_run"]), killed) - killed
        if promo.get("probe_lead_ms") is not None:
            before = max(before, promo["probe_lead_ms"])
        stepped = max([s - (killed - at) for s, at in promo["forward_steps"]] + [0])
        clock = probe.wall_ms + node.clock_offset_s * 1000
        return killed, before, stepped, clock, self.lead(node, probe), clock - killed

    def check_promotion_elsewhere(self, node, probe, promo, what, node_id):
        """(invariant 6) A promoted 'auto' standby that leased another id
        than its primary's (whose lease was still live: it takes an id free
        at its clock rather than the old lease's bound, up to lease_ttl
        ahead) resumes at the reservations it replayed, as a crash restart
        does at its own: at most max(0, A - (time since the kill) / 2) +
        CRASH_LEAD_MARGIN_MS ahead of its clock, A = max(0, the primary's
        lead at the kill) + max_clock_drift + the reservation window, plus
        what a clock set forward earlier still adds. A standby that took
        the old lease's bound instead would lead by about lease_ttl."""
        _, before, stepped, clock, lead, since = self.promotion_leads(node, probe, promo)
        reach = (max(0, before) + config.MAX_CLOCK_DRIFT_MS + config.RESERVATION_WINDOW_MS
                 + stepped)
        limit = catch_up_limit(reach, since)
        self.note(f"{what}: node id {node_bits(probe.id)} after the promotion, {node_id} "
                  f"before; first ID {lead:.0f} ms ahead of its clock, {since:.0f} ms after the "
                  f"kill (lead at the kill {before:.0f} ms); allowed {limit:.0f} ms")
        if lead > limit:
            self.fail(6, f"{what}: on node id {node_bits(probe.id)}, not its primary's "
                         f"{node_id}, the first ID after the promotion, {probe.id}, carries "
                         f"{ts_ms(probe.id)}, {lead:.0f} ms ahead of the node's clock "
                         f"({clock:.0f}), {since:.0f} ms after the kill; allowed: max(0, "
                         f"{before:.0f} + max_clock_drift {config.MAX_CLOCK_DRIFT_MS} + "
                         f"reservation window {config.RESERVATION_WINDOW_MS} + clock set "
                         f"forward before {stepped:.0f} - {since:.0f} / 2) + margin "
                         f"{config.CRASH_LEAD_MARGIN_MS} = {limit:.0f} ms: an id leased free at "
                         f"the clock needs no lead beyond the reservations replayed")
        return lead

    def check_floor_lead(self, node, probe, reach_lead_ms, clock_ahead_ms, why, quiet=False):
        """Invariant 6 for every node after every step: its first successful
        probe lies at most max(0, reach_lead_ms) + clock_ahead_ms + lease_ttl +
        max_clock_drift + FLOOR_LEAD_MARGIN_MS ahead of its clock. A server
        that takes a node id another run held (a crash restart that cannot
        resume from its own WAL, a switch to a node id held before) resumes
        above the bound the registry records, plus max_clock_drift; a renewal
        records at most its holder's clock or its newest IDs' time, plus
        lease_ttl. reach_lead_ms:
        how far the newest ID of any node lay ahead of the clock when the step
        began; clock_ahead_ms: how far the step set a clock forward."""
        lead = self.lead(node, probe)
        if self.largest_lead is None or lead > self.largest_lead[0]:
            self.largest_lead = (lead, node.name, f"step {self.step}, {why}")
        limit = (max(0, reach_lead_ms) + clock_ahead_ms + config.LEASE_TTL_MS
                 + config.MAX_CLOCK_DRIFT_MS + config.FLOOR_LEAD_MARGIN_MS)
        if not quiet:
            self.log.append(f"    {node.name} ({why}): {lead:.0f} ms ahead of its clock; "
                            f"registry floor bound {limit:.0f} ms")
        if lead > limit:
            self.fail(6, f"{node.name} ({why}): ID {probe.id} carries {ts_ms(probe.id)}, "
                         f"{lead:.0f} ms ahead of the node's clock read right after the call; "
                         f"allowed max(0, lead of the newest ID of any node when the step "
                         f"began, {reach_lead_ms:.0f}) + clock set forward {clock_ahead_ms:.0f} "
                         f"+ lease_ttl {config.LEASE_TTL_MS} + max_clock_drift "
                         f"{config.MAX_CLOCK_DRIFT_MS} + margin {config.FLOOR_LEAD_MARGIN_MS} = "
                         f"{limit:.0f} ms")
        return lead

    def note(self, line):
        """A line for the event log that is also printed as it happens."""
        self.log.append(f"    {line}")
        print(f"    {line}", flush=True)

    def fail(self, invariant, message):
        v = Violation(invariant, message)
        if invariant not in SKIPPED:
            raise v
        self.log.append(f"    SKIPPED {v}")
        print(f"    SKIPPED {v}", flush=True)
