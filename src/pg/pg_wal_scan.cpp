// Whether a state file that is older than the last clean shutdown is still
// right: only runs without the library came between.
//
// A clean shutdown with the library writes an exact record stamped with its
// checkpoint (pg_shmem.cpp), so at the next start a record with another
// checkpoint is older than the data directory: restored from a backup, or
// copied back, and refused. But a run without the library preloaded also
// shuts down cleanly, with a checkpoint of its own, and leaves the file as
// it was; it issued nothing, so the file is still right. The WAL tells the
// two apart: every run with the library that issued an ID logged a
// reservation (pg_wal.cpp) after the file's checkpoint. So the file is
// still right when the WAL from its checkpoint to the last one is all in
// pg_wal and holds no record of ours. Where that WAL is gone (recycled by
// a long run) or too long to read at start-up, nothing can be told and the
// file is not trusted.
//
// Runs in the postmaster before any other process exists, with plain reads
// of pg_wal: no ERROR is raised on a missing or unreadable segment.
#include "pg_glue.hpp"
// After the core headers (src/core/pure_cpp.hpp).
#include "pg_compat.hpp"

extern "C" {
#include <fcntl.h>
#include <unistd.h>

#include "access/xlog.h"
#include "access/xlog_internal.h"
#include "access/xlogreader.h"
#include "catalog/pg_control.h"
#include "miscadmin.h"
}

namespace {

// At most this much WAL is read at start-up for the check: more means a
// long run without the library, whose WAL a start must not wait for.
constexpr uint64_t kMaxScanBytes = uint64_t{256} << 20;

struct ScanSource {
    TimeLineID timeline;
};

int read_page(XLogReaderState *reader, XLogRecPtr page, int, XLogRecPtr, char *buf) {
    const auto *source = static_cast<const ScanSource *>(reader->private_data);
    XLogSegNo segno;
    XLByteToSeg(page, segno, wal_segment_size);
    char path[MAXPGPATH];
    XLogFilePath(path, source->timeline, segno, wal_segment_size);
    const int fd = open(path, O_RDONLY | PG_BINARY);
    if (fd < 0) {
        return -1;
    }
    const ssize_t n =
        pread(fd, buf, XLOG_BLCKSZ, static_cast<off_t>(XLogSegmentOffset(page, wal_segment_size)));
    close(fd);
    if (n != XLOG_BLCKSZ) {
        return -1;
    }
    reader->seg.ws_tli = source->timeline;
    return XLOG_BLCKSZ;
}

// read_page reads the files itself; WALRead, which would call these, is
// never used.
void no_segment_open(XLogReaderState *reader, XLogSegNo, TimeLineID *) {
    reader->seg.ws_file = -1;
}
void no_segment_close(XLogReaderState *reader) {
    reader->seg.ws_file = -1;
}

// A reservation of ours in the WAL other than the record itself (a
// reservation record's own WAL copy follows it).
bool later_reservation(XLogReaderState *reader, const snowflake::StateRecord &record) {
    if (XLogRecGetRmid(reader) != sf_wal_rmgr_id()) {
        return false;
    }
    snowflake::StateRecord logged;
    const uint32 size = XLogRecGetDataLen(reader);
    const bool decoded =
        size <= snowflake::kStateRecordSize &&
        snowflake::decode_state(reinterpret_cast<unsigned char *>(XLogRecGetData(reader)), size,
                                &logged);
    return !decoded || record.exact || logged.run_id != record.run_id ||
           logged.id_bound != record.id_bound || logged.generation != record.generation;
}

}  // namespace

bool sf_state_unchanged_since(const snowflake::StateRecord &record,
                              const snowflake::LastShutdown &shutdown) {
    // An exact record: from its shutdown's checkpoint record. A reservation
    // (the run that made it crashed): from where its WAL copy went.
    const XLogRecPtr from = record.checkpoint_lsn;
    const XLogRecPtr to = shutdown.checkpoint_lsn;
    if (!shutdown.clean || from == InvalidXLogRecPtr || from >= to || to - from > kMaxScanBytes ||
        shutdown.timeline == 0) {
        return false;
    }
    ScanSource source{shutdown.timeline};
    static XLogReaderRoutine routine;
    routine.page_read = read_page;
    routine.segment_open = no_segment_open;
    routine.segment_close = no_segment_close;
    XLogReaderState *reader = XLogReaderAllocate(wal_segment_size, nullptr, &routine, &source);
    if (reader == nullptr) {
        return false;
    }
    XLogRecPtr start = from;
    if (!record.exact) {
        start = sf_compat_xlog_find_next_record(reader, from);  // need not start a record
    }
    bool unchanged = false;
    if (start == InvalidXLogRecPtr) {
        XLogReaderFree(reader);
        return false;
    }
    XLogBeginRead(reader, start);
    bool first = true;
    for (;;) {
        char *errormsg = nullptr;
        if (XLogReadRecord(reader, &errormsg) == nullptr) {
            break;  // a segment is gone, or the WAL is not what the file says
        }
        // An exact record names its shutdown's checkpoint: anything else
        // there is WAL of another history (a file from a diverged copy).
        if (first && record.exact &&
            (XLogRecGetRmid(reader) != RM_XLOG_ID ||
             (XLogRecGetInfo(reader) & ~XLR_INFO_MASK) != XLOG_CHECKPOINT_SHUTDOWN)) {
            break;
        }
        first = false;
        if (reader->ReadRecPtr >= to) {
            unchanged = reader->ReadRecPtr == to;
            break;
        }
        if (later_reservation(reader, record)) {
            break;  // a run with the library reserved IDs after the file
        }
    }
    XLogReaderFree(reader);
    if (unchanged) {
        char from_text[32];
        char to_text[32];
        snprintf(from_text, sizeof from_text, "%X/%X", static_cast<unsigned>(from >> 32),
                 static_cast<unsigned>(from));
        snprintf(to_text, sizeof to_text, "%X/%X", static_cast<unsigned>(to >> 32),
                 static_cast<unsigned>(to));
        ereport(LOG,
                (errmsg("snowflake_id: the server ran without snowflake_id preloaded since the "
                        "state file \"%s/%s\" was written; the file is still right",
                        DataDir, sf_state_file_name),
                 errdetail("The WAL from where the file was written (%s) to the last clean "
                           "shutdown (%s) holds no later reservation of snowflake IDs, so no ID "
                           "was issued in between.",
                           from_text, to_text)));
    }
    return unchanged;
}
