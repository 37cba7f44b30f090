#!/usr/bin/env python3
"""Writes each driver snippet of docs/client-drivers.md to DIR/NAME.py or
DIR/NAME.js, so that the drivers suite runs exactly what the page shows.

A snippet is the fenced block right after a line `<!-- driver-snippet: NAME -->`.
Fails if a name the suite needs is missing or given twice.

Usage: snippets.py DOC DIR
"""
import re
import sys

NEEDED = {"psycopg2": "py", "psycopg": "py", "asyncpg": "py",
          "sqlalchemy-asyncpg": "py", "node-postgres": "js"}


def main(doc, out):
    lines = open(doc, encoding="utf-8").read().splitlines()
    found = {}
    i = 0
    while i < len(lines):
        m = re.fullmatch(r"<!-- driver-snippet: ([\w-]+) -->", lines[i].strip())
        i += 1
        if not m:
            continue
        name = m.group(1)
        if name in found:
            sys.exit(f"{doc}: snippet {name} is given twice")
        if i >= len(lines) or not lines[i].startswith("```"):
            sys.exit(f"{doc}: no fenced block after the marker of snippet {name}")
        body = []
        i += 1
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(lines[i])
            i += 1
        found[name] = "\n".join(body) + "\n"
    missing = sorted(set(NEEDED) - set(found))
    if missing:
        sys.exit(f"{doc}: no snippet for {', '.join(missing)}")
    for name, text in found.items():
        ext = NEEDED.get(name)
        if ext is None:
            sys.exit(f"{doc}: snippet {name} is not run by the drivers suite")
        with open(f"{out}/{name}.{ext}", "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main(*sys.argv[1:])
