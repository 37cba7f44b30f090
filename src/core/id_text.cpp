#include "id_text.hpp"

namespace snowflake {

namespace {

bool is_blank(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

bool not_an_id(std::string_view text, Error *err) {
    const int shown = static_cast<int>(utf8_prefix_length(text, 100));
    fail(err, ErrorCode::invalid_id_text, "invalid input syntax for type snowflake: \"%.*s%s\"",
         shown, text.data(), static_cast<std::size_t>(shown) < text.size() ? "..." : "");
    set_hint(err,
             "A snowflake is written as the decimal digits of a non-negative bigint, "
             "such as '912291816210986656'.");
    return false;
}

bool out_of_range(std::string_view text, Error *err) {
    const int shown = static_cast<int>(utf8_prefix_length(text, 100));
    fail(err, ErrorCode::id_out_of_range, "value \"%.*s%s\" is out of range for type snowflake",
         shown, text.data(), static_cast<std::size_t>(shown) < text.size() ? "..." : "");
    set_detail(err, "A snowflake lies between 0 and 9223372036854775807.");
    return false;
}

}  // namespace

bool parse_id_text(std::string_view text, int64_t *out, Error *err) {
    std::string_view t = text;
    while (!t.empty() && is_blank(t.front())) {
        t.remove_prefix(1);
    }
    while (!t.empty() && is_blank(t.back())) {
        t.remove_suffix(1);
    }
    bool negative = false;
    if (!t.empty() && (t.front() == '+' || t.front() == '-')) {
        negative = t.front() == '-';
        t.remove_prefix(1);
    }
    if (t.empty()) {
        return not_an_id(text, err);
    }
    uint64_t v = 0;
    bool overflow = false;
    for (char c : t) {
        if (c < '0' || c > '9') {
            return not_an_id(text, err);
        }
        const uint64_t digit = static_cast<uint64_t>(c - '0');
        if (v > (UINT64_C(0x7FFFFFFFFFFFFFFF) - digit) / 10) {
            overflow = true;
        } else {
            v = v * 10 + digit;
        }
    }
    if (overflow || (negative && v != 0)) {
        return out_of_range(text, err);
    }
    *out = static_cast<int64_t>(v);
    return true;
}

}  // namespace snowflake
