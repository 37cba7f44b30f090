// What pg_control says about the cluster's last stop, for the start-up
// check of the state file (pg_shmem.cpp) and the stamp a clean shutdown
// leaves in it. Plain POSIX calls, no ERROR: the postmaster reads it at
// start-up and after the last other process has exited, and a file it
// cannot read only costs the check, which then does not apply.
#include <cstddef>

#include "pg_glue.hpp"

extern "C" {
#include <fcntl.h>
#include <unistd.h>

#include "access/xlog_internal.h"
#include "catalog/pg_control.h"
#include "port/pg_crc32c.h"
}

bool sf_read_last_shutdown(snowflake::LastShutdown *out) {
    ControlFileData control;
    const int fd = open(XLOG_CONTROL_FILE, O_RDONLY | PG_BINARY);
    if (fd < 0) {
        return false;
    }
    const ssize_t n = read(fd, &control, sizeof control);
    close(fd);
    if (n != static_cast<ssize_t>(sizeof control) ||
        control.pg_control_version != PG_CONTROL_VERSION) {
        return false;
    }
    pg_crc32c crc;
    INIT_CRC32C(crc);
    COMP_CRC32C(crc, &control, offsetof(ControlFileData, crc));
    FIN_CRC32C(crc);
    if (!EQ_CRC32C(crc, control.crc)) {
        return false;
    }
    out->clean = control.state == DB_SHUTDOWNED || control.state == DB_SHUTDOWNED_IN_RECOVERY;
    out->system_id = control.system_identifier;
    out->checkpoint_lsn = control.checkPoint;
    out->timeline = control.checkPointCopy.ThisTimeLineID;
    out->standby = control.state == DB_SHUTDOWNED_IN_RECOVERY;
    out->crashed_primary =
        (control.state == DB_IN_PRODUCTION || control.state == DB_IN_CRASH_RECOVERY) &&
        control.backupStartPoint == 0 && !control.backupEndRequired;
    return true;
}
