// Layouts of IDs minted by other systems, for decoding them.
//
// A foreign layout is a preset name ("twitter", "discord", "instagram",
// "sonyflake") or a spec that lists the fields from the most significant bit
// down, then the epoch and the time unit:
//
//   time=41,datacenter=5,worker=5,sequence=12;epoch=2010-11-04T01:42:54.657Z;unit=1ms
//
// Field names: time, datacenter, worker (also: machine, shard), sequence
// (also: increment). Only time is required; each field appears at most once;
// the widths total 63 (the sign bit stays 0) or 64 (time reaches into the
// sign bit, as in Instagram's and Discord's IDs, so such IDs may be negative
// bigints). epoch: integer milliseconds or ISO-8601 with Z or an offset
// (src/core/epoch.hpp). unit: a whole number of ms or s, e.g. 10ms; 1ms if
// left out. Names and keys are case-insensitive; spaces around them are
// ignored.
//
// Unlike Layout (the server's own, which issues IDs), a ForeignLayout only
// decodes, and nothing in it depends on a setting: the same text always
// means the same layout, which is what lets the SQL functions that take one
// be IMMUTABLE.
#pragma once
#include "pure_cpp.hpp"

#include <cstdint>
#include <string_view>

#include "error.hpp"

namespace snowflake {

// The largest time unit a spec may give: one day.
inline constexpr int64_t kMaxUnitMs = 86400000;

// One field: `bits` wide, its lowest bit at `shift`; bits == 0: absent.
struct ForeignField {
    int bits = 0;
    int shift = 0;
};

// Trivially copyable, so the PostgreSQL glue can cache one in fn_extra.
struct ForeignLayout {
    ForeignField time;
    ForeignField datacenter;
    ForeignField worker;
    ForeignField sequence;
    int total_bits = 0;  // 63 or 64
    int64_t epoch_unix_ms = 0;
    int64_t unit_ms = 1;
};

// A decoded foreign ID: the instant its time field stands for, and the rest.
struct ForeignParts {
    int64_t unix_ms = 0;
    int64_t datacenter_id = 0;
    int64_t worker_id = 0;
    int64_t sequence = 0;
};

// Reads a preset name or a spec. On failure fills err (ErrorCode::invalid_spec)
// with a message that quotes the bad part and says at which character of the
// text it starts, and leaves *out untouched.
bool parse_foreign_layout(std::string_view text, ForeignLayout *out, Error *err);

// Splits an ID. Fails (invalid_id) for a negative ID under a 63-bit layout,
// and (time_out_of_range) when its time lies past 9999-12-31, which
// timestamptz cannot show.
bool decode_foreign(const ForeignLayout &layout, int64_t id, ForeignParts *parts, Error *err);

}  // namespace snowflake
