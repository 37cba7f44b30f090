#include "lease_rules.hpp"

#include <algorithm>
#include <cinttypes>
#include <utility>

#include "epoch.hpp"

namespace snowflake {

namespace {

// The registry leases node ids of up to 30 bits: they fit the PostgreSQL
// registry's integer column and the generator's fields.
constexpr int kMaxNodeBits = 30;

// When a lease granted or renewed at now_ms ends. The store's clock is
// rounded down to the millisecond (RegistryView::now_ms), so now_ms may lie
// up to 1 ms before the moment the store received the call; the holder
// stops issuing ttl after it sent the call. One millisecond more keeps the
// end the store records after the holder's own deadline.
int64_t lease_end(int64_t now_ms, int64_t ttl_ms) {
    return now_ms + ttl_ms + 1;
}

const char kLostHint[] =
    "The server stops issuing IDs at its lease deadline and leases a node id again.";

bool is_live(const LeaseRecord &lease, int64_t now_ms) {
    return lease.released_at_ms == 0 && lease.expires_at_ms > now_ms;
}

// When the lease ended: given back, or else its expiry.
int64_t ended_at(const LeaseRecord &lease) {
    return lease.released_at_ms != 0 ? lease.released_at_ms : lease.expires_at_ms;
}

// Above every ID the holder may have issued: it issued only below its
// recorded bound, borrowing at most its drift.
int64_t floor_after(const LeaseRecord &lease) {
    return lease.reserved_until_ms + lease.holder_max_clock_drift_ms;
}

const TimelineRecord *timeline_of(const RegistryView &view, uint64_t system_id, int timeline) {
    for (const TimelineRecord &t : view.timelines) {
        if (t.system_id == system_id && t.timeline == timeline) {
            return &t;
        }
    }
    return nullptr;
}

// The highest WAL position any holder of (system, timeline) recorded: the
// registry's record of the timeline, or a lease's, whichever is higher (a
// lease written where the store keeps no TimelineRecord yet). 0 where none
// did, as for records of servers before 1.7.
int64_t recorded_position(const RegistryView &view, uint64_t system_id, int timeline) {
    const TimelineRecord *record = timeline_of(view, system_id, timeline);
    int64_t position = record != nullptr ? record->position : 0;
    for (const LeaseRecord &lease : view.leases) {
        if (lease.holder_system_id == system_id && lease.holder_timeline == timeline) {
            position = std::max(position, lease.holder_wal_position);
        }
    }
    return position;
}

const TimelineSwitch *switch_from(const LeaseHolder &holder, int timeline) {
    for (const TimelineSwitch &s : holder.history) {
        if (s.timeline == timeline) {
            return &s;
        }
    }
    return nullptr;
}

// Whether `holder` succeeds `timeline` of its own system: it runs on a
// higher timeline whose history left that one at or after the highest
// position any holder of it recorded, so that it carries everything that
// timeline's servers did while they held leases (a promoted standby). A
// server that left it before (a restored backup, a point-in-time copy) is
// a copy: the original went on past its branch point. Safe either way for
// IDs (a copy never takes a live lease over, a successor's grant starts
// above every recorded bound); what it decides is who keeps running. A
// standby promoted on purpose into a separate server, or a copy that
// recovered up to the original's last recorded position (an idle
// original, or a copy made within one renewal of it), counts as a
// successor: the registry cannot tell them from a failover.
bool is_successor(const RegistryView &view, const LeaseHolder &holder, uint64_t system_id,
                  int timeline) {
    if (holder.system_id != system_id || holder.timeline <= timeline) {
        return false;
    }
    const TimelineSwitch *left = switch_from(holder, timeline);
    return left != nullptr && left->switchpoint >= recorded_position(view, system_id, timeline);
}

// A server on a higher timeline of the lease holder's system that is no
// successor of the holder's timeline: a copy of it.
bool is_copy_of(const RegistryView &view, const LeaseRecord &lease, const LeaseHolder &holder) {
    return lease.holder_system_id == holder.system_id && holder.timeline > lease.holder_timeline &&
           lease.holder_instance != holder.instance &&
           !is_successor(view, holder, lease.holder_system_id, lease.holder_timeline);
}

// Whether a server may take over a lease that is still live: it is the same
// run; or a successor of the holder's timeline (a promoted standby); or a
// later run of the same server (same system identifier, host, port and
// data directory, and the fence its durable state recorded). A server
// without a recorded fence (0: fences start at 1) is not such a run,
// whatever the lease's fence. A copy of the holder's data directory
// started elsewhere (a restored backup, on its old timeline or a new one
// that branched before the holder's recorded position) is none of these.
bool may_take(const RegistryView &view, const LeaseRecord &lease, const LeaseHolder &holder,
              int64_t previous_fence) {
    if (lease.holder_instance == holder.instance) {
        return true;
    }
    if (lease.holder_system_id != holder.system_id) {
        return false;
    }
    return is_successor(view, holder, lease.holder_system_id, lease.holder_timeline) ||
           (lease.holder_host == holder.host && lease.holder_port == holder.port &&
            lease.holder_data_directory == holder.data_directory && previous_fence > 0 &&
            lease.fence == previous_fence);
}

// Whether `lease` is held by a promoted standby of the server asking, as
// servers before 1.7 recorded it (no WAL position): the same system
// identifier on a higher timeline, another run. A holder that recorded a
// position replaces the server only through the registry's record of the
// server's timeline (superseded_by), which a copy never sets.
bool held_by_successor(const LeaseRecord &lease, uint64_t system_id, int64_t instance,
                       int timeline) {
    return lease.holder_system_id == system_id && lease.holder_timeline > timeline &&
           lease.holder_instance != instance && lease.holder_wal_position == 0;
}

// A lease an acquire of `holder` ends for its holder: another run's, of a
// timeline `holder` succeeds (an old primary's, or a standby's promoted
// before), not given back, live or expired. Expired too: the old primary's
// renewal may still be on its way.
bool ends_for_successor(const RegistryView &view, const LeaseRecord &lease,
                        const LeaseHolder &holder) {
    return lease.released_at_ms == 0 && lease.holder_instance != holder.instance &&
           is_successor(view, holder, lease.holder_system_id, lease.holder_timeline);
}

// The lease taking over which would make the asking server a promoted
// standby replacing a live holder: live, of a timeline it succeeds, and
// not this server's own earlier run (may_take's other cases).
bool takes_from_predecessor(const RegistryView &view, const LeaseRecord &lease,
                            const LeaseHolder &holder, int64_t now_ms) {
    return is_live(lease, now_ms) && ends_for_successor(view, lease, holder);
}

// Refuses an old primary: `successor` is a live lease of its promoted
// standby. The message says by whom; the hint never suggests another
// worker_id or 'auto', which would only get it an id to diverge on.
RuleOutcome refuse_replaced(const LeaseRecord &successor, const LeaseHolder &holder,
                            const std::string &me, Error *err) {
    fail(err, ErrorCode::registry_replaced,
         "this server was replaced by a promoted standby (timeline %d) of its own",
         successor.holder_timeline);
    set_detail(err,
               "Node id %" PRId64
               " is held by %s on timeline %d, whose lease runs until %s; this server is %s on "
               "timeline %d. Both have the same system identifier: the other is a standby of "
               "this server's, promoted.",
               successor.node,
               holder_text(successor.holder_host.c_str(), successor.holder_port,
                           successor.holder_data_directory.c_str(), successor.holder_system_id)
                   .c_str(),
               successor.holder_timeline, registry_time_text(successor.expires_at_ms).c_str(),
               me.c_str(), holder.timeline);
    set_hint(err,
             "An old primary issues no IDs while its successor holds a lease, so that its writes "
             "fail instead of diverging: stop it, or make it a standby of the new primary "
             "(pg_rewind). If the other server is no successor but a copy of this one (a "
             "restored backup or a promoted standby, recovered to a new timeline), stop the "
             "copy or give it another registry, or set snowflake_id.on_replaced = "
             "'lease_another' on this server.");
    return RuleOutcome::refused;
}

const LeaseRecord *find(const RegistryView &view, int64_t node) {
    for (const LeaseRecord &lease : view.leases) {
        if (lease.node == node) {
            return &lease;
        }
    }
    return nullptr;
}

// A never-leased id below `nodes`, skipping `except`, or -1: the lowest
// one, or with a spread (LeaseRequest::spread) a pseudo-random one. An id
// with a record was leased before (with_dropped_records() gives one to an
// id with only a high-water mark); so was one below never_leased_from.
int64_t never_leased(const RegistryView &view, int64_t nodes, int64_t except, uint64_t spread = 0) {
    std::vector<int64_t> known;
    known.reserve(view.leases.size() + 1);
    for (const LeaseRecord &lease : view.leases) {
        known.push_back(lease.node);
    }
    known.push_back(except);
    std::sort(known.begin(), known.end());
    known.erase(std::unique(known.begin(), known.end()), known.end());
    const int64_t from = std::max<int64_t>(0, view.never_leased_from);
    int64_t count = nodes - from;
    for (int64_t n : known) {
        count -= n >= from && n < nodes ? 1 : 0;
    }
    if (count <= 0) {
        return -1;
    }
    // The k-th id of [from, nodes) that is not known, walking the gaps.
    int64_t k = spread == 0 ? 0 : static_cast<int64_t>(spread % static_cast<uint64_t>(count));
    int64_t n = from;
    for (int64_t skip : known) {
        if (skip < n) {
            continue;
        }
        if (k < skip - n) {
            break;
        }
        k -= skip - n;
        n = skip + 1;
    }
    return n + k < nodes ? n + k : -1;
}

// The view with a record for every id whose record is gone but whose
// high-water mark is kept (HighWater): a lease that ended long ago, at the
// mark's fence, whose holders left its floor.
RegistryView with_dropped_records(const RegistryView &stored) {
    RegistryView view = stored;
    if (stored.high.empty()) {
        return view;
    }
    std::vector<int64_t> recorded;
    recorded.reserve(stored.leases.size());
    for (const LeaseRecord &lease : stored.leases) {
        recorded.push_back(lease.node);
    }
    std::sort(recorded.begin(), recorded.end());
    for (const HighWater &mark : stored.high) {
        if (std::binary_search(recorded.begin(), recorded.end(), mark.node)) {
            continue;
        }
        LeaseRecord dropped;
        dropped.node = mark.node;
        dropped.fence = mark.fence;
        dropped.reserved_until_ms = mark.floor_ms;
        dropped.holder_max_clock_drift_ms = 0;  // in the mark's floor already
        view.leases.push_back(dropped);
    }
    return view;
}

const HighWater *high_water_of(const RegistryView &view, int64_t node) {
    for (const HighWater &mark : view.high) {
        if (mark.node == node) {
            return &mark;
        }
    }
    return nullptr;
}

// The floor an ended id's next grant starts above, as grant_node() takes
// it: its record's (bound plus drift) or its high-water mark's, whichever
// is higher. A mark lies above its record where the record was written
// again lower (by a server before 1.6, which keeps no marks) or was read
// before a give-back lowered both: judged by its record alone, such an id
// would look free at a clock that its grant then runs ahead of. Built once
// per decision, so that ranking every ended id costs no scan of the marks
// each.
class NextFloors {
  public:
    explicit NextFloors(const RegistryView &view) {
        marks_.reserve(view.high.size());
        for (const HighWater &mark : view.high) {
            marks_.emplace_back(mark.node, mark.floor_ms);
        }
        std::sort(marks_.begin(), marks_.end());
    }
    int64_t of(const LeaseRecord &lease) const {
        const auto it =
            std::lower_bound(marks_.begin(), marks_.end(), std::make_pair(lease.node, INT64_MIN));
        const int64_t mark = it != marks_.end() && it->first == lease.node ? it->second : INT64_MIN;
        return std::max(floor_after(lease), mark);
    }

