// The durable state of the generator, as bytes.
//
// One record says: "every ID this cluster has issued, or may issue without
// writing a new record, is below id_bound, and it issued them under this
// layout and epoch". The PostgreSQL glue writes it to a state file in the
// data directory and, as the payload of a WAL record, to every standby
// (src/pg/pg_state_file.cpp, src/pg/pg_wal.cpp). The encoding is fixed
// little-endian with its own CRC-32C, independent of the host.
//
// The state file has two slots, each at the start of a 4 KiB page of its
// own (kStateSlotStride), so that no write to one touches the other's
// sectors or page; a write goes to the slot of its generation's parity and is
// flushed before it is relied on. A write torn by a crash can only damage the
// slot being written; the other still holds the previous record, and no ID
// above that one was issued before the torn write would have completed.
#pragma once
#include "pure_cpp.hpp"

#include <cstddef>
#include <cstdint>

#include "layout.hpp"

namespace snowflake {

// Format 2 (snowflake_id 1.3 on): 76 bytes. Format 1 (48 bytes, without
// system_id, checkpoint_lsn, node_id and fence) is still read, from state
// files and WAL written by older versions.
inline constexpr size_t kStateRecordSize = 76;
inline constexpr size_t kStateRecordSizeV1 = 48;
inline constexpr size_t kStateSlotStride = 4096;  // a page and a (4Kn) sector per slot
inline constexpr int kStateSlots = 2;

struct StateRecord {
    uint64_t generation = 0;  // grows by one per state file write
    LayoutWidths widths;
    int64_t epoch_unix_ms = 0;
    uint64_t id_bound = 0;
    // The bound is the exact floor, recorded when no process could issue
    // IDs (shutdown, crash-restart), not a reservation ahead of need.
    bool exact = false;
    // In an exact record: the floor's lead over the clock came from a node
    // id lease taken over from another holder (its recorded bound), not from
    // this server's clock, so the next start does not blame the clock for
    // it. Kept in the byte of `exact` (bit 1), which readers before 1.5 take
    // as exact.
    bool lead_from_lease = false;
    // In an exact record: the run held the lease named by node_id and fence
    // until it stopped, its floor raised above the lease's (bit 2 of the
    // same byte). Only then may the next run take that lease back at this
    // floor (src/pg/registry/pg_registry.cpp); a standby's record names its
    // primary's lease, which it never held.
    bool lease_held = false;
    // In an exact record: the run issued no ID, and its floor was the end of
    // a reservation (made by an earlier run, or replayed from WAL), not the
    // exact place after a last ID: the next start says so rather than call
    // it the last ID issued (bit 3 of the same byte).
    bool bound_is_reservation = false;
    // Written by the old cluster's stop in binary-upgrade mode (pg_upgrade's
    // runs of it), over a file it had checked was the record of its last
    // real stop: the file a new cluster made by pg_upgrade may resume from
    // (bit 4 of the same byte; docs/upgrading.md). Any later write of the
    // old cluster clears it.
    bool upgrade_handoff = false;
    // Which run of the server wrote it (a new number each time shared memory
    // is created: run_id_for()). An exact record names the run it closes:
    // WAL records of that run, replayed later, are all below its bound.
    uint64_t run_id = 0;
    // The cluster's system identifier (pg_control), 0 if unknown (format 1).
    uint64_t system_id = 0;
    // An exact record written at a clean shutdown: the WAL location of that
    // shutdown's checkpoint, so the next start can tell that this file is
    // the one the last shutdown wrote (written_before_last_shutdown). A
    // reservation (1.5 on): the WAL insert position when it was written,
    // where the WAL that follows it begins. 0 otherwise.
    uint64_t checkpoint_lsn = 0;
    // With a registry of node ids: the node id the record's IDs were issued
    // under and the fence of its lease (-1 and 0 without one). A restart
    // asks for that id again and proves with the fence that it held it.
    int32_t node_id = -1;
    int64_t fence = 0;
};

// What pg_control says about the last time the cluster stopped.
struct LastShutdown {
    bool clean = false;  // shut down cleanly (a primary's or a standby's shutdown)
    uint64_t system_id = 0;
    uint64_t checkpoint_lsn = 0;  // the shutdown's (or last restart point's) checkpoint
    uint32_t timeline = 0;        // that checkpoint's timeline
    bool standby = false;         // the clean shutdown was a standby's
    // Not clean: the cluster was running as a primary (or in crash recovery)
    // when it stopped, and no backup is being restored into it (pg_control
    // names no backup start). Its next start is crash recovery of its own
    // WAL, unless a signal file or a backup_label asks for more (the caller
    // looks).
    bool crashed_primary = false;
};

// Whether a state record found at start-up is older than the data directory:
// the cluster was shut down cleanly, and a clean shutdown always leaves an
// exact record stamped with its checkpoint, but this record is of the same
// cluster and is not that one. It was restored from a backup, or copied
// back, and knows nothing of IDs issued after it was written. A record of
// another cluster (a file carried over by pg_upgrade) or of format 1 cannot
// be judged and is not flagged.
bool written_before_last_shutdown(const StateRecord &record, const LastShutdown &shutdown);

// What a cluster made by pg_upgrade (its binary-upgrade start left the mark
// docs/upgrading.md describes) does with the state file its first normal
// start finds.
enum class UpgradedStart {
    resume,       // the old cluster's hand-off record, or the cluster's own
    no_state,     // no file: the DBA forgot to copy it
    not_handoff,  // another cluster's record, not handed to an upgrade
};
// `record` is the file's valid record (found false: no file); own_system_id
// pg_control's system identifier.
UpgradedStart judge_upgraded_start(bool found, const StateRecord &record, uint64_t own_system_id);

// A run id: its top kBootBits bits are the fingerprint of the operating
// system's boot the run started in (boot_fingerprint(); 0 where unknown),
// the rest random. A record then tells whether it was written in the
// current boot: a crash restart in the same boot (a postmaster killed, a
// container restarted) finds its own WAL complete, where a machine restored
// from a snapshot boots anew (src/pg/pg_shmem.cpp).
inline constexpr int kBootBits = 24;
uint64_t run_id_for(uint32_t boot_fingerprint, uint64_t random);
// The fingerprint of a boot id's text (Linux: /proc/sys/kernel/random/boot_id);
// never 0, which stands for "unknown".
uint32_t boot_fingerprint(const char *boot_id, size_t length);
// The fingerprint of the boot the run run_id started in (0: unknown).
uint32_t boot_of(uint64_t run_id);
// Whether the run that wrote run_id started in the boot `fingerprint` names;
// false where either is unknown.
bool run_in_boot(uint64_t run_id, uint32_t fingerprint);

// The record of a reservation under `layout` with the given bound.
StateRecord state_record_for(const Layout &layout, uint64_t id_bound, uint64_t generation,
                             uint64_t run_id);

// Writes kStateRecordSize bytes (format 2).
void encode_state(const StateRecord &record, unsigned char *out);

// Reads a record of either format from `size` bytes; false if they are too
// few for its format or the magic, the format version or the CRC is wrong.
// layout_of() checks the widths.
bool decode_state(const unsigned char *in, size_t size, StateRecord *record);

// The layout a record was written under; false (err filled) if it is not a
// valid layout.
bool layout_of(const StateRecord &record, Layout *layout, Error *err);

// Same widths and epoch.
bool same_layout(const StateRecord &a, const StateRecord &b);

// Of the decoded slots (valid[i] false for an unreadable one), the index of
// the newest, or -1 if none is valid.
int newest_slot(const StateRecord records[kStateSlots], const bool valid[kStateSlots]);

// CRC-32C (Castagnoli), as used by PostgreSQL's WAL and iSCSI.
uint32_t crc32c(const unsigned char *data, size_t size);

}  // namespace snowflake
