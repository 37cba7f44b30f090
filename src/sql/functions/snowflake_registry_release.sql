CREATE OR REPLACE FUNCTION snowflake_registry_release(node_id integer, fence bigint, instance bigint,
                                           reserved_until_ms bigint)
RETURNS boolean LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, @extschema@, pg_temp AS $$
BEGIN
    PERFORM snowflake_registry_refuse_old_server('snowflake_registry_release');
    RETURN NULL;
END
$$;

COMMENT ON FUNCTION snowflake_registry_release(integer, bigint, bigint, bigint) IS
'Registry side, before 1.5: gave a lease back; now refuses the server that calls it, which must be updated';
REVOKE ALL ON FUNCTION snowflake_registry_release(integer, bigint, bigint, bigint) FROM PUBLIC;
