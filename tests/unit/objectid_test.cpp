#include "core/objectid.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <utility>
#include <string>

using snowflake::Error;
using snowflake::ErrorCode;
using snowflake::format_objectid;
using snowflake::kObjectIdHexLength;
using snowflake::objectid_seconds;

namespace {

std::string format(uint32_t seconds, const uint8_t (&random)[5], uint32_t counter) {
    char out[kObjectIdHexLength + 1];
    std::memset(out, 'X', sizeof out);
    format_objectid(seconds, random, counter, out);
    EXPECT_EQ(out[kObjectIdHexLength], '\0');
    return std::string(out);
}

// Fails with invalid_objectid; returns the error for further checks and
// checks that *seconds is left alone.
Error bad(const std::string &text) {
    uint32_t seconds = 12345;
    Error err;
    EXPECT_FALSE(objectid_seconds(text, &seconds, &err)) << text;
    EXPECT_EQ(err.code, ErrorCode::invalid_objectid) << text;
    EXPECT_EQ(seconds, 12345u);
    return err;
}

constexpr char kExample[] = "5c4a7fcc0ed0240001a79289";

}  // namespace

TEST(ObjectId, FormatsKnownBytes) {
    const uint8_t random[5] = {0x0e, 0xd0, 0x24, 0x00, 0x01};
    EXPECT_EQ(format(0x5c4a7fcc, random, 0xa79289), kExample);
}

TEST(ObjectId, FormatsLowercaseBigEndian) {
    const uint8_t random[5] = {0xAB, 0xCD, 0xEF, 0x12, 0x34};
    EXPECT_EQ(format(0x01020304, random, 0x0A0B0C), "01020304abcdef12340a0b0c");
    const uint8_t zeros[5] = {};
    EXPECT_EQ(format(0, zeros, 0), "000000000000000000000000");
    const uint8_t ones[5] = {0xff, 0xff, 0xff, 0xff, 0xff};
    EXPECT_EQ(format(0xFFFFFFFF, ones, 0xFFFFFF), "ffffffffffffffffffffffff");
}

TEST(ObjectId, CounterWrapsAt24Bits) {
    const uint8_t random[5] = {1, 2, 3, 4, 5};
    EXPECT_EQ(format(7, random, 0xFFFFFF), "000000070102030405ffffff");
    EXPECT_EQ(format(7, random, 0x1000000), "000000070102030405000000");
    EXPECT_EQ(format(7, random, 0x1000001), "000000070102030405000001");
    EXPECT_EQ(format(7, random, 0xFFa79289), format(7, random, 0xa79289));
}

TEST(ObjectId, SecondsOfTheExample) {
    uint32_t seconds = 0;
    Error err;
    ASSERT_TRUE(objectid_seconds(kExample, &seconds, &err)) << err.message;
    EXPECT_EQ(seconds, 1548386252u);  // 2019-01-25 03:17:32 UTC
}

TEST(ObjectId, UppercaseAccepted) {
    uint32_t seconds = 0;
    Error err;
    ASSERT_TRUE(objectid_seconds("5C4A7FCC0ED0240001A79289", &seconds, &err)) << err.message;
    EXPECT_EQ(seconds, 1548386252u);
    ASSERT_TRUE(objectid_seconds("5c4A7fCc0ED0240001a79289", &seconds, &err)) << err.message;
    EXPECT_EQ(seconds, 1548386252u);
}

TEST(ObjectId, SecondsUseTheFullUnsignedRange) {
    uint32_t seconds = 0;
    Error err;
    ASSERT_TRUE(objectid_seconds("ffffffff0000000000000000", &seconds, &err));
    EXPECT_EQ(seconds, 4294967295u);
    ASSERT_TRUE(objectid_seconds("00000000ffffffffffffffff", &seconds, &err));
    EXPECT_EQ(seconds, 0u);
}

TEST(ObjectId, FormatThenParseRoundTrips) {
    const uint8_t random[5] = {9, 8, 7, 6, 5};
    for (const uint32_t s : {0u, 1u, 1548386252u, 0x80000000u, 0xFFFFFFFFu}) {
        const std::string text = format(s, random, 42);
        uint32_t seconds = 0;
        Error err;
        ASSERT_TRUE(objectid_seconds(text, &seconds, &err)) << text;
        EXPECT_EQ(seconds, s);
    }
}

