CREATE OR REPLACE FUNCTION snowflake_registry_switch(
    node_id integer, fence bigint, instance bigint, held_reserved_until_ms bigint,
    system_id numeric, host text, port integer, data_directory text, timeline integer,
    max_clock_drift_ms bigint, ttl_ms bigint, clock_ms bigint, reserved_until_ms bigint,
    OUT new_node_id integer, OUT new_fence bigint, OUT floor_ms bigint,
    OUT expires_at timestamptz)
RETURNS record LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, @extschema@, pg_temp AS $$
BEGIN
    PERFORM snowflake_registry_refuse_old_server('snowflake_registry_switch');
END
$$;

COMMENT ON FUNCTION snowflake_registry_switch(integer, bigint, bigint, bigint, numeric, text, integer, text, integer, bigint, bigint, bigint, bigint) IS
'Registry side, before 1.5: switched a lease for another node id; now refuses the server that calls it, which must be updated';
REVOKE ALL ON FUNCTION snowflake_registry_switch(integer, bigint, bigint, bigint, numeric, text, integer, text, integer, bigint, bigint, bigint, bigint) FROM PUBLIC;
