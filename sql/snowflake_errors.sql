-- Server: snowflake_id preloaded, default layout, worker_id = 7.
SET timezone = 'UTC';
SET datestyle = 'ISO, YMD';
CREATE EXTENSION IF NOT EXISTS snowflake_id;

-- NULL in, NULL out.
SELECT snowflake_decode(NULL) IS NULL AS decode_null, snowflake_timestamp(NULL) IS NULL AS ts_null,
       snowflake_from_timestamp(NULL) IS NULL AS from_null;

-- IDs no layout can have issued.
SELECT * FROM snowflake_decode(-1);
SELECT snowflake_timestamp(-9223372036854775808);

-- Times outside the layout.
SELECT snowflake_from_timestamp('2019-12-31 23:59:59.999+00');
SELECT snowflake_from_timestamp('2089-09-06 15:47:35.552+00');
SELECT snowflake_from_timestamp('infinity');
SELECT snowflake_from_timestamp('-infinity');

-- Settings that no session may change.
SET snowflake_id.worker_id = 3;
SET snowflake_id.datacenter_id = 1;
SET snowflake_id.max_clock_drift = 5;
SET snowflake_id.max_wait = 5;
SET snowflake_id.worker_bits = 5;
SET snowflake_id.sequence_bits = 5;
SET snowflake_id.datacenter_bits = 5;
SET snowflake_id.epoch = '2010-01-01T00:00:00Z';
ALTER ROLE CURRENT_USER SET snowflake_id.worker_id = 3;

-- ALTER SYSTEM refuses what the next start or reload would refuse: node ids
-- are plain decimals (PostgreSQL's integer syntax would read '010' as octal 8
-- and round '7.6' to 8).
ALTER SYSTEM SET snowflake_id.epoch = 'garbage';
ALTER SYSTEM SET snowflake_id.worker_id = '010';
ALTER SYSTEM SET snowflake_id.worker_id = '7.6';
ALTER SYSTEM SET snowflake_id.datacenter_id = '0x1F';
ALTER SYSTEM SET snowflake_id.worker_id = '';

-- The prefix is reserved: a misspelt setting is an error.
SET snowflake_id.wroker_id = 3;
SELECT current_setting('snowflake_id.wroker_id');

-- The SQLSTATE of each error, so that applications can tell them apart.
CREATE FUNCTION pg_temp.sqlstate_of(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE query;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE;
END $$;
SELECT query, pg_temp.sqlstate_of(query) AS sqlstate FROM (VALUES
    ('SELECT snowflake_decode(-1)'),
    ('SELECT snowflake_timestamp(-1)'),
    ('SELECT snowflake_from_timestamp(''2019-01-01+00'')'),
    ('SELECT snowflake_from_timestamp(''infinity'')'),
    ('SET snowflake_id.worker_id = 3'),
    ('SET snowflake_id.nonsense = 1'),
    ('SELECT snowflake_nextval()')) v(query);

-- The layout lock's way out is for superusers only: PUBLIC has no EXECUTE,
-- and a GRANT alone does not open it up either.
CREATE ROLE sf_plain_user;
SET ROLE sf_plain_user;
SELECT snowflake_accept_layout();
RESET ROLE;
GRANT EXECUTE ON FUNCTION snowflake_accept_layout() TO sf_plain_user;
SET ROLE sf_plain_user;
SELECT snowflake_accept_layout();
RESET ROLE;
REVOKE EXECUTE ON FUNCTION snowflake_accept_layout() FROM sf_plain_user;
DROP ROLE sf_plain_user;
-- With the layout unchanged there is nothing to accept: a NOTICE, and the
-- current floor, above every ID issued so far.
SELECT snowflake_nextval() AS last_id \gset
SELECT snowflake_accept_layout() > :last_id AS above_every_id;
