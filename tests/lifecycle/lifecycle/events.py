"""The events. Each takes the simulation and the seeded RNG, does its thing,
and returns what the settle phase needs: for every node it touched, when it
was last brought up (time.monotonic(), with its registry answering), an
extra allowance for the liveness bound, after a clean restart the run
before it (invariant 4), after a crash what the node had issued before it and
when it crashed, after a clock set forward by how much (invariant 6). Every
parameter is drawn from the seeded RNG before anything is timed, so a seed
replays the same sequence."""

import os
import shutil
import signal
import subprocess
import time

from . import config, copies
from .ledger import Violation, node_bits
from .probe import NOT_PRELOADED
from .procs import AS_ROOT, CLIENT_BIN, STAGE_BIN, HarnessError, as_server, children, make_dir, run
from .servers import SideServer, _initdb


def _start(sim, node, why):
    ok, out = node.start()
    if not ok:
        raise Violation(3, f"{node.name} did not start ({why}): {out}")


def _touched(node, clean_restart=False, extra_ms=0, **more):
    return {node.name: dict({"since": time.monotonic(), "clean_restart": clean_restart,
                             "extra_ms": extra_ms}, **more)}


def _crash(sim, node, kill, how):
    """Crashes the node's server (kill: True for kill -9 of the postmaster and
    its children, False for pg_ctl stop -m immediate) after a probe; returns
    what invariant 6 needs: the probe's lead, the run the crash ends (its IDs
    are what the node issued before) and the node's clock at the crash."""
    prev_run = sim.runs[node.name]
    probe_lead_ms, node_id = _lead_probe(sim, node)
    if kill:
        killed_ms = node.crash()
    else:
        # Read before the stop: a backend may still issue an ID until the
        # postmaster's SIGQUIT reaches it, a few ms later (a lead larger by
        # those ms, never smaller).
        killed_ms = time.time() * 1000
        node.stop("immediate")
    # The client's call that was in flight ends with the crash; once it has
    # returned, every ID of the run is in the ledger.
    sim.clients[node.name].await_calls(1, 10)
    return {"how": how, "prev_run": prev_run, "probe_lead_ms": probe_lead_ms,
            "node_id": node_id, "killed_ms": killed_ms + node.clock_offset_s * 1000}


def _lead_probe(sim, node):
    """The node's lead measured by a probe right before a crash (invariant
    6): a client's newest ID may be a call old by the time of the kill; and
    the node id the node had then. (None, None) if the probe did not mint."""
    p = sim.prober.observe(node)
    return (sim.prober.lead(node, p), node_bits(p.id)) if p.ok else (None, None)


def restart(sim, rng):
    node = rng.choice(sim.nodes)
    how = rng.choice(("pg_ctl restart", "stop -m fast", "stop -m smart"))
    sim.note(f"clean restart of {node.name} ({how})")
    if how == "pg_ctl restart":
        ok, out = node.restart()
        if not ok:
            raise Violation(3, f"{node.name} did not restart: {out}")
    else:
        node.stop(how.split()[-1])
        _start(sim, node, how)
    return _touched(node, clean_restart=True)


def restart_twice(sim, rng):
    """Two clean restarts, nothing minted between them (the node's client
    paused, no probe)."""
    node = rng.choice(sim.nodes)
    sim.note(f"two clean restarts of {node.name} (stop -m fast, start, twice), "
             f"nothing minted between")
    client = sim.clients[node.name]
    client.pause()
    try:
        for k in (1, 2):
            node.stop("fast")
            _start(sim, node, f"restart {k} of 2")
    finally:
        client.resume()
    return _touched(node, clean_restart=True)


def immediate(sim, rng):
    node = rng.choice(sim.nodes)
    sim.note(f"immediate stop of {node.name}, then start")
    crash = _crash(sim, node, False, "stop -m immediate")
    _start(sim, node, "after -m immediate")
    return _touched(node, crash=crash, why="after its crash restart")


def kill_postmaster(sim, rng):
    node = rng.choice(sim.nodes)
    sim.note(f"kill -9 of {node.name}'s postmaster and children, then start")
    crash = _crash(sim, node, True, "kill -9")
    _start(sim, node, "after kill -9")
    return _touched(node, crash=crash, why="after its crash restart")


