#include "core/resume.hpp"

#include <gtest/gtest.h>

using snowflake::catch_up_now;
using snowflake::CatchUp;
using snowflake::Layout;
using snowflake::plan_resume;
using snowflake::ResumePlan;

namespace {

constexpr int64_t kEpoch = 1577836800000;  // the default layout's epoch

uint64_t bound_at(int64_t unix_ms) {
    return static_cast<uint64_t>(Layout().compose(unix_ms - kEpoch, 0, 0));
}

}  // namespace

TEST(Resume, ClockAheadOfTheBound) {
    const ResumePlan plan = plan_resume(Layout(), bound_at(kEpoch + 5000), kEpoch + 9000, 1000);
    EXPECT_EQ(plan.floor, bound_at(kEpoch + 5000));
    EXPECT_EQ(plan.resume_unix_ms, kEpoch + 5000);
    EXPECT_EQ(plan.lead_ms, -4000);
    EXPECT_FALSE(plan.catch_up);
    EXPECT_FALSE(plan.clock_suspect);
}

TEST(Resume, ClockAtTheBound) {
    const ResumePlan plan = plan_resume(Layout(), bound_at(kEpoch + 5000), kEpoch + 5000, 1000);
    EXPECT_EQ(plan.lead_ms, 0);
    EXPECT_FALSE(plan.catch_up);
}

TEST(Resume, ClockBehindWithinNormalLeadCatchesUpQuietly) {
    const ResumePlan plan = plan_resume(Layout(), bound_at(kEpoch + 5000), kEpoch + 4000, 1000);
    EXPECT_EQ(plan.lead_ms, 1000);
    EXPECT_TRUE(plan.catch_up);
    EXPECT_FALSE(plan.clock_suspect);
}

TEST(Resume, ClockBehindBeyondNormalLeadIsSuspect) {
    const int64_t hour = 3600 * 1000;
    const ResumePlan plan = plan_resume(Layout(), bound_at(kEpoch + 2 * hour), kEpoch + hour, 1000);
    EXPECT_EQ(plan.lead_ms, hour);
    EXPECT_TRUE(plan.catch_up);
    EXPECT_TRUE(plan.clock_suspect);
}

TEST(Resume, BoundInsideAMillisecondResumesInIt) {
    const uint64_t bound = bound_at(kEpoch + 5000) + 17;  // mid-millisecond
    const ResumePlan plan = plan_resume(Layout(), bound, kEpoch + 5000, 1000);
    EXPECT_EQ(plan.floor, bound);
    EXPECT_EQ(plan.resume_unix_ms, kEpoch + 5000);
}

TEST(CatchUpClock, RunsAtHalfSpeedFromTheBase) {
    const CatchUp c{1000000, 50};
    bool caught_up = true;
    EXPECT_EQ(catch_up_now(c, 0, 50, &caught_up), 1000000);
    EXPECT_FALSE(caught_up);
    // 10 s of monotonic time: 5 s of catch-up time.
    EXPECT_EQ(catch_up_now(c, 2000, 50 + 10000000000, &caught_up), 1005000);
    EXPECT_FALSE(caught_up);
}

TEST(CatchUpClock, WallClockOvertakesAndRulesAgain) {
    const CatchUp c{1000000, 0};
    bool caught_up = false;
    EXPECT_EQ(catch_up_now(c, 1005000, 10000000000, &caught_up), 1005000);
    EXPECT_TRUE(caught_up);
    EXPECT_EQ(catch_up_now(c, 1009999, 10000000000, &caught_up), 1009999);
    EXPECT_TRUE(caught_up);
}

TEST(CatchUpClock, MonotonicBeforeTheStartDoesNotGoBack) {
    const CatchUp c{1000000, 5000000000};
    bool caught_up = true;
    EXPECT_EQ(catch_up_now(c, 0, 0, &caught_up), 1000000);
}

TEST(CatchUpClock, LeadIsGoneAfterTwiceItsLength) {
    // A lead of one hour, wall clock advancing in real time.
    const int64_t hour_ms = 3600 * 1000;
    const CatchUp c{hour_ms, 0};
    bool caught_up = false;
    const int64_t just_before = 2 * hour_ms - 2;
    catch_up_now(c, just_before, just_before * 1000000, &caught_up);
    EXPECT_FALSE(caught_up);
    const int64_t after = 2 * hour_ms;
    catch_up_now(c, after, after * 1000000, &caught_up);
    EXPECT_TRUE(caught_up);
}
