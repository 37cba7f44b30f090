#include "resume.hpp"

#include "clock_units.hpp"

namespace snowflake {

ResumePlan plan_resume(const Layout &layout, uint64_t bound, int64_t now_unix_ms,
                       int64_t normal_lead_ms) {
    ResumePlan plan;
    plan.floor = bound;
    plan.resume_unix_ms =
        layout.epoch_unix_ms() + static_cast<int64_t>(bound >> layout.timestamp_shift());
    plan.lead_ms = plan.resume_unix_ms - now_unix_ms;
    plan.catch_up = plan.lead_ms > 0;
    plan.clock_suspect = plan.lead_ms > normal_lead_ms;
    return plan;
}

int64_t catch_up_now(const CatchUp &c, int64_t wall_unix_ms, int64_t mono_ns, bool *caught_up) {
    const int64_t elapsed_ms = (mono_ns - c.start_mono_ns) / (2 * kNsPerMs);
    const int64_t catch_up_ms = c.base_unix_ms + (elapsed_ms > 0 ? elapsed_ms : 0);
    *caught_up = wall_unix_ms >= catch_up_ms;
    return *caught_up ? wall_unix_ms : catch_up_ms;
}

}  // namespace snowflake
