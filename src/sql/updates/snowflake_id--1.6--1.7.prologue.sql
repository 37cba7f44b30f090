-- snowflake_id 1.6 -> 1.7: the repair of 1.5.0-1. 1.5's scripts changed
-- after the 1.5.0-1 package shipped them (commit b3a12e3): a database whose
-- 1.5 came from that package, or from a checkout before the 1.6 release
-- (87a5c57), and that was then updated to 1.6, lacks the objects 1.5 had
-- gained since (the public IDs, the comparisons of a snowflake with a
-- time, snowflake_adopt, snowflake_interval_ids and snowflake_date_bin
-- among them), keeps two functions 1.5 had dropped, and carries older
-- definitions and comments. This script brings any 1.6 to exactly what
-- CREATE EXTENSION of 1.7 makes (tests/server/update_paths.sh compares
-- them from every release): it drops what 1.7 does not have, creates what
-- is missing, replaces every function and view, and sets every comment
-- and privilege again. Running it over a complete 1.6 changes nothing but
-- the version. docs/upgrading.md, "1.5.0-1 and the update to 1.7".
--
-- Generated once by tools/sql-repair from this prologue and the sources
-- under src/sql/ as they were for 1.7, then committed: it freezes when 1.7
-- is released (RELEASES).
\echo Use "ALTER EXTENSION snowflake_id UPDATE TO '1.7'" to load this file. \quit

-- The registry's rule helpers before commit 961799f: 1.5 folded them into
-- the leasing functions, whose 1.5.0-1 versions called them; the
-- definitions below no longer do.
DROP FUNCTION IF EXISTS @extschema@.snowflake_registry_is_live(
    snowflake_id.snowflake_registry_lease, timestamptz);
DROP FUNCTION IF EXISTS @extschema@.snowflake_registry_may_take(
    snowflake_id.snowflake_registry_lease, numeric, bigint, text, integer, text, integer, bigint);

-- For this script only (dropped at its end): an object it would create that
-- exists already must be the extension's own, and is then left as it is;
-- one made outside the extension (a stand-in for one the 1.5.0-1 package
-- lacked, say) is refused, not taken over in silence.
CREATE FUNCTION pg_temp.snowflake_repair_ours(object_type text, object_names text[],
                                              object_args text[])
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    class_id oid;
    object_id oid;
BEGIN
    SELECT a.classid, a.objid INTO class_id, object_id
    FROM pg_catalog.pg_get_object_address(object_type, object_names, object_args) a;
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_depend d
                   JOIN pg_catalog.pg_extension e ON e.oid OPERATOR(pg_catalog.=) d.refobjid
                   WHERE d.classid OPERATOR(pg_catalog.=) class_id
                     AND d.objid OPERATOR(pg_catalog.=) object_id
                     AND d.deptype OPERATOR(pg_catalog.=) 'e'
                     AND e.extname OPERATOR(pg_catalog.=) 'snowflake_id') THEN
        RAISE EXCEPTION '% exists and is not snowflake_id''s',
            pg_catalog.pg_describe_object(class_id, object_id, 0)
            USING ERRCODE = 'duplicate_object',
                  DETAIL = 'snowflake_id 1.7 creates it, and takes over no object made outside '
                           'the extension (such as a stand-in for one that the 1.5.0-1 package '
                           'lacked).',
                  HINT = 'Drop that object, then run ALTER EXTENSION snowflake_id UPDATE again.';
    END IF;
END
$$;
