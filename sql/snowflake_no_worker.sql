-- Server: snowflake_id preloaded, worker_id not set.
SET timezone = 'UTC';
SET datestyle = 'ISO, YMD';
CREATE EXTENSION snowflake_id;
SHOW snowflake_id.worker_id;
SELECT snowflake_nextval();
-- Decoding needs no worker id.
SELECT * FROM snowflake_decode((86400000::bigint << 22) | (7 << 12) | 5);
DO $$
BEGIN
    PERFORM snowflake_nextval();
EXCEPTION WHEN object_not_in_prerequisite_state THEN
    RAISE NOTICE 'snowflake_nextval() without a worker id raises SQLSTATE %', SQLSTATE;
END $$;
-- Blocks refuse the same way; the status view shows the missing worker id.
SELECT snowflake_nextval(3);
SELECT worker_id IS NULL AS worker_unset, datacenter_id, ids_issued, errors >= 2 AS counted_errors
FROM snowflake_status();
