// The restore check's reader (docs/durability.md, "Logical restores"): the
// largest value of every ID column of the database, found and read
// without the planner, the executor or any code a user wrote.
//
// Threat model. The check runs in whatever backend issues a database's
// first ID after rows arrived in snowflake_origin, in the transaction that
// brings them (their trigger, at pre-commit) and after every COPY FROM
// into a table with an ID column: so any role that can insert a row, run a
// COPY or call snowflake_nextval() triggers it, whatever its rights, and
// its results decide where the server-wide generator's floor goes. It
// therefore
//  - runs as the calling role and needs no privilege on what it reads (it
//    reads the way VACUUM does, through the access methods), and so never
//    becomes another role;
//  - reads the catalogs (pg_depend, pg_attrdef, pg_type, pg_inherits,
//    pg_index, pg_class, pg_attribute) through systable scans and the
//    syscache, and each column through a plain btree index or the heap;
//  - never plans, executes or evaluates anything: no SQL over a user's
//    table, no index predicate or expression (RelationGetIndexPredicate
//    and RelationGetIndexExpressions fold constants, which runs IMMUTABLE
//    functions of the table's owner: never called here), no extended
//    statistics, no domain CHECK (the raw datum is read, not cast), no
//    partition key or bound, no rule, no view, no row security policy, no
//    trigger, no operator or function but int8's and the snowflake type's
//    btree support (opclasses need a superuser to create) and numeric's;
//  - reads only relkind 'r' tables that are not temporary (another
//    session's temporary table cannot be read, and our own is no
//    restore's): partitioned tables through their partitions, inheritance
//    parents with their children; foreign tables, views and materialized
//    views are not read (docs/durability.md lists them as unseen);
//  - treats every value as untrusted input unless only superusers can have
//    written it (trusted_source below): pg_origins.cpp lets an untrusted
//    value move the floor at most max_clock_drift ahead of the clock.
#include "pg_shared.hpp"
#include "pg_compat.hpp"

extern "C" {
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/nbtree.h"
#include "access/relscan.h"
#include "access/skey.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/indexing.h"
#include "catalog/partition.h"
#include "catalog/pg_am.h"
#include "catalog/pg_attrdef.h"
#include "catalog/pg_class.h"
#include "catalog/pg_depend.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_auth_members.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "commands/extension.h"
#include "nodes/value.h"
#include "parser/parse_func.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "access/xact.h"
#include "utils/rel.h"
#include "commands/trigger.h"
#include "utils/reltrigger.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
}

