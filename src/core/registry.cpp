#include "registry.hpp"

#include <algorithm>

namespace snowflake {

void ask_with_durable_state(int64_t static_node, int64_t stored_node, int64_t stored_fence,
                            LeaseRequest *request) {
    request->requested_node = static_node;
    request->preferred_node = static_node >= 0 ? -1 : stored_node;
    request->previous_fence = static_node >= 0 && static_node != stored_node ? 0 : stored_fence;
}

RenewalPlan plan_renewal(int64_t clock_unix_ms, int64_t wall_unix_ms, int64_t sent_mono_ns,
                         int64_t ttl_ms) {
    RenewalPlan plan;
    plan.bound_unix_ms = std::max(wall_unix_ms + ttl_ms, clock_unix_ms + ttl_ms / 2);
    plan.deadline_mono_ns = sent_mono_ns + ttl_ms * kNsPerMs;
    plan.next_renewal_mono_ns = sent_mono_ns + ttl_ms / kRenewalsPerTtl * kNsPerMs;
    return plan;
}

bool clock_far_behind(const Layout &layout, uint64_t floor, int64_t clock_unix_ms,
                      int64_t max_drift_ms) {
    if (floor == 0) {
        return false;  // nothing issued yet
    }
    const auto last_ts = static_cast<int64_t>((floor - 1) >> layout.timestamp_shift());
    return last_ts - (clock_unix_ms - layout.epoch_unix_ms()) > max_drift_ms;
}

uint64_t lease_id_bound(const Layout &layout, int64_t bound_unix_ms) {
    const int64_t ts = std::min(bound_unix_ms - layout.epoch_unix_ms(), layout.max_timestamp() + 1);
    return ts <= 0 ? 0 : static_cast<uint64_t>(ts) << layout.timestamp_shift();
}

int64_t exact_bound_unix_ms(const Layout &layout, uint64_t floor) {
    const int shift = layout.timestamp_shift();
    const uint64_t below = (uint64_t{1} << shift) - 1;
    // Rounded up: an ID in the floor's millisecond below the floor needs the
    // bound past that millisecond; a floor at the millisecond's start does
    // not.
    return layout.epoch_unix_ms() + static_cast<int64_t>((floor >> shift) + ((floor & below) != 0));
}

}  // namespace snowflake
