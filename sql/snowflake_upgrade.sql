-- Updating from 1.0 gives exactly what a fresh install of the current
-- version has: the same objects, properties, comments and privileges.
-- Server: snowflake_id preloaded, default layout, worker_id = 7.
SET timezone = 'UTC';
CREATE EXTENSION IF NOT EXISTS snowflake_id;
-- The extension's objects and what matters about each.
CREATE TEMP VIEW members AS
SELECT pg_describe_object(d.classid, d.objid, 0) AS object,
       coalesce(p.provolatile::text || p.proisstrict::text || p.proparallel::text
                || p.proretset::text || pg_get_function_arguments(p.oid)
                || pg_get_function_result(p.oid), '') AS properties,
       obj_description(d.objid, d.classid::regclass::name) AS comment,
       (SELECT array_agg(a ORDER BY a::text) FROM unnest(coalesce(p.proacl, c.relacl)) a) AS acl
FROM pg_depend d LEFT JOIN pg_proc p ON d.classid = 'pg_proc'::regclass AND p.oid = d.objid
     LEFT JOIN pg_class c ON d.classid = 'pg_class'::regclass AND c.oid = d.objid
WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'snowflake_id')
  -- PostgreSQL 17 and later also list the row types of the extension's
  -- tables and views, and array types; they come and go with their
  -- relations and element types: leave them out, for the same count on
  -- every major.
  AND NOT EXISTS (SELECT FROM pg_type t
                  WHERE d.classid = 'pg_type'::regclass AND t.oid = d.objid
                    AND (t.typrelid <> 0 OR t.typcategory = 'A'));
CREATE TEMP TABLE fresh AS SELECT * FROM members;
SELECT extversion AS fresh_version FROM pg_extension WHERE extname = 'snowflake_id';
DROP EXTENSION snowflake_id;

CREATE EXTENSION snowflake_id VERSION '1.0';
ALTER EXTENSION snowflake_id UPDATE;
SELECT extversion AS updated_version FROM pg_extension WHERE extname = 'snowflake_id';
CREATE TEMP TABLE updated AS SELECT * FROM members;
SELECT count(*) AS objects FROM fresh;
-- Both differences are empty.
(SELECT 'only fresh' AS side, * FROM fresh EXCEPT SELECT 'only fresh', * FROM updated)
UNION ALL
(SELECT 'only updated', * FROM updated EXCEPT SELECT 'only updated', * FROM fresh);
-- And the updated functions work.
SELECT count(*) AS block FROM snowflake_nextval(3);
SELECT snowflake_timestamp(175928847299117063, 'discord');

-- The extension can be installed into a schema of its own (it is
-- relocatable), the placement the README recommends, and moved.
DROP EXTENSION snowflake_id;
CREATE SCHEMA sf_ids;
CREATE EXTENSION snowflake_id SCHEMA sf_ids;
SELECT sf_ids.snowflake_timestamp(175928847299117063, 'discord');
SELECT count(*) AS status_rows FROM sf_ids.snowflake_status;
SELECT sf_ids.snowflake_nextval() > 0 AS issued;
ALTER EXTENSION snowflake_id SET SCHEMA public;
SELECT snowflake_nextval() > 0 AS issued_after_move;
DROP SCHEMA sf_ids;
