"""Processes: the lifecycle simulator's side of tests/lib/sfproc.py (the
helpers the Patroni driver shares), with this run's directories and
timeouts. Only processes this run started are ever signalled: servers by the
pid in their own postmaster.pid / redis.pid under the run's workspace, and
their children found by parent pid.
"""

import os
import sys

from . import config

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from sfproc import (AS_ROOT, SERVER_USER, HarnessError, alive, as_server, await_gone,
                    become_subreaper, children, freeze, kill_postmaster, poll, run, thaw,
                    thaw_all)
import sfproc

WORK = os.environ["SF_WORK"]
STAGE_BIN = os.environ["SF_STAGE_BIN"]
CLIENT_BIN = os.environ["SF_CLIENT_BIN"]


def make_dir(path):
    os.makedirs(path, exist_ok=True)
    os.chmod(path, 0o755)
    if AS_ROOT:
        run(["chown", f"{SERVER_USER}:", path], 10)


def psql(sockdir, *commands, timeout=config.PSQL_TIMEOUT_S, env=None):
    """psql against the server with its socket in sockdir (sfproc.psql)."""
    return sfproc.psql(CLIENT_BIN, sockdir, *commands, timeout=timeout, env=env)


def tail(path, lines=25):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError as e:
        return f"({e})\n"
