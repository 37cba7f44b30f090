#include "registry_call.hpp"

namespace snowflake {

template <typename Decide>
StoreOutcome GuardedStore::call(const CallScope &scope, Decide decide, Error *err) {
    StoreOutcome outcome = begin_call(scope, err);
    RegistryView view;
    bool read = true;
    int decided_since_read = 0;
    bool answered = false;
    for (int attempt = 0; outcome == StoreOutcome::ok && attempt < kMaxAttempts; ++attempt) {
        outcome = begin_attempt(err);
        if (outcome != StoreOutcome::ok) {
            break;
        }
        if (read || decided_since_read == kDecisionsPerRead) {
            view = RegistryView{};
            outcome = read_view(scope, &view, err);
            if (outcome != StoreOutcome::ok) {
                break;
            }
            decided_since_read = 0;
        }
        read = true;
        ++decided_since_read;
        RegistryWrites writes;
        Error refusal{};
        const RuleOutcome decided = decide(view, attempt, &writes, &refusal);
        if (decided == RuleOutcome::refused && decided_since_read > 1) {
            // A refusal ('every node id is leased') may rest on leases that
            // ended after the read: decided again on everything read again.
            *err = refusal;
            continue;
        }
        WriteResult result = WriteResult::changed;
        outcome = guarded_write(scope, &view, writes, &result, err);
        if (outcome != StoreOutcome::ok) {
            break;
        }
        if (result == WriteResult::written) {
            answered = true;
            if (decided == RuleOutcome::refused) {
                *err = refusal;
                outcome = StoreOutcome::refused;
            }
            break;
        }
        read = result == WriteResult::changed;
    }
    if (outcome == StoreOutcome::ok && !answered) {
        outcome = gave_up(kMaxAttempts, err);
    }
    end_call();
    return outcome;
}

StoreOutcome GuardedStore::acquire(const LeaseRequest &request, LeaseGrant *grant, Error *err) {
    const CallScope scope{-1, request.holder.system_id, request.holder.system_id};
    return call(
        scope,
        [&](const RegistryView &view, int attempt, RegistryWrites *writes, Error *e) {
            LeaseRequest spread = request;
            spread.spread = retry_spread(request.holder.instance, attempt);
            int64_t expires_unix_ms = 0;
            return decide_acquire(spread, view, writes, grant, &expires_unix_ms, e);
        },
        err);
}

StoreOutcome GuardedStore::renew(const RenewRequest &request, int64_t *expires_unix_ms,
                                 Error *err) {
    const CallScope scope{request.node, 0, request.holder.system_id};
    return call(
        scope,
        [&](const RegistryView &view, int, RegistryWrites *writes, Error *e) {
            return decide_renew(request, view, writes, expires_unix_ms, e);
        },
        err);
}

StoreOutcome GuardedStore::release(int64_t node, int64_t fence, int64_t instance,
                                   int64_t bound_unix_ms, Error *err, int64_t wal_position) {
    const ReleaseRequest request{node, fence, instance, bound_unix_ms, wal_position};
    const CallScope scope{node, 0, std::nullopt};
    return call(
        scope,
        [&](const RegistryView &view, int, RegistryWrites *writes, Error *) {
            bool released = false;  // no longer this run's: nothing to give back
            decide_release(request, view, writes, &released);
            return RuleOutcome::ok;
        },
        err);
}

StoreOutcome GuardedStore::switch_node(const SwitchRequest &request, LeaseGrant *grant,
                                       int64_t *expires_unix_ms, Error *err) {
    const uint64_t system_id = request.lease.holder.system_id;
    const CallScope scope{-1, system_id, system_id};
    return call(
        scope,
        [&](const RegistryView &view, int, RegistryWrites *writes, Error *e) {
            return decide_switch(request, view, writes, grant, expires_unix_ms, e);
        },
        err);
}

}  // namespace snowflake
