// The Redis store's side of the lease protocol: one Lua script per call,
// run with EVALSHA, so that every acquire, renew, release and switch is one
// atomic step in Redis, as each SQL function is one transaction in the
// PostgreSQL registry (snowflake_id--1.3.sql, "The registry of node ids",
// the reference for the rules; the messages are the same).
//
// Keys, under the prefix P (KEYS[1]; "snowflake_id" unless the URL says):
//   P:meta        hash: created_at_ms, quarantine_until_ms, floor_ms
//   P:layout      hash: the cluster's datacenter_bits, worker_bits,
//                 sequence_bits, epoch_ms, lease_ttl_ms, max_clock_drift_ms,
//                 recorded_at_ms, recorded_by
//   P:lease:N     hash: node id N's lease, the columns of the SQL table
//                 (times in ms since 1970; released_at_ms 0 while held)
//   P:leases      sorted set: node ids (zero-padded, so that ties sort by
//                 number) scored by when their lease ends (expiry, or
//                 release), the order recycling takes them in
//   P:next_id     counter: no node id below it was never leased
// A lease's hash expires KEEP_MS after the later of its end and its
// recorded bound plus drift: the entries of servers long gone go away, and
// no bound is forgotten before the clock has passed it by that much.
// Correctness never rests on the expiry: a live lease is renewed every
// lease_ttl / 3. The other keys do not expire.
//
// A registry without P:meta is new, or lost its data (Redis restarted
// without persistence, a FLUSHALL): it cannot tell which. It then hands out
// no node id until quarantine_until_ms, the cluster's lease_ttl plus
// max_clock_drift after it noticed: by then every server that held a lease
// has passed its deadline and stopped (its renewals find no lease). The
// Redis store therefore requires one lease_ttl and max_clock_drift in the
// cluster (recorded with the layout). Every grant after that starts above
// floor_ms, the end of the quarantine plus max_clock_drift: above every ID
// the old holders can have issued, whatever the lost bounds were.
//
// Replies: {"ok", node, fence, floor_ms, expires_ms} for acquire and
// switch, {"ok", expires_ms} for renew, {"ok", 1 or 0} for release;
// {"refused", sqlstate, message, detail, hint} when the registry says no.
#pragma once

namespace sf_redis_lua {

inline constexpr const char kPrelude[] = R"lua(
local P = KEYS[1]
local KEEP_MS = 30 * 24 * 3600 * 1000

local function now_ms()
    local t = redis.call('TIME')
    return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function int(x) return string.format('%d', x) end

-- ms since 1970 as the messages write times: 2026-11-23 12:00:00.000Z
local function ts(ms)
    local s = math.floor(ms / 1000)
    local days = math.floor(s / 86400)
    local rem = s - days * 86400
    local z = days + 719468
    local era = math.floor(z / 146097)
    local doe = z - era * 146097
    local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524)
                            - math.floor(doe / 146096)) / 365)
    local y = yoe + era * 400
    local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
    local mp = math.floor((5 * doy + 2) / 153)
    local d = doy - math.floor((153 * mp + 2) / 5) + 1
    local m = mp < 10 and mp + 3 or mp - 9
    if m <= 2 then y = y + 1 end
    return string.format('%04d-%02d-%02d %02d:%02d:%02d.%03dZ', y, m, d,
        math.floor(rem / 3600), math.floor(rem % 3600 / 60), rem % 60, ms % 1000)
end

local function refused(sqlstate, message, detail, hint)
    return {'refused', sqlstate, message, detail or '', hint or ''}
end

local function lease_key(n) return P .. ':lease:' .. int(n) end
local function member_of(n) return string.format('%010d', n) end

local NUMBERS = {'fence', 'holder_port', 'holder_timeline', 'holder_max_clock_drift_ms',
                 'acquired_at_ms', 'renewed_at_ms', 'expires_at_ms', 'released_at_ms',
                 'reserved_until_ms'}

local function get_lease(n)
    local v = redis.call('HGETALL', lease_key(n))
    if #v == 0 then return nil end
    local l = {}
    for i = 1, #v, 2 do l[v[i]] = v[i + 1] end
    for _, k in ipairs(NUMBERS) do l[k] = tonumber(l[k]) end
    return l
