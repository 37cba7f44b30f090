// The module's entry point.
#include "pg_glue.hpp"
// After the core headers (src/core/pure_cpp.hpp).
#include "pg_compat.hpp"

extern "C" {
#include "fmgr.h"
#include "miscadmin.h"

SF_MODULE_MAGIC;

// PG 15's fmgr.h does not declare _PG_init; without C linkage g++ would mangle
// the name and the server would never call it.
PGDLLEXPORT void _PG_init(void);
}

// _PG_init: with shared_preload_libraries, validate and define the settings
// (a bad layout stops the server), register the WAL resource manager (only
// allowed while preloading) and ask for shared memory. Without it,
// only read the layout for the decoders: defining PGC_POSTMASTER settings
// after start-up is FATAL, and snowflake_nextval() explains the missing
// preload when called. pg_upgrade's own starts of the old and the new
// cluster (binary-upgrade mode) get no registry worker: a lease taken there
// would belong to neither cluster's real run (docs/upgrading.md).
void _PG_init(void) {
    const bool preloading = process_shared_preload_libraries_in_progress;
    sf_quote_by_database_encoding();
    sf_compat_init_running_server();
    sf_load_settings(preloading);
    if (preloading) {
        sf_register_wal_rmgr();
        sf_install_shmem_hooks();  // installs the COPY hook too, once every library is loaded
        if (sf_registry_configured() && !IsBinaryUpgrade) {
            sf_register_registry_worker();
        }
    }
}
