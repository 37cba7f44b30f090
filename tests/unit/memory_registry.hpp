// The unit tests' store of leases, in memory: what a real store keeps
// (Store), and a third implementation of the registry call's store
// (MemoryRegistry, registry_call.hpp) beside PostgreSQL's and Redis's, on
// which another server's calls can be scripted between a call's read and
// its write: the orders tests/registry/store_race.cpp forces on real
// servers, in milliseconds.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "core/lease_rules.hpp"
#include "core/registry_call.hpp"

namespace snowflake_test {

// What a store keeps, and the writes applied to it as one atomic step.
struct Store {
    std::optional<snowflake::LayoutRecord> layout;
    std::map<int64_t, snowflake::LeaseRecord> leases;
    bool can_lose_data = false;
    std::optional<snowflake::LossGuard> guard;
    int64_t never_leased_from = 0;
    bool keeps_high_water = false;
    std::map<int64_t, snowflake::HighWater> high;
    bool keeps_timelines = false;
    std::map<std::pair<uint64_t, int>, snowflake::TimelineRecord> timelines;

    snowflake::RegistryView view(int64_t now_ms) const {
        snowflake::RegistryView v;
        v.now_ms = now_ms;
        v.layout = layout;
        for (const auto &[node, lease] : leases) {
            v.leases.push_back(lease);
        }
        v.can_lose_data = can_lose_data;
        v.guard = guard;
        v.guard_key = "snowflake_id:meta";
        v.never_leased_from = never_leased_from;
        v.keeps_high_water = keeps_high_water;
        for (const auto &[node, mark] : high) {
            v.high.push_back(mark);
        }
        v.keeps_timelines = keeps_timelines;
        for (const auto &[key, record] : timelines) {
            v.timelines.push_back(record);
        }
        return v;
    }
    void apply(const snowflake::RegistryWrites &w) {
        if (w.layout) {
            layout = w.layout;
        }
        if (w.guard) {
            guard = w.guard;
        }
        for (const snowflake::LeaseRecord &lease : w.leases) {
            leases[lease.node] = lease;
        }
        if (w.never_leased_from) {
            never_leased_from = *w.never_leased_from;
        }
        // As the Redis store writes them: raised only, but a give-back's
        // floor.
        for (const snowflake::HighWater &mark : w.high) {
            snowflake::HighWater &kept = high.try_emplace(mark.node, mark).first->second;
            kept.fence = std::max(kept.fence, mark.fence);
            kept.floor_ms = mark.give_back ? mark.floor_ms : std::max(kept.floor_ms, mark.floor_ms);
        }
        for (const snowflake::TimelineRecord &record : w.timelines) {
            EXPECT_TRUE(keeps_timelines);
            snowflake::merge_timeline(
                record, &timelines[std::make_pair(record.system_id, record.timeline)]);
        }
    }
};

inline bool same_lease(const snowflake::LeaseRecord &a, const snowflake::LeaseRecord &b) {
    return a.node == b.node && a.fence == b.fence && a.holder_system_id == b.holder_system_id &&
           a.holder_instance == b.holder_instance && a.holder_host == b.holder_host &&
           a.holder_port == b.holder_port && a.holder_data_directory == b.holder_data_directory &&
           a.holder_timeline == b.holder_timeline &&
           a.holder_max_clock_drift_ms == b.holder_max_clock_drift_ms &&
           a.acquired_at_ms == b.acquired_at_ms && a.renewed_at_ms == b.renewed_at_ms &&
           a.expires_at_ms == b.expires_at_ms && a.released_at_ms == b.released_at_ms &&
           a.reserved_until_ms == b.reserved_until_ms &&
           a.holder_wal_position == b.holder_wal_position;
}

inline bool same_layout(const std::optional<snowflake::LayoutRecord> &a,
                        const std::optional<snowflake::LayoutRecord> &b) {
    if (!a || !b) {
        return !a && !b;
    }
    return a->datacenter_bits == b->datacenter_bits && a->worker_bits == b->worker_bits &&
           a->sequence_bits == b->sequence_bits && a->epoch_ms == b->epoch_ms &&
           a->recorded_at_ms == b->recorded_at_ms && a->recorded_by == b->recorded_by;
}

inline bool same_guard(const std::optional<snowflake::LossGuard> &a,
                       const std::optional<snowflake::LossGuard> &b) {
    if (!a || !b) {
        return !a && !b;
    }
    return a->created_at_ms == b->created_at_ms &&
           a->quarantine_until_ms == b->quarantine_until_ms && a->floor_ms == b->floor_ms;
}

// One server's connection to a Store. Its write depends on what the real
// stores' writes depend on: every lease it writes and, for an acquire or a
// switch, every lease of the asking server's system, as read; the layout,
// the guard and the never-leased counter where it writes them.
class MemoryRegistry final : public snowflake::GuardedStore {
  public:
    explicit MemoryRegistry(Store *data, const int64_t *clock_ms) : data_(data), clock_(clock_ms) {}

