// Epochs and UTC instants in milliseconds since 1970-01-01T00:00:00Z.
//
// The epoch setting accepts integer milliseconds or ISO-8601; the same parser
// will read the epochs of foreign layouts, which is why it also takes offsets.
#pragma once
#include "pure_cpp.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "error.hpp"

namespace snowflake {

// The latest instant we accept anywhere: 9999-12-31T23:59:59.999Z. Keeping all
// instants below it keeps every sum of an epoch and a timestamp inside int64.
inline constexpr int64_t kMaxUnixMs = 253402300799999;

// Parses an epoch:
//   - integer milliseconds since 1970-01-01 UTC, e.g. "1288834974657";
//   - "YYYY-MM-DD" (midnight UTC);
//   - "YYYY-MM-DD[T| ]HH:MM[:SS[.fff]]" followed by "Z", "+HH:MM", "-HH:MM",
//     "+HHMM" or "+HH", optionally after spaces. A date-time without a zone is refused: it would
//     silently depend on somebody's local time.
// Surrounding white space is ignored. Anything else fails with
// ErrorCode::invalid_setting and a message that quotes the text.
bool parse_epoch(std::string_view text, int64_t *unix_ms, Error *err);

// Writes "YYYY-MM-DD HH:MM:SS.fffZ" (UTC) into buf; always NUL-terminates.
void format_utc(int64_t unix_ms, char *buf, std::size_t size);

// Days since 1970-01-01 of a proleptic Gregorian date, and back.
int64_t days_from_civil(int64_t year, unsigned month, unsigned day);
void civil_from_days(int64_t days, int64_t *year, unsigned *month, unsigned *day);

}  // namespace snowflake
