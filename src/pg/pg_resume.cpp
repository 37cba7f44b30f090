// Where the generator resumes, and the catch-up clock it starts there (the
// clock the generator then reads: pg_clock.cpp).
//
// sf_resume() runs twice in a server's life at most: in the postmaster when
// shared memory is created (the state file has been read; pg_shmem.cpp) and
// in the startup process at the end of WAL replay, if replay raised the
// floor (pg_wal.cpp). Each time it logs one LOG line saying where the
// generator resumes and why, and a WARNING if the wall clock is behind that
// point. The policy itself (resume at the bound; catch-up clock when the
// clock is too far behind) is src/core/resume.hpp's.
#include <algorithm>
#include <limits>

#include "core/epoch.hpp"
#include "pg_shared.hpp"

extern "C" {
#include <unistd.h>

#include "access/xlog.h"
#include "miscadmin.h"
}

namespace {

Refusal refusal_now(const SharedState *s) {
    // What is wrong with the file itself stays wrong until the DBA acts.
    const auto current = static_cast<Refusal>(s->refusal.load());
    if (current == Refusal::state_unreadable || current == Refusal::state_stale ||
        current == Refusal::upgrade_without_state ||
        current == Refusal::upgrade_state_not_handoff) {
        return current;
    }
    if (s->have_stored &&
        !snowflake::same_layout(s->stored, snowflake::state_record_for(sf_layout, 0, 0, 0))) {
        return Refusal::layout_changed;
    }
    return Refusal::none;
}

// The LOG line says where and why: at the wall clock, or above the IDs
// issued before (the exact floor a shutdown recorded, or the durable
// reservation); the WARNING says when the clock is further behind than a
// correct clock can be.
void log_resume(const snowflake::ResumePlan &plan, int64_t now, bool exact, bool lead_from_lease,
                bool after_recovery, bool standby) {
    char resume_text[40];
    char now_text[40];
    snowflake::format_utc(plan.resume_unix_ms, resume_text, sizeof resume_text);
    snowflake::format_utc(now, now_text, sizeof now_text);
    const char *source =
        exact ? "the last ID issued before the server stopped" : "the durable reservation";
    const char *replayed = "WAL replay raised the reservation to this point.";
    if (standby) {
        // A standby issues nothing: where it would resume, and any lead,
        // are decided again at promotion, from what it has replayed by then.
        ereport(LOG, (errmsg("snowflake_id: the server starts as a standby and issues no IDs until "
                             "promoted; the reservations replayed so far reach %s",
                             resume_text)));
        return;
    }
    if (!plan.catch_up) {
        ereport(LOG, (errmsg("snowflake_id: the generator resumes at the wall clock (%s), which is "
                             "past %s (%s)",
                             now_text, source, resume_text),
                      after_recovery ? errdetail("%s", replayed) : 0));
        return;
    }
    ereport(LOG, (errmsg("snowflake_id: the generator resumes at %s, above %s, %lld ms ahead of "
                         "the wall clock",
                         resume_text, source, static_cast<long long>(plan.lead_ms)),
                  after_recovery ? errdetail("%s", replayed) : 0));
    if (plan.clock_suspect && lead_from_lease) {
        ereport(LOG,
                (errmsg("snowflake_id: the lead comes from the node id lease taken over from "
                        "another holder, whose recorded bound lay ahead of the clock, not from "
                        "this server's clock; the catch-up clock goes on from there")));
    } else if (plan.clock_suspect) {
        ereport(WARNING,
                (errmsg("snowflake_id: the wall clock (%s) is %lld ms behind %s", now_text,
                        static_cast<long long>(plan.lead_ms), source),
                 errdetail("IDs continue above every ID issued before, on a clock that starts at "
                           "%s and runs at half speed until the wall clock overtakes it, at the "
                           "latest in %lld s; their timestamps run ahead of the wall clock until "
                           "then.",
                           resume_text, static_cast<long long>(2 * plan.lead_ms / 1000 + 1)),
                 errhint("Check the server's clock (NTP). A clock set back, or a standby whose "
                         "clock is behind its old primary's, explains this.")));
    }
}

void log_refusal(const SharedState *s, Refusal refusal) {
    if (refusal == Refusal::state_unreadable) {
        StateProblemText text;
        sf_describe_state_problem(s->state_problem, s->state_error, s->state_owner_uid,
                                  s->state_mode, &text);
        ereport(WARNING, (errmsg("snowflake_id: the state file \"%s/%s\" %s; "
                                 "snowflake_nextval() refuses to issue IDs",
                                 DataDir, sf_state_file_name, text.reason),
                          errdetail("%s", text.detail),
                          text.hint[0] != '\0' ? errhint("%s", text.hint)
                                               : sf_errhint_state_file_way_out()));
        return;
    }
    if (refusal == Refusal::upgrade_without_state ||
        refusal == Refusal::upgrade_state_not_handoff) {
        UpgradeRefusalText text;
        sf_describe_upgrade_refusal(refusal, &text);
        ereport(WARNING,
                (errmsg("snowflake_id: %s; snowflake_nextval() refuses to issue IDs", text.message),
                 errdetail("%s", text.detail), errhint("%s", text.hint)));
        return;
    }
    if (refusal == Refusal::state_stale) {
        StaleStateText text;
        sf_describe_stale_state(s, &text);
        ereport(WARNING, (errmsg("snowflake_id: the state file \"%s\" is older than the data "
                                 "directory; snowflake_nextval() refuses to issue IDs",
                                 sf_state_file_name),
                          errdetail("%s", text.detail), sf_errhint_state_file_way_out()));
        return;
    }
    LayoutTexts texts;
    sf_describe_layouts(s->stored, &texts);
    ereport(WARNING, (errmsg("snowflake_id: the layout changed since IDs were issued; "
                             "snowflake_nextval() refuses to issue IDs"),
                      errdetail("IDs were issued under %s; the server now runs %s.", texts.stored,
                                texts.configured),
                      errhint("Restore the previous settings, or have a superuser run "
                              "SELECT snowflake_accept_layout();")));
}

// Under `lock`: the catch-up clock runs from resume_unix_ms (a lease's floor
// with takeover = 'lead', or a restore's IDs).
void run_ahead_locked(int64_t resume_unix_ms, bool lead_from_lease) {
    SharedState *s = sf_shared;
    // The catch-up clock starts at the floor even when this process's clock
    // reads past it: the backends' readings end it (at once if they are past
    // it too), so a clock read here alone cannot leave them without it.
    // (libfaketime in the tests can leave this worker on the real clock.)
    // A catch-up still running is compared by its own time, not by this
    // process's clock: raised to the floor if it lies below, never moved
    // back. (Compared by this process's clock, a catch-up left from the
    // start below the new floor stayed, and backends whose clock was behind
    // this worker's raised "the wall clock is N ms behind" under it: the
    // flaky registry_failover_on_redis.)
    if (!s->catch_up.running() ||
        resume_unix_ms >
            s->catch_up.now(std::numeric_limits<int64_t>::min(), sf_monotonic_ns(), false)) {
        s->catch_up.start(resume_unix_ms, sf_monotonic_ns());
        s->catch_up_from_lease = lead_from_lease;
    }
}

}  // namespace

