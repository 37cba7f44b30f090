-- snowflake_id 1.4 -> 1.5: the registry's rules move into the library,
-- which leases through the registry's tables; the leasing functions that
-- servers before 1.5 call now refuse them, saying to update the servers
-- first, as
-- docs/reference.md, "Upgrading a fleet: servers first, the registry last"
-- tells. The snowflake type gets the casts and comparisons with numeric
-- that bigint has. And every SQL and PL/pgSQL function pins its
-- search_path to pg_catalog, the extension's schema and pg_temp, so that
-- no look-alike in a caller's search_path runs in its place; that needs a
-- fixed schema, so the extension is no longer relocatable (an install
-- moved before keeps the schema it is in: @extschema@ is that schema).
\echo Use "ALTER EXTENSION snowflake_id UPDATE TO '1.5'" to load this file. \quit

-- Leasing (1.5): a server's registry worker reads and writes the two tables
-- itself, in one transaction that locks snowflake_registry_lease in SHARE
-- ROW EXCLUSIVE mode, and the rules (who may take a lease, the floor a new
-- holder starts above, the order ids are recycled in) are the library's,
-- once for every kind of registry. Servers before 1.5 called the four
-- functions below, which carried the rules in 1.3 and 1.4; they took the
-- same lock, so while the registry's extension is still at 1.4, old and new
-- servers lease side by side, one call at a time. Once the registry is at
-- 1.5, the functions only refuse, saying why: update the servers first and
-- the registry last, as
-- docs/reference.md, "Upgrading a fleet: servers first, the registry last"
-- tells.

-- Refuses a call from a server before 1.5. 0A000 (feature_not_supported):
-- the registry no longer offers leasing through this function, and asking
-- again changes nothing until the server is updated; 55000 is what a lease
-- held by another server gets, which asking again can cure. A server
-- before 1.5 shows the message and DETAIL, not the HINT: the DETAIL says
-- what to do too.
CREATE FUNCTION snowflake_registry_refuse_old_server(function_name text)
RETURNS void LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, @extschema@, pg_temp AS $$
DECLARE
    version text := (SELECT e.extversion FROM pg_extension e WHERE e.extname = 'snowflake_id');
BEGIN
    RAISE EXCEPTION 'this registry (snowflake_id %) no longer leases node ids through %()',
        version, function_name
        USING ERRCODE = '0A000',
              DETAIL = 'The server calling is of snowflake_id 1.4 or before; servers of 1.5 '
                       'and later lease through the registry''s tables. Update snowflake_id on '
                       'every server before the registry''s extension.',
              HINT = 'Install the new snowflake_id on the server and restart it; update the '
                     'registry (ALTER EXTENSION snowflake_id UPDATE) only once every server '
                     'runs it.';
END
$$;

COMMENT ON FUNCTION snowflake_registry_refuse_old_server(text) IS
'Registry side: the refusal a server before 1.5 gets from the leasing functions it calls';

CREATE OR REPLACE FUNCTION snowflake_registry_acquire(
    requested_node integer, preferred_node integer, previous_fence bigint,
    system_id numeric, instance bigint, host text, port integer, data_directory text,
    timeline integer, datacenter_bits integer, worker_bits integer, sequence_bits integer,
    epoch_ms bigint, max_clock_drift_ms bigint, ttl_ms bigint, clock_ms bigint,
    OUT node_id integer, OUT fence bigint, OUT floor_ms bigint, OUT expires_at timestamptz)
RETURNS record LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, @extschema@, pg_temp AS $$
BEGIN
    PERFORM snowflake_registry_refuse_old_server('snowflake_registry_acquire');
END
$$;

COMMENT ON FUNCTION snowflake_registry_acquire(integer, integer, bigint, numeric, bigint, text, integer, text, integer, integer, integer, integer, bigint, bigint, bigint, bigint) IS
'Registry side, before 1.5: leased a node id; now refuses the server that calls it, which must be updated';

CREATE OR REPLACE FUNCTION snowflake_registry_renew(node_id integer, fence bigint, instance bigint,
                                         reserved_until_ms bigint, ttl_ms bigint)
