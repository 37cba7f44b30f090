#include "core/generator.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <random>
#include <string>
#include <thread>
#include <vector>

using snowflake::Attempt;
using snowflake::AttemptStatus;
using snowflake::Clock;
using snowflake::Error;
using snowflake::ErrorCode;
using snowflake::GeneratorParams;
using snowflake::IdParts;
using snowflake::IssueResult;
using snowflake::IssueStatus;
using snowflake::Layout;
using snowflake::LayoutWidths;
using snowflake::Sleeper;
using snowflake::WaitBudget;

namespace {

constexpr int64_t kEpoch = 1577836800000;  // 2020-01-01T00:00:00Z

// A clock that only moves when the test or the fake sleeper moves it.
struct FakeTime {
    int64_t now = kEpoch + 1000000;
    int64_t slept = 0;
    int sleeps = 0;
    int interrupt_after = -1;   // sleeps before the sleeper reports an interrupt
    int64_t wake_early_us = 0;  // a latch set by someone else cuts each sleep to this
    int64_t now_us_part = 0;    // sub-millisecond time slept, not yet a whole ms
    // Where every reading is published, as the PostgreSQL glue's clock does.
    snowflake::ClockWatch *watch = nullptr;
};

int64_t fake_now(void *ctx) {
    auto *t = static_cast<FakeTime *>(ctx);
    if (t->watch != nullptr) {
        snowflake::publish_clock_reading(*t->watch, t->watch->highest_ms.load(), t->now);
    }
    return t->now;
}

// Moves the clock by the time slept; a sleep cut short by wake_early_us
// moves it less (whole ms elapse only every 1000 us of such naps).
bool fake_sleep(void *ctx, int64_t ms, int64_t, int64_t *slept_us) {
    auto *t = static_cast<FakeTime *>(ctx);
    int64_t us = ms * 1000;
    if (t->wake_early_us > 0 && t->wake_early_us < us) {
        us = t->wake_early_us;
    }
    t->now_us_part += us;
    t->now += t->now_us_part / 1000;
    t->slept += t->now_us_part / 1000;
    t->now_us_part %= 1000;
    *slept_us = us;
    ++t->sleeps;
    return t->interrupt_after < 0 || t->sleeps < t->interrupt_after;
}

GeneratorParams params(int worker_bits = 10, int seq_bits = 12, int64_t node = 7,
                       int64_t drift = 1000, int64_t wait = 100) {
    GeneratorParams p;
    Error err;
    EXPECT_TRUE(Layout::make(LayoutWidths{0, worker_bits, seq_bits}, kEpoch, &p.layout, &err));
    p.node = node;
    p.max_drift_ms = drift;
    p.max_wait_ms = wait;
    return p;
}

// A generator on the fake clock. Its readings are published to watch_,
// which issue() is told of unless watched_ is cleared.
class Gen {
  public:
    explicit Gen(GeneratorParams p) : p_(p) { time_.watch = &watch_; }
    IssueResult next() {
        WaitBudget budget;
        return snowflake::issue(floor_, p_, Clock{fake_now, &time_, watched_ ? &watch_ : nullptr},
                                Sleeper{fake_sleep, &time_}, &budget, &err_);
    }
    int64_t next_id() {
        IssueResult r = next();
        EXPECT_EQ(r.status, IssueStatus::issued) << err_.message;
        return r.id;
    }
    IdParts parts(int64_t id) const {
        IdParts p;
        Error err;
        EXPECT_TRUE(p_.layout.decode(id, &p, &err));
        return p;
    }
    int64_t now_ts() const { return time_.now - kEpoch; }

    // Issues single IDs until a call fails; returns how many it issued.
    int issue_until_failure(int limit = 100000) {
        for (int i = 0; i < limit; ++i) {
            if (next().status != IssueStatus::issued) {
                return i;
            }
        }
        ADD_FAILURE() << "no call failed in " << limit;
        return limit;
    }

    GeneratorParams p_;
    std::atomic<uint64_t> floor_{0};
    snowflake::ClockWatch watch_;
    bool watched_ = true;
    FakeTime time_;
    Error err_;
};

bool contains(const char *text, const char *part) {
    return std::string(text).find(part) != std::string::npos;
}

}  // namespace

