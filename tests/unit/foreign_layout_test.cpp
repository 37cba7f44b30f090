#include "core/foreign_layout.hpp"
#include "core/epoch.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

using snowflake::decode_foreign;
using snowflake::Error;
using snowflake::ErrorCode;
using snowflake::ForeignLayout;
using snowflake::ForeignParts;
using snowflake::kMaxUnixMs;
using snowflake::parse_foreign_layout;

namespace {

// A UTC instant from ISO-8601 text, through the project's own parser (which
// epoch_test.cpp checks against known values).
int64_t utc(const char *text) {
    int64_t ms = -1;
    Error err;
    EXPECT_TRUE(snowflake::parse_epoch(text, &ms, &err)) << err.message;
    return ms;
}

ForeignLayout parse_ok(const std::string &text) {
    ForeignLayout l;
    Error err;
    EXPECT_TRUE(parse_foreign_layout(text, &l, &err)) << text << ": " << err.message;
    return l;
}

ForeignParts decode_ok(const ForeignLayout &l, int64_t id) {
    ForeignParts p;
    Error err;
    EXPECT_TRUE(decode_foreign(l, id, &p, &err)) << id << ": " << err.message;
    return p;
}

void expect_same_layout(const ForeignLayout &a, const ForeignLayout &b) {
    EXPECT_EQ(a.time.bits, b.time.bits);
    EXPECT_EQ(a.time.shift, b.time.shift);
    EXPECT_EQ(a.datacenter.bits, b.datacenter.bits);
    EXPECT_EQ(a.datacenter.shift, b.datacenter.shift);
    EXPECT_EQ(a.worker.bits, b.worker.bits);
    EXPECT_EQ(a.worker.shift, b.worker.shift);
    EXPECT_EQ(a.sequence.bits, b.sequence.bits);
    EXPECT_EQ(a.sequence.shift, b.sequence.shift);
    EXPECT_EQ(a.total_bits, b.total_bits);
    EXPECT_EQ(a.epoch_unix_ms, b.epoch_unix_ms);
    EXPECT_EQ(a.unit_ms, b.unit_ms);
}

// A layout whose every field is recognisable, to show that a failing parse
// does not write into *out.
ForeignLayout sentinel() {
    ForeignLayout l;
    l.time = {7, 3};
    l.datacenter = {2, 1};
    l.worker = {9, 9};
    l.sequence = {4, 0};
    l.total_bits = 17;
    l.epoch_unix_ms = 424242;
    l.unit_ms = 99;
    return l;
}

// Parses `text`, which must fail with invalid_spec and a message that quotes
// the whole text, then `part` and the 1-based character where it starts.
void expect_bad_spec(const std::string &text, const std::string &part, std::size_t at) {
    SCOPED_TRACE(text);
    ForeignLayout l = sentinel();
    Error err;
    ASSERT_FALSE(parse_foreign_layout(text, &l, &err));
    EXPECT_EQ(err.code, ErrorCode::invalid_spec);
    const std::string message = err.message;
    EXPECT_EQ(message.rfind("invalid snowflake layout \"" + text + "\": ", 0), 0u) << message;
    // An empty part (nothing where something was expected) is not quoted.
    const std::string where = " at character " + std::to_string(at);
    const std::string tail = part.empty() ? where : "\"" + part + "\"" + where;
    ASSERT_GE(message.size(), tail.size()) << message;
    EXPECT_EQ(message.substr(message.size() - tail.size()), tail) << message;
    EXPECT_NE(std::string(err.hint).find("preset"), std::string::npos) << err.hint;
    expect_same_layout(l, sentinel());
}

// Same, and the message names what is wrong.
void expect_bad_spec(const std::string &text, const std::string &part, std::size_t at,
                     const std::string &why) {
    expect_bad_spec(text, part, at);
    ForeignLayout l;
    Error err;
    ASSERT_FALSE(parse_foreign_layout(text, &l, &err));
    EXPECT_NE(std::string(err.message).find(why), std::string::npos) << text << ": " << err.message;
}

}  // namespace

// --- presets ---------------------------------------------------------------

