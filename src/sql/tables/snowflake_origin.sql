------------------------------------------------------------------------------
-- Where a database's data came from (1.7): the server that created the
-- extension in it, and every server whose data a logical restore (pg_dump,
-- pg_restore, pg_dumpall) brought in, since pg_dump carries the rows with
-- the extension. A row of another server that this one has not checked
-- (checked_by) makes snowflake_nextval() check the database before its
-- next ID: the floor is raised above every value of every column whose
-- default calls snowflake_nextval() (snowflake_check_restore(),
-- docs/durability.md, "Logical restores"). No primary key: a restore into
-- a database that holds the same origin adds it again, which does no harm,
-- where a conflict would lose the restore's rows.
CREATE TABLE IF NOT EXISTS snowflake_id.snowflake_origin (
    system_identifier numeric NOT NULL,
    database_name name NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    checked_by numeric,
    checked_at timestamptz
);

COMMENT ON TABLE snowflake_id.snowflake_origin IS
'The servers a database''s data came from: this server at CREATE EXTENSION, and those a logical restore brought in; a server checks another''s rows for restored IDs before it issues';

SELECT pg_catalog.pg_extension_config_dump('snowflake_id.snowflake_origin', '');

-- A restore run by a non-superuser (the database's owner, the extension
-- created beforehand) must be able to bring its rows in: otherwise no
-- check. Not every role: a row costs every session of the database a
-- check. What a row can do is bounded by the check, not by this grant:
-- values a non-superuser can write move the floor at most max_clock_drift
-- ahead, and further ahead only that database refuses (src/pg/
-- pg_origins.cpp). The check reads the table through the access method,
-- so roles without SELECT on it mint.
GRANT SELECT, INSERT ON snowflake_id.snowflake_origin TO pg_database_owner;

CREATE OR REPLACE TRIGGER snowflake_origin_arrived
AFTER INSERT OR UPDATE ON snowflake_id.snowflake_origin
FOR EACH STATEMENT EXECUTE FUNCTION @extschema@.snowflake_origin_arrived();

-- The server the extension is created (or updated to 1.7) on.
INSERT INTO snowflake_id.snowflake_origin (system_identifier, database_name)
SELECT @extschema@.snowflake_system_identifier(), pg_catalog.current_database()
WHERE NOT EXISTS (
    SELECT FROM snowflake_id.snowflake_origin o
    WHERE o.system_identifier OPERATOR(pg_catalog.=) @extschema@.snowflake_system_identifier());
