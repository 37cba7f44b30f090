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
