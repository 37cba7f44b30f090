CREATE TABLE IF NOT EXISTS snowflake_id.snowflake_registry_lease (
    node_id integer PRIMARY KEY CHECK (node_id >= 0),
    fence bigint NOT NULL,
    holder_system_id numeric(20, 0) NOT NULL,  -- pg_control's system identifier
    holder_instance bigint NOT NULL,           -- one run of the holding server
    holder_host text NOT NULL,
    holder_port integer NOT NULL,
    holder_data_directory text NOT NULL,
    holder_timeline integer NOT NULL,
    holder_max_clock_drift_ms bigint NOT NULL,
    acquired_at timestamptz NOT NULL,
    renewed_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    released_at timestamptz,                   -- given back by a clean stop
    reserved_until_ms bigint NOT NULL          -- IDs of this node carry times below it
);

COMMENT ON TABLE snowflake_id.snowflake_registry_lease IS
'Registry side: one row per node id ever leased: its holder, fence, expiry, and the bound its IDs stay below (reserved_until_ms)';
SELECT pg_catalog.pg_extension_config_dump('snowflake_id.snowflake_registry_lease', '');

-- From 1.7: the holder's WAL position at its last grant, renewal or
-- give-back, and the run (holder_instance) that recorded it; a row whose
-- holder a server before 1.7 wrote (another run) counts as no position.
-- Added rather than listed above, so that an install updated from 1.6 and a
-- new one have the same columns in the same order.
ALTER TABLE snowflake_id.snowflake_registry_lease
    ADD COLUMN IF NOT EXISTS holder_wal_position bigint NOT NULL DEFAULT 0,
    ADD COLUMN IF NOT EXISTS wal_position_instance bigint NOT NULL DEFAULT 0;

-- From 1.7: the database's owner reads it and adds rows, as its pg_dump
-- and pg_restore must to carry the rows (pg_extension_config_dump above):
-- without it, the owner could not dump a database with the extension. No
-- UPDATE or DELETE: an added row cannot take a node id from its holder (the
-- key refuses it), so at worst it holds one back. A DO block, so that the
-- update grants it on the table 1.6 made too (tools/sql-repair sets a
-- GRANT's privileges on the objects it creates only).
DO $grant$
BEGIN
    GRANT SELECT, INSERT ON snowflake_id.snowflake_registry_lease TO pg_database_owner;
END
$grant$;
