-- Partitioning by ID time (1.5): the IDs that bound fixed-length spans of
-- time, for PARTITION BY RANGE (id) and pg_partman's integer partitioning
-- (docs/partitioning.md). An ID is (its millisecond - the epoch) shifted
-- past the node and sequence bits, so the smallest ID of a millisecond
-- grows by the same number for every millisecond: a bound plus a whole
-- number of spans is again a bound, at the same time of day. STABLE like
-- snowflake_from_timestamp(): they read the layout settings.

-- The IDs one span holds. Spans with months or years have no fixed length
-- and are refused, as date_bin() refuses them; a day is 24 hours (UTC has
-- no daylight saving time).
CREATE OR REPLACE FUNCTION snowflake_interval_ids(width interval) RETURNS bigint
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, @extschema@, pg_temp AS $$
DECLARE
    width_ms numeric := extract(epoch FROM width) * 1000;
    ids_per_ms bigint := snowflake_from_timestamp(snowflake_timestamp(0) + interval '1 millisecond');
    ids numeric;
BEGIN
    IF extract(year FROM width) <> 0 OR extract(month FROM width) <> 0 THEN
        RAISE EXCEPTION 'interval ''%'' has no fixed length', width
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = 'Months and years differ in length, so their spans of IDs differ too.',
                  HINT = 'Use days, hours, minutes or seconds, e.g. interval ''7 days''.';
    END IF;
    IF width_ms <= 0 OR width_ms <> trunc(width_ms) THEN
        RAISE EXCEPTION 'interval ''%'' is not a positive whole number of milliseconds', width
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = 'IDs carry whole milliseconds.',
                  HINT = 'Use a positive interval of whole milliseconds, e.g. interval ''1 day''.';
    END IF;
    ids := width_ms * ids_per_ms;
    IF ids > 9223372036854775807 THEN
        RAISE EXCEPTION 'interval ''%'' is longer than the ID layout''s time range', width
            USING ERRCODE = 'datetime_field_overflow',
                  DETAIL = format('It would span %s IDs; a bigint holds at most 9223372036854775807.', trunc(ids)),
                  HINT = 'Use a shorter interval.';
    END IF;
    RETURN ids;
END $$;

COMMENT ON FUNCTION snowflake_interval_ids(interval) IS
'How many IDs a fixed-length interval of time spans, by this server''s layout: pg_partman''s p_interval for a bigint key';
