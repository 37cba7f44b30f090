-- The registry's functions run with their own search_path (1.5), whatever
-- the caller's. A registry role whose search_path starts with a schema that
-- an ordinary role owns, holding look-alikes of the registry's tables (and
-- so of their row types), of its helper functions and of built-in
-- functions and operators that would be chosen over pg_catalog's: the
-- leasing functions a server before 1.5 calls still refuse it with the
-- extension's own message, the view shows the extension's own texts, and
-- no look-alike is touched or run. Then a look-alike catalog table in
-- pg_temp, which PostgreSQL searches first for tables unless the path
-- names it. (The worker's own statements over libpq, which lease in 1.5:
-- tests/server/registry.sh.)
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
GRANT SELECT, INSERT, UPDATE
    ON snowflake_id.snowflake_registry_lease, snowflake_id.snowflake_registry_layout
    TO sf_sp_lessee;
GRANT SELECT ON snowflake_id.snowflake_registry_leases TO sf_sp_lessee;
CREATE SCHEMA sf_sp_evil AUTHORIZATION sf_sp_mallory;
-- Look-alike tables, made by copying the real ones (which the ordinary
-- role may not read), then handed to it.
CREATE TABLE sf_sp_evil.snowflake_registry_layout (LIKE snowflake_id.snowflake_registry_layout);
CREATE TABLE sf_sp_evil.snowflake_registry_lease (LIKE snowflake_id.snowflake_registry_lease);
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
CREATE FUNCTION sf_sp_evil.snowflake_registry_refuse_old_server(text)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN INSERT INTO sf_sp_evil.ran VALUES ('refuse_old_server'); END $$;
-- Built-ins, with their exact signatures: ahead of pg_catalog in the path,
-- they would win.
CREATE FUNCTION sf_sp_evil.clock_timestamp() RETURNS timestamptz LANGUAGE plpgsql AS $$
BEGIN INSERT INTO sf_sp_evil.ran VALUES ('clock_timestamp'); RETURN pg_catalog.now(); END $$;
-- format() as holder_text calls it: an exact match wins over VARIADIC "any".
CREATE FUNCTION sf_sp_evil.format(text, text, integer, text, numeric) RETURNS text
LANGUAGE plpgsql AS $$
BEGIN INSERT INTO sf_sp_evil.ran VALUES ('format'); RETURN 'mallory'; END $$;
CREATE FUNCTION sf_sp_evil.int4eq(integer, integer) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN INSERT INTO sf_sp_evil.ran VALUES ('integer ='); RETURN $1 OPERATOR(pg_catalog.=) $2; END $$;
CREATE FUNCTION sf_sp_evil.nameeq(name, name) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN INSERT INTO sf_sp_evil.ran VALUES ('name ='); RETURN $1 OPERATOR(pg_catalog.=) $2; END $$;
CREATE FUNCTION sf_sp_evil.tsgt(timestamptz, timestamptz) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN INSERT INTO sf_sp_evil.ran VALUES ('timestamptz >'); RETURN $1 OPERATOR(pg_catalog.>) $2; END $$;
CREATE FUNCTION sf_sp_evil.shl(integer, integer) RETURNS integer LANGUAGE plpgsql AS $$
BEGIN INSERT INTO sf_sp_evil.ran VALUES ('integer <<'); RETURN $1 OPERATOR(pg_catalog.<<) $2; END $$;
CREATE OPERATOR sf_sp_evil.= (LEFTARG = integer, RIGHTARG = integer, FUNCTION = sf_sp_evil.int4eq);
CREATE OPERATOR sf_sp_evil.= (LEFTARG = name, RIGHTARG = name, FUNCTION = sf_sp_evil.nameeq);
CREATE OPERATOR sf_sp_evil.> (LEFTARG = timestamptz, RIGHTARG = timestamptz,
                              FUNCTION = sf_sp_evil.tsgt);
CREATE OPERATOR sf_sp_evil.<< (LEFTARG = integer, RIGHTARG = integer, FUNCTION = sf_sp_evil.shl);
RESET ROLE;

