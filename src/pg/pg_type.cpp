// The snowflake column type: a bigint's 8 bytes, passed by value, whose
// JSON form is a string (PostgreSQL writes a type it does not know as a
// number through its output function, quoted), so that IDs above 2^53
// survive JavaScript. Comparison, hashing, output and binary send are
// bigint's own functions (snowflake_id--1.4.sql); what differs is here: the
// input, text or binary, refuses negative values, and the cast from bigint
// checks the same.
#include "core/id_text.hpp"
#include "pg_glue.hpp"

extern "C" {
#include "fmgr.h"
#include "libpq/pqformat.h"

PG_FUNCTION_INFO_V1(snowflake_type_in);
PG_FUNCTION_INFO_V1(snowflake_type_recv);
PG_FUNCTION_INFO_V1(snowflake_type_from_bigint);
PG_FUNCTION_INFO_V1(snowflake_type_from_integer);
}

namespace {

[[noreturn]] void out_of_range(int64_t value) {
    ereport(ERROR,
            (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
             errmsg("value %lld is out of range for type snowflake", static_cast<long long>(value)),
             errdetail("A snowflake lies between 0 and 9223372036854775807.")));
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
    const int64_t value = pq_getmsgint64(buf);
    if (value < 0) {
        out_of_range(value);
    }
    PG_RETURN_INT64(value);
}

extern "C" Datum snowflake_type_from_bigint(PG_FUNCTION_ARGS) {
    const int64_t value = PG_GETARG_INT64(0);
    if (value < 0) {
        out_of_range(value);
    }
    PG_RETURN_INT64(value);
}

extern "C" Datum snowflake_type_from_integer(PG_FUNCTION_ARGS) {
    const int32_t value = PG_GETARG_INT32(0);
    if (value < 0) {
        out_of_range(value);
    }
    PG_RETURN_INT64(value);
}
