-- snowflake_id 1.3 -> 1.4: the snowflake column type, whose JSON form is a
-- string, with its casts, operators and operator classes.
\echo Use "ALTER EXTENSION snowflake_id UPDATE TO '1.4'" to load this file. \quit

-- The snowflake column type (1.4): a bigint's 8 bytes, passed by value, the
-- same bits and text as the bigint, but written into JSON as a string, so
-- that IDs above 2^53 survive JavaScript (PostgreSQL writes numbers only
-- for its own numeric types, and any other type through its output
-- function, quoted). Comparison, hashing, output and binary send are
-- bigint's own internal functions; the input (text and binary) and the
-- casts from integers refuse negative values.
CREATE TYPE snowflake;

CREATE FUNCTION snowflake_in(cstring) RETURNS snowflake
AS 'MODULE_PATHNAME', 'snowflake_type_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_out(snowflake) RETURNS cstring
AS 'int8out' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_recv(internal) RETURNS snowflake
AS 'MODULE_PATHNAME', 'snowflake_type_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_send(snowflake) RETURNS bytea
AS 'int8send' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE snowflake (
    INPUT = snowflake_in, OUTPUT = snowflake_out,
    RECEIVE = snowflake_recv, SEND = snowflake_send,
    INTERNALLENGTH = 8, PASSEDBYVALUE, ALIGNMENT = double, STORAGE = plain
);

COMMENT ON TYPE snowflake IS
'A Snowflake ID: a non-negative bigint that JSON writes as a string';

-- Casts. To bigint: implicit and binary (the same bits), so every function
-- taking a bigint takes a snowflake, and a column changed back to bigint
-- is not rewritten. From bigint and integer: on assignment, checked, so
-- DEFAULT snowflake_nextval() and INSERT ... VALUES (42) work, and no
-- negative value gets in.
CREATE CAST (snowflake AS bigint) WITHOUT FUNCTION AS IMPLICIT;

CREATE FUNCTION snowflake(bigint) RETURNS snowflake
AS 'MODULE_PATHNAME', 'snowflake_type_from_bigint' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (bigint AS snowflake) WITH FUNCTION snowflake(bigint) AS ASSIGNMENT;

CREATE FUNCTION snowflake(integer) RETURNS snowflake
AS 'MODULE_PATHNAME', 'snowflake_type_from_integer' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (integer AS snowflake) WITH FUNCTION snowflake(integer) AS ASSIGNMENT;

-- Comparisons: snowflake with snowflake, and with bigint or integer on
-- either side, bigint's functions all (the bits are the same). LEAKPROOF as
-- bigint's.
CREATE FUNCTION snowflake_eq(snowflake, snowflake) RETURNS boolean
AS 'int8eq' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_ne(snowflake, snowflake) RETURNS boolean
AS 'int8ne' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_lt(snowflake, snowflake) RETURNS boolean
AS 'int8lt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_le(snowflake, snowflake) RETURNS boolean
AS 'int8le' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_gt(snowflake, snowflake) RETURNS boolean
AS 'int8gt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_ge(snowflake, snowflake) RETURNS boolean
AS 'int8ge' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_cmp(snowflake, snowflake) RETURNS integer
AS 'btint8cmp' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE FUNCTION snowflake_eq(snowflake, bigint) RETURNS boolean
AS 'int8eq' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_ne(snowflake, bigint) RETURNS boolean
AS 'int8ne' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_lt(snowflake, bigint) RETURNS boolean
AS 'int8lt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_le(snowflake, bigint) RETURNS boolean
AS 'int8le' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_gt(snowflake, bigint) RETURNS boolean
AS 'int8gt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_ge(snowflake, bigint) RETURNS boolean
AS 'int8ge' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_cmp(snowflake, bigint) RETURNS integer
AS 'btint8cmp' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE FUNCTION snowflake_eq(bigint, snowflake) RETURNS boolean
AS 'int8eq' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_ne(bigint, snowflake) RETURNS boolean
AS 'int8ne' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_lt(bigint, snowflake) RETURNS boolean
AS 'int8lt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_le(bigint, snowflake) RETURNS boolean
AS 'int8le' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_gt(bigint, snowflake) RETURNS boolean
AS 'int8gt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_ge(bigint, snowflake) RETURNS boolean
AS 'int8ge' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_cmp(bigint, snowflake) RETURNS integer
AS 'btint8cmp' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

