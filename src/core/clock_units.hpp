// The units the clocks are read in: milliseconds for IDs and leases (the
// layout's timestamp unit), nanoseconds for the monotonic clock that
// deadlines and the catch-up are measured on.
#pragma once
#include "pure_cpp.hpp"

#include <cstdint>

namespace snowflake {

inline constexpr int64_t kNsPerMs = 1000000;
inline constexpr int64_t kNsPerS = 1000 * kNsPerMs;

}  // namespace snowflake
