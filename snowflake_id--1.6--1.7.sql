-- snowflake_id 1.6 -> 1.7: the repair of 1.5.0-1. 1.5's scripts changed
-- after the 1.5.0-1 package shipped them (commit b3a12e3): a database whose
-- 1.5 came from that package, or from a checkout before the 1.6 release
-- (87a5c57), and that was then updated to 1.6, lacks the objects 1.5 had
-- gained since (the public IDs, the comparisons of a snowflake with a
-- time, snowflake_adopt, snowflake_interval_ids and snowflake_date_bin
-- among them), keeps two functions 1.5 had dropped, and carries older
-- definitions and comments. This script brings any 1.6 to what CREATE
-- EXTENSION of 1.7 makes, the DBA's own privileges and comments aside
-- (tests/server/update_paths.sh compares them from every release): it
-- drops what 1.7 does not have (the extension's own objects only),
-- creates what is missing, and replaces every function and view.
-- Privileges are set on the objects it creates only: an existing object
-- keeps its privileges, the DBA's GRANTs and REVOKEs included. Comments
-- are set on the objects it creates, and on existing ones whose comment
-- is none or one an earlier version of the extension gave them; a comment
-- of the DBA's is kept. Over a complete 1.6 it changes the version and one
-- function's message (snowflake_registry_refuse_old_server names the 1.5
-- of 1.5.0-1 too), and adds the registry's record of WAL positions and
-- timelines (issue 42: two columns of snowflake_registry_lease, the table
-- snowflake_registry_timeline), and grants the database owner SELECT and
-- INSERT on the registry's tables (issue 48: its pg_dump and pg_restore need
-- them), nothing else. docs/upgrading.md, "1.5.0-1 and the update to 1.7".
--
-- What the sources cannot say, by hand: tools/sql-repair makes the update
-- script snowflake_id--1.6--1.7.sql from this file, the repair's helpers
-- (src/sql/updates/repair.sql) and the sources under src/sql/; it is
-- committed, checked against the generator's output by the house suite
-- while 1.7 is unreleased, and frozen once 1.7 is released (RELEASES).
\echo Use "ALTER EXTENSION snowflake_id UPDATE TO '1.7'" to load this file. \quit

-- The helpers of every update script tools/sql-repair makes, after the
-- version's own header; the script drops them at its end.

-- For this script only (dropped at its end): the extension's members as
-- they were before it ran. An object not among them was created by it.
-- This table and the helper functions below live in the schema
-- snowflake_id, not in pg_temp: Citus runs this update on its workers in a
-- prepared transaction, which PostgreSQL refuses to PREPARE once it has
-- touched a temporary object (tests/server/citus.sh updates a cluster).
CREATE TABLE snowflake_id.snowflake_repair_existed AS
SELECT d.classid, d.objid
FROM pg_catalog.pg_depend d
JOIN pg_catalog.pg_extension e ON e.oid OPERATOR(pg_catalog.=) d.refobjid
WHERE d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_extension'::pg_catalog.regclass
  AND d.deptype OPERATOR(pg_catalog.=) 'e'
  AND e.extname OPERATOR(pg_catalog.=) 'snowflake_id';

-- For this script only, as the rest below: (classid, objid) of an object
-- named as pg_get_object_address names it, a NULL name standing for the
-- extension's schema (pg_extension.extnamespace: @extschema@ in a literal
-- would be the schema's name quoted as an identifier); NULLs where there
-- is no such object.
CREATE FUNCTION snowflake_id.snowflake_repair_address(object_type text, object_names text[],
                                                 object_args text[],
                                                 OUT class_id oid, OUT object_id oid)
LANGUAGE plpgsql AS $$
DECLARE
    schema_name text := (SELECT n.nspname FROM pg_catalog.pg_extension e
                         JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace
                         WHERE e.extname OPERATOR(pg_catalog.=) 'snowflake_id');
    names text[] := pg_catalog.array_replace(object_names, NULL, schema_name);
BEGIN
    IF object_type OPERATOR(pg_catalog.=) 'type' THEN
        -- A type is named as one string, parsed like a type in SQL.
        names := ARRAY[pg_catalog.format('%I.%I', names[1], names[2])];
    END IF;
    SELECT a.classid, a.objid INTO class_id, object_id
    FROM pg_catalog.pg_get_object_address(object_type, names, object_args) a;
EXCEPTION WHEN undefined_object OR undefined_function OR undefined_table OR invalid_schema_name THEN
    class_id := NULL;
    object_id := NULL;
END
$$;

-- The description of an object the repair would create that exists and is
-- not the extension's (a shell named as such: a commutator or negator
-- that an operator made outside the extension left); none otherwise.
CREATE FUNCTION snowflake_id.snowflake_repair_foreign(object_type text, object_names text[],
                                                 object_args text[])
RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
    found record := snowflake_id.snowflake_repair_address(object_type, object_names, object_args);
BEGIN
    IF found.object_id IS NULL
       OR EXISTS (SELECT FROM snowflake_id.snowflake_repair_existed x
                  WHERE x.classid OPERATOR(pg_catalog.=) found.class_id
                    AND x.objid OPERATOR(pg_catalog.=) found.object_id) THEN
        RETURN '{}';
    END IF;
    RETURN ARRAY[CASE WHEN EXISTS (SELECT FROM pg_catalog.pg_operator o
                                   WHERE found.class_id OPERATOR(pg_catalog.=) 'pg_catalog.pg_operator'::pg_catalog.regclass
                                     AND o.oid OPERATOR(pg_catalog.=) found.object_id
                                     AND o.oprcode OPERATOR(pg_catalog.=) 0)
                          OR EXISTS (SELECT FROM pg_catalog.pg_type t
                                     WHERE found.class_id OPERATOR(pg_catalog.=) 'pg_catalog.pg_type'::pg_catalog.regclass
                                       AND t.oid OPERATOR(pg_catalog.=) found.object_id
                                       AND NOT t.typisdefined)
                     THEN 'shell ' ELSE '' END
                 OPERATOR(pg_catalog.||) pg_catalog.pg_describe_object(found.class_id, found.object_id, 0)];
END
$$;

-- One ERROR for all of them: a DBA who drops one at a time would meet the
-- next one update after update.
CREATE FUNCTION snowflake_id.snowflake_repair_refuse(foreign_objects text[])
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF pg_catalog.cardinality(foreign_objects) OPERATOR(pg_catalog.>) 0 THEN
        RAISE EXCEPTION 'snowflake_id 1.7 creates %',
            CASE WHEN pg_catalog.cardinality(foreign_objects) OPERATOR(pg_catalog.=) 1
                 THEN 'an object that exists and is not snowflake_id''s: '
                 ELSE pg_catalog.cardinality(foreign_objects)::text
                      OPERATOR(pg_catalog.||) ' objects that exist and are not snowflake_id''s: ' END
            OPERATOR(pg_catalog.||) pg_catalog.array_to_string(foreign_objects, ', ')
            USING ERRCODE = 'duplicate_object',
                  DETAIL = 'The update takes over no object made outside the extension (such as a '
                           'stand-in for one that the 1.5.0-1 package lacked, or the shell of its '
                           'commutator or negator, which CREATE OPERATOR leaves).',
                  HINT = 'Drop each of them (a shell operator with DROP OPERATOR too), never with '
                         'CASCADE: first list what depends on them (pg_depend), drop that, update, '
                         'and recreate it. docs/upgrading.md, "1.5.0-1 and the update to 1.7".';
    END IF;
END
$$;

-- Whether the repair sets a privilege or comment on an object: yes if it
-- created it; for a comment (earlier_comments not NULL) also where the
-- object has none, or one of earlier_comments, which earlier versions of
-- the extension gave it.
CREATE FUNCTION snowflake_id.snowflake_repair_sets(object_type text, object_names text[],
                                              object_args text[],
                                              earlier_comments text[] DEFAULT NULL)
RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    found record := snowflake_id.snowflake_repair_address(object_type, object_names, object_args);
    current_comment text;
BEGIN
    IF NOT EXISTS (SELECT FROM snowflake_id.snowflake_repair_existed x
                   WHERE x.classid OPERATOR(pg_catalog.=) found.class_id
                     AND x.objid OPERATOR(pg_catalog.=) found.object_id) THEN
        RETURN true;
    END IF;
    IF earlier_comments IS NULL THEN
        RETURN false;
    END IF;
    current_comment := (SELECT d.description FROM pg_catalog.pg_description d
                        WHERE d.classoid OPERATOR(pg_catalog.=) found.class_id
                          AND d.objoid OPERATOR(pg_catalog.=) found.object_id
                          AND d.objsubid OPERATOR(pg_catalog.=) 0);
    RETURN current_comment IS NULL OR current_comment OPERATOR(pg_catalog.=) ANY (earlier_comments);
END
$$;

-- An object it would create that exists already must be the extension's
-- (the check after these helpers refused any other), and is then left as
-- it is.
CREATE FUNCTION snowflake_id.snowflake_repair_ours(object_type text, object_names text[],
                                              object_args text[])
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    found record := snowflake_id.snowflake_repair_address(object_type, object_names, object_args);
BEGIN
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_depend d
                   JOIN pg_catalog.pg_extension e ON e.oid OPERATOR(pg_catalog.=) d.refobjid
                   WHERE d.classid OPERATOR(pg_catalog.=) found.class_id
                     AND d.objid OPERATOR(pg_catalog.=) found.object_id
                     AND d.deptype OPERATOR(pg_catalog.=) 'e'
                     AND e.extname OPERATOR(pg_catalog.=) 'snowflake_id') THEN
        PERFORM snowflake_id.snowflake_repair_refuse(ARRAY[coalesce(
            pg_catalog.pg_describe_object(found.class_id, found.object_id, 0),
            pg_catalog.array_to_string(object_names, '.'))]);
    END IF;
END
$$;

-- The registry's rule helpers before commit 961799f: 1.5 folded them into
-- the leasing functions, whose 1.5.0-1 versions called them; the
-- definitions below no longer do. Dropped only if they are the
-- extension's: a function of the same name and arguments made outside it
-- is not ours to drop.
DO $repair$
DECLARE
    helper pg_catalog.regprocedure;
BEGIN
    FOR helper IN
        SELECT p.oid
        FROM pg_catalog.pg_proc p
        JOIN snowflake_id.snowflake_repair_existed x
          ON x.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_proc'::pg_catalog.regclass
         AND x.objid OPERATOR(pg_catalog.=) p.oid
        WHERE p.oid OPERATOR(pg_catalog.=) ANY (ARRAY[
            pg_catalog.to_regprocedure('@extschema@.snowflake_registry_is_live('
                                       'snowflake_id.snowflake_registry_lease, timestamptz)'),
            pg_catalog.to_regprocedure('@extschema@.snowflake_registry_may_take('
                                       'snowflake_id.snowflake_registry_lease, numeric, bigint, '
                                       'text, integer, text, integer, bigint)')])
    LOOP
        EXECUTE pg_catalog.format('DROP FUNCTION %s', helper);
    END LOOP;
END
$repair$;

-- Before anything changes: every object the repair would create that exists
-- outside the extension (a DBA's stand-in, the shell of its commutator),
-- refused in one ERROR that names them all.
DO $repair$
DECLARE
    found text[] := '{}';
BEGIN
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_nextval']::text[], ARRAY[]::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_nextval']::text[], ARRAY['integer']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_decode']::text[], ARRAY['bigint']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_decode']::text[], ARRAY['bigint', 'text']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_timestamp']::text[], ARRAY['bigint']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_timestamp']::text[], ARRAY['bigint', 'text']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_from_timestamp']::text[], ARRAY['timestamptz']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_accept_layout']::text[], ARRAY[]::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_compose']::text[], ARRAY['timestamptz', 'integer', 'integer', 'integer']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'objectid_generate']::text[], ARRAY[]::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'objectid_timestamp']::text[], ARRAY['text']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_status']::text[], ARRAY[]::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_registry_layout_text']::text[], ARRAY['integer', 'integer', 'integer', 'bigint']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_registry_holder_text']::text[], ARRAY['text', 'integer', 'text', 'numeric']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_registry_refuse_old_server']::text[], ARRAY['text']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_registry_acquire']::text[], ARRAY['integer', 'integer', 'bigint', 'numeric', 'bigint', 'text', 'integer', 'text', 'integer', 'integer', 'integer', 'integer', 'bigint', 'bigint', 'bigint', 'bigint']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_registry_renew']::text[], ARRAY['integer', 'bigint', 'bigint', 'bigint', 'bigint']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_registry_release']::text[], ARRAY['integer', 'bigint', 'bigint', 'bigint']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_registry_switch']::text[], ARRAY['integer', 'bigint', 'bigint', 'bigint', 'numeric', 'text', 'integer', 'text', 'integer', 'bigint', 'bigint', 'bigint', 'bigint']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('type', ARRAY[NULL, 'snowflake']::text[], ARRAY[]::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_in']::text[], ARRAY['cstring']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_out']::text[], ARRAY['snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_recv']::text[], ARRAY['internal']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_send']::text[], ARRAY['snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('type', ARRAY[NULL, 'snowflake']::text[], ARRAY[]::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('cast', ARRAY['snowflake']::text[], ARRAY['bigint']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake']::text[], ARRAY['bigint']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('cast', ARRAY['bigint']::text[], ARRAY['snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_eq']::text[], ARRAY['snowflake', 'bigint']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_ne']::text[], ARRAY['snowflake', 'bigint']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_lt']::text[], ARRAY['snowflake', 'bigint']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_le']::text[], ARRAY['snowflake', 'bigint']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_gt']::text[], ARRAY['snowflake', 'bigint']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_ge']::text[], ARRAY['snowflake', 'bigint']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_cmp']::text[], ARRAY['snowflake', 'bigint']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_eq']::text[], ARRAY['bigint', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_ne']::text[], ARRAY['bigint', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_lt']::text[], ARRAY['bigint', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_le']::text[], ARRAY['bigint', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_gt']::text[], ARRAY['bigint', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_ge']::text[], ARRAY['bigint', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_cmp']::text[], ARRAY['bigint', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '=']::text[], ARRAY['snowflake', 'bigint']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '<>']::text[], ARRAY['snowflake', 'bigint']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '<']::text[], ARRAY['snowflake', 'bigint']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '<=']::text[], ARRAY['snowflake', 'bigint']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '>']::text[], ARRAY['snowflake', 'bigint']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '>=']::text[], ARRAY['snowflake', 'bigint']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '=']::text[], ARRAY['bigint', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '<>']::text[], ARRAY['bigint', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '<']::text[], ARRAY['bigint', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '<=']::text[], ARRAY['bigint', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '>']::text[], ARRAY['bigint', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '>=']::text[], ARRAY['bigint', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake']::text[], ARRAY['integer']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('cast', ARRAY['integer']::text[], ARRAY['snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_eq']::text[], ARRAY['snowflake', 'integer']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_ne']::text[], ARRAY['snowflake', 'integer']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_lt']::text[], ARRAY['snowflake', 'integer']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_le']::text[], ARRAY['snowflake', 'integer']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_gt']::text[], ARRAY['snowflake', 'integer']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_ge']::text[], ARRAY['snowflake', 'integer']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_cmp']::text[], ARRAY['snowflake', 'integer']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_eq']::text[], ARRAY['integer', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_ne']::text[], ARRAY['integer', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_lt']::text[], ARRAY['integer', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_le']::text[], ARRAY['integer', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_gt']::text[], ARRAY['integer', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_ge']::text[], ARRAY['integer', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_cmp']::text[], ARRAY['integer', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '=']::text[], ARRAY['snowflake', 'integer']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '<>']::text[], ARRAY['snowflake', 'integer']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '<']::text[], ARRAY['snowflake', 'integer']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '<=']::text[], ARRAY['snowflake', 'integer']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '>']::text[], ARRAY['snowflake', 'integer']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '>=']::text[], ARRAY['snowflake', 'integer']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '=']::text[], ARRAY['integer', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '<>']::text[], ARRAY['integer', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '<']::text[], ARRAY['integer', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '<=']::text[], ARRAY['integer', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '>']::text[], ARRAY['integer', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '>=']::text[], ARRAY['integer', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_eq']::text[], ARRAY['snowflake', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_ne']::text[], ARRAY['snowflake', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_lt']::text[], ARRAY['snowflake', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_le']::text[], ARRAY['snowflake', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_gt']::text[], ARRAY['snowflake', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_ge']::text[], ARRAY['snowflake', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_cmp']::text[], ARRAY['snowflake', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_hash']::text[], ARRAY['snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_hash_extended']::text[], ARRAY['snowflake', 'bigint']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '=']::text[], ARRAY['snowflake', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '<>']::text[], ARRAY['snowflake', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '<']::text[], ARRAY['snowflake', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '<=']::text[], ARRAY['snowflake', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '>']::text[], ARRAY['snowflake', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '>=']::text[], ARRAY['snowflake', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake']::text[], ARRAY['numeric']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('cast', ARRAY['numeric']::text[], ARRAY['snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_numeric']::text[], ARRAY['snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('cast', ARRAY['snowflake']::text[], ARRAY['numeric']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_eq']::text[], ARRAY['snowflake', 'numeric']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_ne']::text[], ARRAY['snowflake', 'numeric']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_lt']::text[], ARRAY['snowflake', 'numeric']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_le']::text[], ARRAY['snowflake', 'numeric']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_gt']::text[], ARRAY['snowflake', 'numeric']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_ge']::text[], ARRAY['snowflake', 'numeric']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_eq']::text[], ARRAY['numeric', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_ne']::text[], ARRAY['numeric', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_lt']::text[], ARRAY['numeric', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_le']::text[], ARRAY['numeric', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_gt']::text[], ARRAY['numeric', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_ge']::text[], ARRAY['numeric', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '=']::text[], ARRAY['snowflake', 'numeric']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '<>']::text[], ARRAY['snowflake', 'numeric']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '<']::text[], ARRAY['snowflake', 'numeric']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '<=']::text[], ARRAY['snowflake', 'numeric']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '>']::text[], ARRAY['snowflake', 'numeric']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '>=']::text[], ARRAY['snowflake', 'numeric']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '=']::text[], ARRAY['numeric', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '<>']::text[], ARRAY['numeric', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '<']::text[], ARRAY['numeric', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '<=']::text[], ARRAY['numeric', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '>']::text[], ARRAY['numeric', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '>=']::text[], ARRAY['numeric', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake']::text[], ARRAY['smallint']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('cast', ARRAY['smallint']::text[], ARRAY['snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_eq']::text[], ARRAY['snowflake', 'smallint']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_ne']::text[], ARRAY['snowflake', 'smallint']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_lt']::text[], ARRAY['snowflake', 'smallint']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_le']::text[], ARRAY['snowflake', 'smallint']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_gt']::text[], ARRAY['snowflake', 'smallint']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_ge']::text[], ARRAY['snowflake', 'smallint']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_cmp']::text[], ARRAY['snowflake', 'smallint']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_eq']::text[], ARRAY['smallint', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_ne']::text[], ARRAY['smallint', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_lt']::text[], ARRAY['smallint', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_le']::text[], ARRAY['smallint', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_gt']::text[], ARRAY['smallint', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_ge']::text[], ARRAY['smallint', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_cmp']::text[], ARRAY['smallint', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '=']::text[], ARRAY['snowflake', 'smallint']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '<>']::text[], ARRAY['snowflake', 'smallint']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '<']::text[], ARRAY['snowflake', 'smallint']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '<=']::text[], ARRAY['snowflake', 'smallint']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '>']::text[], ARRAY['snowflake', 'smallint']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '>=']::text[], ARRAY['snowflake', 'smallint']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '=']::text[], ARRAY['smallint', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '<>']::text[], ARRAY['smallint', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '<']::text[], ARRAY['smallint', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '<=']::text[], ARRAY['smallint', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '>']::text[], ARRAY['smallint', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '>=']::text[], ARRAY['smallint', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator family', ARRAY['btree', NULL, 'snowflake_ops']::text[], ARRAY[]::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator class', ARRAY['btree', NULL, 'snowflake_ops']::text[], ARRAY[]::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator family', ARRAY['hash', NULL, 'snowflake_hash_ops']::text[], ARRAY[]::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator class', ARRAY['hash', NULL, 'snowflake_hash_ops']::text[], ARRAY[]::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator family', ARRAY['brin', NULL, 'snowflake_minmax_ops']::text[], ARRAY[]::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator class', ARRAY['brin', NULL, 'snowflake_minmax_ops']::text[], ARRAY[]::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_last_before']::text[], ARRAY['timestamptz']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_last_at_or_before']::text[], ARRAY['timestamptz']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_first_at_or_after']::text[], ARRAY['timestamptz']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_first_after']::text[], ARRAY['timestamptz']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_time_comparison_support']::text[], ARRAY['internal']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_lt']::text[], ARRAY['snowflake', 'timestamptz']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_le']::text[], ARRAY['snowflake', 'timestamptz']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_gt']::text[], ARRAY['snowflake', 'timestamptz']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_ge']::text[], ARRAY['snowflake', 'timestamptz']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_lt']::text[], ARRAY['timestamptz', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_le']::text[], ARRAY['timestamptz', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_gt']::text[], ARRAY['timestamptz', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_ge']::text[], ARRAY['timestamptz', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '<']::text[], ARRAY['snowflake', 'timestamptz']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '<=']::text[], ARRAY['snowflake', 'timestamptz']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '>']::text[], ARRAY['snowflake', 'timestamptz']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '>=']::text[], ARRAY['snowflake', 'timestamptz']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '<']::text[], ARRAY['timestamptz', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '<=']::text[], ARRAY['timestamptz', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '>']::text[], ARRAY['timestamptz', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('operator', ARRAY[NULL, '>=']::text[], ARRAY['timestamptz', 'snowflake']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_adopt']::text[], ARRAY['regclass', 'name', 'boolean', 'boolean']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_interval_ids']::text[], ARRAY['interval']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_date_bin']::text[], ARRAY['interval', 'timestamptz', 'timestamptz']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_public']::text[], ARRAY['bigint', 'bytea', 'text', 'boolean']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_public']::text[], ARRAY['bigint', 'text', 'boolean']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_from_public']::text[], ARRAY['text', 'bytea', 'text', 'boolean']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_from_public']::text[], ARRAY['text', 'text', 'boolean']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_system_identifier']::text[], ARRAY[]::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_origin_arrived']::text[], ARRAY[]::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_raise_floor']::text[], ARRAY['bigint', 'bigint']::text[]);
    found := found OPERATOR(pg_catalog.||) snowflake_id.snowflake_repair_foreign('function', ARRAY[NULL, 'snowflake_check_restore']::text[], ARRAY['boolean']::text[]);
    PERFORM snowflake_id.snowflake_repair_refuse(found);
