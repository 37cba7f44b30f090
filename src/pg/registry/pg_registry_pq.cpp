// The PostgreSQL store of node id leases: a registry database where
// snowflake_id is installed, reached with libpq. Its SQL
// (snowflake_id--1.3.sql, "The registry of node ids") does each step
// atomically; this file only calls it.
//
// Every name in the queries sent is schema-qualified, operators included:
// the registry role's search_path may start with a schema another role can
// write to, whose look-alike snowflake_registry_acquire or = would
// otherwise run in place of the extension's. The extension's schema is
// looked up in pg_catalog once per connection.
//
// libpq is used as the WAL receiver and dblink use it inside a server
// process: a non-blocking connection and queries, waited on with
// WaitLatchOrSocket, so that a shutdown request, SIGHUP and the
// postmaster's death are seen at once and every network wait has a time
// limit. Only the registry worker (pg_registry.cpp) uses it.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "pg_registry.hpp"

extern "C" {
#include "libpq-fe.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/latch.h"
#include "storage/procarray.h"
}

PgRegistryStore::PgRegistryStore(const char *conninfo, volatile sig_atomic_t *stop)
    : conninfo_(conninfo), stop_(stop) {}

PgRegistryStore::~PgRegistryStore() {
    disconnect();
}

void PgRegistryStore::disconnect() {
    if (conn_ != nullptr) {
        PQfinish(conn_);
        conn_ = nullptr;
    }
    schema_[0] = '\0';
}

// A failure to reach the registry: said in *err, and the connection dropped
// so that the next call starts afresh.
snowflake::StoreOutcome PgRegistryStore::unreachable(const char *what, snowflake::Error *err) {
    const char *message = conn_ != nullptr ? PQerrorMessage(conn_) : "out of memory";
    size_t len = strlen(message);
    if (len > 0 && message[len - 1] == '\n') {  // libpq's messages end with one
        --len;
    }
    if (len == 0) {
        // A wait that ran out: libpq has nothing to say about it.
        snowflake::fail(err, snowflake::ErrorCode::registry,
                        "%s: no answer within %lld ms, or by the lease's deadline", what,
                        static_cast<long long>(kRegistryTimeoutMs));
        disconnect();
        return snowflake::StoreOutcome::unreachable;
    }
    char text[snowflake::kForeignTextMax + snowflake::kForeignCutMarkMax + 1];
    sf_registry_quote(message, len, text, sizeof text);
    snowflake::fail(err, snowflake::ErrorCode::registry, "%s: %s", what, text);
    disconnect();
    return snowflake::StoreOutcome::unreachable;
}

void sf_registry_quote(const char *text, size_t len, char *out, size_t size) {
    if (!snowflake::quote_foreign(std::string_view(text, len), out, size)) {
        ereport(LOG, (errmsg("snowflake_id: the whole text from the registry: %.*s",
                             static_cast<int>(len), text)));
    }
}

bool PgRegistryStore::wait_socket(int events, int64_t until_mono_ns) {
    return sf_registry_wait_socket(PQsocket(conn_), events, until_mono_ns, stop_);
}

snowflake::StoreOutcome PgRegistryStore::connect(snowflake::Error *err) {
    if (conn_ != nullptr) {
        return snowflake::StoreOutcome::ok;
    }
    const int64_t until = sf_registry_call_until_ns();
    conn_ = PQconnectStart(conninfo_);
    if (conn_ == nullptr || PQstatus(conn_) == CONNECTION_BAD) {
        return unreachable("could not connect", err);
    }
    PostgresPollingStatusType poll = PGRES_POLLING_WRITING;
    while (poll != PGRES_POLLING_OK) {
        if (poll == PGRES_POLLING_FAILED) {
            return unreachable("could not connect", err);
        }
        const int events = poll == PGRES_POLLING_READING ? WL_SOCKET_READABLE : WL_SOCKET_WRITEABLE;
        if (!wait_socket(events, until)) {
            return unreachable("timed out connecting", err);
        }
        poll = PQconnectPoll(conn_);
    }
    if (PQsetnonblocking(conn_, 1) != 0) {
        return unreachable("could not use the connection", err);
    }
    // A server that is its own registry (a Citus coordinator): the session
    // serving us is one of this server's backends. Held between calls, it
    // would keep a smart shutdown waiting for it forever, as for any client
    // session; so it is closed after every call (query()).
    own_server_ = BackendPidGetProc(PQbackendPID(conn_)) != nullptr;
    return snowflake::StoreOutcome::ok;
}