TEST(Generator, NewMillisecondStartsAtSequenceZero) {
    Gen g(params());
    const int64_t a = g.next_id();
    EXPECT_EQ(g.parts(a).timestamp, g.now_ts());
    EXPECT_EQ(g.parts(a).worker_id, 7);
    EXPECT_EQ(g.parts(a).sequence, 0);
    EXPECT_EQ(g.parts(g.next_id()).sequence, 1);
    g.time_.now += 5;
    const int64_t c = g.next_id();
    EXPECT_EQ(g.parts(c).timestamp, g.now_ts());
    EXPECT_EQ(g.parts(c).sequence, 0);
}

TEST(Generator, SequenceExhaustionBorrowsTheNextMillisecond) {
    Gen g(params(10, 2));  // 4 IDs per ms
    int64_t prev = -1;
    for (int i = 0; i < 12; ++i) {
        const int64_t id = g.next_id();
        EXPECT_GT(id, prev);
        prev = id;
        EXPECT_EQ(g.parts(id).timestamp, g.now_ts() + i / 4) << i;
        EXPECT_EQ(g.parts(id).sequence, i % 4) << i;
    }
    EXPECT_EQ(g.time_.sleeps, 0) << "borrowing within the drift bound must not wait";
}

TEST(Generator, BurstBeyondDriftWaitsForTheClock) {
    Gen g(params(10, 0, 7, /*drift=*/2, /*wait=*/100));  // one ID per ms
    for (int i = 0; i < 3; ++i) {
        g.next_id();  // now, now+1, now+2: all within the drift
    }
    EXPECT_EQ(g.time_.sleeps, 0);
    const int64_t before = g.time_.now;
    const int64_t id = g.next_id();  // needs now+3: waits 1 ms
    EXPECT_EQ(g.time_.now, before + 1);
    EXPECT_EQ(g.parts(id).timestamp, g.now_ts() + 2);
}

TEST(Generator, ClockStepBackWithinDriftIsAbsorbed) {
    Gen g(params(10, 1, 7, /*drift=*/1000));
    const int64_t a = g.next_id();
    g.time_.now -= 500;  // NTP steps the clock back half a second
    std::vector<int64_t> ids{a};
    for (int i = 0; i < 20; ++i) {
        ids.push_back(g.next_id());
    }
    EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end()));
    EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end());
    EXPECT_EQ(g.time_.sleeps, 0);
    EXPECT_EQ(g.parts(ids.back()).timestamp, g.parts(a).timestamp + 10);
}

TEST(Generator, ClockStepBackBeyondDriftFailsAfterTheWaitBound) {
    Gen g(params(10, 1, 7, /*drift=*/10, /*wait=*/100));
    const int64_t a = g.next_id();
    g.next_id();  // sequence of this ms now used up
    g.time_.now -= 5000;
    const IssueResult r = g.next();
    EXPECT_EQ(r.status, IssueStatus::failed);
    EXPECT_EQ(g.err_.code, ErrorCode::clock_behind);
    EXPECT_NE(std::string(g.err_.message).find("5000 ms behind"), std::string::npos)
        << g.err_.message;
    EXPECT_NE(std::string(g.err_.detail).find("max_wait = 100 ms"), std::string::npos);
    EXPECT_EQ(g.time_.sleeps, 0) << "a wait longer than max_wait must fail at once";
    // Nothing was issued: the floor still sits right after the last ID.
    EXPECT_EQ(g.floor_.load(), static_cast<uint64_t>(a + 2));
}

