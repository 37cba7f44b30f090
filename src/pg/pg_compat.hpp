// Every difference between the PostgreSQL majors snowflake_id builds against
// (15 to 19) lives here, so call sites read the same on all of them and
// nothing else in the tree tests PG_VERSION_NUM.
//
// What the headers cannot decide is decided at run time: a minor release may
// change a shared structure without changing the major (the synchronous
// standby flag below), and a library built against one minor's headers runs
// on any other minor of that major.
#pragma once

extern "C" {
#include "postgres.h"

#include "access/genam.h"
#include "access/tableam.h"
#include "access/xlogreader.h"
#include "fmgr.h"
#include "lib/ilist.h"
#include "miscadmin.h"
#include "replication/syncrep.h"
#include "replication/walsender_private.h"
#include "storage/proc.h"
#include "utils/guc.h"
#include "utils/guc_tables.h"
#include "utils/syscache.h"
// The varlena macros (VARDATA_ANY, ...) moved to varatt.h in 16, and 19's
// postgres.h no longer includes it.
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif
}

// Custom WAL resource managers (the durable reservation) came in 15.
#if PG_VERSION_NUM < 150000
#error "snowflake_id needs PostgreSQL 15 or later"
#endif

// PG_MODULE_MAGIC_EXT (18 and later) also records the module's name and
// version, which pg_get_loaded_modules() shows. SF_EXTENSION_VERSION comes
// from the control file's default_version (Makefile).
#ifdef PG_MODULE_MAGIC_EXT
#define SF_MODULE_MAGIC PG_MODULE_MAGIC_EXT(.name = "snowflake_id", .version = SF_EXTENSION_VERSION)
#else
#define SF_MODULE_MAGIC PG_MODULE_MAGIC
#endif

// A syscache invalidation callback's cache id: an enum since 19.
#if PG_VERSION_NUM >= 190000
typedef SysCacheIdentifier SfSyscacheId;
#else
typedef int SfSyscacheId;
#endif

// The array of every setting, placeholders included.
inline struct config_generic **sf_compat_guc_variables(int *count) {
#if PG_VERSION_NUM >= 160000
    return get_guc_variables(count);
#else
    *count = GetNumConfigOptions();
    return get_guc_variables();
#endif
}

// Memory for a check hook's `extra`, which PostgreSQL frees itself: with
// guc_malloc since 16, which tracks it in its own context, plain malloc before.
inline void *sf_compat_guc_extra_alloc(size_t size) {
#if PG_VERSION_NUM >= 160000
    return guc_malloc(LOG, size);
#else
    return malloc(size);
#endif
}

// This process's index among the PGPROCs, or -1 before it has one.
inline int sf_compat_my_proc_number() {
#if PG_VERSION_NUM >= 170000
    return MyProcNumber;
#else
    return MyProc != nullptr ? MyProc->pgprocno : -1;
#endif
}

// The commit waiters' queue for one wait mode, ordered by LSN: a doubly
// linked dlist since 16, a SHM_QUEUE before. Both functions run under
// SyncRepLock, exclusive. ilist.h's iteration macros assert their argument
// types with a C-only builtin, so the dlist is walked by hand.
inline void sf_compat_syncrep_queue_insert_locked(int mode, XLogRecPtr lsn) {
    MyProc->waitLSN = lsn;
    MyProc->syncRepState = SYNC_REP_WAITING;
#if PG_VERSION_NUM >= 160000
    dlist_head *queue = &WalSndCtl->SyncRepQueue[mode];
    // From the tail: after the last waiter whose LSN is below ours.
    for (dlist_node *node = queue->head.prev; node != nullptr && node != &queue->head;
         node = node->prev) {
        auto *proc = reinterpret_cast<PGPROC *>(reinterpret_cast<char *>(node) -
                                                offsetof(PGPROC, syncRepLinks));
        if (proc->waitLSN < lsn) {
            dlist_insert_after(&proc->syncRepLinks, &MyProc->syncRepLinks);
            return;
        }
    }
    dlist_push_head(queue, &MyProc->syncRepLinks);
#else
    SHM_QUEUE *queue = &WalSndCtl->SyncRepQueue[mode];
    const Size link = offsetof(PGPROC, syncRepLinks);
    // From the tail: after the last waiter whose LSN is below ours.
    auto *proc = reinterpret_cast<PGPROC *>(SHMQueuePrev(queue, queue, link));
    while (proc != nullptr && proc->waitLSN >= lsn) {
        proc = reinterpret_cast<PGPROC *>(SHMQueuePrev(queue, &proc->syncRepLinks, link));
    }
    SHMQueueInsertAfter(proc != nullptr ? &proc->syncRepLinks : queue, &MyProc->syncRepLinks);
#endif
}