snowflake::StoreOutcome PgRegistryStore::find_schema(snowflake::Error *err) {
    PGresult *rows = nullptr;
    const snowflake::StoreOutcome outcome =
        run("SELECT pg_catalog.quote_ident(n.nspname) FROM pg_catalog.pg_extension e "
            "JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace "
            "WHERE e.extname OPERATOR(pg_catalog.=) 'snowflake_id'",
            0, nullptr, &rows, err);
    if (outcome != snowflake::StoreOutcome::ok) {
        return outcome;
    }
    const bool found =
        PQntuples(rows) == 1 && static_cast<size_t>(PQgetlength(rows, 0, 0)) < sizeof schema_;
    if (found) {
        memcpy(schema_, PQgetvalue(rows, 0, 0), PQgetlength(rows, 0, 0) + 1);
    }
    PQclear(rows);
    if (!found) {
        snowflake::fail(err, snowflake::ErrorCode::registry,
                        "snowflake_id is not installed in the registry's database");
        // Lower case, no period: it ends up inside a sentence ("Registry ...: <message>:
        // <detail>.").
        snowflake::set_detail(err, "run CREATE EXTENSION snowflake_id there, as a superuser");
        return snowflake::StoreOutcome::refused;
    }
    return snowflake::StoreOutcome::ok;
}

snowflake::StoreOutcome PgRegistryStore::query(const char *columns, const char *call, int nparams,
                                               const char *const *params, PGresult **rows,
                                               snowflake::Error *err) {
    *rows = nullptr;
    snowflake::StoreOutcome outcome = connect(err);
    if (outcome == snowflake::StoreOutcome::ok && schema_[0] == '\0') {
        outcome = find_schema(err);
    }
    if (outcome == snowflake::StoreOutcome::ok) {
        char sql[1024];
        const int len = snprintf(sql, sizeof sql, "SELECT %s FROM %s.%s", columns, schema_, call);
        if (len < 0 || static_cast<size_t>(len) >= sizeof sql) {
            elog(ERROR, "snowflake_id: a registry query does not fit its buffer");
        }
        outcome = run(sql, nparams, params, rows, err);
    }
    if (outcome == snowflake::StoreOutcome::refused) {
        // Looked up again before the next call: a refusal may be a schema
        // that went away (the extension dropped and made anew elsewhere).
        schema_[0] = '\0';
    }
    if (own_server_) {
        disconnect();  // connect() says why; the result outlives the connection
    }
    return outcome;
}

snowflake::StoreOutcome PgRegistryStore::run(const char *sql, int nparams,
                                             const char *const *params, PGresult **rows,
                                             snowflake::Error *err) {
    *rows = nullptr;
    const int64_t until = sf_registry_call_until_ns();
    if (!PQsendQueryParams(conn_, sql, nparams, nullptr, params, nullptr, nullptr, 0)) {
        return unreachable("could not send a query", err);
    }
    for (;;) {  // flush what is queued
        const int flushed = PQflush(conn_);
        if (flushed == 0) {
            break;
        }
        if (flushed < 0 || !wait_socket(WL_SOCKET_WRITEABLE, until)) {
            return unreachable("could not send a query", err);
        }
    }
    PGresult *last = nullptr;
    for (;;) {
        while (PQisBusy(conn_)) {
            if (!wait_socket(WL_SOCKET_READABLE, until) || !PQconsumeInput(conn_)) {
                if (last != nullptr) {
                    PQclear(last);
                }
                return unreachable("no answer to a query", err);
            }
        }
        PGresult *r = PQgetResult(conn_);
        if (r == nullptr) {
            break;
        }
        if (last != nullptr) {
            PQclear(last);
        }
        last = r;
    }
    if (last == nullptr) {
        return unreachable("no answer to a query", err);
    }
    if (PQresultStatus(last) == PGRES_TUPLES_OK) {
        *rows = last;
        return snowflake::StoreOutcome::ok;
    }
    const char *state = PQresultErrorField(last, PG_DIAG_SQLSTATE);
    const char *primary = PQresultErrorField(last, PG_DIAG_MESSAGE_PRIMARY);
    const char *detail = PQresultErrorField(last, PG_DIAG_MESSAGE_DETAIL);
    // The registry's own texts fit whole (error.hpp); others are marked
    // where cut, and logged.
    snowflake::fail(err, snowflake::ErrorCode::registry, "%s", "");
    const char *message = primary != nullptr ? primary : PQresultErrorMessage(last);
    sf_registry_quote(message, strlen(message), err->message, sizeof err->message);
    if (detail != nullptr) {
        sf_registry_quote(detail, strlen(detail), err->detail, sizeof err->detail);
    }
    // A class 08 (connection) or 57 (operator intervention: the registry
    // shutting down) error is the network's, not the registry's answer.
    const bool network =
        state != nullptr && (strncmp(state, "08", 2) == 0 || strncmp(state, "57", 2) == 0);
    PQclear(last);
    if (network) {
        disconnect();
        return snowflake::StoreOutcome::unreachable;
    }
    return snowflake::StoreOutcome::refused;
}

