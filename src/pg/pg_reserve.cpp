// The durable reservation: before the generator issues an ID above what is
// reserved, a backend records a new bound (the ID's timestamp, or the clock
// if later, plus kReservationWindowMs) in the state file, logs it in WAL,
// flushes the WAL and waits for the synchronous standbys, in that order, and
// only then raises reservation.below. So the durable write happens about
// once per window, not per ID, and an ID never leaves the server before
// every copy that a restart, a crash recovery or a failover would resume
// from knows a bound above it. Protocol: src/pg/pg_shared.hpp.
//
// The state file comes first, then WAL: crash recovery replays only records
// after the last checkpoint, and a clean shutdown replays none, so the state
// file is what a start reads; the WAL record is what reaches the standbys.
#include <algorithm>

#include "pg_shared.hpp"
// After the core headers (src/core/pure_cpp.hpp).
#include "pg_compat.hpp"

extern "C" {
#include "access/xlog.h"
#include "miscadmin.h"
#include "replication/syncrep.h"
#include "replication/walsender.h"
#include "replication/walsender_private.h"
#include "storage/latch.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "utils/wait_event.h"
}

void sf_raise_to(std::atomic<uint64_t> &word, uint64_t value) {
    uint64_t cur = word.load(std::memory_order_acquire);
    while (cur < value && !word.compare_exchange_weak(cur, value, std::memory_order_acq_rel)) {
    }
}

XLogRecPtr sf_write_reservation_locked(uint64_t bound) {
    SharedState *s = sf_shared;
    snowflake::StateRecord record =
        snowflake::state_record_for(sf_layout, bound, s->stored.generation + 1, s->run_id);
    // Marks the file as this cluster's: a start-up check compares it with
    // pg_control (pg_shmem.cpp).
    record.system_id = GetSystemIdentifier();
    // Where its WAL copy goes: a later start that finds this record older
    // than the data directory reads the WAL from here for reservations made
    // after it (pg_wal_scan.cpp).
    record.checkpoint_lsn = GetXLogInsertRecPtr();
    // With a registry: the lease it was made under, so that a restart asks
    // for the same node id and proves it held it.
    if (sf_registry_configured()) {
        record.node_id = static_cast<int32_t>(s->lease.node.load());
        record.fence = s->lease.fence.load();
        // Made by this run under that lease, its floor above the lease's:
        // after a crash, this server may take the lease back at the floor
        // its WAL gives (pg_shmem.cpp). WAL replay clears it (pg_wal.cpp):
        // a standby never held its primary's lease.
        record.lease_held = record.fence > 0 && record.fence == s->lease_floor_fence;
    }
    // Ahead of the clock because a lease taken over put the floor there: a
    // server that resumes from this record (after a crash, or a standby at
    // promotion) does not blame its clock for the lead.
    const int64_t wall = sf_wall_clock_ms();
    record.lead_from_lease = s->catch_up_from_lease && s->catch_up.running() &&
                             s->catch_up.now(wall, sf_monotonic_ns(), false) > wall;
    sf_store_record_locked(record);
    const XLogRecPtr lsn = sf_log_record(record);
    XLogFlush(lsn);
    s->pending_below = bound;
    s->pending_lsn = lsn;
    return lsn;
}

namespace {

// The bound of a new reservation that covers need_id: the window past the
// later of need_id's time and the clock. need_id is at most max_clock_drift
// ahead of the generator's clock (no ID is issued further ahead, and a
// renewal passes the last ID issued, not the old bound), so no bound is more
// than max_clock_drift + kReservationWindowMs ahead of the clock when it is
// made: what the resume WARNING (pg_resume.cpp) and the README rely on.
uint64_t new_bound(uint64_t need_id) {
    const snowflake::Layout &layout = sf_layout;
    const int low_bits = layout.timestamp_shift();
    const int64_t need_ts = static_cast<int64_t>(need_id >> low_bits);
    const int64_t now_ts = sf_generator_clock_ms() - layout.epoch_unix_ms();
    const int64_t end_ts =
        std::min(std::max(need_ts, now_ts) + kReservationWindowMs, layout.max_timestamp());
    // (max_timestamp + 1) << low_bits <= 2^63: no overflow in uint64_t.
    return static_cast<uint64_t>(end_ts + 1) << low_bits;
}

uint64_t renew_point(uint64_t bound) {
    const uint64_t margin = static_cast<uint64_t>(kRenewBeforeEndMs) << sf_layout.timestamp_shift();
    return bound > margin ? bound - margin : 0;
}

}  // namespace

