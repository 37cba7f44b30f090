#!/usr/bin/env bash
# The restore check (src/pg/pg_origins.cpp, docs/durability.md, "Logical
# restores") as the roles that reach it: an application's ordinary role
# mints whatever snowflake_origin holds, and no code of a table's owner
# runs inside the check.
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
sf_expect_eq "an ordinary role inserts by the default" "" "$(app_insert first)"
sf_psql attacks -d apps -c "SET ROLE app_owner" \
    -c "INSERT INTO snowflake_id.snowflake_origin (system_identifier, database_name)
        VALUES (1, 'elsewhere')"
sf_expect_eq "an ordinary role inserts after the owner's origin row" "" "$(app_insert second)"
sf_expect_eq "both rows are there" 2 \
    "$(sf_psql attacks -d apps -c "SELECT count(*) FROM public.orders")"

sf_log "restore_attacks: all checks passed"
