// Shared memory for the generator.
//
// Locking protocol: there is none on the hot path. The whole generator state
// is one std::atomic<uint64_t> (the floor: the smallest ID this server may
// issue next), advanced by compare-and-swap from any backend; see
// src/core/generator.hpp. AddinShmemInitLock is held only while the segment
// is created or attached at start-up.
//
// Where the floor starts (initial_floor):
//  - After a backend crash the postmaster throws shared memory away and
//    builds it anew. The postmaster itself lives on, so it keeps the floor in
//    a variable of its own across that (save_floor): IDs never repeat after a
//    crash-restart.
//  - When the server starts, the previous run's floor is gone. Under load the
//    generator runs up to max_clock_drift ms ahead of the clock, so the last
//    IDs before a restart can carry times after the restart's wall clock. The
//    floor therefore starts at the wall clock plus max_clock_drift: above
//    every ID the previous run can have issued, unless the clock was set back
//    across the restart (not protected yet: see the README).
#include <algorithm>
#include <new>

#include "core/epoch.hpp"
#include "pg_glue.hpp"

extern "C" {
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
}

std::atomic<uint64_t> *sf_floor = nullptr;

namespace {

struct SharedState {
    explicit SharedState(uint64_t start) : floor(start) {}
    std::atomic<uint64_t> floor;
};

// Postmaster-local: the floor as it was when shared memory was last torn
// down, and whether that happened at all (a crash-restart) in this postmaster.
uint64_t floor_before_reinit = 0;
bool reinitialising = false;

uint64_t initial_floor() {
    char when[40];
    if (reinitialising) {
        snowflake::IdParts parts;
        snowflake::Error err;
        const int64_t last =
            floor_before_reinit > 0 ? static_cast<int64_t>(floor_before_reinit - 1) : 0;
        if (sf_layout.decode(last, &parts, &err)) {
            snowflake::format_utc(sf_layout.epoch_unix_ms() + parts.timestamp, when, sizeof when);
            ereport(LOG,
                    (errmsg("snowflake_id: the generator resumes after the last ID issued before "
                            "the crash-restart (timestamp %s)",
                            when)));
        }
        return floor_before_reinit;
    }
    // Strictly above the previous run's IDs (timestamps <= its clock + drift)
    // as long as its last clock reading is at least 1 ms before this one,
    // which any real restart guarantees when the clock did not go back. No
    // extra millisecond: that would make the first call after a start wait.
    const int64_t now = sf_wall_clock_ms();
    const int64_t ts = std::min(now - sf_layout.epoch_unix_ms() + sf_max_clock_drift_ms,
                                sf_layout.max_timestamp() + 1);
    snowflake::format_utc(sf_layout.epoch_unix_ms() + ts, when, sizeof when);
    ereport(LOG, (errmsg("snowflake_id: the generator starts at %s, the wall clock plus "
                         "snowflake_id.max_clock_drift (%d ms)",
                         when, sf_max_clock_drift_ms),
                  errdetail("IDs issued before the restart carry at most the clock then plus "
                            "max_clock_drift, so new IDs are above them unless the clock was "
                            "set back across the restart.")));
    return ts <= 0 ? 0
                   : static_cast<uint64_t>(ts)
                         << (sf_layout.node_bits() + sf_layout.widths().sequence_bits);
}

#if PG_VERSION_NUM >= 150000
shmem_request_hook_type prev_shmem_request_hook = nullptr;
#endif
shmem_startup_hook_type prev_shmem_startup_hook = nullptr;

Size shared_size() {
    return MAXALIGN(sizeof(SharedState));
}

#if PG_VERSION_NUM >= 150000
// shmem_request_hook: reserve our segment (PG 15 allows it only here).
void sf_shmem_request() {
    if (prev_shmem_request_hook != nullptr) {
        prev_shmem_request_hook();
    }
    RequestAddinShmemSpace(shared_size());
}
#endif

// on_shmem_exit callback in the postmaster: runs before a crash-restart (and
// at shutdown) tears shared memory down, while the segment is still mapped.
void save_floor(int, Datum) {
    if (sf_floor != nullptr) {
        floor_before_reinit = sf_floor->load(std::memory_order_acquire);
        reinitialising = true;
    }
}

// shmem_startup_hook: create the segment in the postmaster, starting from the
// floor saved before a crash-restart, or attach to it (EXEC_BACKEND builds
// run this in every backend).
void sf_shmem_startup() {
    if (prev_shmem_startup_hook != nullptr) {
        prev_shmem_startup_hook();
    }
    LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
    bool found = false;
    void *mem = ShmemInitStruct("snowflake_id", shared_size(), &found);
    auto *state = found ? static_cast<SharedState *>(mem) : new (mem) SharedState(initial_floor());
    LWLockRelease(AddinShmemInitLock);
    sf_floor = &state->floor;
    if (!IsUnderPostmaster) {
        // shmem_exit() pops its callbacks, so register again after every (re)start.
        on_shmem_exit(save_floor, 0);
    }
}

}  // namespace

void sf_install_shmem_hooks() {
#if PG_VERSION_NUM >= 150000
    prev_shmem_request_hook = shmem_request_hook;
    shmem_request_hook = sf_shmem_request;
#else
    RequestAddinShmemSpace(shared_size());
#endif
    prev_shmem_startup_hook = shmem_startup_hook;
    shmem_startup_hook = sf_shmem_startup;
}
