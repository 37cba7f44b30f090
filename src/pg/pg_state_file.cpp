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
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/file_perm.h"
#include "miscadmin.h"
#include "storage/fd.h"
}

const char *const sf_state_file_name = "snowflake_id.state";
const char *const sf_state_file_set_aside_name = "snowflake_id.state.set-aside";
const char *const sf_upgrade_mark_name = "snowflake_id.upgraded";

// Restoring the file from a backup is not among the ways out: a copy knows
// nothing of the IDs issued after it was taken, and resuming from it repeats
// them. Without the file the generator starts at the wall clock plus
// max_clock_drift (pg_shmem.cpp), above every ID of a run that ended more
// than a second before on a clock that was right.
// The file is named by its full path (DataDir is absolute), so that the DBA
// removes the right one.
int sf_errhint_state_file_way_out() {
    return errhint(
        "Do not restore the file from a backup: it knows nothing of IDs issued after the backup. "
        "If this server's clock is right and was never set back, remove the file (%s/%s) and "
        "restart (at least a second after the server last issued IDs): the generator then starts "
        "above every ID issued before. Otherwise remove it and give the server a worker id that "
        "no server has used. See docs/durability.md, \"Guarantees and failure modes\".",
        DataDir, sf_state_file_name);
}

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
    struct stat st;
    if (stat(sf_state_file_name, &st) != 0) {
        if (errno == ENOENT) {
            return 0;
        }
        out->found = true;
        out->problem = StateFileProblem::cannot_open;
        out->error = errno;
        return errno;
    }
    out->found = true;
    out->owner_uid = static_cast<unsigned>(st.st_uid);
    out->mode = static_cast<unsigned>(st.st_mode & 07777);
    if (!S_ISREG(st.st_mode)) {
        out->problem = StateFileProblem::not_a_file;
        return 0;
    }
    const int fd = open(sf_state_file_name, O_RDONLY | PG_BINARY);
    if (fd < 0) {
        out->problem = StateFileProblem::cannot_open;
        out->error = errno;
        return errno;
    }
    if (st.st_size == 0) {
        close(fd);
        out->problem = StateFileProblem::empty;
        return 0;
    }
    snowflake::StateRecord records[snowflake::kStateSlots];
    bool valid[snowflake::kStateSlots] = {};
    for (int slot = 0; slot < snowflake::kStateSlots; ++slot) {
        unsigned char bytes[snowflake::kStateRecordSize];
        const ssize_t n =
            pread(fd, bytes, sizeof bytes, static_cast<off_t>(slot * snowflake::kStateSlotStride));
        if (n < 0) {
            const int rc = errno;
            close(fd);
            out->problem = StateFileProblem::cannot_open;
            out->error = rc;
            return rc;
        }
        valid[slot] = snowflake::decode_state(bytes, static_cast<size_t>(n), &records[slot]);
    }
    close(fd);
    const int newest = snowflake::newest_slot(records, valid);
    if (newest >= 0) {
        out->valid = true;
        out->record = records[newest];
    } else {
        out->problem = StateFileProblem::corrupt;
    }
    return 0;
}

bool sf_upgrade_mark_present() {
    struct stat st;
    return stat(sf_upgrade_mark_name, &st) == 0;
}

int sf_upgrade_mark_write() {
    static const char text[] =
        "pg_upgrade made this cluster. snowflake_id issues no ID until the old cluster's\n"
        "snowflake_id.state is copied here (cp -p). See docs/upgrading.md.\n";
    const int fd =
        open(sf_upgrade_mark_name, O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY, pg_file_create_mode);
    if (fd < 0) {
        return errno;
    }
    int rc = 0;
    if (write(fd, text, sizeof text - 1) != static_cast<ssize_t>(sizeof text - 1)) {
        rc = errno != 0 ? errno : ENOSPC;
    } else if (pg_fsync(fd) != 0) {
        rc = errno;
    }
    close(fd);
    return rc == 0 ? sync_directory() : rc;
}

