// The registry worker: leases this server's node id from the registry
// (snowflake_id.registry, a PostgreSQL database with snowflake_id installed;
// the protocol is the SQL of snowflake_id--1.3.sql, "The registry of node
// ids"), renews it, and publishes it in shared memory (LeaseState).
//
// One background worker, started after recovery (a standby mints nothing;
// a promoted one starts it), and only when a registry is set. It talks to
// the registry with libpq as the WAL receiver and dblink do: a non-blocking
// connection and queries, waited on with WaitLatchOrSocket, so SIGTERM,
// SIGHUP and the postmaster's death are seen at once and every network wait
// has a timeout. Nothing on the snowflake_nextval() path touches the network.
//
// Fencing, as the worker keeps it:
//  - A renewal is sent with bound = the generator's clock + lease_ttl: the
//    registry records it, and only once it has confirmed it does the worker
//    publish it as LeaseState::below, which caps every reservation: no ID
//    at or above a bound the registry has not recorded is ever issued.
//  - The deadline is the monotonic clock when that renewal was sent, plus
//    lease_ttl: the registry's expiry of the lease lies after it. Past the
//    deadline the worker marks the lease expired and backends refuse; their
//    IDs were below the bound anyway, and a new holder starts above it.
//  - A lease taken from another holder comes with a floor (its recorded
//    bound plus its drift): the generator resumes above it.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "pg_shared.hpp"

extern "C" {
#include <unistd.h>

#include "access/xlog.h"
#include "libpq-fe.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "postmaster/postmaster.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lwlock.h"
#include "utils/guc.h"

PGDLLEXPORT void sf_registry_worker_main(Datum);
}

bool sf_registry_configured() {
    return sf_registry != nullptr && sf_registry[0] != '\0';
}

bool sf_check_registry_settings(int elevel) {
    if (sf_worker_id == kWorkerIdAuto && !sf_registry_configured()) {
        ereport(elevel,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("snowflake_id.worker_id = 'auto' needs snowflake_id.registry"),
                 errdetail("Only a registry of node ids can hand out a node id that no other "
                           "server uses."),
                 errhint("Set snowflake_id.registry to the connection string of a database "
                         "with snowflake_id installed and restart, or set a worker id.")));
        return false;
    }
    if (sf_worker_id == kWorkerIdAuto && sf_datacenter_id != 0) {
        ereport(elevel,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("snowflake_id.datacenter_id = %d cannot be combined with worker_id = "
                        "'auto'",
                        sf_datacenter_id),
                 errdetail("With 'auto' the registry leases the whole node id, datacenter and "
                           "worker id together."),
                 errhint("Remove snowflake_id.datacenter_id, or set a static worker id.")));
        return false;
    }
    return true;
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

constexpr int64_t kNsPerMs = 1000000;
// How long one connection attempt or query may take, and the pause before
// trying again after a failure.
constexpr int64_t kNetworkTimeoutMs = 5000;
constexpr int64_t kRetryMs = 1000;

volatile sig_atomic_t shutdown_requested = false;

void handle_sigterm(SIGNAL_ARGS) {
    const int save_errno = errno;
    (void)postgres_signal_arg;
    shutdown_requested = true;
    SetLatch(MyLatch);
    errno = save_errno;
}

// The worker's own state; the connection lives for the process.
PGconn *conn = nullptr;
char hostname[256];

LeaseState &lease() {
    return sf_shared->lease;
}

void set_message(const char *text) {
    LWLockAcquire(sf_shared->lock, LW_EXCLUSIVE);
    snprintf(lease().message, sizeof lease().message, "%s", text);
    LWLockRelease(sf_shared->lock);
}

void set_status(LeaseStatus status) {
    lease().status.store(static_cast<int>(status), std::memory_order_release);
}

LeaseStatus status() {
    return static_cast<LeaseStatus>(lease().status.load(std::memory_order_acquire));
}