namespace {

// A column found by the rule: its table and its name (children and
// partitions match by name; their attnums may differ).
struct FoundColumn {
    Oid relid;
    AttrNumber attnum;
};

bool already_found(const FoundColumn *found, int count, Oid relid, AttrNumber attnum) {
    for (int i = 0; i < count; ++i) {
        if (found[i].relid == relid && found[i].attnum == attnum) {
            return true;
        }
    }
    return false;
}

// The dependents of `refobjid` in class `refclassid` recorded in pg_depend,
// as (classid, objid, objsubid) triples appended to three lists.
void dependents_of(Oid refclassid, Oid refobjid, List **classes, List **objects, List **subids) {
    Relation depend = table_open(DependRelationId, AccessShareLock);
    ScanKeyData keys[2];
    ScanKeyInit(&keys[0], Anum_pg_depend_refclassid, BTEqualStrategyNumber, F_OIDEQ,
                ObjectIdGetDatum(refclassid));
    ScanKeyInit(&keys[1], Anum_pg_depend_refobjid, BTEqualStrategyNumber, F_OIDEQ,
                ObjectIdGetDatum(refobjid));
    SysScanDesc scan = systable_beginscan(depend, DependReferenceIndexId, true, nullptr, 2, keys);
    HeapTuple tuple;
    while (HeapTupleIsValid(tuple = systable_getnext(scan))) {
        const Form_pg_depend dep = reinterpret_cast<Form_pg_depend>(GETSTRUCT(tuple));
        *classes = lappend_oid(*classes, dep->classid);
        *objects = lappend_oid(*objects, dep->objid);
        *subids = lappend_int(*subids, dep->objsubid);
    }
    systable_endscan(scan);
    table_close(depend, AccessShareLock);
}

// Whether the column's type is bigint or snowflake, through any domains.
bool id_typed(Oid relid, AttrNumber attnum, Oid snowflake_type) {
    const Oid base = getBaseType(get_atttype(relid, attnum));
    return base == INT8OID || (OidIsValid(snowflake_type) && base == snowflake_type);
}

// Adds the column and the same-named column of every inheritance child and
// partition of its table (a partition attached with ATTACH PARTITION has
// no default of its own; rows inserted through the parent get the
// parent's).
void add_with_children(Oid relid, AttrNumber attnum, Oid snowflake_type, FoundColumn **found,
                       int *count, int *capacity) {
    const char relkind = get_rel_relkind(relid);
    if (relkind != RELKIND_RELATION && relkind != RELKIND_PARTITIONED_TABLE) {
        return;  // foreign tables, views, matviews, composite types: unseen
    }
    char *name = get_attname(relid, attnum, true);
    if (name == nullptr) {
        return;
    }
    List *tables = find_all_inheritors(relid, NoLock, nullptr);
    ListCell *cell;
    foreach (cell, tables) {
        const Oid table = lfirst_oid(cell);
        if (get_rel_relkind(table) != RELKIND_RELATION ||
            get_rel_persistence(table) == RELPERSISTENCE_TEMP) {
            continue;
        }
        const AttrNumber column = get_attnum(table, name);
        if (column == InvalidAttrNumber || !id_typed(table, column, snowflake_type) ||
            already_found(*found, *count, table, column)) {
            continue;
        }
        if (*count == *capacity) {
            *capacity *= 2;
            *found = static_cast<FoundColumn *>(repalloc(*found, sizeof(FoundColumn) * *capacity));
        }
        (*found)[(*count)++] = FoundColumn{table, column};
    }
}

// Every ID column: columns whose default calls snowflake_nextval(), columns
// of a domain (or a domain over such a domain) whose default calls it, and
// their namesakes in every inheritance child and partition.
FoundColumn *find_id_columns(Oid nextval, Oid snowflake_type, int *count) {
    int capacity = 16;
    FoundColumn *found = static_cast<FoundColumn *>(palloc(sizeof(FoundColumn) * capacity));
    *count = 0;
    List *classes = NIL, *objects = NIL, *subids = NIL;
    dependents_of(ProcedureRelationId, nextval, &classes, &objects, &subids);
    List *domains = NIL;
    for (int i = 0; i < list_length(classes); ++i) {
        const Oid classid = list_nth_oid(classes, i);
        const Oid objid = list_nth_oid(objects, i);
        if (classid == AttrDefaultRelationId) {
            const ObjectAddress column = GetAttrDefaultColumnAddress(objid);
            if (OidIsValid(column.objectId)) {
                add_with_children(column.objectId, static_cast<AttrNumber>(column.objectSubId),
                                  snowflake_type, &found, count, &capacity);
            }
        } else if (classid == TypeRelationId && get_typtype(objid) == TYPTYPE_DOMAIN) {
            domains = list_append_unique_oid(domains, objid);
        }
    }
    // The domains' dependents: domains over them (walked in turn) and the
    // columns of those types. The list grows while it is walked.
    for (int d = 0; d < list_length(domains); ++d) {
        List *dep_classes = NIL, *dep_objects = NIL, *dep_subids = NIL;
        dependents_of(TypeRelationId, list_nth_oid(domains, d), &dep_classes, &dep_objects,
                      &dep_subids);
        for (int i = 0; i < list_length(dep_classes); ++i) {
            const Oid classid = list_nth_oid(dep_classes, i);
            const Oid objid = list_nth_oid(dep_objects, i);
            const int subid = list_nth_int(dep_subids, i);
            if (classid == TypeRelationId && get_typtype(objid) == TYPTYPE_DOMAIN) {
                domains = list_append_unique_oid(domains, objid);
            } else if (classid == RelationRelationId && subid > 0) {
                add_with_children(objid, static_cast<AttrNumber>(subid), snowflake_type, &found,
                                  count, &capacity);
            }
        }
    }
    return found;
}

// Whether the object (classid, objid) depends on `function` in pg_depend.
bool depends_on(Oid classid, Oid objid, Oid function) {
    Relation depend = table_open(DependRelationId, AccessShareLock);
    ScanKeyData keys[2];
    ScanKeyInit(&keys[0], Anum_pg_depend_classid, BTEqualStrategyNumber, F_OIDEQ,
                ObjectIdGetDatum(classid));
    ScanKeyInit(&keys[1], Anum_pg_depend_objid, BTEqualStrategyNumber, F_OIDEQ,
                ObjectIdGetDatum(objid));
    SysScanDesc scan = systable_beginscan(depend, DependDependerIndexId, true, nullptr, 2, keys);
    bool found = false;
    HeapTuple tuple;
    while (!found && HeapTupleIsValid(tuple = systable_getnext(scan))) {
        const Form_pg_depend dep = reinterpret_cast<Form_pg_depend>(GETSTRUCT(tuple));
        found = dep->refclassid == ProcedureRelationId && dep->refobjid == function;
    }
    systable_endscan(scan);
    table_close(depend, AccessShareLock);
    return found;
}

// Whether the column's default, or that of a domain its type is (through
// domains over domains), calls `nextval`.
bool id_column(Oid relid, AttrNumber attnum, Oid nextval) {
    const Oid attrdef = GetAttrDefaultOid(relid, attnum);
    if (OidIsValid(attrdef) && depends_on(AttrDefaultRelationId, attrdef, nextval)) {
        return true;
    }
    for (Oid type = get_atttype(relid, attnum); get_typtype(type) == TYPTYPE_DOMAIN;) {
        if (depends_on(TypeRelationId, type, nextval)) {
            return true;
        }
        HeapTuple tuple = SearchSysCache1(TYPEOID, ObjectIdGetDatum(type));
        if (!HeapTupleIsValid(tuple)) {
            break;
        }
        type = reinterpret_cast<Form_pg_type>(GETSTRUCT(tuple))->typbasetype;
        ReleaseSysCache(tuple);
    }
    return false;
}

// Adds the inheritance parents of `relid`, and theirs, to *tables.
void add_ancestors(Oid relid, List **tables) {
    Relation inherits = table_open(InheritsRelationId, AccessShareLock);
    ScanKeyData key;
    ScanKeyInit(&key, Anum_pg_inherits_inhrelid, BTEqualStrategyNumber, F_OIDEQ,
                ObjectIdGetDatum(relid));
    SysScanDesc scan =
        systable_beginscan(inherits, InheritsRelidSeqnoIndexId, true, nullptr, 1, &key);
    List *parents = NIL;
    HeapTuple tuple;
    while (HeapTupleIsValid(tuple = systable_getnext(scan))) {
        parents =
            lappend_oid(parents, reinterpret_cast<Form_pg_inherits>(GETSTRUCT(tuple))->inhparent);
    }
    systable_endscan(scan);
    table_close(inherits, AccessShareLock);
    ListCell *cell;
    foreach (cell, parents) {
        if (!list_member_oid(*tables, lfirst_oid(cell))) {
            *tables = lappend_oid(*tables, lfirst_oid(cell));
            add_ancestors(lfirst_oid(cell), tables);
        }
    }
}

// The ID columns of one table, its inheritance children and partitions
// (for a COPY into it): from its own columns and its ancestors', so that
// the cost follows the table, not the database.
FoundColumn *find_id_columns_of(Oid table, Oid nextval, Oid snowflake_type, int *count) {
    int capacity = 8;
    FoundColumn *found = static_cast<FoundColumn *>(palloc(sizeof(FoundColumn) * capacity));
    *count = 0;
    List *tables = list_make1_oid(table);
    add_ancestors(table, &tables);
    ListCell *cell;
    foreach (cell, tables) {
        const Oid relid = lfirst_oid(cell);
        HeapTuple rel = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
        if (!HeapTupleIsValid(rel)) {
            continue;
        }
        const int natts = reinterpret_cast<Form_pg_class>(GETSTRUCT(rel))->relnatts;
        ReleaseSysCache(rel);
        for (AttrNumber attnum = 1; attnum <= natts; ++attnum) {
            HeapTuple att = SearchSysCache2(ATTNUM, ObjectIdGetDatum(relid), Int16GetDatum(attnum));
            if (!HeapTupleIsValid(att)) {
                continue;
            }
            const bool dropped = reinterpret_cast<Form_pg_attribute>(GETSTRUCT(att))->attisdropped;
            ReleaseSysCache(att);
            if (!dropped && id_typed(relid, attnum, snowflake_type) &&
                id_column(relid, attnum, nextval)) {
                add_with_children(relid, attnum, snowflake_type, &found, count, &capacity);
            }
        }
    }
    return found;
}

// Whether an ACL grants INSERT or UPDATE to PUBLIC or to a role that is
// not a superuser.
bool acl_lets_others_write(Datum acl_datum) {
    Acl *acl = DatumGetAclP(acl_datum);
    const AclItem *items = ACL_DAT(acl);
    for (int i = 0; i < ACL_NUM(acl); ++i) {
        if ((ACLITEM_GET_PRIVS(items[i]) & (ACL_INSERT | ACL_UPDATE)) != 0 &&
            (items[i].ai_grantee == ACL_ID_PUBLIC || !superuser_arg(items[i].ai_grantee))) {
            return true;
        }
    }
    return false;
}

// Whether only superusers can write the column of this one table: its
// owner is a superuser, and neither the table's ACL nor the column's
// grants INSERT or UPDATE to anyone else.
bool only_superusers_write(Oid relid, const char *column) {
    HeapTuple rel = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
    if (!HeapTupleIsValid(rel)) {
        return false;
    }
    bool trusted = superuser_arg(reinterpret_cast<Form_pg_class>(GETSTRUCT(rel))->relowner);
    bool isnull = true;
    Datum acl = SysCacheGetAttr(RELOID, rel, Anum_pg_class_relacl, &isnull);
    if (trusted && !isnull && acl_lets_others_write(acl)) {
        trusted = false;
    }
    ReleaseSysCache(rel);
    if (!trusted) {
        return false;
    }
    HeapTuple att = SearchSysCacheAttName(relid, column);
    if (!HeapTupleIsValid(att)) {
        return true;  // the table has no such column: nothing to write there
    }
    acl = SysCacheGetAttr(ATTNAME, att, Anum_pg_attribute_attacl, &isnull);
    trusted = isnull || !acl_lets_others_write(acl);
    ReleaseSysCache(att);
    return trusted;
}

// Whether a role that is not a superuser holds pg_write_all_data (PostgreSQL
// 14 and later), which writes every table whatever its ACL. Members of a
// superuser's role that holds it are that superuser's grant, as below.
bool others_write_all_data() {
    Relation members = table_open(AuthMemRelationId, AccessShareLock);
    ScanKeyData key;
    ScanKeyInit(&key, Anum_pg_auth_members_roleid, BTEqualStrategyNumber, F_OIDEQ,
                ObjectIdGetDatum(ROLE_PG_WRITE_ALL_DATA));
    SysScanDesc scan = systable_beginscan(members, AuthMemRoleMemIndexId, true, nullptr, 1, &key);
    bool found = false;
    HeapTuple tuple;
    while (!found && HeapTupleIsValid(tuple = systable_getnext(scan))) {
        found = !superuser_arg(reinterpret_cast<Form_pg_auth_members>(GETSTRUCT(tuple))->member);
    }
    systable_endscan(scan);
    table_close(members, AccessShareLock);
    return found;
}

// Whether only superusers can have written the column's values: the table
// and every table above it, partitioned or inheritance parent (rows
// inserted or updated through a parent land in the child, checked against
// the parent's ACL only), and no non-superuser holding pg_write_all_data.
// Membership in a superuser's role is a superuser's grant, and so trusted.
bool trusted_source(Oid relid, AttrNumber attnum, bool others_write_all) {
    if (others_write_all) {
        return false;
    }
    char *column = get_attname(relid, attnum, false);
    if (!only_superusers_write(relid, column)) {
        return false;
    }
    List *ancestors = NIL;
    add_ancestors(relid, &ancestors);
    ListCell *cell;
    foreach (cell, ancestors) {
        if (!only_superusers_write(lfirst_oid(cell), column)) {
            return false;
        }
    }
    return true;
}

// The btree index to read the column's largest value from, or nullptr: a
// valid, ready index with neither predicate nor expression whose first key
// is the column itself, with the default btree opclass of its type.
Relation plain_btree_index(Relation rel, AttrNumber attnum, Oid type) {
    const Oid opclass = GetDefaultOpClass(type, BTREE_AM_OID);
    if (!OidIsValid(opclass)) {
        return nullptr;
    }
    const Oid family = get_opclass_family(opclass);
    List *indexes = RelationGetIndexList(rel);
    ListCell *cell;
    foreach (cell, indexes) {
        Relation index = index_open(lfirst_oid(cell), AccessShareLock);
        const Form_pg_index form = index->rd_index;
        if (index->rd_rel->relam == BTREE_AM_OID && form->indisvalid && form->indisready &&
            form->indislive && form->indnkeyatts >= 1 && form->indkey.values[0] == attnum &&
            heap_attisnull(index->rd_indextuple, Anum_pg_index_indpred, nullptr) &&
            heap_attisnull(index->rd_indextuple, Anum_pg_index_indexprs, nullptr) &&
            index->rd_opfamily[0] == family && index->rd_opcintype[0] == type) {
            return index;
        }
        index_close(index, AccessShareLock);
    }
    return nullptr;
}

// Whether this transaction wrote the row in the slot (its xmin is ours or
// one of our subtransactions').
bool written_by_this_transaction(TupleTableSlot *slot) {
    bool should_free = false;
    HeapTuple tuple = ExecFetchSlotHeapTuple(slot, false, &should_free);
    const bool here = TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetXmin(tuple->t_data));
    if (should_free) {
        heap_freetuple(tuple);
    }
    return here;
}