end

local function put_lease(n, l)
    local key = lease_key(n)
    redis.call('HSET', key, 'fence', int(l.fence), 'holder_system_id', l.holder_system_id,
        'holder_instance', l.holder_instance, 'holder_host', l.holder_host,
        'holder_port', int(l.holder_port), 'holder_data_directory', l.holder_data_directory,
        'holder_timeline', int(l.holder_timeline),
        'holder_max_clock_drift_ms', int(l.holder_max_clock_drift_ms),
        'acquired_at_ms', int(l.acquired_at_ms), 'renewed_at_ms', int(l.renewed_at_ms),
        'expires_at_ms', int(l.expires_at_ms), 'released_at_ms', int(l.released_at_ms),
        'reserved_until_ms', int(l.reserved_until_ms))
    local ends = l.released_at_ms > 0 and l.released_at_ms or l.expires_at_ms
    local keep_until = math.max(ends, l.reserved_until_ms + l.holder_max_clock_drift_ms) + KEEP_MS
    redis.call('PEXPIRE', key, math.max(1, keep_until - now_ms()))
    redis.call('ZADD', P .. ':leases', ends, member_of(n))
end

local function is_live(l, now) return l.released_at_ms == 0 and l.expires_at_ms > now end

local function holder_text(host, port, dir, system_id)
    return string.format('%s:%s, data directory %s, system identifier %s', host, port, dir,
                         system_id)
end

local function layout_text(dc, w, s, epoch_ms)
    return string.format('%s datacenter, %s worker and %s sequence bits from epoch %s',
                         dc, w, s, ts(epoch_ms))
end

-- The holder as the arguments give it, from index i on: system_id,
-- instance, host, port, data_directory, timeline.
local function holder_of(i)
    return {system_id = ARGV[i], instance = ARGV[i + 1], host = ARGV[i + 2],
            port = tonumber(ARGV[i + 3]), data_directory = ARGV[i + 4],
            timeline = tonumber(ARGV[i + 5])}
end

local function may_take(l, h, previous_fence)
    return l.holder_instance == h.instance
        or (l.holder_system_id == h.system_id
            and (h.timeline > l.holder_timeline
                 or (l.holder_host == h.host and l.holder_port == h.port
                     and l.holder_data_directory == h.data_directory
                     and l.fence == previous_fence)))
end

local function new_lease(h, fence, drift, now, expires, bound)
    return {fence = fence, holder_system_id = h.system_id, holder_instance = h.instance,
            holder_host = h.host, holder_port = h.port,
            holder_data_directory = h.data_directory, holder_timeline = h.timeline,
            holder_max_clock_drift_ms = drift, acquired_at_ms = now, renewed_at_ms = now,
            expires_at_ms = expires, released_at_ms = 0, reserved_until_ms = bound}
end

-- The lowest node id below `nodes` never leased, or nil; `except` is skipped.
local function never_leased(nodes, except)
    local n = tonumber(redis.call('GET', P .. ':next_id') or '0')
    while n < nodes and (n == except or redis.call('EXISTS', lease_key(n)) == 1) do
        n = n + 1
    end
    if n < nodes then return n end
    return nil
end

local function advance_next_id(target)
    local n = tonumber(redis.call('GET', P .. ':next_id') or '0')
    if target == n then
        redis.call('SET', P .. ':next_id', int(n + 1))
    end
end

