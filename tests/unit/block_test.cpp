// Layout::compose_checked / next_in_node, and blocks of IDs from the
// generator (the count parameter of try_issue and issue).
#include "core/generator.hpp"
#include "core/layout.hpp"
#include "core/epoch.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <utility>
#include <vector>

using snowflake::Attempt;
using snowflake::AttemptStatus;
using snowflake::check_block;
using snowflake::Clock;
using snowflake::Error;
using snowflake::ErrorCode;
using snowflake::GeneratorParams;
using snowflake::IdParts;
using snowflake::IssueResult;
using snowflake::IssueStatus;
using snowflake::kMaxBlockIds;
using snowflake::kMaxUnixMs;
using snowflake::Layout;
using snowflake::LayoutWidths;
using snowflake::Reservation;
using snowflake::Sleeper;
using snowflake::try_issue;
using snowflake::WaitBudget;

namespace {

constexpr int64_t kEpoch = 1577836800000;  // 2020-01-01T00:00:00Z
constexpr int64_t kNow = kEpoch + 1000000;

Layout make(int dc, int worker, int seq, int64_t epoch = kEpoch) {
    Layout layout;
    Error err;
    EXPECT_TRUE(Layout::make(LayoutWidths{dc, worker, seq}, epoch, &layout, &err)) << err.message;
    return layout;
}

GeneratorParams params(int seq_bits = 12, int64_t drift = 1000, int64_t wait = 100,
                       int64_t worker = 7) {
    GeneratorParams p;
    p.layout = make(0, 10, seq_bits);
    Error err;
    EXPECT_TRUE(p.layout.make_node(0, worker, &p.node, &err)) << err.message;
    p.max_drift_ms = drift;
    p.max_wait_ms = wait;
    return p;
}

// A clock that only moves when the test or the fake sleeper moves it.
struct FakeTime {
    int64_t now = kNow;
    int64_t slept = 0;
    int sleeps = 0;
};

int64_t fake_now(void *ctx) {
    return static_cast<FakeTime *>(ctx)->now;
}

bool fake_sleep(void *ctx, int64_t ms, int64_t, int64_t *slept_us) {
    auto *t = static_cast<FakeTime *>(ctx);
    t->now += ms;
    t->slept += ms;
    ++t->sleeps;
    *slept_us = ms * 1000;
    return true;
}

IssueResult issue(std::atomic<uint64_t> &floor, const GeneratorParams &p, FakeTime *t, Error *err,
                  int64_t count = 1, const Reservation *reservation = nullptr) {
    WaitBudget budget;
    return snowflake::issue(floor, p, Clock{fake_now, t}, Sleeper{fake_sleep, t}, &budget, err,
                            reservation, count);
}

IdParts parts(const Layout &layout, int64_t id) {
    IdParts p;
    Error err;
    EXPECT_TRUE(layout.decode(id, &p, &err)) << err.message;
    return p;
}

// The `n`-th ID after `id` in its node (n = 0: id itself).
int64_t advance(const Layout &layout, int64_t id, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
        id = layout.next_in_node(id);
    }
    return id;
}

bool contains(const char *text, const std::string &part) {
    return std::string(text).find(part) != std::string::npos;
}

}  // namespace

// --- Layout::compose_checked ----------------------------------------------

TEST(ComposeChecked, IsTheInverseOfDecode) {
    for (const Layout &layout :
         {make(0, 10, 12), make(5, 5, 12), make(3, 7, 0), make(0, 0, 22), make(31, 31, 0)}) {
        const int64_t samples[][4] = {
            {0, 0, 0, 0},
            {layout.max_timestamp(), layout.max_datacenter_id(), layout.max_worker_id(),
             layout.max_sequence()},
            {1 & layout.max_timestamp(), 1 & layout.max_datacenter_id(), 5 & layout.max_worker_id(),
             77 & layout.max_sequence()},
            {layout.max_timestamp() / 3, layout.max_datacenter_id() / 2, layout.max_worker_id() / 3,
             layout.max_sequence() / 5},
        };
        for (const auto &s : samples) {
            int64_t id = -1;
            Error err;
            ASSERT_TRUE(
                layout.compose_checked(layout.epoch_unix_ms() + s[0], s[1], s[2], s[3], &id, &err))
                << err.message;
            ASSERT_GE(id, 0);
            const IdParts p = parts(layout, id);
            EXPECT_EQ(p.timestamp, s[0]);
            EXPECT_EQ(p.datacenter_id, s[1]);
            EXPECT_EQ(p.worker_id, s[2]);
            EXPECT_EQ(p.sequence, s[3]);
            // And decode's output composes back to the same ID.
            int64_t again = -1;
            ASSERT_TRUE(layout.compose_checked(layout.epoch_unix_ms() + p.timestamp,
                                               p.datacenter_id, p.worker_id, p.sequence, &again,
                                               &err));
            EXPECT_EQ(again, id);
        }
    }
}

