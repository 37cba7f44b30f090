// The registry call (src/core/registry_call.hpp) on the store in memory,
// with other servers' calls scripted between a call's read and its write:
// the orders tests/registry/store_race.cpp forces on PostgreSQL and Redis,
// on both kinds of retry (reading everything again, as PostgreSQL's store
// does; deciding again on a view brought up to date, as Redis's does).
#include "core/registry_call.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>

#include "core/registry.hpp"
#include "memory_registry.hpp"

using snowflake::ErrorCode;
using snowflake::StoreOutcome;
using snowflake_test::MemoryRegistry;
using snowflake_test::Store;

namespace {

constexpr int64_t kEpoch = 1'577'836'800'000;
constexpr int64_t kNow = 1'790'000'000'000;
constexpr int64_t kTtl = 60'000;
constexpr uint64_t kSystem = 7'411'111'111'111'111'111;
// The WAL position every timeline-1 server records; its standby left
// timeline 1 there.
constexpr int64_t kOldPrimaryPosition = int64_t{1} << 24;

// A server with its connection to the registry, as store_race's.
struct Server {
    Server(Store *data, const int64_t *clock, int64_t instance, int timeline, const char *dir,
           uint64_t system_id = kSystem)
        : registry(data, clock),
          clock(clock),
          instance(instance),
          timeline(timeline),
          dir(dir),
          system_id(system_id) {}
    MemoryRegistry registry;
    const int64_t *clock;
    int64_t instance;
    int timeline;
    const char *dir;
    uint64_t system_id;
    snowflake::LayoutWidths widths{5, 5, 12};
    int64_t static_node = -1;
    int64_t written_since = 0;  // WAL since timeline 1's recorded position
    int64_t stored_node = -1;
    int64_t stored_fence = 0;
    snowflake::LeaseGrant grant;
    snowflake::Error err{};
    StoreOutcome outcome = StoreOutcome::unreachable;

    void describe(snowflake::LeaseHolder *h) const {
        h->system_id = system_id;
        h->instance = instance;
        h->host = "race.invalid";
        h->port = 5432;
        h->data_directory = dir;
        h->timeline = timeline;
        h->wal_position = kOldPrimaryPosition + (timeline - 1) * 256 + written_since;
        h->history.clear();
        for (int t = 1; t < timeline; ++t) {
            h->history.push_back({t, kOldPrimaryPosition});
        }
    }
    StoreOutcome acquire() {
        snowflake::LeaseRequest request;
        snowflake::ask_with_durable_state(static_node, stored_node, stored_fence, &request);
        describe(&request.holder);
        request.widths = widths;
        request.epoch_unix_ms = kEpoch;
        request.max_clock_drift_ms = 1000;
        request.ttl_ms = kTtl;
        request.clock_unix_ms = *clock;
        err = snowflake::Error{};
        outcome = registry.acquire(request, &grant, &err);
        if (outcome == StoreOutcome::ok) {
            stored_node = grant.node;
            stored_fence = grant.fence;
        }
        return outcome;
    }
    StoreOutcome renew() {
        snowflake::RenewRequest request;
        request.node = grant.node;
        request.fence = grant.fence;
        request.instance = instance;
        request.bound_unix_ms = *clock + 1000;
        request.ttl_ms = kTtl;
        describe(&request.holder);
        int64_t expires = 0;
        err = snowflake::Error{};
        return outcome = registry.renew(request, &expires, &err);
    }
    StoreOutcome release() {
        err = snowflake::Error{};
        return outcome = registry.release(grant.node, grant.fence, instance, *clock + 1, &err);
    }
};

// A Redis-like store (can lose its data: a guard recorded long ago, marks
// and the never-leased counter), past its quarantine.
Store redis_like() {
    Store s;
    s.can_lose_data = true;
    s.keeps_high_water = true;
    s.keeps_timelines = true;
    s.guard = snowflake::LossGuard{kNow - 10 * kTtl, kNow - 9 * kTtl, kNow - 9 * kTtl};
    return s;
}

Store pg_like() {
    Store s;
    s.keeps_timelines = true;
    return s;
}

class RegistryCall : public ::testing::TestWithParam<bool> {
  protected:
    // The parameter: the store brings a changed view up to date (Redis's
    // way) rather than reading everything again (PostgreSQL's).
    bool updates_view() const { return GetParam(); }
    Store fresh() const { return updates_view() ? redis_like() : pg_like(); }
    void connect(Server *s) const { s->registry.updates_view = updates_view(); }
};

INSTANTIATE_TEST_SUITE_P(Retries, RegistryCall, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool> &p) {
                             return std::string(p.param ? "DecidingOnTheUpdatedView"
                                                        : "ReadingEverythingAgain");
                         });