    // Run once each, in order, between a call's read and its write's check:
    // the other servers' calls a test interleaves.
    std::vector<std::function<void()>> between_read_and_write;
    // Like Redis's store: an acquire's or a switch's write that finds
    // records changed brings them up to date in the view and has the call
    // decide again on it (WriteResult::changed_view_updated), instead of
    // reading everything again (PostgreSQL's, and every renewal's).
    bool updates_view = false;

    // What the calls did, for the tests to assert.
    int reads = 0;
    int writes_tried = 0;
    int writes_changed = 0;

  protected:
    snowflake::StoreOutcome begin_call(const snowflake::CallScope &scope,
                                       snowflake::Error *) override {
        if (scope.timelines_of) {
            timelines_of_ = *scope.timelines_of;
        }
        return snowflake::StoreOutcome::ok;
    }

    snowflake::StoreOutcome read_view(const snowflake::CallScope &scope,
                                      snowflake::RegistryView *view, snowflake::Error *) override {
        ++reads;
        *view = data_->view(*clock_);
        // As the real stores read: a renewal or a release its one lease,
        // every call the asking server's system's timelines.
        if (scope.node >= 0) {
            std::erase_if(view->leases,
                          [&](const snowflake::LeaseRecord &l) { return l.node != scope.node; });
        }
        std::erase_if(view->timelines, [&](const snowflake::TimelineRecord &t) {
            return t.system_id != timelines_of_;
        });
        return snowflake::StoreOutcome::ok;
    }

    snowflake::StoreOutcome guarded_write(const snowflake::CallScope &scope,
                                          snowflake::RegistryView *view,
                                          const snowflake::RegistryWrites &writes,
                                          snowflake::WriteResult *result,
                                          snowflake::Error *) override {
        ++writes_tried;
        if (!between_read_and_write.empty()) {
            const std::function<void()> other = std::move(between_read_and_write.front());
            between_read_and_write.erase(between_read_and_write.begin());
            other();
        }
        std::vector<int64_t> covered;
        for (const snowflake::LeaseRecord &l : writes.leases) {
            covered.push_back(l.node);
        }
        if (scope.system_id != 0) {
            for (const snowflake::LeaseRecord &l : view->leases) {
                if (l.holder_system_id == scope.system_id) {
                    covered.push_back(l.node);
                }
            }
            for (const auto &[node, l] : data_->leases) {
                if (l.holder_system_id == scope.system_id) {
                    covered.push_back(node);
                }
            }
        }
        const bool update = updates_view && scope.node < 0;
        bool unchanged = true;
        for (int64_t node : covered) {
            const auto now = data_->leases.find(node);
            const auto read =
                std::find_if(view->leases.begin(), view->leases.end(),
                             [node](const snowflake::LeaseRecord &l) { return l.node == node; });
            const bool was = read != view->leases.end();
            const bool is = now != data_->leases.end();
            if (was != is || (was && !same_lease(*read, now->second))) {
                unchanged = false;
                if (update) {
                    if (was && is) {
                        *read = now->second;
                    } else if (is) {
                        view->leases.push_back(now->second);
                    } else {
                        view->leases.erase(read);
                    }
                }
            }
        }
        const bool counter_moved =
            writes.never_leased_from && data_->never_leased_from != view->never_leased_from;
        const bool meta_moved = (writes.layout && !same_layout(data_->layout, view->layout)) ||
                                (writes.guard && !same_guard(data_->guard, view->guard));
        if (counter_moved || meta_moved) {
            unchanged = false;
            view->never_leased_from = data_->never_leased_from;
        }
        if (!unchanged) {
            ++writes_changed;
            *result = update && !meta_moved ? snowflake::WriteResult::changed_view_updated
                                            : snowflake::WriteResult::changed;
            return snowflake::StoreOutcome::ok;
        }
        data_->apply(writes);
        *result = snowflake::WriteResult::written;
        return snowflake::StoreOutcome::ok;
    }

    snowflake::StoreOutcome gave_up(int attempts, snowflake::Error *err) override {
        snowflake::fail(err, snowflake::ErrorCode::registry,
                        "the registry's records changed between the read and the write %d "
                        "times in a row",
                        attempts);
        return snowflake::StoreOutcome::unreachable;
    }

  private:
    Store *data_;
    const int64_t *clock_;
    uint64_t timelines_of_ = 0;
};

}  // namespace snowflake_test