TEST(ComposeChecked, Extremes) {
    const Layout layout = make(0, 10, 12);
    int64_t id = -1;
    Error err;
    ASSERT_TRUE(layout.compose_checked(kEpoch, 0, 0, 0, &id, &err));
    EXPECT_EQ(id, 0);
    ASSERT_TRUE(layout.compose_checked(layout.end_unix_ms(), 0, 1023, 4095, &id, &err));
    EXPECT_EQ(id, INT64_MAX);

    // A layout whose end is 9999-12-31, before its timestamp bits run out.
    const Layout wide = make(0, 0, 0, 0);
    EXPECT_EQ(wide.end_unix_ms(), kMaxUnixMs);
    ASSERT_TRUE(wide.compose_checked(kMaxUnixMs, 0, 0, 0, &id, &err));
    EXPECT_EQ(id, kMaxUnixMs);
    EXPECT_FALSE(wide.compose_checked(kMaxUnixMs + 1, 0, 0, 0, &id, &err));
    EXPECT_EQ(err.code, ErrorCode::time_out_of_range);
}

TEST(ComposeChecked, OutOfRangeArgumentsAreNamed) {
    const Layout layout = make(5, 10, 12);  // datacenter 0-31, worker 0-1023, sequence 0-4095
    const int64_t t = kEpoch + 1000;
    struct Case {
        int64_t dc, worker, seq;
        const char *message;
        const char *setting;
    };
    const Case cases[] = {
        {-1, 0, 0, "datacenter_id -1 is out of range", "datacenter_bits = 5"},
        {32, 0, 0, "datacenter_id 32 is out of range", "datacenter_bits = 5"},
        {INT64_MIN, 0, 0, "datacenter_id -9223372036854775808 is out of range", "datacenter_bits"},
        {0, -1, 0, "worker_id -1 is out of range", "worker_bits = 10"},
        {0, 1024, 0, "worker_id 1024 is out of range", "worker_bits = 10"},
        {0, INT64_MAX, 0, "worker_id 9223372036854775807 is out of range", "worker_bits"},
        {0, 0, -1, "sequence -1 is out of range", "sequence_bits = 12"},
        {0, 0, 4096, "sequence 4096 is out of range", "sequence_bits = 12"},
    };
    for (const Case &c : cases) {
        int64_t id = 12345;
        Error err;
        EXPECT_FALSE(layout.compose_checked(t, c.dc, c.worker, c.seq, &id, &err)) << c.message;
        EXPECT_EQ(err.code, ErrorCode::field_out_of_range) << c.message;
        EXPECT_TRUE(contains(err.message, c.message)) << err.message;
        EXPECT_TRUE(contains(err.detail, c.setting)) << err.detail;
        EXPECT_EQ(id, 12345) << "a failing call must not write the ID";
    }
    // The top of each range is fine.
    int64_t id = 0;
    Error err;
    EXPECT_TRUE(layout.compose_checked(t, 31, 1023, 4095, &id, &err)) << err.message;

    // A field of 0 bits takes only 0.
    const Layout no_dc = make(0, 10, 12);
    EXPECT_FALSE(no_dc.compose_checked(t, 1, 0, 0, &id, &err));
    EXPECT_EQ(err.code, ErrorCode::field_out_of_range);
    EXPECT_TRUE(contains(err.message, "datacenter_id 1 is out of range")) << err.message;
}

TEST(ComposeChecked, TimeOutsideTheLayout) {
    const Layout layout = make(0, 10, 12);
    for (const int64_t t :
         {kEpoch - 1, layout.end_unix_ms() + 1, int64_t{0}, INT64_MIN, INT64_MAX}) {
        int64_t id = 12345;
        Error err;
        EXPECT_FALSE(layout.compose_checked(t, 0, 0, 0, &id, &err)) << t;
        EXPECT_EQ(err.code, ErrorCode::time_out_of_range) << t;
        EXPECT_TRUE(contains(err.message, "outside the layout's range")) << err.message;
        EXPECT_EQ(id, 12345);
    }
    Error err;
    int64_t id = 0;
    EXPECT_FALSE(layout.compose_checked(kEpoch - 1, 0, 0, 0, &id, &err));
    EXPECT_TRUE(contains(err.message, "2019-12-31 23:59:59.999Z")) << err.message;
}

// --- Layout::next_in_node -------------------------------------------------

TEST(NextInNode, WithinAMillisecond) {
    const Layout layout = make(5, 5, 12);
    const int64_t node = (3 << 5) | 17;
    EXPECT_EQ(layout.next_in_node(layout.compose(1000, node, 0)), layout.compose(1000, node, 1));
    EXPECT_EQ(layout.next_in_node(layout.compose(1000, node, 4094)),
              layout.compose(1000, node, 4095));
}

