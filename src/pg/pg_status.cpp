// snowflake_status(): what the generator is doing, from counters in shared
// memory (the slots are described at StatusCounters in pg_shared.hpp).
//
// The floor, the reservation and the catch-up flag are atomics, and the
// counters are summed with relaxed loads; the lock is taken, shared, only for
// what the generator's writers keep under it. The sums are not a snapshot of
// one instant; each value is at most a few calls old.
//
// Every column means something on the server it is read on. A standby
// issues nothing: the columns about issued IDs and the generator's clock are
// NULL there, and reserved_until is its primary's reservation as replayed.
#include <algorithm>
#include <new>

#include "core/epoch.hpp"
#include "pg_shared.hpp"
// After the core headers (src/core/pure_cpp.hpp).
#include "pg_compat.hpp"

extern "C" {
#include "access/htup_details.h"
#include "access/twophase.h"
#include "access/xlog.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

PG_FUNCTION_INFO_V1(snowflake_status);
}

namespace {

struct StatusSlots {
    int count;  // slots, the last of which is shared
    StatusCounters slots[FLEXIBLE_ARRAY_MEMBER];
};

StatusSlots *status_slots = nullptr;

// This process's slot, found on first use. If it is the shared last one,
// adds must be atomic.
StatusCounters *my_slot = nullptr;
bool my_slot_is_shared = false;

// One slot per PGPROC (backends, auxiliary processes, prepared
// transactions), plus the shared one.
int slot_count() {
    return MaxBackends + NUM_AUXILIARY_PROCS + max_prepared_xacts + 1;
}

StatusCounters *find_my_slot() {
    const int n = sf_compat_my_proc_number();
    if (n >= 0 && n < status_slots->count - 1) {
        my_slot_is_shared = false;
        return &status_slots->slots[n];
    }
    my_slot_is_shared = true;
    return &status_slots->slots[status_slots->count - 1];
}

Datum timestamptz_of(int64_t unix_ms) {
    return TimestampTzGetDatum(sf_timestamptz_of(unix_ms));
}

}  // namespace

Size sf_status_shmem_size() {
    return add_size(offsetof(StatusSlots, slots),
                    mul_size(static_cast<Size>(slot_count()), sizeof(StatusCounters)));
}

void sf_status_shmem_init() {
    bool found = false;
    void *mem = ShmemInitStruct("snowflake_id status", sf_status_shmem_size(), &found);
    status_slots = static_cast<StatusSlots *>(mem);
    if (!found) {
        status_slots->count = slot_count();
        for (int i = 0; i < status_slots->count; ++i) {
            new (&status_slots->slots[i]) StatusCounters();
        }
    }
}

void sf_count(StatusCounter counter, uint64_t n) {
    if (status_slots == nullptr) {
        return;
    }
    if (my_slot == nullptr) {
        my_slot = find_my_slot();
    }
    std::atomic<uint64_t> &c = my_slot->*counter;
    if (my_slot_is_shared) {
        c.fetch_add(n, std::memory_order_relaxed);
    } else {
        // Only this process writes the slot: no read-modify-write needed.
        c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
    }
}

