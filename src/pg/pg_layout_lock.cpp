// snowflake_accept_layout(): lets a superuser continue after a layout or
// epoch change that the layout lock refused (pg_resume.cpp sets the refusal,
// snowflake_nextval() raises it).
//
// Accepting keeps the one promise that matters: every new ID is above every
// ID issued before. The bound in the state file is a plain 64-bit number,
// the same under any layout, so the generator simply resumes at it under the
// new layout. If that number decodes to a time ahead of the wall clock under
// the new layout (say, a later epoch), the catch-up clock of
// src/core/resume.hpp carries the generator from there.
#include "core/epoch.hpp"
#include "pg_shared.hpp"

extern "C" {
#include "access/xlog.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/lwlock.h"

PG_FUNCTION_INFO_V1(snowflake_accept_layout);
}

extern "C" Datum snowflake_accept_layout(PG_FUNCTION_ARGS) {
    if (sf_shared == nullptr) {
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("snowflake_id must be loaded via shared_preload_libraries"),
                        errhint("Add snowflake_id to shared_preload_libraries and restart.")));
    }
    if (!superuser()) {
        ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                        errmsg("permission denied to accept a new snowflake ID layout"),
                        errdetail("Only superusers may change the layout IDs are issued under."),
                        errhint("Ask a superuser to run SELECT snowflake_accept_layout();")));
    }
    if (RecoveryInProgress()) {
        ereport(ERROR, (errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
                        errmsg("cannot accept a snowflake ID layout during recovery"),
                        errhint("Run it on the primary; standbys follow through WAL.")));
    }
    sf_refuse_in_read_only("snowflake_accept_layout()");
    if (IsBinaryUpgrade) {
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("cannot accept a snowflake ID layout while pg_upgrade runs the "
                               "server"),
                        errhint("Run it once the upgraded cluster is started normally.")));
    }
    SharedState *s = sf_shared;
    LWLockAcquire(s->lock, LW_EXCLUSIVE);
    const auto refusal = static_cast<Refusal>(s->refusal.load());
    if (refusal == Refusal::upgrade_without_state ||
        refusal == Refusal::upgrade_state_not_handoff) {
        LWLockRelease(s->lock);
        UpgradeRefusalText text;
        sf_describe_upgrade_refusal(refusal, &text);
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("cannot accept a layout: %s", text.message),
                        errdetail("%s", text.detail), errhint("%s", text.hint)));
    }
    if (refusal == Refusal::state_unreadable || refusal == Refusal::state_stale) {
        LWLockRelease(s->lock);
        const bool unreadable = refusal == Refusal::state_unreadable;
        ereport(ERROR,
                (errcode(unreadable ? ERRCODE_DATA_CORRUPTED
                                    : ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("cannot accept a layout: the state file \"%s\" is %s", sf_state_file_name,
                        unreadable ? "unreadable" : "older than the data directory"),
                 errdetail("Without a file to trust, nothing tells which IDs were issued "
                           "before."),
                 sf_errhint_state_file_way_out()));
    }
    const uint64_t floor = s->floor.load();
    if (refusal != Refusal::layout_changed) {
        LWLockRelease(s->lock);
        ereport(NOTICE, (errmsg("the snowflake ID layout is unchanged; nothing to accept")));
        PG_RETURN_INT64(static_cast<int64_t>(floor));
    }
    // Everything issued so far is below the recorded bound (and the floor).
    const uint64_t bound = std::max(floor, s->stored.id_bound);
    if (static_cast<int64_t>(bound >> sf_layout.timestamp_shift()) > sf_layout.max_timestamp()) {
        char end_text[40];
        snowflake::format_utc(sf_layout.end_unix_ms(), end_text, sizeof end_text);
        LWLockRelease(s->lock);
        ereport(ERROR,
                (errcode(ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED),
                 errmsg("the new layout cannot issue IDs above the %llu issued before",
                        static_cast<unsigned long long>(bound)),
                 errdetail("Under the new layout that number lies past the layout's end, %s.",
                           end_text),
                 errhint("Choose an earlier epoch or more timestamp bits.")));
    }
    const XLogRecPtr lsn = sf_write_reservation_locked(bound);
    sf_raise_to(s->floor, bound);
    s->floor_is_exact = false;
    s->floor_marks_last_id = false;
    s->floor_lead_from_lease = false;  // the lead is the new epoch's, not a lease's
    s->reservation.below.store(bound);
    s->reservation.renew_at.store(bound);
    LWLockRelease(s->lock);
    // The synchronous standbys first: if this wait is cancelled, the layout
    // stays refused here, and calling the function again finishes the job.
    sf_wait_for_sync_standbys(lsn);
    // Resume under the new layout: sets the catch-up clock if the bound lies
    // ahead of the wall clock, then lifts the refusal, and logs where.
    sf_resume(false);
    PG_RETURN_INT64(static_cast<int64_t>(bound));
}