namespace {

// A grant from the first three columns of an acquire or a switch.
void read_grant(PGresult *rows, snowflake::LeaseGrant *grant) {
    grant->node = strtoll(PQgetvalue(rows, 0, 0), nullptr, 10);
    grant->fence = strtoll(PQgetvalue(rows, 0, 1), nullptr, 10);
    grant->floor_unix_ms = strtoll(PQgetvalue(rows, 0, 2), nullptr, 10);
}

}  // namespace

snowflake::StoreOutcome PgRegistryStore::acquire(const snowflake::LeaseRequest &request,
                                                 snowflake::LeaseGrant *grant,
                                                 snowflake::Error *err) {
    const AcquireArgs args(request, nullptr);
    PGresult *rows = nullptr;
    const snowflake::StoreOutcome outcome =
        query("node_id, fence, floor_ms",
              "snowflake_registry_acquire($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, "
              "$14, $15, $16)",
              AcquireArgs::kCount, args.values(), &rows, err);
    if (outcome != snowflake::StoreOutcome::ok) {
        return outcome;
    }
    read_grant(rows, grant);
    PQclear(rows);
    return snowflake::StoreOutcome::ok;
}

snowflake::StoreOutcome PgRegistryStore::renew(int64_t node, int64_t fence, int64_t instance,
                                               int64_t bound_unix_ms, int64_t ttl_ms,
                                               int64_t *expires_unix_ms, snowflake::Error *err) {
    const RenewArgs args(node, fence, instance, bound_unix_ms, ttl_ms);
    PGresult *rows = nullptr;
    const snowflake::StoreOutcome outcome =
        query("(extract(epoch FROM r) OPERATOR(pg_catalog.*) 1000)::bigint",
              "snowflake_registry_renew($1, $2, $3, $4, $5) r", RenewArgs::kCount, args.values(),
              &rows, err);
    if (outcome != snowflake::StoreOutcome::ok) {
        return outcome;
    }
    *expires_unix_ms = strtoll(PQgetvalue(rows, 0, 0), nullptr, 10);
    PQclear(rows);
    return snowflake::StoreOutcome::ok;
}

snowflake::StoreOutcome PgRegistryStore::release(int64_t node, int64_t fence, int64_t instance,
                                                 int64_t bound_unix_ms, snowflake::Error *err) {
    const ReleaseArgs args(node, fence, instance, bound_unix_ms);
    PGresult *rows = nullptr;
    const snowflake::StoreOutcome outcome =
        query("r", "snowflake_registry_release($1, $2, $3, $4) r", ReleaseArgs::kCount,
              args.values(), &rows, err);
    if (rows != nullptr) {
        PQclear(rows);
    }
    return outcome;
}

snowflake::StoreOutcome PgRegistryStore::switch_node(const snowflake::SwitchRequest &request,
                                                     snowflake::LeaseGrant *grant,
                                                     int64_t *expires_unix_ms,
                                                     snowflake::Error *err) {
    const SwitchArgs args(request);
    PGresult *rows = nullptr;
    const snowflake::StoreOutcome outcome = query(
        "new_node_id, new_fence, floor_ms, "
        "(extract(epoch FROM expires_at) OPERATOR(pg_catalog.*) 1000)::bigint",
        "snowflake_registry_switch($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
        SwitchArgs::kCount, args.values(), &rows, err);
    if (outcome != snowflake::StoreOutcome::ok) {
        return outcome;
    }
    read_grant(rows, grant);
    *expires_unix_ms = strtoll(PQgetvalue(rows, 0, 3), nullptr, 10);
    PQclear(rows);
    return snowflake::StoreOutcome::ok;
}