extern "C" Datum snowflake_status(PG_FUNCTION_ARGS) {
    if (sf_shared == nullptr || status_slots == nullptr) {
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("snowflake_id must be loaded via shared_preload_libraries"),
                        errdetail("snowflake_status reads the generator's shared memory, which "
                                  "only a preloaded library has."),
                        errhint("Add snowflake_id to shared_preload_libraries in "
                                "postgresql.conf and restart the server.")));
    }
    TupleDesc tupdesc;
    if (get_call_result_type(fcinfo, nullptr, &tupdesc) != TYPEFUNC_COMPOSITE) {
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                        errmsg("snowflake_status() must be called where a record is expected")));
    }
    tupdesc = BlessTupleDesc(tupdesc);

    const snowflake::Layout &layout = sf_layout;
    const int shift = layout.timestamp_shift();
    // A hot standby: it replays its primary's WAL and issues nothing.
    const bool standby = RecoveryInProgress();

    // The lease word, the floor and the lease's bound as of one moment: a
    // switch of node id lowers the floor and sets another bound between
    // publications of the word, so a pair read across it (the old lease's
    // word with the new floor, say) would show a state that never was.
    const LeaseState &lease = sf_shared->lease;
    int64_t lease_word_now = 0;
    uint64_t floor = 0;
    uint64_t lease_below = 0;
    do {
        lease_word_now = lease.published.load(std::memory_order_acquire);
        floor = sf_shared->floor.load(std::memory_order_acquire);
        lease_below = lease.below.load(std::memory_order_acquire);
    } while (lease.published.load(std::memory_order_acquire) != lease_word_now);
    const uint64_t below = sf_shared->reservation.below.load(std::memory_order_acquire);
    const bool catching_up = sf_shared->catch_up.running();
    const int64_t wall = sf_wall_clock_ms();
    const int64_t clock = sf_generator_clock_at(wall);

    uint64_t sums[5] = {0, 0, 0, 0, 0};
    for (int i = 0; i < status_slots->count; ++i) {
        const StatusCounters &c = status_slots->slots[i];
        sums[0] += c.ids_issued.load(std::memory_order_relaxed);
        sums[1] += c.sequence_exhausted.load(std::memory_order_relaxed);
        sums[2] += c.waits.load(std::memory_order_relaxed);
        sums[3] += c.clock_backwards.load(std::memory_order_relaxed);
        sums[4] += c.errors.load(std::memory_order_relaxed);
    }

    // The floor lies just above the last ID issued only once this run has
    // issued one, and only while an issue set it last: where the run resumed
    // (a state file, a crash recovery's replayed reservation, an accepted
    // layout), a lease's floor and a switch of node id put it at a bound
    // below which no ID need exist, and reporting that bound as an issued
    // ID's time would claim an ID at the end of a reservation. Each such
    // point is recorded under the lock by whoever moved the floor there,
    // and the lock is taken after the floor was read, so a floor set so is
    // matched. (A floor read just before the run's first ID is the point it
    // resumed from, whatever the count says.) Not matched: a switch of node
    // id to a floor above an earlier switch's (only the lowest is kept),
    // which shows that floor until the next ID, issued at once by the call
    // that asked for the switch.
    // On a standby: its primary's reservation as replayed so far (or as the
    // state file it started from recorded it), in the layout it was made
    // under, which may not be this server's.
    bool floor_follows_issue = false;
    bool have_replayed = false;
    int64_t replayed_unix_ms = 0;
    LWLockAcquire(sf_shared->lock, LW_SHARED);
    if (!standby) {
        floor_follows_issue = sums[0] > 0 && floor != sf_shared->floor_at_start &&
                              floor != sf_shared->floor_raised_by_lease &&
                              floor != sf_shared->floor_lowered_by_switch;
    } else if (sf_shared->have_stored) {
        snowflake::Layout stored_layout;
        snowflake::Error err;
        have_replayed = snowflake::layout_of(sf_shared->stored, &stored_layout, &err);
        if (have_replayed) {
            replayed_unix_ms =
                stored_layout.epoch_unix_ms() +
                static_cast<int64_t>(sf_shared->stored.id_bound >> stored_layout.timestamp_shift());
        }
    }
    LWLockRelease(sf_shared->lock);

    enum {
        kWorkerId,
        kDatacenterId,
        kTimestampBits,
        kDatacenterBits,
        kWorkerBits,
        kSequenceBits,
        kEpoch,
        kLastIssuedAt,
        kAheadOfClockMs,
        kCatchingUp,
        kReservedUntil,
        kIdsIssued,
        kSequenceExhausted,
        kWaits,
        kClockBackwards,
        kErrors,
        kLayoutEndsAt,
        // 1.3: the node id lease.
        kRegistry,
        kNodeIdSource,
        kLeaseState,
        kLeaseExpiresAt,
        kLeaseRenewals,
        kLeaseFailures,
        kLeaseSwitches,
        kLeaseMessage,
        kColumns
    };
    Datum values[kColumns];
    bool nulls[kColumns];
    for (int i = 0; i < kColumns; ++i) {
        values[i] = 0;
        nulls[i] = false;
    }
    values[kWorkerId] = Int32GetDatum(sf_worker_id);
    nulls[kWorkerId] = sf_worker_id < 0;  // not set
    values[kDatacenterId] = Int32GetDatum(sf_datacenter_id);
    const bool registry = sf_registry_configured();
    // Past its deadline a lease is expired, as a call sees it
    // (pg_generate.cpp), even while the worker still waits on a hung
    // registry and has not published it. So it is once the next ID would
    // reach the bound the registry recorded (pg_reserve.cpp refuses the
    // call then): IDs borrowed ahead of the clock, or a worker whose clock
    // lags the backends', reach it before the deadline.
    const bool held_now = lease_status_of(lease_word_now) == LeaseStatus::held;
    bool bound_reached = false;
    if (held_now && lease_below != 0) {
        snowflake::GeneratorParams params;
        params.layout = layout;
        params.node = lease_node_of(lease_word_now);
        bound_reached = snowflake::next_single_id(params, floor, clock) >= lease_below;
    }
    const bool past_deadline = held_now && sf_lease_past_deadline(sf_shared->lease);
    const bool overdue = past_deadline || (held_now && bound_reached);
    auto lease_status = overdue ? LeaseStatus::expired : lease_status_of(lease_word_now);
    // With a registry, `none` is only the word before the worker's first
    // publication: before it starts, and on a standby, where it starts at
    // promotion. No lease is held yet.
    const bool before_worker = registry && lease_status == LeaseStatus::none;
    if (before_worker) {
        lease_status = LeaseStatus::waiting;
    }
    if (registry) {
        // The node in use is the lease's, while there is one.
        const int64_t node = lease_status == LeaseStatus::held ? lease_node_of(lease_word_now) : -1;
        const int worker_bits = layout.widths().worker_bits;
        values[kWorkerId] = Int32GetDatum(static_cast<int32>(node & ((1 << worker_bits) - 1)));
        values[kDatacenterId] = Int32GetDatum(static_cast<int32>(node >> worker_bits));
        nulls[kWorkerId] = nulls[kDatacenterId] = node < 0;
    }
    values[kTimestampBits] = Int32GetDatum(layout.timestamp_bits());
    values[kDatacenterBits] = Int32GetDatum(layout.widths().datacenter_bits);
    values[kWorkerBits] = Int32GetDatum(layout.widths().worker_bits);
    values[kSequenceBits] = Int32GetDatum(layout.widths().sequence_bits);
    values[kEpoch] = timestamptz_of(layout.epoch_unix_ms());
    // The floor is one above the newest ID, or where the generator resumed:
    // the next ID carries its time or a later one, whether or not an ID was
    // issued below it.
    const int64_t below_floor_unix_ms =
        floor == 0 ? INT64_MIN
                   : layout.epoch_unix_ms() + static_cast<int64_t>((floor - 1) >> shift);
    nulls[kLastIssuedAt] = !floor_follows_issue || floor == 0;
    if (!nulls[kLastIssuedAt]) {
        values[kLastIssuedAt] = timestamptz_of(below_floor_unix_ms);
    }
    values[kAheadOfClockMs] =
        Int64GetDatum(std::max<int64_t>(0, std::max(below_floor_unix_ms, clock) - wall));
    values[kCatchingUp] = BoolGetDatum(catching_up);
    if (below == UINT64_MAX) {
        nulls[kReservedUntil] = true;
    } else {
        values[kReservedUntil] =
            timestamptz_of(layout.epoch_unix_ms() + static_cast<int64_t>(below >> shift));
    }
    if (standby) {
        // Its generator's clock starts at promotion (pg_wal.cpp, cleanup),
        // from the floor replay raised: until then a catch-up clock left
        // from the start, or a lead over the wall clock, describes nothing.
        nulls[kLastIssuedAt] = nulls[kAheadOfClockMs] = nulls[kCatchingUp] = true;
        nulls[kReservedUntil] = !have_replayed;
        if (have_replayed) {
            values[kReservedUntil] = timestamptz_of(replayed_unix_ms);
        }
    }
    for (int i = 0; i < 5; ++i) {
        values[kIdsIssued + i] = Int64GetDatum(static_cast<int64_t>(sums[i]));
    }
    values[kLayoutEndsAt] = timestamptz_of(layout.end_unix_ms());
    static const char *const kLeaseStates[] = {"none",    "waiting",   "held",    "refused",
                                               "expired", "switching", "replaced"};
    nulls[kRegistry] = nulls[kLeaseExpiresAt] = nulls[kLeaseMessage] = !registry;
    values[kNodeIdSource] = CStringGetTextDatum(
        sf_worker_id == kWorkerIdAuto ? "auto" : (sf_worker_id >= 0 ? "static" : "unset"));
    values[kLeaseState] = CStringGetTextDatum(kLeaseStates[static_cast<int>(lease_status)]);
    values[kLeaseRenewals] = Int64GetDatum(static_cast<int64_t>(lease.renewals.load()));
    values[kLeaseFailures] = Int64GetDatum(static_cast<int64_t>(lease.failures.load()));
    values[kLeaseSwitches] = Int64GetDatum(static_cast<int64_t>(lease.switches.load()));
    // snowflake_id.takeover = 'wait': the lease is held, and no ID is issued
    // before the clock reaches its floor (pg_generate.cpp).
    const int64_t gate_unix_ms = sf_shared->takeover_gate.peek();
    const char *gate_text = nullptr;
    if (registry && !standby && lease_status == LeaseStatus::held && gate_unix_ms > clock) {
        char resume_text[40];
        snowflake::format_utc(gate_unix_ms, resume_text, sizeof resume_text);
        gate_text = psprintf(
            "no IDs until %s, %lld ms from now: the floor of the lease, taken "
            "from another holder, lies ahead of the clock "
            "(snowflake_id.takeover = 'wait')",
            resume_text, static_cast<long long>(gate_unix_ms - clock));
    }
    if (registry) {
        values[kRegistry] = CStringGetTextDatum(sf_describe_registry());
        LWLockAcquire(sf_shared->lock, LW_SHARED);
        values[kLeaseMessage] = CStringGetTextDatum(
            gate_text != nullptr ? gate_text
            : before_worker && standby
                ? "a standby takes no node id lease: it asks the registry for one once promoted"
            : !overdue || lease.message[0] != '\0' ? lease.message
            : past_deadline
                ? "no renewal confirmed by the lease's deadline: the registry has not answered yet"
                : "the next ID would reach the bound recorded with the last confirmed renewal: "
                  "the registry has not answered since");
        LWLockRelease(sf_shared->lock);
        const int64_t expires = lease.expires_unix_ms.load();
        nulls[kLeaseExpiresAt] = expires == 0;
        values[kLeaseExpiresAt] = timestamptz_of(expires);
    }
    PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
