#!/usr/bin/env bash
# Logical restores never mint below what they restored (docs/durability.md,
# "Logical restores"). A source server whose clock runs 50 minutes ahead of
# the targets' (libfaketime: ahead enough that no slowness of the machine
# lets a target's clock catch up during the suite) issues IDs with static worker_id 7 into a table
# with a primary key and one of type snowflake without an index; it is
# dumped with pg_dump -Fc, with plain pg_dump and with pg_dumpall, and each
# dump is restored into a new server with the same static worker id, whose
# clock is right:
#  - custom (pg_restore), no registry: snowflake_check_restore() run by
#    hand, then a crash (SIGKILL) before any ID: 2,000 new IDs and 500 rows
#    inserted by the columns' default, every one above every restored ID,
#    without a second check (the raised floor was durable);
#  - plain (psql), with a registry (PostgreSQL store, lease_ttl 6 s): the
#    same, the registry's bound following the raised floor;
#  - pg_dumpall into a server whose session already issued IDs in the
#    database restored into: that session's next IDs are above the restored
#    ones;
#  - a full restore into one database of a server while another database
#    of it mints (sources 15 s and 600 s ahead): from the commit of each
#    restored table's data on, no database mints at or below its IDs;
#  - the refusal path: a database whose IDs lie three hours ahead (the source's
#    clock moved on) is refused with 55000, naming the column, the value and
#    the fix, while the server's other database keeps issuing; the fix
#    (snowflake_raise_floor, superuser only: 42501 otherwise) lets IDs
#    continue above them.
source "$(dirname "$0")/../lib/suite.sh"

source_clock=$SF_WORK/source_clock
echo "+3000" >"$source_clock"
chmod 644 "$source_clock"
fake_env=("LD_PRELOAD=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"
    "FAKETIME_TIMESTAMP_FILE=$source_clock" "FAKETIME_NO_CACHE=1" "DONT_FAKE_MONOTONIC=1")
same_node="snowflake_id.worker_id = 7"
dumps=$SF_WORK/dumps
mkdir -p "$dumps"
chmod 777 "$dumps"

sf_new source "$same_node" "snowflake_id.max_clock_drift = '1s'"
sf_start source "${fake_env[@]}" || sf_die "the source did not start under libfaketime"
sf_psql source <<'SQL'
CREATE EXTENSION snowflake_id;
CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT snowflake_nextval(), note text);
CREATE TABLE events (id snowflake DEFAULT snowflake_nextval(), what text);
INSERT INTO orders (note) SELECT 'old' FROM generate_series(1, 2000);
INSERT INTO events (what) SELECT 'old' FROM generate_series(1, 500);
SQL
# The largest restored ID, and proof that the scenario bites: the source's
# IDs lie ahead of a right clock (checked on each target below).
restored_max=$(sf_psql source -c "SELECT greatest((SELECT max(id) FROM orders),
                                                  (SELECT max(id::bigint) FROM events))")
sf_log "the source's largest ID: $restored_max"

dump_args=(-h "$(sf_sockdir source)" -p "$SF_PORT" -U postgres)
"$SF_CLIENT_BIN/pg_dump" "${dump_args[@]}" -Fc -f "$dumps/custom.dump" postgres
"$SF_CLIENT_BIN/pg_dump" "${dump_args[@]}" -f "$dumps/plain.sql" postgres
"$SF_CLIENT_BIN/pg_dumpall" "${dump_args[@]}" -f "$dumps/all.sql"
sf_expect_match "the dump carries the source's origin" \
    "COPY snowflake_id.snowflake_origin" "$(cat "$dumps/plain.sql")"

# restore_ahead NAME: the restored IDs lie ahead of NAME's clock, so that
# IDs from the clock alone would sort below them.
restore_ahead() {
    sf_expect_eq "$1: the restored IDs lie over 10 minutes ahead of its clock" t \
        "$(sf_psql "$1" -c "SELECT snowflake_timestamp($restored_max) > clock_timestamp() + interval '10 min'")"
}

# mint_above NAME DB WHAT MAX: 2,000 IDs in one statement and 500 rows by
# the default of orders.id (a duplicate key fails the statement): none at
# or below MAX.
mint_round=0
mint_above() {
    mint_round=$((mint_round + 1))
    sf_expect_eq "$3: no new ID at or below the largest restored" 0 \
        "$(sf_psql "$1" -d "$2" -c "SELECT count(*) FROM (SELECT snowflake_nextval() AS id
                                    FROM generate_series(1, 2000)) s WHERE id <= $4")"
    sf_psql "$1" -d "$2" -c "INSERT INTO orders (note)
                             SELECT 'new $mint_round' FROM generate_series(1, 500)"
    sf_expect_eq "$3: the rows inserted by the default are above too" 0 \
        "$(sf_psql "$1" -d "$2" -c "SELECT count(*) FROM orders
                                    WHERE note = 'new $mint_round' AND id <= $4")"
}

