"""The servers of one seed: three nodes and a registry (PostgreSQL or Redis),
each in its own directory under the seed's workspace. Mirrors the helpers of
tests/lib/cluster.sh (sf_new, sf_start, sf_crash, sf_new_registry, ...)."""

import os
import shutil
import signal
import time

from . import config
from .procs import (HarnessError, STAGE_BIN, as_server, await_gone, children, freeze,
                    kill_postmaster, make_dir, poll, psql, run, thaw)


def _initdb(dirpath, conf_lines):
    make_dir(dirpath)
    run(as_server([os.path.join(STAGE_BIN, "initdb"), "-D", os.path.join(dirpath, "data"),
                   "-U", "postgres", "-A", "trust", "--no-sync", "--lc-messages=C"]), 120)
    conf = ["listen_addresses = ''", f"unix_socket_directories = '{dirpath}'", "port = 5432",
            "fsync = off", "max_connections = 40"] + conf_lines
    with open(os.path.join(dirpath, "data", "postgresql.conf"), "a") as f:
        f.write("\n".join(conf) + "\n")


def write_clock(path, offset_s):
    """A libfaketime clock file: the real clock + offset_s (read at every
    clock reading; replaced atomically)."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(f"{offset_s:+g}\n")
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


class PgServer:
    """A PostgreSQL server in dirpath/data, socket in dirpath."""

    def __init__(self, dirpath, env=None):
        self.dir = dirpath
        self.data = os.path.join(dirpath, "data")
        self.log = os.path.join(dirpath, "server.log")
        self.env = env or {}

    def start(self):
        """pg_ctl start; (ok, pg_ctl's output)."""
        p = run(as_server([os.path.join(STAGE_BIN, "pg_ctl"), "-D", self.data, "-l", self.log,
                           "-w", "-t", str(config.START_TIMEOUT_S), "start"], self.env),
                config.START_TIMEOUT_S + 10, check=False)
        return p.returncode == 0, (p.stdout + p.stderr).strip()

    def stop(self, mode="fast"):
        pm = self.postmaster_pid()
        run(as_server([os.path.join(STAGE_BIN, "pg_ctl"), "-D", self.data, "-m", mode, "-w",
                       "-t", str(config.STOP_TIMEOUT_S), "stop"]), config.STOP_TIMEOUT_S + 10)
        self._reap(pm)

    def _reap(self, pm):
        """The stopped postmaster is this driver's child (procs.become_subreaper):
        reaped here, not left a zombie until the driver exits."""
        if pm is not None:
            await_gone([pm], 10)

    def promote(self):
        """pg_ctl promote -w of a standby; (ok, output)."""
        p = run(as_server([os.path.join(STAGE_BIN, "pg_ctl"), "-D", self.data, "-w", "-t",
                           str(config.START_TIMEOUT_S), "promote"]),
                config.START_TIMEOUT_S + 10, check=False)
        return p.returncode == 0, (p.stdout + p.stderr).strip()

    def restart(self):
        """pg_ctl restart -m fast; (ok, output)."""
        pm = self.postmaster_pid()
        p = run(as_server([os.path.join(STAGE_BIN, "pg_ctl"), "-D", self.data, "-l", self.log,
                           "-m", "fast", "-w", "-t", str(config.START_TIMEOUT_S), "restart"],
                          self.env), 2 * config.START_TIMEOUT_S + 10, check=False)
        if pm is not None and pm != self.postmaster_pid():
            self._reap(pm)
        return p.returncode == 0, (p.stdout + p.stderr).strip()

    def postmaster_pid(self):
        try:
            with open(os.path.join(self.data, "postmaster.pid")) as f:
                return int(f.readline())
        except (OSError, ValueError):
            return None

    def running(self):
        pid = self.postmaster_pid()
        return pid is not None and os.path.exists(f"/proc/{pid}")

    def crash(self):
        """SIGKILL for the postmaster and its children at once (sf_crash).
        Returns the real clock (Unix ms) read right after the signals: no
        process of the server issues an ID after that."""
        pm = self.postmaster_pid()
        if pm is None:
            raise HarnessError(f"{self.dir}: no postmaster.pid to crash")
        return kill_postmaster(pm, 30)

    def freeze(self):
        """SIGSTOP the postmaster, then its children; returns the pids."""
        pm = self.postmaster_pid()
        freeze([pm])
        pids = [pm] + children(pm)
        freeze(pids)
        return pids

    def thaw(self, pids):
        thaw(pids)

    def sql(self, *commands, timeout=config.PSQL_TIMEOUT_S):
        return psql(self.dir, *commands, timeout=timeout)

    def sql_ok(self, *commands):
        rc, out, err = self.sql(*commands)
        if rc != 0 or err.strip():
            raise HarnessError(f"{self.dir}: {commands}: {err.strip()}")
        return out.strip()

    def poll(self, sql, want, timeout_s, what, query_timeout_s=config.PSQL_TIMEOUT_S):
        """A bounded poll until sql gives want on this server."""

        def answer():
            rc, out, err = self.sql(sql, timeout=query_timeout_s)
            if rc == 0 and out.strip() == want:
                return True
            raise ValueError(f"{sql} gave {out.strip() or err.strip()!r}, not {want!r}")

        poll(what, answer, timeout_s, config.POLL_PACE_S)

    def stop_if_running(self):
        if self.running():
            pm = self.postmaster_pid()
            run(as_server([os.path.join(STAGE_BIN, "pg_ctl"), "-D", self.data, "-m",
                           "immediate", "-w", "stop"]), 60, check=False)
            self._reap(pm)


class Node(PgServer):
    """A node: snowflake_id preloaded, worker_id 'auto', leased from the
    registry; its wall clock faked by libfaketime through its own clock file."""

    def __init__(self, seed_dir, name, index, registry_conf, mode):
        self.name = name
        self.index = index
        self.seed_dir = seed_dir
        self.clock_file = os.path.join(seed_dir, name + ".clock")
        super().__init__(os.path.join(seed_dir, name), {
            "LD_PRELOAD": config.LIBFAKETIME, "FAKETIME_TIMESTAMP_FILE": self.clock_file,
            "FAKETIME_NO_CACHE": "1", "DONT_FAKE_MONOTONIC": "1"})
        self.registry_conf = registry_conf
        self.mode = mode  # on_clock_step_back
        self.worker_cfg = "auto"
        self.clock_offset_s = 0.0
        # (how far, the real clock in ms when restored) of every forward step
        # of its clock in this seed (clock_step): a lead it can explain.
        self.forward_steps = []
        self.standbys = 0  # standbys made of this node so far (promote, split brains)
        self.copies = 0  # copies and restores made of it so far (copies.py)
        self.previous_logs = []  # the logs of its primaries before promotions

    def create(self):
        self.set_clock(0)
        _initdb(self.dir, self.settings("auto", self.registry_conf))

    def settings(self, worker_id, registry_conf):
        """The node's postgresql.conf lines, with this worker_id and registry
        line (None: no registry)."""
        return [
            "shared_preload_libraries = 'snowflake_id'",
            f"snowflake_id.worker_id = '{worker_id}'",
        ] + ([registry_conf] if registry_conf else []) + [
            f"snowflake_id.lease_ttl = '{config.LEASE_TTL_MS}ms'",
            f"snowflake_id.max_clock_drift = '{config.MAX_CLOCK_DRIFT_MS}ms'",
            f"snowflake_id.on_clock_step_back = '{self.mode}'",
            f"snowflake_id.epoch = '{config.EPOCH}'",
            f"snowflake_id.datacenter_bits = {config.DATACENTER_BITS}",
            f"snowflake_id.worker_bits = {config.WORKER_BITS}",
            f"snowflake_id.sequence_bits = {config.SEQUENCE_BITS}",
        ]

    def set_clock(self, offset_s):
        """Steps the node's faked wall clock to the real clock + offset_s (the
        file is read at every clock reading; replaced atomically)."""
        write_clock(self.clock_file, offset_s)
        self.clock_offset_s = offset_s

    def new_restore_server(self, worker_id, clock_offset_s):
        """A new, empty server for a logical restore of this node's database:
        the node's settings, but the static worker_id given and no registry
        (a restore whose only guard against minting below what it restored
        is the extension's own), and a clock file of its own at
        clock_offset_s. Not started."""
        self.copies += 1
        name = f"{self.name}.restore{self.copies}"
        clock = os.path.join(self.seed_dir, name + ".clock")
        write_clock(clock, clock_offset_s)
        server = SideServer(os.path.join(self.seed_dir, name), name,
                            dict(self.env, FAKETIME_TIMESTAMP_FILE=clock), clock_offset_s)
        _initdb(server.dir, self.settings(worker_id, None))
        server.leases = False
        return server

    def set_preload(self, on):
        """Puts snowflake_id in shared_preload_libraries or takes it out, in
        postgresql.conf (while the server is stopped). (ALTER SYSTEM SET
        shared_preload_libraries = '' would write '""', a library named "".)"""
        path = os.path.join(self.data, "postgresql.conf")
        with open(path) as f:
            text = f.read()
        lines = {True: "shared_preload_libraries = 'snowflake_id'\n",
                 False: "shared_preload_libraries = ''\n"}
        if lines[not on] in text:
            text = text.replace(lines[not on], lines[on])
        elif lines[on] not in text:
            raise HarnessError(f"{self.name}: no shared_preload_libraries line in {path}")
        with open(path, "w") as f:  # in place: the owner stays the server account
            f.write(text)

    def new_standby(self):
        """A streaming hot standby of this node (which must be running), as
        sf_new_standby makes one: pg_basebackup -R in a directory of its own
        beside the node's (tests/lifecycle/run sweeps it up like a node's),
        socket there, every setting the node's (postgresql.conf and
        postgresql.auto.conf come with the copy), its clock the node's. Not
        started."""
        self.standbys += 1
        standby = SideServer(os.path.join(self.seed_dir, f"{self.name}.standby{self.standbys}"),
                             f"{self.name}.standby{self.standbys}", self.env)
        self._basebackup(standby, ["-R"])
        with open(os.path.join(standby.data, "postgresql.conf"), "a") as f:
            f.write(f"unix_socket_directories = '{standby.dir}'\nhot_standby = on\n")
        return standby

    def _basebackup(self, server, extra):
        basebackup = os.path.join(STAGE_BIN, "pg_basebackup")
        if not os.access(basebackup, os.X_OK):
            raise HarnessError(f"no {basebackup}: the promote and copy events need a server "
                               f"with pg_basebackup (tests/lib/cluster.sh stages it where it "
                               f"exists)")
        make_dir(server.dir)
        # --no-sync, as initdb's: the servers run with fsync = off.
        run(as_server([basebackup, "-h", self.dir, "-p", "5432", "-U", "postgres", "-D",
                       server.data, "-X", "stream", "-c", "fast", "--no-sync"] + extra), 120)

    def new_copy(self):
        """A base backup of this node (running), as a DBA restores one:
        pg_basebackup -X stream into a directory of its own beside the
        node's, with every setting of the node (worker_id, the registry;
        they come with the copy), its clock, and its socket there. Not
        started; the caller adds recovery.signal and any recovery target."""
        self.copies += 1
        name = f"{self.name}.copy{self.copies}"
        copy = SideServer(os.path.join(self.seed_dir, name), name, self.env)
        self._basebackup(copy, [])
        copy.override([f"unix_socket_directories = '{copy.dir}'",
                       # a synchronous standby the node once waited for is not the copy's
                       "synchronous_standby_names = ''"])
        return copy

    def discard_pid_file(self):
        """After a kill -9 of this node's postmaster that no start follows
        (promote): its postmaster.pid would name a pid the machine may give
        to another process, which tests/lifecycle/run's sweep would signal."""
        try:
            os.unlink(os.path.join(self.data, "postmaster.pid"))
        except FileNotFoundError:
            pass

    def become(self, promoted, keep_old):
        """From now on the promoted standby is this node: its socket is where
        the clients and probes connect. The crashed primary's data directory
        is removed (kept with SF_KEEP_WORK, without its pid file); its log
        stays, for a failure's report."""
        old_data = self.data
        self.previous_logs.append(self.log)
        self.dir, self.data, self.log = promoted.dir, promoted.data, promoted.log
        if not keep_old:
            shutil.rmtree(old_data)

    def reload_setting(self, name, value):
        """ALTER SYSTEM SET + pg_reload_conf, then a bounded poll until a new
        session sees it."""
        self.sql_ok(f"ALTER SYSTEM SET {name} = '{value}'", "SELECT pg_reload_conf()")
        self.poll(f"SHOW {name}", value, 10, f"{self.name}: {name} after the reload")


class PgRegistry(PgServer):
    kind = "pg"

    def __init__(self, seed_dir):
        super().__init__(os.path.join(seed_dir, "registry"))
        self.conf = (f"snowflake_id.registry = 'host={self.dir} port=5432 user=postgres "
                     f"dbname=postgres'")

    def create(self):
        _initdb(self.dir, [])
        ok, out = self.start()
        if not ok:
            raise HarnessError(f"the registry did not start: {out}")
        self.sql_ok("CREATE EXTENSION snowflake_id")

    def answers(self):
        rc, out, _ = self.sql("SELECT 1", timeout=5)
        return rc == 0 and out.strip() == "1"

    def lease_state(self, node_id):
        rc, out, _ = self.sql(f"SELECT state FROM snowflake_id.snowflake_registry_leases "
                              f"WHERE node_id = {int(node_id)}", timeout=5)
        return out.strip() if rc == 0 else None

    def recorded_bound(self, node_id):
        """The bound the registry recorded for node_id (reserved_until_ms: the
        holder's IDs carry times below it), or None."""
        rc, out, _ = self.sql(f"SELECT reserved_until_ms FROM snowflake_id.snowflake_registry_lease "
                              f"WHERE node_id = {int(node_id)}", timeout=5)
        return int(out.strip()) if rc == 0 and out.strip().isdigit() else None

    def freeze(self):
        return super().freeze()

    def recorded_position(self, node_id):
        """The WAL position the holder of node_id recorded with its lease (an
        integer), or None where the registry records none (before 1.7)."""
        rc, out, _ = self.sql(f"SELECT holder_wal_position FROM "
                              f"snowflake_id.snowflake_registry_lease WHERE node_id = "
                              f"{int(node_id)}", timeout=5)
        return int(out.strip()) if rc == 0 and out.strip().isdigit() else None


class RedisRegistry:
    kind = "redis"

    def __init__(self, seed_dir):
        self.dir = os.path.join(seed_dir, "registry")
        self.sock = os.path.join(self.dir, "redis.sock")
        self.pidfile = os.path.join(self.dir, "redis.pid")
        self.log = os.path.join(self.dir, "redis.log")
        self.conf = f"snowflake_id.registry = 'redis+unix://{self.sock}'"

    def cli(self, *args, timeout=config.PSQL_TIMEOUT_S):
        """redis-cli; HarnessError if it outlasts timeout (as long as a psql
        may take: on a loaded machine one run of it can take seconds)."""
        return run(["redis-cli", "-s", self.sock] + list(args), timeout, check=False)

    def create(self):
        make_dir(self.dir)
        ok, out = self.start()
        if not ok:
            raise HarnessError(f"redis did not start: {out}")
        # A new registry: hand out ids at once (README, "Redis that lost its data").
        self.cli("HSET", "snowflake_id:meta", "quarantine_until_ms", "0")

    def start(self):
        if os.path.exists(self.pidfile):
            os.unlink(self.pidfile)
        p = run(["redis-server", "--port", "0", "--unixsocket", self.sock, "--unixsocketperm",
                 "777", "--dir", self.dir, "--save", "", "--daemonize", "yes", "--pidfile",
                 self.pidfile, "--logfile", self.log, "--appendonly", "yes", "--appendfsync",
                 "always"], 30, check=False)
        if p.returncode != 0:
            return False, p.stderr
        deadline = time.monotonic() + config.START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.pid() and self.answers():
                return True, ""
            time.sleep(0.01)  # the pace of the poll; the condition is the PING
        return False, "redis-server did not answer PING"

    def pid(self):
        try:
            with open(self.pidfile) as f:
                return int(f.read().strip() or 0) or None
        except (OSError, ValueError):
            return None

    def answers(self):
        """Whether Redis answers PING. A PING that outlasts its time is no
        answer yet, as PgRegistry's SELECT 1 is: the callers poll until
        their own deadline (a loaded machine, or a Redis just thawed or
        restarted, can make one redis-cli run take seconds)."""
        if not os.path.exists(self.sock):
            return False
        try:
            p = self.cli("PING", timeout=5)
        except HarnessError:
            return False
        return p.stdout.strip() == "PONG"

    def stop(self, mode=None):
        pid = self.pid()
        if pid:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            await_gone([pid], 30)

    def stop_if_running(self):
        self.stop()

    def freeze(self):
        pids = [self.pid()]
        freeze(pids)
        return pids

    def thaw(self, pids):
        thaw(pids)

    def lease_state(self, node_id):
        """live, expired, released or '' (as sf_registry_lease)."""
        t = self.cli("TIME").stdout.split()
        h = self.cli("HMGET", f"snowflake_id:lease:{int(node_id)}", "expires_at_ms",
                     "released_at_ms").stdout.split("\n")
        if len(t) < 2 or not h or not h[0].strip():
            return None
        now_ms = int(t[0]) * 1000 + int(t[1]) // 1000
        expires, released = int(h[0]), int(h[1] or 0)
        if released != 0:
            return "released"
        return "live" if expires > now_ms else "expired"

    def recorded_bound(self, node_id):
        out = self.cli("HGET", f"snowflake_id:lease:{int(node_id)}",
                       "reserved_until_ms").stdout.strip()
        return int(out) if out.isdigit() else None

    def recorded_position(self, node_id):
        """As PgRegistry.recorded_position."""
        out = self.cli("HGET", f"snowflake_id:lease:{int(node_id)}",
                       "holder_wal_position").stdout.strip()
        return int(out) if out.isdigit() else None


def new_registry(store, seed_dir):
    return RedisRegistry(seed_dir) if store == "redis" else PgRegistry(seed_dir)


class SideServer(PgServer):
    """A server an event starts beside the nodes for its own length (a copy,
    a standby of a split brain, a logical restore): its directory beside the
    node's (tests/lifecycle/run sweeps it up like a node's), a name of its
    own in the ledger and the event log, the node's clock file unless it has
    one of its own."""

    def __init__(self, dirpath, name, env, clock_offset_s=0.0):
        super().__init__(dirpath, env)
        self.name = name
        self.clock_offset_s = clock_offset_s

    def override(self, lines):
        """Settings that win over what came with the copy (postgresql.auto.conf
        is read last; ALTER SYSTEM writes the node's own settings there)."""
        with open(os.path.join(self.data, "postgresql.auto.conf"), "a") as f:
            f.write("".join(line + "\n" for line in lines))

    def discard(self, keep):
        """Stops it if it still runs, and removes its data directory (kept
        with SF_KEEP_WORK, without its pid file); its log stays."""
        self.stop_if_running()
        try:
            os.unlink(os.path.join(self.data, "postmaster.pid"))
        except FileNotFoundError:
            pass
        if not keep:
            shutil.rmtree(self.data, ignore_errors=True)

    def timeline_switch(self):
        """(timeline, the LSN it left its parent timeline at, as text) from
        the newest timeline history file in pg_wal, or None on timeline 1."""
        wal = os.path.join(self.data, "pg_wal")
        names = sorted(n for n in os.listdir(wal) if n.endswith(".history"))
        if not names:
            return None
        with open(os.path.join(wal, names[-1])) as f:
            rows = [line.split() for line in f if line.strip() and not line.startswith("#")]
        return int(names[-1][:8], 16), rows[-1][1]


def lsn_text(position):
    """A 64-bit WAL position as PostgreSQL writes it (16/B374D848)."""
    return f"{position >> 32:X}/{position & 0xFFFFFFFF:X}"


def lsn_int(text):
    """A pg_lsn's text (16/B374D848) as the 64-bit integer it stands for."""
    hi, lo = text.split("/")
    return (int(hi, 16) << 32) | int(lo, 16)
