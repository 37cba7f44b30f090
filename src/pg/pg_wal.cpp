// The WAL resource manager that carries reservations to standbys and through
// crash recovery.
//
// One record type, RESERVE: a state record (src/core/state_record.hpp),
// written by pg_reserve.cpp after the state file and flushed before any ID
// under it is issued. Its redo, on a standby or in crash recovery, raises the
// floor in shared memory to the record's bound and stores the record in the
// local state file, so that a promoted standby, or a restarted one, resumes
// above every ID the primary may have issued under the records it replayed.
// At the end of recovery (rm_cleanup) the generator decides where it resumes.
//
// The resource manager id is RM_EXPERIMENTAL_ID, which PostgreSQL asks
// extensions to use until they register an id of their own on
// https://wiki.postgresql.org/wiki/CustomWALResourceManagers (see README).
#include <cstring>

#include "pg_shared.hpp"

extern "C" {
#include "access/rmgr.h"
#include "access/xlog.h"
#include "access/xlog_internal.h"
#include "access/xloginsert.h"
#include "access/xlogreader.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
}

namespace {

constexpr RmgrId kRmgrId = RM_EXPERIMENTAL_ID;
constexpr uint8 kInfoReserve = 0x10;

bool record_of(XLogReaderState *reader, snowflake::StateRecord *out) {
    // Either format: a standby may run a newer library than its primary.
    const uint32 size = XLogRecGetDataLen(reader);
    return (XLogRecGetInfo(reader) & XLR_RMGR_INFO_MASK) == kInfoReserve &&
           (size == snowflake::kStateRecordSize || size == snowflake::kStateRecordSizeV1) &&
           snowflake::decode_state(reinterpret_cast<unsigned char *>(XLogRecGetData(reader)), size,
                                   out);
}

// rm_redo: runs in the startup process, while no backend issues IDs.
//
// A record of the run that an exact state record closed (a clean shutdown
// or a crash-restart recorded the exact floor after that run's last ID) is
// below that floor: it updates the state file but does not raise the floor,
// so that crash recovery resumes right after the last ID. Any other record
// (the primary's, on a standby; a later run's, in a restored backup) raises
// it.
void redo(XLogReaderState *reader) {
    snowflake::StateRecord record;
    if (!record_of(reader, &record)) {
        // LSN_FORMAT_ARGS type-checks with a C-only builtin: split by hand.
        elog(PANIC, "snowflake_id: malformed WAL record at %X/%X",
             static_cast<uint32>(reader->ReadRecPtr >> 32),
             static_cast<uint32>(reader->ReadRecPtr));
    }
    LWLockAcquire(sf_shared->lock, LW_EXCLUSIVE);
    const snowflake::StateRecord &stored = sf_shared->stored;
    // Replayed, the record no longer proves a lease this server held: a
    // standby never held its primary's (after a crash, the state file holds
    // the run's own records, written before their WAL).
    record.lease_held = false;
    if (!sf_shared->have_stored || !snowflake::same_layout(stored, record) ||
        record.id_bound > stored.id_bound) {
        record.generation = sf_shared->stored.generation + 1;
        sf_store_record_locked(record);
    }
    const bool closed_run = sf_shared->floor_is_exact && record.run_id == sf_shared->exact_run_id;
    if (!closed_run) {
        // The floor now comes from the WAL too (a standby, an archive
        // recovery): the state file no longer describes the last run alone.
        sf_shared->state_closes_last_shutdown = false;
    }
    if (record.run_id != sf_shared->crashed_run_id) {
        // Another run's record: not the crashed run's own recovery.
        sf_shared->state_closes_crash = false;
    }
    // A plain store: during recovery nothing else moves the floor.
    if (!closed_run && sf_shared->floor.load() < record.id_bound) {
        sf_shared->floor.store(record.id_bound);
        sf_shared->floor_is_exact = false;
        sf_shared->floor_marks_last_id = false;
        sf_shared->floor_lead_from_lease = record.lead_from_lease;
    }
    LWLockRelease(sf_shared->lock);
}

void desc(StringInfo buf, XLogReaderState *reader) {
    snowflake::StateRecord record;
    if (!record_of(reader, &record)) {
        appendStringInfoString(buf, "malformed");
        return;
    }
    appendStringInfo(buf, "bound %llu; widths datacenter %d, worker %d, sequence %d; epoch %lld ms",
                     static_cast<unsigned long long>(record.id_bound),
                     record.widths.datacenter_bits, record.widths.worker_bits,
                     record.widths.sequence_bits, static_cast<long long>(record.epoch_unix_ms));
}

const char *identify(uint8 info) {
    return (info & XLR_RMGR_INFO_MASK) == kInfoReserve ? "RESERVE" : nullptr;
}

// rm_cleanup: the end of crash recovery or of a standby's life (promotion).
void cleanup() {
    sf_resume(true);
}

RmgrData rmgr = {
    "snowflake_id", redo, desc, identify, nullptr, cleanup, nullptr, nullptr,
};

}  // namespace

void sf_register_wal_rmgr() {
    RegisterCustomRmgr(kRmgrId, &rmgr);
}

XLogRecPtr sf_log_record(const snowflake::StateRecord &record) {
    unsigned char bytes[snowflake::kStateRecordSize];
    snowflake::encode_state(record, bytes);
    XLogBeginInsert();
    XLogRegisterData(reinterpret_cast<char *>(bytes), sizeof bytes);
    return XLogInsert(kRmgrId, kInfoReserve);
}

int sf_wal_rmgr_id() {
    return kRmgrId;
}
