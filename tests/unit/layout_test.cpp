#include "core/layout.hpp"
#include "core/epoch.hpp"

#include <gtest/gtest.h>

#include <string>

using snowflake::Error;
using snowflake::ErrorCode;
using snowflake::IdParts;
using snowflake::Layout;
using snowflake::LayoutWidths;

namespace {

constexpr int64_t kEpoch2020 = 1577836800000;

Layout make(int dc, int worker, int seq, int64_t epoch = kEpoch2020) {
    Layout layout;
    Error err;
    EXPECT_TRUE(Layout::make(LayoutWidths{dc, worker, seq}, epoch, &layout, &err)) << err.message;
    return layout;
}

}  // namespace

TEST(Layout, DefaultIsTheClassicSplit) {
    Layout layout;
    EXPECT_EQ(layout.timestamp_bits(), 41);
    EXPECT_EQ(layout.node_bits(), 10);
    EXPECT_EQ(layout.max_sequence(), 4095);
    EXPECT_EQ(layout.epoch_unix_ms(), kEpoch2020);
    // 2^41 - 1 ms after 2020-01-01 is 2089-09-06 15:47:35.551 UTC.
    EXPECT_EQ(layout.end_unix_ms(), kEpoch2020 + 2199023255551);
}

TEST(Layout, RoundTripsOnManyLayouts) {
    for (int dc = 0; dc <= 8; dc += 4) {
        for (int worker = 0; worker <= 16; worker += 3) {
            for (int seq = 0; seq <= 22; seq += 2) {
                const Layout layout = make(dc, worker, seq);
                ASSERT_EQ(layout.timestamp_bits(), 63 - dc - worker - seq);
                const int64_t samples[][4] = {
                    {0, 0, 0, 0},
                    {layout.max_timestamp(), layout.max_datacenter_id(), layout.max_worker_id(),
                     layout.max_sequence()},
                    {123456789 & layout.max_timestamp(), 1 & layout.max_datacenter_id(),
                     5 & layout.max_worker_id(), 77 & layout.max_sequence()},
                };
                for (const auto &s : samples) {
                    int64_t node = -1;
                    Error err;
                    ASSERT_TRUE(layout.make_node(s[1], s[2], &node, &err)) << err.message;
                    const int64_t id = layout.compose(s[0], node, s[3]);
                    ASSERT_GE(id, 0);
                    IdParts p;
                    ASSERT_TRUE(layout.decode(id, &p, &err));
                    EXPECT_EQ(p.timestamp, s[0]);
                    EXPECT_EQ(p.datacenter_id, s[1]);
                    EXPECT_EQ(p.worker_id, s[2]);
                    EXPECT_EQ(p.sequence, s[3]);
                }
            }
        }
    }
}

TEST(Layout, TwitterSplitPlacesFields) {
    const Layout layout = make(5, 5, 12);
    int64_t node = 0;
    Error err;
    ASSERT_TRUE(layout.make_node(3, 7, &node, &err));
    EXPECT_EQ(node, (3 << 5) | 7);
    EXPECT_EQ(layout.compose(1, node, 2), (int64_t{1} << 22) | (node << 12) | 2);
}

TEST(Layout, RejectsWidthsNamingTheSetting) {
    Layout layout;
    Error err;
    EXPECT_FALSE(Layout::make(LayoutWidths{0, -1, 12}, kEpoch2020, &layout, &err));
    EXPECT_EQ(err.code, ErrorCode::invalid_setting);
    EXPECT_NE(std::string(err.message).find("snowflake_id.worker_bits = -1"), std::string::npos);
    EXPECT_FALSE(Layout::make(LayoutWidths{0, 10, 32}, kEpoch2020, &layout, &err));
    EXPECT_NE(std::string(err.message).find("snowflake_id.sequence_bits = 32"), std::string::npos);
    EXPECT_FALSE(Layout::make(LayoutWidths{31, 31, 1}, kEpoch2020, &layout, &err));
    EXPECT_NE(std::string(err.message).find("leave no bits for the timestamp"), std::string::npos);
}

TEST(Layout, RefusesALayoutThatCannotCarryNow) {
    const Layout narrow = make(10, 10, 20);  // 23 bits of ms: about 2.3 hours
    Error err;
    EXPECT_FALSE(narrow.check_against_clock(kEpoch2020 + (int64_t{1} << 23), &err));
    EXPECT_EQ(err.code, ErrorCode::layout_no_room);
    EXPECT_NE(std::string(err.message).find("23 timestamp bits"), std::string::npos);
    EXPECT_NE(std::string(err.detail).find("snowflake_id.sequence_bits (20)"), std::string::npos);
    EXPECT_TRUE(narrow.check_against_clock(kEpoch2020 + (int64_t{1} << 23) - 1, &err));
}

TEST(Layout, RefusesAnEpochInTheFuture) {
    const Layout layout = make(0, 10, 12);
    Error err;
    EXPECT_FALSE(layout.check_against_clock(kEpoch2020 - 1, &err));
    EXPECT_EQ(err.code, ErrorCode::epoch_in_future);
    EXPECT_TRUE(layout.check_against_clock(kEpoch2020, &err));
}

