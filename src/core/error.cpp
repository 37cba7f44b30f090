#include "error.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace snowflake {

namespace {

// vsnprintf into buf; true if the whole text fit.
__attribute__((format(printf, 3, 0))) bool format_into(char *buf, std::size_t size, const char *fmt,
                                                       va_list args) {
    const int n = std::vsnprintf(buf, size, fmt, args);
    return n >= 0 && static_cast<std::size_t>(n) < size;
}

}  // namespace

bool fail(Error *err, ErrorCode code, const char *fmt, ...) {
    if (err == nullptr) {
        return false;
    }
    *err = Error{};  // value-initialised: every buffer empty
    err->code = code;
    va_list args;
    va_start(args, fmt);
    err->truncated = !format_into(err->message, sizeof err->message, fmt, args);
    va_end(args);
    return false;
}

void set_detail(Error *err, const char *fmt, ...) {
    if (err == nullptr) {
        return;
    }
    va_list args;
    va_start(args, fmt);
    if (!format_into(err->detail, sizeof err->detail, fmt, args)) {
        err->truncated = true;
    }
    va_end(args);
}

void set_hint(Error *err, const char *fmt, ...) {
    if (err == nullptr) {
        return;
    }
    va_list args;
    va_start(args, fmt);
    if (!format_into(err->hint, sizeof err->hint, fmt, args)) {
        err->truncated = true;
    }
    va_end(args);
}

namespace {

bool is_continuation(char c) {
    return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

// Set once, when the library loads, before any call could read it.
CharacterLength installed_rule = utf8_character_length;

}  // namespace

std::size_t utf8_character_length(std::string_view rest) {
    std::size_t n = 1;
    while (n < rest.size() && is_continuation(rest[n])) {
        ++n;
    }
    return n;
}

std::size_t utf8_prefix_length(std::string_view text, std::size_t max_bytes) {
    std::size_t cut = text.size() > max_bytes ? max_bytes : text.size();
    while (cut > 0 && cut < text.size() && is_continuation(text[cut])) {
        --cut;
    }
    return cut;
}

void set_character_length(CharacterLength rule) {
    installed_rule = rule != nullptr ? rule : utf8_character_length;
}

std::size_t character_length(std::string_view rest) {
    // Whatever the rule says, a step is at least a byte and stays in the
    // text: a text invalid in its encoding cuts short, never out of bounds.
    return std::clamp<std::size_t>(installed_rule(rest), 1, rest.size());
}

std::size_t quoted_prefix_length(std::string_view text, std::size_t max_bytes) {
    if (text.size() <= max_bytes) {
        return text.size();
    }
    std::size_t cut = 0;
    while (cut < text.size()) {
        const std::size_t next = cut + character_length(text.substr(cut));
        if (next > max_bytes) {
            break;
        }
        cut = next;
    }
    return cut;
}

std::size_t character_count(std::string_view text) {
    std::size_t n = 0;
    for (std::size_t at = 0; at < text.size(); at += character_length(text.substr(at))) {
        ++n;
    }
    return n;
}

bool quote_foreign(std::string_view text, char *out, std::size_t size) {
    if (size == 0) {
        return text.empty();
    }
    if (text.size() < size) {
        std::memcpy(out, text.data(), text.size());
        out[text.size()] = '\0';
        return true;
    }
    // The mark's length depends on the count it names, which depends on
    // where the cut falls: room for the longest count keeps it simple.
    const std::size_t room = size > kForeignCutMarkMax + 1 ? size - kForeignCutMarkMax - 1 : 0;
    const std::size_t kept = utf8_prefix_length(text, room);
    std::memcpy(out, text.data(), kept);
    std::snprintf(out + kept, size - kept, " ... (%zu more bytes, in the server log)",
                  text.size() - kept);
    return false;
}

}  // namespace snowflake
