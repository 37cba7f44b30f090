"""The events of copies and successors (docs/lifecycle.md, issue 42): a copy
of a running node started beside it with its configuration and registry (a
base backup restored with recovery.signal, or a point-in-time copy that
stops before the node's end of WAL), a split brain whose promoted standby
restarts cleanly while the old primary still runs, a promotion across a
registry outage, and a logical restore onto a new server with the node's
node id. Their invariants, checked while the event runs:

  7 a copy never costs its original a call: while the copy runs and after
    it, the original is never refused by the registry (no call refused as
    replaced or refused, snowflake_status never reads either), and the copy
    issues no ID on the node id the original holds;
  8 a replaced primary stays replaced: once its successor (a promoted
    standby) held a lease, the old primary is refused within the liveness
    bound, and from then on it mints nothing, whatever the successor does
    (a clean restart, which gives its lease back) and whatever the registry
    did (an outage across the promotion: from the registry's return on);
  9 a restore never mints below what it restored: every ID the restored
    server issues lies above the largest ID its tables received.

A promoted standby is its primary's successor unless its own log says the
registry counted it a copy (a standby promoted after its primary wrote and
recorded WAL it never received, allowed to be told from a failover by the
registry: docs/many-servers.md); the event then checks invariant 7 instead
of 8, and says so in the event log."""

import os
import re
import time

from . import config
from .ledger import Violation, node_bits, ts_ms
from .procs import CLIENT_BIN, HarnessError, as_server, poll, run
from .servers import lsn_int, lsn_text

# A refusal that blames the registry: what a copy must never cause its
# original, and what a replaced primary must get.
REGISTRY_REFUSAL = re.compile(r"this server was replaced by a promoted standby|"
                              r"the registry refused this server a node id lease")
REFUSED_STATES = ("replaced", "refused")
# The LOG line of a server the registry counted a copy of another, not its
# successor (src/core/lease_rules.cpp): "... is a copy of ...".
COPY_LINE = re.compile(r"snowflake_id: .*\bcopy of\b")
# Invariant 8's watch after each step of a split brain: long enough for a
# lease given back or lapsed, and a renewal interval to take it again.
REPLACED_WATCH_MS = config.LEASE_TTL_MS + 2 * config.RENEW_MS


def _keep():
    return bool(os.environ.get("SF_KEEP_WORK"))


def refusal(p):
    """How the probe p shows its server refused by the registry, or None."""
    if not p.ok and REGISTRY_REFUSAL.search(p.error):
        return p.error
    for reading in (p.before, p.after):
        if reading and reading[0] in REFUSED_STATES:
            return f"snowflake_status.lease_state read {reading[0]!r}"
    return None


def _registry_errors(client):
    return sum(n for cls, n in client.errors.items() if REGISTRY_REFUSAL.search(cls))


def _held_id(sim, node, why):
    """The node id the node mints on now (a probe that mints, within the
    liveness bound)."""
    p = sim.prober.await_mint(node, time.monotonic(), config.LIVENESS_BOUND_MS, why)
    return node_bits(p.id)


def _start_side(sim, server, what):
    sim.side.append(server)
    ok, out = server.start()
    if not ok:
        raise HarnessError(f"{what} did not start: {out}")


def _end_side(sim, server):
    server.discard(_keep())
    sim.side.remove(server)


