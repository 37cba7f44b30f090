// Quoted input under the database encoding's rule (src/core/error.hpp,
// set_character_length): every quote of input is cut where a character
// ends and counted in characters, by the rule the PostgreSQL glue installs.
// The rules here are PostgreSQL's for EUC_JP (pg_eucjp_mblen) and for a
// single-byte encoding such as LATIN1.
#include <string>

#include "core/epoch.hpp"
#include "core/error.hpp"
#include "core/foreign_layout.hpp"
#include "core/id_text.hpp"
#include "core/objectid.hpp"
#include "core/public_id.hpp"
#include "core/redis_url.hpp"

#include <gtest/gtest.h>

using snowflake::Error;
using snowflake::ErrorCode;

namespace {

// pg_eucjp_mblen: SS2 (0x8E) leads 2 bytes, SS3 (0x8F) 3, any other byte
// from 0x80 up 2, the rest 1.
std::size_t eucjp_length(std::string_view rest) {
    const auto lead = static_cast<unsigned char>(rest[0]);
    if (lead == 0x8F) {
        return 3;
    }
    return lead >= 0x80 ? 2 : 1;
}

std::size_t single_byte_length(std::string_view) {
    return 1;
}

// The length a rule gives that runs past any text, and one that is none.
std::size_t too_long(std::string_view) {
    return 1000;
}
std::size_t zero_length(std::string_view) {
    return 0;
}

int rule_calls = 0;
std::size_t counted_single_byte_length(std::string_view) {
    ++rule_calls;
    return 1;
}

std::string repeat(const std::string &s, int n) {
    std::string out;
    for (int i = 0; i < n; ++i) {
        out += s;
    }
    return out;
}

const std::string kRuEucjp = "\xA5\xEB";   // "ル" in EUC_JP
const std::string kAEucjp = "\xA4\xA2";    // "あ": both bytes look like UTF-8 continuations
const std::string kDegreeLatin1 = "\xB0";  // "°" in LATIN1: a UTF-8 continuation byte

// True if text splits into whole characters of EUC_JP: the message a
// server in EUC_JP converts for its client.
bool whole_in_eucjp(const std::string &text) {
    std::size_t at = 0;
    while (at < text.size()) {
        at += eucjp_length(std::string_view(text).substr(at));
    }
    return at == text.size();
}

// Installs a rule for one test and restores UTF-8's after it.
class Quote : public ::testing::Test {
  protected:
    void TearDown() override { snowflake::set_character_length(nullptr); }
};

}  // namespace

TEST_F(Quote, Utf8ByDefault) {
    const std::string e = "\xC3\xA9";  // "é"
    const std::string text = repeat(e, 60);
    EXPECT_EQ(snowflake::quoted_prefix_length(text, 99), 98u);
    EXPECT_EQ(snowflake::quoted_prefix_length(text, 100), 100u);
    EXPECT_EQ(snowflake::quoted_prefix_length(text, 200), 120u);
    EXPECT_EQ(snowflake::character_count(text), 60u);
    EXPECT_EQ(snowflake::character_count("a" + e + "b"), 3u);
    // What set_character_length(nullptr) restores.
    snowflake::set_character_length(single_byte_length);
    EXPECT_EQ(snowflake::character_count(text), 120u);
    snowflake::set_character_length(nullptr);
    EXPECT_EQ(snowflake::character_count(text), 60u);
}

TEST_F(Quote, CutAndCountByTheInstalledRule) {
    const std::string text = repeat(kRuEucjp, 60);
    // UTF-8's rule cuts this text inside a character (0xEB looks like a
    // lead byte, 0xA5 like a continuation): the server's 22021.
    EXPECT_EQ(snowflake::utf8_prefix_length(text, 100), 99u);
    EXPECT_EQ(snowflake::quoted_prefix_length(text, 100), 99u);
    snowflake::set_character_length(eucjp_length);
    EXPECT_EQ(snowflake::quoted_prefix_length(text, 99), 98u);
    EXPECT_EQ(snowflake::quoted_prefix_length(text, 100), 100u);
    EXPECT_EQ(snowflake::quoted_prefix_length(text, 1), 0u);
    EXPECT_EQ(snowflake::character_count(text), 60u);
    EXPECT_EQ(snowflake::character_count(repeat(kAEucjp, 30)), 30u);
    EXPECT_EQ(snowflake::character_count("ab" + kRuEucjp + "\x8F\xA1\xA1" + "c"), 5u);

    // In LATIN1 every byte is a character; UTF-8's rule would skip back
    // over all of these and quote nothing.
    const std::string degrees = repeat(kDegreeLatin1, 200);
    EXPECT_EQ(snowflake::utf8_prefix_length(degrees, 100), 0u);
    snowflake::set_character_length(single_byte_length);
    EXPECT_EQ(snowflake::quoted_prefix_length(degrees, 100), 100u);
    EXPECT_EQ(snowflake::character_count(degrees), 200u);
}

TEST_F(Quote, ARuleNeverStepsOutsideTheText) {
    // A text invalid in its encoding (a lead byte last) ends short of a
    // character: the step stops at the end.
    snowflake::set_character_length(eucjp_length);
    const std::string cut_short = "ab\xA5";
    EXPECT_EQ(snowflake::character_length(std::string_view(cut_short).substr(2)), 1u);
    EXPECT_EQ(snowflake::character_count(cut_short), 3u);
    EXPECT_EQ(snowflake::quoted_prefix_length(cut_short, 2), 2u);
    snowflake::set_character_length(too_long);
    EXPECT_EQ(snowflake::character_count("abc"), 1u);
    EXPECT_EQ(snowflake::quoted_prefix_length("abc", 2), 0u);
    snowflake::set_character_length(zero_length);
    EXPECT_EQ(snowflake::character_count("abc"), 3u);
    EXPECT_EQ(snowflake::quoted_prefix_length("abc", 2), 2u);
}

