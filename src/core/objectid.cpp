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
    const std::size_t cut = utf8_prefix_length(text, 64);
    fail(err, ErrorCode::invalid_objectid, "invalid ObjectId \"%.*s%s\"", static_cast<int>(cut),
         text.data(), cut < text.size() ? "..." : "");
    set_hint(err,
             "An ObjectId is written as 24 hexadecimal digits, such as "
             "\"5c4a7fcc0ed0240001a79289\".");
    return false;
}

}  // namespace

bool objectid_seconds(std::string_view text, uint32_t *seconds, Error *err) {
    const std::size_t characters = utf8_length(text);
    if (characters != kObjectIdHexLength) {
        bad_objectid(err, text);
        set_detail(err, "An ObjectId is %d hexadecimal digits; this text has %zu characters.",
                   kObjectIdHexLength, characters);
        return false;
    }
    uint32_t v = 0;
    std::size_t character = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if ((static_cast<uint8_t>(text[i]) & 0xC0) != 0x80) {
            ++character;
        }
        const int d = hex_value(text[i]);
        if (d < 0) {
            bad_objectid(err, text);
            if (text[i] >= ' ' && text[i] <= '~') {
                set_detail(err, "Character %zu, \"%c\", is not a hexadecimal digit.", character,
                           text[i]);
            } else {
                set_detail(err, "Character %zu is not a hexadecimal digit.", character);
            }
            return false;
        }
        if (i < 8) {
            v = (v << 4) | static_cast<uint32_t>(d);
        }
    }
    *seconds = v;
    return true;
}

}  // namespace snowflake
