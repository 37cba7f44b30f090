-- Where the extension's objects live (1.6). Its tables and views are in the
-- schema snowflake_id, which the extension owns; its functions, the
-- snowflake type, its operators and casts are in the extension's schema
-- (public here). Migration tools (Alembic, Rails, drizzle-kit, TypeORM,
-- Django) compare that schema with an application's models: they must find
-- no table or view of the extension there to drop, while the application
-- uses the extension unqualified. An application's database of its own,
-- as those tools see one.
-- Server: snowflake_id preloaded, worker_id = 7.
CREATE DATABASE sf_schema_app;
\c sf_schema_app
SET timezone = 'UTC';
CREATE EXTENSION snowflake_id;
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
-- Every relation of the extension (table, view, sequence, materialized
-- view, index: whatever pg_class holds), where it is, and whether that is
-- the extension's schema.
CREATE TEMP VIEW relations AS
SELECT n.nspname AS schema, c.relname, c.relkind, n.oid = e.extnamespace AS in_extension_schema
FROM pg_extension e
JOIN pg_depend d ON d.refclassid = 'pg_extension'::regclass AND d.refobjid = e.oid
                AND d.deptype = 'e' AND d.classid = 'pg_class'::regclass
JOIN pg_class c ON c.oid = d.objid JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE e.extname = 'snowflake_id'
ORDER BY c.relname;

SELECT extversion, extnamespace::regnamespace AS extension_schema FROM pg_extension
WHERE extname = 'snowflake_id';
-- None is in the extension's schema.
SELECT * FROM relations;
-- What the tools read: no table or view but in snowflake_id (and this
-- session's temporary view).
SELECT table_schema, table_name, table_type FROM information_schema.tables
WHERE table_schema NOT IN ('pg_catalog', 'information_schema')
  AND table_type <> 'LOCAL TEMPORARY'
ORDER BY table_schema, table_name;
-- The schema is a member of the extension (pg_dump leaves it to CREATE
-- EXTENSION, DROP EXTENSION drops it); every role may look into it, none
-- but its owner create in it.
SELECT pg_describe_object(d.classid, d.objid, 0) AS member FROM pg_depend d
WHERE d.classid = 'pg_namespace'::regclass AND d.refclassid = 'pg_extension'::regclass
  AND d.deptype = 'e'
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'snowflake_id');
SELECT has_schema_privilege('public', 'snowflake_id', 'USAGE') AS public_usage,
       has_schema_privilege('public', 'snowflake_id', 'CREATE') AS public_create;

-- The application, with its schema alone in the search_path: the default,
-- the type, its casts and operators, and the status, unqualified.
SET search_path = public;
CREATE TABLE orders (id snowflake PRIMARY KEY DEFAULT snowflake_nextval(),
                     ref bigint NOT NULL DEFAULT snowflake_nextval(), note text);
INSERT INTO orders (note) VALUES ('tea'), ('cake');
INSERT INTO orders (id, ref, note) VALUES (42, 42, 'given');
SELECT note, pg_typeof(id) AS type, id = ref AS given_equal, id::bigint > 0 AS positive
FROM orders ORDER BY id;
SELECT '42'::snowflake = 42 AS with_integer, '42'::snowflake < 43::bigint AS with_bigint,
       '42'::snowflake <> 41::smallint AS with_smallint, '42'::snowflake = 42.0 AS with_numeric,
       42::snowflake::numeric AS to_numeric;
SELECT count(*) AS minted_today FROM orders
WHERE id >= now() - interval '1 day' AND note <> 'given';
SELECT count(*) AS decoded FROM orders o, snowflake_decode(o.id) d WHERE d.worker_id = 7;
SELECT worker_id FROM snowflake_status();
-- The view is in snowflake_id, nothing of that name in public.
SELECT worker_id FROM snowflake_id.snowflake_status;
SELECT to_regclass('public.snowflake_status') AS in_public;
-- The application's own tables are all the tools find in its schema.
SELECT table_name FROM information_schema.tables WHERE table_schema = 'public';
RESET search_path;
DROP TABLE orders;

-- DROP EXTENSION drops the schema.
DROP EXTENSION snowflake_id;
SELECT to_regnamespace('snowflake_id') AS schema_left;

