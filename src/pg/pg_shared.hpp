// The generator's shared memory and the durable state behind it: the
// structs every process maps, and the protocol by which they read and write
// them. The functions of each file: pg_glue.hpp.
//
// Locking protocol:
//  - Hot path (snowflake_nextval): no lock. `floor` advances by
//    compare-and-swap (src/core/generator.hpp). An ID is issued only below
//    `reservation.below`, which is raised only after the reservation it
//    stands for is durable: written to the state file, logged in WAL,
//    flushed, and confirmed by the synchronous standbys if there are any.
//    `catch_up` (a seqlock of its own) and `refusal`: atomics, read without
//    a lock.
//  - `lock` (an LWLock of our own tranche) serialises everything that writes
//    the state file or a WAL record, and guards the fields below it. It is
//    never held while waiting for a standby: that wait is interruptible and
//    happens after the release (src/pg/pg_reserve.cpp).
//  - The postmaster creates the struct before any other process exists and
//    writes the state file after every other process is gone (pg_shmem.cpp);
//    the startup process replays WAL records while no backend issues IDs
//    (snowflake_nextval refuses during recovery).
#pragma once

#include <atomic>
#include <cstdint>

#include "core/catch_up_state.hpp"
#include "core/clock_units.hpp"
#include "core/generator.hpp"
#include "core/origin_marks.hpp"
#include "core/registry.hpp"
#include "core/resume.hpp"
#include "core/takeover_gate.hpp"
#include "core/state_record.hpp"
#include "pg_glue.hpp"

extern "C" {
#include "access/xlogdefs.h"
#include "storage/condition_variable.h"
#include "storage/latch.h"
#include "storage/lwlock.h"
}

// Why snowflake_nextval() refuses to issue, whatever the clock says.
enum class Refusal : int {
    none = 0,
    layout_changed,    // the state was written under another layout or epoch
    state_unreadable,  // the state file exists but no slot of it is valid
    // The state file is older than the data directory: restored from a
    // backup or copied back (snowflake::written_before_last_shutdown).
    state_stale,
    // A cluster made by pg_upgrade (its mark, sf_upgrade_mark_name) found
    // no state file, or another cluster's that is not the old cluster's
    // hand-off (snowflake::judge_upgraded_start).
    upgrade_without_state,
    upgrade_state_not_handoff,
};

// The node id lease from the registry (registry/pg_registry.cpp): why
// snowflake_nextval() may or may not issue with a registry configured.
enum class LeaseStatus : int {
    none = 0,  // no registry: the node id comes from the settings
    waiting,   // no lease yet (start-up, registry unreachable, lost lease)
    held,      // IDs may be issued on `node`, below `below`
    refused,   // the registry refused a lease (message says why)
    expired,   // the deadline passed without a confirmed renewal
    // on_clock_step_back = 'switch_node': the worker is moving the generator
    // to another node id, holding `lock` exclusively while it does.
    switching,
    // A promoted standby of this server holds a lease: this is an old
    // primary, and on_replaced = 'refuse' (message says by whom).
    replaced,
};

// Written by the registry worker alone; read by backends without a lock.
// Backends read `published` at the start of a call (acquire): the status and
// the node in one word, so that a call never pairs a held status with a node
// whose floor has not been set yet. The worker publishes held only after the
// generator's floor is above the node's previous holder and `below` is set,
// and leaves held before it changes either. The registry's bound itself is
// enforced where reservations are made (pg_reserve.cpp caps every
// reservation at `below`).
//
// A switch of node id (on_clock_step_back = 'switch_node') lowers the
// generator's floor: the new node's IDs lie below the old node's. A backend
// that read the old word may still be between that read and its
// compare-and-swap on the floor; from the lowered floor it would issue an
// old-node ID an hour back, which the old node issued before. So every call
// reads `published` again after its compare-and-swap (acquire) and throws
// its IDs away, unissued, if the word changed: the worker publishes
// `switching` before it lowers the floor (a release store), so a CAS that
// saw the lowered floor is followed by a read that sees the new word. The
// word carries a count of publications, so it changes even when status and
// node come back to what they were. The hot path gains two loads.
struct LeaseState {
    std::atomic<int64_t> published{0};  // lease_word(status, node)
    std::atomic<int64_t> node{-1};      // the worker's: the node leased or being leased
    std::atomic<int64_t> fence{0};
    // IDs at or above it may not be issued: the bound recorded in the
    // registry with the last confirmed renewal (0: none).
    std::atomic<uint64_t> below{0};
    std::atomic<int64_t> deadline_mono_ns{0};
    std::atomic<int64_t> last_ok_unix_ms{0};  // the last confirmed renewal, by the wall clock
    std::atomic<int64_t> expires_unix_ms{0};  // the registry's expiry of the lease
    std::atomic<bool> auto_node{false};       // worker_id = 'auto'
    std::atomic<uint64_t> renewals{0};
    std::atomic<uint64_t> failures{0};
    std::atomic<uint64_t> switches{0};  // node ids switched for a clock set back
    // A backend whose clock fell far behind asks the worker to switch
    // (pg_generate.cpp): it sets the flag, sets the worker's latch, and sleeps
    // on `changed` until switch_attempts moves past what it read. The worker
    // broadcasts `changed` after every publication and every attempt.
    std::atomic<bool> switch_requested{false};
    std::atomic<int64_t> switch_clock_ms{0};  // the asking backend's clock reading
    std::atomic<uint64_t> switch_attempts{0};
    std::atomic<Latch *> worker_latch{nullptr};
    // A backend that raised the floor above the lease's bound (a restore's
    // IDs, pg_origins.cpp) asks for a renewal now rather than at its time;
    // the worker broadcasts `changed` after it.
    std::atomic<bool> renew_requested{false};
    ConditionVariable changed;
    // Under SharedState::lock: the last error from the registry, for
    // messages and the status: a core Error's message, ": " and its detail,
    // whole. (The registry as messages name it is not kept here: every
    // process has the setting, sf_describe_registry.)
    char message[sizeof snowflake::Error::message + sizeof snowflake::Error::detail + 1] = {};
};