// The column's largest value visible to `snapshot`, from the high end of a
// plain btree index, else from a scan of the heap, and whether this
// transaction wrote the row holding it. False if it holds none.
bool read_top(Relation rel, AttrNumber attnum, Oid type, Snapshot snapshot, int64 *top,
              bool *written_here) {
    TupleTableSlot *slot = table_slot_create(rel, nullptr);
    bool found = false;
    Relation index = plain_btree_index(rel, attnum, type);
    if (index != nullptr) {
        ScanKeyData not_null;
        ScanKeyEntryInitialize(&not_null, SK_ISNULL | SK_SEARCHNOTNULL, 1, InvalidStrategy,
                               InvalidOid, InvalidOid, InvalidOid, static_cast<Datum>(0));
        IndexScanDesc scan = sf_compat_index_beginscan(rel, index, snapshot, 1);
        index_rescan(scan, &not_null, 1, nullptr, 0);
        // The largest value comes first from the high end: the start of a
        // DESC index, the end of an ASC one.
        const ScanDirection toward_top = (index->rd_indoption[0] & INDOPTION_DESC) != 0
                                             ? ForwardScanDirection
                                             : BackwardScanDirection;
        if (index_getnext_slot(scan, toward_top, slot)) {
            bool isnull = true;
            const Datum value = slot_getattr(slot, attnum, &isnull);
            if (!isnull) {
                *top = DatumGetInt64(value);
                *written_here = written_by_this_transaction(slot);
                found = true;
            }
        }
        index_endscan(scan);
        index_close(index, AccessShareLock);
    } else {
        TableScanDesc scan = sf_compat_table_beginscan(rel, snapshot);
        while (table_scan_getnextslot(scan, ForwardScanDirection, slot)) {
            CHECK_FOR_INTERRUPTS();
            bool isnull = true;
            const Datum value = slot_getattr(slot, attnum, &isnull);
            if (!isnull && (!found || DatumGetInt64(value) > *top)) {
                *top = DatumGetInt64(value);
                *written_here = written_by_this_transaction(slot);
                found = true;
            }
        }
        table_endscan(scan);
    }
    ExecDropSingleTupleTableSlot(slot);
    return found;
}

