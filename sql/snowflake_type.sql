-- The snowflake column type (1.4): I/O, casts, operators, both operator
-- classes and BRIN, JSON forms, plans, numeric (1.5), ALTER COLUMN TYPE both
-- ways, bad input.
-- Server: snowflake_id preloaded, default layout, worker_id = 7.
SET timezone = 'UTC';
CREATE EXTENSION IF NOT EXISTS snowflake_id;

-- Text form: bigint's digits, both ways.
SELECT '912291816210986656'::snowflake AS id,
       '912291816210986656'::snowflake::text = 912291816210986656::bigint::text AS same_text;
SELECT ' 42 '::snowflake AS blanks, '+7'::snowflake AS plus, '0'::snowflake AS zero,
       '9223372036854775807'::snowflake AS largest;
SELECT pg_column_size('912291816210986656'::snowflake) AS bytes,
       typbyval AS by_value FROM pg_type WHERE typname = 'snowflake';
-- Binary form: bigint's.
SELECT snowflake_send('912291816210986656') = int8send(912291816210986656) AS same_binary;

-- Bad input: 22P02 or 22003, the input quoted.
\set VERBOSITY default
SELECT '-5'::snowflake;
SELECT '9223372036854775808'::snowflake;
SELECT ''::snowflake;
SELECT 'abc'::snowflake;
SELECT '12a'::snowflake;
SELECT '1.5'::snowflake;
\set VERBOSITY terse
DO $$ BEGIN PERFORM '-5'::snowflake; EXCEPTION WHEN OTHERS THEN RAISE NOTICE '%', SQLSTATE; END $$;
DO $$ BEGIN PERFORM 'x'::snowflake; EXCEPTION WHEN OTHERS THEN RAISE NOTICE '%', SQLSTATE; END $$;
\set VERBOSITY default

-- Casts: to bigint implicit (decoders take a snowflake), from bigint and
-- integer on assignment, checked.
SELECT (snowflake_decode('175928847299117063'::snowflake)).worker_id IS NOT NULL AS decodes;
SELECT '912291816210986656'::snowflake + 1 AS plus_one_is_bigint;
SELECT (-1)::bigint::snowflake;
SELECT (-1)::snowflake;
SELECT castcontext, castmethod FROM pg_cast
WHERE castsource = 'snowflake'::regtype AND casttarget = 'bigint'::regtype;
SELECT castsource::regtype, castcontext, castmethod FROM pg_cast
WHERE casttarget = 'snowflake'::regtype ORDER BY 1;

-- A table keyed by snowflake, filled by the default.
CREATE TABLE sf_orders (id snowflake PRIMARY KEY DEFAULT snowflake_nextval(), note text);
INSERT INTO sf_orders (note) SELECT 'n' || g FROM generate_series(1, 1000) g;
INSERT INTO sf_orders VALUES (42, 'integer literal'), (912291816210986656::bigint, 'bigint');
SELECT count(*) AS rows, count(DISTINCT id) AS distinct_ids FROM sf_orders;
SELECT id, note FROM sf_orders WHERE id = 42;
SELECT id, note FROM sf_orders WHERE id = 912291816210986656;
SELECT count(*) AS older FROM sf_orders WHERE id < '912291816210986657';
SELECT count(*) FROM (SELECT id FROM sf_orders GROUP BY id) g;
INSERT INTO sf_orders VALUES (42, 'again');

-- JSON: strings, in every way PostgreSQL builds JSON, and back.
SELECT to_json('912291816210986656'::snowflake) AS to_json,
       to_jsonb('912291816210986656'::snowflake) AS to_jsonb,
       jsonb_build_object('id', '912291816210986656'::snowflake) AS built,
       json_build_array('912291816210986656'::snowflake) AS array;
SELECT row_to_json(o) AS row_to_json FROM sf_orders o WHERE id = 912291816210986656;
SELECT json_agg(o ORDER BY id) AS json_agg FROM sf_orders o WHERE id IN (42, 912291816210986656);
SELECT to_jsonb(o) AS to_jsonb_row FROM sf_orders o WHERE id = 42;
SELECT ((to_jsonb(o)->>'id')::snowflake = o.id) AS round_trip
FROM sf_orders o WHERE id = 912291816210986656;
-- A bigint, for contrast, is a JSON number.
SELECT to_json(912291816210986656::bigint) AS bigint_is_a_number;

