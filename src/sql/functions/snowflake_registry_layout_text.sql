-- Every SQL and PL/pgSQL function pins its search_path (1.5): names in a
-- body resolve through the caller's search_path otherwise, and a registry
-- role whose path starts with a schema another role can write to would run
-- that role's look-alike tables, functions and operators. pg_catalog comes
-- first, so that no look-alike of a built-in function or operator can win,
-- then the extension's own schema (fixed: the extension is not
-- relocatable), and pg_temp last, which is otherwise searched first for
-- tables and types. A SET clause keeps a SQL function from being inlined;
-- none of these is used where that matters.

-- A layout as the server's messages write it.
CREATE OR REPLACE FUNCTION snowflake_registry_layout_text(datacenter_bits integer, worker_bits integer,
                                               sequence_bits integer, epoch_ms bigint)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, @extschema@, pg_temp AS $$
    SELECT format('%s datacenter, %s worker and %s sequence bits from epoch %s',
                  datacenter_bits, worker_bits, sequence_bits,
                  to_char(to_timestamp(epoch_ms / 1000.0) AT TIME ZONE 'UTC',
                          'YYYY-MM-DD HH24:MI:SS.MS"Z"'))
$$;

COMMENT ON FUNCTION snowflake_registry_layout_text(integer, integer, integer, bigint) IS
'A layout as snowflake_id''s messages write it';
