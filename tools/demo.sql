\pset footer off
SET timezone = 'UTC';
CREATE EXTENSION snowflake_id;

-- A table keyed by Snowflake IDs.
CREATE TABLE orders (
    id   bigint PRIMARY KEY DEFAULT snowflake_nextval(),
    item text NOT NULL
);
INSERT INTO orders (item) SELECT 'item ' || g FROM generate_series(1, 100000) g;

-- Each ID carries its time, node and sequence.
SELECT o.id, d.ts, d.datacenter_id, d.worker_id, d.sequence, o.item
FROM orders o, snowflake_decode(o.id) d
ORDER BY o.id LIMIT 5;

-- How many IDs each millisecond took (the sequence restarts at 0 every ms).
SELECT snowflake_timestamp(id) AS millisecond, count(*) AS ids
FROM orders GROUP BY 1 ORDER BY 1 LIMIT 5;

-- Time-range queries use the primary key: no timestamp column needed.
-- The rows made in a 10 ms window, 20 ms after the first row:
ANALYZE orders;
SELECT snowflake_timestamp(min(id)) + interval '20 ms' AS t FROM orders \gset
EXPLAIN (COSTS OFF)
SELECT count(*) FROM orders
WHERE id >= snowflake_from_timestamp(:'t') AND id < snowflake_from_timestamp(:'t'::timestamptz + interval '10 ms');
SELECT count(*) AS made_in_that_window FROM orders
WHERE id >= snowflake_from_timestamp(:'t') AND id < snowflake_from_timestamp(:'t'::timestamptz + interval '10 ms');
SELECT count(*) AS made_in_the_last_hour
FROM orders WHERE id >= snowflake_from_timestamp(now() - interval '1 hour');

-- With the snowflake column type, IDs compare with times directly
-- (docs/time-queries.md): the planner turns the comparison into the same
-- index range.
CREATE TABLE events (id snowflake PRIMARY KEY DEFAULT snowflake_nextval(), body text);
INSERT INTO events (body) SELECT 'event ' || g FROM generate_series(1, 10000) g;
ANALYZE events;
SELECT snowflake_timestamp(min(id)) + interval '2 ms' AS te FROM events \gset
EXPLAIN (COSTS OFF) SELECT count(*) FROM events
WHERE id >= :'te'::timestamptz AND id < :'te'::timestamptz + interval '2 ms';
SELECT count(*) AS made_in_those_2_ms FROM events
WHERE id >= :'te'::timestamptz AND id < :'te'::timestamptz + interval '2 ms';
SELECT count(*) AS events_of_the_last_hour FROM events WHERE id >= now() - interval '1 hour';

-- Public IDs for URLs (docs/public-ids.md): opaque without the key,
-- reversible with it. This key is an example: make yours with
-- `openssl rand -hex 16`.
SELECT id, snowflake_public(id, '\x000102030405060708090a0b0c0d0e0f'::bytea, prefix => 'evt') AS public_id,
       snowflake_from_public(snowflake_public(id, '\x000102030405060708090a0b0c0d0e0f'::bytea, prefix => 'evt'),
                             '\x000102030405060708090a0b0c0d0e0f'::bytea, prefix => 'evt') = id AS maps_back
FROM events ORDER BY id LIMIT 3;

-- The settings in force.
SELECT name, setting, unit FROM pg_settings WHERE name LIKE 'snowflake_id.%' ORDER BY name;

-- The toolkit (docs/reference.md).
-- A block of IDs in one step, as an ORM allocating 5 at a time would ask.
SELECT snowflake_nextval(5);
-- Composing an ID from its fields, and back.
SELECT snowflake_compose('2026-01-01 00:00:00+00', 7, 42) AS id,
       (snowflake_decode(snowflake_compose('2026-01-01 00:00:00+00', 7, 42))).*;
-- IDs minted elsewhere: Twitter's and Discord's published examples.
SELECT 'twitter' AS layout, * FROM snowflake_decode(1050118621198921728, 'twitter')
UNION ALL
SELECT 'discord', * FROM snowflake_decode(175928847299117063, 'discord');
-- MongoDB ObjectIds.
SELECT objectid_generate() AS new_objectid,
       objectid_timestamp('5c4a7fcc0ed0240001a79289') AS published_example_time;
-- What the generator is doing.
\x on
SELECT * FROM snowflake_status();
\x off