TEST(NextInNode, CarriesToTheNextMillisecondInTheSameNode) {
    const Layout layout = make(5, 5, 12);
    const int64_t node = (3 << 5) | 17;
    const int64_t next = layout.next_in_node(layout.compose(1000, node, 4095));
    EXPECT_EQ(next, layout.compose(1001, node, 0));
    const IdParts p = parts(layout, next);
    EXPECT_EQ(p.timestamp, 1001);
    EXPECT_EQ(p.datacenter_id, 3);
    EXPECT_EQ(p.worker_id, 17);
    EXPECT_EQ(p.sequence, 0);
    // The largest node: a plain +1 would carry into the timestamp with node 0.
    const Layout full = make(5, 5, 12);
    const int64_t top = (int64_t{31} << 5) | 31;
    EXPECT_EQ(full.next_in_node(full.compose(7, top, 4095)), full.compose(8, top, 0));
}

TEST(NextInNode, WithoutSequenceBits) {
    const Layout layout = make(0, 10, 0);
    EXPECT_EQ(layout.max_sequence(), 0);
    EXPECT_EQ(layout.next_in_node(layout.compose(1000, 7, 0)), layout.compose(1001, 7, 0));
    EXPECT_EQ(layout.next_in_node(layout.compose(1000, 1023, 0)), layout.compose(1001, 1023, 0));
    EXPECT_EQ(layout.next_in_node(layout.compose(1000, 0, 0)), layout.compose(1001, 0, 0));
}

// --- try_issue with count -------------------------------------------------

TEST(Block, IsARunOfNextInNode) {
    const GeneratorParams p = params();
    std::atomic<uint64_t> floor{0};
    const Attempt a = try_issue(floor, p, kNow, nullptr, 10);
    ASSERT_EQ(a.status, AttemptStatus::issued);
    EXPECT_EQ(a.id, p.layout.compose(kNow - kEpoch, 7, 0));
    EXPECT_EQ(a.last_id, advance(p.layout, a.id, 9));
    EXPECT_EQ(a.last_id, p.layout.compose(kNow - kEpoch, 7, 9));
    EXPECT_EQ(a.timestamp, kNow - kEpoch);
    EXPECT_FALSE(a.sequence_ran_out);
    EXPECT_EQ(floor.load(), static_cast<uint64_t>(a.last_id) + 1);

    // The next block continues where this one ended.
    const Attempt b = try_issue(floor, p, kNow, nullptr, 5);
    ASSERT_EQ(b.status, AttemptStatus::issued);
    EXPECT_EQ(b.id, p.layout.next_in_node(a.last_id));
    EXPECT_EQ(b.last_id, advance(p.layout, b.id, 4));
}

TEST(Block, OfOneIsASingleId) {
    const GeneratorParams p = params();
    std::atomic<uint64_t> floor{0};
    const Attempt a = try_issue(floor, p, kNow, nullptr, 1);
    ASSERT_EQ(a.status, AttemptStatus::issued);
    EXPECT_EQ(a.last_id, a.id);
    const Attempt b = try_issue(floor, p, kNow);  // default count
    ASSERT_EQ(b.status, AttemptStatus::issued);
    EXPECT_EQ(b.id, a.id + 1);
    EXPECT_EQ(b.last_id, b.id);
}

TEST(Block, SpanningSeveralMillisecondsRunsOutOfSequence) {
    const GeneratorParams p = params(/*seq_bits=*/2);  // 4 IDs per ms
    std::atomic<uint64_t> floor{0};
    const int64_t ts = kNow - kEpoch;
    const Attempt a = try_issue(floor, p, kNow, nullptr, 10);
    ASSERT_EQ(a.status, AttemptStatus::issued);
    EXPECT_EQ(a.id, p.layout.compose(ts, 7, 0));
    EXPECT_EQ(a.last_id, p.layout.compose(ts + 2, 7, 1));
    EXPECT_EQ(a.last_id, advance(p.layout, a.id, 9));
    EXPECT_EQ(a.timestamp, ts + 2);
    EXPECT_TRUE(a.sequence_ran_out);
    EXPECT_EQ(floor.load(), static_cast<uint64_t>(a.last_id) + 1);

    // Every ID of the block is this node's; none belongs to another node.
    int64_t id = a.id;
    for (int i = 0; i < 10; ++i) {
        EXPECT_EQ(parts(p.layout, id).worker_id, 7) << i;
        id = p.layout.next_in_node(id);
    }
}

