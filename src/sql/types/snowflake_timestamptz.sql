-- The planner support function rewrites id <op> t into comparisons with the
-- split, with the snowflake btree family's (snowflake, bigint) operators, so
-- that an index on the column serves them and partitions are pruned: at
-- plan time for a constant t, at executor start-up for now() or a parameter
-- (src/pg/pg_time_compare.cpp). Only for the snowflake type: operators between every bigint
-- and timestamptz would change the meaning of other queries; a bigint
-- column compares with id >= snowflake_first_at_or_after(t) and the like.
CREATE OR REPLACE FUNCTION snowflake_time_comparison_support(internal) RETURNS internal
AS 'MODULE_PATHNAME', 'snowflake_time_comparison_support' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION snowflake_lt(snowflake, timestamptz) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_lt_timestamptz' LANGUAGE C STABLE STRICT PARALLEL SAFE
SUPPORT snowflake_time_comparison_support;
CREATE OR REPLACE FUNCTION snowflake_le(snowflake, timestamptz) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_le_timestamptz' LANGUAGE C STABLE STRICT PARALLEL SAFE
SUPPORT snowflake_time_comparison_support;
CREATE OR REPLACE FUNCTION snowflake_gt(snowflake, timestamptz) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_gt_timestamptz' LANGUAGE C STABLE STRICT PARALLEL SAFE
SUPPORT snowflake_time_comparison_support;
CREATE OR REPLACE FUNCTION snowflake_ge(snowflake, timestamptz) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_ge_timestamptz' LANGUAGE C STABLE STRICT PARALLEL SAFE
SUPPORT snowflake_time_comparison_support;
CREATE OR REPLACE FUNCTION snowflake_lt(timestamptz, snowflake) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_timestamptz_lt' LANGUAGE C STABLE STRICT PARALLEL SAFE
SUPPORT snowflake_time_comparison_support;
CREATE OR REPLACE FUNCTION snowflake_le(timestamptz, snowflake) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_timestamptz_le' LANGUAGE C STABLE STRICT PARALLEL SAFE
SUPPORT snowflake_time_comparison_support;
CREATE OR REPLACE FUNCTION snowflake_gt(timestamptz, snowflake) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_timestamptz_gt' LANGUAGE C STABLE STRICT PARALLEL SAFE
SUPPORT snowflake_time_comparison_support;
CREATE OR REPLACE FUNCTION snowflake_ge(timestamptz, snowflake) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_timestamptz_ge' LANGUAGE C STABLE STRICT PARALLEL SAFE
SUPPORT snowflake_time_comparison_support;

CREATE OPERATOR < (LEFTARG = snowflake, RIGHTARG = timestamptz, FUNCTION = snowflake_lt,
                   COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (LEFTARG = snowflake, RIGHTARG = timestamptz, FUNCTION = snowflake_le,
                    COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR > (LEFTARG = snowflake, RIGHTARG = timestamptz, FUNCTION = snowflake_gt,
                   COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR >= (LEFTARG = snowflake, RIGHTARG = timestamptz, FUNCTION = snowflake_ge,
                    COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
CREATE OPERATOR < (LEFTARG = timestamptz, RIGHTARG = snowflake, FUNCTION = snowflake_lt,
                   COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (LEFTARG = timestamptz, RIGHTARG = snowflake, FUNCTION = snowflake_le,
                    COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR > (LEFTARG = timestamptz, RIGHTARG = snowflake, FUNCTION = snowflake_gt,
                   COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR >= (LEFTARG = timestamptz, RIGHTARG = snowflake, FUNCTION = snowflake_ge,
                    COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);

COMMENT ON FUNCTION snowflake_time_comparison_support(internal) IS
'Planner support of the comparisons of snowflake with timestamptz: turns id < t and the like into ID ranges (snowflake_last_before(t) and the like), which an index on the column serves and partition pruning uses';
COMMENT ON FUNCTION snowflake_lt(snowflake, timestamptz) IS
'snowflake < timestamptz: snowflake_timestamp(id) < t, exact to the microsecond; the planner turns it into id <= snowflake_last_before(t)';
COMMENT ON FUNCTION snowflake_le(snowflake, timestamptz) IS
'snowflake <= timestamptz: snowflake_timestamp(id) <= t, exact to the microsecond; the planner turns it into id <= snowflake_last_at_or_before(t)';
COMMENT ON FUNCTION snowflake_gt(snowflake, timestamptz) IS
'snowflake > timestamptz: snowflake_timestamp(id) > t, exact to the microsecond; the planner turns it into id >= snowflake_first_after(t)';
COMMENT ON FUNCTION snowflake_ge(snowflake, timestamptz) IS
'snowflake >= timestamptz: snowflake_timestamp(id) >= t, exact to the microsecond; the planner turns it into id >= snowflake_first_at_or_after(t)';
COMMENT ON FUNCTION snowflake_lt(timestamptz, snowflake) IS
'timestamptz < snowflake: t < snowflake_timestamp(id), exact to the microsecond; the planner turns it into id >= snowflake_first_after(t)';
COMMENT ON FUNCTION snowflake_le(timestamptz, snowflake) IS
'timestamptz <= snowflake: t <= snowflake_timestamp(id), exact to the microsecond; the planner turns it into id >= snowflake_first_at_or_after(t)';
COMMENT ON FUNCTION snowflake_gt(timestamptz, snowflake) IS
'timestamptz > snowflake: t > snowflake_timestamp(id), exact to the microsecond; the planner turns it into id <= snowflake_last_before(t)';
COMMENT ON FUNCTION snowflake_ge(timestamptz, snowflake) IS
'timestamptz >= snowflake: t >= snowflake_timestamp(id), exact to the microsecond; the planner turns it into id <= snowflake_last_at_or_before(t)';
COMMENT ON OPERATOR < (snowflake, timestamptz) IS
'id < t: the ID was minted before the time (its millisecond starts before t); an index on the column serves it, and partitions by ID are pruned';
COMMENT ON OPERATOR <= (snowflake, timestamptz) IS
'id <= t: the ID was minted at or before the time (its millisecond starts at or before t); an index on the column serves it, and partitions by ID are pruned';
COMMENT ON OPERATOR > (snowflake, timestamptz) IS
'id > t: the ID was minted after the time (its millisecond starts after t); an index on the column serves it, and partitions by ID are pruned';
COMMENT ON OPERATOR >= (snowflake, timestamptz) IS
'id >= t: the ID was minted at or after the time (its millisecond starts at or after t); an index on the column serves it, and partitions by ID are pruned';
COMMENT ON OPERATOR < (timestamptz, snowflake) IS
't < id: the ID was minted after the time, as id > t; an index on the column serves it, and partitions by ID are pruned';
COMMENT ON OPERATOR <= (timestamptz, snowflake) IS
't <= id: the ID was minted at or after the time, as id >= t; an index on the column serves it, and partitions by ID are pruned';
COMMENT ON OPERATOR > (timestamptz, snowflake) IS
't > id: the ID was minted before the time, as id < t; an index on the column serves it, and partitions by ID are pruned';
COMMENT ON OPERATOR >= (timestamptz, snowflake) IS
't >= id: the ID was minted at or before the time, as id <= t; an index on the column serves it, and partitions by ID are pruned';