RETURNS timestamptz LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, @extschema@, pg_temp AS $$
BEGIN
    PERFORM snowflake_registry_refuse_old_server('snowflake_registry_renew');
    RETURN NULL;
END
$$;

COMMENT ON FUNCTION snowflake_registry_renew(integer, bigint, bigint, bigint, bigint) IS
'Registry side, before 1.5: renewed a lease; now refuses the server that calls it, which must be updated';

CREATE OR REPLACE FUNCTION snowflake_registry_release(node_id integer, fence bigint, instance bigint,
                                           reserved_until_ms bigint)
RETURNS boolean LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, @extschema@, pg_temp AS $$
BEGIN
    PERFORM snowflake_registry_refuse_old_server('snowflake_registry_release');
    RETURN NULL;
END
$$;

COMMENT ON FUNCTION snowflake_registry_release(integer, bigint, bigint, bigint) IS
'Registry side, before 1.5: gave a lease back; now refuses the server that calls it, which must be updated';

CREATE OR REPLACE FUNCTION snowflake_registry_switch(
    node_id integer, fence bigint, instance bigint, held_reserved_until_ms bigint,
    system_id numeric, host text, port integer, data_directory text, timeline integer,
    max_clock_drift_ms bigint, ttl_ms bigint, clock_ms bigint, reserved_until_ms bigint,
    OUT new_node_id integer, OUT new_fence bigint, OUT floor_ms bigint,
    OUT expires_at timestamptz)
RETURNS record LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, @extschema@, pg_temp AS $$
BEGIN
    PERFORM snowflake_registry_refuse_old_server('snowflake_registry_switch');
END
$$;

COMMENT ON FUNCTION snowflake_registry_switch(integer, bigint, bigint, bigint, numeric, text, integer, text, integer, bigint, bigint, bigint, bigint) IS
'Registry side, before 1.5: switched a lease for another node id; now refuses the server that calls it, which must be updated';

-- The rules' helpers of 1.3 and 1.4 go: nothing calls them any more.
DROP FUNCTION snowflake_registry_may_take(snowflake_registry_lease, numeric, bigint, text, integer, text, integer, bigint);
DROP FUNCTION snowflake_registry_is_live(snowflake_registry_lease, timestamptz);

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
CREATE FUNCTION snowflake(numeric) RETURNS snowflake
AS 'MODULE_PATHNAME', 'snowflake_type_from_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (numeric AS snowflake) WITH FUNCTION snowflake(numeric) AS ASSIGNMENT;
CREATE FUNCTION snowflake_numeric(snowflake) RETURNS numeric
AS 'int8_numeric' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (snowflake AS numeric) WITH FUNCTION snowflake_numeric(snowflake) AS ASSIGNMENT;

CREATE FUNCTION snowflake_eq(snowflake, numeric) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_type_eq_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_ne(snowflake, numeric) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_type_ne_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_lt(snowflake, numeric) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_type_lt_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_le(snowflake, numeric) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_type_le_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_gt(snowflake, numeric) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_type_gt_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_ge(snowflake, numeric) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_type_ge_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_eq(numeric, snowflake) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_type_numeric_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_ne(numeric, snowflake) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_type_numeric_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_lt(numeric, snowflake) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_type_numeric_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_le(numeric, snowflake) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_type_numeric_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_gt(numeric, snowflake) RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_type_numeric_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_ge(numeric, snowflake) RETURNS boolean
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

-- The functions this update does not make anew get the same pinning as in
-- snowflake_id--1.5.sql.
ALTER FUNCTION snowflake_registry_layout_text(integer, integer, integer, bigint)
    SET search_path = pg_catalog, @extschema@, pg_temp;
ALTER FUNCTION snowflake_registry_holder_text(text, integer, text, numeric)
    SET search_path = pg_catalog, @extschema@, pg_temp;

-- With smallint (1.5): psycopg 3 sends a Python int below 32768 as a
-- smallint, and snowflake = smallint was ambiguous between the bigint and
-- the integer operators. bigint's own cross-type functions, as for integer;
-- the cast refuses a negative value as the others do.
CREATE FUNCTION snowflake(smallint) RETURNS snowflake
AS 'MODULE_PATHNAME', 'snowflake_type_from_smallint' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (smallint AS snowflake) WITH FUNCTION snowflake(smallint) AS ASSIGNMENT;