TEST(Block, StartingMidMillisecondCarries) {
    const GeneratorParams p = params(/*seq_bits=*/2);
    std::atomic<uint64_t> floor{0};
    const int64_t ts = kNow - kEpoch;
    ASSERT_EQ(try_issue(floor, p, kNow).status, AttemptStatus::issued);  // sequence 0
    const Attempt a = try_issue(floor, p, kNow, nullptr, 3);             // 1, 2, 3
    ASSERT_EQ(a.status, AttemptStatus::issued);
    EXPECT_EQ(a.id, p.layout.compose(ts, 7, 1));
    EXPECT_EQ(a.last_id, p.layout.compose(ts, 7, 3));
    EXPECT_FALSE(a.sequence_ran_out) << "the block stays within the wall clock's millisecond";
    const Attempt b = try_issue(floor, p, kNow, nullptr, 2);  // (ts+1, 0), (ts+1, 1)
    ASSERT_EQ(b.status, AttemptStatus::issued);
    EXPECT_EQ(b.id, p.layout.compose(ts + 1, 7, 0));
    EXPECT_EQ(b.last_id, p.layout.compose(ts + 1, 7, 1));
    EXPECT_TRUE(b.sequence_ran_out);
}

TEST(Block, WithinTheLastIssuedMillisecondAfterAStepBackDoesNotRunOut) {
    const GeneratorParams p = params(/*seq_bits=*/4);  // 16 IDs per ms
    std::atomic<uint64_t> floor{0};
    ASSERT_EQ(try_issue(floor, p, kNow).status, AttemptStatus::issued);
    // The clock steps back 100 ms: the block stays on the last timestamp,
    // which was taken from the clock, not borrowed.
    const Attempt a = try_issue(floor, p, kNow - 100, nullptr, 5);
    ASSERT_EQ(a.status, AttemptStatus::issued);
    EXPECT_EQ(parts(p.layout, a.last_id).timestamp, kNow - kEpoch);
    EXPECT_FALSE(a.sequence_ran_out);
    // One that carries past it runs out of that millisecond's sequence.
    const Attempt b = try_issue(floor, p, kNow - 100, nullptr, 12);
    ASSERT_EQ(b.status, AttemptStatus::issued);
    EXPECT_EQ(parts(p.layout, b.last_id).timestamp, kNow - kEpoch + 1);
    EXPECT_TRUE(b.sequence_ran_out);
}

TEST(Block, OneCompareAndSwapTakesTheWholeBlock) {
    const GeneratorParams p = params(/*seq_bits=*/2);
    std::atomic<uint64_t> floor{0};
    const Attempt block = try_issue(floor, p, kNow, nullptr, 9);
    ASSERT_EQ(block.status, AttemptStatus::issued);
    // Another caller, same node, same clock: its next ID is past the block.
    const Attempt other = try_issue(floor, p, kNow);
    ASSERT_EQ(other.status, AttemptStatus::issued);
    EXPECT_GT(other.id, block.last_id);
    EXPECT_EQ(other.id, p.layout.next_in_node(block.last_id));
    // A caller with another node sharing the word: also past the block.
    GeneratorParams q = p;
    q.node = 3;
    const Attempt low = try_issue(floor, q, kNow);
    ASSERT_EQ(low.status, AttemptStatus::issued);
    EXPECT_GT(low.id, other.id);
}

TEST(Block, ConcurrentBlocksNeverInterleave) {
    // Fixed clock, generous drift: nothing waits; every thread takes blocks
    // of different sizes from one word. Each block must be a run of its own
    // and together they must be one unbroken run of next_in_node.
    constexpr int kThreads = 8;
    constexpr int kPerThread = 2000;
    const GeneratorParams p = params(/*seq_bits=*/3, /*drift=*/1000000);
    std::atomic<uint64_t> floor{0};
    std::vector<std::vector<std::pair<int64_t, int64_t>>> got(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < kPerThread; ++i) {
                const int64_t n = 1 + (i + t) % 13;
                const Attempt a = try_issue(floor, p, kNow, nullptr, n);
                if (a.status != AttemptStatus::issued) {
                    ADD_FAILURE() << "status " << static_cast<int>(a.status);
                    return;
                }
                if (a.last_id != advance(p.layout, a.id, n - 1)) {
                    ADD_FAILURE() << "block of " << n << " is not a run";
                }
                got[t].emplace_back(a.id, a.last_id);
            }
        });
    }
    for (auto &th : threads) {
        th.join();
    }
    std::vector<std::pair<int64_t, int64_t>> all;
    for (const auto &blocks : got) {
        all.insert(all.end(), blocks.begin(), blocks.end());
    }
    ASSERT_EQ(all.size(), static_cast<size_t>(kThreads * kPerThread));
    std::sort(all.begin(), all.end());
    EXPECT_EQ(all.front().first, p.layout.compose(kNow - kEpoch, 7, 0));
    for (size_t i = 1; i < all.size(); ++i) {
        ASSERT_EQ(all[i].first, p.layout.next_in_node(all[i - 1].second))
            << "blocks " << i - 1 << " and " << i << " overlap or leave a gap";
    }
}

