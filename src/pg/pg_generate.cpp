// snowflake_nextval() and snowflake_nextval(n): the generator's SQL face.
#include <ctime>

#include "core/epoch.hpp"
#include "core/state_record.hpp"
#include "pg_shared.hpp"

extern "C" {
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/latch.h"
#include "utils/tuplestore.h"
#include "utils/wait_event.h"

PG_FUNCTION_INFO_V1(snowflake_nextval);
PG_FUNCTION_INFO_V1(snowflake_nextval_block);
}

namespace {

// Reads the wall clock and publishes the reading to the shared watch
// (snowflake::ClockWatch), which notices when it went back: the first
// backend to notice counts the step; readings stay below that mark until
// the clock has caught up, and are not counted again. The generator reads
// the wall clock or the catch-up clock ahead of it, never below it.
int64_t generator_clock(void *) {
    snowflake::ClockWatch &watch = sf_shared->clock_watch;
    const int64_t highest = watch.highest_ms.load(std::memory_order_acquire);
    const int64_t wall = sf_wall_clock_ms();
    if (snowflake::publish_clock_reading(watch, highest, wall)) {
        sf_count(&StatusCounters::clock_backwards);
    }
    return sf_generator_clock_at(wall);
}

// The generator's clock to the nanosecond, for the sleeper: the wall clock
// (sf_wall_clock_ns, which libfaketime fakes in the tests). False while the catch-up clock runs:
// its milliseconds are not the wall clock's.
bool generator_clock_ns(int64_t *ns) {
    if (sf_shared->catch_up.running()) {
        return false;
    }
    *ns = sf_wall_clock_ns();
    return true;
}

// Waits for the generator's clock to reach until_unix_ms, in the steps of
// snowflake::next_wait_step: whole milliseconds on the latch, so that a
// cancel or statement_timeout wakes us at once, and the last fraction with
// clock_nanosleep, which ends at the boundary (a signal, such as a cancel,
// cuts it short too). One step per call: the core reads the clock again
// after each. Under the catch-up clock, `ms` on the latch, as before. The
// latch may also wake us early for other reasons (it is set when a backend
// starts, by NOTIFY, ...), so report the time really slept: only that counts
// against max_wait. Returns false when an interrupt is pending: the core then
// returns, and the caller runs CHECK_FOR_INTERRUPTS() outside any core frame.
bool sleep_until(void *, int64_t ms, int64_t until_unix_ms, int64_t *slept_us) {
    const int64_t start = sf_monotonic_ns() / 1000;
    int64_t now_ns = 0;
    snowflake::WaitStep step;
    if (generator_clock_ns(&now_ns)) {
        step = snowflake::next_wait_step(until_unix_ms, now_ns, ms);
    } else {
        step.coarse_ms = ms;
    }
    if (step.coarse_ms > 0) {
        (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
                        static_cast<long>(step.coarse_ms), PG_WAIT_EXTENSION);
        ResetLatch(MyLatch);
    } else if (step.fine_ns > 0) {
        const struct timespec fine = {0, static_cast<long>(step.fine_ns)};
        (void)clock_nanosleep(CLOCK_MONOTONIC, 0, &fine, nullptr);
    }
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

[[noreturn]] void raise_in_binary_upgrade() {
    ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                    errmsg("cannot issue snowflake IDs while pg_upgrade runs the server"),
                    errdetail("In binary-upgrade mode snowflake_id reads no state file, leases no "
                              "node id and records nothing, so it cannot tell where IDs may "
                              "resume."),
                    errhint("Issue IDs once the upgraded cluster is started normally, after its "
                            "state file was copied from the old cluster (docs/upgrading.md).")));
    pg_unreachable();
}

