#!/usr/bin/env bash
# snowflake_adopt() where pg_regress cannot reach (sql/snowflake_adopt.sql
# tests the rest):
#  - it takes its lock before it checks: a row with a value the generator
#    could issue, inserted by a transaction still open when snowflake_adopt()
#    is called, is seen once that transaction commits, and refused;
#  - with to_snowflake, it warns of other sessions connected to the database
#    (statements they prepared that return the column fail after the type
#    change): a real client that prepared INSERT ... RETURNING id is counted,
#    and its statement then fails with 0A000 as the warning says, until
#    DISCARD ALL; another role's session is counted for a caller who cannot
#    see its type; no warning without a type change, nor when only sessions
#    of other databases are connected;
#  - a database with adopted tables (a bigserial whose sequence is kept,
#    with a foreign key pointing at it; an identity converted to the
#    snowflake type, with a bigint foreign key pointing at it; a bigserial
#    whose sequence was dropped) dumps with pg_dump and restores with psql
#    into a new database without an error (the dump leaves the schema
#    snowflake_id, the extension's, to CREATE EXTENSION): the same rows,
#    defaults, types and valid foreign keys; inserts there mint IDs above
#    the old values, and the foreign keys are enforced.
# Runs on the system's PostgreSQL only (tests/all-versions leaves it out):
# the servers tools/fetch-pg assembles have no pg_dump of their own, and
# an older pg_dump refuses a newer server.
source "$(dirname "$0")/../lib/suite.sh"

# No autovacuum: its workers, connected to a database, would count as
# sessions whose type an unprivileged caller cannot see, at random moments.
sf_new s "snowflake_id.worker_id = 9" "autovacuum = off"
sf_start s || sf_die "the server did not start"
sf_psql s -c "CREATE EXTENSION snowflake_id"

# --- the lock comes before the check -------------------------------------------
sf_psql s -c "CREATE TABLE race (id bigserial PRIMARY KEY)" \
    -c "INSERT INTO race SELECT FROM generate_series(1, 100)"
far=$(sf_psql s -c "SELECT snowflake_compose('2060-01-01', 1, 0)")
fifo=$SF_WORK/holder
mkfifo "$fifo"
sf_psql s <"$fifo" >"$SF_WORK/holder.out" 2>&1 &
holder=$!
exec {holder_fd}>"$fifo"
echo "BEGIN; INSERT INTO race VALUES ($far);" >&"$holder_fd"
sf_poll s "SELECT count(*) FROM pg_locks WHERE relation = 'race'::regclass AND granted
           AND mode = 'RowExclusiveLock'" 1
sf_psql s -c "SELECT snowflake_adopt('race', 'id')" >"$SF_WORK/adopt.out" 2>&1 &
adopter=$!
sf_poll s "SELECT count(*) FROM pg_locks WHERE relation = 'race'::regclass AND NOT granted
           AND mode = 'AccessExclusiveLock'" 1
sf_log "ok: snowflake_adopt() waits for the lock while the insert is open"
printf 'COMMIT;\n\\q\n' >&"$holder_fd"
exec {holder_fd}>&-
wait "$holder"
if wait "$adopter"; then
    sf_die "snowflake_adopt() switched race despite $far: $(cat "$SF_WORK/adopt.out")"
fi
sf_expect_match "... and, once it has it, refuses the value the insert committed" \
    "ERROR: +column id of table public.race holds $far, which snowflake_nextval\(\) could issue again" \
    "$(cat "$SF_WORK/adopt.out")"
sf_expect_eq "race keeps its sequence's default" "nextval('race_id_seq'::regclass)" \
    "$(sf_psql s -c "SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef WHERE adrelid = 'race'::regclass")"

# --- to_snowflake and other sessions' prepared statements ---------------------------
sf_psql s -c "CREATE DATABASE app" -c "CREATE ROLE keeper LOGIN" -c "CREATE ROLE clerk LOGIN"
app() { sf_psql s -d app "$@"; }
app -c "CREATE EXTENSION snowflake_id" \
    -c "CREATE TABLE items (id bigserial PRIMARY KEY, n integer)" \
    -c "CREATE TABLE plain (id bigserial PRIMARY KEY)" \
    -c "CREATE TABLE quiet (id bigserial PRIMARY KEY)" \
    -c "CREATE TABLE theirs (id bigserial PRIMARY KEY)" \
    -c "ALTER TABLE theirs OWNER TO keeper"
# A client of app that prepared INSERT ... RETURNING id and ran it, as
# JDBC, asyncpg or Npgsql do; its application_name says it is ready.
client_fifo=$SF_WORK/client
mkfifo "$client_fifo"
app -v ON_ERROR_STOP=0 <"$client_fifo" >"$SF_WORK/client.out" 2>&1 &
client=$!
exec {client_fd}>"$client_fifo"
echo "PREPARE add AS INSERT INTO items (n) VALUES (1) RETURNING id; EXECUTE add;
      SET application_name = 'prepared';" >&"$client_fd"