-- A lease, as a server writes it.
INSERT INTO snowflake_id.snowflake_registry_layout VALUES
    (true, 0, 2, 12, 1577836800000, '2026-01-01', 'hosta:5432, data directory /data/a, system identifier 7001');
INSERT INTO snowflake_id.snowflake_registry_lease VALUES
    (1, 1, 7001, 101, 'hosta', 5432, '/data/a', 1, 1000, '2026-01-01', '2026-01-01',
     'infinity', NULL, 1767225600000);

-- The registry role, its search_path led by the look-alikes. Only literals
-- in these calls: the session's own operators are the look-alikes now.
-- Each old leasing function refuses with the extension's own message.
SET ROLE sf_sp_lessee;
SET search_path = sf_sp_evil, pg_catalog, public;
CREATE FUNCTION pg_temp.message(statement text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    state text;
    msg text;
BEGIN
    EXECUTE statement;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
    RETURN state || ' ' || msg;
END $$;
SELECT pg_temp.message($$SELECT * FROM public.snowflake_registry_acquire(
    NULL, NULL, NULL, 7001, 101, 'hosta', 5432, '/data/a', 1, 0, 2, 12, 1577836800000, 1000,
    60000, 0)$$);
SELECT pg_temp.message($$SELECT public.snowflake_registry_renew(1, 1, 101, 5000, 60000)$$);
SELECT pg_temp.message($$SELECT public.snowflake_registry_release(1, 1, 101, 7000)$$);
SELECT pg_temp.message($$SELECT * FROM public.snowflake_registry_switch(
    1, 1, 101, 6000, 7001, 'hosta', 5432, '/data/a', 1, 1000, 60000, 10000, 9000)$$);
-- The view, with the extension's texts.
SELECT node_id, worker_id, state, holder, layout FROM snowflake_id.snowflake_registry_leases;
RESET search_path;
RESET ROLE;

-- Nothing ran or was written in the look-alike schema.
SELECT count(*) AS lookalikes_run FROM sf_sp_evil.ran;
SELECT count(*) AS lookalike_leases FROM sf_sp_evil.snowflake_registry_lease;
SELECT count(*) AS lookalike_layouts FROM sf_sp_evil.snowflake_registry_layout;

-- pg_temp: a look-alike of the catalog table the refusal reads its
-- version from, in the caller's own session, which PostgreSQL would search
-- first for tables. The functions search it last.
SET ROLE sf_sp_lessee;
CREATE TEMP TABLE pg_extension (extname name, extversion text);
INSERT INTO pg_temp.pg_extension VALUES ('snowflake_id', '0.0-mallory');
SELECT pg_temp.message($$SELECT public.snowflake_registry_renew(1, 1, 101, 5000, 60000)$$);
DROP TABLE pg_temp.pg_extension;
RESET ROLE;
TRUNCATE snowflake_id.snowflake_registry_lease, snowflake_id.snowflake_registry_layout;

-- Every SQL and PL/pgSQL function of the extension pins its search_path.
SELECT p.proname, p.proconfig
FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
JOIN pg_language l ON l.oid = p.prolang
WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'snowflake_id')
  AND l.lanname IN ('sql', 'plpgsql')
ORDER BY p.proname;

DROP SCHEMA sf_sp_evil CASCADE;
REVOKE ALL ON snowflake_id.snowflake_registry_lease, snowflake_id.snowflake_registry_layout,
    snowflake_id.snowflake_registry_leases FROM sf_sp_lessee;
REVOKE ALL ON FUNCTION
    snowflake_registry_acquire(integer, integer, bigint, numeric, bigint, text, integer, text, integer, integer, integer, integer, bigint, bigint, bigint, bigint),
    snowflake_registry_renew(integer, bigint, bigint, bigint, bigint),
    snowflake_registry_release(integer, bigint, bigint, bigint),
    snowflake_registry_switch(integer, bigint, bigint, bigint, numeric, text, integer, text, integer, bigint, bigint, bigint, bigint)
    FROM sf_sp_lessee;
-- The role owns the temporary function made while acting as it.
DROP FUNCTION pg_temp.message(text);
DROP ROLE sf_sp_lessee;
DROP ROLE sf_sp_mallory;
