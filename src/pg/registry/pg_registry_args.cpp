// The registry calls' arguments, in the order both stores pass them
// (pg_registry.hpp).
#include "pg_registry.hpp"

AcquireArgs::AcquireArgs(const snowflake::LeaseRequest &request, const char *absent) {
    const snowflake::LeaseHolder &h = request.holder;
    add_or(request.requested_node >= 0, request.requested_node, absent);
    add_or(request.preferred_node >= 0, request.preferred_node, absent);
    add_or(request.previous_fence > 0, request.previous_fence, absent);
    add_unsigned(h.system_id);
    add(h.instance);
    add_text(h.host);
    add(h.port);
    add_text(h.data_directory);
    add(h.timeline);
    add(request.widths.datacenter_bits);
    add(request.widths.worker_bits);
    add(request.widths.sequence_bits);
    add(request.epoch_unix_ms);
    add(request.max_clock_drift_ms);
    add(request.ttl_ms);
    add(request.clock_unix_ms);
}

RenewArgs::RenewArgs(int64_t node, int64_t fence, int64_t instance, int64_t bound_unix_ms,
                     int64_t ttl_ms) {
    add(node);
    add(fence);
    add(instance);
    add(bound_unix_ms);
    add(ttl_ms);
}

ReleaseArgs::ReleaseArgs(int64_t node, int64_t fence, int64_t instance, int64_t bound_unix_ms) {
    add(node);
    add(fence);
    add(instance);
    add(bound_unix_ms);
}

SwitchArgs::SwitchArgs(const snowflake::SwitchRequest &request) {
    const snowflake::LeaseHolder &h = request.lease.holder;
    add(request.node);
    add(request.fence);
    add(h.instance);
    add(request.held_bound_unix_ms);
    add_unsigned(h.system_id);
    add_text(h.host);
    add(h.port);
    add_text(h.data_directory);
    add(h.timeline);
    add(request.lease.max_clock_drift_ms);
    add(request.lease.ttl_ms);
    add(request.lease.clock_unix_ms);
    add(request.bound_unix_ms);
}