sf_poll s "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'prepared'" 1
out=$(app -c "SELECT snowflake_adopt('plain', 'id')" 2>&1)
[[ $out != *WARNING* ]] || sf_die "a warning without a type change: $out"
sf_log "ok: no warning when the type does not change, with a client connected"
out=$(app -c "SELECT snowflake_adopt('items', 'id', to_snowflake => true)" 2>&1)
sf_expect_match "with to_snowflake, the client connected to app is counted and warned of" \
    "WARNING: +1 other session is connected to database app: statements prepared there that return column id of table public.items fail once this transaction commits" \
    "$out"
sf_expect_match "... and the warning says what to do" \
    'HINT: +After the commit, reconnect those sessions \(restart the connection pools\) or run DISCARD ALL in them' \
    "$out"
echo 'EXECUTE add;
      DISCARD ALL;
      PREPARE add AS INSERT INTO items (n) VALUES (2) RETURNING id; EXECUTE add;
      \q' >&"$client_fd"
exec {client_fd}>&-
wait "$client"
client_errors=$(grep ERROR "$SF_WORK/client.out" || true)
sf_expect_match "the client's prepared statement fails after the adopt, as the warning says" \
    'ERROR: +cached plan must not change result type$' "$client_errors"
sf_expect_eq "... its only error" 1 "$(wc -l <<<"$client_errors")"
sf_expect_eq "... and works again once prepared anew, minting an ID" t \
    "$(app -c "SELECT count(*) = 1 AND min(id) > 1000000 FROM items WHERE n = 2")"
# Another role's session: an unprivileged caller cannot see its type, and
# counts it.
clerk_fifo=$SF_WORK/clerk
mkfifo "$clerk_fifo"
"$SF_CLIENT_BIN/psql" -h "$(sf_sockdir s)" -p "$SF_PORT" -U clerk -d app -X -q \
    -c "SET application_name = 'clerk'" -f - <"$clerk_fifo" >/dev/null 2>&1 &
clerk=$!
exec {clerk_fd}>"$clerk_fifo"
sf_poll s "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'clerk'" 1
out=$("$SF_CLIENT_BIN/psql" -h "$(sf_sockdir s)" -p "$SF_PORT" -U keeper -d app -X -q \
    -c "SELECT snowflake_adopt('theirs', 'id', to_snowflake => true)" 2>&1)
sf_expect_match "a session of another role is counted for a caller who cannot see its type" \
    "WARNING: +1 other session is connected to database app: .* column id of table public.theirs " \
    "$out"
exec {clerk_fd}>&-
wait "$clerk"
# Only sessions of other databases (this one's, a holder in postgres):
# once the clients' backends are gone, no warning.
holder_fifo=$SF_WORK/elsewhere
mkfifo "$holder_fifo"
sf_psql s <"$holder_fifo" >/dev/null 2>&1 &
holder=$!
exec {holder_fd}>"$holder_fifo"
echo "SET application_name = 'elsewhere';" >&"$holder_fd"
sf_poll s "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'elsewhere'" 1
sf_poll s "SELECT count(*) FROM pg_stat_activity WHERE datname = 'app'" 0
out=$(app -c "SELECT snowflake_adopt('quiet', 'id', to_snowflake => true)" 2>&1)
[[ $out != *WARNING* ]] || sf_die "a warning with no other session in app: $out"
sf_log "ok: no warning when only sessions of other databases are connected"
exec {holder_fd}>&-
wait "$holder"

# --- pg_dump and restore -----------------------------------------------------------
sf_psql s -c "CREATE DATABASE shop"
shop() { sf_psql s -d "$1" "${@:2}"; }
shop shop -c "CREATE EXTENSION snowflake_id" \
    -c "CREATE TABLE orders (id bigserial PRIMARY KEY, note text)" \
    -c "INSERT INTO orders (note) SELECT 'old ' || g FROM generate_series(1, 500) g" \
    -c "CREATE TABLE order_lines (order_id bigint NOT NULL REFERENCES orders, line integer)" \
    -c "INSERT INTO order_lines SELECT id, 1 FROM orders" \
    -c "CREATE TABLE customers (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, name text)" \
    -c "INSERT INTO customers (name) SELECT 'c' || g FROM generate_series(1, 50) g" \
    -c "CREATE TABLE invoices (id bigserial PRIMARY KEY, customer_id bigint NOT NULL REFERENCES customers)" \
    -c "INSERT INTO invoices (customer_id) SELECT id FROM customers" \
    -c "SELECT snowflake_adopt('orders', 'id')" \
    -c "SELECT snowflake_adopt('customers', 'id', to_snowflake => true)" \
    -c "SELECT snowflake_adopt('invoices', 'id', drop_sequence => true)" \
    -c "INSERT INTO orders (note) VALUES ('adopted')" \
    -c "INSERT INTO customers (name) VALUES ('adopted')" >/dev/null