class OriginalWatch:
    """Invariant 7 on an original while a copy of it runs: every probe of
    it, and its client's calls, free of registry refusals."""

    def __init__(self, sim, node, held, copy_name):
        self.sim, self.node, self.held, self.copy_name = sim, node, held, copy_name
        self.client_refusals = _registry_errors(sim.clients[node.name])
        self.failed = False

    def probe(self):
        p = self.sim.prober.observe(self.node)
        why = refusal(p)
        if why and not self.failed:
            self.failed = True  # once per event where SKIP_INVARIANTS=7 goes on
            self.sim.prober.fail(7, f"{self.node.name} was refused while {self.copy_name}, a "
                                    f"copy of it, ran: {why}")
        return p

    def check_client(self):
        n = _registry_errors(self.sim.clients[self.node.name]) - self.client_refusals
        if n:
            self.sim.prober.fail(7, f"{self.node.name}'s client had {n} calls refused by the "
                                    f"registry while {self.copy_name}, a copy of it, ran: "
                                    + "; ".join(cls for cls in self.sim.clients[self.node.name]
                                                .errors if REGISTRY_REFUSAL.search(cls)))

    def check_copy_id(self, p):
        if p.ok and node_bits(p.id) == self.held:
            self.sim.prober.fail(7, f"{self.copy_name} issued {p.id} on node id {self.held}, "
                                    f"which its original {self.node.name} holds")


def _copy_lines(server):
    try:
        with open(server.log, errors="replace") as f:
            return [line.strip() for line in f if COPY_LINE.search(line)]
    except OSError:
        return []


def _await_position(sim, node, node_id, past_lsn):
    """Waits until the registry records, for the node's lease, a WAL
    position beyond past_lsn: a copy that ends at or before past_lsn is then
    told from a successor (a copy that recovered up to the original's last
    recorded position counts as its successor, docs/many-servers.md).
    Returns the position, or None where the registry records none."""
    want = lsn_int(past_lsn)
    found = {}
    # WAL past past_lsn for the next renewal to record, if the client's calls
    # wrote none yet (a no-op where nothing was written since the last switch)
    node.sql_ok("SELECT pg_switch_wal()")

    def recorded():
        pos = sim.registry.recorded_position(node_id)
        found["pos"] = pos
        if pos is None:
            return "none"
        return "past" if pos > want else None

    answer = poll(f"the registry to record {node.name}'s WAL position past {past_lsn}",
                  recorded, 30, config.POLL_PACE_S)
    if answer == "none":
        sim.note("  the registry records no WAL position with the lease (before 1.7): "
                 "not waited for one")
        return None
    return found["pos"]


