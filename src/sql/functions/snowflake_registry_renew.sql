CREATE OR REPLACE FUNCTION snowflake_registry_renew(node_id integer, fence bigint, instance bigint,
                                         reserved_until_ms bigint, ttl_ms bigint)
RETURNS timestamptz LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, @extschema@, pg_temp AS $$
BEGIN
    PERFORM snowflake_registry_refuse_old_server('snowflake_registry_renew');
    RETURN NULL;
END
$$;

COMMENT ON FUNCTION snowflake_registry_renew(integer, bigint, bigint, bigint, bigint) IS
'Registry side, before 1.5: renewed a lease; now refuses the server that calls it, which must be updated';
REVOKE ALL ON FUNCTION snowflake_registry_renew(integer, bigint, bigint, bigint, bigint) FROM PUBLIC;
