#!/usr/bin/env bash
# Real client drivers against a table keyed by bigint and one keyed by
# snowflake (docs/client-drivers.md): the Debian packages python3-psycopg2,
# python3-psycopg, python3-asyncpg and python3-sqlalchemy, and npm's pg
# (installed into the workspace). Each inserts, reads, updates and deletes by
# id without the page's registration snippet (the problem, asserted as it
# is) and with it (ints both ways); the snippets run are the page's own,
# taken from its marked blocks, so the page cannot drift from the test.
# Decimal parameters (numeric) against the snowflake key are tested too.
source "$(dirname "$0")/../lib/suite.sh"

# Debian's Python, where the Debian packages are (not a python3 earlier in PATH).
python=/usr/bin/python3
"$python" -c 'import psycopg2, psycopg, asyncpg, sqlalchemy' 2>/dev/null ||
    sf_die "the Python drivers are missing: run tools/ensure-deps"
command -v npm >/dev/null || sf_die "npm not found: run tools/ensure-deps"
client=$SF_WORK/client
mkdir -p "$client"
(cd "$client" && npm install --silent --no-audit --no-fund --prefix "$client" pg@8 >npm.log 2>&1) ||
    { cat "$client/npm.log" >&2; sf_die "npm install pg failed"; }

here=$SF_ROOT/tests/server/drivers
mkdir -p "$SF_WORK/snippets"
"$python" "$here/snippets.py" "$SF_ROOT/docs/client-drivers.md" "$SF_WORK/snippets" ||
    sf_die "the snippets of docs/client-drivers.md could not be taken out"

sf_new d "snowflake_id.worker_id = 7"
sf_start d || sf_die "server did not start"
sf_psql d -c "CREATE EXTENSION snowflake_id" \
    -c "CREATE TABLE k_bigint (id bigint PRIMARY KEY DEFAULT snowflake_nextval(), note text)" \
    -c "CREATE TABLE k_snowflake (id snowflake PRIMARY KEY DEFAULT snowflake_nextval(), note text)"

"$python" "$here/python_drivers.py" "$(sf_sockdir d)" "$SF_PORT" "$SF_WORK/snippets" ||
    sf_die "the Python drivers"
node "$here/node_driver.js" "$client" "$(sf_sockdir d)" "$SF_PORT" "$SF_WORK/snippets" ||
    sf_die "node-postgres"
echo "drivers: all checks passed"