# --- custom format, pg_restore, no registry ----------------------------------
sf_new custom "$same_node"
sf_start custom || sf_die "custom did not start"
"$SF_CLIENT_BIN/pg_restore" -h "$(sf_sockdir custom)" -p "$SF_PORT" -U postgres -d postgres \
    --exit-on-error "$dumps/custom.dump"
restore_ahead custom
# The check as a DBA runs it, before any ID: then a crash. No ID was issued
# after the raise, so only the raise's own reservation keeps new IDs above.
sf_expect_eq "custom: snowflake_check_restore() finds the source's origin" 1 \
    "$(sf_psql custom -c "SELECT snowflake_check_restore()")"
sf_expect_match "custom: the raise is logged" \
    "floor was raised above $restored_max in database \"postgres\"" "$(sf_server_log custom)"
sf_expect_eq "custom: the source's origin is marked checked by this server" 1 \
    "$(sf_psql custom -c "SELECT count(*) FROM snowflake_id.snowflake_origin
                          WHERE checked_by = snowflake_system_identifier()")"
sf_crash custom
sf_start custom || sf_die "custom did not start after the crash"
mint_above custom postgres "pg_restore -Fc, after a crash" "$restored_max"
sf_expect_eq "custom: after the crash no second check ran (the raise was durable)" 1 \
    "$(grep -c "floor was raised" "$SF_WORK/custom/server.log")"
custom_max=$(sf_psql custom -c "SELECT max(id) FROM orders")

# --- plain format, psql, with a registry --------------------------------------
sf_new_registry registry
sf_new plain "$same_node" "$SF_REGISTRY_CONF" "snowflake_id.lease_ttl = '6s'"
sf_start plain || sf_die "plain did not start"
sf_psql plain -f "$dumps/plain.sql" >/dev/null
sf_poll plain "SELECT lease_state FROM snowflake_status()" held
restore_ahead plain
mint_above plain postgres "plain pg_dump, with a registry" "$restored_max"
sf_expect_eq "plain: the registry's recorded bound follows the raised floor" t \
    "$(sf_psql registry -c "SELECT reserved_until_ms > $(sf_psql plain -c "SELECT (extract(epoch FROM snowflake_timestamp($restored_max)) * 1000)::bigint")
                            FROM snowflake_id.snowflake_registry_lease WHERE node_id = 7")"

# --- pg_dumpall into a database whose session already issued IDs -------------
sf_new all "$same_node"
sf_start all || sf_die "all did not start"
sf_psql all -c "CREATE EXTENSION snowflake_id"
session_in=$SF_WORK/session.in
session_out=$SF_WORK/session.out
mkfifo "$session_in"
"$SF_CLIENT_BIN/psql" -h "$(sf_sockdir all)" -p "$SF_PORT" -U postgres -d postgres -X -A -t -q \
    <"$session_in" >"$session_out" 2>&1 &
session_pid=$!
exec {session_fd}>"$session_in"
# session SQL MARKER: runs SQL in the session, waits until it printed MARKER.
session() {
    echo "$1" >&"$session_fd"
    echo "SELECT '$2';" >&"$session_fd"
    for _ in $(seq 1 6000); do
        grep -qx -- "$2" "$session_out" && return 0
        kill -0 "$session_pid" 2>/dev/null || sf_die "the session ended: $(cat "$session_out")"
        sleep 0.01 # the pace of the poll; the condition is the marker
    done
    sf_die "the session did not answer: $(cat "$session_out")"
}
session "CREATE TABLE before_restore AS SELECT snowflake_nextval() AS id FROM generate_series(1, 100);" m1
# ON_ERROR_STOP off: pg_dumpall's CREATE ROLE postgres exists already.
"$SF_CLIENT_BIN/psql" -h "$(sf_sockdir all)" -p "$SF_PORT" -U postgres -d postgres -X -q \
    -f "$dumps/all.sql" >"$SF_WORK/all.restore.log" 2>&1
sf_expect_eq "pg_dumpall: the restore brought the rows" 2500 \
    "$(sf_psql all -c "SELECT (SELECT count(*) FROM orders) + (SELECT count(*) FROM events)")"
restore_ahead all
session "CREATE TABLE after_restore AS SELECT snowflake_nextval() AS id FROM generate_series(1, 2000);" m2
sf_expect_eq "pg_dumpall: the session that issued before the restore issues above it" 0 \
    "$(sf_psql all -c "SELECT count(*) FROM after_restore WHERE id <= $restored_max")"
sf_expect_eq "pg_dumpall: and above its own earlier IDs" t \
    "$(sf_psql all -c "SELECT (SELECT min(id) FROM after_restore) > (SELECT max(id) FROM before_restore)")"
