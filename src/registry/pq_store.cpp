// The PostgreSQL store of node id leases: a registry database where
// snowflake_id is installed, reached with libpq. A call reads the
// registry's clock, the layout and the leases the rule needs as one
// snapshot, without a lock; lets the core's rule decide
// (src/core/lease_rules.hpp); and writes what it decided in one statement
// that writes only if every record it writes is still exactly as read (its
// row's text). The loop around them is the core's
// (src/core/registry_call.hpp). The write waits only for writes of the same records (an
// advisory lock per node id) and for servers before 1.6, which lock the
// whole table (write_if_unchanged() says how); no lock is held across a
// round trip, so calls are not served one per round trip, and renewals of
// different ids commit side by side. When another call changed a record
// between the read and the write, nothing is written and the call reads
// and decides again; an 'auto' acquire then spreads its choice
// (LeaseRequest::spread), so that servers starting at once stop racing for
// the same id. Nothing of the rules is here or in the SQL.
//
// Every name in the statements sent is schema-qualified, operators and
// types included: the registry role's search_path may start with a schema
// another role can write to, whose look-alike snowflake_registry_lease, =
// or text would otherwise be used in place of the extension's. The two
// tables are looked up in pg_catalog once per connection, as members of
// the extension: wherever the registry's version keeps them (the
// extension's schema up to 1.5, the schema snowflake_id from 1.6, so that
// a server updated first works with the registry before and after its
// update), and never a table of the same name that is no member (a
// look-alike left in the extension's schema, where 1.5 kept them).
//
// libpq is used as the WAL receiver and dblink use it inside a server
// process: a non-blocking connection, waited on through the environment
// (registry_env.hpp; the worker's waits in its latch, so that a shutdown
// request, SIGHUP and the postmaster's death are seen at once), and every
// network wait has a time limit. The statements go in pipeline mode, with
// their parameters: the read is one round trip, the write and its COMMIT
// another.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/lease_rules.hpp"
#include "core/secrets.hpp"
#include "stores.hpp"

extern "C" {
#include "libpq-fe.h"
}

PgRegistryStore::PgRegistryStore(const char *conninfo, snowflake::RegistryEnv *env)
    : conninfo_(conninfo), env_(env) {}

PgRegistryStore::~PgRegistryStore() {
    disconnect();
}

void PgRegistryStore::disconnect() {
    if (conn_ != nullptr) {
        PQfinish(conn_);
        conn_ = nullptr;
    }
    connecting_ = false;
    draining_ = false;
    lease_table_.clear();
    layout_table_.clear();
    timeline_table_.clear();
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
                        static_cast<long long>(snowflake::kRegistryTimeoutMs));
        disconnect();
        return snowflake::StoreOutcome::unreachable;
    }
    // libpq may quote the connection string, password and all.
    char masked[4 * snowflake::kForeignTextMax];
    snowflake::mask_secrets(std::string_view(message, len), masked, sizeof masked);
    char text[snowflake::kForeignTextMax + snowflake::kForeignCutMarkMax + 1];
    snowflake::registry_quote(env_, masked, strlen(masked), text, sizeof text);
    snowflake::fail(err, snowflake::ErrorCode::registry, "%s: %s", what, text);
    disconnect();
    return snowflake::StoreOutcome::unreachable;
}

void snowflake::registry_quote(RegistryEnv *env, const char *text, size_t len, char *out,
                               size_t size) {
    if (!quote_foreign(std::string_view(text, len), out, size)) {
        env->log_whole_text(text, len);
    }
}

bool PgRegistryStore::wait_socket(snowflake::SocketWait wait, int64_t until_mono_ns) {
    return env_->wait_socket(PQsocket(conn_), wait, until_mono_ns);
}

snowflake::StoreOutcome PgRegistryStore::connect(snowflake::Error *err) {
    if (conn_ != nullptr && !connecting_) {
        return snowflake::StoreOutcome::ok;
    }
    const int64_t until = env_->call_until_ns();
    // A connection attempt still under way when a call ran out of time is
    // taken up by the next call, not abandoned: the registry accepts
    // connections one after another, and one given up on still costs it a
    // backend to start and end. A thousand servers starting at once and
    // starting over every few seconds would keep its queue full of
    // connections nobody waits for. An attempt that has not got through in
    // kPendingConnectMs (a host that took the connection and never
    // answered) starts over.
    if (conn_ != nullptr &&
        env_->monotonic_ns() - connect_started_ns_ > kPendingConnectMs * snowflake::kNsPerMs) {
        disconnect();
    }
    if (conn_ == nullptr) {
        conn_ = PQconnectStart(conninfo_);
        if (conn_ == nullptr || PQstatus(conn_) == CONNECTION_BAD) {
            return unreachable("could not connect", err);
        }
        connecting_ = true;
        connect_poll_ = PGRES_POLLING_WRITING;
        connect_started_ns_ = env_->monotonic_ns();
    }
    while (connect_poll_ != PGRES_POLLING_OK) {
        if (connect_poll_ == PGRES_POLLING_FAILED) {
            return unreachable("could not connect", err);
        }
        const snowflake::SocketWait wait = connect_poll_ == PGRES_POLLING_READING
                                               ? snowflake::SocketWait::readable
                                               : snowflake::SocketWait::writable;
        if (!wait_socket(wait, until)) {
            snowflake::fail(err, snowflake::ErrorCode::registry,
                            "timed out connecting: no answer within %lld ms, or by the lease's "
                            "deadline; the attempt goes on with the next call",
                            static_cast<long long>(snowflake::kRegistryTimeoutMs));
            if (env_->stopping()) {
                disconnect();
            }
            return snowflake::StoreOutcome::unreachable;
        }
        connect_poll_ = PQconnectPoll(conn_);
    }
    connecting_ = false;
    if (PQsetnonblocking(conn_, 1) != 0 || !PQenterPipelineMode(conn_)) {
        return unreachable("could not use the connection", err);
    }
    // A server that is its own registry (a Citus coordinator): the session
    // serving us is one of this server's backends. Held between calls, it
    // would keep a smart shutdown waiting for it forever, as for any client
    // session; so it is closed after every call (end_call()).
    own_server_ = env_->is_own_backend(PQbackendPID(conn_));
    return snowflake::StoreOutcome::ok;
}