inline void sf_compat_syncrep_queue_remove_locked() {
#if PG_VERSION_NUM >= 160000
    if (!dlist_node_is_detached(&MyProc->syncRepLinks)) {
        dlist_delete_thoroughly(&MyProc->syncRepLinks);
    }
#else
    if (!SHMQueueIsDetached(&MyProc->syncRepLinks)) {
        SHMQueueDelete(&MyProc->syncRepLinks);
    }
#endif
}

// Whether synchronous standbys are configured, as the checkpointer publishes
// it in WalSndCtl; under SyncRepLock. The minor releases of May 2025 (15.13,
// 16.9, 17.5; 18 from its start) turned the bool sync_standbys_defined into
// the bits of sync_standbys_status, in the same byte: 0x01 "initialised",
// 0x02 "defined". The two readings disagree on the value 1 ("defined" to an
// old server, "initialised, none defined" to a new one), so the byte is read
// by the rule of the server the library runs in, which
// sf_compat_init_running_server() learns from server_version_num: a library
// built against newer headers must not skip the standby wait on an older
// server, nor wait for nothing on a newer one.
//
// Whether a server of version_num (server_version_num) publishes the bits:
constexpr bool sf_compat_version_has_sync_status_bits(int version_num) {
    const int major = version_num / 10000;
    const int minor = version_num % 10000;
    return major >= 18 || (major == 17 && minor >= 5) || (major == 16 && minor >= 9) ||
           (major == 15 && minor >= 13);
}

// and whether the running one does.
inline bool sf_compat_server_has_sync_status_bits = false;

constexpr uint8 kSfSyncStandbyDefinedBit = 1 << 1;
#ifdef SYNC_STANDBY_DEFINED
static_assert(SYNC_STANDBY_DEFINED == kSfSyncStandbyDefinedBit,
              "the bit that says synchronous standbys are defined moved");
#endif

inline bool sf_compat_sync_standbys_defined_locked() {
#ifdef SYNC_STANDBY_DEFINED
    const uint8 raw = WalSndCtl->sync_standbys_status;
#else
    // Headers from before the change declare a bool, which a newer server
    // fills with the bits (3 for "initialised and defined"). Read as a bool,
    // the compiler may take the byte to be 0 or 1 and fold `raw & 0x02` to
    // false, skipping every wait (seen with 16.2's headers on 16.14): copy
    // the byte itself.
    uint8 raw = 0;
    static_assert(sizeof WalSndCtl->sync_standbys_defined == sizeof raw);
    memcpy(&raw, &WalSndCtl->sync_standbys_defined, sizeof raw);
#endif
    return sf_compat_server_has_sync_status_bits ? (raw & kSfSyncStandbyDefinedBit) != 0 : raw != 0;
}

// Learns the running server's rules; _PG_init calls it, before any backend
// forks from the postmaster.
inline void sf_compat_init_running_server() {
    const char *version = GetConfigOption("server_version_num", false, false);
    sf_compat_server_has_sync_status_bits =
        version != nullptr && sf_compat_version_has_sync_status_bits(atoi(version));
}

// XLogFindNextRecord gained an error message argument in 19.
inline XLogRecPtr sf_compat_xlog_find_next_record(XLogReaderState *reader, XLogRecPtr from) {
#if PG_VERSION_NUM >= 190000
    char *errormsg = nullptr;
    return XLogFindNextRecord(reader, from, &errormsg);
#else
    return XLogFindNextRecord(reader, from);
#endif
}

// A heap scan of every row: scans took flags in 19.
inline TableScanDesc sf_compat_table_beginscan(Relation rel, Snapshot snapshot) {
#if PG_VERSION_NUM >= 190000
    return table_beginscan(rel, snapshot, 0, nullptr, SO_NONE);
#else
    return table_beginscan(rel, snapshot, 0, nullptr);
#endif
}

// An index scan with nkeys keys and no ordering operator: instrumentation
// came in 18, flags in 19.
inline IndexScanDesc sf_compat_index_beginscan(Relation heap, Relation index, Snapshot snapshot,
                                               int nkeys) {
#if PG_VERSION_NUM >= 190000
    return index_beginscan(heap, index, snapshot, nullptr, nkeys, 0, SO_NONE);
#elif PG_VERSION_NUM >= 180000
    return index_beginscan(heap, index, snapshot, nullptr, nkeys, 0);
#else
    return index_beginscan(heap, index, snapshot, nkeys, 0);
#endif
}
