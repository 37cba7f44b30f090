-- Comparisons: snowflake with snowflake, and with bigint or integer on
-- either side, bigint's functions all (the bits are the same). LEAKPROOF as
-- bigint's.
CREATE OR REPLACE FUNCTION snowflake_eq(snowflake, snowflake) RETURNS boolean
AS 'int8eq' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_ne(snowflake, snowflake) RETURNS boolean
AS 'int8ne' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_lt(snowflake, snowflake) RETURNS boolean
AS 'int8lt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_le(snowflake, snowflake) RETURNS boolean
AS 'int8le' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_gt(snowflake, snowflake) RETURNS boolean
AS 'int8gt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_ge(snowflake, snowflake) RETURNS boolean
AS 'int8ge' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_cmp(snowflake, snowflake) RETURNS integer
AS 'btint8cmp' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OR REPLACE FUNCTION snowflake_hash(snowflake) RETURNS integer
AS 'hashint8' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION snowflake_hash_extended(snowflake, bigint) RETURNS bigint
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

COMMENT ON FUNCTION snowflake_eq(snowflake, snowflake) IS 'snowflake = snowflake, by bigint''s int8eq';
COMMENT ON FUNCTION snowflake_ne(snowflake, snowflake) IS 'snowflake <> snowflake, by bigint''s int8ne';
COMMENT ON FUNCTION snowflake_lt(snowflake, snowflake) IS 'snowflake < snowflake, by bigint''s int8lt';
COMMENT ON FUNCTION snowflake_le(snowflake, snowflake) IS 'snowflake <= snowflake, by bigint''s int8le';
COMMENT ON FUNCTION snowflake_gt(snowflake, snowflake) IS 'snowflake > snowflake, by bigint''s int8gt';
COMMENT ON FUNCTION snowflake_ge(snowflake, snowflake) IS 'snowflake >= snowflake, by bigint''s int8ge';
COMMENT ON FUNCTION snowflake_cmp(snowflake, snowflake) IS 'Comparison support for the btree family: snowflake against snowflake, by bigint''s btint8cmp';
COMMENT ON FUNCTION snowflake_hash(snowflake) IS 'Hash support: bigint''s hashint8';
COMMENT ON FUNCTION snowflake_hash_extended(snowflake, bigint) IS 'Hash support: bigint''s hashint8extended';
COMMENT ON OPERATOR = (snowflake, snowflake) IS 'Equal, compared as bigints; an index on a snowflake column serves it';
COMMENT ON OPERATOR <> (snowflake, snowflake) IS 'Not equal, compared as bigints';
COMMENT ON OPERATOR < (snowflake, snowflake) IS 'Less than, compared as bigints; an index on a snowflake column serves it';
COMMENT ON OPERATOR <= (snowflake, snowflake) IS 'Less than or equal, compared as bigints; an index on a snowflake column serves it';
COMMENT ON OPERATOR > (snowflake, snowflake) IS 'Greater than, compared as bigints; an index on a snowflake column serves it';
COMMENT ON OPERATOR >= (snowflake, snowflake) IS 'Greater than or equal, compared as bigints; an index on a snowflake column serves it';
