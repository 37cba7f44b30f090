// The address of a Redis registry of node ids (snowflake_id.registry), read
// from a URL. Its forms:
//
//   redis://[[user]:password@]host[:port][/db][?prefix=P]
//   redis+unix://[[user]:password@]/path/to/redis.sock[?db=N&prefix=P]
//
// The port defaults to 6379, db to 0, and the key prefix to "snowflake_id"
// (several clusters can share one Redis under different prefixes). User and
// password are percent-decoded. rediss:// (TLS) is refused: Debian 12's
// hiredis 0.14 has no TLS support.
#pragma once
#include "pure_cpp.hpp"

#include <string_view>

#include "error.hpp"

namespace snowflake {

struct RedisTarget {
    bool unix_socket = false;
    char host[256] = {};
    int port = 6379;
    char socket_path[108] = {};  // sun_path's size
    char user[128] = {};         // empty: AUTH with the password only (the default user)
    char password[256] = {};     // empty: no AUTH
    int db = 0;
    char prefix[128] = {};
};

// What a registry setting names, by its URL scheme (case-insensitive,
// leading blanks ignored): Redis (redis, redis+unix, rediss), PostgreSQL (a
// postgres:// or postgresql:// URI, or a keyword=value string), or a
// scheme neither store knows, which is refused before libpq could quote the
// text (and its password) in an error.
enum class RegistryKind { postgresql, redis, unknown_scheme };
RegistryKind registry_kind(std::string_view text);

bool is_redis_url(std::string_view text);

bool parse_redis_url(std::string_view text, RedisTarget *out, Error *err);

}  // namespace snowflake