-- Node ids whose lease ended, the longest ago first; a lease whose hash
-- expired is dropped from the set on the way.
local function ended_leases(now)
    local out = {}
    local v = redis.call('ZRANGE', P .. ':leases', 0, -1)
    for _, m in ipairs(v) do
        local n = tonumber(m)
        local l = get_lease(n)
        if l == nil then
            redis.call('ZREM', P .. ':leases', m)
        elseif not is_live(l, now) then
            out[#out + 1] = {n = n, l = l}
        end
    end
    return out
end

-- nil when the registry may hand out node ids; else the refusal.
local function quarantined(now, ttl, drift)
    local q = redis.call('HGET', P .. ':meta', 'quarantine_until_ms')
    if not q then
        q = now + ttl + drift
        redis.call('HSET', P .. ':meta', 'created_at_ms', int(now), 'quarantine_until_ms', int(q),
                   'floor_ms', int(q + drift))
    end
    q = tonumber(q)
    if now >= q then return nil end
    return refused('55000',
        'the Redis registry holds no record of earlier leases: it hands out node ids from '
            .. ts(q),
        'The registry is new, or Redis lost its data (restarted without persistence, flushed). '
            .. 'Servers that held node ids before stop at their lease deadlines, which have '
            .. 'passed by then; the server asks again until then.',
        'Run Redis with appendonly yes and appendfsync always. A Redis that never held leases '
            .. 'can be marked as such: HSET ' .. P .. ':meta quarantine_until_ms 0.')
end

-- Every grant starts above the floor a quarantine left.
local function meta_floor()
    return tonumber(redis.call('HGET', P .. ':meta', 'floor_ms') or '0') or 0
end

local function check_ttl(ttl)
    if ttl == nil or ttl <= 0 then
        return refused('22023', 'lease ttl ' .. tostring(ttl) .. ' ms is out of range', nil,
                       'Set snowflake_id.lease_ttl to a positive duration.')
    end
    return nil
end
)lua";

// ARGV: requested_node ('' for 'auto'), preferred_node (''), previous_fence
// (''), system_id, instance, host, port, data_directory, timeline,
// datacenter_bits, worker_bits, sequence_bits, epoch_ms, max_clock_drift_ms,
// ttl_ms, clock_ms.
inline constexpr const char kAcquire[] = R"lua(
local requested = tonumber(ARGV[1])
local preferred = tonumber(ARGV[2])
local previous_fence = tonumber(ARGV[3])
local h = holder_of(4)
local dc, w, s = tonumber(ARGV[10]), tonumber(ARGV[11]), tonumber(ARGV[12])
local epoch, drift, ttl, clock = tonumber(ARGV[13]), tonumber(ARGV[14]), tonumber(ARGV[15]),
                                 tonumber(ARGV[16])
local now = now_ms()
local me = holder_text(h.host, h.port, h.data_directory, h.system_id)
local bad = check_ttl(ttl)
if bad then return bad end
if dc == nil or w == nil or dc < 0 or w < 0 or dc + w > 30 then
    return refused('22023', string.format(
        'node id fields of %s datacenter and %s worker bits are out of range', ARGV[10], ARGV[11]),
        nil, 'The registry leases node ids of up to 30 bits.')
end
local q = quarantined(now, ttl, drift)
if q then return q end

local layout = redis.call('HGETALL', P .. ':layout')
if #layout > 0 then
    local c = {}
    for i = 1, #layout, 2 do c[layout[i]] = layout[i + 1] end
    if tonumber(c.datacenter_bits) ~= dc or tonumber(c.worker_bits) ~= w
       or tonumber(c.sequence_bits) ~= s or tonumber(c.epoch_ms) ~= epoch then
        return refused('55000', 'the layout of this server differs from the cluster\'s',
            string.format('The registry\'s cluster uses %s (recorded by %s at %s); this server '
                .. 'runs %s. IDs of different layouts cannot be compared or decoded together.',
                layout_text(c.datacenter_bits, c.worker_bits, c.sequence_bits,
                            tonumber(c.epoch_ms)),
                c.recorded_by, ts(tonumber(c.recorded_at_ms)), layout_text(dc, w, s, epoch)),
            'Give every server of the cluster the same snowflake_id.datacenter_bits, '
                .. 'worker_bits, sequence_bits and epoch.')
    end
    if tonumber(c.lease_ttl_ms) ~= ttl or tonumber(c.max_clock_drift_ms) ~= drift then
        return refused('55000',
            'the lease_ttl or max_clock_drift of this server differs from the cluster\'s',
            string.format('The Redis registry\'s cluster uses lease_ttl %s ms and max_clock_drift '
                .. '%s ms (recorded by %s); this server runs %d ms and %d ms. A Redis registry '
                .. 'that lost its data waits out one lease_ttl plus max_clock_drift, so they '
                .. 'must be the same on every server.', tostring(c.lease_ttl_ms),
                tostring(c.max_clock_drift_ms), c.recorded_by, ttl, drift),
            'Give every server of the cluster the same snowflake_id.lease_ttl and '
                .. 'max_clock_drift.')
    end
