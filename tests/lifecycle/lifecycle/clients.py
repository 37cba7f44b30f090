"""Clients that mint on every node all the time: one thread per node, one
psql per call, each call a COPY of single calls or of one block, streamed,
so every ID that reached the client is recorded, also when the call fails
midway. Errors are expected while a node is down or refuses; they are
counted, not fatal."""

import collections
import random
import re
import threading
import time

from . import config
from .procs import psql

SINGLE = ("COPY (SELECT snowflake_nextval(), pg_postmaster_start_time() "
          "FROM generate_series(1, {n})) TO STDOUT")
BLOCK = ("COPY (SELECT id, pg_postmaster_start_time() FROM snowflake_nextval({n}) id) "
         "TO STDOUT")


def error_class(stderr):
    """The first error line, numbers and paths masked: a class to count."""
    for line in stderr.splitlines():
        m = re.search(r"(ERROR|FATAL|error|could not|server closed|timed out).*", line)
        if m:
            text = re.sub(r"\d+", "N", m.group(0))
            return re.sub(r'"/[^"]*"', '"PATH"', text)[:120]
    return stderr.strip()[:120] or "no output"


def parse_rows(stdout):
    """(run, id) pairs from COPY's output."""
    rows = []
    for line in stdout.splitlines():
        parts = line.split("\t")
        if len(parts) == 2 and parts[0].isdigit():
            rows.append((parts[1], int(parts[0])))
    return rows


class Client(threading.Thread):
    def __init__(self, node, ledger, seed, log_path):
        super().__init__(daemon=True, name=f"client-{node.name}")
        self.node = node
        self.ledger = ledger
        self.rng = random.Random(f"{seed}-client-{node.name}")  # block sizes only
        self.stop_flag = threading.Event()
        self.paused = threading.Event()
        self.idle = threading.Event()  # set while no call is in flight
        self.idle.set()
        self.calls = 0
        self.ids = 0
        self.errors = collections.Counter()
        self.log = open(log_path, "w")

    def run(self):
        while not self.stop_flag.is_set():
            if self.paused.is_set():
                self.idle.set()
                time.sleep(config.POLL_PACE_S)  # the pace of a paused client
                continue
            self.idle.clear()
            if self.paused.is_set():  # paused between the check and the clear
                continue
            n = self.rng.choice((1, 1, 10, self.rng.randint(1, config.CLIENT_MAX_BLOCK)))
            sql = (BLOCK if self.rng.random() < 0.5 else SINGLE).format(n=n)
            rc, out, err = psql(self.node.dir, sql)
            rows = parse_rows(out)
            by_run = collections.defaultdict(list)
            for run, i in rows:
                by_run[run].append(i)
            for run, ids in by_run.items():
                self.ledger.add(self.node.name, "client", run, ids)
                self.log.write("".join(f"{run}\t{i}\n" for i in ids))
            self.calls += 1
            self.ids += len(rows)
            ok = rc == 0 and not err.strip()
            if not ok:
                cls = error_class(err)
                self.errors[cls] += 1
                self.log.write(f"# error: {cls}\n")
            self.idle.set()
            time.sleep(config.CLIENT_PACE_OK_S if ok else config.CLIENT_PACE_ERR_S)
        self.log.close()

    def pause(self, timeout_s=60):
        """Returns once no call is in flight and none will start."""
        self.paused.set()
        if not self.idle.wait(timeout_s):
            raise TimeoutError(f"client of {self.node.name} did not pause")

    def resume(self):
        self.paused.clear()

    def await_calls(self, more, timeout_s):
        """Bounded wait until this client has made `more` further calls."""
        target = self.calls + more
        deadline = time.monotonic() + timeout_s
        while self.calls < target and time.monotonic() < deadline:
            time.sleep(0.01)  # the pace of the poll; the condition is the call count
        return self.calls >= target
