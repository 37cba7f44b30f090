// Logical restores never mint below what they restored (docs/durability.md,
// "Logical restores").
//
// The table snowflake_origin, in the extension's schema and dumped by
// pg_dump with the extension (pg_extension_config_dump), says which servers
// a database's data came from: CREATE EXTENSION records the server it runs
// on, and a dump carries the rows into the database it is restored in. A
// row of another server that this one has not checked yet means IDs that
// this server's generator never issued, possibly above its floor. The
// check finds the largest value of every ID column of the database
// (pg_restore_scan.cpp: catalogs and access methods only, no planner, no
// user code; its threat model is written there) and raises the
// server-wide floor above it, durably (a reservation, written to the state
// file and WAL, as every other). It runs
//  - in the transaction that brings the rows, before it commits (their
//    trigger; at pre-commit), so from their commit on no database of the
//    server mints at or below what they came with;
//  - after every COPY FROM into a table with an ID column, in its
//    transaction (the ProcessUtility hook): pg_restore's data arrives by
//    COPY, before the rows of snowflake_origin, and commits on its own;
//  - before the first ID any backend issues in a database whose table
//    holds rows of another server not checked here (snowflake_nextval()),
//    which refuses where a value cannot be taken on (below), and marks the
//    rows checked.
//
// What a value may do depends on who can have written it: a column that
// only superusers can write (pg_restore_scan.cpp, trusted_source) moves the
// floor up to an hour ahead of the clock; any other at most
// max_clock_drift ahead. A value further ahead makes its own database
// refuse (55000) until a superuser accepts it with snowflake_raise_floor():
// rows a database's owner controls cannot move every database's IDs ahead,
// nor stop any other database.
//
// The hot path pays one load and one compare: the backend keeps the
// generation of origins it has checked (origins_generation, shared), which
// only moves on when rows arrive in a snowflake_origin table (its trigger,
// at commit). The check itself costs one scan of the small table, once
// per database and generation (SharedState::origin_marks), and the scan of
// the columns only where rows of another server wait.
#include <algorithm>
#include <limits>

#include "core/epoch.hpp"
#include "pg_shared.hpp"
#include "pg_compat.hpp"

extern "C" {
#include "access/genam.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_type.h"
#include "commands/dbcommands.h"
#include "commands/extension.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "lib/stringinfo.h"
#include "nodes/parsenodes.h"
#include "nodes/pg_list.h"
#include "nodes/value.h"
#include "parser/parse_func.h"
#include "storage/condition_variable.h"
#include "tcop/utility.h"
#include "storage/latch.h"
#include "storage/lwlock.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/wait_event.h"

PG_FUNCTION_INFO_V1(snowflake_raise_floor);
PG_FUNCTION_INFO_V1(snowflake_system_identifier);
PG_FUNCTION_INFO_V1(snowflake_origin_arrived);
PG_FUNCTION_INFO_V1(snowflake_check_restore);
}

uint64_t sf_origins_checked = 0;

namespace {

// This server's system identifier as a numeric (it is unsigned 64-bit).
Datum system_identifier_numeric() {
    char text[24];
    snprintf(text, sizeof text, "%llu", static_cast<unsigned long long>(GetSystemIdentifier()));
    return DirectFunctionCall3(numeric_in, CStringGetDatum(text), ObjectIdGetDatum(InvalidOid),
                               Int32GetDatum(-1));
}

// Set by the trigger of snowflake_origin: checked at pre-commit, acted on
// at commit (the rows are visible to every snapshot taken after the
// generation moves on, so a check that read the new generation sees them).
bool origins_arrived = false;
bool xact_callback_registered = false;

void check_at_arrival();

void origins_xact_callback(XactEvent event, void *) {
    if (event == XACT_EVENT_PRE_COMMIT) {
        if (origins_arrived) {
            check_at_arrival();
        }
    } else if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_PARALLEL_COMMIT) {
        if (origins_arrived && sf_shared != nullptr) {
            sf_shared->origins_generation.fetch_add(1, std::memory_order_acq_rel);
        }
        origins_arrived = false;
    } else if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT ||
               event == XACT_EVENT_PREPARE) {
        origins_arrived = false;
    }
}

