// No message, DETAIL or HINT is ever cut: the longest texts the project can
// write, built from the longest inputs, fit the buffers they pass through.
#include <cstring>
#include <string>

#include "core/epoch.hpp"
#include "core/error.hpp"
#include "core/foreign_layout.hpp"
#include "core/id_text.hpp"
#include "core/layout.hpp"
#include "core/objectid.hpp"
#include "core/redis_url.hpp"

#include <gtest/gtest.h>

using snowflake::Error;

namespace {

const std::string kHost(snowflake::kHostMax, 'h');
const std::string kDataDir = "/" + std::string(snowflake::kPathMax - 1, 'd');
const std::string kTimestamp(snowflake::kTimestampMax, 't');
const std::string kBigInt = "18446744073709551615";  // a system identifier: 20 digits
const std::string kInt = "-9223372036854775808";

std::string holder_text(const std::string &host, const std::string &dir) {
    // snowflake_registry_holder_text() and the Lua holder_text().
    return host + ":" + kInt + ", data directory " + dir + ", system identifier " + kBigInt;
}

std::string layout_text() {
    // snowflake_registry_layout_text() and the Lua layout_text().
    return kInt + " datacenter, " + kInt + " worker and " + kInt + " sequence bits from epoch " +
           kTimestamp;
}

void expect_whole(const Error &err, std::size_t message, std::size_t detail, std::size_t hint) {
    EXPECT_FALSE(err.truncated);
    EXPECT_EQ(std::strlen(err.message), message);
    EXPECT_EQ(std::strlen(err.detail), detail);
    EXPECT_EQ(std::strlen(err.hint), hint);
}

}  // namespace

TEST(Messages, HelpersReportWhatDoesNotFit) {
    Error err;
    const std::string long_text(sizeof err.detail, 'x');
    snowflake::fail(&err, snowflake::ErrorCode::registry, "%s", "short");
    EXPECT_FALSE(err.truncated);
    snowflake::set_detail(&err, "%s", long_text.c_str());
    EXPECT_TRUE(err.truncated);
    snowflake::fail(&err, snowflake::ErrorCode::registry, "%s", long_text.c_str());
    EXPECT_TRUE(err.truncated);
    snowflake::fail(&err, snowflake::ErrorCode::registry, "ok");
    snowflake::set_hint(&err, "%s", long_text.c_str());
    EXPECT_TRUE(err.truncated);
    // The largest text that fits.
    snowflake::fail(&err, snowflake::ErrorCode::registry, "%s",
                    std::string(sizeof err.message - 1, 'm').c_str());
    snowflake::set_detail(&err, "%s", std::string(sizeof err.detail - 1, 'd').c_str());
    snowflake::set_hint(&err, "%s", std::string(sizeof err.hint - 1, 'h').c_str());
    expect_whole(err, sizeof err.message - 1, sizeof err.detail - 1, sizeof err.hint - 1);
}

TEST(Messages, ForeignTextIsWholeOrMarkedWhereCut) {
    char out[snowflake::kForeignTextMax + snowflake::kForeignCutMarkMax + 1];
    const std::string fits(sizeof out - 1, 'a');
    EXPECT_TRUE(snowflake::quote_foreign(fits, out, sizeof out));
    EXPECT_EQ(fits, out);

    // Two-byte characters: the cut never splits one.
    std::string longer;
    for (int i = 0; i < 3000; ++i) {
        longer += "\xC3\xA9";
    }
    EXPECT_FALSE(snowflake::quote_foreign(longer, out, sizeof out));
    const std::string shown(out);
    EXPECT_LT(shown.size(), sizeof out);
    const std::size_t mark = shown.find(" ... (");
    ASSERT_NE(mark, std::string::npos);
    EXPECT_EQ(mark % 2, 0u);
    EXPECT_GE(mark, snowflake::kForeignTextMax);
    EXPECT_EQ(shown.substr(mark),
              " ... (" + std::to_string(longer.size() - mark) + " more bytes, in the server log)");
    EXPECT_EQ(longer.compare(0, mark, shown, 0, mark), 0);
}

// The registry's longest DETAILs (snowflake_id--1.6.sql; the Lua scripts
// write the same), with a 255-byte host and a 1023-byte data directory on
// both sides: the layout refusal names both layouts whole.
TEST(Messages, RegistryDetailsFitWhole) {
    const std::string holder = holder_text(kHost, kDataDir);
    ASSERT_EQ(holder.size(), snowflake::kRegistryHolderMax);
    ASSERT_EQ(layout_text().size(), snowflake::kRegistryLayoutMax);
    const std::string details[] = {
        "It is held by " + holder + ", whose lease runs until " + kTimestamp + "; this server is " +
            holder + ".",
        "The registry's cluster uses " + layout_text() + " (recorded by " + holder + " at " +
            kTimestamp + "); this server runs " + layout_text() +
            ". IDs of different layouts cannot be compared or decoded together.",
        "The Redis registry's cluster uses lease_ttl " + kInt + " ms and max_clock_drift " + kInt +
            " ms (recorded by " + holder + "); this server runs " + kInt + " ms and " + kInt +
            " ms. A Redis registry that lost its data waits out one lease_ttl plus "
            "max_clock_drift, so they must be the same on every server.",
        "It is held by " + holder + " since " + kTimestamp + " with fence " + kInt +
            "; this run of the server held fence " + kInt + ".",
        "Node id " + kInt + " is held by " + holder + " on timeline " + kInt +
            ", whose lease runs until " + kTimestamp + "; this server is " + holder +
            " on timeline " + kInt +
            ". Both have the same system identifier: the other is a standby of this server's, "
            "promoted.",
    };
    std::size_t longest = 0;
    for (const std::string &detail : details) {
        longest = std::max(longest, detail.size());
        Error err;
        snowflake::fail(&err, snowflake::ErrorCode::registry,
                        "the layout of this server differs from the cluster's");
        // As the stores copy it: whole, since it is the registry's own.
        EXPECT_TRUE(snowflake::quote_foreign(detail, err.detail, sizeof err.detail));
        EXPECT_EQ(detail, err.detail);
        EXPECT_FALSE(err.truncated);
    }
    EXPECT_EQ(longest, snowflake::kRegistryDetailMax);
}

