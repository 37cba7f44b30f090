// Shared memory for the generator: creation, the start-up read of the state
// file, and the last write at shutdown. The locking protocol is documented
// in pg_shared.hpp.
//
// Where the floor starts:
//  - A valid state file: at its bound. Every ID issued before is below it:
//    a running server only issues below a durable reservation, and a clean
//    shutdown records the exact floor. WAL replay may raise it further
//    (pg_wal.cpp), and sf_resume() decides the clock (pg_resume.cpp).
//  - No state file (a new cluster, one upgraded from snowflake_id 1.0, or
//    a file the DBA removed): at the wall clock plus max_clock_drift. A run
//    issued IDs only below reservations, none more than max_clock_drift +
//    1 s (+ 1 ms) ahead of the clock it was made on, so this is above every
//    ID of a run that ended more than a second ago, unless the clock was set
//    back. The first reservation then creates the file.
//  - An unreadable state file, or one older than the data directory (the
//    cluster was shut down cleanly, but the file is not the one that
//    shutdown wrote): nowhere; snowflake_nextval() refuses.
//  - A data directory pg_upgrade made (its binary-upgrade start left
//    sf_upgrade_mark_name): only a state file of its own or the old
//    cluster's hand-off; without one, nowhere (docs/upgrading.md).
#include <algorithm>
#include <cerrno>
#include <new>

#include "core/epoch.hpp"
#include "pg_shared.hpp"

extern "C" {
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "access/xlog.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
}

SharedState *sf_shared = nullptr;

namespace {

constexpr const char *kTrancheName = "snowflake_id";

shmem_request_hook_type prev_shmem_request_hook = nullptr;
shmem_startup_hook_type prev_shmem_startup_hook = nullptr;

Size shared_size() {
    return MAXALIGN(sizeof(SharedState));
}

void request_shmem() {
    RequestAddinShmemSpace(shared_size());
    RequestAddinShmemSpace(sf_status_shmem_size());
    RequestNamedLWLockTranche(kTrancheName, 1);
}

// shmem_request_hook: reserve our segment and lock (allowed only here).
// It runs once every preloaded library's _PG_init has: the COPY hook goes
// in here, not in _PG_init, because Citus refuses to load after a library
// that set ProcessUtility_hook ("Citus has to be loaded first"), and
// snowflake_id may be listed before it (tests/server/citus.sh, both orders).
void sf_shmem_request() {
    if (prev_shmem_request_hook != nullptr) {
        prev_shmem_request_hook();
    }
    request_shmem();
    static bool copy_hook_installed = false;
    if (!copy_hook_installed) {
        sf_install_copy_hook();
        copy_hook_installed = true;
    }
}

// The fingerprint of the machine's current boot (snowflake::run_id_for),
// 0 where the system does not say (not Linux, no /proc).
uint32_t current_boot_fingerprint() {
    char text[64];
    const int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY);
    if (fd < 0) {
        return 0;
    }
    const ssize_t n = read(fd, text, sizeof text);
    close(fd);
    if (n < 32) {
        return 0;
    }
    return snowflake::boot_fingerprint(text, static_cast<size_t>(n));
}

// A new id for every creation of shared memory, so that the runs between two
// crash-restarts of one postmaster differ too, marked with the boot.
uint64_t new_run_id() {
    uint64_t random = 0;
    if (!pg_strong_random(&random, sizeof random)) {
        random = static_cast<uint64_t>(sf_monotonic_ns()) ^ (static_cast<uint64_t>(getpid()) << 30);
    }
    return snowflake::run_id_for(current_boot_fingerprint(), random);
}

bool data_directory_has(const char *name) {
    struct stat st;
    return stat(name, &st) == 0;
}

// Whether the record read at start closes a crashed run of this data
// directory (SharedState::state_closes_crash): a crash of a primary in this
// boot, recovered from its own WAL only. A backup restored (backup_label,
// or pg_control's backup start), an archive recovery or a standby (a signal
// file) replays WAL that may stop short of where the run went; a machine
// restored from a snapshot, or a data directory moved to another machine,
// boots anew. Those resume above the registry's recorded bound instead.
bool record_closes_crash(const snowflake::StateRecord &record,
                         const snowflake::LastShutdown &shutdown, uint64_t run_id) {
    return shutdown.crashed_primary && record.lease_held && record.system_id != 0 &&
           record.system_id == shutdown.system_id &&
           snowflake::run_in_boot(record.run_id, snowflake::boot_of(run_id)) &&
           !data_directory_has(BACKUP_LABEL_FILE) && !data_directory_has(RECOVERY_SIGNAL_FILE) &&
           !data_directory_has(STANDBY_SIGNAL_FILE);
}