// store_race's split brain (--first=old_primary|standby): an old primary
// taking its node id back and its promoted standby taking an 'auto' id,
// both having read before either writes. Whichever writes second must see
// the first's grant: never both holding a live lease.
TEST_P(RegistryCall, SplitBrainEitherWriteFirst) {
    for (const bool old_primary_first : {true, false}) {
        SCOPED_TRACE(old_primary_first ? "the old primary writes first" : "the standby first");
        int64_t clock = kNow;
        Store data = fresh();
        Server old_primary(&data, &clock, 101, 1, "/race/old-primary");
        Server standby(&data, &clock, 202, 2, "/race/promoted-standby");
        connect(&old_primary);
        connect(&standby);
        ASSERT_EQ(old_primary.acquire(), StoreOutcome::ok) << old_primary.err.message;
        ASSERT_EQ(old_primary.renew(), StoreOutcome::ok) << old_primary.err.message;
        ASSERT_EQ(old_primary.release(), StoreOutcome::ok) << old_primary.err.message;
        Server &first = old_primary_first ? old_primary : standby;
        Server &second = old_primary_first ? standby : old_primary;
        // The second reads, then the first reads and writes, then the
        // second writes: both read before either wrote.
        second.registry.between_read_and_write.push_back([&] { first.acquire(); });
        second.acquire();
        EXPECT_EQ(second.registry.writes_changed, 1) << "not the race meant";
        EXPECT_EQ(first.registry.writes_changed, 0);

        ASSERT_EQ(standby.outcome, StoreOutcome::ok) << standby.err.message;
        EXPECT_EQ(standby.renew(), StoreOutcome::ok) << standby.err.message;
        if (old_primary.outcome == StoreOutcome::ok) {
            // Granted first: the standby's grant ended that lease.
            EXPECT_EQ(old_primary.renew(), StoreOutcome::refused)
                << "two servers of one system mint";
        }
        EXPECT_EQ(old_primary.err.code, ErrorCode::registry_replaced) << old_primary.err.message;
    }
}

// --race=renewal_before_successor_writes: a promoted standby (static id,
// its old primary's durable state) reads as the old primary's successor;
// before it writes, the old primary renews, recording a WAL position past
// the standby's branch point. The standby's write finds the lease changed;
// decided again, it is a copy, refused, and the old primary renews on: the
// mark that replaces a timeline goes only with the grant it was decided
// with (57bb342).
TEST_P(RegistryCall, RenewalBeforeTheSuccessorWrites) {
    int64_t clock = kNow;
    Store data = fresh();
    Server old_primary(&data, &clock, 101, 1, "/race/old-primary");
    Server standby(&data, &clock, 202, 2, "/race/promoted-standby");
    connect(&old_primary);
    connect(&standby);
    old_primary.static_node = standby.static_node = 5;
    ASSERT_EQ(old_primary.acquire(), StoreOutcome::ok) << old_primary.err.message;
    standby.stored_node = old_primary.stored_node;
    standby.stored_fence = old_primary.stored_fence;
    standby.registry.between_read_and_write.push_back([&] {
        old_primary.written_since = 4096;
        old_primary.renew();
    });
    standby.acquire();
    EXPECT_EQ(old_primary.outcome, StoreOutcome::ok) << old_primary.err.message;
    EXPECT_EQ(standby.registry.writes_changed, 1) << "not the race meant";
    EXPECT_EQ(standby.outcome, StoreOutcome::refused);
    EXPECT_NE(strstr(standby.err.message, "is a copy of"), nullptr) << standby.err.message;
    EXPECT_EQ(old_primary.renew(), StoreOutcome::ok) << "both refused: " << old_primary.err.message;
    EXPECT_EQ(data.timelines.at({kSystem, 1}).superseded_by, 0)
        << "timeline 1 replaced by a grant never written";
}

