#include "error.hpp"

#include <cstdio>

namespace snowflake {

bool fail(Error *err, ErrorCode code, const char *fmt, ...) {
    if (err == nullptr) {
        return false;
    }
    *err = Error{};  // value-initialised: every buffer empty
    err->code = code;
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(err->message, sizeof err->message, fmt, args);
    va_end(args);
    return false;
}

void set_detail(Error *err, const char *fmt, ...) {
    if (err == nullptr) {
        return;
    }
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(err->detail, sizeof err->detail, fmt, args);
    va_end(args);
}

void set_hint(Error *err, const char *fmt, ...) {
    if (err == nullptr) {
        return;
    }
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(err->hint, sizeof err->hint, fmt, args);
    va_end(args);
}

namespace {

bool is_continuation(char c) {
    return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

}  // namespace

std::size_t utf8_prefix_length(std::string_view text, std::size_t max_bytes) {
    std::size_t cut = text.size() > max_bytes ? max_bytes : text.size();
    while (cut > 0 && cut < text.size() && is_continuation(text[cut])) {
        --cut;
    }
    return cut;
}

std::size_t utf8_length(std::string_view text) {
    std::size_t n = 0;
    for (char c : text) {
        n += is_continuation(c) ? 0 : 1;
    }
    return n;
}

}  // namespace snowflake