bool PgRegistryStore::next_result(int64_t until_mono_ns, PGresult **result) {
    *result = nullptr;
    while (PQisBusy(conn_)) {
        if (!wait_socket(snowflake::SocketWait::readable, until_mono_ns) ||
            !PQconsumeInput(conn_)) {
            return false;
        }
    }
    *result = PQgetResult(conn_);
    return true;
}

// A pipeline whose answer did not come within the call's time (a registry
// cut off, or too busy to answer): the connection is kept, and the next
// call reads the late answers first (drain()). Dropped, it would be paid
// for again with a new backend when the registry comes back, by every
// server at once.
snowflake::StoreOutcome PgRegistryStore::left_pending(int count, PGresult **results,
                                                      snowflake::Error *err) {
    for (int i = 0; i < count; ++i) {
        if (results[i] != nullptr) {
            PQclear(results[i]);
            results[i] = nullptr;
        }
    }
    if (env_->stopping()) {
        return unreachable("no answer to a query", err);
    }
    draining_ = true;
    snowflake::fail(err, snowflake::ErrorCode::registry,
                    "no answer to a query within %lld ms, or by the lease's deadline; the "
                    "connection waits for it",
                    static_cast<long long>(snowflake::kRegistryTimeoutMs));
    return snowflake::StoreOutcome::unreachable;
}

snowflake::StoreOutcome PgRegistryStore::flush_queued(int count, PGresult **results,
                                                      int64_t until_mono_ns,
                                                      snowflake::Error *err) {
    for (;;) {
        const int flushed = PQflush(conn_);
        if (flushed == 0) {
            return snowflake::StoreOutcome::ok;
        }
        if (flushed < 0) {
            return unreachable("could not send a query", err);
        }
        if (!wait_socket(snowflake::SocketWait::writable, until_mono_ns)) {
            return left_pending(count, results, err);
        }
    }
}

snowflake::StoreOutcome PgRegistryStore::drain(int64_t until_mono_ns, snowflake::Error *err) {
    // What the last call could not send yet.
    const snowflake::StoreOutcome flushed = flush_queued(0, nullptr, until_mono_ns, err);
    if (flushed != snowflake::StoreOutcome::ok) {
        return flushed;
    }
    // Every answer up to the pipeline's sync, whatever it says: the call
    // that sent it reported no outcome, and the rules make a late one
    // harmless (a late grant is this run's to ask for again, a late
    // renewal only moves an expiry the server does not count on).
    for (;;) {
        PGresult *r = nullptr;
        if (!next_result(until_mono_ns, &r)) {
            return PQstatus(conn_) == CONNECTION_OK ? left_pending(0, nullptr, err)
                                                    : unreachable("no answer to a query", err);
        }
        const bool sync = r != nullptr && PQresultStatus(r) == PGRES_PIPELINE_SYNC;
        if (r != nullptr) {
            PQclear(r);
        }
        if (sync) {
            break;
        }
    }
    draining_ = false;
    if (PQtransactionStatus(conn_) != PQTRANS_IDLE) {
        const Statement rollback = {"ROLLBACK", 0, nullptr};
        PGresult *done = nullptr;
        const snowflake::StoreOutcome outcome = exchange(1, &rollback, &done, until_mono_ns, err);
        if (outcome != snowflake::StoreOutcome::ok) {
            return outcome;
        }
        PQclear(done);
    }
    return snowflake::StoreOutcome::ok;
}

