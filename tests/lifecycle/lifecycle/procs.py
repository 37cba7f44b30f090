"""Processes: commands as the server account, psql, pids, SIGSTOP bookkeeping.

Only processes this run started are ever signalled: servers by the pid in
their own postmaster.pid / redis.pid under the run's workspace, and their
children found by parent pid.
"""

import ctypes
import os
import signal
import subprocess
import time

from . import config

WORK = os.environ["SF_WORK"]
STAGE_BIN = os.environ["SF_STAGE_BIN"]
CLIENT_BIN = os.environ["SF_CLIENT_BIN"]
AS_ROOT = os.geteuid() == 0
SERVER_USER = "postgres" if AS_ROOT else None

# Pids stopped with SIGSTOP and not yet continued; mirrored in a file so that
# the wrapper's cleanup (tests/lifecycle/run) can thaw them if this process dies.
FROZEN_FILE = os.path.join(WORK, "frozen.pids")
_frozen = set()


class HarnessError(Exception):
    """The harness could not do what an event needs (not an invariant)."""


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


def make_dir(path):
    os.makedirs(path, exist_ok=True)
    os.chmod(path, 0o755)
    if AS_ROOT:
        run(["chown", f"{SERVER_USER}:", path], 10)


def psql(sockdir, *commands, timeout=config.PSQL_TIMEOUT_S, env=None):
    """psql against the server with its socket in sockdir: each command sent
    on its own (-c), going on after an error. Returns (rc, stdout, stderr)."""
    argv = [os.path.join(CLIENT_BIN, "psql"), "-h", sockdir, "-p", "5432", "-U", "postgres",
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
    A server process that was orphaned to this process is reaped here, by
    its pid (never waitpid(-1): that would take the exit status of a psql
    that subprocess is waiting for)."""
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


def await_gone(pids, timeout_s):
    deadline = time.monotonic() + timeout_s
    while any(alive(p) for p in pids):
        if time.monotonic() > deadline:
            raise HarnessError(f"processes {pids} still alive after {timeout_s} s")
        time.sleep(0.005)  # the pace of the poll; the condition is the exit


def _write_frozen():
    tmp = FROZEN_FILE + ".tmp"
    with open(tmp, "w") as f:
        f.write(" ".join(str(p) for p in sorted(_frozen)))
    os.replace(tmp, FROZEN_FILE)


def freeze(pids):
    """SIGSTOP pids (the first one first: the parent, so that it forks no more)."""
    _frozen.update(pids)
    _write_frozen()
    for p in pids:
        try:
            os.kill(p, signal.SIGSTOP)
        except ProcessLookupError:
            pass


def thaw(pids):
    for p in pids:
        try:
            os.kill(p, signal.SIGCONT)
        except ProcessLookupError:
            pass
    _frozen.difference_update(pids)
    _write_frozen()


def thaw_all():
    thaw(list(_frozen))


def tail(path, lines=25):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError as e:
        return f"({e})\n"
