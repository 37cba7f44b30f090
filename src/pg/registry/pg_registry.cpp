// The registry worker: leases this server's node id from the registry
// (snowflake_id.registry: a PostgreSQL database with snowflake_id installed,
// src/registry/pq_store.cpp, or Redis, src/registry/redis_store.cpp), renews it, and
// publishes it in shared memory (LeaseState).
//
// One background worker, started after recovery (a standby mints nothing;
// a promoted one starts it), and only when a registry is set. It knows the
// registry only as a snowflake::RegistryStore (src/core/registry.hpp); the
// stores wait on the network with WaitLatchOrSocket, so SIGTERM, SIGHUP
// and the postmaster's death are seen at once and every wait has a time
// limit. Nothing on the snowflake_nextval() path touches the network. An
// ERROR in this process has no handler to return to: it ends the process
// (the postmaster starts it again), and the connection closes with it.
//
// Fencing, as the worker keeps it:
//  - A renewal is sent with a bound that covers every ID until its deadline
//    (snowflake::plan_renewal: the wall clock + lease_ttl, or the catch-up
//    clock + lease_ttl / 2 while it runs ahead, whichever is later): the
//    registry records it, and only once it has confirmed it does the worker
//    publish it as LeaseState::below, which caps every reservation: no ID
//    at or above a bound the registry has not recorded is ever issued.
//  - The deadline is the monotonic clock when that renewal was sent, plus
//    lease_ttl: the registry's expiry of the lease lies after it. Past the
//    deadline the worker marks the lease expired and backends refuse; their
//    IDs were below the bound anyway, and a new holder starts above it.
//  - A lease taken from another holder comes with a floor (its recorded
//    bound plus its drift): the generator resumes above it.
#include <algorithm>
#include <cstdio>
#include <new>
#include <cstdlib>
#include <cstring>

#include "core/epoch.hpp"
#include "core/lease_rules.hpp"
#include "core/secrets.hpp"
#include "pg_registry.hpp"

extern "C" {
#include <unistd.h>

#include "access/timeline.h"
#include "access/xlog.h"
#include "libpq-fe.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "postmaster/postmaster.h"
#include "storage/condition_variable.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lwlock.h"
#include "utils/guc.h"

PGDLLEXPORT void sf_registry_worker_main(Datum);
}

int64_t sf_registry_call_until_ns() {
    const int64_t now = sf_monotonic_ns();
    const int64_t until = now + kRegistryTimeoutMs * kNsPerMs;
    // A call still waiting when the lease's deadline passes ends there: the
    // worker must mark the lease expired, count the failure and say why at
    // the moment the backends start refusing, whatever lease_ttl is.
    if (sf_shared != nullptr &&
        lease_status_of(sf_shared->lease.published.load()) == LeaseStatus::held) {
        const int64_t deadline = sf_shared->lease.deadline_mono_ns.load();
        if (deadline > now && deadline < until) {
            return deadline;
        }
    }
    return until;
}

void sf_register_registry_worker() {
    BackgroundWorker worker;
    memset(&worker, 0, sizeof worker);
    snprintf(worker.bgw_name, BGW_MAXLEN, "snowflake_id registry");
    snprintf(worker.bgw_type, BGW_MAXLEN, "snowflake_id registry");
    worker.bgw_flags = BGWORKER_SHMEM_ACCESS;
    worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
    worker.bgw_restart_time = 5;
    snprintf(worker.bgw_library_name, BGW_MAXLEN, "snowflake_id");
    snprintf(worker.bgw_function_name, BGW_MAXLEN, "sf_registry_worker_main");
    RegisterBackgroundWorker(&worker);
}