snowflake::StoreOutcome PgRegistryStore::exchange(int count, const Statement *statements,
                                                  PGresult **results, int64_t until_mono_ns,
                                                  snowflake::Error *err) {
    table_missing_ = false;
    for (int i = 0; i < count; ++i) {
        results[i] = nullptr;
    }
    for (int i = 0; i < count; ++i) {
        if (!PQsendQueryParams(conn_, statements[i].sql, statements[i].nparams, nullptr,
                               statements[i].params, nullptr, nullptr, 0)) {
            return unreachable("could not send a query", err);
        }
    }
    if (!PQpipelineSync(conn_)) {
        return unreachable("could not send a query", err);
    }
    const snowflake::StoreOutcome flushed = flush_queued(count, results, until_mono_ns, err);
    if (flushed != snowflake::StoreOutcome::ok) {
        return flushed;
    }
    // Each statement's result is followed by a null; the sync's result comes
    // last. After an error, the statements after it are aborted.
    PGresult *failed = nullptr;
    bool answered = true;
    for (int i = 0; i < count && answered; ++i) {
        PGresult *r = nullptr;
        answered = next_result(until_mono_ns, &r) && r != nullptr;
        if (!answered) {
            break;
        }
        const ExecStatusType status = PQresultStatus(r);
        if (status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK) {
            results[i] = r;
        } else if (failed == nullptr && status != PGRES_PIPELINE_ABORTED) {
            failed = r;
        } else {
            PQclear(r);
        }
        while ((answered = next_result(until_mono_ns, &r)) && r != nullptr) {
            PQclear(r);
        }
    }
    if (answered) {
        PGresult *r = nullptr;
        answered = next_result(until_mono_ns, &r) && r != nullptr &&
                   PQresultStatus(r) == PGRES_PIPELINE_SYNC;
        if (r != nullptr) {
            PQclear(r);
        }
    }
    if (failed == nullptr && answered) {
        return snowflake::StoreOutcome::ok;
    }
    for (int i = 0; i < count; ++i) {
        if (results[i] != nullptr) {
            PQclear(results[i]);
            results[i] = nullptr;
        }
    }
    if (failed == nullptr) {
        return PQstatus(conn_) == CONNECTION_OK ? left_pending(count, results, err)
                                                : unreachable("no answer to a query", err);
    }
    const char *state = PQresultErrorField(failed, PG_DIAG_SQLSTATE);
    const char *primary = PQresultErrorField(failed, PG_DIAG_MESSAGE_PRIMARY);
    const char *detail = PQresultErrorField(failed, PG_DIAG_MESSAGE_DETAIL);
    // The registry's own texts fit whole (error.hpp); others are marked
    // where cut, and logged.
    snowflake::fail(err, snowflake::ErrorCode::registry, "%s", "");
    const char *message = primary != nullptr ? primary : PQresultErrorMessage(failed);
    snowflake::registry_quote(env_, message, strlen(message), err->message, sizeof err->message);
    if (detail != nullptr) {
        snowflake::registry_quote(env_, detail, strlen(detail), err->detail, sizeof err->detail);
    }
    // A class 08 (connection) or 57 (operator intervention: the registry
    // shutting down) error is the network's, not the registry's answer; so
    // is 55P03, the lock on the leases not granted within the call's time
    // (another session holds it).
    const bool network =
        state != nullptr && (strncmp(state, "08", 2) == 0 || strncmp(state, "57", 2) == 0 ||
                             strcmp(state, "55P03") == 0);
    table_missing_ = state != nullptr && strcmp(state, "42P01") == 0;  // undefined_table
    const bool lock_timeout = state != nullptr && strcmp(state, "55P03") == 0;
    PQclear(failed);
    // A lock not granted in time leaves a sound connection: its transaction
    // is rolled back and the connection kept, so that a busy registry is
    // not also asked for a new backend by every call that waited.
    if (lock_timeout) {
        const Statement rollback = {"ROLLBACK", 0, nullptr};
        PGresult *done = nullptr;
        snowflake::Error rollback_err;
        if (exchange(1, &rollback, &done, until_mono_ns, &rollback_err) ==
            snowflake::StoreOutcome::ok) {
            PQclear(done);
            return snowflake::StoreOutcome::unreachable;
        }
    }
    // A transaction the error left open and aborted ends with the
    // connection; so do the tables' names, if they went away (moved by an
    // update, or the extension dropped and made anew elsewhere): they are
    // looked up again on the next one.
    disconnect();
    return network ? snowflake::StoreOutcome::unreachable : snowflake::StoreOutcome::refused;
}

snowflake::StoreOutcome PgRegistryStore::find_tables(int64_t until_mono_ns, snowflake::Error *err) {
    // One row per table found, or one row with no table: the extension's
    // version says why. The literals are names, "char"s and a regclass,
    // compared by pg_catalog's operators.
    const Statement lookup = {
        "SELECT e.extversion, c.relname, pg_catalog.format('%I.%I', n.nspname, c.relname) "
        "FROM pg_catalog.pg_extension e LEFT JOIN (pg_catalog.pg_depend d "
        "JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) d.objid "
        "JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace) "
        "ON d.refclassid OPERATOR(pg_catalog.=) "
        "'pg_catalog.pg_extension'::pg_catalog.regclass::pg_catalog.oid "
        "AND d.refobjid OPERATOR(pg_catalog.=) e.oid "
        "AND d.classid OPERATOR(pg_catalog.=) "
        "'pg_catalog.pg_class'::pg_catalog.regclass::pg_catalog.oid "
        "AND d.deptype OPERATOR(pg_catalog.=) 'e' AND c.relkind OPERATOR(pg_catalog.=) 'r' "
        "AND (c.relname OPERATOR(pg_catalog.=) 'snowflake_registry_lease' "
        "OR c.relname OPERATOR(pg_catalog.=) 'snowflake_registry_layout' "
        "OR c.relname OPERATOR(pg_catalog.=) 'snowflake_registry_timeline') "
        "WHERE e.extname OPERATOR(pg_catalog.=) 'snowflake_id'",
        0, nullptr};
    PGresult *rows = nullptr;
    const snowflake::StoreOutcome outcome = exchange(1, &lookup, &rows, until_mono_ns, err);
    if (outcome != snowflake::StoreOutcome::ok) {
        return outcome;
    }
    if (PQntuples(rows) == 0) {
        PQclear(rows);
        snowflake::fail(err, snowflake::ErrorCode::registry,
                        "snowflake_id is not installed in the registry's database");
        // Lower case, no period: it ends up inside a sentence ("Registry ...: <message>:
        // <detail>.").
        snowflake::set_detail(err, "run CREATE EXTENSION snowflake_id there, as a superuser");
        return snowflake::StoreOutcome::refused;
    }
    for (int row = 0; row < PQntuples(rows); ++row) {
        if (PQgetisnull(rows, row, 1)) {
            continue;
        }
        const char *name = PQgetvalue(rows, row, 1);
        (strcmp(name, "snowflake_registry_lease") == 0      ? lease_table_
         : strcmp(name, "snowflake_registry_timeline") == 0 ? timeline_table_
                                                            : layout_table_) =
            PQgetvalue(rows, row, 2);
    }
    const char *missing = lease_table_.empty()    ? "snowflake_registry_lease"
                          : layout_table_.empty() ? "snowflake_registry_layout"
                                                  : nullptr;
    if (missing != nullptr) {
        // Before 1.3, the extension had no registry.
        snowflake::fail(err, snowflake::ErrorCode::registry,
                        "snowflake_id %s in the registry's database has no table %s",
                        PQgetvalue(rows, 0, 0), missing);
        snowflake::set_detail(err,
                              "update it there (ALTER EXTENSION snowflake_id UPDATE), as a "
                              "superuser");
        PQclear(rows);
        disconnect();
        return snowflake::StoreOutcome::refused;
    }
    PQclear(rows);
    return snowflake::StoreOutcome::ok;
}