// Waits until the registry's bound for the lease lies above `id`: the
// worker is asked to renew now (its bound follows the generator's clock,
// which the catch-up put at the raised floor), then the call sleeps on the
// lease's condition variable. An interrupt (cancel, statement_timeout) ends
// it with its ERROR; a registry that does not answer, with the lease's own.
void wait_for_lease_bound_above(uint64_t id) {
    LeaseState &lease = sf_shared->lease;
    const int64_t give_up_ns =
        sf_monotonic_ns() + (sf_lease_ttl_ms + kRegistryTimeoutMs) * kNsPerMs;
    ConditionVariablePrepareToSleep(&lease.changed);
    while (lease.below.load(std::memory_order_acquire) <= id) {
        lease.renew_requested.store(true, std::memory_order_release);
        Latch *worker = lease.worker_latch.load(std::memory_order_acquire);
        if (worker != nullptr) {
            SetLatch(worker);
        }
        const int64_t left_ms = (give_up_ns - sf_monotonic_ns()) / kNsPerMs;
        if (left_ms <= 0) {
            break;
        }
        (void)ConditionVariableTimedSleep(&lease.changed, std::min<int64_t>(left_ms, 1000),
                                          PG_WAIT_EXTENSION);
    }
    ConditionVariableCancelSleep();
    if (lease.below.load(std::memory_order_acquire) <= id) {
        sf_raise_lease_bound_reached(id);
    }
}

void require_can_raise() {
    if (sf_shared == nullptr) {
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("snowflake_id must be loaded via shared_preload_libraries"),
                        errhint("Add snowflake_id to shared_preload_libraries and restart.")));
    }
    if (RecoveryInProgress()) {
        ereport(ERROR, (errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
                        errmsg("cannot raise the snowflake ID floor during recovery"),
                        errhint("Run it on the primary; standbys follow through WAL.")));
    }
    if (IsBinaryUpgrade) {
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("cannot raise the snowflake ID floor while pg_upgrade runs the "
                               "server"),
                        errhint("Run it once the upgraded cluster is started normally.")));
    }
    if (static_cast<Refusal>(sf_shared->refusal.load()) != Refusal::none) {
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("cannot raise the snowflake ID floor while snowflake_nextval() "
                               "refuses to issue"),
                        errhint("SELECT snowflake_nextval() says why and what to do first.")));
    }
}

// Whether the check may raise the floor here: a server that refuses to
// issue, a standby and pg_upgrade's own runs leave it to the first ID.
bool can_raise_now() {
    return sf_shared != nullptr && !RecoveryInProgress() && !IsBinaryUpgrade &&
           static_cast<Refusal>(sf_shared->refusal.load()) == Refusal::none;
}

// Whether the floor lies above `above` already, durably (a reservation
// covers it: not only a floor raised in memory by a call that failed
// before its reservation).
bool floor_above(int64_t above) {
    const SharedState *s = sf_shared;
    return above < 0 || (static_cast<uint64_t>(above) < s->floor.load() &&
                         static_cast<uint64_t>(above) < s->reservation.below.load());
}

// How far the first ID above `above` lies ahead of the clock, in ms.
int64_t lead_ms_above(int64_t above) {
    const snowflake::Layout &layout = sf_layout;
    const int64_t floor_ts =
        static_cast<int64_t>((static_cast<uint64_t>(above) + 1) >> layout.timestamp_shift());
    return layout.epoch_unix_ms() + floor_ts - sf_wall_clock_ms();
}

