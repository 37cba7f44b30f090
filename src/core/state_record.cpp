#include "state_record.hpp"

namespace snowflake {

namespace {

constexpr uint32_t kMagic = 0x44494653;  // "SFID" in little-endian order
constexpr uint32_t kFormatVersion = 2;

// Offsets of the fields; the CRC covers everything before it. Format 1 ends
// with its CRC at kOffCrcV1; format 2 puts two fields there instead.
constexpr size_t kOffMagic = 0;
constexpr size_t kOffVersion = 4;
constexpr size_t kOffGeneration = 8;
constexpr size_t kOffEpoch = 16;
constexpr size_t kOffBound = 24;
constexpr size_t kOffDatacenterBits = 32;
constexpr size_t kOffWorkerBits = 33;
constexpr size_t kOffSequenceBits = 34;
constexpr size_t kOffExact = 35;
constexpr size_t kOffRunId = 36;
constexpr size_t kOffCrcV1 = 44;
constexpr size_t kOffSystemId = 44;
constexpr size_t kOffCheckpointLsn = 52;
constexpr size_t kOffNodeId = 60;
constexpr size_t kOffFence = 64;
constexpr size_t kOffCrc = 72;
static_assert(kOffCrcV1 + 4 == kStateRecordSizeV1);
static_assert(kOffCrc + 4 == kStateRecordSize);

void put_le(unsigned char *out, uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) {
        out[i] = static_cast<unsigned char>(value >> (8 * i));
    }
}

uint64_t get_le(const unsigned char *in, int bytes) {
    uint64_t value = 0;
    for (int i = 0; i < bytes; ++i) {
        value |= static_cast<uint64_t>(in[i]) << (8 * i);
    }
    return value;
}

}  // namespace

uint32_t crc32c(const unsigned char *data, size_t size) {
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < size; ++i) {
        crc ^= data[i];
        for (int bit = 0; bit < 8; ++bit) {
            crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
        }
    }
    return ~crc;
}

StateRecord state_record_for(const Layout &layout, uint64_t id_bound, uint64_t generation,
                             uint64_t run_id) {
    StateRecord record;
    record.run_id = run_id;
    record.generation = generation;
    record.widths = layout.widths();
    record.epoch_unix_ms = layout.epoch_unix_ms();
    record.id_bound = id_bound;
    return record;
}

void encode_state(const StateRecord &record, unsigned char *out) {
    for (size_t i = 0; i < kStateRecordSize; ++i) {
        out[i] = 0;
    }
    put_le(out + kOffMagic, kMagic, 4);
    put_le(out + kOffVersion, kFormatVersion, 4);
    put_le(out + kOffGeneration, record.generation, 8);
    put_le(out + kOffEpoch, static_cast<uint64_t>(record.epoch_unix_ms), 8);
    put_le(out + kOffBound, record.id_bound, 8);
    out[kOffDatacenterBits] = static_cast<unsigned char>(record.widths.datacenter_bits);
    out[kOffWorkerBits] = static_cast<unsigned char>(record.widths.worker_bits);
    out[kOffSequenceBits] = static_cast<unsigned char>(record.widths.sequence_bits);
    out[kOffExact] = static_cast<unsigned char>(
        (record.exact ? 1 : 0) | (record.lead_from_lease ? 2 : 0) | (record.lease_held ? 4 : 0) |
        (record.bound_is_reservation ? 8 : 0) | (record.upgrade_handoff ? 16 : 0));
    put_le(out + kOffRunId, record.run_id, 8);
    put_le(out + kOffSystemId, record.system_id, 8);
    put_le(out + kOffCheckpointLsn, record.checkpoint_lsn, 8);
    put_le(out + kOffNodeId, static_cast<uint32_t>(record.node_id), 4);
    put_le(out + kOffFence, static_cast<uint64_t>(record.fence), 8);
    put_le(out + kOffCrc, crc32c(out, kOffCrc), 4);
}

