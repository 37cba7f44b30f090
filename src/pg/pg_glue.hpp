// Declarations shared by the PostgreSQL glue files (src/pg/, src/pg/registry/).
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
//      destructor. The core calls no PostgreSQL function and owns nothing
//      that needs unwinding; interrupts come back from it as a status.
//   4. Core failures arrive as snowflake::Error and leave through
//      sf_raise(), which maps them to SQLSTATEs in one place.
#pragma once

#include <atomic>
#include <cstdint>

#include "core/error.hpp"
#include "core/generator.hpp"
#include "core/layout.hpp"

extern "C" {
#include "postgres.h"

#include "datatype/timestamp.h"
#include "fmgr.h"
#include "funcapi.h"
}

// 2000-01-01T00:00:00Z, PostgreSQL's epoch, in ms since 1970.
inline constexpr int64_t kPostgresEpochUnixMs =
    static_cast<int64_t>(POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY * 1000;

// A timestamptz for ms since 1970; the core keeps them <= 9999-12-31.
inline TimestampTz sf_timestamptz_of(int64_t unix_ms) {
    return (unix_ms - kPostgresEpochUnixMs) * 1000;
}

// Settings (see README "Settings"). Plain ints so the GUC machinery can
// write them; read by the backend that owns them.
extern int sf_worker_id;
extern int sf_datacenter_id;
extern int sf_max_clock_drift_ms;
extern int sf_max_wait_ms;
extern int sf_lease_ttl_ms;
// snowflake_id.registry: a libpq connection string, or "" (no registry).
extern char *sf_registry;
// sf_worker_id for worker_id = 'auto'.
inline constexpr int kWorkerIdAuto = -2;
// snowflake_id.on_clock_step_back.
enum StepBack { kStepBackError = 0, kStepBackSwitchNode = 1 };
extern int sf_on_clock_step_back;

// Whether a registry of node ids is configured (registry/pg_registry.cpp).
bool sf_registry_configured();
// The registry as messages name it, never the password, palloc'd: the
// setting, and so the text, have no length limit.
char *sf_describe_registry();
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

// _PG_init's parts.
void sf_load_settings(bool preloading);
void sf_install_shmem_hooks();

// Raises err as an ERROR (or at `elevel`) with the SQLSTATE for its code.
[[noreturn]] void sf_raise(const snowflake::Error &err);
// The same with another hint (palloc'd, of any length) in place of err's.
[[noreturn]] void sf_raise_with_hint(const snowflake::Error &err, const char *hint);
void sf_report(int elevel, const snowflake::Error &err);

// The (ts, datacenter_id, worker_id, sequence) record the decoders return.
// *desc caches the blessed row type in fn_mcxt: looking it up per row costs
// more than decoding.
Datum sf_decoded_record(FunctionCallInfo fcinfo, TupleDesc *desc, int64_t unix_ms,
                        int64_t datacenter_id, int64_t worker_id, int64_t sequence);

// The layout for decoding; raises if the configured layout is invalid.
const snowflake::Layout &sf_decoding_layout();

// Milliseconds since 1970-01-01 UTC by CLOCK_REALTIME.
int64_t sf_wall_clock_ms();