END
$repair$;

-- src/sql/schema.sql
-- The schema snowflake_id (1.6) holds the extension's tables and views: the
-- registry's two tables, its view of the leases and the view
-- snowflake_status. The functions, the snowflake type, its operators and
-- casts stay in the extension's schema (@extschema@), which is usually the
-- application's public schema: the one that migration tools (Alembic,
-- Rails, drizzle-kit, TypeORM, Django) compare with the application's
-- models, and where they would plan to drop tables and views the extension
-- needs. As pg_cron keeps its tables in cron, the extension creates the
-- schema and owns it: pg_dump leaves it to CREATE EXTENSION, and DROP
-- EXTENSION drops it. An extension created in a schema named snowflake_id
-- (CREATE EXTENSION snowflake_id SCHEMA snowflake_id) keeps everything
-- there. Any other schema of that name is refused: it is not the
-- extension's, and its owner could plant or reach objects in it.
DO $$
DECLARE
    extension_schema oid := (SELECT e.extnamespace FROM pg_catalog.pg_extension e
                             WHERE e.extname OPERATOR(pg_catalog.=) 'snowflake_id');
    extension_schema_name name := (SELECT n.nspname FROM pg_catalog.pg_namespace n
                                   WHERE n.oid OPERATOR(pg_catalog.=) extension_schema);
    existing oid := pg_catalog.to_regnamespace('snowflake_id');
BEGIN
    IF existing IS NULL THEN
        CREATE SCHEMA snowflake_id;
        -- As for the extension's functions: USAGE only lets a role find
        -- what is there; each table and view keeps its own privileges
        -- (snowflake_status is readable by every role, the registry's
        -- tables by their owner and the roles granted them). Only on the
        -- schema made here: the privileges and comment of one that exists
        -- (an update, 1.7) are left as the DBA has them.
        GRANT USAGE ON SCHEMA snowflake_id TO PUBLIC;
        COMMENT ON SCHEMA snowflake_id IS
        'snowflake_id''s tables and views (the registry''s leases and layout, snowflake_status), apart from the schema of its functions and type';
    ELSIF existing OPERATOR(pg_catalog.<>) extension_schema
          -- Ours already (an update that runs this again, 1.7): kept.
          AND NOT EXISTS (SELECT FROM pg_catalog.pg_depend d
                          WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_namespace'::pg_catalog.regclass
                            AND d.objid OPERATOR(pg_catalog.=) existing
                            AND d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_extension'::pg_catalog.regclass
                            AND d.refobjid OPERATOR(pg_catalog.=) (SELECT e.oid FROM pg_catalog.pg_extension e
                                                                   WHERE e.extname OPERATOR(pg_catalog.=) 'snowflake_id')
                            AND d.deptype OPERATOR(pg_catalog.=) 'e') THEN
        RAISE EXCEPTION 'schema snowflake_id already exists'
            USING ERRCODE = 'duplicate_schema',
                  DETAIL = pg_catalog.format('snowflake_id 1.6 keeps its tables and views in '
                                             'a schema named snowflake_id that it creates and '
                                             'owns, apart from the schema of its functions '
                                             '(%I).', extension_schema_name),
                  HINT = 'Rename that schema (ALTER SCHEMA snowflake_id RENAME TO ...) or drop '
                         'it, or put the whole extension into it: CREATE EXTENSION snowflake_id '
                         'SCHEMA snowflake_id.';
    END IF;
END
$$;

-- src/sql/functions/snowflake_nextval.sql
-- VOLATILE: every call returns a new ID. PARALLEL RESTRICTED: the generator
-- itself works from any process, but keeping calls in the leader keeps one
-- session's IDs in the order its rows are produced.
CREATE OR REPLACE FUNCTION snowflake_nextval() RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_nextval'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_nextval']::text[], ARRAY[]::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_nextval() IS
'Next Snowflake ID of this server: unique across servers with different node ids, strictly increasing on this server';
END IF;
END
$repair$;

-- VOLATILE and PARALLEL RESTRICTED, like snowflake_nextval(). STRICT: a NULL
-- count returns no rows.
CREATE OR REPLACE FUNCTION snowflake_nextval(n integer) RETURNS SETOF bigint
AS 'MODULE_PATHNAME', 'snowflake_nextval_block'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;

-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_nextval']::text[], ARRAY['integer']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_nextval(integer) IS
'A block of n IDs (1 to 1000000) taken in one atomic step: strictly increasing, and no other session gets an ID between the first and the last';
END IF;
END
$repair$;

-- src/sql/functions/snowflake_decode.sql
-- The decoders read the layout settings, which are fixed while the server
-- runs: STABLE, not IMMUTABLE, since a restart with another layout would
-- change their results.
CREATE OR REPLACE FUNCTION snowflake_decode(id bigint, OUT ts timestamptz, OUT datacenter_id integer,
                                 OUT worker_id integer, OUT sequence integer)
RETURNS record
AS 'MODULE_PATHNAME', 'snowflake_decode'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_decode']::text[], ARRAY['bigint']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_decode(bigint) IS
'Splits a Snowflake ID into its time, datacenter id, worker id and sequence, by this server''s layout';
END IF;
END
$repair$;

-- IMMUTABLE: the layout is an argument, and nothing else goes in, so the
-- result never changes; usable in index expressions and partition bounds.
CREATE OR REPLACE FUNCTION snowflake_decode(id bigint, layout text, OUT ts timestamptz,
                                 OUT datacenter_id integer, OUT worker_id integer,
                                 OUT sequence integer)
RETURNS record
AS 'MODULE_PATHNAME', 'snowflake_decode_foreign'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_decode']::text[], ARRAY['bigint', 'text']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_decode(bigint, text) IS
'Splits an ID minted elsewhere by a preset layout (twitter, discord, instagram, sonyflake) or a spec such as ''time=41,datacenter=5,worker=5,sequence=12;epoch=1288834974657;unit=1ms''';
END IF;
END
$repair$;

-- src/sql/functions/snowflake_timestamp.sql
CREATE OR REPLACE FUNCTION snowflake_timestamp(id bigint) RETURNS timestamptz
AS 'MODULE_PATHNAME', 'snowflake_timestamp'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_timestamp']::text[], ARRAY['bigint']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_timestamp(bigint) IS
'The time (to the millisecond) carried by a Snowflake ID, by this server''s layout';
END IF;
END
$repair$;

CREATE OR REPLACE FUNCTION snowflake_timestamp(id bigint, layout text) RETURNS timestamptz
AS 'MODULE_PATHNAME', 'snowflake_timestamp_foreign'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_timestamp']::text[], ARRAY['bigint', 'text']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_timestamp(bigint, text) IS
'The time carried by an ID minted elsewhere, by a preset layout or a spec (see snowflake_decode(bigint, text))';
END IF;
END
$repair$;

-- src/sql/functions/snowflake_from_timestamp.sql
CREATE OR REPLACE FUNCTION snowflake_from_timestamp(ts timestamptz) RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_from_timestamp'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_from_timestamp']::text[], ARRAY['timestamptz']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_from_timestamp(timestamptz) IS
'The smallest ID that can carry the given time: WHERE id >= snowflake_from_timestamp(t) selects every ID made at or after t';
END IF;
END
$repair$;

-- src/sql/functions/snowflake_accept_layout.sql
-- VOLATILE and PARALLEL UNSAFE: it writes the state file and WAL. Only
-- superusers: it changes what every session's IDs mean. The function checks
-- too, so that a GRANT alone cannot open it up.
CREATE OR REPLACE FUNCTION snowflake_accept_layout() RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_accept_layout'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

-- Only on an object the repair created: the privileges of one that
-- existed are the DBA's to keep.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_accept_layout']::text[], ARRAY[]::text[]) THEN
    REVOKE ALL ON FUNCTION snowflake_accept_layout() FROM PUBLIC;
END IF;
END
$repair$;

-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_accept_layout']::text[], ARRAY[]::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_accept_layout() IS
'Superuser only: accept the configured layout and epoch after a change, continuing above every ID issued before; returns the bound new IDs start from';
END IF;
END
$repair$;

-- src/sql/functions/snowflake_compose.sql
-- STABLE like snowflake_decode(id): it packs by the server's layout settings.
CREATE OR REPLACE FUNCTION snowflake_compose(ts timestamptz, worker_id integer, sequence integer,
                                  datacenter_id integer DEFAULT 0)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_compose'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_compose']::text[], ARRAY['timestamptz', 'integer', 'integer', 'integer']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_compose(timestamptz, integer, integer, integer) IS
'The ID that snowflake_decode(id) splits into these fields, by this server''s layout; the time is truncated to the millisecond';
END IF;
END
$repair$;

-- src/sql/functions/objectid_generate.sql
-- VOLATILE: a new ObjectId per call. PARALLEL SAFE: each process draws its
-- own random part and counter, as MongoDB's drivers do per process.
CREATE OR REPLACE FUNCTION objectid_generate() RETURNS text
AS 'MODULE_PATHNAME', 'objectid_generate'
LANGUAGE C VOLATILE PARALLEL SAFE;

-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'objectid_generate']::text[], ARRAY[]::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION objectid_generate() IS
'A new MongoDB ObjectId as 24 lowercase hex digits: 4 bytes of seconds, 5 random bytes per process, a 3-byte counter';
END IF;
END
$repair$;

-- src/sql/functions/objectid_timestamp.sql
CREATE OR REPLACE FUNCTION objectid_timestamp(objectid text) RETURNS timestamptz
AS 'MODULE_PATHNAME', 'objectid_timestamp'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'objectid_timestamp']::text[], ARRAY['text']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION objectid_timestamp(text) IS
'The creation time (to the second) carried by a MongoDB ObjectId given as 24 hex digits';
END IF;
END
$repair$;

-- src/sql/functions/snowflake_status.sql
-- VOLATILE: it reads live counters. No lock is taken.
CREATE OR REPLACE FUNCTION snowflake_status(
    OUT worker_id integer, OUT datacenter_id integer,
    OUT timestamp_bits integer, OUT datacenter_bits integer, OUT worker_bits integer,
    OUT sequence_bits integer, OUT epoch timestamptz,
    OUT last_issued_at timestamptz, OUT ahead_of_clock_ms bigint, OUT catching_up boolean,
    OUT reserved_until timestamptz,
    OUT ids_issued bigint, OUT sequence_exhausted bigint, OUT waits bigint,
    OUT clock_backwards bigint, OUT errors bigint,
    OUT layout_ends_at timestamptz,
    OUT registry text, OUT node_id_source text, OUT lease_state text,
    OUT lease_expires_at timestamptz, OUT lease_renewals bigint, OUT lease_failures bigint,
    OUT lease_switches bigint, OUT lease_message text)
RETURNS record
AS 'MODULE_PATHNAME', 'snowflake_status'
LANGUAGE C VOLATILE PARALLEL SAFE;

-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_status']::text[], ARRAY[]::text[],
       ARRAY['What the generator is doing: node, layout, last issued time, lead over the wall clock, reservation, and counters since the server started']::text[]) THEN
COMMENT ON FUNCTION snowflake_status() IS
'What the generator is doing: node, layout, last issued time, lead over the wall clock, reservation, counters since the server started, and the node id lease';
END IF;
END
$repair$;

-- src/sql/views/snowflake_status.sql
-- The view, in the schema snowflake_id (1.6; in the extension's schema
-- before): SELECT * FROM snowflake_status() reads the same row from the
-- function, where the extension's schema is in the search_path.
CREATE OR REPLACE VIEW snowflake_id.snowflake_status AS SELECT * FROM snowflake_status();

-- Readable by every role, like the function behind it (EXECUTE for PUBLIC,
-- as for every function) and like PostgreSQL's own pg_stat_* views: it shows
-- the node, the layout and counters, nothing of any table's contents.
-- Only on an object the repair created: the privileges of one that
-- existed are the DBA's to keep.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('view', ARRAY['snowflake_id', 'snowflake_status']::text[], ARRAY[]::text[]) THEN
    GRANT SELECT ON snowflake_id.snowflake_status TO PUBLIC;
END IF;
END
$repair$;

-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('view', ARRAY['snowflake_id', 'snowflake_status']::text[], ARRAY[]::text[],
       '{}'::text[]) THEN
COMMENT ON VIEW snowflake_id.snowflake_status IS
'One row: the generator''s node, layout, last issued time, lead over the wall clock, reservation, counters since the server started, and the node id lease';
END IF;
END
$repair$;

-- src/sql/tables/snowflake_registry_layout.sql
------------------------------------------------------------------------------
-- The registry of node ids (1.3). A database where snowflake_id is installed
-- can serve as the registry of a cluster of servers: each server's background
-- worker (snowflake_id.registry) leases a node id here over libpq, renews the
-- lease and records how far its IDs may go. Every call is one transaction
-- that locks the lease table, so the protocol is atomic in the registry; the
-- server side only trusts what a call returned. Its tables and the view of
-- the leases are in the schema snowflake_id (1.6): a server finds them as
-- the extension's members, wherever they are (src/registry/
-- pq_store.cpp).
--
-- Fencing: a lease carries a fence, which grows whenever another run of a
-- server takes the node id; renewals and releases must present it. A holder
-- records, with every renewal, reserved_until_ms: the highest ID time (ms
-- since 1970) it may issue before its next renewal, and it never issues
-- above the bound it has recorded. A new holder starts above the old
-- holder's recorded bound plus the old holder's max_clock_drift, so a paused
-- or partitioned old holder, which can only issue below its recorded bound,
-- never collides with it. The rules are the library's (1.5), not SQL's:
-- src/core/lease_rules.hpp.

-- The layout and epoch of the cluster: the first holder's. Every later
-- acquisition must match it.
CREATE TABLE IF NOT EXISTS snowflake_id.snowflake_registry_layout (
    only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    datacenter_bits integer NOT NULL,
    worker_bits integer NOT NULL,
    sequence_bits integer NOT NULL,
    epoch_ms bigint NOT NULL,
    recorded_at timestamptz NOT NULL,
    recorded_by text NOT NULL
);

-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('table', ARRAY['snowflake_id', 'snowflake_registry_layout']::text[], ARRAY[]::text[],
       '{}'::text[]) THEN
COMMENT ON TABLE snowflake_id.snowflake_registry_layout IS
'Registry side: the layout and epoch of the cluster, as its first holder recorded them; every later acquisition must match them';
END IF;
END
$repair$;

-- pg_dump keeps the leases and the layout: a registry restored from a dump
-- must still know every recorded bound.
SELECT pg_catalog.pg_extension_config_dump('snowflake_id.snowflake_registry_layout', '');