end
-- Recorded with the first grant, not by a refused request.
local function record_layout()
    if #layout == 0 then
        redis.call('HSET', P .. ':layout', 'datacenter_bits', int(dc), 'worker_bits', int(w),
            'sequence_bits', int(s), 'epoch_ms', int(epoch), 'lease_ttl_ms', int(ttl),
            'max_clock_drift_ms', int(drift), 'recorded_at_ms', int(now), 'recorded_by', me)
    end
end

local nodes = 2 ^ (dc + w)
local target = nil
if requested ~= nil then
    if requested < 0 or requested >= nodes then
        return refused('22003', string.format(
            'node id %d is out of range for %d datacenter and %d worker bits', requested, dc, w),
            nil, string.format('Node ids run from 0 to %d.', nodes - 1))
    end
    target = requested
else
    if preferred ~= nil and preferred >= 0 and preferred < nodes then
        local l = get_lease(preferred)
        if l == nil or not is_live(l, now) or may_take(l, h, previous_fence) then
            target = preferred
        end
    end
    if target == nil then target = never_leased(nodes, nil) end
    if target == nil then
        -- Recycling: the id whose lease ended longest ago, first among those
        -- whose recorded bound lies below this server's clock.
        local ended = ended_leases(now)
        for _, e in ipairs(ended) do
            if e.l.reserved_until_ms + e.l.holder_max_clock_drift_ms < clock then
                target = e.n
                break
            end
        end
        if target == nil and #ended > 0 then target = ended[1].n end
    end
    if target == nil then
        return refused('53400', string.format(
            'every node id is leased: %d of %d held by live servers', nodes, nodes), nil,
            'Wait for a lease to expire, stop a server, or widen snowflake_id.worker_bits or '
                .. 'datacenter_bits (a new layout).')
    end
end

local expires = now + ttl
local lease = get_lease(target)
if lease == nil then
    record_layout()
    local floor = meta_floor()
    put_lease(target, new_lease(h, 1, drift, now, expires, floor))
    advance_next_id(target)
    return {'ok', int(target), '1', int(floor), int(expires)}
end
if is_live(lease, now) and not may_take(lease, h, previous_fence) then
    return refused('55000', string.format('node id %d is held by another server', target),
        string.format('It is held by %s, whose lease runs until %s; this server is %s.',
            holder_text(lease.holder_host, lease.holder_port, lease.holder_data_directory,
                        lease.holder_system_id),
            ts(lease.expires_at_ms), me),
        'Give every server its own snowflake_id.worker_id, or set it to \'auto\'. A server that '
            .. 'was stopped without a clean shutdown frees its id when its lease expires.')
end
record_layout()
-- A new fence for every grant: see snowflake_registry_acquire.
local fence = lease.fence + 1
-- Strictly above every ID the old holder may have issued.
local floor = math.max(lease.reserved_until_ms + lease.holder_max_clock_drift_ms, meta_floor())
put_lease(target, new_lease(h, fence, drift, now, expires, floor))
return {'ok', int(target), int(fence), int(floor), int(expires)}
)lua";

// ARGV: node, fence, instance, reserved_until_ms, ttl_ms.
inline constexpr const char kRenew[] = R"lua(
local node, fence, instance = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local bound, ttl = tonumber(ARGV[4]), tonumber(ARGV[5])
local now = now_ms()
local bad = check_ttl(ttl)
if bad then return bad end
local l = get_lease(node)
if l == nil or l.fence ~= fence or l.holder_instance ~= instance or l.released_at_ms > 0 then
    local detail
    if l == nil then
        detail = 'The registry has no lease on that node id.'
    elseif l.released_at_ms > 0 and l.fence == fence then
        detail = 'It was released at ' .. ts(l.released_at_ms) .. '.'
    else
        detail = string.format('It is held by %s since %s with fence %d; this run of the '
            .. 'server held fence %d.', holder_text(l.holder_host, l.holder_port,
            l.holder_data_directory, l.holder_system_id), ts(l.acquired_at_ms), l.fence, fence)
    end
    return refused('55000', string.format('the lease on node id %d was lost', node), detail,
        'The server stops issuing IDs at its lease deadline and leases a node id again.')
