// A registry call, written once for every store: read what the store holds
// (a RegistryView), let the rules decide (lease_rules.hpp), write what they
// decided only if every record it depends on is still as read, and decide
// again when another call changed one in between. The stores
// (src/registry/, and the unit tests' store in memory) only connect, read
// the view and make the guarded write; the order of the steps, the
// retries, the spread of an 'auto' acquire's retries and the refusals are
// here, so that a change to the protocol (a rule that records more, a
// check that waits for other evidence) lands once.
#pragma once
#include "pure_cpp.hpp"

#include <cstdint>
#include <optional>

#include "error.hpp"
#include "lease_rules.hpp"
#include "registry.hpp"

namespace snowflake {

// What one call reads and depends on.
struct CallScope {
    // The lease a renewal or a release reads, or -1: every lease (acquire,
    // switch).
    int64_t node = -1;
    // An acquire's or a switch's server, every lease of whose system the
    // write depends on too (an old primary and its promoted standby asking
    // at once must each see the other's); 0 for a renewal or a release.
    uint64_t system_id = 0;
    // The system whose TimelineRecords the view holds: the asking server's.
    // A release names none (its request has no holder): the store reads
    // those of its last call's system.
    std::optional<uint64_t> timelines_of;
};

// What a guarded write found.
enum class WriteResult {
    written,  // every record was as read: the decision is recorded
    // Another call changed a record the write depends on: nothing written;
    // the call reads the view again and decides again.
    changed,
    // The same, but the store brought the view up to date with what
    // changed (or finds what changed at its next write): the call decides
    // again on it without reading everything again.
    changed_view_updated,
};

// A store of leases as the rules use it. Every member returns ok, or says
// in *err why not (refused: the store said no; unreachable: no answer).
class GuardedStore : public RegistryStore {
  public:
    StoreOutcome acquire(const LeaseRequest &request, LeaseGrant *grant, Error *err) final;
    StoreOutcome renew(const RenewRequest &request, int64_t *expires_unix_ms, Error *err) final;
    StoreOutcome release(int64_t node, int64_t fence, int64_t instance, int64_t bound_unix_ms,
                         Error *err, int64_t wal_position = 0) final;
    StoreOutcome switch_node(const SwitchRequest &request, LeaseGrant *grant,
                             int64_t *expires_unix_ms, Error *err) final;

    // A call whose records another call changed between its read and its
    // write this often in a row gives up (as unreachable, so that the
    // worker asks again later): only a registry under a storm of changes
    // to the same records gets there.
    static constexpr int kMaxAttempts = 32;
    // How many times a call decides again on a view its store brought up
    // to date (WriteResult::changed_view_updated) before it reads
    // everything again: an acquire that lost every race since its read
    // learns only of the ids it lost, and the others taken meanwhile would
    // still look free to it.
    static constexpr int kDecisionsPerRead = 4;

  protected:
    // Before the first attempt: the connection, and what the last call left
    // pending.
    virtual StoreOutcome begin_call(const CallScope &scope, Error *err) = 0;
    // Before every attempt (a store that checks for a shutdown there).
    virtual StoreOutcome begin_attempt(Error *err) {
        (void)err;
        return StoreOutcome::ok;
    }
    // Everything the scope names, as one snapshot, into a fresh *view.
    virtual StoreOutcome read_view(const CallScope &scope, RegistryView *view, Error *err) = 0;
    // In one all-or-nothing step, every record in `writes` (leases, layout,
    // guard, marks, timelines), only if every record the write depends on
    // is still as *view read it. On WriteResult::changed_view_updated the
    // store has updated *view.
    virtual StoreOutcome guarded_write(const CallScope &scope, RegistryView *view,
                                       const RegistryWrites &writes, WriteResult *result,
                                       Error *err) = 0;
    // The call gave up after `attempts` changes in a row: says so in *err
    // (the store's words), returning unreachable.
    virtual StoreOutcome gave_up(int attempts, Error *err) = 0;
    // After the call, whatever its outcome.
    virtual void end_call() {}

  private:
    // One call: decide(view, attempt, &writes, &err) is the entry point's
    // rule on one view; attempt counts from 0 (an 'auto' acquire spreads
    // its retries by it).
    template <typename Decide>
    StoreOutcome call(const CallScope &scope, Decide decide, Error *err);
};

}  // namespace snowflake