-- From 1.7: the database's owner reads it and adds rows, as its pg_dump
-- and pg_restore must to carry the rows (pg_extension_config_dump above):
-- without it, the owner could not dump a database with the extension. No
-- UPDATE or DELETE: an added row cannot take a node id from its holder (the
-- key refuses it), so at worst it holds one back. A DO block, so that the
-- update grants it on the table 1.6 made too (tools/sql-repair sets a
-- GRANT's privileges on the objects it creates only).
DO $grant$
BEGIN
    GRANT SELECT, INSERT ON snowflake_id.snowflake_registry_layout TO pg_database_owner;
END
$grant$;

-- src/sql/tables/snowflake_registry_lease.sql
CREATE TABLE IF NOT EXISTS snowflake_id.snowflake_registry_lease (
    node_id integer PRIMARY KEY CHECK (node_id >= 0),
    fence bigint NOT NULL,
    holder_system_id numeric(20, 0) NOT NULL,  -- pg_control's system identifier
    holder_instance bigint NOT NULL,           -- one run of the holding server
    holder_host text NOT NULL,
    holder_port integer NOT NULL,
    holder_data_directory text NOT NULL,
    holder_timeline integer NOT NULL,
    holder_max_clock_drift_ms bigint NOT NULL,
    acquired_at timestamptz NOT NULL,
    renewed_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    released_at timestamptz,                   -- given back by a clean stop
    reserved_until_ms bigint NOT NULL          -- IDs of this node carry times below it
);

-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('table', ARRAY['snowflake_id', 'snowflake_registry_lease']::text[], ARRAY[]::text[],
       '{}'::text[]) THEN
COMMENT ON TABLE snowflake_id.snowflake_registry_lease IS
'Registry side: one row per node id ever leased: its holder, fence, expiry, and the bound its IDs stay below (reserved_until_ms)';
END IF;
END
$repair$;
SELECT pg_catalog.pg_extension_config_dump('snowflake_id.snowflake_registry_lease', '');

-- From 1.7: the holder's WAL position at its last grant, renewal or
-- give-back, and the run (holder_instance) that recorded it; a row whose
-- holder a server before 1.7 wrote (another run) counts as no position.
-- Added rather than listed above, so that an install updated from 1.6 and a
-- new one have the same columns in the same order.
ALTER TABLE snowflake_id.snowflake_registry_lease
    ADD COLUMN IF NOT EXISTS holder_wal_position bigint NOT NULL DEFAULT 0,
    ADD COLUMN IF NOT EXISTS wal_position_instance bigint NOT NULL DEFAULT 0;

-- From 1.7: the database's owner reads it and adds rows, as its pg_dump
-- and pg_restore must to carry the rows (pg_extension_config_dump above):
-- without it, the owner could not dump a database with the extension. No
-- UPDATE or DELETE: an added row cannot take a node id from its holder (the
-- key refuses it), so at worst it holds one back. A DO block, so that the
-- update grants it on the table 1.6 made too (tools/sql-repair sets a
-- GRANT's privileges on the objects it creates only).
DO $grant$
BEGIN
    GRANT SELECT, INSERT ON snowflake_id.snowflake_registry_lease TO pg_database_owner;
END
$grant$;

-- src/sql/tables/snowflake_registry_timeline.sql
-- Registry side, from 1.7: what the registry keeps of each timeline of each
-- system apart from leases, which come and go (docs/many-servers.md, "Copies
-- and successors"): the highest WAL position a holder of the timeline
-- recorded, which tells its promoted standby (it left the timeline at or
-- after it) from a copy (before it); whether such a successor held a lease,
-- after which the timeline's servers are refused for good; and until when a
-- server of it whose lease lapsed waits before it leases again.
CREATE TABLE IF NOT EXISTS snowflake_id.snowflake_registry_timeline (
    system_id numeric(20, 0) NOT NULL,         -- pg_control's system identifier
    timeline integer NOT NULL,
    wal_position bigint NOT NULL DEFAULT 0,
    superseded_by integer,                     -- the successor's timeline
    superseded_at timestamptz,
    superseded_by_holder text,
    resume_at_ms bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (system_id, timeline)
);

-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('table', ARRAY['snowflake_id', 'snowflake_registry_timeline']::text[], ARRAY[]::text[],
       '{}'::text[]) THEN
COMMENT ON TABLE snowflake_id.snowflake_registry_timeline IS
'Registry side: per system and timeline, the highest WAL position its lease holders recorded, and the successor that replaced it';
END IF;
END
$repair$;
SELECT pg_catalog.pg_extension_config_dump('snowflake_id.snowflake_registry_timeline', '');

-- The database's owner reads it and adds rows, as its pg_dump and
-- pg_restore must (snowflake_registry_lease.sql says why no more).
-- Only on an object the repair created: the privileges of one that
-- existed are the DBA's to keep.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('table', ARRAY['snowflake_id', 'snowflake_registry_timeline']::text[], ARRAY[]::text[]) THEN
    GRANT SELECT, INSERT ON snowflake_id.snowflake_registry_timeline TO pg_database_owner;
END IF;
END
$repair$;

-- src/sql/functions/snowflake_registry_layout_text.sql
-- Every SQL and PL/pgSQL function pins its search_path (1.5): names in a
-- body resolve through the caller's search_path otherwise, and a registry
-- role whose path starts with a schema another role can write to would run
-- that role's look-alike tables, functions and operators. pg_catalog comes
-- first, so that no look-alike of a built-in function or operator can win,
-- then the extension's own schema (fixed: the extension is not
-- relocatable), and pg_temp last, which is otherwise searched first for
-- tables and types. A SET clause keeps a SQL function from being inlined;
-- none of these is used where that matters.

-- A layout as the server's messages write it.
CREATE OR REPLACE FUNCTION snowflake_registry_layout_text(datacenter_bits integer, worker_bits integer,
                                               sequence_bits integer, epoch_ms bigint)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, @extschema@, pg_temp AS $$
    SELECT format('%s datacenter, %s worker and %s sequence bits from epoch %s',
                  datacenter_bits, worker_bits, sequence_bits,
                  to_char(to_timestamp(epoch_ms / 1000.0) AT TIME ZONE 'UTC',
                          'YYYY-MM-DD HH24:MI:SS.MS"Z"'))
$$;

-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_registry_layout_text']::text[], ARRAY['integer', 'integer', 'integer', 'bigint']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_registry_layout_text(integer, integer, integer, bigint) IS
'A layout as snowflake_id''s messages write it';
END IF;
END
$repair$;

-- src/sql/functions/snowflake_registry_holder_text.sql
-- A holder as the messages name it.
CREATE OR REPLACE FUNCTION snowflake_registry_holder_text(host text, port integer, data_directory text,
                                               system_id numeric)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, @extschema@, pg_temp AS $$
    SELECT format('%s:%s, data directory %s, system identifier %s', host, port,
                  data_directory, system_id)
$$;

-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_registry_holder_text']::text[], ARRAY['text', 'integer', 'text', 'numeric']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_registry_holder_text(text, integer, text, numeric) IS
'A lease holder as snowflake_id''s messages name it';
END IF;
END
$repair$;

-- src/sql/functions/snowflake_registry_refuse_old_server.sql
-- Leasing (1.5): a server's registry worker reads and writes the two tables
-- itself (1.5: in one transaction that locks snowflake_registry_lease in
-- SHARE ROW EXCLUSIVE mode; 1.6: reading without a lock and writing only
-- records still as read, which waits for that lock), and the rules (who may take a lease, the floor a new
-- holder starts above, the order ids are recycled in) are the library's,
-- once for every kind of registry. Servers before 1.5 called the four
-- functions below, which carried the rules in 1.3 and 1.4; they took the
-- same lock, so while the registry's extension is still at 1.4, old and new
-- servers lease side by side, one call at a time. Once the registry is at
-- 1.5, the functions only refuse, saying why: update the servers first and
-- the registry last, as
-- docs/reference.md, "Upgrading a fleet: servers first, the registry last"
-- tells.

-- Refuses a call from a server before 1.5, or of the 1.5.0-1 package,
-- which still leased through these functions (1.7 says so). 0A000 (feature_not_supported):
-- the registry no longer offers leasing through this function, and asking
-- again changes nothing until the server is updated; 55000 is what a lease
-- held by another server gets, which asking again can cure. A server
-- before 1.5 shows the message and DETAIL, not the HINT: the DETAIL says
-- what to do too.
CREATE OR REPLACE FUNCTION snowflake_registry_refuse_old_server(function_name text)
RETURNS void LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, @extschema@, pg_temp AS $$
DECLARE
    version text := (SELECT e.extversion FROM pg_extension e WHERE e.extname = 'snowflake_id');
BEGIN
    RAISE EXCEPTION 'this registry (snowflake_id %) no longer leases node ids through %()',
        version, function_name
        USING ERRCODE = '0A000',
              DETAIL = 'The server calling is of snowflake_id 1.4 or before, or of the 1.5 '
                       'of the 1.5.0-1 package; later servers lease through the registry''s '
                       'tables. Update snowflake_id on every server before the registry''s '
                       'extension.',
              HINT = 'Install the new snowflake_id on the server and restart it; update the '
                     'registry (ALTER EXTENSION snowflake_id UPDATE) only once every server '
                     'runs it.';
END
$$;

-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_registry_refuse_old_server']::text[], ARRAY['text']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_registry_refuse_old_server(text) IS
'Registry side: the refusal a server before 1.5 gets from the leasing functions it calls';
END IF;
END
$repair$;

-- src/sql/functions/snowflake_registry_acquire.sql
CREATE OR REPLACE FUNCTION snowflake_registry_acquire(
    requested_node integer, preferred_node integer, previous_fence bigint,
    system_id numeric, instance bigint, host text, port integer, data_directory text,
    timeline integer, datacenter_bits integer, worker_bits integer, sequence_bits integer,
    epoch_ms bigint, max_clock_drift_ms bigint, ttl_ms bigint, clock_ms bigint,
    OUT node_id integer, OUT fence bigint, OUT floor_ms bigint, OUT expires_at timestamptz)
RETURNS record LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, @extschema@, pg_temp AS $$
BEGIN
    PERFORM snowflake_registry_refuse_old_server('snowflake_registry_acquire');
END
$$;

-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_registry_acquire']::text[], ARRAY['integer', 'integer', 'bigint', 'numeric', 'bigint', 'text', 'integer', 'text', 'integer', 'integer', 'integer', 'integer', 'bigint', 'bigint', 'bigint', 'bigint']::text[],
       ARRAY['Registry side: lease a node id (a static one, or any free one for ''auto'') for one run of a server; returns the fence and the floor its IDs must start above']::text[]) THEN
COMMENT ON FUNCTION snowflake_registry_acquire(integer, integer, bigint, numeric, bigint, text, integer, text, integer, integer, integer, integer, bigint, bigint, bigint, bigint) IS
'Registry side, before 1.5: leased a node id; now refuses the server that calls it, which must be updated';
END IF;
END
$repair$;

-- Not for PUBLIC, as in 1.3 and 1.4, when these functions leased (a false
-- holder could take node ids away from live servers); they only refuse
-- now, and an install updated from 1.4 keeps the same privileges.
-- Only on an object the repair created: the privileges of one that
-- existed are the DBA's to keep.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_registry_acquire']::text[], ARRAY['integer', 'integer', 'bigint', 'numeric', 'bigint', 'text', 'integer', 'text', 'integer', 'integer', 'integer', 'integer', 'bigint', 'bigint', 'bigint', 'bigint']::text[]) THEN
    REVOKE ALL ON FUNCTION snowflake_registry_acquire(integer, integer, bigint, numeric, bigint, text, integer, text, integer, integer, integer, integer, bigint, bigint, bigint, bigint) FROM PUBLIC;
END IF;
END
$repair$;

-- src/sql/functions/snowflake_registry_renew.sql
CREATE OR REPLACE FUNCTION snowflake_registry_renew(node_id integer, fence bigint, instance bigint,
                                         reserved_until_ms bigint, ttl_ms bigint)
RETURNS timestamptz LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, @extschema@, pg_temp AS $$
BEGIN
    PERFORM snowflake_registry_refuse_old_server('snowflake_registry_renew');
    RETURN NULL;
END
$$;

-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_registry_renew']::text[], ARRAY['integer', 'bigint', 'bigint', 'bigint', 'bigint']::text[],
       ARRAY['Registry side: renew a lease held with this fence by this run of a server, recording the highest ID time it may issue before its next renewal']::text[]) THEN
COMMENT ON FUNCTION snowflake_registry_renew(integer, bigint, bigint, bigint, bigint) IS
'Registry side, before 1.5: renewed a lease; now refuses the server that calls it, which must be updated';
END IF;
END
$repair$;
-- Only on an object the repair created: the privileges of one that
-- existed are the DBA's to keep.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_registry_renew']::text[], ARRAY['integer', 'bigint', 'bigint', 'bigint', 'bigint']::text[]) THEN
    REVOKE ALL ON FUNCTION snowflake_registry_renew(integer, bigint, bigint, bigint, bigint) FROM PUBLIC;
END IF;
END
$repair$;

-- src/sql/functions/snowflake_registry_release.sql
CREATE OR REPLACE FUNCTION snowflake_registry_release(node_id integer, fence bigint, instance bigint,
                                           reserved_until_ms bigint)
RETURNS boolean LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, @extschema@, pg_temp AS $$
BEGIN
    PERFORM snowflake_registry_refuse_old_server('snowflake_registry_release');
    RETURN NULL;
END
$$;

-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_registry_release']::text[], ARRAY['integer', 'bigint', 'bigint', 'bigint']::text[],
       ARRAY['Registry side: give a lease back at a clean stop, recording the exact final bound',
       'Registry side: give a lease back at a clean stop, recording the final bound']::text[]) THEN
COMMENT ON FUNCTION snowflake_registry_release(integer, bigint, bigint, bigint) IS
'Registry side, before 1.5: gave a lease back; now refuses the server that calls it, which must be updated';
END IF;
END
$repair$;
-- Only on an object the repair created: the privileges of one that
-- existed are the DBA's to keep.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_registry_release']::text[], ARRAY['integer', 'bigint', 'bigint', 'bigint']::text[]) THEN
    REVOKE ALL ON FUNCTION snowflake_registry_release(integer, bigint, bigint, bigint) FROM PUBLIC;
END IF;
END
$repair$;

-- src/sql/functions/snowflake_registry_switch.sql
CREATE OR REPLACE FUNCTION snowflake_registry_switch(
    node_id integer, fence bigint, instance bigint, held_reserved_until_ms bigint,
    system_id numeric, host text, port integer, data_directory text, timeline integer,
    max_clock_drift_ms bigint, ttl_ms bigint, clock_ms bigint, reserved_until_ms bigint,
    OUT new_node_id integer, OUT new_fence bigint, OUT floor_ms bigint,
    OUT expires_at timestamptz)
RETURNS record LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, @extschema@, pg_temp AS $$
BEGIN
    PERFORM snowflake_registry_refuse_old_server('snowflake_registry_switch');
END
$$;

-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_registry_switch']::text[], ARRAY['integer', 'bigint', 'bigint', 'bigint', 'numeric', 'text', 'integer', 'text', 'integer', 'bigint', 'bigint', 'bigint', 'bigint']::text[],
       ARRAY['Registry side: give back a lease and lease another node id usable at the server''s clock, in one step (on_clock_step_back = ''switch_node'')']::text[]) THEN
COMMENT ON FUNCTION snowflake_registry_switch(integer, bigint, bigint, bigint, numeric, text, integer, text, integer, bigint, bigint, bigint, bigint) IS
'Registry side, before 1.5: switched a lease for another node id; now refuses the server that calls it, which must be updated';
END IF;
END
$repair$;
-- Only on an object the repair created: the privileges of one that
-- existed are the DBA's to keep.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_registry_switch']::text[], ARRAY['integer', 'bigint', 'bigint', 'bigint', 'numeric', 'text', 'integer', 'text', 'integer', 'bigint', 'bigint', 'bigint', 'bigint']::text[]) THEN
    REVOKE ALL ON FUNCTION snowflake_registry_switch(integer, bigint, bigint, bigint, numeric, text, integer, text, integer, bigint, bigint, bigint, bigint) FROM PUBLIC;
END IF;
END
$repair$;

-- src/sql/views/snowflake_registry_leases.sql
-- Every lease, for the DBA.
CREATE OR REPLACE VIEW snowflake_id.snowflake_registry_leases AS
SELECT l.node_id,
       l.node_id >> c.worker_bits AS datacenter_id,
       l.node_id & ((1 << c.worker_bits) - 1) AS worker_id,
       CASE WHEN l.released_at IS NOT NULL THEN 'released'
            WHEN l.expires_at > clock_timestamp() THEN 'live'
            ELSE 'expired' END AS state,
       snowflake_registry_holder_text(l.holder_host, l.holder_port, l.holder_data_directory,
                                      l.holder_system_id) AS holder,
       l.holder_timeline,
       l.fence,
       l.acquired_at, l.renewed_at, l.expires_at, l.released_at,
       to_timestamp(l.reserved_until_ms / 1000.0) AS reserved_until,
       snowflake_registry_layout_text(c.datacenter_bits, c.worker_bits, c.sequence_bits,
                                      c.epoch_ms) AS layout
FROM snowflake_id.snowflake_registry_lease l CROSS JOIN snowflake_id.snowflake_registry_layout c;

-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('view', ARRAY['snowflake_id', 'snowflake_registry_leases']::text[], ARRAY[]::text[],
       '{}'::text[]) THEN
COMMENT ON VIEW snowflake_id.snowflake_registry_leases IS
'Registry side: every node id lease, its holder, expiry and recorded bound';
END IF;
END
$repair$;

-- src/sql/types/snowflake.sql
-- The snowflake column type (1.4): a bigint's 8 bytes, passed by value, the
-- same bits and text as the bigint, but written into JSON as a string, so
-- that IDs above 2^53 survive JavaScript (PostgreSQL writes numbers only
-- for its own numeric types, and any other type through its output
-- function, quoted). Comparison, hashing, output and binary send are
-- bigint's own internal functions; the input (text and binary) and the
-- casts from integers refuse negative values.
-- Created if missing; an existing type of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE TYPE snowflake;
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('type', ARRAY[NULL, 'snowflake']::text[], ARRAY[]::text[]);
END
$repair$;

CREATE OR REPLACE FUNCTION snowflake_in(cstring) RETURNS snowflake
AS 'MODULE_PATHNAME', 'snowflake_type_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION snowflake_out(snowflake) RETURNS cstring
AS 'int8out' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION snowflake_recv(internal) RETURNS snowflake
AS 'MODULE_PATHNAME', 'snowflake_type_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION snowflake_send(snowflake) RETURNS bytea
AS 'int8send' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;

-- Created if missing; an existing type of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE TYPE snowflake (
        INPUT = snowflake_in, OUTPUT = snowflake_out,
        RECEIVE = snowflake_recv, SEND = snowflake_send,
        INTERNALLENGTH = 8, PASSEDBYVALUE, ALIGNMENT = double, STORAGE = plain
    );
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('type', ARRAY[NULL, 'snowflake']::text[], ARRAY[]::text[]);
END
$repair$;

-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('type', ARRAY[NULL, 'snowflake']::text[], ARRAY[]::text[],
       '{}'::text[]) THEN
COMMENT ON TYPE snowflake IS
'A Snowflake ID: a non-negative bigint that JSON writes as a string';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_in']::text[], ARRAY['cstring']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_in(cstring) IS 'Text input of the snowflake type: decimal digits, no negative value';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_out']::text[], ARRAY['snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_out(snowflake) IS 'Text output of the snowflake type: bigint''s';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_recv']::text[], ARRAY['internal']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_recv(internal) IS 'Binary input of the snowflake type: bigint''s, no negative value';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_send']::text[], ARRAY['snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_send(snowflake) IS 'Binary output of the snowflake type: bigint''s';
END IF;
END
$repair$;

-- src/sql/types/snowflake_bigint.sql
-- Casts. To bigint: implicit and binary (the same bits), so every function
-- taking a bigint takes a snowflake, and a column changed back to bigint
-- is not rewritten. From bigint and integer: on assignment, checked, so
-- DEFAULT snowflake_nextval() and INSERT ... VALUES (42) work, and no
-- negative value gets in.
-- Created if missing; an existing cast of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE CAST (snowflake AS bigint) WITHOUT FUNCTION AS IMPLICIT;
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('cast', ARRAY['snowflake']::text[], ARRAY['bigint']::text[]);
END
$repair$;

CREATE OR REPLACE FUNCTION snowflake(bigint) RETURNS snowflake
AS 'MODULE_PATHNAME', 'snowflake_type_from_bigint' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
-- Created if missing; an existing cast of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE CAST (bigint AS snowflake) WITH FUNCTION snowflake(bigint) AS ASSIGNMENT;
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('cast', ARRAY['bigint']::text[], ARRAY['snowflake']::text[]);
END
$repair$;

CREATE OR REPLACE FUNCTION snowflake_eq(snowflake, bigint) RETURNS boolean
AS 'int8eq' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_ne(snowflake, bigint) RETURNS boolean
AS 'int8ne' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_lt(snowflake, bigint) RETURNS boolean
AS 'int8lt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_le(snowflake, bigint) RETURNS boolean
AS 'int8le' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_gt(snowflake, bigint) RETURNS boolean
AS 'int8gt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_ge(snowflake, bigint) RETURNS boolean
AS 'int8ge' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_cmp(snowflake, bigint) RETURNS integer
AS 'btint8cmp' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OR REPLACE FUNCTION snowflake_eq(bigint, snowflake) RETURNS boolean
AS 'int8eq' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_ne(bigint, snowflake) RETURNS boolean
AS 'int8ne' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_lt(bigint, snowflake) RETURNS boolean
AS 'int8lt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_le(bigint, snowflake) RETURNS boolean
AS 'int8le' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_gt(bigint, snowflake) RETURNS boolean
AS 'int8gt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_ge(bigint, snowflake) RETURNS boolean
AS 'int8ge' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_cmp(bigint, snowflake) RETURNS integer
AS 'btint8cmp' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR = (LEFTARG = snowflake, RIGHTARG = bigint, FUNCTION = snowflake_eq, COMMUTATOR = =,
                       NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '=']::text[], ARRAY['snowflake', 'bigint']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR <> (LEFTARG = snowflake, RIGHTARG = bigint, FUNCTION = snowflake_ne, COMMUTATOR = <>,
                        NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '<>']::text[], ARRAY['snowflake', 'bigint']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR < (LEFTARG = snowflake, RIGHTARG = bigint, FUNCTION = snowflake_lt, COMMUTATOR = >,
                       NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '<']::text[], ARRAY['snowflake', 'bigint']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR <= (LEFTARG = snowflake, RIGHTARG = bigint, FUNCTION = snowflake_le, COMMUTATOR = >=,
                        NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '<=']::text[], ARRAY['snowflake', 'bigint']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR > (LEFTARG = snowflake, RIGHTARG = bigint, FUNCTION = snowflake_gt, COMMUTATOR = <,
                       NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '>']::text[], ARRAY['snowflake', 'bigint']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR >= (LEFTARG = snowflake, RIGHTARG = bigint, FUNCTION = snowflake_ge, COMMUTATOR = <=,
                        NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '>=']::text[], ARRAY['snowflake', 'bigint']::text[]);
END
$repair$;