mint_above all postgres "pg_dumpall, a new session" "$restored_max"
exec {session_fd}>&-
wait "$session_pid"

# --- the refusal path ---------------------------------------------------------
# The source's clock moves to three hours ahead; a database made then carries
# IDs further ahead than a restore may take on its own.
echo "+10800" >"$source_clock"
sf_psql source -c "CREATE DATABASE far"
sf_psql source -d far <<'SQL'
CREATE EXTENSION snowflake_id;
CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT snowflake_nextval(), note text);
INSERT INTO orders (note) SELECT 'old' FROM generate_series(1, 100);
SQL
far_max=$(sf_psql source -d far -c "SELECT max(id) FROM orders")
"$SF_CLIENT_BIN/pg_dump" "${dump_args[@]}" -Fc -f "$dumps/far.dump" far
sf_psql custom -c "CREATE DATABASE far"
"$SF_CLIENT_BIN/pg_restore" -h "$(sf_sockdir custom)" -p "$SF_PORT" -U postgres -d far \
    --exit-on-error "$dumps/far.dump"
refusal=$(sf_psql custom -d far -c "SELECT snowflake_nextval()" 2>&1 || true)
sf_expect_match "far: refused, naming the database" \
    'ERROR: +the IDs restored into database far lie more than an hour ahead' "$refusal"
sf_expect_match "far: the DETAIL names the column and the value" \
    "column id of table public.orders holds $far_max" "$refusal"
sf_expect_match "far: the HINT names the fix" \
    "SELECT public.snowflake_raise_floor\\($far_max\\)" "$refusal"
