// Where the generator resumes after a start, a crash, a failover or a layout
// change, and the clock it runs on until the wall clock catches up.
//
// The durable state gives a bound: every ID issued before is below it. The
// generator resumes at that bound (its floor), whatever the clock says. When
// the wall clock is behind the bound (a clock set back across a restart, a
// promoted standby with a slower clock, a layout whose new epoch puts old
// IDs in the future, or just the time borrowed under load), waiting for the
// clock could mean an outage of hours, and borrowing is bounded by
// max_clock_drift. Instead the generator runs on a *catch-up clock*: time
// starts at the bound and advances at half the speed of the monotonic clock,
// until the wall clock overtakes it; from then on the wall clock rules again.
//
// Half speed, because neither clock can be trusted to be the right one: if
// the wall clock is right now (it was fast before), IDs carry timestamps
// ahead of real time, and a lead of L is gone after 2 L; if the wall clock is
// wrong now (a VM restored from a snapshot), NTP steps it forward and it
// overtakes at once. Either way IDs stay unique and increasing, and the
// generator keeps half its throughput meanwhile.
#pragma once
#include "pure_cpp.hpp"

#include <cstdint>

#include "layout.hpp"

namespace snowflake {

struct ResumePlan {
    uint64_t floor = 0;          // the generator's floor: the bound
    int64_t resume_unix_ms = 0;  // the timestamp of the ID at the floor
    int64_t lead_ms = 0;         // resume_unix_ms - wall clock; > 0: the clock is behind
    bool catch_up = false;       // lead_ms > 0: run the catch-up clock
    // The clock is further behind than a correct clock can be: more than
    // `normal_lead_ms`, what borrowing (max_clock_drift) and, for a
    // reservation, its window explain. Worth a WARNING.
    bool clock_suspect = false;
};

ResumePlan plan_resume(const Layout &layout, uint64_t bound, int64_t now_unix_ms,
                       int64_t normal_lead_ms);

struct CatchUp {
    int64_t base_unix_ms = 0;   // the resume point
    int64_t start_mono_ns = 0;  // the monotonic clock when it was set
};

// The generator's time while catching up: the later of the wall clock and
// the catch-up clock. *caught_up becomes true once the wall clock is at or
// past the catch-up clock: the caller can stop using it.
int64_t catch_up_now(const CatchUp &c, int64_t wall_unix_ms, int64_t mono_ns, bool *caught_up);

}  // namespace snowflake
