// parse_redis_url: the forms snowflake_id.registry takes for Redis, and the
// refusals, which never quote the password.
#include "core/redis_url.hpp"

#include <gtest/gtest.h>

#include <string>

using snowflake::Error;
using snowflake::is_redis_url;
using snowflake::parse_redis_url;
using snowflake::RedisTarget;

TEST(RedisUrl, TcpWithDefaults) {
    RedisTarget t;
    Error err;
    ASSERT_TRUE(parse_redis_url("redis://cache.internal", &t, &err)) << err.message;
    EXPECT_FALSE(t.unix_socket);
    EXPECT_STREQ(t.host, "cache.internal");
    EXPECT_EQ(t.port, 6379);
    EXPECT_EQ(t.db, 0);
    EXPECT_STREQ(t.prefix, "snowflake_id");
    EXPECT_STREQ(t.user, "");
    EXPECT_STREQ(t.password, "");
}

TEST(RedisUrl, TcpWithEverything) {
    RedisTarget t;
    Error err;
    ASSERT_TRUE(parse_redis_url("redis://ids:s%40cret@10.0.0.5:6380/3?prefix=prod", &t, &err))
        << err.message;
    EXPECT_STREQ(t.host, "10.0.0.5");
    EXPECT_EQ(t.port, 6380);
    EXPECT_EQ(t.db, 3);
    EXPECT_STREQ(t.user, "ids");
    EXPECT_STREQ(t.password, "s@cret");
    EXPECT_STREQ(t.prefix, "prod");
}

TEST(RedisUrl, PasswordOnly) {
    RedisTarget t;
    Error err;
    ASSERT_TRUE(parse_redis_url("redis://:pw@localhost", &t, &err)) << err.message;
    EXPECT_STREQ(t.user, "");
    EXPECT_STREQ(t.password, "pw");
}

TEST(RedisUrl, UnixSocket) {
    RedisTarget t;
    Error err;
    ASSERT_TRUE(parse_redis_url("redis+unix:///run/redis/redis.sock?db=2&prefix=a", &t, &err))
        << err.message;
    EXPECT_TRUE(t.unix_socket);
    EXPECT_STREQ(t.socket_path, "/run/redis/redis.sock");
    EXPECT_EQ(t.db, 2);
    EXPECT_STREQ(t.prefix, "a");
}

TEST(RedisUrl, WhichSettingsAreRedis) {
    EXPECT_TRUE(is_redis_url("redis://h"));
    EXPECT_TRUE(is_redis_url("redis+unix:///s"));
    EXPECT_TRUE(is_redis_url("rediss://h"));
    EXPECT_FALSE(is_redis_url("host=h dbname=registry"));
    EXPECT_FALSE(is_redis_url("postgresql://h/registry"));
}

TEST(RedisUrl, Refusals) {
    const char *bad[] = {
        "rediss://h",        "redis://",    "redis://h:0",           "redis://h:65536",
        "redis://h:x",       "redis://h/x", "redis+unix://rel.sock", "redis://h?foo=1",
        "redis://h?prefix=", "redis://u@h", "redis://:%zz@h"};
    for (const char *url : bad) {
        RedisTarget t;
        Error err;
        EXPECT_FALSE(parse_redis_url(url, &t, &err)) << url;
        EXPECT_NE(err.message[0], '\0') << url;
    }
}

TEST(RedisUrl, RefusalsNeverQuoteThePassword) {
    const char *bad[] = {"redis://user:topsecret@h:x", "redis://topsecret@h",
                         "redis://u:topsecret@h?bad=1"};
    for (const char *url : bad) {
        RedisTarget t;
        Error err;
        ASSERT_FALSE(parse_redis_url(url, &t, &err)) << url;
        const std::string all = std::string(err.message) + err.detail + err.hint;
        EXPECT_EQ(all.find("topsecret"), std::string::npos) << all;
    }
}

TEST(RedisUrl, RegistryKinds) {
    using snowflake::registry_kind;
    using snowflake::RegistryKind;
    EXPECT_EQ(registry_kind("host=h dbname=r"), RegistryKind::postgresql);
    EXPECT_EQ(registry_kind("postgresql://u:p@h/r"), RegistryKind::postgresql);
    EXPECT_EQ(registry_kind("Postgres://h/r"), RegistryKind::postgresql);
    EXPECT_EQ(registry_kind("host=h options='-c x=a://b'"), RegistryKind::postgresql);
    EXPECT_EQ(registry_kind("  Redis://h"), RegistryKind::redis);
    EXPECT_EQ(registry_kind("REDIS+UNIX:///s"), RegistryKind::redis);
    EXPECT_EQ(registry_kind("memcached://u:pw@h"), RegistryKind::unknown_scheme);
    EXPECT_EQ(registry_kind("http://h"), RegistryKind::unknown_scheme);
}

TEST(RedisUrl, SchemeCaseAndBlanks) {
    RedisTarget t;
    Error err;
    ASSERT_TRUE(parse_redis_url("  Redis://h:7000/1", &t, &err)) << err.message;
    EXPECT_STREQ(t.host, "h");
    EXPECT_EQ(t.port, 7000);
    EXPECT_EQ(t.db, 1);
}

TEST(RedisUrl, PasswordWithQuestionMarkAndAt) {
    RedisTarget t;
    Error err;
    ASSERT_TRUE(parse_redis_url("redis://u:a?b@c@h:6380?prefix=p", &t, &err)) << err.message;
    EXPECT_STREQ(t.user, "u");
    EXPECT_STREQ(t.password, "a?b@c");
    EXPECT_STREQ(t.host, "h");
    EXPECT_EQ(t.port, 6380);
    EXPECT_STREQ(t.prefix, "p");
    // A fault after it never quotes it.
    ASSERT_FALSE(parse_redis_url("redis://u:top?secret@h:x", &t, &err));
    const std::string all = std::string(err.message) + err.detail + err.hint;
    EXPECT_EQ(all.find("secret"), std::string::npos) << all;
}