def copy(sim, rng):
    """A copy of a running node, started beside it with its configuration
    (worker_id, the registry, its clock): a base backup restored with
    recovery.signal (recovery to its end, a new timeline), or a
    point-in-time copy (recovery_target_lsn a moment after the backup,
    before the node's end of WAL). It mints (with 'auto', on another id) or
    is refused (a static id its original holds), then stops (-m fast or
    kill -9). Invariant 7 throughout."""
    node = rng.choice(sim.nodes)
    kind = rng.choice(("base backup", "point-in-time"))
    calls = rng.choice((3, 10))
    end = rng.choice(("stop -m fast", "kill -9"))
    sim.note(f"copy of {node.name} ({kind}, worker_id {node.worker_cfg}) started beside it with "
             f"its configuration and registry; {calls} probes of the copy, then {end}")
    held = _held_id(sim, node, "before the copy")
    c = node.new_copy()
    end_lsn = node.sql_ok("SELECT pg_current_wal_flush_lsn()")
    if kind == "point-in-time":
        # The node writes on; the copy stops at end_lsn, and needs the WAL
        # from the backup's start to there (the node's own segments: its
        # pg_wal keeps them past a switch until a checkpoint).
        if not sim.clients[node.name].await_calls(3, 30):
            raise HarnessError(f"client of {node.name} made no progress (copy)")
        # A record past end_lsn whatever the client's calls wrote: recovery
        # stops when it reads one (end_lsn may be a segment's start, the
        # segment still empty: the copy then never reached its target)
        node.sql_ok("SELECT pg_logical_emit_message(false, 'lifecycle', 'copy')")
        node.sql_ok("SELECT pg_switch_wal()")
        wal, into = os.path.join(node.data, "pg_wal"), os.path.join(c.data, "pg_wal")
        segment = re.compile(r"^[0-9A-F]{24}$")
        first = min(n for n in os.listdir(into) if segment.match(n))
        for n in sorted(os.listdir(wal)):
            if segment.match(n) and n >= first:
                run(as_server(["cp", os.path.join(wal, n), os.path.join(into, n)]), 60)
        # Not inclusive: the copy then leaves the timeline at or before
        # end_lsn, never at the end of a record that starts there
        c.override([f"recovery_target_lsn = '{end_lsn}'", "recovery_target_inclusive = off",
                     "recovery_target_action = 'promote'"])
    # Recovery without standby mode needs a restore_command; the WAL it
    # replays is in pg_wal (a failing command sends it there).
    c.override(["restore_command = 'false'"])
    run(as_server(["touch", os.path.join(c.data, "recovery.signal")]), 10)
    pos = _await_position(sim, node, held, end_lsn)
    watch = OriginalWatch(sim, node, held, c.name)
    _start_side(sim, c, c.name)
    since = time.monotonic()
    c.poll("SELECT pg_is_in_recovery()", "f", config.START_TIMEOUT_S, f"{c.name} to promote")
    switch = c.timeline_switch()
    sim.note(f"  {c.name} on timeline {switch[0] if switch else '?'}, branched at "
             f"{switch[1] if switch else '?'}; {node.name}'s recorded position "
             f"{'unknown' if pos is None else lsn_text(pos)}, past the copy's end {end_lsn}")
    if pos is not None and switch and lsn_int(switch[1]) >= pos:
        # a copy the registry must count a successor (docs/many-servers.md):
        # the event's premise, not the server, failed
        raise HarnessError(f"{c.name} branched at {switch[1]}, not before {node.name}'s "
                           f"recorded position {lsn_text(pos)}")
    minted = 0
    last = None
    deadline = since + config.LIVENESS_BOUND_MS / 1000
    while minted < calls:
        watch.probe()
        last = sim.prober.observe(c)
        watch.check_copy_id(last)
        minted += last.ok
        if not last.ok and time.monotonic() > deadline:
            break
        time.sleep(config.POLL_PACE_S)
    if node.worker_cfg == "auto" and minted < calls:
        raise Violation(3, f"{c.name}, a copy of {node.name} with worker_id 'auto', has not "
                           f"minted within {config.LIVENESS_BOUND_MS} ms: {last.error}")
    if node.worker_cfg != "auto" and not last.ok and not (
            "copy of" in last.stderr and node.data in last.stderr):
        # refused, as it must be, but not saying why (issue 42: a copy with a
        # static id held live by its original is refused, naming the original)
        sim.prober.fail(7, f"{c.name}, a copy of {node.name} with its static worker_id "
                           f"{node.worker_cfg}, was refused without saying it is a copy of "
                           f"{node.name} ({node.data}): {last.stderr.strip()[-600:]}")
    sim.note(f"  {c.name}: {minted} probes minted; last {last.describe()}")
    for line in _copy_lines(c)[:2]:
        sim.note(f"  {c.name}'s log: {line[-200:]}")
    # The original keeps its lease through renewals made while the copy
    # holds one: watched for a lease_ttl and two renewals more.
    watch_end = time.monotonic() + REPLACED_WATCH_MS / 1000
    while time.monotonic() < watch_end:
        watch.probe()
        time.sleep(config.POLL_PACE_S)
    if end == "kill -9":
        c.crash()
    else:
        c.stop("fast")
    _end_side(sim, c)
    watch.probe()
    watch.check_client()
    return {node.name: {"since": time.monotonic(), "clean_restart": False, "extra_ms": 0,
                        "why": f"after a copy of it ran ({kind})"}}


