#!/usr/bin/env bash
# The restore check (src/pg/pg_origins.cpp, src/pg/pg_restore_scan.cpp,
# docs/durability.md, "Logical restores") as the roles that reach it:
#  - an application's ordinary role mints whatever snowflake_origin holds;
#  - no code of a table's owner runs inside the check, by any route: a
#    partial index's predicate, an index expression, an extended statistics
#    expression, a domain's CHECK, a partition key, a foreign table, a view
#    with a default, a rule; the owner's function, run as a superuser,
#    would make its owner one (it did before the check was rewritten);
#  - another session's temporary table stops no one;
#  - defaults through domains, inheritance children and partitions, and
#    COPY loads are seen (every database minting above them);
#  - a database's owner moves no other database's IDs further ahead than
#    max_clock_drift: its own database refuses, naming the column, the
#    value and the fix, which a superuser applies.
source "$(dirname "$0")/../lib/suite.sh"

sf_new attacks "snowflake_id.worker_id = 3"
sf_start attacks || sf_die "attacks did not start"

# --- an ordinary role mints -----------------------------------------------------
# The extension created by a superuser in a database owned by another role;
# the application's role may only INSERT into its owner's table. It mints
# both before and after the database's owner added a row of another server
# to snowflake_origin (which moves the server-wide generation of origins).
sf_psql attacks -c "CREATE ROLE app_owner LOGIN" -c "CREATE ROLE app LOGIN" \
    -c "CREATE DATABASE apps OWNER app_owner"
sf_psql attacks -d apps -c "CREATE EXTENSION snowflake_id"
sf_psql attacks -d apps <<'SQL'
SET ROLE app_owner;
CREATE TABLE public.orders (id bigint PRIMARY KEY DEFAULT snowflake_nextval(), note text);
GRANT INSERT ON public.orders TO app;
SQL
app_insert() {
    "$SF_CLIENT_BIN/psql" -h "$(sf_sockdir attacks)" -p "$SF_PORT" -U app -d apps \
        -X -A -t -q -v ON_ERROR_STOP=1 -c "INSERT INTO public.orders (note) VALUES ('$1')" 2>&1
}
# Sessions that stay open: open_session NAME ROLE (database apps for app,
# evil for evil); session NAME SQL MARKER runs SQL in it and waits until it
# printed MARKER; close_session NAME.
declare -A session_pid session_fd
open_session() {
    local db=apps
    [ "$2" = evil ] && db=evil
    mkfifo "$SF_WORK/$1.in"
    "$SF_CLIENT_BIN/psql" -h "$(sf_sockdir attacks)" -p "$SF_PORT" -U "$2" -d "$db" -X -A -t -q \
        -v ON_ERROR_STOP=1 <"$SF_WORK/$1.in" >"$SF_WORK/$1.out" 2>&1 &
    session_pid[$1]=$!
    local fd
    exec {fd}>"$SF_WORK/$1.in"
    session_fd[$1]=$fd
}
session() {
    echo "$2" >&"${session_fd[$1]}"
    echo "SELECT '$3';" >&"${session_fd[$1]}"
    for _ in $(seq 1 6000); do
        grep -qx -- "$3" "$SF_WORK/$1.out" && return 0
        kill -0 "${session_pid[$1]}" 2>/dev/null || sf_die "session $1 ended: $(cat "$SF_WORK/$1.out")"
        sleep 0.01 # the pace of the poll; the condition is the marker
    done
    sf_die "session $1 did not answer: $(cat "$SF_WORK/$1.out")"
}
close_session() {
    local fd=${session_fd[$1]}
    exec {fd}>&-
    wait "${session_pid[$1]}"
}
sf_expect_eq "an ordinary role inserts by the default" "" "$(app_insert first)"
# An application's session that stays open across the origin rows of
# every database below (each moves the server-wide generation).
open_session app_open app
session app_open "INSERT INTO public.orders (note) VALUES ('open 1');" o1
sf_psql attacks -d apps -c "SET ROLE app_owner" \
    -c "INSERT INTO snowflake_id.snowflake_origin (system_identifier, database_name)
        VALUES (1, 'elsewhere')"
