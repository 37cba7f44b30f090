-- The SQL toolkit (extension 1.2): compose, foreign layouts, blocks,
-- ObjectIds, the status view.
-- Server: snowflake_id preloaded, default layout (time 41, datacenter 0,
-- worker 10, sequence 12 bits, epoch 2020-01-01), worker_id = 7.
SET timezone = 'UTC';
SET datestyle = 'ISO, YMD';
CREATE EXTENSION IF NOT EXISTS snowflake_id;

-- Every function of the extension: volatility, strictness, parallel safety,
-- whether it returns a set, and that it has a comment.
SELECT p.oid::regprocedure AS function, p.provolatile, p.proisstrict, p.proparallel,
       p.proretset, obj_description(p.oid, 'pg_proc') IS NOT NULL AS commented
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'snowflake_id'
ORDER BY p.oid::regprocedure::text;

------------------------------------------------------------------------------
-- snowflake_compose: the inverse of snowflake_decode(id).
SELECT snowflake_compose('2024-02-29 12:34:56.789+00', 7, 5) AS id,
       (snowflake_decode(snowflake_compose('2024-02-29 12:34:56.789+00', 7, 5))).*;
-- Named arguments; datacenter_id defaults to 0 and may only be 0 here
-- (datacenter_bits = 0).
SELECT snowflake_compose(ts => '2020-01-01 00:00:00+00', worker_id => 0, sequence => 0) AS first_id,
       snowflake_compose('2020-01-01 00:00:00+00', 0, 0, 0) AS same;
-- The extremes of every field.
SELECT snowflake_compose('2089-09-06 15:47:35.551+00', 1023, 4095) = 9223372036854775807 AS max_id;
-- The time is truncated to the millisecond, as the ID carries it.
SELECT snowflake_compose('2024-01-01 00:00:00.0009+00', 7, 0)
       = snowflake_compose('2024-01-01 00:00:00+00', 7, 0) AS truncated;
-- Round trip over real IDs, and agreement with snowflake_from_timestamp.
SELECT bool_and(snowflake_compose(d.ts, d.worker_id, d.sequence, d.datacenter_id) = id) AS round_trip
FROM (SELECT snowflake_nextval() AS id FROM generate_series(1, 1000)) s, snowflake_decode(id) d;
SELECT snowflake_compose('2026-01-01 00:00:00+00', 0, 0)
       = snowflake_from_timestamp('2026-01-01 00:00:00+00') AS agrees;
-- NULL in, NULL out.
SELECT snowflake_compose(NULL, 1, 1) IS NULL AS null_ts, snowflake_compose(now(), NULL, 1) IS NULL AS null_worker;
-- Each field out of range names itself.
SELECT snowflake_compose('2024-01-01 00:00:00+00', 1024, 0);
SELECT snowflake_compose('2024-01-01 00:00:00+00', -1, 0);
SELECT snowflake_compose('2024-01-01 00:00:00+00', 7, 4096);
SELECT snowflake_compose('2024-01-01 00:00:00+00', 7, -1);
SELECT snowflake_compose('2024-01-01 00:00:00+00', 7, 0, 1);
SELECT snowflake_compose('2019-12-31 23:59:59.999+00', 7, 0);
SELECT snowflake_compose('2089-09-06 15:47:35.552+00', 7, 0);
SELECT snowflake_compose('infinity', 7, 0);

------------------------------------------------------------------------------
-- Foreign layouts: presets, each against a published or hand-computed ID.
-- Twitter: the tweet of Twitter's API documentation, created_at
-- "Wed Oct 10 20:19:24 +0000 2018".
SELECT * FROM snowflake_decode(1050118621198921728, 'twitter');
-- Discord's documentation: 2016-04-30 11:18:25.796 UTC, worker 1, process 0,
-- increment 7 (worker reported as datacenter_id, process as worker_id).
SELECT * FROM snowflake_decode(175928847299117063, 'discord');
-- Instagram's engineering blog: 1387263000 ms after the epoch, shard 1341,
-- sequence 5001 % 1024 = 905.
SELECT ((1387263000::bigint << 23) | (1341 << 10) | 905) AS id,
       (snowflake_decode((1387263000::bigint << 23) | (1341 << 10) | 905, 'instagram')).*;
