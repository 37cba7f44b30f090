-- Comparing with a time (1.5): id >= now() - interval '1 day' selects the IDs
-- minted at or after that time, id < t those minted before t. An ID's time
-- is the start of its millisecond (snowflake_timestamp(id)), so each
-- comparison is exact to the timestamp's microsecond. Each splits the IDs
-- at a time; these name the split by the last value before it (from -1
-- when no ID is that early to 9223372036854775807 past every ID's time) or
-- the first after it (saturating at 9223372036854775807): no timestamptz,
-- infinite ones included, is out of range for them. STABLE: they read the
-- server's layout, as snowflake_timestamp(id) does.
CREATE OR REPLACE FUNCTION snowflake_last_before(t timestamptz) RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_last_before' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_last_before(timestamptz) IS
'The largest ID minted before t: WHERE id <= snowflake_last_before(t) selects the IDs minted before t, id > it those minted at or after t (-1 when no ID is that early)';
