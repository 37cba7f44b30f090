-- The registry side of node id leases, called as a server's background
-- worker calls it. Time passing is simulated by moving expires_at (the
-- registry judges expiry by its own clock), so nothing here waits.
SET timezone = 'UTC';
CREATE EXTENSION IF NOT EXISTS snowflake_id;
-- A server as the worker describes itself: host, port, data directory,
-- system identifier, run (instance), timeline.
CREATE TEMP TABLE srv (name text PRIMARY KEY, sysid numeric, instance bigint, host text,
                       port integer, datadir text, timeline integer);
INSERT INTO srv VALUES
    ('a', 7001, 101, 'hosta', 5432, '/data/a', 1),
    ('b', 7002, 102, 'hostb', 5432, '/data/b', 1),
    ('c', 7003, 103, 'hostc', 5432, '/data/c', 1),
    ('a2', 7001, 201, 'hosta', 5432, '/data/a', 1),      -- a restarted
    ('a_copy', 7001, 301, 'hostz', 5433, '/restore/a', 1), -- a restored backup of a
    ('a_promoted', 7001, 401, 'hosts', 5432, '/data/s', 2); -- a's standby, promoted
-- acquire(server, requested, preferred, previous fence), default layout:
-- 0 datacenter, 2 worker bits (4 node ids), 12 sequence bits, epoch 2020.
CREATE FUNCTION pg_temp.acquire(who text, requested integer, preferred integer DEFAULT NULL,
                                previous_fence bigint DEFAULT NULL, worker_bits integer DEFAULT 2,
                                epoch_ms bigint DEFAULT 1577836800000, clock_ms bigint DEFAULT 0)
RETURNS TABLE (node_id integer, fence bigint, floor_ms bigint) LANGUAGE sql AS $$
    SELECT a.node_id, a.fence, a.floor_ms
    FROM srv s, snowflake_registry_acquire(requested, preferred, previous_fence, s.sysid,
        s.instance, s.host, s.port, s.datadir, s.timeline, 0, worker_bits, 12, epoch_ms, 1000,
        60000, clock_ms) a
    WHERE s.name = who
$$;
CREATE FUNCTION pg_temp.renew(who text, node integer, fence bigint, bound bigint)
RETURNS boolean LANGUAGE sql AS $$
    SELECT snowflake_registry_renew(node, fence, s.instance, bound, 60000) > now()
    FROM srv s WHERE s.name = who
$$;
CREATE FUNCTION pg_temp.expire(node integer) RETURNS void LANGUAGE sql AS $$
    UPDATE snowflake_registry_lease SET expires_at = clock_timestamp() - interval '1 s'
    WHERE node_id = node
$$;
-- Runs a statement that must fail; shows its SQLSTATE, message, detail and
-- hint, with the times in them (lease expiry, acquisition) written as T.
CREATE FUNCTION pg_temp.try(statement text) RETURNS TABLE (field text, value text)
LANGUAGE plpgsql AS $$
DECLARE
    state text; msg text; detail text; hint text;
BEGIN
    EXECUTE statement;
    RETURN QUERY SELECT 'no error', '';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, msg = MESSAGE_TEXT,
                            detail = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
    RETURN QUERY VALUES ('sqlstate', state), ('message', msg),
        ('detail', regexp_replace(detail, '\w{3} \w{3} \d+ [\d:.]+ \d{4} UTC', 'T', 'g')),
        ('hint', hint);
END $$;
CREATE VIEW pg_temp.leases AS
    SELECT node_id, worker_id, state, split_part(holder, ',', 1) AS holder, fence,
           (SELECT reserved_until_ms FROM snowflake_registry_lease l WHERE l.node_id = v.node_id)
               AS bound
    FROM snowflake_registry_leases v ORDER BY node_id;

