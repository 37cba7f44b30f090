#include "core/takeover_gate.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

using snowflake::Clock;
using snowflake::GateResult;
using snowflake::GateStatus;
using snowflake::Sleeper;
using snowflake::TakeoverGate;
using snowflake::WaitBudget;

namespace {

// A clock that moves only by what the sleeper sleeps.
struct FakeTime {
    int64_t now = 1000000;
    int sleeps = 0;
    int interrupt_at = -1;  // the sleep (counted from 0) that reports an interrupt
    int64_t until_asked = 0;
};

int64_t fake_now(void *ctx) {
    return static_cast<FakeTime *>(ctx)->now;
}

bool fake_sleep(void *ctx, int64_t ms, int64_t until_unix_ms, int64_t *slept_us) {
    auto *t = static_cast<FakeTime *>(ctx);
    t->until_asked = until_unix_ms;
    if (t->sleeps++ == t->interrupt_at) {
        *slept_us = 0;
        return false;
    }
    t->now += ms;
    *slept_us = ms * 1000;
    return true;
}

GateResult wait(TakeoverGate &gate, FakeTime &t, int64_t max_wait_ms, WaitBudget *budget) {
    return snowflake::wait_at_gate(gate, Clock{fake_now, &t}, Sleeper{fake_sleep, &t}, max_wait_ms,
                                   budget);
}

}  // namespace

TEST(TakeoverGate, OpenUntilAGrantClosesIt) {
    TakeoverGate gate;
    FakeTime t;
    WaitBudget budget;
    EXPECT_EQ(wait(gate, t, 100, &budget).status, GateStatus::open);
    EXPECT_EQ(t.sleeps, 0);
    EXPECT_EQ(gate.closed_until(t.now), 0);
}

// The lease's floor 15 s ahead: no ID until the clock reaches it, and the
// call fails at once instead of sleeping a max_wait that cannot be enough.
TEST(TakeoverGate, FarAheadFailsAtOnceNamingWhenIdsResume) {
    TakeoverGate gate;
    FakeTime t;
    gate.close_until(t.now + 15000);
    WaitBudget budget;
    const GateResult r = wait(gate, t, 100, &budget);
    EXPECT_EQ(r.status, GateStatus::closed);
    EXPECT_EQ(r.resume_unix_ms, 1000000 + 15000);
    EXPECT_EQ(r.behind_ms, 15000);
    EXPECT_EQ(t.sleeps, 0);
    EXPECT_EQ(gate.peek(), 1000000 + 15000);  // still closed for the next caller
}

TEST(TakeoverGate, WithinMaxWaitTheCallWaitsForTheClockThenIssues) {
    TakeoverGate gate;
    FakeTime t;
    gate.close_until(t.now + 60);
    WaitBudget budget;
    const GateResult r = wait(gate, t, 100, &budget);
    EXPECT_EQ(r.status, GateStatus::open);
    EXPECT_EQ(t.now, 1000000 + 60);  // not a millisecond before the floor
    EXPECT_EQ(t.until_asked, 1000000 + 60);
    EXPECT_EQ(budget.waited_us, 60000);
    EXPECT_EQ(gate.peek(), 0);  // opened for everyone
}

// The gate and the generator share one call's max_wait.
TEST(TakeoverGate, WhatTheCallWaitedAlreadyCounts) {
    TakeoverGate gate;
    FakeTime t;
    gate.close_until(t.now + 60);
    WaitBudget budget;
    budget.waited_us = 50000;
    EXPECT_EQ(wait(gate, t, 100, &budget).status, GateStatus::closed);
    EXPECT_EQ(t.sleeps, 0);
}

TEST(TakeoverGate, AnInterruptReturnsAndTheCallResumesWithWhatIsLeft) {
    TakeoverGate gate;
    FakeTime t;
    t.interrupt_at = 0;
    gate.close_until(t.now + 60);
    WaitBudget budget;
    EXPECT_EQ(wait(gate, t, 100, &budget).status, GateStatus::interrupted);
    EXPECT_EQ(wait(gate, t, 100, &budget).status, GateStatus::open);
}

// A second grant further ahead closes it further; an earlier one never
// opens it before its time.
TEST(TakeoverGate, ClosesOnlyFurtherAhead) {
    TakeoverGate gate;
    gate.close_until(5000);
    gate.close_until(3000);
    EXPECT_EQ(gate.closed_until(4000), 5000);
    gate.close_until(9000);
    EXPECT_EQ(gate.closed_until(6000), 9000);
    EXPECT_EQ(gate.closed_until(9000), 0);  // the clock at the floor: IDs carry its time
    EXPECT_EQ(gate.peek(), 0);
}

// 'lead' set while closed: opened for the time it was closed until, not
// for an earlier one.
TEST(TakeoverGate, OpenIfOpensOnlyTheGateItNames) {
    TakeoverGate gate;
    EXPECT_FALSE(gate.open_if(0));
    gate.close_until(5000);
    EXPECT_FALSE(gate.open_if(4000));
    EXPECT_EQ(gate.peek(), 5000);
    EXPECT_TRUE(gate.open_if(5000));
    EXPECT_EQ(gate.peek(), 0);
    EXPECT_FALSE(gate.open_if(5000));
}

// Once opened, a clock set back does not close it again: the generator's
// own rules (max_clock_drift, on_clock_step_back) take that case.
TEST(TakeoverGate, OpenedStaysOpenForAClockSetBack) {
    TakeoverGate gate;
    gate.close_until(5000);
    EXPECT_EQ(gate.closed_until(5001), 0);
    EXPECT_EQ(gate.closed_until(1000), 0);
}

// A reader opening the gate it saw cannot open one a grant closed further
// ahead in between.
TEST(TakeoverGate, AReaderNeverOpensAGateClosedAfterItsReading) {
    for (int round = 0; round < 200; ++round) {
        TakeoverGate gate;
        gate.close_until(1000);
        std::atomic<bool> go{false};
        std::vector<std::thread> readers;
        for (int i = 0; i < 4; ++i) {
            readers.emplace_back([&] {
                while (!go.load()) {
                }
                for (int k = 0; k < 100; ++k) {
                    (void)gate.closed_until(2000);
                }
            });
        }
        go.store(true);
        gate.close_until(1000000);
        for (std::thread &r : readers) {
            r.join();
        }
        EXPECT_EQ(gate.closed_until(2000), 1000000) << "round " << round;
    }
}
