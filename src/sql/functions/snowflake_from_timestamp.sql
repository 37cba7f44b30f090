CREATE OR REPLACE FUNCTION snowflake_from_timestamp(ts timestamptz) RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_from_timestamp'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION snowflake_from_timestamp(timestamptz) IS
'The smallest ID that can carry the given time: WHERE id >= snowflake_from_timestamp(t) selects every ID made at or after t';
