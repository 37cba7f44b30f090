-- Server: snowflake_id NOT in shared_preload_libraries; its postgresql.conf
-- sets snowflake_id.epoch (to the default) and snowflake_id.worker_id.
SET timezone = 'UTC';
SET datestyle = 'ISO, YMD';
CREATE EXTENSION snowflake_id;
SELECT snowflake_nextval();
-- The decoders work without the preload, by the configured (default) layout.
SELECT * FROM snowflake_decode((86400000::bigint << 22) | (7 << 12) | 5);
SELECT snowflake_timestamp(4194304);
SELECT snowflake_from_timestamp('2020-01-01 00:00:00.001+00');
SELECT snowflake_decode(-1);
DO $$
BEGIN
    PERFORM snowflake_nextval();
EXCEPTION WHEN object_not_in_prerequisite_state THEN
    RAISE NOTICE 'snowflake_nextval() without the preload raises SQLSTATE %', SQLSTATE;
END $$;

-- A session's SET on a not-yet-defined setting does not change the layout:
-- the decoders read the configuration file.
\c
SET timezone = 'UTC';
SET datestyle = 'ISO, YMD';
SET snowflake_id.epoch = '2010-01-01T00:00:00Z';
SELECT snowflake_timestamp(4194304);