void start_fresh(SharedState *s) {
    const int64_t now = sf_wall_clock_ms();
    const int64_t ts = std::min(now - sf_layout.epoch_unix_ms() + sf_max_clock_drift_ms,
                                sf_layout.max_timestamp() + 1);
    s->floor = ts <= 0 ? 0 : static_cast<uint64_t>(ts) << sf_layout.timestamp_shift();
    char when[40];
    snowflake::format_utc(sf_layout.epoch_unix_ms() + ts, when, sizeof when);
    ereport(LOG, (errmsg("snowflake_id: no state file; the generator starts at %s, the wall clock "
                         "plus snowflake_id.max_clock_drift (%d ms)",
                         when, sf_max_clock_drift_ms),
                  errdetail("The first snowflake_nextval() creates \"%s\". Without it, IDs issued "
                            "before carry at most the clock then plus max_clock_drift and 1 s.",
                            sf_state_file_name)));
}

// With a registry, a state file that cannot be used is set aside instead
// of refused: every ID issued on a node id under a lease is below the bound
// the registry records for it, so the lease's floor is a safe floor for the
// IDs of the leased node id, and nothing is issued before a lease is
// granted. The generator starts as without a file (and above a stale
// file's bound, which is still a lower bound of the IDs issued). The
// registry worker confirms the set-aside once the registry shows it knows
// the id it grants (registry/pg_registry.cpp), moves the file out of the
// way, and the next reservation or shutdown writes a new one; an id the
// registry knows nothing of (it may have been a static id before the
// registry) gets the refusal `refusal` instead.
void set_state_aside(SharedState *s, const char *why, Refusal refusal) {
    s->state_set_aside = true;
    s->set_aside_refusal = refusal;
    const snowflake::StateRecord stale = s->stored;
    const bool stale_usable =
        s->have_stored &&
        snowflake::same_layout(stale, snowflake::state_record_for(sf_layout, 0, 0, 0));
    s->have_stored = false;
    s->floor_is_exact = false;
    s->floor_marks_last_id = false;
    start_fresh(s);
    const bool above_fresh = stale_usable && stale.id_bound > s->floor.load();
    if (above_fresh) {
        s->floor = stale.id_bound;
    }
    s->floor_at_start = s->floor.load();
    if (above_fresh) {
        // Ahead of the clock plus drift (a clock set back since): the
        // catch-up clock takes over, as for any resume point.
        sf_resume(false);
    }
    ereport(WARNING,
            (errmsg("snowflake_id: the state file \"%s/%s\" %s; it is set aside", DataDir,
                    sf_state_file_name, why),
             errdetail("With a registry of node ids, the generator starts at the wall clock plus "
                       "max_clock_drift, and above the bound the registry recorded for the node "
                       "id it leases, which lies above every ID issued on that node id under a "
                       "lease. For a static worker id the registry has recorded no bound for "
                       "(it may have issued IDs before the registry), the server refuses to issue "
                       "IDs instead, as without a registry.")));
}

// In binary-upgrade mode (pg_upgrade's runs of the old and the new cluster)
// nothing is issued or leased. A data directory without a state file of its
// own gets pg_upgrade's mark (the new cluster, whose first normal start then
// refuses without a usable file); one whose file is its own, current record
// (the old cluster) has it stamped as the hand-off at this run's stop
// (save_exact_floor), which is what the new cluster resumes from.
void load_state_in_binary_upgrade(SharedState *s) {
    StateFileRead read;
    (void)sf_state_file_read(&read);
    snowflake::LastShutdown shutdown;
    const bool control = sf_read_last_shutdown(&shutdown);
    const bool own = read.valid && control && read.record.system_id != 0 &&
                     read.record.system_id == shutdown.system_id;
    if (own && (!snowflake::written_before_last_shutdown(read.record, shutdown) ||
                sf_state_unchanged_since(read.record, shutdown))) {
        s->stored = read.record;
        s->handoff_pending = true;
    }
    if (!own && !sf_upgrade_mark_present()) {
        const int rc = sf_upgrade_mark_write();
        if (rc != 0) {
            errno = rc;
            // FATAL: pg_upgrade stops, and the DBA fixes the directory
            // before the cluster can start without the mark.
            ereport(FATAL, (errcode_for_file_access(),
                            errmsg("snowflake_id: could not write \"%s/%s\": %m", DataDir,
                                   sf_upgrade_mark_name),
                            errdetail("Without it the upgraded cluster could start without the "
                                      "old cluster's state file and repeat its IDs.")));
        }
    }
    ereport(LOG,
            (errmsg("snowflake_id: binary-upgrade mode (pg_upgrade): no IDs are issued, no node id "
                    "is leased"),
             own ? errdetail(s->handoff_pending
                                 ? "The state file \"%s\" is this cluster's record of its last "
                                   "stop: this run's stop marks it as the one to copy into the "
                                   "new cluster."
                                 : "The state file \"%s\" is older than the data directory: it "
                                   "is left as it is, and a cluster upgraded from this one "
                                   "refuses it.",
                             sf_state_file_name)
                 : errdetail("No state file of this cluster's own is here: \"%s\" marks the "
                             "data directory as made by pg_upgrade, and its first normal start "
                             "issues no ID until the old cluster's \"%s\" is copied here.",
                             sf_upgrade_mark_name, sf_state_file_name)));
}

