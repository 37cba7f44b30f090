// The environment the stores of leases (src/registry/) run in inside the
// registry worker: every wait in the latch, so that a shutdown request,
// SIGHUP and the postmaster's death are seen at once, and with a time limit.
#include "pg_registry.hpp"

extern "C" {
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/latch.h"
#include "storage/procarray.h"
}

int64_t WorkerRegistryEnv::monotonic_ns() {
    return sf_monotonic_ns();
}

int64_t WorkerRegistryEnv::call_until_ns() {
    return sf_registry_call_until_ns();
}

bool WorkerRegistryEnv::wait_socket(int fd, snowflake::SocketWait wait, int64_t until_mono_ns) {
    const int events =
        wait == snowflake::SocketWait::readable ? WL_SOCKET_READABLE : WL_SOCKET_WRITEABLE;
    for (;;) {
        if (*stop_) {
            return false;
        }
        const int64_t left_ms = (until_mono_ns - sf_monotonic_ns()) / kNsPerMs;
        if (left_ms <= 0) {
            return false;
        }
        const int rc =
            WaitLatchOrSocket(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH | events, fd,
                              left_ms, PG_WAIT_EXTENSION);
        if (rc & WL_LATCH_SET) {
            ResetLatch(MyLatch);
            CHECK_FOR_INTERRUPTS();
        }
        if (rc & events) {
            return true;
        }
    }
}

void WorkerRegistryEnv::log_whole_text(const char *text, size_t len) {
    ereport(LOG, (errmsg("snowflake_id: the whole text from the registry: %.*s",
                         static_cast<int>(len), text)));
}

bool WorkerRegistryEnv::is_own_backend(int pid) {
    return BackendPidGetProc(pid) != nullptr;
}
