-- snowflake_id 1.3
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

-- STABLE like snowflake_decode(id): it packs by the server's layout settings.
CREATE FUNCTION snowflake_compose(ts timestamptz, worker_id integer, sequence integer,
                                  datacenter_id integer DEFAULT 0)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_compose'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION snowflake_compose(timestamptz, integer, integer, integer) IS
'The ID that snowflake_decode(id) splits into these fields, by this server''s layout; the time is truncated to the millisecond';

-- IMMUTABLE: the layout is an argument, and nothing else goes in, so the
-- result never changes; usable in index expressions and partition bounds.
CREATE FUNCTION snowflake_decode(id bigint, layout text, OUT ts timestamptz,
                                 OUT datacenter_id integer, OUT worker_id integer,
                                 OUT sequence integer)
RETURNS record
AS 'MODULE_PATHNAME', 'snowflake_decode_foreign'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION snowflake_decode(bigint, text) IS
'Splits an ID minted elsewhere by a preset layout (twitter, discord, instagram, sonyflake) or a spec such as ''time=41,datacenter=5,worker=5,sequence=12;epoch=1288834974657;unit=1ms''';

CREATE FUNCTION snowflake_timestamp(id bigint, layout text) RETURNS timestamptz
AS 'MODULE_PATHNAME', 'snowflake_timestamp_foreign'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION snowflake_timestamp(bigint, text) IS
'The time carried by an ID minted elsewhere, by a preset layout or a spec (see snowflake_decode(bigint, text))';

-- VOLATILE and PARALLEL RESTRICTED, like snowflake_nextval(). STRICT: a NULL
-- count returns no rows.
CREATE FUNCTION snowflake_nextval(n integer) RETURNS SETOF bigint
AS 'MODULE_PATHNAME', 'snowflake_nextval_block'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION snowflake_nextval(integer) IS
'A block of n IDs (1 to 1000000) taken in one atomic step: strictly increasing, and no other session gets an ID between the first and the last';

-- VOLATILE: a new ObjectId per call. PARALLEL SAFE: each process draws its
-- own random part and counter, as MongoDB's drivers do per process.
CREATE FUNCTION objectid_generate() RETURNS text
AS 'MODULE_PATHNAME', 'objectid_generate'
LANGUAGE C VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION objectid_generate() IS
'A new MongoDB ObjectId as 24 lowercase hex digits: 4 bytes of seconds, 5 random bytes per process, a 3-byte counter';

CREATE FUNCTION objectid_timestamp(objectid text) RETURNS timestamptz
AS 'MODULE_PATHNAME', 'objectid_timestamp'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION objectid_timestamp(text) IS
'The creation time (to the second) carried by a MongoDB ObjectId given as 24 hex digits';

-- VOLATILE: it reads live counters. No lock is taken.
CREATE FUNCTION snowflake_status(
    OUT worker_id integer, OUT datacenter_id integer,
    OUT timestamp_bits integer, OUT datacenter_bits integer, OUT worker_bits integer,
    OUT sequence_bits integer, OUT epoch timestamptz,
    OUT last_issued_at timestamptz, OUT ahead_of_clock_ms bigint, OUT catching_up boolean,
    OUT reserved_until timestamptz,
    OUT ids_issued bigint, OUT sequence_exhausted bigint, OUT waits bigint,
    OUT clock_backwards bigint, OUT errors bigint,
    OUT layout_ends_at timestamptz)
RETURNS record
AS 'MODULE_PATHNAME', 'snowflake_status'
LANGUAGE C VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION snowflake_status() IS
'What the generator is doing: node, layout, last issued time, lead over the wall clock, reservation, and counters since the server started';

CREATE VIEW snowflake_status AS SELECT * FROM snowflake_status();

-- Readable by every role, like the function behind it (EXECUTE for PUBLIC,
-- as for every function) and like PostgreSQL's own pg_stat_* views: it shows
-- the node, the layout and counters, nothing of any table's contents.
GRANT SELECT ON snowflake_status TO PUBLIC;

COMMENT ON VIEW snowflake_status IS
'One row: the generator''s node, layout, last issued time, lead over the wall clock, reservation, and counters since the server started';