-- Plans: the primary key serves snowflake, bigint and integer comparisons.
ANALYZE sf_orders;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM sf_orders WHERE id >= snowflake_from_timestamp('2026-01-01');
EXPLAIN (COSTS OFF) SELECT * FROM sf_orders WHERE id = 42;
EXPLAIN (COSTS OFF) SELECT * FROM sf_orders WHERE id = 42::bigint;
EXPLAIN (COSTS OFF) SELECT * FROM sf_orders WHERE id = '42'::snowflake;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- A bigint column can reference a snowflake key; joins hash and merge.
CREATE TABLE sf_lines (order_id bigint REFERENCES sf_orders (id), qty int);
INSERT INTO sf_lines SELECT id, 1 FROM sf_orders WHERE note LIKE 'n1%';
INSERT INTO sf_lines VALUES (1, 1);
SET enable_nestloop = off;
SET enable_mergejoin = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM sf_orders o JOIN sf_lines l ON l.order_id = o.id;
SELECT count(*) AS hash_joined FROM sf_orders o JOIN sf_lines l ON l.order_id = o.id;
SET enable_hashjoin = off;
SET enable_mergejoin = on;
EXPLAIN (COSTS OFF) SELECT count(*) FROM sf_orders o JOIN sf_lines l ON l.order_id = o.id;
SELECT count(*) AS merge_joined FROM sf_orders o JOIN sf_lines l ON l.order_id = o.id;
RESET enable_nestloop;
RESET enable_mergejoin;
RESET enable_hashjoin;
SELECT count(*) AS distinct_hashed FROM (SELECT DISTINCT id FROM sf_orders) d;

-- A hash index and a BRIN index.
CREATE INDEX sf_orders_hash ON sf_orders USING hash (id);
CREATE INDEX sf_orders_brin ON sf_orders USING brin (id);
SET enable_seqscan = off;
SET enable_indexscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM sf_orders WHERE id >= 912291816210986656::bigint;
SELECT count(*) AS via_bitmap FROM sf_orders WHERE id >= 912291816210986656::bigint;
RESET enable_seqscan;
RESET enable_indexscan;

-- Partition pruning on a snowflake key, as the recipe does for bigint.
CREATE TABLE sf_events (id snowflake NOT NULL, payload text) PARTITION BY RANGE (id);
CREATE TABLE sf_events_a PARTITION OF sf_events FOR VALUES FROM ('0') TO ('1000000');
CREATE TABLE sf_events_b PARTITION OF sf_events FOR VALUES FROM ('1000000') TO (MAXVALUE);
INSERT INTO sf_events VALUES (5, 'a'), (2000000, 'b');
EXPLAIN (COSTS OFF) SELECT * FROM sf_events WHERE id >= 1000000::bigint;
EXPLAIN (COSTS OFF) SELECT * FROM sf_events WHERE id < '1000000'::snowflake;

-- With numeric (1.5): the casts and comparisons bigint has, for drivers
-- that send Decimal or BigDecimal IDs. The casts are on assignment, not
-- implicit as bigint's to numeric: first, that nothing resolves otherwise
-- than before (an implicit cast to numeric would make id + id, sum(id),
-- max(id) and abs(id) ambiguous), then the new forms.
SELECT castsource::regtype, casttarget::regtype, castcontext, castmethod FROM pg_cast
WHERE 'numeric'::regtype IN (castsource, casttarget)
  AND 'snowflake'::regtype IN (castsource, casttarget) ORDER BY 1;
DROP INDEX sf_orders_hash, sf_orders_brin;
SELECT pg_typeof(id + 1) AS plus_int, pg_typeof(id + id) AS plus_self,
       pg_typeof(id * 2::bigint) AS times_bigint, pg_typeof(-id) AS minus,
       pg_typeof(abs(id)) AS abs, pg_typeof(id % 7) AS modulo
FROM sf_orders WHERE id = 42;
SELECT pg_typeof(sum(id)) AS sum, pg_typeof(max(id)) AS max, pg_typeof(min(id)) AS min,
       pg_typeof(avg(id)) AS avg