def crash_loop(sim, rng):
    """kill -9 of one node's postmaster CRASH_LOOP_CRASHES times in quick
    succession (a pod in CrashLoopBackOff), its client minting between; the
    lead is checked after every start (invariant 6): crashes must not add up."""
    node = rng.choice(sim.nodes)
    calls = [rng.choice((1, 3)) for _ in range(config.CRASH_LOOP_CRASHES)]
    n = len(calls)
    sim.note(f"crash loop: kill -9 of {node.name}'s postmaster {n} times, each time started "
             f"again; its client makes {', '.join(map(str, calls))} calls before each kill")
    client = sim.clients[node.name]
    for k, before in enumerate(calls, 1):
        if not client.await_calls(before, 30):
            raise HarnessError(f"client of {node.name} made no progress (crash loop, kill {k})")
        crash = _crash(sim, node, True, f"kill -9 {k} of {n}")
        _start(sim, node, f"after kill -9 {k} of {n}")
        t = _touched(node, crash=crash, why=f"after kill -9 {k} of {n}")
        if k == n:
            return t  # the settle phase checks the last one
        p = sim.prober.await_mint(node, t[node.name]["since"], config.LIVENESS_BOUND_MS,
                                  f"after kill -9 {k} of {n}")
        sim.ledger.check()
        sim.check_lead(node, p, t[node.name])
        sim.runs[node.name] = p.run


def promote(sim, rng):
    """A failover: the node gets a streaming standby (made now, only when the
    event is drawn), synchronous or asynchronous; once it streams and has
    replayed what the node's client minted meanwhile, kill -9 of the node's
    postmaster and children while the client mints, then pg_ctl promote of
    the standby, which from then on is the node: the clients and probes
    connect to it, and the crashed primary's data directory is discarded.
    An asynchronous standby may lack the primary's last WAL: the registry's
    recorded bound is what the promoted server must resume above."""
    node = rng.choice(sim.nodes)
    sync = rng.choice((True, False))
    calls = rng.choice((1, 3))
    kind = "synchronous" if sync else "asynchronous"
    sim.note(f"promotion: {node.name} gets {'a' if sync else 'an'} {kind} standby; once it has "
             f"replayed {calls} more calls of the client, kill -9 of {node.name}'s postmaster and children, then "
             f"pg_ctl promote of the standby, which becomes {node.name}")
    standby = node.new_standby()
    sim.standbys.append(standby)
    ok, out = standby.start()
    if not ok:
        raise HarnessError(f"{node.name}'s standby did not start: {out}")
    what = f"{node.name}'s {kind} standby"
    node.poll("SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'", "1", 30,
              what, query_timeout_s=10)
    if sync:
        # On the primary alone, set after the copy: the promoted standby
        # must not wait for a standby of its own.
        node.reload_setting("synchronous_standby_names", "*")
        node.poll("SELECT string_agg(sync_state, ',') FROM pg_stat_replication", "sync", 30,
                  what, query_timeout_s=10)
    if not sim.clients[node.name].await_calls(calls, 30):
        raise HarnessError(f"client of {node.name} made no progress (promote)")
    lsn = node.sql_ok("SELECT pg_current_wal_lsn()")
    standby.poll(f"SELECT pg_last_wal_replay_lsn() >= '{lsn}'::pg_lsn", "t", 30, what,
                 query_timeout_s=10)
    crash = _crash(sim, node, True, f"kill -9 of the primary, its {kind} standby streaming")
    node.discard_pid_file()
    # Before the promotion: the promoted server's grant records its own.
    bound = (sim.registry.recorded_bound(crash["node_id"])
             if crash["node_id"] is not None else None)
    ok, out = standby.promote()
    if not ok:
        raise Violation(3, f"{what} was not promoted: {out}")
    since = time.monotonic()
    node.become(standby, keep_old=bool(os.environ.get("SF_KEEP_WORK")))
    sim.standbys.remove(standby)
    promotion = dict(crash, kind=kind, recorded_bound_ms=bound,
                     forward_steps=list(node.forward_steps))
    return {node.name: {"since": since, "clean_restart": False, "extra_ms": 0,
                        "promotion": promotion, "why": f"after its {kind} standby was promoted"}}


