// parse_id_text: the snowflake type's text input.
#include "core/id_text.hpp"

#include <gtest/gtest.h>

#include <cstdint>

using snowflake::Error;
using snowflake::ErrorCode;
using snowflake::parse_id_text;

TEST(IdText, TakesWhatBigintTakes) {
    int64_t v = -1;
    Error err;
    ASSERT_TRUE(parse_id_text("912291816210986656", &v, &err));
    EXPECT_EQ(v, 912291816210986656);
    ASSERT_TRUE(parse_id_text(" \t42\n", &v, &err));
    EXPECT_EQ(v, 42);
    ASSERT_TRUE(parse_id_text("+7", &v, &err));
    EXPECT_EQ(v, 7);
    ASSERT_TRUE(parse_id_text("-0", &v, &err));
    EXPECT_EQ(v, 0);
    ASSERT_TRUE(parse_id_text("9223372036854775807", &v, &err));
    EXPECT_EQ(v, INT64_MAX);
}

TEST(IdText, NegativeAndTooLargeAreOutOfRange) {
    for (const char *text :
         {"-5", "-9223372036854775808", "9223372036854775808", "99999999999999999999999"}) {
        int64_t v = 0;
        Error err;
        EXPECT_FALSE(parse_id_text(text, &v, &err)) << text;
        EXPECT_EQ(err.code, ErrorCode::id_out_of_range) << text;
    }
}

TEST(IdText, AnythingElseIsNotAnId) {
    for (const char *text : {"", " ", "+", "-", "abc", "12a", "1.5", "1e5", "0x10", "1 2"}) {
        int64_t v = 0;
        Error err;
        EXPECT_FALSE(parse_id_text(text, &v, &err)) << text;
        EXPECT_EQ(err.code, ErrorCode::invalid_id_text) << text;
    }
}

// id < '2026-11-01' reads the literal as a snowflake: the hint says how to
// write a time, and only for what looks like one.
TEST(IdText, ATimeGetsTheHintToWriteATimestamptz) {
    for (const char *text : {"2026-11-01", " 2026-11-01 12:00 ", "12:30", "11/01/2026", "now",
                             "infinity", "-infinity"}) {
        int64_t v = 0;
        Error err;
        EXPECT_FALSE(parse_id_text(text, &v, &err)) << text;
        EXPECT_NE(std::string(err.hint).find("write the time as a timestamptz"), std::string::npos)
            << text;
    }
    for (const char *text : {"abc", "12a", "-", "1.5", "- 5"}) {
        int64_t v = 0;
        Error err;
        EXPECT_FALSE(parse_id_text(text, &v, &err)) << text;
        EXPECT_NE(std::string(err.hint).find("decimal digits"), std::string::npos) << text;
    }
}