namespace {

// A timestamptz column as ms since 1970: down (floor) or up (ceil). A
// lease's end is read up and the registry's clock down, so that no lease
// looks over before it is (lease_rules.hpp).
std::string ms_of(const char *rounding, const char *column) {
    return std::string("pg_catalog.") + rounding + "(EXTRACT(epoch FROM " + column +
           ") OPERATOR(pg_catalog.*) 1000)::bigint";
}

// Parameter n (ms since 1970) as a timestamptz, exactly.
std::string time_of(int n) {
    return "('epoch'::pg_catalog.timestamptz OPERATOR(pg_catalog.+) ($" + std::to_string(n) +
           "::bigint OPERATOR(pg_catalog.*) '1 ms'::interval))";
}

int64_t int_at(PGresult *rows, int row, int column) {
    return strtoll(PQgetvalue(rows, row, column), nullptr, 10);
}

int64_t ms_at(PGresult *rows, int row, int column) {
    return PQgetisnull(rows, row, column) ? 0 : int_at(rows, row, column);
}

// The lease columns, written and read in this order.
constexpr const char *kLeaseColumns[] = {"node_id",
                                         "fence",
                                         "holder_system_id",
                                         "holder_instance",
                                         "holder_host",
                                         "holder_port",
                                         "holder_data_directory",
                                         "holder_timeline",
                                         "holder_max_clock_drift_ms",
                                         "acquired_at",
                                         "renewed_at",
                                         "expires_at",
                                         "released_at",
                                         "reserved_until_ms"};
constexpr int kLeaseColumnCount = sizeof kLeaseColumns / sizeof kLeaseColumns[0];
// Their types as parameters; times are ms, written by time_of().
constexpr const char *kLeaseTypes[] = {"integer",         "bigint",          "pg_catalog.numeric",
                                       "bigint",          "pg_catalog.text", "integer",
                                       "pg_catalog.text", "integer",         "bigint",
                                       nullptr,           nullptr,           nullptr,
                                       nullptr,           "bigint"};

snowflake::LeaseRecord lease_at(PGresult *rows, int row) {
    snowflake::LeaseRecord l;
    l.node = int_at(rows, row, 0);
    l.fence = int_at(rows, row, 1);
    l.holder_system_id = strtoull(PQgetvalue(rows, row, 2), nullptr, 10);
    l.holder_instance = int_at(rows, row, 3);
    l.holder_host = PQgetvalue(rows, row, 4);
    l.holder_port = static_cast<int>(int_at(rows, row, 5));
    l.holder_data_directory = PQgetvalue(rows, row, 6);
    l.holder_timeline = static_cast<int>(int_at(rows, row, 7));
    l.holder_max_clock_drift_ms = int_at(rows, row, 8);
    l.acquired_at_ms = int_at(rows, row, 9);
    l.renewed_at_ms = int_at(rows, row, 10);
    l.expires_at_ms = int_at(rows, row, 11);
    l.released_at_ms = ms_at(rows, row, 12);
    l.reserved_until_ms = int_at(rows, row, 13);
    return l;
}

// A statement's parameters as text; absent ones are NULL.
class Params {
  public:
    int add(int64_t v) { return add_text(std::to_string(v)); }
    int add_unsigned(uint64_t v) { return add_text(std::to_string(v)); }
    int add_text(std::string v) {
        texts_.push_back(std::move(v));
        present_.push_back(true);
        return static_cast<int>(texts_.size());
    }
    int add_null() {
        texts_.emplace_back();
        present_.push_back(false);
        return static_cast<int>(texts_.size());
    }
    int count() const { return static_cast<int>(texts_.size()); }
    // Valid until the next add.
    const char *const *values() {
        values_.clear();
        for (size_t i = 0; i < texts_.size(); ++i) {
            values_.push_back(present_[i] ? texts_[i].c_str() : nullptr);
        }
        return values_.data();
    }

