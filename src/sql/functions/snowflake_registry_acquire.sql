CREATE OR REPLACE FUNCTION snowflake_registry_acquire(
    requested_node integer, preferred_node integer, previous_fence bigint,
    system_id numeric, instance bigint, host text, port integer, data_directory text,
    timeline integer, datacenter_bits integer, worker_bits integer, sequence_bits integer,
    epoch_ms bigint, max_clock_drift_ms bigint, ttl_ms bigint, clock_ms bigint,
    OUT node_id integer, OUT fence bigint, OUT floor_ms bigint, OUT expires_at timestamptz)
RETURNS record LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, @extschema@, pg_temp AS $$
BEGIN
    PERFORM snowflake_registry_refuse_old_server('snowflake_registry_acquire');
END
$$;

COMMENT ON FUNCTION snowflake_registry_acquire(integer, integer, bigint, numeric, bigint, text, integer, text, integer, integer, integer, integer, bigint, bigint, bigint, bigint) IS
'Registry side, before 1.5: leased a node id; now refuses the server that calls it, which must be updated';

-- Not for PUBLIC, as in 1.3 and 1.4, when these functions leased (a false
-- holder could take node ids away from live servers); they only refuse
-- now, and an install updated from 1.4 keeps the same privileges.
REVOKE ALL ON FUNCTION snowflake_registry_acquire(integer, integer, bigint, numeric, bigint, text, integer, text, integer, integer, integer, integer, bigint, bigint, bigint, bigint) FROM PUBLIC;