sf_expect_eq "an ordinary role inserts after the owner's origin row" "" "$(app_insert second)"
sf_expect_eq "the rows are there" 3 \
    "$(sf_psql attacks -d apps -c "SELECT count(*) FROM public.orders")"
# A first ID inside a parallel query (snowflake_nextval() evaluated in the
# leader above a Gather), with an origin row waiting: the check runs, and
# marks nothing there (no UPDATE in a parallel operation).
sf_psql attacks -d apps -c "SET ROLE app_owner" \
    -c "CREATE TABLE public.wide AS SELECT g FROM generate_series(1, 100000) g" \
    -c "GRANT SELECT ON public.wide TO app" \
    -c "INSERT INTO snowflake_id.snowflake_origin (system_identifier, database_name) VALUES (7, 'parallel')"
parallel_sql="SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;"
sf_expect_match "the query's plan is parallel" "Gather" \
    "$("$SF_CLIENT_BIN/psql" -h "$(sf_sockdir attacks)" -p "$SF_PORT" -U app -d apps -X -A -t -q \
        -c "$parallel_sql EXPLAIN SELECT count(snowflake_nextval()) FROM public.wide WHERE g % 2 = 0" 2>&1)"
sf_expect_eq "an ordinary role's first ID inside a parallel query" 50000 \
    "$("$SF_CLIENT_BIN/psql" -h "$(sf_sockdir attacks)" -p "$SF_PORT" -U app -d apps -X -A -t -q \
        -c "$parallel_sql SELECT count(snowflake_nextval()) FROM public.wide WHERE g % 2 = 0" 2>&1)"


# --- no code of a table's owner runs in the check -------------------------------
# evil owns a database; its function trap() escalates if it ever runs as a
# superuser (an IMMUTABLE function may call a VOLATILE one, which may write).
sf_psql attacks -c "CREATE ROLE evil LOGIN" -c "CREATE DATABASE evil OWNER evil"
sf_psql attacks -d evil -c "CREATE EXTENSION snowflake_id" \
    -c "CREATE FOREIGN DATA WRAPPER nowhere" -c "CREATE SERVER nowhere FOREIGN DATA WRAPPER nowhere" \
    -c "GRANT USAGE ON FOREIGN SERVER nowhere TO evil"
sf_psql attacks -d evil <<'SQL'
SET ROLE evil;
CREATE TABLE public.trap_log (who name, was_super boolean);
CREATE FUNCTION public.escalate() RETURNS boolean LANGUAGE plpgsql VOLATILE AS $f$
DECLARE
    super boolean := (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user);
BEGIN
    INSERT INTO public.trap_log VALUES (current_user, super);
    IF super THEN
        ALTER ROLE evil SUPERUSER;
    END IF;
    RETURN true;
END
$f$;
CREATE FUNCTION public.trap() RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $f$
BEGIN
    RETURN public.escalate();
END
$f$;
CREATE FUNCTION public.trap_id(bigint) RETURNS bigint LANGUAGE plpgsql IMMUTABLE AS $f$
BEGIN
    PERFORM public.escalate();
    RETURN $1;
END
$f$;
-- A partial index's predicate and an index expression.
CREATE TABLE public.by_predicate (id bigint DEFAULT snowflake_nextval());
CREATE INDEX ON public.by_predicate (id) WHERE public.trap();
CREATE TABLE public.by_expression (id bigint DEFAULT snowflake_nextval());
CREATE INDEX ON public.by_expression (public.trap_id(id));
-- An extended statistics expression.
CREATE TABLE public.by_statistics (id bigint DEFAULT snowflake_nextval(), n int);
CREATE STATISTICS by_statistics_s ON (public.trap_id(id)), n FROM public.by_statistics;
-- A domain's CHECK, the domain's default calling snowflake_nextval().
CREATE DOMAIN public.checked_id AS bigint DEFAULT snowflake_nextval()
    CHECK (public.trap_id(VALUE) IS NOT NULL);