  private:
    std::vector<std::string> texts_;
    std::vector<bool> present_;
    std::vector<const char *> values_;
};

void add_lease(const snowflake::LeaseRecord &l, Params *p) {
    p->add(l.node);
    p->add(l.fence);
    p->add_unsigned(l.holder_system_id);
    p->add(l.holder_instance);
    p->add_text(l.holder_host);
    p->add(l.holder_port);
    p->add_text(l.holder_data_directory);
    p->add(l.holder_timeline);
    p->add(l.holder_max_clock_drift_ms);
    p->add(l.acquired_at_ms);
    p->add(l.renewed_at_ms);
    p->add(l.expires_at_ms);
    if (l.released_at_ms != 0) {
        p->add(l.released_at_ms);
    } else {
        p->add_null();
    }
    p->add(l.reserved_until_ms);
}

// One statement that merges `records` into the registry's timelines as
// lease_rules.hpp's merge_timeline() does (the position and the wait only
// rise, a successor once recorded stays); empty if there are none. With
// `if_unchanged`, only where the WITH query `unchanged` of the statement it
// goes into says ok.
std::string timeline_merge(const std::string &table,
                           const std::vector<snowflake::TimelineRecord> &records, Params *p,
                           bool if_unchanged) {
    if (records.empty() || table.empty()) {
        return {};
    }
    std::string sql = "INSERT INTO " + table +
                      " AS t (system_id, timeline, wal_position, superseded_by, superseded_at, "
                      "superseded_by_holder, resume_at_ms) " +
                      (if_unchanged ? "SELECT v.* FROM (VALUES " : "VALUES ");
    for (size_t i = 0; i < records.size(); ++i) {
        const snowflake::TimelineRecord &r = records[i];
        const int first = p->add_unsigned(r.system_id);
        p->add(r.timeline);
        p->add(r.position);
        if (r.superseded_by != 0) {
            p->add(r.superseded_by);
            p->add(r.superseded_at_ms);
            p->add_text(r.superseded_by_holder);
        } else {
            p->add_null();
            p->add_null();
            p->add_null();
        }
        p->add(r.resume_at_ms);
        const auto n = [&](int k) { return "$" + std::to_string(first + k); };
        sql += std::string(i == 0 ? "" : ", ") + "(" + n(0) + "::pg_catalog.numeric, " + n(1) +
               "::integer, " + n(2) + "::bigint, " + n(3) + "::integer, " + time_of(first + 4) +
               ", " + n(5) + "::pg_catalog.text, " + n(6) + "::bigint)";
    }
    if (if_unchanged) {
        sql += ") v, unchanged WHERE unchanged.ok";
    }
    sql +=
        " ON CONFLICT (system_id, timeline) DO UPDATE SET wal_position = "
        "GREATEST(t.wal_position, EXCLUDED.wal_position), superseded_by = "
        "COALESCE(t.superseded_by, EXCLUDED.superseded_by), superseded_at = CASE WHEN "
        "t.superseded_by IS NULL THEN EXCLUDED.superseded_at ELSE t.superseded_at END, "
        "superseded_by_holder = CASE WHEN t.superseded_by IS NULL THEN "
        "EXCLUDED.superseded_by_holder ELSE t.superseded_by_holder END, resume_at_ms = "
        "GREATEST(t.resume_at_ms, EXCLUDED.resume_at_ms)";
    return sql;
}

}  // namespace

// A wait for a lock ends with the call: a backend left queued on it after
// the call gave up would hold a connection slot until the lock is let go,
// and every retry would queue one more.
std::string PgRegistryStore::lock_timeout_setting(int64_t until_mono_ns) {
    const int64_t left_ms =
        std::max<int64_t>(1, (until_mono_ns - env_->monotonic_ns()) / snowflake::kNsPerMs);
    return "SET LOCAL lock_timeout = " + std::to_string(left_ms);
}