TEST(ForeignLayout, TwitterPresetDecodesTheApiDocsExample) {
    // Twitter API docs: ID 1050118621198921728, created_at
    // "Wed Oct 10 20:19:24 +0000 2018".
    const ForeignLayout l = parse_ok("twitter");
    EXPECT_EQ(l.total_bits, 63);
    EXPECT_EQ(l.epoch_unix_ms, 1288834974657);
    EXPECT_EQ(l.unit_ms, 1);
    const ForeignParts p = decode_ok(l, 1050118621198921728);
    EXPECT_EQ(p.unix_ms, utc("2018-10-10T20:19:24.211Z"));
    EXPECT_EQ(p.unix_ms, 1539202764211);
    EXPECT_EQ(p.datacenter_id, 10);
    EXPECT_EQ(p.worker_id, 27);
    EXPECT_EQ(p.sequence, 0);
}

TEST(ForeignLayout, DiscordPresetDecodesTheDocsExample) {
    // Discord's docs: 175928847299117063 is 2016-04-30 11:18:25.796 UTC,
    // internal worker 1, internal process 0, increment 7.
    const ForeignLayout l = parse_ok("discord");
    EXPECT_EQ(l.total_bits, 64);
    EXPECT_EQ(l.epoch_unix_ms, 1420070400000);
    const ForeignParts p = decode_ok(l, 175928847299117063);
    EXPECT_EQ(p.unix_ms, utc("2016-04-30T11:18:25.796Z"));
    EXPECT_EQ(p.datacenter_id, 1);  // Discord's worker
    EXPECT_EQ(p.worker_id, 0);      // Discord's process
    EXPECT_EQ(p.sequence, 7);       // Discord's increment
}

TEST(ForeignLayout, InstagramPresetDecodesTheBlogExample) {
    // Instagram engineering blog (2012): 1387263000 ms after their epoch
    // 1314220021721, shard 1341, sequence 5001 % 1024 = 905.
    const ForeignLayout l = parse_ok("instagram");
    EXPECT_EQ(l.total_bits, 64);
    const int64_t id = (int64_t{1387263000} << 23) | (1341 << 10) | (5001 % 1024);
    ASSERT_EQ(id, 11637205501278089);
    const ForeignParts p = decode_ok(l, id);
    EXPECT_EQ(p.unix_ms, 1315607284721);
    EXPECT_EQ(p.worker_id, 1341);
    EXPECT_EQ(p.datacenter_id, 0);
    EXPECT_EQ(p.sequence, 905);
}

TEST(ForeignLayout, InstagramIdWithTheSignBitSetDecodes) {
    // The widths total 64, so time reaches into the sign bit: from about
    // 2046 on, Instagram IDs read as negative bigints.
    const ForeignLayout l = parse_ok("instagram");
    const uint64_t ticks = (uint64_t{1} << 40) | 123;
    const auto id = static_cast<int64_t>((ticks << 23) | (77 << 10) | 9);
    ASSERT_LT(id, 0);
    ASSERT_EQ(id, -9223372035822898167);
    const ForeignParts p = decode_ok(l, id);
    EXPECT_EQ(p.unix_ms, 1314220021721 + static_cast<int64_t>(ticks));
    EXPECT_EQ(p.worker_id, 77);
    EXPECT_EQ(p.sequence, 9);

    // -1: every field at its maximum.
    const ForeignParts m = decode_ok(l, -1);
    EXPECT_EQ(m.unix_ms, 1314220021721 + (int64_t{1} << 41) - 1);
    EXPECT_EQ(m.worker_id, 8191);
    EXPECT_EQ(m.sequence, 1023);
}

TEST(ForeignLayout, DiscordIdWithTheSignBitSetDecodes) {
    const ForeignLayout l = parse_ok("discord");
    const ForeignParts p = decode_ok(l, INT64_MIN);
    EXPECT_EQ(p.unix_ms, 1420070400000 + (int64_t{1} << 41));
    EXPECT_EQ(p.datacenter_id, 0);
    EXPECT_EQ(p.worker_id, 0);
    EXPECT_EQ(p.sequence, 0);
}

