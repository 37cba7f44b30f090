// Hexadecimal digits, for the text forms that carry them (ObjectIds,
// percent-encoded URLs).
#pragma once
#include "pure_cpp.hpp"

namespace snowflake {

// The value of one hexadecimal digit, either case; -1 for anything else.
constexpr int hex_value(char c) {
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

}  // namespace snowflake