CREATE TABLE public.by_domain (id public.checked_id);
-- A partition key.
CREATE TABLE public.by_partition (id bigint DEFAULT snowflake_nextval())
    PARTITION BY RANGE (public.trap_id(id));
CREATE TABLE public.by_partition_all PARTITION OF public.by_partition
    FOR VALUES FROM (MINVALUE) TO (MAXVALUE);
-- A foreign table and a view, each with the default; a rule.
CREATE FOREIGN TABLE public.by_foreign (id bigint DEFAULT snowflake_nextval()) SERVER nowhere;
CREATE VIEW public.by_view AS SELECT public.trap_id(id) AS id FROM public.by_predicate;
ALTER VIEW public.by_view ALTER COLUMN id SET DEFAULT snowflake_nextval();
CREATE TABLE public.by_rule (id bigint DEFAULT snowflake_nextval());
CREATE RULE by_rule_log AS ON UPDATE TO public.by_rule DO ALSO SELECT public.trap();
SQL
# Rows in each (their own inserts ran trap() as evil), the log emptied,
# then an origin row of another server: the next ID checks the database.
sf_psql attacks -d evil <<'SQL'
SET ROLE evil;
INSERT INTO public.by_predicate DEFAULT VALUES;
INSERT INTO public.by_expression DEFAULT VALUES;
INSERT INTO public.by_statistics (n) SELECT g FROM generate_series(1, 10) g;
ANALYZE public.by_statistics;
INSERT INTO public.by_domain DEFAULT VALUES;
INSERT INTO public.by_partition DEFAULT VALUES;
INSERT INTO public.by_rule DEFAULT VALUES;
TRUNCATE public.trap_log;
INSERT INTO snowflake_id.snowflake_origin (system_identifier, database_name) VALUES (1, 'elsewhere');
SQL
sf_expect_eq "the rows of another server wait" 1 \
    "$(sf_psql attacks -d evil -c "SELECT count(*) FROM snowflake_id.snowflake_origin
                                   WHERE system_identifier = 1 AND checked_by IS NULL")"
sf_psql attacks -d evil -c "SET ROLE evil" -c "SELECT snowflake_nextval()" >/dev/null
sf_expect_eq "no function of the owner's ran as a superuser" "" \
    "$(sf_psql attacks -d evil -c "SELECT string_agg(who || ':' || was_super, ',') FROM public.trap_log WHERE was_super")"
sf_expect_eq "the database's owner did not become a superuser" f \
    "$(sf_psql attacks -c "SELECT rolsuper FROM pg_roles WHERE rolname = 'evil'")"
sf_expect_eq "none of its functions ran at all" 0 \
    "$(sf_psql attacks -d evil -c "SELECT count(*) FROM public.trap_log")"
sf_expect_eq "the check marked the origin checked" 0 \
    "$(sf_psql attacks -d evil -c "SELECT count(*) FROM snowflake_id.snowflake_origin
                                   WHERE system_identifier = 1 AND checked_by IS NULL")"
# A superuser's check of every column reads the same tables: nothing runs.
sf_psql attacks -d evil -c "SELECT snowflake_check_restore(true)" >/dev/null
sf_expect_eq "snowflake_check_restore(true) ran none of them either" 0 \
    "$(sf_psql attacks -d evil -c "SELECT count(*) FROM public.trap_log")"

# --- another session's temporary table ------------------------------------------
open_session evil evil
session evil "CREATE TEMP TABLE mine (id bigint DEFAULT snowflake_nextval()); INSERT INTO mine DEFAULT VALUES;" t1
sf_psql attacks -d evil -c "SET ROLE evil" \
    -c "INSERT INTO snowflake_id.snowflake_origin (system_identifier, database_name) VALUES (2, 'elsewhere')"
sf_expect_eq "another session's temporary table stops no check" "" \
    "$("$SF_CLIENT_BIN/psql" -h "$(sf_sockdir attacks)" -p "$SF_PORT" -U evil -d evil -X -A -t -q \
        -c "SELECT snowflake_nextval()" 2>&1 >/dev/null)"
