-- Server: snowflake_id preloaded, default layout, worker_id = 7.
SET timezone = 'UTC';
SET datestyle = 'ISO, YMD';
CREATE EXTENSION snowflake_id;

-- Volatility, strictness and parallel safety.
SELECT proname, provolatile, proisstrict, proparallel
FROM pg_proc WHERE proname LIKE 'snowflake\_%' ORDER BY proname;

-- Settings as the server sees them (registry and public_key, which hold
-- secrets, are left out of pg_settings).
SELECT name, setting, unit, context, vartype, min_val, max_val
FROM pg_settings WHERE name LIKE 'snowflake_id.%' ORDER BY name;

-- Fresh IDs: positive, unique, strictly increasing in issue order, this
-- server's node, and the current time.
CREATE TEMP TABLE issued AS
SELECT g, snowflake_nextval() AS id FROM generate_series(1, 20000) g;
SELECT count(*) AS ids, count(DISTINCT id) AS distinct_ids, bool_and(id > 0) AS positive
FROM issued;
SELECT bool_and(id > prev) AS strictly_increasing
FROM (SELECT id, lag(id) OVER (ORDER BY g) AS prev FROM issued) s WHERE prev IS NOT NULL;
SELECT DISTINCT d.datacenter_id, d.worker_id FROM issued, snowflake_decode(id) d;
SELECT bool_and(d.ts BETWEEN now() - interval '1 minute' AND clock_timestamp() + interval '2 seconds')
       AS carries_now,
       bool_and(d.sequence BETWEEN 0 AND 4095) AS sequence_in_range,
       bool_and(d.ts = snowflake_timestamp(id)) AS timestamp_agrees
FROM issued, snowflake_decode(id) d;

-- Decoding IDs built by hand: ts | worker 7 | sequence.
SELECT * FROM snowflake_decode(0);
SELECT * FROM snowflake_decode((86400000::bigint << 22) | (7 << 12) | 5);
SELECT * FROM snowflake_decode(9223372036854775807);
SELECT snowflake_timestamp(4194304), snowflake_timestamp(4194303);

-- snowflake_from_timestamp: the smallest ID of the millisecond holding ts.
SELECT snowflake_from_timestamp('2020-01-01 00:00:00+00') AS at_epoch,
       snowflake_from_timestamp('2020-01-01 00:00:00.001+00') AS one_ms,
       snowflake_from_timestamp('2020-01-01 00:00:00.0019+00') AS rounds_down,
       snowflake_from_timestamp('2089-09-06 15:47:35.551999+00') AS last_ms;
SELECT t, snowflake_timestamp(snowflake_from_timestamp(t)) = date_trunc('milliseconds', t) AS round_trip
FROM (VALUES ('2020-06-15 12:34:56.789123+00'::timestamptz), ('2024-02-29 23:59:59.999+00'),
             ('2031-01-01 08:00:00+08')) v(t);

-- Ordering against real IDs: every ID made at or after t0 is >= from_timestamp(t0),
-- and every ID is below from_timestamp of a later time plus the drift bound.
CREATE TEMP TABLE mark AS SELECT clock_timestamp() AS t0;
CREATE TEMP TABLE later AS SELECT snowflake_nextval() AS id FROM generate_series(1, 5000);
SELECT bool_and(id >= snowflake_from_timestamp(t0)) AS above_start,
       bool_and(id < snowflake_from_timestamp(clock_timestamp() + interval '1001 ms')) AS below_end,
       bool_and(snowflake_from_timestamp(snowflake_timestamp(id)) <= id) AS own_ms_lower_bound,
       bool_and(snowflake_from_timestamp(snowflake_timestamp(id) + interval '1 ms') > id) AS next_ms_upper_bound
FROM later, mark;

-- The table a user writes, and a time-range query that uses the primary key.
CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT snowflake_nextval(), item text);
INSERT INTO orders (item) SELECT 'item ' || g FROM generate_series(1, 1000) g;
SELECT count(*) AS rows, count(DISTINCT id) AS distinct_ids FROM orders;
SELECT bool_and(id > prev) AS insert_order_is_id_order
FROM (SELECT id, lag(id) OVER (ORDER BY ctid) AS prev FROM orders) s WHERE prev IS NOT NULL;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF)
SELECT * FROM orders WHERE id >= snowflake_from_timestamp('2026-01-01 00:00:00+00');
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT count(*) AS recent FROM orders
WHERE id >= snowflake_from_timestamp(now() - interval '1 day');
DROP TABLE orders;