bool sf_raise_floor_locked(uint64_t floor_id, bool lead_from_lease, snowflake::ResumePlan *plan) {
    SharedState *s = sf_shared;
    if (s->floor.load() >= floor_id) {
        return false;
    }
    sf_raise_to(s->floor, floor_id);
    s->floor_is_exact = false;
    s->floor_marks_last_id = false;
    // Whoever raises it (an old holder's bound, a restore's IDs) knows the
    // lead is not the clock's fault: no WARNING is due.
    *plan = snowflake::plan_resume(sf_layout, floor_id, sf_wall_clock_ms(),
                                   std::numeric_limits<int64_t>::max());
    if (lead_from_lease && sf_takeover == kTakeoverWait) {
        // No lead: every call waits at the gate until its clock reaches the
        // floor. Closed whatever this process's clock reads, for the reason
        // the catch-up clock is started so: the backends' readings open it.
        s->takeover_gate.close_until(plan->resume_unix_ms);
    } else {
        run_ahead_locked(plan->resume_unix_ms, lead_from_lease);
    }
    return true;
}

void sf_resume_at_lease_floor(int64_t floor_unix_ms, int64_t node) {
    SharedState *s = sf_shared;
    const snowflake::Layout &layout = sf_layout;
    const int64_t ts = std::min(floor_unix_ms - layout.epoch_unix_ms(), layout.max_timestamp() + 1);
    if (ts <= 0) {
        return;  // a node id never leased before: nothing to stay above
    }
    const uint64_t floor_id = static_cast<uint64_t>(ts) << layout.timestamp_shift();
    snowflake::ResumePlan plan;
    LWLockAcquire(s->lock, LW_EXCLUSIVE);
    if (!sf_raise_floor_locked(floor_id, true, &plan)) {
        LWLockRelease(s->lock);
        return;
    }
    s->floor_raised_by_lease = std::max(s->floor_raised_by_lease, floor_id);
    LWLockRelease(s->lock);
    char resume_text[40];
    snowflake::format_utc(plan.resume_unix_ms, resume_text, sizeof resume_text);
    if (sf_takeover == kTakeoverWait) {
        ereport(LOG, (errmsg("snowflake_id: IDs resume at %s, above every ID the previous holder "
                             "of node id %lld can have issued (%lld ms ahead of the wall clock); "
                             "with snowflake_id.takeover = 'wait' none is issued before the "
                             "clock reaches it",
                             resume_text, static_cast<long long>(node),
                             static_cast<long long>(std::max<int64_t>(plan.lead_ms, 0)))));
        return;
    }
    ereport(LOG, (errmsg("snowflake_id: the generator resumes at %s, above every ID the previous "
                         "holder of node id %lld can have issued (%lld ms ahead of the wall clock)",
                         resume_text, static_cast<long long>(node),
                         static_cast<long long>(std::max<int64_t>(plan.lead_ms, 0)))));
}

