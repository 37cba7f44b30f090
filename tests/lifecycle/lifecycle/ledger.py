"""Every ID returned, with where it came from; invariants 1 and 2.

An ID's origin: the node, the stream (that node's client, or the driver's
probes: each is one session after another, so its IDs come in issue
order), the run (the server's pg_postmaster_start_time, returned with every
ID: a run is the time between two starts of the node, as the server itself
says, whatever the client thought), and a serial number.
"""

import threading

from . import config

SEQ_SHIFT = 0
NODE_SHIFT = config.SEQUENCE_BITS
TS_SHIFT = config.SEQUENCE_BITS + config.WORKER_BITS + config.DATACENTER_BITS
NODE_MASK = (1 << (config.WORKER_BITS + config.DATACENTER_BITS)) - 1


def node_bits(i):
    return (i >> NODE_SHIFT) & NODE_MASK


def ts_ms(i):
    """The Unix time in ms an ID carries."""
    return (i >> TS_SHIFT) + config.EPOCH_UNIX_MS


class Violation(Exception):
    def __init__(self, invariant, message):
        super().__init__(f"invariant {invariant}: {message}")
        self.invariant = invariant


class Ledger:
    def __init__(self):
        self._lock = threading.Lock()
        self._pending = []  # (node, stream, run, id, when) not yet checked
        self.origin = {}  # id -> (node, stream, run, serial)
        self.last = {}  # (node, stream, run, node_bits) -> (id, serial)
        self.max_ts = {}  # (node, run) -> the newest ID time of that run
        self.newest = {}  # (node, run) -> the largest ID of that run
        self.first = {}  # (node, run) -> the smallest ID of that run
        self.span = {}  # (node, run, node id) -> [smallest, largest] ID of that run on it
        self.reach_ms = 0  # the newest ID time of any node, any run (invariant 6)
        self.serial = 0
        self.count = 0

    def add(self, node, stream, run, ids):
        with self._lock:
            self._pending.extend((node, stream, run, i) for i in ids)

    def check(self):
        """Invariants 1 and 2 over the IDs added since the last check."""
        with self._lock:
            batch, self._pending = self._pending, []
        for node, stream, run, i in batch:
            self.serial += 1
            where = (node, stream, run, self.serial)
            if i in self.origin:
                raise Violation(1, f"ID {i} (node id {node_bits(i)}, time {ts_ms(i)}) repeats: "
                                   f"first from {fmt(self.origin[i])}, again from {fmt(where)}")
            self.origin[i] = where
            self.count += 1
            key = (node, stream, run, node_bits(i))
            prev = self.last.get(key)
            if prev is not None and i <= prev[0]:
                raise Violation(2, f"{node} ({stream}, run {run}): ID {i} (serial {self.serial}) "
                                   f"is not above the earlier ID {prev[0]} (serial {prev[1]}) "
                                   f"of the same run on node id {node_bits(i)}")
            self.last[key] = (i, self.serial)
            nr = (node, run)
            self.max_ts[nr] = max(self.max_ts.get(nr, 0), ts_ms(i))
            self.newest[nr] = max(self.newest.get(nr, 0), i)
            self.reach_ms = max(self.reach_ms, ts_ms(i))
            if nr not in self.first or i < self.first[nr]:
                self.first[nr] = i
            span = self.span.setdefault((node, run, node_bits(i)), [i, i])
            span[0], span[1] = min(span[0], i), max(span[1], i)


def fmt(origin):
    node, stream, run, serial = origin
    return f"{node}/{stream} run {run} serial {serial}"
