#include "core/registry.hpp"

#include <gtest/gtest.h>

#include <algorithm>

using snowflake::ask_with_durable_state;
using snowflake::Layout;
using snowflake::LayoutWidths;
using snowflake::LeaseRequest;

TEST(Registry, RenewalRecordsClockPlusTtlAndStopsAtTheDeadline) {
    const snowflake::RenewalPlan plan =
        snowflake::plan_renewal(1'700'000'000'000, 1'700'000'000'000, 5'000'000'000, 60'000);
    EXPECT_EQ(plan.bound_unix_ms, 1'700'000'060'000);
    // The deadline counts from the sending, on the monotonic clock: the
    // registry's expiry, counted from when it received the renewal, is later.
    EXPECT_EQ(plan.deadline_mono_ns, 5'000'000'000 + 60'000'000'000);
    EXPECT_EQ(plan.next_renewal_mono_ns, 5'000'000'000 + 20'000'000'000);
    // Two renewals may fail before the deadline.
    EXPECT_LT(plan.next_renewal_mono_ns + 2 * (plan.next_renewal_mono_ns - 5'000'000'000),
              plan.deadline_mono_ns + 1);
}

// While the catch-up clock runs ahead (at half speed), the bound covers
// what it reaches by the deadline, not a full lease_ttl past it: a crash
// restart that must resume above the recorded bound starts no further
// ahead than the generator could have got. Borrowing (max_clock_drift) is
// allowed above the wall clock as before.
TEST(Registry, RenewalAheadOfTheClockRecordsWhatTheCatchUpReaches) {
    const int64_t wall = 1'700'000'000'000;
    // 50 s ahead: the catch-up clock reaches +30 s by the deadline 60 s on.
    EXPECT_EQ(snowflake::plan_renewal(wall + 50'000, wall, 0, 60'000).bound_unix_ms, wall + 80'000);
    // 10 s ahead: it meets the wall clock after 20 s, which then leads.
    EXPECT_EQ(snowflake::plan_renewal(wall + 10'000, wall, 0, 60'000).bound_unix_ms, wall + 60'000);
    // The most it adds to a lead: half of lease_ttl. (A crash restart that
    // its own WAL resumes does not start from the bound at all.)
    for (int64_t lead = 0; lead <= 180'000; lead += 7'000) {
        const int64_t bound = snowflake::plan_renewal(wall + lead, wall, 0, 60'000).bound_unix_ms;
        EXPECT_LE(bound - wall, std::max<int64_t>(60'000, lead + 30'000)) << lead;
        EXPECT_GE(bound - wall, lead + 30'000) << "covers the catch-up until the deadline";
    }
}

TEST(Registry, LeaseIdBoundCoversTimesBelowTheBound) {
    Layout layout;
    snowflake::Error err;
    ASSERT_TRUE(Layout::make(LayoutWidths{0, 10, 12}, 1'577'836'800'000, &layout, &err));
    const int64_t bound_ms = 1'577'836'800'000 + 5'000;
    const uint64_t below = snowflake::lease_id_bound(layout, bound_ms);
    // The last ID of the millisecond before the bound is below it; the first
    // of the bound's millisecond is not.
    EXPECT_LT((uint64_t{4'999} << 22) | 0x3FFFFF, below);
    EXPECT_EQ(uint64_t{5'000} << 22, below);
    EXPECT_EQ(snowflake::lease_id_bound(layout, 1'577'836'800'000), 0u) << "at the epoch";
    EXPECT_EQ(snowflake::lease_id_bound(layout, 0), 0u) << "before the epoch";
    EXPECT_EQ(snowflake::lease_id_bound(layout, INT64_C(1) << 62),
              static_cast<uint64_t>(layout.max_timestamp() + 1) << 22)
        << "past the layout's end: every ID";
}

TEST(Registry, ClockFarBehindOnlyPastTheDrift) {
    Layout layout;
    snowflake::Error err;
    const int64_t epoch = 1'577'836'800'000;
    ASSERT_TRUE(Layout::make(LayoutWidths{0, 10, 12}, epoch, &layout, &err));
    // The last ID issued carries time 10'000 (floor = that ID + 1).
    const uint64_t floor = ((uint64_t{10'000} << 22) | (uint64_t{3} << 12) | 7) + 1;
    EXPECT_FALSE(snowflake::clock_far_behind(layout, 0, epoch, 1000)) << "nothing issued";
    EXPECT_FALSE(snowflake::clock_far_behind(layout, floor, epoch + 10'000, 1000));
    // Borrowing up to the drift is the generator's normal way under demand.
    EXPECT_FALSE(snowflake::clock_far_behind(layout, floor, epoch + 9'000, 1000));
    EXPECT_TRUE(snowflake::clock_far_behind(layout, floor, epoch + 8'999, 1000));
    EXPECT_TRUE(snowflake::clock_far_behind(layout, floor, epoch + 10'000 - 3'600'000, 1000))
        << "an hour back";
    // A floor whose sequence carried into the next node keeps the last ID's time.
    const uint64_t carried = ((uint64_t{10'000} << 22) | (uint64_t{3} << 12) | 0xFFF) + 1;
    EXPECT_FALSE(snowflake::clock_far_behind(layout, carried, epoch + 9'000, 1000));
}

// A give-back at a clean stop records the exact floor as a time: every ID
// below the floor carries an earlier time, and the next holder's first ID
// (at lease_id_bound of it) is at or above the floor.
TEST(Registry, ExactBoundOfAFloorIsTheLeastSafeOne) {
    const Layout layout;
    const int64_t epoch = layout.epoch_unix_ms();
    const uint64_t start_of_ms = static_cast<uint64_t>(layout.compose(5000, 0, 0));
    EXPECT_EQ(snowflake::exact_bound_unix_ms(layout, start_of_ms), epoch + 5000);
    EXPECT_EQ(snowflake::exact_bound_unix_ms(layout, start_of_ms + 1), epoch + 5001);
    const uint64_t last_in_ms = static_cast<uint64_t>(layout.compose(5000, 3, 17));
    EXPECT_EQ(snowflake::exact_bound_unix_ms(layout, last_in_ms + 1), epoch + 5001);
    for (uint64_t floor : {start_of_ms, start_of_ms + 1, last_in_ms, last_in_ms + 1}) {
        const int64_t bound = snowflake::exact_bound_unix_ms(layout, floor);
        EXPECT_GE(snowflake::lease_id_bound(layout, bound), floor);
        EXPECT_LT(snowflake::lease_id_bound(layout, bound - 1), floor);
    }
}

TEST(Registry, AStaticIdPresentsTheStoredFenceOnlyForTheIdItWasStoredFor) {
    LeaseRequest request;
    ask_with_durable_state(-1, 5, 3, &request);  // 'auto'
    EXPECT_EQ(request.requested_node, -1);
    EXPECT_EQ(request.preferred_node, 5);
    EXPECT_EQ(request.previous_fence, 3);
    ask_with_durable_state(5, 5, 3, &request);  // the same static id
    EXPECT_EQ(request.requested_node, 5);
    EXPECT_EQ(request.preferred_node, -1);
    EXPECT_EQ(request.previous_fence, 3);
    ask_with_durable_state(2, 5, 3, &request);  // another: fence 3 proves nothing on id 2
    EXPECT_EQ(request.requested_node, 2);
    EXPECT_EQ(request.preferred_node, -1);
    EXPECT_EQ(request.previous_fence, 0);
    ask_with_durable_state(-1, -1, 0, &request);  // no state
    EXPECT_EQ(request.preferred_node, -1);
    EXPECT_EQ(request.previous_fence, 0);
}
