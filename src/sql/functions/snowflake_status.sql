-- VOLATILE: it reads live counters. No lock is taken.
CREATE OR REPLACE FUNCTION snowflake_status(
    OUT worker_id integer, OUT datacenter_id integer,
    OUT timestamp_bits integer, OUT datacenter_bits integer, OUT worker_bits integer,
    OUT sequence_bits integer, OUT epoch timestamptz,
    OUT last_issued_at timestamptz, OUT ahead_of_clock_ms bigint, OUT catching_up boolean,
    OUT reserved_until timestamptz,
    OUT ids_issued bigint, OUT sequence_exhausted bigint, OUT waits bigint,
    OUT clock_backwards bigint, OUT errors bigint,
    OUT layout_ends_at timestamptz,
    OUT registry text, OUT node_id_source text, OUT lease_state text,
    OUT lease_expires_at timestamptz, OUT lease_renewals bigint, OUT lease_failures bigint,
    OUT lease_switches bigint, OUT lease_message text)
RETURNS record
AS 'MODULE_PATHNAME', 'snowflake_status'
LANGUAGE C VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION snowflake_status() IS
'What the generator is doing: node, layout, last issued time, lead over the wall clock, reservation, counters since the server started, and the node id lease';