// The registry as messages name it: host, port and database, never the
// password.
void describe_registry() {
    char *errmsg_text = nullptr;
    PQconninfoOption *options = PQconninfoParse(sf_registry, &errmsg_text);
    char text[256] = "the registry";
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
        snprintf(text, sizeof text, "host=%s port=%s dbname=%s", host ? host : "(default)",
                 port ? port : "(default)", dbname ? dbname : "(default)");
        PQconninfoFree(options);
    }
    if (errmsg_text != nullptr) {
        PQfreemem(errmsg_text);
    }
    LWLockAcquire(sf_shared->lock, LW_EXCLUSIVE);
    snprintf(lease().registry, sizeof lease().registry, "%s", text);
    LWLockRelease(sf_shared->lock);
}

void drop_connection() {
    if (conn != nullptr) {
        PQfinish(conn);
        conn = nullptr;
    }
}

// A failure to reach the registry: counted, said, and the connection
// dropped so that the next attempt starts afresh.
void network_failure(const char *what) {
    char text[512];
    snprintf(text, sizeof text, "%s: %s", what,
             conn != nullptr ? PQerrorMessage(conn) : "out of memory");
    // libpq's messages end with a newline.
    const size_t len = strlen(text);
    if (len > 0 && text[len - 1] == '\n') {
        text[len - 1] = '\0';
    }
    lease().failures.fetch_add(1, std::memory_order_relaxed);
    set_message(text);
    ereport(LOG, (errmsg("snowflake_id: registry %s", text)));
    drop_connection();
}

// Waits for the socket (or the latch, or the time limit); false when the
// time limit passed or a shutdown was asked for.
bool wait_socket(int events, int64_t until_mono_ns) {
    for (;;) {
        if (shutdown_requested) {
            return false;
        }
        const int64_t left_ms = (until_mono_ns - sf_monotonic_ns()) / kNsPerMs;
        if (left_ms <= 0) {
            return false;
        }
        const int rc =
            WaitLatchOrSocket(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH | events,
                              PQsocket(conn), left_ms, PG_WAIT_EXTENSION);
        if (rc & WL_LATCH_SET) {
            ResetLatch(MyLatch);
            CHECK_FOR_INTERRUPTS();
        }
        if (rc & events) {
            return true;
        }
    }
}

bool connect_registry() {
    if (conn != nullptr) {
        return true;
    }
    const int64_t until = sf_monotonic_ns() + kNetworkTimeoutMs * kNsPerMs;
    conn = PQconnectStart(sf_registry);
    if (conn == nullptr || PQstatus(conn) == CONNECTION_BAD) {
        network_failure("could not connect");
        return false;
    }
    PostgresPollingStatusType poll = PGRES_POLLING_WRITING;
    while (poll != PGRES_POLLING_OK) {
        if (poll == PGRES_POLLING_FAILED) {
            network_failure("could not connect");
            return false;
        }
        const int events = poll == PGRES_POLLING_READING ? WL_SOCKET_READABLE : WL_SOCKET_WRITEABLE;
        if (!wait_socket(events, until)) {
            if (!shutdown_requested) {
                network_failure("timed out connecting");
            }
            drop_connection();
            return false;
        }
        poll = PQconnectPoll(conn);
    }
    if (PQsetnonblocking(conn, 1) != 0) {
        network_failure("could not use the connection");
        return false;
    }
    return true;
}

enum class QueryOutcome { ok, refused, failed };

