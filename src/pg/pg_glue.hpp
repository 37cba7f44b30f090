// Declarations shared by the PostgreSQL glue files (src/pg/, src/pg/registry/):
// the settings, the errors, the clocks, and each file's functions that
// other files call, under the name of the file that defines them. The
// shared memory the generator works in, and its protocol: pg_shared.hpp.
//
// The glue is the only code that includes PostgreSQL headers. Its rules:
//   1. Core headers and standard headers come first, PostgreSQL's last:
//      src/core/pure_cpp.hpp refuses to compile otherwise, and PostgreSQL's
//      port.h redefines snprintf and friends.
//   2. The extension is built with -fno-exceptions: nothing can throw, so no
//      C++ exception can reach PostgreSQL.
//   3. A function that may ereport(ERROR) or CHECK_FOR_INTERRUPTS() keeps
//      only trivially destructible locals (ints, PODs such as
//      snowflake::Error), so the longjmp of an ERROR never skips a
//      destructor. The core calls no PostgreSQL function (but for the
//      character rule pg_errors.cpp installs, which raises nothing) and owns
//      nothing that needs unwinding; interrupts come back from it as a status.
//   4. Core failures arrive as snowflake::Error and leave through
//      sf_raise(), which maps them to SQLSTATEs in one place.
#pragma once

#include <atomic>
#include <cstdint>

#include "core/clock_units.hpp"
#include "core/error.hpp"
#include "core/generator.hpp"
#include "core/layout.hpp"
#include "core/resume.hpp"
#include "core/state_record.hpp"
#include "registry/registry_env.hpp"

extern "C" {
#include "postgres.h"

#include "access/xlogdefs.h"
#include "datatype/timestamp.h"
#include "fmgr.h"
#include "funcapi.h"
}

struct SharedState;  // pg_shared.hpp

