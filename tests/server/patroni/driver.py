#!/usr/bin/python3
"""The Patroni suite's driver (tests/server/patroni.sh starts it).

For each configuration in CONFIGS (static, per_member, auto): etcd and three
Patroni members, started here and stopped here; clients minting through a
multi-host connection string with target_session_attrs=read-write; a seeded
sequence of Patroni's events; then the checks (check_ids, check_members).

Environment: SF_WORK, SF_STAGE_BIN (from tests/lib/cluster.sh), SEED (default
1), SEEDS (runs SEED, SEED+1, ...), EVENTS (per configuration), CONFIGS.
"""
import os
import random
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.request
import json

import psycopg2
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "lib"))
import sfproc  # noqa: E402  (tests/lib: the lifecycle simulator's helpers too)
from sfproc import alive, children, freeze, thaw  # noqa: E402

WORK = os.environ["SF_WORK"]
BIN = os.environ["SF_STAGE_BIN"]
PIDS_FILE = os.path.join(WORK, "patroni.pids")
EVENT_KINDS = ["postmaster_kill", "node_loss", "switchover", "restart", "sync_toggle",
               "etcd_outage"]
# Bounds of every wait: generous, as the machine is shared.
HEALTH_TIMEOUT = 150
MEMBERS = 3
ALL_CONFIGS = ["static", "per_member", "auto"]


# A failed check and a harness that waited in vain both end the run.
Failure = sfproc.HarnessError


START = time.monotonic()


def log(msg):
    print(f"[{time.monotonic() - START:6.1f} s] {msg}", file=sys.stderr, flush=True)


def ok(msg):
    log("ok: " + msg)


def poll(what, fn, timeout=HEALTH_TIMEOUT, pace=0.2):
    # An error is a server, Patroni's API or etcd in the middle of an event.
    return sfproc.poll(what, fn, timeout, pace, errors=(psycopg2.Error, OSError, ValueError))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def record_pid(pid, kind):
    with open(PIDS_FILE, "a") as f:
        f.write(f"{pid} {kind}\n")


def sql1(port, query, **kw):
    rows = sfproc.sql(port, query, **kw)
    return rows[0][0] if rows else None


def as_postgres():
    return dict(user="postgres", group="postgres", extra_groups=[])


def merge(base, over):
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(base.get(k), dict):
            merge(base[k], v)
        else:
            base[k] = v
    return base


def fill(text, values):
    for k, v in values.items():
        text = text.replace(f"@{k}@", str(v))
    left = re.findall(r"@[A-Z_]+@", text)
    if left:
        raise Failure(f"placeholders left unfilled: {left}")
    return text


class Etcd:
    def __init__(self, root):
        self.dir = os.path.join(root, "etcd")
        os.makedirs(self.dir)
        self.port = free_port()
        self.peer_port = free_port()
        self.proc = None

    def start(self):
        peer = f"http://127.0.0.1:{self.peer_port}"
        client = f"http://127.0.0.1:{self.port}"
        out = open(os.path.join(self.dir, "etcd.log"), "a")
        self.proc = subprocess.Popen(
            ["etcd", "--name", "sf", "--data-dir", os.path.join(self.dir, "data"),
             "--listen-client-urls", client, "--advertise-client-urls", client,
             "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
             "--initial-cluster", f"sf={peer}", "--log-level", "warn"],
            stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        record_pid(self.proc.pid, "etcd")
        poll("etcd to answer", self.healthy, timeout=60, pace=0.05)

    def healthy(self):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=2) as r:
            return json.load(r).get("health") == "true"

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=60)
        self.proc = None


