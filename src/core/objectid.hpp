// MongoDB ObjectIds, as MongoDB defines them: 12 bytes, written as 24 hex
// digits,
//   bytes 0-3   seconds since 1970-01-01 UTC, big-endian
//   bytes 4-8   a random value chosen once per process
//   bytes 9-11  a counter, big-endian, starting at a random value per process
// The caller owns the per-process state (random bytes and counter) and the
// clock; this file only formats and parses.
#pragma once
#include "pure_cpp.hpp"

#include <cstdint>
#include <string_view>

#include "error.hpp"

namespace snowflake {

inline constexpr int kObjectIdHexLength = 24;
inline constexpr uint32_t kObjectIdCounterMask = 0xFFFFFF;

// Writes 24 lowercase hex digits and a NUL into out. Only the low 24 bits of
// counter are used: the counter wraps, as MongoDB's does.
void format_objectid(uint32_t seconds, const uint8_t process_random[5], uint32_t counter,
                     char out[kObjectIdHexLength + 1]);

// A process's counter. MongoDB's counter is 3 bytes, so a process that made
// 2^24 ObjectIds within one second would repeat its first one; next()
// refuses the 2^24+1st of a second instead, and the caller waits for the
// next second.
class ObjectIdCounter {
  public:
    explicit ObjectIdCounter(uint32_t start = 0) : counter_(start & kObjectIdCounterMask) {}
    // The counter for an ObjectId of `seconds`; false if this second has
    // none left.
    bool next(uint32_t seconds, uint32_t *counter);

  private:
    uint32_t counter_;
    uint32_t second_ = 0;
    uint32_t used_in_second_ = 0;
};

// Reads the seconds of an ObjectId given as 24 hex digits (either case).
// Fails with ErrorCode::invalid_objectid, quoting the text, for any other
// length or a character that is not a hex digit.
bool objectid_seconds(std::string_view text, uint32_t *seconds, Error *err);

}  // namespace snowflake
