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