session evil "SELECT count(*) FROM mine;" t2
close_session evil

# --- domains, children, partitions, COPY: seen ------------------------------------
# Tables of the superuser's in their own database (values only superusers
# write: up to an hour ahead is taken on). Each holds an ID 10 minutes
# ahead that the old check did not see; after each, another database's
# next ID is above it.
sf_psql attacks -c "CREATE DATABASE seen"
sf_psql attacks -d seen -c "CREATE EXTENSION snowflake_id"
sf_psql attacks -c "CREATE EXTENSION snowflake_id"
ahead() { sf_psql attacks -d seen -c "SELECT snowflake_from_timestamp(clock_timestamp() + interval '$1 min')"; }
# elsewhere_above WHAT VALUE: the postgres database's next ID is above VALUE.
elsewhere_above() {
    sf_expect_eq "$1: another database's next ID is above it" t \
        "$(sf_psql attacks -c "SELECT snowflake_nextval() > $2")"
}
sf_psql attacks -d seen <<'SQL'
CREATE DOMAIN order_id AS bigint DEFAULT snowflake_nextval();
CREATE DOMAIN order_id_too AS order_id;
CREATE TABLE by_domain (id order_id_too, note text);
CREATE TABLE parent (id bigint DEFAULT snowflake_nextval());
CREATE TABLE child (id bigint, extra text);
ALTER TABLE child INHERIT parent;
ALTER TABLE child ALTER COLUMN id DROP DEFAULT;
CREATE TABLE parted (id bigint DEFAULT snowflake_nextval()) PARTITION BY RANGE (id);
CREATE TABLE parted_low (id bigint);
ALTER TABLE parted ATTACH PARTITION parted_low FOR VALUES FROM (MINVALUE) TO (MAXVALUE);
ALTER TABLE parted_low ALTER COLUMN id DROP DEFAULT;
CREATE TABLE loaded (id bigint PRIMARY KEY DEFAULT snowflake_nextval(), note text);
SQL
v=$(ahead 10)
sf_psql attacks -d seen -c "INSERT INTO by_domain VALUES ($v, 'old')" \
    -c "INSERT INTO snowflake_id.snowflake_origin (system_identifier, database_name) VALUES (3, 'x')"
elsewhere_above "a domain over a domain whose default calls snowflake_nextval()" "$v"
v=$(ahead 11)
sf_psql attacks -d seen -c "INSERT INTO child VALUES ($v, 'old')" \
    -c "INSERT INTO snowflake_id.snowflake_origin (system_identifier, database_name) VALUES (4, 'x')"
elsewhere_above "an inheritance child without the default" "$v"
v=$(ahead 12)
sf_psql attacks -d seen -c "INSERT INTO parted_low VALUES ($v)" \
    -c "INSERT INTO snowflake_id.snowflake_origin (system_identifier, database_name) VALUES (5, 'x')"
elsewhere_above "an attached partition without the default" "$v"
# A CSV of old IDs loaded with \copy: no origin row; the COPY raises the
# floor before it commits.
csv=$(sf_shared_file loaded.csv)
v=$(ahead 13)
printf 'old,%s\nold,%s\n' "$((v - 1))" "$v" >"$csv"
sf_psql attacks -d seen -c "\\copy loaded (note, id) FROM '$csv' CSV"
elsewhere_above "a \\copy of a CSV" "$v"
sf_expect_match "the COPY's raise is logged" "floor was raised above $v in database \"seen\"" \
    "$(sf_server_log attacks)"

# --- what a superuser's COPY loads is trusted only as the superuser's ---------------
# (The floor lies 13 minutes ahead: the trusted raises above.) In a
# database of evil's: (a) evil's BEFORE INSERT trigger rewrites what a
# superuser's COPY loads to an ID 59 minutes ahead; (b) a role holding
# pg_write_all_data plants that ID in a superuser's table and COPYs one row
# of its own. Neither moves another database's IDs toward it.
sf_psql attacks -c "CREATE DATABASE evil2 OWNER evil" -c "CREATE ROLE etl LOGIN" \
    -c "GRANT pg_write_all_data TO etl"