snowflake::StoreOutcome PgRegistryStore::read_snapshot(
    int64_t node, int64_t until_mono_ns, snowflake::RegistryView *view,
    std::vector<std::pair<int64_t, std::string>> *row_texts, snowflake::Error *err) {
    const std::string clock_and_layout =
        "SELECT " + ms_of("floor", "c.now") +
        ", l.datacenter_bits, l.worker_bits, l.sequence_bits, l.epoch_ms, " +
        ms_of("floor", "l.recorded_at") +
        ", l.recorded_by FROM (VALUES (pg_catalog.clock_timestamp())) c (now) LEFT JOIN " +
        layout_table_ + " l ON true";
    std::string leases = "SELECT ";
    for (int i = 0; i < kLeaseColumnCount; ++i) {
        const char *c = kLeaseColumns[i];
        leases += i == 0 ? "" : ", ";
        leases += kLeaseTypes[i] != nullptr ? std::string("l.") + c
                  : strcmp(c, "expires_at") == 0 || strcmp(c, "released_at") == 0
                      ? ms_of("ceil", (std::string("l.") + c).c_str())
                      : ms_of("floor", (std::string("l.") + c).c_str());
    }
    // The holder's position, where the registry keeps one (from 1.7) and
    // the holder's own run recorded it: a server before 1.7 that took the
    // row over left the previous holder's there.
    const bool positions = !timeline_table_.empty();
    leases += positions ? ", CASE WHEN l.wal_position_instance OPERATOR(pg_catalog.=) "
                          "l.holder_instance THEN l.holder_wal_position ELSE 0 END"
                        : ", 0";
    // The whole row as text, exactly (microseconds and all), for the write
    // to tell whether it is unchanged.
    leases += ", l::pg_catalog.text FROM " + lease_table_ + " l";
    const std::string node_text = std::to_string(node);
    const char *node_param = node_text.c_str();
    if (node >= 0) {
        leases += " WHERE l.node_id OPERATOR(pg_catalog.=) $1::integer";
    }
    // One snapshot for the clock, the layout and the leases, whatever the
    // role's default isolation: every call committed before the clock was
    // read is seen, none after. No lock: what the rule decides on this is
    // written only if the records it writes are still as read.
    // The read waits for no one but a change of the tables themselves (an
    // update of the extension moving them); that wait too ends with the
    // call (lock_timeout_setting()).
    const std::string lock_timeout = lock_timeout_setting(until_mono_ns);
    // The asking server's system's timelines (none before 1.7: an empty
    // result of the same shape).
    const std::string system_text = std::to_string(timelines_of_);
    const char *system_param = system_text.c_str();
    const std::string timelines =
        positions
            ? "SELECT t.timeline, t.wal_position, COALESCE(t.superseded_by, 0), " +
                  ms_of("floor", "t.superseded_at") +
                  ", COALESCE(t.superseded_by_holder, ''), t.resume_at_ms FROM " + timeline_table_ +
                  " t WHERE t.system_id OPERATOR(pg_catalog.=) $1::pg_catalog.numeric"
            : "SELECT 0, 0, 0, 0, '', 0 WHERE $1::pg_catalog.numeric IS NULL";
    const Statement statements[] = {
        {"BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY", 0, nullptr},
        {lock_timeout.c_str(), 0, nullptr},
        {clock_and_layout.c_str(), 0, nullptr},
        {leases.c_str(), node >= 0 ? 1 : 0, node >= 0 ? &node_param : nullptr},
        {timelines.c_str(), 1, &system_param},
        {"COMMIT", 0, nullptr},
    };
    constexpr int kCount = sizeof statements / sizeof statements[0];
    PGresult *results[kCount];
    const snowflake::StoreOutcome outcome =
        exchange(kCount, statements, results, until_mono_ns, err);
    if (outcome != snowflake::StoreOutcome::ok) {
        return outcome;
    }
    PGresult *head = results[2];
    view->now_ms = int_at(head, 0, 0);
    if (!PQgetisnull(head, 0, 1)) {
        snowflake::LayoutRecord layout;
        layout.datacenter_bits = static_cast<int>(int_at(head, 0, 1));
        layout.worker_bits = static_cast<int>(int_at(head, 0, 2));
        layout.sequence_bits = static_cast<int>(int_at(head, 0, 3));
        layout.epoch_ms = int_at(head, 0, 4);
        layout.recorded_at_ms = int_at(head, 0, 5);
        layout.recorded_by = PQgetvalue(head, 0, 6);
        view->layout = layout;
    }
    row_texts->clear();
    for (int row = 0; row < PQntuples(results[3]); ++row) {
        view->leases.push_back(lease_at(results[3], row));
        view->leases.back().holder_wal_position = int_at(results[3], row, kLeaseColumnCount);
        row_texts->emplace_back(view->leases.back().node,
                                PQgetvalue(results[3], row, kLeaseColumnCount + 1));
    }
    view->keeps_timelines = positions;
    for (int row = 0; row < PQntuples(results[4]); ++row) {
        snowflake::TimelineRecord t;
        t.system_id = timelines_of_;
        t.timeline = static_cast<int>(int_at(results[4], row, 0));
        t.position = int_at(results[4], row, 1);
        t.superseded_by = static_cast<int>(int_at(results[4], row, 2));
        t.superseded_at_ms = ms_at(results[4], row, 3);
        t.superseded_by_holder = PQgetvalue(results[4], row, 4);
        t.resume_at_ms = int_at(results[4], row, 5);
        view->timelines.push_back(t);
    }
    // The tables keep every record: none is dropped, none can be lost
    // unnoticed.
    view->can_lose_data = false;
    view->never_leased_from = 0;
    for (PGresult *r : results) {
        PQclear(r);
    }
    return snowflake::StoreOutcome::ok;
}