// --race=never_leased and never_leased_given_back_late: two servers race
// for the last id never leased of a small layout (32 ids) whose others are
// leased, one given back (before the loser read, or while it waits to
// write). The loser must take the id given back: deciding again on the
// view its write brought up to date, or, when that view says every id is
// leased (the give-back came after its read), on everything read again
// rather than be refused.
TEST_P(RegistryCall, LostRaceForTheLastIdNeverLeased) {
    for (const bool given_back_late : {false, true}) {
        SCOPED_TRACE(given_back_late ? "given back while the loser waits" : "given back before");
        constexpr int64_t kIds = 32;
        int64_t clock = kNow;
        Store data = fresh();
        Server first(&data, &clock, 900, 1, "/race/first", kSystem + 4);
        Server filler(&data, &clock, 1000, 1, "/race/filler", kSystem + 1);
        Server winner(&data, &clock, 2000, 1, "/race/winner", kSystem + 2);
        Server loser(&data, &clock, 3000, 1, "/race/loser", kSystem + 3);
        for (Server *s : {&first, &filler, &winner, &loser}) {
            s->widths = {2, 3, 12};
            connect(s);
        }
        ASSERT_EQ(first.acquire(), StoreOutcome::ok) << first.err.message;
        ASSERT_EQ(first.grant.node, 0);
        if (!given_back_late) {
            ASSERT_EQ(first.release(), StoreOutcome::ok);
        }
        for (int64_t n = 1; n < kIds - 1; ++n) {
            filler.instance = 1000 + n;  // another run each time: another id
            filler.stored_node = -1;
            ASSERT_EQ(filler.acquire(), StoreOutcome::ok) << filler.err.message;
        }
        loser.registry.between_read_and_write.push_back([&] {
            winner.acquire();
            if (given_back_late) {
                first.release();
            }
        });
        loser.acquire();
        ASSERT_EQ(winner.outcome, StoreOutcome::ok) << winner.err.message;
        EXPECT_EQ(winner.grant.node, kIds - 1) << "not the race meant";
        EXPECT_EQ(loser.registry.writes_changed, 1) << "not the race meant";
        ASSERT_EQ(loser.outcome, StoreOutcome::ok) << loser.err.message;
        EXPECT_EQ(loser.grant.node, 0) << "the only id free";
        if (updates_view()) {
            EXPECT_EQ(loser.registry.reads, given_back_late ? 2 : 1)
                << "everything is read again only when the updated view refuses";
        } else {
            EXPECT_EQ(loser.registry.reads, 2);
        }
    }
}

// A call whose records another call changes between every read and write
// gives up after GuardedStore::kMaxAttempts, as unreachable (the worker
// asks again later), saying so.
TEST_P(RegistryCall, GivesUpAfterTheRecordsChangedEveryTime) {
    int64_t clock = kNow;
    Store data = fresh();
    Server s(&data, &clock, 101, 1, "/data");
    connect(&s);
    ASSERT_EQ(s.acquire(), StoreOutcome::ok) << s.err.message;
    for (int i = 0; i < 40; ++i) {
        s.registry.between_read_and_write.push_back(
            [&data, &s] { ++data.leases.at(s.grant.node).renewed_at_ms; });
    }
    const int reads_before = s.registry.reads;
    const int writes_before = s.registry.writes_tried;
    EXPECT_EQ(s.renew(), StoreOutcome::unreachable);
    EXPECT_EQ(s.err.code, ErrorCode::registry);
    EXPECT_STREQ(s.err.message,
                 "the registry's records changed between the read and the write 32 times in a row");
    EXPECT_EQ(s.registry.writes_tried - writes_before, snowflake::GuardedStore::kMaxAttempts);
    EXPECT_EQ(s.registry.reads - reads_before, snowflake::GuardedStore::kMaxAttempts)
        << "a renewal reads its lease again after every change";
    // Once the storm is over, the renewal goes through on the next read.
    s.registry.between_read_and_write.clear();
    EXPECT_EQ(s.renew(), StoreOutcome::ok) << s.err.message;
}

