// The snowflake column type: a bigint's 8 bytes, passed by value, whose
// JSON form is a string (PostgreSQL writes a type it does not know as a
// number through its output function, quoted), so that IDs above 2^53
// survive JavaScript. Comparison, hashing, output and binary send are
// bigint's own functions (snowflake_id--1.6.sql); what differs is here: the
// input, text or binary, refuses negative values, and the cast from bigint
// checks the same. With numeric, which has no operators with bigint (bigint
// meets numeric through its implicit cast, which snowflake cannot have
// without making id + id, sum(id) and max(id) ambiguous), the comparisons
// are here, and the cast from numeric refuses what is not a snowflake
// rather than round it.
#include <limits>

#include "core/id_text.hpp"
#include "pg_glue.hpp"

extern "C" {
#include "fmgr.h"
#include "libpq/pqformat.h"
#include "utils/fmgrprotos.h"
#include "utils/numeric.h"

PG_FUNCTION_INFO_V1(snowflake_type_in);
PG_FUNCTION_INFO_V1(snowflake_type_recv);
PG_FUNCTION_INFO_V1(snowflake_type_from_bigint);
PG_FUNCTION_INFO_V1(snowflake_type_from_integer);
PG_FUNCTION_INFO_V1(snowflake_type_from_smallint);
PG_FUNCTION_INFO_V1(snowflake_type_from_numeric);
PG_FUNCTION_INFO_V1(snowflake_type_eq_numeric);
PG_FUNCTION_INFO_V1(snowflake_type_ne_numeric);
PG_FUNCTION_INFO_V1(snowflake_type_lt_numeric);
PG_FUNCTION_INFO_V1(snowflake_type_le_numeric);
PG_FUNCTION_INFO_V1(snowflake_type_gt_numeric);
PG_FUNCTION_INFO_V1(snowflake_type_ge_numeric);
PG_FUNCTION_INFO_V1(snowflake_type_numeric_eq);
PG_FUNCTION_INFO_V1(snowflake_type_numeric_ne);
PG_FUNCTION_INFO_V1(snowflake_type_numeric_lt);
PG_FUNCTION_INFO_V1(snowflake_type_numeric_le);
PG_FUNCTION_INFO_V1(snowflake_type_numeric_gt);
PG_FUNCTION_INFO_V1(snowflake_type_numeric_ge);
}

namespace {

[[noreturn]] void out_of_range(int64_t value) {
    ereport(ERROR,
            (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
             errmsg("value %lld is out of range for type snowflake", static_cast<long long>(value)),
             errdetail("A snowflake lies between 0 and 9223372036854775807."),
             errhint("The snowflake type holds IDs, which are never negative, fractional or "
                     "infinite: keep other numbers in a bigint or numeric column.")));
}

// Binary input and the casts from bigint, integer and smallint: the same
// bits, a negative value refused.
int64_t nonnegative(int64_t value) {
    if (value < 0) {
        out_of_range(value);
    }
    return value;
}

const char *numeric_text(Datum value) {
    return DatumGetCString(DirectFunctionCall1(numeric_out, value));
}

// A snowflake against a numeric as bigint compares with one: exactly, in
// numeric (id = 5.5 is false, id < 5.5 true for 5).
int compare_with_numeric(int64_t id, Datum value) {
    return DatumGetInt32(
        DirectFunctionCall2(numeric_cmp, NumericGetDatum(int64_to_numeric(id)), value));
}

}  // namespace

extern "C" Datum snowflake_type_in(PG_FUNCTION_ARGS) {
    const char *text = PG_GETARG_CSTRING(0);
    int64_t value = 0;
    snowflake::Error err;
    if (!snowflake::parse_id_text(text, &value, &err)) {
        sf_raise(err);
    }
    PG_RETURN_INT64(value);
}

