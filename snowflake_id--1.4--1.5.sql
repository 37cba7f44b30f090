-- snowflake_id 1.4 -> 1.5: a registry that records the exact floor a
-- holder gives back at a clean stop, and refuses a live lease to a server
-- without a previous fence (NULL) as the Redis store does; a new fence for
-- every grant. The snowflake type gets the casts and comparisons with
-- numeric that bigint has. And every SQL and PL/pgSQL function pins its
-- search_path to pg_catalog, the extension's schema and pg_temp, so that
-- no look-alike in a caller's search_path runs in its place; that needs a
-- fixed schema, so the extension is no longer relocatable (an install
-- moved before keeps the schema it is in: @extschema@ is that schema).
\echo Use "ALTER EXTENSION snowflake_id UPDATE TO '1.5'" to load this file. \quit

-- Whether a server may take over a lease that is still live: it is the same
-- run; or a promoted standby of the holder (same system identifier, higher
-- timeline); or a later run of the same server (same system identifier,
-- host, port and data directory, and the fence its durable state recorded;
-- a server without one, NULL, is not such a run).
-- A copy of the holder's data directory started elsewhere (a restored backup
-- on its old timeline) is none of these. Whoever takes over starts above the
-- holder's recorded bound, so even a copy taken for the holder could not
-- repeat its IDs.
CREATE OR REPLACE FUNCTION snowflake_registry_may_take(lease snowflake_registry_lease, system_id numeric,
                                            instance bigint, host text, port integer,
                                            data_directory text, timeline integer,
                                            previous_fence bigint)
RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, @extschema@, pg_temp AS $$
    SELECT lease.holder_instance = instance
        OR (lease.holder_system_id = system_id
            AND (timeline > lease.holder_timeline
                 OR ((lease.holder_host, lease.holder_port, lease.holder_data_directory)
                         = (host, port, data_directory)
                     AND coalesce(lease.fence = previous_fence, false))))
$$;

COMMENT ON FUNCTION snowflake_registry_may_take(snowflake_registry_lease, numeric, bigint, text, integer, text, integer, bigint) IS
'Whether a server may take over a live lease: the same run, a promoted standby of the holder, or a later run of the same server';

-- Gives a lease back at a clean stop, recording the bound the holder gives:
-- the exact floor of its last IDs, which may lie below the bound its last
-- renewal recorded (up to lease_ttl ahead of its clock), so that the next
-- holder, the same server restarting included, starts near the clock. Safe
-- because only this run of the holder can give it (fence and instance), it
-- issues nothing more on the lease, and it gives no bound below an ID it
-- issued. A holder before 1.5 gives its last renewal's bound. The id is free
-- at once. False, and no change, if the lease is no longer this run's.
CREATE OR REPLACE FUNCTION snowflake_registry_release(node_id integer, fence bigint, instance bigint,
                                           reserved_until_ms bigint)
RETURNS boolean LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, @extschema@, pg_temp AS $$
#variable_conflict use_variable
BEGIN
    LOCK TABLE snowflake_registry_lease IN SHARE ROW EXCLUSIVE MODE;
    UPDATE snowflake_registry_lease l SET
        released_at = clock_timestamp(),
        reserved_until_ms = reserved_until_ms
    WHERE l.node_id = node_id AND l.fence = fence AND l.holder_instance = instance
      AND l.released_at IS NULL;
    RETURN FOUND;
END
$$;

COMMENT ON FUNCTION snowflake_registry_release(integer, bigint, bigint, bigint) IS
'Registry side: give a lease back at a clean stop, recording the exact final bound';