TEST(Block, LargerThanTheDriftAllowsMustWait) {
    // One ID per ms, drift 10: from a fresh start 11 IDs fit.
    const GeneratorParams p = params(/*seq_bits=*/0, /*drift=*/10);
    std::atomic<uint64_t> floor{0};
    const int64_t ts = kNow - kEpoch;
    ASSERT_EQ(try_issue(floor, p, kNow, nullptr, 5).status, AttemptStatus::issued);  // ts..ts+4
    const uint64_t before = floor.load();
    // Ten more would end at ts+14, 4 ms past the drift.
    const Attempt a = try_issue(floor, p, kNow, nullptr, 10);
    ASSERT_EQ(a.status, AttemptStatus::must_wait);
    EXPECT_EQ(a.wait_ms, 4);
    EXPECT_EQ(a.timestamp, ts + 14);
    EXPECT_EQ(a.behind_ms, 4);
    EXPECT_EQ(floor.load(), before) << "nothing may be taken";
    // A single ID still fits.
    EXPECT_EQ(try_issue(floor, p, kNow, nullptr, 6).status, AttemptStatus::issued);  // ..ts+10
    EXPECT_EQ(try_issue(floor, p, kNow, nullptr, 1).status, AttemptStatus::must_wait);
    // Once the clock has moved on by the wait, the block is issued.
    const Attempt b = try_issue(floor, p, kNow + 10, nullptr, 10);
    ASSERT_EQ(b.status, AttemptStatus::issued);
    EXPECT_EQ(parts(p.layout, b.id).timestamp, ts + 11);
    EXPECT_EQ(parts(p.layout, b.last_id).timestamp, ts + 20);
}

TEST(Block, IssueFailsWhenMaxWaitIsTooShort) {
    const GeneratorParams p = params(/*seq_bits=*/0, /*drift=*/10, /*wait=*/3);
    std::atomic<uint64_t> floor{0};
    FakeTime t;
    Error err;
    ASSERT_EQ(issue(floor, p, &t, &err, 5).status, IssueStatus::issued);
    const uint64_t before = floor.load();
    const IssueResult r = issue(floor, p, &t, &err, 10);  // needs 4 ms of waiting
    EXPECT_EQ(r.status, IssueStatus::failed);
    // The clock never went back: the first block ran the generator ahead.
    EXPECT_EQ(err.code, ErrorCode::capacity_exceeded) << err.message;
    EXPECT_TRUE(contains(err.message, "capacity of 1 ID per millisecond")) << err.message;
    EXPECT_TRUE(contains(err.detail, "block's last ID")) << err.detail;
    EXPECT_TRUE(contains(err.detail, "max_wait = 3 ms")) << err.detail;
    EXPECT_TRUE(contains(err.hint, "Take smaller blocks")) << err.hint;
    EXPECT_FALSE(contains(err.hint, "NTP")) << err.hint;
    EXPECT_EQ(t.sleeps, 0) << "a wait beyond max_wait fails at once";
    EXPECT_FALSE(r.waited);
    EXPECT_EQ(floor.load(), before);
}

TEST(Block, ClockSetBackBeyondTheDriftBlamesTheClock) {
    const GeneratorParams p = params(/*seq_bits=*/0, /*drift=*/10, /*wait=*/3);
    std::atomic<uint64_t> floor{0};
    FakeTime t;
    Error err;
    ASSERT_EQ(issue(floor, p, &t, &err, 5).status, IssueStatus::issued);
    t.now -= 50;  // the last ID is 54 ms ahead: more than demand can borrow
    const IssueResult r = issue(floor, p, &t, &err, 2);
    EXPECT_EQ(r.status, IssueStatus::failed);
    EXPECT_EQ(err.code, ErrorCode::clock_behind) << err.message;
    EXPECT_TRUE(contains(err.message, "a block of 2 IDs would end more than")) << err.message;
    EXPECT_TRUE(contains(err.hint, "Check the server's clock (NTP)")) << err.hint;
    EXPECT_TRUE(contains(err.hint, "a smaller block needs less room")) << err.hint;
}