// Binary input is bigint's (what drivers send for an int8 parameter).
extern "C" Datum snowflake_type_recv(PG_FUNCTION_ARGS) {
    StringInfo buf = reinterpret_cast<StringInfo>(PG_GETARG_POINTER(0));
    PG_RETURN_INT64(nonnegative(pq_getmsgint64(buf)));
}

extern "C" Datum snowflake_type_from_bigint(PG_FUNCTION_ARGS) {
    PG_RETURN_INT64(nonnegative(PG_GETARG_INT64(0)));
}

extern "C" Datum snowflake_type_from_integer(PG_FUNCTION_ARGS) {
    PG_RETURN_INT64(nonnegative(PG_GETARG_INT32(0)));
}

extern "C" Datum snowflake_type_from_smallint(PG_FUNCTION_ARGS) {
    PG_RETURN_INT64(nonnegative(PG_GETARG_INT16(0)));
}

// numeric -> snowflake (assignment): whole numbers from 0 to 2^63 - 1, as
// drivers send a Decimal or BigDecimal ID. A fraction is refused, where
// numeric -> bigint rounds: a rounded ID names another row. NaN and
// infinity are refused as the cast to bigint refuses them (0A000).
extern "C" Datum snowflake_type_from_numeric(PG_FUNCTION_ARGS) {
    const Numeric num = PG_GETARG_NUMERIC(0);
    const Datum value = NumericGetDatum(num);
    if (numeric_is_nan(num) || numeric_is_inf(num)) {
        ereport(ERROR,
                (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                 errmsg("cannot convert %s to snowflake", numeric_text(value)),
                 errdetail("A snowflake is a whole number between 0 and 9223372036854775807."),
                 errhint("The snowflake type holds IDs, which are never negative, fractional or "
                         "infinite: keep other numbers in a bigint or numeric column.")));
    }
    const Datum whole = DirectFunctionCall2(numeric_trunc, value, Int32GetDatum(0));
    if (!DatumGetBool(DirectFunctionCall2(numeric_eq, value, whole))) {
        ereport(
            ERROR,
            (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
             errmsg("value %s is not a whole number, so it is not a snowflake",
                    numeric_text(value)),
             errdetail(
                 "The cast from numeric to snowflake does not round, as the cast to bigint does: "
                 "a rounded ID would name another row."),
             errhint("If rounding is what you mean, round first: round(value)::snowflake.")));
    }
    if (compare_with_numeric(0, value) > 0 ||
        compare_with_numeric(std::numeric_limits<int64_t>::max(), value) < 0) {
        ereport(ERROR,
                (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                 errmsg("value %s is out of range for type snowflake", numeric_text(value)),
                 errdetail("A snowflake lies between 0 and 9223372036854775807."),
                 errhint("The snowflake type holds IDs, which are never negative, fractional or "
                         "infinite: keep other numbers in a bigint or numeric column.")));
    }
    PG_RETURN_DATUM(DirectFunctionCall1(numeric_int8, value));
}

#define SF_NUMERIC_COMPARISON(name, test)                                            \
    extern "C" Datum snowflake_type_##name##_numeric(PG_FUNCTION_ARGS) {             \
        const int c = compare_with_numeric(PG_GETARG_INT64(0), PG_GETARG_DATUM(1));  \
        PG_RETURN_BOOL(c test 0);                                                    \
    }                                                                                \
    extern "C" Datum snowflake_type_numeric_##name(PG_FUNCTION_ARGS) {               \
        const int c = -compare_with_numeric(PG_GETARG_INT64(1), PG_GETARG_DATUM(0)); \
        PG_RETURN_BOOL(c test 0);                                                    \
    }

SF_NUMERIC_COMPARISON(eq, ==)
SF_NUMERIC_COMPARISON(ne, !=)
SF_NUMERIC_COMPARISON(lt, <)
SF_NUMERIC_COMPARISON(le, <=)
SF_NUMERIC_COMPARISON(gt, >)
SF_NUMERIC_COMPARISON(ge, >=)