class SplitBrain:
    """A node and its streaming standby promoted while the node still runs.
    The node's client is paused for the event's length (the driver's probes
    give every call a start time, which invariant 8 needs), so that the node
    writes little WAL the standby never gets."""

    def __init__(self, sim, node):
        self.sim, self.node = sim, node
        self.client = sim.clients[node.name]
        self.old_id = None
        self.standby = None
        self.successor = None  # True, False (a copy), None (not decided yet)
        self.replaced_at = None  # when the node was first seen refused (monotonic)
        self.watch_from = None  # calls started from then on must not mint (invariant 8)
        self.held_at = None  # when the standby first minted (monotonic)
        self.why_watched = None
        # The old primary's IDs from calls started after watch_from while the
        # standby's kind was not known yet: a violation if it is a successor.
        self.pending = []

    def begin(self):
        self.client.pause()
        self.old_id = _held_id(self.sim, self.node, "before the split brain")
        s = self.node.new_standby()
        _start_side(self.sim, s, s.name)
        self.standby = s
        what = f"{self.node.name}'s standby"
        self.node.poll("SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'",
                       "1", 30, what, query_timeout_s=10)

        def caught_up():
            lsn = self.node.sql_ok("SELECT pg_current_wal_flush_lsn()")
            return s.sql_ok(f"SELECT pg_last_wal_replay_lsn() >= '{lsn}'::pg_lsn") == "t"

        poll(f"{what} to replay all its primary flushed", caught_up, 30, config.POLL_PACE_S,
             errors=(OSError, ValueError, HarnessError))

    def promote(self):
        ok, out = self.standby.promote()
        if not ok:
            raise Violation(3, f"{self.standby.name} was not promoted: {out}")

    def probe_node(self):
        """One probe of the old primary: invariant 8 (a successor) or 7 (a
        copy)."""
        started = time.monotonic()
        p = self.sim.prober.observe(self.node)
        if self.successor is False:
            why = refusal(p)
            if why:
                self.sim.prober.fail(7, f"{self.node.name} was refused while "
                                        f"{self.standby.name}, which the registry counted "
                                        f"a copy of it, ran: {why}")
            return p
        if p.ok and self.watch_from is not None and started >= self.watch_from:
            self.pending.append((p.id, started - self.watch_from))
            if self.successor:
                self.check_pending()
        if not p.ok and refusal(p) and self.replaced_at is None and self.successor:
            self.replaced_at = time.monotonic()
            if self.watch_from is None:
                self.watch_from = self.replaced_at
                self.why_watched = "it was first refused as replaced"
            self.sim.note(f"  {self.node.name} refused "
                          f"{(self.replaced_at - self.held_at) * 1000:.0f} ms after its "
                          f"successor first minted: {p.error}")
        return p

    def check_pending(self):
        if self.pending:
            i, after_s = self.pending[0]
            self.sim.prober.fail(8, f"{self.node.name}, an old primary, issued {i} "
                                    f"({ts_ms(i)}, node id {node_bits(i)}) in a call started "
                                    f"{after_s * 1000:.0f} ms after {self.why_watched} "
                                    f"({len(self.pending)} such calls): a replaced primary "
                                    f"mints nothing")
            self.pending = []

    def await_standby(self, since, why):
        """Polls the standby (and the old primary between) until it mints;
        decides successor or copy from its log."""
        p = self.sim.prober.await_mint(self.standby, since, config.LIVENESS_BOUND_MS, why,
                                       between=self.probe_node)
        if self.held_at is None:
            self.held_at = time.monotonic()
            copy_of = _copy_lines(self.standby)
            self.successor = not copy_of
            sim = self.sim
            if self.successor:
                sim.note(f"  {self.standby.name} minted {p.describe()}: a successor of "
                         f"{self.node.name} (its log says nothing of a copy)")
                self.check_pending()
            else:
                sim.note(f"  {self.standby.name} minted {p.describe()}; its log: "
                         f"{copy_of[0][-200:]}: a copy, not a successor, so invariant 7 "
                         f"applies, not 8")
                if node_bits(p.id) == self.old_id:
                    sim.prober.fail(7, f"{self.standby.name}, a copy of {self.node.name}, "
                                       f"issued {p.id} on node id {self.old_id}, which "
                                       f"{self.node.name} holds")
        return p

    def await_replaced(self):
        """Invariant 8: a successor held a lease, so the old primary is
        refused within the liveness bound (its next renewals learn it)."""
        if not self.successor:
            return
        deadline = self.held_at + config.LIVENESS_BOUND_MS / 1000
        while self.replaced_at is None:
            if time.monotonic() > deadline:
                self.sim.prober.fail(8, f"{self.node.name}, an old primary, was not refused "
                                        f"within {config.LIVENESS_BOUND_MS} ms of its "
                                        f"successor {self.standby.name}'s first ID")
                return
            self.probe_node()
            time.sleep(config.POLL_PACE_S)

    def watch(self, ms, also=None):
        end = time.monotonic() + ms / 1000
        while time.monotonic() < end:
            self.probe_node()
            if also is not None:
                self.sim.prober.observe(also)
            time.sleep(config.POLL_PACE_S)

    def check_handover(self):
        """(invariant 2) A promoted standby that minted on its old primary's
        node id (a static id, or the live lease taken over) resumes above
        every ID the old primary issued on it, also those of the split
        brain's window before the old primary learnt it was replaced."""
        ledger = self.sim.prober.ledger
        ledger.check()
        old = [v[1] for (n, _, b), v in ledger.span.items()
               if n == self.node.name and b == self.old_id]
        new = [v[0] for (n, _, b), v in ledger.span.items()
               if n == self.standby.name and b == self.old_id]
        if old and new and min(new) <= max(old):
            raise Violation(2, f"{self.standby.name}, promoted, issued {min(new)} "
                               f"({ts_ms(min(new))}) on node id {self.old_id}, not above "
                               f"{max(old)} ({ts_ms(max(old))}), which its old primary "
                               f"{self.node.name} issued on it")
        if new:
            self.sim.note(f"  {self.standby.name} minted on {self.node.name}'s node id "
                          f"{self.old_id}: its lowest ID there {ts_ms(min(new)) - ts_ms(max(old))}"
                          f" ms above the old primary's highest" if old else
                          f"  {self.standby.name} minted on node id {self.old_id}")

    def finish(self):
        """The split brain ends: the old primary stopped and discarded, its
        successor the node from now on; or, for a copy, the copy discarded."""
        sim, node = self.sim, self.node
        self.check_handover()
        if self.successor is False:
            _end_side(sim, self.standby)
        else:
            node.stop_if_running()
            node.discard_pid_file()
            node.become(self.standby, keep_old=_keep())
            sim.side.remove(self.standby)
        self.client.resume()