// Demand alone: the clock never goes back, and callers ask for more than
// the layout's 4 IDs per ms. The generator borrows up to max_clock_drift
// ahead, then the call fails saying so, not blaming the clock, with or
// without a watch (demand never runs further ahead than the drift).
TEST(Generator, DemandBeyondCapacityFailsNamingTheCapacity) {
    for (const bool watched : {true, false}) {
        Gen g(params(10, 2, 7, /*drift=*/3, /*wait=*/0));
        g.watched_ = watched;
        // The clock's millisecond and the 3 the drift lends: 16 IDs.
        EXPECT_EQ(g.issue_until_failure(), 16);
        EXPECT_EQ(g.err_.code, ErrorCode::capacity_exceeded) << g.err_.message;
        EXPECT_FALSE(g.err_.truncated);
        EXPECT_STREQ(g.err_.message,
                     "demand for snowflake IDs exceeds the layout's capacity of 4 IDs per "
                     "millisecond");
        EXPECT_TRUE(contains(g.err_.detail, "runs 3 ms ahead of the wall clock")) << g.err_.detail;
        EXPECT_TRUE(contains(g.err_.detail, "(2 sequence bits); the clock did not go back"))
            << g.err_.detail;
        EXPECT_TRUE(contains(g.err_.detail, "1 ms more than snowflake_id.max_clock_drift = 3 ms"))
            << g.err_.detail;
        EXPECT_TRUE(contains(g.err_.detail, "waited 0 ms of snowflake_id.max_wait = 0 ms"))
            << g.err_.detail;
        for (const char *setting : {"snowflake_id.sequence_bits", "snowflake_id.max_wait",
                                    "snowflake_id.max_clock_drift"}) {
            EXPECT_TRUE(contains(g.err_.hint, setting)) << g.err_.hint;
        }
        EXPECT_FALSE(contains(g.err_.hint, "NTP")) << g.err_.hint;
    }
}

// The flaky switchover suite: two clients at the layout's drift limit, one
// of them off the CPU while it sleeps for the next millisecond. Each time it
// wakes, the other has taken every ID up to the limit again, until its
// max_wait is spent. The clock never went back: the ERROR must say that
// demand exceeded the capacity (it said "the wall clock is 1000 ms behind"
// with "Check the server's clock (NTP)").
TEST(Generator, ACallStarvedAtTheLimitBlamesDemandNotTheClock) {
    Gen g(params(10, 4, 7, /*drift=*/1000, /*wait=*/100));
    struct Other {
        Gen *gen;
        int64_t issued = 0;
        // The other client takes every ID the clock allows at this reading.
        void take_all() {
            for (;;) {
                const Attempt a = snowflake::try_issue(gen->floor_, gen->p_, fake_now(&gen->time_));
                if (a.status != AttemptStatus::issued) {
                    return;
                }
                ++issued;
            }
        }
    } other{&g};
    other.take_all();
    EXPECT_EQ(other.issued, 1001 * 16);
    // Off the CPU for 25 ms at each sleep, while the other runs.
    auto off_cpu = +[](void *ctx, int64_t, int64_t, int64_t *slept_us) {
        auto *o = static_cast<Other *>(ctx);
        o->gen->time_.now += 25;
        *slept_us = 25000;
        o->take_all();
        return true;
    };
    WaitBudget budget;
    const IssueResult r = snowflake::issue(g.floor_, g.p_, Clock{fake_now, &g.time_, &g.watch_},
                                           Sleeper{off_cpu, &other}, &budget, &g.err_);
    ASSERT_EQ(r.status, IssueStatus::failed);
    EXPECT_EQ(g.err_.code, ErrorCode::capacity_exceeded) << g.err_.message;
    EXPECT_TRUE(contains(g.err_.message, "capacity of 16 IDs per millisecond")) << g.err_.message;
    EXPECT_TRUE(contains(g.err_.detail, "runs 1000 ms ahead")) << g.err_.detail;
    EXPECT_TRUE(contains(g.err_.detail, "waited 100 ms of snowflake_id.max_wait = 100 ms"))
        << g.err_.detail;
    EXPECT_FALSE(contains(g.err_.hint, "NTP")) << g.err_.hint;
}