TEST(Block, IssueWaitsForTheClockThenSucceeds) {
    const GeneratorParams p = params(/*seq_bits=*/0, /*drift=*/10, /*wait=*/100);
    std::atomic<uint64_t> floor{0};
    FakeTime t;
    Error err;
    const int64_t ts = t.now - kEpoch;
    const IssueResult first = issue(floor, p, &t, &err, 5);
    ASSERT_EQ(first.status, IssueStatus::issued);
    EXPECT_FALSE(first.waited);
    const IssueResult r = issue(floor, p, &t, &err, 10);
    ASSERT_EQ(r.status, IssueStatus::issued) << err.message;
    EXPECT_TRUE(r.waited);
    EXPECT_EQ(t.slept, 4);
    EXPECT_EQ(r.id, p.layout.next_in_node(first.last_id));
    EXPECT_EQ(r.last_id, advance(p.layout, r.id, 9));
    EXPECT_EQ(parts(p.layout, r.last_id).timestamp, ts + 14);
    EXPECT_EQ(parts(p.layout, r.last_id).timestamp, t.now - kEpoch + p.max_drift_ms);
    EXPECT_TRUE(r.sequence_ran_out);
}

TEST(Block, IssueReportsFirstAndLastIds) {
    const GeneratorParams p = params(/*seq_bits=*/2);
    std::atomic<uint64_t> floor{0};
    FakeTime t;
    Error err;
    const IssueResult r = issue(floor, p, &t, &err, 6);
    ASSERT_EQ(r.status, IssueStatus::issued);
    EXPECT_EQ(r.id, p.layout.compose(t.now - kEpoch, 7, 0));
    EXPECT_EQ(r.last_id, p.layout.compose(t.now - kEpoch + 1, 7, 1));
    EXPECT_TRUE(r.sequence_ran_out);
    EXPECT_FALSE(r.waited);
    const IssueResult s = issue(floor, p, &t, &err);
    ASSERT_EQ(s.status, IssueStatus::issued);
    EXPECT_EQ(s.last_id, s.id);
    EXPECT_EQ(s.id, p.layout.next_in_node(r.last_id));
}

TEST(Block, MustReserveNamesTheLastId) {
    const GeneratorParams p = params();
    std::atomic<uint64_t> floor{0};
    Reservation reservation;
    const uint64_t first = static_cast<uint64_t>(p.layout.compose(kNow - kEpoch, 7, 0));
    reservation.below = first + 10;  // room for IDs first .. first + 9
    const Attempt a = try_issue(floor, p, kNow, &reservation, 11);
    ASSERT_EQ(a.status, AttemptStatus::must_reserve);
    EXPECT_EQ(static_cast<uint64_t>(a.id), first + 10);
    EXPECT_EQ(floor.load(), 0u);
    // Exactly up to the bound: issued.
    const Attempt b = try_issue(floor, p, kNow, &reservation, 10);
    ASSERT_EQ(b.status, AttemptStatus::issued);
    EXPECT_EQ(static_cast<uint64_t>(b.last_id), first + 9);

    // Through issue(): must_reserve, no waiting, r.id is the last ID.
    FakeTime t;
    Error err;
    std::atomic<uint64_t> floor2{0};
    const IssueResult r = issue(floor2, p, &t, &err, 11, &reservation);
    EXPECT_EQ(r.status, IssueStatus::must_reserve);
    EXPECT_EQ(static_cast<uint64_t>(r.id), first + 10);
    EXPECT_EQ(t.sleeps, 0);
    EXPECT_EQ(floor2.load(), 0u);
}

TEST(Block, MustReserveAcrossMilliseconds) {
    const GeneratorParams p = params(/*seq_bits=*/2);
    std::atomic<uint64_t> floor{0};
    Reservation reservation;
    const int64_t ts = kNow - kEpoch;
    // Reserved up to the end of the next millisecond's sequence 1.
    reservation.below = static_cast<uint64_t>(p.layout.compose(ts + 1, 7, 2));
    const Attempt a = try_issue(floor, p, kNow, &reservation, 7);  // ends at (ts+1, 2)
    ASSERT_EQ(a.status, AttemptStatus::must_reserve);
    EXPECT_EQ(a.id, p.layout.compose(ts + 1, 7, 2));
    const Attempt b = try_issue(floor, p, kNow, &reservation, 6);  // ends at (ts+1, 1)
    ASSERT_EQ(b.status, AttemptStatus::issued);
    EXPECT_EQ(b.last_id, p.layout.compose(ts + 1, 7, 1));
}

TEST(Block, RenewWhenTheLastIdCrossesRenewAt) {
    const GeneratorParams p = params();
    Reservation reservation;
    const uint64_t first = static_cast<uint64_t>(p.layout.compose(kNow - kEpoch, 7, 0));
    reservation.renew_at = first + 5;
    {
        std::atomic<uint64_t> floor{0};
        const Attempt a = try_issue(floor, p, kNow, &reservation, 5);  // first .. first + 4
        ASSERT_EQ(a.status, AttemptStatus::issued);
        EXPECT_FALSE(a.renew);
    }
    {
        std::atomic<uint64_t> floor{0};
        const Attempt a = try_issue(floor, p, kNow, &reservation, 6);  // first .. first + 5
        ASSERT_EQ(a.status, AttemptStatus::issued);
        EXPECT_LT(static_cast<uint64_t>(a.id), first + 5);
        EXPECT_TRUE(a.renew) << "the block's first ID is below renew_at, its last is not";
    }
    {
        std::atomic<uint64_t> floor{0};
        FakeTime t;
        Error err;
        const IssueResult r = issue(floor, p, &t, &err, 6, &reservation);
        ASSERT_EQ(r.status, IssueStatus::issued);
        EXPECT_TRUE(r.renew);
    }
}