[[noreturn]] void raise_refusal(Refusal refusal) {
    if (refusal == Refusal::state_unreadable) {
        StateProblemText text;
        LWLockAcquire(sf_shared->lock, LW_SHARED);
        const StateFileProblem problem = sf_shared->state_problem;
        const int error = sf_shared->state_error;
        const unsigned owner = sf_shared->state_owner_uid;
        const unsigned mode = sf_shared->state_mode;
        LWLockRelease(sf_shared->lock);
        sf_describe_state_problem(problem, error, owner, mode, &text);
        // Only wrong bytes are corruption; a file the server may not open
        // is a privilege problem, a directory or an empty file a copy gone
        // wrong.
        const int sqlstate =
            problem == StateFileProblem::cannot_open ? ERRCODE_INSUFFICIENT_PRIVILEGE
            : problem == StateFileProblem::corrupt   ? ERRCODE_DATA_CORRUPTED
                                                     : ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE;
        ereport(ERROR, (errcode(sqlstate),
                        errmsg("snowflake_id cannot tell which IDs were issued before: the state "
                               "file \"%s\" %s",
                               sf_state_file_name, text.reason),
                        errdetail("%s", text.detail),
                        text.hint[0] != '\0' ? errhint("%s", text.hint)
                                             : sf_errhint_state_file_way_out()));
    }
    if (refusal == Refusal::upgrade_without_state ||
        refusal == Refusal::upgrade_state_not_handoff) {
        UpgradeRefusalText text;
        sf_describe_upgrade_refusal(refusal, &text);
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("snowflake_id cannot tell which IDs were issued before: %s", text.message),
                 errdetail("%s", text.detail), errhint("%s", text.hint)));
    }
    if (refusal == Refusal::state_stale) {
        StaleStateText text;
        LWLockAcquire(sf_shared->lock, LW_SHARED);
        sf_describe_stale_state(sf_shared, &text);
        LWLockRelease(sf_shared->lock);
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("snowflake_id cannot tell which IDs were issued before: the state "
                               "file \"%s\" is older than the data directory",
                               sf_state_file_name),
                        errdetail("%s", text.detail), sf_errhint_state_file_way_out()));
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

// The registry's part of a message: which registry, and its last word.
struct LeaseTexts {
    const char *registry;  // palloc'd
    char message[sizeof LeaseState::message];
};
void lease_texts(LeaseTexts *out) {
    out->registry = sf_describe_registry();
    LWLockAcquire(sf_shared->lock, LW_SHARED);
    snprintf(out->message, sizeof out->message, "%s",
             sf_shared->lease.message[0] != '\0' ? sf_shared->lease.message : "no answer yet");
    LWLockRelease(sf_shared->lock);
}

[[noreturn]] void raise_lease_refusal(LeaseStatus status) {
    LeaseTexts texts;
    lease_texts(&texts);
    if (status == LeaseStatus::expired) {
        const int64_t ago_ms = sf_wall_clock_ms() - sf_shared->lease.last_ok_unix_ms.load();
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("the node id lease of this server expired: the registry last confirmed "
                        "it %lld ms ago",
                        static_cast<long long>(ago_ms)),
                 errdetail("Registry %s: %s. Past its deadline, or once its IDs reach the bound "
                           "the registry recorded with the last renewal, a server issues no IDs: "
                           "another server may hold its node id by now.",
                           texts.registry, texts.message),
                 errhint("IDs resume by themselves once the registry answers again; see "
                         "snowflake_status.")));
    }
    if (status == LeaseStatus::replaced) {
        // The registry's message says by whom (lease_rules.cpp).
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("this server was replaced by a promoted standby of its own and issues no "
                        "IDs"),
                 errdetail("Registry %s: %s.", texts.registry, texts.message),
                 errhint("It is an old primary: stop it, or make it a standby of the new primary "
                         "(pg_rewind). If the other server is a copy of this one (a restored "
                         "backup or a promoted standby), stop the copy, or set "
                         "snowflake_id.on_replaced = 'lease_another' here; see "
                         "docs/many-servers.md, \"Failover and split brain\".")));
    }
    if (status == LeaseStatus::refused) {
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("the registry refused this server a node id lease"),
                        errdetail("Registry %s: %s.", texts.registry, texts.message),
                        errhint("The registry worker asks again every lease_ttl / 3 (%d ms); see "
                                "docs/many-servers.md, \"Running many servers\".",
                                sf_lease_ttl_ms / 3)));
    }
    ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                    errmsg("snowflake_id has no node id yet: it waits for a lease from the "
                           "registry"),
                    errdetail("Registry %s: %s.", texts.registry, texts.message),
                    errhint("The registry worker (\"snowflake_id registry\" in "
                            "pg_stat_activity) asks again every second; see snowflake_status.")));
    pg_unreachable();
}

