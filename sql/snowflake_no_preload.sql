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
-- So do the foreign-layout decoders, snowflake_compose and the ObjectId functions.
SELECT * FROM snowflake_decode(175928847299117063, 'discord');
SELECT snowflake_compose('2020-01-02 00:00:00+00', 7, 5) = (86400000::bigint << 22) | (7 << 12) | 5
       AS compose_works;
SELECT objectid_generate() ~ '^[0-9a-f]{24}$' AS objectid_works,
       objectid_timestamp('5c4a7fcc0ed0240001a79289');
-- Public IDs with a key work; the default key does not: without the
-- preload snowflake_id.public_key is a placeholder every role can read and
-- set, even when this session sets it.
SELECT snowflake_public(912291816210986656, '\x000102030405060708090a0b0c0d0e0f'::bytea) AS public;
SET snowflake_id.public_key = '000102030405060708090a0b0c0d0e0f';
SELECT snowflake_public(912291816210986656);
RESET snowflake_id.public_key;
-- Blocks and the status need the shared memory.
SELECT snowflake_nextval(3);
SELECT * FROM snowflake_status();
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