TEST(Layout, NodeMustBeSetAndFit) {
    const Layout layout = make(2, 3, 12);
    int64_t node = -1;
    Error err;
    EXPECT_FALSE(layout.make_node(0, -1, &node, &err));
    EXPECT_EQ(err.code, ErrorCode::invalid_node);
    EXPECT_NE(std::string(err.message).find("not set"), std::string::npos);
    EXPECT_FALSE(layout.make_node(0, 8, &node, &err));
    EXPECT_NE(std::string(err.message).find("worker_id = 8 is out of range"), std::string::npos);
    EXPECT_NE(std::string(err.hint).find("between 0 and 7"), std::string::npos);
    EXPECT_FALSE(layout.make_node(4, 1, &node, &err));
    EXPECT_NE(std::string(err.message).find("datacenter_id = 4"), std::string::npos);
    EXPECT_EQ(node, -1);
    EXPECT_TRUE(layout.make_node(3, 7, &node, &err));
    EXPECT_EQ(node, 31);
}

TEST(Layout, DecodeRefusesNegativeIds) {
    const Layout layout;
    IdParts p;
    Error err;
    EXPECT_FALSE(layout.decode(-1, &p, &err));
    EXPECT_EQ(err.code, ErrorCode::invalid_id);
    EXPECT_NE(std::string(err.message).find("-1"), std::string::npos);
}

TEST(Layout, SmallestIdAtBoundsAndOrder) {
    const Layout layout;
    int64_t id = -1;
    Error err;
    ASSERT_TRUE(layout.smallest_id_at(kEpoch2020, &id, &err));
    EXPECT_EQ(id, 0);
    ASSERT_TRUE(layout.smallest_id_at(kEpoch2020 + 1, &id, &err));
    EXPECT_EQ(id, int64_t{1} << 22);
    ASSERT_TRUE(layout.smallest_id_at(layout.end_unix_ms(), &id, &err));
    EXPECT_EQ(id, layout.max_timestamp() << 22);
    EXPECT_FALSE(layout.smallest_id_at(kEpoch2020 - 1, &id, &err));
    EXPECT_EQ(err.code, ErrorCode::time_out_of_range);
    EXPECT_FALSE(layout.smallest_id_at(layout.end_unix_ms() + 1, &id, &err));
}

TEST(Layout, WideTimestampFieldEndsIn9999) {
    const Layout wide = make(0, 0, 1);  // 62 bits of ms would outlast the calendar
    EXPECT_EQ(wide.timestamp_bits(), 62);
    EXPECT_EQ(wide.end_unix_ms(), snowflake::kMaxUnixMs);
    IdParts p;
    Error err;
    EXPECT_TRUE(wide.decode(wide.compose(wide.max_timestamp(), 0, 1), &p, &err));
    EXPECT_FALSE(wide.decode(wide.compose(wide.max_timestamp() + 1, 0, 0), &p, &err));
    EXPECT_EQ(err.code, ErrorCode::time_out_of_range);
    EXPECT_NE(std::string(err.message).find("past the layout's end (9999-12-31"),
              std::string::npos);
    const Layout whole = make(0, 0, 0);  // 63 bits: the shift must not overflow
    EXPECT_EQ(whole.end_unix_ms(), snowflake::kMaxUnixMs);
}

// id <= last_id_before_ms(m) must hold exactly for the values of milliseconds
// before m, on every layout: the time comparisons rest on it.
TEST(Layout, LastIdBeforeMsSplitsValuesByTheirMillisecond) {
    const Layout layouts[] = {make(0, 10, 12), make(5, 5, 12), make(0, 0, 1), make(0, 0, 0),
                              make(0, 12, 16, kEpoch2020 + 3723004)};
    for (const Layout &layout : layouts) {
        const int shift = layout.timestamp_shift();
        const int64_t epoch = layout.epoch_unix_ms();
        // Before the epoch and on it: no value is that early.
        EXPECT_EQ(layout.last_id_before_ms(epoch - 86400000), -1);
        EXPECT_EQ(layout.last_id_before_ms(epoch), -1);
        // One millisecond in: every value of the epoch's millisecond.
        EXPECT_EQ(layout.last_id_before_ms(epoch + 1), (int64_t{1} << shift) - 1);
        const int64_t last_field = INT64_MAX >> shift;  // the field's largest value
        // Milliseconds a timestamptz can hold (about 2^53): on layouts with
        // few node and sequence bits the field outlasts them.
        const int64_t reachable = int64_t{1} << 52;
        for (int64_t ms :
             {int64_t{1}, int64_t{2}, int64_t{1000}, last_field / 3, last_field - 1, last_field}) {
            if (ms > reachable) {
                continue;
            }
            const int64_t bound = layout.last_id_before_ms(epoch + ms);
            // The last value of millisecond ms - 1, and the first of ms after it.
            EXPECT_EQ(bound >> shift, ms - 1) << ms;
            EXPECT_EQ((bound + 1) >> shift, ms) << ms;
        }
        // Past the field's last millisecond: every value is earlier, INT64_MAX included.
        if (last_field < reachable) {
            EXPECT_EQ(layout.last_id_before_ms(epoch + last_field + 1), INT64_MAX);
            EXPECT_EQ(layout.last_id_before_ms(reachable), INT64_MAX);
        }
    }
}