bool sf_lead_from_takeover_gate() {
    SharedState *s = sf_shared;
    LWLockAcquire(s->lock, LW_EXCLUSIVE);
    const int64_t resume_unix_ms = s->takeover_gate.peek();
    // The catch-up clock first: a call that finds the gate open must find
    // the generator's clock at the floor, or the wall clock behind it fails.
    if (resume_unix_ms != 0) {
        run_ahead_locked(resume_unix_ms, true);
    }
    const bool opened = resume_unix_ms != 0 && s->takeover_gate.open_if(resume_unix_ms);
    LWLockRelease(s->lock);
    if (opened) {
        char resume_text[40];
        snowflake::format_utc(resume_unix_ms, resume_text, sizeof resume_text);
        ereport(LOG, (errmsg("snowflake_id: snowflake_id.takeover = 'lead' now: the generator "
                             "resumes at %s, ahead of the wall clock, instead of waiting for it",
                             resume_text)));
    }
    return opened;
}

// Its numbers are two %X of 8 digits at most and `covers`.
constexpr char kStaleFormat[] =
    "The server was last shut down cleanly (checkpoint at %X/%X), and a clean shutdown writes the "
    "file, but this file was written before that (it covers IDs up to %s), and the WAL since it "
    "was written does not show that only runs without snowflake_id preloaded came between: it "
    "holds later reservations (the file was restored from a backup or copied back), or it is no "
    "longer in pg_wal (such runs went on for long). Resuming from it could repeat IDs issued "
    "after it was written.";

void sf_describe_stale_state(const SharedState *s, StaleStateText *out) {
    char covers[40] = "an unknown time";
    static_assert(sizeof kStaleFormat + 2 * 8 + sizeof covers < sizeof out->detail);
    snowflake::Layout layout;
    snowflake::Error err;
    if (snowflake::layout_of(s->stored, &layout, &err)) {
        snowflake::format_utc(
            layout.epoch_unix_ms() +
                static_cast<int64_t>(s->stored.id_bound >> layout.timestamp_shift()),
            covers, sizeof covers);
    }
    snprintf(out->detail, sizeof out->detail, kStaleFormat,
             static_cast<unsigned>(s->last_shutdown_lsn >> 32),
             static_cast<unsigned>(s->last_shutdown_lsn), covers);
}

void sf_describe_upgrade_refusal(Refusal refusal, UpgradeRefusalText *out) {
    if (refusal == Refusal::upgrade_without_state) {
        snprintf(out->message, sizeof out->message,
                 "this cluster was made by pg_upgrade and has no state file \"%s\"",
                 sf_state_file_name);
        snprintf(out->detail, sizeof out->detail,
                 "The old cluster's state file records where its IDs end; without it, IDs "
                 "could repeat the old cluster's (those it issued ahead of the clock, or above "
                 "a clock that is now behind).");
    } else {
        snprintf(out->message, sizeof out->message,
                 "the state file \"%s\" is not the one the old cluster left when pg_upgrade "
                 "stopped it",
                 sf_state_file_name);
        snprintf(out->detail, sizeof out->detail,
                 "It is another cluster's record, not marked by the old cluster's stop in "
                 "binary-upgrade mode: a copy taken before pg_upgrade ran (a backup), or the old "
                 "cluster ran a snowflake_id before 1.7. It may know nothing of IDs issued "
                 "after it was written.");
    }
    snprintf(out->hint, sizeof out->hint,
             "Stop the server, copy the old cluster's file with its owner and mode (cp -p "
             "OLD_DATADIR/%s %s/), and start it again. Only if that file is lost, or you know "
             "this one to be the old cluster's last: remove \"%s/%s\" and restart, which starts "
             "%s, and can repeat IDs if the old cluster ran ahead of this clock. See "
             "docs/upgrading.md.",
             sf_state_file_name, DataDir, DataDir, sf_upgrade_mark_name,
             refusal == Refusal::upgrade_without_state
                 ? "the generator at the wall clock plus max_clock_drift"
                 : "the generator from this file");
}

