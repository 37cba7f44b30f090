"""One seed: a registry, three nodes, their clients, and STEPS random events,
with every invariant checked after every step."""

import os
import random
import shutil
import time

from . import config, events
from .clients import Client
from .ledger import Ledger, Violation
from .probe import Prober
from .procs import WORK, HarnessError, make_dir, tail, thaw_all
from .servers import Node, new_registry


class Simulation:
    def __init__(self, seed, store, steps, event_names):
        self.seed = seed
        self.store = store
        self.steps = steps
        self.failure = None  # what failed, for the summary (report)
        self.rng = random.Random(seed)
        self.event_names = event_names
        self.dir = os.path.join(WORK, f"seed-{seed}")
        self.log = []  # the event log: what a failure prints
        self.ledger = Ledger()
        self.prober = Prober(self.ledger, self.log)
        self.registry = new_registry(store, self.dir)
        modes = [self.rng.choice(("error", "switch_node")) for _ in config.NODES]
        self.nodes = [Node(self.dir, name, k, self.registry.conf, modes[k])
                      for k, name in enumerate(config.NODES)]
        self.clients = {}
        self.standbys = []  # standbys made and not (yet) promoted (promote)
        self.side = []  # servers an event of copies.py runs beside the nodes
        self.runs = {}  # node name -> its current run (pg_postmaster_start_time)
        # How far the newest ID of any node lay ahead of the clock when the
        # current step began (invariant 6, the registry floor bound).
        self.reach_lead_ms = 0
        self.events_run = 0

    def note(self, line):
        self.log.append(line)
        print(f"  {line}", flush=True)

    # --- set-up and tear-down ------------------------------------------------
    def setup(self):
        make_dir(self.dir)
        self.registry.create()
        for node in self.nodes:
            node.create()
            ok, out = node.start()
            if not ok:
                raise HarnessError(f"{node.name} did not start: {out}")
            node.sql_ok("CREATE EXTENSION snowflake_id")
        self.note(f"set-up: registry ({self.store}), nodes "
                  + ", ".join(f"{n.name} (on_clock_step_back {n.mode})" for n in self.nodes))
        for node in self.nodes:
            c = Client(node, self.ledger, self.seed, os.path.join(self.dir, f"{node.name}.ids"))
            self.clients[node.name] = c
            c.start()
        self.settle({n.name: {"since": time.monotonic(), "clean_restart": False, "extra_ms": 0}
                     for n in self.nodes})

    def teardown(self, keep):
        if keep:
            with open(os.path.join(self.dir, "events.log"), "w") as f:
                f.write("".join(line + "\n" for line in self.log))
        for c in self.clients.values():
            c.stop_flag.set()
        thaw_all()
        for c in self.clients.values():
            c.join(60)
        for server in self.nodes + self.standbys + self.side:
            server.stop_if_running()
        self.registry.stop_if_running()
        if not keep:
            shutil.rmtree(self.dir, ignore_errors=True)

    # --- watching and settling ------------------------------------------------
    def watch(self, nodes, seconds):
        """Probes the nodes in turn for `seconds` (the event's own duration),
        checking snowflake_status against each call (invariant 5)."""
        end = time.monotonic() + seconds
        while True:
            for node in nodes:
                self.prober.observe(node, timeout=10)
            if time.monotonic() >= end:
                return
            time.sleep(config.POLL_PACE_S)

    def registry_back(self):
        """Once the registry answers again: every node's liveness clock starts.
        The deadline is the harness's, not an invariant's: liveness counts
        from the answer."""
        deadline = time.monotonic() + config.START_TIMEOUT_S
        while not self.registry.answers():
            if time.monotonic() > deadline:
                raise HarnessError("the registry does not answer")
            time.sleep(0.01)  # the pace of the poll; the condition is the answer
        now = time.monotonic()
        return {n.name: {"since": now, "clean_restart": False, "extra_ms": 0,
                         "why": "after the registry came back"} for n in self.nodes}

    def settle(self, touched):
        """After an event: every node mints within the liveness bound (3);
        after a clean restart, the first ID is near the clock (4); after a
        crash, within the crash bound, and everywhere within the registry
        floor bound (6); every ID so far is unique (1) and increases within
        its run (2)."""
        probes = {}
        for node in self.nodes:
            t = touched.get(node.name, {"since": time.monotonic(), "extra_ms": 0})
            bound = config.LIVENESS_BOUND_MS + t["extra_ms"]
            probes[node.name] = self.prober.await_mint(node, t["since"], bound,
                                                       "after this step")
        self.ledger.check()
        for node in self.nodes:
            t = touched.get(node.name)
            p = probes[node.name]
            if t and t.get("clean_restart"):
                prev = t.get("prev_run", self.runs.get(node.name))
                self.prober.check_restart(node, p, prev)
            self.check_lead(node, p, t or {})
            self.runs[node.name] = p.run
        self.ledger.check()

    def check_lead(self, node, probe, t):
        """Invariant 6 on a node's first successful probe after the step (or
        after one crash of a crash loop): the crash bound after a crash
        restart that kept the node id, the registry floor bound always."""
        if t.get("crash"):
            self.prober.check_crash_lead(node, probe, t["crash"])
        if t.get("promotion"):
            self.prober.check_promotion(node, probe, t["promotion"])
        self.prober.check_floor_lead(node, probe, self.reach_lead_ms,
                                     t.get("clock_ahead_ms", 0), t.get("why", "after this step"),
                                     quiet=not t)

    # --- the run ---------------------------------------------------------------
    def pick_event(self):
        names = self.event_names
        weights = [events.EVENTS[n][1] for n in names]
        return self.rng.choices(names, weights)[0]

    def run(self):
        """True if every invariant held; prints the failure otherwise."""
        t0 = time.monotonic()
        keep = bool(os.environ.get("SF_KEEP_WORK"))
        step = 0
        try:
            self.setup()
            for step in range(1, self.steps + 1):
                name = self.pick_event()
                self.note(f"step {step}: {name}")
                self.prober.step = step
                self.ledger.check()
                self.reach_lead_ms = self.ledger.reach_ms - time.time() * 1000
                began = time.monotonic()
                touched = events.EVENTS[name][0](self, self.rng)
                self.events_run += 1
                self.settle(touched)
                self.note(f"  step {step} took {time.monotonic() - began:.1f} s")
            took = time.monotonic() - t0
            lead, name, where = self.prober.largest_lead
            print(f"seed {self.seed}: passed, {self.steps} steps, {self.ledger.count} IDs, "
                  f"{took:.1f} s; largest lead {lead:.0f} ms ({name}, {where}); "
                  f"{self.client_summary()}", flush=True)
            return True
        except (Violation, HarnessError) as e:
            self.report(step, e)
            return False
        finally:
            self.teardown(keep)

    def client_summary(self):
        parts = []
        for name, c in self.clients.items():
            errs = sum(c.errors.values())
            parts.append(f"{name} {c.calls} calls, {c.ids} IDs, {errs} errors")
        return "; ".join(parts)

    def report(self, step, e):
        kind = "harness error" if isinstance(e, HarnessError) else "FAILED"
        # Repeated in the run's summary (__main__): the logs printed below
        # are long, and whoever reads only the end of a CI log must still
        # see what failed.
        self.failure = f"seed {self.seed} {kind} at step {step} (store {self.store}): {e}"
        print(f"\nlifecycle: {self.failure}")
        print(f"replay: SEED={self.seed} STEPS={step} STORE={self.store} tests/lifecycle/run")
        print("--- event log")
        for line in self.log:
            print(f"  {line}")
        print("--- clients: " + self.client_summary())
        for name, c in self.clients.items():
            for cls, n in c.errors.most_common(6):
                print(f"    {name}: {n} x {cls}")
        logs = [log for node in self.nodes for log in node.previous_logs[-1:] + [node.log]]
        for log in logs + [s.log for s in self.standbys + self.side] + [self.registry.log]:
            print(f"--- last lines of {os.path.relpath(log, WORK)}")
            print(tail(log).rstrip())
        print(flush=True)