// Runs one query with text parameters; on `ok` *result holds its rows (the
// caller clears it). `refused`: the registry raised an ERROR, whose text
// goes to the lease message and *sqlstate. `failed`: the network.
QueryOutcome run_query(const char *sql, int nparams, const char *const *params, PGresult **result,
                       char sqlstate[6]) {
    *result = nullptr;
    sqlstate[0] = '\0';
    if (!connect_registry()) {
        return QueryOutcome::failed;
    }
    const int64_t until = sf_monotonic_ns() + kNetworkTimeoutMs * kNsPerMs;
    if (!PQsendQueryParams(conn, sql, nparams, nullptr, params, nullptr, nullptr, 0)) {
        network_failure("could not send a query");
        return QueryOutcome::failed;
    }
    for (;;) {  // flush what is queued
        const int flushed = PQflush(conn);
        if (flushed == 0) {
            break;
        }
        if (flushed < 0 || !wait_socket(WL_SOCKET_WRITEABLE, until)) {
            network_failure("could not send a query");
            return QueryOutcome::failed;
        }
    }
    PGresult *last = nullptr;
    for (;;) {
        while (PQisBusy(conn)) {
            if (!wait_socket(WL_SOCKET_READABLE, until) || !PQconsumeInput(conn)) {
                if (last != nullptr) {
                    PQclear(last);
                }
                network_failure("no answer to a query");
                return QueryOutcome::failed;
            }
        }
        PGresult *r = PQgetResult(conn);
        if (r == nullptr) {
            break;
        }
        if (last != nullptr) {
            PQclear(last);
        }
        last = r;
    }
    if (last == nullptr) {
        network_failure("no answer to a query");
        return QueryOutcome::failed;
    }
    if (PQresultStatus(last) == PGRES_TUPLES_OK) {
        *result = last;
        return QueryOutcome::ok;
    }
    const char *state = PQresultErrorField(last, PG_DIAG_SQLSTATE);
    snprintf(sqlstate, 6, "%s", state != nullptr ? state : "");
    char text[512];
    const char *primary = PQresultErrorField(last, PG_DIAG_MESSAGE_PRIMARY);
    const char *detail = PQresultErrorField(last, PG_DIAG_MESSAGE_DETAIL);
    snprintf(text, sizeof text, "%s%s%s", primary != nullptr ? primary : PQerrorMessage(conn),
             detail != nullptr ? ": " : "", detail != nullptr ? detail : "");
    PQclear(last);
    set_message(text);
    // A class 08 (connection) or 57 (shutdown) error is the network's, not
    // the registry's answer.
    if (strncmp(sqlstate, "08", 2) == 0 || strncmp(sqlstate, "57", 2) == 0) {
        lease().failures.fetch_add(1, std::memory_order_relaxed);
        drop_connection();
        return QueryOutcome::failed;
    }
    return QueryOutcome::refused;
}

// Integers as query parameters.
struct Param {
    char text[32];
};
void param_of(Param *p, long long v) {
    snprintf(p->text, sizeof p->text, "%lld", v);
}
void param_of_unsigned(Param *p, unsigned long long v) {
    snprintf(p->text, sizeof p->text, "%llu", v);
}

int64_t unix_ms_of_id_time(uint64_t id) {
    return sf_layout.epoch_unix_ms() + static_cast<int64_t>(id >> sf_layout.timestamp_shift());
}

// The ID bound for "IDs carry times below bound_ms".
uint64_t id_bound_of(int64_t bound_unix_ms) {
    const int64_t ts =
        std::min(bound_unix_ms - sf_layout.epoch_unix_ms(), sf_layout.max_timestamp() + 1);
    return ts <= 0 ? 0 : static_cast<uint64_t>(ts) << sf_layout.timestamp_shift();
}

int64_t timestamptz_text_to_unix_ms(const char *text) {
    // The registry sends expires_at as epoch seconds (see the queries).
    return static_cast<int64_t>(strtod(text, nullptr) * 1000.0);
}

// Records the next bound with the registry; true once it has confirmed it.
// A refusal means the lease is lost.
QueryOutcome renew() {
    const int64_t sent_mono = sf_monotonic_ns();
    const int64_t ttl_ms = sf_lease_ttl_ms;
    const int64_t clock_ms = sf_generator_clock_ms();
    const int64_t bound_ms = clock_ms + ttl_ms;
    Param node, fence, instance, bound, ttl;
    param_of(&node, lease().node.load());
    param_of(&fence, lease().fence.load());
    param_of(&instance, static_cast<long long>(sf_shared->run_id >> 1));
    param_of(&bound, bound_ms);
    param_of(&ttl, ttl_ms);
    const char *params[] = {node.text, fence.text, instance.text, bound.text, ttl.text};
    PGresult *result = nullptr;
    char sqlstate[6];
    const QueryOutcome outcome =
        run_query("SELECT extract(epoch FROM snowflake_registry_renew($1, $2, $3, $4, $5))", 5,
                  params, &result, sqlstate);
    if (outcome != QueryOutcome::ok) {
        return outcome;
    }
    lease().expires_unix_ms.store(timestamptz_text_to_unix_ms(PQgetvalue(result, 0, 0)));
    PQclear(result);
    sf_raise_to(lease().below, id_bound_of(bound_ms));
    lease().deadline_mono_ns.store(sent_mono + ttl_ms * kNsPerMs);
    lease().last_ok_unix_ms.store(sf_wall_clock_ms());
    lease().renewals.fetch_add(1, std::memory_order_relaxed);
    return QueryOutcome::ok;
}

