// The state file: $PGDATA/snowflake_id.state, two slots of one record each
// (format and torn-write reasoning: src/core/state_record.hpp).
//
// Plain POSIX calls, no PostgreSQL file API: the postmaster reads the file
// before any backend exists and writes it after the last one has exited,
// where raising an ERROR is not an option. The server's working directory
// is the data directory, so the name is relative.
#include <cerrno>
#include <cstring>

#include "pg_shared.hpp"

extern "C" {
#include <fcntl.h>
#include <unistd.h>

#include "common/file_perm.h"
#include "storage/fd.h"
}

const char *const sf_state_file_name = "snowflake_id.state";

namespace {

// Flushes the data directory's entry for a newly created file.
int sync_directory() {
    const int fd = open(".", O_RDONLY);
    if (fd < 0) {
        return errno;
    }
    const int rc = pg_fsync(fd) == 0 ? 0 : errno;
    close(fd);
    return rc;
}

}  // namespace

int sf_state_file_read(StateFileRead *out) {
    *out = StateFileRead();
    const int fd = open(sf_state_file_name, O_RDONLY | PG_BINARY);
    if (fd < 0) {
        return errno == ENOENT ? 0 : errno;
    }
    out->found = true;
    snowflake::StateRecord records[snowflake::kStateSlots];
    bool valid[snowflake::kStateSlots] = {};
    for (int slot = 0; slot < snowflake::kStateSlots; ++slot) {
        unsigned char bytes[snowflake::kStateRecordSize];
        const ssize_t n =
            pread(fd, bytes, sizeof bytes, static_cast<off_t>(slot * snowflake::kStateSlotSize));
        if (n < 0) {
            const int rc = errno;
            close(fd);
            return rc;
        }
        valid[slot] = n == static_cast<ssize_t>(sizeof bytes) &&
                      snowflake::decode_state(bytes, &records[slot]);
    }
    close(fd);
    const int newest = snowflake::newest_slot(records, valid);
    if (newest >= 0) {
        out->valid = true;
        out->record = records[newest];
    }
    return 0;
}

int sf_state_file_write(const snowflake::StateRecord &record) {
    bool created = false;
    int fd = open(sf_state_file_name, O_RDWR | PG_BINARY);
    if (fd < 0 && errno == ENOENT) {
        fd = open(sf_state_file_name, O_RDWR | O_CREAT | O_EXCL | PG_BINARY, pg_file_create_mode);
        created = true;
    }
    if (fd < 0) {
        return errno;
    }
    unsigned char sector[snowflake::kStateSlotSize] = {};
    snowflake::encode_state(record, sector);
    const int slot = static_cast<int>(record.generation % snowflake::kStateSlots);
    int rc = 0;
    const ssize_t n =
        pwrite(fd, sector, sizeof sector, static_cast<off_t>(slot * snowflake::kStateSlotSize));
    if (n != static_cast<ssize_t>(sizeof sector)) {
        rc = n < 0 ? errno : ENOSPC;
    } else if (pg_fsync(fd) != 0) {
        rc = errno;
    }
    close(fd);
    if (rc == 0 && created) {
        rc = sync_directory();
    }
    return rc;
}

void sf_store_record_locked(const snowflake::StateRecord &record) {
    const int rc = sf_state_file_write(record);
    if (rc != 0) {
        errno = rc;
        // PANIC would be what PostgreSQL does for a failed WAL fsync; here
        // nothing has been relied on yet, so failing the call is enough.
        ereport(ERROR, (errcode_for_file_access(),
                        errmsg("could not write the snowflake_id state file \"%s\": %m",
                               sf_state_file_name),
                        errdetail("No snowflake ID above the last durable reservation is issued "
                                  "until the state can be written.")));
    }
    sf_shared->stored = record;
    sf_shared->have_stored = true;
}
