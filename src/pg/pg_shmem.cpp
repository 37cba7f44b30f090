// Shared memory for the generator.
//
// Locking protocol: there is none on the hot path. The whole generator state
// is one std::atomic<uint64_t> (the floor: the smallest ID this server may
// issue next), advanced by compare-and-swap from any backend; see
// src/core/generator.hpp. AddinShmemInitLock is held only while the segment
// is created or attached at start-up.
//
// After a backend crash the postmaster throws shared memory away and builds
// it anew. The postmaster itself lives on, so it keeps the floor in a
// variable of its own across that (save_floor / sf_shmem_startup): IDs never
// repeat after a crash-restart. A restart of the whole server still loses
// the floor; the generator then starts again from the wall clock.
#include <new>

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

// Postmaster-local: the floor as it was when shared memory was last torn down.
uint64_t floor_before_reinit = 0;

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
    auto *state =
        found ? static_cast<SharedState *>(mem) : new (mem) SharedState(floor_before_reinit);
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
