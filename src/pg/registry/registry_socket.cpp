// The wait both stores of leases use for their sockets (libpq's for
// pg_registry_pq.cpp, hiredis's for pg_registry_redis.cpp): in the latch,
// so that a shutdown request, SIGHUP and the postmaster's death are seen at
// once, and with a time limit.
#include "pg_registry.hpp"

extern "C" {
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/latch.h"
}

bool sf_registry_wait_socket(int fd, int events, int64_t until_mono_ns,
                             volatile sig_atomic_t *stop) {
    for (;;) {
        if (*stop) {
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