bool decode_state(const unsigned char *in, size_t size, StateRecord *record) {
    if (size < kStateRecordSizeV1 || get_le(in + kOffMagic, 4) != kMagic) {
        return false;
    }
    const uint64_t version = get_le(in + kOffVersion, 4);
    const size_t crc_at = version == 1 ? kOffCrcV1 : kOffCrc;
    if ((version != 1 && version != kFormatVersion) || size < crc_at + 4 ||
        get_le(in + crc_at, 4) != crc32c(in, crc_at)) {
        return false;
    }
    StateRecord r;
    r.generation = get_le(in + kOffGeneration, 8);
    r.epoch_unix_ms = static_cast<int64_t>(get_le(in + kOffEpoch, 8));
    r.id_bound = get_le(in + kOffBound, 8);
    r.widths.datacenter_bits = in[kOffDatacenterBits];
    r.widths.worker_bits = in[kOffWorkerBits];
    r.widths.sequence_bits = in[kOffSequenceBits];
    r.exact = (in[kOffExact] & 1) != 0;
    r.lead_from_lease = (in[kOffExact] & 2) != 0;
    r.lease_held = (in[kOffExact] & 4) != 0;
    r.bound_is_reservation = (in[kOffExact] & 8) != 0;
    r.upgrade_handoff = (in[kOffExact] & 16) != 0;
    r.run_id = get_le(in + kOffRunId, 8);
    if (version != 1) {
        r.system_id = get_le(in + kOffSystemId, 8);
        r.checkpoint_lsn = get_le(in + kOffCheckpointLsn, 8);
        r.node_id = static_cast<int32_t>(static_cast<uint32_t>(get_le(in + kOffNodeId, 4)));
        r.fence = static_cast<int64_t>(get_le(in + kOffFence, 8));
    }
    *record = r;
    return true;
}

uint64_t run_id_for(uint32_t boot_fingerprint, uint64_t random) {
    constexpr int kRandomBits = 64 - kBootBits;
    const uint64_t boot = boot_fingerprint & ((uint64_t{1} << kBootBits) - 1);
    return (boot << kRandomBits) | (random & ((uint64_t{1} << kRandomBits) - 1));
}

uint32_t boot_fingerprint(const char *boot_id, size_t length) {
    // FNV-1a, folded to kBootBits: a fingerprint, not a secret.
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < length; ++i) {
        h ^= static_cast<unsigned char>(boot_id[i]);
        h *= 1099511628211ULL;
    }
    const auto folded = static_cast<uint32_t>((h ^ (h >> kBootBits) ^ (h >> (2 * kBootBits))) &
                                              ((uint64_t{1} << kBootBits) - 1));
    return folded == 0 ? 1 : folded;
}

uint32_t boot_of(uint64_t run_id) {
    return static_cast<uint32_t>(run_id >> (64 - kBootBits));
}

bool run_in_boot(uint64_t run_id, uint32_t fingerprint) {
    return fingerprint != 0 && boot_of(run_id) == fingerprint;
}

bool layout_of(const StateRecord &record, Layout *layout, Error *err) {
    return Layout::make(record.widths, record.epoch_unix_ms, layout, err);
}

bool same_layout(const StateRecord &a, const StateRecord &b) {
    return a.widths.datacenter_bits == b.widths.datacenter_bits &&
           a.widths.worker_bits == b.widths.worker_bits &&
           a.widths.sequence_bits == b.widths.sequence_bits && a.epoch_unix_ms == b.epoch_unix_ms;
}

bool written_before_last_shutdown(const StateRecord &record, const LastShutdown &shutdown) {
    if (!shutdown.clean || record.system_id == 0 || record.system_id != shutdown.system_id) {
        return false;
    }
    return !record.exact || record.checkpoint_lsn != shutdown.checkpoint_lsn;
}

UpgradedStart judge_upgraded_start(bool found, const StateRecord &record, uint64_t own_system_id) {
    if (!found) {
        return UpgradedStart::no_state;
    }
    // A file of format 1 (system_id 0) names no cluster: it cannot be the
    // old cluster's hand-off, which format 2 writes.
    if (record.system_id == own_system_id && own_system_id != 0) {
        return UpgradedStart::resume;
    }
    return record.upgrade_handoff ? UpgradedStart::resume : UpgradedStart::not_handoff;
}

int newest_slot(const StateRecord records[kStateSlots], const bool valid[kStateSlots]) {
    int newest = -1;
    for (int i = 0; i < kStateSlots; ++i) {
        if (valid[i] && (newest < 0 || records[i].generation > records[newest].generation)) {
            newest = i;
        }
    }
    return newest;
}

}  // namespace snowflake