TEST(ForeignLayout, SonyflakePresetUsesTenMillisecondUnits) {
    // time 39 bits of 10 ms, then sequence 8, then machine 16 (worker).
    const ForeignLayout l = parse_ok("sonyflake");
    EXPECT_EQ(l.total_bits, 63);
    EXPECT_EQ(l.epoch_unix_ms, 1409529600000);  // 2014-09-01T00:00:00Z
    EXPECT_EQ(l.unit_ms, 10);
    EXPECT_EQ(l.time.shift, 24);
    EXPECT_EQ(l.sequence.shift, 16);
    EXPECT_EQ(l.worker.shift, 0);
    EXPECT_EQ(l.datacenter.bits, 0);

    const int64_t ticks = (1704067200000 - 1409529600000) / 10;  // 2024-01-01T00:00:00Z
    const int64_t id = (ticks << 24) | (3 << 16) | 0xABCD;
    const ForeignParts p = decode_ok(l, id);
    EXPECT_EQ(p.unix_ms, 1704067200000);
    EXPECT_EQ(p.worker_id, 0xABCD);
    EXPECT_EQ(p.sequence, 3);
    EXPECT_EQ(p.datacenter_id, 0);

    // One tick more is 10 ms later, not 1.
    const ForeignParts q = decode_ok(l, ((ticks + 1) << 24) | (3 << 16) | 0xABCD);
    EXPECT_EQ(q.unix_ms, 1704067200000 + 10);
}

TEST(ForeignLayout, PresetNamesAreCaseInsensitiveAndTrimmed) {
    expect_same_layout(parse_ok("TWITTER"), parse_ok("twitter"));
    expect_same_layout(parse_ok("  Discord \t"), parse_ok("discord"));
    expect_same_layout(parse_ok("InstaGram"), parse_ok("instagram"));
    expect_same_layout(parse_ok(" SonyFlake"), parse_ok("sonyflake"));
}

// --- specs -----------------------------------------------------------------

TEST(ForeignLayout, IssueSpecEqualsTheTwitterPreset) {
    const ForeignLayout spec = parse_ok(
        "time=41,datacenter=5,worker=5,sequence=12;epoch=2010-11-04T01:42:54.657Z;unit=1ms");
    const ForeignLayout preset = parse_ok("twitter");
    expect_same_layout(spec, preset);
    EXPECT_EQ(spec.time.shift, 22);
    EXPECT_EQ(spec.datacenter.shift, 17);
    EXPECT_EQ(spec.worker.shift, 12);
    EXPECT_EQ(spec.sequence.shift, 0);
    const ForeignParts a = decode_ok(spec, 1050118621198921728);
    const ForeignParts b = decode_ok(preset, 1050118621198921728);
    EXPECT_EQ(a.unix_ms, b.unix_ms);
    EXPECT_EQ(a.unix_ms, 1539202764211);
    EXPECT_EQ(a.datacenter_id, 10);
    EXPECT_EQ(a.worker_id, 27);
    EXPECT_EQ(a.sequence, 0);
}

TEST(ForeignLayout, UnitDefaultsToOneMillisecond) {
    const ForeignLayout l =
        parse_ok("time=41,datacenter=5,worker=5,sequence=12;epoch=1288834974657");
    expect_same_layout(l, parse_ok("twitter"));
}

TEST(ForeignLayout, JavaStyleLayoutWithSpacedOffsetEpoch) {
    // A common Java generator: machine above datacenter, epoch written with
    // a space before the zone.
    const ForeignLayout l =
        parse_ok("time=41,machine=6,datacenter=8,sequence=8;epoch=2019-04-01 00:00 +08:00");
    EXPECT_EQ(l.epoch_unix_ms, utc("2019-03-31T16:00:00Z"));
    EXPECT_EQ(l.epoch_unix_ms, 1554048000000);
    EXPECT_EQ(l.total_bits, 63);
    EXPECT_EQ(l.time.shift, 22);
    EXPECT_EQ(l.worker.shift, 16);
    EXPECT_EQ(l.worker.bits, 6);
    EXPECT_EQ(l.datacenter.shift, 8);
    EXPECT_EQ(l.datacenter.bits, 8);
    EXPECT_EQ(l.sequence.shift, 0);

    const int64_t id = (int64_t{123456789} << 22) | (45 << 16) | (200 << 8) | 77;
    const ForeignParts p = decode_ok(l, id);
    EXPECT_EQ(p.unix_ms, 1554048000000 + 123456789);
    EXPECT_EQ(p.worker_id, 45);
    EXPECT_EQ(p.datacenter_id, 200);
    EXPECT_EQ(p.sequence, 77);
}

