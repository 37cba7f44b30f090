-- date_bin() in IDs: the smallest ID of the millisecond the bin holding
-- source starts at. The bins are counted from origin, not from the epoch,
-- so they start at midnight UTC (the default origin, a Monday) whatever
-- the epoch. A bin that starts before the epoch gets a negative bound,
-- below every ID, which is still a partition's right lower bound.
CREATE OR REPLACE FUNCTION snowflake_date_bin(stride interval, source timestamptz,
                                   origin timestamptz DEFAULT '2001-01-01 00:00:00+00')
RETURNS bigint
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, @extschema@, pg_temp AS $$
DECLARE
    ids_per_ms bigint := snowflake_from_timestamp(snowflake_timestamp(0) + interval '1 millisecond');
    bin timestamptz;
    bound numeric;
BEGIN
    PERFORM snowflake_interval_ids(stride);
    IF NOT isfinite(source) OR NOT isfinite(origin) THEN
        RAISE EXCEPTION 'time % has no bin', CASE WHEN isfinite(source) THEN origin ELSE source END
            USING ERRCODE = 'datetime_field_overflow',
                  DETAIL = 'Only finite times fall into bins of IDs.',
                  HINT = 'Pass a finite source and origin.';
    END IF;
    bin := date_bin(stride, source, origin);
    bound := floor((extract(epoch FROM bin) - extract(epoch FROM snowflake_timestamp(0))) * 1000)
             * ids_per_ms;
    IF bound NOT BETWEEN -9223372036854775808 AND 9223372036854775807 THEN
        RAISE EXCEPTION 'the bin of % starting at % is outside the ID layout''s range', source, bin
            USING ERRCODE = 'datetime_field_overflow',
                  DETAIL = format('Its bound would be %s, beyond a bigint.', trunc(bound)),
                  HINT = 'Keep the time near the layout''s range, from snowflake_timestamp(0) on.';
    END IF;
    RETURN bound;
END $$;

COMMENT ON FUNCTION snowflake_date_bin(interval, timestamptz, timestamptz) IS
'date_bin() in IDs: the first ID bound of the bin of stride (counted from origin, by default midnight UTC) that holds source; pg_partman''s p_start_partition for a bigint key';
