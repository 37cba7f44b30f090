#include "redis_url.hpp"

#include "hex.hpp"

#include <cstdio>
#include <cstring>

namespace snowflake {

namespace {

constexpr const char *kDefaultPrefix = "snowflake_id";
constexpr const char *kForm =
    "redis://[[user]:password@]host[:port][/db][?prefix=P] or "
    "redis+unix://[[user]:password@]/path/to/redis.sock[?db=N&prefix=P]";

// Percent-decodes text into out (size bytes, NUL-terminated).
bool decode_into(std::string_view text, char *out, std::size_t size, const char *what, Error *err) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (c == '%') {
            const bool two_follow = i + 2 < text.size();
            const int hi = two_follow ? hex_value(text[i + 1]) : -1;
            const int lo = two_follow ? hex_value(text[i + 2]) : -1;
            if (hi < 0 || lo < 0) {
                fail(err, ErrorCode::invalid_setting, "invalid %s in the Redis URL", what);
                set_detail(err, "\"%%\" must be followed by two hexadecimal digits.");
                return false;
            }
            c = static_cast<char>(hi * 16 + lo);
            i += 2;
        }
        if (c == '\0' || n + 1 >= size) {
            fail(err, ErrorCode::invalid_setting, "invalid %s in the Redis URL", what);
            set_detail(err, "It is longer than %zu bytes or holds a NUL byte.", size - 1);
            return false;
        }
        out[n++] = c;
    }
    out[n] = '\0';
    return true;
}

bool parse_int(std::string_view text, int min, int max, int *out) {
    if (text.empty() || text.size() > 9) {
        return false;
    }
    int v = 0;
    for (char c : text) {
        if (c < '0' || c > '9') {
            return false;
        }
        v = v * 10 + (c - '0');
    }
    if (v < min || v > max) {
        return false;
    }
    *out = v;
    return true;
}

// The URL itself is never quoted: it may hold a password.
bool bad(Error *err, std::string_view, const char *detail_fmt, std::string_view part) {
    fail(err, ErrorCode::invalid_setting, "invalid Redis URL");
    // Cut, the part is marked as every quote of input is.
    constexpr std::size_t kShownMax = 120;
    char shown[kShownMax + sizeof "..."];
    const std::size_t kept = quoted_prefix_length(part, kShownMax);
    std::memcpy(shown, part.data(), kept);
    const int n =
        std::snprintf(shown + kept, sizeof shown - kept, "%s", kept < part.size() ? "..." : "");
    set_detail(err, detail_fmt, static_cast<int>(kept) + n, shown);
    set_hint(err, "Write it as %s.", kForm);
    return false;
}

std::string_view trim_leading_blanks(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) {
        text.remove_prefix(1);
    }
    return text;
}

// The scheme before "://", lowercased into out; false if there is none.
bool scheme_of(std::string_view text, char *out, std::size_t size) {
    const std::size_t sep = text.find("://");
    if (sep == std::string_view::npos || sep == 0 || sep >= size) {
        return false;
    }
    for (std::size_t i = 0; i < sep; ++i) {
        const char c = text[i];
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                        (i > 0 && ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.'));
        if (!ok) {
            return false;  // a keyword=value string holding "://" in a value
        }
        out[i] = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    }
    out[sep] = '\0';
    return true;
}

}  // namespace

RegistryKind registry_kind(std::string_view text) {
    char scheme[32];
    if (!scheme_of(trim_leading_blanks(text), scheme, sizeof scheme)) {
        return RegistryKind::postgresql;
    }
    if (strcmp(scheme, "redis") == 0 || strcmp(scheme, "redis+unix") == 0 ||
        strcmp(scheme, "rediss") == 0) {
        return RegistryKind::redis;
    }
    if (strcmp(scheme, "postgres") == 0 || strcmp(scheme, "postgresql") == 0) {
        return RegistryKind::postgresql;
    }
    return RegistryKind::unknown_scheme;
}

bool is_redis_url(std::string_view text) {
    return registry_kind(text) == RegistryKind::redis;
}