-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR = (LEFTARG = bigint, RIGHTARG = snowflake, FUNCTION = snowflake_eq, COMMUTATOR = =,
                       NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '=']::text[], ARRAY['bigint', 'snowflake']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR <> (LEFTARG = bigint, RIGHTARG = snowflake, FUNCTION = snowflake_ne, COMMUTATOR = <>,
                        NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '<>']::text[], ARRAY['bigint', 'snowflake']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR < (LEFTARG = bigint, RIGHTARG = snowflake, FUNCTION = snowflake_lt, COMMUTATOR = >,
                       NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '<']::text[], ARRAY['bigint', 'snowflake']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR <= (LEFTARG = bigint, RIGHTARG = snowflake, FUNCTION = snowflake_le, COMMUTATOR = >=,
                        NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '<=']::text[], ARRAY['bigint', 'snowflake']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR > (LEFTARG = bigint, RIGHTARG = snowflake, FUNCTION = snowflake_gt, COMMUTATOR = <,
                       NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '>']::text[], ARRAY['bigint', 'snowflake']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR >= (LEFTARG = bigint, RIGHTARG = snowflake, FUNCTION = snowflake_ge, COMMUTATOR = <=,
                        NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '>=']::text[], ARRAY['bigint', 'snowflake']::text[]);
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_eq']::text[], ARRAY['snowflake', 'bigint']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_eq(snowflake, bigint) IS 'snowflake = bigint, by bigint''s int8eq';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_ne']::text[], ARRAY['snowflake', 'bigint']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_ne(snowflake, bigint) IS 'snowflake <> bigint, by bigint''s int8ne';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_lt']::text[], ARRAY['snowflake', 'bigint']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_lt(snowflake, bigint) IS 'snowflake < bigint, by bigint''s int8lt';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_le']::text[], ARRAY['snowflake', 'bigint']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_le(snowflake, bigint) IS 'snowflake <= bigint, by bigint''s int8le';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_gt']::text[], ARRAY['snowflake', 'bigint']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_gt(snowflake, bigint) IS 'snowflake > bigint, by bigint''s int8gt';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_ge']::text[], ARRAY['snowflake', 'bigint']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_ge(snowflake, bigint) IS 'snowflake >= bigint, by bigint''s int8ge';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_cmp']::text[], ARRAY['snowflake', 'bigint']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_cmp(snowflake, bigint) IS 'Comparison support for the btree family: snowflake against bigint, by bigint''s btint8cmp';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_eq']::text[], ARRAY['bigint', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_eq(bigint, snowflake) IS 'bigint = snowflake, by bigint''s int8eq';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_ne']::text[], ARRAY['bigint', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_ne(bigint, snowflake) IS 'bigint <> snowflake, by bigint''s int8ne';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_lt']::text[], ARRAY['bigint', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_lt(bigint, snowflake) IS 'bigint < snowflake, by bigint''s int8lt';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_le']::text[], ARRAY['bigint', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_le(bigint, snowflake) IS 'bigint <= snowflake, by bigint''s int8le';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_gt']::text[], ARRAY['bigint', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_gt(bigint, snowflake) IS 'bigint > snowflake, by bigint''s int8gt';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_ge']::text[], ARRAY['bigint', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_ge(bigint, snowflake) IS 'bigint >= snowflake, by bigint''s int8ge';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_cmp']::text[], ARRAY['bigint', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_cmp(bigint, snowflake) IS 'Comparison support for the btree family: bigint against snowflake, by bigint''s btint8cmp';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake']::text[], ARRAY['bigint']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake(bigint) IS 'The assignment cast from bigint: refuses a negative value';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('cast', ARRAY['snowflake']::text[], ARRAY['bigint']::text[],
       '{}'::text[]) THEN
COMMENT ON CAST (snowflake AS bigint) IS
'Implicit and binary: the same bits, so every function and operator that takes a bigint takes a snowflake';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('cast', ARRAY['bigint']::text[], ARRAY['snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON CAST (bigint AS snowflake) IS
'On assignment, by snowflake(bigint): DEFAULT snowflake_nextval() and bigint values go into a snowflake column, a negative value is refused';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '=']::text[], ARRAY['snowflake', 'bigint']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR = (snowflake, bigint) IS 'Equal, compared as bigints; an index on a snowflake column serves it';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '<>']::text[], ARRAY['snowflake', 'bigint']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR <> (snowflake, bigint) IS 'Not equal, compared as bigints';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '<']::text[], ARRAY['snowflake', 'bigint']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR < (snowflake, bigint) IS 'Less than, compared as bigints; an index on a snowflake column serves it';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '<=']::text[], ARRAY['snowflake', 'bigint']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR <= (snowflake, bigint) IS 'Less than or equal, compared as bigints; an index on a snowflake column serves it';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '>']::text[], ARRAY['snowflake', 'bigint']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR > (snowflake, bigint) IS 'Greater than, compared as bigints; an index on a snowflake column serves it';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '>=']::text[], ARRAY['snowflake', 'bigint']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR >= (snowflake, bigint) IS 'Greater than or equal, compared as bigints; an index on a snowflake column serves it';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '=']::text[], ARRAY['bigint', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR = (bigint, snowflake) IS 'Equal, compared as bigints; an index on a snowflake column serves it';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '<>']::text[], ARRAY['bigint', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR <> (bigint, snowflake) IS 'Not equal, compared as bigints';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '<']::text[], ARRAY['bigint', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR < (bigint, snowflake) IS 'Less than, compared as bigints; an index on a snowflake column serves it';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '<=']::text[], ARRAY['bigint', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR <= (bigint, snowflake) IS 'Less than or equal, compared as bigints; an index on a snowflake column serves it';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '>']::text[], ARRAY['bigint', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR > (bigint, snowflake) IS 'Greater than, compared as bigints; an index on a snowflake column serves it';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '>=']::text[], ARRAY['bigint', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR >= (bigint, snowflake) IS 'Greater than or equal, compared as bigints; an index on a snowflake column serves it';
END IF;
END
$repair$;

-- src/sql/types/snowflake_integer.sql
CREATE OR REPLACE FUNCTION snowflake(integer) RETURNS snowflake
AS 'MODULE_PATHNAME', 'snowflake_type_from_integer' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
-- Created if missing; an existing cast of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE CAST (integer AS snowflake) WITH FUNCTION snowflake(integer) AS ASSIGNMENT;
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('cast', ARRAY['integer']::text[], ARRAY['snowflake']::text[]);
END
$repair$;

-- With integer too: WHERE id = 42 would otherwise be ambiguous between
-- snowflake = bigint and bigint = integer.
CREATE OR REPLACE FUNCTION snowflake_eq(snowflake, integer) RETURNS boolean
AS 'int84eq' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_ne(snowflake, integer) RETURNS boolean
AS 'int84ne' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_lt(snowflake, integer) RETURNS boolean
AS 'int84lt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_le(snowflake, integer) RETURNS boolean
AS 'int84le' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_gt(snowflake, integer) RETURNS boolean
AS 'int84gt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_ge(snowflake, integer) RETURNS boolean
AS 'int84ge' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_cmp(snowflake, integer) RETURNS integer
AS 'btint84cmp' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OR REPLACE FUNCTION snowflake_eq(integer, snowflake) RETURNS boolean
AS 'int48eq' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_ne(integer, snowflake) RETURNS boolean
AS 'int48ne' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_lt(integer, snowflake) RETURNS boolean
AS 'int48lt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_le(integer, snowflake) RETURNS boolean
AS 'int48le' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_gt(integer, snowflake) RETURNS boolean
AS 'int48gt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_ge(integer, snowflake) RETURNS boolean
AS 'int48ge' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_cmp(integer, snowflake) RETURNS integer
AS 'btint48cmp' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR = (LEFTARG = snowflake, RIGHTARG = integer, FUNCTION = snowflake_eq, COMMUTATOR = =,
                       NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '=']::text[], ARRAY['snowflake', 'integer']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR <> (LEFTARG = snowflake, RIGHTARG = integer, FUNCTION = snowflake_ne, COMMUTATOR = <>,
                        NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '<>']::text[], ARRAY['snowflake', 'integer']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR < (LEFTARG = snowflake, RIGHTARG = integer, FUNCTION = snowflake_lt, COMMUTATOR = >,
                       NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '<']::text[], ARRAY['snowflake', 'integer']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR <= (LEFTARG = snowflake, RIGHTARG = integer, FUNCTION = snowflake_le, COMMUTATOR = >=,
                        NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '<=']::text[], ARRAY['snowflake', 'integer']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR > (LEFTARG = snowflake, RIGHTARG = integer, FUNCTION = snowflake_gt, COMMUTATOR = <,
                       NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '>']::text[], ARRAY['snowflake', 'integer']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR >= (LEFTARG = snowflake, RIGHTARG = integer, FUNCTION = snowflake_ge, COMMUTATOR = <=,
                        NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '>=']::text[], ARRAY['snowflake', 'integer']::text[]);
END
$repair$;

-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR = (LEFTARG = integer, RIGHTARG = snowflake, FUNCTION = snowflake_eq, COMMUTATOR = =,
                       NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '=']::text[], ARRAY['integer', 'snowflake']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR <> (LEFTARG = integer, RIGHTARG = snowflake, FUNCTION = snowflake_ne, COMMUTATOR = <>,
                        NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '<>']::text[], ARRAY['integer', 'snowflake']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR < (LEFTARG = integer, RIGHTARG = snowflake, FUNCTION = snowflake_lt, COMMUTATOR = >,
                       NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '<']::text[], ARRAY['integer', 'snowflake']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR <= (LEFTARG = integer, RIGHTARG = snowflake, FUNCTION = snowflake_le, COMMUTATOR = >=,
                        NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '<=']::text[], ARRAY['integer', 'snowflake']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR > (LEFTARG = integer, RIGHTARG = snowflake, FUNCTION = snowflake_gt, COMMUTATOR = <,
                       NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '>']::text[], ARRAY['integer', 'snowflake']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR >= (LEFTARG = integer, RIGHTARG = snowflake, FUNCTION = snowflake_ge, COMMUTATOR = <=,
                        NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '>=']::text[], ARRAY['integer', 'snowflake']::text[]);
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_eq']::text[], ARRAY['snowflake', 'integer']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_eq(snowflake, integer) IS 'snowflake = integer, by bigint''s int84eq';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_ne']::text[], ARRAY['snowflake', 'integer']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_ne(snowflake, integer) IS 'snowflake <> integer, by bigint''s int84ne';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_lt']::text[], ARRAY['snowflake', 'integer']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_lt(snowflake, integer) IS 'snowflake < integer, by bigint''s int84lt';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_le']::text[], ARRAY['snowflake', 'integer']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_le(snowflake, integer) IS 'snowflake <= integer, by bigint''s int84le';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_gt']::text[], ARRAY['snowflake', 'integer']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_gt(snowflake, integer) IS 'snowflake > integer, by bigint''s int84gt';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_ge']::text[], ARRAY['snowflake', 'integer']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_ge(snowflake, integer) IS 'snowflake >= integer, by bigint''s int84ge';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_cmp']::text[], ARRAY['snowflake', 'integer']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_cmp(snowflake, integer) IS 'Comparison support for the btree family: snowflake against integer, by bigint''s btint84cmp';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_eq']::text[], ARRAY['integer', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_eq(integer, snowflake) IS 'integer = snowflake, by bigint''s int48eq';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_ne']::text[], ARRAY['integer', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_ne(integer, snowflake) IS 'integer <> snowflake, by bigint''s int48ne';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_lt']::text[], ARRAY['integer', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_lt(integer, snowflake) IS 'integer < snowflake, by bigint''s int48lt';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_le']::text[], ARRAY['integer', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_le(integer, snowflake) IS 'integer <= snowflake, by bigint''s int48le';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_gt']::text[], ARRAY['integer', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_gt(integer, snowflake) IS 'integer > snowflake, by bigint''s int48gt';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_ge']::text[], ARRAY['integer', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_ge(integer, snowflake) IS 'integer >= snowflake, by bigint''s int48ge';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_cmp']::text[], ARRAY['integer', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_cmp(integer, snowflake) IS 'Comparison support for the btree family: integer against snowflake, by bigint''s btint48cmp';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake']::text[], ARRAY['integer']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake(integer) IS 'The assignment cast from integer: refuses a negative value';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('cast', ARRAY['integer']::text[], ARRAY['snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON CAST (integer AS snowflake) IS
'On assignment, by snowflake(integer): INSERT ... VALUES (42) works, a negative value is refused';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '=']::text[], ARRAY['snowflake', 'integer']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR = (snowflake, integer) IS 'Equal, compared as bigints; an index on a snowflake column serves it';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '<>']::text[], ARRAY['snowflake', 'integer']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR <> (snowflake, integer) IS 'Not equal, compared as bigints';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '<']::text[], ARRAY['snowflake', 'integer']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR < (snowflake, integer) IS 'Less than, compared as bigints; an index on a snowflake column serves it';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '<=']::text[], ARRAY['snowflake', 'integer']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR <= (snowflake, integer) IS 'Less than or equal, compared as bigints; an index on a snowflake column serves it';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '>']::text[], ARRAY['snowflake', 'integer']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR > (snowflake, integer) IS 'Greater than, compared as bigints; an index on a snowflake column serves it';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '>=']::text[], ARRAY['snowflake', 'integer']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR >= (snowflake, integer) IS 'Greater than or equal, compared as bigints; an index on a snowflake column serves it';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '=']::text[], ARRAY['integer', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR = (integer, snowflake) IS 'Equal, compared as bigints; an index on a snowflake column serves it';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '<>']::text[], ARRAY['integer', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR <> (integer, snowflake) IS 'Not equal, compared as bigints';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '<']::text[], ARRAY['integer', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR < (integer, snowflake) IS 'Less than, compared as bigints; an index on a snowflake column serves it';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '<=']::text[], ARRAY['integer', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR <= (integer, snowflake) IS 'Less than or equal, compared as bigints; an index on a snowflake column serves it';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '>']::text[], ARRAY['integer', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR > (integer, snowflake) IS 'Greater than, compared as bigints; an index on a snowflake column serves it';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '>=']::text[], ARRAY['integer', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR >= (integer, snowflake) IS 'Greater than or equal, compared as bigints; an index on a snowflake column serves it';
END IF;
END
$repair$;

-- src/sql/types/snowflake_snowflake.sql
-- Comparisons: snowflake with snowflake, and with bigint or integer on
-- either side, bigint's functions all (the bits are the same). LEAKPROOF as
-- bigint's.
CREATE OR REPLACE FUNCTION snowflake_eq(snowflake, snowflake) RETURNS boolean
AS 'int8eq' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_ne(snowflake, snowflake) RETURNS boolean
AS 'int8ne' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_lt(snowflake, snowflake) RETURNS boolean
AS 'int8lt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_le(snowflake, snowflake) RETURNS boolean
AS 'int8le' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_gt(snowflake, snowflake) RETURNS boolean
AS 'int8gt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_ge(snowflake, snowflake) RETURNS boolean
AS 'int8ge' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_cmp(snowflake, snowflake) RETURNS integer
AS 'btint8cmp' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OR REPLACE FUNCTION snowflake_hash(snowflake) RETURNS integer
AS 'hashint8' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_hash_extended(snowflake, bigint) RETURNS bigint
AS 'hashint8extended' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR = (LEFTARG = snowflake, RIGHTARG = snowflake, FUNCTION = snowflake_eq, COMMUTATOR = =,
                       NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '=']::text[], ARRAY['snowflake', 'snowflake']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR <> (LEFTARG = snowflake, RIGHTARG = snowflake, FUNCTION = snowflake_ne, COMMUTATOR = <>,
                        NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '<>']::text[], ARRAY['snowflake', 'snowflake']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR < (LEFTARG = snowflake, RIGHTARG = snowflake, FUNCTION = snowflake_lt, COMMUTATOR = >,
                       NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '<']::text[], ARRAY['snowflake', 'snowflake']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR <= (LEFTARG = snowflake, RIGHTARG = snowflake, FUNCTION = snowflake_le, COMMUTATOR = >=,
                        NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '<=']::text[], ARRAY['snowflake', 'snowflake']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR > (LEFTARG = snowflake, RIGHTARG = snowflake, FUNCTION = snowflake_gt, COMMUTATOR = <,
                       NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '>']::text[], ARRAY['snowflake', 'snowflake']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR >= (LEFTARG = snowflake, RIGHTARG = snowflake, FUNCTION = snowflake_ge, COMMUTATOR = <=,
                        NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '>=']::text[], ARRAY['snowflake', 'snowflake']::text[]);
END
$repair$;