sf_psql attacks -d evil2 -c "CREATE EXTENSION snowflake_id" \
    -c "CREATE TABLE public.sealed (id bigint PRIMARY KEY DEFAULT snowflake_nextval())"
v=$(sf_psql attacks -d evil2 -c "SELECT snowflake_from_timestamp(clock_timestamp() + interval '59 min')")
sf_psql attacks -d evil2 <<SQL
SET ROLE evil;
CREATE TABLE public.rewritten (id bigint PRIMARY KEY DEFAULT snowflake_nextval());
CREATE FUNCTION public.rewrite() RETURNS trigger LANGUAGE plpgsql AS \$\$
BEGIN NEW.id := $v; RETURN NEW; END \$\$;
CREATE TRIGGER rewrite BEFORE INSERT ON public.rewritten FOR EACH ROW EXECUTE FUNCTION public.rewrite();
SQL
small_csv=$(sf_shared_file small.csv)
sf_psql attacks -d evil2 -c "SELECT snowflake_nextval()" >"$small_csv"
sf_psql attacks -d evil2 -c "\\copy public.rewritten FROM '$small_csv' CSV" >/dev/null 2>&1
sf_expect_eq "a superuser's COPY rewritten by the owner's trigger held the planted ID" "$v" \
    "$(sf_psql attacks -d evil2 -c "SELECT max(id) FROM public.rewritten")"
sf_expect_eq "it moves no other database's IDs toward it" t \
    "$(sf_psql attacks -d apps -c "SELECT snowflake_nextval() < $v - (snowflake_from_timestamp(clock_timestamp() + interval '40 min') - snowflake_from_timestamp(clock_timestamp()))")"
"$SF_CLIENT_BIN/psql" -h "$(sf_sockdir attacks)" -p "$SF_PORT" -U etl -d evil2 -X -A -t -q \
    -c "INSERT INTO public.sealed VALUES ($v)"
"$SF_CLIENT_BIN/psql" -h "$(sf_sockdir attacks)" -p "$SF_PORT" -U etl -d evil2 -X -A -t -q \
    -c "\\copy public.sealed FROM '$small_csv' CSV" >/dev/null 2>&1
sf_expect_eq "a pg_write_all_data member's ID in a superuser's table moves no other database" t \
    "$(sf_psql attacks -d apps -c "SELECT snowflake_nextval() < $v - (snowflake_from_timestamp(clock_timestamp() + interval '40 min') - snowflake_from_timestamp(clock_timestamp()))")"
# Nobody but snowflake_origin's own trigger calls snowflake_origin_arrived():
# another table's commits would make every database check again.
misuse=$(sf_psql attacks -d evil2 -c "SET ROLE evil" -c "CREATE TEMP TABLE churn (x int)" \
    -c "CREATE TRIGGER churn AFTER INSERT ON churn FOR EACH STATEMENT EXECUTE FUNCTION snowflake_origin_arrived()" 2>&1 || true)
sf_expect_match "a role cannot hang snowflake_origin_arrived() on a table of its own" \
    "permission denied for function snowflake_origin_arrived" "$misuse"
misuse=$(sf_psql attacks -d evil2 -c "CREATE TABLE public.churn (x int)" \
    -c "CREATE TRIGGER churn AFTER INSERT ON public.churn FOR EACH STATEMENT EXECUTE FUNCTION snowflake_origin_arrived()" \
    -c "INSERT INTO public.churn VALUES (1)" 2>&1 || true)
sf_expect_match "nor does it fire for another table" \
    "is the trigger of snowflake_id.snowflake_origin, not of table \"churn\"" "$misuse"