TEST(ForeignLayout, FieldsInAnyOrder) {
    // Sequence on top, time at the bottom.
    const ForeignLayout l = parse_ok("sequence=12,worker=5,datacenter=5,time=41;epoch=0");
    EXPECT_EQ(l.sequence.shift, 51);
    EXPECT_EQ(l.worker.shift, 46);
    EXPECT_EQ(l.datacenter.shift, 41);
    EXPECT_EQ(l.time.shift, 0);
    const int64_t id = (int64_t{4095} << 51) | (int64_t{3} << 46) | (int64_t{30} << 41) | 1000;
    const ForeignParts p = decode_ok(l, id);
    EXPECT_EQ(p.sequence, 4095);
    EXPECT_EQ(p.worker_id, 3);
    EXPECT_EQ(p.datacenter_id, 30);
    EXPECT_EQ(p.unix_ms, 1000);
}

TEST(ForeignLayout, AliasesShardAndIncrement) {
    const ForeignLayout l = parse_ok("time=41,shard=13,increment=10;epoch=1314220021721");
    expect_same_layout(l, parse_ok("instagram"));
}

TEST(ForeignLayout, NamesAreCaseInsensitive) {
    const ForeignLayout l =
        parse_ok("TIME=41,DataCenter=5,WORKER=5,Sequence=12;EPOCH=1288834974657;Unit=1MS");
    expect_same_layout(l, parse_ok("twitter"));
}

TEST(ForeignLayout, SpacesAreTolerated) {
    const ForeignLayout l = parse_ok(
        "  time = 41 , datacenter=5 ,\tworker= 5,sequence =12 ; epoch = 1288834974657 ; unit = 1 "
        "ms  ");
    expect_same_layout(l, parse_ok("twitter"));
}

TEST(ForeignLayout, UnitInSeconds) {
    const ForeignLayout l = parse_ok("time=31,worker=16,sequence=16;epoch=0;unit=1s");
    EXPECT_EQ(l.unit_ms, 1000);
    const int64_t id = (int64_t{1700000000} << 32) | (5 << 16) | 6;
    const ForeignParts p = decode_ok(l, id);
    EXPECT_EQ(p.unix_ms, int64_t{1700000000} * 1000);
    EXPECT_EQ(p.worker_id, 5);
    EXPECT_EQ(p.sequence, 6);

    EXPECT_EQ(parse_ok("time=63;epoch=0;unit=86400s").unit_ms, 86400000);
    EXPECT_EQ(parse_ok("time=63;epoch=0;unit=86400000ms").unit_ms, 86400000);
    EXPECT_EQ(parse_ok("time=63;epoch=0;unit=250MS").unit_ms, 250);
}

TEST(ForeignLayout, EpochAsIntegerMilliseconds) {
    const ForeignLayout l = parse_ok("time=41,worker=10,sequence=12;epoch=1577836800000");
    EXPECT_EQ(l.epoch_unix_ms, 1577836800000);
    EXPECT_EQ(decode_ok(l, (int64_t{5} << 22) | (3 << 12) | 2).unix_ms, 1577836800005);
}

TEST(ForeignLayout, OptionsInAnyOrder) {
    const ForeignLayout l = parse_ok("time=39,sequence=8,worker=16;unit=10ms;epoch=1409529600000");
    expect_same_layout(l, parse_ok("sonyflake"));
}

TEST(ForeignLayout, TimeAloneOfSixtyFourBits) {
    const ForeignLayout l = parse_ok("time=64;epoch=0");
    EXPECT_EQ(l.total_bits, 64);
    EXPECT_EQ(l.time.shift, 0);
    EXPECT_EQ(decode_ok(l, 1234567).unix_ms, 1234567);
}

// --- bad specs -------------------------------------------------------------

TEST(ForeignLayoutSpecErrors, UnknownFieldName) {
    expect_bad_spec("time=41,foo=5,worker=5,sequence=12;epoch=0", "foo", 9, "unknown field");
}

TEST(ForeignLayoutSpecErrors, FieldGivenTwice) {
    expect_bad_spec("time=41,worker=10,Worker=12;epoch=0", "Worker", 19, "field given twice");
    // An alias counts as the same field.
    expect_bad_spec("time=41,worker=10,shard=12;epoch=0", "shard", 19, "field given twice");
}

TEST(ForeignLayoutSpecErrors, WidthZero) {
    expect_bad_spec("time=63,worker=0;epoch=0", "0", 16, "1 to 31 bits");
    expect_bad_spec("time=0,worker=31,sequence=31;epoch=0", "0", 6, "1 to 64 bits");
}