TEST(Block, ExhaustedWhenTheLastTimestampPassesTheEnd) {
    // 63 - 30 - 31 - 1 = 1 timestamp bit, 2 IDs per ms: 4 IDs in all.
    GeneratorParams p;
    Error err;
    ASSERT_TRUE(Layout::make(LayoutWidths{30, 31, 1}, kEpoch, &p.layout, &err));
    ASSERT_EQ(p.layout.max_timestamp(), 1);
    ASSERT_TRUE(p.layout.make_node(0, 0, &p.node, &err));
    {
        std::atomic<uint64_t> floor{0};
        const Attempt a = try_issue(floor, p, kEpoch, nullptr, 5);
        EXPECT_EQ(a.status, AttemptStatus::exhausted);
        EXPECT_EQ(a.timestamp, 2);
        EXPECT_EQ(floor.load(), 0u);
        const Attempt b = try_issue(floor, p, kEpoch, nullptr, 4);
        ASSERT_EQ(b.status, AttemptStatus::issued);
        EXPECT_EQ(parts(p.layout, b.last_id).timestamp, 1);
        EXPECT_EQ(parts(p.layout, b.last_id).sequence, 1);
        EXPECT_EQ(try_issue(floor, p, kEpoch, nullptr, 1).status, AttemptStatus::exhausted);
    }
    {
        std::atomic<uint64_t> floor{0};
        FakeTime t;
        t.now = kEpoch + 1;  // one ms left: 2 IDs
        const IssueResult r = issue(floor, p, &t, &err, 3);
        EXPECT_EQ(r.status, IssueStatus::failed);
        EXPECT_EQ(err.code, ErrorCode::timestamp_exhausted);
        EXPECT_EQ(floor.load(), 0u);
        EXPECT_EQ(issue(floor, p, &t, &err, 2).status, IssueStatus::issued);
    }
}

// --- check_block ----------------------------------------------------------

TEST(CheckBlock, RangeOfCounts) {
    // max_wait 1000 ms: neither the drift nor the wait binds below the cap.
    const GeneratorParams p = params(/*seq_bits=*/12, /*drift=*/1000, /*wait=*/1000);
    for (const int64_t n : {int64_t{0}, int64_t{-1}, kMaxBlockIds + 1, INT64_MIN, INT64_MAX}) {
        Error err;
        EXPECT_FALSE(check_block(p, n, &err)) << n;
        EXPECT_EQ(err.code, ErrorCode::block_too_large) << n;
        EXPECT_TRUE(contains(err.message, std::to_string(n))) << err.message;
    }
    Error err;
    EXPECT_TRUE(check_block(p, 1, &err));
    EXPECT_TRUE(check_block(p, kMaxBlockIds, &err)) << err.message;
}

TEST(CheckBlock, BoundedByTheDrift) {
    const GeneratorParams p = params(/*seq_bits=*/0, /*drift=*/10);
    Error err;
    EXPECT_TRUE(check_block(p, 11, &err)) << err.message;
    EXPECT_FALSE(check_block(p, 12, &err));
    EXPECT_EQ(err.code, ErrorCode::block_too_large);
    EXPECT_TRUE(contains(err.message, "a block of 12 IDs")) << err.message;
    EXPECT_TRUE(contains(err.hint, "at most 11 IDs")) << err.hint;

    // What check_block accepts, a fresh generator issues without waiting.
    std::atomic<uint64_t> floor{0};
    EXPECT_EQ(try_issue(floor, p, kNow, nullptr, 11).status, AttemptStatus::issued);

    // With 12 sequence bits and drift 0: one millisecond, 4096 IDs.
    const GeneratorParams q = params(/*seq_bits=*/12, /*drift=*/0);
    EXPECT_TRUE(check_block(q, 4096, &err));
    EXPECT_FALSE(check_block(q, 4097, &err));
    EXPECT_EQ(err.code, ErrorCode::block_too_large);
}