// Raises the generator's floor above `above`, durably: from now on this
// server issues only above it, also after a restart, a crash or a failover
// (state file, WAL, the synchronous standbys, the registry's bound).
void raise_floor_above(int64_t above) {
    require_can_raise();
    if (floor_above(above)) {
        return;
    }
    const snowflake::Layout &layout = sf_layout;
    SharedState *s = sf_shared;
    const uint64_t floor_id = static_cast<uint64_t>(above) + 1;
    const int64_t floor_ts = static_cast<int64_t>(floor_id >> layout.timestamp_shift());
    if (floor_ts > layout.max_timestamp()) {
        char end_text[40];
        snowflake::format_utc(layout.end_unix_ms(), end_text, sizeof end_text);
        ereport(ERROR, (errcode(ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED),
                        errmsg("no snowflake ID lies above %lld", static_cast<long long>(above)),
                        errdetail("The layout's last ID is at %s.", end_text)));
    }
    snowflake::ResumePlan plan;
    LWLockAcquire(s->lock, LW_EXCLUSIVE);
    (void)sf_raise_floor_locked(floor_id, false, &plan);
    LWLockRelease(s->lock);
    if (sf_registry_configured() && s->lease.below.load(std::memory_order_acquire) <= floor_id) {
        wait_for_lease_bound_above(floor_id);
    }
    // Durable before the caller records the check: a restart resumes above.
    sf_reserve(static_cast<uint64_t>(above), ReserveFor::issue);
    ereport(LOG, (errmsg("snowflake_id: the generator's floor was raised above %lld in database "
                         "\"%s\"",
                         static_cast<long long>(above), get_database_name(MyDatabaseId))));
}

// The columns of snowflake_origin that the check reads (src/sql/tables/
// snowflake_origin.sql).
constexpr AttrNumber kOriginSystemIdentifier = 1;
constexpr AttrNumber kOriginDatabaseName = 2;
constexpr AttrNumber kOriginCheckedBy = 4;

// How many rows of snowflake_origin are of another server and not checked
// by this one, as the newest snapshot sees them (the caller's may be older:
// REPEATABLE READ); `origins` gets them as "server N (database D)", for
// messages. 0 where the table does not exist (SQL of 1.6 under a newer
// library).
//
// Read through the table access method, not SQL: no ACL check (an
// application's role that may only INSERT into its own table mints too,
// and the table is the extension's, read by the extension), no operator
// or function a user could shadow, no rule, no row security.
int origins_waiting(StringInfo origins) {
    // The extension's tables live in the schema snowflake_id, whatever the
    // schema of its functions (src/sql/schema.sql).
    const Oid schema = get_namespace_oid("snowflake_id", true);
    if (!OidIsValid(schema) || !OidIsValid(get_extension_oid("snowflake_id", true))) {
        return 0;
    }
    const Oid origin = get_relname_relid("snowflake_origin", schema);
    if (!OidIsValid(origin)) {
        return 0;
    }
    const Datum here = system_identifier_numeric();
    Relation rel = table_open(origin, AccessShareLock);
    Snapshot snapshot = RegisterSnapshot(sf_newest_snapshot());
    TableScanDesc scan = sf_compat_table_beginscan(rel, snapshot);
    TupleTableSlot *slot = table_slot_create(rel, nullptr);
    int waiting = 0;
    while (table_scan_getnextslot(scan, ForwardScanDirection, slot)) {
        bool isnull = false;
        const Datum server = slot_getattr(slot, kOriginSystemIdentifier, &isnull);
        if (isnull || DatumGetInt32(DirectFunctionCall2(numeric_cmp, server, here)) == 0) {
            continue;
        }
        const Datum checked_by = slot_getattr(slot, kOriginCheckedBy, &isnull);
        if (!isnull && DatumGetInt32(DirectFunctionCall2(numeric_cmp, checked_by, here)) == 0) {
            continue;
        }
        ++waiting;
        if (waiting <= 3) {
            const Datum database = slot_getattr(slot, kOriginDatabaseName, &isnull);
            appendStringInfo(origins, "%sserver %s (database %s)", waiting > 1 ? ", " : "",
                             DatumGetCString(DirectFunctionCall1(numeric_out, server)),
                             isnull ? "?" : quote_identifier(NameStr(*DatumGetName(database))));
        } else if (waiting == 4) {
            appendStringInfoString(origins, ", ...");
        }
    }
    ExecDropSingleTupleTableSlot(slot);
    table_endscan(scan);
    UnregisterSnapshot(snapshot);
    table_close(rel, AccessShareLock);
    return waiting;
}

