CREATE OR REPLACE FUNCTION snowflake_timestamp(id bigint) RETURNS timestamptz
AS 'MODULE_PATHNAME', 'snowflake_timestamp'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION snowflake_timestamp(bigint) IS
'The time (to the millisecond) carried by a Snowflake ID, by this server''s layout';

CREATE OR REPLACE FUNCTION snowflake_timestamp(id bigint, layout text) RETURNS timestamptz
AS 'MODULE_PATHNAME', 'snowflake_timestamp_foreign'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION snowflake_timestamp(bigint, text) IS
'The time carried by an ID minted elsewhere, by a preset layout or a spec (see snowflake_decode(bigint, text))';