void sf_describe_state_problem(StateFileProblem problem, int error, unsigned owner_uid,
                               unsigned mode, StateProblemText *out) {
    char path[MAXPGPATH + 32];
    snprintf(path, sizeof path, "%s/%s", DataDir, sf_state_file_name);
    const struct passwd *server = getpwuid(geteuid());
    const char *account = server != nullptr ? server->pw_name : "the server's account";
    switch (problem) {
        case StateFileProblem::cannot_open:
            snprintf(out->reason, sizeof out->reason, "cannot be read by the server: %s",
                     strerror(error));
            snprintf(out->detail, sizeof out->detail,
                     "The file is owned by uid %u with mode %04o; the server runs as %s (uid %u). "
                     "A copy made as another user without cp -p (which keeps owner and mode) "
                     "leaves it so. Its content was not read, and is not known to be wrong.",
                     owner_uid, mode, account, static_cast<unsigned>(geteuid()));
            snprintf(out->hint, sizeof out->hint,
                     "Give the file to the server's account and restart the server: chown %s: %s "
                     "and chmod 0600 %s. Do not remove it: it is the record of the IDs issued "
                     "before.",
                     account, path, path);
            return;
        case StateFileProblem::not_a_file:
            snprintf(out->reason, sizeof out->reason, "is not a regular file (mode %06o)", mode);
            snprintf(out->detail, sizeof out->detail,
                     "The name holds a directory or another kind of file, as cp -r of a directory "
                     "or a copy into the wrong place leaves.");
            snprintf(out->hint, sizeof out->hint,
                     "Put the state file itself there (cp -p OLD_DATADIR/%s %s/), then restart "
                     "the server. Do not start it without one: see docs/upgrading.md.",
                     sf_state_file_name, DataDir);
            return;
        case StateFileProblem::empty:
            snprintf(out->reason, sizeof out->reason, "is empty");
            snprintf(out->detail, sizeof out->detail,
                     "snowflake_id never leaves an empty state file (it writes a new one under "
                     "another name and renames it); a copy that failed, or a file made by hand, "
                     "does.");
            snprintf(out->hint, sizeof out->hint,
                     "Copy the state file again from where it came from (cp -p), then restart "
                     "the server. Do not restore it from a backup: it knows nothing of IDs "
                     "issued after the backup.");
            return;
        case StateFileProblem::corrupt:
        case StateFileProblem::none:
            break;
    }
    snprintf(out->reason, sizeof out->reason, "is corrupt");
    snprintf(out->detail, sizeof out->detail,
             "Neither slot of the file holds a valid record, so the generator does not know "
             "where it may resume without repeating an ID.");
    out->hint[0] = '\0';  // the caller gives sf_errhint_state_file_way_out()
}

int sf_state_file_write(const snowflake::StateRecord &record) {
    unsigned char page[snowflake::kStateSlotStride] = {};
    snowflake::encode_state(record, page);
    const auto offset = static_cast<off_t>((record.generation % snowflake::kStateSlots) *
                                           snowflake::kStateSlotStride);
    int rc = 0;
    int fd = open(sf_state_file_name, O_RDWR | PG_BINARY);
    if (fd >= 0) {
        if (pwrite(fd, page, sizeof page, offset) != static_cast<ssize_t>(sizeof page)) {
            rc = errno != 0 ? errno : ENOSPC;
        } else if (pg_fsync(fd) != 0) {
            rc = errno;
        }
        close(fd);
    } else if (errno != ENOENT) {
        return errno;
    } else {
        // The first write builds the whole file under another name and
        // renames it into place: the state file's name never shows a file
        // without a valid slot, which a crash could otherwise leave and the
        // next start would have to refuse.
        char tmp_name[64];
        snprintf(tmp_name, sizeof tmp_name, "%s.tmp", sf_state_file_name);
        fd = open(tmp_name, O_RDWR | O_CREAT | O_TRUNC | PG_BINARY, pg_file_create_mode);
        if (fd < 0) {
            return errno;
        }
        errno = 0;
        if (ftruncate(fd, static_cast<off_t>(snowflake::kStateSlots *
                                             snowflake::kStateSlotStride)) != 0 ||
            pwrite(fd, page, sizeof page, offset) != static_cast<ssize_t>(sizeof page)) {
            rc = errno != 0 ? errno : ENOSPC;
        } else if (pg_fsync(fd) != 0) {
            rc = errno;
        }
        close(fd);
        if (rc == 0 && rename(tmp_name, sf_state_file_name) != 0) {
            rc = errno;
        }
        if (rc == 0 && sf_shared != nullptr) {
            sf_shared->dir_synced = false;
        }
    }
    // The directory entry is flushed once per run (and after the rename
    // above): a run that crashed between creating the file and flushing the
    // directory leaves the next one to do it.
    if (rc == 0 && sf_shared != nullptr && !sf_shared->dir_synced) {
        rc = sync_directory();
        sf_shared->dir_synced = rc == 0;
    }
    // The cluster pg_upgrade made has a state file of its own now: the mark
    // has done its work. Left in place if removing it fails: the next start
    // finds this file, its own, and removes the mark then.
    if (rc == 0 && sf_shared != nullptr && sf_shared->upgrade_marked &&
        unlink(sf_upgrade_mark_name) == 0 && sync_directory() == 0) {
        sf_shared->upgrade_marked = false;
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
                                  "until the state can be written."),
                        errhint("Free space or fix the file system of the data directory; the "
                                "next call tries again.")));
    }
    sf_shared->stored = record;
    sf_shared->have_stored = true;
}

int sf_state_file_set_aside() {
    if (rename(sf_state_file_name, sf_state_file_set_aside_name) != 0) {
        return errno;
    }
    const int rc = sync_directory();
    sf_shared->dir_synced = false;  // the next write creates the file anew
    return rc;
}
