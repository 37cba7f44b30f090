// Logical restores never mint below what they restored (docs/durability.md,
// "Logical restores").
//
// The table snowflake_origin, in the extension's schema and dumped by
// pg_dump with the extension (pg_extension_config_dump), says which servers
// a database's data came from: CREATE EXTENSION records the server it runs
// on, and a dump carries the rows into the database it is restored in. A
// row of another server that this one has not checked yet means IDs that
// this server's generator never issued, possibly above its floor. Before
// the first ID any backend issues in such a database, snowflake_nextval()
// has the SQL function snowflake_check_restore() find the largest value of
// every column whose default calls snowflake_nextval() and raise the floor
// above it, durably (snowflake_raise_floor below: a reservation, written to
// the state file and WAL, as every other).
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

extern "C" {
#include "access/genam.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/namespace.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_type.h"
#include "commands/dbcommands.h"
#include "commands/extension.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/pg_list.h"
#include "nodes/value.h"
#include "parser/parse_func.h"
#include "storage/condition_variable.h"
#include "storage/latch.h"
#include "storage/lwlock.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"
#include "utils/wait_event.h"

PG_FUNCTION_INFO_V1(snowflake_raise_floor);
PG_FUNCTION_INFO_V1(snowflake_system_identifier);
PG_FUNCTION_INFO_V1(snowflake_origin_arrived);
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

// Set by the trigger of snowflake_origin, acted on at commit: the rows are
// visible to every snapshot taken after the generation moves on, so a check
// that read the new generation sees them.
bool origins_arrived = false;
bool xact_callback_registered = false;

void origins_xact_callback(XactEvent event, void *) {
    if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_PARALLEL_COMMIT) {
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

// The schema of the extension's functions (get_extension_schema() is
// static before PostgreSQL 16).
Oid extension_schema(Oid extension) {
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

// The columns of snowflake_origin that the check reads (src/sql/tables/
// snowflake_origin.sql).
constexpr AttrNumber kOriginSystemIdentifier = 1;
constexpr AttrNumber kOriginCheckedBy = 4;

// Whether snowflake_origin holds a row of another server that this one has
// not checked, as the newest snapshot sees it (the caller's may be older:
// REPEATABLE READ); then *function_schema is the schema of the extension's
// functions. False where the table does not exist (SQL of 1.6 under a
// newer library).
//
// Read through the table access method, not SQL: no ACL check (an
// application's role that may only INSERT into its own table mints too,
// and the table is the extension's, read by the extension), no operator
// or function a user could shadow, no rule, no row security.
bool origins_waiting(char **function_schema) {
    // The extension's tables live in the schema snowflake_id, whatever the
    // schema of its functions (src/sql/schema.sql).
    const Oid schema = get_namespace_oid("snowflake_id", true);
    const Oid extension = get_extension_oid("snowflake_id", true);
    if (!OidIsValid(schema) || !OidIsValid(extension)) {
        return false;
    }
    const Oid origin = get_relname_relid("snowflake_origin", schema);
    if (!OidIsValid(origin)) {
        return false;
    }
    const Datum here = system_identifier_numeric();
    Relation rel = table_open(origin, AccessShareLock);
    Snapshot snapshot = RegisterSnapshot(GetLatestSnapshot());
    TableScanDesc scan = table_beginscan(rel, snapshot, 0, nullptr);
    TupleTableSlot *slot = table_slot_create(rel, nullptr);
    bool waiting = false;
    while (!waiting && table_scan_getnextslot(scan, ForwardScanDirection, slot)) {
        bool isnull = false;
        const Datum server = slot_getattr(slot, kOriginSystemIdentifier, &isnull);
        if (isnull || DatumGetInt32(DirectFunctionCall2(numeric_cmp, server, here)) == 0) {
            continue;
        }
        const Datum checked_by = slot_getattr(slot, kOriginCheckedBy, &isnull);
        waiting = isnull || DatumGetInt32(DirectFunctionCall2(numeric_cmp, checked_by, here)) != 0;
    }
    ExecDropSingleTupleTableSlot(slot);
    table_endscan(scan);
    UnregisterSnapshot(snapshot);
    table_close(rel, AccessShareLock);
    if (waiting) {
        char *name = get_namespace_name(extension_schema(extension));
        if (name == nullptr) {
            return false;
        }
        *function_schema = name;
    }
    return waiting;
}

// Runs snowflake_check_restore() (SECURITY DEFINER: its owner reads every
// table); its ERROR, if any, is the call's.
void run_check(char *schema) {
    List *name = list_make2(makeString(schema), makeString(pstrdup("snowflake_check_restore")));
    Oid arg_types[1] = {BOOLOID};
    const Oid function = LookupFuncName(name, 1, arg_types, true);
    if (!OidIsValid(function)) {
        return;
    }
    const Datum checked = OidFunctionCall1(function, BoolGetDatum(false));
    if (DatumGetInt32(checked) == 0) {
        // The newest snapshot sees rows of another server that the
        // transaction's does not: they arrived after it began.
        ereport(ERROR,
                (errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
                 errmsg("could not check the IDs restored into database \"%s\": they arrived "
                        "after this transaction's snapshot",
                        get_database_name(MyDatabaseId)),
                 errdetail("A restore from another server committed after this REPEATABLE READ "
                           "or SERIALIZABLE transaction began; IDs issued before the check "
                           "could sort below the restored ones."),
                 errhint("Retry the transaction.")));
    }
}

}  // namespace

void sf_check_origins(uint64_t generation) {
    SharedState *s = sf_shared;
    LWLockAcquire(s->lock, LW_SHARED);
    const bool checked = s->origin_marks.checked(MyDatabaseId, generation);
    LWLockRelease(s->lock);
    if (!checked) {
        char *schema = nullptr;
        if (origins_waiting(&schema)) {
            run_check(schema);
        }
        LWLockAcquire(s->lock, LW_EXCLUSIVE);
        s->origin_marks.mark(MyDatabaseId, generation);
        LWLockRelease(s->lock);
    }
    sf_origins_checked = generation;
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
    const snowflake::Layout &layout = sf_layout;
    SharedState *s = sf_shared;
    // Nothing to do where the floor is above already and a durable
    // reservation covers `above` (not only a floor raised in memory by a
    // call that failed before its reservation).
    if (above < 0 || (static_cast<uint64_t>(above) < s->floor.load() &&
                      static_cast<uint64_t>(above) < s->reservation.below.load())) {
        PG_RETURN_INT64(static_cast<int64_t>(s->floor.load()));
    }
    const uint64_t floor_id = static_cast<uint64_t>(above) + 1;
    const int64_t floor_ts = static_cast<int64_t>(floor_id >> layout.timestamp_shift());
    if (floor_ts > layout.max_timestamp()) {
        char end_text[40];
        snowflake::format_utc(layout.end_unix_ms(), end_text, sizeof end_text);
        ereport(ERROR, (errcode(ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED),
                        errmsg("no snowflake ID lies above %lld", static_cast<long long>(above)),
                        errdetail("The layout's last ID is at %s.", end_text)));
    }
    if (!PG_ARGISNULL(1)) {
        const int64_t lead_ms = layout.epoch_unix_ms() + floor_ts - sf_wall_clock_ms();
        if (lead_ms > PG_GETARG_INT64(1)) {
            PG_RETURN_NULL();
        }
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
    PG_RETURN_INT64(static_cast<int64_t>(s->floor.load()));
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
    if (!xact_callback_registered) {
        RegisterXactCallback(origins_xact_callback, nullptr);
        xact_callback_registered = true;
    }
    origins_arrived = true;
    return static_cast<Datum>(0);  // a statement trigger returns nothing
}