// Raises a core error from snowflake_nextval, counting it for snowflake_status.
[[noreturn]] void raise_counted(const snowflake::Error &err) {
    sf_count(&StatusCounters::errors);
    sf_raise(err);
}

// The lease a call issues under: the published word it read (never 0 for a
// held lease; 0 without a registry) and its node (-1 without a registry).
struct CallLease {
    int64_t word = 0;
    int64_t node = -1;
};

// The checks every call makes before the generator runs; `call` names it
// for the read-only refusal.
CallLease check_can_issue(const char *call) {
    if (sf_shared == nullptr) {
        raise_not_preloaded();
    }
    if (RecoveryInProgress()) {
        sf_count(&StatusCounters::errors);
        raise_in_recovery();
    }
    if (unlikely(XactReadOnly)) {
        sf_count(&StatusCounters::errors);
        sf_refuse_in_read_only(call);
    }
    if (IsBinaryUpgrade) {
        sf_count(&StatusCounters::errors);
        raise_in_binary_upgrade();
    }
    const auto refusal = static_cast<Refusal>(sf_shared->refusal.load(std::memory_order_acquire));
    if (refusal != Refusal::none) {
        sf_count(&StatusCounters::errors);
        raise_refusal(refusal);
    }
    if (sf_registry_configured()) {
        int64_t word = sf_shared->lease.published.load(std::memory_order_acquire);
        if (lease_status_of(word) == LeaseStatus::switching) {
            // The worker holds the lock while it moves the generator to
            // another node id: a moment, without network.
            LWLockAcquire(sf_shared->lock, LW_SHARED);
            LWLockRelease(sf_shared->lock);
            word = sf_shared->lease.published.load(std::memory_order_acquire);
        }
        if (lease_status_of(word) != LeaseStatus::held) {
            sf_count(&StatusCounters::errors);
            raise_lease_refusal(lease_status_of(word));
        }
        // Past the deadline the lease is over, whether or not the worker,
        // which may be waiting on a hung registry, has said so yet; this is
        // also what snowflake_status shows (pg_status.cpp).
        if (sf_lease_past_deadline(sf_shared->lease)) {
            sf_count(&StatusCounters::errors);
            raise_lease_refusal(LeaseStatus::expired);
        }
        return CallLease{word, lease_node_of(word)};
    }
    return CallLease{};
}

// Whether the lease changed since the call read it (pg_shared.hpp): IDs taken
// since then may be on a node id the server no longer holds.
bool lease_changed(const CallLease &lease) {
    return lease.word != 0 &&
           sf_shared->lease.published.load(std::memory_order_acquire) != lease.word;
}

// on_clock_step_back = 'switch_node': asks the registry worker to lease
// another node id for the clock, and waits until it has tried (one registry
// round trip, within the registry's time limit). True if the lease changed:
// the call starts over on it.
bool wait_for_node_switch(const CallLease &lease, int64_t clock_ms) {
    LeaseState &state = sf_shared->lease;
    const uint64_t attempts = state.switch_attempts.load(std::memory_order_acquire);
    state.switch_clock_ms.store(clock_ms, std::memory_order_relaxed);
    state.switch_requested.store(true, std::memory_order_release);
    Latch *worker = state.worker_latch.load(std::memory_order_acquire);
    if (worker != nullptr) {
        SetLatch(worker);
    }
    const int64_t give_up_ns = sf_monotonic_ns() + (kRegistryTimeoutMs + 1000) * kNsPerMs;
    ConditionVariablePrepareToSleep(&state.changed);
    for (;;) {
        if (lease_changed(lease) ||
            state.switch_attempts.load(std::memory_order_acquire) != attempts) {
            break;
        }
        const int64_t left_ms = (give_up_ns - sf_monotonic_ns()) / kNsPerMs;
        if (left_ms <= 0) {
            break;
        }
        // Interrupts (cancel, statement_timeout) raise from here, outside any
        // core frame; the transaction's abort cancels the sleep.
        (void)ConditionVariableTimedSleep(&state.changed, left_ms, PG_WAIT_EXTENSION);
    }
    ConditionVariableCancelSleep();
    return lease_changed(lease);
}

