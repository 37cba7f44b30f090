#include "core/catch_up_state.hpp"
#include "core/clock_units.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

using snowflake::kNsPerMs;
using snowflake::SharedCatchUp;

TEST(SharedCatchUp, RunsAtHalfSpeedUntilTheWallClockOvertakesIt) {
    SharedCatchUp c;
    EXPECT_FALSE(c.running());
    EXPECT_EQ(c.now(1000, 0, true), 1000);
    c.start(5000, 0);
    EXPECT_TRUE(c.running());
    EXPECT_EQ(c.now(1000, 2000 * kNsPerMs, true), 6000);  // 2 s later: 1 s ahead
    EXPECT_TRUE(c.running());
    EXPECT_EQ(c.now(7000, 2000 * kNsPerMs, false), 7000);  // overtaken, but may not end it
    EXPECT_TRUE(c.running());
    EXPECT_EQ(c.now(7000, 2000 * kNsPerMs, true), 7000);
    EXPECT_FALSE(c.running());
}

// The race behind a flaky registry_failover_on_redis: a reader saw the old
// catch-up overtaken, and ended it after a new one had started ahead of the
// clock. The new one must survive.
TEST(SharedCatchUp, AReaderOfAnOldCatchUpCannotEndANewOne) {
    SharedCatchUp c;
    c.start(1000, 0);
    const SharedCatchUp::Snapshot old = c.read();
    ASSERT_TRUE(old.running);
    c.start(9000, 0);  // a lease taken over: a floor far ahead
    EXPECT_FALSE(c.end(old));
    EXPECT_TRUE(c.running());
    EXPECT_EQ(c.now(5000, 0, true), 9000);
}

TEST(SharedCatchUp, AStopAndRestartInBetweenAlsoKeepsTheNewOne) {
    SharedCatchUp c;
    c.start(1000, 0);
    const SharedCatchUp::Snapshot old = c.read();
    c.stop();
    c.start(1000, 0);  // the same values: only the version differs
    EXPECT_FALSE(c.end(old));
    EXPECT_TRUE(c.running());
}

TEST(SharedCatchUp, EndingTwiceEndsOnce) {
    SharedCatchUp c;
    c.start(1000, 0);
    const SharedCatchUp::Snapshot seen = c.read();
    EXPECT_TRUE(c.end(seen));
    EXPECT_FALSE(c.end(seen));
    EXPECT_FALSE(c.running());
}

// Readers never see a base from one start with the start time of another,
// and never lose a catch-up started after they began: with one writer
// starting catch-ups whose base and start time name the same number, every
// reading is consistent, and after the writer's last start completes, the
// clock reads at least its base.
TEST(SharedCatchUp, ConcurrentReadersSeeWholeStartsOnly) {
    SharedCatchUp c;
    std::atomic<bool> done{false};
    std::atomic<int> torn{0};
    std::thread readers[2];
    for (auto &r : readers) {
        r = std::thread([&] {
            while (!done.load()) {
                const SharedCatchUp::Snapshot s = c.read();
                if (s.running && s.clock.base_unix_ms != s.clock.start_mono_ns) {
                    torn.fetch_add(1);
                }
                // Wall clock far past any base: ends whatever it read.
                (void)c.now(int64_t{1} << 40, 0, true);
            }
        });
    }
    for (int64_t i = 1; i <= 200000; ++i) {
        c.start(i, i);
    }
    const int64_t last = 200000;
    done.store(true);
    for (auto &r : readers) {
        r.join();
    }
    EXPECT_EQ(torn.load(), 0);
    c.start(last + 1, last + 1);
    EXPECT_EQ(c.now(0, last + 1, true), last + 1);
}
