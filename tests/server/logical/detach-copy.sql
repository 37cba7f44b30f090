-- On the copy, started with copy.conf: drop the subscriptions it inherited,
-- leaving the original's replication slots on the peers alone.
DO $$
DECLARE
    sub name;
BEGIN
    FOR sub IN SELECT s.subname FROM pg_catalog.pg_subscription s
               JOIN pg_catalog.pg_database d ON d.oid = s.subdbid
               WHERE d.datname = pg_catalog.current_database() LOOP
        EXECUTE pg_catalog.format('ALTER SUBSCRIPTION %I DISABLE', sub);
        EXECUTE pg_catalog.format('ALTER SUBSCRIPTION %I SET (slot_name = NONE)', sub);
        EXECUTE pg_catalog.format('DROP SUBSCRIPTION %I', sub);
    END LOOP;
END
$$;
ALTER SYSTEM RESET max_logical_replication_workers;
