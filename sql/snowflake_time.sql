-- Comparing a snowflake with a timestamptz (1.5): the boundaries, every
-- operator against snowflake_timestamp(id) <op> t, and the plans the
-- planner support function gives (index conditions, pruned partitions).
-- Server: snowflake_id preloaded, default layout (22 bits below the
-- millisecond), worker_id = 7.
SET timezone = 'UTC';
SET datestyle = 'ISO, YMD';
CREATE EXTENSION IF NOT EXISTS snowflake_id;

-- The two boundaries: the largest ID minted before t, at or before t. One
-- millisecond is 4194304 IDs; a time inside a millisecond counts that
-- millisecond as before it (its start is), a time on its start does not.
SELECT t, snowflake_last_before(t) AS last_before,
       snowflake_last_at_or_before(t) AS last_at_or_before,
       snowflake_timestamp(snowflake_last_before(t) + 1) AS first_at_or_after,
       snowflake_timestamp(snowflake_last_at_or_before(t) + 1) AS first_after
FROM (VALUES (timestamptz '2026-11-01 00:00:00+00'),
             ('2026-11-01 00:00:00.000001+00'),
             ('2026-11-01 00:00:00.000999+00'),
             ('2026-11-01 00:00:00.001+00'),
             ('2020-01-01 00:00:00.001+00')) AS v(t);
-- At or before the epoch no ID is that early (-1); past the layout's end
-- (2089-09-06 15:47:35.551) every ID is (the largest bigint); never an error.
SELECT t, snowflake_last_before(t) AS last_before,
       snowflake_last_at_or_before(t) AS last_at_or_before
FROM (VALUES (timestamptz '-infinity'), ('4713-01-01 00:00:00+00 BC'),
             ('2019-12-31 23:59:59.999999+00'), ('2020-01-01 00:00:00+00'),
             ('2020-01-01 00:00:00.0005+00'), ('2089-09-06 15:47:35.551+00'),
             ('2089-09-06 15:47:35.5515+00'), ('2089-09-06 15:47:35.552+00'),
             ('294276-12-31 23:59:59.999999+00'), ('infinity')) AS v(t);
SELECT snowflake_last_before(NULL) IS NULL AS null_in_null_out;

-- IDs at every extreme: the first and last node ids and sequence numbers, in
-- the milliseconds around the comparison times, and the layout's first and
-- last IDs.
CREATE TABLE extremes (id snowflake PRIMARY KEY);
INSERT INTO extremes
SELECT DISTINCT snowflake_compose(ms, node, seq)::snowflake
FROM unnest(ARRAY[timestamptz '2026-11-01 00:00:00+00' - interval '1 millisecond',
                  '2026-11-01 00:00:00+00', '2026-11-01 00:00:00.001+00',
                  '2026-11-01 00:00:00.002+00', '2020-01-01 00:00:00+00',
                  '2020-01-01 00:00:00.001+00', '2089-09-06 15:47:35.550+00',
                  '2089-09-06 15:47:35.551+00']) AS ms,
     unnest(ARRAY[0, 1, 512, 1022, 1023]) AS node,
     unnest(ARRAY[0, 1, 4094, 4095]) AS seq;
SELECT count(*) AS ids, min(id) AS first, max(id) AS last FROM extremes;

CREATE TABLE times (t timestamptz);
INSERT INTO times VALUES ('-infinity'), ('2019-12-31 23:59:59.999999+00'), ('2020-01-01 00:00:00+00'),
    ('2020-01-01 00:00:00.000001+00'), ('2020-01-01 00:00:00.001+00'),
    ('2026-10-31 23:59:59.999+00'), ('2026-10-31 23:59:59.9995+00'), ('2026-11-01 00:00:00+00'),
    ('2026-11-01 00:00:00.000001+00'), ('2026-11-01 00:00:00.000999+00'),
    ('2026-11-01 00:00:00.001+00'), ('2026-11-01 00:00:00.0015+00'), ('2026-11-01 00:00:00.002+00'),
    ('2089-09-06 15:47:35.551+00'), ('2089-09-06 15:47:35.5515+00'),
    ('2089-09-06 15:47:35.552+00'), ('infinity');