FROM sf_orders;
SELECT id, pg_typeof(id) FROM sf_orders WHERE id IN (42, 912291816210986656) ORDER BY id DESC;
-- Whether a query's plan reads the key's index, whatever shape the plan
-- takes on this major: PostgreSQL 18 turns id IN (42, 43) into one
-- = ANY scan where 15 ORs two, and marks a node the settings disable.
CREATE FUNCTION pg_temp.reads_key(query text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
        IF line LIKE '%sf_orders_pkey%' THEN
            RETURN true;
        END IF;
    END LOOP;
    RETURN false;
END $$;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
PREPARE by_bigint(bigint) AS SELECT note FROM sf_orders WHERE id = $1;
EXPLAIN (COSTS OFF) EXECUTE by_bigint(42);
SELECT pg_temp.reads_key('SELECT * FROM sf_orders WHERE id IN (42, 43)') AS in_list_reads_key;
EXPLAIN (COSTS OFF) SELECT * FROM sf_orders WHERE id = ANY ('{42, 43}'::bigint[]);
EXPLAIN (COSTS OFF) SELECT id FROM sf_orders ORDER BY id LIMIT 1;
DEALLOCATE by_bigint;
-- The new comparisons: in numeric, exactly, as bigint's (5.5 equals no ID).
SELECT id = 42.0 AS eq, id = 42.5 AS eq_fraction, id < 42.5 AS lt, id >= 42.5 AS ge,
       id <> 42.5 AS ne, 42.5 > id AS commuted, 42.0 = id AS commuted_eq
FROM sf_orders WHERE id = 42;
SELECT note FROM sf_orders WHERE id = 912291816210986656.000;
SELECT count(*) AS beyond_bigint FROM sf_orders WHERE id < 9223372036854775808;
SELECT note FROM sf_orders WHERE id IN (42.0, 7.5) ORDER BY 1;
-- As for bigint, the index does not serve a numeric operand: the column is
-- compared in numeric. A driver sending Decimal IDs gets a scan; the client
-- drivers page (docs/client-drivers.md) sends them as integers.
SELECT pg_temp.reads_key('SELECT * FROM sf_orders WHERE id = 42.0') AS numeric_reads_key;
RESET enable_seqscan;
RESET enable_bitmapscan;
-- Casts: to numeric, and from numeric, on assignment, for whole numbers
-- from 0 to 2^63 - 1, however written.
SELECT id::numeric AS to_numeric, pg_typeof(id::numeric) FROM sf_orders WHERE id = 912291816210986656;
SELECT 42.000::snowflake AS trailing_zeros, '9.12E+17'::numeric::snowflake AS exponent,
       9223372036854775807::numeric::snowflake AS largest, 0.0::snowflake AS zero;
PREPARE by_numeric(numeric) AS SELECT note FROM sf_orders WHERE id = $1;
EXECUTE by_numeric(912291816210986656);
DEALLOCATE by_numeric;
PREPARE insert_numeric(numeric, text) AS INSERT INTO sf_orders VALUES ($1, $2) RETURNING id, pg_typeof(id);
EXECUTE insert_numeric(912291816210986700, 'numeric');
UPDATE sf_orders SET id = 912291816210986701.0 WHERE id = 912291816210986700.0 RETURNING id, note;
CREATE TEMP TABLE sf_amounts (n numeric);
INSERT INTO sf_amounts SELECT id FROM sf_orders WHERE id = 912291816210986701;
SELECT n FROM sf_amounts;
DELETE FROM sf_orders WHERE id = 912291816210986701::numeric RETURNING note;
-- A numeric that is no snowflake: refused, never rounded (bigint rounds
-- 42.5 to 43, another ID), the value named.
\set VERBOSITY default
SELECT 42.5::snowflake;
SELECT 42.5::bigint AS bigint_rounds;
EXECUTE insert_numeric(0.5, 'half');
SELECT (-1.0)::snowflake;
SELECT 9223372036854775808::snowflake;
SELECT 'NaN'::numeric::snowflake;
SELECT 'Infinity'::numeric::snowflake;
\set VERBOSITY terse
DO $$ BEGIN PERFORM 42.5::snowflake; EXCEPTION WHEN OTHERS THEN RAISE NOTICE '%', SQLSTATE; END $$;
DO $$ BEGIN PERFORM 9223372036854775808::snowflake; EXCEPTION WHEN OTHERS THEN RAISE NOTICE '%', SQLSTATE; END $$;
DO $$ BEGIN PERFORM (-1.0)::snowflake; EXCEPTION WHEN OTHERS THEN RAISE NOTICE '%', SQLSTATE; END $$;
DO $$ BEGIN PERFORM 'NaN'::numeric::snowflake; EXCEPTION WHEN OTHERS THEN RAISE NOTICE '%', SQLSTATE; END $$;
\set VERBOSITY default
DEALLOCATE insert_numeric;

-- With smallint (1.5): psycopg 3 sends an int below 32768 as a smallint,
-- and snowflake = smallint was ambiguous (bigint's and integer's operators
-- fit equally). The comparisons, the index, the assignment cast, a
-- negative value refused.
SELECT id = 42::smallint AS eq, 42::smallint = id AS commuted, id < 43::smallint AS lt,
       id >= 43::smallint AS ge, id <> 42::smallint AS ne
FROM sf_orders WHERE id = 42;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
PREPARE by_smallint(smallint) AS SELECT note FROM sf_orders WHERE id = $1;
EXECUTE by_smallint(42);
EXPLAIN (COSTS OFF) EXECUTE by_smallint(42);
DEALLOCATE by_smallint;
RESET enable_seqscan;
RESET enable_bitmapscan;
PREPARE insert_smallint(smallint, text) AS INSERT INTO sf_orders VALUES ($1, $2) RETURNING id, pg_typeof(id);
EXECUTE insert_smallint(7, 'smallint');
EXECUTE insert_smallint(-7, 'negative');
DEALLOCATE insert_smallint;
SELECT pg_typeof(id + 1::smallint) AS plus_smallint FROM sf_orders WHERE id = 7;
DELETE FROM sf_orders WHERE id = 7::smallint RETURNING note;
-- The families are complete (amvalidate says nothing and returns true):
-- id = ANY(integer[]) and (smallint[]) use the key, and a merge join with
-- an integer or smallint column works (both once failed with "missing
-- support function").
SELECT opcname, amvalidate(oid) FROM pg_opclass
WHERE opcname IN ('snowflake_ops', 'snowflake_hash_ops', 'snowflake_minmax_ops') ORDER BY 1;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT note FROM sf_orders WHERE id = ANY (ARRAY[42, 43]);
SELECT note FROM sf_orders WHERE id = ANY (ARRAY[42, 43]::smallint[]);
EXPLAIN (COSTS OFF) SELECT note FROM sf_orders WHERE id = ANY (ARRAY[42, 43]);
RESET enable_seqscan;
RESET enable_bitmapscan;
CREATE TEMP TABLE sf_small AS SELECT g::smallint AS s, g AS i FROM generate_series(40, 45) g;
ANALYZE sf_small;
SET enable_nestloop = off;
SET enable_hashjoin = off;
SELECT count(*) AS merged_smallint FROM sf_orders o JOIN sf_small x ON o.id = x.s;
SELECT count(*) AS merged_integer FROM sf_orders o JOIN sf_small x ON o.id = x.i;
EXPLAIN (COSTS OFF) SELECT count(*) FROM sf_orders o JOIN sf_small x ON o.id = x.i;
RESET enable_nestloop;
RESET enable_hashjoin;
SET enable_mergejoin = off;
SET enable_nestloop = off;
SELECT count(*) AS hashed_integer FROM sf_orders o JOIN sf_small x ON o.id = x.i;
RESET enable_mergejoin;
RESET enable_nestloop;

-- ALTER COLUMN TYPE: to snowflake the table is rewritten (the cast checks
-- every value); back to bigint it is not (the same bits).
CREATE TABLE sf_convert (id bigint PRIMARY KEY);
INSERT INTO sf_convert SELECT g * 1000003 FROM generate_series(1, 100) g;
CREATE TEMP TABLE sf_before AS SELECT pg_relation_filenode('sf_convert') AS node;
ALTER TABLE sf_convert ALTER COLUMN id TYPE snowflake;
SELECT pg_relation_filenode('sf_convert') <> (SELECT node FROM sf_before) AS rewritten_to_snowflake,
       format_type(atttypid, atttypmod) AS type
FROM pg_attribute WHERE attrelid = 'sf_convert'::regclass AND attname = 'id';
UPDATE sf_before SET node = pg_relation_filenode('sf_convert');
ALTER TABLE sf_convert ALTER COLUMN id TYPE bigint;
SELECT pg_relation_filenode('sf_convert') <> (SELECT node FROM sf_before) AS rewritten_to_bigint,
       format_type(atttypid, atttypmod) AS type
FROM pg_attribute WHERE attrelid = 'sf_convert'::regclass AND attname = 'id';
INSERT INTO sf_convert VALUES (-1);
ALTER TABLE sf_convert ALTER COLUMN id TYPE snowflake;

DROP TABLE sf_lines, sf_orders, sf_events, sf_convert;
