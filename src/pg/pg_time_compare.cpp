// Comparing a snowflake with a timestamptz: id >= now() - interval '1 day'
// means "minted at or after that time", id < t "minted before t".
//
// An ID's time is the start of its millisecond (what snowflake_timestamp(id)
// returns), and a timestamptz has microseconds, so each comparison is exact:
// id < t holds when the ID's millisecond starts before t, and so on. Each
// comparison splits the IDs at one of two places, named by the last value
// on the lower side:
//
//   snowflake_last_before(t)        the largest value whose millisecond
//                                   starts before t
//   snowflake_last_at_or_before(t)  ... at or before t
//
// or by the first on the upper side, one more (snowflake_first_at_or_after,
// snowflake_first_after). The last values run from -1 (no ID is that early)
// to INT64_MAX (every value is earlier), so no timestamptz, infinite ones
// included, is out of range for them; the first values saturate at
// INT64_MAX, which on its own would put the largest value after a time past
// every ID's time.
//
// The operators' planner support function (SupportRequestSimplify) rewrites
// each comparison with the snowflake btree family's (snowflake, bigint)
// operators, so that an index on the column serves it and partitions are
// pruned:
//   - t a constant: the split is computed at plan time, and the comparison
//     becomes id >= first or id < first (partition bounds are first IDs, so
//     these prune exactly), or, when no value is after t, id > INT64_MAX or
//     id <= INT64_MAX;
//   - t now(), a parameter or any other expression: the split is computed
//     as the scan starts (initial pruning, the index's run-time keys):
//       id <  t   id <= snowflake_last_before(t)
//       id <= t   id <= snowflake_last_at_or_before(t)
//       id >= t   id >= snowflake_first_at_or_after(t) AND id > snowflake_last_before(t)
//       id >  t   id >= snowflake_first_after(t) AND id > snowflake_last_at_or_before(t)
//     The first clause of a lower bound is what pruning can use (id > last
//     keeps the partition that ends just before t); the second keeps the
//     answer exact when the first saturates. An id or a t holding a
//     subquery gets the second alone, so that the subquery runs once: the
//     planner counts no subquery as volatile, though one may return
//     another row each time it runs (TABLESAMPLE, LIMIT without ORDER BY).
//   - a volatile id or t (snowflake_nextval(), clock_timestamp(), random()):
//     no rewrite, so that each runs once per comparison, as the operator
//     runs it; no index or pruning could use them anyway.
#include "pg_glue.hpp"
// After the core headers (src/core/pure_cpp.hpp).
#include "pg_compat.hpp"

extern "C" {
#include "access/stratnum.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_type_d.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "parser/parse_func.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
#include "utils/typcache.h"

PG_FUNCTION_INFO_V1(snowflake_last_before);
PG_FUNCTION_INFO_V1(snowflake_last_at_or_before);
PG_FUNCTION_INFO_V1(snowflake_first_at_or_after);
PG_FUNCTION_INFO_V1(snowflake_first_after);
PG_FUNCTION_INFO_V1(snowflake_lt_timestamptz);
PG_FUNCTION_INFO_V1(snowflake_le_timestamptz);
PG_FUNCTION_INFO_V1(snowflake_gt_timestamptz);
PG_FUNCTION_INFO_V1(snowflake_ge_timestamptz);
PG_FUNCTION_INFO_V1(snowflake_timestamptz_lt);
PG_FUNCTION_INFO_V1(snowflake_timestamptz_le);
PG_FUNCTION_INFO_V1(snowflake_timestamptz_gt);
PG_FUNCTION_INFO_V1(snowflake_timestamptz_ge);
PG_FUNCTION_INFO_V1(snowflake_time_comparison_support);
}

