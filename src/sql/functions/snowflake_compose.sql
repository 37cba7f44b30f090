-- STABLE like snowflake_decode(id): it packs by the server's layout settings.
CREATE OR REPLACE FUNCTION snowflake_compose(ts timestamptz, worker_id integer, sequence integer,
                                  datacenter_id integer DEFAULT 0)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_compose'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION snowflake_compose(timestamptz, integer, integer, integer) IS
'The ID that snowflake_decode(id) splits into these fields, by this server''s layout; the time is truncated to the millisecond';