class Member:
    def __init__(self, cluster, index):
        self.cluster = cluster
        self.name = f"{cluster.scope}{index + 1}"
        self.index = index
        self.dir = os.path.join(cluster.root, self.name)
        self.data = os.path.join(self.dir, "data")
        self.pg_port = free_port()
        self.api_port = free_port()
        self.proc = None
        self.log = os.path.join(self.dir, "patroni.log")

    def write_config(self, extra):
        os.makedirs(self.dir)
        os.chown(self.dir, *pg_ids())
        values = dict(SCOPE=self.cluster.scope, NAME=self.name, API_PORT=self.api_port,
                      ETCD_PORT=self.cluster.etcd.port, PG_PORT=self.pg_port,
                      DATA_DIR=self.data, BIN_DIR=BIN, MEMBER_DIR=self.dir,
                      WORKER_ID=self.index + 1, **extra)
        with open(os.path.join(HERE, "member.yml.in")) as f:
            conf = yaml.safe_load(fill(f.read(), values))
        with open(os.path.join(HERE, f"{self.cluster.config}.yml")) as f:
            merge(conf, yaml.safe_load(fill(f.read(), values)))
        self.config_file = os.path.join(self.dir, "member.yml")
        with open(self.config_file, "w") as f:
            yaml.safe_dump(conf, f, sort_keys=False)
        self.config = conf

    def start(self):
        out = open(self.log, "a")
        self.proc = subprocess.Popen(["/usr/bin/patroni", self.config_file], cwd=self.dir,
                                     stdout=out, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, **as_postgres())
        record_pid(self.proc.pid, "patroni")

    def postmaster(self):
        try:
            with open(os.path.join(self.data, "postmaster.pid")) as f:
                pid = int(f.readline())
        except (OSError, ValueError):
            return None
        return pid if alive(pid) else None

    def kill(self):
        """A node loss: Patroni and the postmaster with its children, at once."""
        pids = []
        if self.proc and self.proc.poll() is None:
            pids.append(self.proc.pid)
        pm = self.postmaster()
        if pm:
            pids += [pm] + children(pm)
        sfproc.kill(pids)
        if self.proc:
            self.proc.wait()
        sfproc.await_gone(pids, 60, f"{self.name}'s processes")
        self.proc = None

    def kill_postmaster(self):
        pm = self.postmaster()
        if not pm:
            raise Failure(f"{self.name} has no postmaster to kill")
        sfproc.kill_postmaster(pm, 60, f"{self.name}'s postmaster and its children")

    def api(self, path):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.api_port}{path}", timeout=3) as r:
            return json.load(r)

    def sql(self, query, **kw):
        return sfproc.sql(self.pg_port, query, **kw)

    def sql1(self, query, **kw):
        return sql1(self.pg_port, query, **kw)


_pg_ids = None


def pg_ids():
    global _pg_ids
    if _pg_ids is None:
        import pwd
        pw = pwd.getpwnam("postgres")
        _pg_ids = (pw.pw_uid, pw.pw_gid)
    return _pg_ids