// 2000-01-01T00:00:00Z, PostgreSQL's epoch, in ms since 1970.
inline constexpr int64_t kPostgresEpochUnixMs =
    static_cast<int64_t>(POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY * 1000;

// A timestamptz for ms since 1970; the core keeps them <= 9999-12-31.
inline TimestampTz sf_timestamptz_of(int64_t unix_ms) {
    return (unix_ms - kPostgresEpochUnixMs) * 1000;
}

// The millisecond (since 1970) holding a finite timestamptz, rounded down.
// Whole milliseconds first: ts's microseconds since 2000 plus 30 years
// would overflow near timestamptz's upper end.
inline int64_t sf_unix_ms_floor(TimestampTz ts) {
    int64_t ms = ts / 1000;
    if (ts % 1000 < 0) {
        --ms;
    }
    return ms + kPostgresEpochUnixMs;
}

using snowflake::kNsPerMs;

// --- pg_settings.cpp ----------------------------------------------------------

// Settings (see README "Settings"). Plain ints so the GUC machinery can
// write them; read by the backend that owns them.
extern int sf_worker_id;
extern int sf_datacenter_id;
extern int sf_max_clock_drift_ms;
extern int sf_max_wait_ms;
extern int sf_lease_ttl_ms;
// snowflake_id.registry: a libpq connection string, or "" (no registry).
extern char *sf_registry;
// snowflake_id.public_key: 32 hex digits, or "" (none); nullptr without the
// preload, which leaves it undefined (a placeholder every role can read).
extern char *sf_public_key;
// sf_worker_id for worker_id = 'auto'.
inline constexpr int kWorkerIdAuto = -2;
// snowflake_id.on_clock_step_back.
enum StepBack { kStepBackError = 0, kStepBackSwitchNode = 1 };
extern int sf_on_clock_step_back;
// snowflake_id.on_replaced: what an old primary does once a promoted standby
// of its own holds a lease (docs/many-servers.md, "Failover and split brain").
enum OnReplaced { kOnReplacedRefuse = 0, kOnReplacedLeaseAnother = 1 };
extern int sf_on_replaced;
// snowflake_id.takeover: what a server does with a node id lease whose floor
// (another holder's recorded bound) lies ahead of its clock: run ahead of
// the clock from it ('lead'), or issue nothing until the clock reaches it
// ('wait'; docs/many-servers.md, "Takeovers without the lead").
enum Takeover { kTakeoverLead = 0, kTakeoverWait = 1 };
extern int sf_takeover;

// Whether a registry of node ids is configured.
bool sf_registry_configured();
// Checks the settings that go with a registry ('auto' needs one; with
// 'auto' the lease gives the datacenter id too); reports what is wrong at
// elevel (WARNING at start, ERROR from snowflake_nextval) and returns false.
bool sf_check_registry_settings(int elevel);
// on_clock_step_back = 'switch_node' with what it needs: worker_id = 'auto'
// and a registry.
bool sf_switch_node_enabled();
// False, reported at elevel, if 'switch_node' is set without them.
bool sf_check_step_back_setting(int elevel);

// The layout every function of this backend uses. With the library
// preloaded it is fixed at server start (the layout settings are
// PGC_POSTMASTER). Without the preload it is read once, when the library is
// loaded, from the same settings in the server configuration; sf_layout_ok is
// false then if they are invalid, and sf_layout_error says why.
extern snowflake::Layout sf_layout;
extern bool sf_layout_ok;
extern snowflake::Error sf_layout_error;
// The layout for decoding; raises if the configured layout is invalid.
const snowflake::Layout &sf_decoding_layout();

// _PG_init's part (the other: sf_install_shmem_hooks, pg_shmem.cpp).
void sf_load_settings(bool preloading);

// --- pg_errors.cpp ------------------------------------------------------------

// Raises err as an ERROR (or at `elevel`) with the SQLSTATE for its code.
[[noreturn]] void sf_raise(const snowflake::Error &err);
// The same with another hint (palloc'd, of any length) in place of err's.
[[noreturn]] void sf_raise_with_hint(const snowflake::Error &err, const char *hint);
void sf_report(int elevel, const snowflake::Error &err);
// Refuses `call` (its name as the message says it, "snowflake_nextval()")
// in a read-only transaction with 25006, as nextval() does: it would write
// WAL and the state file and move where every session's IDs resume. Checked
// after RecoveryInProgress(), whose message a standby keeps.
void sf_refuse_in_read_only(const char *call);
// Has the core cut and count the input its messages quote by the
// database's encoding (snowflake::set_character_length); _PG_init's first step.
void sf_quote_by_database_encoding();

// --- pg_decode.cpp ------------------------------------------------------------

// The (ts, datacenter_id, worker_id, sequence) record the decoders return.
// *desc caches the blessed row type in fn_mcxt: looking it up per row costs
// more than decoding.
Datum sf_decoded_record(FunctionCallInfo fcinfo, TupleDesc *desc, int64_t unix_ms,
                        int64_t datacenter_id, int64_t worker_id, int64_t sequence);

// --- pg_clock.cpp -------------------------------------------------------------

// Milliseconds since 1970-01-01 UTC by CLOCK_REALTIME.
int64_t sf_wall_clock_ms();
// The same in nanoseconds: the generator's wait for a millisecond's boundary.
int64_t sf_wall_clock_ns();
// Nanoseconds by CLOCK_MONOTONIC: deadlines, and the catch-up clock's pace.
int64_t sf_monotonic_ns();
// Milliseconds of the generator's clock: the wall clock, or the catch-up
// clock while it is ahead; _at takes a wall-clock reading the caller made.
int64_t sf_generator_clock_ms();
int64_t sf_generator_clock_at(int64_t wall_unix_ms);
// The same, but a reading past the catch-up clock does not end it: for the
// registry worker, whose reading must not take the catch-up away from the
// backends, which issue by their own readings (and libfaketime in the tests
// can leave the worker on the real clock).
int64_t sf_generator_clock_peek_ms();

// --- pg_shmem.cpp -------------------------------------------------------------

// _PG_init's part: shared memory, the state file read at start and the
// exact floor written at stop.
void sf_install_shmem_hooks();

// --- pg_resume.cpp ------------------------------------------------------------

// Decides where the generator resumes from the floor now in shared memory,
// sets the catch-up clock and the refusal, and logs it. `after_recovery`:
// called at the end of WAL replay, logs only if replay moved the floor.
void sf_resume(bool after_recovery);
// Raises the generator's floor to a lease's floor (ms since 1970): the
// catch-up clock takes over if it lies ahead of the clock.
// With snowflake_id.takeover = 'wait' it closes the takeover gate there
// instead.
void sf_resume_at_lease_floor(int64_t floor_unix_ms, int64_t node);
// snowflake_id.takeover turned to 'lead' while the gate is closed: the
// catch-up clock runs from the gate's time, and the gate opens. True if
// this call opened it.
bool sf_lead_from_takeover_gate();
// Under SharedState::lock, exclusive: raises the generator's floor to
// floor_id, the catch-up clock started there (lead_from_lease: the lead is
// a lease's, as records then say). False, with nothing changed, where the
// floor is there already.
bool sf_raise_floor_locked(uint64_t floor_id, bool lead_from_lease, snowflake::ResumePlan *plan);
// --- pg_origins.cpp ------------------------------------------------------------

// The generation of origins this backend has checked its database at
// (SharedState::origins_generation): snowflake_nextval() calls
// sf_check_origins when it differs, which checks the database for IDs
// restored from another server, raises the floor above them or ERRORs.
extern uint64_t sf_origins_checked;
void sf_check_origins(uint64_t generation);
// The schema of the extension's functions, or InvalidOid.
Oid sf_extension_schema(Oid extension);
// After a COPY FROM into `table` (ProcessUtility hook) of `columns` (its
// column list, String nodes; NIL: every column): raises the floor above
// those ID columns of the table and its partitions, before the COPY's
// transaction commits; a load it cannot take on is recorded in
// snowflake_origin, so that the database's first ID checks it again.
void sf_check_copied(Oid table, List *columns);
// Installs that hook (the shmem_request_hook, after every preloaded
// library's _PG_init: Citus must set its hooks first).
void sf_install_copy_hook();

// --- pg_restore_scan.cpp -------------------------------------------------------

// The largest value of one ID column, and whether only superusers can have
// written it.
struct SfColumnTop {
    Oid relid;
    AttrNumber attnum;
    int64 top;
    bool trusted;
    // The row holding the top was written by this transaction, into a table
    // that no enabled trigger of a user's can rewrite rows of.
    bool written_here;
};
// Whether the table has an enabled trigger that is not the system's own.
bool sf_has_user_triggers(Oid relid);
// The newest snapshot the backend may take: the latest, or inside a
// parallel operation the query's own.
Snapshot sf_newest_snapshot();
// Reads every ID column of the database (only_table: of that table and its
// inheritance children and partitions; only_columns, a list of String
// nodes: those of these names) without the planner or any user code;
// *tops (palloc'd) holds those that hold a value. Returns how many.
int sf_scan_id_columns(Oid only_table, List *only_columns, SfColumnTop **tops);

// The recorded and the configured layout, for messages.
struct LayoutTexts {
    char stored[160];
    char configured[160];
};
void sf_describe_layouts(const snowflake::StateRecord &stored, LayoutTexts *out);
// Why a stale state file (Refusal::state_stale) is not trusted, for a DETAIL.
struct StaleStateText {
    char detail[640];
};
void sf_describe_stale_state(const SharedState *s, StaleStateText *out);
// Why a cluster made by pg_upgrade refuses (Refusal::upgrade_*), and what
// to do, for the start-up WARNING and the ERROR.
struct UpgradeRefusalText {
    char message[200];
    char detail[400];
    char hint[700];
};
enum class Refusal : int;
void sf_describe_upgrade_refusal(Refusal refusal, UpgradeRefusalText *out);

// --- pg_state_file.cpp --------------------------------------------------------

// Both return 0 or an errno; they never raise, so the postmaster can use
// them.
// Why a state file that exists holds no usable record. Only `corrupt` is
// about its bytes; the others are what a copy gone wrong leaves (a file the
// server's account cannot open, a directory, an empty file), and their
// remedy is not to remove the file.
enum class StateFileProblem : int { none = 0, cannot_open, not_a_file, empty, corrupt };
struct StateFileRead {
    bool found = false;  // the file exists
    bool valid = false;  // and a slot of it holds a valid record
    snowflake::StateRecord record;
    StateFileProblem problem = StateFileProblem::none;
    int error = 0;  // the errno of cannot_open
    // The file's owner and mode as stat() sees them (0 if it could not).
    unsigned owner_uid = 0;
    unsigned mode = 0;
};
int sf_state_file_read(StateFileRead *out);
int sf_state_file_write(const snowflake::StateRecord &record);
extern const char *const sf_state_file_name;
// Under `lock`: moves the state file out of the way (a set-aside confirmed
// by the registry, registry/pg_registry.cpp), so that the next write builds
// a new one whole. 0 or an errno.
int sf_state_file_set_aside();
extern const char *const sf_state_file_set_aside_name;
// The mark a binary-upgrade start (pg_upgrade) leaves in a data directory
// without a state file of its own (docs/upgrading.md, "How the new cluster
// knows"): the first normal start refuses to issue until a usable state
// file is there, and the first write of a state file of its own removes it.
extern const char *const sf_upgrade_mark_name;
bool sf_upgrade_mark_present();
int sf_upgrade_mark_write();
// The way out of a refusal for a file the server cannot use (unreadable,
// not a file, empty, corrupt: StateFileProblem), for the ERROR and the
// start-up WARNING: errmsg's reason, errdetail and errhint texts.
struct StateProblemText {
    char reason[160];
    char detail[400];
    char hint[600];
};
void sf_describe_state_problem(StateFileProblem problem, int error, unsigned owner_uid,
                               unsigned mode, StateProblemText *out);
// Writes under `lock`, raising ERROR on failure.
void sf_store_record_locked(const snowflake::StateRecord &record);
// The way out of an unreadable or stale state file that is safe as written,
// naming the file's full path: an errhint() for the start-up WARNING and
// the ERRORs.
int sf_errhint_state_file_way_out();

// --- pg_control_file.cpp ------------------------------------------------------

// False if pg_control cannot be read or checked. Never raises.
bool sf_read_last_shutdown(snowflake::LastShutdown *out);

// --- pg_wal_scan.cpp ----------------------------------------------------------

// Whether a state record older than the last clean shutdown is still right,
// because only runs without the library came between (the WAL from the
// record's checkpoint to the shutdown's holds no reservation). Logs when it
// is. False when it cannot tell.
bool sf_state_unchanged_since(const snowflake::StateRecord &record,
                              const snowflake::LastShutdown &shutdown);

// --- pg_wal.cpp ---------------------------------------------------------------

void sf_register_wal_rmgr();
int sf_wal_rmgr_id();
XLogRecPtr sf_log_record(const snowflake::StateRecord &record);

// --- pg_reserve.cpp -----------------------------------------------------------

// Raises an atomic word to at least value (it only grows).
void sf_raise_to(std::atomic<uint64_t> &word, uint64_t value);
// Under `lock`: records `bound` under the configured layout in the state file
// and WAL, flushes, and marks it pending; returns its WAL position, which
// the caller hands to sf_wait_for_sync_standbys after releasing the lock.
XLogRecPtr sf_write_reservation_locked(uint64_t bound);
// Makes sure IDs below need_id + 1 are durably reserved, raising ERROR if it
// cannot (ReserveFor::issue: need_id is the ID to issue). A renewal ahead of
// need (ReserveFor::renewal: need_id is the last ID issued, at or past the
// renew point) extends the reservation a window past need_id, unless
// another backend has done so; it gives up at once when another backend
// holds the lock.
enum class ReserveFor { issue, renewal };
void sf_reserve(uint64_t need_id, ReserveFor why);
void sf_wait_for_sync_standbys(XLogRecPtr lsn);

// --- pg_generate.cpp ----------------------------------------------------------

// An ID at need_id would pass the bound the registry recorded for the
// lease: the lease has run out in ID time.
[[noreturn]] void sf_raise_lease_bound_reached(uint64_t need_id);

// --- pg_status.cpp ------------------------------------------------------------

// The counters' slots (StatusCounters, pg_shared.hpp).
Size sf_status_shmem_size();
void sf_status_shmem_init();  // under AddinShmemInitLock

// --- registry/pg_registry.cpp -------------------------------------------------

// The background worker that leases the node id.
void sf_register_registry_worker();
// The registry as messages name it, never the password, palloc'd: the
// setting, and so the text, have no length limit.
char *sf_describe_registry();
// How long one connection attempt or query to the registry may take.
using snowflake::kRegistryTimeoutMs;
// When a registry call started now must give up: after kRegistryTimeoutMs,
// or at the lease's deadline if that comes first.
int64_t sf_registry_call_until_ns();