// Marks the rows of other servers checked by this one and adds this
// server's own row (a dump of this database carries it, so that a restore
// elsewhere checks the IDs issued here). As the table's owner, whoever
// called: the table is the extension's, and the caller may only have
// INSERT on its own table. Its statements name everything with its schema,
// under a search_path of pg_catalog alone; rows another session is marking
// are left to it. Only where the transaction may write: the floor is
// durable either way, so a check repeated later finds nothing to raise.
// Runs `statements` (SQL over snowflake_origin with $1 the numeric system
// identifier `server`) as the table's owner, in a security-restricted
// operation under a search_path of pg_catalog alone: the caller (any role
// that mints or copies) needs no right on it, and no object of the
// caller's can be reached. Only where the transaction may write and
// outside a parallel operation (a first snowflake_nextval() above a
// Gather: no UPDATE there); `locks_rows` (FOR UPDATE) only at READ
// COMMITTED, where rows another backend just marked are skipped, not a
// serialization failure. Left out, marks wait for a later check: the floor
// is durable either way.
void write_origins_as_owner(const char *const *statements, int count, Datum server,
                            bool locks_rows) {
    if (XactReadOnly || RecoveryInProgress() || IsInParallelMode() ||
        (locks_rows && IsolationUsesXactSnapshot())) {
        return;
    }
    const Oid schema = get_namespace_oid("snowflake_id", true);
    const Oid origin =
        OidIsValid(schema) ? get_relname_relid("snowflake_origin", schema) : InvalidOid;
    if (!OidIsValid(origin)) {
        return;
    }
    HeapTuple rel = SearchSysCache1(RELOID, ObjectIdGetDatum(origin));
    if (!HeapTupleIsValid(rel)) {
        return;
    }
    const Oid owner = reinterpret_cast<Form_pg_class>(GETSTRUCT(rel))->relowner;
    ReleaseSysCache(rel);
    Oid saved_user = InvalidOid;
    int saved_context = 0;
    GetUserIdAndSecContext(&saved_user, &saved_context);
    SetUserIdAndSecContext(
        owner, saved_context | SECURITY_LOCAL_USERID_CHANGE | SECURITY_RESTRICTED_OPERATION);
    const int guc_level = NewGUCNestLevel();
    (void)set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION,
                            GUC_ACTION_SAVE, true, 0, false);
    if (SPI_connect() != SPI_OK_CONNECT) {
        elog(ERROR, "snowflake_id: SPI_connect failed");
    }
    Oid types[1] = {NUMERICOID};
    Datum values[1] = {server};
    for (int i = 0; i < count; ++i) {
        const int rc = SPI_execute_with_args(statements[i], 1, types, values, nullptr, false, 0);
        if (rc != SPI_OK_UPDATE && rc != SPI_OK_INSERT) {
            elog(ERROR, "snowflake_id: writing snowflake_origin failed: %s",
                 SPI_result_code_string(rc));
        }
    }
    SPI_finish();
    AtEOXact_GUC(true, guc_level);
    SetUserIdAndSecContext(saved_user, saved_context);
}

