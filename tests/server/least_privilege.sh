#!/usr/bin/env bash
# snowflake_id as applications connect to it (issue 48): the extension
# created by a superuser, tables owned by the database owner, the
# application an ordinary login role with rights on its own tables only,
# monitoring a pg_monitor member in read-only transactions.
#   privileges    docs/reference.md's privileges table, each cell checked
#                 with has_function_privilege / has_table_privilege for a
#                 role of each kind
#   minting       an ordinary role and the database owner: DEFAULT
#                 snowflake_nextval(), blocks, ObjectIds, public IDs, the
#                 decoders and time comparisons; PREPARE/EXECUTE, and
#                 psycopg's extended protocol with server-side prepared
#                 statements; READ ONLY refuses with 25006
#   monitoring    pg_monitor reads snowflake_status() READ ONLY, on the
#                 primary and on a standby (where minting keeps its message)
#   pgbouncer     the ordinary role through PgBouncer in transaction pooling
#   regress       the pg_regress files that need no superuser, run as the
#                 ordinary role (the exceptions below, and why)
#   restore       pg_dump/pg_restore as the database owner, then the
#                 ordinary role mints above the restored IDs
#   frameworks    every stack's recipes (tests/server/frameworks.sh) as
#                 the ordinary role, which owns the tables they make
#   secrets       a registry password never reaches snowflake_status, a
#                 client's ERROR/DETAIL or the server log: a URI with a
#                 stray "%" stops the server with a message of ours, and a
#                 good string whose server is unreachable shows no password;
#                 pg_monitor reads the setting masked, pg_settings lacks it
source "$(dirname "$0")/../lib/suite.sh"

python=/usr/bin/python3
"$python" -c 'import psycopg' 2>/dev/null || sf_die "python3-psycopg is missing: run tools/ensure-deps"
command -v pgbouncer >/dev/null || sf_die "pgbouncer is missing: run tools/ensure-deps"

sf_new lp "snowflake_id.worker_id = 7" "wal_level = replica" "max_wal_senders = 4" \
    "snowflake_id.public_key = '000102030405060708090a0b0c0d0e0f'"
sf_start lp || sf_die "lp did not start"
sock=$(sf_sockdir lp)

# as ROLE DB [psql options...]: psql as that role, errors verbose (SQLSTATE).
as() {
    local role=$1 db=$2
    shift 2
    "$SF_CLIENT_BIN/psql" -h "$sock" -p "$SF_PORT" -U "$role" -d "$db" \
        -X -A -t -q -v ON_ERROR_STOP=1 -v VERBOSITY=verbose "$@"
}

sf_psql lp <<'SQL'
CREATE ROLE app_owner LOGIN;
CREATE ROLE app LOGIN;
CREATE ROLE mon LOGIN;
GRANT pg_monitor TO mon;
CREATE DATABASE appdb OWNER app_owner;
SQL
sf_psql lp -d appdb -c "CREATE EXTENSION snowflake_id"
as app_owner appdb <<'SQL'
CREATE TABLE items (id bigint PRIMARY KEY DEFAULT snowflake_nextval(), note text);
GRANT SELECT, INSERT ON items TO app;
SQL
sf_expect_eq "app is neither superuser nor owner" "f f" \
    "$(as app appdb -c "SELECT rolsuper, pg_has_role('app', 'app_owner', 'USAGE')
        FROM pg_roles WHERE rolname = 'app'" | tr '|' ' ')"

