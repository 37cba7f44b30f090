// The text form of the snowflake column type: an ID's decimal digits, as
// bigint writes them, so that '912291816210986656'::snowflake reads and
// prints like the bigint. Blanks around the digits and a leading '+' are
// taken, as bigint takes them; a negative number is out of range (no
// generator issues one), anything else is not an ID.
#pragma once
#include "pure_cpp.hpp"

#include <cstdint>
#include <string_view>

#include "error.hpp"

namespace snowflake {

// ErrorCode::invalid_id_text for text that is not a number,
// ErrorCode::id_out_of_range for a negative one or one above 2^63 - 1.
bool parse_id_text(std::string_view text, int64_t *out, Error *err);

}  // namespace snowflake
