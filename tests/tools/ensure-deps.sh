#!/usr/bin/env bash
# make demo installs only what the demo needs (tools/ensure-deps demo):
# the compiler, PostgreSQL 15's server, client and headers and hiredis's
# headers, none of the tests' packages; and make deps (make test) needs
# every one of those too, so a demo that works on a machine set up for the
# tests is the demo a fresh machine gets.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
demo=$("$root/tools/ensure-deps" --list demo | sort)
tests=$("$root/tools/ensure-deps" --list | sort)
expected=$(printf '%s\n' g++ make postgresql-15 postgresql-client-15 postgresql-server-dev-15 \
    libhiredis-dev | sort)
[ "$demo" = "$expected" ] || fail "make demo would install: $(echo "$demo" | tr '\n' ' ')"
echo "ok: make demo installs only $(echo "$demo" | tr '\n' ' ')" >&2
extra=$(comm -23 <(echo "$demo") <(echo "$tests"))
[ -z "$extra" ] || fail "make demo needs what make deps does not install: $extra"
echo "ok: make deps installs everything make demo needs" >&2
grep -q '^demo: deps-demo$' "$root/Makefile" || fail "make demo no longer depends on deps-demo"
echo "ok: make demo depends on deps-demo only" >&2