TEST(CheckBlock, BoundedByTheWait) {
    // The defaults: 12 sequence bits, drift 1000 ms, max_wait 100 ms. A
    // block spanning more than 100 ms could not be issued while the
    // generator runs at its drift limit.
    const GeneratorParams p = params(/*seq_bits=*/12, /*drift=*/1000, /*wait=*/100);
    Error err;
    EXPECT_TRUE(check_block(p, 409600, &err)) << err.message;
    EXPECT_FALSE(check_block(p, 409601, &err));
    EXPECT_EQ(err.code, ErrorCode::block_too_large);
    EXPECT_TRUE(contains(err.message, "snowflake_id.max_wait")) << err.message;
    EXPECT_TRUE(contains(err.hint, "at most 409600 IDs")) << err.hint;

    // The largest accepted block is issued even with the generator at its
    // drift limit (as after a start without a state file): it waits within
    // max_wait.
    const int64_t ahead = kNow - kEpoch + p.max_drift_ms;
    std::atomic<uint64_t> floor{static_cast<uint64_t>(ahead) << p.layout.timestamp_shift()};
    FakeTime t;
    const IssueResult r = issue(floor, p, &t, &err, 409600);
    ASSERT_EQ(r.status, IssueStatus::issued) << err.message << " / " << err.detail;
    EXPECT_TRUE(r.waited);
    EXPECT_LE(t.slept, p.max_wait_ms);
}

// --- IssueResult::waited --------------------------------------------------

TEST(IssueWaited, FalseWhenImmediateTrueAfterASleep) {
    const GeneratorParams p = params(/*seq_bits=*/0, /*drift=*/0, /*wait=*/100);
    std::atomic<uint64_t> floor{0};
    FakeTime t;
    Error err;
    const IssueResult a = issue(floor, p, &t, &err);
    ASSERT_EQ(a.status, IssueStatus::issued);
    EXPECT_FALSE(a.waited);
    EXPECT_EQ(t.sleeps, 0);
    // One ID per ms and no drift: the next one waits for the clock.
    const IssueResult b = issue(floor, p, &t, &err);
    ASSERT_EQ(b.status, IssueStatus::issued);
    EXPECT_TRUE(b.waited);
    EXPECT_EQ(t.sleeps, 1);
    EXPECT_GT(b.id, a.id);
    // After the clock moved on, immediate again.
    t.now += 5;
    const IssueResult c = issue(floor, p, &t, &err);
    ASSERT_EQ(c.status, IssueStatus::issued);
    EXPECT_FALSE(c.waited);
}

// --- sequence_ran_out (snowflake_status.sequence_exhausted) -----------------

TEST(SequenceRanOut, CountsARunOutResolvedByWaiting) {
    // No drift: the ID after a full millisecond must wait for the clock,
    // and the issued attempt (at the new millisecond, sequence 0) looks
    // ordinary; the run-out is remembered from the attempt that waited.
    const GeneratorParams p = params(/*seq_bits=*/2, /*drift=*/0);
    std::atomic<uint64_t> floor{0};
    FakeTime t;
    Error err;
    ASSERT_EQ(issue(floor, p, &t, &err, 4).status, IssueStatus::issued);
    const Attempt waiting = try_issue(floor, p, t.now);
    ASSERT_EQ(waiting.status, AttemptStatus::must_wait);
    EXPECT_TRUE(waiting.sequence_ran_out);
    const IssueResult r = issue(floor, p, &t, &err);
    ASSERT_EQ(r.status, IssueStatus::issued) << err.message;
    EXPECT_TRUE(r.waited);
    EXPECT_EQ(parts(p.layout, r.id).sequence, 0);
    EXPECT_TRUE(r.sequence_ran_out);
}

TEST(SequenceRanOut, NotAtAStartAboveTheClock) {
    // A start at a reservation bound puts the floor ahead of the clock at
    // sequence 0 of some millisecond: nothing ran out.
    const GeneratorParams p = params();
    const int64_t ahead = kNow - kEpoch + 500;
    std::atomic<uint64_t> floor{static_cast<uint64_t>(ahead) << p.layout.timestamp_shift()};
    const Attempt a = try_issue(floor, p, kNow);
    ASSERT_EQ(a.status, AttemptStatus::issued);
    EXPECT_EQ(parts(p.layout, a.id).timestamp, ahead);
    EXPECT_FALSE(a.sequence_ran_out);
}

TEST(SequenceRanOut, NotWhenTheClockHasMovedOn) {
    // The last millisecond's sequence is used up, but the clock is past it:
    // the next ID takes the clock's millisecond, as it would anyway.
    const GeneratorParams p = params(/*seq_bits=*/2);
    std::atomic<uint64_t> floor{0};
    ASSERT_EQ(try_issue(floor, p, kNow, nullptr, 4).status, AttemptStatus::issued);
    const Attempt a = try_issue(floor, p, kNow + 1);
    ASSERT_EQ(a.status, AttemptStatus::issued);
    EXPECT_FALSE(a.sequence_ran_out);
}
