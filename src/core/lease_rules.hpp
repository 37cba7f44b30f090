// The registry's rules, once for every store: who may take a node id's
// lease, the floor a new holder starts above, the order ids are recycled
// in, fences, timelines and the cluster's layout. They are pure functions:
// given what the store holds for the node ids a call involves (a
// RegistryView) and the server's request, each decides the records to
// write, or the refusal and its message. The registry call
// (registry_call.hpp) has the store (src/registry/) read the view, calls
// the rule and has the store write the records back atomically, and only
// if every record it writes is still as it read it (deciding again
// otherwise): a record's grant, fence and floor depend only on that record
// and its high-water mark.
// Every message a registry gives is therefore built here, once.
//
// The invariants the rules keep (tests/unit/lease_rules_test.cpp checks
// them over random histories):
//   - a node id never has two live holders;
//   - a new holder's floor lies above every bound any earlier holder of the
//     id recorded, plus that holder's max_clock_drift (it issued only below
//     its bound, borrowing at most its drift);
//   - a lease's recorded bound never decreases, except through the exact
//     give-back of a clean stop by the holder itself (release);
//   - every grant gets a fence above every earlier fence of the id, its
//     record dropped or lost or not, where the store keeps high-water marks;
//   - 'auto' takes the lowest id never leased, else recycles the id whose
//     lease ended longest ago, first among those whose floor lies below the
//     asking server's clock; with a spread (a store's retry after a race),
//     any id never leased, else any of those below the clock, else any
//     whose floor lies less than the server's max_clock_drift above it.
#pragma once
#include "pure_cpp.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "error.hpp"
#include "registry.hpp"

