-- snowflake_id: the newest version's full install script, as its sources.
--
-- Every SQL object of the extension is written once, in one file under
-- src/sql/ (CONTRIBUTING.md, "Changing the SQL"): a function with its
-- overloads in functions/, the snowflake type in types/snowflake.sql and
-- its casts, comparisons and operators with each other type T in
-- types/snowflake_T.sql, an operator family with its class in families/,
-- the tables and views in tables/ and views/. This file lists them in the
-- order an install needs (each \ir after what it uses). `make` builds
-- build/snowflake_id--VERSION.sql from it (the Makefile's DATA_built):
-- these lines, each \ir replaced by the file it names.
\echo Use "CREATE EXTENSION snowflake_id" to load this file. \quit
\ir schema.sql
\ir functions/snowflake_nextval.sql
\ir functions/snowflake_decode.sql
\ir functions/snowflake_timestamp.sql
\ir functions/snowflake_from_timestamp.sql
\ir functions/snowflake_accept_layout.sql
\ir functions/snowflake_compose.sql
\ir functions/objectid_generate.sql
\ir functions/objectid_timestamp.sql
\ir functions/snowflake_status.sql
\ir views/snowflake_status.sql
\ir tables/snowflake_registry_layout.sql
\ir tables/snowflake_registry_lease.sql
\ir tables/snowflake_registry_timeline.sql
\ir functions/snowflake_registry_layout_text.sql
\ir functions/snowflake_registry_holder_text.sql
\ir functions/snowflake_registry_refuse_old_server.sql
\ir functions/snowflake_registry_acquire.sql
\ir functions/snowflake_registry_renew.sql
\ir functions/snowflake_registry_release.sql
\ir functions/snowflake_registry_switch.sql
\ir views/snowflake_registry_leases.sql
\ir types/snowflake.sql
\ir types/snowflake_bigint.sql
\ir types/snowflake_integer.sql
\ir types/snowflake_snowflake.sql
\ir types/snowflake_numeric.sql
\ir types/snowflake_smallint.sql
\ir families/snowflake_ops.sql
\ir families/snowflake_hash_ops.sql
\ir families/snowflake_minmax_ops.sql
\ir functions/snowflake_last_before.sql
\ir functions/snowflake_last_at_or_before.sql
\ir functions/snowflake_first_at_or_after.sql
\ir functions/snowflake_first_after.sql
\ir types/snowflake_timestamptz.sql
\ir functions/snowflake_adopt.sql
\ir functions/snowflake_interval_ids.sql
\ir functions/snowflake_date_bin.sql
\ir functions/snowflake_public.sql
\ir functions/snowflake_from_public.sql
\ir functions/snowflake_system_identifier.sql
\ir functions/snowflake_origin_arrived.sql
\ir tables/snowflake_origin.sql
\ir functions/snowflake_raise_floor.sql
\ir functions/snowflake_check_restore.sql