// The refusal of a state file the server cannot use (StateFileRead's
// problem), remembered for the ERROR.
void refuse_problem(SharedState *s, const StateFileRead &read) {
    s->refusal = static_cast<int>(Refusal::state_unreadable);
    s->state_problem = read.problem;
    s->state_error = read.error;
    s->state_owner_uid = read.owner_uid;
    s->state_mode = read.mode;
}

// Reads the state file into a new SharedState (in the postmaster).
void load_state(SharedState *s) {
    if (IsBinaryUpgrade) {
        load_state_in_binary_upgrade(s);
        return;
    }
    StateFileRead read;
    const int rc = sf_state_file_read(&read);
    s->upgrade_marked = sf_upgrade_mark_present();
    if (s->upgrade_marked && (rc == 0 && (!read.found || read.valid))) {
        snowflake::LastShutdown shutdown;
        const uint64_t own_id = sf_read_last_shutdown(&shutdown) ? shutdown.system_id : 0;
        const snowflake::UpgradedStart verdict =
            snowflake::judge_upgraded_start(read.found, read.record, own_id);
        if (verdict != snowflake::UpgradedStart::resume) {
            if (read.found) {
                s->stored = read.record;
            }
            s->refusal = static_cast<int>(verdict == snowflake::UpgradedStart::no_state
                                              ? Refusal::upgrade_without_state
                                              : Refusal::upgrade_state_not_handoff);
            sf_resume(false);  // logs the refusal
            return;
        }
        s->state_from_upgrade = read.record.system_id != own_id;
    }
    if (rc != 0 || (read.found && !read.valid)) {
        // With a registry, only a file whose bytes are wrong is set aside: a
        // file the server cannot open, a directory or an empty file is a
        // copy gone wrong, which the DBA repairs (its record may be fine),
        // and a cluster made by pg_upgrade needs the old cluster's record.
        if (sf_registry_configured() && read.problem == StateFileProblem::corrupt &&
            !s->upgrade_marked) {
            set_state_aside(s, "holds no valid record", Refusal::state_unreadable);
            s->reservation.below = s->floor.load();
            s->reservation.renew_at = s->floor.load();
            return;
        }
        refuse_problem(s, read);
        sf_resume(false);  // logs the refusal
        return;
    }
    if (read.found) {
        s->stored = read.record;
        s->have_stored = true;
        s->floor = read.record.id_bound;
        s->floor_is_exact = read.record.exact;
        s->floor_marks_last_id = read.record.exact && !read.record.bound_is_reservation;
        s->floor_lead_from_lease = read.record.lead_from_lease;
        s->exact_run_id = read.record.run_id;
        s->catch_up_from_lease = read.record.exact && read.record.lead_from_lease;
        snowflake::LastShutdown shutdown;
        if (sf_read_last_shutdown(&shutdown)) {
            // A primary's clean shutdown whose exact record says the run
            // held its lease: what the registry worker needs to take that
            // lease back at this floor (a standby's shutdown names its
            // primary's lease, which it never held).
            // The old cluster's hand-off is its record of the stop
            // pg_upgrade made, checked by that run (load_state_in_binary_upgrade):
            // its lease comes back as after a restart.
            const bool closes =
                shutdown.clean && !shutdown.standby && read.record.exact &&
                read.record.lease_held &&
                (read.record.system_id == shutdown.system_id || s->state_from_upgrade);
            if (!snowflake::written_before_last_shutdown(read.record, shutdown)) {
                s->state_closes_last_shutdown = closes;
            } else if (sf_state_unchanged_since(read.record, shutdown)) {
                // Only runs without the library came between: the file is
                // still the exact record of the last run that could issue.
                s->state_closes_last_shutdown = closes;
            } else if (sf_registry_configured()) {
                s->last_shutdown_lsn = shutdown.checkpoint_lsn;
                set_state_aside(s, "is older than the data directory", Refusal::state_stale);
            } else {
                s->refusal = static_cast<int>(Refusal::state_stale);
                s->last_shutdown_lsn = shutdown.checkpoint_lsn;
            }
            s->closed_shutdown_timeline = shutdown.timeline;
            if (record_closes_crash(read.record, shutdown, s->run_id)) {
                s->state_closes_crash = true;
                s->crashed_run_id = read.record.run_id;
            }
        }
    } else {
        start_fresh(s);
        s->floor_at_start = s->floor.load();
    }
    // Nothing is reserved beyond the floor yet: the first ID needs a
    // reservation, and renewals start from there (renew_at only grows).
    s->reservation.below = s->floor.load();
    s->reservation.renew_at = s->floor.load();
    if (read.found && !s->state_set_aside) {
        sf_resume(false);
    }
}