-- A schema named snowflake_id that is not the extension's is refused,
-- naming it, and nothing is created.
CREATE SCHEMA snowflake_id;
SELECT * FROM pg_temp.try('CREATE EXTENSION snowflake_id');
SELECT count(*) AS installed FROM pg_extension WHERE extname = 'snowflake_id';
-- ... unless the extension goes into it: then everything is there, and the
-- schema stays the user's (no member; DROP EXTENSION leaves it).
CREATE EXTENSION snowflake_id SCHEMA snowflake_id;
SELECT * FROM relations;
SELECT snowflake_id.snowflake_nextval() > 0 AS issued;
SELECT count(*) AS status_rows FROM snowflake_id.snowflake_status;
SELECT count(*) AS member_schemas FROM pg_depend d
WHERE d.classid = 'pg_namespace'::regclass AND d.refclassid = 'pg_extension'::regclass
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'snowflake_id');
DROP EXTENSION snowflake_id;
SELECT to_regnamespace('snowflake_id') AS schema_left;
DROP SCHEMA snowflake_id;

-- The update from 1.5: the tables and views move, with their rows, grants
-- and comments, views of the user's on them keep working, and a WARNING
-- says where the status went.
CREATE EXTENSION snowflake_id VERSION '1.5';
SELECT * FROM relations;
INSERT INTO snowflake_registry_layout VALUES
    (true, 0, 2, 12, 1577836800000, '2026-01-01', 'hosta:5432, data directory /data/a, system identifier 7001');
INSERT INTO snowflake_registry_lease VALUES
    (0, 3, 7001, 101, 'hosta', 5432, '/data/a', 1, 1000, '2026-01-01', '2026-01-01',
     'infinity', NULL, 1767225600000),
    (1, 1, 7002, 102, 'hostb', 5432, '/data/b', 1, 0, '2026-01-01', '2026-01-01',
     '2026-01-01 00:01', '2026-01-01 00:00:30', 1767225630000);
CREATE ROLE sf_schema_lessee;
GRANT SELECT, INSERT, UPDATE ON snowflake_registry_lease, snowflake_registry_layout
    TO sf_schema_lessee;
CREATE VIEW my_status AS SELECT worker_id FROM snowflake_status;
ALTER EXTENSION snowflake_id UPDATE TO '1.6';
SELECT * FROM relations;
SELECT node_id, fence, holder_host, released_at IS NOT NULL AS released, reserved_until_ms
FROM snowflake_id.snowflake_registry_lease ORDER BY node_id;
SELECT node_id, state, holder, layout FROM snowflake_id.snowflake_registry_leases
ORDER BY node_id;
SELECT obj_description('snowflake_id.snowflake_registry_lease'::regclass, 'pg_class') IS NOT NULL
    AS commented;
SELECT worker_id FROM my_status;
-- pg_dump still dumps the registry's rows.
SELECT extconfig::regclass[] FROM pg_extension WHERE extname = 'snowflake_id';
-- The registry role keeps its grants, and reaches the tables in their
-- new schema.
BEGIN;
SET ROLE sf_schema_lessee;
LOCK TABLE snowflake_id.snowflake_registry_lease IN SHARE ROW EXCLUSIVE MODE;
UPDATE snowflake_id.snowflake_registry_lease SET fence = fence + 1 WHERE node_id = 0;
SELECT count(*) AS leases FROM snowflake_id.snowflake_registry_lease;
ROLLBACK;
DROP VIEW my_status;
DROP EXTENSION snowflake_id;

-- The update refuses a schema snowflake_id that is not the extension's,
-- and leaves the install at 1.5.
CREATE EXTENSION snowflake_id VERSION '1.5';
CREATE SCHEMA snowflake_id;
SELECT * FROM pg_temp.try($$ALTER EXTENSION snowflake_id UPDATE TO '1.6'$$);
SELECT extversion FROM pg_extension WHERE extname = 'snowflake_id';
SELECT count(*) AS moved FROM relations WHERE NOT in_extension_schema;
DROP SCHEMA snowflake_id;
DROP EXTENSION snowflake_id;
-- 1.5 installed in a schema named snowflake_id: the update moves nothing.
CREATE SCHEMA snowflake_id;
CREATE EXTENSION snowflake_id SCHEMA snowflake_id VERSION '1.5';
ALTER EXTENSION snowflake_id UPDATE TO '1.6';
SELECT * FROM relations;
DROP EXTENSION snowflake_id;
DROP SCHEMA snowflake_id;
DROP ROLE sf_schema_lessee;

\c contrib_regression
DROP DATABASE sf_schema_app;
