// The clocks the generator and the registry worker read: the wall clock
// (IDs carry its milliseconds), the monotonic clock (deadlines, the pace of
// the catch-up clock), and the generator's clock, which is the wall clock
// or, while it lies ahead after a start or a lease taken over, the
// catch-up clock (src/core/catch_up_state.hpp; pg_resume.cpp starts it).
#include <ctime>

#include "core/clock_units.hpp"
#include "pg_shared.hpp"

int64_t sf_wall_clock_ns() {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<int64_t>(ts.tv_sec) * snowflake::kNsPerS + ts.tv_nsec;
}

int64_t sf_wall_clock_ms() {
    return sf_wall_clock_ns() / snowflake::kNsPerMs;
}

int64_t sf_monotonic_ns() {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<int64_t>(ts.tv_sec) * snowflake::kNsPerS + ts.tv_nsec;
}

namespace {

int64_t generator_clock_at(int64_t wall, bool may_end_catch_up) {
    snowflake::SharedCatchUp &c = sf_shared->catch_up;
    if (!c.running()) {
        return wall;
    }
    return c.now(wall, sf_monotonic_ns(), may_end_catch_up);
}

}  // namespace

int64_t sf_generator_clock_ms() {
    return sf_generator_clock_at(sf_wall_clock_ms());
}

int64_t sf_generator_clock_at(int64_t wall) {
    return generator_clock_at(wall, true);
}

int64_t sf_generator_clock_peek_ms() {
    return generator_clock_at(sf_wall_clock_ms(), false);
}