end
l.renewed_at_ms = now
l.expires_at_ms = now + ttl
if bound > l.reserved_until_ms then l.reserved_until_ms = bound end
put_lease(node, l)
return {'ok', int(l.expires_at_ms)}
)lua";

// ARGV: node, fence, instance, reserved_until_ms.
inline constexpr const char kRelease[] = R"lua(
local node, fence, instance = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local bound = tonumber(ARGV[4])
local l = get_lease(node)
if l == nil or l.fence ~= fence or l.holder_instance ~= instance or l.released_at_ms > 0 then
    return {'ok', '0'}
end
l.released_at_ms = now_ms()
-- The bound the holder gives, even below its last renewal's: see
-- snowflake_registry_release (snowflake_id--1.5.sql).
l.reserved_until_ms = bound
put_lease(node, l)
return {'ok', '1'}
)lua";

// ARGV: node, fence, instance, held_reserved_until_ms, system_id, host,
// port, data_directory, timeline, max_clock_drift_ms, ttl_ms, clock_ms,
// reserved_until_ms.
inline constexpr const char kSwitch[] = R"lua(
local node, fence, instance = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local held_bound = tonumber(ARGV[4])
local h = {system_id = ARGV[5], instance = instance, host = ARGV[6], port = tonumber(ARGV[7]),
           data_directory = ARGV[8], timeline = tonumber(ARGV[9])}
local drift, ttl, clock, bound = tonumber(ARGV[10]), tonumber(ARGV[11]), tonumber(ARGV[12]),
                                 tonumber(ARGV[13])
local now = now_ms()
local bad = check_ttl(ttl)
if bad then return bad end
local held = get_lease(node)
if held == nil or held.fence ~= fence or held.holder_instance ~= instance
   or held.released_at_ms > 0 then
    return refused('55000', string.format('the lease on node id %d was lost', node),
        'Only the server that holds a lease can switch it for another node id.',
        'The server stops issuing IDs at its lease deadline and leases a node id again.')
end
local c = {}
local layout = redis.call('HGETALL', P .. ':layout')
for i = 1, #layout, 2 do c[layout[i]] = layout[i + 1] end
local nodes = 2 ^ (tonumber(c.datacenter_bits) + tonumber(c.worker_bits))

local target = nil
for _, e in ipairs(ended_leases(now)) do
    if e.n ~= node and e.l.reserved_until_ms + e.l.holder_max_clock_drift_ms < clock then
        target = e.n
        break
    end
end
if target == nil then target = never_leased(nodes, node) end
if target == nil then
    return refused('55000', 'no node id is free for a server whose clock reads ' .. ts(clock),
        'Every node id is leased, or its recorded bound lies at or after that time, so IDs on '
            .. 'it would repeat or wait for the clock.',
        'The server keeps node id ' .. int(node) .. ' and waits for its clock as with '
            .. 'on_clock_step_back = \'error\'. Widen worker_bits for spare ids.')
end

held.released_at_ms = now
if held_bound > held.reserved_until_ms then held.reserved_until_ms = held_bound end
put_lease(node, held)

local expires = now + ttl
local lease = get_lease(target)
local floor = meta_floor()
if lease == nil then
    put_lease(target, new_lease(h, 1, drift, now, expires, math.max(floor, bound)))
    advance_next_id(target)
    return {'ok', int(target), '1', int(floor), int(expires)}
end
local new_fence = lease.fence + 1
floor = math.max(floor, lease.reserved_until_ms + lease.holder_max_clock_drift_ms)
put_lease(target, new_lease(h, new_fence, drift, now, expires, math.max(floor, bound)))
return {'ok', int(target), int(new_fence), int(floor), int(expires)}
)lua";

}  // namespace sf_redis_lua