def _restart(server, how):
    if how == "pg_ctl restart":
        ok, out = server.restart()
        if not ok:
            raise Violation(3, f"{server.name} did not restart: {out}")
        return
    server.stop(how.split()[-1])


def split_brain_restart(sim, rng):
    """A split brain: a node's standby promoted while the node runs on;
    once the successor holds a lease, the node is refused; then clean
    restarts of the successor (its lease given back each time, for as long
    as it is down): the old primary must mint nothing meanwhile or after
    (invariant 8). The old primary is then stopped, and the successor is
    the node."""
    node = rng.choice(sim.nodes)
    how = rng.choice(("pg_ctl restart", "stop -m fast", "stop -m smart"))
    times = rng.choice((1, 2))
    down_ms = rng.choice((0, 1500, config.LEASE_TTL_MS + 1000))
    sim.note(f"split brain: {node.name}'s standby promoted while {node.name} runs on; then "
             f"{times} clean restart(s) of the promoted standby ({how}"
             + (f", down {down_ms} ms" if how != "pg_ctl restart" else "") + ")")
    sb = SplitBrain(sim, node)
    try:
        sb.begin()
        sb.promote()
        sb.await_standby(time.monotonic(), "after its promotion")
        sb.await_replaced()
        for k in range(times):
            sb.probe_node()
            _restart(sb.standby, how)
            if how != "pg_ctl restart":
                sb.watch(down_ms)
                ok, out = sb.standby.start()
                if not ok:
                    raise Violation(3, f"{sb.standby.name} did not start: {out}")
            sb.await_standby(time.monotonic(), f"after clean restart {k + 1}")
            sb.watch(REPLACED_WATCH_MS)
        sb.finish()
    except BaseException:
        sb.client.resume()
        raise
    return {node.name: {"since": time.monotonic(), "clean_restart": False, "extra_ms": 0,
                        "why": "after its split brain ended"}}