void sf_reserve(uint64_t need_id, ReserveFor why) {
    SharedState *s = sf_shared;
    const bool renewal = why == ReserveFor::renewal;
    // A reservation covers the need when its bound is above need_id; for a
    // renewal, when the need is not yet at its renew point either.
    auto covers = [&](uint64_t bound) { return (renewal ? renew_point(bound) : bound) > need_id; };
    if (!renewal) {
        LWLockAcquire(s->lock, LW_EXCLUSIVE);
    } else if (!LWLockConditionalAcquire(s->lock, LW_EXCLUSIVE)) {
        return;  // someone else is reserving right now
    }
    if (covers(s->reservation.below.load())) {
        LWLockRelease(s->lock);
        return;
    }
    uint64_t bound = 0;
    XLogRecPtr lsn = InvalidXLogRecPtr;
    if (covers(s->pending_below)) {
        // Written and flushed by another backend that is still waiting for
        // the standbys: wait for the same record instead of writing another.
        bound = s->pending_below;
        lsn = s->pending_lsn;
    } else {
        bound = new_bound(need_id);
        if (sf_registry_configured()) {
            // Never beyond the bound the registry has recorded: a new holder
            // of this node id starts above it.
            const uint64_t lease_below = s->lease.below.load(std::memory_order_acquire);
            if (need_id >= lease_below) {
                LWLockRelease(s->lock);
                if (renewal) {
                    return;  // the IDs already issued are covered
                }
                sf_raise_lease_bound_reached(need_id);
            }
            bound = std::min(bound, lease_below);
            if (renewal && bound <= s->reservation.below.load()) {
                LWLockRelease(s->lock);
                return;  // at the registry's bound already: nothing to extend
            }
        }
        lsn = sf_write_reservation_locked(bound);
    }
    LWLockRelease(s->lock);
    sf_wait_for_sync_standbys(lsn);
    if (!sf_registry_configured()) {
        sf_raise_to(s->reservation.below, bound);
        sf_raise_to(s->reservation.renew_at, renew_point(bound));
        return;
    }
    // The lease may have changed during the wait (lost, or switched to
    // another node id, which lowers the reservation under the exclusive
    // lock): never beyond the bound of the lease in force, read under the
    // lock so that a raise cannot land after such a lowering.
    LWLockAcquire(s->lock, LW_SHARED);
    bound = std::min(bound, s->lease.below.load(std::memory_order_acquire));
    sf_raise_to(s->reservation.below, bound);
    sf_raise_to(s->reservation.renew_at, renew_point(bound));
    LWLockRelease(s->lock);
}

namespace {

// The synchronous standbys release commit waiters from a queue, one per wait
// mode and ordered by LSN: the walsender that sees the standbys' flush
// position reach a waiter's LSN removes it, marks it SYNC_REP_WAIT_COMPLETE
// and sets its latch; the checkpointer releases everyone when
// synchronous_standby_names is emptied. A reservation waits in the same
// queue for the flush position (SYNC_REP_WAIT_FLUSH) whatever the session's
// synchronous_commit, so it sleeps until released, like a commit.
// SyncRepWaitForLSN itself is not used: it waits in the session's mode, and
// on cancel it only warns that the "transaction has already committed
// locally" and returns, where a reservation must end with an ERROR. The
// queue is changed under SyncRepLock, exclusive; ProcKill takes a process
// that exits while queued out of the queue.
constexpr int kFlushMode = SYNC_REP_WAIT_FLUSH;

// Whether WAL up to lsn needs no (more) waiting; under SyncRepLock. Whether
// standbys are configured is read from the flag the checkpointer publishes
// for all backends, as the commit wait does: a backend's own copy of
// synchronous_standby_names only changes between statements, and a long COPY
// must not miss a change.
bool flushed_or_no_standbys_locked(XLogRecPtr lsn) {
    return !sf_compat_sync_standbys_defined_locked() || WalSndCtl->lsn[kFlushMode] >= lsn;
}

}  // namespace

// Waits until the synchronous standbys have flushed the WAL up to lsn, while
// any are configured. The reservation protects every session, so the
// session's synchronous_commit does not weaken it: even with
// synchronous_commit = off, no ID is issued under a reservation that the
// synchronous standbys have not flushed.
//
// The wait sleeps in the commit waiters' queue (above) and uses no CPU until
// released. An interrupt takes the backend out of the queue before
// CHECK_FOR_INTERRUPTS, so cancel and statement_timeout end the wait with
// their usual ERROR and no ID; an interrupt that raises nothing (a barrier,
// a config reload request) puts it back.
void sf_wait_for_sync_standbys(XLogRecPtr lsn) {
    if (lsn == InvalidXLogRecPtr || max_wal_senders == 0) {
        return;
    }
    for (;;) {
        LWLockAcquire(SyncRepLock, LW_EXCLUSIVE);
        if (flushed_or_no_standbys_locked(lsn)) {
            LWLockRelease(SyncRepLock);
            return;
        }
        sf_compat_syncrep_queue_insert_locked(kFlushMode, lsn);
        LWLockRelease(SyncRepLock);
        bool released = false;
        for (;;) {
            ResetLatch(MyLatch);
            // The walsender dequeues us before it sets the state.
            pg_read_barrier();
            if (MyProc->syncRepState == SYNC_REP_WAIT_COMPLETE) {
                released = true;
                break;
            }
            // Only an interrupt that CHECK_FOR_INTERRUPTS can act on ends
            // the sleep: one held off (a cancel while QueryCancelHoldoffCount
            // is up) would otherwise leave and rejoin the queue in a loop.
            if (InterruptPending && INTERRUPTS_CAN_BE_PROCESSED()) {
                break;
            }
            (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_EXIT_ON_PM_DEATH, -1L, WAIT_EVENT_SYNC_REP);
        }
        LWLockAcquire(SyncRepLock, LW_EXCLUSIVE);
        sf_compat_syncrep_queue_remove_locked();  // a no-op when released
        MyProc->syncRepState = SYNC_REP_NOT_WAITING;
        MyProc->waitLSN = InvalidXLogRecPtr;
        LWLockRelease(SyncRepLock);
        if (released) {
            return;
        }
        CHECK_FOR_INTERRUPTS();
    }
}