# --- a database's owner moves no other database's IDs ahead ------------------------
# evil's own table, an ID 59 minutes ahead, and an origin row: its check
# raises the floor no further than max_clock_drift (1 s) for values a
# non-superuser writes. Other databases keep IDs near the clock; evil's
# database refuses, naming the column, the value and the fix.
v=$(sf_psql attacks -d evil -c "SELECT snowflake_from_timestamp(clock_timestamp() + interval '59 min')")
sf_psql attacks -d evil -c "SET ROLE evil" -c "CREATE TABLE public.planted (id bigint DEFAULT snowflake_nextval())" \
    -c "INSERT INTO public.planted VALUES ($v)"
# Its own COPY of the value warns and moves nothing either.
planted_csv=$(sf_shared_file planted.csv)
echo "$v" >"$planted_csv"
warned=$("$SF_CLIENT_BIN/psql" -h "$(sf_sockdir attacks)" -p "$SF_PORT" -U evil -d evil -X -A -t -q \
    -c "\\copy public.planted FROM '$planted_csv' CSV" 2>&1)
sf_expect_match "a non-superuser's COPY far ahead: a WARNING naming the column" \
    "DETAIL: +column id of table public.planted holds $v" "$warned"
# The COPY alone, with no origin row, makes the database refuse: it recorded
# itself for the first ID to check (with the WARNING only, IDs would be
# issued below the loaded ones).
after_copy=$("$SF_CLIENT_BIN/psql" -h "$(sf_sockdir attacks)" -p "$SF_PORT" -U evil -d evil -X -A -t -q \
    -c "SELECT snowflake_nextval()" 2>&1 || true)
sf_expect_match "after that COPY alone, the owner's database refuses" \
    "ERROR: +the IDs in database evil lie further ahead" "$after_copy"
sf_psql attacks -d evil -c "SET ROLE evil" \
    -c "INSERT INTO snowflake_id.snowflake_origin (system_identifier, database_name) VALUES (6, 'crafted')"
refusal=$("$SF_CLIENT_BIN/psql" -h "$(sf_sockdir attacks)" -p "$SF_PORT" -U evil -d evil -X -A -t -q \
    -c "SELECT snowflake_nextval()" 2>&1 || true)
sf_expect_match "the owner's database refuses" \
    "ERROR: +the IDs in database evil lie further ahead of this server's clock than snowflake_id.max_clock_drift" "$refusal"
sf_expect_match "naming the column and the value" "column id of table public.planted holds $v" "$refusal"
sf_expect_match "and the fix" "SELECT public.snowflake_raise_floor\\($v\\)" "$refusal"
sqlstate=$(sf_psql attacks -d evil -c "SET ROLE evil" -c "DO \$\$ BEGIN PERFORM snowflake_nextval();
    EXCEPTION WHEN OTHERS THEN RAISE NOTICE 'state %', SQLSTATE; END \$\$" 2>&1)
sf_expect_match "the SQLSTATE is 55000" "state 55000" "$sqlstate"
# (The floor lies 13 minutes ahead already: the trusted raises above.)
sf_expect_eq "another database's IDs are not moved to the planted value" t \
    "$(sf_psql attacks -d apps -c "SELECT snowflake_nextval() < $v - (snowflake_from_timestamp(clock_timestamp() + interval '40 min') - snowflake_from_timestamp(clock_timestamp()))")"
sf_expect_eq "an ordinary role of another database still mints" "" "$(app_insert third)"
session app_open "INSERT INTO public.orders (note) VALUES ('open 2');" o2
close_session app_open
sf_expect_eq "and so does its session that stayed open" "" \
    "$(grep -v -x -e o1 -e o2 "$SF_WORK/app_open.out" || true)"
denied=$(sf_psql attacks -d evil -c "SET ROLE evil" -c "SELECT snowflake_raise_floor($v)" 2>&1 || true)
sf_expect_match "the fix is a superuser's" "ERROR: +permission denied for function snowflake_raise_floor" "$denied"
sf_psql attacks -d evil -c "SELECT snowflake_raise_floor($v)" >/dev/null
sf_expect_eq "once a superuser accepted it, the owner's database mints above it" t \
    "$(sf_psql attacks -d evil -c "SET ROLE evil" -c "SELECT snowflake_nextval() > $v")"

sf_log "restore_attacks: all checks passed"