-- Leases a node id for one run of a server (the caller's `instance`).
--   requested_node  a static id (snowflake_id.worker_id, with datacenter_id
--                   above it: datacenter_id << worker_bits | worker_id), or
--                   NULL for 'auto';
--   preferred_node  'auto': the id the server's durable state was made with
--                   (it gets it back when it is free), or NULL;
--   previous_fence  the fence the server last held that id with, from its
--                   durable state, or NULL;
--   timeline        the server's timeline: a promoted standby (same system
--                   identifier, higher timeline) takes over its old
--                   primary's lease;
--   clock_ms        the server's clock (ms since 1970), to prefer, among
--                   recycled ids, those whose recorded bound lies below it.
-- A live lease held by another server is refused, naming both. An expired
-- or released one, or one of this server's earlier runs (same system
-- identifier, host, port and data directory, and the fence its state
-- recorded), is taken over: the fence grows, and floor_ms says where the new
-- holder's IDs must start: above the old holder's recorded bound plus its
-- max_clock_drift.
CREATE OR REPLACE FUNCTION snowflake_registry_acquire(
    requested_node integer, preferred_node integer, previous_fence bigint,
    system_id numeric, instance bigint, host text, port integer, data_directory text,
    timeline integer, datacenter_bits integer, worker_bits integer, sequence_bits integer,
    epoch_ms bigint, max_clock_drift_ms bigint, ttl_ms bigint, clock_ms bigint,
    OUT node_id integer, OUT fence bigint, OUT floor_ms bigint, OUT expires_at timestamptz)
RETURNS record LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, @extschema@, pg_temp AS $$
#variable_conflict use_variable
DECLARE
    now_ts constant timestamptz := clock_timestamp();
    layout snowflake_registry_layout;
    lease snowflake_registry_lease;
    nodes integer;
    target integer;
    me text := snowflake_registry_holder_text(host, port, data_directory, system_id);
