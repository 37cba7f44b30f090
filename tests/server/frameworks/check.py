"""The checks of the Python recipes (django, sqlalchemy): each prints
"ok: ..."; the first that fails prints "FAIL: ..." and ends the run with 1,
and so does an exception no check expected (its traceback first).
frameworks.sh quotes the first FAIL line."""

import sys


def ok(what):
    print(f"ok: {what}", flush=True)


def fail(what):
    print(f"FAIL: {what}", flush=True)
    sys.exit(1)


def expect(cond, what, detail=""):
    if not cond:
        fail(f"{what}{': ' + detail if detail else ''}")
    ok(what)


def unexpected(kind, value, traceback):
    """An exception no assertion expected: the traceback, then one FAIL line."""
    sys.__excepthook__(kind, value, traceback)
    print(f"FAIL: {kind.__name__}: {(str(value).splitlines() or [''])[0]}", flush=True)


sys.excepthook = unexpected