// The node id the settings ask for; -1 for 'auto'.
int64_t wanted_node() {
    if (sf_worker_id == kWorkerIdAuto) {
        return -1;
    }
    return (static_cast<int64_t>(sf_datacenter_id) << sf_layout.widths().worker_bits) |
           sf_worker_id;
}

// Leases a node id: the configured one, or for 'auto' the one the durable
// state was made with if it is free, else any.
QueryOutcome acquire() {
    LWLockAcquire(sf_shared->lock, LW_SHARED);
    const int previous_node = sf_shared->have_stored ? sf_shared->stored.node_id : -1;
    const int64_t previous_fence = sf_shared->have_stored ? sf_shared->stored.fence : 0;
    LWLockRelease(sf_shared->lock);
    const bool is_auto = sf_worker_id == kWorkerIdAuto;
    const auto &w = sf_layout.widths();
    Param requested, preferred, fence, system_id, instance, port, timeline, dc_bits, worker_bits,
        seq_bits, epoch, drift, ttl, clock;
    param_of(&requested, wanted_node());
    param_of(&preferred, previous_node);
    param_of(&fence, previous_fence);
    param_of_unsigned(&system_id, GetSystemIdentifier());
    param_of(&instance, static_cast<long long>(sf_shared->run_id >> 1));
    param_of(&port, PostPortNumber);
    param_of(&timeline, GetWALInsertionTimeLine());
    param_of(&dc_bits, w.datacenter_bits);
    param_of(&worker_bits, w.worker_bits);
    param_of(&seq_bits, w.sequence_bits);
    param_of(&epoch, sf_layout.epoch_unix_ms());
    param_of(&drift, sf_max_clock_drift_ms);
    param_of(&ttl, sf_lease_ttl_ms);
    param_of(&clock, sf_generator_clock_ms());
    const char *params[] = {is_auto ? nullptr : requested.text,
                            previous_node >= 0 ? preferred.text : nullptr,
                            previous_fence > 0 ? fence.text : nullptr,
                            system_id.text,
                            instance.text,
                            hostname,
                            port.text,
                            DataDir,
                            timeline.text,
                            dc_bits.text,
                            worker_bits.text,
                            seq_bits.text,
                            epoch.text,
                            drift.text,
                            ttl.text,
                            clock.text};
    PGresult *result = nullptr;
    char sqlstate[6];
    const QueryOutcome outcome = run_query(
        "SELECT node_id, fence, floor_ms FROM snowflake_registry_acquire($1, $2, $3, $4, $5, $6, "
        "$7, $8, $9, $10, $11, $12, $13, $14, $15, $16)",
        16, params, &result, sqlstate);
    if (outcome == QueryOutcome::refused) {
        set_status(LeaseStatus::refused);
        char text[512];
        LWLockAcquire(sf_shared->lock, LW_SHARED);
        snprintf(text, sizeof text, "%s", lease().message);
        LWLockRelease(sf_shared->lock);
        ereport(WARNING, (errmsg("snowflake_id: the registry refused a node id lease: %s", text),
                          errdetail("snowflake_nextval() refuses to issue IDs until it grants "
                                    "one; the worker asks again every %d ms.",
                                    sf_lease_ttl_ms / 3)));
    }
    if (outcome != QueryOutcome::ok) {
        return outcome;
    }
    const int64_t node = strtoll(PQgetvalue(result, 0, 0), nullptr, 10);
    const int64_t granted_fence = strtoll(PQgetvalue(result, 0, 1), nullptr, 10);
    const int64_t floor_ms = strtoll(PQgetvalue(result, 0, 2), nullptr, 10);
    PQclear(result);
    lease().node.store(node);
    lease().fence.store(granted_fence);
    sf_resume_at_lease_floor(floor_ms, node);
    ereport(LOG,
            (errmsg("snowflake_id: leased node id %lld (datacenter %lld, worker %lld) with "
                    "fence %lld",
                    static_cast<long long>(node), static_cast<long long>(node >> w.worker_bits),
                    static_cast<long long>(node & ((int64_t{1} << w.worker_bits) - 1)),
                    static_cast<long long>(granted_fence))));
    return QueryOutcome::ok;
}