// Marks the rows of other servers checked by this one, and records this
// server's own row (a dump of this database carries it, so that a restore
// elsewhere checks the IDs issued here). Rows another session is marking
// are left to it. The floor is durable either way, so a check repeated
// later (a read-only transaction marks nothing) finds nothing to raise.
void mark_origins_checked() {
    static const char *const statements[] = {
        "UPDATE snowflake_id.snowflake_origin o SET checked_by = $1, checked_at = pg_catalog.now() "
        "WHERE o.ctid OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT w.ctid "
        "FROM snowflake_id.snowflake_origin w "
        "WHERE w.system_identifier OPERATOR(pg_catalog.<>) $1 "
        "AND (w.checked_by IS NULL OR w.checked_by OPERATOR(pg_catalog.<>) $1) "
        "FOR UPDATE SKIP LOCKED))",
        "INSERT INTO snowflake_id.snowflake_origin (system_identifier, database_name) "
        "SELECT $1, pg_catalog.current_database() WHERE NOT EXISTS ("
        "SELECT FROM snowflake_id.snowflake_origin o "
        "WHERE o.system_identifier OPERATOR(pg_catalog.=) $1)"};
    write_origins_as_owner(statements, 2, system_identifier_numeric(), true);
}

// A COPY whose values the check could not take on (beyond their limit, or
// the server not issuing): a row of "server 0" in snowflake_origin (no
// cluster has system identifier 0: initdb derives it from the time), written
// with the COPY's transaction, so that the database's first ID checks it
// again and refuses until it is settled (the WARNING alone would let IDs be
// issued below those values).
void record_load_to_check() {
    static const char *const statements[] = {
        "INSERT INTO snowflake_id.snowflake_origin (system_identifier, database_name) "
        "SELECT $1, 'a load beyond its limit' WHERE NOT EXISTS ("
        "SELECT FROM snowflake_id.snowflake_origin o "
        "WHERE o.system_identifier OPERATOR(pg_catalog.=) $1 AND o.checked_by IS NULL)"};
    write_origins_as_owner(statements, 1,
                           DirectFunctionCall3(numeric_in, CStringGetDatum("0"),
                                               ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1)),
                           false);
}

// "column c of table s.t", for messages.
char *describe_column(Oid relid, AttrNumber attnum) {
    return psprintf("column %s of table %s.%s", quote_identifier(get_attname(relid, attnum, false)),
                    quote_identifier(get_namespace_name(get_rel_namespace(relid))),
                    quote_identifier(get_rel_name(relid)));
}

char *format_id_time(int64_t id) {
    const snowflake::Layout &layout = sf_layout;
    const int64_t unix_ms =
        layout.epoch_unix_ms() +
        static_cast<int64_t>(static_cast<uint64_t>(id) >> layout.timestamp_shift());
    char text[40];
    snowflake::format_utc(unix_ms, text, sizeof text);
    return pstrdup(text);
}

// A trusted column may move the floor up to this far ahead of the clock;
// others by max_clock_drift.
constexpr int64_t kTrustedLeadLimitMs = 3600000;

// Where the check is: what it may do with a value it cannot take on.
enum class CheckAt {
    first_id,  // snowflake_nextval(), snowflake_check_restore(): ERROR
    arrival,   // the origin rows' pre-commit, a COPY: WARNING; the first ID refuses
};