# --- privileges: the table of docs/reference.md, cell by cell ---------------------
# Every row "| `object` | ordinary | owner | pg_monitor | superuser | why |":
# yes = the privilege holds; no and granted = it does not without a GRANT.
values=$(awk '/^## Privileges/{on=1; next} on && /^## /{exit}
    on && /^\| (`|table `|every other function)/ { print }' "$SF_ROOT/docs/reference.md" |
    perl -ne 'my @c = map { s/^\s+|\s+$//gr } split /\|/; shift @c;
        my ($obj, @cells) = @c[0..4];
        my $kind = $obj =~ s/^table // ? "table" : ($obj eq "every other function" ? "rest" : "function");
        $obj =~ s/`//g;
        my @roles = ("app", "app_owner", "mon", "postgres");
        for my $i (0..3) { print "(\x27$kind\x27, \x27$obj\x27, \x27$roles[$i]\x27, \x27$cells[$i]\x27),\n" }' |
    sed '$ s/,$//')
[ -n "$values" ] || sf_die "no privileges table in docs/reference.md"
sf_log "privileges table: $(grep -c . <<<"$values") cells"
mismatches=$(sf_psql lp -d appdb <<SQL
WITH cells(kind, obj, role, claim) AS (VALUES $values),
ext_functions AS (
    SELECT p.oid::regprocedure::text AS obj FROM pg_catalog.pg_proc p
    JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_proc'::regclass AND d.objid = p.oid
        AND d.deptype = 'e'
    JOIN pg_catalog.pg_extension e ON e.oid = d.refobjid AND e.extname = 'snowflake_id'),
listed AS (SELECT DISTINCT pg_catalog.regprocedure(obj)::text AS obj FROM cells
    WHERE kind = 'function'),
checked AS (
    SELECT c.kind, c.obj, c.role, c.claim,
        pg_catalog.has_function_privilege(c.role, c.obj, 'EXECUTE') AS holds
    FROM cells c WHERE c.kind = 'function'
    UNION ALL
    SELECT c.kind, c.obj, c.role, c.claim,
        pg_catalog.has_table_privilege(c.role, c.obj, 'SELECT') AS holds
    FROM cells c WHERE c.kind = 'table'
    UNION ALL
    SELECT c.kind, f.obj, c.role, c.claim,
        pg_catalog.has_function_privilege(c.role, f.obj, 'EXECUTE')
    FROM cells c, ext_functions f
    WHERE c.kind = 'rest' AND f.obj NOT IN (SELECT obj FROM listed))
SELECT kind || ' ' || obj || ' for ' || role || ': the table says ' || claim
FROM checked WHERE holds IS DISTINCT FROM (claim = 'yes')
UNION ALL
SELECT 'a table of the extension the privileges table does not list: ' || c.oid::regclass
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_class'::regclass AND d.objid = c.oid
    AND d.deptype = 'e'
JOIN pg_catalog.pg_extension e ON e.oid = d.refobjid AND e.extname = 'snowflake_id'
WHERE c.oid::regclass::text NOT IN (SELECT obj FROM cells WHERE kind = 'table')
ORDER BY 1;
SQL
)
sf_expect_eq "every cell of the privileges table holds" "" "$mismatches"

# --- minting: an ordinary role and the database owner ---------------------------
mint_as() {
    local role=$1 first second
    first=$(as "$role" appdb -c "INSERT INTO items (note) VALUES ('$role') RETURNING id" 2>&1)
    sf_expect_match "$role: INSERT takes DEFAULT snowflake_nextval()" '^[0-9]+$' "$first"
    second=$(as "$role" appdb -c "SELECT snowflake_nextval()" 2>&1)
    sf_expect_match "$role: snowflake_nextval() above the default's ID" '^[0-9]+$' "$second"
    [ "$second" -gt "$first" ] || sf_die "$role: $second is not above $first"
    sf_expect_eq "$role: a block of 5 increasing IDs above them" "5 t" "$(as "$role" appdb -c "
        SELECT count(*), bool_and(id > $second) FROM snowflake_nextval(5) id" | tr '|' ' ')"
    sf_expect_eq "$role: an ObjectId and its time" "24 t" "$(as "$role" appdb -c "
        WITH o AS (SELECT objectid_generate() AS v)
        SELECT length(v), objectid_timestamp(v) > now() - interval '1 minute' FROM o" | tr '|' ' ')"
    sf_expect_eq "$role: public IDs, the default key and a given one, round trip" "t t" \
        "$(as "$role" appdb -c "
        SELECT snowflake_from_public(snowflake_public($first)) = $first,
               snowflake_from_public(snowflake_public($first, '\\x00112233445566778899aabbccddeeff'::bytea, 'ord'),
                   '\\x00112233445566778899aabbccddeeff'::bytea, 'ord') = $first" | tr '|' ' ')"
    sf_expect_eq "$role: decodes its ID (worker 7, this minute)" "7 t t" "$(as "$role" appdb -c "
        SELECT worker_id, ts > now() - interval '1 minute',
               snowflake_timestamp($first) = ts FROM snowflake_decode($first)" | tr '|' ' ')"
    sf_expect_eq "$role: compares IDs with timestamps" "t t" "$(as "$role" appdb -c "
        SELECT $first::snowflake >= now() - interval '1 minute',
               $first >= snowflake_from_timestamp(now() - interval '1 minute')" | tr '|' ' ')"
    local ro
    ro=$(as "$role" appdb -c "BEGIN READ ONLY" -c "SELECT snowflake_nextval()" 2>&1 || true)
    sf_expect_match "$role: READ ONLY refuses snowflake_nextval() with 25006" \
        '^ERROR:  25006: cannot execute snowflake_nextval\(\) in a read-only transaction' "$ro"
    ro=$(as "$role" appdb -c "BEGIN READ ONLY" -c "SELECT * FROM snowflake_nextval(2)" 2>&1 || true)
    sf_expect_match "$role: READ ONLY refuses snowflake_nextval(n) with 25006" \
        '^ERROR:  25006: cannot execute snowflake_nextval\(n\)' "$ro"
    ro=$(as "$role" appdb -c "BEGIN READ ONLY" -c "INSERT INTO items (note) VALUES ('ro')" 2>&1 || true)
    sf_expect_match "$role: a READ ONLY INSERT fails first, with PostgreSQL's own 25006" \
        '^ERROR:  25006: cannot execute INSERT in a read-only transaction' "$ro"
}
mint_as app
mint_as app_owner

# PREPARE/EXECUTE: the plan is cached (generic after five runs) and every
# execution still mints a new ID.
prepared=$(as app appdb <<'SQL'
PREPARE ins(text) AS INSERT INTO items (note) VALUES ($1) RETURNING id;
PREPARE one AS SELECT snowflake_nextval();
CREATE TEMP TABLE got (id bigint);
\o /dev/null
EXECUTE ins('p1'); EXECUTE ins('p2'); EXECUTE ins('p3'); EXECUTE ins('p4');
EXECUTE ins('p5'); EXECUTE ins('p6'); EXECUTE ins('p7'); EXECUTE ins('p8');
\o
INSERT INTO got SELECT id FROM items WHERE note LIKE 'p_';
\o /dev/null
EXECUTE one; EXECUTE one; EXECUTE one; EXECUTE one; EXECUTE one; EXECUTE one; EXECUTE one;
\o
SELECT count(*), count(DISTINCT id) FROM got;
SQL
)
sf_expect_eq "app: eight prepared INSERTs, eight distinct IDs" "8|8" "$prepared"

# psycopg: the extended protocol, server-side prepared statements
# (prepare=True, named), a pipeline of them, and a block as a parameter.
out=$(PYTHONDONTWRITEBYTECODE=1 "$python" - "$sock" "$SF_PORT" <<'PY' 2>&1
import sys
import psycopg
conn = psycopg.connect(host=sys.argv[1], port=sys.argv[2], user="app", dbname="appdb",
                       autocommit=True)
ids = [conn.execute("INSERT INTO items (note) VALUES (%s) RETURNING id", (f"py{i}",),
                    prepare=True).fetchone()[0] for i in range(8)]
assert ids == sorted(ids) and len(set(ids)) == 8, ids
block = [r[0] for r in conn.execute("SELECT * FROM snowflake_nextval(%s)", (50,),
                                    prepare=True).fetchall()]
assert len(set(block)) == 50 and block == sorted(block) and block[0] > ids[-1], block[:3]
with conn.pipeline():
    cur = [conn.execute("SELECT snowflake_nextval()", prepare=True) for _ in range(5)]
piped = [c.fetchone()[0] for c in cur]
assert len(set(piped)) == 5 and min(piped) > block[-1], piped
prepared = conn.execute("SELECT count(*) FROM pg_prepared_statements").fetchone()[0]
assert prepared >= 2, prepared
try:
    with conn.transaction():
        conn.execute("SET TRANSACTION READ ONLY")
        conn.execute("SELECT snowflake_nextval()", prepare=True)
    raise SystemExit("READ ONLY minted")
except psycopg.errors.ReadOnlySqlTransaction as e:
    assert "snowflake_nextval()" in str(e), e
print("ok")
PY
)
sf_expect_eq "app through psycopg: prepared, pipelined, blocks, READ ONLY refused" ok "$out"

# --- monitoring: pg_monitor, READ ONLY, primary and standby ---------------------------
monitor() {
    "$SF_CLIENT_BIN/psql" -h "$(sf_sockdir "$1")" -p "$SF_PORT" -U mon -d appdb \
        -X -A -t -q -v ON_ERROR_STOP=1 -v VERBOSITY=verbose 2>&1 <<'SQL'
BEGIN TRANSACTION READ ONLY;
SELECT worker_id, lease_state IS NOT NULL FROM snowflake_status();
SELECT count(*) FROM snowflake_id.snowflake_status;
COMMIT;
SQL
}
sf_expect_eq "pg_monitor reads the status READ ONLY on the primary" "7|t
1" "$(monitor lp)"
sf_new_standby lp lps
sf_start lps || sf_die "the standby did not start"
sf_expect_eq "pg_monitor reads the status READ ONLY on the standby" "7|t
1" "$(monitor lps)"
standby_mint=$("$SF_CLIENT_BIN/psql" -h "$(sf_sockdir lps)" -p "$SF_PORT" -U app -d appdb -X -A -t \
    -v VERBOSITY=verbose -c "SELECT snowflake_nextval()" 2>&1 || true)
sf_expect_match "app on the standby: refused with the recovery message, 25006" \
    '^ERROR:  25006: cannot issue snowflake IDs during recovery' "$standby_mint"
sf_stop lps

# --- PgBouncer, transaction pooling -----------------------------------------------------
bouncer=$SF_WORK/pgbouncer
mkdir -p "$bouncer"
[ "$(id -u)" != 0 ] || chown postgres: "$bouncer"
stop_pgbouncer() {
    local pid
    [ -f "$bouncer/pgbouncer.pid" ] || return 0
    pid=$(cat "$bouncer/pgbouncer.pid")
    kill -INT "$pid" 2>/dev/null || true
    for _ in $(seq 100); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.1 # the pace of the poll; the condition is the process gone
    done
    kill -KILL "$pid" 2>/dev/null || true
}
trap 'rc=$?; stop_pgbouncer; (exit "$rc"); sf_cleanup' EXIT
# One server connection for every client: transactions of different
# clients take turns on the same backend, as a busy pool makes them.
sf_as_server tee "$bouncer/pgbouncer.ini" >/dev/null <<INI
[databases]
appdb = host=$sock port=$SF_PORT dbname=appdb user=app
[pgbouncer]
listen_addr =
unix_socket_dir = $bouncer
listen_port = $SF_PORT
auth_type = any
pool_mode = transaction
default_pool_size = 1
max_client_conn = 20
pidfile = $bouncer/pgbouncer.pid
logfile = $bouncer/pgbouncer.log
INI
sf_as_server pgbouncer -q -d "$bouncer/pgbouncer.ini" || sf_die "pgbouncer did not start"
for _ in $(seq 100); do
    [ -S "$bouncer/.s.PGSQL.$SF_PORT" ] && break
    sleep 0.1 # the pace of the poll; the condition is the socket
done
[ -S "$bouncer/.s.PGSQL.$SF_PORT" ] || sf_die "pgbouncer is not listening: $(cat "$bouncer/pgbouncer.log")"
out=$(PYTHONDONTWRITEBYTECODE=1 "$python" - "$bouncer" "$SF_PORT" <<'PY' 2>&1
import sys
import psycopg
conns = [psycopg.connect(host=sys.argv[1], port=sys.argv[2], dbname="appdb", autocommit=True)
         for _ in range(3)]
ids = []
for i in range(5):
    for n, c in enumerate(conns):
        # The extended protocol, unnamed statements: what PgBouncer 1.18 passes in
        # transaction pooling.
        ids.append(c.execute("INSERT INTO items (note) VALUES (%s) RETURNING id",
                             (f"bouncer{n}",)).fetchone()[0])
        ids.extend(r[0] for r in c.execute("SELECT * FROM snowflake_nextval(%s)", (3,)))
assert len(set(ids)) == len(ids) == 60, len(set(ids))
assert ids == sorted(ids), "not increasing"
print("ok", conns[0].execute("SELECT current_user").fetchone()[0])
PY
)
sf_expect_eq "app through PgBouncer (transaction pooling, 3 clients, 1 backend)" "ok app" "$out"
sf_expect_match "psql through PgBouncer: DEFAULT snowflake_nextval()" '^[0-9]+$' \
    "$("$SF_CLIENT_BIN/psql" -h "$bouncer" -p "$SF_PORT" -d appdb -X -A -t -q \
        -c "INSERT INTO items (note) VALUES ('psql') RETURNING id" 2>&1)"
stop_pgbouncer

# --- restore: pg_dump / pg_restore as the database owner -------------------------------
max_before=$(sf_psql lp -d appdb -c "SELECT max(id) FROM items")
sf_psql lp -c "CREATE DATABASE restored OWNER app_owner"
sf_psql lp -d restored -c "CREATE EXTENSION snowflake_id"
dump=$SF_WORK/appdb.dump
"$SF_CLIENT_BIN/pg_dump" -h "$sock" -p "$SF_PORT" -U app_owner -d appdb -Fc -f "$dump" \
    >"$SF_WORK/pg_dump.log" 2>&1 || sf_die "pg_dump as the owner: $(cat "$SF_WORK/pg_dump.log")"
# The extension exists (a superuser created it, as it is not trusted): the
# dump's CREATE EXTENSION IF NOT EXISTS passes, its COMMENT ON EXTENSION is
# the extension owner's, so --no-comments.
"$SF_CLIENT_BIN/pg_restore" -h "$sock" -p "$SF_PORT" -U app_owner -d restored --no-comments \
    --exit-on-error "$dump" >"$SF_WORK/pg_restore.log" 2>&1 ||
    sf_die "pg_restore as the owner: $(cat "$SF_WORK/pg_restore.log")"
restored=$(as app restored -c "INSERT INTO items (note) VALUES ('after restore') RETURNING id" 2>&1)
sf_expect_match "app mints in the restored database" '^[0-9]+$' "$restored"
[ "$restored" -gt "$max_before" ] || sf_die "restored: $restored is not above $max_before"
sf_log "ok: above every restored ID ($restored > $max_before)"

# --- regress: pg_regress's files as the ordinary role -----------------------------------
# The files of `make installcheck` that need no superuser by design, against a
# server configured as installcheck.conf, in a database a superuser created
# with the extension; the application role may create tables in its schema
# public and schemas in the database (the files make their own), nothing
# more. Each file's CREATE EXTENSION line (the superuser's) is taken out of
# it and of its expected output (and the NOTICE a second one gave). The
# others need a superuser by design (each was run as the role: these are
# the reasons it failed):
#   snowflake_functions    lists the snowflake_id.* settings from pg_settings,
#                          which hides the superuser-only registry from others
#   snowflake_errors       SETs snowflake_id.* settings, which only a
#                          superuser may set (postmaster, sighup, suset)
#   snowflake_toolkit      CREATE ROLE, snowflake_raise_floor, accept_layout
#   snowflake_public       sets and reads snowflake_id.public_key
#                          (superuser-only), CREATE ROLE
#   snowflake_registry     the registry's functions, granted only to its role
#   snowflake_upgrade, snowflake_schema, snowflake_search_path, snowflake_adopt
#                          CREATE/ALTER/DROP EXTENSION (not a trusted extension)
as_app_files=${SF_LP_REGRESS:-snowflake_type snowflake_partitioning snowflake_time snowflake_date_bin}
sf_new rg "snowflake_id.worker_id = 7"
sf_start rg || sf_die "rg did not start"
regress=$SF_WORK/regress_app
mkdir -p "$regress/sql" "$regress/expected" "$regress/out"
for f in $as_app_files; do
    grep -v '^CREATE EXTENSION \(IF NOT EXISTS \)\?snowflake_id;$' "$SF_ROOT/sql/$f.sql" >"$regress/sql/$f.sql"
    grep -v -e '^CREATE EXTENSION \(IF NOT EXISTS \)\?snowflake_id;$' \
        -e '^NOTICE:  extension "snowflake_id" already exists, skipping$' \
        "$SF_ROOT/expected/$f.out" >"$regress/expected/$f.out"
done
chmod -R a+rwX "$regress"
sf_psql rg <<'SQL'
CREATE ROLE app LOGIN;
CREATE DATABASE regress_app;
SQL
sf_psql rg -d regress_app <<'SQL'
CREATE EXTENSION snowflake_id;
GRANT CREATE ON SCHEMA public TO app;
GRANT CREATE ON DATABASE regress_app TO app;
SQL
PG_REGRESS=$(dirname "$($SF_PG_CONFIG --pgxs)")/../test/regress/pg_regress
# shellcheck disable=SC2086 # the list of files
if ! "$PG_REGRESS" --inputdir="$regress" --outputdir="$regress/out" --bindir="$SF_CLIENT_BIN" \
    --host="$(sf_sockdir rg)" --port="$SF_PORT" --user=app --dbname=regress_app --use-existing \
    $as_app_files >"$regress/pg_regress.log" 2>&1; then
    cat "$regress/pg_regress.log" "$regress/out/regression.diffs" >&2 || true
    sf_die "pg_regress as the ordinary role failed"
fi
sf_log "ok: pg_regress as the ordinary role: $as_app_files"
sf_stop rg

# --- frameworks: every stack's recipes as the ordinary role ---------------------------
# The frameworks suite's recipes (docs/frameworks/), each in a database a
# superuser made with the extension, run as an ordinary role that may create
# tables in its schema public and nothing of the extension's beyond PUBLIC's
# (SF_RECIPE_ROLE in tests/server/frameworks.sh: how, and the two rights
# Drizzle's and Rails's own tooling take); the tables they make must be the
# role's. A recipe calling a function the privileges table does not give an
# ordinary role fails here.
recipes=${SF_LP_RECIPES-django sqlalchemy rails go jdbc drizzle typeorm sequelize knex prisma}
if [ -n "$recipes" ]; then
    rc=0
    SF_FRAMEWORKS='' SF_RECIPES=$recipes SF_RECIPE_ROLE=app "$SF_ROOT/tests/server/frameworks.sh" \
        >"$SF_WORK/recipes-as-app.txt" 2>&1 || rc=$?
    [ "$rc" = 0 ] || { cat "$SF_WORK/recipes-as-app.txt" >&2; sf_die "the recipes failed as the ordinary role"; }
    sf_expect_eq "every stack's recipes ran as the ordinary role" "$(wc -w <<<"$recipes")" \
        "$(grep -c '^ *[a-z]\+ \+as app \+clean$' "$SF_WORK/recipes-as-app.txt")"
fi

# --- secrets: the registry's password reaches no role and no log ------------------------
# A URI whose password has a "%" not followed by two hex digits: libpq's own
# error would quote it. The server refuses to start, naming the part, and
# ALTER SYSTEM refuses it likewise; neither says the password.
secret='Pw%zzSECRET48'
sf_new badreg "snowflake_id.worker_id = 'auto'" \
    "snowflake_id.registry = 'postgresql://reg:$secret@127.0.0.1:1/reg'"
if sf_start badreg; then
    sf_die "a server started with a registry URI libpq cannot parse"
fi
sf_expect_match "a bad registry URI stops the server, naming the part" \
    'the registry.s postgresql:// URI has a "%" not followed by two hexadecimal digits in its password' \
    "$(sf_server_log badreg)"
alter=$(sf_psql lp -v VERBOSITY=verbose \
    -c "ALTER SYSTEM SET snowflake_id.registry = 'postgresql://reg:$secret@127.0.0.1:1/reg'" 2>&1 || true)
sf_expect_match "ALTER SYSTEM refuses it with 22023, naming the part" \
    '^ERROR:  22023: invalid value for parameter "snowflake_id.registry": the registry.s postgresql:// URI has .* in its password' \
    "$alter"
# PostgreSQL itself logs a failed statement whole (log_min_error_statement),
# as it logs an ALTER ROLE ... PASSWORD: the STATEMENT line is its, not ours.
sf_expect_eq "the password is in no message of the log" "" \
    "$(grep -h SECRET48 "$SF_WORK/badreg/server.log" "$SF_WORK/lp/server.log" |
        grep -v ' STATEMENT:  ALTER SYSTEM SET snowflake_id.registry' || true)"
sf_expect_eq "... nor in the ALTER SYSTEM's answer" "" "$(grep SECRET48 <<<"$alter" || true)"

# A good string whose server does not answer: libpq's and our messages go to
# snowflake_status (every role), every refusal's DETAIL and the log.
port=$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
for form in "host=127.0.0.1 port=$port dbname=reg user=reg password=kwSECRET48 sslpassword=sslSECRET48 connect_timeout=1" \
    "postgresql://reg:uriSECRET48@127.0.0.1:$port/reg?connect_timeout=1"; do
    label="keyword form"
    [[ $form != postgresql://* ]] || label="URI form"
    sf_new unreachable "snowflake_id.worker_id = 'auto'" "snowflake_id.registry = '$form'"
    sf_start unreachable || sf_die "unreachable did not start: $(tail -n 3 "$SF_WORK/unreachable/server.log")"
    sf_psql unreachable -c "CREATE ROLE app LOGIN" -c "CREATE ROLE mon LOGIN IN ROLE pg_monitor"
    sf_psql unreachable -c "CREATE EXTENSION snowflake_id"
    sf_poll unreachable "SELECT lease_failures > 0 AND lease_message <> '' FROM snowflake_status()" t
    u=$(sf_sockdir unreachable)
    seen=$(
        "$SF_CLIENT_BIN/psql" -h "$u" -p "$SF_PORT" -U mon -d postgres -X -A -t \
            -c "SELECT registry, lease_message FROM snowflake_status()" 2>&1
        "$SF_CLIENT_BIN/psql" -h "$u" -p "$SF_PORT" -U app -d postgres -X -A -t \
            -v VERBOSITY=verbose -c "SELECT snowflake_nextval()" 2>&1 || true
    )
    sf_expect_match "unreachable registry ($label): the refusal quotes the registry's answer" \
        'DETAIL:  Registry .*(could not|connect|refused)' "$seen"
    sf_expect_eq "... and no password, in snowflake_status or the refusal" "" \
        "$(grep -i 'SECRET48' <<<"$seen" || true)"
    sf_expect_eq "... nor in the server log" "" \
        "$(grep -i 'SECRET48' "$SF_WORK/unreachable/server.log" || true)"
    # The setting itself: pg_read_all_settings lets pg_monitor read it past
    # GUC_SUPERUSER_ONLY. SHOW and current_setting() give it masked, and
    # pg_settings (whose reset_val no show hook masks) has no row of it.
    masked=$(sed -E 's/(kw|ssl|uri)SECRET48/***/g' <<<"$form")
    shown=$(
        "$SF_CLIENT_BIN/psql" -h "$u" -p "$SF_PORT" -U mon -d postgres -X -A -t -q \
            -v ON_ERROR_STOP=1 -c "BEGIN READ ONLY" -c "SHOW snowflake_id.registry" \
            -c "SELECT current_setting('snowflake_id.registry')" \
            -c "SELECT setting, reset_val, boot_val FROM pg_settings
                WHERE name = 'snowflake_id.registry'" -c "COMMIT" 2>&1
    )
    sf_expect_eq "pg_monitor READ ONLY ($label): SHOW and current_setting() mask it, pg_settings lacks it" \
        "$masked"$'\n'"$masked" "$shown"
    sf_expect_eq "... a superuser reads it whole" "$form" \
        "$(sf_psql unreachable -c "SHOW snowflake_id.registry")"
    sf_stop unreachable immediate
    rm -rf "$SF_WORK/unreachable"
done

sf_log "least_privilege: all checks passed"
