-- Casts. To bigint: implicit and binary (the same bits), so every function
-- taking a bigint takes a snowflake, and a column changed back to bigint
-- is not rewritten. From bigint and integer: on assignment, checked, so
-- DEFAULT snowflake_nextval() and INSERT ... VALUES (42) work, and no
-- negative value gets in.
CREATE CAST (snowflake AS bigint) WITHOUT FUNCTION AS IMPLICIT;

CREATE OR REPLACE FUNCTION snowflake(bigint) RETURNS snowflake
AS 'MODULE_PATHNAME', 'snowflake_type_from_bigint' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (bigint AS snowflake) WITH FUNCTION snowflake(bigint) AS ASSIGNMENT;

CREATE OR REPLACE FUNCTION snowflake_eq(snowflake, bigint) RETURNS boolean
AS 'int8eq' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_ne(snowflake, bigint) RETURNS boolean
AS 'int8ne' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_lt(snowflake, bigint) RETURNS boolean
AS 'int8lt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_le(snowflake, bigint) RETURNS boolean
AS 'int8le' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_gt(snowflake, bigint) RETURNS boolean
AS 'int8gt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_ge(snowflake, bigint) RETURNS boolean
AS 'int8ge' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_cmp(snowflake, bigint) RETURNS integer
AS 'btint8cmp' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OR REPLACE FUNCTION snowflake_eq(bigint, snowflake) RETURNS boolean
AS 'int8eq' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_ne(bigint, snowflake) RETURNS boolean
AS 'int8ne' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_lt(bigint, snowflake) RETURNS boolean
AS 'int8lt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_le(bigint, snowflake) RETURNS boolean
AS 'int8le' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_gt(bigint, snowflake) RETURNS boolean
AS 'int8gt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_ge(bigint, snowflake) RETURNS boolean
AS 'int8ge' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_cmp(bigint, snowflake) RETURNS integer
AS 'btint8cmp' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

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
COMMENT ON FUNCTION snowflake(bigint) IS 'The assignment cast from bigint: refuses a negative value';
COMMENT ON CAST (snowflake AS bigint) IS
'Implicit and binary: the same bits, so every function and operator that takes a bigint takes a snowflake';
COMMENT ON CAST (bigint AS snowflake) IS
'On assignment, by snowflake(bigint): DEFAULT snowflake_nextval() and bigint values go into a snowflake column, a negative value is refused';
COMMENT ON OPERATOR = (snowflake, bigint) IS 'Equal, compared as bigints; an index on a snowflake column serves it';
COMMENT ON OPERATOR <> (snowflake, bigint) IS 'Not equal, compared as bigints';
COMMENT ON OPERATOR < (snowflake, bigint) IS 'Less than, compared as bigints; an index on a snowflake column serves it';
COMMENT ON OPERATOR <= (snowflake, bigint) IS 'Less than or equal, compared as bigints; an index on a snowflake column serves it';
COMMENT ON OPERATOR > (snowflake, bigint) IS 'Greater than, compared as bigints; an index on a snowflake column serves it';
COMMENT ON OPERATOR >= (snowflake, bigint) IS 'Greater than or equal, compared as bigints; an index on a snowflake column serves it';
COMMENT ON OPERATOR = (bigint, snowflake) IS 'Equal, compared as bigints; an index on a snowflake column serves it';
COMMENT ON OPERATOR <> (bigint, snowflake) IS 'Not equal, compared as bigints';
COMMENT ON OPERATOR < (bigint, snowflake) IS 'Less than, compared as bigints; an index on a snowflake column serves it';
COMMENT ON OPERATOR <= (bigint, snowflake) IS 'Less than or equal, compared as bigints; an index on a snowflake column serves it';
COMMENT ON OPERATOR > (bigint, snowflake) IS 'Greater than, compared as bigints; an index on a snowflake column serves it';
COMMENT ON OPERATOR >= (bigint, snowflake) IS 'Greater than or equal, compared as bigints; an index on a snowflake column serves it';
