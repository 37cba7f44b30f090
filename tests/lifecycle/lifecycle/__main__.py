"""python3 -m lifecycle (run by tests/lifecycle/run, which stages the build).

Environment: STORE=pg|redis (default pg); SEED=n (one seed) or SEEDS=k
(seeds FIRST_SEED .. FIRST_SEED + k - 1, FIRST_SEED default 1); STEPS=n
events per seed (default 12); EVENTS=a,b,... only those events (names in
events.py; EVENTS=idle runs no event at all, only the clients minting).
"""

import os
import signal
import sys
import time

from . import config, events
from .procs import become_subreaper
from .sim import Simulation


def _terminate(signum, frame):
    raise SystemExit(128 + signum)


def main():
    signal.signal(signal.SIGTERM, _terminate)
    signal.signal(signal.SIGINT, _terminate)
    become_subreaper()
    store = os.environ.get("STORE", "pg")
    store = {"postgresql": "pg"}.get(store, store)
    if store not in ("pg", "redis"):
        sys.exit(f"STORE must be pg or redis, not {store!r}")
    steps = int(os.environ.get("STEPS", "12"))
    if os.environ.get("SEED"):
        seeds = [int(os.environ["SEED"])]
    else:
        first = int(os.environ.get("FIRST_SEED", "1"))
        seeds = list(range(first, first + int(os.environ.get("SEEDS", "1"))))
    names = [n for n in os.environ.get("EVENTS", "").split(",") if n] or list(events.EVENTS)
    unknown = [n for n in names if n not in events.EVENTS]
    if unknown:
        sys.exit(f"unknown events {unknown}; known: {', '.join(events.EVENTS)}")

    print(f"lifecycle: store {store}, seeds {seeds}, {steps} steps each; "
          f"events {', '.join(names)}")
    print(f"lifecycle: {config.describe()}", flush=True)
    passed = failed = events_run = 0
    failures = []
    t0 = time.monotonic()
    for seed in seeds:
        print(f"=== seed {seed} (replay: SEED={seed} STEPS={steps} STORE={store})", flush=True)
        sim = Simulation(seed, store, steps, names)
        if sim.run():
            passed += 1
        else:
            failed += 1
            failures.append(sim.failure)
        events_run += sim.events_run
    print(f"lifecycle: {events_run} events ran in {time.monotonic() - t0:.0f} s")
    for failure in failures:
        print(f"lifecycle: {failure}")
    print(f"lifecycle: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


sys.exit(main())