TEST(ForeignLayoutSpecErrors, WidthTooWide) {
    expect_bad_spec("time=31,worker=32;epoch=0", "32", 16, "a field width must be 1 to 31 bits");
    expect_bad_spec("time=65;epoch=0", "65", 6, "the time width must be 1 to 64 bits");
    // Digits that would overflow an int64 are still just too wide.
    expect_bad_spec("time=99999999999999999999999;epoch=0", "99999999999999999999999", 6);
}

TEST(ForeignLayoutSpecErrors, NonNumericWidth) {
    expect_bad_spec("time=4x1,worker=22;epoch=0", "4x1", 6);
    expect_bad_spec("time=41, worker = ten ,sequence=12;epoch=0", "ten", 19);
    expect_bad_spec("time=41,worker=-5,sequence=17;epoch=0", "-5", 16);
    expect_bad_spec("time=41,worker=,sequence=22;epoch=0", "", 16);
}

TEST(ForeignLayoutSpecErrors, MissingEqualsInAField) {
    expect_bad_spec("time=41,worker,sequence=22;epoch=0", "worker", 9, "expected name=bits");
}

TEST(ForeignLayoutSpecErrors, WidthsMustTotal63Or64) {
    expect_bad_spec("time=40,worker=10,sequence=12;epoch=0", "time=40,worker=10,sequence=12", 1,
                    "add up to 62 bits");
    expect_bad_spec("time=42,worker=11,sequence=12;epoch=0", "time=42,worker=11,sequence=12", 1,
                    "add up to 65 bits");
}

TEST(ForeignLayoutSpecErrors, NoTimeField) {
    expect_bad_spec("datacenter=31,worker=31,sequence=1;epoch=0",
                    "datacenter=31,worker=31,sequence=1", 1, "no time field");
}

TEST(ForeignLayoutSpecErrors, NoFields) {
    expect_bad_spec(";epoch=0", "", 1, "expected fields");
}

TEST(ForeignLayoutSpecErrors, MissingEpoch) {
    expect_bad_spec("time=41,worker=10,sequence=12;unit=1ms",
                    "time=41,worker=10,sequence=12;unit=1ms", 1, "no epoch");
    // No ';' at all: neither a preset nor a spec.
    expect_bad_spec("time=41,worker=10,sequence=12", "time=41,worker=10,sequence=12", 1,
                    "unknown preset");
}

TEST(ForeignLayoutSpecErrors, BadEpochText) {
    expect_bad_spec("time=41,worker=10,sequence=12;epoch=2010-13-01T00:00Z", "2010-13-01T00:00Z",
                    37, "bad epoch");
    // A date-time without a zone is refused.
    expect_bad_spec("time=41,worker=10,sequence=12;epoch=2010-11-04 01:42", "2010-11-04 01:42", 37);
    expect_bad_spec("time=41,worker=10,sequence=12;epoch=yesterday", "yesterday", 37);
    expect_bad_spec("time=41,worker=10,sequence=12;epoch=", "", 37);

    // The epoch parser's own reason is passed on.
    ForeignLayout l;
    Error err;
    ASSERT_FALSE(
        parse_foreign_layout("time=41,worker=10,sequence=12;epoch=2010-11-04 01:42", &l, &err));
    EXPECT_NE(std::string(err.detail).find("no time zone"), std::string::npos) << err.detail;
}

TEST(ForeignLayoutSpecErrors, UnknownOption) {
    expect_bad_spec("time=41,worker=10,sequence=12;epoch=0;zone=UTC", "zone", 39, "unknown option");
    expect_bad_spec("time=41,worker=10,sequence=12;epoch=0;unit", "unit", 39, "expected epoch=");
}

TEST(ForeignLayoutSpecErrors, OptionGivenTwice) {
    expect_bad_spec("time=41,worker=10,sequence=12;epoch=0;EPOCH=1", "EPOCH", 39,
                    "option given twice");
    expect_bad_spec("time=41,worker=10,sequence=12;unit=1ms;epoch=0;unit=2ms", "unit", 48,
                    "option given twice");
}