namespace {

// The pause before trying again after the registry could not be reached.
constexpr int64_t kRetryMs = 1000;

volatile sig_atomic_t shutdown_requested = false;
// While the lease is given back, a shutdown request is kept here instead:
// it must not cut the give-back short, which has a time limit of its own.
// The postmaster may signal the worker more than once during one shutdown,
// and a give-back cut short leaves the id to its lease's expiry.
volatile sig_atomic_t giving_back = false;
volatile sig_atomic_t shutdown_while_giving_back = false;

void handle_sigterm(SIGNAL_ARGS) {
    const int save_errno = errno;
    (void)postgres_signal_arg;
    if (giving_back) {
        shutdown_while_giving_back = true;
    } else {
        shutdown_requested = true;
    }
    SetLatch(MyLatch);
    errno = save_errno;
}

char hostname[snowflake::kHostMax + 1];

LeaseState &lease() {
    return sf_shared->lease;
}

// Every role reads the message (snowflake_status) and every refusal quotes
// it: whatever a store said, no password gets through.
void set_message(const char *text) {
    char masked[sizeof lease().message];
    snowflake::mask_secrets(text, masked, sizeof masked);
    LWLockAcquire(sf_shared->lock, LW_EXCLUSIVE);
    snprintf(lease().message, sizeof lease().message, "%s", masked);
    LWLockRelease(sf_shared->lock);
}

// Publishes the status with the node being leased, as a new publication
// (pg_shared.hpp), and wakes the backends that wait for a change.
void set_status(LeaseStatus status) {
    const int64_t before = lease().published.load();
    lease().published.store(
        lease_word(status, lease().node.load(), lease_publication_of(before) + 1),
        std::memory_order_seq_cst);
    ConditionVariableBroadcast(&lease().changed);
}

LeaseStatus status() {
    return lease_status_of(lease().published.load(std::memory_order_acquire));
}

// The registry as messages name it, never the password: Redis's address,
// database and key prefix, or a PostgreSQL registry's host, port and
// database (host and port may be lists of any length).
char *describe_redis() {
    snowflake::RedisTarget t;
    snowflake::Error err;
    if (!snowflake::parse_redis_url(sf_registry, &t, &err)) {
        return pstrdup("the Redis registry");
    }
    if (t.unix_socket) {
        return psprintf("Redis at unix socket %s db %d prefix %s", t.socket_path, t.db, t.prefix);
    }
    return psprintf("Redis at %s:%d db %d prefix %s", t.host, t.port, t.db, t.prefix);
}

char *describe_postgresql() {
    char *errmsg_text = nullptr;
    PQconninfoOption *options = PQconninfoParse(sf_registry, &errmsg_text);
    char *text = nullptr;
    if (options != nullptr) {
        const char *host = nullptr, *port = nullptr, *dbname = nullptr;
        for (PQconninfoOption *o = options; o->keyword != nullptr; ++o) {
            if (o->val == nullptr) {
                continue;
            }
            if (strcmp(o->keyword, "host") == 0) {
                host = o->val;
            } else if (strcmp(o->keyword, "port") == 0) {
                port = o->val;
            } else if (strcmp(o->keyword, "dbname") == 0) {
                dbname = o->val;
            }
        }
        // Out of memory here would leak libpq's malloc'd options, once.
        text = psprintf("host=%s port=%s dbname=%s", host ? host : "(default)",
                        port ? port : "(default)", dbname ? dbname : "(default)");
        PQconninfoFree(options);
    }
    if (errmsg_text != nullptr) {
        PQfreemem(errmsg_text);
    }
    return text != nullptr ? text : pstrdup("the registry");
}

// What a call that did not succeed leaves behind: its message, and for the
// network a count and a LOG line. Every failed store call comes here first,
// so the error is masked here once, before any WARNING or LOG quotes it.
void note_failure(snowflake::StoreOutcome outcome, snowflake::Error *err) {
    Assert(!err->truncated);
    snowflake::mask_error(err);
    char text[sizeof lease().message];
    // Room for both texts whole: LeaseState::message's size.
    snprintf(text, sizeof text, "%s%s%s", err->message, err->detail[0] != '\0' ? ": " : "",
             err->detail);
    set_message(text);
    if (outcome == snowflake::StoreOutcome::unreachable && !shutdown_requested) {
        lease().failures.fetch_add(1, std::memory_order_relaxed);
        ereport(LOG, (errmsg("snowflake_id: registry %s", err->message)));
    }
}

int64_t instance_id() {
    return static_cast<int64_t>(sf_shared->run_id >> 1);  // a bigint in the registry
}

// The node id the settings ask for; -1 for 'auto'.
int64_t wanted_node() {
    if (sf_worker_id == kWorkerIdAuto) {
        return -1;
    }
    return (static_cast<int64_t>(sf_datacenter_id) << sf_layout.widths().worker_bits) |
           sf_worker_id;
}

// The timelines this server's history left, and where (its timeline
// history file), into out[]: how many, or -1 where the file cannot be
// read (logged). No C++ object lives in this frame: readTimeLineHistory()
// may raise an ERROR, caught here.
constexpr int kMaxHistory = 64;
int read_history(TimeLineID timeline, snowflake::TimelineSwitch *out) {
    volatile int count = 0;
    MemoryContext caller = CurrentMemoryContext;
    PG_TRY();
    {
        List *history = readTimeLineHistory(timeline);
        ListCell *cell;
        foreach (cell, history) {
            const TimeLineHistoryEntry *entry = static_cast<TimeLineHistoryEntry *>(lfirst(cell));
            // Newest first: the running timeline's entry has no end. Only
            // the nearest kMaxHistory ancestors are kept.
            if (entry->tli < timeline && count < kMaxHistory) {
                out[count].timeline = static_cast<int>(entry->tli);
                out[count].switchpoint = static_cast<int64_t>(entry->end);
                count = count + 1;
            }
        }
        list_free_deep(history);
    }
    PG_CATCH();
    {
        MemoryContextSwitchTo(caller);
        ErrorData *edata = CopyErrorData();
        FlushErrorState();
        ereport(LOG, (errmsg("snowflake_id: could not read the history of timeline %u: %s",
                             timeline, edata->message),
                      errdetail("The registry counts this server as a copy of its older "
                                "timelines' servers, never their successor.")));
        FreeErrorData(edata);
        count = -1;
    }
    PG_END_TRY();
    return count;
}

// The WAL position a grant, renewal or give-back records: on a primary
// what it flushed, which a caught-up standby has received; 0 in recovery.
int64_t own_wal_position() {
    return RecoveryInProgress() ? 0 : static_cast<int64_t>(GetFlushRecPtr(nullptr));
}

// This server as the registry records a holder: its WAL position (on a
// primary what it flushed, which a caught-up standby has received) and the
// timelines its history left, which tell its promoted standby from a copy.
void describe_server(snowflake::LeaseHolder *holder) {
    holder->system_id = GetSystemIdentifier();
    holder->instance = instance_id();
    holder->host = hostname;
    holder->port = PostPortNumber;
    holder->data_directory = DataDir;
    const TimeLineID timeline = GetWALInsertionTimeLine();
    holder->timeline = static_cast<int>(timeline);
    holder->wal_position = own_wal_position();
    // The history file of a timeline never changes: read once per timeline.
    static TimeLineID read_for = 0;
    static snowflake::TimelineSwitch left[kMaxHistory];
    static int count = 0;
    if (read_for != timeline) {
        count = read_history(timeline, left);
        read_for = count >= 0 ? timeline : 0;
    }
    holder->history.assign(left, left + std::max(count, 0));
}

// Records the next bound with the registry and, once it has confirmed it,
// publishes it with the new deadline. Sets *next_renewal_mono_ns, and *err
// for anything but ok.
snowflake::StoreOutcome renew(snowflake::RegistryStore &store, int64_t *next_renewal_mono_ns,
                              snowflake::Error *err) {
    const snowflake::RenewalPlan plan = snowflake::plan_renewal(
        sf_generator_clock_peek_ms(), sf_wall_clock_ms(), sf_monotonic_ns(), sf_lease_ttl_ms);
    snowflake::RenewRequest request;
    request.node = lease().node.load();
    request.fence = lease().fence.load();
    request.instance = instance_id();
    request.bound_unix_ms = plan.bound_unix_ms;
    request.ttl_ms = sf_lease_ttl_ms;
    describe_server(&request.holder);
    request.refuse_when_replaced = sf_on_replaced == kOnReplacedRefuse;
    int64_t expires_unix_ms = 0;
    const snowflake::StoreOutcome outcome = store.renew(request, &expires_unix_ms, err);
    if (outcome != snowflake::StoreOutcome::ok) {
        note_failure(outcome, err);
        return outcome;
    }
    sf_raise_to(lease().below, snowflake::lease_id_bound(sf_layout, plan.bound_unix_ms));
    lease().deadline_mono_ns.store(plan.deadline_mono_ns);
    lease().expires_unix_ms.store(expires_unix_ms);
    lease().last_ok_unix_ms.store(sf_wall_clock_ms());
    lease().renewals.fetch_add(1, std::memory_order_relaxed);
    *next_renewal_mono_ns = plan.next_renewal_mono_ns;
    set_message("");  // the registry answers again: its last error is past
    return outcome;
}

// Leases a node id: the configured one, or for 'auto' the one the durable
// state was made with if it is free, else any; then raises the generator's
// floor above the previous holder's recorded bound.
// This server, its layout and its clock, as a lease request gives them.
void describe_holder(snowflake::LeaseRequest *request) {
    describe_server(&request->holder);
    request->refuse_when_replaced = sf_on_replaced == kOnReplacedRefuse;
    request->widths = sf_layout.widths();
    request->epoch_unix_ms = sf_layout.epoch_unix_ms();
    request->max_clock_drift_ms = sf_max_clock_drift_ms;
    request->ttl_ms = sf_lease_ttl_ms;
    request->clock_unix_ms = sf_generator_clock_peek_ms();
}

// The reservation made under the lease before was capped by that lease's
// bound (another node id, or an earlier time); nothing may be issued on a
// new one beyond its own recorded bound. Under `lock`: lowers what is
// reserved, and what a reservation still being confirmed covers, to the
// floor, so that the next ID reserves anew under the new lease.
void lower_reservation_to_floor_locked() {
    SharedState *s = sf_shared;
    const uint64_t floor = s->floor.load();
    s->reservation.below.store(std::min(s->reservation.below.load(), floor));
    s->reservation.renew_at.store(std::min(s->reservation.renew_at.load(), floor));
    s->pending_below = std::min(s->pending_below, floor);
}

// Whose IDs a grant's id may carry. Where only this server issued on the
// id since the generator's floor was last set above the id's IDs, the
// registry's floor (its recorded bound plus drift, up to lease_ttl ahead
// where a give-back failed or the server is its own registry) would only
// throw IDs ahead of the clock:
//  - this_run: this run held the id just before (a renewal was lost, or
//    worker_id was reloaded back), its floor raised above that lease's, and
//    the fence grew by one: nobody held it in between. The floor has only
//    grown since (a switch of node id moves to another id).
//  - previous_run: the state file is the exact record of the primary's
//    clean shutdown that pg_control names (or of the last run with the
//    library), written by a run that held this lease until it stopped, on
//    the timeline the server still runs on, and the fence grew by one. A
//    standby's record, a promoted standby, a file put back or replayed
//    over are none of these.
//  - crashed_run: the same after a crash of this primary in this boot,
//    recovered from its own WAL (SharedState::state_closes_crash): the
//    floor after recovery lies above every ID the crashed run issued. A
//    backup restored, a machine restored from a snapshot, a standby
//    promoted are none of these: they take the registry's floor, which
//    covers what their WAL may lack.
enum class Ownership { other, this_run, previous_run, crashed_run };
Ownership grant_ownership(const snowflake::LeaseGrant &grant) {
    SharedState *s = sf_shared;
    const int64_t held_fence = lease().fence.load();
    Ownership own = Ownership::other;
    LWLockAcquire(s->lock, LW_SHARED);
    if (held_fence > 0) {
        if (grant.node == lease().node.load() && grant.fence == held_fence + 1 &&
            s->lease_floor_fence == held_fence) {
            own = Ownership::this_run;
        }
    } else if ((s->state_closes_last_shutdown || s->state_closes_crash) && s->have_stored &&
               grant.node == s->stored.node_id && grant.fence == s->stored.fence + 1 &&
               GetWALInsertionTimeLine() == s->closed_shutdown_timeline) {
        own = s->state_closes_last_shutdown ? Ownership::previous_run : Ownership::crashed_run;
    }
    LWLockRelease(s->lock);
    return own;
}

// A state file set aside at start (pg_shmem.cpp) is confirmed by the first
// grant whose id the registry has recorded a bound for: the lease's floor
// then lies above every ID issued on it under a lease, and the file is moved
// out of the way. With 'auto', so is a grant of an id never leased: 'auto'
// ids come from the registry alone (moving to 'auto' from static ids goes
// through the registry: README). A static id without a recorded bound
// (never leased, or leased only by a run that refused here) may have been
// used before the registry: then the refusal the file called for stands,
// and the lease goes back with no bound, so that the next start decides the
// same. False if refused.
bool confirm_set_aside(snowflake::RegistryStore &store, const snowflake::LeaseGrant &grant) {
    SharedState *s = sf_shared;
    if (!s->state_set_aside || s->set_aside_confirmed) {
        return true;
    }
    if (grant.floor_unix_ms > sf_layout.epoch_unix_ms() || sf_worker_id == kWorkerIdAuto) {
        LWLockAcquire(s->lock, LW_EXCLUSIVE);
        const int rc = sf_state_file_set_aside();
        s->set_aside_confirmed = rc == 0;
        LWLockRelease(s->lock);
        if (rc == 0) {
            // Which ids the IDs before were issued on: a stale file still
            // says; a corrupt one does not.
            const int64_t stored_node = s->stored.node_id;
            ereport(
                LOG,
                (errmsg("snowflake_id: the state file is set aside as \"%s/%s\"; node id "
                        "%lld resumes above the bound the registry recorded for it",
                        DataDir, sf_state_file_set_aside_name, static_cast<long long>(grant.node)),
                 stored_node == grant.node
                     ? errdetail("The set-aside file's IDs were issued on node id %lld too: "
                                 "they lie below that bound.",
                                 static_cast<long long>(stored_node))
                 : stored_node >= 0
                     ? errdetail("The set-aside file's IDs were issued on node id %lld, not "
                                 "on %lld: they lie below the bound the registry recorded "
                                 "for node id %lld, which its next holder starts above.",
                                 static_cast<long long>(stored_node),
                                 static_cast<long long>(grant.node),
                                 static_cast<long long>(stored_node))
                     : errdetail("The set-aside file no longer says which node id its IDs "
                                 "were issued on; each node id's IDs lie below the bound "
                                 "the registry recorded for it, which its next holder starts "
                                 "above.")));
            return true;
        }
        errno = rc;
        ereport(WARNING, (errmsg("snowflake_id: could not set the state file aside: %m")));
    } else {
        ereport(WARNING,
                (errmsg("snowflake_id: the registry has no bound recorded for node id %lld, so it "
                        "cannot stand in for the state file \"%s/%s\"",
                        static_cast<long long>(grant.node), DataDir, sf_state_file_name),
                 errdetail("The static worker id may have issued IDs before the registry knew "
                           "it; snowflake_nextval() refuses as without a registry.")));
    }
    s->refusal.store(static_cast<int>(s->set_aside_refusal));
    snowflake::Error err;
    (void)store.release(grant.node, grant.fence, instance_id(), 0, &err);
    return false;
}

// An old primary: a promoted standby of its own holds a lease, and
// on_replaced = 'refuse'. Logged at every answer that says so (every
// lease_ttl / 3), as any refusal.
void warn_replaced(const snowflake::Error &err) {
    ereport(WARNING,
            (errmsg("snowflake_id: %s; snowflake_nextval() refuses to issue IDs", err.message),
             err.detail[0] != '\0' ? errdetail("%s", err.detail) : 0,
             errhint("%s The worker asks the registry again every %d ms: IDs resume once no "
                     "lease of the promoted standby is live.",
                     err.hint, sf_lease_ttl_ms / static_cast<int>(snowflake::kRenewalsPerTtl))));
}

snowflake::StoreOutcome acquire(snowflake::RegistryStore &store) {
    const auto refusal = static_cast<Refusal>(sf_shared->refusal.load());
    if (refusal == Refusal::state_stale || refusal == Refusal::state_unreadable ||
        refusal == Refusal::upgrade_without_state ||
        refusal == Refusal::upgrade_state_not_handoff) {
        // Nothing can be issued until the DBA acts on the state file: a
        // lease would only keep an id from others.
        set_message("the state file must be dealt with first (see snowflake_nextval()'s ERROR)");
        set_status(LeaseStatus::refused);
        return snowflake::StoreOutcome::refused;
    }
    snowflake::LeaseRequest request;
    LWLockAcquire(sf_shared->lock, LW_SHARED);
    // A stale file set aside still says which id the server had.
    const bool known = sf_shared->have_stored || sf_shared->state_set_aside;
    const int64_t stored_node = known ? sf_shared->stored.node_id : -1;
    const int64_t stored_fence = known ? sf_shared->stored.fence : 0;
    LWLockRelease(sf_shared->lock);
    snowflake::ask_with_durable_state(sf_worker_id != kWorkerIdAuto ? wanted_node() : -1,
                                      stored_node, stored_fence, &request);
    describe_holder(&request);
    snowflake::LeaseGrant grant;
    snowflake::Error err;
    const snowflake::StoreOutcome outcome = store.acquire(request, &grant, &err);
    if (outcome != snowflake::StoreOutcome::ok) {
        note_failure(outcome, &err);
        if (outcome == snowflake::StoreOutcome::refused &&
            err.code == snowflake::ErrorCode::registry_replaced) {
            set_status(LeaseStatus::replaced);
            warn_replaced(err);
        } else if (outcome == snowflake::StoreOutcome::refused) {
            set_status(LeaseStatus::refused);
            ereport(WARNING,
                    (errmsg("snowflake_id: the registry refused a node id lease: %s", err.message),
                     err.detail[0] != '\0' ? errdetail("%s", err.detail) : 0,
                     // The registry's own hint says what to do; ours, what happens meanwhile.
                     errhint("%s%ssnowflake_nextval() refuses to issue IDs until it grants one; "
                             "the worker asks again every %d ms.",
                             err.hint, err.hint[0] != '\0' ? " " : "",
                             sf_lease_ttl_ms / static_cast<int>(snowflake::kRenewalsPerTtl))));
        }
        return outcome;
    }
    if (!confirm_set_aside(store, grant)) {
        set_message(
            "the registry has no bound for the node id it granted, and the state file "
            "cannot be used");
        set_status(LeaseStatus::refused);
        return snowflake::StoreOutcome::refused;
    }
    const Ownership own = grant_ownership(grant);
    if (own == Ownership::previous_run && sf_shared->state_from_upgrade) {
        ereport(LOG, (errmsg("snowflake_id: took back node id %lld, which the cluster this one was "
                             "upgraded from held until its clean shutdown; the generator resumes "
                             "at the floor that shutdown recorded, as after a restart",
                             static_cast<long long>(grant.node))));
    } else if (own == Ownership::previous_run) {
        ereport(LOG, (errmsg("snowflake_id: took back node id %lld, which the previous run of this "
                             "server held until its clean shutdown; the generator resumes at the "
                             "floor that shutdown recorded",
                             static_cast<long long>(grant.node))));
    } else if (own == Ownership::crashed_run) {
        ereport(LOG,
                (errmsg("snowflake_id: took back node id %lld, which this server held until it "
                        "crashed; the generator resumes above the reservations its own WAL "
                        "recovered, not at the registry's bound for it",
                        static_cast<long long>(grant.node))));
    } else if (own == Ownership::other) {
        sf_resume_at_lease_floor(grant.floor_unix_ms, grant.node);
    }
    // The lease is recorded as this run's only once the floor is above its
    // floor: a crash-restart in between records the previous lease (or
    // none) with the exact floor (pg_shmem.cpp).
    LWLockAcquire(sf_shared->lock, LW_EXCLUSIVE);
    lease().node.store(grant.node);
    lease().fence.store(grant.fence);
    sf_shared->lease_floor_fence = grant.fence;
    lower_reservation_to_floor_locked();
    LWLockRelease(sf_shared->lock);
    if (!grant.copy_of.empty()) {
        ereport(LOG,
                (errmsg("snowflake_id: this server is a copy of %s, not its successor",
                        grant.copy_of.c_str()),
                 errdetail("It left timeline %d at WAL position %s, before the position %s that "
                           "server recorded with the registry: a restored backup or a "
                           "point-in-time copy. It takes no node id its original holds.",
                           grant.copy_of_timeline,
                           snowflake::lsn_text(grant.copy_branch_position).c_str(),
                           snowflake::lsn_text(grant.copy_original_position).c_str())));
    }
    const int worker_bits = sf_layout.widths().worker_bits;
    ereport(LOG, (errmsg("snowflake_id: leased node id %lld (datacenter %lld, worker %lld) with "
                         "fence %lld",
                         static_cast<long long>(grant.node),
                         static_cast<long long>(grant.node >> worker_bits),
                         static_cast<long long>(grant.node & ((int64_t{1} << worker_bits) - 1)),
                         static_cast<long long>(grant.fence))));
    return outcome;
}

// The bound the registry has recorded for the lease held, as ms since 1970:
// what giving it back records.
int64_t recorded_bound_unix_ms() {
    return sf_layout.epoch_unix_ms() +
           static_cast<int64_t>(lease().below.load() >> sf_layout.timestamp_shift());
}

// Gives the lease back (a clean stop, or another node id configured). No
// new IDs on it from here: the recorded bound stays as it is, so the next
// holder starts above every ID issued on it.
//
// What it records is the exact floor, not the bound of the last renewal
// (up to lease_ttl ahead), so the next holder, this server after a restart
// included, resumes near the clock. Exact, because no call can issue on the
// lease once the read of the floor is done: publishing `waiting` (seq_cst)
// comes before that read-modify-write of the floor, so a call's
// compare-and-swap either comes before it (its IDs are below the value
// read) or reads from it and is followed by the call's second read of the
// published word (pg_shared.hpp), which then sees the change, and the call
// throws its IDs away.
// A give-back that the registry runs late (its answer timed out here) names
// the fence of the lease it gave back; every grant has a fence of its own
// (1.5), so it cannot end or lower one granted since.
void release(snowflake::RegistryStore &store) {
    if (status() != LeaseStatus::held) {
        return;
    }
    set_status(LeaseStatus::waiting);
    const uint64_t floor = sf_shared->floor.fetch_add(0, std::memory_order_acq_rel);
    const int64_t bound_unix_ms =
        std::min(recorded_bound_unix_ms(), snowflake::exact_bound_unix_ms(sf_layout, floor));
    lease().below.store(0);
    // The call's waits end early on a shutdown request: let this one run
    // (within its time limit), and keep the request.
    shutdown_while_giving_back = false;
    giving_back = true;
    const bool stopping = shutdown_requested;
    shutdown_requested = false;
    snowflake::Error err;
    // The position the give-back records: a copy made before this stop
    // branched before it, and is no successor.
    const snowflake::StoreOutcome outcome =
        store.release(lease().node.load(), lease().fence.load(), instance_id(), bound_unix_ms, &err,
                      own_wal_position());
    if (outcome != snowflake::StoreOutcome::ok) {
        note_failure(outcome, &err);
        if (outcome == snowflake::StoreOutcome::refused) {
            // note_failure logs an unanswered call. Either way the next
            // holder waits for the lease to expire.
            ereport(LOG, (errmsg("snowflake_id: the registry did not take node id %lld back: %s",
                                 static_cast<long long>(lease().node.load()), err.message),
                          err.detail[0] != '\0' ? errdetail("%s", err.detail) : 0));
        }
    }
    giving_back = false;
    shutdown_requested = shutdown_requested || stopping || shutdown_while_giving_back;
}

// on_clock_step_back = 'switch_node': the clock is far behind the IDs
// issued. Gives the lease back and leases a node id whose IDs can carry the
// clock's time at once, in one registry call, then moves the generator
// there: its floor goes down to the new id's floor, so the IDs that follow
// sort below the ones before (documented). Backends that were issuing on
// the old id throw away what they took (pg_shared.hpp).
void switch_node(snowflake::RegistryStore &store, int64_t *next_renewal_mono_ns) {
    SharedState *s = sf_shared;
    const snowflake::Layout &layout = sf_layout;
    // The clock the backend that asked read, if lower than ours: the new id
    // must be usable at the clock the backends issue by (and libfaketime, in
    // the tests, can leave this process on the real clock).
    const int64_t own_clock_ms = sf_generator_clock_peek_ms();
    const int64_t asked_ms = lease().switch_clock_ms.load();
    const int64_t clock_ms = asked_ms > 0 ? std::min(own_clock_ms, asked_ms) : own_clock_ms;
    if (status() != LeaseStatus::held || !sf_switch_node_enabled() ||
        !snowflake::clock_far_behind(layout, s->floor.load(), clock_ms, sf_max_clock_drift_ms)) {
        return;
    }
    snowflake::SwitchRequest request;
    request.node = lease().node.load();
    request.fence = lease().fence.load();
    request.held_bound_unix_ms = recorded_bound_unix_ms();
    describe_holder(&request.lease);
    request.lease.clock_unix_ms = clock_ms;
    // The bound from the later clock: it must cover every ID until the next
    // renewal.
    const snowflake::RenewalPlan plan = snowflake::plan_renewal(own_clock_ms, sf_wall_clock_ms(),
                                                                sf_monotonic_ns(), sf_lease_ttl_ms);
    request.bound_unix_ms = plan.bound_unix_ms;
    snowflake::LeaseGrant grant;
    int64_t expires_unix_ms = 0;
    snowflake::Error err;
    const snowflake::StoreOutcome outcome =
        store.switch_node(request, &grant, &expires_unix_ms, &err);
    if (outcome != snowflake::StoreOutcome::ok) {
        note_failure(outcome, &err);
        if (outcome == snowflake::StoreOutcome::refused) {
            ereport(LOG, (errmsg("snowflake_id: could not switch node id %lld for a clock set "
                                 "back: %s",
                                 static_cast<long long>(request.node), err.message),
                          err.detail[0] != '\0' ? errdetail("%s", err.detail) : 0));
        }
        return;
    }
    const uint64_t floor_id = snowflake::lease_id_bound(layout, grant.floor_unix_ms);
    const uint64_t last_id = s->floor.load() - 1;
    LWLockAcquire(s->lock, LW_EXCLUSIVE);
    // Backends that see `switching` wait for the lock; those that read held
    // before throw their IDs away when they read the word again.
    set_status(LeaseStatus::switching);
    lease().node.store(grant.node);
    lease().fence.store(grant.fence);
    s->lease_floor_fence = grant.fence;
    s->floor.store(floor_id, std::memory_order_release);
    s->floor_lowered_by_switch = std::min(s->floor_lowered_by_switch, floor_id);
    lower_reservation_to_floor_locked();
    lease().below.store(snowflake::lease_id_bound(layout, plan.bound_unix_ms));
    lease().deadline_mono_ns.store(plan.deadline_mono_ns);
    lease().expires_unix_ms.store(expires_unix_ms);
    lease().last_ok_unix_ms.store(sf_wall_clock_ms());
    lease().switches.fetch_add(1, std::memory_order_relaxed);
    set_status(LeaseStatus::held);
    LWLockRelease(s->lock);
    set_message("");
    *next_renewal_mono_ns = plan.next_renewal_mono_ns;
    char last_text[40];
    snowflake::format_utc(
        layout.epoch_unix_ms() + static_cast<int64_t>(last_id >> layout.timestamp_shift()),
        last_text, sizeof last_text);
    ereport(
        LOG,
        (errmsg("snowflake_id: the clock is %lld ms behind the last ID issued on node "
                "id %lld (%s); switched to node id %lld with fence %lld",
                static_cast<long long>(static_cast<int64_t>(last_id >> layout.timestamp_shift()) -
                                       (clock_ms - layout.epoch_unix_ms())),
                static_cast<long long>(request.node), last_text, static_cast<long long>(grant.node),
                static_cast<long long>(grant.fence)),
         errdetail("IDs issued from now on sort below the ones issued before.")));
}

void lose_lease(LeaseStatus why) {
    set_status(why);
    lease().below.store(0);
}

void run(snowflake::RegistryStore &store) {
    int64_t next_renewal = 0;  // monotonic ns
    // The last renewal's refusal (Error is large: not on every iteration's stack).
    static snowflake::Error renew_error;
    for (;;) {
        if (shutdown_requested) {
            release(store);
            return;
        }
        if (ConfigReloadPending) {
            ConfigReloadPending = false;
            const int64_t wanted_before = wanted_node();
            ProcessConfigFile(PGC_SIGHUP);
            lease().auto_node.store(sf_worker_id == kWorkerIdAuto);
            sf_check_step_back_setting(WARNING);
            if (wanted_node() != wanted_before && status() == LeaseStatus::held) {
                // Another static id (or 'auto') was configured: give this
                // lease back and ask for what is configured now.
                ereport(LOG, (errmsg("snowflake_id: worker_id changed; leasing a node id again")));
                release(store);
            }
        }
        int64_t now = sf_monotonic_ns();
        if (status() == LeaseStatus::held && now >= lease().deadline_mono_ns.load()) {
            lose_lease(LeaseStatus::expired);
            ereport(WARNING, (errmsg("snowflake_id: the node id lease expired without a confirmed "
                                     "renewal; snowflake_nextval() refuses until the registry "
                                     "answers again")));
        }
        int64_t wake = now + kRetryMs * kNsPerMs;
        if (lease().switch_requested.exchange(false)) {
            switch_node(store, &next_renewal);
            lease().switch_attempts.fetch_add(1);
            ConditionVariableBroadcast(&lease().changed);
        }
        if (status() != LeaseStatus::held) {
            const snowflake::StoreOutcome got = acquire(store);
            if (got == snowflake::StoreOutcome::ok) {
                if (renew(store, &next_renewal, &renew_error) == snowflake::StoreOutcome::ok) {
                    set_status(LeaseStatus::held);
                    wake = next_renewal;
                }
            } else if (got == snowflake::StoreOutcome::refused) {
                wake = now + sf_lease_ttl_ms / snowflake::kRenewalsPerTtl * kNsPerMs;
            }
        } else if (now >= next_renewal || lease().renew_requested.exchange(false)) {
            const snowflake::StoreOutcome renewed = renew(store, &next_renewal, &renew_error);
            ConditionVariableBroadcast(&lease().changed);
            const bool replaced = renew_error.code == snowflake::ErrorCode::registry_replaced;
            if (renewed == snowflake::StoreOutcome::ok) {
                wake = next_renewal;
            } else if (renewed == snowflake::StoreOutcome::unreachable) {
                // Try again soon, and mark the lease expired at its deadline.
                wake = std::min(wake, lease().deadline_mono_ns.load());
            } else if (renewed == snowflake::StoreOutcome::refused && replaced &&
                       sf_on_replaced == kOnReplacedRefuse) {
                // Not a lost lease to lease again: this server is an old
                // primary. Its IDs stop now, not at the deadline.
                lose_lease(LeaseStatus::replaced);
                warn_replaced(renew_error);
                wake = now + sf_lease_ttl_ms / snowflake::kRenewalsPerTtl * kNsPerMs;
            } else if (renewed == snowflake::StoreOutcome::refused) {
                lose_lease(LeaseStatus::waiting);
                char text[sizeof lease().message];
                LWLockAcquire(sf_shared->lock, LW_SHARED);
                snprintf(text, sizeof text, "%s", lease().message);
                LWLockRelease(sf_shared->lock);
                ereport(WARNING, (errmsg("snowflake_id: the node id lease was lost: %s", text)));
                wake = now;
            }
        } else {
            wake = std::min(next_renewal, lease().deadline_mono_ns.load());
        }
        now = sf_monotonic_ns();
        if (wake > now && !shutdown_requested) {
            (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
                            std::max<int64_t>(1, (wake - now) / kNsPerMs), PG_WAIT_EXTENSION);
            ResetLatch(MyLatch);
            CHECK_FOR_INTERRUPTS();
        }
    }
}

}  // namespace