// The stop of the old cluster's binary-upgrade run: the record of its last
// real stop, stamped with this stop's checkpoint (so that the old cluster,
// started again, still finds the record of its last stop) and as the
// hand-off the new cluster may resume from.
void stamp_handoff(SharedState *s) {
    snowflake::StateRecord record = s->stored;
    snowflake::LastShutdown shutdown;
    if (!sf_read_last_shutdown(&shutdown) || !shutdown.clean ||
        shutdown.system_id != record.system_id) {
        return;  // not a clean stop: no hand-off, and the new cluster refuses the file
    }
    record.generation += 1;
    record.checkpoint_lsn = shutdown.checkpoint_lsn;
    record.upgrade_handoff = true;
    const int rc = sf_state_file_write(record);
    if (rc != 0) {
        errno = rc;
        ereport(LOG, (errmsg("snowflake_id: could not mark \"%s/%s\" as the hand-off to the "
                             "upgraded cluster: %m",
                             DataDir, sf_state_file_name),
                      errdetail("The upgraded cluster refuses to issue IDs from this file.")));
    }
}

// on_shmem_exit callback in the postmaster: runs at shutdown and before a
// crash-restart tears shared memory down, when every other process is gone.
// The floor is then exact (no ID at or above it was issued), so recording
// it lets the next start resume right after the last ID instead of at the
// end of the reservation. Crash recovery may raise it again from WAL. The
// record carries the checkpoint pg_control now names: after a clean
// shutdown, that is the mark the next start looks for (load_state), and the
// lease the run ended with, which the next run asks for again. Never
// raises: a failure only costs that precision, or after a clean shutdown a
// refusal at the next start (the file is then not that shutdown's).
//
// A run refused for a changed layout issued nothing: its floor is exactly
// the recorded bound, and the record keeps the recorded layout. An
// unreadable or stale file is left as it is, so the refusal outlives
// restarts until the DBA acts.
void save_exact_floor(int, Datum) {
    SharedState *s = sf_shared;
    const auto refusal = s == nullptr ? Refusal::none : static_cast<Refusal>(s->refusal.load());
    if (s != nullptr && IsBinaryUpgrade && s->handoff_pending) {
        stamp_handoff(s);
        return;
    }
    if (s == nullptr || IsBinaryUpgrade ||
        (refusal != Refusal::none && refusal != Refusal::layout_changed) ||
        (refusal == Refusal::layout_changed && !s->have_stored) ||
        (s->state_set_aside && !s->set_aside_confirmed)) {
        return;  // a file set aside and not yet confirmed stays as it was
    }
    const bool lease_held = refusal == Refusal::none && sf_registry_configured() &&
                            s->lease.fence.load() > 0 &&
                            s->lease.fence.load() == s->lease_floor_fence;
    // A run that took no lease issued nothing (with a registry, nothing is
    // issued without one): a single-user crash recovery, a start whose
    // registry never answered. It passes on the claim of the record it
    // started from, which it has verified (the lease that record names, and
    // its floor now above every ID issued under it), so that its successor
    // takes that lease back here as it would have.
    const bool claim_passed_on = !lease_held && refusal == Refusal::none &&
                                 s->lease.fence.load() == 0 && s->have_stored &&
                                 (s->state_closes_last_shutdown || s->state_closes_crash);
    if (!s->have_stored && !lease_held) {
        // A run that issued nothing and held no lease leaves no file: the
        // next start says "no state file" as this one did (pg_upgrade's
        // runs of a new cluster, whose checkpoint pg_upgrade then replaces,
        // would otherwise leave a file older than the data directory).
        return;
    }
    const uint64_t floor = s->floor.load();
    // Every ID of this run is below the stored bound or a lease's floor, and
    // the floor never went below where the run started, or where a switch
    // of node id put it. A value outside that range can only come from
    // memory a crashed backend scribbled over: then keep the reservation,
    // which is on disk.
    const uint64_t highest = std::max(
        {s->have_stored ? s->stored.id_bound : 0, s->floor_at_start, s->floor_raised_by_lease});
    const uint64_t lowest = std::min(s->floor_at_start, s->floor_lowered_by_switch);
    if (floor > highest || floor < lowest) {
        return;
    }
    snowflake::StateRecord record =
        s->have_stored ? s->stored : snowflake::state_record_for(sf_layout, 0, 0, 0);
    // Where the run started (a reservation, an exact record, a lease's
    // floor) unless it issued IDs: then the floor is just past the last one.
    const bool issued_nothing = floor == std::max(s->floor_at_start, s->floor_raised_by_lease);
    record.bound_is_reservation = issued_nothing && !s->floor_marks_last_id;
    record.upgrade_handoff = false;  // only a binary-upgrade stop hands the file over
    record.id_bound = floor;
    record.generation += 1;
    record.exact = true;
    record.run_id = s->run_id;
    record.lease_held = claim_passed_on;
    if (lease_held) {
        // The lease the run ended with, its floor below this one, even when
        // it issued nothing on it: the next run proves with its fence that
        // it may take it back.
        record.node_id = static_cast<int32_t>(s->lease.node.load());
        record.fence = s->lease.fence.load();
        record.lease_held = true;
    }
    // The takeover gate still closed (takeover = 'wait'): the floor lies
    // ahead for the same reason, and the next run waits for it again.
    record.lead_from_lease =
        (s->catch_up_from_lease && s->catch_up.running() &&
         s->catch_up.now(sf_wall_clock_ms(), sf_monotonic_ns(), false) > sf_wall_clock_ms()) ||
        s->takeover_gate.peek() > sf_wall_clock_ms();
    snowflake::LastShutdown shutdown;
    record.checkpoint_lsn = 0;
    if (sf_read_last_shutdown(&shutdown)) {
        record.system_id = shutdown.system_id;
        record.checkpoint_lsn = shutdown.checkpoint_lsn;
    }
    const int rc = sf_state_file_write(record);
    if (rc != 0) {
        errno = rc;
        ereport(LOG, (errmsg("snowflake_id: could not record the exact floor in \"%s/%s\": %m",
                             DataDir, sf_state_file_name),
                      errdetail("The next start resumes at the end of the last reservation.")));
    }
}

