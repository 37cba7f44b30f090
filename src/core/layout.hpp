// The bit layout of an ID and its epoch.
//
//   bit 63        : sign, always 0 so IDs are positive bigints
//   next T bits   : milliseconds since the epoch, T = 63 - D - W - S
//   next D bits   : datacenter id  \  together the node:
//   next W bits   : worker id      /  datacenter_id << W | worker_id
//   low S bits    : sequence within one millisecond
//
// A Layout is validated when it is made and is immutable afterwards; every
// other function may assume its invariants.
#pragma once
#include "pure_cpp.hpp"

#include <cstdint>

#include "error.hpp"

namespace snowflake {

// The decoders return each field as a SQL integer, so no field is wider.
inline constexpr int kMaxFieldBits = 31;

// Layout::describe's longest text: four numbers of two digits at most (the
// widths add up to 63) and an epoch as format_utc writes it, 24 characters
// for years up to 9999.
inline constexpr std::size_t kLayoutTextMax =
    sizeof "time , datacenter , worker , sequence  bits, epoch " - 1 + 4 * 2 + 24;

struct LayoutWidths {
    int datacenter_bits = 0;
    int worker_bits = 10;
    int sequence_bits = 12;
};

struct IdParts {
    int64_t timestamp = 0;  // ms since the layout's epoch
    int64_t datacenter_id = 0;
    int64_t worker_id = 0;
    int64_t sequence = 0;
};

class Layout {
  public:
    Layout() = default;  // the default layout with epoch 2020-01-01T00:00:00Z

    // Checks the widths and the epoch; on failure fills err (naming the
    // setting at fault) and leaves *out untouched.
    static bool make(LayoutWidths widths, int64_t epoch_unix_ms, Layout *out, Error *err);

    // Checks that the layout can carry `now` and that the epoch is not in
    // the future: the server refuses to start otherwise.
    bool check_against_clock(int64_t now_unix_ms, Error *err) const;

    const LayoutWidths &widths() const { return widths_; }
    int timestamp_bits() const { return 63 - node_bits() - widths_.sequence_bits; }
    int node_bits() const { return widths_.datacenter_bits + widths_.worker_bits; }
    // Where the timestamp field starts: id >> timestamp_shift() is an ID's
    // timestamp, ts << timestamp_shift() the first ID of a millisecond.
    int timestamp_shift() const { return node_bits() + widths_.sequence_bits; }
    int64_t epoch_unix_ms() const { return epoch_unix_ms_; }

    // The largest timestamp the generator may issue: all timestamp bits set,
    // or 9999-12-31T23:59:59.999Z if that comes first (wide layouts), so that
    // every issued ID decodes to a timestamptz and no sum overflows.
    int64_t max_timestamp() const { return max_timestamp_; }
    int64_t max_datacenter_id() const { return (int64_t{1} << widths_.datacenter_bits) - 1; }
    int64_t max_worker_id() const { return (int64_t{1} << widths_.worker_bits) - 1; }
    int64_t max_sequence() const { return (int64_t{1} << widths_.sequence_bits) - 1; }
    // The last instant the layout can carry.
    int64_t end_unix_ms() const { return epoch_unix_ms_ + max_timestamp_; }

    // Same widths and epoch: IDs of one mean the same under the other.
    bool same_as(const Layout &other) const {
        return widths_.datacenter_bits == other.widths_.datacenter_bits &&
               widths_.worker_bits == other.widths_.worker_bits &&
               widths_.sequence_bits == other.widths_.sequence_bits &&
               epoch_unix_ms_ == other.epoch_unix_ms_;
    }
    // "time 41, datacenter 0, worker 10, sequence 12 bits, epoch
    // 2020-01-01 00:00:00.000Z", for messages; at most kLayoutTextMax bytes
    // (a buffer of that size + 1 holds it whole).
    void describe(char *out, int size) const;
    // Checks worker_id / datacenter_id (negative means "not set") and returns
    // the node field in *node.
    bool make_node(int64_t datacenter_id, int64_t worker_id, int64_t *node, Error *err) const;

    // Callers guarantee the ranges (timestamp <= max_timestamp() and so on).
    int64_t compose(int64_t timestamp, int64_t node, int64_t sequence) const {
        return (timestamp << (node_bits() + widths_.sequence_bits)) |
               (node << widths_.sequence_bits) | sequence;
    }

    // The ID for the millisecond holding unix_ms with the given fields: the
    // inverse of decode. Fails naming the argument at fault: the time
    // (time_out_of_range) or "datacenter_id", "worker_id", "sequence"
    // (field_out_of_range).
    bool compose_checked(int64_t unix_ms, int64_t datacenter_id, int64_t worker_id,
                         int64_t sequence, int64_t *id, Error *err) const;

    // The ID after `id` in the same node: the next sequence number, or
    // sequence 0 of the next millisecond. Blocks of IDs are runs of these.
    int64_t next_in_node(int64_t id) const {
        return (id & max_sequence()) == max_sequence()
                   ? id - max_sequence() + (int64_t{1} << timestamp_shift())
                   : id + 1;
    }

    // Splits an ID; fails for a negative one and for one whose timestamp is
    // past the layout's end.
    bool decode(int64_t id, IdParts *parts, Error *err) const;

    // The smallest ID whose timestamp is the millisecond holding unix_ms;
    // fails for instants before the epoch or after the layout's end.
    bool smallest_id_at(int64_t unix_ms, int64_t *id, Error *err) const;

    // The largest 63-bit value whose millisecond lies before unix_ms, for
    // comparing IDs with a time: id <= last_id_before_ms(m) holds exactly
    // for the IDs of milliseconds before m, id > it for the others. An ID's
    // millisecond is its timestamp field read as is, so a value past the
    // layout's end (max_timestamp()) still compares by its bits, as it sorts.
    // Never fails: -1 when unix_ms is at or before the epoch (no ID is that
    // early), INT64_MAX when every value's millisecond is before unix_ms.
    int64_t last_id_before_ms(int64_t unix_ms) const;

  private:
    LayoutWidths widths_{};
    int64_t epoch_unix_ms_ = 1577836800000;  // 2020-01-01T00:00:00Z
    int64_t max_timestamp_ = (int64_t{1} << 41) - 1;
};

}  // namespace snowflake