// Raises the floor above every value it may take on, then refuses (or,
// where the data arrives, warns of) the largest it may not: a value of a
// column only superusers write further ahead than an hour, any other
// further ahead than max_clock_drift. Values below the floor already (a
// superuser's snowflake_raise_floor()) pass.
bool take_on(const SfColumnTop *tops, int count, const char *origins, CheckAt at) {
    int64_t raise_to = -1;
    int refused = -1;
    for (int i = 0; i < count; ++i) {
        if (floor_above(tops[i].top)) {
            continue;
        }
        const int64_t limit_ms =
            tops[i].trusted ? kTrustedLeadLimitMs : int64_t{sf_max_clock_drift_ms};
        if (lead_ms_above(tops[i].top) <= limit_ms) {
            raise_to = std::max(raise_to, tops[i].top);
        } else if (refused < 0 || tops[i].top > tops[refused].top) {
            refused = i;
        }
    }
    if (raise_to >= 0) {
        raise_floor_above(raise_to);
    }
    if (refused < 0) {
        return false;
    }
    const SfColumnTop &top = tops[refused];
    const char *database = quote_identifier(get_database_name(MyDatabaseId));
    const char *column = describe_column(top.relid, top.attnum);
    const char *schema = quote_identifier(
        get_namespace_name(sf_extension_schema(get_extension_oid("snowflake_id", false))));
    const int level = at == CheckAt::first_id ? ERROR : WARNING;
    if (top.trusted) {
        ereport(
            level,
            (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
             errmsg("the IDs restored into database %s lie more than an hour ahead of this "
                    "server's clock",
                    database),
             errdetail("%s holds %lld, of %s UTC, restored from %s; new IDs above it would "
                       "be that far ahead of their time. snowflake_nextval() issues nothing "
                       "in this database until this is settled.",
                       column, static_cast<long long>(top.top), format_id_time(top.top), origins),
             errhint("If this server's clock is right and those IDs are to stay, a superuser "
                     "accepts them: SELECT %s.snowflake_raise_floor(%lld); IDs then continue "
                     "above them, ahead of the clock until it catches up. Otherwise correct "
                     "the clock, or those values. docs/durability.md, \"Logical restores\".",
                     schema, static_cast<long long>(top.top))));
    } else {
        ereport(level,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("the IDs in database %s lie further ahead of this server's clock than "
                        "snowflake_id.max_clock_drift (%d ms) allows for values a non-superuser "
                        "can write",
                        database, sf_max_clock_drift_ms),
                 errdetail("%s holds %lld, of %s UTC, %lld ms ahead (%s); roles other than "
                           "superusers can write that column (its table's owner or grants), so "
                           "its values move the server's floor no further than max_clock_drift "
                           "on their own. snowflake_nextval() issues nothing in this database "
                           "until this is settled; other databases are not affected.",
                           column, static_cast<long long>(top.top), format_id_time(top.top),
                           static_cast<long long>(lead_ms_above(top.top)), origins),
                 errhint("If those IDs are to stay, a superuser accepts them: SELECT "
                         "%s.snowflake_raise_floor(%lld); IDs then continue above them. "
                         "Otherwise correct those values. docs/durability.md, \"Logical "
                         "restores\".",
                         schema, static_cast<long long>(top.top))));
    }
    return true;
}

// The check of the whole database (every_column: whatever snowflake_origin
// says). Returns how many rows of other servers waited.
int check_database(bool every_column, CheckAt at) {
    StringInfoData origins;
    initStringInfo(&origins);
    const int waiting = origins_waiting(&origins);
    if (waiting == 0 && !every_column) {
        return 0;
    }
    if (waiting == 0) {
        appendStringInfoString(&origins, "no server of snowflake_origin (every_column => true)");
    }
    SfColumnTop *tops = nullptr;
    const int count = sf_scan_id_columns(InvalidOid, NIL, &tops);
    (void)take_on(tops, count, origins.data, at);
    if (at == CheckAt::first_id) {
        mark_origins_checked();
    }
    return waiting;
}

// Rows arrived in snowflake_origin in this transaction: the floor is raised
// before they commit, so that every database is covered from then on.
void check_at_arrival() {
    if (!can_raise_now()) {
        return;  // the first ID checks
    }
    CommandCounterIncrement();
    (void)check_database(false, CheckAt::arrival);
}

}  // namespace

