// MongoDB ObjectIds, as MongoDB defines them: 12 bytes, written as 24 hex
// digits. The bytes:
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

// A process's (second, counter) pairs, which must never repeat. MongoDB's
// counter is 3 bytes, so a process that made 2^24 ObjectIds within one
// second would repeat its first one; and a clock stepped back would bring
// back seconds whose counters are spent. So the time of an ObjectId never
// goes below the latest second this process has used (while the clock is
// behind, ObjectIds keep that second, as the Snowflake generator keeps its
// last millisecond), and once that second's 2^24 counters are spent, next()
// refuses until the clock passes it: the caller waits.
class ObjectIdCounter {
  public:
    explicit ObjectIdCounter(uint32_t start = 0) : counter_(start & kObjectIdCounterMask) {}
    // An ObjectId's time and counter for a clock reading of `now_seconds`:
    // *seconds is the later of now_seconds and the latest second used.
    // False if that second has no counter left; nothing is taken then.
    bool next(uint32_t now_seconds, uint32_t *seconds, uint32_t *counter);
    // The latest second used (0 before the first ObjectId).
    uint32_t latest_second() const { return second_; }

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
