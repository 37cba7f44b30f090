-- Registry side, from 1.7: what the registry keeps of each timeline of each
-- system apart from leases, which come and go (docs/many-servers.md, "Copies
-- and successors"): the highest WAL position a holder of the timeline
-- recorded, which tells its promoted standby (it left the timeline at or
-- after it) from a copy (before it); whether such a successor held a lease,
-- after which the timeline's servers are refused for good; and until when a
-- server of it whose lease lapsed waits before it leases again.
CREATE TABLE IF NOT EXISTS snowflake_id.snowflake_registry_timeline (
    system_id numeric(20, 0) NOT NULL,         -- pg_control's system identifier
    timeline integer NOT NULL,
    wal_position bigint NOT NULL DEFAULT 0,
    superseded_by integer,                     -- the successor's timeline
    superseded_at timestamptz,
    superseded_by_holder text,
    resume_at_ms bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (system_id, timeline)
);

COMMENT ON TABLE snowflake_id.snowflake_registry_timeline IS
'Registry side: per system and timeline, the highest WAL position its lease holders recorded, and the successor that replaced it';
SELECT pg_catalog.pg_extension_config_dump('snowflake_id.snowflake_registry_timeline', '');

-- The database's owner reads it and adds rows, as its pg_dump and
-- pg_restore must (snowflake_registry_lease.sql says why no more).
GRANT SELECT, INSERT ON snowflake_id.snowflake_registry_timeline TO pg_database_owner;