// A step back within the drift is absorbed, and uses part of it: demand
// then reaches the limit sooner. The lead is no more than demand alone can
// produce, so only the watch knows the clock went back: with it the ERROR
// blames the clock, and once the clock has caught up, demand again.
TEST(Generator, StepBackWithinTheDriftThenDemandBlamesTheClockUntilCaughtUp) {
    for (const bool watched : {true, false}) {
        Gen g(params(10, 2, 7, /*drift=*/3, /*wait=*/0));
        g.watched_ = watched;
        g.next_id();
        const int64_t before = g.time_.now;
        g.time_.now -= 2;
        // The 3 IDs left in the last millisecond, and 4 of the next: the
        // drift allows 3 ms ahead of the clock, 1 ms past the last ID.
        EXPECT_EQ(g.issue_until_failure(), 7);
        if (!watched) {
            EXPECT_EQ(g.err_.code, ErrorCode::capacity_exceeded) << g.err_.message;
            continue;
        }
        EXPECT_EQ(g.err_.code, ErrorCode::clock_behind) << g.err_.message;
        EXPECT_STREQ(g.err_.message, "the wall clock is 3 ms behind the last issued snowflake ID");
        EXPECT_TRUE(contains(g.err_.detail, "The wall clock went back: it reads 2 ms before"))
            << g.err_.detail;
        EXPECT_TRUE(contains(g.err_.hint, "Check the server's clock (NTP)")) << g.err_.hint;
        // Halfway back: still the clock.
        g.time_.now = before - 1;
        EXPECT_EQ(g.issue_until_failure(), 4);
        EXPECT_EQ(g.err_.code, ErrorCode::clock_behind) << g.err_.message;
        EXPECT_TRUE(contains(g.err_.detail, "it reads 1 ms before")) << g.err_.detail;
        // Caught up: what runs ahead now is demand.
        g.time_.now = before;
        EXPECT_EQ(g.issue_until_failure(), 4);
        EXPECT_EQ(g.err_.code, ErrorCode::capacity_exceeded) << g.err_.message;
    }
}

TEST(ClockWatch, ReportsEachStepBackOnce) {
    snowflake::ClockWatch watch;
    auto publish = [&watch](int64_t reading) {
        return snowflake::publish_clock_reading(watch, watch.highest_ms.load(), reading);
    };
    EXPECT_FALSE(publish(1000));
    EXPECT_FALSE(publish(1000));
    EXPECT_FALSE(publish(1005));
    EXPECT_EQ(watch.highest_ms.load(), 1005);
    EXPECT_TRUE(publish(990)) << "a step back";
    EXPECT_FALSE(publish(991)) << "the same step, seen again before the clock caught up";
    EXPECT_FALSE(publish(980)) << "further back before the clock caught up: not counted again";
    EXPECT_FALSE(publish(1005));
    EXPECT_FALSE(publish(1006));
    EXPECT_TRUE(publish(1000)) << "a new step back after catching up";
    // A reading made before another reader published a later one is not a
    // step: it compares with what was loaded before it was taken.
    EXPECT_FALSE(snowflake::publish_clock_reading(watch, 1000, 1003));
    EXPECT_EQ(watch.highest_ms.load(), 1006);
}

TEST(Generator, ShortStepBackBeyondDriftIsWaitedOut) {
    Gen g(params(10, 0, 7, /*drift=*/10, /*wait=*/100));
    const int64_t a = g.next_id();
    g.time_.now -= 60;  // behind by 60 ms: the next ID needs a + 1 ms, 50 ms past the drift
    const int64_t b = g.next_id();
    EXPECT_GT(b, a);
    EXPECT_EQ(g.time_.slept, 51);
    EXPECT_EQ(g.parts(b).timestamp, g.parts(a).timestamp + 1);
}

TEST(Generator, WaitBoundCountsEverySleepOfOneCall) {
    // Every sleep is interrupted; resuming with the same budget must not
    // restart max_wait.
    Gen g(params(10, 0, 7, /*drift=*/0, /*wait=*/5));
    g.next_id();
    g.time_.now -= 4;  // the next ID needs 5 ms of waiting: allowed
    g.time_.interrupt_after = 1;
    WaitBudget budget;
    Error err;
    FakeTime stalled = g.time_;
    // A clock that does not move while "sleeping" would make the call wait
    // forever without the budget.
    auto frozen_sleep = +[](void *ctx, int64_t ms, int64_t, int64_t *slept_us) {
        static_cast<FakeTime *>(ctx)->slept += ms;
        *slept_us = ms * 1000;
        return false;
    };
    int rounds = 0;
    IssueResult r;
    do {
        r = snowflake::issue(g.floor_, g.p_, Clock{fake_now, &stalled},
                             Sleeper{frozen_sleep, &stalled}, &budget, &err);
        ++rounds;
    } while (r.status == IssueStatus::interrupted && rounds < 100);
    EXPECT_EQ(r.status, IssueStatus::failed);
    EXPECT_EQ(err.code, ErrorCode::clock_behind);
    EXPECT_LE(budget.waited_us, 5000);
    EXPECT_LT(rounds, 100);
}

