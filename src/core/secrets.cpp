#include "secrets.hpp"

#include <cctype>
#include <cstdio>
#include <cstring>

namespace snowflake {

namespace {

// Appends to a bounded, terminated buffer; what does not fit is dropped.
struct Out {
    char *buf;
    std::size_t size;
    std::size_t len = 0;
    void put(char c) {
        if (len + 1 < size) {
            buf[len++] = c;
        }
        buf[len < size ? len : size - 1] = '\0';
    }
    void put(std::string_view s) {
        for (char c : s) {
            put(c);
        }
    }
};

bool is_space(char c) {
    return std::isspace(static_cast<unsigned char>(c)) != 0;
}

bool is_word(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

bool starts_with_nocase(std::string_view text, std::size_t at, std::string_view word) {
    if (text.size() - at < word.size()) {
        return false;
    }
    for (std::size_t k = 0; k < word.size(); ++k) {
        if (std::tolower(static_cast<unsigned char>(text[at + k])) != word[k]) {
            return false;
        }
    }
    return true;
}

int hex_value(char c) {
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    const int lower = std::tolower(static_cast<unsigned char>(c));
    return lower >= 'a' && lower <= 'f' ? lower - 'a' + 10 : -1;
}

// Where "password" at text[at] ends, npos if it is not there. Each letter
// may be percent-encoded, as libpq decodes a URI's query keys before it
// looks them up; letter case is ignored. The word may end a longer one:
// libpq's sslpassword is a secret too, and more masked is no harm.
std::size_t password_key_end(std::string_view text, std::size_t at) {
    constexpr std::string_view kKey = "password";
    std::size_t i = at;
    for (char want : kKey) {
        if (i >= text.size()) {
            return std::string_view::npos;
        }
        int got = std::tolower(static_cast<unsigned char>(text[i]));
        std::size_t width = 1;
        if (text[i] == '%' && i + 2 < text.size() && hex_value(text[i + 1]) >= 0 &&
            hex_value(text[i + 2]) >= 0) {
            got = std::tolower(hex_value(text[i + 1]) * 16 + hex_value(text[i + 2]));
            width = 3;
        }
        if (got != want) {
            return std::string_view::npos;
        }
        i += width;
    }
    return i;
}

// At text[at], a password keyword followed by "=": where its value starts
// and ends (a quoted value with backslash escapes, else up to white space).
bool password_value(std::string_view text, std::size_t at, std::size_t *begin, std::size_t *end) {
    std::size_t i = password_key_end(text, at);
    if (i == std::string_view::npos) {
        return false;
    }
    while (i < text.size() && is_space(text[i])) {
        ++i;
    }
    if (i >= text.size() || text[i] != '=') {
        return false;
    }
    ++i;
    while (i < text.size() && is_space(text[i])) {
        ++i;
    }
    *begin = i;
    if (i < text.size() && text[i] == '\'') {
        ++i;
        while (i < text.size() && text[i] != '\'') {
            i += (text[i] == '\\' && i + 1 < text.size()) ? 2 : 1;
        }
        *end = i < text.size() ? i + 1 : i;
        return true;
    }
    while (i < text.size() && !is_space(text[i])) {
        ++i;
    }
    *end = i;
    return true;
}

// At text[at] == "://": where the password of a user:password@ after it
// starts and ends (libpq and hiredis take the credentials up to an "@"
// before the first "/").
bool userinfo_password(std::string_view text, std::size_t at, std::size_t *begin,
                       std::size_t *end) {
    if (text.compare(at, 3, "://") != 0) {
        return false;
    }
    const std::size_t start = at + 3;
    std::size_t colon = std::string_view::npos;
    for (std::size_t i = start; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '/' || is_space(c)) {
            return false;
        }
        if (c == ':' && colon == std::string_view::npos) {
            colon = i;
        }
        if (c == '@') {
            if (colon == std::string_view::npos) {
                return false;
            }
            *begin = colon + 1;
            *end = i;
            return true;
        }
    }
    return false;
}

bool quoted_token(std::string_view text, std::size_t at, std::size_t *begin, std::size_t *end) {
    constexpr std::string_view kLead = "percent-encoded token: \"";
    if (text.compare(at, kLead.size(), kLead) != 0) {
        return false;
    }
    *begin = at + kLead.size();
    const std::size_t close = text.find('"', *begin);
    *end = close == std::string_view::npos ? text.size() : close;
    return true;
}

bool is_hex(char c) {
    return std::isxdigit(static_cast<unsigned char>(c)) != 0;
}

// The first "%" in text not followed by two hexadecimal digits, or npos.
std::size_t bad_escape(std::string_view text) {
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '%' &&
            (i + 2 >= text.size() || !is_hex(text[i + 1]) || !is_hex(text[i + 2]))) {
            return i;
        }
    }
    return std::string_view::npos;
}