// Whether an enabled trigger of a user's is on the table (the system's own,
// foreign keys' among them, are internal): one could rewrite the rows a
// superuser's COPY writes.
bool relation_has_user_triggers(Relation rel) {
    const TriggerDesc *triggers = rel->trigdesc;
    for (int i = 0; triggers != nullptr && i < triggers->numtriggers; ++i) {
        if (!triggers->triggers[i].tgisinternal &&
            triggers->triggers[i].tgenabled != TRIGGER_DISABLED) {
            return true;
        }
    }
    return false;
}

// Whether a COPY's column list (String nodes) names the column.
bool names_column(List *columns, Oid relid, AttrNumber attnum) {
    const char *name = get_attname(relid, attnum, false);
    ListCell *cell;
    foreach (cell, columns) {
        if (strcmp(strVal(lfirst(cell)), name) == 0) {
            return true;
        }
    }
    return false;
}

}  // namespace

int sf_scan_id_columns(Oid only_table, List *only_columns, SfColumnTop **tops) {
    *tops = nullptr;
    const Oid extension = get_extension_oid("snowflake_id", true);
    if (!OidIsValid(extension)) {
        return 0;
    }
    const Oid schema = sf_extension_schema(extension);
    if (!OidIsValid(schema)) {
        return 0;
    }
    const Oid nextval = LookupFuncName(list_make2(makeString(get_namespace_name(schema)),
                                                  makeString(pstrdup("snowflake_nextval"))),
                                       0, nullptr, true);
    if (!OidIsValid(nextval)) {
        return 0;
    }
    const Oid snowflake_type = GetSysCacheOid2(
        TYPENAMENSP, Anum_pg_type_oid, CStringGetDatum("snowflake"), ObjectIdGetDatum(schema));
    int count = 0;
    FoundColumn *found = OidIsValid(only_table)
                             ? find_id_columns_of(only_table, nextval, snowflake_type, &count)
                             : find_id_columns(nextval, snowflake_type, &count);
    List *only = NIL;
    if (OidIsValid(only_table)) {
        only = find_all_inheritors(only_table, NoLock, nullptr);
    }
    SfColumnTop *out = static_cast<SfColumnTop *>(palloc0(sizeof(SfColumnTop) * (count + 1)));
    int n = 0;
    // One snapshot for every column, the newest: rows committed since the
    // caller's transaction began (REPEATABLE READ) are seen too, and a COPY
    // of this transaction (the caller advanced the command counter).
    Snapshot snapshot = RegisterSnapshot(sf_newest_snapshot());
    const bool others_write_all = count > 0 && others_write_all_data();
    for (int i = 0; i < count; ++i) {
        if (only != NIL && !list_member_oid(only, found[i].relid)) {
            continue;
        }
        if (only_columns != NIL && !names_column(only_columns, found[i].relid, found[i].attnum)) {
            continue;
        }
        Relation rel = try_table_open(found[i].relid, AccessShareLock);
        if (rel == nullptr) {
            continue;  // dropped meanwhile
        }
        const Oid type =
            getBaseType(TupleDescAttr(RelationGetDescr(rel), found[i].attnum - 1)->atttypid);
        int64 top = 0;
        bool written_here = false;
        if (read_top(rel, found[i].attnum, type, snapshot, &top, &written_here)) {
            out[n].relid = found[i].relid;
            out[n].attnum = found[i].attnum;
            out[n].top = top;
            out[n].trusted = trusted_source(found[i].relid, found[i].attnum, others_write_all);
            out[n].written_here = written_here && !relation_has_user_triggers(rel);
            ++n;
        }
        table_close(rel, AccessShareLock);
    }
    UnregisterSnapshot(snapshot);
    *tops = out;
    return n;
}

bool sf_has_user_triggers(Oid relid) {
    Relation rel = try_table_open(relid, AccessShareLock);
    if (rel == nullptr) {
        return false;
    }
    const bool has = relation_has_user_triggers(rel);
    table_close(rel, AccessShareLock);
    return has;
}

Snapshot sf_newest_snapshot() {
    // A parallel operation may take no new snapshot (a first
    // snowflake_nextval() evaluated above a Gather): the query's own.
    return IsInParallelMode() ? GetActiveSnapshot() : GetLatestSnapshot();
}
