-- Updating from 1.0 with this tree's scripts gives exactly what a fresh install of
-- the current version has: the same objects, properties, comments and
-- privileges (tests/server/update_paths.sh does the same from each release's own
-- scripts, with tests/lib/extension_catalog.sql).
-- Server: snowflake_id preloaded, default layout, worker_id = 7.
SET timezone = 'UTC';
CREATE EXTENSION IF NOT EXISTS snowflake_id;
-- The extension's objects and what matters about each.
CREATE TEMP VIEW members AS
SELECT pg_describe_object(d.classid, d.objid, 0) AS object,
       coalesce(p.provolatile::text || p.proisstrict::text || p.proparallel::text
                || p.proretset::text || pg_get_function_arguments(p.oid)
                || pg_get_function_result(p.oid) || coalesce(p.proconfig::text, ''),
                '') AS properties,
       obj_description(d.objid, d.classid::regclass::name) AS comment,
       (SELECT array_agg(a ORDER BY a::text)
        FROM unnest(coalesce(p.proacl, c.relacl, n.nspacl)) a) AS acl
FROM pg_depend d LEFT JOIN pg_proc p ON d.classid = 'pg_proc'::regclass AND p.oid = d.objid
     LEFT JOIN pg_class c ON d.classid = 'pg_class'::regclass AND c.oid = d.objid
     LEFT JOIN pg_namespace n ON d.classid = 'pg_namespace'::regclass AND n.oid = d.objid
WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'snowflake_id')
  -- PostgreSQL 17 and later also list the row types of the extension's
  -- tables and views, and array types; they come and go with their
  -- relations and element types: leave them out, for the same count on
  -- every major.
  AND NOT EXISTS (SELECT FROM pg_type t
                  WHERE d.classid = 'pg_type'::regclass AND t.oid = d.objid
                    AND (t.typrelid <> 0 OR t.typcategory = 'A'))
-- What the operator families hold: their operators and support functions
-- are no members of the extension, only of the families, and a line
-- missing from an update script's ALTER OPERATOR FAMILY would show nowhere
-- else.
UNION ALL
SELECT pg_describe_object(e.classid, e.objid, 0), '', NULL, NULL
FROM (SELECT 'pg_amop'::regclass AS classid, o.oid AS objid, o.amopfamily AS family FROM pg_amop o
      UNION ALL
      SELECT 'pg_amproc'::regclass, p.oid, p.amprocfamily FROM pg_amproc p) e
WHERE e.family IN (SELECT d.objid FROM pg_depend d
                   WHERE d.classid = 'pg_opfamily'::regclass
                     AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
                     AND d.refobjid = (SELECT oid FROM pg_extension
                                       WHERE extname = 'snowflake_id'));
-- Every object of the extension has a description (psql's \df+, \do+, \dC+,
-- \dT+, \dt+ and \dd show them). No rows: each row names an object without
-- one, which needs a COMMENT in its source under src/sql/ and, for an update, in
-- the update script.
CREATE TEMP VIEW undescribed AS
SELECT pg_describe_object(d.classid, d.objid, 0) AS undescribed
FROM pg_depend d
WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'snowflake_id')
  AND obj_description(d.objid, d.classid::regclass::name) IS NULL
  -- Array and row types (members on 17 and later) come and go with their
  -- element types and relations, and have none: left out, as above.
  AND NOT EXISTS (SELECT FROM pg_type t
                  WHERE d.classid = 'pg_type'::regclass AND t.oid = d.objid
                    AND (t.typrelid <> 0 OR t.typcategory = 'A'))
ORDER BY 1;
SELECT * FROM undescribed;
CREATE TEMP TABLE fresh AS SELECT * FROM members;
SELECT extversion AS fresh_version, extrelocatable FROM pg_extension
WHERE extname = 'snowflake_id';
DROP EXTENSION snowflake_id;