TEST(Generator, EarlyWakeupsCountOnlyTheTimeReallySlept) {
    // The clock is 60 ms behind with drift 10: the call needs 51 ms of
    // waiting, within max_wait = 100. Every sleep is cut to 0.3 ms by a latch
    // set elsewhere; charging the 51 ms asked for at each wake-up would
    // exhaust the budget after two naps and fail a call that can succeed.
    Gen g(params(10, 0, 7, /*drift=*/10, /*wait=*/100));
    const int64_t a = g.next_id();
    g.time_.now -= 60;
    g.time_.wake_early_us = 300;
    const IssueResult r = g.next();
    ASSERT_EQ(r.status, IssueStatus::issued) << g.err_.message;
    EXPECT_GT(r.id, a);
    EXPECT_GT(g.time_.sleeps, 100);
}

TEST(Generator, ClockBeforeTheEpochSaysSo) {
    Gen g(params(10, 12, 7, /*drift=*/10, /*wait=*/100));
    g.time_.now = kEpoch - 60000;
    EXPECT_EQ(g.next().status, IssueStatus::failed);
    EXPECT_EQ(g.err_.code, ErrorCode::clock_behind);
    EXPECT_NE(std::string(g.err_.message).find("60000 ms before snowflake_id.epoch"),
              std::string::npos)
        << g.err_.message;
}

TEST(Generator, InterruptedSleepReturnsWithoutIssuing) {
    Gen g(params(10, 0, 7, /*drift=*/0, /*wait=*/1000));
    const int64_t a = g.next_id();
    g.time_.now -= 100;
    g.time_.interrupt_after = 1;
    const IssueResult r = g.next();
    EXPECT_EQ(r.status, IssueStatus::interrupted);
    EXPECT_EQ(g.floor_.load(), static_cast<uint64_t>(a + 1));
}

TEST(Generator, TimestampExhaustionFailsAndNeverWraps) {
    // 63 - 31 - 31 - 0 = 1 timestamp bit: timestamps 0 and 1 only.
    GeneratorParams p;
    Error err;
    ASSERT_TRUE(Layout::make(LayoutWidths{31, 31, 0}, kEpoch, &p.layout, &err));
    ASSERT_TRUE(p.layout.make_node(0, 0, &p.node, &err));
    p.max_drift_ms = 1000;
    Gen g(p);
    g.time_.now = kEpoch;
    EXPECT_EQ(g.parts(g.next_id()).timestamp, 0);
    EXPECT_EQ(g.parts(g.next_id()).timestamp, 1);
    const IssueResult r = g.next();
    EXPECT_EQ(r.status, IssueStatus::failed);
    EXPECT_EQ(g.err_.code, ErrorCode::timestamp_exhausted);
    g.time_.now = kEpoch + 10;  // the clock past the end: still an error
    EXPECT_EQ(g.next().status, IssueStatus::failed);
    EXPECT_EQ(g.err_.code, ErrorCode::timestamp_exhausted);
}

TEST(Generator, ExhaustionAtTheVeryLastIdOfTheWord) {
    GeneratorParams p;
    Error err;
    ASSERT_TRUE(Layout::make(LayoutWidths{0, 31, 31}, kEpoch, &p.layout, &err));
    p.node = p.layout.max_worker_id();
    Gen g(p);
    g.time_.now = kEpoch + 1;
    const int64_t max_id = INT64_MAX;
    g.floor_.store(static_cast<uint64_t>(max_id));  // the next ID is the largest bigint
    EXPECT_EQ(g.next_id(), max_id);
    EXPECT_EQ(g.next().status, IssueStatus::failed);
    EXPECT_EQ(g.err_.code, ErrorCode::timestamp_exhausted);
}

TEST(Generator, NodeChangeNeverGoesBelowTheFloor) {
    Gen g(params(10, 12, /*node=*/9));
    const int64_t a = g.next_id();
    g.p_.node = 3;  // worker_id lowered on reload within the same millisecond
    const int64_t b = g.next_id();
    EXPECT_GT(b, a);
    EXPECT_EQ(g.parts(b).worker_id, 3);
    EXPECT_EQ(g.parts(b).timestamp, g.parts(a).timestamp + 1);
    g.p_.node = 5;  // raised: stays in the same millisecond
    const int64_t c = g.next_id();
    EXPECT_GT(c, b);
    EXPECT_EQ(g.parts(c).timestamp, g.parts(b).timestamp);
}