class Cluster:
    def __init__(self, root, scope, config, etcd, size, extra=None):
        self.root = root
        self.scope = scope
        self.config = config
        self.etcd = etcd
        self.members = [Member(self, i) for i in range(size)]
        for m in self.members:
            m.write_config(extra or {})

    def start(self):
        for m in self.members:
            m.start()

    def by_name(self, name):
        return next(m for m in self.members if m.name == name)

    def topology(self):
        """Patroni's view from the first member that answers."""
        for m in self.members:
            if m.proc is None:
                continue
            try:
                return m.api("/cluster")["members"]
            except OSError:
                continue
        return None

    def patronictl(self, *args):
        m = next(m for m in self.members if m.proc is not None)
        r = subprocess.run(["patronictl", "-c", m.config_file, *args], capture_output=True,
                           text=True, timeout=120)
        if r.returncode != 0:
            raise Failure(f"patronictl {' '.join(args)} failed: {r.stdout}{r.stderr}")
        return r.stdout

    def healthy_state(self, up):
        """The leader, once Patroni reports it and every member in `up`
        running, the leader's server a primary streaming to each of the
        others (one of them synchronous in synchronous_mode)."""
        topo = self.topology()
        if not topo:
            return None
        by = {t["name"]: t for t in topo}
        if set(by) != {m.name for m in up}:
            return None
        if any(t.get("state") != "running" for t in topo):
            return None
        leaders = [t["name"] for t in topo if t.get("role") == "leader"]
        if len(leaders) != 1:
            return None
        leader = self.by_name(leaders[0])
        if leader.sql1("SELECT pg_is_in_recovery()"):
            return None
        want = len(up) - 1
        rows = leader.sql("SELECT application_name, sync_state FROM pg_stat_replication "
                          "WHERE state = 'streaming'")
        if len(rows) != want:
            return None
        # In synchronous_mode, Patroni promotes only the member its /sync
        # key names (role sync_standby): until the key names the standby
        # the server waits for, a loss of the leader leaves none to promote.
        sync_names = [t["name"] for t in topo if t.get("role") == "sync_standby"]
        if self.want_sync and want and (
                len(sync_names) != 1 or (sync_names[0], "sync") not in rows):
            return None
        if not self.want_sync and any(s == "sync" for _, s in rows):
            return None
        return leader

    want_sync = False

    def await_healthy(self, up=None, what="the cluster to be healthy"):
        up = up if up is not None else self.members
        return poll(f"{self.scope}: {what}", lambda: self.healthy_state(up))


# --- clients -------------------------------------------------------------------

class Client(threading.Thread):
    """Mints through the multi-host connection string, reconnecting on every
    error; each line of its file: the monotonic time (ns) before the request,
    the time after the answer, the IDs."""
    BATCH = "SELECT snowflake_nextval() FROM generate_series(1, 50)"

    def __init__(self, dsn, path):
        super().__init__(daemon=True)
        self.dsn = dsn
        self.path = path
        self.stop = threading.Event()
        self.batches = 0
        self.errors = 0
        self.last_error = ""

    def run(self):
        with open(self.path, "w") as out:
            while not self.stop.is_set():
                try:
                    conn = psycopg2.connect(self.dsn)
                    conn.autocommit = True
                except psycopg2.Error as e:
                    self.errors += 1
                    self.last_error = str(e).strip()
                    self.stop.wait(0.1)  # the pace of reconnecting
                    continue
                try:
                    with conn.cursor() as cur:
                        while not self.stop.is_set():
                            t0 = time.monotonic_ns()
                            cur.execute(self.BATCH)
                            ids = [r[0] for r in cur.fetchall()]
                            t1 = time.monotonic_ns()
                            out.write(f"{t0} {t1} {' '.join(map(str, ids))}\n")
                            self.batches += 1
                            # The pace of the load: light on a shared machine.
                            self.stop.wait(0.005)
                except psycopg2.Error as e:
                    self.errors += 1
                    self.last_error = str(e).strip()
                finally:
                    conn.close()
            out.flush()


def await_clients_mint(clients):
    """Every client receives new IDs: they follow the leader."""
    before = [c.batches for c in clients]
    poll("every client to receive IDs",
         lambda: all(c.batches > b for c, b in zip(clients, before)),
         timeout=HEALTH_TIMEOUT)


# --- the checks -----------------------------------------------------------------

def check_ids(paths, layout):
    """No ID twice; per node id, every ID above every ID whose answer
    arrived before its request was sent."""
    seq_bits, node_bits = layout
    mask = (1 << node_bits) - 1
    seen = set()
    total = 0
    per_node = {}
    for path in paths:
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) < 3:
                    continue
                t0, t1 = int(parts[0]), int(parts[1])
                ids = [int(x) for x in parts[2:]]
                for i in ids:
                    if i in seen:
                        raise Failure(f"ID {i} was issued twice")
                    seen.add(i)
                total += len(ids)
                by_node = {}
                for i in ids:
                    by_node.setdefault((i >> seq_bits) & mask, []).append(i)
                for node, lst in by_node.items():
                    per_node.setdefault(node, []).append((t0, t1, min(lst), max(lst)))
    for node, batches in per_node.items():
        by_answer = sorted(batches, key=lambda b: b[1])
        running_max, k = -1, 0
        for t0, _, lo, _ in sorted(batches, key=lambda b: b[0]):
            while k < len(by_answer) and by_answer[k][1] < t0:
                running_max = max(running_max, by_answer[k][3])
                k += 1
            if lo <= running_max:
                raise Failure(f"node id {node}: ID {lo} is not above {running_max}, "
                              "received before it was requested")
    return total, sorted(per_node)


