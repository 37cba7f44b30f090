#include "core/lease_rules.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

using snowflake::decide_acquire;
using snowflake::decide_release;
using snowflake::decide_renew;
using snowflake::decide_switch;
using snowflake::Error;
using snowflake::LayoutRecord;
using snowflake::LeaseGrant;
using snowflake::LeaseHolder;
using snowflake::LeaseRecord;
using snowflake::LeaseRequest;
using snowflake::LossGuard;
using snowflake::RegistryView;
using snowflake::RegistryWrites;
using snowflake::ReleaseRequest;
using snowflake::RenewRequest;
using snowflake::RuleOutcome;
using snowflake::SwitchRequest;

namespace {

constexpr int64_t kEpoch = 1'577'836'800'000;  // 2020-01-01
constexpr int64_t kNow = 1'790'000'000'000;    // 2026-09-21 14:13:20.000Z
constexpr int64_t kTtl = 60'000;
constexpr int64_t kDrift = 1'000;

// A store in memory: what a real one keeps, and the writes applied to it
// as one atomic step.
struct Store {
    std::optional<LayoutRecord> layout;
    std::map<int64_t, LeaseRecord> leases;
    bool can_lose_data = false;
    std::optional<LossGuard> guard;
    int64_t never_leased_from = 0;

    RegistryView view(int64_t now_ms) const {
        RegistryView v;
        v.now_ms = now_ms;
        v.layout = layout;
        for (const auto &[node, lease] : leases) {
            v.leases.push_back(lease);
        }
        v.can_lose_data = can_lose_data;
        v.guard = guard;
        v.guard_key = "snowflake_id:meta";
        v.never_leased_from = never_leased_from;
        return v;
    }
    void apply(const RegistryWrites &w) {
        if (w.layout) {
            layout = w.layout;
        }
        if (w.guard) {
            guard = w.guard;
        }
        for (const LeaseRecord &lease : w.leases) {
            leases[lease.node] = lease;
        }
        if (w.never_leased_from) {
            never_leased_from = *w.never_leased_from;
        }
    }
};

// A server as the requests describe it.
struct Server {
    uint64_t system_id = 7'000'000'000'000'000'001;
    int64_t instance = 1;
    std::string host = "db1";
    int port = 5432;
    std::string dir = "/var/lib/postgresql/data";
    int timeline = 1;
    int64_t drift = kDrift;
    int64_t ttl = kTtl;

    LeaseRequest request(int64_t requested = -1, int64_t preferred = -1,
                         int64_t previous_fence = 0) const {
        LeaseRequest r;
        r.requested_node = requested;
        r.preferred_node = preferred;
        r.previous_fence = previous_fence;
        r.holder.system_id = system_id;
        r.holder.instance = instance;
        r.holder.host = host.c_str();
        r.holder.port = port;
        r.holder.data_directory = dir.c_str();
        r.holder.timeline = timeline;
        r.widths = {1, 2, 12};
        r.epoch_unix_ms = kEpoch;
        r.max_clock_drift_ms = drift;
        r.ttl_ms = ttl;
        r.clock_unix_ms = kNow;
        return r;
    }
    std::string text() const {
        return snowflake::holder_text(host.c_str(), port, dir.c_str(), system_id);
    }
};

struct Answer {
    RuleOutcome outcome = RuleOutcome::refused;
    LeaseGrant grant;
    int64_t expires = 0;
    Error err{};
    RegistryWrites writes;
};

Answer acquire(Store *store, const LeaseRequest &request, int64_t now = kNow) {
    Answer a;
    a.outcome = decide_acquire(request, store->view(now), &a.writes, &a.grant, &a.expires, &a.err);
    store->apply(a.writes);
    return a;
}

Answer renew(Store *store, int64_t node, int64_t fence, int64_t instance, int64_t bound,
             int64_t now = kNow, int64_t ttl = kTtl) {
    Answer a;
    const RenewRequest r{node, fence, instance, bound, ttl};
    a.outcome = decide_renew(r, store->view(now), &a.writes, &a.expires, &a.err);
    store->apply(a.writes);
    return a;
}

bool release(Store *store, int64_t node, int64_t fence, int64_t instance, int64_t bound,
             int64_t now = kNow) {
    RegistryWrites w;
    bool released = false;
    decide_release(ReleaseRequest{node, fence, instance, bound}, store->view(now), &w, &released);
    EXPECT_EQ(released, !w.empty());
    store->apply(w);
    return released;
}

Answer switch_node(Store *store, const Server &s, int64_t node, int64_t fence, int64_t held_bound,
                   int64_t clock, int64_t bound, int64_t now = kNow) {
    SwitchRequest r;
    r.node = node;
    r.fence = fence;
    r.held_bound_unix_ms = held_bound;
    r.lease = s.request();
    r.lease.clock_unix_ms = clock;
    r.bound_unix_ms = bound;
    Answer a;
    a.outcome = decide_switch(r, store->view(now), &a.writes, &a.grant, &a.expires, &a.err);
    store->apply(a.writes);
    return a;
}

Server other_server() {
    Server s;
    s.system_id = 7'000'000'000'000'000'002;
    s.instance = 2;
    s.host = "db2";
    return s;
}

}  // namespace

