-- The registry's functions run with their own search_path (1.5), whatever
-- the caller's. A registry role whose search_path starts with a schema that
-- an ordinary role owns, holding look-alikes of the registry's tables (and
-- so of their row types), of its helper functions and of built-in
-- functions and operators that would be chosen over pg_catalog's: the
-- leases land in the extension's own table, and no look-alike is touched
-- or run. Then look-alike tables in pg_temp, which PostgreSQL searches
-- first for tables unless the path names it.
-- (The worker's own calls over libpq: tests/server/registry.sh.)
SET timezone = 'UTC';
CREATE EXTENSION IF NOT EXISTS snowflake_id;
CREATE ROLE sf_sp_mallory;
CREATE ROLE sf_sp_lessee;
GRANT EXECUTE ON FUNCTION
    snowflake_registry_acquire(integer, integer, bigint, numeric, bigint, text, integer, text, integer, integer, integer, integer, bigint, bigint, bigint, bigint),
    snowflake_registry_renew(integer, bigint, bigint, bigint, bigint),
    snowflake_registry_release(integer, bigint, bigint, bigint),
    snowflake_registry_switch(integer, bigint, bigint, bigint, numeric, text, integer, text, integer, bigint, bigint, bigint, bigint)
    TO sf_sp_lessee;
GRANT SELECT, INSERT, UPDATE ON snowflake_registry_lease, snowflake_registry_layout TO sf_sp_lessee;
CREATE SCHEMA sf_sp_evil AUTHORIZATION sf_sp_mallory;
-- Look-alike tables, made by copying the real ones (which the ordinary
-- role may not read), then handed to it.
CREATE TABLE sf_sp_evil.snowflake_registry_layout (LIKE public.snowflake_registry_layout);
CREATE TABLE sf_sp_evil.snowflake_registry_lease (LIKE public.snowflake_registry_lease);
ALTER TABLE sf_sp_evil.snowflake_registry_layout OWNER TO sf_sp_mallory;
ALTER TABLE sf_sp_evil.snowflake_registry_lease OWNER TO sf_sp_mallory;

SET ROLE sf_sp_mallory;
GRANT USAGE ON SCHEMA sf_sp_evil TO PUBLIC;
-- What ran: every look-alike writes its name here.
CREATE TABLE sf_sp_evil.ran (what text);
GRANT INSERT ON sf_sp_evil.ran TO PUBLIC;
GRANT ALL ON sf_sp_evil.snowflake_registry_layout, sf_sp_evil.snowflake_registry_lease TO PUBLIC;
-- The helpers, with the real ones' signatures.
CREATE FUNCTION sf_sp_evil.snowflake_registry_holder_text(text, integer, text, numeric)
RETURNS text LANGUAGE plpgsql AS $$
BEGIN INSERT INTO sf_sp_evil.ran VALUES ('holder_text'); RETURN 'mallory'; END $$;
CREATE FUNCTION sf_sp_evil.snowflake_registry_layout_text(integer, integer, integer, bigint)
RETURNS text LANGUAGE plpgsql AS $$
BEGIN INSERT INTO sf_sp_evil.ran VALUES ('layout_text'); RETURN 'mallory'; END $$;
CREATE FUNCTION sf_sp_evil.snowflake_registry_is_live(public.snowflake_registry_lease, timestamptz)
RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN INSERT INTO sf_sp_evil.ran VALUES ('is_live'); RETURN false; END $$;
-- Built-ins, with their exact signatures: ahead of pg_catalog in the path,
-- they would win.
CREATE FUNCTION sf_sp_evil.clock_timestamp() RETURNS timestamptz LANGUAGE plpgsql AS $$
BEGIN INSERT INTO sf_sp_evil.ran VALUES ('clock_timestamp'); RETURN pg_catalog.now(); END $$;
CREATE FUNCTION sf_sp_evil.int4eq(integer, integer) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN INSERT INTO sf_sp_evil.ran VALUES ('integer ='); RETURN $1 OPERATOR(pg_catalog.=) $2; END $$;
CREATE FUNCTION sf_sp_evil.int8eq(bigint, bigint) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN INSERT INTO sf_sp_evil.ran VALUES ('bigint ='); RETURN $1 OPERATOR(pg_catalog.=) $2; END $$;
CREATE FUNCTION sf_sp_evil.tsgt(timestamptz, timestamptz) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN INSERT INTO sf_sp_evil.ran VALUES ('timestamptz >'); RETURN $1 OPERATOR(pg_catalog.>) $2; END $$;
CREATE FUNCTION sf_sp_evil.shl(integer, integer) RETURNS integer LANGUAGE plpgsql AS $$
BEGIN INSERT INTO sf_sp_evil.ran VALUES ('integer <<'); RETURN $1 OPERATOR(pg_catalog.<<) $2; END $$;
CREATE OPERATOR sf_sp_evil.= (LEFTARG = integer, RIGHTARG = integer, FUNCTION = sf_sp_evil.int4eq);
CREATE OPERATOR sf_sp_evil.= (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = sf_sp_evil.int8eq);
CREATE OPERATOR sf_sp_evil.> (LEFTARG = timestamptz, RIGHTARG = timestamptz,
                              FUNCTION = sf_sp_evil.tsgt);
CREATE OPERATOR sf_sp_evil.<< (LEFTARG = integer, RIGHTARG = integer, FUNCTION = sf_sp_evil.shl);
RESET ROLE;

-- The registry role, its search_path led by the look-alikes. Only literals
-- in these calls: the session's own operators are the look-alikes now.
SET ROLE sf_sp_lessee;
SET search_path = sf_sp_evil, pg_catalog, public;
SELECT node_id, fence, floor_ms FROM public.snowflake_registry_acquire(
    NULL, NULL, NULL, 7001, 101, 'hosta', 5432, '/data/a', 1, 0, 2, 12, 1577836800000, 1000,
    60000, 0);
SELECT node_id, fence, floor_ms FROM public.snowflake_registry_acquire(
    2, NULL, NULL, 7002, 102, 'hostb', 5432, '/data/b', 1, 0, 2, 12, 1577836800000, 1000,
    60000, 0);
SELECT public.snowflake_registry_renew(0, 1, 101, 5000, 60000) IS NOT NULL AS renewed;
SELECT new_node_id, new_fence, floor_ms FROM public.snowflake_registry_switch(
    2, 1, 102, 6000, 7002, 'hostb', 5432, '/data/b', 1, 1000, 60000, 10000, 9000);
SELECT public.snowflake_registry_release(0, 1, 101, 7000) AS released;
-- A refusal, whose message the helpers write (the lease's expiry as T).
DO $$
BEGIN
    PERFORM public.snowflake_registry_acquire(
        1, NULL, NULL, 7003, 103, 'hostc', 5432, '/data/c', 1, 0, 2, 12, 1577836800000, 1000,
        60000, 0);
EXCEPTION WHEN OTHERS THEN
    DECLARE
        msg text;
        detail text;
    BEGIN
        GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL;
        RAISE NOTICE '%: %', msg,
            pg_catalog.regexp_replace(detail, '\w{3} \w{3} \d+ [\d:.]+ \d{4} UTC', 'T', 'g');
    END;
END $$;
RESET search_path;
RESET ROLE;

-- The leases are in the extension's table; nothing ran or was written in
-- the look-alike schema.
SELECT node_id, fence, holder_host, released_at IS NOT NULL AS released, reserved_until_ms
FROM public.snowflake_registry_lease ORDER BY node_id;
SELECT worker_bits FROM public.snowflake_registry_layout;
SELECT count(*) AS lookalikes_run FROM sf_sp_evil.ran;
SELECT count(*) AS lookalike_leases FROM sf_sp_evil.snowflake_registry_lease;
SELECT count(*) AS lookalike_layouts FROM sf_sp_evil.snowflake_registry_layout;

-- pg_temp: look-alike tables of the caller's own session, searched first
-- for tables unless the path names pg_temp. The functions search it last.
SET ROLE sf_sp_lessee;
CREATE TEMP TABLE snowflake_registry_layout (LIKE public.snowflake_registry_layout);
CREATE TEMP TABLE snowflake_registry_lease (LIKE public.snowflake_registry_lease);
SELECT node_id, fence, floor_ms FROM public.snowflake_registry_acquire(
    3, NULL, NULL, 7003, 103, 'hostc', 5432, '/data/c', 1, 0, 2, 12, 1577836800000, 1000,
    60000, 0);
SELECT public.snowflake_registry_renew(3, 1, 103, 8000, 60000) IS NOT NULL AS renewed;
SELECT count(*) AS temp_leases FROM pg_temp.snowflake_registry_lease;
SELECT count(*) AS temp_layouts FROM pg_temp.snowflake_registry_layout;
SELECT node_id, fence, reserved_until_ms FROM public.snowflake_registry_lease WHERE node_id = 3;
DROP TABLE pg_temp.snowflake_registry_layout, pg_temp.snowflake_registry_lease;
RESET ROLE;

-- Every SQL and PL/pgSQL function of the extension pins its search_path.
SELECT p.proname, p.proconfig
FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
JOIN pg_language l ON l.oid = p.prolang
WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'snowflake_id')
  AND l.lanname IN ('sql', 'plpgsql')
ORDER BY p.proname;

DROP SCHEMA sf_sp_evil CASCADE;
REVOKE ALL ON snowflake_registry_lease, snowflake_registry_layout FROM sf_sp_lessee;
REVOKE ALL ON FUNCTION
    snowflake_registry_acquire(integer, integer, bigint, numeric, bigint, text, integer, text, integer, integer, integer, integer, bigint, bigint, bigint, bigint),
    snowflake_registry_renew(integer, bigint, bigint, bigint, bigint),
    snowflake_registry_release(integer, bigint, bigint, bigint),
    snowflake_registry_switch(integer, bigint, bigint, bigint, numeric, text, integer, text, integer, bigint, bigint, bigint, bigint)
    FROM sf_sp_lessee;
DROP ROLE sf_sp_lessee;
DROP ROLE sf_sp_mallory;