// The published word: the status (4 bits), the node + 1 (32 bits: the
// registry leases node ids of up to 30 bits) and the count of publications
// (27 bits, wrapping; a call would have to span 2^27 publications to miss a
// change).
inline int64_t lease_word(LeaseStatus status, int64_t node, int64_t publication) {
    return ((publication & ((int64_t{1} << 27) - 1)) << 36) | ((node + 1) << 4) |
           static_cast<int64_t>(status);
}
inline LeaseStatus lease_status_of(int64_t word) {
    return static_cast<LeaseStatus>(word & 0xF);
}
inline int64_t lease_node_of(int64_t word) {
    return ((word >> 4) & 0xFFFFFFFF) - 1;
}
inline int64_t lease_publication_of(int64_t word) {
    return word >> 36;
}

struct SharedState {
    std::atomic<uint64_t> floor{0};
    snowflake::Reservation reservation;
    std::atomic<int> refusal{0};  // a Refusal
    // Moves on when rows from another server arrive in any database's
    // snowflake_origin (a logical restore): every database is checked for
    // restored IDs again before its next ID (pg_origins.cpp). Read by every
    // call, written once per restore.
    std::atomic<uint64_t> origins_generation{1};

    // The catch-up clock (src/core/resume.hpp): started and stopped under
    // `lock`, read and ended by every backend (src/core/catch_up_state.hpp).
    snowflake::SharedCatchUp catch_up;
    // snowflake_id.takeover = 'wait': closed by the registry worker at a
    // grant whose floor lies ahead of the clock (pg_resume.cpp), instead of
    // the catch-up clock; read by every call before the generator runs.
    snowflake::TakeoverGate takeover_gate;

    // The wall-clock readings of every backend (pg_generate.cpp): the steps
    // back snowflake_status counts, and what tells the generator a clock
    // that went back from demand beyond the layout's capacity. On a cache
    // line of its own so that it does not slow the CAS on `floor`.
    alignas(64) snowflake::ClockWatch clock_watch;