char *sf_describe_registry() {
    return snowflake::is_redis_url(sf_registry) ? describe_redis() : describe_postgresql();
}

// The stores build their statements and commands in std::string and
// std::vector. Built without exceptions, a failed allocation would call
// std::terminate, and the postmaster would take the abort for a crash and
// restart every backend; a FATAL ends only this worker, which the
// postmaster starts again.
[[noreturn]] void out_of_memory() {
    ereport(FATAL, (errcode(ERRCODE_OUT_OF_MEMORY),
                    errmsg("snowflake_id: out of memory in the registry worker")));
    pg_unreachable();
}

extern "C" void sf_registry_worker_main(Datum) {
    std::set_new_handler(out_of_memory);
    pqsignal(SIGHUP, SignalHandlerForConfigReload);
    pqsignal(SIGTERM, handle_sigterm);
    BackgroundWorkerUnblockSignals();
    if (gethostname(hostname, sizeof hostname) != 0) {
        snprintf(hostname, sizeof hostname, "unknown");
    }
    hostname[sizeof hostname - 1] = '\0';
    lease().auto_node.store(sf_worker_id == kWorkerIdAuto);
    lease().worker_latch.store(MyLatch);
    if (status() == LeaseStatus::none) {
        set_status(LeaseStatus::waiting);
    }
    if (snowflake::is_redis_url(sf_registry)) {
        // Start-up refused a malformed URL (read_all in pg_settings.cpp).
        snowflake::RedisTarget target;
        snowflake::Error err;
        if (snowflake::parse_redis_url(sf_registry, &target, &err)) {
            WorkerRegistryEnv env(&shutdown_requested);
            RedisRegistryStore store(&target, &env);
            run(store);
        }
    } else {
        WorkerRegistryEnv env(&shutdown_requested);
        PgRegistryStore store(sf_registry, &env);
        run(store);
    }
    proc_exit(0);
}