def kill_backend(sim, rng):
    """kill -9 of one backend (a session of our own): the postmaster
    reinitialises shared memory and restarts every backend."""
    node = rng.choice(sim.nodes)
    sim.note(f"kill -9 of one backend of {node.name} (crash restart of all backends)")
    run = sim.runs[node.name]
    env = dict(os.environ, PGAPPNAME="lifecycle_victim")
    victim = subprocess.Popen(
        [os.path.join(CLIENT_BIN, "psql"), "-h", node.dir, "-p", "5432", "-U", "postgres",
         "-d", "postgres", "-X", "-q", "-c", "SELECT pg_sleep(60)"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        pm = node.postmaster_pid()
        pid = None
        deadline = time.monotonic() + 10
        while pid is None:
            out = node.sql_ok("SELECT pid FROM pg_stat_activity "
                              "WHERE application_name = 'lifecycle_victim'")
            if out.isdigit() and int(out) in children(pm):
                pid = int(out)
            elif time.monotonic() > deadline:
                raise HarnessError(f"{node.name}: the victim session did not appear")
            else:
                time.sleep(0.01)  # the pace of the poll; the condition is the session
        # The postmaster survives, and with it the run: what the node issued
        # before is what the ledger holds now, and the probe's own ID.
        probe_lead_ms, _ = _lead_probe(sim, node)
        sim.ledger.check()
        crash = {"how": "kill -9 of a backend", "newest": sim.ledger.newest.get((node.name, run)),
                 "probe_lead_ms": probe_lead_ms,
                 "killed_ms": time.time() * 1000 + node.clock_offset_s * 1000}
        os.kill(pid, signal.SIGKILL)
        since = time.monotonic()
        victim.wait(30)
    finally:
        if victim.poll() is None:
            victim.kill()
            victim.wait(10)
    return {node.name: {"since": since, "clean_restart": False, "extra_ms": 0, "crash": crash,
                        "why": "after the crash restart of its backends"}}


def no_preload(sim, rng):
    """A run without the library: calls fail saying it must be preloaded;
    then a clean stop, the library back, and a start."""
    node = rng.choice(sim.nodes)
    sim.note(f"{node.name} restarted without snowflake_id preloaded, then with it again")
    prev_run = sim.runs[node.name]
    node.stop("fast")
    node.set_preload(False)
    _start(sim, node, "without the preload")
    deadline = time.monotonic() + 10
    while True:
        p = sim.prober.probe(node)
        if p.ok:
            raise Violation(3, f"{node.name} minted {p.id} without the library preloaded")
        if NOT_PRELOADED in p.error:
            break
        if time.monotonic() > deadline:
            raise HarnessError(f"{node.name} without the preload: unexpected error {p.error}")
        time.sleep(config.POLL_PACE_S)
    node.stop("fast")
    node.set_preload(True)
    _start(sim, node, "with the preload back")
    t = _touched(node, clean_restart=True)
    t[node.name]["prev_run"] = prev_run
    return t


def freeze_node(sim, rng):
    """SIGSTOP of a node's postmaster and children until the registry lets
    its lease expire, then SIGCONT."""
    node = rng.choice(sim.nodes)
    extra_s = rng.choice((0, 0.5, 1.5))
    sim.note(f"SIGSTOP of {node.name} until its lease expired (+{extra_s} s), then SIGCONT")
    p = sim.prober.observe(node)
    node_id = p.after[1] if p.after and p.after[1] else None
    pids = node.freeze()
    try:
        deadline = time.monotonic() + (config.LEASE_TTL_MS + 5000) / 1000
        others = [n for n in sim.nodes if n is not node]
        while True:
            state = sim.registry.lease_state(node_id) if node_id else None
            if state in ("expired",) or (node_id is None and time.monotonic() > deadline - 4):
                break
            if time.monotonic() > deadline:
                raise HarnessError(f"{node.name} frozen: its lease on node id {node_id} did "
                                   f"not expire in the registry (state {state!r})")
            sim.watch(others, 0.1)
        sim.note(f"  lease of node id {node_id} expired in the registry")
        sim.watch(others, extra_s)
    finally:
        node.thaw(pids)
    return _touched(node, why="after its lease expired while it was frozen")


def registry_stop(sim, rng):
    down_ms = rng.choice((300, 1000, config.LEASE_TTL_MS + 500, config.LEASE_TTL_MS + 1500))
    sim.note(f"registry stopped for {down_ms} ms, then started")
    sim.registry.stop("fast")
    sim.watch(sim.nodes, down_ms / 1000)
    ok, out = sim.registry.start()
    if not ok:
        raise HarnessError(f"the registry did not start again: {out}")
    return sim.registry_back()


def registry_freeze(sim, rng):
    hang_ms = rng.choice((500, 2000, config.LEASE_TTL_MS + 500, config.LEASE_TTL_MS + 2500))
    sim.note(f"registry hung (SIGSTOP) for {hang_ms} ms, then SIGCONT")
    pids = sim.registry.freeze()
    try:
        sim.watch(sim.nodes, hang_ms / 1000)
    finally:
        sim.registry.thaw(pids)
    return sim.registry_back()


def clock_step(sim, rng):
    """A node's clock stepped back or forward (libfaketime), and restored
    within the event; on_clock_step_back reloaded to 'error' or 'switch_node'."""
    node = rng.choice(sim.nodes)
    mode = rng.choice(("error", "switch_node"))
    if rng.random() < 0.6:
        step_s = -rng.choice((1, 5, 30))
    else:
        step_s = rng.choice((0.5, 2))
    sim.note(f"{node.name}'s clock stepped {step_s:+g} s with on_clock_step_back = '{mode}' "
             f"(worker_id {node.worker_cfg}), then restored")
    if mode != node.mode:
        node.reload_setting("snowflake_id.on_clock_step_back", mode)
        node.mode = mode
    node.set_clock(step_s)
    try:
        sim.clients[node.name].await_calls(2, 10)
        # 10,000 calls span milliseconds: they need a new millisecond, which a
        # call with the clock behind cannot have within the last one's
        # sequence (with 'error': the clock-behind ERROR; with 'switch_node'
        # and 'auto': a switch of node id).
        count, error = sim.prober.mint_many(node, 10000, "step")
        sim.note(f"  {node.name} with its clock stepped: 10000 calls gave {count} IDs"
                 + (f", {error}" if error else ""))
        p = sim.prober.observe(node)
        sim.note(f"  ... then one call: {p.describe()}")
    finally:
        node.set_clock(0)
        if step_s > 0:
            node.forward_steps.append((step_s * 1000, time.time() * 1000))
    # Restoring a forward step is a step back by as much: with 'error', calls
    # that need a new millisecond may refuse until the clock has caught up.
    # A renewal made while the clock was ahead records that clock + lease_ttl:
    # the registry floor bound allows the step (invariant 6).
    return _touched(node, extra_ms=max(0, step_s) * 1000, clock_ahead_ms=max(0, step_s) * 1000,
                    why=f"after its clock stepped {step_s:+g} s and back")


def worker_reload(sim, rng):
    node = rng.choice(sim.nodes)
    value = "auto" if node.worker_cfg != "auto" else str(config.STATIC_ID_BASE + node.index)
    sim.note(f"{node.name}: snowflake_id.worker_id reloaded from {node.worker_cfg} to {value}")
    node.reload_setting("snowflake_id.worker_id", value)
    node.worker_cfg = value
    return _touched(node, why=f"after worker_id reloaded to {value}")


def idle(sim, rng):
    """No event: the clients mint for a while (the harness's own check)."""
    calls = rng.choice((3, 10))
    sim.note(f"idle: every client makes {calls} more calls")
    for c in sim.clients.values():
        if not c.await_calls(calls, 30):
            raise HarnessError(f"client of {c.node.name} made no progress")
    return {}


# What a new cluster made by pg_upgrade says when it must not issue
# (docs/upgrading.md, "Forgetting the copy"), by mistake.
UPGRADE_REFUSALS = {
    "forgotten": "this cluster was made by pg_upgrade and has no state file",
    "root_copy": "cannot be read by the server: Permission denied",
}


def pg_upgrade(sim, rng):
    """pg_upgrade of a node within the server's major (docs/upgrading.md):
    its client paused, a clean stop, a new cluster made by initdb with the
    node's settings (and its postgresql.auto.conf), pg_upgrade (plain,
    --check first, or --link), then one of the DBA's mistakes before the
    copy of the state file: none, the copy forgotten, or the copy made as
    root without -p. A start with the mistake must refuse to mint (a call
    that mints is a violation: the old cluster's IDs could repeat); the
    mistake repaired (cp -p), the new cluster is the node, and its first
    start a clean restart of it (invariant 4: no lead, as after a restart)."""
    node = rng.choice(sim.nodes)
    options = rng.choice(("plain", "--check", "--link"))
    mistake = rng.choice(("none", "forgotten", "root_copy" if AS_ROOT else "forgotten"))
    sim.note(f"pg_upgrade of {node.name} ({options}), its state file copied "
             + ("as the docs say" if mistake == "none" else
                "only after a start without it" if mistake == "forgotten" else
                "only after a start with a root-owned copy (cp without -p)"))
    upgrade = os.path.join(STAGE_BIN, "pg_upgrade")
    if not os.access(upgrade, os.X_OK):
        raise HarnessError(f"no {upgrade}: the pg_upgrade event needs a server with pg_upgrade "
                           f"(tests/lifecycle/run stages it where it exists)")
    client = sim.clients[node.name]
    prev_run = sim.runs[node.name]
    client.pause()
    try:
        node.stop("fast")
        node.copies += 1
        name = f"{node.name}.upgrade{node.copies}"
        new = SideServer(os.path.join(sim.dir, name), name, node.env)
        _initdb(new.dir, node.settings(node.worker_cfg, node.registry_conf))
        # ALTER SYSTEM's settings (worker_reload's) live there; pg_upgrade
        # does not carry them.
        run(as_server(["cp", "-p", os.path.join(node.data, "postgresql.auto.conf"),
                       new.data]), 30)
        work = os.path.join(new.dir, "run")
        make_dir(work)
        runs = [["--check"], []] if options == "--check" else [[] if options == "plain" else [options]]
        for extra in runs:
            p = run(as_server([upgrade, "-b", STAGE_BIN, "-B", STAGE_BIN, "-d", node.data,
                               "-D", new.data, "-s", work, "-p", "50432", "-P", "50433"] + extra),
                    300, check=False, cwd=work)
            if p.returncode != 0:
                raise HarnessError(f"pg_upgrade {' '.join(extra)} of {node.name} failed: "
                                   f"{(p.stdout + p.stderr).strip()[-2000:]}")
        old_state = os.path.join(node.data, "snowflake_id.state")
        new_state = os.path.join(new.data, "snowflake_id.state")
        if mistake != "none":
            if mistake == "root_copy":
                shutil.copy(old_state, new_state)  # root's, mode 0600
            ok, out = new.start()
            if not ok:
                raise Violation(3, f"{name} did not start ({mistake}): {out}")
            rc, got, err = new.sql("SELECT snowflake_nextval()")
            if rc == 0:
                raise Violation(1, f"{name}, made by pg_upgrade, minted {got.strip()} with its "
                                   f"state file {mistake}: the old cluster's IDs can repeat")
            if UPGRADE_REFUSALS[mistake] not in err:
                raise Violation(3, f"{name} ({mistake}) refused, but not saying "
                                   f"'{UPGRADE_REFUSALS[mistake]}': {err.strip()}")
            new.stop("fast")
            if mistake == "root_copy":
                os.unlink(new_state)
        run(as_server(["cp", "-p", old_state, new_state]), 30)
        ok, out = new.start()
        if not ok:
            raise Violation(3, f"{name} did not start with the state file copied: {out}")
        node.become(new, keep_old=bool(os.environ.get("SF_KEEP_WORK")))
    finally:
        client.resume()
    t = _touched(node, clean_restart=True)
    t[node.name]["prev_run"] = prev_run
    return t


# name -> (function, weight). The copies and successors (copies.py) take
# 1 of 50 each: each costs 10 to 25 s against 1 to 6 s for most others.
EVENTS = {
    "restart": (restart, 6),
    "restart_twice": (restart_twice, 2),
    "immediate": (immediate, 4),
    "kill_postmaster": (kill_postmaster, 2),
    "crash_loop": (crash_loop, 2),
    "promote": (promote, 2),
    "kill_backend": (kill_backend, 4),
    "no_preload": (no_preload, 2),
    "freeze_node": (freeze_node, 2),
    "registry_stop": (registry_stop, 4),
    "registry_freeze": (registry_freeze, 4),
    "clock_step": (clock_step, 6),
    "worker_reload": (worker_reload, 4),
    "idle": (idle, 2),
    "copy": (copies.copy, 1),
    "split_brain_restart": (copies.split_brain_restart, 1),
    "promote_registry_down": (copies.promote_registry_down, 1),
    "logical_restore": (copies.logical_restore, 1),
    "pg_upgrade": (pg_upgrade, 1),
}