namespace snowflake {

// One node id's lease as a store keeps it: the columns of the PostgreSQL
// registry's snowflake_registry_lease, the fields of a Redis registry's
// P:lease:N hash. Times are ms since 1970 by the registry's own clock; a
// store that keeps finer times rounds a lease's end (expires_at_ms) up and
// its own clock (RegistryView::now_ms) down, so that no lease looks over
// before it is.
struct LeaseRecord {
    int64_t node = -1;
    int64_t fence = 0;
    uint64_t holder_system_id = 0;
    int64_t holder_instance = 0;
    std::string holder_host;
    int holder_port = 0;
    std::string holder_data_directory;
    int holder_timeline = 1;
    int64_t holder_max_clock_drift_ms = 0;
    int64_t acquired_at_ms = 0;
    int64_t renewed_at_ms = 0;
    int64_t expires_at_ms = 0;
    int64_t released_at_ms = 0;     // 0 while not given back
    int64_t reserved_until_ms = 0;  // the holder's IDs carry times below it
    // The holder's WAL position at its last grant, renewal or give-back
    // (LeaseHolder::wal_position); 0 where a server before 1.7 wrote it.
    int64_t holder_wal_position = 0;
};

// What a registry keeps of one timeline of one system (pg_control's system
// identifier), apart from leases, which come and go: the highest WAL
// position any holder of that timeline recorded, and whether a successor
// (a server on a higher timeline that left this one at or after that
// position: a promoted standby) has held a lease, replacing it. A server
// of a replaced timeline is refused for good (on_replaced = 'refuse'),
// whatever its successor's lease does; and a server whose own lease lapsed
// (expired, not given back: its renewals did not get through) leases again
// only from resume_at_ms, one lease_ttl after it first asked again, so that
// a standby promoted meanwhile gets the registry first.
struct TimelineRecord {
    uint64_t system_id = 0;
    int timeline = 0;
    int64_t position = 0;
    int superseded_by = 0;  // the successor's timeline, or 0
    int64_t superseded_at_ms = 0;
    std::string superseded_by_holder;  // holder_text() of the successor
    int64_t resume_at_ms = 0;
};

// The cluster's layout, recorded by the first grant; every later request
// must match it.
struct LayoutRecord {
    int datacenter_bits = 0;
    int worker_bits = 0;
    int sequence_bits = 0;
    int64_t epoch_ms = 0;
    int64_t recorded_at_ms = 0;
    std::string recorded_by;  // holder_text() of the first holder
    // A store that can lose its data unnoticed (RegistryView::can_lose_data)
    // also records the cluster's lease_ttl and max_clock_drift: its
    // quarantine after a loss lasts one of each, so every server must run
    // the same.
    bool has_timing = false;
    int64_t lease_ttl_ms = 0;
    int64_t max_clock_drift_ms = 0;
};

// What a store that can lose its data unnoticed (Redis without persistence,
// a FLUSHALL) records on first use. Without it, the store is new or lost
// its data, and cannot tell which: it hands out no node id until
// quarantine_until_ms (one lease_ttl plus max_clock_drift after it noticed,
// when every earlier holder has passed its deadline), and every grant after
// that starts above floor_ms (the quarantine's end plus max_clock_drift).
struct LossGuard {
    int64_t created_at_ms = 0;
    int64_t quarantine_until_ms = 0;
    int64_t floor_ms = 0;
};

// What a store that may lose single records keeps of each node id apart
// from its record, written in the same atomic step as the record: the
// highest fence the id was granted (never lowered) and the floor its
// holders left (the recorded bound plus the holder's max_clock_drift, which
// only a clean stop's exact give-back lowers, as it lowers the record's). A
// Redis registry drops a record kKeepMs after its lease and bound passed,
// and a record can be lost alone (deleted by hand, or an update aborted
// halfway); its id's next grant still starts above both, not at fence 1
// and floor 0, and an id with a mark is not taken for one never leased.
struct HighWater {
    int64_t node = -1;
    int64_t fence = 0;
    int64_t floor_ms = 0;
    // In RegistryWrites: the floor is set to floor_ms even if lower (a
    // clean stop's exact give-back); otherwise a mark is only raised, so
    // that a write decided on an older read never lowers it.
    bool give_back = false;
};

// What the store holds, with its clock read no earlier than the server
// sent its call.
struct RegistryView {
    int64_t now_ms = 0;
    std::optional<LayoutRecord> layout;
    // acquire and switch_node: every lease the store holds, in any order;
    // renew and release: the named node id's, if the store has one.
    std::vector<LeaseRecord> leases;
    bool can_lose_data = false;
    std::optional<LossGuard> guard;  // only where can_lose_data
    // Where can_lose_data: the key or table that keeps the LossGuard, as the
    // quarantine's HINT names it ("snowflake_id:meta").
    std::string guard_key;
    // Node ids below this one without a record are not "never leased": their
    // records were dropped (Redis lets a record expire long after its lease
    // and its bound have passed). 0 for a store that keeps every record.
    int64_t never_leased_from = 0;
    // A store that keeps high-water marks: acquire and switch read every
    // one (in any order); the rules raise them with every record written
    // (RegistryWrites::high).
    bool keeps_high_water = false;
    std::vector<HighWater> high;
    // A store that keeps TimelineRecords (a PostgreSQL registry from 1.7, a
    // Redis registry): every one of the asking server's system. Without
    // them (a registry before 1.7), positions count as 0 (every server on a
    // higher timeline whose history holds a lease's is its successor, as
    // before 1.7) and no timeline stays replaced once its successor's lease
    // ends.
    bool keeps_timelines = false;
    std::vector<TimelineRecord> timelines;
};

// What to write back, in the same atomic step as the read. A refusal may
// write too (a LossGuard noticed missing starts its quarantine).
struct RegistryWrites {
    std::optional<LayoutRecord> layout;  // new: the store had none
    std::optional<LossGuard> guard;      // new: the store had none
    std::vector<LeaseRecord> leases;     // whole records, new or replacing
    // Only where can_lose_data (the store that drops records): a grant of
    // the id RegistryView::never_leased_from named moves it on by one.
    std::optional<int64_t> never_leased_from;
    // Where keeps_high_water: the marks of every lease written, and of
    // every record an acquire read whose mark was lost or lags behind it.
    std::vector<HighWater> high;
    // Where keeps_timelines: the records to merge into the store's, in the
    // same atomic step: the position only rises, a superseded_by once set
    // stays, resume_at_ms only rises.
    std::vector<TimelineRecord> timelines;
    bool empty() const {
        return !layout && !guard && leases.empty() && !never_leased_from && high.empty() &&
               timelines.empty();
    }
};

// What a call decided. ok: `writes` holds the records; refused: err says
// why (code ErrorCode::registry, message, DETAIL and HINT), and `writes`
// may still hold what must be recorded.
enum class RuleOutcome { ok, refused };

struct ReleaseRequest {
    int64_t node = -1;
    int64_t fence = 0;
    int64_t instance = 0;
    int64_t bound_unix_ms = 0;  // the exact floor of the holder's last IDs
    int64_t wal_position = 0;   // the holder's, as LeaseHolder::wal_position
};

// The merge RegistryWrites::timelines asks of a store: `into` (the store's
// record of the same system and timeline) raised by `from`.
void merge_timeline(const TimelineRecord &from, TimelineRecord *into);

// An LSN as PostgreSQL writes it: "16/B374D848".
std::string lsn_text(int64_t position);

// Leases a node id (RegistryStore::acquire): *grant and *expires_unix_ms.
RuleOutcome decide_acquire(const LeaseRequest &request, const RegistryView &view,
                           RegistryWrites *writes, LeaseGrant *grant, int64_t *expires_unix_ms,
                           Error *err);
// Renews a lease held with this fence by this run: *expires_unix_ms.
RuleOutcome decide_renew(const RenewRequest &request, const RegistryView &view,
                         RegistryWrites *writes, int64_t *expires_unix_ms, Error *err);
// Gives a lease back at a clean stop. Never refused: *released is false,
// and nothing written, when the lease is no longer this run's.
void decide_release(const ReleaseRequest &request, const RegistryView &view, RegistryWrites *writes,
                    bool *released);
// on_clock_step_back = 'switch_node' (RegistryStore::switch_node).
RuleOutcome decide_switch(const SwitchRequest &request, const RegistryView &view,
                          RegistryWrites *writes, LeaseGrant *grant, int64_t *expires_unix_ms,
                          Error *err);

// The spread (LeaseRequest::spread) of a store's attempt at a call: 0 for
// the first, then a value that differs from server to server (instance)
// and from attempt to attempt, never 0.
uint64_t retry_spread(int64_t instance, int attempt);

// The texts the messages quote, as every store's messages have written
// them: "host:port, data directory D, system identifier N";
// "2026-11-23 12:00:00.000Z".
std::string holder_text(const char *host, int port, const char *data_directory, uint64_t system_id);
std::string registry_time_text(int64_t unix_ms);

}  // namespace snowflake