Oid sf_extension_schema(Oid extension) {
    Relation rel = table_open(ExtensionRelationId, AccessShareLock);
    ScanKeyData key;
    ScanKeyInit(&key, Anum_pg_extension_oid, BTEqualStrategyNumber, F_OIDEQ,
                ObjectIdGetDatum(extension));
    SysScanDesc scan = systable_beginscan(rel, ExtensionOidIndexId, true, nullptr, 1, &key);
    HeapTuple tuple = systable_getnext(scan);
    const Oid schema = HeapTupleIsValid(tuple)
                           ? reinterpret_cast<Form_pg_extension>(GETSTRUCT(tuple))->extnamespace
                           : InvalidOid;
    systable_endscan(scan);
    table_close(rel, AccessShareLock);
    return schema;
}

void sf_check_origins(uint64_t generation) {
    SharedState *s = sf_shared;
    LWLockAcquire(s->lock, LW_SHARED);
    const bool checked = s->origin_marks.checked(MyDatabaseId, generation);
    LWLockRelease(s->lock);
    if (!checked) {
        (void)check_database(false, CheckAt::first_id);
        // Inside a parallel query the check read the query's snapshot (no
        // newer one may be taken there): the next call outside checks again.
        // The floor a COPY raised covers rows committed since, meanwhile.
        if (IsInParallelMode()) {
            return;
        }
        LWLockAcquire(s->lock, LW_EXCLUSIVE);
        s->origin_marks.mark(MyDatabaseId, generation);
        LWLockRelease(s->lock);
    }
    sf_origins_checked = generation;
}

void sf_check_copied(Oid table, List *columns) {
    if (sf_shared == nullptr || !OidIsValid(get_extension_oid("snowflake_id", true))) {
        return;
    }
    CommandCounterIncrement();
    SfColumnTop *tops = nullptr;
    const int count = sf_scan_id_columns(table, columns, &tops);
    if (count == 0) {
        return;
    }
    if (!can_raise_now()) {
        record_load_to_check();  // the first ID, once the server issues, checks
        return;
    }
    // A superuser's COPY (pg_restore's data, run as a superuser, into tables
    // an application's role owns): a column's top written by this very
    // transaction, into a table no trigger of a user's can rewrite rows of,
    // is the superuser's input, as trusted as values only superusers write.
    // A top written by anyone else keeps the trust of its table.
    if (superuser() && !sf_has_user_triggers(table)) {
        for (int i = 0; i < count; ++i) {
            tops[i].trusted = tops[i].trusted || tops[i].written_here;
        }
    }
    if (take_on(tops, count, "a COPY", CheckAt::arrival)) {
        record_load_to_check();
    }
}

namespace {

ProcessUtility_hook_type previous_process_utility = nullptr;

// COPY FROM (also \copy and pg_restore's data: FROM STDIN) into a table:
// once it ran, the floor is raised above what it loaded, in its transaction.
void copy_aware_process_utility(PlannedStmt *pstmt, const char *query, bool read_only_tree,
                                ProcessUtilityContext context, ParamListInfo params,
                                QueryEnvironment *env, DestReceiver *dest, QueryCompletion *qc) {
    RangeVar *target = nullptr;
    List *columns = NIL;
    if (IsA(pstmt->utilityStmt, CopyStmt)) {
        const CopyStmt *copy = reinterpret_cast<CopyStmt *>(pstmt->utilityStmt);
        if (copy->is_from && copy->relation != nullptr) {
            target = static_cast<RangeVar *>(copyObjectImpl(copy->relation));
            // A COPY that leaves an ID column out fills it from its default:
            // nothing there to raise the floor above, and no scan.
            columns = static_cast<List *>(copyObjectImpl(copy->attlist));
        }
    }
    // Resolved once, before the COPY runs: what it loads goes into this table.
    const Oid table = target != nullptr ? RangeVarGetRelid(target, NoLock, true) : InvalidOid;
    if (previous_process_utility != nullptr) {
        previous_process_utility(pstmt, query, read_only_tree, context, params, env, dest, qc);
    } else {
        standard_ProcessUtility(pstmt, query, read_only_tree, context, params, env, dest, qc);
    }
    if (OidIsValid(table)) {
        sf_check_copied(table, columns);  // the COPY holds its lock until the end
    }
}

}  // namespace

