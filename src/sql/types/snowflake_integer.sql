CREATE OR REPLACE FUNCTION snowflake(integer) RETURNS snowflake
AS 'MODULE_PATHNAME', 'snowflake_type_from_integer' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (integer AS snowflake) WITH FUNCTION snowflake(integer) AS ASSIGNMENT;

-- With integer too: WHERE id = 42 would otherwise be ambiguous between
-- snowflake = bigint and bigint = integer.
CREATE OR REPLACE FUNCTION snowflake_eq(snowflake, integer) RETURNS boolean
AS 'int84eq' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_ne(snowflake, integer) RETURNS boolean
AS 'int84ne' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_lt(snowflake, integer) RETURNS boolean
AS 'int84lt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_le(snowflake, integer) RETURNS boolean
AS 'int84le' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_gt(snowflake, integer) RETURNS boolean
AS 'int84gt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_ge(snowflake, integer) RETURNS boolean
AS 'int84ge' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_cmp(snowflake, integer) RETURNS integer
AS 'btint84cmp' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OR REPLACE FUNCTION snowflake_eq(integer, snowflake) RETURNS boolean
AS 'int48eq' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_ne(integer, snowflake) RETURNS boolean
AS 'int48ne' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_lt(integer, snowflake) RETURNS boolean
AS 'int48lt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_le(integer, snowflake) RETURNS boolean
AS 'int48le' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_gt(integer, snowflake) RETURNS boolean
AS 'int48gt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_ge(integer, snowflake) RETURNS boolean
AS 'int48ge' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_cmp(integer, snowflake) RETURNS integer
AS 'btint48cmp' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

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
COMMENT ON FUNCTION snowflake(integer) IS 'The assignment cast from integer: refuses a negative value';
COMMENT ON CAST (integer AS snowflake) IS
'On assignment, by snowflake(integer): INSERT ... VALUES (42) works, a negative value is refused';
COMMENT ON OPERATOR = (snowflake, integer) IS 'Equal, compared as bigints; an index on a snowflake column serves it';
COMMENT ON OPERATOR <> (snowflake, integer) IS 'Not equal, compared as bigints';
COMMENT ON OPERATOR < (snowflake, integer) IS 'Less than, compared as bigints; an index on a snowflake column serves it';
COMMENT ON OPERATOR <= (snowflake, integer) IS 'Less than or equal, compared as bigints; an index on a snowflake column serves it';
COMMENT ON OPERATOR > (snowflake, integer) IS 'Greater than, compared as bigints; an index on a snowflake column serves it';
COMMENT ON OPERATOR >= (snowflake, integer) IS 'Greater than or equal, compared as bigints; an index on a snowflake column serves it';
COMMENT ON OPERATOR = (integer, snowflake) IS 'Equal, compared as bigints; an index on a snowflake column serves it';
COMMENT ON OPERATOR <> (integer, snowflake) IS 'Not equal, compared as bigints';
COMMENT ON OPERATOR < (integer, snowflake) IS 'Less than, compared as bigints; an index on a snowflake column serves it';
COMMENT ON OPERATOR <= (integer, snowflake) IS 'Less than or equal, compared as bigints; an index on a snowflake column serves it';
COMMENT ON OPERATOR > (integer, snowflake) IS 'Greater than, compared as bigints; an index on a snowflake column serves it';
COMMENT ON OPERATOR >= (integer, snowflake) IS 'Greater than or equal, compared as bigints; an index on a snowflake column serves it';
