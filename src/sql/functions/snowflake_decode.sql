-- The decoders read the layout settings, which are fixed while the server
-- runs: STABLE, not IMMUTABLE, since a restart with another layout would
-- change their results.
CREATE OR REPLACE FUNCTION snowflake_decode(id bigint, OUT ts timestamptz, OUT datacenter_id integer,
                                 OUT worker_id integer, OUT sequence integer)
RETURNS record
AS 'MODULE_PATHNAME', 'snowflake_decode'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION snowflake_decode(bigint) IS
'Splits a Snowflake ID into its time, datacenter id, worker id and sequence, by this server''s layout';

-- IMMUTABLE: the layout is an argument, and nothing else goes in, so the
-- result never changes; usable in index expressions and partition bounds.
CREATE OR REPLACE FUNCTION snowflake_decode(id bigint, layout text, OUT ts timestamptz,
                                 OUT datacenter_id integer, OUT worker_id integer,
                                 OUT sequence integer)
RETURNS record
AS 'MODULE_PATHNAME', 'snowflake_decode_foreign'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION snowflake_decode(bigint, text) IS
'Splits an ID minted elsewhere by a preset layout (twitter, discord, instagram, sonyflake) or a spec such as ''time=41,datacenter=5,worker=5,sequence=12;epoch=1288834974657;unit=1ms''';