snowflake::StoreOutcome PgRegistryStore::write_if_unchanged(
    const snowflake::RegistryWrites &writes, const snowflake::RegistryView &view,
    uint64_t system_id, const std::vector<std::pair<int64_t, std::string>> &row_texts,
    int64_t until_mono_ns, bool *written, snowflake::Error *err) {
    *written = false;
    // A PostgreSQL registry keeps its records, so the rules give it no loss
    // guard and drop no record (RegistryView::can_lose_data is false); a
    // layout comes with a grant.
    Params params;
    std::vector<int64_t> nodes;
    for (const snowflake::LeaseRecord &l : writes.leases) {
        nodes.push_back(l.node);
    }
    std::sort(nodes.begin(), nodes.end());
    // The rows the write depends on: those it writes, and for an acquire or
    // a switch (system_id set) every lease of the asking server's system,
    // which the rules read to fence an old primary or refuse one; as read,
    // their texts in node id order, joined as string_agg() joins them
    // below, NULL if none was there.
    std::vector<int64_t> covered = nodes;
    if (system_id != 0) {
        for (const snowflake::LeaseRecord &l : view.leases) {
            if (l.holder_system_id == system_id) {
                covered.push_back(l.node);
            }
        }
        std::sort(covered.begin(), covered.end());
        covered.erase(std::unique(covered.begin(), covered.end()), covered.end());
    }
    std::string node_list = "{";
    for (int64_t n : nodes) {
        node_list += (node_list.size() > 1 ? "," : "") + std::to_string(n);
    }
    node_list += "}";
    std::string expected;
    bool any = false;
    for (int64_t n : covered) {
        for (const auto &[node, text] : row_texts) {
            if (node == n) {
                expected += (any ? "\n" : "") + text;
                any = true;
            }
        }
    }
    const int nodes_param = params.add_text(node_list);
    const int expected_param = any ? params.add_text(expected) : params.add_null();
    const int system_param = params.add_unsigned(system_id);
    // No row's text is empty: '' stands for none. (IS NOT DISTINCT FROM
    // would look = up by the search_path.)
    std::string sql =
        "WITH unchanged AS (SELECT COALESCE((SELECT pg_catalog.string_agg(l::pg_catalog.text, "
        "E'\\n' ORDER BY l.node_id) FROM " +
        lease_table_ + " l WHERE l.node_id OPERATOR(pg_catalog.=) ANY ($" +
        std::to_string(nodes_param) + "::integer[]) OR ($" + std::to_string(system_param) +
        "::pg_catalog.numeric OPERATOR(pg_catalog.<>) 0 AND l.holder_system_id "
        "OPERATOR(pg_catalog.=) $" +
        std::to_string(system_param) +
        "::pg_catalog.numeric)), '') OPERATOR(pg_catalog.=) COALESCE($" +
        std::to_string(expected_param) + "::pg_catalog.text, '')";
    if (writes.layout) {
        sql += " AND NOT EXISTS (SELECT FROM " + layout_table_ + ")";
    }
    sql += " AS ok)";
    if (writes.layout) {
        const snowflake::LayoutRecord &l = *writes.layout;
        const int dc = params.add(l.datacenter_bits);
        params.add(l.worker_bits);
        params.add(l.sequence_bits);
        params.add(l.epoch_ms);
        params.add(l.recorded_at_ms);
        params.add_text(l.recorded_by);
        // A WITH that writes runs whether or not it is read.
        sql += ", layout AS (INSERT INTO " + layout_table_ +
               " (only_row, datacenter_bits, worker_bits, sequence_bits, epoch_ms, recorded_at, "
               "recorded_by) SELECT true, $" +
               std::to_string(dc) + "::integer, $" + std::to_string(dc + 1) + "::integer, $" +
               std::to_string(dc + 2) + "::integer, $" + std::to_string(dc + 3) + "::bigint, " +
               time_of(dc + 4) + ", $" + std::to_string(dc + 5) +
               "::pg_catalog.text FROM unchanged WHERE unchanged.ok)";
    }
    // The timelines' records, only with the leases they were decided with:
    // a successor's mark that replaces its old primary's timeline for good
    // must not stay when its grant did not. (Committed whatever the check
    // said, the mark stayed after the old primary's renewal changed its
    // lease, and the retry, reading the higher position that renewal
    // recorded, judged the standby a copy: both were then refused, the old
    // primary as replaced by a server that held nothing.) A retry decides
    // and writes them again.
    const std::string merge = timeline_merge(timeline_table_, writes.timelines, &params, true);
    if (!merge.empty()) {
        sql += ", timelines AS (" + merge + ")";
    }
    std::string upsert = " INSERT INTO " + lease_table_ + " (";
    std::string update;
    for (int i = 0; i < kLeaseColumnCount; ++i) {
        upsert += std::string(i == 0 ? "" : ", ") + kLeaseColumns[i];
        if (i > 0) {
            update += std::string(i == 1 ? "" : ", ") + kLeaseColumns[i] + " = EXCLUDED." +
                      kLeaseColumns[i];
        }
    }
    const bool positions = !timeline_table_.empty();
    if (positions) {
        upsert += ", holder_wal_position, wal_position_instance";
        update +=
            ", holder_wal_position = EXCLUDED.holder_wal_position, "
            "wal_position_instance = EXCLUDED.wal_position_instance";
    }
    upsert += ") SELECT v.* FROM (VALUES ";
    for (size_t row = 0; row < writes.leases.size(); ++row) {
        const int first = params.count() + 1;
        add_lease(writes.leases[row], &params);
        upsert += row == 0 ? "(" : ", (";
        for (int i = 0; i < kLeaseColumnCount; ++i) {
            upsert += i == 0 ? "" : ", ";
            upsert += kLeaseTypes[i] != nullptr
                          ? "$" + std::to_string(first + i) + "::" + kLeaseTypes[i]
                          : time_of(first + i);
        }
        if (positions) {
            const int position = params.add(writes.leases[row].holder_wal_position);
            params.add(writes.leases[row].holder_instance);
            upsert += ", $" + std::to_string(position) + "::bigint, $" +
                      std::to_string(position + 1) + "::bigint";
        }
        upsert += ")";
    }
    upsert += ") v, unchanged WHERE unchanged.ok ON CONFLICT (node_id) DO UPDATE SET " + update +
              " RETURNING node_id";
    sql += upsert;
    const std::string lock_timeout = lock_timeout_setting(until_mono_ns);
    // Calls of this version wait only for those that write the same
    // records: a transaction-level advisory lock per node id written (and
    // one for the layout), taken in one order, so that renewals of
    // different ids commit side by side. The write itself takes the lease
    // table's ROW EXCLUSIVE lock, which waits for the SHARE ROW EXCLUSIVE
    // lock every server before 1.6 takes to change the leases (1.3 and 1.4
    // in the registry's SQL functions, 1.5 across its read and write), and
    // they for it; its snapshot is taken once it has the lock, so the
    // check sees every change committed before.
    std::vector<int64_t> lock_keys = nodes;
    if (writes.layout) {
        lock_keys.insert(lock_keys.begin(), kLayoutLockKey);
    }
    std::vector<std::string> locks;
    // First, for an acquire or a switch, its system's: two of them of one
    // system (an old primary and its promoted standby) check and write one
    // after the other, each seeing the other's lease.
    if (system_id != 0) {
        locks.push_back("SELECT pg_catalog.pg_advisory_xact_lock(" +
                        std::to_string(kSystemLockClass) + ", " +
                        std::to_string(system_lock_key(system_id)) + ")");
    }
    for (int64_t k : lock_keys) {
        locks.push_back("SELECT pg_catalog.pg_advisory_xact_lock(" +
                        std::to_string(kNodeLockClass) + ", " + std::to_string(k) + ")");
    }
    const char *const *values = params.values();
    std::vector<Statement> statements = {{"BEGIN ISOLATION LEVEL READ COMMITTED", 0, nullptr},
                                         {lock_timeout.c_str(), 0, nullptr}};
    for (const std::string &l : locks) {
        statements.push_back({l.c_str(), 0, nullptr});
    }
    const size_t write_at = statements.size();
    statements.push_back({sql.c_str(), params.count(), values});
    statements.push_back({"COMMIT", 0, nullptr});
    std::vector<PGresult *> results(statements.size(), nullptr);
    const snowflake::StoreOutcome outcome = exchange(
        static_cast<int>(statements.size()), statements.data(), results.data(), until_mono_ns, err);
    if (outcome != snowflake::StoreOutcome::ok) {
        return outcome;
    }
    *written = PQntuples(results[write_at]) == static_cast<int>(writes.leases.size());
    for (PGresult *r : results) {
        PQclear(r);
    }
    return snowflake::StoreOutcome::ok;
}