-- Static ids: a takes 1, b takes 2. The first holder fixes the layout.
SELECT * FROM pg_temp.acquire('a', 1);
SELECT * FROM pg_temp.acquire('b', 2);
SELECT layout FROM snowflake_registry_leases LIMIT 1;
-- Renewals record the bound; it never goes down.
SELECT pg_temp.renew('a', 1, 1, 5000);
SELECT pg_temp.renew('a', 1, 1, 4000);
SELECT * FROM pg_temp.leases;
-- c claims a's live id: refused, naming both.
SELECT * FROM pg_temp.try('SELECT * FROM pg_temp.acquire(''c'', 1)');
-- Renewing with the wrong fence, or as another run, is refused.
SELECT * FROM pg_temp.try('SELECT pg_temp.renew(''a'', 1, 7, 6000)');
SELECT * FROM pg_temp.try('SELECT pg_temp.renew(''c'', 1, 1, 6000)');
-- Out of range, and a different layout.
SELECT * FROM pg_temp.try('SELECT * FROM pg_temp.acquire(''c'', 4)');
SELECT * FROM pg_temp.try('SELECT * FROM pg_temp.acquire(''c'', 3, worker_bits => 3)');
SELECT * FROM pg_temp.try('SELECT * FROM pg_temp.acquire(''c'', 3, epoch_ms => 1288834974657)');

-- a's lease expires: c may take id 1 now, with a new fence, starting above
-- a's recorded bound plus a's drift (5000 + 1000).
SELECT pg_temp.expire(1);
SELECT * FROM pg_temp.acquire('c', 1);
-- a, back from a pause, cannot renew: its lease is lost.
SELECT * FROM pg_temp.try('SELECT pg_temp.renew(''a'', 1, 1, 7000)');
SELECT * FROM pg_temp.leases;

-- A later run of c (a restart after a crash, its lease still live): with a
-- fence other than the one it holds (a copy of an older state) it is
-- refused; with the fence its state recorded it takes id 1 back, above the
-- bound of its own earlier run.
INSERT INTO srv VALUES ('c2', 7003, 203, 'hostc', 5432, '/data/c', 1);
SELECT * FROM pg_temp.try('SELECT * FROM pg_temp.acquire(''c2'', 1, previous_fence => 1)');
SELECT * FROM pg_temp.acquire('c2', 1, previous_fence => 2);
-- b's data directory restored elsewhere, on b's timeline: refused while b
-- is live. b's standby, promoted (higher timeline), takes b's lease over,
-- above b's bound.
INSERT INTO srv VALUES
    ('b_copy', 7002, 302, 'hostz', 5433, '/restore/b', 1),
    ('b_promoted', 7002, 402, 'hosts', 5432, '/data/s', 2);
SELECT pg_temp.renew('b', 2, 1, 8000);
SELECT * FROM pg_temp.try('SELECT * FROM pg_temp.acquire(''b_copy'', 2)');
SELECT * FROM pg_temp.acquire('b_promoted', 2);
SELECT * FROM pg_temp.try('SELECT pg_temp.renew(''b'', 2, 1, 9000)');
SELECT * FROM pg_temp.leases;

-- 'auto', on a new registry: the lowest id never leased first.
TRUNCATE snowflake_registry_lease, snowflake_registry_layout;
INSERT INTO srv VALUES
    ('d', 7004, 104, 'hostd', 5432, '/data/d', 1),
    ('e', 7005, 105, 'hoste', 5432, '/data/e', 1),
    ('a3', 7001, 501, 'hosta', 5432, '/data/a', 1);
SELECT * FROM pg_temp.acquire('a', NULL);
SELECT * FROM pg_temp.acquire('b', NULL);
SELECT * FROM pg_temp.acquire('c', NULL);
SELECT * FROM pg_temp.acquire('d', NULL);
-- A fifth server finds every id live.
SELECT * FROM pg_temp.try('SELECT * FROM pg_temp.acquire(''e'', NULL)');
-- a restarts: it gets the id its state was made with (0) back.
SELECT * FROM pg_temp.acquire('a3', NULL, preferred => 0, previous_fence => 1);
-- A clean stop releases the lease with the final bound: free at once.
SELECT snowflake_registry_release(0, 2, 501, 12000);
SELECT snowflake_registry_release(0, 2, 501, 12000);
SELECT * FROM pg_temp.acquire('e', NULL);
-- Recycling: b's lease (bound 900000) expired two hours ago, c's (bound
-- 3000) one hour ago. A server whose clock is at 500000 takes c's id first
-- (its bound is below the clock), then b's; later, the one that expired
-- longest ago comes first among equals.
SELECT pg_temp.renew('b', 1, 1, 900000);
SELECT pg_temp.renew('c', 2, 1, 3000);
UPDATE snowflake_registry_lease SET expires_at = clock_timestamp() - interval '2 h' WHERE node_id = 1;
UPDATE snowflake_registry_lease SET expires_at = clock_timestamp() - interval '1 h' WHERE node_id = 2;
INSERT INTO srv VALUES
    ('f', 7006, 106, 'hostf', 5432, '/data/f', 1),
    ('g', 7007, 107, 'hostg', 5432, '/data/g', 1);