-- With integer too: WHERE id = 42 would otherwise be ambiguous between
-- snowflake = bigint and bigint = integer.
CREATE FUNCTION snowflake_eq(snowflake, integer) RETURNS boolean
AS 'int84eq' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_ne(snowflake, integer) RETURNS boolean
AS 'int84ne' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_lt(snowflake, integer) RETURNS boolean
AS 'int84lt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_le(snowflake, integer) RETURNS boolean
AS 'int84le' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_gt(snowflake, integer) RETURNS boolean
AS 'int84gt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_ge(snowflake, integer) RETURNS boolean
AS 'int84ge' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_cmp(snowflake, integer) RETURNS integer
AS 'btint84cmp' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE FUNCTION snowflake_eq(integer, snowflake) RETURNS boolean
AS 'int48eq' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_ne(integer, snowflake) RETURNS boolean
AS 'int48ne' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_lt(integer, snowflake) RETURNS boolean
AS 'int48lt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_le(integer, snowflake) RETURNS boolean
AS 'int48le' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_gt(integer, snowflake) RETURNS boolean
AS 'int48gt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_ge(integer, snowflake) RETURNS boolean
AS 'int48ge' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_cmp(integer, snowflake) RETURNS integer
AS 'btint48cmp' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE FUNCTION snowflake_hash(snowflake) RETURNS integer
AS 'hashint8' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_hash_extended(snowflake, bigint) RETURNS bigint
AS 'hashint8extended' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OPERATOR = (LEFTARG = snowflake, RIGHTARG = snowflake, FUNCTION = snowflake_eq, COMMUTATOR = =,
                   NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
CREATE OPERATOR <> (LEFTARG = snowflake, RIGHTARG = snowflake, FUNCTION = snowflake_ne, COMMUTATOR = <>,
                    NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR < (LEFTARG = snowflake, RIGHTARG = snowflake, FUNCTION = snowflake_lt, COMMUTATOR = >,
                   NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (LEFTARG = snowflake, RIGHTARG = snowflake, FUNCTION = snowflake_le, COMMUTATOR = >=,
                    NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR > (LEFTARG = snowflake, RIGHTARG = snowflake, FUNCTION = snowflake_gt, COMMUTATOR = <,
                   NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR >= (LEFTARG = snowflake, RIGHTARG = snowflake, FUNCTION = snowflake_ge, COMMUTATOR = <=,
                    NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);

CREATE OPERATOR = (LEFTARG = snowflake, RIGHTARG = bigint, FUNCTION = snowflake_eq, COMMUTATOR = =,
                   NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
CREATE OPERATOR <> (LEFTARG = snowflake, RIGHTARG = bigint, FUNCTION = snowflake_ne, COMMUTATOR = <>,
                    NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR < (LEFTARG = snowflake, RIGHTARG = bigint, FUNCTION = snowflake_lt, COMMUTATOR = >,
                   NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (LEFTARG = snowflake, RIGHTARG = bigint, FUNCTION = snowflake_le, COMMUTATOR = >=,
                    NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR > (LEFTARG = snowflake, RIGHTARG = bigint, FUNCTION = snowflake_gt, COMMUTATOR = <,
                   NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR >= (LEFTARG = snowflake, RIGHTARG = bigint, FUNCTION = snowflake_ge, COMMUTATOR = <=,
                    NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);

CREATE OPERATOR = (LEFTARG = bigint, RIGHTARG = snowflake, FUNCTION = snowflake_eq, COMMUTATOR = =,
                   NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
CREATE OPERATOR <> (LEFTARG = bigint, RIGHTARG = snowflake, FUNCTION = snowflake_ne, COMMUTATOR = <>,
                    NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR < (LEFTARG = bigint, RIGHTARG = snowflake, FUNCTION = snowflake_lt, COMMUTATOR = >,
                   NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (LEFTARG = bigint, RIGHTARG = snowflake, FUNCTION = snowflake_le, COMMUTATOR = >=,
                    NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR > (LEFTARG = bigint, RIGHTARG = snowflake, FUNCTION = snowflake_gt, COMMUTATOR = <,
                   NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR >= (LEFTARG = bigint, RIGHTARG = snowflake, FUNCTION = snowflake_ge, COMMUTATOR = <=,
                    NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);

CREATE OPERATOR = (LEFTARG = snowflake, RIGHTARG = integer, FUNCTION = snowflake_eq, COMMUTATOR = =,
                   NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
CREATE OPERATOR <> (LEFTARG = snowflake, RIGHTARG = integer, FUNCTION = snowflake_ne, COMMUTATOR = <>,
                    NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR < (LEFTARG = snowflake, RIGHTARG = integer, FUNCTION = snowflake_lt, COMMUTATOR = >,
                   NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (LEFTARG = snowflake, RIGHTARG = integer, FUNCTION = snowflake_le, COMMUTATOR = >=,
                    NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR > (LEFTARG = snowflake, RIGHTARG = integer, FUNCTION = snowflake_gt, COMMUTATOR = <,
                   NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR >= (LEFTARG = snowflake, RIGHTARG = integer, FUNCTION = snowflake_ge, COMMUTATOR = <=,
                    NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);

CREATE OPERATOR = (LEFTARG = integer, RIGHTARG = snowflake, FUNCTION = snowflake_eq, COMMUTATOR = =,
                   NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
CREATE OPERATOR <> (LEFTARG = integer, RIGHTARG = snowflake, FUNCTION = snowflake_ne, COMMUTATOR = <>,
                    NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR < (LEFTARG = integer, RIGHTARG = snowflake, FUNCTION = snowflake_lt, COMMUTATOR = >,
                   NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (LEFTARG = integer, RIGHTARG = snowflake, FUNCTION = snowflake_le, COMMUTATOR = >=,
                    NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR > (LEFTARG = integer, RIGHTARG = snowflake, FUNCTION = snowflake_gt, COMMUTATOR = <,
                   NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR >= (LEFTARG = integer, RIGHTARG = snowflake, FUNCTION = snowflake_ge, COMMUTATOR = <=,
                    NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);

COMMENT ON FUNCTION snowflake_eq(snowflake, snowflake) IS 'snowflake = snowflake, by bigint''s int8eq';
COMMENT ON FUNCTION snowflake_ne(snowflake, snowflake) IS 'snowflake <> snowflake, by bigint''s int8ne';
COMMENT ON FUNCTION snowflake_lt(snowflake, snowflake) IS 'snowflake < snowflake, by bigint''s int8lt';
COMMENT ON FUNCTION snowflake_le(snowflake, snowflake) IS 'snowflake <= snowflake, by bigint''s int8le';
COMMENT ON FUNCTION snowflake_gt(snowflake, snowflake) IS 'snowflake > snowflake, by bigint''s int8gt';
COMMENT ON FUNCTION snowflake_ge(snowflake, snowflake) IS 'snowflake >= snowflake, by bigint''s int8ge';
COMMENT ON FUNCTION snowflake_cmp(snowflake, snowflake) IS 'Comparison support for the btree family: snowflake against snowflake, by bigint''s btint8cmp';
COMMENT ON FUNCTION snowflake_eq(snowflake, bigint) IS 'snowflake = bigint, by bigint''s int8eq';
COMMENT ON FUNCTION snowflake_ne(snowflake, bigint) IS 'snowflake <> bigint, by bigint''s int8ne';
COMMENT ON FUNCTION snowflake_lt(snowflake, bigint) IS 'snowflake < bigint, by bigint''s int8lt';
COMMENT ON FUNCTION snowflake_le(snowflake, bigint) IS 'snowflake <= bigint, by bigint''s int8le';
COMMENT ON FUNCTION snowflake_gt(snowflake, bigint) IS 'snowflake > bigint, by bigint''s int8gt';
COMMENT ON FUNCTION snowflake_ge(snowflake, bigint) IS 'snowflake >= bigint, by bigint''s int8ge';
COMMENT ON FUNCTION snowflake_cmp(snowflake, bigint) IS 'Comparison support for the btree family: snowflake against bigint, by bigint''s btint8cmp';
COMMENT ON FUNCTION snowflake_eq(bigint, snowflake) IS 'bigint = snowflake, by bigint''s int8eq';
COMMENT ON FUNCTION snowflake_ne(bigint, snowflake) IS 'bigint <> snowflake, by bigint''s int8ne';
COMMENT ON FUNCTION snowflake_lt(bigint, snowflake) IS 'bigint < snowflake, by bigint''s int8lt';
COMMENT ON FUNCTION snowflake_le(bigint, snowflake) IS 'bigint <= snowflake, by bigint''s int8le';
COMMENT ON FUNCTION snowflake_gt(bigint, snowflake) IS 'bigint > snowflake, by bigint''s int8gt';
COMMENT ON FUNCTION snowflake_ge(bigint, snowflake) IS 'bigint >= snowflake, by bigint''s int8ge';
COMMENT ON FUNCTION snowflake_cmp(bigint, snowflake) IS 'Comparison support for the btree family: bigint against snowflake, by bigint''s btint8cmp';
COMMENT ON FUNCTION snowflake_eq(snowflake, integer) IS 'snowflake = integer, by bigint''s int84eq';
COMMENT ON FUNCTION snowflake_ne(snowflake, integer) IS 'snowflake <> integer, by bigint''s int84ne';
COMMENT ON FUNCTION snowflake_lt(snowflake, integer) IS 'snowflake < integer, by bigint''s int84lt';
COMMENT ON FUNCTION snowflake_le(snowflake, integer) IS 'snowflake <= integer, by bigint''s int84le';
COMMENT ON FUNCTION snowflake_gt(snowflake, integer) IS 'snowflake > integer, by bigint''s int84gt';
COMMENT ON FUNCTION snowflake_ge(snowflake, integer) IS 'snowflake >= integer, by bigint''s int84ge';
COMMENT ON FUNCTION snowflake_cmp(snowflake, integer) IS 'Comparison support for the btree family: snowflake against integer, by bigint''s btint84cmp';
COMMENT ON FUNCTION snowflake_eq(integer, snowflake) IS 'integer = snowflake, by bigint''s int48eq';
COMMENT ON FUNCTION snowflake_ne(integer, snowflake) IS 'integer <> snowflake, by bigint''s int48ne';
COMMENT ON FUNCTION snowflake_lt(integer, snowflake) IS 'integer < snowflake, by bigint''s int48lt';
COMMENT ON FUNCTION snowflake_le(integer, snowflake) IS 'integer <= snowflake, by bigint''s int48le';
COMMENT ON FUNCTION snowflake_gt(integer, snowflake) IS 'integer > snowflake, by bigint''s int48gt';
COMMENT ON FUNCTION snowflake_ge(integer, snowflake) IS 'integer >= snowflake, by bigint''s int48ge';
COMMENT ON FUNCTION snowflake_cmp(integer, snowflake) IS 'Comparison support for the btree family: integer against snowflake, by bigint''s btint48cmp';
COMMENT ON FUNCTION snowflake_in(cstring) IS 'Text input of the snowflake type: decimal digits, no negative value';
COMMENT ON FUNCTION snowflake_out(snowflake) IS 'Text output of the snowflake type: bigint''s';
COMMENT ON FUNCTION snowflake_recv(internal) IS 'Binary input of the snowflake type: bigint''s, no negative value';
COMMENT ON FUNCTION snowflake_send(snowflake) IS 'Binary output of the snowflake type: bigint''s';
COMMENT ON FUNCTION snowflake(bigint) IS 'The assignment cast from bigint: refuses a negative value';
COMMENT ON FUNCTION snowflake(integer) IS 'The assignment cast from integer: refuses a negative value';
COMMENT ON FUNCTION snowflake_hash(snowflake) IS 'Hash support: bigint''s hashint8';
COMMENT ON FUNCTION snowflake_hash_extended(snowflake, bigint) IS 'Hash support: bigint''s hashint8extended';

-- One btree and one hash family for snowflake and bigint together: primary
-- keys, unique constraints, merge and hash joins, GROUP BY and DISTINCT;
-- WHERE id >= snowflake_from_timestamp(...) (a bigint) uses an index on a
-- snowflake column and prunes its partitions; and a bigint column can
-- reference a snowflake key. bigint's own operators join the families, as
-- a foreign key from bigint needs bigint = bigint in the key's family.
CREATE OPERATOR FAMILY snowflake_ops USING btree;
CREATE OPERATOR CLASS snowflake_ops DEFAULT FOR TYPE snowflake USING btree FAMILY snowflake_ops AS
    OPERATOR 1 < (snowflake, snowflake), OPERATOR 2 <= (snowflake, snowflake),
    OPERATOR 3 = (snowflake, snowflake), OPERATOR 4 >= (snowflake, snowflake),
    OPERATOR 5 > (snowflake, snowflake),
    FUNCTION 1 snowflake_cmp(snowflake, snowflake),
    FUNCTION 2 (snowflake, snowflake) btint8sortsupport(internal);
ALTER OPERATOR FAMILY snowflake_ops USING btree ADD
    OPERATOR 1 < (snowflake, bigint), OPERATOR 2 <= (snowflake, bigint),
    OPERATOR 3 = (snowflake, bigint), OPERATOR 4 >= (snowflake, bigint),
    OPERATOR 5 > (snowflake, bigint),
    FUNCTION 1 snowflake_cmp(snowflake, bigint),
    OPERATOR 1 < (bigint, snowflake), OPERATOR 2 <= (bigint, snowflake),
    OPERATOR 3 = (bigint, snowflake), OPERATOR 4 >= (bigint, snowflake),
    OPERATOR 5 > (bigint, snowflake),
    FUNCTION 1 snowflake_cmp(bigint, snowflake),
    OPERATOR 1 < (bigint, bigint), OPERATOR 2 <= (bigint, bigint),
    OPERATOR 3 = (bigint, bigint), OPERATOR 4 >= (bigint, bigint),
    OPERATOR 5 > (bigint, bigint),
    FUNCTION 1 btint8cmp(bigint, bigint),
    FUNCTION 2 (bigint, bigint) btint8sortsupport(internal),
    OPERATOR 1 < (snowflake, integer), OPERATOR 2 <= (snowflake, integer),
    OPERATOR 3 = (snowflake, integer), OPERATOR 4 >= (snowflake, integer),
    OPERATOR 5 > (snowflake, integer),
    FUNCTION 1 snowflake_cmp(snowflake, integer),
    OPERATOR 1 < (integer, snowflake), OPERATOR 2 <= (integer, snowflake),
    OPERATOR 3 = (integer, snowflake), OPERATOR 4 >= (integer, snowflake),
    OPERATOR 5 > (integer, snowflake),
    FUNCTION 1 snowflake_cmp(integer, snowflake);

CREATE OPERATOR FAMILY snowflake_hash_ops USING hash;
CREATE OPERATOR CLASS snowflake_hash_ops DEFAULT FOR TYPE snowflake USING hash
    FAMILY snowflake_hash_ops AS
    OPERATOR 1 = (snowflake, snowflake),
    FUNCTION 1 snowflake_hash(snowflake),
    FUNCTION 2 snowflake_hash_extended(snowflake, bigint);
ALTER OPERATOR FAMILY snowflake_hash_ops USING hash ADD
    OPERATOR 1 = (snowflake, bigint), OPERATOR 1 = (bigint, snowflake),
    OPERATOR 1 = (bigint, bigint),
    OPERATOR 1 = (snowflake, integer), OPERATOR 1 = (integer, snowflake),
    FUNCTION 1 hashint8(bigint), FUNCTION 2 hashint8extended(bigint, bigint),
    FUNCTION 1 hashint4(integer), FUNCTION 2 hashint4extended(integer, bigint);

-- BRIN minmax, for large append-only tables keyed by time-ordered IDs.
CREATE OPERATOR FAMILY snowflake_minmax_ops USING brin;
CREATE OPERATOR CLASS snowflake_minmax_ops DEFAULT FOR TYPE snowflake USING brin
    FAMILY snowflake_minmax_ops AS
    OPERATOR 1 < (snowflake, snowflake), OPERATOR 2 <= (snowflake, snowflake),
    OPERATOR 3 = (snowflake, snowflake), OPERATOR 4 >= (snowflake, snowflake),
    OPERATOR 5 > (snowflake, snowflake),
    FUNCTION 1 brin_minmax_opcinfo(internal),
    FUNCTION 2 brin_minmax_add_value(internal, internal, internal, internal),
    FUNCTION 3 brin_minmax_consistent(internal, internal, internal),
    FUNCTION 4 brin_minmax_union(internal, internal, internal);
ALTER OPERATOR FAMILY snowflake_minmax_ops USING brin ADD
    OPERATOR 1 < (snowflake, bigint), OPERATOR 2 <= (snowflake, bigint),
    OPERATOR 3 = (snowflake, bigint), OPERATOR 4 >= (snowflake, bigint),
    OPERATOR 5 > (snowflake, bigint);