  private:
    std::vector<std::pair<int64_t, int64_t>> marks_;
};

// Where the store keeps high-water marks: those of every lease written,
// in the same atomic step as the records; a release's floor is its exact
// give-back. An acquire, which reads every record, also restores the mark
// of each record whose mark was lost or lags behind it, so that the record
// can be lost in its turn.
void mark_high_water(const RegistryView &stored, RegistryWrites *writes, bool give_back = false) {
    if (!stored.keeps_high_water) {
        return;
    }
    for (const LeaseRecord &lease : writes->leases) {
        writes->high.push_back(HighWater{lease.node, lease.fence, floor_after(lease), give_back});
    }
}

void restore_high_water(const RegistryView &stored, RegistryWrites *writes) {
    if (!stored.keeps_high_water) {
        return;
    }
    for (const LeaseRecord &lease : stored.leases) {
        const bool written =
            std::any_of(writes->leases.begin(), writes->leases.end(),
                        [&](const LeaseRecord &w) { return w.node == lease.node; });
        const HighWater *mark = high_water_of(stored, lease.node);
        if (!written &&
            (mark == nullptr || mark->fence < lease.fence || mark->floor_ms < floor_after(lease))) {
            writes->high.push_back(HighWater{lease.node, lease.fence, floor_after(lease), false});
        }
    }
}

// The records whose lease ended, the one that ended longest ago first (ties
// by node id), within the node ids of the layout.
std::vector<const LeaseRecord *> ended_leases(const RegistryView &view, int64_t nodes) {
    std::vector<const LeaseRecord *> out;
    for (const LeaseRecord &lease : view.leases) {
        if (lease.node >= 0 && lease.node < nodes && !is_live(lease, view.now_ms)) {
            out.push_back(&lease);
        }
    }
    std::sort(out.begin(), out.end(), [](const LeaseRecord *a, const LeaseRecord *b) {
        const int64_t ea = ended_at(*a), eb = ended_at(*b);
        return ea != eb ? ea < eb : a->node < b->node;
    });
    return out;
}

std::string layout_text(int datacenter_bits, int worker_bits, int sequence_bits, int64_t epoch_ms) {
    char buf[kRegistryLayoutMax + 1];
    snprintf(buf, sizeof buf, "%d datacenter, %d worker and %d sequence bits from epoch %s",
             datacenter_bits, worker_bits, sequence_bits, registry_time_text(epoch_ms).c_str());
    return buf;
}

std::string holder_of(const LeaseRecord &lease) {
    return holder_text(lease.holder_host.c_str(), lease.holder_port,
                       lease.holder_data_directory.c_str(), lease.holder_system_id);
}

std::string holder_of(const LeaseHolder &holder) {
    return holder_text(holder.host, holder.port, holder.data_directory, holder.system_id);
}

bool ttl_out_of_range(int64_t ttl_ms, Error *err) {
    if (ttl_ms > 0) {
        return false;
    }
    fail(err, ErrorCode::registry, "lease ttl %" PRId64 " ms is out of range", ttl_ms);
    set_hint(err, "Set snowflake_id.lease_ttl to a positive duration.");
    return true;
}

// A store that can lose its data unnoticed hands out no node id until its
// quarantine has passed; one that finds its LossGuard missing starts the
// quarantine now (recorded even though the call is refused). False, with
// err filled, while quarantined.
bool past_quarantine(const RegistryView &view, int64_t ttl_ms, int64_t drift_ms,
                     RegistryWrites *writes, Error *err) {
    if (!view.can_lose_data) {
        return true;
    }
    LossGuard guard;
    if (view.guard) {
        guard = *view.guard;
    } else {
        guard.created_at_ms = view.now_ms;
        guard.quarantine_until_ms = view.now_ms + ttl_ms + drift_ms;
        guard.floor_ms = guard.quarantine_until_ms + drift_ms;
        writes->guard = guard;
    }
    if (view.now_ms >= guard.quarantine_until_ms) {
        return true;
    }
    fail(err, ErrorCode::registry,
         "the Redis registry holds no record of earlier leases: it hands out node ids from %s",
         registry_time_text(guard.quarantine_until_ms).c_str());
    set_detail(err,
               "The registry is new, or Redis lost its data (restarted without persistence, "
               "flushed). Servers that held node ids before stop at their lease deadlines, which "
               "have passed by then; the server asks again until then.");
    set_hint(err,
             "Run Redis with appendonly yes and appendfsync always. A Redis that never held "
             "leases can be marked as such: HSET %s quarantine_until_ms 0.",
             view.guard_key.c_str());
    return false;
}

// Every grant starts above the floor a quarantine left.
int64_t guard_floor(const RegistryView &view) {
    return view.guard ? view.guard->floor_ms : 0;
}

// The layout the request runs against the one recorded. False, with err
// filled, if they differ.
bool layout_agrees(const LeaseRequest &request, const RegistryView &view, Error *err) {
    if (!view.layout) {
        return true;
    }
    const LayoutRecord &c = *view.layout;
    const LayoutWidths &w = request.widths;
    if (c.datacenter_bits != w.datacenter_bits || c.worker_bits != w.worker_bits ||
        c.sequence_bits != w.sequence_bits || c.epoch_ms != request.epoch_unix_ms) {
        fail(err, ErrorCode::registry, "the layout of this server differs from the cluster's");
        set_detail(
            err,
            "The registry's cluster uses %s (recorded by %s at %s); this server runs %s. "
            "IDs of different layouts cannot be compared or decoded together.",
            layout_text(c.datacenter_bits, c.worker_bits, c.sequence_bits, c.epoch_ms).c_str(),
            c.recorded_by.c_str(), registry_time_text(c.recorded_at_ms).c_str(),
            layout_text(w.datacenter_bits, w.worker_bits, w.sequence_bits, request.epoch_unix_ms)
                .c_str());
        set_hint(err,
                 "Give every server of the cluster the same snowflake_id.datacenter_bits, "
                 "worker_bits, sequence_bits and epoch.");
        return false;
    }
    // A store that can lose its data waits out one lease_ttl plus
    // max_clock_drift after a loss: every server must run the same. A
    // layout recorded there without them (not by a server) is refused too.
    if (view.can_lose_data && (!c.has_timing || c.lease_ttl_ms != request.ttl_ms ||
                               c.max_clock_drift_ms != request.max_clock_drift_ms)) {
        char ttl[kIntMax + 1] = "(none)", drift[kIntMax + 1] = "(none)";
        if (c.has_timing) {
            snprintf(ttl, sizeof ttl, "%" PRId64, c.lease_ttl_ms);
            snprintf(drift, sizeof drift, "%" PRId64, c.max_clock_drift_ms);
        }
        fail(err, ErrorCode::registry,
             "the lease_ttl or max_clock_drift of this server differs from the cluster's");
        set_detail(err,
                   "The Redis registry's cluster uses lease_ttl %s ms and max_clock_drift %s ms "
                   "(recorded by %s); this server runs %" PRId64 " ms and %" PRId64
                   " ms. A Redis registry that lost its data waits out one lease_ttl plus "
                   "max_clock_drift, so they must be the same on every server.",
                   ttl, drift, c.recorded_by.c_str(), request.ttl_ms, request.max_clock_drift_ms);
        set_hint(err,
                 "Give every server of the cluster the same snowflake_id.lease_ttl and "
                 "max_clock_drift.");
        return false;
    }
    return true;
}

// Names the server asking as the record's holder.
void set_holder(LeaseRecord *lease, const LeaseHolder &holder) {
    lease->holder_system_id = holder.system_id;
    lease->holder_instance = holder.instance;
    lease->holder_host = holder.host;
    lease->holder_port = holder.port;
    lease->holder_data_directory = holder.data_directory;
    lease->holder_timeline = holder.timeline;
}

// The record of a grant: the holder's, with a fresh lease.
LeaseRecord granted(int64_t node, int64_t fence, const LeaseRequest &request, int64_t now_ms,
                    int64_t reserved_until_ms) {
    LeaseRecord lease;
    lease.node = node;
    lease.fence = fence;
    set_holder(&lease, request.holder);
    lease.holder_max_clock_drift_ms = request.max_clock_drift_ms;
    lease.acquired_at_ms = now_ms;
    lease.renewed_at_ms = now_ms;
    lease.expires_at_ms = lease_end(now_ms, request.ttl_ms);
    lease.released_at_ms = 0;
    lease.reserved_until_ms = reserved_until_ms;
    lease.holder_wal_position = request.holder.wal_position;
    return lease;
}

// Records the grant of `node` (whose record is `old`, or none) and fills
// *grant. The first bound recorded is the floor, or `bound_ms` if higher
// (a switch records its first renewal's bound at once).
void grant_node(int64_t node, const LeaseRecord *old, const LeaseRequest &request,
                const RegistryView &view, int64_t bound_ms, RegistryWrites *writes,
                LeaseGrant *grant, int64_t *expires_unix_ms) {
    // A new fence for every grant, this very run asking again included: a
    // give-back the registry runs late (its sender timed out) names the
    // fence of the lease it gave back, and must not end one granted since.
    const HighWater *mark = high_water_of(view, node);
    const int64_t fence =
        std::max(old != nullptr ? old->fence : 0, mark != nullptr ? mark->fence : 0) + 1;
    const int64_t floor = std::max({old != nullptr ? floor_after(*old) : 0,
                                    mark != nullptr ? mark->floor_ms : 0, guard_floor(view)});
    writes->leases.push_back(granted(node, fence, request, view.now_ms, std::max(floor, bound_ms)));
    if (old == nullptr && view.can_lose_data && view.never_leased_from == node) {
        writes->never_leased_from = node + 1;
    }
    grant->node = node;
    grant->fence = fence;
    grant->floor_unix_ms = floor;
    *expires_unix_ms = lease_end(view.now_ms, request.ttl_ms);
}

// An id a server whose clock reads clock_ms can issue on at once, other than
// `except`: the lowest never leased (above a quarantine's floor), else the
// one whose lease ended longest ago among those whose floor lies below the
// clock; -1 if none.
int64_t id_free_at_clock(const RegistryView &view, int64_t nodes, int64_t except,
                         int64_t clock_ms) {
    if (guard_floor(view) >= clock_ms) {
        return -1;
    }
    const int64_t fresh = never_leased(view, nodes, except);
    if (fresh >= 0) {
        return fresh;
    }
    const NextFloors floors(view);
    for (const LeaseRecord *ended : ended_leases(view, nodes)) {
        if (ended->node != except && floors.of(*ended) < clock_ms) {
            return ended->node;
        }
    }
    return -1;
}

// A live lease of an old primary, ended for it by its promoted standby,
// which takes another id: its next renewal is refused as replaced, and no
// one else may take the id before the old primary's deadline. So the
// record keeps the lease's expiry (the old holder issues nothing after it)
// and its recorded bound, which the old holder can no longer raise; it
// names the standby as holder with a new fence, which the old holder's
// renewals and give-back do not match, and the larger of the two drifts,
// so that the floor of the id's next holder lies above what either may
// have issued. The standby never renews it: it ends at that expiry.
LeaseRecord superseding(const LeaseRecord &old, const LeaseRequest &request, int64_t now_ms,
                        const HighWater *mark) {
    LeaseRecord ended = old;
    ended.fence = std::max(old.fence, mark != nullptr ? mark->fence : 0) + 1;
    set_holder(&ended, request.holder);
    ended.holder_max_clock_drift_ms =
        std::max(old.holder_max_clock_drift_ms, request.max_clock_drift_ms);
    ended.acquired_at_ms = now_ms;
    ended.renewed_at_ms = now_ms;
    ended.holder_wal_position = request.holder.wal_position;
    return ended;
}

// Refuses a server of a timeline its successor replaced (`record`): from
// the successor's first grant on, whatever the successor's lease does
// since (given back by a clean restart, expired, taken by another).
RuleOutcome refuse_superseded(const RegistryView &view, const TimelineRecord &record,
                              const LeaseHolder &holder, const std::string &me, Error *err) {
    // While the successor holds a live lease, the message names it and its
    // node id, as before 1.7.
    for (const LeaseRecord &lease : view.leases) {
        if (is_live(lease, view.now_ms) && lease.holder_system_id == holder.system_id &&
            lease.holder_timeline == record.superseded_by) {
            return refuse_replaced(lease, holder, me, err);
        }
    }
    fail(err, ErrorCode::registry_replaced,
         "this server was replaced by a promoted standby (timeline %d) of its own",
         record.superseded_by);
    set_detail(err,
               "%s leased a node id on timeline %d at %s, and its history left timeline %d at or "
               "after the last WAL position (%s) a server of that timeline recorded: it is this "
               "server's successor. This server is %s on timeline %d.",
               record.superseded_by_holder.c_str(), record.superseded_by,
               registry_time_text(record.superseded_at_ms).c_str(), record.timeline,
               lsn_text(record.position).c_str(), me.c_str(), holder.timeline);
    set_hint(err,
             "A replaced primary issues no IDs again, so that its writes fail instead of "
             "diverging: stop it, or make it a standby of the new primary (pg_rewind), which "
             "puts it on a newer timeline. If the other server is no successor but a copy "
             "recovered up to this server's last recorded position, set "
             "snowflake_id.on_replaced = 'lease_another' on this server.");
    return RuleOutcome::refused;
}

// Refuses a copy the id it asked for: the original holds it live.
RuleOutcome refuse_copy(const RegistryView &view, const LeaseRecord &original,
                        const LeaseHolder &holder, const std::string &me, Error *err) {
    const TimelineSwitch *left = switch_from(holder, original.holder_timeline);
    fail(err, ErrorCode::registry,
         "node id %" PRId64 " is held by the server this one is a copy of: %s", original.node,
         holder_of(original).c_str());
    set_detail(
        err,
        "This server (%s, timeline %d) left timeline %d at WAL position %s; the holder "
        "recorded position %s on it, whose lease runs until %s. A server that branched "
        "before its original's last recorded position is a copy (a restored backup, a "
        "point-in-time recovery), not a successor, and never takes a live lease from the "
        "original.",
        me.c_str(), holder.timeline, original.holder_timeline,
        lsn_text(left != nullptr ? left->switchpoint : 0).c_str(),
        lsn_text(recorded_position(view, original.holder_system_id, original.holder_timeline))
            .c_str(),
        registry_time_text(original.expires_at_ms).c_str());
    set_hint(err,
             "Give the copy its own snowflake_id.worker_id, set it to 'auto', or give it another "
             "registry.");
    return RuleOutcome::refused;
}

// Where the store keeps TimelineRecords: this server's position on its own
// timeline, raised.
void record_position(const RegistryView &view, const LeaseHolder &holder, RegistryWrites *writes) {
    if (!view.keeps_timelines || holder.wal_position <= 0) {
        return;
    }
    TimelineRecord own;
    own.system_id = holder.system_id;
    own.timeline = holder.timeline;
    own.position = holder.wal_position;
    writes->timelines.push_back(own);
}

// A grant to a successor marks every timeline it succeeds as replaced, for
// good; and a grant to a copy says of whom (LeaseGrant::copy_of).
void record_succession(const RegistryView &view, const LeaseHolder &holder, RegistryWrites *writes,
                       LeaseGrant *grant) {
    const std::string me = holder_of(holder);
    for (const TimelineSwitch &left : holder.history) {
        if (left.timeline >= holder.timeline) {
            continue;
        }
        const int64_t recorded = recorded_position(view, holder.system_id, left.timeline);
        if (left.switchpoint >= recorded) {
            const TimelineRecord *record = timeline_of(view, holder.system_id, left.timeline);
            // Only on a recorded position: 0 is no evidence (a 1.6 holder's
            // lease, or no holder of it here), and a mark lasts for good.
            if (view.keeps_timelines && recorded > 0 &&
                (record == nullptr || record->superseded_by == 0)) {
                TimelineRecord replaced;
                replaced.system_id = holder.system_id;
                replaced.timeline = left.timeline;
                replaced.superseded_by = holder.timeline;
                replaced.superseded_at_ms = view.now_ms;
                replaced.superseded_by_holder = me;
                writes->timelines.push_back(replaced);
            }
            continue;
        }
        // A copy: named after the latest holder of the timeline it left.
        const LeaseRecord *original = nullptr;
        for (const LeaseRecord &lease : view.leases) {
            if (lease.holder_system_id == holder.system_id &&
                lease.holder_timeline == left.timeline &&
                (original == nullptr || lease.renewed_at_ms > original->renewed_at_ms)) {
                original = &lease;
            }
        }
        if (grant->copy_of.empty() || left.timeline > grant->copy_of_timeline) {
            grant->copy_of = original != nullptr ? holder_of(*original)
                                                 : "a server of system identifier " +
                                                       std::to_string(holder.system_id);
            grant->copy_of_timeline = left.timeline;
            grant->copy_branch_position = left.switchpoint;
            grant->copy_original_position = recorded;
        }
    }
}

// A server of a timeline whose own lease lapsed (expired without being
// given back or taken over: its renewals did not get through, the registry
// was down or cut off) leases again only one lease_ttl after it first asks
// again. A standby promoted while the registry was out of reach gets the
// registry first and replaces the timeline; without the wait, the old
// primary, asking first, would record a position past the standby's branch
// point and mint again. False, with err filled, while it waits; the first
// refusal records the time in the timeline's record (or, where the store
// keeps none, the wait runs from the lapsed lease's expiry).
bool past_lapse(const RegistryView &view, const LeaseRequest &request, RegistryWrites *writes,
                Error *err) {
    const LeaseHolder &holder = request.holder;
    // The server's latest lease, of any of its runs: lapsed if it expired
    // without being given back.
    const LeaseRecord *lapsed = nullptr;
    for (const LeaseRecord &lease : view.leases) {
        if (lease.holder_instance == holder.instance && is_live(lease, view.now_ms)) {
            return true;  // this run holds a lease: it reached the registry in time
        }
        if (lease.holder_system_id == holder.system_id &&
            lease.holder_timeline == holder.timeline && lease.holder_host == holder.host &&
            lease.holder_port == holder.port &&
            lease.holder_data_directory == holder.data_directory &&
            (lapsed == nullptr || lease.renewed_at_ms > lapsed->renewed_at_ms)) {
            lapsed = &lease;
        }
    }
    if (lapsed == nullptr || lapsed->released_at_ms != 0 || is_live(*lapsed, view.now_ms)) {
        return true;
    }
    int64_t resume_at = lapsed->expires_at_ms + request.ttl_ms;
    if (view.keeps_timelines) {
        const TimelineRecord *record = timeline_of(view, holder.system_id, holder.timeline);
        if (record != nullptr && record->resume_at_ms >= lapsed->expires_at_ms) {
            resume_at = record->resume_at_ms;
        } else {
            resume_at = view.now_ms + request.ttl_ms;
            TimelineRecord wait;
            wait.system_id = holder.system_id;
            wait.timeline = holder.timeline;
            wait.resume_at_ms = resume_at;
            writes->timelines.push_back(wait);
        }
    }
    if (view.now_ms >= resume_at) {
        return true;
    }
    fail(err, ErrorCode::registry,
         "this server's lease on node id %" PRId64 " lapsed: it leases again from %s", lapsed->node,
         registry_time_text(resume_at).c_str());
    set_detail(err,
               "The lease expired at %s without being renewed or given back. A standby of this "
               "server promoted meanwhile gets one lease_ttl to reach the registry first; the "
               "server asks again until then.",
               registry_time_text(lapsed->expires_at_ms).c_str());
    set_hint(err, "Nothing to do: keep the registry reachable so that leases are renewed in time.");
    return false;
}

}  // namespace

void merge_timeline(const TimelineRecord &from, TimelineRecord *into) {
    into->system_id = from.system_id;
    into->timeline = from.timeline;
    into->position = std::max(into->position, from.position);
    if (into->superseded_by == 0 && from.superseded_by != 0) {
        into->superseded_by = from.superseded_by;
        into->superseded_at_ms = from.superseded_at_ms;
        into->superseded_by_holder = from.superseded_by_holder;
    }
    into->resume_at_ms = std::max(into->resume_at_ms, from.resume_at_ms);
}

std::string lsn_text(int64_t position) {
    char buf[2 * 8 + 2];
    snprintf(buf, sizeof buf, "%X/%X", static_cast<unsigned>(static_cast<uint64_t>(position) >> 32),
             static_cast<unsigned>(static_cast<uint64_t>(position) & 0xffffffffU));
    return buf;
}

std::string holder_text(const char *host, int port, const char *data_directory,
                        uint64_t system_id) {
    std::string out(kRegistryHolderMax + 1, '\0');
    const int n =
        snprintf(out.data(), out.size(), "%s:%d, data directory %s, system identifier %" PRIu64,
                 host, port, data_directory, system_id);
    if (n < 0) {
        return {};
    }
    if (static_cast<std::size_t>(n) >= out.size()) {
        // Longer than any server writes (a record written by hand): whole,
        // and the message that quotes it is cut and marked truncated.
        out.resize(static_cast<std::size_t>(n) + 1);
        snprintf(out.data(), out.size(), "%s:%d, data directory %s, system identifier %" PRIu64,
                 host, port, data_directory, system_id);
    }
    out.resize(static_cast<std::size_t>(n));
    return out;
}

uint64_t retry_spread(int64_t instance, int attempt) {
    if (attempt == 0) {
        return 0;
    }
    // splitmix64's mix of the two.
    uint64_t x =
        static_cast<uint64_t>(instance) + 0x9e3779b97f4a7c15ULL * static_cast<uint64_t>(attempt);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x == 0 ? 1 : x;
}

std::string registry_time_text(int64_t unix_ms) {
    char buf[kTimestampMax + 1];
    format_utc(unix_ms, buf, sizeof buf);
    return buf;
}

RuleOutcome decide_acquire(const LeaseRequest &request, const RegistryView &stored,
                           RegistryWrites *writes, LeaseGrant *grant, int64_t *expires_unix_ms,
                           Error *err) {
    *writes = RegistryWrites{};
    const RegistryView view = with_dropped_records(stored);
    const LayoutWidths &w = request.widths;
    if (ttl_out_of_range(request.ttl_ms, err)) {
        return RuleOutcome::refused;
    }
    if (w.datacenter_bits < 0 || w.worker_bits < 0 ||
        w.datacenter_bits + w.worker_bits > kMaxNodeBits) {
        fail(err, ErrorCode::registry,
             "node id fields of %d datacenter and %d worker bits are out of range",
             w.datacenter_bits, w.worker_bits);
        set_hint(err, "The registry leases node ids of up to 30 bits.");
        return RuleOutcome::refused;
    }
    if (!past_quarantine(view, request.ttl_ms, request.max_clock_drift_ms, writes, err)) {
        return RuleOutcome::refused;
    }
    if (!layout_agrees(request, view, err)) {
        return RuleOutcome::refused;
    }
    const std::string me = holder_of(request.holder);
    if (request.refuse_when_replaced) {
        const TimelineRecord *own =
            timeline_of(view, request.holder.system_id, request.holder.timeline);
        if (own != nullptr && own->superseded_by != 0) {
            return refuse_superseded(view, *own, request.holder, me, err);
        }
        for (const LeaseRecord &lease : view.leases) {
            if (is_live(lease, view.now_ms) &&
                held_by_successor(lease, request.holder.system_id, request.holder.instance,
                                  request.holder.timeline)) {
                return refuse_replaced(lease, request.holder, me, err);
            }
        }
    }

    if (!past_lapse(view, request, writes, err)) {
        return RuleOutcome::refused;
    }

    const int64_t nodes = int64_t{1} << (w.datacenter_bits + w.worker_bits);
    // 'auto' on a promoted standby whose old primary's lease is still live:
    // the standby gets an id free for its clock, so that its IDs carry their
    // own time rather than the old lease's bound (up to lease_ttl ahead),
    // and one node id is issued on by one server at a time; the old lease is
    // ended for its holder (below).
    int64_t target = -1;
    if (request.requested_node >= 0) {
        if (request.requested_node >= nodes) {
            fail(err, ErrorCode::registry,
                 "node id %" PRId64 " is out of range for %d datacenter and %d worker bits",
                 request.requested_node, w.datacenter_bits, w.worker_bits);
            set_hint(err, "Node ids run from 0 to %" PRId64 ".", nodes - 1);
            return RuleOutcome::refused;
        }
        target = request.requested_node;
    } else {
        // A live lease of this very run: a grant of an earlier call whose
        // answer never came back (the call ran out of time after the
        // registry committed it). Taken again, with a new fence, rather
        // than left to expire: this run never issued an ID on it, and a
        // fleet with as many servers as ids would otherwise refuse its
        // last servers for a lease_ttl.
        for (const LeaseRecord &lease : view.leases) {
            if (lease.node < nodes && is_live(lease, view.now_ms) &&
                lease.holder_instance == request.holder.instance &&
                lease.holder_system_id == request.holder.system_id) {
                target = lease.node;
                break;
            }
        }
        if (target < 0 && request.preferred_node >= 0 && request.preferred_node < nodes) {
            const LeaseRecord *lease = find(view, request.preferred_node);
            if (lease != nullptr &&
                takes_from_predecessor(view, *lease, request.holder, view.now_ms)) {
                target =
                    id_free_at_clock(view, nodes, request.preferred_node, request.clock_unix_ms);
                if (target < 0) {
                    // None free: the old lease is taken over, its IDs
                    // continuing above its recorded bound.
                    target = request.preferred_node;
                }
            } else if (lease == nullptr || !is_live(*lease, view.now_ms) ||
                       may_take(view, *lease, request.holder, request.previous_fence)) {
                target = request.preferred_node;
            }
        }
        if (target < 0) {
            target = never_leased(view, nodes, -1, request.spread);
        }
        if (target < 0) {
            // Recycling: the id whose lease ended longest ago, the safe
            // choice when clocks may have been set back; first among those
            // whose floor (NextFloors) is below this server's clock, which it
            // can use without running ahead of its clock (with a spread,
            // any of those). With a spread and none below the clock, any
            // whose floor lies less than this server's max_clock_drift
            // above it: ids given back a moment ago (a rolling replacement)
            // all have their floor just above the clock, and servers that
            // raced for the oldest would otherwise race again for the next,
            // one grant per round trip.
            const std::vector<const LeaseRecord *> ended = ended_leases(view, nodes);
            const NextFloors floors(view);
            std::vector<const LeaseRecord *> below_clock;
            std::vector<const LeaseRecord *> within_drift;
            for (const LeaseRecord *lease : ended) {
                const int64_t floor = floors.of(*lease);
                if (floor < request.clock_unix_ms) {
                    below_clock.push_back(lease);
                } else if (floor < request.clock_unix_ms + request.max_clock_drift_ms) {
                    within_drift.push_back(lease);
                }
            }
            if (!below_clock.empty()) {
                target = below_clock[request.spread % below_clock.size()]->node;
            } else if (request.spread != 0 && !within_drift.empty()) {
                target = within_drift[request.spread % within_drift.size()]->node;
            } else if (!ended.empty()) {
                target = ended.front()->node;
            }
        }
        if (target < 0) {
            fail(err, ErrorCode::registry,
                 "every node id is leased: %" PRId64 " of %" PRId64 " held by live servers", nodes,
                 nodes);
            set_hint(err,
                     "Wait for a lease to expire, stop a server, or widen snowflake_id.worker_bits "
                     "or datacenter_bits (a new layout).");
            return RuleOutcome::refused;
        }
    }

    const LeaseRecord *lease = find(view, target);
    if (lease != nullptr && is_live(*lease, view.now_ms) &&
        !may_take(view, *lease, request.holder, request.previous_fence)) {
        if (is_copy_of(view, *lease, request.holder)) {
            return refuse_copy(view, *lease, request.holder, me, err);
        }
        fail(err, ErrorCode::registry, "node id %" PRId64 " is held by another server", target);
        set_detail(err, "It is held by %s, whose lease runs until %s; this server is %s.",
                   holder_of(*lease).c_str(), registry_time_text(lease->expires_at_ms).c_str(),
                   me.c_str());
        if (lease->holder_system_id == request.holder.system_id &&
            lease->holder_timeline > request.holder.timeline) {
            // Its own standby, promoted: no other server to tell apart, and
            // waiting for an expiry would not help (the new primary renews).
            set_hint(err,
                     "A standby of this server was promoted (timeline %d) and took node id %" PRId64
                     " over: this server is an old primary and gets no node id while the new "
                     "one holds it. Stop it, or make it a standby of the new primary "
                     "(pg_rewind).",
                     lease->holder_timeline, target);
        } else {
            set_hint(err,
                     "Give every server its own snowflake_id.worker_id, or set it to 'auto'. "
                     "A server that was stopped without a clean shutdown frees its id when "
                     "its lease expires.");
        }
        return RuleOutcome::refused;
    }
    // The layout is recorded with the first grant, not by a refused request.
    if (!view.layout) {
        LayoutRecord layout;
        layout.datacenter_bits = w.datacenter_bits;
        layout.worker_bits = w.worker_bits;
        layout.sequence_bits = w.sequence_bits;
        layout.epoch_ms = request.epoch_unix_ms;
        layout.recorded_at_ms = view.now_ms;
        layout.recorded_by = me;
        layout.has_timing = view.can_lose_data;
        if (layout.has_timing) {
            layout.lease_ttl_ms = request.ttl_ms;
            layout.max_clock_drift_ms = request.max_clock_drift_ms;
        }
        writes->layout = layout;
    }
    // Every other lease of an older timeline of this server's system not
    // given back, live or expired, is an old primary's (or its standby's,
    // promoted before): each is ended for its holder, whatever id this
    // server asked for, so that the old primary is refused at its next
    // renewal, a late one of a lease that had expired included. At every
    // grant, so that a later run of this server fences again an old primary
    // that took an id back while no lease of this server was live.
    for (const LeaseRecord &other : view.leases) {
        if (other.node != target && ends_for_successor(view, other, request.holder)) {
            writes->leases.push_back(
                superseding(other, request, view.now_ms, high_water_of(view, other.node)));
        }
    }
    grant_node(target, lease, request, view, 0, writes, grant, expires_unix_ms);
    record_position(view, request.holder, writes);
    record_succession(view, request.holder, writes, grant);
    mark_high_water(stored, writes);
    restore_high_water(stored, writes);
    return RuleOutcome::ok;
}

RuleOutcome decide_renew(const RenewRequest &request, const RegistryView &view,
                         RegistryWrites *writes, int64_t *expires_unix_ms, Error *err) {
    *writes = RegistryWrites{};
    if (ttl_out_of_range(request.ttl_ms, err)) {
        return RuleOutcome::refused;
    }
    const LeaseRecord *lease = find(view, request.node);
    const TimelineRecord *own =
        timeline_of(view, request.holder.system_id, request.holder.timeline);
    if (lease == nullptr || lease->fence != request.fence ||
        lease->holder_instance != request.instance || lease->released_at_ms != 0) {
        if (own != nullptr && own->superseded_by != 0) {
            return refuse_superseded(view, *own, request.holder, holder_of(request.holder), err);
        }
        if (lease != nullptr && is_live(*lease, view.now_ms) &&
            held_by_successor(*lease, request.holder.system_id, request.instance,
                              request.holder.timeline)) {
            return refuse_replaced(*lease, request.holder, holder_of(request.holder), err);
        }
        fail(err, ErrorCode::registry, "the lease on node id %" PRId64 " was lost", request.node);
        if (lease == nullptr) {
            set_detail(err, "The registry has no lease on that node id.");
        } else if (lease->released_at_ms != 0 && lease->fence == request.fence) {
            set_detail(err, "It was released at %s.",
                       registry_time_text(lease->released_at_ms).c_str());
        } else {
            set_detail(err,
                       "It is held by %s since %s with fence %" PRId64
                       "; this run of the server held fence %" PRId64 ".",
                       holder_of(*lease).c_str(), registry_time_text(lease->acquired_at_ms).c_str(),
                       lease->fence, request.fence);
        }
        set_hint(err, kLostHint);
        return RuleOutcome::refused;
    }
    if (request.refuse_when_replaced && own != nullptr && own->superseded_by != 0) {
        return refuse_superseded(view, *own, request.holder, holder_of(request.holder), err);
    }
    // A lease that expired is not renewed, though no one took it over: its
    // holder stopped issuing at its deadline, and a standby promoted while
    // its renewals did not get through must reach the registry before it
    // records a position past the standby's branch point. It leases again
    // (past_lapse()). The recorded bound never goes down, nor the position.
    if (!is_live(*lease, view.now_ms)) {
        fail(err, ErrorCode::registry, "the lease on node id %" PRId64 " lapsed", request.node);
        set_detail(err, "It expired at %s before this renewal reached the registry.",
                   registry_time_text(lease->expires_at_ms).c_str());
        set_hint(err, kLostHint);
        return RuleOutcome::refused;
    }
    LeaseRecord renewed = *lease;
    renewed.renewed_at_ms = view.now_ms;
    renewed.expires_at_ms = lease_end(view.now_ms, request.ttl_ms);
    renewed.reserved_until_ms = std::max(lease->reserved_until_ms, request.bound_unix_ms);
    renewed.holder_wal_position = std::max(lease->holder_wal_position, request.holder.wal_position);
    writes->leases.push_back(renewed);
    *expires_unix_ms = renewed.expires_at_ms;
    record_position(view, request.holder, writes);
    mark_high_water(view, writes);
    return RuleOutcome::ok;
}

void decide_release(const ReleaseRequest &request, const RegistryView &view, RegistryWrites *writes,
                    bool *released) {
    *writes = RegistryWrites{};
    const LeaseRecord *lease = find(view, request.node);
    *released = lease != nullptr && lease->fence == request.fence &&
                lease->holder_instance == request.instance && lease->released_at_ms == 0;
    if (!*released) {
        return;
    }
    // The bound the holder gives: the exact floor of its last IDs, which may
    // lie below the bound its last renewal recorded (up to lease_ttl ahead
    // of its clock), so that the next holder starts near the clock. Safe
    // because only this run of the holder can give it (fence and instance),
    // it issues nothing more on the lease, and it gives no bound below an ID
    // it issued.
    LeaseRecord given = *lease;
    given.released_at_ms = view.now_ms;
    given.reserved_until_ms = request.bound_unix_ms;
    given.holder_wal_position = std::max(lease->holder_wal_position, request.wal_position);
    writes->leases.push_back(given);
    if (view.keeps_timelines && request.wal_position > 0) {
        TimelineRecord own;
        own.system_id = lease->holder_system_id;
        own.timeline = lease->holder_timeline;
        own.position = request.wal_position;
        writes->timelines.push_back(own);
    }
    mark_high_water(view, writes, true);
}

RuleOutcome decide_switch(const SwitchRequest &request, const RegistryView &stored,
                          RegistryWrites *writes, LeaseGrant *grant, int64_t *expires_unix_ms,
                          Error *err) {
    *writes = RegistryWrites{};
    const RegistryView view = with_dropped_records(stored);
    const LeaseRequest &lease_request = request.lease;
    if (ttl_out_of_range(lease_request.ttl_ms, err)) {
        return RuleOutcome::refused;
    }
    const LeaseRecord *held = find(view, request.node);
    if (held == nullptr || held->fence != request.fence ||
        held->holder_instance != lease_request.holder.instance || held->released_at_ms != 0) {
        fail(err, ErrorCode::registry, "the lease on node id %" PRId64 " was lost", request.node);
        set_detail(err, "Only the server that holds a lease can switch it for another node id.");
        set_hint(err, kLostHint);
        return RuleOutcome::refused;
    }
    if (!past_quarantine(view, lease_request.ttl_ms, lease_request.max_clock_drift_ms, writes,
                         err)) {
        return RuleOutcome::refused;
    }
    const LayoutWidths widths =
        view.layout ? LayoutWidths{view.layout->datacenter_bits, view.layout->worker_bits,
                                   view.layout->sequence_bits}
                    : lease_request.widths;
    const int64_t nodes =
        int64_t{1} << std::clamp(widths.datacenter_bits + widths.worker_bits, 0, kMaxNodeBits);

    // Only an id whose IDs the server can mint at its clock at once: its
    // floor (the recorded bound plus its holder's drift, and the floor a
    // quarantine left) lies below the clock. The one whose lease ended
    // longest ago first, then the lowest id never leased.
    const int64_t clock = lease_request.clock_unix_ms;
    const bool guard_below_clock = guard_floor(view) < clock;
    int64_t target = -1;
    const LeaseRecord *lease = nullptr;
    if (guard_below_clock) {
        const NextFloors floors(view);
        for (const LeaseRecord *ended : ended_leases(view, nodes)) {
            if (ended->node != request.node && floors.of(*ended) < clock) {
                target = ended->node;
                lease = ended;
                break;
            }
        }
        if (target < 0) {
            target = never_leased(view, nodes, request.node);
        }
    }
    if (target < 0) {
        fail(err, ErrorCode::registry, "no node id is free for a server whose clock reads %s",
             registry_time_text(clock).c_str());
        set_detail(err,
                   "Every node id is leased, or its recorded bound lies at or after that time, so "
                   "IDs on it would repeat or wait for the clock.");
        set_hint(err,
                 "The server keeps node id %" PRId64
                 " and waits for its clock as with on_clock_step_back = 'error'. Widen "
                 "worker_bits for spare ids.",
                 request.node);
        return RuleOutcome::refused;
    }

    // The lease held is given back as a release would, but its recorded
    // bound only grows: the bound the server gives is its last renewal's.
    LeaseRecord given = *held;
    given.released_at_ms = view.now_ms;
    given.reserved_until_ms = std::max(held->reserved_until_ms, request.held_bound_unix_ms);
    writes->leases.push_back(given);
    grant_node(target, lease, lease_request, view, request.bound_unix_ms, writes, grant,
               expires_unix_ms);
    mark_high_water(stored, writes);
    return RuleOutcome::ok;
}

}  // namespace snowflake