// A refusal that records (a lapsed lease's wait begun) writes its records
// and keeps its message; a change between its read and write has it
// decide again.
TEST_P(RegistryCall, ARefusalThatRecordsIsWrittenWithItsMessage) {
    int64_t clock = kNow;
    Store data = fresh();
    Server s(&data, &clock, 101, 1, "/data");
    connect(&s);
    s.static_node = 1;
    ASSERT_EQ(s.acquire(), StoreOutcome::ok) << s.err.message;
    // The registry comes back long after the lease expired.
    clock = kNow + 5 * kTtl;
    s.written_since = 0x400;
    EXPECT_EQ(s.acquire(), StoreOutcome::refused);
    EXPECT_EQ(s.err.code, ErrorCode::registry);
    EXPECT_EQ(std::string(s.err.message),
              "this server's lease on node id 1 lapsed: it leases again from " +
                  snowflake::registry_time_text(clock + kTtl));
    EXPECT_EQ(data.timelines.at({kSystem, 1}).resume_at_ms, clock + kTtl);
    clock += kTtl;
    EXPECT_EQ(s.acquire(), StoreOutcome::ok) << s.err.message;
    EXPECT_EQ(s.grant.node, 1);
}

}  // namespace

// A store that brings the view up to date decides on it at most
// GuardedStore::kDecisionsPerRead times in a row, then reads everything
// again: the leases it did not write may have changed too.
TEST_P(RegistryCall, AnUpdatedViewIsReadAgainAfterFourDecisions) {
    int64_t clock = kNow;
    Store data = fresh();
    Server old_primary(&data, &clock, 101, 1, "/race/old-primary");
    Server standby(&data, &clock, 202, 2, "/race/promoted-standby");
    connect(&old_primary);
    connect(&standby);
    ASSERT_EQ(old_primary.acquire(), StoreOutcome::ok) << old_primary.err.message;
    // The old primary's lease, which the standby's grant depends on,
    // changes before each of its first four writes.
    for (int i = 0; i < snowflake::GuardedStore::kDecisionsPerRead; ++i) {
        standby.registry.between_read_and_write.push_back(
            [&] { ++data.leases.at(old_primary.grant.node).renewed_at_ms; });
    }
    ASSERT_EQ(standby.acquire(), StoreOutcome::ok) << standby.err.message;
    EXPECT_EQ(standby.registry.writes_changed, snowflake::GuardedStore::kDecisionsPerRead);
    EXPECT_EQ(standby.registry.reads,
              updates_view() ? 2 : 1 + snowflake::GuardedStore::kDecisionsPerRead);
    EXPECT_EQ(old_primary.renew(), StoreOutcome::refused) << "fenced by its successor's grant";
    EXPECT_EQ(old_primary.err.code, ErrorCode::registry_replaced);
}

// on_clock_step_back = 'switch_node' through the call: the lease held is
// given back and another taken in one write, decided again when the held
// lease changed in between.
TEST_P(RegistryCall, ASwitchDecidedAgainWhenItsLeaseChanged) {
    int64_t clock = kNow;
    Store data = fresh();
    Server s(&data, &clock, 101, 1, "/data");
    connect(&s);
    ASSERT_EQ(s.acquire(), StoreOutcome::ok) << s.err.message;
    const int64_t held = s.grant.node;
    s.registry.between_read_and_write.push_back([&] { ++data.leases.at(held).renewed_at_ms; });
    snowflake::SwitchRequest request;
    request.node = held;
    request.fence = s.grant.fence;
    request.held_bound_unix_ms = clock + 1000;
    s.describe(&request.lease.holder);
    request.lease.widths = s.widths;
    request.lease.epoch_unix_ms = kEpoch;
    request.lease.max_clock_drift_ms = 1000;
    request.lease.ttl_ms = kTtl;
    request.lease.clock_unix_ms = clock;
    request.bound_unix_ms = clock + 1000;
    snowflake::LeaseGrant grant;
    int64_t expires = 0;
    snowflake::Error err{};
    ASSERT_EQ(s.registry.switch_node(request, &grant, &expires, &err), StoreOutcome::ok)
        << err.message;
    EXPECT_EQ(s.registry.writes_changed, 1);
    EXPECT_NE(grant.node, held);
    EXPECT_GT(data.leases.at(held).released_at_ms, 0) << "the lease held was given back";
    EXPECT_EQ(data.leases.at(grant.node).holder_instance, s.instance);
}