namespace {

enum class Bound { before, at_or_before };

int64_t boundary(Bound bound, TimestampTz ts) {
    if (TIMESTAMP_IS_NOBEGIN(ts)) {
        return -1;
    }
    if (TIMESTAMP_IS_NOEND(ts)) {
        return INT64_MAX;
    }
    const int64_t floor_ms = sf_unix_ms_floor(ts);
    // Milliseconds starting before ts: up to the one holding ts, unless ts
    // is that millisecond's start. At or before ts: up to the one holding it.
    const bool on_ms_start = ts % 1000 == 0;
    const int64_t first_ms_not_counted =
        bound == Bound::before && on_ms_start ? floor_ms : floor_ms + 1;
    return sf_decoding_layout().last_id_before_ms(first_ms_not_counted);
}

// The first value after the split: saturated, see the top of the file.
int64_t first_after_split(int64_t last) {
    return last == INT64_MAX ? INT64_MAX : last + 1;
}

// Which comparison an operator function makes, read from its name and the
// side the snowflake is on, with the id on the left: t < id is id > t.
// `lower` comparisons keep the IDs after the split (>, >=), the others the
// IDs up to it.
struct Comparison {
    Bound bound;
    bool lower;
};

bool comparison_of(const char *name, bool id_on_left, Comparison *out) {
    struct Named {
        const char *name;
        Comparison id_left;   // id <op> t
        Comparison id_right;  // t <op> id, as id <mirrored op> t
    };
    static const Named names[] = {
        {"snowflake_lt", {Bound::before, false}, {Bound::at_or_before, true}},
        {"snowflake_le", {Bound::at_or_before, false}, {Bound::before, true}},
        {"snowflake_gt", {Bound::at_or_before, true}, {Bound::before, false}},
        {"snowflake_ge", {Bound::before, true}, {Bound::at_or_before, false}},
    };
    for (const Named &n : names) {
        if (strcmp(name, n.name) == 0) {
            *out = id_on_left ? n.id_left : n.id_right;
            return true;
        }
    }
    return false;
}

bool compare(int64_t id, Comparison c, TimestampTz ts) {
    const int64_t last = boundary(c.bound, ts);
    return c.lower ? id > last : id <= last;
}

// The (snowflake, bigint) operator of the type's default btree family: the
// one an index or a partition key on the column can use. The type cache
// keeps the family, so planning a comparison reads no catalog for it.
Oid family_operator(Oid snowflake_type, int16 strategy) {
    const TypeCacheEntry *type = lookup_type_cache(snowflake_type, TYPECACHE_BTREE_OPFAMILY);
    if (!OidIsValid(type->btree_opf)) {
        return InvalidOid;
    }
    return get_opfamily_member(type->btree_opf, snowflake_type, INT8OID, strategy);
}

// The four split functions, looked up once per backend in the schema of the
// operator function that asks (the extension's), and forgotten whenever
// pg_proc changes (DROP EXTENSION, an update): OIDs are not reused within
// the lookups' lifetime then.
enum SplitFunction { kLastBefore, kLastAtOrBefore, kFirstAtOrAfter, kFirstAfter, kSplitFunctions };
const char *const kSplitFunctionNames[kSplitFunctions] = {
    "snowflake_last_before", "snowflake_last_at_or_before", "snowflake_first_at_or_after",
    "snowflake_first_after"};

struct SplitFunctionCache {
    bool valid;
    bool callback_registered;
    Oid schema;
    Oid functions[kSplitFunctions];
};
SplitFunctionCache split_cache;

void forget_split_functions(Datum, SfSyscacheId, uint32) {
    split_cache.valid = false;
}

Oid split_function(Oid operator_function, SplitFunction which) {
    const Oid schema = get_func_namespace(operator_function);
    if (split_cache.valid && split_cache.schema == schema) {
        return split_cache.functions[which];
    }
    if (!split_cache.callback_registered) {
        CacheRegisterSyscacheCallback(PROCOID, forget_split_functions, 0);
        split_cache.callback_registered = true;
    }
    const char *schema_name = get_namespace_name(schema);
    if (schema_name == nullptr) {
        return InvalidOid;
    }
    const Oid arg = TIMESTAMPTZOID;
    for (int i = 0; i < kSplitFunctions; ++i) {
        List *qualified = list_make2(makeString(pstrdup(schema_name)),
                                     makeString(pstrdup(kSplitFunctionNames[i])));
        split_cache.functions[i] = LookupFuncName(qualified, 1, &arg, true);
    }
    split_cache.schema = schema;
    split_cache.valid = true;
    return split_cache.functions[which];
}

Expr *bigint_const(int64_t value) {
    return reinterpret_cast<Expr *>(makeConst(INT8OID, -1, InvalidOid, sizeof(int64),
                                              Int64GetDatum(value), false, FLOAT8PASSBYVAL));
}

// id <op> bound, with the family's operator; nullptr if the family lacks it.
Expr *id_against(Expr *id, Oid id_type, int16 strategy, Expr *bound) {
    const Oid op = family_operator(id_type, strategy);
    if (!OidIsValid(op)) {
        return nullptr;
    }
    Expr *clause = make_opclause(op, BOOLOID, false, id, bound, InvalidOid, InvalidOid);
    reinterpret_cast<OpExpr *>(clause)->opfuncid = get_opcode(op);
    return clause;
}

// fn(t) for one of the split functions; nullptr if it cannot be found.
Expr *split_call(Oid operator_function, SplitFunction which, Node *time) {
    const Oid fn = split_function(operator_function, which);
    if (!OidIsValid(fn)) {
        return nullptr;
    }
    return reinterpret_cast<Expr *>(
        makeFuncExpr(fn, INT8OID, list_make1(time), InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL));
}

// The rewrite for a constant time (see the top of the file).
Expr *rewrite_for_constant(Expr *id, Oid id_type, Comparison c, TimestampTz ts) {
    const int64_t last = boundary(c.bound, ts);
    if (last == INT64_MAX) {  // every value is on the lower side
        return id_against(id, id_type,
                          c.lower ? BTGreaterStrategyNumber : BTLessEqualStrategyNumber,
                          bigint_const(INT64_MAX));
    }
    return id_against(id, id_type, c.lower ? BTGreaterEqualStrategyNumber : BTLessStrategyNumber,
                      bigint_const(last + 1));
}

// The rewrite for a time known only as the query runs.
Expr *rewrite_for_expression(Expr *id, Oid id_type, Comparison c, Node *time,
                             Oid operator_function) {
    const bool before = c.bound == Bound::before;
    Expr *last = split_call(operator_function, before ? kLastBefore : kLastAtOrBefore, time);
    if (last == nullptr) {
        return nullptr;
    }
    // A subquery on either side would be planned and run once per clause,
    // and two runs may disagree: one clause, exact, which the index serves;
    // pruning keeps the partition that ends just before t. Anything else
    // copied here is neither volatile (no rewrite then) nor a subquery, so
    // each copy gives the same value.
    if (!c.lower || contain_subplans(time) || contain_subplans(reinterpret_cast<Node *>(id))) {
        return id_against(id, id_type,
                          c.lower ? BTGreaterStrategyNumber : BTLessEqualStrategyNumber, last);
    }
    Expr *first = split_call(operator_function, before ? kFirstAtOrAfter : kFirstAfter,
                             static_cast<Node *>(copyObjectImpl(time)));
    if (first == nullptr) {
        return nullptr;
    }
    Expr *from_first = id_against(id, id_type, BTGreaterEqualStrategyNumber, first);
    Expr *after_last =
        id_against(static_cast<Expr *>(copyObjectImpl(id)), id_type, BTGreaterStrategyNumber, last);
    if (from_first == nullptr || after_last == nullptr) {
        return nullptr;
    }
    return make_andclause(list_make2(from_first, after_last));
}

}  // namespace