-- Each operator, both ways round, against the ID's time compared with t:
-- no disagreement on any pair, and each operator true and false somewhere.
-- As planned (the support function's rewrite):
SELECT op, count(*) FILTER (WHERE got IS DISTINCT FROM want) AS wrong,
       count(*) FILTER (WHERE got) AS true_pairs, count(*) FILTER (WHERE NOT got) AS false_pairs
FROM (
    SELECT '<' AS op, id < t AS got, snowflake_timestamp(id) < t AS want FROM extremes, times
    UNION ALL SELECT '<=', id <= t, snowflake_timestamp(id) <= t FROM extremes, times
    UNION ALL SELECT '>', id > t, snowflake_timestamp(id) > t FROM extremes, times
    UNION ALL SELECT '>=', id >= t, snowflake_timestamp(id) >= t FROM extremes, times
    UNION ALL SELECT 't <', t < id, t < snowflake_timestamp(id) FROM extremes, times
    UNION ALL SELECT 't <=', t <= id, t <= snowflake_timestamp(id) FROM extremes, times
    UNION ALL SELECT 't >', t > id, t > snowflake_timestamp(id) FROM extremes, times
    UNION ALL SELECT 't >=', t >= id, t >= snowflake_timestamp(id) FROM extremes, times
    UNION ALL SELECT 'between', id BETWEEN t AND t + interval '1 millisecond',
        snowflake_timestamp(id) BETWEEN t AND t + interval '1 millisecond' FROM extremes, times
) AS pairs GROUP BY op ORDER BY op;
-- With each time a constant, as a WHERE clause with its index would get it:
DO $$
DECLARE
    t timestamptz;
    op text;
    got bigint;
    want bigint;
BEGIN
    FOR t IN SELECT times.t FROM times LOOP
        FOREACH op IN ARRAY ARRAY['<', '<=', '>', '>='] LOOP
            EXECUTE format('SELECT count(*) FROM extremes WHERE id %s %L::timestamptz', op, t) INTO got;
            EXECUTE format('SELECT count(*) FROM extremes WHERE snowflake_timestamp(id) %s %L::timestamptz',
                           op, t) INTO want;
            IF got <> want THEN
                RAISE EXCEPTION 'id % %: % rows, the ID''s time says %', op, t, got, want;
            END IF;
        END LOOP;
    END LOOP;
END $$;
-- Unplanned: id <op> ANY(array) calls the operator's own function, which
-- the support function never sees.
SELECT op, count(*) FILTER (WHERE got IS DISTINCT FROM want) AS wrong,
       count(*) FILTER (WHERE got) AS true_pairs, count(*) FILTER (WHERE NOT got) AS false_pairs
FROM (
    SELECT '<' AS op, id < ANY (ARRAY[t]) AS got, snowflake_timestamp(id) < t AS want FROM extremes, times
    UNION ALL SELECT '<=', id <= ANY (ARRAY[t]), snowflake_timestamp(id) <= t FROM extremes, times
    UNION ALL SELECT '>', id > ANY (ARRAY[t]), snowflake_timestamp(id) > t FROM extremes, times
    UNION ALL SELECT '>=', id >= ANY (ARRAY[t]), snowflake_timestamp(id) >= t FROM extremes, times
    UNION ALL SELECT 't <', t < ANY (ARRAY[id]), t < snowflake_timestamp(id) FROM extremes, times
    UNION ALL SELECT 't <=', t <= ANY (ARRAY[id]), t <= snowflake_timestamp(id) FROM extremes, times
    UNION ALL SELECT 't >', t > ANY (ARRAY[id]), t > snowflake_timestamp(id) FROM extremes, times
    UNION ALL SELECT 't >=', t >= ANY (ARRAY[id]), t >= snowflake_timestamp(id) FROM extremes, times
) AS pairs GROUP BY op ORDER BY op;
-- NULL on either side is NULL, as for any comparison.
SELECT (NULL::snowflake < now()) IS NULL AS null_id,
       ('1'::snowflake >= NULL::timestamptz) IS NULL AS null_time;
-- NOT (id < t) is id >= t (the negator).
SELECT count(*) FROM extremes WHERE NOT (id < '2026-11-01 00:00:00.001+00'::timestamptz);
SELECT count(*) FROM extremes WHERE id >= '2026-11-01 00:00:00.001+00'::timestamptz;

-- A quoted literal alone is read as a snowflake (the type of the other
-- side), so a time must say it is one; the error says how.
\set VERBOSITY default
SELECT count(*) FROM extremes WHERE id < '2026-11-01';
\set VERBOSITY terse
-- A date or a timestamp is converted to timestamptz in the session's zone.
SELECT (SELECT count(*) FROM extremes WHERE id < date '2026-11-01') AS by_date,
       (SELECT count(*) FROM extremes WHERE id < timestamp '2026-11-01 00:00:00') AS by_timestamp,
       (SELECT count(*) FROM extremes WHERE id < timestamptz '2026-11-01 00:00:00+00') AS by_timestamptz;

-- The plans: the comparison becomes the index's condition on the ID.
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM extremes WHERE id >= '2026-11-01 00:00:00+00'::timestamptz;
EXPLAIN (COSTS OFF) SELECT id FROM extremes WHERE id < now() - interval '1 day';
EXPLAIN (COSTS OFF) SELECT id FROM extremes
WHERE id BETWEEN '2026-11-01 00:00:00+00'::timestamptz AND '2026-11-02 00:00:00+00'::timestamptz;
EXPLAIN (COSTS OFF) SELECT id FROM extremes WHERE now() - interval '1 hour' <= id;
-- Beside other conditions, the rewrite's two clauses join theirs.
EXPLAIN (COSTS OFF) SELECT id FROM extremes
WHERE id::bigint % 2 = 0 AND id > now() - interval '1 hour' AND id < now();
-- The same boundary as the hand-written form for a bigint column.
SELECT snowflake_last_before('2026-11-01 00:00:00+00') + 1 = snowflake_from_timestamp('2026-11-01 00:00:00+00')
       AS same_as_from_timestamp;
-- A parameter, in a generic plan: the boundary is computed as it runs.
SET plan_cache_mode = force_generic_plan;
PREPARE recent(timestamptz) AS SELECT count(*) FROM extremes WHERE id > $1;
EXPLAIN (COSTS OFF) EXECUTE recent('2026-11-01 00:00:00+00');
EXECUTE recent('2026-11-01 00:00:00+00');
SELECT count(*) FROM extremes WHERE snowflake_timestamp(id) > '2026-11-01 00:00:00+00';
-- Past every ID's time no ID is after it, not even the largest value.
EXECUTE recent('2089-09-06 15:47:35.551+00');
EXECUTE recent('infinity');
PREPARE since(timestamptz) AS SELECT count(*) FROM extremes WHERE id >= $1;
EXECUTE since('2089-09-06 15:47:35.551+00');
EXECUTE since('2089-09-06 15:47:35.5515+00');
EXECUTE since('-infinity');
RESET enable_seqscan;
RESET enable_bitmapscan;

-- Partitions by the ID's day: pruned at plan time for constants, at
-- executor start-up for now() and parameters.
CREATE TABLE daily (id snowflake NOT NULL, payload text) PARTITION BY RANGE (id);
CREATE TABLE daily_old PARTITION OF daily FOR VALUES FROM (0)
    TO (snowflake_from_timestamp('2026-11-01 00:00:00+00'));
CREATE TABLE daily_20261101 PARTITION OF daily
    FOR VALUES FROM (snowflake_from_timestamp('2026-11-01 00:00:00+00'))
    TO (snowflake_from_timestamp('2026-11-02 00:00:00+00'));
CREATE TABLE daily_20261102 PARTITION OF daily
    FOR VALUES FROM (snowflake_from_timestamp('2026-11-02 00:00:00+00'))
    TO (snowflake_from_timestamp('2026-11-03 00:00:00+00'));
CREATE TABLE daily_later PARTITION OF daily
    FOR VALUES FROM (snowflake_from_timestamp('2026-11-03 00:00:00+00')) TO (MAXVALUE);
INSERT INTO daily SELECT id, 'x' FROM extremes;
SELECT tableoid::regclass AS partition, count(*) FROM daily GROUP BY 1 ORDER BY 1;
EXPLAIN (COSTS OFF) SELECT count(*) FROM daily
WHERE id >= '2026-11-01 00:00:00+00'::timestamptz AND id < '2026-11-02 00:00:00+00'::timestamptz;
EXPLAIN (COSTS OFF) SELECT count(*) FROM daily WHERE id < '2026-11-01 00:00:00+00'::timestamptz;
-- now() is after 2026-11-01 wherever this runs: the first three are pruned.
EXPLAIN (COSTS OFF) SELECT count(*) FROM daily WHERE id >= now() - interval '1 second';
PREPARE one_day(timestamptz) AS SELECT count(*) FROM daily WHERE id >= $1 AND id < $1 + interval '1 day';
EXPLAIN (COSTS OFF) EXECUTE one_day('2026-11-02 00:00:00+00');
EXECUTE one_day('2026-11-01 00:00:00+00');
SELECT count(*) FROM daily
WHERE snowflake_timestamp(id) >= '2026-11-01 00:00:00+00' AND snowflake_timestamp(id) < '2026-11-02 00:00:00+00';
RESET plan_cache_mode;

-- A volatile side is not rewritten: it runs once per comparison, as the
-- operator runs it, never once per clause of the rewrite.
CREATE SEQUENCE calls;
CREATE FUNCTION counted_time() RETURNS timestamptz LANGUAGE sql VOLATILE
AS $$ SELECT timestamptz '2026-11-01 00:00:00+00' + nextval('calls') * interval '0 ms' $$;
CREATE FUNCTION counted_id(v snowflake) RETURNS snowflake LANGUAGE sql VOLATILE
AS $$ SELECT v FROM (SELECT nextval('calls')) AS counted $$;
SELECT count(*) FILTER (WHERE id >= counted_time()) AS at_or_after, count(*) AS ids,
       (SELECT last_value FROM calls) AS time_calls
FROM extremes;
ALTER SEQUENCE calls RESTART;
SELECT counted_id('904520112537600000') >= timestamptz '2026-11-01 00:00:00+00' AS at_or_after,
       (SELECT last_value FROM calls) AS id_calls;
-- A subquery is planned once: one InitPlan, not one per clause (the
-- InitPlan's own line, whatever its name: 17 and later also name it where
-- it is used, and 19 calls it InitPlan expr_1).
CREATE FUNCTION plan_lines(query text, pattern text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    line text;
    n bigint := 0;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
        IF line ~ pattern THEN
            n := n + 1;
        END IF;
    END LOOP;
    RETURN n;
END $$;
SELECT plan_lines('SELECT count(*) FROM extremes WHERE id >= (SELECT min(t) FROM times WHERE t > ''2026-01-01'')',
                  '^ *InitPlan\M') AS init_plans;
SELECT count(*) FROM extremes WHERE id >= (SELECT min(t) FROM times WHERE t > '2026-01-01');
SELECT count(*) FROM extremes WHERE snowflake_timestamp(id) >= (SELECT min(t) FROM times WHERE t > '2026-01-01');
-- A subquery as the ID, too, is planned and run once, beside a time the
-- rewrite would copy into two clauses (now() - (now() - t) is t, computed
-- as the query runs): uncorrelated (one InitPlan), either way round, and
-- correlated (one SubPlan, run once per row).
SELECT plan_lines('SELECT (SELECT id FROM extremes ORDER BY id DESC LIMIT 1)'
                  ' >= now() - (now() - ''2026-11-01 00:00:00+00''::timestamptz)',
                  '^ *InitPlan\M') AS id_init_plans,
       plan_lines('SELECT now() - (now() - ''2026-11-01 00:00:00+00''::timestamptz)'
                  ' < (SELECT id FROM extremes ORDER BY id DESC LIMIT 1)',
                  '^ *InitPlan\M') AS mirrored_init_plans,
       plan_lines('SELECT count(*) FROM times WHERE (SELECT e.id FROM extremes AS e'
                  ' WHERE snowflake_timestamp(e.id) >= times.t ORDER BY e.id LIMIT 1) >= times.t',
                  '^ *SubPlan\M') AS correlated_sub_plans;
SELECT count(*) FROM times WHERE (SELECT e.id FROM extremes AS e
    WHERE snowflake_timestamp(e.id) >= times.t ORDER BY e.id LIMIT 1) >= times.t;
SELECT count(*) FROM times WHERE snowflake_timestamp((SELECT e.id FROM extremes AS e
    WHERE snowflake_timestamp(e.id) >= times.t ORDER BY e.id LIMIT 1)) >= times.t;
-- To the planner a subquery is not volatile even when each run may give
-- another row (TABLESAMPLE, LIMIT without ORDER BY), so only running it
-- once keeps the comparison consistent. counted_run() counts the runs; it
-- calls itself STABLE, as such a subquery looks to the planner.
CREATE FUNCTION counted_run(v snowflake) RETURNS snowflake LANGUAGE sql STABLE
AS $$ SELECT v FROM (SELECT nextval('calls')) AS counted $$;
ALTER SEQUENCE calls RESTART;
SELECT (SELECT counted_run('904520112537600000'))
           >= now() - (now() - timestamptz '2026-11-01 00:00:00+00') AS at_or_after;
SELECT nextval('calls') - 1 AS subquery_runs;
ALTER SEQUENCE calls RESTART;
SELECT count(*) FILTER (WHERE NOT ((SELECT counted_run(e.id))
           < now() - (now() - timestamptz '2026-11-01 00:00:00+00'))) AS at_or_after,
       count(*) AS ids
FROM extremes AS e;
SELECT nextval('calls') - 1 AS subquery_runs;
ALTER SEQUENCE calls RESTART;
SELECT count(*) FILTER (WHERE now() - (now() - timestamptz '2026-11-01 00:00:00+00')
           <= (SELECT counted_run(e.id))) AS at_or_after,
       count(*) AS ids
FROM extremes AS e;
SELECT nextval('calls') - 1 AS subquery_runs;
DROP FUNCTION plan_lines(text, text), counted_time(), counted_id(snowflake), counted_run(snowflake);
DROP SEQUENCE calls;

-- Not for bigint: bigint and timestamptz have no comparison (other
-- queries' meaning must not change); a bigint column uses the boundaries.
SELECT 1::bigint < now();
SELECT count(*) FROM extremes WHERE id::bigint > snowflake_last_before('2026-11-01 00:00:00+00');

DROP TABLE daily, extremes, times;
