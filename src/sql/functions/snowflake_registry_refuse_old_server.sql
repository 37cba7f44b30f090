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

COMMENT ON FUNCTION snowflake_registry_refuse_old_server(text) IS
'Registry side: the refusal a server before 1.5 gets from the leasing functions it calls';