CREATE FUNCTION snowflake_eq(snowflake, smallint) RETURNS boolean
AS 'int82eq' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_ne(snowflake, smallint) RETURNS boolean
AS 'int82ne' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_lt(snowflake, smallint) RETURNS boolean
AS 'int82lt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_le(snowflake, smallint) RETURNS boolean
AS 'int82le' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_gt(snowflake, smallint) RETURNS boolean
AS 'int82gt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_ge(snowflake, smallint) RETURNS boolean
AS 'int82ge' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_cmp(snowflake, smallint) RETURNS integer
AS 'btint82cmp' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_eq(smallint, snowflake) RETURNS boolean
AS 'int28eq' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_ne(smallint, snowflake) RETURNS boolean
AS 'int28ne' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_lt(smallint, snowflake) RETURNS boolean
AS 'int28lt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_le(smallint, snowflake) RETURNS boolean
AS 'int28le' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_gt(smallint, snowflake) RETURNS boolean
AS 'int28gt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_ge(smallint, snowflake) RETURNS boolean
AS 'int28ge' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_cmp(smallint, snowflake) RETURNS integer
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

ALTER OPERATOR FAMILY snowflake_ops USING btree ADD
    OPERATOR 1 < (snowflake, smallint), OPERATOR 2 <= (snowflake, smallint),
    OPERATOR 3 = (snowflake, smallint), OPERATOR 4 >= (snowflake, smallint),
    OPERATOR 5 > (snowflake, smallint),
    FUNCTION 1 snowflake_cmp(snowflake, smallint),
    OPERATOR 1 < (smallint, snowflake), OPERATOR 2 <= (smallint, snowflake),
    OPERATOR 3 = (smallint, snowflake), OPERATOR 4 >= (smallint, snowflake),
    OPERATOR 5 > (smallint, snowflake),
    FUNCTION 1 snowflake_cmp(smallint, snowflake);
ALTER OPERATOR FAMILY snowflake_hash_ops USING hash ADD
    OPERATOR 1 = (snowflake, smallint), OPERATOR 1 = (smallint, snowflake),
    FUNCTION 1 hashint2(smallint), FUNCTION 2 hashint2extended(smallint, bigint);

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

-- The families also compare integer and smallint with each other and with
-- bigint, complete as PostgreSQL's own integer_ops and integer_hash_ops:
-- a btree family holding snowflake = integer must sort and compare the
-- integers themselves too, or id = ANY(integer[]) on the key and a merge
-- join with an integer column fail with "missing support function"
-- (amvalidate checks it).
ALTER OPERATOR FAMILY snowflake_ops USING btree ADD
    OPERATOR 1 < (integer, integer), OPERATOR 2 <= (integer, integer),
    OPERATOR 3 = (integer, integer), OPERATOR 4 >= (integer, integer),
    OPERATOR 5 > (integer, integer),
    FUNCTION 1 btint4cmp(integer, integer),
    FUNCTION 2 (integer, integer) btint4sortsupport(internal),
    OPERATOR 1 < (smallint, smallint), OPERATOR 2 <= (smallint, smallint),
    OPERATOR 3 = (smallint, smallint), OPERATOR 4 >= (smallint, smallint),
    OPERATOR 5 > (smallint, smallint),
    FUNCTION 1 btint2cmp(smallint, smallint),
    FUNCTION 2 (smallint, smallint) btint2sortsupport(internal),
    OPERATOR 1 < (integer, bigint), OPERATOR 2 <= (integer, bigint),
    OPERATOR 3 = (integer, bigint), OPERATOR 4 >= (integer, bigint),
    OPERATOR 5 > (integer, bigint),
    FUNCTION 1 btint48cmp(integer, bigint),
    OPERATOR 1 < (bigint, integer), OPERATOR 2 <= (bigint, integer),
    OPERATOR 3 = (bigint, integer), OPERATOR 4 >= (bigint, integer),
    OPERATOR 5 > (bigint, integer),
    FUNCTION 1 btint84cmp(bigint, integer),
    OPERATOR 1 < (smallint, bigint), OPERATOR 2 <= (smallint, bigint),
    OPERATOR 3 = (smallint, bigint), OPERATOR 4 >= (smallint, bigint),
    OPERATOR 5 > (smallint, bigint),
    FUNCTION 1 btint28cmp(smallint, bigint),
    OPERATOR 1 < (bigint, smallint), OPERATOR 2 <= (bigint, smallint),
    OPERATOR 3 = (bigint, smallint), OPERATOR 4 >= (bigint, smallint),
    OPERATOR 5 > (bigint, smallint),
    FUNCTION 1 btint82cmp(bigint, smallint),
    OPERATOR 1 < (smallint, integer), OPERATOR 2 <= (smallint, integer),
    OPERATOR 3 = (smallint, integer), OPERATOR 4 >= (smallint, integer),
    OPERATOR 5 > (smallint, integer),
    FUNCTION 1 btint24cmp(smallint, integer),
    OPERATOR 1 < (integer, smallint), OPERATOR 2 <= (integer, smallint),
    OPERATOR 3 = (integer, smallint), OPERATOR 4 >= (integer, smallint),
    OPERATOR 5 > (integer, smallint),
    FUNCTION 1 btint42cmp(integer, smallint);
