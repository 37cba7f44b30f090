-- Every lease, for the DBA.
CREATE OR REPLACE VIEW snowflake_id.snowflake_registry_leases AS
SELECT l.node_id,
       l.node_id >> c.worker_bits AS datacenter_id,
       l.node_id & ((1 << c.worker_bits) - 1) AS worker_id,
       CASE WHEN l.released_at IS NOT NULL THEN 'released'
            WHEN l.expires_at > clock_timestamp() THEN 'live'
            ELSE 'expired' END AS state,
       snowflake_registry_holder_text(l.holder_host, l.holder_port, l.holder_data_directory,
                                      l.holder_system_id) AS holder,
       l.holder_timeline,
       l.fence,
       l.acquired_at, l.renewed_at, l.expires_at, l.released_at,
       to_timestamp(l.reserved_until_ms / 1000.0) AS reserved_until,
       snowflake_registry_layout_text(c.datacenter_bits, c.worker_bits, c.sequence_bits,
                                      c.epoch_ms) AS layout
FROM snowflake_id.snowflake_registry_lease l CROSS JOIN snowflake_id.snowflake_registry_layout c;

COMMENT ON VIEW snowflake_id.snowflake_registry_leases IS
'Registry side: every node id lease, its holder, expiry and recorded bound';