BEGIN
    IF ttl_ms IS NULL OR ttl_ms <= 0 THEN
        RAISE EXCEPTION 'lease ttl % ms is out of range', ttl_ms
            USING ERRCODE = '22023', HINT = 'Set snowflake_id.lease_ttl to a positive duration.';
    END IF;
    IF datacenter_bits IS NULL OR worker_bits IS NULL OR datacenter_bits < 0 OR worker_bits < 0
       OR datacenter_bits + worker_bits > 30 THEN
        RAISE EXCEPTION 'node id fields of % datacenter and % worker bits are out of range',
            datacenter_bits, worker_bits
            USING ERRCODE = '22023', HINT = 'The registry leases node ids of up to 30 bits.';
    END IF;
    -- One registry call at a time: acquisitions and renewals are rare.
    LOCK TABLE snowflake_registry_lease IN SHARE ROW EXCLUSIVE MODE;

    SELECT * INTO layout FROM snowflake_registry_layout;
    IF NOT FOUND THEN
        INSERT INTO snowflake_registry_layout VALUES
            (true, datacenter_bits, worker_bits, sequence_bits, epoch_ms, now_ts, me);
    ELSIF (layout.datacenter_bits, layout.worker_bits, layout.sequence_bits, layout.epoch_ms)
          IS DISTINCT FROM (datacenter_bits, worker_bits, sequence_bits, epoch_ms) THEN
        RAISE EXCEPTION 'the layout of this server differs from the cluster''s'
            USING ERRCODE = '55000',
                  DETAIL = format('The registry''s cluster uses %s (recorded by %s at %s); this '
                                  'server runs %s. IDs of different layouts cannot be compared '
                                  'or decoded together.',
                                  snowflake_registry_layout_text(layout.datacenter_bits,
                                      layout.worker_bits, layout.sequence_bits, layout.epoch_ms),
                                  layout.recorded_by, layout.recorded_at,
                                  snowflake_registry_layout_text(datacenter_bits, worker_bits,
                                      sequence_bits, epoch_ms)),
                  HINT = 'Give every server of the cluster the same snowflake_id.datacenter_bits, '
                         'worker_bits, sequence_bits and epoch.';
    END IF;

    nodes := 1 << (datacenter_bits + worker_bits);
    IF requested_node IS NOT NULL THEN
        IF requested_node < 0 OR requested_node >= nodes THEN
            RAISE EXCEPTION 'node id % is out of range for % datacenter and % worker bits',
                requested_node, datacenter_bits, worker_bits
                USING ERRCODE = '22003',
                      HINT = format('Node ids run from 0 to %s.', nodes - 1);
        END IF;
        target := requested_node;
    ELSE
        IF preferred_node >= 0 AND preferred_node < nodes THEN
            SELECT * INTO lease FROM snowflake_registry_lease l WHERE l.node_id = preferred_node;
            IF NOT FOUND OR NOT snowflake_registry_is_live(lease, now_ts)
               OR snowflake_registry_may_take(lease, system_id, instance, host, port,
                                              data_directory, timeline, previous_fence) THEN
                target := preferred_node;
            END IF;
        END IF;
        IF target IS NULL THEN  -- the lowest id never leased
            SELECT min(n) INTO target FROM generate_series(0, nodes - 1) n
            WHERE NOT EXISTS (SELECT FROM snowflake_registry_lease l WHERE l.node_id = n);
        END IF;
        IF target IS NULL THEN
            -- Recycling: the id whose lease ended longest ago, the safe
            -- choice when clocks may have been set back; first among those
            -- whose recorded bound is below this server's clock, which it
            -- can use without running ahead of its clock.
            SELECT l.node_id INTO target FROM snowflake_registry_lease l
            WHERE NOT snowflake_registry_is_live(l, now_ts)
            ORDER BY l.reserved_until_ms + l.holder_max_clock_drift_ms < clock_ms DESC,
                     coalesce(l.released_at, l.expires_at), l.node_id
            LIMIT 1;
        END IF;
        IF target IS NULL THEN
            RAISE EXCEPTION 'every node id is leased: % of % held by live servers', nodes, nodes
                USING ERRCODE = '53400',
                      HINT = 'Wait for a lease to expire, stop a server, or widen '
                             'snowflake_id.worker_bits or datacenter_bits (a new layout).';
        END IF;
    END IF;

    SELECT * INTO lease FROM snowflake_registry_lease l WHERE l.node_id = target;
    IF NOT FOUND THEN
        INSERT INTO snowflake_registry_lease VALUES
            (target, 1, system_id, instance, host, port, data_directory, timeline,
             max_clock_drift_ms, now_ts, now_ts, now_ts + ttl_ms * interval '1 ms', NULL, 0);
        node_id := target;
        fence := 1;
        floor_ms := 0;
        expires_at := now_ts + ttl_ms * interval '1 ms';
        RETURN;
    END IF;
    IF snowflake_registry_is_live(lease, now_ts)
       AND NOT snowflake_registry_may_take(lease, system_id, instance, host, port,
                                           data_directory, timeline, previous_fence) THEN
        RAISE EXCEPTION 'node id % is held by another server', target
            USING ERRCODE = '55000',
                  DETAIL = format('It is held by %s, whose lease runs until %s; this server is %s.',
                                  snowflake_registry_holder_text(lease.holder_host,
                                      lease.holder_port, lease.holder_data_directory,
                                      lease.holder_system_id),
                                  lease.expires_at, me),
                  HINT = 'Give every server its own snowflake_id.worker_id, or set it to ''auto''. '
                         'A server that was stopped without a clean shutdown frees its id when '
                         'its lease expires.';
    END IF;
    node_id := target;
    -- A new fence for every grant, this very run asking again included: a
    -- give-back the registry runs late (its sender timed out) names the
    -- fence of the lease it gave back, and must not end one granted since.
    fence := lease.fence + 1;
    -- Strictly above every ID the old holder may have issued: it issued
    -- only below its recorded bound, borrowing at most its drift.
    floor_ms := lease.reserved_until_ms + lease.holder_max_clock_drift_ms;
    expires_at := now_ts + ttl_ms * interval '1 ms';
    UPDATE snowflake_registry_lease l SET
        fence = fence, holder_system_id = system_id, holder_instance = instance,
        holder_host = host, holder_port = port, holder_data_directory = data_directory,
        holder_timeline = timeline, holder_max_clock_drift_ms = max_clock_drift_ms,
        acquired_at = now_ts, renewed_at = now_ts, expires_at = expires_at, released_at = NULL,
        reserved_until_ms = floor_ms
    WHERE l.node_id = target;
END
$$;

COMMENT ON FUNCTION snowflake_registry_acquire(integer, integer, bigint, numeric, bigint, text, integer, text, integer, integer, integer, integer, bigint, bigint, bigint, bigint) IS
'Registry side: lease a node id (a static one, or any free one for ''auto'') for one run of a server; returns the fence and the floor its IDs must start above';

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
ALTER FUNCTION snowflake_registry_is_live(snowflake_registry_lease, timestamptz)
    SET search_path = pg_catalog, @extschema@, pg_temp;
ALTER FUNCTION snowflake_registry_renew(integer, bigint, bigint, bigint, bigint)
    SET search_path = pg_catalog, @extschema@, pg_temp;
ALTER FUNCTION snowflake_registry_switch(integer, bigint, bigint, bigint, numeric, text, integer, text, integer, bigint, bigint, bigint, bigint)
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