sqlstate=$(sf_psql custom -d far -c "DO \$\$ BEGIN PERFORM snowflake_nextval();
    EXCEPTION WHEN OTHERS THEN RAISE NOTICE 'state %', SQLSTATE; END \$\$" 2>&1)
sf_expect_match "far: the SQLSTATE is 55000" "state 55000" "$sqlstate"
sf_expect_eq "far: the server's other database keeps issuing above its restore" 0 \
    "$(sf_psql custom -c "SELECT count(*) FROM (SELECT snowflake_nextval() AS id
                          FROM generate_series(1, 100)) s WHERE id <= $custom_max")"
sf_psql custom -d far -c "CREATE ROLE app LOGIN"
denied=$(sf_psql custom -d far -c "SET ROLE app" -c "SELECT snowflake_raise_floor($far_max)" 2>&1 || true)
sf_expect_match "far: the fix is a superuser's" "ERROR: +permission denied for function snowflake_raise_floor" "$denied"
sf_psql custom -d far -c "SELECT snowflake_raise_floor($far_max)" >/dev/null
mint_above custom far "far, after snowflake_raise_floor" "$far_max"
# --- nothing of a user's runs inside the check ---------------------------------
# snowflake_check_restore() runs as its owner (a superuser). A database's owner
# may create functions in public, the extension's schema: an overload there
# that matched one of its calls better than pg_catalog's (quote_ident(name))
# would run as a superuser. It must not: the check's search_path holds
# pg_catalog alone, its own objects named with their schema.
sf_psql custom -c "CREATE ROLE trap_owner LOGIN" -c "CREATE DATABASE trap OWNER trap_owner"
sf_psql custom -d trap -c "CREATE EXTENSION snowflake_id"
sf_psql custom -d trap <<'SQL'
SET ROLE trap_owner;
CREATE TABLE public.trap_log (who name);
CREATE TABLE public.items (id bigint PRIMARY KEY DEFAULT snowflake_nextval());
CREATE FUNCTION public.quote_ident(name) RETURNS text LANGUAGE plpgsql AS $f$
BEGIN
    INSERT INTO public.trap_log VALUES (current_user);
    RETURN pg_catalog.quote_ident($1::text);
END
$f$;
INSERT INTO snowflake_id.snowflake_origin (system_identifier, database_name) VALUES (1, 'elsewhere');
SQL
sf_psql custom -d trap -c "SET ROLE trap_owner" -c "SELECT snowflake_nextval()" >/dev/null
sf_expect_eq "trap: the check ran none of the database owner's functions" "" \
    "$(sf_psql custom -d trap -c "SELECT string_agg(who::text, ',') FROM public.trap_log")"
sf_expect_eq "trap: the owner's origin row was checked" "0" \
    "$(sf_psql custom -d trap -c "SELECT count(*) FROM snowflake_id.snowflake_origin
                                  WHERE system_identifier = 1 AND checked_by IS NULL")"
# Only a database's owner (who runs a restore) and superusers add origins:
# a row costs every session a check.
sf_psql custom -d trap -c "CREATE ROLE trap_user LOGIN"
denied=$(sf_psql custom -d trap -c "SET ROLE trap_user" \
    -c "INSERT INTO snowflake_id.snowflake_origin (system_identifier, database_name) VALUES (2, 'x')" 2>&1 || true)
sf_expect_match "trap: another role adds no origin" "ERROR: +permission denied for table snowflake_origin" "$denied"

# --- a restore protects every database of the server ------------------------------
# A fresh source (its floor near its clock) 15 s, then 600 s ahead; the
# target, same node id, mints in its database `other` all along while
# pg_restore brings the dump into `x_rest`. The generator belongs to the
# server: from the commit of each restored table's COPY on (its commit
# timestamp), no ID minted in `other` by a statement that began later is
# at or below that table's largest ID.
fresh_clock=$SF_WORK/fresh_clock
: >"$fresh_clock"
chmod 644 "$fresh_clock"
sf_new fresh "$same_node"
sf_new target "$same_node" "track_commit_timestamp = on"
sf_start target || sf_die "target did not start"
sf_psql target -c "CREATE DATABASE other"
sf_psql target -d other -c "CREATE EXTENSION snowflake_id" \
    -c "CREATE TABLE minted (id bigint, started timestamptz DEFAULT statement_timestamp())"
for lead in 15 600; do
    echo "+$lead" >"$fresh_clock"
    sf_start fresh "LD_PRELOAD=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1" \
        "FAKETIME_TIMESTAMP_FILE=$fresh_clock" "FAKETIME_NO_CACHE=1" "DONT_FAKE_MONOTONIC=1" ||
        sf_die "fresh did not start"
    sf_psql fresh -c "CREATE DATABASE src_$lead"
    sf_psql fresh -d "src_$lead" <<'SQL'
CREATE EXTENSION snowflake_id;
CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT snowflake_nextval(), note text);
CREATE TABLE events (id snowflake DEFAULT snowflake_nextval(), what text);
INSERT INTO orders (note) SELECT 'old' FROM generate_series(1, 5000);
INSERT INTO events (what) SELECT 'old' FROM generate_series(1, 5000);
SQL
    "$SF_CLIENT_BIN/pg_dump" -h "$(sf_sockdir fresh)" -p "$SF_PORT" -U postgres -Fc \
        -f "$dumps/src_$lead.dump" "src_$lead"
    sf_stop fresh
    stop_minting=$SF_WORK/stop_minting_$lead
    (
        while [ ! -e "$stop_minting" ]; do
            sf_psql target -d other -c "INSERT INTO minted (id)
                                        SELECT snowflake_nextval() FROM generate_series(1, 500)"
        done
    ) &
    minter=$!
    sf_psql target -c "CREATE DATABASE x_rest_$lead"
    "$SF_CLIENT_BIN/pg_restore" -h "$(sf_sockdir target)" -p "$SF_PORT" -U postgres \
        -d "x_rest_$lead" --exit-on-error "$dumps/src_$lead.dump"
    restored_at=$(sf_psql target -d "x_rest_$lead" -c "SELECT greatest(
        (SELECT max(pg_xact_commit_timestamp(xmin)) FROM orders),
        (SELECT max(pg_xact_commit_timestamp(xmin)) FROM events))")
    # Minting goes on until statements that began after the restore ran.
    for _ in $(seq 1 3000); do
        [ "$(sf_psql target -d other -c "SELECT count(*) > 0 FROM minted WHERE started > '$restored_at'")" = t ] && break
        sleep 0.01 # the pace of the poll; the condition is the query
    done
    touch "$stop_minting"
    wait "$minter"
    for table in orders events; do
        top=$(sf_psql target -d "x_rest_$lead" -c "SELECT max(id::bigint) FROM $table")
        committed=$(sf_psql target -d "x_rest_$lead" -c "SELECT max(pg_xact_commit_timestamp(xmin)) FROM $table")
        sf_expect_eq "source $lead s ahead: $table's IDs lie ahead of the target's clock" t \
            "$(sf_psql target -d other -c "SELECT snowflake_timestamp($top) > clock_timestamp() + interval '$((lead / 2)) s'")"
        sf_expect_eq "source $lead s ahead: another database minted after $table's data committed" t \
            "$(sf_psql target -d other -c "SELECT count(*) > 0 FROM minted WHERE started > '$committed'")"
        sf_expect_eq "source $lead s ahead: nothing it minted after that is at or below $table's IDs" 0 \
            "$(sf_psql target -d other -c "SELECT count(*) FROM minted WHERE started > '$committed' AND id <= $top")"
    done
    mint_above target "x_rest_$lead" "source $lead s ahead: the restored database" \
        "$(sf_psql target -d "x_rest_$lead" -c "SELECT greatest((SELECT max(id) FROM orders), (SELECT max(id::bigint) FROM events))")"
done
sf_log "logical_restore: all checks passed"