extern "C" Datum snowflake_last_before(PG_FUNCTION_ARGS) {
    PG_RETURN_INT64(boundary(Bound::before, PG_GETARG_TIMESTAMPTZ(0)));
}

extern "C" Datum snowflake_last_at_or_before(PG_FUNCTION_ARGS) {
    PG_RETURN_INT64(boundary(Bound::at_or_before, PG_GETARG_TIMESTAMPTZ(0)));
}

extern "C" Datum snowflake_first_at_or_after(PG_FUNCTION_ARGS) {
    PG_RETURN_INT64(first_after_split(boundary(Bound::before, PG_GETARG_TIMESTAMPTZ(0))));
}

extern "C" Datum snowflake_first_after(PG_FUNCTION_ARGS) {
    PG_RETURN_INT64(first_after_split(boundary(Bound::at_or_before, PG_GETARG_TIMESTAMPTZ(0))));
}

extern "C" Datum snowflake_lt_timestamptz(PG_FUNCTION_ARGS) {
    PG_RETURN_BOOL(compare(PG_GETARG_INT64(0), {Bound::before, false}, PG_GETARG_TIMESTAMPTZ(1)));
}

extern "C" Datum snowflake_le_timestamptz(PG_FUNCTION_ARGS) {
    PG_RETURN_BOOL(
        compare(PG_GETARG_INT64(0), {Bound::at_or_before, false}, PG_GETARG_TIMESTAMPTZ(1)));
}