SELECT to_timestamp((1314220021721 + 1387263000) / 1000.0) AS expected_instagram_time;
-- Instagram's widths total 64: from 2046-06-27 on its time field reaches
-- the sign bit, so such IDs are negative bigints, and they still decode.
SELECT * FROM snowflake_decode(-9223372036854775808, 'instagram');
-- Sonyflake v1: hand-computed, 2024-01-01 00:00:00 UTC = 29453760000 units of
-- 10 ms after 2014-09-01, sequence 3, machine 0xABCD.
SELECT * FROM snowflake_decode((29453760000::bigint << 24) | (3 << 16) | 43981, 'sonyflake');
-- Preset names are case-insensitive.
SELECT snowflake_timestamp(175928847299117063, ' Discord ') AS discord_ts;

-- Explicit specs: the issue's own example equals the twitter preset.
SELECT snowflake_timestamp(1050118621198921728,
         'time=41,datacenter=5,worker=5,sequence=12;epoch=2010-11-04T01:42:54.657Z;unit=1ms')
       = snowflake_timestamp(1050118621198921728, 'twitter') AS spec_equals_preset;
-- A Java-style layout: time 41, machine 6, datacenter 8, sequence 8, epoch
-- 2019-04-01 00:00 +08:00. Hand-built ID: 2024-06-01 12:00:00.123 UTC is
-- 163195200123 ms after that epoch; machine 5, datacenter 200, sequence 42.
SELECT * FROM snowflake_decode((163195200123::bigint << 22) | (5 << 16) | (200 << 8) | 42,
                               'time=41,machine=6,datacenter=8,sequence=8;epoch=2019-04-01 00:00 +08:00');
-- Integer-ms epoch, unit in seconds; spaces and upper case are ignored.
SELECT * FROM snowflake_decode((1000::bigint << 32) | (9 << 22) | 17,
                               'time=31,worker=10,sequence=22;epoch=1700000000000;unit=1s');
SELECT * FROM snowflake_decode((1000::bigint << 32) | (9 << 22) | 17,
                               ' TIME = 31 , Worker = 10 , SEQUENCE = 22 ; EPOCH = 1700000000000 ; UNIT = 1S ');
-- The order of the fields is the order of the bits: the same ID read with
-- the sequence on top gives other fields.
SELECT * FROM snowflake_decode((1000::bigint << 32) | (9 << 22) | 17,
                               'sequence=22,time=31,worker=10;epoch=1700000000000;unit=1s');
-- NULL in, NULL out.
SELECT snowflake_timestamp(NULL, 'twitter') IS NULL AS null_id,
       snowflake_timestamp(1, NULL) IS NULL AS null_layout,
       snowflake_decode(NULL::bigint, 'twitter') IS NULL AS null_decode;

-- IMMUTABLE: folded at plan time, and allowed in index expressions.
EXPLAIN (COSTS OFF, VERBOSE) SELECT snowflake_timestamp(1050118621198921728, 'twitter');
CREATE TABLE tweets (id bigint PRIMARY KEY);
CREATE INDEX tweets_by_time ON tweets ((snowflake_timestamp(id, 'twitter')));
INSERT INTO tweets VALUES (1050118621198921728), (1212092628029698048);
SET enable_seqscan = off;
EXPLAIN (COSTS OFF)
SELECT id FROM tweets WHERE snowflake_timestamp(id, 'twitter') >= '2019-01-01 00:00:00+00';
SELECT id FROM tweets WHERE snowflake_timestamp(id, 'twitter') >= '2019-01-01 00:00:00+00';
RESET enable_seqscan;
DROP TABLE tweets;

