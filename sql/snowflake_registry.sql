-- The registry's SQL side (1.5): its tables and view, and the leasing
-- functions that servers before 1.5 call, which now refuse them. The rules
-- a registry applies are the library's (src/core/lease_rules.hpp), tested
-- by tests/unit/lease_rules_test.cpp; servers leasing from a registry:
-- tests/server/registry.sh.
SET timezone = 'UTC';
CREATE EXTENSION IF NOT EXISTS snowflake_id;
-- Runs a statement that must fail; shows its SQLSTATE, message, detail and
-- hint.
CREATE FUNCTION pg_temp.try(statement text) RETURNS TABLE (field text, value text)
LANGUAGE plpgsql AS $$
DECLARE
    state text; msg text; detail text; hint text;
BEGIN
    EXECUTE statement;
    RETURN QUERY SELECT 'no error', '';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, msg = MESSAGE_TEXT,
                            detail = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
    RETURN QUERY VALUES ('sqlstate', state), ('message', msg), ('detail', detail), ('hint', hint);
END $$;

-- The tables, as servers of every version read and write them, in the
-- schema snowflake_id (1.6).
SELECT table_schema, table_name, column_name, data_type, is_nullable
FROM information_schema.columns
WHERE table_name IN ('snowflake_registry_layout', 'snowflake_registry_lease')
ORDER BY table_name, ordinal_position;

-- A registry's records, as servers write them: the layout of the first
-- grant (1 datacenter and 2 worker bits); a live lease, an expired one and
-- a released one.
INSERT INTO snowflake_id.snowflake_registry_layout VALUES
    (true, 1, 2, 12, 1577836800000, '2026-01-01 00:00:00.123+00',
     'hosta:5432, data directory /data/a, system identifier 7001');
INSERT INTO snowflake_id.snowflake_registry_lease VALUES
    (6, 3, 7001, 101, 'hosta', 5432, '/data/a', 1, 1000, clock_timestamp(), clock_timestamp(),
     clock_timestamp() + interval '1 h', NULL, 1767225600000),
    (7, 1, 7002, 102, 'hostb', 5432, '/data/b', 2, 0, '2026-01-01', '2026-01-01',
     '2026-01-01 00:01', NULL, 1767225660000),
    (2, 5, 7003, 103, 'hostc', 5433, '/data/c', 1, 500, '2026-01-01', '2026-01-01',
     '2026-01-01 00:01', '2026-01-01 00:00:30', 1767225630000);
-- The view: one row per lease, its state by the registry's clock, the
-- holder and layout as the servers' messages name them.
SELECT node_id, datacenter_id, worker_id, state, holder, holder_timeline, fence,
       reserved_until, layout
FROM snowflake_id.snowflake_registry_leases ORDER BY node_id;

-- A server before 1.5 calls the leasing functions of 1.3 and 1.4, as its
-- worker did (their signatures are unchanged); each refuses, naming the
-- registry's version and what to update first.
SELECT * FROM pg_temp.try($$SELECT * FROM snowflake_registry_acquire(NULL, NULL, NULL, 7001, 101,
    'hosta', 5432, '/data/a', 1, 0, 2, 12, 1577836800000, 1000, 60000, 0)$$);
SELECT * FROM pg_temp.try($$SELECT snowflake_registry_renew(6, 3, 101, 5000, 60000)$$);
SELECT * FROM pg_temp.try($$SELECT snowflake_registry_release(6, 3, 101, 5000)$$);
SELECT * FROM pg_temp.try($$SELECT * FROM snowflake_registry_switch(6, 3, 101, 5000, 7001,
    'hosta', 5432, '/data/a', 1, 1000, 60000, 0, 0)$$);
-- ... and none of them changed a record.
SELECT node_id, fence, holder_instance, reserved_until_ms, released_at IS NOT NULL AS released
FROM snowflake_id.snowflake_registry_lease ORDER BY node_id;
-- The rules' SQL helpers of 1.3 and 1.4 are gone.
SELECT proname FROM pg_proc
WHERE proname IN ('snowflake_registry_is_live', 'snowflake_registry_may_take');

-- Leasing is for the servers' registry role, not for PUBLIC: a stranger
-- can neither run the old functions nor touch the tables.
CREATE ROLE sf_registry_stranger;
SET ROLE sf_registry_stranger;
SELECT snowflake_registry_release(0, 1, 1, 0);
SELECT * FROM snowflake_registry_switch(0, 1, 1, 0, 1, 'h', 1, '/d', 1, 0, 1, 0, 0);
SELECT count(*) FROM snowflake_id.snowflake_registry_lease;
BEGIN;
LOCK TABLE snowflake_id.snowflake_registry_lease IN SHARE ROW EXCLUSIVE MODE;
ROLLBACK;
RESET ROLE;
-- The registry role of the README (SELECT, INSERT, UPDATE on the two
-- tables) takes the lock a server's call takes, and writes both tables.
-- All in one transaction, rolled back: a grant revoked would leave the
-- tables' ACL written out, unlike a fresh install's (snowflake_upgrade).
BEGIN;
CREATE ROLE sf_registry_role;
GRANT SELECT, INSERT, UPDATE
    ON snowflake_id.snowflake_registry_lease, snowflake_id.snowflake_registry_layout
    TO sf_registry_role;
SET ROLE sf_registry_role;
LOCK TABLE snowflake_id.snowflake_registry_lease IN SHARE ROW EXCLUSIVE MODE;
INSERT INTO snowflake_id.snowflake_registry_lease VALUES
    (0, 1, 7004, 104, 'hostd', 5432, '/data/d', 1, 0, now(), now(), now(), NULL, 0)
ON CONFLICT (node_id) DO UPDATE SET fence = EXCLUDED.fence;
UPDATE snowflake_id.snowflake_registry_layout SET recorded_by = recorded_by;
SELECT count(*) AS leases FROM snowflake_id.snowflake_registry_lease;
ROLLBACK;
DROP ROLE sf_registry_stranger;
TRUNCATE snowflake_id.snowflake_registry_lease, snowflake_id.snowflake_registry_layout;
