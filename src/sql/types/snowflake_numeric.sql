-- With numeric (1.5): the casts and comparisons bigint has, for drivers that
-- send a Decimal or BigDecimal ID (psycopg, pgjdbc's setBigDecimal) and for
-- id::numeric. Not bigint's implicit cast to numeric: with two implicit
-- casts to numeric types, id + id, sum(id), max(id) and abs(id) would be
-- ambiguous. So the casts are on assignment (INSERT and UPDATE of a
-- Decimal, id::numeric), and the comparisons are operators of their own,
-- comparing exactly in numeric as bigint does (id = 5.5 is false). They
-- join no operator family, as bigint = numeric joins none: an index on a
-- snowflake column serves id = 5.0::numeric no more than one on a bigint.
-- The cast from numeric refuses a fraction where bigint's rounds: a
-- rounded ID names another row.
CREATE OR REPLACE FUNCTION snowflake(numeric) RETURNS snowflake
AS 'MODULE_PATHNAME', 'snowflake_type_from_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (numeric AS snowflake) WITH FUNCTION snowflake(numeric) AS ASSIGNMENT;
CREATE OR REPLACE FUNCTION snowflake_numeric(snowflake) RETURNS numeric
AS 'int8_numeric' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (snowflake AS numeric) WITH FUNCTION snowflake_numeric(snowflake) AS ASSIGNMENT;

CREATE OR REPLACE FUNCTION snowflake_eq(snowflake, numeric) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_type_eq_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION snowflake_ne(snowflake, numeric) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_type_ne_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION snowflake_lt(snowflake, numeric) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_type_lt_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION snowflake_le(snowflake, numeric) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_type_le_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION snowflake_gt(snowflake, numeric) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_type_gt_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION snowflake_ge(snowflake, numeric) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_type_ge_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION snowflake_eq(numeric, snowflake) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_type_numeric_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION snowflake_ne(numeric, snowflake) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_type_numeric_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION snowflake_lt(numeric, snowflake) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_type_numeric_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION snowflake_le(numeric, snowflake) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_type_numeric_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION snowflake_gt(numeric, snowflake) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_type_numeric_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION snowflake_ge(numeric, snowflake) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_type_numeric_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR = (LEFTARG = snowflake, RIGHTARG = numeric, FUNCTION = snowflake_eq, COMMUTATOR = =,
                   NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel);
CREATE OPERATOR <> (LEFTARG = snowflake, RIGHTARG = numeric, FUNCTION = snowflake_ne, COMMUTATOR = <>,
                    NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR < (LEFTARG = snowflake, RIGHTARG = numeric, FUNCTION = snowflake_lt, COMMUTATOR = >,
                   NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (LEFTARG = snowflake, RIGHTARG = numeric, FUNCTION = snowflake_le, COMMUTATOR = >=,
                    NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR > (LEFTARG = snowflake, RIGHTARG = numeric, FUNCTION = snowflake_gt, COMMUTATOR = <,
                   NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR >= (LEFTARG = snowflake, RIGHTARG = numeric, FUNCTION = snowflake_ge, COMMUTATOR = <=,
                    NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
CREATE OPERATOR = (LEFTARG = numeric, RIGHTARG = snowflake, FUNCTION = snowflake_eq, COMMUTATOR = =,
                   NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel);
CREATE OPERATOR <> (LEFTARG = numeric, RIGHTARG = snowflake, FUNCTION = snowflake_ne, COMMUTATOR = <>,
                    NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR < (LEFTARG = numeric, RIGHTARG = snowflake, FUNCTION = snowflake_lt, COMMUTATOR = >,
                   NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (LEFTARG = numeric, RIGHTARG = snowflake, FUNCTION = snowflake_le, COMMUTATOR = >=,
                    NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR > (LEFTARG = numeric, RIGHTARG = snowflake, FUNCTION = snowflake_gt, COMMUTATOR = <,
                   NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR >= (LEFTARG = numeric, RIGHTARG = snowflake, FUNCTION = snowflake_ge, COMMUTATOR = <=,
                    NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);

COMMENT ON FUNCTION snowflake(numeric) IS 'The assignment cast from numeric: refuses a fraction, a negative value, NaN and infinity, rounds nothing';
COMMENT ON FUNCTION snowflake_numeric(snowflake) IS 'The assignment cast to numeric: bigint''s int8_numeric';
COMMENT ON FUNCTION snowflake_eq(snowflake, numeric) IS 'snowflake = numeric, compared in numeric as bigint = numeric';
COMMENT ON FUNCTION snowflake_ne(snowflake, numeric) IS 'snowflake <> numeric, compared in numeric as bigint <> numeric';
COMMENT ON FUNCTION snowflake_lt(snowflake, numeric) IS 'snowflake < numeric, compared in numeric as bigint < numeric';
COMMENT ON FUNCTION snowflake_le(snowflake, numeric) IS 'snowflake <= numeric, compared in numeric as bigint <= numeric';
COMMENT ON FUNCTION snowflake_gt(snowflake, numeric) IS 'snowflake > numeric, compared in numeric as bigint > numeric';
COMMENT ON FUNCTION snowflake_ge(snowflake, numeric) IS 'snowflake >= numeric, compared in numeric as bigint >= numeric';
COMMENT ON FUNCTION snowflake_eq(numeric, snowflake) IS 'numeric = snowflake, compared in numeric as numeric = bigint';
COMMENT ON FUNCTION snowflake_ne(numeric, snowflake) IS 'numeric <> snowflake, compared in numeric as numeric <> bigint';
COMMENT ON FUNCTION snowflake_lt(numeric, snowflake) IS 'numeric < snowflake, compared in numeric as numeric < bigint';
COMMENT ON FUNCTION snowflake_le(numeric, snowflake) IS 'numeric <= snowflake, compared in numeric as numeric <= bigint';
COMMENT ON FUNCTION snowflake_gt(numeric, snowflake) IS 'numeric > snowflake, compared in numeric as numeric > bigint';
COMMENT ON FUNCTION snowflake_ge(numeric, snowflake) IS 'numeric >= snowflake, compared in numeric as numeric >= bigint';
COMMENT ON CAST (numeric AS snowflake) IS
'On assignment, by snowflake(numeric): a driver''s Decimal goes into a snowflake column; a fraction, a negative value, NaN and infinity are refused, nothing is rounded';
COMMENT ON CAST (snowflake AS numeric) IS
'On assignment, by snowflake_numeric(snowflake): id::numeric; not implicit, which would make id + id and sum(id) ambiguous';
COMMENT ON OPERATOR = (snowflake, numeric) IS 'Equal, compared exactly in numeric (id = 5.5 is false); no index serves it, as none serves bigint = numeric';
COMMENT ON OPERATOR <> (snowflake, numeric) IS 'Not equal, compared exactly in numeric';
COMMENT ON OPERATOR < (snowflake, numeric) IS 'Less than, compared exactly in numeric; no index serves it, as none serves bigint < numeric';
COMMENT ON OPERATOR <= (snowflake, numeric) IS 'Less than or equal, compared exactly in numeric; no index serves it, as none serves bigint <= numeric';
COMMENT ON OPERATOR > (snowflake, numeric) IS 'Greater than, compared exactly in numeric; no index serves it, as none serves bigint > numeric';
COMMENT ON OPERATOR >= (snowflake, numeric) IS 'Greater than or equal, compared exactly in numeric; no index serves it, as none serves bigint >= numeric';
COMMENT ON OPERATOR = (numeric, snowflake) IS 'Equal, compared exactly in numeric (id = 5.5 is false); no index serves it, as none serves bigint = numeric';
COMMENT ON OPERATOR <> (numeric, snowflake) IS 'Not equal, compared exactly in numeric';
COMMENT ON OPERATOR < (numeric, snowflake) IS 'Less than, compared exactly in numeric; no index serves it, as none serves bigint < numeric';
COMMENT ON OPERATOR <= (numeric, snowflake) IS 'Less than or equal, compared exactly in numeric; no index serves it, as none serves bigint <= numeric';
COMMENT ON OPERATOR > (numeric, snowflake) IS 'Greater than, compared exactly in numeric; no index serves it, as none serves bigint > numeric';
COMMENT ON OPERATOR >= (numeric, snowflake) IS 'Greater than or equal, compared exactly in numeric; no index serves it, as none serves bigint >= numeric';
