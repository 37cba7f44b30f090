// snowflake_nextval(): the generator's SQL face.
#include "core/state_record.hpp"
#include "pg_shared.hpp"

extern "C" {
#include "access/xlog.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/latch.h"
#if PG_VERSION_NUM >= 140000
#include "utils/wait_event.h"
#else
#include "pgstat.h"
#endif

PG_FUNCTION_INFO_V1(snowflake_nextval);
}

namespace {

int64_t generator_clock(void *) {
    return sf_generator_clock_ms();
}

// Sleeps on the latch so that a cancel or statement_timeout wakes us at
// once. The latch may also wake us early for other reasons (it is set when a
// backend starts, by NOTIFY, ...), so report the time really slept: only that
// counts against max_wait. Returns false when an interrupt is pending: the
// core then returns, and the caller runs CHECK_FOR_INTERRUPTS() outside any
// core frame.
bool sleep_on_latch(void *, int64_t ms, int64_t *slept_us) {
    const int64_t start = sf_monotonic_ns() / 1000;
    (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, static_cast<long>(ms),
                    PG_WAIT_EXTENSION);
    ResetLatch(MyLatch);
    *slept_us = sf_monotonic_ns() / 1000 - start;
    return !InterruptPending;
}

[[noreturn]] void raise_not_preloaded() {
    ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                    errmsg("snowflake_id must be loaded via shared_preload_libraries"),
                    errdetail("snowflake_nextval() keeps its state in shared memory, which only a "
                              "preloaded library has. The decoding functions work without it."),
                    errhint("Add snowflake_id to shared_preload_libraries in postgresql.conf "
                            "(ALTER SYSTEM SET shared_preload_libraries = 'snowflake_id'), set "
                            "snowflake_id.worker_id, and restart the server.")));
    pg_unreachable();
}

[[noreturn]] void raise_in_recovery() {
    ereport(ERROR, (errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
                    errmsg("cannot issue snowflake IDs during recovery"),
                    errdetail("A standby carries the primary's configuration, worker id included, "
                              "so IDs issued here could repeat the primary's."),
                    errhint("Call snowflake_nextval() on the primary.")));
    pg_unreachable();
}

[[noreturn]] void raise_refusal(Refusal refusal) {
    if (refusal == Refusal::state_unreadable) {
        ereport(ERROR,
                (errcode(ERRCODE_DATA_CORRUPTED),
                 errmsg("snowflake_id cannot tell which IDs were issued before: the state file "
                        "\"%s\" is unreadable",
                        sf_state_file_name),
                 errdetail("Neither slot of the file holds a valid record, so the generator "
                           "does not know where it may resume without repeating an ID."),
                 errhint("Restore the file from a backup of this data directory. If every ID "
                         "ever issued is below the wall clock now plus max_clock_drift, remove "
                         "the file and restart the server.")));
    }
    LWLockAcquire(sf_shared->lock, LW_SHARED);
    const snowflake::StateRecord record = sf_shared->stored;
    LWLockRelease(sf_shared->lock);
    LayoutTexts texts;
    sf_describe_layouts(record, &texts);
    ereport(ERROR,
            (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
             errmsg("the snowflake ID layout changed since IDs were issued"),
             errdetail("IDs were issued under %s; the server now runs %s. Under another layout "
                       "or epoch, new IDs can equal or sort below old ones.",
                       texts.stored, texts.configured),
             errhint("Restore the previous settings and restart, or have a superuser run SELECT "
                     "snowflake_accept_layout(); to continue above every ID issued so far.")));
    pg_unreachable();
}

}  // namespace

extern "C" Datum snowflake_nextval(PG_FUNCTION_ARGS) {
    if (sf_shared == nullptr) {
        raise_not_preloaded();
    }
    if (RecoveryInProgress()) {
        raise_in_recovery();
    }
    const auto refusal = static_cast<Refusal>(sf_shared->refusal.load(std::memory_order_acquire));
    if (refusal != Refusal::none) {
        raise_refusal(refusal);
    }
    snowflake::Error err;
    snowflake::GeneratorParams params;
    params.layout = sf_layout;
    if (!sf_layout.make_node(sf_datacenter_id, sf_worker_id, &params.node, &err)) {
        sf_raise(err);
    }
    params.max_drift_ms = sf_max_clock_drift_ms;
    params.max_wait_ms = sf_max_wait_ms;

    snowflake::WaitBudget budget;
    for (;;) {
        const snowflake::IssueResult r = snowflake::issue(
            sf_shared->floor, params, snowflake::Clock{generator_clock, nullptr},
            snowflake::Sleeper{sleep_on_latch, nullptr}, &budget, &err, &sf_shared->reservation);
        if (r.status == snowflake::IssueStatus::issued) {
            if (r.renew) {
                // Extend the reservation before it runs out, unless another
                // backend is at it already; this ID is covered either way.
                sf_reserve(sf_shared->reservation.below.load(), false);
            }
            PG_RETURN_INT64(r.id);
        }
        if (r.status == snowflake::IssueStatus::must_reserve) {
            sf_reserve(static_cast<uint64_t>(r.id), true);
            continue;
        }
        if (r.status == snowflake::IssueStatus::failed) {
            sf_raise(err);
        }
        // Interrupted while waiting: cancel and statement_timeout raise here.
        // Anything else, and the call resumes with what is left of max_wait.
        CHECK_FOR_INTERRUPTS();
    }
}