void sf_describe_layouts(const snowflake::StateRecord &stored, LayoutTexts *out) {
    static_assert(snowflake::kLayoutTextMax < sizeof out->stored &&
                  snowflake::kLayoutTextMax < sizeof out->configured);
    snowflake::Layout layout;
    snowflake::Error err;
    if (snowflake::layout_of(stored, &layout, &err)) {
        layout.describe(out->stored, sizeof out->stored);
    } else {
        snprintf(out->stored, sizeof out->stored, "an invalid layout");
    }
    sf_layout.describe(out->configured, sizeof out->configured);
}

void sf_resume(bool after_recovery) {
    SharedState *s = sf_shared;
    LWLockAcquire(s->lock, LW_EXCLUSIVE);
    const Refusal previous = static_cast<Refusal>(s->refusal.load());
    const Refusal refusal = refusal_now(s);
    const uint64_t floor = s->floor.load();
    const bool moved = floor != s->floor_at_start || refusal != previous;
    s->floor_at_start = floor;
    if (after_recovery && !moved) {
        LWLockRelease(s->lock);
        return;
    }
    if (refusal != Refusal::none) {
        s->refusal.store(static_cast<int>(refusal));
        s->catch_up.stop();
        LWLockRelease(s->lock);
        log_refusal(s, refusal);
        return;
    }
    const int64_t now = sf_wall_clock_ms();
    // Just past the last ID issued, or the end of a reservation (which a
    // run that issued nothing may have recorded as its exact floor).
    const bool exact = s->floor_marks_last_id;
    // How far ahead of a correct clock the floor can be: what borrowing
    // allows, plus the window for a reservation (pg_reserve.cpp new_bound),
    // plus 1 ms because the floor and a bound lie just past the last ID
    // they cover.
    const int64_t normal_lead = sf_max_clock_drift_ms + 1 + (exact ? 0 : kReservationWindowMs);
    const snowflake::ResumePlan plan = snowflake::plan_resume(sf_layout, floor, now, normal_lead);
    // A lead that a lease taken over explained, as the record that set the
    // floor says (StateRecord::lead_from_lease: the last run's exact record,
    // its reservation after a crash, or the primary's replayed on a
    // standby), stays explained while the catch-up clock runs on from it.
    const bool lead_from_lease = s->floor_lead_from_lease;
    // Started with standby.signal and still replaying: a hot standby.
    const bool standby = !after_recovery && access(STANDBY_SIGNAL_FILE, F_OK) == 0;
    // snowflake_id.takeover = 'wait' holds for a lease's lead that a record
    // carried across a restart or a promotion as it does at the grant.
    const bool wait_for_lease = plan.catch_up && lead_from_lease && sf_takeover == kTakeoverWait;
    if (wait_for_lease) {
        s->catch_up.stop();
        s->catch_up_from_lease = false;
        s->takeover_gate.close_until(plan.resume_unix_ms);
    } else if (plan.catch_up) {
        s->catch_up.start(plan.resume_unix_ms, sf_monotonic_ns());
        s->catch_up_from_lease = lead_from_lease;
    } else {
        s->catch_up.stop();
        s->catch_up_from_lease = false;
    }
    // Last: a backend that sees the refusal lifted must see the clock set.
    s->refusal.store(static_cast<int>(refusal), std::memory_order_release);
    LWLockRelease(s->lock);
    log_resume(plan, now, exact, lead_from_lease, after_recovery, standby);
    if (wait_for_lease && !standby) {
        ereport(LOG, (errmsg("snowflake_id: with snowflake_id.takeover = 'wait' no ID is issued "
                             "before the clock reaches that point, which a node id lease taken "
                             "over put ahead of it")));
    }
}