# What must come through: every row, the defaults, the types, the
# constraints and whether they are valid, the sequences.
# shellcheck disable=SC2016 # SQL's $$ quotes, not the shell's
state='SELECT string_agg(x, E'"'"'\n'"'"' ORDER BY x) FROM (
    SELECT format($$%s.%s %s default %s$$, c.relname, a.attname, format_type(a.atttypid, a.atttypmod),
                  pg_get_expr(d.adbin, d.adrelid)) AS x
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
         LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    WHERE c.relnamespace = $$public$$::regnamespace AND c.relkind = $$r$$ AND a.attnum > 0
      AND c.relname NOT LIKE $$snowflake%$$
    UNION ALL
    SELECT format($$%s %s valid %s$$, conname, pg_get_constraintdef(oid), convalidated)
    FROM pg_constraint WHERE connamespace = $$public$$::regnamespace
    UNION ALL
    SELECT format($$sequence %s$$, relname) FROM pg_class
    WHERE relkind = $$S$$ AND relnamespace = $$public$$::regnamespace) s'
rows='SELECT md5(string_agg(t, E'"'"'\n'"'"' ORDER BY t)) FROM (
    SELECT format($$%s %s$$, id, note) AS t FROM orders
    UNION ALL SELECT format($$%s %s$$, order_id, line) FROM order_lines
    UNION ALL SELECT format($$%s %s$$, id, name) FROM customers
    UNION ALL SELECT format($$%s %s$$, id, customer_id) FROM invoices) r'
before_state=$(shop shop -c "$state")
before_rows=$(shop shop -c "$rows")
sf_expect_eq "the tables are shop's" shop "$(shop shop -c "SELECT current_database()")"
sf_expect_eq "before the dump: orders' sequence is kept, the identity's and invoices' are gone" \
    "sequence orders_id_seq" "$(grep '^sequence ' <<<"$before_state")"
sf_expect_match "... and customers.id is a snowflake column defaulting to snowflake_nextval()" \
    '^customers\.id snowflake default snowflake_nextval\(\)$' "$before_state"

"$SF_CLIENT_BIN/pg_dump" -h "$(sf_sockdir s)" -p "$SF_PORT" -U postgres -d shop \
    -f "$SF_WORK/shop.sql" || sf_die "pg_dump failed"
sf_psql s -c "CREATE DATABASE shop2"
shop shop2 -v ON_ERROR_STOP=1 -f "$SF_WORK/shop.sql" >"$SF_WORK/restore.out" 2>&1 ||
    { cat "$SF_WORK/restore.out" >&2; sf_die "the dump did not restore"; }
sf_log "ok: the dump restores into a new database without an error"
sf_expect_eq "the dump leaves the extension's schema snowflake_id to CREATE EXTENSION" 0 \
    "$(grep -c 'CREATE SCHEMA snowflake_id' "$SF_WORK/shop.sql" || true)"
sf_expect_eq "the restored database has the same columns, defaults, constraints and sequences" \
    "$before_state" "$(shop shop2 -c "$state")"
sf_expect_eq "... and the same rows" "$before_rows" "$(shop shop2 -c "$rows")"

shop shop2 -c "INSERT INTO orders (note) VALUES ('restored')" \
    -c "INSERT INTO order_lines SELECT id, 2 FROM orders WHERE note = 'restored'" \
    -c "INSERT INTO customers (name) VALUES ('restored')" \
    -c "INSERT INTO invoices (customer_id) SELECT id FROM customers WHERE name = 'restored'"
sf_expect_eq "inserts in the restored database mint IDs above every old one" "t t t" \
    "$(shop shop2 -c "SELECT concat_ws(' ',
        (SELECT id FROM orders WHERE note = 'restored') > (SELECT max(id) FROM orders WHERE note <> 'restored'),
        (SELECT id FROM customers WHERE name = 'restored') > (SELECT max(id) FROM customers WHERE name <> 'restored'),
        (SELECT max(id) FROM invoices) > 1000000)")"
out=$(shop shop2 -c "INSERT INTO invoices (customer_id) VALUES (424242)" 2>&1 || true)
sf_expect_match "the foreign key to the converted column is enforced after the restore" \
    'violates foreign key constraint "invoices_customer_id_fkey"' "$out"
echo "adopt: all checks passed"