void release() {
    if (status() != LeaseStatus::held) {
        return;
    }
    Param node, fence, instance, bound;
    param_of(&node, lease().node.load());
    param_of(&fence, lease().fence.load());
    param_of(&instance, static_cast<long long>(sf_shared->run_id >> 1));
    param_of(&bound, unix_ms_of_id_time(lease().below.load()));
    const char *params[] = {node.text, fence.text, instance.text, bound.text};
    // No new IDs on a lease being given back.
    set_status(LeaseStatus::waiting);
    PGresult *result = nullptr;
    char sqlstate[6];
    // The query's waits end early on a shutdown request: let this one run
    // (within its timeout), and keep the request.
    const bool stopping = shutdown_requested;
    shutdown_requested = false;
    if (run_query("SELECT snowflake_registry_release($1, $2, $3, $4)", 4, params, &result,
                  sqlstate) == QueryOutcome::ok) {
        PQclear(result);
    }
    shutdown_requested = shutdown_requested || stopping;
}

void lose_lease(LeaseStatus why) {
    set_status(why);
    lease().below.store(0);
}

}  // namespace

extern "C" void sf_registry_worker_main(Datum) {
    pqsignal(SIGHUP, SignalHandlerForConfigReload);
    pqsignal(SIGTERM, handle_sigterm);
    BackgroundWorkerUnblockSignals();
    if (gethostname(hostname, sizeof hostname) != 0) {
        snprintf(hostname, sizeof hostname, "unknown");
    }
    hostname[sizeof hostname - 1] = '\0';
    describe_registry();
    lease().auto_node.store(sf_worker_id == kWorkerIdAuto);
    if (status() == LeaseStatus::none) {
        set_status(LeaseStatus::waiting);
    }
    int64_t next_renewal = 0;  // monotonic ns
    for (;;) {
        if (shutdown_requested) {
            release();
            drop_connection();
            proc_exit(0);
        }
        if (ConfigReloadPending) {
            ConfigReloadPending = false;
            const int64_t wanted_before = wanted_node();
            ProcessConfigFile(PGC_SIGHUP);
            lease().auto_node.store(sf_worker_id == kWorkerIdAuto);
            if (wanted_node() != wanted_before && status() == LeaseStatus::held) {
                // Another static id (or 'auto') was configured: give this
                // lease back and ask for what is configured now.
                ereport(LOG, (errmsg("snowflake_id: worker_id changed; leasing a node id again")));
                release();
                lease().below.store(0);
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
        if (status() != LeaseStatus::held) {
            const QueryOutcome got = acquire();
            if (got == QueryOutcome::ok) {
                if (renew() == QueryOutcome::ok) {
                    set_status(LeaseStatus::held);
                    set_message("");
                    next_renewal = sf_monotonic_ns() + sf_lease_ttl_ms / 3 * kNsPerMs;
                    wake = next_renewal;
                }
            } else if (got == QueryOutcome::refused) {
                wake = now + sf_lease_ttl_ms / 3 * kNsPerMs;
            }
        } else if (now >= next_renewal) {
            const QueryOutcome renewed = renew();
            if (renewed == QueryOutcome::ok) {
                next_renewal = sf_monotonic_ns() + sf_lease_ttl_ms / 3 * kNsPerMs;
                wake = next_renewal;
            } else if (renewed == QueryOutcome::refused) {
                lose_lease(LeaseStatus::waiting);
                char text[512];
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
