-- The snowflake column type (1.4): a bigint's 8 bytes, passed by value, the
-- same bits and text as the bigint, but written into JSON as a string, so
-- that IDs above 2^53 survive JavaScript (PostgreSQL writes numbers only
-- for its own numeric types, and any other type through its output
-- function, quoted). Comparison, hashing, output and binary send are
-- bigint's own internal functions; the input (text and binary) and the
-- casts from integers refuse negative values.
CREATE TYPE snowflake;

CREATE OR REPLACE FUNCTION snowflake_in(cstring) RETURNS snowflake
AS 'MODULE_PATHNAME', 'snowflake_type_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION snowflake_out(snowflake) RETURNS cstring
AS 'int8out' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION snowflake_recv(internal) RETURNS snowflake
AS 'MODULE_PATHNAME', 'snowflake_type_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION snowflake_send(snowflake) RETURNS bytea
AS 'int8send' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE snowflake (
    INPUT = snowflake_in, OUTPUT = snowflake_out,
    RECEIVE = snowflake_recv, SEND = snowflake_send,
    INTERNALLENGTH = 8, PASSEDBYVALUE, ALIGNMENT = double, STORAGE = plain
);

COMMENT ON TYPE snowflake IS
'A Snowflake ID: a non-negative bigint that JSON writes as a string';
COMMENT ON FUNCTION snowflake_in(cstring) IS 'Text input of the snowflake type: decimal digits, no negative value';
COMMENT ON FUNCTION snowflake_out(snowflake) IS 'Text output of the snowflake type: bigint''s';
COMMENT ON FUNCTION snowflake_recv(internal) IS 'Binary input of the snowflake type: bigint''s, no negative value';
COMMENT ON FUNCTION snowflake_send(snowflake) IS 'Binary output of the snowflake type: bigint''s';