def check_the_checker():
    """check_ids on planted files: it passes IDs of overlapping requests in
    any order, and finds a repeated ID and an ID below one received before
    its request on the same node id (not on another)."""
    layout = (12, 10)
    def ident(ms, node, seq):
        return (ms << 22) | (node << 12) | seq
    cases = {
        "clean": ([(0, 10, [ident(5, 1, 0)]), (5, 20, [ident(4, 1, 1)]),
                   (30, 40, [ident(6, 1, 0), ident(1, 2, 0)])], None),
        "repeat": ([(0, 10, [ident(5, 1, 0)]), (30, 40, [ident(5, 1, 0)])], "twice"),
        "below": ([(0, 10, [ident(5, 1, 0)]), (30, 40, [ident(4, 1, 0)])], "not above"),
    }
    for name, (batches, want) in cases.items():
        path = os.path.join(WORK, f"checker.{name}")
        with open(path, "w") as f:
            for t0, t1, ids in batches:
                f.write(f"{t0} {t1} {' '.join(map(str, ids))}\n")
        try:
            check_ids([path], layout)
            got = None
        except Failure as e:
            got = str(e)
        if (want is None) != (got is None) or (want and want not in got):
            raise Failure(f"the checker on planted case {name}: {got}, want {want}")
    ok("the checker finds a planted repeat and a planted step back, and passes overlapping requests")


STANDBY_MESSAGE = "a standby takes no node id lease: it asks the registry for one once promoted"


def check_members(cluster, leader, layout, registry):
    """Every member's snowflake_status tells the truth."""
    seq_bits, _ = layout
    worker_bits = leader.sql1("SELECT worker_bits FROM snowflake_status()")
    nid = leader.sql1("SELECT snowflake_nextval()")
    node = (nid >> seq_bits) & ((1 << (worker_bits + leader.sql1(
        "SELECT datacenter_bits FROM snowflake_status()"))) - 1)
    (wid, dcid, source, lease, issued_at, reserved, ids_issued, expires_future) = leader.sql(
        "SELECT worker_id, datacenter_id, node_id_source, lease_state, "
        "last_issued_at IS NOT NULL, reserved_until >= snowflake_timestamp(%d), ids_issued, "
        "lease_expires_at > clock_timestamp() FROM snowflake_status()" % nid)[0]
    if ((dcid or 0) << worker_bits) | wid != node:
        raise Failure(f"{leader.name} (leader): status shows node id ({dcid}, {wid}), "
                      f"its IDs carry {node}")
    if not issued_at or not reserved or ids_issued < 1:
        raise Failure(f"{leader.name} (leader): status shows no issued ID under a reservation")
    if cluster.config == "auto":
        if source != "auto" or lease != "held" or not expires_future:
            raise Failure(f"{leader.name} (leader): lease {source} {lease}, expires in the "
                          f"future: {expires_future}")
        holder = registry.sql(
            "SELECT state, holder_data_directory FROM snowflake_id.snowflake_registry_leases "
            "JOIN snowflake_id.snowflake_registry_lease USING (node_id) "
            "WHERE node_id = %d" % node, dbname="snowflake_registry")
        if holder != [("live", leader.data)]:
            raise Failure(f"the registry's lease of node id {node}: {holder}, "
                          f"not live for {leader.data}")
    else:
        want = 1 if cluster.config == "static" else leader.index + 1
        if (wid, source, lease) != (want, "static", "none"):
            raise Failure(f"{leader.name} (leader): status {wid} {source} {lease}, "
                          f"want worker id {want}, static, none")
    ok(f"{cluster.scope}: {leader.name} leads and mints on node id {node}, as its status says")
    for m in cluster.members:
        if m is leader:
            continue
        row = m.sql("SELECT pg_is_in_recovery(), worker_id, lease_state, lease_message, "
                    "ids_issued, last_issued_at IS NULL, ahead_of_clock_ms IS NULL, "
                    "reserved_until FROM snowflake_status()")[0]
        rec, wid, lease, message, issued, no_last, no_ahead, reserved = row
        if not rec or issued != 0 or not no_last or not no_ahead or reserved is None:
            raise Failure(f"{m.name} (standby): status {row}")
        if cluster.config == "auto":
            if (wid, lease, message) != (None, "waiting", STANDBY_MESSAGE):
                raise Failure(f"{m.name} (standby): status {row}")
        else:
            want = 1 if cluster.config == "static" else m.index + 1
            if (wid, lease) != (want, "none"):
                raise Failure(f"{m.name} (standby): status {row}")
        if not leader.sql1(f"SELECT reserved_until >= '{reserved.isoformat()}'::timestamptz "
                           "FROM snowflake_status()"):
            raise Failure(f"{m.name} (standby): reserved_until {reserved} above the leader's")
    ok(f"{cluster.scope}: every standby's status is a standby's")


