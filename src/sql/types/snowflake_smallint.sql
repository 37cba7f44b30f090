-- With smallint (1.5): psycopg 3 sends a Python int below 32768 as a
-- smallint, and snowflake = smallint was ambiguous between the bigint and
-- the integer operators. bigint's own cross-type functions, as for integer;
-- the cast refuses a negative value as the others do.
CREATE OR REPLACE FUNCTION snowflake(smallint) RETURNS snowflake
AS 'MODULE_PATHNAME', 'snowflake_type_from_smallint' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (smallint AS snowflake) WITH FUNCTION snowflake(smallint) AS ASSIGNMENT;

CREATE OR REPLACE FUNCTION snowflake_eq(snowflake, smallint) RETURNS boolean
AS 'int82eq' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_ne(snowflake, smallint) RETURNS boolean
AS 'int82ne' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_lt(snowflake, smallint) RETURNS boolean
AS 'int82lt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_le(snowflake, smallint) RETURNS boolean
AS 'int82le' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_gt(snowflake, smallint) RETURNS boolean
AS 'int82gt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_ge(snowflake, smallint) RETURNS boolean
AS 'int82ge' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_cmp(snowflake, smallint) RETURNS integer
AS 'btint82cmp' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_eq(smallint, snowflake) RETURNS boolean
AS 'int28eq' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_ne(smallint, snowflake) RETURNS boolean
AS 'int28ne' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_lt(smallint, snowflake) RETURNS boolean
AS 'int28lt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_le(smallint, snowflake) RETURNS boolean
AS 'int28le' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_gt(smallint, snowflake) RETURNS boolean
AS 'int28gt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_ge(smallint, snowflake) RETURNS boolean
AS 'int28ge' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_cmp(smallint, snowflake) RETURNS integer
AS 'btint28cmp' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OPERATOR = (LEFTARG = snowflake, RIGHTARG = smallint, FUNCTION = snowflake_eq, COMMUTATOR = =,
                   NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
CREATE OPERATOR <> (LEFTARG = snowflake, RIGHTARG = smallint, FUNCTION = snowflake_ne, COMMUTATOR = <>,
                    NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR < (LEFTARG = snowflake, RIGHTARG = smallint, FUNCTION = snowflake_lt, COMMUTATOR = >,
                   NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (LEFTARG = snowflake, RIGHTARG = smallint, FUNCTION = snowflake_le, COMMUTATOR = >=,
                    NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR > (LEFTARG = snowflake, RIGHTARG = smallint, FUNCTION = snowflake_gt, COMMUTATOR = <,
                   NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR >= (LEFTARG = snowflake, RIGHTARG = smallint, FUNCTION = snowflake_ge, COMMUTATOR = <=,
                    NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
CREATE OPERATOR = (LEFTARG = smallint, RIGHTARG = snowflake, FUNCTION = snowflake_eq, COMMUTATOR = =,
                   NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
CREATE OPERATOR <> (LEFTARG = smallint, RIGHTARG = snowflake, FUNCTION = snowflake_ne, COMMUTATOR = <>,
                    NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR < (LEFTARG = smallint, RIGHTARG = snowflake, FUNCTION = snowflake_lt, COMMUTATOR = >,
                   NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (LEFTARG = smallint, RIGHTARG = snowflake, FUNCTION = snowflake_le, COMMUTATOR = >=,
                    NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR > (LEFTARG = smallint, RIGHTARG = snowflake, FUNCTION = snowflake_gt, COMMUTATOR = <,
                   NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR >= (LEFTARG = smallint, RIGHTARG = snowflake, FUNCTION = snowflake_ge, COMMUTATOR = <=,
                    NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);

COMMENT ON FUNCTION snowflake(smallint) IS 'The assignment cast from smallint: refuses a negative value';
COMMENT ON FUNCTION snowflake_eq(snowflake, smallint) IS 'snowflake = smallint, by bigint''s int82eq';
COMMENT ON FUNCTION snowflake_ne(snowflake, smallint) IS 'snowflake <> smallint, by bigint''s int82ne';
COMMENT ON FUNCTION snowflake_lt(snowflake, smallint) IS 'snowflake < smallint, by bigint''s int82lt';
COMMENT ON FUNCTION snowflake_le(snowflake, smallint) IS 'snowflake <= smallint, by bigint''s int82le';
COMMENT ON FUNCTION snowflake_gt(snowflake, smallint) IS 'snowflake > smallint, by bigint''s int82gt';
COMMENT ON FUNCTION snowflake_ge(snowflake, smallint) IS 'snowflake >= smallint, by bigint''s int82ge';
COMMENT ON FUNCTION snowflake_cmp(snowflake, smallint) IS 'Comparison support for the btree family: snowflake against smallint, by bigint''s btint82cmp';
COMMENT ON FUNCTION snowflake_eq(smallint, snowflake) IS 'smallint = snowflake, by bigint''s int28eq';
COMMENT ON FUNCTION snowflake_ne(smallint, snowflake) IS 'smallint <> snowflake, by bigint''s int28ne';
COMMENT ON FUNCTION snowflake_lt(smallint, snowflake) IS 'smallint < snowflake, by bigint''s int28lt';
COMMENT ON FUNCTION snowflake_le(smallint, snowflake) IS 'smallint <= snowflake, by bigint''s int28le';
COMMENT ON FUNCTION snowflake_gt(smallint, snowflake) IS 'smallint > snowflake, by bigint''s int28gt';
COMMENT ON FUNCTION snowflake_ge(smallint, snowflake) IS 'smallint >= snowflake, by bigint''s int28ge';
COMMENT ON FUNCTION snowflake_cmp(smallint, snowflake) IS 'Comparison support for the btree family: smallint against snowflake, by bigint''s btint28cmp';
COMMENT ON CAST (smallint AS snowflake) IS
'On assignment, by snowflake(smallint): a negative value is refused';
COMMENT ON OPERATOR = (snowflake, smallint) IS 'Equal, compared as bigints; an index on a snowflake column serves it';
COMMENT ON OPERATOR <> (snowflake, smallint) IS 'Not equal, compared as bigints';
COMMENT ON OPERATOR < (snowflake, smallint) IS 'Less than, compared as bigints; an index on a snowflake column serves it';
COMMENT ON OPERATOR <= (snowflake, smallint) IS 'Less than or equal, compared as bigints; an index on a snowflake column serves it';
COMMENT ON OPERATOR > (snowflake, smallint) IS 'Greater than, compared as bigints; an index on a snowflake column serves it';
COMMENT ON OPERATOR >= (snowflake, smallint) IS 'Greater than or equal, compared as bigints; an index on a snowflake column serves it';
COMMENT ON OPERATOR = (smallint, snowflake) IS 'Equal, compared as bigints; an index on a snowflake column serves it';
COMMENT ON OPERATOR <> (smallint, snowflake) IS 'Not equal, compared as bigints';
COMMENT ON OPERATOR < (smallint, snowflake) IS 'Less than, compared as bigints; an index on a snowflake column serves it';
COMMENT ON OPERATOR <= (smallint, snowflake) IS 'Less than or equal, compared as bigints; an index on a snowflake column serves it';
COMMENT ON OPERATOR > (smallint, snowflake) IS 'Greater than, compared as bigints; an index on a snowflake column serves it';
COMMENT ON OPERATOR >= (smallint, snowflake) IS 'Greater than or equal, compared as bigints; an index on a snowflake column serves it';