// The clock-behind ERROR after a switch was asked for and did not happen:
// the registry's answer goes into the HINT.
[[noreturn]] void raise_switch_failed(const snowflake::Error &err) {
    LeaseTexts texts;
    lease_texts(&texts);
    sf_count(&StatusCounters::errors);
    sf_raise_with_hint(err, psprintf("snowflake_id.on_clock_step_back = 'switch_node' found no "
                                     "other node id (registry %s: %s). Check the server's clock "
                                     "(NTP).",
                                     texts.registry, texts.message));
}

// The generator's parameters for this backend's settings. Rebuilt only when
// a setting they come from changes (worker_id and the bounds can change on
// reload; the layout is fixed while the server runs): building them, node
// check included, is a measurable part of a call.
struct ParamsCache {
    bool valid = false;
    int64_t leased_node = -1;
    int worker_id = 0;
    int datacenter_id = 0;
    int max_drift_ms = 0;
    int max_wait_ms = 0;
    snowflake::GeneratorParams params;
};
ParamsCache params_cache;

const snowflake::GeneratorParams &generator_params(int64_t leased_node) {
    ParamsCache &c = params_cache;
    // With a registry the node is the lease's (check_can_issue made sure it
    // is held).
    if (c.valid && c.leased_node == leased_node && c.worker_id == sf_worker_id &&
        c.datacenter_id == sf_datacenter_id && c.max_drift_ms == sf_max_clock_drift_ms &&
        c.max_wait_ms == sf_max_wait_ms) {
        return c.params;
    }
    c.valid = false;
    snowflake::Error err;
    c.params.layout = sf_layout;
    if (leased_node >= 0) {
        c.params.node = leased_node;
    } else if (sf_worker_id == kWorkerIdAuto) {
        sf_count(&StatusCounters::errors);
        sf_check_registry_settings(ERROR);
    } else if (!sf_layout.make_node(sf_datacenter_id, sf_worker_id, &c.params.node, &err)) {
        raise_counted(err);
    }
    c.leased_node = leased_node;
    c.params.max_drift_ms = sf_max_clock_drift_ms;
    c.params.max_wait_ms = sf_max_wait_ms;
    c.worker_id = sf_worker_id;
    c.datacenter_id = sf_datacenter_id;
    c.max_drift_ms = sf_max_clock_drift_ms;
    c.max_wait_ms = sf_max_wait_ms;
    c.valid = true;
    return c.params;
}

// What a call that got its IDs still owes: the counters, and a renewal of
// the reservation when the IDs came close to its end.
void after_issue(int64_t count, int64_t last_id, bool ran_out, bool renew) {
    sf_count(&StatusCounters::ids_issued, static_cast<uint64_t>(count));
    if (ran_out) {
        sf_count(&StatusCounters::sequence_exhausted);
    }
    if (renew) {
        // Extend the reservation before it runs out, unless another backend
        // is at it already; these IDs are covered either way.
        sf_reserve(static_cast<uint64_t>(last_id), ReserveFor::renewal);
    }
}

struct IssuedIds {
    int64_t first;
    int64_t last;
};

