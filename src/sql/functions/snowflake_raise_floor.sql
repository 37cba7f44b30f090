-- VOLATILE and PARALLEL UNSAFE: it writes the state file and WAL. Only
-- superusers: it moves where every session's IDs resume, possibly ahead of
-- the clock. The function checks too, so that a GRANT alone cannot open it
-- up. max_lead_ms is snowflake_check_restore()'s: it returns NULL rather
-- than raise the floor further ahead of the clock than that.
CREATE OR REPLACE FUNCTION snowflake_raise_floor(above bigint, max_lead_ms bigint DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_raise_floor'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

REVOKE ALL ON FUNCTION snowflake_raise_floor(bigint, bigint) FROM PUBLIC;

COMMENT ON FUNCTION snowflake_raise_floor(bigint, bigint) IS
'Superuser only: from now on this server issues only IDs above the given one, also after a restart, a crash or a failover; returns the generator''s floor';
