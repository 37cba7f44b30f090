"""Processes of the Python test harnesses (the lifecycle simulator,
tests/lifecycle/, and the Patroni driver, tests/server/patroni/): the server
account, pids, SIGKILL and SIGSTOP, bounded polls and SQL.

Only processes a run started are ever signalled: the callers pass pids read
from their own postmaster.pid / redis.pid files under their workspace, or
the children of those. What is frozen is mirrored in $SF_WORK/frozen.pids,
so that the shell wrapper's EXIT trap (SF_FROZEN_PIDS, tests/lib/cluster.sh)
can thaw it if the harness dies.
"""

import ctypes
import os
import signal
import subprocess
import time

AS_ROOT = os.geteuid() == 0
SERVER_USER = "postgres" if AS_ROOT else None


class HarnessError(Exception):
    """The harness could not do what it needed, or waited in vain."""


def as_server(argv, env=None):
    """argv run as the server account (runuser when root), with env added."""
    prefix = ["runuser", "-u", SERVER_USER, "--"] if AS_ROOT else []
    extra = ["env"] + [f"{k}={v}" for k, v in (env or {}).items()] if env else []
    return prefix + extra + argv


def run(argv, timeout, check=True, **kw):
    """Runs argv to completion within timeout seconds; returns CompletedProcess."""
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, **kw)
    except subprocess.TimeoutExpired as e:
        raise HarnessError(f"timed out after {timeout} s: {' '.join(argv)}") from e
    if check and p.returncode != 0:
        raise HarnessError(f"{' '.join(argv)} failed ({p.returncode}): {p.stderr.strip()}")
    return p


def poll(what, fn, timeout, pace, errors=(OSError, ValueError)):
    """Calls fn until it returns a true value, which it returns; HarnessError
    after timeout seconds. An exception of errors counts as a false answer
    (a server in the middle of an event). The pace leaves the CPU to the
    servers; the condition is fn's answer."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        try:
            got = fn()
            if got:
                return got
            last = got
        except errors as e:
            last = e
        if time.monotonic() > deadline:
            raise HarnessError(f"waited {timeout} s in vain for {what}; last: {last}")
        time.sleep(pace)


def psql(client_bin, sockdir, *commands, timeout, env=None):
    """psql against the server with its socket in sockdir: each command sent
    on its own (-c), going on after an error. Returns (rc, stdout, stderr);
    rc 124 when it timed out."""
    argv = [os.path.join(client_bin, "psql"), "-h", sockdir, "-p", "5432", "-U", "postgres",
            "-d", "postgres", "-X", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=0"]
    for c in commands:
        argv += ["-c", c]
    penv = dict(os.environ, PGCONNECT_TIMEOUT="10", PGOPTIONS="-c statement_timeout=20000")
    penv.update(env or {})
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=penv)
    except subprocess.TimeoutExpired:
        return 124, "", f"psql timed out after {timeout} s"
    return p.returncode, p.stdout, p.stderr


def sql(port, query, host="127.0.0.1", dbname="postgres", timeout=5):
    """query's rows (None for a statement without any) through psycopg2,
    autocommit, within timeout seconds of statement time."""
    import psycopg2  # the lifecycle simulator runs psql and needs none

    conn = psycopg2.connect(host=host, port=port, user="postgres", dbname=dbname,
                            connect_timeout=3, options=f"-c statement_timeout={timeout * 1000}")
    try:
        conn.autocommit = True
        with conn.cursor() as cur:
            cur.execute(query)
            return cur.fetchall() if cur.description else None
    finally:
        conn.close()


def children(pid):
    """The direct children of pid (from /proc)."""
    kids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        # pid (comm) state ppid ...: comm may hold spaces, so split after ')'.
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[1]) == pid:
            kids.append(int(entry))
    return kids


PR_SET_CHILD_SUBREAPER = 36


def become_subreaper():
    """Makes this process the reaper of every orphan among its descendants:
    a postmaster (whose pg_ctl has exited), its backends once it is killed,
    a daemonized redis-server. A killed postmaster is then reaped the moment
    it dies (alive() below), not when the machine's init gets to it (about
    2 s in some containers): a crash restart, and a crash loop, run as fast
    as the server restarts, wherever the simulator runs."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise HarnessError(f"prctl(PR_SET_CHILD_SUBREAPER): {os.strerror(ctypes.get_errno())}")


def alive(pid):
    """Whether pid exists, zombies included: a server's pid stays taken (and
    a new postmaster refuses to start over its lock file) until it is reaped.
    A process that is this one's child (or was orphaned to it) is reaped
    here, by its pid (never waitpid(-1): that would take the exit status of a
    psql that subprocess is waiting for; subprocess.Popen copes with a child
    reaped behind its back)."""
    try:
        if os.waitpid(pid, os.WNOHANG)[0] == pid:
            return False
    except ChildProcessError:
        pass  # not our child: its parent reaps it
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def await_gone(pids, timeout_s, what=None):
    poll(f"{what or f'processes {pids}'} to be gone", lambda: not any(alive(p) for p in pids),
         timeout_s, 0.005)  # the pace of the poll; the condition is the exit


def send(pids, sig):
    """sig to each of pids, in their order, that still exists."""
    for p in pids:
        try:
            os.kill(p, sig)
        except ProcessLookupError:
            pass


def kill(pids):
    send(pids, signal.SIGKILL)


def kill_postmaster(pm, timeout_s, what=None):
    """SIGKILL for the postmaster pm and its children at once, as a power
    loss (sf_crash); returns the real clock (Unix ms) read right after the
    signals, when no process of the server issues an ID any more, and
    returns once every one of them is gone (reaped)."""
    pids = [pm] + children(pm)
    kill(pids)
    killed_ms = time.time() * 1000
    await_gone(pids, timeout_s, what)
    return killed_ms


_frozen = set()


def _write_frozen():
    path = os.path.join(os.environ["SF_WORK"], "frozen.pids")
    with open(path + ".tmp", "w") as f:
        f.write(" ".join(str(p) for p in sorted(_frozen)))
    os.replace(path + ".tmp", path)


def freeze(pids):
    """SIGSTOP pids, in their order (a parent first, so that it forks no
    more), recorded first in frozen.pids."""
    _frozen.update(pids)
    _write_frozen()
    send(pids, signal.SIGSTOP)


def thaw(pids):
    send(pids, signal.SIGCONT)
    _frozen.difference_update(pids)
    _write_frozen()


def thaw_all():
    thaw(list(_frozen))
