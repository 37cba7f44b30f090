#include "id_text.hpp"

namespace snowflake {

namespace {

bool is_blank(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

// A date or a time where an ID was expected: most often id < '2026-11-01',
// whose literal takes the type of the other side, as for every operator.
bool looks_like_a_time(std::string_view t) {
    if (t == "now" || t == "today" || t == "yesterday" || t == "tomorrow" || t == "infinity" ||
        t == "-infinity" || t == "epoch") {
        return true;
    }
    std::size_t digits = 0;
    while (digits < t.size() && t[digits] >= '0' && t[digits] <= '9') {
        ++digits;
    }
    return digits > 0 && digits < t.size() &&
           (t[digits] == '-' || t[digits] == ':' || t[digits] == '/');
}

bool not_an_id(std::string_view text, std::string_view trimmed, Error *err) {
    const int shown = static_cast<int>(quoted_prefix_length(text, 100));
    fail(err, ErrorCode::invalid_id_text, "invalid input syntax for type snowflake: \"%.*s%s\"",
         shown, text.data(), static_cast<std::size_t>(shown) < text.size() ? "..." : "");
    if (looks_like_a_time(trimmed)) {
        set_hint(err,
                 "To compare IDs with a time, write the time as a timestamptz: "
                 "id < timestamptz '%.*s'.",
                 shown, text.data());
    } else {
        set_hint(err,
                 "A snowflake is written as the decimal digits of a non-negative bigint, "
                 "such as '912291816210986656'.");
    }
    return false;
}

bool out_of_range(std::string_view text, Error *err) {
    const int shown = static_cast<int>(quoted_prefix_length(text, 100));
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
    const std::string_view trimmed = t;
    if (!t.empty() && (t.front() == '+' || t.front() == '-')) {
        negative = t.front() == '-';
        t.remove_prefix(1);
    }
    if (t.empty()) {
        return not_an_id(text, trimmed, err);
    }
    uint64_t v = 0;
    bool overflow = false;
    for (char c : t) {
        if (c < '0' || c > '9') {
            return not_an_id(text, trimmed, err);
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
