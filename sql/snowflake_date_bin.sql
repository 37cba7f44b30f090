-- snowflake_interval_ids() and snowflake_date_bin(): the ID bounds of
-- fixed-length spans of time (docs/partitioning.md), by the default layout
-- (10 node and 12 sequence bits, epoch 2020-01-01 00:00:00 UTC).
SET timezone = 'UTC';
SET datestyle = 'ISO, YMD';
CREATE EXTENSION IF NOT EXISTS snowflake_id;

-- A span's IDs: its milliseconds past the 22 node and sequence bits.
SELECT w, snowflake_interval_ids(w) AS ids, snowflake_interval_ids(w) = (extract(epoch FROM w) * 1000)::bigint << 22 AS shifted
FROM (VALUES (interval '1 millisecond'), ('1 second'), ('1 hour'), ('1 day'), ('7 days'),
             ('36 hours'), ('1 day 00:00:00.001')) v(w);
-- The same as the difference of two bounds, anywhere in the layout.
SELECT snowflake_from_timestamp(t + interval '1 day') - snowflake_from_timestamp(t)
       = snowflake_interval_ids('1 day') AS same
FROM (VALUES (timestamptz '2020-01-01 00:00:00+00'), ('2026-11-24 13:14:15.678+00'),
             ('2080-06-30 23:00:00+00')) v(t);

-- A bin's bound: the smallest ID of the millisecond it starts at.
SELECT t, b, snowflake_timestamp(b) AS starts,
       b = snowflake_from_timestamp(date_trunc('day', t)) AS is_midnight_bound
FROM (VALUES (timestamptz '2026-11-24 00:00:00+00'), ('2026-11-24 00:00:00.001+00'),
             ('2026-11-24 12:34:56.789+00'), ('2026-11-24 23:59:59.999999+00'),
             ('2026-11-25 00:00:00+00')) v(t),
     LATERAL snowflake_date_bin('1 day', t) b;
-- The last ID of a day is one below the next day's bound, and in its day.
SELECT snowflake_timestamp(snowflake_date_bin('1 day', '2026-11-25') - 1) AS last_of_day,
       snowflake_decode(snowflake_date_bin('1 day', '2026-11-25') - 1) AS fields;
-- Other strides and origins: hours, weeks from the default origin (a
-- Monday), and days starting at 06:00 UTC.
SELECT snowflake_timestamp(snowflake_date_bin('1 hour', '2026-11-24 13:14:15+00')) AS hour,
       snowflake_timestamp(snowflake_date_bin('7 days', '2026-11-26 13:14:15+00')) AS week,
       to_char(snowflake_timestamp(snowflake_date_bin('7 days', '2026-11-26 13:14:15+00')), 'Dy') AS weekday,
       snowflake_timestamp(snowflake_date_bin('1 day', '2026-11-24 05:00:00+00',
                                              '2020-01-01 06:00:00+00')) AS six_am;
-- Consecutive bins are one span of IDs apart.
SELECT snowflake_date_bin('1 day', '2026-11-25 08:00+00') - snowflake_date_bin('1 day', '2026-11-24 20:00+00')
       = snowflake_interval_ids('1 day') AS one_day_apart;
-- A bin that starts before the epoch: a negative bound, below every ID.
SELECT snowflake_date_bin('7 days', '2020-01-01 10:00:00+00') AS before_epoch,
       snowflake_date_bin('7 days', '2020-01-01 10:00:00+00')
       = -2 * snowflake_interval_ids('1 day') AS two_days_before;

-- Refusals, each naming the value.
\set VERBOSITY default
SELECT snowflake_interval_ids('1 month');
SELECT snowflake_interval_ids('1 year 2 days');
SELECT snowflake_interval_ids('0');
SELECT snowflake_interval_ids('-1 day');
SELECT snowflake_interval_ids('1.5 milliseconds');
SELECT snowflake_interval_ids('30000 days');
SELECT snowflake_date_bin('1 month', now());
SELECT snowflake_date_bin('1 day', 'infinity');
SELECT snowflake_date_bin('1 day', now(), '-infinity');
SELECT snowflake_date_bin('1 day', '1900-01-01 00:00:00+00');
\set VERBOSITY terse
SELECT snowflake_date_bin('1 day', NULL) IS NULL AS strict;

-- Pinned search_path: a look-alike date_bin in the caller's path is not used.
CREATE SCHEMA sf_bin_evil;
CREATE FUNCTION sf_bin_evil.date_bin(interval, timestamptz, timestamptz) RETURNS timestamptz
LANGUAGE sql AS $$ SELECT timestamptz '2000-01-01 00:00:00+00' $$;
SET search_path = sf_bin_evil, pg_catalog, public;
SELECT public.snowflake_date_bin('1 day', '2026-11-24 12:00+00')
       = public.snowflake_from_timestamp('2026-11-24 00:00+00') AS not_fooled;
RESET search_path;
DROP SCHEMA sf_bin_evil CASCADE;
