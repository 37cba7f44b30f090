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
-- snowflake_registry_timeline) and grants the database owner SELECT and INSERT
-- on the registry's tables (issue 48: its pg_dump and pg_restore need them), nothing else. docs/upgrading.md, "1.5.0-1 and the
-- update to 1.7".
--
-- Generated once by tools/sql-repair from this prologue and the sources
-- under src/sql/ as they were for 1.7, then committed: it freezes when 1.7
-- is released (RELEASES).
\echo Use "ALTER EXTENSION snowflake_id UPDATE TO '1.7'" to load this file. \quit

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
-- (the check after this prologue refused any other), and is then left as
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