    LWLock *lock = nullptr;
    uint64_t run_id = 0;  // this run's id (src/core/state_record.hpp), set at creation
    // Under lock:
    bool have_stored = false;       // a record was read, written or replayed
    snowflake::StateRecord stored;  // the newest such record
    uint64_t pending_below = 0;     // the newest record's bound, maybe unconfirmed
    XLogRecPtr pending_lsn = 0;     // and its WAL position
    uint64_t floor_at_start = 0;    // what the start-up LOG line said
    bool dir_synced = false;        // the data directory was fsynced after the state file
    // The floor came from an exact record (shutdown, crash-restart): WAL
    // records of the run it closes (exact_run_id) do not raise it.
    bool floor_is_exact = false;
    uint64_t exact_run_id = 0;
    // With Refusal::state_stale: the checkpoint of the clean shutdown the
    // state file does not match, for messages.
    uint64_t last_shutdown_lsn = 0;
    // The floor moves without a record of its own in two places: a lease
    // taken over raises it to the lease's floor, a switch of node id lowers
    // it. The shutdown's sanity check of the floor (pg_shmem.cpp) allows
    // for both.
    uint64_t floor_raised_by_lease = 0;
    uint64_t floor_lowered_by_switch = UINT64_MAX;
    // The record read at start is the exact one the clean shutdown that
    // pg_control names wrote (or the last run with the library wrote, only
    // runs without it having come since: pg_wal_scan.cpp): its node id,
    // fence and floor describe the last run that could issue exactly (the
    // registry worker takes that lease back without the registry's margin).
    bool state_closes_last_shutdown = false;
    uint32_t closed_shutdown_timeline = 0;  // that shutdown's timeline
    // The same after a crash: the record read at start was written by this
    // data directory's own run as a primary, holding the lease it names
    // (StateRecord::lease_held), in the current boot of the machine, and
    // this start is crash recovery of that directory (pg_control shows a
    // primary that stopped without a shutdown; no backup_label, no
    // recovery.signal or standby.signal). That run's IDs are all below its
    // records, and every one of its records is in the file or in the WAL
    // that recovery replays, so the floor after recovery is above them: the
    // registry worker takes the lease back there, not at the registry's
    // recorded bound (up to lease_ttl ahead). A record of another run
    // replayed over it ends this (pg_wal.cpp).
    bool state_closes_crash = false;
    uint64_t crashed_run_id = 0;
    // The floor is just past the last ID issued (an exact record of a run
    // that issued), not the end of a reservation or a lease's floor: what
    // the start-up LOG line calls it.
    bool floor_marks_last_id = false;
    // The floor's lead over the clock came from a node id lease taken over
    // (the records that set it say so: StateRecord::lead_from_lease), not
    // from a clock set back: a resume does not blame the clock for it.
    bool floor_lead_from_lease = false;
    // The fence of the lease whose floor the generator's floor is above (set
    // once the worker has raised it, or decided it need not): the lease the
    // shutdown's exact record may name as held.
    int64_t lease_floor_fence = 0;
    // With a registry, a state file that is unreadable or older than the
    // data directory is set aside: the generator starts at the clock plus
    // max_clock_drift, and the lease's floor takes it above every ID issued
    // on its node id (pg_shmem.cpp).
    bool state_set_aside = false;
    // The registry worker has confirmed the set-aside (the registry records
    // a bound for the id it granted) and moved the file out of the way.
    bool set_aside_confirmed = false;
    Refusal set_aside_refusal = Refusal::none;  // what refusing would have been
    // With Refusal::state_unreadable: why (StateFileRead).
    StateFileProblem state_problem = StateFileProblem::none;
    int state_error = 0;
    unsigned state_owner_uid = 0;
    unsigned state_mode = 0;
    // The data directory holds pg_upgrade's mark (sf_upgrade_mark_name): the
    // first write of a state file of its own removes it.
    bool upgrade_marked = false;
    // The record resumed from is the old cluster's hand-off
    // (StateRecord::upgrade_handoff) in a cluster made by pg_upgrade: its
    // lease comes back as after a restart (registry/pg_registry.cpp).
    bool state_from_upgrade = false;
    // In binary-upgrade mode: the state file is this cluster's own record of
    // its last stop, which the stop of this run stamps as the hand-off.
    bool handoff_pending = false;
    // The catch-up clock runs because a lease taken over from another
    // holder put the floor ahead of the clock, not because the clock went
    // back: the exact record at shutdown says so (StateRecord::lead_from_lease).
    bool catch_up_from_lease = false;
    // The databases checked for restored IDs, and at which generation.
    snowflake::OriginMarks origin_marks;
    LeaseState lease;
};

// nullptr unless the library was preloaded.
extern SharedState *sf_shared;

// The counters behind snowflake_status (pg_status.cpp). Each process adds to
// its own slot, indexed by its PGPROC number, so counting is a plain load and
// store on a cache line no other process writes; reading sums the slots.
// Slots outlive their processes, so the sums count since shared memory was
// created. A process without a slot of its own (none should exist) shares
// the last one, with atomic adds.
struct alignas(64) StatusCounters {
    std::atomic<uint64_t> ids_issued{0};
    std::atomic<uint64_t> sequence_exhausted{0};  // calls whose sequence ran out
    std::atomic<uint64_t> waits{0};               // calls that slept for the clock
    std::atomic<uint64_t> clock_backwards{0};     // steps back of the wall clock
    std::atomic<uint64_t> errors{0};              // ERRORs raised by snowflake_nextval
};
using StatusCounter = std::atomic<uint64_t> StatusCounters::*;
void sf_count(StatusCounter counter, uint64_t n = 1);

// How far ahead a reservation reaches, and when the next one is made.
inline constexpr int64_t kReservationWindowMs = 1000;
inline constexpr int64_t kRenewBeforeEndMs = 500;

// Whether the lease's deadline has passed: the lease is over, whether or
// not the registry worker, which may be waiting on a hung registry, has
// published it expired yet.
inline bool sf_lease_past_deadline(const LeaseState &lease) {
    return sf_monotonic_ns() >= lease.deadline_mono_ns.load(std::memory_order_relaxed);
}