TEST(ForeignLayoutSpecErrors, BadUnit) {
    const std::string base = "time=41,worker=10,sequence=12;epoch=0;unit=";  // 43 characters
    expect_bad_spec(base + "5min", "5min", 44, "whole number of ms or s");
    expect_bad_spec(base + "0ms", "0ms", 44, "1 ms to 1 day");
    expect_bad_spec(base + "2d", "2d", 44, "whole number of ms or s");
    expect_bad_spec(base + "86401s", "86401s", 44, "1 ms to 1 day");
    expect_bad_spec(base + "86400001ms", "86400001ms", 44, "1 ms to 1 day");
    expect_bad_spec(base + "1.5ms", "1.5ms", 44);
    expect_bad_spec(base + "10", "10", 44);
    expect_bad_spec(base + "ms", "ms", 44);
}

TEST(ForeignLayoutSpecErrors, TrailingSemicolon) {
    const std::string text = "time=41,worker=10,sequence=12;epoch=0;";
    expect_bad_spec(text, "", text.size() + 1, "empty option");
    expect_bad_spec("time=41,worker=10,sequence=12;;epoch=0", "", 31, "empty option");
}

TEST(ForeignLayoutSpecErrors, EmptyText) {
    for (const char *text : {"", "   "}) {
        ForeignLayout l = sentinel();
        Error err;
        ASSERT_FALSE(parse_foreign_layout(text, &l, &err)) << '"' << text << '"';
        EXPECT_EQ(err.code, ErrorCode::invalid_spec);
        EXPECT_EQ(std::string(err.message),
                  std::string("invalid snowflake layout \"") + text + "\": it is empty");
        expect_same_layout(l, sentinel());
    }
}

TEST(ForeignLayoutSpecErrors, UnknownPresetName) {
    expect_bad_spec("twiter", "twiter", 1, "unknown preset");
    expect_bad_spec("  sonyflake2 ", "sonyflake2", 3, "unknown preset");
}

TEST(ForeignLayoutSpecErrors, FailingParseLeavesOutUntouched) {
    // Fails only after the fields were read into the parser's copy.
    ForeignLayout l = sentinel();
    Error err;
    ASSERT_FALSE(
        parse_foreign_layout("time=41,datacenter=5,worker=5,sequence=12;unit=2ms", &l, &err));
    expect_same_layout(l, sentinel());
    ASSERT_FALSE(parse_foreign_layout(
        "time=41,datacenter=5,worker=5,sequence=12;epoch=1288834974657;unit=0ms", &l, &err));
    expect_same_layout(l, sentinel());
    // And a good parse replaces all of it.
    ASSERT_TRUE(parse_foreign_layout("twitter", &l, &err));
    expect_same_layout(l,
                       parse_ok("time=41,datacenter=5,worker=5,sequence=12;epoch=1288834974657"));
}

// --- decode errors ---------------------------------------------------------

TEST(ForeignLayoutDecode, NegativeIdUnderA63BitLayout) {
    for (const char *name : {"twitter", "sonyflake"}) {
        const ForeignLayout l = parse_ok(name);
        for (const int64_t id : {int64_t{-1}, INT64_MIN, int64_t{-1050118621198921728}}) {
            ForeignParts p;
            p.unix_ms = 77;
            Error err;
            EXPECT_FALSE(decode_foreign(l, id, &p, &err)) << name << " " << id;
            EXPECT_EQ(err.code, ErrorCode::invalid_id);
            EXPECT_NE(std::string(err.message).find(std::to_string(id)), std::string::npos)
                << err.message;
            EXPECT_NE(std::string(err.detail).find("63 bits"), std::string::npos) << err.detail;
            EXPECT_EQ(p.unix_ms, 77);
        }
    }
    // INT64_MAX is fine under a 63-bit layout.
    EXPECT_EQ(decode_ok(parse_ok("twitter"), INT64_MAX).sequence, 4095);
}