-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_eq']::text[], ARRAY['snowflake', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_eq(snowflake, snowflake) IS 'snowflake = snowflake, by bigint''s int8eq';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_ne']::text[], ARRAY['snowflake', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_ne(snowflake, snowflake) IS 'snowflake <> snowflake, by bigint''s int8ne';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_lt']::text[], ARRAY['snowflake', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_lt(snowflake, snowflake) IS 'snowflake < snowflake, by bigint''s int8lt';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_le']::text[], ARRAY['snowflake', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_le(snowflake, snowflake) IS 'snowflake <= snowflake, by bigint''s int8le';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_gt']::text[], ARRAY['snowflake', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_gt(snowflake, snowflake) IS 'snowflake > snowflake, by bigint''s int8gt';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_ge']::text[], ARRAY['snowflake', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_ge(snowflake, snowflake) IS 'snowflake >= snowflake, by bigint''s int8ge';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_cmp']::text[], ARRAY['snowflake', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_cmp(snowflake, snowflake) IS 'Comparison support for the btree family: snowflake against snowflake, by bigint''s btint8cmp';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_hash']::text[], ARRAY['snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_hash(snowflake) IS 'Hash support: bigint''s hashint8';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_hash_extended']::text[], ARRAY['snowflake', 'bigint']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_hash_extended(snowflake, bigint) IS 'Hash support: bigint''s hashint8extended';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '=']::text[], ARRAY['snowflake', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR = (snowflake, snowflake) IS 'Equal, compared as bigints; an index on a snowflake column serves it';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '<>']::text[], ARRAY['snowflake', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR <> (snowflake, snowflake) IS 'Not equal, compared as bigints';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '<']::text[], ARRAY['snowflake', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR < (snowflake, snowflake) IS 'Less than, compared as bigints; an index on a snowflake column serves it';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '<=']::text[], ARRAY['snowflake', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR <= (snowflake, snowflake) IS 'Less than or equal, compared as bigints; an index on a snowflake column serves it';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '>']::text[], ARRAY['snowflake', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR > (snowflake, snowflake) IS 'Greater than, compared as bigints; an index on a snowflake column serves it';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '>=']::text[], ARRAY['snowflake', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR >= (snowflake, snowflake) IS 'Greater than or equal, compared as bigints; an index on a snowflake column serves it';
END IF;
END
$repair$;

-- src/sql/types/snowflake_numeric.sql
-- With numeric (1.5): the casts and comparisons bigint has, for drivers that
-- send a Decimal or BigDecimal ID (psycopg, pgjdbc's setBigDecimal) and for
-- id::numeric. Not bigint's implicit cast to numeric: with two implicit
-- casts to numeric types, id + id, sum(id), max(id) and abs(id) would be
-- ambiguous. So the casts are on assignment (INSERT and UPDATE of a
-- Decimal, id::numeric), and the comparisons are operators of their own,
-- comparing exactly in numeric as bigint does (id = 5.5 is false). They
-- join no operator family, as bigint = numeric joins none: an index on a
-- snowflake column serves id = 5.0::numeric no more than one on a bigint.
-- The cast from numeric refuses a fraction where bigint's rounds: a
-- rounded ID names another row.
CREATE OR REPLACE FUNCTION snowflake(numeric) RETURNS snowflake
AS 'MODULE_PATHNAME', 'snowflake_type_from_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
-- Created if missing; an existing cast of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE CAST (numeric AS snowflake) WITH FUNCTION snowflake(numeric) AS ASSIGNMENT;
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('cast', ARRAY['numeric']::text[], ARRAY['snowflake']::text[]);
END
$repair$;
CREATE OR REPLACE FUNCTION snowflake_numeric(snowflake) RETURNS numeric
AS 'int8_numeric' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
-- Created if missing; an existing cast of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE CAST (snowflake AS numeric) WITH FUNCTION snowflake_numeric(snowflake) AS ASSIGNMENT;
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('cast', ARRAY['snowflake']::text[], ARRAY['numeric']::text[]);
END
$repair$;

CREATE OR REPLACE FUNCTION snowflake_eq(snowflake, numeric) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_type_eq_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION snowflake_ne(snowflake, numeric) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_type_ne_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION snowflake_lt(snowflake, numeric) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_type_lt_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION snowflake_le(snowflake, numeric) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_type_le_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION snowflake_gt(snowflake, numeric) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_type_gt_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION snowflake_ge(snowflake, numeric) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_type_ge_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION snowflake_eq(numeric, snowflake) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_type_numeric_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION snowflake_ne(numeric, snowflake) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_type_numeric_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION snowflake_lt(numeric, snowflake) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_type_numeric_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION snowflake_le(numeric, snowflake) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_type_numeric_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION snowflake_gt(numeric, snowflake) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_type_numeric_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION snowflake_ge(numeric, snowflake) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_type_numeric_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR = (LEFTARG = snowflake, RIGHTARG = numeric, FUNCTION = snowflake_eq, COMMUTATOR = =,
                       NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '=']::text[], ARRAY['snowflake', 'numeric']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR <> (LEFTARG = snowflake, RIGHTARG = numeric, FUNCTION = snowflake_ne, COMMUTATOR = <>,
                        NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '<>']::text[], ARRAY['snowflake', 'numeric']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR < (LEFTARG = snowflake, RIGHTARG = numeric, FUNCTION = snowflake_lt, COMMUTATOR = >,
                       NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '<']::text[], ARRAY['snowflake', 'numeric']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR <= (LEFTARG = snowflake, RIGHTARG = numeric, FUNCTION = snowflake_le, COMMUTATOR = >=,
                        NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '<=']::text[], ARRAY['snowflake', 'numeric']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR > (LEFTARG = snowflake, RIGHTARG = numeric, FUNCTION = snowflake_gt, COMMUTATOR = <,
                       NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '>']::text[], ARRAY['snowflake', 'numeric']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR >= (LEFTARG = snowflake, RIGHTARG = numeric, FUNCTION = snowflake_ge, COMMUTATOR = <=,
                        NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '>=']::text[], ARRAY['snowflake', 'numeric']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR = (LEFTARG = numeric, RIGHTARG = snowflake, FUNCTION = snowflake_eq, COMMUTATOR = =,
                       NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '=']::text[], ARRAY['numeric', 'snowflake']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR <> (LEFTARG = numeric, RIGHTARG = snowflake, FUNCTION = snowflake_ne, COMMUTATOR = <>,
                        NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '<>']::text[], ARRAY['numeric', 'snowflake']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR < (LEFTARG = numeric, RIGHTARG = snowflake, FUNCTION = snowflake_lt, COMMUTATOR = >,
                       NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '<']::text[], ARRAY['numeric', 'snowflake']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR <= (LEFTARG = numeric, RIGHTARG = snowflake, FUNCTION = snowflake_le, COMMUTATOR = >=,
                        NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '<=']::text[], ARRAY['numeric', 'snowflake']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR > (LEFTARG = numeric, RIGHTARG = snowflake, FUNCTION = snowflake_gt, COMMUTATOR = <,
                       NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '>']::text[], ARRAY['numeric', 'snowflake']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR >= (LEFTARG = numeric, RIGHTARG = snowflake, FUNCTION = snowflake_ge, COMMUTATOR = <=,
                        NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '>=']::text[], ARRAY['numeric', 'snowflake']::text[]);
END
$repair$;

-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake']::text[], ARRAY['numeric']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake(numeric) IS 'The assignment cast from numeric: refuses a fraction, a negative value, NaN and infinity, rounds nothing';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_numeric']::text[], ARRAY['snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_numeric(snowflake) IS 'The assignment cast to numeric: bigint''s int8_numeric';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_eq']::text[], ARRAY['snowflake', 'numeric']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_eq(snowflake, numeric) IS 'snowflake = numeric, compared in numeric as bigint = numeric';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_ne']::text[], ARRAY['snowflake', 'numeric']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_ne(snowflake, numeric) IS 'snowflake <> numeric, compared in numeric as bigint <> numeric';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_lt']::text[], ARRAY['snowflake', 'numeric']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_lt(snowflake, numeric) IS 'snowflake < numeric, compared in numeric as bigint < numeric';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_le']::text[], ARRAY['snowflake', 'numeric']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_le(snowflake, numeric) IS 'snowflake <= numeric, compared in numeric as bigint <= numeric';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_gt']::text[], ARRAY['snowflake', 'numeric']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_gt(snowflake, numeric) IS 'snowflake > numeric, compared in numeric as bigint > numeric';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_ge']::text[], ARRAY['snowflake', 'numeric']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_ge(snowflake, numeric) IS 'snowflake >= numeric, compared in numeric as bigint >= numeric';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_eq']::text[], ARRAY['numeric', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_eq(numeric, snowflake) IS 'numeric = snowflake, compared in numeric as numeric = bigint';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_ne']::text[], ARRAY['numeric', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_ne(numeric, snowflake) IS 'numeric <> snowflake, compared in numeric as numeric <> bigint';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_lt']::text[], ARRAY['numeric', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_lt(numeric, snowflake) IS 'numeric < snowflake, compared in numeric as numeric < bigint';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_le']::text[], ARRAY['numeric', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_le(numeric, snowflake) IS 'numeric <= snowflake, compared in numeric as numeric <= bigint';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_gt']::text[], ARRAY['numeric', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_gt(numeric, snowflake) IS 'numeric > snowflake, compared in numeric as numeric > bigint';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_ge']::text[], ARRAY['numeric', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_ge(numeric, snowflake) IS 'numeric >= snowflake, compared in numeric as numeric >= bigint';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('cast', ARRAY['numeric']::text[], ARRAY['snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON CAST (numeric AS snowflake) IS
'On assignment, by snowflake(numeric): a driver''s Decimal goes into a snowflake column; a fraction, a negative value, NaN and infinity are refused, nothing is rounded';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('cast', ARRAY['snowflake']::text[], ARRAY['numeric']::text[],
       '{}'::text[]) THEN
COMMENT ON CAST (snowflake AS numeric) IS
'On assignment, by snowflake_numeric(snowflake): id::numeric; not implicit, which would make id + id and sum(id) ambiguous';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '=']::text[], ARRAY['snowflake', 'numeric']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR = (snowflake, numeric) IS 'Equal, compared exactly in numeric (id = 5.5 is false); no index serves it, as none serves bigint = numeric';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '<>']::text[], ARRAY['snowflake', 'numeric']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR <> (snowflake, numeric) IS 'Not equal, compared exactly in numeric';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '<']::text[], ARRAY['snowflake', 'numeric']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR < (snowflake, numeric) IS 'Less than, compared exactly in numeric; no index serves it, as none serves bigint < numeric';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '<=']::text[], ARRAY['snowflake', 'numeric']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR <= (snowflake, numeric) IS 'Less than or equal, compared exactly in numeric; no index serves it, as none serves bigint <= numeric';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '>']::text[], ARRAY['snowflake', 'numeric']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR > (snowflake, numeric) IS 'Greater than, compared exactly in numeric; no index serves it, as none serves bigint > numeric';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '>=']::text[], ARRAY['snowflake', 'numeric']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR >= (snowflake, numeric) IS 'Greater than or equal, compared exactly in numeric; no index serves it, as none serves bigint >= numeric';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '=']::text[], ARRAY['numeric', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR = (numeric, snowflake) IS 'Equal, compared exactly in numeric (id = 5.5 is false); no index serves it, as none serves bigint = numeric';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '<>']::text[], ARRAY['numeric', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR <> (numeric, snowflake) IS 'Not equal, compared exactly in numeric';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '<']::text[], ARRAY['numeric', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR < (numeric, snowflake) IS 'Less than, compared exactly in numeric; no index serves it, as none serves bigint < numeric';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '<=']::text[], ARRAY['numeric', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR <= (numeric, snowflake) IS 'Less than or equal, compared exactly in numeric; no index serves it, as none serves bigint <= numeric';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '>']::text[], ARRAY['numeric', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR > (numeric, snowflake) IS 'Greater than, compared exactly in numeric; no index serves it, as none serves bigint > numeric';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '>=']::text[], ARRAY['numeric', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR >= (numeric, snowflake) IS 'Greater than or equal, compared exactly in numeric; no index serves it, as none serves bigint >= numeric';
END IF;
END
$repair$;

-- src/sql/types/snowflake_smallint.sql
-- With smallint (1.5): psycopg 3 sends a Python int below 32768 as a
-- smallint, and snowflake = smallint was ambiguous between the bigint and
-- the integer operators. bigint's own cross-type functions, as for integer;
-- the cast refuses a negative value as the others do.
CREATE OR REPLACE FUNCTION snowflake(smallint) RETURNS snowflake
AS 'MODULE_PATHNAME', 'snowflake_type_from_smallint' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
-- Created if missing; an existing cast of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE CAST (smallint AS snowflake) WITH FUNCTION snowflake(smallint) AS ASSIGNMENT;
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('cast', ARRAY['smallint']::text[], ARRAY['snowflake']::text[]);
END
$repair$;

CREATE OR REPLACE FUNCTION snowflake_eq(snowflake, smallint) RETURNS boolean
AS 'int82eq' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_ne(snowflake, smallint) RETURNS boolean
AS 'int82ne' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_lt(snowflake, smallint) RETURNS boolean
AS 'int82lt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_le(snowflake, smallint) RETURNS boolean
AS 'int82le' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_gt(snowflake, smallint) RETURNS boolean
AS 'int82gt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_ge(snowflake, smallint) RETURNS boolean
AS 'int82ge' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_cmp(snowflake, smallint) RETURNS integer
AS 'btint82cmp' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_eq(smallint, snowflake) RETURNS boolean
AS 'int28eq' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_ne(smallint, snowflake) RETURNS boolean
AS 'int28ne' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_lt(smallint, snowflake) RETURNS boolean
AS 'int28lt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_le(smallint, snowflake) RETURNS boolean
AS 'int28le' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_gt(smallint, snowflake) RETURNS boolean
AS 'int28gt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_ge(smallint, snowflake) RETURNS boolean
AS 'int28ge' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_cmp(smallint, snowflake) RETURNS integer
AS 'btint28cmp' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR = (LEFTARG = snowflake, RIGHTARG = smallint, FUNCTION = snowflake_eq, COMMUTATOR = =,
                       NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '=']::text[], ARRAY['snowflake', 'smallint']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR <> (LEFTARG = snowflake, RIGHTARG = smallint, FUNCTION = snowflake_ne, COMMUTATOR = <>,
                        NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '<>']::text[], ARRAY['snowflake', 'smallint']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR < (LEFTARG = snowflake, RIGHTARG = smallint, FUNCTION = snowflake_lt, COMMUTATOR = >,
                       NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '<']::text[], ARRAY['snowflake', 'smallint']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR <= (LEFTARG = snowflake, RIGHTARG = smallint, FUNCTION = snowflake_le, COMMUTATOR = >=,
                        NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '<=']::text[], ARRAY['snowflake', 'smallint']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR > (LEFTARG = snowflake, RIGHTARG = smallint, FUNCTION = snowflake_gt, COMMUTATOR = <,
                       NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '>']::text[], ARRAY['snowflake', 'smallint']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR >= (LEFTARG = snowflake, RIGHTARG = smallint, FUNCTION = snowflake_ge, COMMUTATOR = <=,
                        NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '>=']::text[], ARRAY['snowflake', 'smallint']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR = (LEFTARG = smallint, RIGHTARG = snowflake, FUNCTION = snowflake_eq, COMMUTATOR = =,
                       NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '=']::text[], ARRAY['smallint', 'snowflake']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR <> (LEFTARG = smallint, RIGHTARG = snowflake, FUNCTION = snowflake_ne, COMMUTATOR = <>,
                        NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '<>']::text[], ARRAY['smallint', 'snowflake']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR < (LEFTARG = smallint, RIGHTARG = snowflake, FUNCTION = snowflake_lt, COMMUTATOR = >,
                       NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '<']::text[], ARRAY['smallint', 'snowflake']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR <= (LEFTARG = smallint, RIGHTARG = snowflake, FUNCTION = snowflake_le, COMMUTATOR = >=,
                        NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '<=']::text[], ARRAY['smallint', 'snowflake']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR > (LEFTARG = smallint, RIGHTARG = snowflake, FUNCTION = snowflake_gt, COMMUTATOR = <,
                       NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '>']::text[], ARRAY['smallint', 'snowflake']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR >= (LEFTARG = smallint, RIGHTARG = snowflake, FUNCTION = snowflake_ge, COMMUTATOR = <=,
                        NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '>=']::text[], ARRAY['smallint', 'snowflake']::text[]);
END
$repair$;