# --- events ---------------------------------------------------------------------

def plan(seed, configs, events):
    """The events of each configuration, dealt from one deck of every kind,
    reshuffled when used up: every kind comes up across a run of two
    events per kind. The registry's failover comes at a random place."""
    rng = random.Random(seed)
    deck = []
    out = {}
    for config in configs:
        seq = []
        for _ in range(events):
            if not deck:
                deck = EVENT_KINDS[:]
                rng.shuffle(deck)
            kind = deck.pop()
            if kind == "node_loss":
                seq.append(("node_loss", round(rng.uniform(0.5, 1.5), 1)))
            elif kind == "etcd_outage":
                seq.append(("etcd_outage", round(rng.uniform(1, 6), 1)))
            elif kind in ("switchover", "restart"):
                seq.append((kind, rng.randrange(1000)))
            else:
                seq.append((kind, None))
        if config == "auto":
            seq.insert(rng.randrange(len(seq) + 1), ("registry_failover", None))
        out[config] = seq
    return out


def show(event):
    kind, arg = event
    if kind == "node_loss":
        return f"node_loss(replication stalled {arg} s)"
    if kind == "etcd_outage":
        return f"etcd_outage({arg} s)"
    if kind in ("switchover", "restart"):
        return f"{kind}(pick {arg})"
    return kind


def freeze_walsenders(leader):
    """Stalls replication at the leader: its walsenders stopped (SIGSTOP),
    it goes on writing WAL the standbys never receive. (Stopping the
    walreceivers instead loses nothing: what the walsenders send meanwhile
    waits in the sockets.)"""
    pids = [r[0] for r in leader.sql("SELECT pid FROM pg_stat_replication")]
    freeze(pids)
    return pids