// Every entry point that quotes input, in an EUC_JP database: the quote is
// the whole characters that fit its limit, then "...".
TEST_F(Quote, MessagesQuoteWholeCharactersOfTheEncoding) {
    snowflake::set_character_length(eucjp_length);
    const std::string long_text = repeat(kRuEucjp, 200);
    Error err;

    int64_t id = 0;
    ASSERT_FALSE(snowflake::parse_id_text(long_text, &id, &err));
    EXPECT_EQ(err.code, ErrorCode::invalid_id_text);
    EXPECT_EQ(std::string(err.message),
              "invalid input syntax for type snowflake: \"" + repeat(kRuEucjp, 50) + "...\"");

    uint8_t zeros[snowflake::kPublicKeyBytes] = {};
    snowflake::SipKey key;
    ASSERT_TRUE(snowflake::public_key_from_bytes(zeros, sizeof zeros, &key, &err));
    ASSERT_FALSE(snowflake::parse_public_id(long_text, key, "", false, &id, &err));
    EXPECT_EQ(err.code, ErrorCode::invalid_public_id);
    EXPECT_EQ(std::string(err.message), "invalid public ID \"" + repeat(kRuEucjp, 50) + "...\"");
    char out[snowflake::kPublicIdTextMax + 1];
    ASSERT_FALSE(snowflake::format_public_id(1, key, long_text, false, out, &err));
    EXPECT_EQ(err.code, ErrorCode::invalid_public_prefix);
    EXPECT_EQ(std::string(err.message),
              "invalid prefix \"" + repeat(kRuEucjp, 50) + "...\" for public IDs");

    uint32_t seconds = 0;
    ASSERT_FALSE(snowflake::objectid_seconds(long_text, &seconds, &err));
    EXPECT_EQ(std::string(err.message), "invalid ObjectId \"" + repeat(kRuEucjp, 32) + "...\"");
    EXPECT_EQ(std::string(err.detail),
              "An ObjectId is 24 hexadecimal digits; this text has 200 characters.");

    snowflake::ForeignLayout layout;
    ASSERT_FALSE(snowflake::parse_foreign_layout(long_text, &layout, &err));
    EXPECT_EQ(
        std::string(err.message)
            .rfind("invalid snowflake layout \"" + repeat(kRuEucjp, 60) +
                       "...\": unknown preset \"" + repeat(kRuEucjp, 20) + "...\" at character 1",
                   0),
        0u)
        << err.message;

    int64_t ms = 0;
    ASSERT_FALSE(snowflake::parse_epoch(long_text, &ms, &err));
    EXPECT_EQ(
        std::string(err.message).rfind("invalid epoch \"" + repeat(kRuEucjp, 40) + "...\": ", 0),
        0u)
        << err.message;
    EXPECT_TRUE(whole_in_eucjp(err.message));

    snowflake::RedisTarget target;
    ASSERT_FALSE(snowflake::parse_redis_url("redis://h/" + long_text, &target, &err));
    EXPECT_EQ(std::string(err.detail),
              "The database \"" + repeat(kRuEucjp, 60) + "...\" is not a number.");
}

TEST_F(Quote, ObjectIdCountsAndPlacesCharactersOfTheEncoding) {
    snowflake::set_character_length(eucjp_length);
    uint32_t seconds = 0;
    Error err;
    // 30 characters, none of them counted by UTF-8's rule.
    ASSERT_FALSE(snowflake::objectid_seconds(repeat(kAEucjp, 30), &seconds, &err));
    EXPECT_EQ(std::string(err.detail),
              "An ObjectId is 24 hexadecimal digits; this text has 30 characters.");
    // 24 characters in 25 bytes: the 11th is no digit.
    const std::string text = "0123456789" + kRuEucjp + "0123456789abc";
    ASSERT_FALSE(snowflake::objectid_seconds(text, &seconds, &err));
    EXPECT_EQ(std::string(err.detail), "Character 11 is not a hexadecimal digit.");
    // 24 single-byte characters, each a byte from 0x80 up in LATIN1.
    snowflake::set_character_length(single_byte_length);
    ASSERT_FALSE(snowflake::objectid_seconds(repeat(kDegreeLatin1, 24), &seconds, &err));
    EXPECT_EQ(std::string(err.detail), "Character 1 is not a hexadecimal digit.");
    ASSERT_FALSE(
        snowflake::objectid_seconds("5c4a7fcc0ed0240001a7928" + kDegreeLatin1, &seconds, &err));
    EXPECT_EQ(std::string(err.detail), "Character 24 is not a hexadecimal digit.");
    // A valid ObjectId never asks the rule: it is read per row.
    snowflake::set_character_length(counted_single_byte_length);
    rule_calls = 0;
    EXPECT_TRUE(snowflake::objectid_seconds("5c4a7fcc0ed0240001a79289", &seconds, &err));
    EXPECT_EQ(seconds, 0x5c4a7fccu);
    EXPECT_EQ(rule_calls, 0);
}
