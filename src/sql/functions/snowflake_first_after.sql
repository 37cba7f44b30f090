CREATE OR REPLACE FUNCTION snowflake_first_after(t timestamptz) RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_first_after' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_first_after(timestamptz) IS
'The smallest ID minted after t: snowflake_last_at_or_before(t) + 1, or 9223372036854775807 when no ID is that late';
