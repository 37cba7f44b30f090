-- The partitioning recipe of docs/reference.md ("Time-partitioned tables"),
-- step by step, and the pruning it buys.
-- Server: snowflake_id preloaded, default layout, worker_id = 7.
SET timezone = 'UTC';
SET datestyle = 'ISO, YMD';
CREATE EXTENSION IF NOT EXISTS snowflake_id;

-- 1. The table, partitioned by its ID.
CREATE TABLE events (
    id bigint NOT NULL DEFAULT snowflake_nextval(),
    payload text
) PARTITION BY RANGE (id);

-- 2. One partition per month: the bounds are the first IDs of the months.
CREATE FUNCTION create_monthly_partitions(parent regclass, first_month date, months integer)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    m date;
BEGIN
    FOR m IN SELECT generate_series(first_month, first_month + (months - 1) * interval '1 month',
                                    interval '1 month')::date
    LOOP
        EXECUTE format('CREATE TABLE IF NOT EXISTS %I PARTITION OF %s FOR VALUES FROM (%s) TO (%s)',
                       parent::text || '_' || to_char(m, 'YYYY_MM'), parent,
                       snowflake_from_timestamp(m::timestamp AT TIME ZONE 'UTC'),
                       snowflake_from_timestamp((m + interval '1 month')::timestamp AT TIME ZONE 'UTC'));
    END LOOP;
END $$;
SELECT create_monthly_partitions('events', '2026-01-01', 6);
-- 3. A default partition for IDs outside the months created so far.
CREATE TABLE events_default PARTITION OF events DEFAULT;

SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) AS bound
FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
WHERE i.inhparent = 'events'::regclass ORDER BY c.relname;

-- Rows land in their month: IDs composed for known times, and new IDs.
INSERT INTO events (id, payload)
SELECT snowflake_compose(t, 7, 0), 'at ' || t
FROM (VALUES ('2026-01-01 00:00:00+00'::timestamptz), ('2026-01-31 23:59:59.999+00'),
             ('2026-02-01 00:00:00+00'), ('2026-04-15 12:00:00+00'),
             ('2026-06-30 23:59:59.999+00')) v(t);
INSERT INTO events (payload) VALUES ('now');
SELECT tableoid::regclass AS partition, snowflake_timestamp(id) AS ts, payload
FROM events WHERE payload <> 'now' ORDER BY id;
SELECT tableoid::regclass = (SELECT c.oid FROM pg_class c
                             WHERE c.relname = 'events_' || to_char(now() AT TIME ZONE 'UTC', 'YYYY_MM'))
       OR tableoid = 'events_default'::regclass AS now_in_its_month_or_default
FROM events WHERE payload = 'now';

-- Pruning. snowflake_from_timestamp() is STABLE (it reads the layout
-- settings), so the planner keeps every partition in the plan and the
-- executor removes the ones the bound excludes when it starts: "Subplans
-- Removed" counts them.
EXPLAIN (COSTS OFF)
SELECT * FROM events WHERE id >= snowflake_from_timestamp('2026-04-01 00:00:00+00');
-- A month: one partition left.
EXPLAIN (COSTS OFF)
SELECT * FROM events
WHERE id >= snowflake_from_timestamp('2026-04-01 00:00:00+00')
  AND id < snowflake_from_timestamp('2026-05-01 00:00:00+00');
-- The same through a prepared statement with a generic plan.
PREPARE since(timestamptz) AS SELECT count(*) FROM events WHERE id >= snowflake_from_timestamp($1);
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE since('2026-06-01 00:00:00+00');
EXECUTE since('2026-06-01 00:00:00+00');
RESET plan_cache_mode;
-- The pruned query returns the same rows as a full scan.
SELECT (SELECT count(*) FROM events WHERE id >= snowflake_from_timestamp('2026-02-01 00:00:00+00'))
     = (SELECT count(*) FROM events WHERE snowflake_timestamp(id) >= '2026-02-01 00:00:00+00')
       AS same_rows;

-- Adding months later is the same call; existing ones are skipped.
SELECT create_monthly_partitions('events', '2026-06-01', 2);
SELECT count(*) AS partitions FROM pg_inherits WHERE inhparent = 'events'::regclass;
DROP TABLE events;
DROP FUNCTION create_monthly_partitions(regclass, date, integer);