// Issues `count` IDs (one, or a block checked by check_block) under the
// lease the call read, into *ids; raises on failure. False, with nothing
// issued, when the lease changed meanwhile: the caller starts over.
// *may_switch: a clock far behind may ask for a switch of node id, once per
// call (cleared when it asks): a call that switched and is still behind
// fails.
bool issue_ids(const snowflake::GeneratorParams &params, int64_t count, const CallLease &lease,
               bool *may_switch, snowflake::WaitBudget *budget, IssuedIds *ids) {
    // The usual case first: one attempt at the current clock reading. Every
    // other outcome (wait, reserve, fail) goes through the core's issue().
    const snowflake::Attempt first = snowflake::try_issue(
        sf_shared->floor, params, generator_clock(nullptr), &sf_shared->reservation, count);
    if (first.status == snowflake::AttemptStatus::issued) {
        if (lease_changed(lease)) {
            return false;
        }
        after_issue(count, first.last_id, first.sequence_ran_out, first.renew);
        *ids = IssuedIds{first.id, first.last_id};
        return true;
    }
    snowflake::Error err;
    bool waited = false;
    bool ran_out = first.sequence_ran_out;
    for (;;) {
        const snowflake::IssueResult r = snowflake::issue(
            sf_shared->floor, params,
            snowflake::Clock{generator_clock, nullptr, &sf_shared->clock_watch},
            snowflake::Sleeper{sleep_until, nullptr}, budget, &err, &sf_shared->reservation, count);
        ran_out = ran_out || r.sequence_ran_out;
        if (r.waited && !waited) {
            // Counted at once: the call may yet be cancelled.
            waited = true;
            sf_count(&StatusCounters::waits);
        }
        if (lease_changed(lease)) {
            return false;  // whatever this attempt took was on the old lease
        }
        if (r.status == snowflake::IssueStatus::issued) {
            after_issue(count, r.last_id, ran_out, r.renew);
            *ids = IssuedIds{r.id, r.last_id};
            return true;
        }
        if (r.status == snowflake::IssueStatus::must_reserve) {
            sf_reserve(static_cast<uint64_t>(r.id), ReserveFor::issue);
            continue;
        }
        if (r.status == snowflake::IssueStatus::failed) {
            // A clock that went back only: demand beyond the layout's
            // capacity (capacity_exceeded) is no reason to spend a node id.
            if (err.code == snowflake::ErrorCode::clock_behind && *may_switch &&
                sf_switch_node_enabled()) {
                *may_switch = false;
                if (wait_for_node_switch(lease, generator_clock(nullptr))) {
                    return false;
                }
                raise_switch_failed(err);
            }
            raise_counted(err);
        }
        // Interrupted while waiting: cancel and statement_timeout raise here.
        // Anything else, and the call resumes with what is left of max_wait.
        CHECK_FOR_INTERRUPTS();
    }
}

}  // namespace

void sf_raise_lease_bound_reached(uint64_t) {
    // The bound is the clock at the last confirmed renewal plus lease_ttl:
    // reaching it is the lease running out, in ID time, whether or not the
    // worker has marked it expired yet.
    sf_count(&StatusCounters::errors);
    raise_lease_refusal(LeaseStatus::expired);
}

