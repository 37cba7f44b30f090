CREATE OR REPLACE FUNCTION snowflake_last_at_or_before(t timestamptz) RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_last_at_or_before' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_last_at_or_before(timestamptz) IS
'The largest ID minted at or before t: WHERE id <= snowflake_last_at_or_before(t) selects the IDs minted at or before t, id > it those minted after t';
