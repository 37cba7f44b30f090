#include "objectid.hpp"

#include "hex.hpp"

namespace snowflake {

namespace {

constexpr char kHexDigits[] = "0123456789abcdef";

void put_byte(uint8_t b, char *out) {
    out[0] = kHexDigits[b >> 4];
    out[1] = kHexDigits[b & 0xF];
}

}  // namespace

void format_objectid(uint32_t seconds, const uint8_t process_random[5], uint32_t counter,
                     char out[kObjectIdHexLength + 1]) {
    uint8_t bytes[12];
    for (int i = 0; i < 4; ++i) {
        bytes[i] = static_cast<uint8_t>(seconds >> (24 - 8 * i));
    }
    for (int i = 0; i < 5; ++i) {
        bytes[4 + i] = process_random[i];
    }
    for (int i = 0; i < 3; ++i) {
        bytes[9 + i] = static_cast<uint8_t>(counter >> (16 - 8 * i));
    }
    for (int i = 0; i < 12; ++i) {
        put_byte(bytes[i], out + 2 * i);
    }
    out[kObjectIdHexLength] = '\0';
}

bool ObjectIdCounter::next(uint32_t now_seconds, uint32_t *seconds, uint32_t *counter) {
    if (now_seconds > second_) {
        second_ = now_seconds;
        used_in_second_ = 0;
    }
    if (used_in_second_ > kObjectIdCounterMask) {
        return false;
    }
    ++used_in_second_;
    *seconds = second_;
    *counter = counter_;
    counter_ = (counter_ + 1) & kObjectIdCounterMask;
    return true;
}

namespace {

bool bad_objectid(Error *err, std::string_view text) {
    // Quote at most 64 bytes of the input: enough to recognise it.
    const std::size_t cut = quoted_prefix_length(text, 64);
    fail(err, ErrorCode::invalid_objectid, "invalid ObjectId \"%.*s%s\"", static_cast<int>(cut),
         text.data(), cut < text.size() ? "..." : "");
    set_hint(err,
             "An ObjectId is written as 24 hexadecimal digits, such as "
             "\"5c4a7fcc0ed0240001a79289\".");
    return false;
}

}  // namespace

bool objectid_seconds(std::string_view text, uint32_t *seconds, Error *err) {
    uint32_t v = 0;
    std::size_t digits = 0;
    for (; digits < text.size() && digits < kObjectIdHexLength; ++digits) {
        const int d = hex_value(text[digits]);
        if (d < 0) {
            break;
        }
        if (digits < 8) {
            v = (v << 4) | static_cast<uint32_t>(d);
        }
    }
    if (digits == kObjectIdHexLength && text.size() == kObjectIdHexLength) {
        *seconds = v;
        return true;
    }
    // Counted in characters of the database's encoding, as the user typed
    // them: the length first, then the first character that is no digit.
    const std::size_t characters = character_count(text);
    bad_objectid(err, text);
    if (characters != kObjectIdHexLength) {
        set_detail(err, "An ObjectId is %d hexadecimal digits; this text has %zu characters.",
                   kObjectIdHexLength, characters);
        return false;
    }
    // A digit is a character of one byte; 24 of them would have passed above.
    std::size_t at = 0;
    std::size_t character = 1;
    while (hex_value(text[at]) >= 0 && character_length(text.substr(at)) == 1) {
        ++at;
        ++character;
    }
    if (text[at] >= ' ' && text[at] <= '~') {
        set_detail(err, "Character %zu, \"%c\", is not a hexadecimal digit.", character, text[at]);
    } else {
        set_detail(err, "Character %zu is not a hexadecimal digit.", character);
    }
    return false;
}

}  // namespace snowflake
