-- snowflake_id 1.1 -> 1.2: the SQL toolkit: composing IDs, decoding foreign
-- layouts, blocks of IDs, MongoDB ObjectIds and the status view.
\echo Use "ALTER EXTENSION snowflake_id UPDATE TO '1.2'" to load this file. \quit

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

COMMENT ON VIEW snowflake_status IS
'One row: the generator''s node, layout, last issued time, lead over the wall clock, reservation, and counters since the server started';