-- Malformed specs: the message quotes the bad part and where it starts.
SELECT snowflake_timestamp(1, 'time=41,datacenter=5,wrker=5,sequence=12;epoch=1288834974657');
SELECT snowflake_timestamp(1, 'time=41,worker=5,worker=5,sequence=12;epoch=1288834974657');
SELECT snowflake_timestamp(1, 'time=41,datacenter=0,worker=10,sequence=12;epoch=1288834974657');
SELECT snowflake_timestamp(1, 'time=31,worker=32;epoch=1288834974657');
SELECT snowflake_timestamp(1, 'time=65;epoch=1288834974657');
SELECT snowflake_timestamp(1, 'time=41,worker=ten,sequence=12;epoch=1288834974657');
SELECT snowflake_timestamp(1, 'time=41,worker=9,sequence=12;epoch=1288834974657');
SELECT snowflake_timestamp(1, 'time=42,worker=11,sequence=12;epoch=1288834974657');
SELECT snowflake_timestamp(1, 'worker=31,sequence=31,datacenter=1;epoch=1288834974657');
SELECT snowflake_timestamp(1, 'time=41,worker;epoch=1288834974657');
SELECT snowflake_timestamp(1, ';epoch=1288834974657');
SELECT snowflake_timestamp(1, 'time=41,worker=10,sequence=12;unit=1ms');
SELECT snowflake_timestamp(1, 'time=41,worker=10,sequence=12;epoch=2010-11-04T01:42:54');
SELECT snowflake_timestamp(1, 'time=41,worker=10,sequence=12;epoch=1288834974657;zone=utc');
SELECT snowflake_timestamp(1, 'time=41,worker=10,sequence=12;epoch=1;epoch=2');
SELECT snowflake_timestamp(1, 'time=41,worker=10,sequence=12;epoch=1;unit=5min');
SELECT snowflake_timestamp(1, 'time=41,worker=10,sequence=12;epoch=1;unit=0ms');
SELECT snowflake_timestamp(1, 'time=41,worker=10,sequence=12;epoch=1;unit=2000000s');
SELECT snowflake_timestamp(1, 'time=41,worker=10,sequence=12;epoch=1;');
SELECT snowflake_timestamp(1, 'time=41,worker=10,sequence=12;epoch');
SELECT snowflake_timestamp(1, 'time=41,worker=,sequence=12;epoch=1');
SELECT snowflake_timestamp(1, 'time=41,worker=10,sequence=12;epoch=');
SELECT snowflake_timestamp(1, 'worker=1,time=63;epoch=1');
SELECT snowflake_timestamp(1, 'time=41,worker=10,sequence=12;epoch=' || repeat('9', 200));
SELECT snowflake_timestamp(1, '');
SELECT snowflake_timestamp(1, 'twiter');
-- IDs a layout cannot have made.
SELECT * FROM snowflake_decode(-1, 'twitter');
SELECT snowflake_timestamp(9223372036854775807, 'time=63;epoch=0;unit=86400s');

------------------------------------------------------------------------------
-- Blocks: snowflake_nextval(n).
CREATE TEMP TABLE block AS
SELECT row_number() OVER () AS i, id FROM snowflake_nextval(10000) id;
SELECT count(*) AS ids, count(DISTINCT id) AS distinct_ids FROM block;
-- Strictly increasing, this node, and each ID the next of this node: the
-- next sequence number, or sequence 0 of the next millisecond.
SELECT bool_and(b.id > a.id) AS increasing,
       bool_and(CASE WHEN (a.id & 4095) = 4095
                     THEN b.id = a.id - 4095 + (1::bigint << 22)
                     ELSE b.id = a.id + 1 END) AS consecutive
