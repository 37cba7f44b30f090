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

extern "C" {
#include "access/xlog.h"
#include "miscadmin.h"
#include "replication/syncrep.h"
#include "replication/walsender.h"
#include "replication/walsender_private.h"
#include "storage/latch.h"
#include "storage/lwlock.h"
#if PG_VERSION_NUM >= 140000
#include "utils/wait_event.h"
#else
#include "pgstat.h"
#endif
}

void sf_raise_to(std::atomic<uint64_t> &word, uint64_t value) {
    uint64_t cur = word.load(std::memory_order_acquire);
    while (cur < value && !word.compare_exchange_weak(cur, value, std::memory_order_acq_rel)) {
    }
}

XLogRecPtr sf_write_reservation_locked(uint64_t bound) {
    SharedState *s = sf_shared;
    const snowflake::StateRecord record =
        snowflake::state_record_for(sf_layout, bound, s->stored.generation + 1, s->run_id);
    sf_store_record_locked(record);
    const XLogRecPtr lsn = sf_log_record(record);
    XLogFlush(lsn);
    s->pending_below = bound;
    s->pending_lsn = lsn;
    return lsn;
}

namespace {

// The bound of a new reservation that covers need_id.
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

// Whether synchronous standbys are configured, as the checkpointer has
// published it for all backends (PostgreSQL's commit wait reads the same
// flag): a backend's own copy of synchronous_standby_names only changes
// between statements, and a long COPY must not miss a change. Read under
// SyncRepLock. Minor releases of 15 turned the bool sync_standbys_defined
// into the bit SYNC_STANDBY_DEFINED of sync_standbys_status; the headers
// built against decide which.
bool sync_standbys_defined() {
#ifdef SYNC_STANDBY_DEFINED
    return (WalSndCtl->sync_standbys_status & SYNC_STANDBY_DEFINED) != 0;
#else
    return WalSndCtl->sync_standbys_defined;
#endif
}

}  // namespace

void sf_reserve(uint64_t need_id, bool wait_for_lock) {
    SharedState *s = sf_shared;
    if (wait_for_lock) {
        LWLockAcquire(s->lock, LW_EXCLUSIVE);
    } else if (!LWLockConditionalAcquire(s->lock, LW_EXCLUSIVE)) {
        return;  // someone else is reserving right now
    }
    if (s->reservation.below.load() > need_id) {
        LWLockRelease(s->lock);
        return;
    }
    uint64_t bound = 0;
    XLogRecPtr lsn = InvalidXLogRecPtr;
    if (s->pending_below > need_id) {
        // Written and flushed by another backend that is still waiting for
        // the standbys: wait for the same record instead of writing another.
        bound = s->pending_below;
        lsn = s->pending_lsn;
    } else {
        bound = new_bound(need_id);
        lsn = sf_write_reservation_locked(bound);
    }
    LWLockRelease(s->lock);
    sf_wait_for_sync_standbys(lsn);
    sf_raise_to(s->reservation.below, bound);
    sf_raise_to(s->reservation.renew_at, renew_point(bound));
}

// Waits until the synchronous standbys have flushed the WAL up to lsn, while
// any are configured. The reservation protects every session, so the
// session's synchronous_commit does not weaken it: even with
// synchronous_commit = off, no ID is issued under a reservation that the
// synchronous standbys have not flushed.
//
// It polls the flush position that the walsenders publish for the
// synchronous standbys (WalSndCtl->lsn[SYNC_REP_WAIT_FLUSH], the position
// commits wait for), instead of queueing through SyncRepWaitForLSN, whose
// cancel handling only warns. The wait happens once per reservation, on the
// latch, so a cancel or statement_timeout ends it with the usual ERROR and
// no ID; and it ends as commits' waits do when synchronous_standby_names is
// emptied.
void sf_wait_for_sync_standbys(XLogRecPtr lsn) {
    if (lsn == InvalidXLogRecPtr || max_wal_senders == 0) {
        return;
    }
    for (;;) {
        LWLockAcquire(SyncRepLock, LW_SHARED);
        const bool done = !sync_standbys_defined() || WalSndCtl->lsn[SYNC_REP_WAIT_FLUSH] >= lsn;
        LWLockRelease(SyncRepLock);
        if (done) {
            return;
        }
        (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 1L,
                        WAIT_EVENT_SYNC_REP);
        ResetLatch(MyLatch);
        CHECK_FOR_INTERRUPTS();
    }
}
