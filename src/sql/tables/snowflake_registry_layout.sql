------------------------------------------------------------------------------
-- The registry of node ids (1.3). A database where snowflake_id is installed
-- can serve as the registry of a cluster of servers: each server's background
-- worker (snowflake_id.registry) leases a node id here over libpq, renews the
-- lease and records how far its IDs may go. Every call is one transaction
-- that locks the lease table, so the protocol is atomic in the registry; the
-- server side only trusts what a call returned. Its tables and the view of
-- the leases are in the schema snowflake_id (1.6): a server finds them as
-- the extension's members, wherever they are (src/registry/
-- pq_store.cpp).
--
-- Fencing: a lease carries a fence, which grows whenever another run of a
-- server takes the node id; renewals and releases must present it. A holder
-- records, with every renewal, reserved_until_ms: the highest ID time (ms
-- since 1970) it may issue before its next renewal, and it never issues
-- above the bound it has recorded. A new holder starts above the old
-- holder's recorded bound plus the old holder's max_clock_drift, so a paused
-- or partitioned old holder, which can only issue below its recorded bound,
-- never collides with it. The rules are the library's (1.5), not SQL's:
-- src/core/lease_rules.hpp.

-- The layout and epoch of the cluster: the first holder's. Every later
-- acquisition must match it.
CREATE TABLE IF NOT EXISTS snowflake_id.snowflake_registry_layout (
    only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    datacenter_bits integer NOT NULL,
    worker_bits integer NOT NULL,
    sequence_bits integer NOT NULL,
    epoch_ms bigint NOT NULL,
    recorded_at timestamptz NOT NULL,
    recorded_by text NOT NULL
);

COMMENT ON TABLE snowflake_id.snowflake_registry_layout IS
'Registry side: the layout and epoch of the cluster, as its first holder recorded them; every later acquisition must match them';

-- pg_dump keeps the leases and the layout: a registry restored from a dump
-- must still know every recorded bound.
SELECT pg_catalog.pg_extension_config_dump('snowflake_id.snowflake_registry_layout', '');

-- From 1.7: the database's owner reads it and adds rows, as its pg_dump
-- and pg_restore must to carry the rows (pg_extension_config_dump above):
-- without it, the owner could not dump a database with the extension. No
-- UPDATE or DELETE: an added row cannot take a node id from its holder (the
-- key refuses it), so at worst it holds one back. A DO block, so that the
-- update grants it on the table 1.6 made too (tools/sql-repair sets a
-- GRANT's privileges on the objects it creates only).
DO $grant$
BEGIN
    GRANT SELECT, INSERT ON snowflake_id.snowflake_registry_layout TO pg_database_owner;
END
$grant$;