bool parse_redis_url(std::string_view text, RedisTarget *out, Error *err) {
    *out = RedisTarget{};
    text = trim_leading_blanks(text);
    char scheme[32] = "";
    if (!scheme_of(text, scheme, sizeof scheme)) {
        return bad(err, text, "It does not start with %.*s.", "redis:// or redis+unix://");
    }
    std::string_view rest = text.substr(strlen(scheme) + 3);
    if (strcmp(scheme, "rediss") == 0) {
        fail(err, ErrorCode::invalid_setting, "Redis over TLS (rediss://) is not supported");
        set_detail(err, "snowflake_id uses Debian 12's hiredis 0.14, which has no TLS support.");
        set_hint(err,
                 "Reach Redis over a unix socket or a private network, or through a TLS "
                 "tunnel (stunnel) on the server's own host.");
        return false;
    }
    if (strcmp(scheme, "redis+unix") == 0) {
        out->unix_socket = true;
    } else if (strcmp(scheme, "redis") != 0) {
        return bad(err, text, "It does not start with %.*s.", "redis:// or redis+unix://");
    }
    // user:password@ first, split at the last '@' (a password may hold one,
    // or a '?', encoded or not); the query comes after the address.
    std::string_view query;
    const std::size_t at = rest.rfind('@');
    if (const std::size_t q = rest.find('?', at == std::string_view::npos ? 0 : at);
        q != std::string_view::npos) {
        query = rest.substr(q + 1);
        rest = rest.substr(0, q);
    }
    if (at != std::string_view::npos) {
        const std::string_view userinfo = rest.substr(0, at);
        rest = rest.substr(at + 1);
        const std::size_t colon = userinfo.find(':');
        if (colon == std::string_view::npos) {
            // Not quoted: it is the password.
            return bad(err, text, "The part before \"@\" must be user:password or :password%.*s.",
                       "");
        }
        if (!decode_into(userinfo.substr(0, colon), out->user, sizeof out->user, "user", err) ||
            !decode_into(userinfo.substr(colon + 1), out->password, sizeof out->password,
                         "password", err)) {
            return false;
        }
    }
    std::string_view db_text;
    if (out->unix_socket) {
        if (!rest.starts_with('/')) {
            return bad(err, text, "A unix socket path must be absolute, not \"%.*s\".", rest);
        }
        if (rest.size() >= sizeof out->socket_path) {
            return bad(err, text, "The socket path \"%.*s\" is too long.", rest);
        }
        memcpy(out->socket_path, rest.data(), rest.size());
    } else {
        std::string_view hostport = rest;
        if (const std::size_t slash = rest.find('/'); slash != std::string_view::npos) {
            hostport = rest.substr(0, slash);
            db_text = rest.substr(slash + 1);
        }
        std::string_view host = hostport;
        if (const std::size_t colon = hostport.rfind(':'); colon != std::string_view::npos) {
            host = hostport.substr(0, colon);
            if (!parse_int(hostport.substr(colon + 1), 1, 65535, &out->port)) {
                return bad(err, text, "The port \"%.*s\" is not a number from 1 to 65535.",
                           hostport.substr(colon + 1));
            }
        }
        if (host.empty() || host.size() >= sizeof out->host) {
            return bad(err, text, "The host \"%.*s\" is empty or too long.", host);
        }
        memcpy(out->host, host.data(), host.size());
    }
    std::string_view prefix = kDefaultPrefix;
    while (!query.empty()) {
        std::string_view item = query;
        if (const std::size_t amp = query.find('&'); amp != std::string_view::npos) {
            item = query.substr(0, amp);
            query = query.substr(amp + 1);
        } else {
            query = {};
        }
        if (item.starts_with("db=")) {
            db_text = item.substr(3);
        } else if (item.starts_with("prefix=")) {
            prefix = item.substr(7);
        } else {
            return bad(err, text, "Unknown parameter \"%.*s\": only db and prefix are known.",
                       item);
        }
    }
    if (!db_text.empty() && !parse_int(db_text, 0, 1000000, &out->db)) {
        return bad(err, text, "The database \"%.*s\" is not a number.", db_text);
    }
    if (prefix.empty() ||
        !decode_into(prefix, out->prefix, sizeof out->prefix, "key prefix", err)) {
        if (prefix.empty()) {
            return bad(err, text, "The key prefix is empty%.*s.", "");
        }
        return false;
    }
    return true;
}

}  // namespace snowflake