SELECT * FROM pg_temp.acquire('f', NULL, clock_ms => 500000);
SELECT * FROM pg_temp.acquire('g', NULL, clock_ms => 500000);
SELECT * FROM pg_temp.leases;

-- on_clock_step_back = 'switch_node': f (node 2, fence 2), its clock set
-- back to 500000, gives back its lease and takes another id in one step.
CREATE FUNCTION pg_temp.switch(who text, node integer, fence bigint, held_bound bigint,
                               clock_ms bigint, bound bigint)
RETURNS TABLE (new_node_id integer, new_fence bigint, floor_ms bigint) LANGUAGE sql AS $$
    SELECT w.new_node_id, w.new_fence, w.floor_ms
    FROM srv s, snowflake_registry_switch(node, fence, s.instance, held_bound, s.sysid, s.host,
        s.port, s.datadir, s.timeline, 1000, 60000, clock_ms, bound) w
    WHERE s.name = who
$$;
-- Every other id is live: refused, and f keeps its lease as it was.
SELECT * FROM pg_temp.try('SELECT * FROM pg_temp.switch(''f'', 2, 2, 7000, 500000, 560000)');
SELECT * FROM pg_temp.leases;
-- g's lease (id 1, bound 901000) ended two hours ago, d's (id 3, bound 0)
-- one hour ago: g's ended first but its IDs lie ahead of f's clock, so f
-- switches to 3. Its old id is released with its bound; the new lease
-- records f's first bound.
SELECT pg_temp.renew('g', 1, 2, 901000);
UPDATE snowflake_registry_lease SET expires_at = clock_timestamp() - interval '2 h' WHERE node_id = 1;
UPDATE snowflake_registry_lease SET expires_at = clock_timestamp() - interval '1 h' WHERE node_id = 3;
SELECT * FROM pg_temp.switch('f', 2, 2, 7000, 500000, 560000);
SELECT * FROM pg_temp.leases;
-- Only the holder can switch: the old fence, or another run, is refused.
SELECT * FROM pg_temp.try('SELECT * FROM pg_temp.switch(''f'', 2, 2, 7000, 500000, 560000)');
SELECT * FROM pg_temp.try('SELECT * FROM pg_temp.switch(''a'', 3, 2, 7000, 500000, 560000)');

-- 1.5: every grant has a fence of its own, this very run asking again
-- included, and a give-back records the bound it is given, even below the
-- last renewal's (a clean stop gives its exact floor). So a give-back the
-- registry runs late, naming an older grant's fence, changes nothing.
TRUNCATE snowflake_registry_lease, snowflake_registry_layout;
SELECT * FROM pg_temp.acquire('a', NULL);
SELECT * FROM pg_temp.acquire('a', NULL, preferred => 0);
SELECT pg_temp.renew('a', 0, 2, 50000);
SELECT snowflake_registry_release(0, 1, 101, 1000) AS late_give_back_of_fence_1;
SELECT snowflake_registry_release(0, 2, 101, 20000) AS give_back_of_fence_2;
SELECT fence, reserved_until_ms, released_at IS NOT NULL AS released
FROM snowflake_registry_lease WHERE node_id = 0;
-- The next holder starts above the exact bound plus a's drift, not above
-- the renewal's 50000.
SELECT * FROM pg_temp.acquire('b', 0);
-- A later run of a server that brings no previous fence (NULL) is not
-- taken for the holder's own later run: a's live lease on 1 is refused to
-- it, as the Redis store does.
SELECT * FROM pg_temp.acquire('a', 1);
SELECT * FROM pg_temp.try('SELECT * FROM pg_temp.acquire(''a2'', 1)');

-- Leasing is not for PUBLIC.
CREATE ROLE sf_registry_stranger;
SET ROLE sf_registry_stranger;
SELECT snowflake_registry_release(0, 1, 1, 0);
SELECT * FROM snowflake_registry_switch(0, 1, 1, 0, 1, 'h', 1, '/d', 1, 0, 1, 0, 0);
RESET ROLE;
DROP ROLE sf_registry_stranger;
TRUNCATE snowflake_registry_lease, snowflake_registry_layout;