TEST(Generator, AttemptBeforeTheEpochMustWait) {
    GeneratorParams p = params();
    std::atomic<uint64_t> floor{0};
    const Attempt a = snowflake::try_issue(floor, p, kEpoch - 5000);
    EXPECT_EQ(a.status, AttemptStatus::must_wait);
    EXPECT_EQ(a.wait_ms, 5000 - p.max_drift_ms);
}

TEST(Generator, ThreadsGetUniqueIncreasingIds) {
    constexpr int kThreads = 8;
    constexpr int kPerThread = 50000;
    GeneratorParams p = params(10, 12, 7, /*drift=*/100000, /*wait=*/1000);
    std::atomic<uint64_t> floor{0};
    auto real_now = +[](void *) -> int64_t {
        using namespace std::chrono;
        return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
    };
    auto real_sleep = +[](void *, int64_t ms, int64_t, int64_t *slept_us) {
        const auto start = std::chrono::steady_clock::now();
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        *slept_us = std::chrono::duration_cast<std::chrono::microseconds>(
                        std::chrono::steady_clock::now() - start)
                        .count();
        return true;
    };
    std::vector<std::vector<int64_t>> got(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            got[t].reserve(kPerThread);
            for (int i = 0; i < kPerThread; ++i) {
                WaitBudget budget;
                Error err;
                const IssueResult r = snowflake::issue(floor, p, Clock{real_now, nullptr},
                                                       Sleeper{real_sleep, nullptr}, &budget, &err);
                if (r.status != IssueStatus::issued) {
                    ADD_FAILURE() << err.message;
                    return;
                }
                got[t].push_back(r.id);
            }
        });
    }
    for (auto &th : threads) {
        th.join();
    }
    std::vector<int64_t> all;
    for (const auto &ids : got) {
        ASSERT_EQ(ids.size(), static_cast<size_t>(kPerThread));
        for (size_t i = 1; i < ids.size(); ++i) {
            ASSERT_LT(ids[i - 1], ids[i]) << "per-thread order broken";
        }
        all.insert(all.end(), ids.begin(), ids.end());
    }
    std::sort(all.begin(), all.end());
    EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << "duplicate ID";
}

namespace {

GeneratorParams default_params() {
    GeneratorParams p;
    p.node = 5;
    return p;
}

}  // namespace

TEST(GeneratorReservation, IssuesBelowTheBoundOnly) {
    std::atomic<uint64_t> floor{0};
    snowflake::Reservation reservation;
    const GeneratorParams p = default_params();
    const int64_t now = kEpoch + 1000;
    const uint64_t first = static_cast<uint64_t>(p.layout.compose(1000, 5, 0));
    reservation.below = first + 2;  // room for exactly two IDs

    Attempt a = try_issue(floor, p, now, &reservation);
    ASSERT_EQ(a.status, AttemptStatus::issued);
    EXPECT_EQ(static_cast<uint64_t>(a.id), first);
    a = try_issue(floor, p, now, &reservation);
    ASSERT_EQ(a.status, AttemptStatus::issued);
    EXPECT_EQ(static_cast<uint64_t>(a.id), first + 1);

    // The third needs a reservation: reported, and the floor is untouched.
    a = try_issue(floor, p, now, &reservation);
    ASSERT_EQ(a.status, AttemptStatus::must_reserve);
    EXPECT_EQ(static_cast<uint64_t>(a.id), first + 2);
    EXPECT_EQ(floor.load(), first + 2);

    // Once the caller has reserved more, the same ID is issued.
    reservation.below = first + 100;
    a = try_issue(floor, p, now, &reservation);
    ASSERT_EQ(a.status, AttemptStatus::issued);
    EXPECT_EQ(static_cast<uint64_t>(a.id), first + 2);
}

