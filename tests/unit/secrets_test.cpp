// mask_secrets, mask_quoted and bad_percent_escape_part: what keeps the
// registry's password out of lease_message, refusals and the log.
#include "core/secrets.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace {

std::string masked(const std::string &text) {
    char out[512];
    snowflake::mask_secrets(text, out, sizeof out);
    return out;
}

std::string quoted_masked(const std::string &text) {
    char out[512];
    snowflake::mask_quoted(text, out, sizeof out);
    return out;
}

std::string part_of(const std::string &uri) {
    char part[80];
    return snowflake::bad_percent_escape_part(uri, part, sizeof part) ? part : "(none)";
}

}  // namespace

TEST(Secrets, KeywordPasswords) {
    EXPECT_EQ(masked("host=h password=s3cret dbname=d"), "host=h password=*** dbname=d");
    EXPECT_EQ(masked("host=h PASSWORD = s3cret"), "host=h PASSWORD = ***");
    EXPECT_EQ(masked("password='a b\\' c' port=5"), "password=*** port=5");
    EXPECT_EQ(masked("password='unterminated"), "password=***");
    // libpq's sslpassword (the client key's) is as secret.
    EXPECT_EQ(masked("host=h sslpassword=s3cret sslmode=require"),
              "host=h sslpassword=*** sslmode=require");
    EXPECT_EQ(masked("sslpassword = 's3 cret'"), "sslpassword = ***");
    EXPECT_EQ(masked("no password here"), "no password here");
}

TEST(Secrets, UriCredentials) {
    EXPECT_EQ(masked("postgresql://ids:s3cret@db1:5432/reg"), "postgresql://ids:***@db1:5432/reg");
    EXPECT_EQ(masked("postgresql://ids@db1/reg?password=s3cret&sslmode=require"),
              "postgresql://ids@db1/reg?password=***");
    EXPECT_EQ(masked("redis://:s3cret@cache:6379/0"), "redis://:***@cache:6379/0");
    EXPECT_EQ(masked("redis+unix://u:p%40ss@/run/redis.sock"),
              "redis+unix://u:***@/run/redis.sock");
    // No credentials: unchanged, a user name kept.
    EXPECT_EQ(masked("postgresql://ids@db1/reg"), "postgresql://ids@db1/reg");
    EXPECT_EQ(masked("connection to server at \"db1\" (10.0.0.1), port 5432 failed"),
              "connection to server at \"db1\" (10.0.0.1), port 5432 failed");
}

TEST(Secrets, PercentEncodedQueryKeys) {
    // libpq decodes a URI's query keys before it looks them up.
    EXPECT_EQ(masked("postgresql://db1/reg?pass%77ord=s3cret"),
              "postgresql://db1/reg?pass%77ord=***");
    EXPECT_EQ(masked("postgresql://db1/reg?%70%61%73%73%77%6F%72%64=s3cret"),
              "postgresql://db1/reg?%70%61%73%73%77%6F%72%64=***");
    EXPECT_EQ(masked("postgresql://db1/reg?sslmode=require&ssl%50assword=s3cret"),
              "postgresql://db1/reg?sslmode=require&ssl%50assword=***");
    // A "%" that encodes another letter is no password key.
    EXPECT_EQ(masked("postgresql://db1/reg?pass%78ord=x"), "postgresql://db1/reg?pass%78ord=x");
}

TEST(Secrets, StoreErrorMaskedWhole) {
    snowflake::Error err{};
    snprintf(err.message, sizeof err.message, "could not connect: password=s3cret");
    snprintf(err.detail, sizeof err.detail, "postgresql://ids:s3cret@db1/reg");
    snprintf(err.hint, sizeof err.hint, "check sslpassword=s3cret");
    snowflake::mask_error(&err);
    EXPECT_STREQ(err.message, "could not connect: password=***");
    EXPECT_STREQ(err.detail, "postgresql://ids:***@db1/reg");
    EXPECT_STREQ(err.hint, "check sslpassword=***");
}

TEST(Secrets, LibpqQuotedToken) {
    EXPECT_EQ(masked("invalid percent-encoded token: \"se%zzcret\""),
              "invalid percent-encoded token: \"***\"");
}

TEST(Secrets, CutToTheBuffer) {
    char out[8];
    snowflake::mask_secrets("password=abcdefghijkl", out, sizeof out);
    EXPECT_STREQ(out, "passwor");
}

TEST(Secrets, MaskQuoted) {
    EXPECT_EQ(quoted_masked("missing \"=\" after \"b\" in connection info string"),
              "missing \"=\" after \"...\" in connection info string");
    EXPECT_EQ(quoted_masked("invalid percent-encoded token: \"s%zz\""),
              "invalid percent-encoded token: \"...\"");
    EXPECT_EQ(quoted_masked("unterminated \"quote"), "unterminated \"...\"");
}

TEST(Secrets, BadPercentEscapePart) {
    EXPECT_EQ(part_of("postgresql://ids:50%off@db1/reg"), "password");
    EXPECT_EQ(part_of("postgresql://ids:50%2@db1/reg"), "password");
    EXPECT_EQ(part_of("postgresql://ids:50%@db1/reg"), "password");
    EXPECT_EQ(part_of("postgres://i%d:pw@db1/reg"), "user name");
    EXPECT_EQ(part_of("postgresql://db%1/reg"), "host list");
    EXPECT_EQ(part_of("postgresql://db1/re%g"), "database name");
    EXPECT_EQ(part_of("postgresql://db1/reg?password=50%off"), "parameter password");
    EXPECT_EQ(part_of("postgresql://db1/reg?pass%word=x"), "parameter name");
    EXPECT_EQ(part_of("postgresql://ids:50%25off@db1/reg?sslmode=require"), "(none)");
    EXPECT_EQ(part_of("host=db1 password=50%off"), "(none)");
}