TEST(ForeignLayoutDecode, TimePastYear9999) {
    // One-day units from 1970: 2932896 days reach 9999-12-31, one more does not.
    const ForeignLayout days = parse_ok("time=63;epoch=0;unit=86400000ms");
    const ForeignParts last = decode_ok(days, 2932896);
    EXPECT_EQ(last.unix_ms, utc("9999-12-31T00:00:00Z"));
    ForeignParts p;
    Error err;
    EXPECT_FALSE(decode_foreign(days, 2932897, &p, &err));
    EXPECT_EQ(err.code, ErrorCode::time_out_of_range);
    EXPECT_NE(std::string(err.message).find("2932897"), std::string::npos) << err.message;
    EXPECT_NE(std::string(err.message).find("9999-12-31"), std::string::npos) << err.message;
    EXPECT_NE(std::string(err.detail).find("2932897 units of 86400000 ms"), std::string::npos)
        << err.detail;
    // Far past it: no overflow turns it back into a valid time.
    EXPECT_FALSE(decode_foreign(days, INT64_MAX, &p, &err));
    EXPECT_EQ(err.code, ErrorCode::time_out_of_range);

    // Millisecond units: the last millisecond of 9999 is the limit.
    const ForeignLayout ms = parse_ok("time=63;epoch=0");
    EXPECT_EQ(decode_ok(ms, kMaxUnixMs).unix_ms, kMaxUnixMs);
    EXPECT_FALSE(decode_foreign(ms, kMaxUnixMs + 1, &p, &err));
    EXPECT_EQ(err.code, ErrorCode::time_out_of_range);

    // A 64-bit time field, all ones.
    const ForeignLayout wide = parse_ok("time=64;epoch=1000;unit=10ms");
    EXPECT_FALSE(decode_foreign(wide, -1, &p, &err));
    EXPECT_EQ(err.code, ErrorCode::time_out_of_range);
    const int64_t room = (kMaxUnixMs - 1000) / 10;
    EXPECT_EQ(decode_ok(wide, room).unix_ms, 1000 + room * 10);
    EXPECT_LE(1000 + room * 10, kMaxUnixMs);
    EXPECT_FALSE(decode_foreign(wide, room + 1, &p, &err));
    EXPECT_EQ(err.code, ErrorCode::time_out_of_range);
}

namespace {

bool valid_utf8(const std::string &s) {
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        const int n = c < 0x80           ? 1
                      : (c >> 5) == 0x6  ? 2
                      : (c >> 4) == 0xE  ? 3
                      : (c >> 3) == 0x1E ? 4
                                         : 0;
        if (n == 0 || i + n > s.size()) {
            return false;
        }
        for (int k = 1; k < n; ++k) {
            if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) {
                return false;
            }
        }
        i += n;
    }
    return true;
}

}  // namespace

TEST(ForeignLayoutSpecErrors, LongSpecKeepsThePositionAndValidUtf8) {
    // A field name of 150 "é" (300 bytes): the message must still say where
    // the bad part starts, and must not end in half a character (the
    // PostgreSQL glue sends it to the client as it is).
    std::string text = "time=41,";
    for (int i = 0; i < 150; ++i) {
        text += "\xc3\xa9";
    }
    text += "=22;epoch=0";
    ForeignLayout l = sentinel();
    Error err;
    ASSERT_FALSE(parse_foreign_layout(text, &l, &err));
    EXPECT_EQ(err.code, ErrorCode::invalid_spec);
    const std::string message = err.message;
    const std::string tail = " at character 9";
    EXPECT_TRUE(message.size() >= tail.size() &&
                message.compare(message.size() - tail.size(), tail.size(), tail) == 0)
        << message;
    EXPECT_TRUE(valid_utf8(message)) << message;
    expect_same_layout(l, sentinel());
}

TEST(ForeignLayoutSpecErrors, OnlyTimeMayTakeTheSignBit) {
    // 64 bits with another field on top would put it in the sign bit.
    expect_bad_spec("worker=1,time=63;epoch=0", "worker=1,time=63", 1, "first field is not time");
    expect_bad_spec("sequence=10,time=41,worker=13;epoch=0", "sequence=10,time=41,worker=13", 1,
                    "first field is not time");
    // With 63 bits any order is fine: the sign bit stays 0.
    const ForeignLayout l = parse_ok("worker=1,time=62;epoch=0");
    EXPECT_EQ(l.worker.shift, 62);
    EXPECT_EQ(l.time.shift, 0);
}

TEST(ForeignLayoutSpecErrors, EmptyValuesSaySo) {
    expect_bad_spec("time=41,worker=,sequence=12;epoch=0", "", 16, "no width after \"=\"");
    expect_bad_spec("time=41,worker=10,sequence=12;epoch=", "", 37, "no value after \"=\"");
    expect_bad_spec("time=41,worker=10,sequence=12;epoch=0;unit= ", "", 44, "no value after \"=\"");
}