TEST(GeneratorReservation, RenewFlagFromRenewAt) {
    std::atomic<uint64_t> floor{0};
    snowflake::Reservation reservation;
    const GeneratorParams p = default_params();
    const uint64_t first = static_cast<uint64_t>(p.layout.compose(1000, 5, 0));
    reservation.below = first + 10;
    reservation.renew_at = first + 1;
    Attempt a = try_issue(floor, p, kEpoch + 1000, &reservation);
    ASSERT_EQ(a.status, AttemptStatus::issued);
    EXPECT_FALSE(a.renew);
    a = try_issue(floor, p, kEpoch + 1000, &reservation);
    ASSERT_EQ(a.status, AttemptStatus::issued);
    EXPECT_TRUE(a.renew);
}

TEST(GeneratorReservation, IssueReturnsMustReserveWithoutWaiting) {
    std::atomic<uint64_t> floor{0};
    snowflake::Reservation reservation;
    reservation.below = 0;  // nothing reserved yet
    const GeneratorParams p = default_params();
    FakeTime t;
    WaitBudget budget;
    Error err;
    const IssueResult r = snowflake::issue(floor, p, Clock{fake_now, &t}, Sleeper{fake_sleep, &t},
                                           &budget, &err, &reservation);
    EXPECT_EQ(r.status, IssueStatus::must_reserve);
    EXPECT_EQ(r.id, p.layout.compose(t.now - kEpoch, 5, 0));
    EXPECT_EQ(t.sleeps, 0);
    EXPECT_EQ(floor.load(), 0u);
}

// next_single_id predicts, without issuing, the ID the next single call
// issues (snowflake_status compares it with the lease's bound): from floors
// in this node, past a used-up sequence (the floor carried into the next
// node field), below and above this node's field, and with the clock
// behind, at, and ahead of the floor.
TEST(Generator, NextSingleIdIsTheIdTheNextCallIssues) {
    std::mt19937_64 rng(20261123);
    for (const int seq_bits : {0, 2, 12}) {
        const GeneratorParams p = params(10, seq_bits, 7, 1000, 100);
        const uint64_t seq_max = (uint64_t{1} << seq_bits) - 1;
        for (int i = 0; i < 2000; ++i) {
            const uint64_t ts = 1000000 + rng() % 1000;
            const uint64_t node = rng() % 3 == 0 ? rng() % 1024 : 7;
            const uint64_t seq = rng() % 2 == 0 ? seq_max : rng() % (seq_max + 1);
            const uint64_t last = (ts << p.layout.timestamp_shift()) | (node << seq_bits) | seq;
            const uint64_t floor = last + 1;
            const int64_t now =
                kEpoch + static_cast<int64_t>(ts) + static_cast<int64_t>(rng() % 7) - 3;
            std::atomic<uint64_t> word{floor};
            const snowflake::Attempt a = snowflake::try_issue(word, p, now);
            ASSERT_EQ(a.status, snowflake::AttemptStatus::issued) << "floor " << floor;
            EXPECT_EQ(static_cast<uint64_t>(a.id), snowflake::next_single_id(p, floor, now))
                << "seq_bits " << seq_bits << ", floor " << floor << ", now " << now;
        }
    }
    // Nothing issued yet: the clock's millisecond, sequence 0.
    const GeneratorParams p = params();
    std::atomic<uint64_t> word{0};
    const int64_t now = kEpoch + 5000;
    EXPECT_EQ(snowflake::next_single_id(p, 0, now),
              static_cast<uint64_t>(snowflake::try_issue(word, p, now).id));
}

TEST(Generator, SleeperIsToldTheMillisecondTheNextIdNeeds) {
    // One ID per ms, drift 10, the clock set 60 ms behind the last ID (at
    // T): the next ID needs T + 1, which the clock may lag by 10 ms, so the
    // call waits for the clock to read T - 9, 51 ms on.
    Gen g(params(10, 0, 7, /*drift=*/10, /*wait=*/100));
    g.next_id();
    const int64_t t = g.time_.now;
    g.time_.now -= 60;
    struct Seen {
        FakeTime *time;
        int64_t now_at_call = 0;
        int64_t ms = 0;
        int64_t until = 0;
        int calls = 0;
    } seen{&g.time_};
    // Jumps the clock to exactly the millisecond it is told.
    auto to_until = +[](void *ctx, int64_t ms, int64_t until, int64_t *slept_us) {
        auto *s = static_cast<Seen *>(ctx);
        s->now_at_call = s->time->now;
        s->ms = ms;
        s->until = until;
        ++s->calls;
        s->time->now = until;
        *slept_us = ms * 1000;
        return true;
    };
    WaitBudget budget;
    const IssueResult r = snowflake::issue(g.floor_, g.p_, Clock{fake_now, &g.time_},
                                           Sleeper{to_until, &seen}, &budget, &g.err_);
    ASSERT_EQ(r.status, IssueStatus::issued) << g.err_.message;
    EXPECT_EQ(seen.calls, 1);
    EXPECT_EQ(seen.ms, 51);
    EXPECT_EQ(seen.until, t - 9);
    EXPECT_EQ(seen.until, seen.now_at_call + seen.ms);
    EXPECT_EQ(g.parts(r.id).timestamp, t + 1 - kEpoch);
}

