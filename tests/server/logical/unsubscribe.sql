-- Drop subscription :sub but keep its replication slot on the peer, which
-- holds every change from the last one confirmed. Prints the slot and how
-- far the subscription had applied (its origin's position, which may be
-- past what the peer heard confirmed): resubscribe.sql needs both.
ALTER SUBSCRIPTION :"sub" DISABLE;
-- The apply worker stops after the transaction it is applying: wait for it.
DO $$
BEGIN
    FOR i IN 1..600 LOOP
        IF NOT EXISTS (SELECT FROM pg_catalog.pg_stat_subscription w
                       JOIN pg_catalog.pg_subscription s ON s.oid = w.subid
                       WHERE NOT s.subenabled AND w.pid IS NOT NULL) THEN
            RETURN;
        END IF;
        PERFORM pg_catalog.pg_sleep(0.1);
    END LOOP;
    RAISE EXCEPTION 'the apply worker of a disabled subscription still runs after a minute';
END
$$;
SELECT s.subslotname, o.remote_lsn
FROM pg_catalog.pg_subscription s
JOIN pg_catalog.pg_replication_origin_status o ON o.external_id = 'pg_' || s.oid
WHERE s.subname = :'sub';
ALTER SUBSCRIPTION :"sub" SET (slot_name = NONE);
DROP SUBSCRIPTION :"sub";