def run_event(event, cluster, etcd, registry_cluster, clients):
    kind, arg = event
    leader = cluster.await_healthy()
    if kind == "postmaster_kill":
        leader.kill_postmaster()
        ok(f"{leader.name}'s postmaster killed")
    elif kind == "node_loss":
        frozen = freeze_walsenders(leader)
        try:
            # What the standbys have, as the stopped walsenders left it.
            sent = leader.sql1("SELECT max(sent_lsn) FROM pg_stat_replication")
            # The stall's length, at least, and then until the leader has
            # WAL the standbys lack (a reservation comes every half second
            # under load): the kill loses it.
            time.sleep(arg)
            lost = poll("the leader to write WAL the standbys lack", lambda: leader.sql1(
                f"SELECT pg_wal_lsn_diff(pg_current_wal_flush_lsn(), '{sent}') "
                f"WHERE pg_current_wal_flush_lsn() > '{sent}'"), timeout=60)
            leader.kill()
        finally:
            thaw(frozen)
        ok(f"{leader.name} lost (Patroni and PostgreSQL killed) with {int(lost)} bytes of WAL "
           "its standbys never received")
        rest = [m for m in cluster.members if m is not leader]
        new = cluster.await_healthy(rest, f"another member to lead after {leader.name}'s loss")
        ok(f"{new.name} leads")
        await_clients_mint(clients)
        rewinds = count_rewinds(leader)
        leader.start()
        cluster.await_healthy(what=f"{leader.name} to rejoin")
        if count_rewinds(leader) > rewinds:
            ok(f"{leader.name} rejoined through pg_rewind")
            cluster.rewinds += 1
        else:
            ok(f"{leader.name} rejoined (no pg_rewind needed)")
    elif kind == "switchover":
        replicas = sorted((m for m in cluster.members if m is not leader), key=lambda m: m.name)
        if cluster.want_sync:
            sync = leader.sql1("SELECT application_name FROM pg_stat_replication "
                               "WHERE sync_state = 'sync'")
            replicas = [cluster.by_name(sync)]
        cand = replicas[arg % len(replicas)]
        cluster.patronictl("switchover", cluster.scope, "--leader", leader.name,
                           "--candidate", cand.name, "--force")
        poll(f"{cand.name} to lead", lambda: cluster.healthy_state(cluster.members) is cand)
        ok(f"switchover from {leader.name} to {cand.name}")
    elif kind == "restart":
        m = sorted(cluster.members, key=lambda m: m.name)[arg % len(cluster.members)]
        cluster.patronictl("restart", cluster.scope, m.name, "--force")
        ok(f"{m.name} restarted ({'leader' if m is leader else 'replica'})")
    elif kind == "sync_toggle":
        cluster.want_sync = not cluster.want_sync
        cluster.patronictl("edit-config", cluster.scope, "--force",
                           "--set", f"synchronous_mode={'true' if cluster.want_sync else 'false'}")
        ok(f"synchronous_mode {'on' if cluster.want_sync else 'off'}")
    elif kind == "etcd_outage":
        etcd.stop()
        time.sleep(arg)  # the outage's length, not a synchronisation
        etcd.start()
        ok(f"etcd was down for {arg} s")
    elif kind == "registry_failover":
        rleader = registry_cluster.await_healthy()
        rleader.kill()
        rest = [m for m in registry_cluster.members if m is not rleader]
        new = registry_cluster.await_healthy(rest, "the registry's standby to lead")
        ok(f"registry failed over from {rleader.name} to {new.name} under load")
        rleader.start()
        registry_cluster.await_healthy(what=f"{rleader.name} to rejoin the registry")
    cluster.await_healthy()
    await_clients_mint(clients)


def count_rewinds(member):
    try:
        with open(member.log) as f:
            return sum(1 for line in f if "running pg_rewind from" in line)
    except OSError:
        return 0


# --- a run -----------------------------------------------------------------------

