#include "layout.hpp"

#include <algorithm>
#include <cstdio>

#include "epoch.hpp"

namespace snowflake {

namespace {

bool check_width(const char *setting, int bits, Error *err) {
    if (bits < 0 || bits > kMaxFieldBits) {
        fail(err, ErrorCode::invalid_setting, "snowflake_id.%s = %d is out of range", setting,
             bits);
        set_hint(err, "Each field width must be between 0 and %d bits.", kMaxFieldBits);
        return false;
    }
    return true;
}

}  // namespace

bool Layout::make(LayoutWidths w, int64_t epoch_unix_ms, Layout *out, Error *err) {
    if (!check_width("datacenter_bits", w.datacenter_bits, err) ||
        !check_width("worker_bits", w.worker_bits, err) ||
        !check_width("sequence_bits", w.sequence_bits, err)) {
        return false;
    }
    const int timestamp_bits = 63 - w.datacenter_bits - w.worker_bits - w.sequence_bits;
    if (timestamp_bits < 1) {
        fail(err, ErrorCode::invalid_setting,
             "snowflake_id.datacenter_bits (%d) + worker_bits (%d) + sequence_bits (%d) leave no "
             "bits for the timestamp",
             w.datacenter_bits, w.worker_bits, w.sequence_bits);
        set_hint(err, "The three widths must add up to less than 63.");
        return false;
    }
    if (epoch_unix_ms < 0 || epoch_unix_ms > kMaxUnixMs) {
        fail(err, ErrorCode::invalid_setting, "snowflake_id.epoch = %lld ms is out of range",
             static_cast<long long>(epoch_unix_ms));
        set_hint(err, "The epoch must lie between 1970-01-01 and 9999-12-31 UTC.");
        return false;
    }
    out->widths_ = w;
    out->epoch_unix_ms_ = epoch_unix_ms;
    const int64_t field_max = timestamp_bits >= 63 ? INT64_MAX : (int64_t{1} << timestamp_bits) - 1;
    out->max_timestamp_ = std::min(field_max, kMaxUnixMs - epoch_unix_ms);
    return true;
}

bool Layout::check_against_clock(int64_t now_unix_ms, Error *err) const {
    char epoch_text[40];
    char now_text[40];
    format_utc(epoch_unix_ms_, epoch_text, sizeof epoch_text);
    format_utc(now_unix_ms, now_text, sizeof now_text);
    if (epoch_unix_ms_ > now_unix_ms) {
        fail(err, ErrorCode::epoch_in_future, "snowflake_id.epoch (%s) is in the future",
             epoch_text);
        set_detail(err, "The wall clock reads %s.", now_text);
        set_hint(err, "Choose an epoch in the past; it must never change once IDs exist.");
        return false;
    }
    if (now_unix_ms - epoch_unix_ms_ > max_timestamp()) {
        char end_text[40];
        format_utc(end_unix_ms(), end_text, sizeof end_text);
        fail(err, ErrorCode::layout_no_room,
             "the layout leaves %d timestamp bits, which ran out at %s", timestamp_bits(),
             end_text);
        set_detail(err,
                   "63 - snowflake_id.datacenter_bits (%d) - snowflake_id.worker_bits (%d) - "
                   "snowflake_id.sequence_bits (%d) = %d bits of milliseconds since "
                   "snowflake_id.epoch (%s); the wall clock reads %s.",
                   widths_.datacenter_bits, widths_.worker_bits, widths_.sequence_bits,
                   timestamp_bits(), epoch_text, now_text);
        set_hint(err, "Give fewer bits to the node and sequence fields, or choose a later epoch.");
        return false;
    }
    return true;
}

bool Layout::make_node(int64_t datacenter_id, int64_t worker_id, int64_t *node, Error *err) const {
    if (worker_id < 0) {
        fail(err, ErrorCode::invalid_node, "snowflake_id.worker_id is not set");
        set_detail(err,
                   "Without a worker id that is unique in the cluster, two servers could issue the "
                   "same ID.");
        set_hint(err,
                 "Set snowflake_id.worker_id to a value between 0 and %lld that no other server "
                 "uses (ALTER SYSTEM SET snowflake_id.worker_id = ...; SELECT pg_reload_conf();).",
                 static_cast<long long>(max_worker_id()));
        return false;
    }
    if (worker_id > max_worker_id()) {
        fail(err, ErrorCode::invalid_node,
             "snowflake_id.worker_id = %lld is out of range for snowflake_id.worker_bits = %d",
             static_cast<long long>(worker_id), widths_.worker_bits);
        set_hint(err, "Set snowflake_id.worker_id to a value between 0 and %lld and reload.",
                 static_cast<long long>(max_worker_id()));
        return false;
    }
    if (datacenter_id < 0 || datacenter_id > max_datacenter_id()) {
        fail(err, ErrorCode::invalid_node,
             "snowflake_id.datacenter_id = %lld is out of range for snowflake_id.datacenter_bits = "
             "%d",
             static_cast<long long>(datacenter_id), widths_.datacenter_bits);
        set_hint(err, "Set snowflake_id.datacenter_id to a value between 0 and %lld and reload.",
                 static_cast<long long>(max_datacenter_id()));
        return false;
    }
    *node = (datacenter_id << widths_.worker_bits) | worker_id;
    return true;
}

bool Layout::decode(int64_t id, IdParts *parts, Error *err) const {
    if (id < 0) {
        fail(err, ErrorCode::invalid_id, "snowflake ID %lld is negative",
             static_cast<long long>(id));
        set_detail(err, "The sign bit of a Snowflake ID is always 0.");
        set_hint(err, "Pass an ID made by a Snowflake generator; they are positive bigints.");
        return false;
    }
    const int seq_bits = widths_.sequence_bits;
    parts->sequence = id & max_sequence();
    parts->worker_id = (id >> seq_bits) & max_worker_id();
    parts->datacenter_id = (id >> (seq_bits + widths_.worker_bits)) & max_datacenter_id();
    parts->timestamp = id >> (seq_bits + node_bits());
    if (parts->timestamp > max_timestamp_) {
        char end_text[40];
        format_utc(end_unix_ms(), end_text, sizeof end_text);
        fail(err, ErrorCode::time_out_of_range,
             "snowflake ID %lld carries a timestamp past the layout's end (%s)",
             static_cast<long long>(id), end_text);
        set_hint(err, "The ID was not made with this server's layout and epoch.");
        return false;
    }
    return true;
}

bool Layout::smallest_id_at(int64_t unix_ms, int64_t *id, Error *err) const {
    if (unix_ms < epoch_unix_ms_ || unix_ms > end_unix_ms()) {
        char when[40], epoch_text[40], end_text[40];
        format_utc(unix_ms, when, sizeof when);
        format_utc(epoch_unix_ms_, epoch_text, sizeof epoch_text);
        format_utc(end_unix_ms(), end_text, sizeof end_text);
        fail(err, ErrorCode::time_out_of_range, "time %s is outside the layout's range", when);
        set_detail(err, "IDs of this layout carry times from %s to %s.", epoch_text, end_text);
        set_hint(err, "Keep the time inside that range, e.g. greatest(t, snowflake_timestamp(0)).");
        return false;
    }
    *id = compose(unix_ms - epoch_unix_ms_, 0, 0);
    return true;
}

int64_t Layout::last_id_before_ms(int64_t unix_ms) const {
    // Callers pass milliseconds of a timestamptz (within +-2^53): no overflow.
    const int64_t since_epoch = unix_ms - epoch_unix_ms_;
    if (since_epoch <= 0) {
        return -1;
    }
    // The timestamp field holds up to 2^(63 - shift) - 1; a millisecond
    // past it is after every value.
    if (since_epoch > (INT64_MAX >> timestamp_shift())) {
        return INT64_MAX;
    }
    return (since_epoch << timestamp_shift()) - 1;
}

bool Layout::compose_checked(int64_t unix_ms, int64_t datacenter_id, int64_t worker_id,
                             int64_t sequence, int64_t *id, Error *err) const {
    // The time's range check and its message are smallest_id_at's.
    int64_t first_of_ms = 0;
    if (!smallest_id_at(unix_ms, &first_of_ms, err)) {
        return false;
    }
    struct Field {
        const char *name;
        int64_t value;
        int64_t max;
        int bits;
        const char *setting;
    };
    const Field fields[] = {
        {"datacenter_id", datacenter_id, max_datacenter_id(), widths_.datacenter_bits,
         "datacenter_bits"},
        {"worker_id", worker_id, max_worker_id(), widths_.worker_bits, "worker_bits"},
        {"sequence", sequence, max_sequence(), widths_.sequence_bits, "sequence_bits"},
    };
    for (const Field &f : fields) {
        if (f.value < 0 || f.value > f.max) {
            fail(err, ErrorCode::field_out_of_range, "%s %lld is out of range for the layout",
                 f.name, static_cast<long long>(f.value));
            set_detail(err, "snowflake_id.%s = %d: %s runs from 0 to %lld.", f.setting, f.bits,
                       f.name, static_cast<long long>(f.max));
            set_hint(err, "Pass a %s between 0 and %lld.", f.name, static_cast<long long>(f.max));
            return false;
        }
    }
    const int64_t node = (datacenter_id << widths_.worker_bits) | worker_id;
    *id = compose(unix_ms - epoch_unix_ms_, node, sequence);
    return true;
}

void Layout::describe(char *out, int size) const {
    char epoch_text[40];
    format_utc(epoch_unix_ms_, epoch_text, sizeof epoch_text);
    snprintf(out, static_cast<size_t>(size),
             "time %d, datacenter %d, worker %d, sequence %d bits, epoch %s", timestamp_bits(),
             widths_.datacenter_bits, widths_.worker_bits, widths_.sequence_bits, epoch_text);
}

}  // namespace snowflake
