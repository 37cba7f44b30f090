// Shared memory for the generator.
//
// Locking protocol: there is none on the hot path. The whole generator state
// is one std::atomic<uint64_t> (the floor: the smallest ID this server may
// issue next), advanced by compare-and-swap from any backend; see
// src/core/generator.hpp. AddinShmemInitLock is held only while the segment
// is created or attached at start-up.
//
// The state is lost when the server restarts or reinitialises shared memory
// after a crash; the generator then starts again from the wall clock.
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
    std::atomic<uint64_t> floor{0};
};

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

// shmem_startup_hook: create the segment in the postmaster, or attach to it
// (EXEC_BACKEND builds run this in every backend).
void sf_shmem_startup() {
    if (prev_shmem_startup_hook != nullptr) {
        prev_shmem_startup_hook();
    }
    LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
    bool found = false;
    void *mem = ShmemInitStruct("snowflake_id", shared_size(), &found);
    auto *state = found ? static_cast<SharedState *>(mem) : new (mem) SharedState();
    LWLockRelease(AddinShmemInitLock);
    sf_floor = &state->floor;
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
