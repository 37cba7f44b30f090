#include "core/epoch.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

using snowflake::Error;
using snowflake::ErrorCode;
using snowflake::parse_epoch;

namespace {

int64_t parsed(const char *text) {
    int64_t ms = -1;
    Error err;
    EXPECT_TRUE(parse_epoch(text, &ms, &err)) << text << ": " << err.message;
    return ms;
}

std::string rejection(const char *text) {
    int64_t ms = -7;
    Error err;
    EXPECT_FALSE(parse_epoch(text, &ms, &err)) << text;
    EXPECT_EQ(ms, -7) << "output written on failure";
    EXPECT_EQ(err.code, ErrorCode::invalid_setting);
    return err.message;
}

}  // namespace

TEST(Epoch, IntegerMilliseconds) {
    EXPECT_EQ(parsed("0"), 0);
    EXPECT_EQ(parsed("1288834974657"), 1288834974657);  // Twitter's epoch
    EXPECT_EQ(parsed("  1577836800000 "), 1577836800000);
}

TEST(Epoch, IsoForms) {
    EXPECT_EQ(parsed("2020-01-01T00:00:00Z"), 1577836800000);
    EXPECT_EQ(parsed("2020-01-01"), 1577836800000);
    EXPECT_EQ(parsed("2020-01-01 00:00Z"), 1577836800000);
    EXPECT_EQ(parsed("2010-11-04T01:42:54.657Z"), 1288834974657);
    EXPECT_EQ(parsed("2010-11-04T01:42:54.6Z"), 1288834974600);
    EXPECT_EQ(parsed("2015-01-01T00:00:00Z"), 1420070400000);  // Discord's epoch
    // An offset east of UTC is earlier in UTC.
    EXPECT_EQ(parsed("2019-04-01T00:00:00+08:00"), parsed("2019-03-31T16:00:00Z"));
    EXPECT_EQ(parsed("2019-04-01T00:00:00+0800"), parsed("2019-03-31T16:00:00Z"));
    EXPECT_EQ(parsed("2019-04-01T00:00:00-05"), parsed("2019-04-01T05:00:00Z"));
    EXPECT_EQ(parsed("2000-02-29T12:00:00Z"), 951825600000);  // leap day
    EXPECT_EQ(parsed("9999-12-31T23:59:59.999Z"), snowflake::kMaxUnixMs);
}

TEST(Epoch, RejectsWithTheOffendingText) {
    EXPECT_NE(rejection("soon").find("\"soon\""), std::string::npos);
    EXPECT_NE(rejection("2020-01-01T00:00:00").find("no time zone"), std::string::npos);
    EXPECT_NE(rejection("2021-02-29").find("no such date"), std::string::npos);
    EXPECT_NE(rejection("2020-13-01").find("no such date"), std::string::npos);
    EXPECT_NE(rejection("2020-01-01T24:00:00Z").find("no such time"), std::string::npos);
    EXPECT_NE(rejection("2020-01-01T00:00:00.0001Z").find("finer than a millisecond"),
              std::string::npos);
    EXPECT_NE(rejection("1969-12-31T23:59:59Z").find("1970"), std::string::npos);
    EXPECT_NE(rejection("1970-01-01T00:00:00+01:00").find("before 1970"), std::string::npos);
    EXPECT_NE(rejection("-5").find("not an integer"), std::string::npos);
    EXPECT_NE(rejection("").find("empty"), std::string::npos);
    EXPECT_NE(rejection("99999999999999999999").find("after 9999"), std::string::npos);
    EXPECT_NE(rejection("2020-01-01T00:00:00Zjunk").find("unexpected text"), std::string::npos);
    EXPECT_NE(rejection("2020-01-01T00:00:00+25:00").find("offset"), std::string::npos);
}

TEST(Epoch, CivilRoundTripOverFourCenturies) {
    for (int64_t days = -1000; days < 146097 * 2; days += 13) {
        int64_t y = 0;
        unsigned m = 0, d = 0;
        snowflake::civil_from_days(days, &y, &m, &d);
        ASSERT_EQ(snowflake::days_from_civil(y, m, d), days);
    }
}

TEST(Epoch, FormatsUtc) {
    char buf[40];
    snowflake::format_utc(1288834974657, buf, sizeof buf);
    EXPECT_STREQ(buf, "2010-11-04 01:42:54.657Z");
    snowflake::format_utc(-1, buf, sizeof buf);
    EXPECT_STREQ(buf, "1969-12-31 23:59:59.999Z");
}