// A store's failure: what failed, Redis's address, and a foreign text of
// any length (redis_store.cpp unreachable, pq_store.cpp).
TEST(Messages, StoreFailuresFitWhole) {
    char why[snowflake::kForeignTextMax + snowflake::kForeignCutMarkMax + 1];
    snowflake::quote_foreign(std::string(100000, 'w'), why, sizeof why);
    const std::string what(63, 'a');
    Error err;
    snowflake::fail(&err, snowflake::ErrorCode::registry, "%s (Redis at %s:%d): %s", what.c_str(),
                    kHost.c_str(), 65535, why);
    EXPECT_FALSE(err.truncated);
    const std::string socket = "/" + std::string(106, 's');
    snowflake::fail(&err, snowflake::ErrorCode::registry, "%s (Redis at unix socket %s): %s",
                    what.c_str(), socket.c_str(), why);
    EXPECT_FALSE(err.truncated);
    snowflake::fail(&err, snowflake::ErrorCode::registry, "%s: %s", what.c_str(), why);
    EXPECT_FALSE(err.truncated);
}

// The layout as the state file's refusal writes it, for LayoutTexts.
TEST(Messages, LayoutTextFits) {
    snowflake::Layout layout;
    Error err;
    ASSERT_TRUE(snowflake::Layout::make(snowflake::LayoutWidths{10, 10, 10}, 253402300799000,
                                        &layout, &err));
    char text[snowflake::kLayoutTextMax + 1];
    char wide[1024];
    layout.describe(text, sizeof text);
    layout.describe(wide, sizeof wide);
    EXPECT_STREQ(text, wide);
    EXPECT_EQ(std::strlen(wide), snowflake::kLayoutTextMax);
}

// The core's messages that quote input, with the longest inputs there are.
TEST(Messages, CoreMessagesQuotingInputFit) {
    const std::string huge(100000, 'x');
    std::string huge_utf8;  // three-byte characters
    for (int i = 0; i < 30000; ++i) {
        huge_utf8 += "\xE2\x82\xAC";
    }
    for (const std::string *input : {&huge, static_cast<const std::string *>(&huge_utf8)}) {
        Error err;
        int64_t ms = 0;
        EXPECT_FALSE(snowflake::parse_epoch(*input, &ms, &err));
        EXPECT_FALSE(err.truncated);
        snowflake::ForeignLayout foreign;
        EXPECT_FALSE(snowflake::parse_foreign_layout(*input, &foreign, &err));
        EXPECT_FALSE(err.truncated);
        EXPECT_FALSE(snowflake::parse_foreign_layout("time:41," + *input, &foreign, &err));
        EXPECT_FALSE(err.truncated);
        int64_t id = 0;
        EXPECT_FALSE(snowflake::parse_id_text(*input, &id, &err));
        EXPECT_FALSE(err.truncated);
        uint32_t seconds = 0;
        EXPECT_FALSE(snowflake::objectid_seconds(*input, &seconds, &err));
        EXPECT_FALSE(err.truncated);
    }
}

// Redis URLs with the longest parts: a 255-byte host, a 107-byte socket
// path, a 127-byte prefix, and parts one byte too long.
TEST(Messages, RedisUrlMessagesFit) {
    snowflake::RedisTarget target;
    Error err;
    const std::string prefix(127, 'p');
    EXPECT_TRUE(snowflake::parse_redis_url(
        "redis://:pw@" + kHost + ":65535/999999?prefix=" + prefix, &target, &err));
    EXPECT_EQ(kHost, target.host);
    EXPECT_EQ(prefix, target.prefix);
    const std::string socket = "/" + std::string(106, 's');
    EXPECT_TRUE(
        snowflake::parse_redis_url("redis+unix://" + socket + "?prefix=" + prefix, &target, &err));
    EXPECT_EQ(socket, target.socket_path);
    const std::string failing[] = {
        "redis://" + kHost + "h:6379",
        "redis+unix://" + socket + "s",
        "redis+unix://" + kDataDir,
        "redis://h?prefix=" + prefix + "p",
        "redis://h?" + kDataDir + "=1",
        "redis://" + std::string(300, 'u') + ":" + std::string(300, 'p') + "@h",
        "redis://h:" + kDataDir,
        "redis://h/" + kDataDir.substr(1),
        "rediss://h",
        kDataDir + "://h",
    };
    for (const std::string &url : failing) {
        EXPECT_FALSE(snowflake::parse_redis_url(url, &target, &err)) << url;
        EXPECT_FALSE(err.truncated) << url;
    }
}
