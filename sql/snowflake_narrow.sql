-- Server: snowflake_id preloaded, worker_id = 7, sequence_bits = 4 and
-- max_clock_drift = 10 ms: a block can span at most 11 ms of 16 IDs.
SET timezone = 'UTC';
SET datestyle = 'ISO, YMD';
CREATE EXTENSION snowflake_id;
SELECT count(*) AS largest_block FROM snowflake_nextval(176);
SELECT snowflake_nextval(177);
-- Its IDs still run through the node's sequence, millisecond by millisecond.
CREATE TEMP TABLE block AS SELECT row_number() OVER () AS i, id FROM snowflake_nextval(40) id;
SELECT bool_and(CASE WHEN (a.id & 15) = 15 THEN b.id = a.id - 15 + (1::bigint << 14)
                     ELSE b.id = a.id + 1 END) AS consecutive
FROM block a JOIN block b ON b.i = a.i + 1;
SELECT sequence_bits, timestamp_bits, errors >= 1 AS counted_error FROM snowflake_status();
-- Comparisons with a time on this layout (14 bits below the millisecond,
-- the time field capped at 9999-12-31): each agrees with the ID's time,
-- through the planner's rewrite (constants and columns) and the
-- operators' own functions (= ANY).
CREATE TEMP TABLE narrow_ids AS
SELECT DISTINCT snowflake_compose(ms, node, seq)::snowflake AS id
FROM unnest(ARRAY[timestamptz '2026-11-01 00:00:00+00', '2026-11-01 00:00:00.001+00',
                  '2020-01-01 00:00:00+00', '9999-12-31 23:59:59.999+00']) AS ms,
     unnest(ARRAY[0, 1023]) AS node, unnest(ARRAY[0, 15]) AS seq;
CREATE TEMP TABLE narrow_times (t timestamptz);
INSERT INTO narrow_times VALUES ('-infinity'), ('2020-01-01 00:00:00+00'),
    ('2026-10-31 23:59:59.9995+00'), ('2026-11-01 00:00:00+00'), ('2026-11-01 00:00:00.0005+00'),
    ('2026-11-01 00:00:00.001+00'), ('9999-12-31 23:59:59.999+00'), ('infinity');
SELECT count(*) FILTER (WHERE (id < t) IS DISTINCT FROM (snowflake_timestamp(id) < t)
                           OR (id <= t) IS DISTINCT FROM (snowflake_timestamp(id) <= t)
                           OR (id > t) IS DISTINCT FROM (snowflake_timestamp(id) > t)
                           OR (id >= t) IS DISTINCT FROM (snowflake_timestamp(id) >= t)
                           OR (id >= ANY (ARRAY[t])) IS DISTINCT FROM (snowflake_timestamp(id) >= t)
                           OR (id < ANY (ARRAY[t])) IS DISTINCT FROM (snowflake_timestamp(id) < t))
           AS wrong,
       count(*) AS pairs
FROM narrow_ids, narrow_times;
SELECT (SELECT count(*) FROM narrow_ids WHERE id >= timestamptz '2026-11-01 00:00:00.0005+00') AS from_constant,
       (SELECT count(*) FROM narrow_ids WHERE snowflake_timestamp(id) >= '2026-11-01 00:00:00.0005+00') AS by_time;
-- A value past the layout's end compares by its bits: after its time's
-- last millisecond, before infinity.
SELECT '9223372036854775807'::snowflake > timestamptz '9999-12-31 23:59:59.999+00' AS after_the_end,
       '9223372036854775807'::snowflake < timestamptz 'infinity' AS before_infinity;