extern "C" Datum snowflake_gt_timestamptz(PG_FUNCTION_ARGS) {
    PG_RETURN_BOOL(
        compare(PG_GETARG_INT64(0), {Bound::at_or_before, true}, PG_GETARG_TIMESTAMPTZ(1)));
}

extern "C" Datum snowflake_ge_timestamptz(PG_FUNCTION_ARGS) {
    PG_RETURN_BOOL(compare(PG_GETARG_INT64(0), {Bound::before, true}, PG_GETARG_TIMESTAMPTZ(1)));
}

// t < id is id > t, and so on.
extern "C" Datum snowflake_timestamptz_lt(PG_FUNCTION_ARGS) {
    PG_RETURN_BOOL(
        compare(PG_GETARG_INT64(1), {Bound::at_or_before, true}, PG_GETARG_TIMESTAMPTZ(0)));
}

extern "C" Datum snowflake_timestamptz_le(PG_FUNCTION_ARGS) {
    PG_RETURN_BOOL(compare(PG_GETARG_INT64(1), {Bound::before, true}, PG_GETARG_TIMESTAMPTZ(0)));
}

extern "C" Datum snowflake_timestamptz_gt(PG_FUNCTION_ARGS) {
    PG_RETURN_BOOL(compare(PG_GETARG_INT64(1), {Bound::before, false}, PG_GETARG_TIMESTAMPTZ(0)));
}

extern "C" Datum snowflake_timestamptz_ge(PG_FUNCTION_ARGS) {
    PG_RETURN_BOOL(
        compare(PG_GETARG_INT64(1), {Bound::at_or_before, false}, PG_GETARG_TIMESTAMPTZ(0)));
}

// SupportRequestSimplify: the rewrite at the top of the file. Anything it
// cannot rewrite stays the operator's call, which gives the same answer,
// only without an index.
extern "C" Datum snowflake_time_comparison_support(PG_FUNCTION_ARGS) {
    Node *request = reinterpret_cast<Node *>(PG_GETARG_POINTER(0));
    if (!IsA(request, SupportRequestSimplify)) {
        PG_RETURN_POINTER(static_cast<Node *>(nullptr));
    }
    const FuncExpr *call = reinterpret_cast<SupportRequestSimplify *>(request)->fcall;
    if (list_length(call->args) != 2) {
        PG_RETURN_POINTER(static_cast<Node *>(nullptr));
    }
    Node *left = static_cast<Node *>(linitial(call->args));
    Node *right = static_cast<Node *>(lsecond(call->args));
    const bool id_on_left = exprType(right) == TIMESTAMPTZOID;
    Expr *id = reinterpret_cast<Expr *>(id_on_left ? left : right);
    Node *time = id_on_left ? right : left;
    const char *name = get_func_name(call->funcid);
    Comparison c;
    if (name == nullptr || !comparison_of(name, id_on_left, &c)) {
        PG_RETURN_POINTER(static_cast<Node *>(nullptr));
    }
    // A volatile side must run once per comparison, as the operator runs it:
    // the rewrite would run it once per clause (snowflake_nextval() twice)
    // and could compare with two different times. Neither could serve an
    // index or pruning anyway.
    if (contain_volatile_functions(reinterpret_cast<Node *>(id)) ||
        contain_volatile_functions(time)) {
        PG_RETURN_POINTER(static_cast<Node *>(nullptr));
    }
    const Oid id_type = getBaseType(exprType(reinterpret_cast<Node *>(id)));
    if (!IsA(time, Const)) {
        PG_RETURN_POINTER(rewrite_for_expression(id, id_type, c, time, call->funcid));
    }
    const Const *t = reinterpret_cast<Const *>(time);
    if (t->constisnull) {
        PG_RETURN_POINTER(static_cast<Node *>(nullptr));  // the strict operator's NULL stays
    }
    PG_RETURN_POINTER(rewrite_for_constant(id, id_type, c, DatumGetTimestampTz(t->constvalue)));
}