ALTER OPERATOR FAMILY snowflake_hash_ops USING hash ADD
    OPERATOR 1 = (integer, integer), OPERATOR 1 = (smallint, smallint),
    OPERATOR 1 = (integer, bigint), OPERATOR 1 = (bigint, integer),
    OPERATOR 1 = (smallint, bigint), OPERATOR 1 = (bigint, smallint),
    OPERATOR 1 = (smallint, integer), OPERATOR 1 = (integer, smallint);

-- Public IDs (1.5): a keyed permutation of an ID written in Crockford's
-- base32, which hides the ID's time, node and count from whoever lacks the
-- key (docs/public-ids.md). With a key argument (16 bytes): IMMUTABLE, as
-- nothing else goes in. Without: the key in snowflake_id.public_key, which
-- only superusers can read or set; STABLE, as a changed setting changes the
-- results. C functions: no search_path to pin. The id is a bigint, so a
-- snowflake passes by its implicit cast; a negative one is refused.
CREATE FUNCTION snowflake_public(id bigint, key bytea, prefix text DEFAULT '',
                                 check_symbol boolean DEFAULT false)
RETURNS text
AS 'MODULE_PATHNAME', 'snowflake_public_keyed'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION snowflake_public(id bigint, prefix text DEFAULT '',
                                 check_symbol boolean DEFAULT false)
RETURNS text
AS 'MODULE_PATHNAME', 'snowflake_public_default_key'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION snowflake_from_public(public_id text, key bytea, prefix text DEFAULT '',
                                      check_symbol boolean DEFAULT false)
RETURNS snowflake
AS 'MODULE_PATHNAME', 'snowflake_from_public_keyed'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION snowflake_from_public(public_id text, prefix text DEFAULT '',
                                      check_symbol boolean DEFAULT false)
RETURNS snowflake
AS 'MODULE_PATHNAME', 'snowflake_from_public_default_key'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION snowflake_public(bigint, bytea, text, boolean) IS
'The public form of an ID under a 16-byte key: 13 symbols of Crockford''s base32 that hide its time, node and count, after prefix and "_" if given, and a check symbol if asked for; not authentication';
COMMENT ON FUNCTION snowflake_public(bigint, text, boolean) IS
'snowflake_public(id, key, ...) with the key in snowflake_id.public_key';
COMMENT ON FUNCTION snowflake_from_public(text, bytea, text, boolean) IS
'The ID of a public form, for the key, prefix and check_symbol it was made with; takes lower case, I and L for 1, O for 0, hyphens';
COMMENT ON FUNCTION snowflake_from_public(text, text, boolean) IS
'snowflake_from_public(public_id, key, ...) with the key in snowflake_id.public_key';