-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake']::text[], ARRAY['smallint']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake(smallint) IS 'The assignment cast from smallint: refuses a negative value';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_eq']::text[], ARRAY['snowflake', 'smallint']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_eq(snowflake, smallint) IS 'snowflake = smallint, by bigint''s int82eq';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_ne']::text[], ARRAY['snowflake', 'smallint']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_ne(snowflake, smallint) IS 'snowflake <> smallint, by bigint''s int82ne';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_lt']::text[], ARRAY['snowflake', 'smallint']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_lt(snowflake, smallint) IS 'snowflake < smallint, by bigint''s int82lt';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_le']::text[], ARRAY['snowflake', 'smallint']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_le(snowflake, smallint) IS 'snowflake <= smallint, by bigint''s int82le';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_gt']::text[], ARRAY['snowflake', 'smallint']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_gt(snowflake, smallint) IS 'snowflake > smallint, by bigint''s int82gt';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_ge']::text[], ARRAY['snowflake', 'smallint']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_ge(snowflake, smallint) IS 'snowflake >= smallint, by bigint''s int82ge';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_cmp']::text[], ARRAY['snowflake', 'smallint']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_cmp(snowflake, smallint) IS 'Comparison support for the btree family: snowflake against smallint, by bigint''s btint82cmp';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_eq']::text[], ARRAY['smallint', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_eq(smallint, snowflake) IS 'smallint = snowflake, by bigint''s int28eq';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_ne']::text[], ARRAY['smallint', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_ne(smallint, snowflake) IS 'smallint <> snowflake, by bigint''s int28ne';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_lt']::text[], ARRAY['smallint', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_lt(smallint, snowflake) IS 'smallint < snowflake, by bigint''s int28lt';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_le']::text[], ARRAY['smallint', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_le(smallint, snowflake) IS 'smallint <= snowflake, by bigint''s int28le';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_gt']::text[], ARRAY['smallint', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_gt(smallint, snowflake) IS 'smallint > snowflake, by bigint''s int28gt';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_ge']::text[], ARRAY['smallint', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_ge(smallint, snowflake) IS 'smallint >= snowflake, by bigint''s int28ge';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_cmp']::text[], ARRAY['smallint', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_cmp(smallint, snowflake) IS 'Comparison support for the btree family: smallint against snowflake, by bigint''s btint28cmp';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('cast', ARRAY['smallint']::text[], ARRAY['snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON CAST (smallint AS snowflake) IS
'On assignment, by snowflake(smallint): a negative value is refused';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '=']::text[], ARRAY['snowflake', 'smallint']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR = (snowflake, smallint) IS 'Equal, compared as bigints; an index on a snowflake column serves it';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '<>']::text[], ARRAY['snowflake', 'smallint']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR <> (snowflake, smallint) IS 'Not equal, compared as bigints';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '<']::text[], ARRAY['snowflake', 'smallint']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR < (snowflake, smallint) IS 'Less than, compared as bigints; an index on a snowflake column serves it';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '<=']::text[], ARRAY['snowflake', 'smallint']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR <= (snowflake, smallint) IS 'Less than or equal, compared as bigints; an index on a snowflake column serves it';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '>']::text[], ARRAY['snowflake', 'smallint']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR > (snowflake, smallint) IS 'Greater than, compared as bigints; an index on a snowflake column serves it';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '>=']::text[], ARRAY['snowflake', 'smallint']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR >= (snowflake, smallint) IS 'Greater than or equal, compared as bigints; an index on a snowflake column serves it';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '=']::text[], ARRAY['smallint', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR = (smallint, snowflake) IS 'Equal, compared as bigints; an index on a snowflake column serves it';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '<>']::text[], ARRAY['smallint', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR <> (smallint, snowflake) IS 'Not equal, compared as bigints';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '<']::text[], ARRAY['smallint', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR < (smallint, snowflake) IS 'Less than, compared as bigints; an index on a snowflake column serves it';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '<=']::text[], ARRAY['smallint', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR <= (smallint, snowflake) IS 'Less than or equal, compared as bigints; an index on a snowflake column serves it';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '>']::text[], ARRAY['smallint', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR > (smallint, snowflake) IS 'Greater than, compared as bigints; an index on a snowflake column serves it';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '>=']::text[], ARRAY['smallint', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR >= (smallint, snowflake) IS 'Greater than or equal, compared as bigints; an index on a snowflake column serves it';
END IF;
END
$repair$;

-- src/sql/families/snowflake_ops.sql
-- One btree and one hash family for snowflake and bigint together: primary
-- keys, unique constraints, merge and hash joins, GROUP BY and DISTINCT;
-- WHERE id >= snowflake_from_timestamp(...) (a bigint) uses an index on a
-- snowflake column and prunes its partitions; and a bigint column can
-- reference a snowflake key. bigint's own operators join the families, as
-- a foreign key from bigint needs bigint = bigint in the key's family.
-- Created if missing; an existing operator family of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR FAMILY snowflake_ops USING btree;
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator family', ARRAY['btree', NULL, 'snowflake_ops']::text[], ARRAY[]::text[]);
END
$repair$;
-- Created if missing; an existing operator class of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR CLASS snowflake_ops DEFAULT FOR TYPE snowflake USING btree FAMILY snowflake_ops AS
        OPERATOR 1 < (snowflake, snowflake), OPERATOR 2 <= (snowflake, snowflake),
        OPERATOR 3 = (snowflake, snowflake), OPERATOR 4 >= (snowflake, snowflake),
        OPERATOR 5 > (snowflake, snowflake),
        FUNCTION 1 snowflake_cmp(snowflake, snowflake),
        FUNCTION 2 (snowflake, snowflake) btint8sortsupport(internal);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator class', ARRAY['btree', NULL, 'snowflake_ops']::text[], ARRAY[]::text[]);
END
$repair$;
-- Each member the family lacks, added; each one it holds, left.
DO $repair$
DECLARE
    member text;
BEGIN
    FOREACH member IN ARRAY ARRAY['OPERATOR 1 < (snowflake, bigint)',
                        'OPERATOR 2 <= (snowflake, bigint)',
                        'OPERATOR 3 = (snowflake, bigint)',
                        'OPERATOR 4 >= (snowflake, bigint)',
                        'OPERATOR 5 > (snowflake, bigint)',
                        'FUNCTION 1 snowflake_cmp(snowflake, bigint)',
                        'OPERATOR 1 < (bigint, snowflake)',
                        'OPERATOR 2 <= (bigint, snowflake)',
                        'OPERATOR 3 = (bigint, snowflake)',
                        'OPERATOR 4 >= (bigint, snowflake)',
                        'OPERATOR 5 > (bigint, snowflake)',
                        'FUNCTION 1 snowflake_cmp(bigint, snowflake)',
                        'OPERATOR 1 < (bigint, bigint)',
                        'OPERATOR 2 <= (bigint, bigint)',
                        'OPERATOR 3 = (bigint, bigint)',
                        'OPERATOR 4 >= (bigint, bigint)',
                        'OPERATOR 5 > (bigint, bigint)',
                        'FUNCTION 1 btint8cmp(bigint, bigint)',
                        'FUNCTION 2 (bigint, bigint) btint8sortsupport(internal)',
                        'OPERATOR 1 < (snowflake, integer)',
                        'OPERATOR 2 <= (snowflake, integer)',
                        'OPERATOR 3 = (snowflake, integer)',
                        'OPERATOR 4 >= (snowflake, integer)',
                        'OPERATOR 5 > (snowflake, integer)',
                        'FUNCTION 1 snowflake_cmp(snowflake, integer)',
                        'OPERATOR 1 < (integer, snowflake)',
                        'OPERATOR 2 <= (integer, snowflake)',
                        'OPERATOR 3 = (integer, snowflake)',
                        'OPERATOR 4 >= (integer, snowflake)',
                        'OPERATOR 5 > (integer, snowflake)',
                        'FUNCTION 1 snowflake_cmp(integer, snowflake)'] LOOP
        BEGIN
            EXECUTE pg_catalog.format('ALTER OPERATOR FAMILY snowflake_ops USING btree ADD %s', member);
        EXCEPTION WHEN duplicate_object THEN
            NULL;
        END;
    END LOOP;
END
$repair$;

-- Each member the family lacks, added; each one it holds, left.
DO $repair$
DECLARE
    member text;
BEGIN
    FOREACH member IN ARRAY ARRAY['OPERATOR 1 < (snowflake, smallint)',
                        'OPERATOR 2 <= (snowflake, smallint)',
                        'OPERATOR 3 = (snowflake, smallint)',
                        'OPERATOR 4 >= (snowflake, smallint)',
                        'OPERATOR 5 > (snowflake, smallint)',
                        'FUNCTION 1 snowflake_cmp(snowflake, smallint)',
                        'OPERATOR 1 < (smallint, snowflake)',
                        'OPERATOR 2 <= (smallint, snowflake)',
                        'OPERATOR 3 = (smallint, snowflake)',
                        'OPERATOR 4 >= (smallint, snowflake)',
                        'OPERATOR 5 > (smallint, snowflake)',
                        'FUNCTION 1 snowflake_cmp(smallint, snowflake)'] LOOP
        BEGIN
            EXECUTE pg_catalog.format('ALTER OPERATOR FAMILY snowflake_ops USING btree ADD %s', member);
        EXCEPTION WHEN duplicate_object THEN
            NULL;
        END;
    END LOOP;
END
$repair$;

-- The families also compare integer and smallint with each other and with
-- bigint, complete as PostgreSQL's own integer_ops and integer_hash_ops:
-- a btree family holding snowflake = integer must sort and compare the
-- integers themselves too, or id = ANY(integer[]) on the key and a merge
-- join with an integer column fail with "missing support function"
-- (amvalidate checks it).
-- Each member the family lacks, added; each one it holds, left.
DO $repair$
DECLARE
    member text;
BEGIN
    FOREACH member IN ARRAY ARRAY['OPERATOR 1 < (integer, integer)',
                        'OPERATOR 2 <= (integer, integer)',
                        'OPERATOR 3 = (integer, integer)',
                        'OPERATOR 4 >= (integer, integer)',
                        'OPERATOR 5 > (integer, integer)',
                        'FUNCTION 1 btint4cmp(integer, integer)',
                        'FUNCTION 2 (integer, integer) btint4sortsupport(internal)',
                        'OPERATOR 1 < (smallint, smallint)',
                        'OPERATOR 2 <= (smallint, smallint)',
                        'OPERATOR 3 = (smallint, smallint)',
                        'OPERATOR 4 >= (smallint, smallint)',
                        'OPERATOR 5 > (smallint, smallint)',
                        'FUNCTION 1 btint2cmp(smallint, smallint)',
                        'FUNCTION 2 (smallint, smallint) btint2sortsupport(internal)',
                        'OPERATOR 1 < (integer, bigint)',
                        'OPERATOR 2 <= (integer, bigint)',
                        'OPERATOR 3 = (integer, bigint)',
                        'OPERATOR 4 >= (integer, bigint)',
                        'OPERATOR 5 > (integer, bigint)',
                        'FUNCTION 1 btint48cmp(integer, bigint)',
                        'OPERATOR 1 < (bigint, integer)',
                        'OPERATOR 2 <= (bigint, integer)',
                        'OPERATOR 3 = (bigint, integer)',
                        'OPERATOR 4 >= (bigint, integer)',
                        'OPERATOR 5 > (bigint, integer)',
                        'FUNCTION 1 btint84cmp(bigint, integer)',
                        'OPERATOR 1 < (smallint, bigint)',
                        'OPERATOR 2 <= (smallint, bigint)',
                        'OPERATOR 3 = (smallint, bigint)',
                        'OPERATOR 4 >= (smallint, bigint)',
                        'OPERATOR 5 > (smallint, bigint)',
                        'FUNCTION 1 btint28cmp(smallint, bigint)',
                        'OPERATOR 1 < (bigint, smallint)',
                        'OPERATOR 2 <= (bigint, smallint)',
                        'OPERATOR 3 = (bigint, smallint)',
                        'OPERATOR 4 >= (bigint, smallint)',
                        'OPERATOR 5 > (bigint, smallint)',
                        'FUNCTION 1 btint82cmp(bigint, smallint)',
                        'OPERATOR 1 < (smallint, integer)',
                        'OPERATOR 2 <= (smallint, integer)',
                        'OPERATOR 3 = (smallint, integer)',
                        'OPERATOR 4 >= (smallint, integer)',
                        'OPERATOR 5 > (smallint, integer)',
                        'FUNCTION 1 btint24cmp(smallint, integer)',
                        'OPERATOR 1 < (integer, smallint)',
                        'OPERATOR 2 <= (integer, smallint)',
                        'OPERATOR 3 = (integer, smallint)',
                        'OPERATOR 4 >= (integer, smallint)',
                        'OPERATOR 5 > (integer, smallint)',
                        'FUNCTION 1 btint42cmp(integer, smallint)'] LOOP
        BEGIN
            EXECUTE pg_catalog.format('ALTER OPERATOR FAMILY snowflake_ops USING btree ADD %s', member);
        EXCEPTION WHEN duplicate_object THEN
            NULL;
        END;
    END LOOP;
END
$repair$;

-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator family', ARRAY['btree', NULL, 'snowflake_ops']::text[], ARRAY[]::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR FAMILY snowflake_ops USING btree IS
'snowflake, bigint, integer and smallint in one order: keys, joins and partition pruning across the types, and a bigint foreign key to a snowflake key';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator class', ARRAY['btree', NULL, 'snowflake_ops']::text[], ARRAY[]::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR CLASS snowflake_ops USING btree IS
'The snowflake type''s default btree class: primary keys, unique constraints, ORDER BY and merge joins, bigint''s order';
END IF;
END
$repair$;

-- src/sql/families/snowflake_hash_ops.sql
-- Created if missing; an existing operator family of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR FAMILY snowflake_hash_ops USING hash;
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator family', ARRAY['hash', NULL, 'snowflake_hash_ops']::text[], ARRAY[]::text[]);
END
$repair$;
-- Created if missing; an existing operator class of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR CLASS snowflake_hash_ops DEFAULT FOR TYPE snowflake USING hash
        FAMILY snowflake_hash_ops AS
        OPERATOR 1 = (snowflake, snowflake),
        FUNCTION 1 snowflake_hash(snowflake),
        FUNCTION 2 snowflake_hash_extended(snowflake, bigint);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator class', ARRAY['hash', NULL, 'snowflake_hash_ops']::text[], ARRAY[]::text[]);
END
$repair$;
-- Each member the family lacks, added; each one it holds, left.
DO $repair$
DECLARE
    member text;
BEGIN
    FOREACH member IN ARRAY ARRAY['OPERATOR 1 = (snowflake, bigint)',
                        'OPERATOR 1 = (bigint, snowflake)',
                        'OPERATOR 1 = (bigint, bigint)',
                        'OPERATOR 1 = (snowflake, integer)',
                        'OPERATOR 1 = (integer, snowflake)',
                        'FUNCTION 1 hashint8(bigint)',
                        'FUNCTION 2 hashint8extended(bigint, bigint)',
                        'FUNCTION 1 hashint4(integer)',
                        'FUNCTION 2 hashint4extended(integer, bigint)'] LOOP
        BEGIN
            EXECUTE pg_catalog.format('ALTER OPERATOR FAMILY snowflake_hash_ops USING hash ADD %s', member);
        EXCEPTION WHEN duplicate_object THEN
            NULL;
        END;
    END LOOP;
END
$repair$;
-- Each member the family lacks, added; each one it holds, left.
DO $repair$
DECLARE
    member text;
BEGIN
    FOREACH member IN ARRAY ARRAY['OPERATOR 1 = (snowflake, smallint)',
                        'OPERATOR 1 = (smallint, snowflake)',
                        'FUNCTION 1 hashint2(smallint)',
                        'FUNCTION 2 hashint2extended(smallint, bigint)'] LOOP
        BEGIN
            EXECUTE pg_catalog.format('ALTER OPERATOR FAMILY snowflake_hash_ops USING hash ADD %s', member);
        EXCEPTION WHEN duplicate_object THEN
            NULL;
        END;
    END LOOP;
END
$repair$;
-- Each member the family lacks, added; each one it holds, left.
DO $repair$
DECLARE
    member text;
BEGIN
    FOREACH member IN ARRAY ARRAY['OPERATOR 1 = (integer, integer)',
                        'OPERATOR 1 = (smallint, smallint)',
                        'OPERATOR 1 = (integer, bigint)',
                        'OPERATOR 1 = (bigint, integer)',
                        'OPERATOR 1 = (smallint, bigint)',
                        'OPERATOR 1 = (bigint, smallint)',
                        'OPERATOR 1 = (smallint, integer)',
                        'OPERATOR 1 = (integer, smallint)'] LOOP
        BEGIN
            EXECUTE pg_catalog.format('ALTER OPERATOR FAMILY snowflake_hash_ops USING hash ADD %s', member);
        EXCEPTION WHEN duplicate_object THEN
            NULL;
        END;
    END LOOP;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator family', ARRAY['hash', NULL, 'snowflake_hash_ops']::text[], ARRAY[]::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR FAMILY snowflake_hash_ops USING hash IS
'snowflake, bigint, integer and smallint in one hash family: hash joins and hash aggregation across the types';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator class', ARRAY['hash', NULL, 'snowflake_hash_ops']::text[], ARRAY[]::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR CLASS snowflake_hash_ops USING hash IS
'The snowflake type''s default hash class: hash indexes, hash joins, GROUP BY and DISTINCT by hashing, bigint''s hash';
END IF;
END
$repair$;

-- src/sql/families/snowflake_minmax_ops.sql
-- BRIN minmax, for large append-only tables keyed by time-ordered IDs.
-- Created if missing; an existing operator family of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR FAMILY snowflake_minmax_ops USING brin;
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator family', ARRAY['brin', NULL, 'snowflake_minmax_ops']::text[], ARRAY[]::text[]);
END
$repair$;
-- Created if missing; an existing operator class of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR CLASS snowflake_minmax_ops DEFAULT FOR TYPE snowflake USING brin
        FAMILY snowflake_minmax_ops AS
        OPERATOR 1 < (snowflake, snowflake), OPERATOR 2 <= (snowflake, snowflake),
        OPERATOR 3 = (snowflake, snowflake), OPERATOR 4 >= (snowflake, snowflake),
        OPERATOR 5 > (snowflake, snowflake),
        FUNCTION 1 brin_minmax_opcinfo(internal),
        FUNCTION 2 brin_minmax_add_value(internal, internal, internal, internal),
        FUNCTION 3 brin_minmax_consistent(internal, internal, internal),
        FUNCTION 4 brin_minmax_union(internal, internal, internal);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator class', ARRAY['brin', NULL, 'snowflake_minmax_ops']::text[], ARRAY[]::text[]);
END
$repair$;
-- Each member the family lacks, added; each one it holds, left.
DO $repair$
DECLARE
    member text;
BEGIN
    FOREACH member IN ARRAY ARRAY['OPERATOR 1 < (snowflake, bigint)',
                        'OPERATOR 2 <= (snowflake, bigint)',
                        'OPERATOR 3 = (snowflake, bigint)',
                        'OPERATOR 4 >= (snowflake, bigint)',
                        'OPERATOR 5 > (snowflake, bigint)'] LOOP
        BEGIN
            EXECUTE pg_catalog.format('ALTER OPERATOR FAMILY snowflake_minmax_ops USING brin ADD %s', member);
        EXCEPTION WHEN duplicate_object THEN
            NULL;
        END;
    END LOOP;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator family', ARRAY['brin', NULL, 'snowflake_minmax_ops']::text[], ARRAY[]::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR FAMILY snowflake_minmax_ops USING brin IS
'BRIN minmax for snowflake, also for comparisons with a bigint such as id >= snowflake_from_timestamp(t)';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator class', ARRAY['brin', NULL, 'snowflake_minmax_ops']::text[], ARRAY[]::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR CLASS snowflake_minmax_ops USING brin IS
'The snowflake type''s default BRIN class: minmax summaries, small indexes for large append-only tables keyed by time-ordered IDs';
END IF;
END
$repair$;

-- src/sql/functions/snowflake_last_before.sql
-- Comparing with a time (1.5): id >= now() - interval '1 day' selects the IDs
-- minted at or after that time, id < t those minted before t. An ID's time
-- is the start of its millisecond (snowflake_timestamp(id)), so each
-- comparison is exact to the timestamp's microsecond. Each splits the IDs
-- at a time; these name the split by the last value before it (from -1
-- when no ID is that early to 9223372036854775807 past every ID's time) or
-- the first after it (saturating at 9223372036854775807): no timestamptz,
-- infinite ones included, is out of range for them. STABLE: they read the
-- server's layout, as snowflake_timestamp(id) does.
CREATE OR REPLACE FUNCTION snowflake_last_before(t timestamptz) RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_last_before' LANGUAGE C STABLE STRICT PARALLEL SAFE;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_last_before']::text[], ARRAY['timestamptz']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_last_before(timestamptz) IS
'The largest ID minted before t: WHERE id <= snowflake_last_before(t) selects the IDs minted before t, id > it those minted at or after t (-1 when no ID is that early)';
END IF;
END
$repair$;

-- src/sql/functions/snowflake_last_at_or_before.sql
CREATE OR REPLACE FUNCTION snowflake_last_at_or_before(t timestamptz) RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_last_at_or_before' LANGUAGE C STABLE STRICT PARALLEL SAFE;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_last_at_or_before']::text[], ARRAY['timestamptz']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_last_at_or_before(timestamptz) IS
'The largest ID minted at or before t: WHERE id <= snowflake_last_at_or_before(t) selects the IDs minted at or before t, id > it those minted after t';
END IF;
END
$repair$;

-- src/sql/functions/snowflake_first_at_or_after.sql
CREATE OR REPLACE FUNCTION snowflake_first_at_or_after(t timestamptz) RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_first_at_or_after' LANGUAGE C STABLE STRICT PARALLEL SAFE;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_first_at_or_after']::text[], ARRAY['timestamptz']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_first_at_or_after(timestamptz) IS
'The smallest ID minted at or after t, a partition bound: snowflake_last_before(t) + 1, or 9223372036854775807 when no ID is that late';
END IF;
END
$repair$;

-- src/sql/functions/snowflake_first_after.sql
CREATE OR REPLACE FUNCTION snowflake_first_after(t timestamptz) RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_first_after' LANGUAGE C STABLE STRICT PARALLEL SAFE;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_first_after']::text[], ARRAY['timestamptz']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_first_after(timestamptz) IS
'The smallest ID minted after t: snowflake_last_at_or_before(t) + 1, or 9223372036854775807 when no ID is that late';
END IF;
END
$repair$;

-- src/sql/types/snowflake_timestamptz.sql
-- The planner support function rewrites id <op> t into comparisons with the
-- split, with the snowflake btree family's (snowflake, bigint) operators, so
-- that an index on the column serves them and partitions are pruned: at
-- plan time for a constant t, at executor start-up for now() or a parameter
-- (src/pg/pg_time_compare.cpp). Only for the snowflake type: operators between every bigint
-- and timestamptz would change the meaning of other queries; a bigint
-- column compares with id >= snowflake_first_at_or_after(t) and the like.
CREATE OR REPLACE FUNCTION snowflake_time_comparison_support(internal) RETURNS internal
AS 'MODULE_PATHNAME', 'snowflake_time_comparison_support' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION snowflake_lt(snowflake, timestamptz) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_lt_timestamptz' LANGUAGE C STABLE STRICT PARALLEL SAFE
SUPPORT snowflake_time_comparison_support;
CREATE OR REPLACE FUNCTION snowflake_le(snowflake, timestamptz) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_le_timestamptz' LANGUAGE C STABLE STRICT PARALLEL SAFE
SUPPORT snowflake_time_comparison_support;
CREATE OR REPLACE FUNCTION snowflake_gt(snowflake, timestamptz) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_gt_timestamptz' LANGUAGE C STABLE STRICT PARALLEL SAFE
SUPPORT snowflake_time_comparison_support;
CREATE OR REPLACE FUNCTION snowflake_ge(snowflake, timestamptz) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_ge_timestamptz' LANGUAGE C STABLE STRICT PARALLEL SAFE
SUPPORT snowflake_time_comparison_support;
CREATE OR REPLACE FUNCTION snowflake_lt(timestamptz, snowflake) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_timestamptz_lt' LANGUAGE C STABLE STRICT PARALLEL SAFE
SUPPORT snowflake_time_comparison_support;
CREATE OR REPLACE FUNCTION snowflake_le(timestamptz, snowflake) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_timestamptz_le' LANGUAGE C STABLE STRICT PARALLEL SAFE
SUPPORT snowflake_time_comparison_support;
CREATE OR REPLACE FUNCTION snowflake_gt(timestamptz, snowflake) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_timestamptz_gt' LANGUAGE C STABLE STRICT PARALLEL SAFE
SUPPORT snowflake_time_comparison_support;
CREATE OR REPLACE FUNCTION snowflake_ge(timestamptz, snowflake) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_timestamptz_ge' LANGUAGE C STABLE STRICT PARALLEL SAFE
SUPPORT snowflake_time_comparison_support;

-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR < (LEFTARG = snowflake, RIGHTARG = timestamptz, FUNCTION = snowflake_lt,
                       COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '<']::text[], ARRAY['snowflake', 'timestamptz']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR <= (LEFTARG = snowflake, RIGHTARG = timestamptz, FUNCTION = snowflake_le,
                        COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '<=']::text[], ARRAY['snowflake', 'timestamptz']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR > (LEFTARG = snowflake, RIGHTARG = timestamptz, FUNCTION = snowflake_gt,
                       COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '>']::text[], ARRAY['snowflake', 'timestamptz']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR >= (LEFTARG = snowflake, RIGHTARG = timestamptz, FUNCTION = snowflake_ge,
                        COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '>=']::text[], ARRAY['snowflake', 'timestamptz']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR < (LEFTARG = timestamptz, RIGHTARG = snowflake, FUNCTION = snowflake_lt,
                       COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '<']::text[], ARRAY['timestamptz', 'snowflake']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR <= (LEFTARG = timestamptz, RIGHTARG = snowflake, FUNCTION = snowflake_le,
                        COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '<=']::text[], ARRAY['timestamptz', 'snowflake']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR > (LEFTARG = timestamptz, RIGHTARG = snowflake, FUNCTION = snowflake_gt,
                       COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '>']::text[], ARRAY['timestamptz', 'snowflake']::text[]);