TEST(LeaseRules, Texts) {
    EXPECT_EQ(snowflake::registry_time_text(kNow), "2026-09-21 14:13:20.000Z");
    EXPECT_EQ(snowflake::registry_time_text(kEpoch + 1), "2020-01-01 00:00:00.001Z");
    EXPECT_EQ(snowflake::holder_text("db1", 5432, "/data", 18446744073709551615u),
              "db1:5432, data directory /data, system identifier 18446744073709551615");
    // The longest a server writes fits the bound error.hpp derives.
    const std::string host(snowflake::kHostMax, 'h');
    const std::string dir(snowflake::kPathMax, 'd');
    const std::string longest =
        snowflake::holder_text(host.c_str(), -2'147'483'647 - 1, dir.c_str(), UINT64_MAX);
    EXPECT_LE(longest.size(), snowflake::kRegistryHolderMax);
    // A longer one (a record written by hand) is not cut here.
    const std::string longer(5000, 'x');
    EXPECT_EQ(snowflake::holder_text(longer.c_str(), 1, "d", 1).size(), 5000 + 41u);
}

TEST(LeaseRules, FirstGrantRecordsTheLayoutAndStartsAtFenceOne) {
    Store store;
    const Server s;
    const Answer a = acquire(&store, s.request());
    ASSERT_EQ(a.outcome, RuleOutcome::ok) << a.err.message;
    EXPECT_EQ(a.grant.node, 0);
    EXPECT_EQ(a.grant.fence, 1);
    EXPECT_EQ(a.grant.floor_unix_ms, 0);
    EXPECT_EQ(a.expires, kNow + kTtl);
    ASSERT_TRUE(store.layout);
    EXPECT_EQ(store.layout->worker_bits, 2);
    EXPECT_EQ(store.layout->datacenter_bits, 1);
    EXPECT_EQ(store.layout->sequence_bits, 12);
    EXPECT_EQ(store.layout->epoch_ms, kEpoch);
    EXPECT_EQ(store.layout->recorded_at_ms, kNow);
    EXPECT_EQ(store.layout->recorded_by, s.text());
    EXPECT_FALSE(store.layout->has_timing) << "only a store that can lose its data";
    const LeaseRecord &l = store.leases.at(0);
    EXPECT_EQ(l.holder_instance, 1);
    EXPECT_EQ(l.holder_max_clock_drift_ms, kDrift);
    EXPECT_EQ(l.acquired_at_ms, kNow);
    EXPECT_EQ(l.expires_at_ms, kNow + kTtl);
    EXPECT_EQ(l.released_at_ms, 0);
    EXPECT_EQ(l.reserved_until_ms, 0);
    EXPECT_FALSE(a.writes.never_leased_from) << "a store that keeps every record";
    // The next 'auto' server gets the lowest id never leased.
    const Answer b = acquire(&store, other_server().request());
    ASSERT_EQ(b.outcome, RuleOutcome::ok);
    EXPECT_EQ(b.grant.node, 1);
    EXPECT_FALSE(b.writes.layout) << "recorded once";
}

TEST(LeaseRules, StaticIdHeldByAnotherIsRefusedNamingBoth) {
    Store store;
    const Server s;
    ASSERT_EQ(acquire(&store, s.request(5)).outcome, RuleOutcome::ok);
    const Server o = other_server();
    const Answer a = acquire(&store, o.request(5), kNow + 10);
    ASSERT_EQ(a.outcome, RuleOutcome::refused);
    EXPECT_TRUE(a.writes.empty());
    EXPECT_EQ(a.err.code, snowflake::ErrorCode::registry);
    EXPECT_FALSE(a.err.truncated);
    EXPECT_STREQ(a.err.message, "node id 5 is held by another server");
    EXPECT_EQ(std::string(a.err.detail), "It is held by " + s.text() +
                                             ", whose lease runs until 2026-09-21 14:14:20.000Z; "
                                             "this server is " +
                                             o.text() + ".");
    EXPECT_STREQ(a.err.hint,
                 "Give every server its own snowflake_id.worker_id, or set it to 'auto'. A server "
                 "that was stopped without a clean shutdown frees its id when its lease expires.");
    // Once the lease expired, the other server takes it, above the bound.
    ASSERT_EQ(renew(&store, 5, 1, s.instance, kNow + 70'000, kNow + 20'000).outcome,
              RuleOutcome::ok);
    EXPECT_EQ(acquire(&store, o.request(5), kNow + 20'000 + kTtl - 1).outcome,
              RuleOutcome::refused);
    const Answer b = acquire(&store, o.request(5), kNow + 20'000 + kTtl);
    ASSERT_EQ(b.outcome, RuleOutcome::ok);
    EXPECT_EQ(b.grant.fence, 2);
    EXPECT_EQ(b.grant.floor_unix_ms, kNow + 70'000 + kDrift) << "floor = bound + drift";
    EXPECT_EQ(store.leases.at(5).reserved_until_ms, kNow + 70'000 + kDrift);
    EXPECT_EQ(store.leases.at(5).holder_instance, o.instance);
}

TEST(LeaseRules, SameRunAskingAgainGetsANewFenceAboveItsBound) {
    Store store;
    const Server s;
    ASSERT_EQ(acquire(&store, s.request(3)).outcome, RuleOutcome::ok);
    ASSERT_EQ(renew(&store, 3, 1, s.instance, kNow + 30'000).outcome, RuleOutcome::ok);
    const Answer a = acquire(&store, s.request(3), kNow + 5);
    ASSERT_EQ(a.outcome, RuleOutcome::ok);
    EXPECT_EQ(a.grant.fence, 2) << "a new fence for every grant, the same run's included";
    EXPECT_EQ(a.grant.floor_unix_ms, kNow + 30'000 + kDrift);
    // A give-back the registry runs late, naming the first grant, ends nothing.
    EXPECT_FALSE(release(&store, 3, 1, s.instance, kNow));
    EXPECT_EQ(store.leases.at(3).released_at_ms, 0);
    EXPECT_EQ(store.leases.at(3).reserved_until_ms, kNow + 30'000 + kDrift);
    EXPECT_TRUE(release(&store, 3, 2, s.instance, kNow + 30'000 + kDrift, kNow + 6));
}

TEST(LeaseRules, LaterRunTakesItsLiveLeaseWithTheRecordedFenceOnly) {
    Store store;
    Server s;
    ASSERT_EQ(acquire(&store, s.request(2)).outcome, RuleOutcome::ok);
    s.instance = 11;  // restarted without a clean stop: the lease is live
    for (const int64_t fence : {0, 2, 7}) {
        const Answer a = acquire(&store, s.request(2, -1, fence), kNow + 10);
        EXPECT_EQ(a.outcome, RuleOutcome::refused) << "previous fence " << fence;
        EXPECT_STREQ(a.err.message, "node id 2 is held by another server");
    }
    // Another host with the recorded fence: a copy, not a later run.
    Server copy = s;
    copy.host = "db1-copy";
    EXPECT_EQ(acquire(&store, copy.request(2, -1, 1), kNow + 10).outcome, RuleOutcome::refused);
    const Answer a = acquire(&store, s.request(2, -1, 1), kNow + 10);
    ASSERT_EQ(a.outcome, RuleOutcome::ok);
    EXPECT_EQ(a.grant.fence, 2);
    EXPECT_EQ(a.grant.floor_unix_ms, 0 + kDrift);
    // 'auto' with the durable state's node id and fence gets it back too.
    s.instance = 12;
    const Answer b = acquire(&store, s.request(-1, 2, 2), kNow + 20);
    ASSERT_EQ(b.outcome, RuleOutcome::ok);
    EXPECT_EQ(b.grant.node, 2);
    // Without the fence, 'auto' goes elsewhere: the lowest id never leased.
    s.instance = 13;
    const Answer c = acquire(&store, s.request(-1, 2, 0), kNow + 30);
    ASSERT_EQ(c.outcome, RuleOutcome::ok);
    EXPECT_EQ(c.grant.node, 0);
}

TEST(LeaseRules, PromotedStandbyTakesOverARestoredCopyDoesNot) {
    Store store;
    const Server primary;
    ASSERT_EQ(acquire(&store, primary.request(4)).outcome, RuleOutcome::ok);
    ASSERT_EQ(renew(&store, 4, 1, primary.instance, kNow + 40'000).outcome, RuleOutcome::ok);
    // A restored backup elsewhere, on the same timeline.
    Server restored = primary;
    restored.instance = 21;
    restored.host = "restore-test";
    EXPECT_EQ(acquire(&store, restored.request(4, -1, 1), kNow + 1).outcome, RuleOutcome::refused);
    // A standby of the same system on the same timeline is no promotion.
    Server standby = primary;
    standby.instance = 22;
    standby.host = "db1-standby";
    EXPECT_EQ(acquire(&store, standby.request(4), kNow + 1).outcome, RuleOutcome::refused);
    standby.timeline = 2;
    const Answer a = acquire(&store, standby.request(4), kNow + 1);
    ASSERT_EQ(a.outcome, RuleOutcome::ok);
    EXPECT_EQ(a.grant.fence, 2);
    EXPECT_EQ(a.grant.floor_unix_ms, kNow + 40'000 + kDrift);
    // The old primary's renewal finds the lease lost, naming the new holder.
    const Answer r = renew(&store, 4, 1, primary.instance, kNow + 50'000, kNow + 2);
    ASSERT_EQ(r.outcome, RuleOutcome::refused);
    EXPECT_TRUE(r.writes.empty());
    EXPECT_STREQ(r.err.message, "the lease on node id 4 was lost");
    EXPECT_EQ(
        std::string(r.err.detail),
        "It is held by " +
            snowflake::holder_text("db1-standby", 5432, primary.dir.c_str(), primary.system_id) +
            " since 2026-09-21 14:13:20.001Z with fence 2; this run of the server held "
            "fence 1.");
    EXPECT_STREQ(r.err.hint,
                 "The server stops issuing IDs at its lease deadline and leases a node id again.");
    // A lower timeline does not take it back.
    Server old = primary;
    old.instance = 23;
    EXPECT_EQ(acquire(&store, old.request(4), kNow + 3).outcome, RuleOutcome::refused);
}

TEST(LeaseRules, RenewRecordsABoundThatNeverGoesDown) {
    Store store;
    const Server s;
    ASSERT_EQ(acquire(&store, s.request(1)).outcome, RuleOutcome::ok);
    Answer a = renew(&store, 1, 1, s.instance, kNow + 60'000, kNow + 100);
    ASSERT_EQ(a.outcome, RuleOutcome::ok);
    EXPECT_EQ(a.expires, kNow + 100 + kTtl);
    EXPECT_EQ(store.leases.at(1).renewed_at_ms, kNow + 100);
    a = renew(&store, 1, 1, s.instance, kNow + 30'000, kNow + 200);
    ASSERT_EQ(a.outcome, RuleOutcome::ok);
    EXPECT_EQ(store.leases.at(1).reserved_until_ms, kNow + 60'000);
    EXPECT_EQ(store.leases.at(1).expires_at_ms, kNow + 200 + kTtl);
    // Expired but not taken over: renewed, no one else can have issued.
    a = renew(&store, 1, 1, s.instance, kNow + 200'000, kNow + 10 * kTtl);
    ASSERT_EQ(a.outcome, RuleOutcome::ok);
    EXPECT_EQ(store.leases.at(1).reserved_until_ms, kNow + 200'000);
    // Refusals and their DETAILs.
    a = renew(&store, 1, 1, s.instance + 1, kNow, kNow + 10 * kTtl);
    ASSERT_EQ(a.outcome, RuleOutcome::refused);
    EXPECT_EQ(std::string(a.err.detail), "It is held by " + s.text() +
                                             " since 2026-09-21 14:13:20.000Z with fence 1; "
                                             "this run of the server held fence 1.");
    a = renew(&store, 2, 1, s.instance, kNow);
    ASSERT_EQ(a.outcome, RuleOutcome::refused);
    EXPECT_STREQ(a.err.message, "the lease on node id 2 was lost");
    EXPECT_STREQ(a.err.detail, "The registry has no lease on that node id.");
    ASSERT_TRUE(release(&store, 1, 1, s.instance, kNow + 5'000, kNow + 10 * kTtl + 1));
    a = renew(&store, 1, 1, s.instance, kNow, kNow + 10 * kTtl + 2);
    ASSERT_EQ(a.outcome, RuleOutcome::refused);
    EXPECT_STREQ(a.err.detail, "It was released at 2026-09-21 14:23:20.001Z.");
    for (const int64_t ttl : {0, -5}) {
        a = renew(&store, 1, 1, s.instance, kNow, kNow, ttl);
        ASSERT_EQ(a.outcome, RuleOutcome::refused);
        EXPECT_EQ(std::string(a.err.message),
                  "lease ttl " + std::to_string(ttl) + " ms is out of range");
        EXPECT_STREQ(a.err.hint, "Set snowflake_id.lease_ttl to a positive duration.");
    }
}

TEST(LeaseRules, ReleaseGivesTheExactBoundAndFreesTheIdAtOnce) {
    Store store;
    const Server s;
    ASSERT_EQ(acquire(&store, s.request(1)).outcome, RuleOutcome::ok);
    ASSERT_EQ(renew(&store, 1, 1, s.instance, kNow + 60'000).outcome, RuleOutcome::ok);
    EXPECT_FALSE(release(&store, 1, 1, s.instance + 1, kNow + 10)) << "another run";
    EXPECT_FALSE(release(&store, 1, 2, s.instance, kNow + 10)) << "another fence";
    EXPECT_FALSE(release(&store, 0, 1, s.instance, kNow + 10)) << "no lease";
    ASSERT_TRUE(release(&store, 1, 1, s.instance, kNow + 10, kNow + 20));
    EXPECT_EQ(store.leases.at(1).released_at_ms, kNow + 20);
    EXPECT_EQ(store.leases.at(1).reserved_until_ms, kNow + 10) << "below the renewal's bound";
    EXPECT_FALSE(release(&store, 1, 1, s.instance, kNow + 60'000, kNow + 30)) << "released";
    EXPECT_EQ(store.leases.at(1).reserved_until_ms, kNow + 10);
    const Answer a = acquire(&store, other_server().request(1), kNow + 40);
    ASSERT_EQ(a.outcome, RuleOutcome::ok);
    EXPECT_EQ(a.grant.floor_unix_ms, kNow + 10 + kDrift);
}

TEST(LeaseRules, SwitchTakesAnIdUsableAtTheClockOrLeavesTheLeaseAlone) {
    Store store;
    Server s;
    s.ttl = 1'000;  // short leases, so that the others' end
    // Ids 0-7: s holds 0; 1-7 held and released with bounds around the clock.
    ASSERT_EQ(acquire(&store, s.request(0)).outcome, RuleOutcome::ok);
    const int64_t clock = kNow - 3'600'000;  // an hour back
    for (int64_t n = 1; n < 8; ++n) {
        Server o = other_server();
        o.instance = 100 + n;
        ASSERT_EQ(acquire(&store, o.request(n)).outcome, RuleOutcome::ok);
        // 3 and 5 have floors below the clock; 5 ended first.
        const int64_t bound = n == 3 ? clock - kDrift - 2 : n == 5 ? clock - kDrift - 1 : kNow;
        ASSERT_TRUE(release(&store, n, 1, o.instance, bound, kNow + (n == 5 ? 1 : 10 + n)));
    }
    const Answer a = switch_node(&store, s, 0, 1, kNow + 500, clock, clock + 1'000, kNow + 100);
    ASSERT_EQ(a.outcome, RuleOutcome::ok) << a.err.message;
    EXPECT_EQ(a.grant.node, 5);
    EXPECT_EQ(a.grant.fence, 2);
    EXPECT_EQ(a.grant.floor_unix_ms, clock - 1);
    EXPECT_LT(a.grant.floor_unix_ms, clock);
    EXPECT_EQ(a.expires, kNow + 100 + 1'000);
    EXPECT_EQ(store.leases.at(5).reserved_until_ms, clock + 1'000) << "the first bound";
    EXPECT_EQ(store.leases.at(5).holder_instance, s.instance);
    // The lease held was given back, its bound only growing.
    EXPECT_EQ(store.leases.at(0).released_at_ms, kNow + 100);
    EXPECT_EQ(store.leases.at(0).reserved_until_ms, kNow + 500);
    // Next: 3. Then none: every other id's floor lies after the clock.
    const Answer b = switch_node(&store, s, 5, 2, 0, clock, clock + 1'000, kNow + 200);
    ASSERT_EQ(b.outcome, RuleOutcome::ok);
    EXPECT_EQ(b.grant.node, 3);
    EXPECT_EQ(store.leases.at(5).reserved_until_ms, clock + 1'000);
    const std::map<int64_t, LeaseRecord> before = store.leases;
    const Answer c = switch_node(&store, s, 3, 2, 0, clock, clock + 1'000, kNow + 300);
    ASSERT_EQ(c.outcome, RuleOutcome::refused);
    EXPECT_TRUE(c.writes.empty());
    EXPECT_STREQ(c.err.message,
                 "no node id is free for a server whose clock reads 2026-09-21 13:13:20.000Z");
    EXPECT_STREQ(c.err.detail,
                 "Every node id is leased, or its recorded bound lies at or after that time, so "
                 "IDs on it would repeat or wait for the clock.");
    EXPECT_STREQ(c.err.hint,
                 "The server keeps node id 3 and waits for its clock as with on_clock_step_back "
                 "= 'error'. Widen worker_bits for spare ids.");
    EXPECT_EQ(store.leases.at(3).released_at_ms, 0);
    EXPECT_EQ(store.leases.at(3).fence, 2);
    // Only the holder switches.
    const Answer d = switch_node(&store, s, 3, 1, 0, kNow, kNow, kNow + 300);
    ASSERT_EQ(d.outcome, RuleOutcome::refused);
    EXPECT_STREQ(d.err.message, "the lease on node id 3 was lost");
    EXPECT_STREQ(d.err.detail,
                 "Only the server that holds a lease can switch it for another node id.");
    EXPECT_TRUE(d.writes.empty());
}

TEST(LeaseRules, EveryIdLeased) {
    Store store;
    for (int64_t n = 0; n < 8; ++n) {
        Server o = other_server();
        o.instance = 100 + n;
        ASSERT_EQ(acquire(&store, o.request()).outcome, RuleOutcome::ok);
    }
    Server s;
    const Answer a = acquire(&store, s.request(), kNow + 1);
    ASSERT_EQ(a.outcome, RuleOutcome::refused);
    EXPECT_TRUE(a.writes.empty());
    EXPECT_STREQ(a.err.message, "every node id is leased: 8 of 8 held by live servers");
    EXPECT_STREQ(a.err.hint,
                 "Wait for a lease to expire, stop a server, or widen snowflake_id.worker_bits "
                 "or datacenter_bits (a new layout).");
}

TEST(LeaseRules, RequestsOutOfRange) {
    Store store;
    Server s;
    LeaseRequest r = s.request(8);
    Answer a = acquire(&store, r);
    ASSERT_EQ(a.outcome, RuleOutcome::refused);
    EXPECT_STREQ(a.err.message, "node id 8 is out of range for 1 datacenter and 2 worker bits");
    EXPECT_STREQ(a.err.hint, "Node ids run from 0 to 7.");
    EXPECT_TRUE(a.writes.empty()) << "not even the layout";
    EXPECT_FALSE(store.layout);
    for (const snowflake::LayoutWidths w :
         {snowflake::LayoutWidths{-1, 2, 12}, snowflake::LayoutWidths{1, -2, 12},
          snowflake::LayoutWidths{10, 21, 12}}) {
        r = s.request();
        r.widths = w;
        a = acquire(&store, r);
        ASSERT_EQ(a.outcome, RuleOutcome::refused);
        EXPECT_EQ(std::string(a.err.message),
                  "node id fields of " + std::to_string(w.datacenter_bits) + " datacenter and " +
                      std::to_string(w.worker_bits) + " worker bits are out of range");
        EXPECT_STREQ(a.err.hint, "The registry leases node ids of up to 30 bits.");
    }
    r = s.request(1 << 29);
    r.widths = {10, 20, 12};
    EXPECT_EQ(acquire(&store, r).outcome, RuleOutcome::ok) << "30 bits";
    store = Store{};
    r = s.request();
    r.ttl_ms = 0;
    a = acquire(&store, r);
    ASSERT_EQ(a.outcome, RuleOutcome::refused);
    EXPECT_STREQ(a.err.message, "lease ttl 0 ms is out of range");
    EXPECT_STREQ(a.err.hint, "Set snowflake_id.lease_ttl to a positive duration.");
}

TEST(LeaseRules, LayoutMismatchIsRefusedQuotingBoth) {
    Store store;
    const Server s;
    ASSERT_EQ(acquire(&store, s.request()).outcome, RuleOutcome::ok);
    Server o = other_server();
    LeaseRequest r = o.request();
    r.widths.sequence_bits = 11;
    Answer a = acquire(&store, r, kNow + 1);
    ASSERT_EQ(a.outcome, RuleOutcome::refused);
    EXPECT_TRUE(a.writes.empty());
    EXPECT_STREQ(a.err.message, "the layout of this server differs from the cluster's");
    EXPECT_EQ(std::string(a.err.detail),
              "The registry's cluster uses 1 datacenter, 2 worker and 12 sequence bits from epoch "
              "2020-01-01 00:00:00.000Z (recorded by " +
                  s.text() +
                  " at 2026-09-21 14:13:20.000Z); this server runs 1 datacenter, 2 worker and 11 "
                  "sequence bits from epoch 2020-01-01 00:00:00.000Z. IDs of different layouts "
                  "cannot be compared or decoded together.");
    EXPECT_STREQ(a.err.hint,
                 "Give every server of the cluster the same snowflake_id.datacenter_bits, "
                 "worker_bits, sequence_bits and epoch.");
    r = o.request();
    r.epoch_unix_ms += 1;
    EXPECT_EQ(acquire(&store, r, kNow + 1).outcome, RuleOutcome::refused);
    r = o.request();
    r.widths = {0, 3, 12};  // the same number of node ids, another layout
    EXPECT_EQ(acquire(&store, r, kNow + 1).outcome, RuleOutcome::refused);
    // lease_ttl and max_clock_drift may differ in a store that keeps its data.
    o.ttl = 5'000;
    o.drift = 0;
    EXPECT_EQ(acquire(&store, o.request(), kNow + 1).outcome, RuleOutcome::ok);
}

TEST(LeaseRules, RecyclingOldestFirstPreferringFloorsBelowTheClock) {
    Store store;
    const int64_t clock = kNow;
    // Every id leased by a server that then ended: n = 0..7, ended at the
    // time given, its floor (bound + drift) below the clock or not.
    const struct {
        int64_t ended;
        bool below;
        bool released;
    } ended[8] = {{50, false, true}, {40, true, false}, {30, false, false}, {40, true, true},
                  {20, false, true}, {60, true, true},  {10, false, false}, {45, true, false}};
    for (int64_t n = 0; n < 8; ++n) {
        Server o = other_server();
        o.instance = 100 + n;
        o.ttl = 1'000;
        const int64_t now = ended[n].released ? kNow - 5'000 : ended[n].ended - 1'000;
        ASSERT_EQ(acquire(&store, o.request(n), now).outcome, RuleOutcome::ok);
        const int64_t bound = ended[n].below ? clock - kDrift - 1 : clock - kDrift;
        if (ended[n].released) {
            ASSERT_TRUE(release(&store, n, 1, o.instance, bound, ended[n].ended));
        } else {
            ASSERT_EQ(renew(&store, n, 1, o.instance, bound, ended[n].ended - 1'000, 1'000).outcome,
                      RuleOutcome::ok);
        }
    }
    // Below the clock, oldest first, ties by node id: 1 (40), 3 (40), 7 (45),
    // 5 (60); then the rest, oldest first: 6 (10), 4 (20), 2 (30), 0 (50).
    std::vector<int64_t> order;
    for (int i = 0; i < 8; ++i) {
        Server s;
        s.instance = 200 + i;
        const Answer a = acquire(&store, s.request(), kNow + 100);
        ASSERT_EQ(a.outcome, RuleOutcome::ok) << a.err.message;
        EXPECT_EQ(a.grant.fence, 2);
        order.push_back(a.grant.node);
    }
    EXPECT_EQ(order, (std::vector<int64_t>{1, 3, 7, 5, 6, 4, 2, 0}));
    // A preferred id that is free wins over all of them.
    Store again;
    Server s;
    ASSERT_EQ(acquire(&again, s.request(6)).outcome, RuleOutcome::ok);
    ASSERT_TRUE(release(&again, 6, 1, s.instance, kNow));
    s.instance = 2;
    const Answer a = acquire(&again, s.request(-1, 6), kNow + 1);
    ASSERT_EQ(a.outcome, RuleOutcome::ok);
    EXPECT_EQ(a.grant.node, 6);
    EXPECT_EQ(a.grant.fence, 2);
    // A preferred id held by another: the lowest never leased instead.
    Server o = other_server();
    o.instance = 9;
    const Answer b = acquire(&again, o.request(-1, 6), kNow + 2);
    ASSERT_EQ(b.outcome, RuleOutcome::ok);
    EXPECT_EQ(b.grant.node, 0);
}

namespace {

Store redis_store() {
    Store store;
    store.can_lose_data = true;
    return store;
}

}  // namespace

TEST(LeaseRules, StoreThatCanLoseDataQuarantinesThenFloorsEveryGrant) {
    Store store = redis_store();
    const Server s;
    Answer a = acquire(&store, s.request());
    ASSERT_EQ(a.outcome, RuleOutcome::refused);
    ASSERT_TRUE(a.writes.guard) << "the quarantine starts with the refusal";
    EXPECT_TRUE(a.writes.leases.empty());
    EXPECT_FALSE(a.writes.layout);
    EXPECT_EQ(store.guard->created_at_ms, kNow);
    EXPECT_EQ(store.guard->quarantine_until_ms, kNow + kTtl + kDrift);
    EXPECT_EQ(store.guard->floor_ms, kNow + kTtl + 2 * kDrift);
    EXPECT_STREQ(a.err.message,
                 "the Redis registry holds no record of earlier leases: it hands out node ids "
                 "from 2026-09-21 14:14:21.000Z");
    EXPECT_STREQ(a.err.detail,
                 "The registry is new, or Redis lost its data (restarted without persistence, "
                 "flushed). Servers that held node ids before stop at their lease deadlines, "
                 "which have passed by then; the server asks again until then.");
    EXPECT_STREQ(a.err.hint,
                 "Run Redis with appendonly yes and appendfsync always. A Redis that never held "
                 "leases can be marked as such: HSET snowflake_id:meta quarantine_until_ms 0.");
    // Still quarantined a moment before its end, and the guard stays.
    a = acquire(&store, s.request(), kNow + kTtl + kDrift - 1);
    ASSERT_EQ(a.outcome, RuleOutcome::refused);
    EXPECT_FALSE(a.writes.guard);
    EXPECT_EQ(store.guard->quarantine_until_ms, kNow + kTtl + kDrift);
    // Then every grant starts above the floor: a never-leased id...
    a = acquire(&store, s.request(), kNow + kTtl + kDrift);
    ASSERT_EQ(a.outcome, RuleOutcome::ok) << a.err.message;
    EXPECT_EQ(a.grant.node, 0);
    EXPECT_EQ(a.grant.floor_unix_ms, kNow + kTtl + 2 * kDrift);
    EXPECT_EQ(store.leases.at(0).reserved_until_ms, kNow + kTtl + 2 * kDrift);
    ASSERT_TRUE(store.layout);
    EXPECT_TRUE(store.layout->has_timing);
    EXPECT_EQ(store.layout->lease_ttl_ms, kTtl);
    EXPECT_EQ(store.layout->max_clock_drift_ms, kDrift);
    EXPECT_EQ(store.never_leased_from, 1);
    // ...and one given back below it.
    Server o = other_server();
    ASSERT_TRUE(release(&store, 0, 1, s.instance, kNow, kNow + kTtl + kDrift + 1));
    a = acquire(&store, o.request(0), kNow + kTtl + kDrift + 2);
    ASSERT_EQ(a.outcome, RuleOutcome::ok);
    EXPECT_EQ(a.grant.floor_unix_ms, kNow + kTtl + 2 * kDrift);
    // A switch too: no id is usable below the floor.
    a = switch_node(&store, o, 0, 2, 0, kNow + kTtl + 2 * kDrift, kNow, kNow + kTtl + kDrift + 3);
    ASSERT_EQ(a.outcome, RuleOutcome::refused);
    a = switch_node(&store, o, 0, 2, 0, kNow + kTtl + 2 * kDrift + 1, kNow,
                    kNow + kTtl + kDrift + 3);
    ASSERT_EQ(a.outcome, RuleOutcome::ok);
    EXPECT_EQ(a.grant.node, 1);
    EXPECT_EQ(a.grant.floor_unix_ms, kNow + kTtl + 2 * kDrift);
    EXPECT_EQ(store.leases.at(1).reserved_until_ms, kNow + kTtl + 2 * kDrift);
    EXPECT_EQ(store.never_leased_from, 2);
}

TEST(LeaseRules, AQuarantineTheOperatorEndedKeepsItsFloor) {
    Store store = redis_store();
    store.guard = LossGuard{kNow, 0, 0};
    const Server s;
    const Answer a = acquire(&store, s.request());
    ASSERT_EQ(a.outcome, RuleOutcome::ok);
    EXPECT_EQ(a.grant.floor_unix_ms, 0);
}

TEST(LeaseRules, StoreThatCanLoseDataNeedsOneTtlAndDrift) {
    Store store = redis_store();
    store.guard = LossGuard{0, 0, 0};
    const Server s;
    ASSERT_EQ(acquire(&store, s.request()).outcome, RuleOutcome::ok);
    for (const auto &[ttl, drift] : {std::pair<int64_t, int64_t>{kTtl + 1, kDrift}, {kTtl, 0}}) {
        Server o = other_server();
        o.ttl = ttl;
        o.drift = drift;
        const Answer a = acquire(&store, o.request(), kNow + 1);
        ASSERT_EQ(a.outcome, RuleOutcome::refused);
        EXPECT_TRUE(a.writes.empty());
        EXPECT_STREQ(a.err.message,
                     "the lease_ttl or max_clock_drift of this server differs from the cluster's");
        EXPECT_EQ(std::string(a.err.detail),
                  "The Redis registry's cluster uses lease_ttl 60000 ms and max_clock_drift 1000 "
                  "ms (recorded by " +
                      s.text() + "); this server runs " + std::to_string(ttl) + " ms and " +
                      std::to_string(drift) +
                      " ms. A Redis registry that lost its data waits out one lease_ttl plus "
                      "max_clock_drift, so they must be the same on every server.");
        EXPECT_STREQ(a.err.hint,
                     "Give every server of the cluster the same snowflake_id.lease_ttl and "
                     "max_clock_drift.");
    }
    // A layout recorded there without them (not by a server) is refused too.
    store.layout->has_timing = false;
    const Answer a = acquire(&store, other_server().request(), kNow + 1);
    ASSERT_EQ(a.outcome, RuleOutcome::refused);
    EXPECT_NE(std::string(a.err.detail).find("uses lease_ttl (none) ms and max_clock_drift (none)"),
              std::string::npos);
}

TEST(LeaseRules, DroppedRecordsBelowNeverLeasedFromAreNotNeverLeased) {
    Store store = redis_store();
    store.guard = LossGuard{0, 0, 0};
    store.layout = LayoutRecord{1, 2, 12, kEpoch, 0, "x", true, kTtl, kDrift};
    // Ids 0-2 were leased and their records dropped; 3 is held.
    store.never_leased_from = 3;
    Server o = other_server();
    ASSERT_EQ(acquire(&store, o.request(3)).outcome, RuleOutcome::ok);
    EXPECT_EQ(store.never_leased_from, 4) << "the id it named was taken";
    // 4 is taken statically: never_leased_from does not move, 'auto' skips it.
    o.instance = 3;
    ASSERT_EQ(acquire(&store, o.request(5)).outcome, RuleOutcome::ok);
    EXPECT_EQ(store.never_leased_from, 4);
    const Server s;
    Answer a = acquire(&store, s.request(), kNow + 1);
    ASSERT_EQ(a.outcome, RuleOutcome::ok);
    EXPECT_EQ(a.grant.node, 4);
    EXPECT_EQ(store.never_leased_from, 5);
    a = acquire(&store, s.request(), kNow + 2);
    EXPECT_EQ(a.grant.node, 6) << "5 held; the same run asking again without its fence";
    EXPECT_EQ(store.never_leased_from, 5) << "moves only when the grant is the id it names";
}

TEST(LeaseRules, SwitchStartsTheQuarantineOfAStoreThatLostItsGuard) {
    Store store = redis_store();
    store.guard = LossGuard{0, 0, 0};
    const Server s;
    ASSERT_EQ(acquire(&store, s.request()).outcome, RuleOutcome::ok);
    store.guard.reset();
    const Answer a = switch_node(&store, s, 0, 1, 0, kNow, kNow, kNow + 1);
    ASSERT_EQ(a.outcome, RuleOutcome::refused);
    ASSERT_TRUE(a.writes.guard);
    EXPECT_EQ(a.writes.leases.size(), 0u) << "the lease held untouched";
    EXPECT_EQ(store.leases.at(0).released_at_ms, 0);
}
