// Node id leases from a registry, as a server sees them: one interface to
// the store that keeps the leases (src/registry/: a PostgreSQL database
// or Redis), and what the server computes about its lease. The rules the
// store applies are the core's (lease_rules.hpp), whatever the store.
//
// The store's contract: every call is one atomic step in the store; a lease has a fence that grows
// whenever another run of a server takes the node id, and renew/release succeed only with the
// current fence and run; a renewal records a bound (IDs carry times below it) that never goes down;
// a grant taken from another holder carries a floor above that holder's recorded bound plus its
// max_clock_drift.
#pragma once
#include "pure_cpp.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include "clock_units.hpp"
#include "error.hpp"
#include "layout.hpp"

namespace snowflake {

// Where a server left one of its ancestor timelines: the WAL position (an
// LSN as a 64-bit integer) at which its history switched from `timeline` to
// the next one (PostgreSQL's timeline history file).
struct TimelineSwitch {
    int timeline = 0;
    int64_t switchpoint = 0;
};

// The server asking: what the store records, and what tells a later run of
// the same server, or its promoted standby, from a copy.
struct LeaseHolder {
    uint64_t system_id = 0;  // pg_control's system identifier
    int64_t instance = 0;    // one run of the server
    const char *host = "";
    int port = 0;
    const char *data_directory = "";
    int timeline = 1;
    // The server's WAL position when it sent the call (on a primary, what it
    // flushed: what a caught-up standby has received), 0 where unknown. The
    // registry keeps, per timeline, the highest position any holder of it
    // recorded: a server on a higher timeline that left that timeline at or
    // after it is its successor; one that left it before is a copy.
    int64_t wal_position = 0;
    // Every ancestor timeline, with the position the server left it at.
    std::vector<TimelineSwitch> history;
};

struct LeaseRequest {
    int64_t requested_node = -1;  // a static node id, or -1 for 'auto'
    int64_t preferred_node = -1;  // 'auto': the node id of the durable state, or -1
    int64_t previous_fence = 0;   // the fence the durable state recorded, or 0
    LeaseHolder holder;
    LayoutWidths widths;
    int64_t epoch_unix_ms = 0;
    int64_t max_clock_drift_ms = 0;
    int64_t ttl_ms = 0;
    int64_t clock_unix_ms = 0;  // the server's clock, to prefer ids whose bound is below it
    // snowflake_id.on_replaced = 'refuse': refused once a successor of this
    // server's timeline held a lease, or while a promoted standby of it
    // holds a live one (ErrorCode::registry_replaced);
    // false ('lease_another'): such a server is leased an id as any other.
    bool refuse_when_replaced = true;
    // 'auto' without an id of its own: 0 takes the first id of the order
    // the rules prefer; any other value a pseudo-random one among the ids
    // as good as it (never leased; or else ended, with a floor below the
    // clock; or else ended, with a floor less than max_clock_drift_ms above
    // it). A store retrying after other servers' grants raced its own (all
    // starting at once pick the same first id) spreads their choices.
    uint64_t spread = 0;
};

// A renewal by the run that holds the lease (node, fence, instance). The
// server's description tells, when the lease is no longer its own, whether
// a promoted standby of it took it over (ErrorCode::registry_replaced): the
// same system identifier on a higher timeline.
struct RenewRequest {
    int64_t node = -1;
    int64_t fence = 0;
    int64_t instance = 0;
    int64_t bound_unix_ms = 0;
    int64_t ttl_ms = 0;
    LeaseHolder holder;  // its instance is `instance`
    // As LeaseRequest's: false ('lease_another') renews a lease taken after
    // this server's timeline was replaced.
    bool refuse_when_replaced = true;
};

struct LeaseGrant {
    int64_t node = -1;
    int64_t fence = 0;
    int64_t floor_unix_ms = 0;  // every ID on the grant must carry a later time
    // A copy (a server on a higher timeline of a holder's system that left
    // that timeline before the position its holder last recorded): the
    // holder it was copied from (holder text), the position it branched at
    // and the one the original recorded; empty where the server is no copy.
    std::string copy_of;
    int copy_of_timeline = 0;
    int64_t copy_branch_position = 0;
    int64_t copy_original_position = 0;
};

// A server whose clock was set back far behind its IDs asks for another node
// id (snowflake_id.on_clock_step_back = 'switch_node').
struct SwitchRequest {
    int64_t node = -1;  // the lease held now
    int64_t fence = 0;
    int64_t held_bound_unix_ms = 0;  // the bound recorded for it, kept when it is given back
    LeaseRequest lease;              // the server asking, its layout and clock
    int64_t bound_unix_ms = 0;       // the first bound recorded for the new id
};

enum class StoreOutcome {
    ok,
    refused,      // the store said no (held by another, layout, lost): err says why
    unreachable,  // no answer: the network, a timeout, a shutdown
};

// A store of leases. The calls may block for their own timeouts; err is
// filled for anything but ok.
class RegistryStore {
  public:
    virtual ~RegistryStore() = default;
    virtual StoreOutcome acquire(const LeaseRequest &request, LeaseGrant *grant, Error *err) = 0;
    // Records bound_unix_ms; *expires_unix_ms: when the store lets the lease
    // expire without another renewal.
    virtual StoreOutcome renew(const RenewRequest &request, int64_t *expires_unix_ms,
                               Error *err) = 0;
    virtual StoreOutcome release(int64_t node, int64_t fence, int64_t instance,
                                 int64_t bound_unix_ms, Error *err) = 0;
    // on_clock_step_back = 'switch_node': in one atomic step, gives back the
    // lease held (recording held_bound_unix_ms, as release does) and leases
    // another node id that the server can use at its clock at once (the
    // grant's floor lies below request.lease.clock_unix_ms), recording
    // bound_unix_ms for it as a renewal would. Refused, with the lease held
    // left as it was, when no such id is free.
    virtual StoreOutcome switch_node(const SwitchRequest &request, LeaseGrant *grant,
                                     int64_t *expires_unix_ms, Error *err) = 0;
};

// What a server asks for, from its setting and its durable state (the node
// id and fence its state file recorded, or -1 and 0): a static id
// (static_node >= 0) or 'auto' preferring the stored id. The stored fence is
// the proof of a later run of the same server only on the id it was
// recorded for: a static id changed since presents none, since another
// id's fence may equal the one that id's live lease has.
void ask_with_durable_state(int64_t static_node, int64_t stored_node, int64_t stored_fence,
                            LeaseRequest *request);

// Renewals per lease_ttl: a lease survives two failed renewals in a row.
inline constexpr int64_t kRenewalsPerTtl = 3;

// A renewal sent when the generator's clock reads clock_unix_ms, the wall
// clock wall_unix_ms and the monotonic clock sent_mono_ns.
//
// The bound covers every ID the generator can issue until the deadline,
// lease_ttl on, and no more: the wall clock plus lease_ttl, or, while the
// catch-up clock runs ahead (it advances at half speed), its reading plus
// half of lease_ttl, whichever is later. Not the generator's clock plus
// lease_ttl: a server that crashes is resumed by the registry above its
// recorded bound (where its own WAL cannot tell it where it stopped), and a
// bound a full lease_ttl above a clock that already runs ahead would push
// each such restart a further lease_ttl into the future.
struct RenewalPlan {
    // What it records: no ID of this server may carry this time or later
    // until the next renewal is confirmed.
    int64_t bound_unix_ms = 0;
    // Once confirmed: the server stops minting here. The store's expiry,
    // measured from when it received the renewal, lies after it.
    int64_t deadline_mono_ns = 0;
    int64_t next_renewal_mono_ns = 0;
};
RenewalPlan plan_renewal(int64_t clock_unix_ms, int64_t wall_unix_ms, int64_t sent_mono_ns,
                         int64_t ttl_ms);

// Whether the clock has been set back so far behind the IDs issued that the
// generator cannot go on without waiting or failing: the last ID issued
// (floor - 1) carries a time more than max_drift_ms ahead of the clock.
// Demand alone never gets there: the generator borrows at most max_drift.
bool clock_far_behind(const Layout &layout, uint64_t floor, int64_t clock_unix_ms,
                      int64_t max_drift_ms);

// The generator's ID bound for a recorded bound: IDs below it carry times
// below bound_unix_ms. 0 for a bound at or before the epoch.
uint64_t lease_id_bound(const Layout &layout, int64_t bound_unix_ms);

// The least bound (ms since 1970) that a give-back can record for a
// generator whose floor is `floor`: every ID below the floor carries an
// earlier time. lease_id_bound() of it is at or above the floor.
int64_t exact_bound_unix_ms(const Layout &layout, uint64_t floor);

}  // namespace snowflake