END
$repair$;
-- Created if missing; an existing operator of the extension's is left as it
-- is, one of another's refused.
DO $repair$
BEGIN
    CREATE OPERATOR >= (LEFTARG = timestamptz, RIGHTARG = snowflake, FUNCTION = snowflake_ge,
                        COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
EXCEPTION WHEN duplicate_object OR duplicate_function THEN
    PERFORM snowflake_id.snowflake_repair_ours('operator', ARRAY[NULL, '>=']::text[], ARRAY['timestamptz', 'snowflake']::text[]);
END
$repair$;

-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_time_comparison_support']::text[], ARRAY['internal']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_time_comparison_support(internal) IS
'Planner support of the comparisons of snowflake with timestamptz: turns id < t and the like into ID ranges (snowflake_last_before(t) and the like), which an index on the column serves and partition pruning uses';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_lt']::text[], ARRAY['snowflake', 'timestamptz']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_lt(snowflake, timestamptz) IS
'snowflake < timestamptz: snowflake_timestamp(id) < t, exact to the microsecond; the planner turns it into id <= snowflake_last_before(t)';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_le']::text[], ARRAY['snowflake', 'timestamptz']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_le(snowflake, timestamptz) IS
'snowflake <= timestamptz: snowflake_timestamp(id) <= t, exact to the microsecond; the planner turns it into id <= snowflake_last_at_or_before(t)';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_gt']::text[], ARRAY['snowflake', 'timestamptz']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_gt(snowflake, timestamptz) IS
'snowflake > timestamptz: snowflake_timestamp(id) > t, exact to the microsecond; the planner turns it into id >= snowflake_first_after(t)';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_ge']::text[], ARRAY['snowflake', 'timestamptz']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_ge(snowflake, timestamptz) IS
'snowflake >= timestamptz: snowflake_timestamp(id) >= t, exact to the microsecond; the planner turns it into id >= snowflake_first_at_or_after(t)';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_lt']::text[], ARRAY['timestamptz', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_lt(timestamptz, snowflake) IS
'timestamptz < snowflake: t < snowflake_timestamp(id), exact to the microsecond; the planner turns it into id >= snowflake_first_after(t)';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_le']::text[], ARRAY['timestamptz', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_le(timestamptz, snowflake) IS
'timestamptz <= snowflake: t <= snowflake_timestamp(id), exact to the microsecond; the planner turns it into id >= snowflake_first_at_or_after(t)';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_gt']::text[], ARRAY['timestamptz', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_gt(timestamptz, snowflake) IS
'timestamptz > snowflake: t > snowflake_timestamp(id), exact to the microsecond; the planner turns it into id <= snowflake_last_before(t)';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_ge']::text[], ARRAY['timestamptz', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_ge(timestamptz, snowflake) IS
'timestamptz >= snowflake: t >= snowflake_timestamp(id), exact to the microsecond; the planner turns it into id <= snowflake_last_at_or_before(t)';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '<']::text[], ARRAY['snowflake', 'timestamptz']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR < (snowflake, timestamptz) IS
'id < t: the ID was minted before the time (its millisecond starts before t); an index on the column serves it, and partitions by ID are pruned';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '<=']::text[], ARRAY['snowflake', 'timestamptz']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR <= (snowflake, timestamptz) IS
'id <= t: the ID was minted at or before the time (its millisecond starts at or before t); an index on the column serves it, and partitions by ID are pruned';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '>']::text[], ARRAY['snowflake', 'timestamptz']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR > (snowflake, timestamptz) IS
'id > t: the ID was minted after the time (its millisecond starts after t); an index on the column serves it, and partitions by ID are pruned';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '>=']::text[], ARRAY['snowflake', 'timestamptz']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR >= (snowflake, timestamptz) IS
'id >= t: the ID was minted at or after the time (its millisecond starts at or after t); an index on the column serves it, and partitions by ID are pruned';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '<']::text[], ARRAY['timestamptz', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR < (timestamptz, snowflake) IS
't < id: the ID was minted after the time, as id > t; an index on the column serves it, and partitions by ID are pruned';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '<=']::text[], ARRAY['timestamptz', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR <= (timestamptz, snowflake) IS
't <= id: the ID was minted at or after the time, as id >= t; an index on the column serves it, and partitions by ID are pruned';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '>']::text[], ARRAY['timestamptz', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR > (timestamptz, snowflake) IS
't > id: the ID was minted before the time, as id < t; an index on the column serves it, and partitions by ID are pruned';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('operator', ARRAY[NULL, '>=']::text[], ARRAY['timestamptz', 'snowflake']::text[],
       '{}'::text[]) THEN
COMMENT ON OPERATOR >= (timestamptz, snowflake) IS
't >= id: the ID was minted at or before the time, as id <= t; an index on the column serves it, and partitions by ID are pruned';
END IF;
END
$repair$;

-- src/sql/functions/snowflake_adopt.sql
------------------------------------------------------------------------------
-- Adopting an existing table (1.5). snowflake_adopt() switches a bigint
-- column filled by a sequence (bigserial, or DEFAULT nextval() of a
-- sequence), by an identity, or by the application (no default), to
-- DEFAULT snowflake_nextval(), in the caller's transaction, under an
-- ACCESS EXCLUSIVE lock taken before anything is checked, so no row with an
-- old-style value arrives between the check and the switch. The rules, and
-- why: docs/functions.md, "Adopting an existing table".
--
-- The collision bound: this server issues from now on only above the ID
-- the function mints, and a server minting into the table with its clock
-- up to max_clock_drift behind this one's issues from now() minus that on.
-- Every value already in the column must lie below both. now() is the
-- transaction's start: earlier than the clock, so stricter, and the same
-- instant a caller (or a test) computes the bound from.
--
-- A column adopted before without to_snowflake takes the type change alone
-- when asked for it: its values are the generator's own IDs, so no bound
-- applies. Check constraints on the column are evaluated for the IDs to
-- come, and sessions that may hold a plan returning the column's old type
-- are counted and warned of (docs/functions.md says why and what each
-- covers).
CREATE OR REPLACE FUNCTION snowflake_adopt(table_name regclass, column_name name,
                                to_snowflake boolean DEFAULT false,
                                drop_sequence boolean DEFAULT false)
RETURNS void LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, @extschema@, pg_temp
-- Every row counts, also those a forced row-level security policy hides
-- from the owner: with it off, such a table's check fails (42501) rather
-- than pass on the rows the owner sees.
SET row_security = off AS $$
DECLARE
    rel record;
    col record;
    qualified text;            -- the table, schema-qualified and quoted
    described text;            -- 'column "id" of table public.orders', for messages
    default_text text;
    def_oid oid;               -- the column's pg_attrdef row
    seq oid;                   -- the sequence of a nextval() default
    seq_name text;
    seq_users text;
    kind text;                 -- identity, sequence or none
    minted bigint;
    drift_ms bigint;
    bound bigint;
    bound_time timestamptz;
    top bigint;
    low bigint;
    top_time text;
    col_attnum smallint;
    new_type regtype;          -- the column's type once switched
    last_id constant bigint := 9223372036854775807;
    con record;
    candidate bigint;
    candidate_described text;
    verdict boolean;
    failure text;
    failure_detail text;
    sessions bigint;
BEGIN
    IF table_name IS NULL OR column_name IS NULL OR to_snowflake IS NULL
       OR drop_sequence IS NULL THEN
        RAISE EXCEPTION 'snowflake_adopt() takes no NULL argument'
            USING ERRCODE = '22004',
                  HINT = 'Name the table and the column; to_snowflake and drop_sequence are '
                         'true or false.';
    END IF;
    -- Under REPEATABLE READ or SERIALIZABLE the check below would read the
    -- column in the snapshot of the transaction's first statement, taken
    -- before the lock: rows committed while the lock was awaited would go
    -- unseen.
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION 'snowflake_adopt() needs a READ COMMITTED transaction, not %',
            upper(current_setting('transaction_isolation'))
            USING ERRCODE = '0A000',
                  DETAIL = 'It checks the column''s values after taking its lock; a snapshot '
                           'taken before the lock would miss rows committed meanwhile.',
                  HINT = 'Call it in a READ COMMITTED transaction (the default).';
    END IF;

    SELECT c.relname, c.relkind, c.relispartition, c.relowner, n.nspname INTO rel
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE c.oid = table_name;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'relation with OID % does not exist', table_name::oid
            USING ERRCODE = '42P01';
    END IF;
    qualified := format('%I.%I', rel.nspname, rel.relname);
    IF rel.relkind = 'p' OR rel.relispartition THEN
        RAISE EXCEPTION 'table % is %', qualified,
            CASE WHEN rel.relkind = 'p' THEN 'partitioned' ELSE 'a partition' END
            USING ERRCODE = '0A000',
                  DETAIL = 'snowflake_adopt() switches one table; a partitioned table''s '
                           'default lives on the parent and on every partition.',
                  HINT = 'Switch the parent and each child by hand, as '
                         'docs/functions.md, "Adopting an existing table" shows.';
    END IF;
    IF rel.relkind <> 'r' THEN
        RAISE EXCEPTION '% is not a table', qualified
            USING ERRCODE = '42809',
                  HINT = 'snowflake_adopt() switches a column of an ordinary table.';
    END IF;
    IF NOT pg_has_role(rel.relowner, 'USAGE') THEN
        RAISE EXCEPTION 'must be owner of table %', qualified
            USING ERRCODE = '42501',
                  HINT = 'snowflake_adopt() alters the table: call it as its owner.';
    END IF;

    EXECUTE format('LOCK TABLE %s IN ACCESS EXCLUSIVE MODE', qualified);

    IF EXISTS (SELECT FROM pg_inherits WHERE inhrelid = table_name OR inhparent = table_name) THEN
        RAISE EXCEPTION 'table % is part of an inheritance hierarchy', qualified
            USING ERRCODE = '0A000',
                  DETAIL = 'Its parent or children share the column, and their rows its values.',
                  HINT = 'Switch the parent and each child by hand, as '
                         'docs/functions.md, "Adopting an existing table" shows.';
    END IF;
    SELECT a.attnum, a.atttypid, a.attidentity, a.attgenerated, a.atthasdef INTO col
    FROM pg_attribute a
    WHERE a.attrelid = table_name AND a.attname = column_name AND a.attnum > 0
      AND NOT a.attisdropped;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'column % of table % does not exist', quote_ident(column_name), qualified
            USING ERRCODE = '42703';
    END IF;
    col_attnum := col.attnum;
    described := format('column %I of table %s', column_name, qualified);
    IF col.atttypid NOT IN ('bigint'::regtype, 'snowflake'::regtype) THEN
        RAISE EXCEPTION '% is of type %, not bigint', described, format_type(col.atttypid, NULL)
            USING ERRCODE = '42804',
                  DETAIL = 'Snowflake IDs take 64 bits.',
                  HINT = format('Change its type first (ALTER TABLE %s ALTER COLUMN %I TYPE '
                                'bigint, which rewrites the table), then adopt it.',
                                qualified, column_name);
    END IF;

    IF col.attidentity IN ('a', 'd') THEN
        kind := 'identity';
    ELSIF col.atthasdef THEN
        SELECT pg_get_expr(d.adbin, d.adrelid), d.oid INTO default_text, def_oid
        FROM pg_attrdef d WHERE d.adrelid = table_name AND d.adnum = col_attnum;
        IF col.attgenerated <> '' THEN
            RAISE EXCEPTION '% is generated: %', described, default_text
                USING ERRCODE = '55000',
                      HINT = 'snowflake_adopt() switches a column filled by a sequence, an '
                             'identity or the application.';
        END IF;
        IF EXISTS (SELECT FROM pg_depend
                   WHERE classid = 'pg_attrdef'::regclass AND objid = def_oid
                     AND refclassid = 'pg_proc'::regclass
                     AND refobjid = 'snowflake_nextval()'::regprocedure) THEN
            IF to_snowflake AND col.atttypid = 'bigint'::regtype AND NOT drop_sequence THEN
                kind := 'adopted';
            ELSE
                -- The sequence a bigserial kept stays OWNED BY the column.
                seq_name := pg_get_serial_sequence(qualified, column_name);
                RAISE EXCEPTION '% already defaults to %', described, default_text
                    USING ERRCODE = '55000',
                          HINT = CASE
                              WHEN drop_sequence THEN
                                  'It has been adopted already; drop_sequence acts only '
                                  'while adopting. '
                                  || CASE WHEN seq_name IS NULL
                                          THEN 'The column owns no sequence any more.'
                                          ELSE format('The sequence kept then goes with DROP '
                                                      'SEQUENCE %s, once no application '
                                                      'calls nextval() on it.', seq_name)
                                     END
                                  || CASE WHEN to_snowflake AND col.atttypid = 'bigint'::regtype
                                          THEN format(' snowflake_adopt(%L, %L, to_snowflake '
                                                      '=> true) converts it to the snowflake '
                                                      'type.', qualified, column_name)
                                          ELSE ''
                                     END
                              WHEN col.atttypid = 'bigint'::regtype THEN
                                  format('It has been adopted already: there is nothing to '
                                         'switch. snowflake_adopt(%L, %L, to_snowflake => '
                                         'true) converts it to the snowflake type.',
                                         qualified, column_name)
                              ELSE
                                  'It has been adopted already and is of type snowflake: '
                                  'there is nothing to switch.'
                          END;
            END IF;
        ELSE
            -- nextval() of one sequence and nothing else, as bigserial makes it.
            SELECT d.refobjid INTO seq FROM pg_depend d JOIN pg_class s ON s.oid = d.refobjid
            WHERE d.classid = 'pg_attrdef'::regclass AND d.objid = def_oid
              AND d.refclassid = 'pg_class'::regclass AND s.relkind = 'S';
            IF NOT FOUND OR default_text !~ '^nextval\(''.*''::regclass\)$' THEN
                RAISE EXCEPTION '% has a default other than a sequence''s nextval(): %',
                    described, default_text
                    USING ERRCODE = '55000',
                          HINT = format('snowflake_adopt() replaces only a sequence''s '
                                        'nextval() or an identity. Drop the default first if '
                                        'IDs should replace it (ALTER TABLE %s ALTER COLUMN %I '
                                        'DROP DEFAULT).', qualified, column_name);
            END IF;
            kind := 'sequence';
            SELECT format('%I.%I', n.nspname, c.relname) INTO seq_name
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = seq;
        END IF;
    ELSE
        kind := 'none';
    END IF;

    -- Rows in index order: the primary key's index answers both, for
    -- bigint and snowflake alike (max() of a snowflake would go through
    -- bigint, past the index).
    EXECUTE format('SELECT %1$I FROM %2$s WHERE %1$I IS NOT NULL ORDER BY %1$I DESC LIMIT 1',
                   column_name, qualified) INTO top;
    EXECUTE format('SELECT %1$I FROM %2$s WHERE %1$I IS NOT NULL ORDER BY %1$I LIMIT 1',
                   column_name, qualified) INTO low;
    IF to_snowflake AND low < 0 THEN
        RAISE EXCEPTION '% holds %, which the snowflake type cannot hold', described, low
            USING ERRCODE = '22003',
                  DETAIL = 'The snowflake type holds no negative value.',
                  HINT = 'Renumber the rows with negative values, or adopt the column without '
                         'to_snowflake (it stays bigint).';
    END IF;

    -- Raises, with its own hint, where the generator cannot issue (no
    -- preload, no worker id), and from here on this server issues only
    -- above this ID, also if its clock is later set back.
    minted := snowflake_nextval();
    SELECT setting::bigint INTO drift_ms FROM pg_settings WHERE name = 'snowflake_id.max_clock_drift';
    bound_time := now() - make_interval(secs => drift_ms / 1000.0);
    bound := least(snowflake_from_timestamp(bound_time), minted);
    IF kind <> 'adopted' AND top >= bound THEN
        BEGIN
            top_time := to_char(snowflake_timestamp(top) AT TIME ZONE 'UTC',
                                'YYYY-MM-DD HH24:MI:SS.MS"Z"');
        EXCEPTION WHEN datetime_field_overflow THEN
            top_time := 'past the end of the layout';
        END;
        RAISE EXCEPTION '% holds %, which snowflake_nextval() could issue again', described, top
            USING ERRCODE = '55000',
                  DETAIL = format('Its time by this server''s layout is %s; every value must lie '
                                  'below %s, the first ID of %s (now() minus '
                                  'snowflake_id.max_clock_drift, %s ms).', top_time, bound,
                                  to_char(bound_time AT TIME ZONE 'UTC',
                                          'YYYY-MM-DD HH24:MI:SS.MS"Z"'), drift_ms),
                  HINT = 'Renumber the rows at or above that bound, or adopt the column once '
                         'the clock has passed their time by more than '
                         'snowflake_id.max_clock_drift.';
    END IF;

    IF kind = 'identity' THEN
        -- Drops the identity's sequence with it.
        EXECUTE format('ALTER TABLE %s ALTER COLUMN %I DROP IDENTITY', qualified, column_name);
    END IF;
    IF kind <> 'adopted' THEN
        EXECUTE format('ALTER TABLE %s ALTER COLUMN %I SET DEFAULT snowflake_nextval()',
                       qualified, column_name);
    END IF;
    IF to_snowflake AND col.atttypid = 'bigint'::regtype THEN
        BEGIN
            EXECUTE format('ALTER TABLE %s ALTER COLUMN %I TYPE snowflake', qualified,
                           column_name);
        EXCEPTION WHEN feature_not_supported THEN
            -- A view, a rule, a generated column or a publication's row
            -- filter uses the column: PostgreSQL's message names it; the
            -- hint says what to do about it.
            GET STACKED DIAGNOSTICS failure = MESSAGE_TEXT, failure_detail = PG_EXCEPTION_DETAIL;
            RAISE EXCEPTION '%', failure
                USING ERRCODE = '0A000',
                      DETAIL = coalesce(nullif(failure_detail, ''),
                                        format('ALTER TABLE %s ALTER COLUMN %I TYPE snowflake '
                                               'was refused.', qualified, column_name)),
                      HINT = 'Adopt the column without to_snowflake (it stays bigint), or drop '
                             'what uses it, adopt it and create that again, all in one '
                             'transaction.';
        END;
    END IF;

    -- Every insert that takes the new default must pass the table's check
    -- constraints. The IDs to come lie between the bound and the layout's
    -- last ID, 2^63 - 1 whatever the layout (its fields fill 63 bits). A
    -- constraint on the column alone is evaluated at both ends, which
    -- settles the ranges such constraints state (id > x, id < y, BETWEEN);
    -- one that reads other columns too cannot be evaluated without their
    -- values. After the type change: PostgreSQL has rebuilt the
    -- constraints for the new type.
    SELECT a.atttypid INTO new_type FROM pg_attribute a
    WHERE a.attrelid = table_name AND a.attnum = col_attnum;
    FOR con IN
        SELECT c.conname, c.conkey <@ ARRAY[col_attnum] AS alone,
               pg_get_expr(c.conbin, c.conrelid) AS expr
        FROM pg_constraint c
        WHERE c.conrelid = table_name AND c.contype = 'c'
          AND (col_attnum = ANY (c.conkey) OR 0 = ANY (c.conkey))  -- 0: the whole row
        ORDER BY c.conname
    LOOP
        IF NOT con.alone THEN
            RAISE WARNING 'check constraint % of table % reads other columns than %: not checked',
                quote_ident(con.conname), qualified, quote_ident(column_name)
                USING DETAIL = format('snowflake_adopt() evaluates a check constraint only if '
                                      'it reads %I alone; whether %s holds for new IDs depends '
                                      'on the other values of each row.', column_name, con.expr),
                      HINT = format('Make sure it accepts the IDs to come, from %s to %s.',
                                    bound, last_id);
            CONTINUE;
        END IF;
        FOREACH candidate IN ARRAY ARRAY[bound, last_id] LOOP
            failure := NULL;
            BEGIN
                EXECUTE format('SELECT (%s) IS NOT FALSE FROM (SELECT $1::%s AS %I) AS new_row',
                               con.expr, new_type, column_name)
                    INTO verdict USING candidate;
            EXCEPTION WHEN OTHERS THEN
                GET STACKED DIAGNOSTICS failure = MESSAGE_TEXT;
                failure := format('raises "%s" (%s)', failure, SQLSTATE);
            END;
            IF failure IS NOT NULL OR NOT verdict THEN
                candidate_described := CASE candidate
                    WHEN last_id THEN
                        format('the last ID of the layout (%s)',
                               to_char(snowflake_timestamp(last_id) AT TIME ZONE 'UTC',
                                       'YYYY-MM-DD HH24:MI:SS.MS"Z"'))
                    ELSE
                        format('the first ID of %s (now() minus snowflake_id.max_clock_drift, '
                               '%s ms), the lowest a server may issue into the table from now on',
                               to_char(bound_time AT TIME ZONE 'UTC',
                                       'YYYY-MM-DD HH24:MI:SS.MS"Z"'), drift_ms)
                END;
                RAISE EXCEPTION 'check constraint % of table % rejects %, an ID '
                                'snowflake_nextval() may issue',
                    quote_ident(con.conname), qualified, candidate
                    USING ERRCODE = '55000',
                          DETAIL = format('Its expression %s %s for %s, %s: inserts that take the '
                                          'new default would fail.', con.expr,
                                          coalesce(failure, 'is false'), candidate,
                                          candidate_described),
                          HINT = format('Drop the constraint (ALTER TABLE %s DROP CONSTRAINT %I) '
                                        'or make it accept every ID from %s to %s, then adopt '
                                        'the column.', qualified, con.conname, bound, last_id);
            END IF;
        END LOOP;
    END LOOP;

    IF kind = 'sequence' THEN
        -- What else uses the sequence, now that this default does not:
        -- other defaults, views; a function naming it in a string is not
        -- recorded anywhere, and DROP SEQUENCE would not see it either.
        SELECT string_agg(pg_describe_object(d.classid, d.objid, d.objsubid), ', '
                          ORDER BY pg_describe_object(d.classid, d.objid, d.objsubid))
        INTO seq_users
        FROM pg_depend d
        WHERE d.refclassid = 'pg_class'::regclass AND d.refobjid = seq AND d.deptype = 'n';
        IF seq_users IS NULL THEN
            -- Owned by another column (OWNED BY): that column's sequence.
            SELECT pg_describe_object(d.refclassid, d.refobjid, d.refobjsubid) INTO seq_users
            FROM pg_depend d
            WHERE d.classid = 'pg_class'::regclass AND d.objid = seq AND d.deptype = 'a'
              AND d.refclassid = 'pg_class'::regclass
              AND NOT (d.refobjid = table_name AND d.refobjsubid = col_attnum);
            IF seq_users IS NOT NULL THEN
                seq_users := format('%s (which owns it)', seq_users);
            END IF;
        END IF;
        IF NOT drop_sequence AND seq_users IS NULL THEN
            RAISE NOTICE 'sequence % is kept', seq_name
                USING DETAIL = 'Nothing else uses it.',
                      HINT = format('DROP SEQUENCE %s once no application calls nextval() on '
                                    'it.', seq_name);
        ELSIF NOT drop_sequence THEN
            RAISE NOTICE 'sequence % is kept', seq_name
                USING DETAIL = format('It is still used by %s.', seq_users);
        ELSIF seq_users IS NOT NULL THEN
            RAISE EXCEPTION 'sequence % is also used by %', seq_name, seq_users
                USING ERRCODE = '2BP01',
                      HINT = 'Adopt the column with drop_sequence => false, which keeps the '
                             'sequence.';
        ELSE
            EXECUTE format('DROP SEQUENCE %s', seq_name);
        END IF;
    END IF;

    -- A statement prepared before the commit (PREPARE, or the extended
    -- protocol's named statements: JDBC, asyncpg, Npgsql) keeps a result
    -- of type bigint, and PostgreSQL refuses to run it once the column's
    -- type changed. Which statements other sessions hold is not visible
    -- here; the sessions that may hold them are: client backends connected
    -- to this database, and those whose type the caller may not see
    -- (another role's, without pg_read_all_stats). A session connecting
    -- later waits for the lock and plans with the new type. The clear
    -- drops a list read earlier in the transaction.
    IF to_snowflake AND col.atttypid = 'bigint'::regtype THEN
        PERFORM pg_stat_clear_snapshot();
        SELECT count(*) INTO sessions FROM pg_stat_activity a
        WHERE a.datid = (SELECT d.oid FROM pg_database d WHERE d.datname = current_database())
          AND a.pid <> pg_backend_pid()
          AND (a.backend_type = 'client backend' OR a.backend_type IS NULL);
        IF sessions > 0 THEN
            RAISE WARNING '% connected to database %: statements prepared there that return '
                          '% fail once this transaction commits',
                CASE WHEN sessions = 1 THEN '1 other session is'
                     ELSE format('%s other sessions are', sessions) END,
                quote_ident(current_database()), described
                USING DETAIL = 'The column changes from bigint to snowflake. A statement prepared '
                               'before (pgjdbc, psycopg 3, asyncpg and pgbench -M prepared prepare '
                               'them on their own) whose result holds the column (INSERT ... RETURNING, '
                               'SELECT *) fails with "cached plan must not change result type" '
                               '(0A000) until its session prepares it again.',
                      HINT = 'After the commit, reconnect those sessions (restart the connection '
                             'pools) or run DISCARD ALL in them; or adopt in a window without '
                             'such clients, before deploying application code that expects the '
                             'new type.';
        END IF;
    END IF;
END
$$;

-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_adopt']::text[], ARRAY['regclass', 'name', 'boolean', 'boolean']::text[],
       ARRAY['Switches a bigint column filled by a sequence, an identity or the application to DEFAULT snowflake_nextval(), refusing values the generator could issue; to_snowflake converts the column to the snowflake type, drop_sequence drops the old sequence']::text[]) THEN
COMMENT ON FUNCTION snowflake_adopt(regclass, name, boolean, boolean) IS
'Switches a bigint column filled by a sequence, an identity or the application to DEFAULT snowflake_nextval(), refusing values the generator could issue and check constraints that reject new IDs; to_snowflake converts the column, also one adopted before, to the snowflake type, drop_sequence drops the old sequence';
END IF;
END
$repair$;

-- src/sql/functions/snowflake_interval_ids.sql
-- Partitioning by ID time (1.5): the IDs that bound fixed-length spans of
-- time, for PARTITION BY RANGE (id) and pg_partman's integer partitioning
-- (docs/partitioning.md). An ID is (its millisecond - the epoch) shifted
-- past the node and sequence bits, so the smallest ID of a millisecond
-- grows by the same number for every millisecond: a bound plus a whole
-- number of spans is again a bound, at the same time of day. STABLE like
-- snowflake_from_timestamp(): they read the layout settings.

-- The IDs one span holds. Spans with months or years have no fixed length
-- and are refused, as date_bin() refuses them; a day is 24 hours (UTC has
-- no daylight saving time).
CREATE OR REPLACE FUNCTION snowflake_interval_ids(width interval) RETURNS bigint
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, @extschema@, pg_temp AS $$
DECLARE
    width_ms numeric := extract(epoch FROM width) * 1000;
    ids_per_ms bigint := snowflake_from_timestamp(snowflake_timestamp(0) + interval '1 millisecond');
    ids numeric;
BEGIN
    IF extract(year FROM width) <> 0 OR extract(month FROM width) <> 0 THEN
        RAISE EXCEPTION 'interval ''%'' has no fixed length', width
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = 'Months and years differ in length, so their spans of IDs differ too.',
                  HINT = 'Use days, hours, minutes or seconds, e.g. interval ''7 days''.';
    END IF;
    IF width_ms <= 0 OR width_ms <> trunc(width_ms) THEN
        RAISE EXCEPTION 'interval ''%'' is not a positive whole number of milliseconds', width
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = 'IDs carry whole milliseconds.',
                  HINT = 'Use a positive interval of whole milliseconds, e.g. interval ''1 day''.';
    END IF;
    ids := width_ms * ids_per_ms;
    IF ids > 9223372036854775807 THEN
        RAISE EXCEPTION 'interval ''%'' is longer than the ID layout''s time range', width
            USING ERRCODE = 'datetime_field_overflow',
                  DETAIL = format('It would span %s IDs; a bigint holds at most 9223372036854775807.', trunc(ids)),
                  HINT = 'Use a shorter interval.';
    END IF;
    RETURN ids;
END $$;

-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_interval_ids']::text[], ARRAY['interval']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_interval_ids(interval) IS
'How many IDs a fixed-length interval of time spans, by this server''s layout: pg_partman''s p_interval for a bigint key';
END IF;
END
$repair$;

-- src/sql/functions/snowflake_date_bin.sql
-- date_bin() in IDs: the smallest ID of the millisecond the bin holding
-- source starts at. The bins are counted from origin, not from the epoch,
-- so they start at midnight UTC (the default origin, a Monday) whatever
-- the epoch. A bin that starts before the epoch gets a negative bound,
-- below every ID, which is still a partition's right lower bound.
CREATE OR REPLACE FUNCTION snowflake_date_bin(stride interval, source timestamptz,
                                   origin timestamptz DEFAULT '2001-01-01 00:00:00+00')
RETURNS bigint
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, @extschema@, pg_temp AS $$
DECLARE
    ids_per_ms bigint := snowflake_from_timestamp(snowflake_timestamp(0) + interval '1 millisecond');
    bin timestamptz;
    bound numeric;
BEGIN
    PERFORM snowflake_interval_ids(stride);
    IF NOT isfinite(source) OR NOT isfinite(origin) THEN
        RAISE EXCEPTION 'time % has no bin', CASE WHEN isfinite(source) THEN origin ELSE source END
            USING ERRCODE = 'datetime_field_overflow',
                  DETAIL = 'Only finite times fall into bins of IDs.',
                  HINT = 'Pass a finite source and origin.';
    END IF;
    bin := date_bin(stride, source, origin);
    bound := floor((extract(epoch FROM bin) - extract(epoch FROM snowflake_timestamp(0))) * 1000)
             * ids_per_ms;
    IF bound NOT BETWEEN -9223372036854775808 AND 9223372036854775807 THEN
        RAISE EXCEPTION 'the bin of % starting at % is outside the ID layout''s range', source, bin
            USING ERRCODE = 'datetime_field_overflow',
                  DETAIL = format('Its bound would be %s, beyond a bigint.', trunc(bound)),
                  HINT = 'Keep the time near the layout''s range, from snowflake_timestamp(0) on.';
    END IF;
    RETURN bound;
END $$;

-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_date_bin']::text[], ARRAY['interval', 'timestamptz', 'timestamptz']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_date_bin(interval, timestamptz, timestamptz) IS
'date_bin() in IDs: the first ID bound of the bin of stride (counted from origin, by default midnight UTC) that holds source; pg_partman''s p_start_partition for a bigint key';
END IF;
END
$repair$;

-- src/sql/functions/snowflake_public.sql
-- Public IDs (1.5): a keyed permutation of an ID written in Crockford's
-- base32, which hides the ID's time, node and count from whoever lacks the
-- key (docs/public-ids.md). With a key argument (16 bytes): IMMUTABLE, as
-- nothing else goes in. Without: the key in snowflake_id.public_key, which
-- only superusers can read or set; STABLE, as a changed setting changes the
-- results. C functions: no search_path to pin. The id is a bigint, so a
-- snowflake passes by its implicit cast; a negative one is refused.
CREATE OR REPLACE FUNCTION snowflake_public(id bigint, key bytea, prefix text DEFAULT '',
                                 check_symbol boolean DEFAULT false)
RETURNS text
AS 'MODULE_PATHNAME', 'snowflake_public_keyed'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION snowflake_public(id bigint, prefix text DEFAULT '',
                                 check_symbol boolean DEFAULT false)
RETURNS text
AS 'MODULE_PATHNAME', 'snowflake_public_default_key'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_public']::text[], ARRAY['bigint', 'bytea', 'text', 'boolean']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_public(bigint, bytea, text, boolean) IS
'The public form of an ID under a 16-byte key: 13 symbols of Crockford''s base32 that hide its time, node and count, after prefix and "_" if given, and a check symbol if asked for; not authentication';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_public']::text[], ARRAY['bigint', 'text', 'boolean']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_public(bigint, text, boolean) IS
'snowflake_public(id, key, ...) with the key in snowflake_id.public_key';
END IF;
END
$repair$;

-- src/sql/functions/snowflake_from_public.sql
CREATE OR REPLACE FUNCTION snowflake_from_public(public_id text, key bytea, prefix text DEFAULT '',
                                      check_symbol boolean DEFAULT false)
RETURNS snowflake
AS 'MODULE_PATHNAME', 'snowflake_from_public_keyed'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION snowflake_from_public(public_id text, prefix text DEFAULT '',
                                      check_symbol boolean DEFAULT false)
RETURNS snowflake
AS 'MODULE_PATHNAME', 'snowflake_from_public_default_key'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_from_public']::text[], ARRAY['text', 'bytea', 'text', 'boolean']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_from_public(text, bytea, text, boolean) IS
'The ID of a public form, for the key, prefix and check_symbol it was made with; takes lower case, I and L for 1, O for 0, hyphens';
END IF;
END
$repair$;
-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_from_public']::text[], ARRAY['text', 'text', 'boolean']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_from_public(text, text, boolean) IS
'snowflake_from_public(public_id, key, ...) with the key in snowflake_id.public_key';
END IF;
END
$repair$;

-- src/sql/functions/snowflake_system_identifier.sql
-- The server's system identifier (pg_control), as snowflake_origin records
-- it: pg_control_system() says the same but is not for every role.
CREATE OR REPLACE FUNCTION snowflake_system_identifier() RETURNS numeric
AS 'MODULE_PATHNAME', 'snowflake_system_identifier'
LANGUAGE C STABLE PARALLEL SAFE;

-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_system_identifier']::text[], ARRAY[]::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_system_identifier() IS
'This server''s system identifier, as snowflake_origin records where a database''s data came from';
END IF;
END
$repair$;

-- src/sql/functions/snowflake_origin_arrived.sql
-- The trigger of snowflake_origin: rows that arrive (a restore) make every
-- database be checked again for restored IDs, once they are committed
-- (src/pg/pg_origins.cpp). Not for PUBLIC: a trigger of a user's table
-- calling it would make every database of the server check again at each
-- commit (the function refuses any table but snowflake_origin too).
CREATE OR REPLACE FUNCTION snowflake_origin_arrived() RETURNS trigger
AS 'MODULE_PATHNAME', 'snowflake_origin_arrived'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

-- Only on an object the repair created: the privileges of one that
-- existed are the DBA's to keep.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_origin_arrived']::text[], ARRAY[]::text[]) THEN
    REVOKE ALL ON FUNCTION snowflake_origin_arrived() FROM PUBLIC;