// shmem_startup_hook: create the segment in the postmaster from the state
// file, or attach to it (EXEC_BACKEND builds run this in every backend).
void sf_shmem_startup() {
    if (prev_shmem_startup_hook != nullptr) {
        prev_shmem_startup_hook();
    }
    LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
    bool found = false;
    void *mem = ShmemInitStruct("snowflake_id", shared_size(), &found);
    auto *state = found ? static_cast<SharedState *>(mem) : new (mem) SharedState();
    if (!found) {
        state->lock = &(GetNamedLWLockTranche(kTrancheName))->lock;
        state->run_id = new_run_id();
        ConditionVariableInit(&state->lease.changed);
    }
    sf_status_shmem_init();
    LWLockRelease(AddinShmemInitLock);
    sf_shared = state;
    if (!found) {
        load_state(state);
    }
    if (!IsUnderPostmaster) {
        // shmem_exit() pops its callbacks, so register again after every (re)start.
        on_shmem_exit(save_exact_floor, 0);
    }
}

}  // namespace

void sf_install_shmem_hooks() {
    prev_shmem_request_hook = shmem_request_hook;
    shmem_request_hook = sf_shmem_request;
    prev_shmem_startup_hook = shmem_startup_hook;
    shmem_startup_hook = sf_shmem_startup;
}