-- Every version can be installed: only the newest has a full install
-- script, older ones are 1.0's script and the update scripts up to them.
SELECT version FROM pg_available_extension_versions
WHERE name = 'snowflake_id' ORDER BY version;
CREATE EXTENSION snowflake_id VERSION '1.0';
ALTER EXTENSION snowflake_id UPDATE;
SELECT extversion AS updated_version, extrelocatable FROM pg_extension
WHERE extname = 'snowflake_id';
CREATE TEMP TABLE updated AS SELECT * FROM members;
SELECT * FROM undescribed;
SELECT count(*) AS objects FROM fresh;
-- Both differences are empty.
(SELECT 'only fresh' AS side, * FROM fresh EXCEPT SELECT 'only fresh', * FROM updated)
UNION ALL
(SELECT 'only updated', * FROM updated EXCEPT SELECT 'only updated', * FROM fresh);
-- And the updated functions work.
SELECT count(*) AS block FROM snowflake_nextval(3);
SELECT snowflake_timestamp(175928847299117063, 'discord');

-- The extension can be installed into a schema of its own, the placement
-- the README recommends. It is not relocatable (1.5): the registry's
-- functions pin their search_path to its schema. Its tables and views go
-- into the schema snowflake_id all the same (1.6).
DROP EXTENSION snowflake_id;
CREATE SCHEMA sf_ids;
CREATE EXTENSION snowflake_id SCHEMA sf_ids;
SELECT sf_ids.snowflake_timestamp(175928847299117063, 'discord');
SELECT count(*) AS status_rows FROM sf_ids.snowflake_status();
SELECT count(*) AS view_rows FROM snowflake_id.snowflake_status;
SELECT sf_ids.snowflake_nextval() > 0 AS issued;
SELECT proname, proconfig FROM pg_proc
WHERE proname = 'snowflake_registry_renew' AND pronamespace = 'sf_ids'::regnamespace;
ALTER EXTENSION snowflake_id SET SCHEMA public;
DROP EXTENSION snowflake_id;

-- An install of 1.4 or before, relocatable then, that was moved with ALTER
-- EXTENSION SET SCHEMA: 1.4's control file said relocatable, which the
-- catalog flag stands in for here. The update pins the functions to the
-- schema the extension is in now, and its registry's functions and view
-- work from there with a search_path that does not name that schema. The
-- update to 1.6 moves the tables and views from there into snowflake_id.
CREATE EXTENSION snowflake_id VERSION '1.4';
UPDATE pg_extension SET extrelocatable = true WHERE extname = 'snowflake_id';
ALTER EXTENSION snowflake_id SET SCHEMA sf_ids;
ALTER EXTENSION snowflake_id UPDATE;
SELECT extversion, extrelocatable, extnamespace::regnamespace AS schema FROM pg_extension
WHERE extname = 'snowflake_id';
SELECT * FROM undescribed;
SELECT p.proname, p.proconfig FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
WHERE p.pronamespace = 'sf_ids'::regnamespace AND l.lanname IN ('sql', 'plpgsql')
ORDER BY p.proname;
INSERT INTO snowflake_id.snowflake_registry_layout VALUES
    (true, 0, 2, 12, 1577836800000, '2026-01-01', 'hosta:5432, data directory /data/a, system identifier 7001');
INSERT INTO snowflake_id.snowflake_registry_lease VALUES
    (0, 1, 7001, 101, 'hosta', 5432, '/data/a', 1, 1000, '2026-01-01', '2026-01-01',
     'infinity', NULL, 5000);
SET search_path = pg_catalog;
-- A server before 1.5 calling it is refused, with the extension's message.
DO $$
BEGIN
    PERFORM sf_ids.snowflake_registry_renew(0, 1, 101, 5000, 60000);
EXCEPTION WHEN feature_not_supported THEN
    RAISE NOTICE '%', SQLERRM;
END $$;
SELECT node_id, state, holder, layout FROM snowflake_id.snowflake_registry_leases;
RESET search_path;
DROP EXTENSION snowflake_id;
DROP SCHEMA sf_ids;
CREATE EXTENSION snowflake_id;