def promote_registry_down(sim, rng):
    """A node's standby promoted while the registry is down and the node
    runs on, the outage longer than the node's lease: once the registry is
    back, the old primary mints nothing (invariant 8: from the registry's
    return on, whoever asks first); the successor mints within the liveness
    bound. The old primary is then stopped, and the successor is the node."""
    node = rng.choice(sim.nodes)
    down_ms = rng.choice((config.LEASE_TTL_MS + 500, config.LEASE_TTL_MS + 2500))
    # Probed during the outage, the old primary mints while its lease lasts,
    # and writes WAL its standby never receives: then the registry may count
    # the standby a copy (invariant 7 instead of 8)
    old_writes = rng.choice((True, False))
    sim.note(f"promotion across a registry outage: registry stopped, {node.name}'s standby "
             f"promoted while {node.name} runs on ({'probed' if old_writes else 'idle'} "
             f"during the outage), the registry started {down_ms} ms after the stop")
    sb = SplitBrain(sim, node)
    try:
        sb.begin()
        sim.registry.stop("fast")
        stopped = time.monotonic()
        sb.promote()
        while time.monotonic() < stopped + down_ms / 1000:
            if old_writes:
                sb.probe_node()  # its lease may still be valid: it may mint
            sim.prober.observe(sb.standby)
            time.sleep(config.POLL_PACE_S)
        # From here on a successor holds the registry's answer for the node:
        # the old primary's lease has lapsed (down_ms > lease_ttl).
        sb.watch_from = time.monotonic()
        sb.why_watched = "the registry's return, its lease lapsed across the promotion"
        ok, out = sim.registry.start()
        if not ok:
            raise HarnessError(f"the registry did not start again: {out}")
        back = sim.registry_back()
        sb.await_standby(sb.watch_from, "after the registry came back")
        if sb.successor is False:
            sb.watch_from = None
            sb.pending = []
        sb.await_replaced()
        sb.watch(REPLACED_WATCH_MS)
        sb.finish()
    except BaseException:
        sb.client.resume()
        raise
    back[node.name]["why"] = "after the promotion across the registry outage"
    return back