FROM block a JOIN block b ON b.i = a.i + 1;
SELECT DISTINCT d.worker_id, d.datacenter_id FROM block, snowflake_decode(id) d;
-- 10000 IDs need at least 3 milliseconds of 4096.
SELECT count(DISTINCT snowflake_timestamp(id)) >= 3 AS spans_milliseconds FROM block;
-- The next IDs, single or block, are above the block.
SELECT snowflake_nextval() > (SELECT max(id) FROM block) AS single_above,
       (SELECT min(id) FROM snowflake_nextval(3) id) > (SELECT max(id) FROM block) AS block_above;
-- In a select list, and once per row through LATERAL.
SELECT count(*) AS ids, count(DISTINCT id) AS distinct_ids
FROM (SELECT snowflake_nextval(4) AS id) s;
SELECT count(*) AS ids, count(DISTINCT id) AS distinct_ids, count(DISTINCT g) AS calls
FROM generate_series(1, 3) g, LATERAL snowflake_nextval(g) id;
-- STRICT: a NULL count gives no rows.
SELECT count(*) AS ids FROM snowflake_nextval(NULL);
-- Out of range.
SELECT snowflake_nextval(0);
SELECT snowflake_nextval(-5);
SELECT snowflake_nextval(1000001);
-- The largest block these settings allow: with max_wait = 100 ms and 4,096
-- IDs per ms, 409,600 IDs (a block that spans more could not be issued while
-- the generator runs at its drift limit). One more is refused up front.
SELECT count(*) AS largest_block FROM snowflake_nextval(409600);
SELECT snowflake_nextval(409601);

------------------------------------------------------------------------------
-- MongoDB ObjectIds.
SELECT objectid_timestamp('5c4a7fcc0ed0240001a79289') AS published_example,
       objectid_timestamp('5C4A7FCC0ED0240001A79289') AS upper_case;
SELECT objectid_timestamp(NULL) IS NULL AS null_in_null_out;
CREATE TEMP TABLE oids AS
SELECT g, objectid_generate() AS oid, clock_timestamp() AS t FROM generate_series(1, 1000) g;
SELECT bool_and(oid ~ '^[0-9a-f]{24}$') AS lowercase_hex, count(DISTINCT oid) AS distinct_oids,
       count(DISTINCT substr(oid, 9, 10)) AS process_parts,
       bool_and(objectid_timestamp(oid) BETWEEN date_trunc('second', t) - interval '1 second' AND t)
       AS carries_now
FROM oids;
-- The counter (last 3 bytes) goes up by one per call, wrapping at 2^24.
SELECT bool_and(('x' || substr(b.oid, 19))::bit(24)::int
                = (('x' || substr(a.oid, 19))::bit(24)::int + 1) % 16777216) AS counter_steps
FROM oids a JOIN oids b ON b.g = a.g + 1;
SELECT objectid_timestamp('5c4a7fcc0ed0240001a7928');
SELECT objectid_timestamp('5c4a7fcc0ed0240001a792890');
SELECT objectid_timestamp('');
SELECT objectid_timestamp('5c4a7fcc0ed0240001a7928g');
SELECT objectid_timestamp('5c4a7fcc 0ed0240001a7928');
SELECT objectid_timestamp(repeat('ab', 40));

------------------------------------------------------------------------------
-- snowflake_status: counters move with what this session does (the
-- regression tests run alone on this server).
CREATE TEMP TABLE before AS SELECT * FROM snowflake_status();
SELECT count(*) FROM snowflake_nextval(5);
SELECT snowflake_nextval() > 0 AS issued;
SELECT snowflake_nextval(0);
CREATE TEMP TABLE after AS SELECT * FROM snowflake_status();
SELECT a.ids_issued - b.ids_issued AS ids_issued, a.errors - b.errors AS errors,
       a.clock_backwards - b.clock_backwards AS clock_backwards