namespace {

// snowflake_id.takeover = 'wait' and the lease's floor ahead of the clock.
[[noreturn]] void raise_takeover_wait(const snowflake::GateResult &r, int64_t node,
                                      const snowflake::WaitBudget &budget) {
    char resume_text[40];
    snowflake::format_utc(r.resume_unix_ms, resume_text, sizeof resume_text);
    sf_count(&StatusCounters::errors);
    ereport(ERROR,
            (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
             errmsg("snowflake_id issues no IDs until %s, the floor of the lease of node id %lld",
                    resume_text, static_cast<long long>(node)),
             errdetail("The lease was taken from another holder, whose IDs may reach that time, "
                       "%lld ms past this server's clock. With snowflake_id.takeover = 'wait' no "
                       "ID carries a time ahead of the clock for it; this call waited %lld ms of "
                       "snowflake_id.max_wait = %d ms.",
                       static_cast<long long>(r.behind_ms),
                       static_cast<long long>(budget.waited_us / 1000), sf_max_wait_ms),
             errhint("IDs resume by themselves at %s. snowflake_id.takeover = 'lead' (then a "
                     "reload) issues at once instead, ahead of the wall clock; see "
                     "docs/many-servers.md, \"Takeovers without the lead\".",
                     resume_text)));
    pg_unreachable();
}

// snowflake_id.takeover = 'wait': no ID before the clock reaches the floor
// of a lease taken from another holder (pg_resume.cpp closes the gate).
// One load while it is open.
void wait_at_takeover_gate(const CallLease &lease, snowflake::WaitBudget *budget) {
    snowflake::TakeoverGate &gate = sf_shared->takeover_gate;
    if (gate.peek() == 0) {
        return;
    }
    if (sf_takeover == kTakeoverLead && sf_lead_from_takeover_gate()) {
        return;
    }
    bool counted = budget->waited_us > 0;
    for (;;) {
        const snowflake::GateResult r = snowflake::wait_at_gate(
            gate, snowflake::Clock{generator_clock, nullptr, &sf_shared->clock_watch},
            snowflake::Sleeper{sleep_until, nullptr}, sf_max_wait_ms, budget);
        if (!counted && budget->waited_us > 0) {
            counted = true;
            sf_count(&StatusCounters::waits);
        }
        if (r.status == snowflake::GateStatus::open) {
            return;
        }
        if (r.status == snowflake::GateStatus::closed) {
            raise_takeover_wait(r, lease.node, *budget);
        }
        // Cancel and statement_timeout raise here, outside any core frame.
        CHECK_FOR_INTERRUPTS();
    }
}

// Issues `count` IDs under the lease in force, starting over when it
// changes under the call (a switch of node id, a lost lease).
// A block (snowflake_nextval(n)) has its size checked, whatever it is.
IssuedIds issue_under_lease(int64_t count, bool block) {
    bool may_switch = true;
    // One max_wait for the whole call: the gate's wait and the generator's.
    snowflake::WaitBudget budget;
    for (;;) {
        const CallLease lease =
            check_can_issue(block ? "snowflake_nextval(n)" : "snowflake_nextval()");
        const uint64_t origins = sf_shared->origins_generation.load(std::memory_order_acquire);
        if (unlikely(origins != sf_origins_checked)) {
            sf_check_origins(origins);  // once per backend and restore
        }
        wait_at_takeover_gate(lease, &budget);
        const snowflake::GeneratorParams &params = generator_params(lease.node);
        snowflake::Error err;
        if (block && !snowflake::check_block(params, count, &err)) {
            raise_counted(err);
        }
        IssuedIds ids;
        if (issue_ids(params, count, lease, &may_switch, &budget, &ids)) {
            return ids;
        }
    }
}

}  // namespace

extern "C" Datum snowflake_nextval(PG_FUNCTION_ARGS) {
    PG_RETURN_INT64(issue_under_lease(1, false).first);
}

// snowflake_nextval(n): one CAS takes the whole block (src/core/generator.hpp),
// then the IDs go into a tuplestore in materialize mode, which costs far less
// per row than returning them one call at a time.
extern "C" Datum snowflake_nextval_block(PG_FUNCTION_ARGS) {
    auto *rsinfo = reinterpret_cast<ReturnSetInfo *>(fcinfo->resultinfo);
    if (rsinfo == nullptr || !IsA(rsinfo, ReturnSetInfo) ||
        (rsinfo->allowedModes & SFRM_Materialize) == 0) {
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                        errmsg("snowflake_nextval(n) must be called where a set is accepted")));
    }
    const int64_t count = PG_GETARG_INT32(0);
    const IssuedIds ids = issue_under_lease(count, true);
    const snowflake::Layout &layout = sf_layout;

    MemoryContext old = MemoryContextSwitchTo(rsinfo->econtext->ecxt_per_query_memory);
    TupleDesc tupdesc = CreateTemplateTupleDesc(1);
    TupleDescInitEntry(tupdesc, 1, "snowflake_nextval", INT8OID, -1, 0);
    Tuplestorestate *store = tuplestore_begin_heap(
        (rsinfo->allowedModes & SFRM_Materialize_Random) != 0, false, work_mem);
    MemoryContextSwitchTo(old);
    int64_t id = ids.first;
    for (int64_t i = 0; i < count; ++i) {
        Datum value = Int64GetDatum(id);
        bool null = false;
        tuplestore_putvalues(store, tupdesc, &value, &null);
        id = layout.next_in_node(id);
    }
    rsinfo->returnMode = SFRM_Materialize;
    rsinfo->setResult = store;
    rsinfo->setDesc = tupdesc;
    return static_cast<Datum>(0);
}