TEST(ObjectId, WrongLengthFails) {
    const std::string full = kExample;
    {
        const Error err = bad(full.substr(0, 23));
        EXPECT_EQ(std::string(err.message), "invalid ObjectId \"" + full.substr(0, 23) + "\"");
        EXPECT_NE(std::string(err.detail).find("this text has 23 characters"), std::string::npos)
            << err.detail;
        EXPECT_NE(std::string(err.detail).find("24 hexadecimal digits"), std::string::npos)
            << err.detail;
    }
    {
        const Error err = bad(full + "0");
        EXPECT_EQ(std::string(err.message), "invalid ObjectId \"" + full + "0\"");
        EXPECT_NE(std::string(err.detail).find("this text has 25 characters"), std::string::npos)
            << err.detail;
    }
    {
        const Error err = bad("");
        EXPECT_EQ(std::string(err.message), "invalid ObjectId \"\"");
        EXPECT_NE(std::string(err.detail).find("this text has 0 characters"), std::string::npos)
            << err.detail;
    }
}

TEST(ObjectId, NonHexCharacterFails) {
    const std::string text = "5c4agfcc0ed0240001a79289";  // 'g' at position 5
    const Error err = bad(text);
    EXPECT_EQ(std::string(err.message), "invalid ObjectId \"" + text + "\"");
    EXPECT_EQ(std::string(err.detail), "Character 5, \"g\", is not a hexadecimal digit.");

    // Only the first bad character is named; past the seconds still counts.
    const Error last = bad("5c4a7fcc0ed0240001a7928z");
    EXPECT_EQ(std::string(last.detail), "Character 24, \"z\", is not a hexadecimal digit.");
    const Error first = bad("x0000000000000000000000y");
    EXPECT_EQ(std::string(first.detail), "Character 1, \"x\", is not a hexadecimal digit.");
}

TEST(ObjectId, NonAsciiCharacterFails) {
    // Lengths count characters, not bytes: "é" is two bytes (0xC3 0xA9), so
    // this text is 24 bytes but 23 characters.
    const std::string short_text =
        "5c4a\xc3\xa9"
        "cc0ed0240001a79289";
    ASSERT_EQ(short_text.size(), 24u);
    const Error short_err = bad(short_text);
    EXPECT_EQ(std::string(short_err.message), "invalid ObjectId \"" + short_text + "\"");
    EXPECT_EQ(std::string(short_err.detail),
              "An ObjectId is 24 hexadecimal digits; this text has 23 characters.");
    // 24 characters, one of them not ASCII: named by its character position,
    // without printing half of it.
    const std::string text =
        "5c4a\xc3\xa9"
        "fcc0ed0240001a79289";
    const Error err = bad(text);
    EXPECT_EQ(std::string(err.message), "invalid ObjectId \"" + text + "\"");
    EXPECT_EQ(std::string(err.detail), "Character 5 is not a hexadecimal digit.");
    EXPECT_NE(std::string(err.hint).find("24 hexadecimal digits"), std::string::npos);
    // A space is printable and quoted; a tab is not.
    std::string spaced = kExample;
    spaced[8] = ' ';
    EXPECT_EQ(std::string(bad(spaced).detail), "Character 9, \" \", is not a hexadecimal digit.");
    std::string tabbed = kExample;
    tabbed[8] = '\t';
    EXPECT_EQ(std::string(bad(tabbed).detail), "Character 9 is not a hexadecimal digit.");
}

TEST(ObjectId, LongInputIsQuotedTruncated) {
    const std::string text(1000, 'a');
    const Error err = bad(text);
    EXPECT_EQ(std::string(err.message), "invalid ObjectId \"" + std::string(64, 'a') + "...\"");
    EXPECT_NE(std::string(err.detail).find("this text has 1000 characters"), std::string::npos)
        << err.detail;
}