def run_config(seed, config, events):
    root = os.path.join(WORK, f"seed-{seed}-{config}")
    os.makedirs(root)
    os.chown(root, *pg_ids())
    etcd = Etcd(root)
    etcd.start()
    clusters = []
    clients = []
    try:
        registry = None
        extra = {}
        if config == "auto":
            registry = Cluster(root, "registry", "registry", etcd, 2)
            registry.want_sync = True
            clusters.append(registry)
            registry.start()
            extra = dict(REGISTRY_HOSTS=",".join("127.0.0.1" for _ in registry.members),
                         REGISTRY_PORTS=",".join(str(m.pg_port) for m in registry.members))
        cluster = Cluster(root, "main", config, etcd, MEMBERS, extra)
        cluster.rewinds = 0
        clusters.append(cluster)
        # Both clusters start side by side: the members ask the registry
        # for a lease until it answers.
        cluster.start()
        if registry:
            rleader = registry.await_healthy(what="the registry to start")
            rleader.sql("CREATE DATABASE snowflake_registry")
            rleader.sql("CREATE EXTENSION snowflake_id", dbname="snowflake_registry")
            ok("the registry, a Patroni cluster of two, runs")
        leader = cluster.await_healthy(what="the cluster to start")
        leader.sql("CREATE EXTENSION snowflake_id")
        ok(f"{MEMBERS} members run, {leader.name} leads")
        hosts = ",".join("127.0.0.1" for _ in cluster.members)
        ports = ",".join(str(m.pg_port) for m in cluster.members)
        dsn = (f"host={hosts} port={ports} user=postgres dbname=postgres connect_timeout=2 "
               "target_session_attrs=read-write options='-c statement_timeout=30s'")
        clients = [Client(dsn, os.path.join(root, f"client{i}.ids")) for i in range(2)]
        for c in clients:
            c.start()
        await_clients_mint(clients)
        for k, event in enumerate(events):
            log(f"--- seed {seed}, {config}, event {k + 1}/{len(events)}: {show(event)}")
            run_event(event, cluster, etcd, registry, clients)
        leader = cluster.await_healthy(what="the cluster to be healthy at the end")
        for c in clients:
            c.stop.set()
        for c in clients:
            c.join()
        layout = leader.sql("SELECT sequence_bits, datacenter_bits + worker_bits "
                            "FROM snowflake_status()")[0]
        total, nodes = check_ids([c.path for c in clients], layout)
        ok(f"{config}: {total} IDs from {sum(c.batches for c in clients)} requests, "
           f"{sum(c.errors for c in clients)} failed requests or connections, on node ids "
           f"{nodes}: none twice, each above those received before it on its node id")
        check_members(cluster, leader, layout, registry.await_healthy() if registry else None)
        log(f"info: {config}: {cluster.rewinds} member(s) rejoined through pg_rewind")
    finally:
        for c in clients:
            c.stop.set()
        for c in clients:
            c.join(timeout=30)
        stop_all(clusters, etcd)


def stop_all(clusters, etcd):
    for cl in clusters:
        for m in cl.members:
            if m.proc and m.proc.poll() is None:
                m.proc.kill()
                m.proc.wait()
            m.proc = None
    for cl in clusters:
        for m in cl.members:
            if m.postmaster():
                subprocess.run([os.path.join(BIN, "pg_ctl"), "-D", m.data, "-m", "immediate",
                                "-w", "stop"], capture_output=True, **as_postgres())
    etcd.stop()


def main():
    seed = int(os.environ.get("SEED", "1"))
    seeds = int(os.environ.get("SEEDS", "1"))
    events = int(os.environ.get("EVENTS", "4"))
    configs = os.environ.get("CONFIGS", "static per_member auto").split()
    for c in configs:
        if c not in ALL_CONFIGS:
            raise SystemExit(f"CONFIGS: no configuration {c} (static, per_member, auto)")
    try:
        check_the_checker()
    except Failure as e:
        log(f"FAIL: {e}")
        return 1
    for s in range(seed, seed + seeds):
        # Planned for every configuration, whichever run: CONFIGS=auto
        # replays the auto part of a run of all three.
        runs = plan(s, ALL_CONFIGS, events)
        for config in configs:
            log(f"=== seed {s}, {config}: " + ", ".join(show(e) for e in runs[config]))
            try:
                run_config(s, config, runs[config])
            except Failure as e:
                log(f"FAIL: seed {s}, {config}: {e}")
                log(f"    replay: make test-patroni SEED={s} CONFIGS={config} EVENTS={events}")
                return 1
    log("patroni: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