bool name_part(const char *name, char *part, std::size_t size) {
    std::snprintf(part, size, "%s", name);
    return true;
}

}  // namespace

void mask_secrets(std::string_view text, char *out, std::size_t size) {
    if (size == 0) {
        return;
    }
    Out o{out, size};
    out[0] = '\0';
    std::size_t i = 0;
    while (i < text.size()) {
        std::size_t begin = 0, end = 0;
        if (password_value(text, i, &begin, &end) || userinfo_password(text, i, &begin, &end) ||
            quoted_token(text, i, &begin, &end)) {
            o.put(text.substr(i, begin - i));
            o.put("***");
            i = end;
            continue;
        }
        o.put(text[i]);
        ++i;
    }
}

void mask_error(Error *err) {
    // Each text is masked into a buffer of its own size, so that it fits
    // back whole.
    char masked[sizeof err->detail];
    mask_secrets(err->message, masked, sizeof err->message);
    std::memcpy(err->message, masked, std::strlen(masked) + 1);
    mask_secrets(err->detail, masked, sizeof err->detail);
    std::memcpy(err->detail, masked, std::strlen(masked) + 1);
    mask_secrets(err->hint, masked, sizeof err->hint);
    std::memcpy(err->hint, masked, std::strlen(masked) + 1);
}

void mask_quoted(std::string_view text, char *out, std::size_t size) {
    if (size == 0) {
        return;
    }
    Out o{out, size};
    out[0] = '\0';
    std::size_t i = 0;
    while (i < text.size()) {
        if (text[i] != '"') {
            o.put(text[i++]);
            continue;
        }
        const std::size_t close = text.find('"', i + 1);
        const std::size_t stop = close == std::string_view::npos ? text.size() : close + 1;
        const std::string_view quoted = text.substr(i, stop - i);
        o.put(quoted == "\"=\"" ? quoted : std::string_view("\"...\""));
        i = stop;
    }
}

bool bad_percent_escape_part(std::string_view text, char *part, std::size_t size) {
    std::size_t start = 0;
    while (start < text.size() && is_space(text[start])) {
        ++start;
    }
    std::size_t p = std::string_view::npos;
    for (std::string_view scheme : {"postgresql://", "postgres://"}) {
        if (starts_with_nocase(text, start, scheme)) {
            p = start + scheme.size();
            break;
        }
    }
    if (p == std::string_view::npos) {
        return false;
    }
    const std::string_view rest = text.substr(p);
    // The credentials: up to an "@" before the first "/", as libpq reads them.
    std::size_t host_start = 0;
    const std::size_t at = rest.find_first_of("@/");
    if (at != std::string_view::npos && rest[at] == '@') {
        const std::string_view userinfo = rest.substr(0, at);
        const std::size_t colon = userinfo.find(':');
        if (bad_escape(userinfo.substr(0, colon)) != std::string_view::npos) {
            return name_part("user name", part, size);
        }
        if (colon != std::string_view::npos &&
            bad_escape(userinfo.substr(colon + 1)) != std::string_view::npos) {
            return name_part("password", part, size);
        }
        host_start = at + 1;
    }
    const std::size_t query = rest.find('?', host_start);
    const std::string_view before_query = rest.substr(
        host_start, query == std::string_view::npos ? std::string_view::npos : query - host_start);
    const std::size_t slash = before_query.find('/');
    if (bad_escape(before_query.substr(0, slash)) != std::string_view::npos) {
        return name_part("host list", part, size);
    }
    if (slash != std::string_view::npos &&
        bad_escape(before_query.substr(slash + 1)) != std::string_view::npos) {
        return name_part("database name", part, size);
    }
    if (query == std::string_view::npos) {
        return false;
    }
    std::string_view params = rest.substr(query + 1);
    while (!params.empty()) {
        const std::size_t amp = params.find('&');
        const std::string_view param = params.substr(0, amp);
        const std::size_t eq = param.find('=');
        const std::string_view key = param.substr(0, eq);
        if (bad_escape(key) != std::string_view::npos) {
            return name_part("parameter name", part, size);
        }
        if (eq != std::string_view::npos &&
            bad_escape(param.substr(eq + 1)) != std::string_view::npos) {
            // A query key is a keyword of libpq's, not a secret; cut to a word.
            std::size_t n = 0;
            while (n < key.size() && n < 64 && is_word(key[n])) {
                ++n;
            }
            std::snprintf(part, size, "parameter %.*s", static_cast<int>(n), key.data());
            return true;
        }
        if (amp == std::string_view::npos) {
            break;
        }
        params = params.substr(amp + 1);
    }
    return false;
}

}  // namespace snowflake
