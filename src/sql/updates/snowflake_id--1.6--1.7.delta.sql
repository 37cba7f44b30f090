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