snowflake::StoreOutcome PgRegistryStore::write_timelines(
    const std::vector<snowflake::TimelineRecord> &records, int64_t until_mono_ns,
    snowflake::Error *err) {
    Params params;
    const std::string merge = timeline_merge(timeline_table_, records, &params, false);
    if (merge.empty()) {
        return snowflake::StoreOutcome::ok;
    }
    const char *const *values = params.values();
    const Statement statements[] = {{merge.c_str(), params.count(), values}};
    PGresult *result = nullptr;
    const snowflake::StoreOutcome outcome = exchange(1, statements, &result, until_mono_ns, err);
    if (result != nullptr) {
        PQclear(result);
    }
    return outcome;
}

snowflake::StoreOutcome PgRegistryStore::begin_call(const snowflake::CallScope &scope,
                                                    snowflake::Error *err) {
    if (scope.timelines_of) {
        timelines_of_ = *scope.timelines_of;
    }
    snowflake::StoreOutcome outcome = connect(err);
    until_ns_ = env_->call_until_ns();
    if (outcome == snowflake::StoreOutcome::ok && draining_) {
        outcome = drain(until_ns_, err);
    }
    return outcome;
}

snowflake::StoreOutcome PgRegistryStore::read_view(const snowflake::CallScope &scope,
                                                   snowflake::RegistryView *view,
                                                   snowflake::Error *err) {
    snowflake::StoreOutcome outcome = snowflake::StoreOutcome::ok;
    // The registry's update to 1.6 moves the tables while this server may
    // hold their names: no table has the name it read under once the
    // update commits. That is no answer from the registry (a refusal would
    // cost the lease): the tables are looked up again and the read made
    // once more, in the same call (whose waits still end by the lease's
    // deadline). Nothing was written.
    for (int lookup = 0; lookup < 2; ++lookup) {
        if (outcome == snowflake::StoreOutcome::ok && lease_table_.empty()) {
            outcome = find_tables(until_ns_, err);
        }
        if (outcome == snowflake::StoreOutcome::ok) {
            *view = snowflake::RegistryView();
            outcome = read_snapshot(scope.node, until_ns_, view, &row_texts_, err);
        }
        if (outcome != snowflake::StoreOutcome::refused || !table_missing_ || lookup > 0) {
            break;
        }
        outcome = connect(err);  // the failed read dropped the connection
    }
    return outcome;
}

snowflake::StoreOutcome PgRegistryStore::guarded_write(const snowflake::CallScope &scope,
                                                       snowflake::RegistryView *view,
                                                       const snowflake::RegistryWrites &writes,
                                                       snowflake::WriteResult *result,
                                                       snowflake::Error *err) {
    *result = snowflake::WriteResult::written;
    if (!writes.leases.empty()) {
        bool written = false;
        const snowflake::StoreOutcome outcome = write_if_unchanged(
            writes, *view, scope.system_id, row_texts_, until_ns_, &written, err);
        if (!written) {
            *result = snowflake::WriteResult::changed;
        }
        return outcome;
    }
    // A refusal that records (a lapsed lease's wait begun): what it merges
    // only rises, whatever was written since the read.
    return write_timelines(writes.timelines, until_ns_, err);
}

snowflake::StoreOutcome PgRegistryStore::gave_up(int attempts, snowflake::Error *err) {
    snowflake::fail(err, snowflake::ErrorCode::registry,
                    "the registry's records changed between the read and the write %d "
                    "times in a row",
                    attempts);
    return snowflake::StoreOutcome::unreachable;
}

void PgRegistryStore::end_call() {
    if (own_server_) {
        disconnect();  // connect() says why
    }
}
