#!/usr/bin/env bash
# IDs in JSON read by a real JavaScript client: Node.js with the `pg` driver
# from the npm registry (installed into the workspace), reading
# SELECT json_agg(t) for a table keyed by snowflake and one keyed by bigint.
# The driver parses JSON with JSON.parse, as every JavaScript client does:
# the snowflake IDs, JSON strings, come through exactly; the bigint IDs,
# JSON numbers above 2^53, do not. Both are asserted: the second is why the
# type exists.
source "$(dirname "$0")/../lib/suite.sh"

command -v npm >/dev/null || sf_die "npm not found: run tools/ensure-deps"
client=$SF_WORK/client
mkdir -p "$client"
(cd "$client" && npm install --silent --no-audit --no-fund --prefix "$client" pg@8 >npm.log 2>&1) ||
    { cat "$client/npm.log" >&2; sf_die "npm install pg failed"; }
sf_log "ok: the pg driver is installed ($(node -p "require('$client/node_modules/pg/package.json').version"))"

sf_new j "snowflake_id.worker_id = 7"
sf_start j || sf_die "server did not start"
sf_psql j -c "CREATE EXTENSION snowflake_id" \
    -c "CREATE TABLE by_snowflake (id snowflake PRIMARY KEY DEFAULT snowflake_nextval(), n int)" \
    -c "CREATE TABLE by_bigint (id bigint PRIMARY KEY DEFAULT snowflake_nextval(), n int)" \
    -c "INSERT INTO by_snowflake (n) SELECT g FROM generate_series(1, 100) g" \
    -c "INSERT INTO by_bigint (n) SELECT g FROM generate_series(1, 100) g"
sf_psql j -c "SELECT id FROM by_snowflake ORDER BY n" >"$SF_WORK/snowflake.ids"
sf_psql j -c "SELECT id FROM by_bigint ORDER BY n" >"$SF_WORK/bigint.ids"
sf_expect_eq "the IDs are above 2^53, where JavaScript numbers lose digits" t \
    "$(sf_psql j -c "SELECT min(id) > 9007199254740992 FROM by_bigint")"

cat >"$client/read.js" <<'JS'
// Prints the id of every row of json_agg(t), ordered by n, as JavaScript
// sees it after the driver's JSON.parse.
const { Client } = require(process.argv[2] + '/node_modules/pg');
(async () => {
    const c = new Client({ host: process.argv[3], port: Number(process.argv[4]),
                           user: 'postgres', database: 'postgres' });
    await c.connect();
    const r = await c.query(`SELECT json_agg(t ORDER BY n) AS rows FROM ${process.argv[5]} t`);
    for (const row of r.rows[0].rows) console.log(String(row.id));
    await c.end();
})().catch((e) => { console.error(e); process.exit(1); });
JS
for t in by_snowflake by_bigint; do
    node "$client/read.js" "$client" "$(sf_sockdir j)" "$SF_PORT" "$t" >"$SF_WORK/$t.js" ||
        sf_die "the Node.js client failed on $t"
done
sf_expect_eq "JavaScript reads every snowflake ID exactly" "" \
    "$(diff "$SF_WORK/snowflake.ids" "$SF_WORK/by_snowflake.js")"
# Compared as strings: awk would compare these numbers as doubles, as JavaScript does.
differ=$(paste -d' ' "$SF_WORK/bigint.ids" "$SF_WORK/by_bigint.js" | awk '($1 "") != ($2 "")' | wc -l)
[ "$differ" -gt 0 ] || sf_die "every bigint ID survived JSON.parse: the test shows nothing"
sf_log "ok: JavaScript changes $differ of 100 bigint IDs (e.g. $(paste -d' ' "$SF_WORK/bigint.ids" \
    "$SF_WORK/by_bigint.js" | awk '($1 "") != ($2 "") {print $1 " -> " $2; exit}'))"
echo "json_client: all checks passed"