def logical_restore(sim, rng):
    """A logical restore: rows whose ids a column default draws from
    snowflake_nextval() on the node, a pg_dump (custom or plain) or
    pg_dumpall of it, the node stopped cleanly (a migration: the node id is
    the new server's now), and the restore into a new server with the
    node's settings and its node id as a static worker_id, no registry (the
    restore's only guard against minting below what it restored is the
    extension's own), its clock 30 or 120 s behind the largest ID restored. The new server mints;
    invariant 9; it is stopped and discarded, and the node started again."""
    node = rng.choice(sim.nodes)
    fmt = rng.choice(("custom", "plain", "dumpall"))
    rows = rng.choice((10, 300))
    behind_s = rng.choice((30, 120))
    sim.note(f"logical restore of {node.name} ({fmt}, {rows} rows) onto a new server with its "
             f"node id, no registry, its clock {behind_s} s behind the largest ID restored; "
             f"{node.name} stopped meanwhile")
    client = sim.clients[node.name]
    prev_run = sim.runs[node.name]
    client.pause()
    try:
        node_id = _held_id(sim, node, "before the dump")
        node.sql_ok("SET client_min_messages = warning",  # not its NOTICE of a second time
                    "CREATE TABLE IF NOT EXISTS lifecycle_restored (id bigint PRIMARY KEY "
                    "DEFAULT snowflake_nextval(), made timestamptz NOT NULL DEFAULT "
                    "clock_timestamp())")
        out = node.sql_ok(f"INSERT INTO lifecycle_restored (made) SELECT clock_timestamp() FROM "
                          f"generate_series(1, {rows}) RETURNING id || E'\\t' || "
                          f"pg_postmaster_start_time()")
        got = [line.split("\t") for line in out.splitlines() if "\t" in line]
        if len(got) != rows:
            raise HarnessError(f"{node.name}: {rows} rows inserted, {len(got)} ids returned")
        sim.prober.ledger.add(node.name, "restore", got[0][1], [int(i) for i, _ in got])
        sim.prober.ledger.check()
        count, largest = node.sql_ok("SELECT count(*) || ' ' || max(id) FROM "
                                     "lifecycle_restored").split()
        node_id = node_bits(int(largest))
        dump = os.path.join(sim.dir, f"{node.name}.dump{node.copies + 1}")
        conn = ["-h", node.dir, "-p", "5432", "-U", "postgres"]
        if fmt == "dumpall":
            run([os.path.join(CLIENT_BIN, "pg_dumpall")] + conn + ["-f", dump], 120)
        else:
            run([os.path.join(CLIENT_BIN, "pg_dump")] + conn
                + ["-d", "postgres", "-F", fmt[0], "-f", dump], 120)
        node.stop("fast")
        # Its clock behind_s behind the restored IDs (not behind the node's
        # clock: the dump and the restore take a while, and the new server
        # would start past them)
        r = node.new_restore_server(
            node_id, -round(time.time() - ts_ms(int(largest)) / 1000 + behind_s, 3))
        _start_side(sim, r, r.name)
        to = ["-h", r.dir, "-p", "5432", "-U", "postgres", "-d", "postgres"]
        if fmt == "custom":
            p = run([os.path.join(CLIENT_BIN, "pg_restore")] + to + [dump], 120, check=False)
        else:
            # pg_dumpall's script also creates the role postgres, which exists
            p = run([os.path.join(CLIENT_BIN, "psql"), "-X", "-q"] + to + ["-f", dump], 120,
                    check=False)
        restored = r.sql_ok("SELECT count(*) || ' ' || coalesce(max(id), 0) FROM "
                            "lifecycle_restored").split()
        if restored != [count, largest]:
            raise HarnessError(f"{r.name}: the restore gave {restored}, not {[count, largest]}: "
                               f"{(p.stderr or '').strip()[-400:]}")
        since = time.monotonic()
        first = sim.prober.await_mint(r, since, config.LIVENESS_BOUND_MS, "after the restore")
        n, error = sim.prober.mint_many(r, 1000, "restored")
        sim.prober.ledger.check()
        spans = {k: v for k, v in sim.prober.ledger.span.items() if k[0] == r.name}
        low = min(v[0] for v in spans.values())
        sim.note(f"  {r.name}: restored {count} rows up to {largest} ({ts_ms(int(largest))}, "
                 f"node id {node_id}); first ID {first.describe()}; 1000 more calls gave {n}"
                 + (f" ({error})" if error else "") + f"; its lowest ID {low}")
        for (_, _, bits), (lo, _) in spans.items():
            if lo <= int(largest):
                sim.prober.fail(9, f"{r.name}, a logical restore ({fmt}) of {node.name}, "
                                   f"issued {lo} ({ts_ms(lo)}, node id {bits}), not above the "
                                   f"largest ID it restored, {largest} ({ts_ms(int(largest))}, "
                                   f"node id {node_id})")
        r.stop("fast")
        _end_side(sim, r)
        ok, out = node.start()
        if not ok:
            raise Violation(3, f"{node.name} did not start after the restore: {out}")
    finally:
        client.resume()
    return {node.name: {"since": time.monotonic(), "clean_restart": True, "extra_ms": 0,
                        "prev_run": prev_run, "why": "after a logical restore of it ran"}}