END IF;
END
$repair$;

-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_origin_arrived']::text[], ARRAY[]::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_origin_arrived() IS
'Trigger of snowflake_origin: rows that arrive have every database checked again for IDs restored from another server';
END IF;
END
$repair$;

-- src/sql/tables/snowflake_origin.sql
------------------------------------------------------------------------------
-- Where a database's data came from (1.7): the server that created the
-- extension in it, and every server whose data a logical restore (pg_dump,
-- pg_restore, pg_dumpall) brought in, since pg_dump carries the rows with
-- the extension. A row of another server that this one has not checked
-- (checked_by) makes snowflake_nextval() check the database before its
-- next ID: the floor is raised above every value of every column whose
-- default calls snowflake_nextval() (snowflake_check_restore(),
-- docs/durability.md, "Logical restores"). No primary key: a restore into
-- a database that holds the same origin adds it again, which does no harm,
-- where a conflict would lose the restore's rows.
CREATE TABLE IF NOT EXISTS snowflake_id.snowflake_origin (
    system_identifier numeric NOT NULL,
    database_name name NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    checked_by numeric,
    checked_at timestamptz
);

-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('table', ARRAY['snowflake_id', 'snowflake_origin']::text[], ARRAY[]::text[],
       '{}'::text[]) THEN
COMMENT ON TABLE snowflake_id.snowflake_origin IS
'The servers a database''s data came from: this server at CREATE EXTENSION, and those a logical restore brought in; a server checks another''s rows for restored IDs before it issues';
END IF;
END
$repair$;

SELECT pg_catalog.pg_extension_config_dump('snowflake_id.snowflake_origin', '');

-- A restore run by a non-superuser (the database's owner, the extension
-- created beforehand) must be able to bring its rows in: otherwise no
-- check. Not every role: a row costs every session of the database a
-- check. What a row can do is bounded by the check, not by this grant:
-- values a non-superuser can write move the floor at most max_clock_drift
-- ahead, and further ahead only that database refuses (src/pg/
-- pg_origins.cpp). The check reads the table through the access method,
-- so roles without SELECT on it mint.
-- Only on an object the repair created: the privileges of one that
-- existed are the DBA's to keep.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('table', ARRAY['snowflake_id', 'snowflake_origin']::text[], ARRAY[]::text[]) THEN
    GRANT SELECT, INSERT ON snowflake_id.snowflake_origin TO pg_database_owner;
END IF;
END
$repair$;

CREATE OR REPLACE TRIGGER snowflake_origin_arrived
AFTER INSERT OR UPDATE ON snowflake_id.snowflake_origin
FOR EACH STATEMENT EXECUTE FUNCTION @extschema@.snowflake_origin_arrived();

-- The server the extension is created (or updated to 1.7) on.
INSERT INTO snowflake_id.snowflake_origin (system_identifier, database_name)
SELECT @extschema@.snowflake_system_identifier(), pg_catalog.current_database()
WHERE NOT EXISTS (
    SELECT FROM snowflake_id.snowflake_origin o
    WHERE o.system_identifier OPERATOR(pg_catalog.=) @extschema@.snowflake_system_identifier());

-- src/sql/functions/snowflake_raise_floor.sql
-- VOLATILE and PARALLEL UNSAFE: it writes the state file and WAL. Only
-- superusers: it moves where every session's IDs resume, possibly ahead of
-- the clock. The function checks too, so that a GRANT alone cannot open it
-- up. max_lead_ms is snowflake_check_restore()'s: it returns NULL rather
-- than raise the floor further ahead of the clock than that.
CREATE OR REPLACE FUNCTION snowflake_raise_floor(above bigint, max_lead_ms bigint DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_raise_floor'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

-- Only on an object the repair created: the privileges of one that
-- existed are the DBA's to keep.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_raise_floor']::text[], ARRAY['bigint', 'bigint']::text[]) THEN
    REVOKE ALL ON FUNCTION snowflake_raise_floor(bigint, bigint) FROM PUBLIC;
END IF;
END
$repair$;

-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_raise_floor']::text[], ARRAY['bigint', 'bigint']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_raise_floor(bigint, bigint) IS
'Superuser only: from now on this server issues only IDs above the given one, also after a restart, a crash or a failover; returns the generator''s floor';
END IF;
END
$repair$;

-- src/sql/functions/snowflake_check_restore.sql
------------------------------------------------------------------------------
-- Restores never mint below what they restored (1.7). The check runs by
-- itself where restored data arrives (the rows of snowflake_origin, before
-- they commit; every COPY FROM into a table with an ID column) and before
-- the first ID any backend issues in a database whose snowflake_origin
-- holds a row of another server not checked here (src/pg/pg_origins.cpp);
-- a superuser may call it too, every_column => true checking whatever the
-- rows say (after restoring a dump of 1.6, which carries no origin, or a
-- CSV loaded otherwise). It finds the largest value of every column whose
-- default calls snowflake_nextval(), directly or through a domain, and of
-- their namesakes in inheritance children and partitions, raises the
-- generator's floor above it, durably, and marks the rows checked by this
-- server. Returns how many rows of other servers it found waiting.
--
-- Not SECURITY DEFINER, and no SQL over the users' tables: it reads the
-- catalogs and the columns through the access methods, needing no
-- privilege and running no code of the tables' owners (the threat model:
-- src/pg/pg_restore_scan.cpp). A value only superusers can have written
-- moves the floor up to an hour ahead of the clock; any other at most
-- snowflake_id.max_clock_drift; beyond, the database refuses (55000) until
-- a superuser accepts it with snowflake_raise_floor().
CREATE OR REPLACE FUNCTION snowflake_check_restore(every_column boolean DEFAULT false)
RETURNS integer
AS 'MODULE_PATHNAME', 'snowflake_check_restore'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

-- Only on an object the repair created: the privileges of one that
-- existed are the DBA's to keep.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_check_restore']::text[], ARRAY['boolean']::text[]) THEN
    REVOKE ALL ON FUNCTION snowflake_check_restore(boolean) FROM PUBLIC;
END IF;
END
$repair$;

-- Set where the repair created the object, where it has no comment, or
-- one an earlier version gave it; a comment of the DBA's is kept.
DO $repair$
BEGIN
IF snowflake_id.snowflake_repair_sets('function', ARRAY[NULL, 'snowflake_check_restore']::text[], ARRAY['boolean']::text[],
       '{}'::text[]) THEN
COMMENT ON FUNCTION snowflake_check_restore(boolean) IS
'Raises the generator''s floor above every value of every column whose default calls snowflake_nextval(), where snowflake_origin shows data restored from another server (every_column: in any case); snowflake_nextval() calls it before a database''s first ID';
END IF;
END
$repair$;

DROP FUNCTION snowflake_id.snowflake_repair_ours(text, text[], text[]);
DROP FUNCTION snowflake_id.snowflake_repair_foreign(text, text[], text[]);
DROP FUNCTION snowflake_id.snowflake_repair_refuse(text[]);
DROP FUNCTION snowflake_id.snowflake_repair_sets(text, text[], text[], text[]);
DROP FUNCTION snowflake_id.snowflake_repair_address(text, text[], text[]);
DROP TABLE snowflake_id.snowflake_repair_existed;