void sf_install_copy_hook() {
    previous_process_utility = ProcessUtility_hook;
    ProcessUtility_hook = copy_aware_process_utility;
}

// snowflake_check_restore(every_column boolean DEFAULT false): the check, as
// a superuser runs it (EXECUTE is revoked from PUBLIC). Returns how many
// rows of other servers it found waiting (at least 1 with every_column).
extern "C" Datum snowflake_check_restore(PG_FUNCTION_ARGS) {
    if (PG_ARGISNULL(0)) {
        ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                        errmsg("snowflake_check_restore() takes no NULL argument"),
                        errhint("every_column is true (check whatever snowflake_origin says) or "
                                "false.")));
    }
    const bool every_column = PG_GETARG_BOOL(0);
    const int waiting = check_database(every_column, CheckAt::first_id);
    PG_RETURN_INT32(std::max(waiting, every_column ? 1 : 0));
}

// snowflake_raise_floor(above bigint, max_lead_ms bigint DEFAULT NULL):
// from now on this server issues only above `above`, also after a restart,
// a crash or a failover (the bound is a reservation: state file, WAL, the
// synchronous standbys). Returns the generator's floor. With max_lead_ms,
// returns NULL instead of raising the floor to a time further ahead of the
// clock than that (snowflake_check_restore() raises the ERROR, which can
// name the column and the origin).
extern "C" Datum snowflake_raise_floor(PG_FUNCTION_ARGS) {
    if (PG_ARGISNULL(0)) {
        ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                        errmsg("snowflake_raise_floor() takes no NULL ID"),
                        errhint("Pass the largest ID new IDs must sort above.")));
    }
    if (!superuser()) {
        ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                        errmsg("permission denied to raise the snowflake ID floor"),
                        errdetail("Only superusers may move where every session's IDs resume."),
                        errhint("Ask a superuser to run it.")));
    }
    require_can_raise();
    sf_refuse_in_read_only("snowflake_raise_floor()");
    const int64_t above = PG_GETARG_INT64(0);
    if (!PG_ARGISNULL(1) && !floor_above(above) && lead_ms_above(above) > PG_GETARG_INT64(1)) {
        PG_RETURN_NULL();
    }
    raise_floor_above(above);
    PG_RETURN_INT64(static_cast<int64_t>(sf_shared->floor.load()));
}

extern "C" Datum snowflake_system_identifier(PG_FUNCTION_ARGS) {
    (void)fcinfo;
    return system_identifier_numeric();
}

// The statement trigger of snowflake_origin (INSERT, UPDATE): rows that
// arrive call for a check of every database, once they are committed.
extern "C" Datum snowflake_origin_arrived(PG_FUNCTION_ARGS) {
    if (!CALLED_AS_TRIGGER(fcinfo)) {
        ereport(ERROR, (errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
                        errmsg("snowflake_origin_arrived() is a trigger function")));
    }
    // Only the extension's table: rows of another would move the server-wide
    // generation, and every database's backends would check again.
    const Relation fired_on = reinterpret_cast<TriggerData *>(fcinfo->context)->tg_relation;
    const Oid schema = get_namespace_oid("snowflake_id", true);
    if (!OidIsValid(schema) ||
        RelationGetRelid(fired_on) != get_relname_relid("snowflake_origin", schema)) {
        ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                        errmsg("snowflake_origin_arrived() is the trigger of "
                               "snowflake_id.snowflake_origin, not of table \"%s\"",
                               RelationGetRelationName(fired_on)),
                        errhint("Drop the trigger that calls it.")));
    }
    if (!xact_callback_registered) {
        RegisterXactCallback(origins_xact_callback, nullptr);
        xact_callback_registered = true;
    }
    origins_arrived = true;
    return static_cast<Datum>(0);  // a statement trigger returns nothing
}