namespace {

// next_wait_step: the clock reads `before_ns` ahead of the boundary.
snowflake::WaitStep step_before(int64_t before_ns, int64_t max_ms = 100) {
    const int64_t until = kEpoch + 123456;
    return snowflake::next_wait_step(until, until * 1000000 - before_ns, max_ms);
}

}  // namespace

TEST(WaitStep, NothingWhenTheClockIsThere) {
    for (const int64_t before : {int64_t{0}, int64_t{-1}, int64_t{-2500000}}) {
        const snowflake::WaitStep s = step_before(before);
        EXPECT_EQ(s.coarse_ms, 0) << before;
        EXPECT_EQ(s.fine_ns, 0) << before;
    }
}

TEST(WaitStep, TheLastMillisecondIsSleptPreciselyToTheBoundary) {
    for (const int64_t before : {int64_t{1}, int64_t{300000}, int64_t{999999}, int64_t{1000000}}) {
        const snowflake::WaitStep s = step_before(before);
        EXPECT_EQ(s.coarse_ms, 0) << before;
        EXPECT_EQ(s.fine_ns, before) << before;
    }
}

TEST(WaitStep, WholeMillisecondsBeforeTheLastGoToTheCoarseTimer) {
    // Whatever the fraction, the coarse part leaves more than 0 and at most
    // 1 ms, so an overrun of the coarse timer by less than what is left
    // still ends before the boundary.
    const struct {
        int64_t before_ns;
        int64_t coarse_ms;
    } cases[] = {{1000001, 1}, {2000000, 1}, {2500000, 2},
                 {3000000, 2}, {3000001, 3}, {51700000, 51}};
    for (const auto &c : cases) {
        const snowflake::WaitStep s = step_before(c.before_ns);
        EXPECT_EQ(s.coarse_ms, c.coarse_ms) << c.before_ns;
        EXPECT_EQ(s.fine_ns, 0) << c.before_ns;
    }
}

TEST(WaitStep, StepsEndAtTheBoundaryFromAnyStart) {
    // Coarse steps that sleep exactly what they ask, then one fine step:
    // the wait ends at the boundary itself, not a whole ms after the start.
    std::mt19937_64 rng(21);
    for (int i = 0; i < 2000; ++i) {
        const int64_t until = kEpoch + 5000;
        const int64_t start_ns = until * 1000000 - 1 - static_cast<int64_t>(rng() % 20000000);
        int64_t now_ns = start_ns;
        int steps = 0;
        for (;;) {
            const snowflake::WaitStep s = snowflake::next_wait_step(until, now_ns, 100);
            if (s.coarse_ms == 0 && s.fine_ns == 0) {
                break;
            }
            ASSERT_LT(++steps, 4) << "from " << start_ns;
            now_ns += s.coarse_ms > 0 ? s.coarse_ms * 1000000 : s.fine_ns;
        }
        EXPECT_EQ(now_ns, until * 1000000) << "from " << start_ns;
    }
}

TEST(WaitStep, NeverMoreThanMaxMs) {
    // The clock stepped back an hour after the wait was decided: the step
    // stays within what the call asked to sleep.
    const int64_t hour_ns = int64_t{3600000} * 1000000;
    snowflake::WaitStep s = step_before(hour_ns, /*max_ms=*/1);
    EXPECT_EQ(s.coarse_ms, 0);
    EXPECT_EQ(s.fine_ns, 1000000);
    s = step_before(hour_ns, /*max_ms=*/5);
    EXPECT_EQ(s.coarse_ms, 4);
    EXPECT_EQ(s.fine_ns, 0);
}