TEST(ObjectId, TruncationKeepsUtf8CharactersWhole) {
    // Byte 64 (0-based) is the second byte of "é": the cut moves before it.
    const std::string text = std::string(63, 'a') + "\xc3\xa9" + std::string(20, 'b');
    const Error err = bad(text);
    EXPECT_EQ(std::string(err.message), "invalid ObjectId \"" + std::string(63, 'a') + "...\"");
}

TEST(ObjectIdCounter, StepsAndWraps) {
    snowflake::ObjectIdCounter c(0xFFFFFE);
    uint32_t s = 0;
    uint32_t v = 0;
    ASSERT_TRUE(c.next(100, &s, &v));
    EXPECT_EQ(s, 100u);
    EXPECT_EQ(v, 0xFFFFFEu);
    ASSERT_TRUE(c.next(100, &s, &v));
    EXPECT_EQ(v, 0xFFFFFFu);
    ASSERT_TRUE(c.next(100, &s, &v));
    EXPECT_EQ(v, 0u);
}

namespace {

// Takes every counter the second `at` has left, under a clock reading
// `now`; returns how many it took.
uint32_t spend_second(snowflake::ObjectIdCounter &c, uint32_t now, uint32_t at) {
    uint32_t taken = 0;
    uint32_t s = 0;
    uint32_t v = 0;
    while (c.next(now, &s, &v)) {
        EXPECT_EQ(s, at);
        ++taken;
    }
    return taken;
}

}  // namespace

TEST(ObjectIdCounter, RefusesTheRepeatWithinOneSecond) {
    // 2^24 counters in one second are all different; the next one would
    // repeat the first, so it is refused until the second changes.
    snowflake::ObjectIdCounter c(12345);
    uint32_t s = 0;
    uint32_t v = 0;
    uint32_t first = 0;
    ASSERT_TRUE(c.next(7, &s, &first));
    for (uint32_t i = 1; i <= snowflake::kObjectIdCounterMask; ++i) {
        ASSERT_TRUE(c.next(7, &s, &v)) << i;
    }
    EXPECT_EQ((v + 1) & snowflake::kObjectIdCounterMask, first);
    EXPECT_FALSE(c.next(7, &s, &v));
    EXPECT_FALSE(c.next(7, &s, &v));
    ASSERT_TRUE(c.next(8, &s, &v));
    EXPECT_EQ(s, 8u);
    EXPECT_EQ(v, first) << "a new second may use the counter again";
}

// A fake clock that steps back: one process makes 2^24 ObjectIds in second
// 1000, a few in 1001, then its clock reads 1000 again (and earlier). No
// (second, counter) pair may come twice: ObjectIds keep second 1001 while
// the clock is behind it, and wait once 1001 is spent.
TEST(ObjectIdCounter, NeverRepeatsWhenTheClockStepsBack) {
    snowflake::ObjectIdCounter c(0xABCDEF);
    std::set<std::pair<uint32_t, uint32_t>> used;
    uint32_t s = 0;
    uint32_t v = 0;
    EXPECT_EQ(spend_second(c, 1000, 1000), snowflake::kObjectIdCounterMask + 1);
    for (int i = 0; i < 10; ++i) {
        ASSERT_TRUE(c.next(1001, &s, &v));
        EXPECT_EQ(s, 1001u);
        EXPECT_TRUE(used.insert({s, v}).second);
    }
    for (const uint32_t behind : {1000u, 999u, 1u}) {
        ASSERT_TRUE(c.next(behind, &s, &v)) << "the clock behind still has second 1001";
        EXPECT_EQ(s, 1001u) << "the time never goes below the latest second used";
        EXPECT_TRUE(used.insert({s, v}).second) << "a repeated (second, counter) pair";
    }
    EXPECT_EQ(c.latest_second(), 1001u);
    // The rest of second 1001, under a clock still behind, then a refusal
    // (the caller waits) until the clock passes 1001.
    EXPECT_EQ(spend_second(c, 1000, 1001), snowflake::kObjectIdCounterMask + 1 - 13);
    EXPECT_FALSE(c.next(1001, &s, &v));
    ASSERT_TRUE(c.next(1002, &s, &v));
    EXPECT_EQ(s, 1002u);
}
