// snowflake_nextval(): the generator's SQL face.
#include <ctime>

#include "pg_glue.hpp"

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

int64_t wall_clock(void *) {
    return sf_wall_clock_ms();
}

int64_t monotonic_us() {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

// Sleeps on the latch so that a cancel or statement_timeout wakes us at
// once. The latch may also wake us early for other reasons (it is set when a
// backend starts, by NOTIFY, ...), so report the time really slept: only that
// counts against max_wait. Returns false when an interrupt is pending: the
// core then returns, and the caller runs CHECK_FOR_INTERRUPTS() outside any
// core frame.
bool sleep_on_latch(void *, int64_t ms, int64_t *slept_us) {
    const int64_t start = monotonic_us();
    (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, static_cast<long>(ms),
                    PG_WAIT_EXTENSION);
    ResetLatch(MyLatch);
    *slept_us = monotonic_us() - start;
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

}  // namespace

extern "C" Datum snowflake_nextval(PG_FUNCTION_ARGS) {
    if (sf_floor == nullptr) {
        raise_not_preloaded();
    }
    if (RecoveryInProgress()) {
        raise_in_recovery();
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
        const snowflake::IssueResult r =
            snowflake::issue(*sf_floor, params, snowflake::Clock{wall_clock, nullptr},
                             snowflake::Sleeper{sleep_on_latch, nullptr}, &budget, &err);
        if (r.status == snowflake::IssueStatus::issued) {
            PG_RETURN_INT64(r.id);
        }
        if (r.status == snowflake::IssueStatus::failed) {
            sf_raise(err);
        }
        // Interrupted while waiting: cancel and statement_timeout raise here.
        // Anything else, and the call resumes with what is left of max_wait.
        CHECK_FOR_INTERRUPTS();
    }
}