FROM before b, after a;
-- A block spanning milliseconds borrowed at least one ahead of the clock.
CREATE TEMP TABLE before_block AS SELECT * FROM snowflake_status();
SELECT count(*) FROM snowflake_nextval(100000);
SELECT a.sequence_exhausted > b.sequence_exhausted AS sequence_ran_out
FROM before_block b, snowflake_status() a;
-- The rest of the row.
SELECT worker_id, datacenter_id, timestamp_bits, datacenter_bits, worker_bits, sequence_bits,
       epoch, layout_ends_at, catching_up,
       last_issued_at >= now() - interval '1 minute' AS recent,
       last_issued_at <= clock_timestamp() + interval '1 second' AS within_drift,
       ahead_of_clock_ms BETWEEN 0 AND 1000 AS ahead_within_drift,
       reserved_until >= last_issued_at AS reserved_ahead
FROM snowflake_status();
CREATE TEMP TABLE newest AS SELECT snowflake_nextval() AS id;
SELECT s.last_issued_at = snowflake_timestamp(id) AS last_issued_matches
FROM newest, snowflake_status() s;
-- Any role can read the status, as the view (in the schema snowflake_id,
-- 1.6) and as the function.
CREATE ROLE sf_status_reader;
SET ROLE sf_status_reader;
SELECT count(*) AS view_rows FROM snowflake_id.snowflake_status;
SELECT (snowflake_status()).sequence_bits AS function_reads;
RESET ROLE;
DROP ROLE sf_status_reader;

------------------------------------------------------------------------------
-- A READ ONLY transaction refuses minting with 25006, as it refuses
-- nextval(): a call would raise the floor every session resumes above and may
-- write WAL and the state file. The block form, snowflake_raise_floor() and
-- snowflake_accept_layout() likewise; an ObjectId is only the clock and
-- random bytes, and is made there as gen_random_uuid() is. Nothing moves:
-- the last issued time is the same after the refusals.
CREATE SEQUENCE ro_seq;
SELECT snowflake_nextval() > 0 AS issued_read_write;
CREATE TEMP TABLE ro_before AS SELECT last_issued_at FROM snowflake_status();
BEGIN TRANSACTION READ ONLY;
SELECT snowflake_nextval();
\echo :LAST_ERROR_SQLSTATE
ROLLBACK;
BEGIN TRANSACTION READ ONLY;
SELECT count(*) FROM snowflake_nextval(3);
\echo :LAST_ERROR_SQLSTATE
ROLLBACK;
BEGIN TRANSACTION READ ONLY;
SELECT snowflake_raise_floor(1);
\echo :LAST_ERROR_SQLSTATE
ROLLBACK;
BEGIN TRANSACTION READ ONLY;
SELECT snowflake_accept_layout();
\echo :LAST_ERROR_SQLSTATE
ROLLBACK;
BEGIN TRANSACTION READ ONLY;
SELECT length(objectid_generate()) AS objectid_read_only;
SELECT nextval('ro_seq');
\echo :LAST_ERROR_SQLSTATE
ROLLBACK;
SET default_transaction_read_only = on;
SELECT snowflake_nextval();
RESET default_transaction_read_only;
SELECT s.last_issued_at = b.last_issued_at AS nothing_issued_read_only
FROM snowflake_status() s, ro_before b;
DROP TABLE ro_before;
DROP SEQUENCE ro_seq;

------------------------------------------------------------------------------
-- ObjectIds: every backend draws its own random part, at its first call.
CREATE TABLE objectid_parts (part text);
INSERT INTO objectid_parts SELECT substr(objectid_generate(), 9, 10);
\c
INSERT INTO objectid_parts SELECT substr(objectid_generate(), 9, 10);
\c
INSERT INTO objectid_parts SELECT substr(objectid_generate(), 9, 10);
SELECT count(*) AS backends, count(DISTINCT part) AS random_parts FROM objectid_parts;
DROP TABLE objectid_parts;
