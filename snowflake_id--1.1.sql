-- snowflake_id 1.1
\echo Use "CREATE EXTENSION snowflake_id" to load this file. \quit

-- VOLATILE: every call returns a new ID. PARALLEL RESTRICTED: the generator
-- itself works from any process, but keeping calls in the leader keeps one
-- session's IDs in the order its rows are produced.
CREATE FUNCTION snowflake_nextval() RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_nextval'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION snowflake_nextval() IS
'Next Snowflake ID of this server: unique across servers with different node ids, strictly increasing on this server';

-- The decoders read the layout settings, which are fixed while the server
-- runs: STABLE, not IMMUTABLE, since a restart with another layout would
-- change their results.
CREATE FUNCTION snowflake_decode(id bigint, OUT ts timestamptz, OUT datacenter_id integer,
                                 OUT worker_id integer, OUT sequence integer)
RETURNS record
AS 'MODULE_PATHNAME', 'snowflake_decode'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION snowflake_decode(bigint) IS
'Splits a Snowflake ID into its time, datacenter id, worker id and sequence, by this server''s layout';

CREATE FUNCTION snowflake_timestamp(id bigint) RETURNS timestamptz
AS 'MODULE_PATHNAME', 'snowflake_timestamp'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION snowflake_timestamp(bigint) IS
'The time (to the millisecond) carried by a Snowflake ID, by this server''s layout';

CREATE FUNCTION snowflake_from_timestamp(ts timestamptz) RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_from_timestamp'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION snowflake_from_timestamp(timestamptz) IS
'The smallest ID that can carry the given time: WHERE id >= snowflake_from_timestamp(t) selects every ID made at or after t';

-- VOLATILE and PARALLEL UNSAFE: it writes the state file and WAL. Only
-- superusers: it changes what every session's IDs mean. The function checks
-- too, so that a GRANT alone cannot open it up.
CREATE FUNCTION snowflake_accept_layout() RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_accept_layout'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

REVOKE ALL ON FUNCTION snowflake_accept_layout() FROM PUBLIC;

COMMENT ON FUNCTION snowflake_accept_layout() IS
'Superuser only: accept the configured layout and epoch after a change, continuing above every ID issued before; returns the bound new IDs start from';
