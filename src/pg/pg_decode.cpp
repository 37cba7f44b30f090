// Decoding IDs, and the smallest ID for a time (for index range scans).
#include "pg_glue.hpp"

extern "C" {
#include "access/htup_details.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/timestamp.h"

PG_FUNCTION_INFO_V1(snowflake_decode);
PG_FUNCTION_INFO_V1(snowflake_timestamp);
PG_FUNCTION_INFO_V1(snowflake_from_timestamp);
}

namespace {

// 2000-01-01T00:00:00Z, PostgreSQL's epoch, in ms since 1970.
constexpr int64_t kPostgresEpochUnixMs =
    static_cast<int64_t>(POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY * 1000;

// Layout::decode guarantees unix_ms <= 9999-12-31, well inside timestamptz.
TimestampTz to_timestamptz(int64_t unix_ms) {
    return (unix_ms - kPostgresEpochUnixMs) * 1000;
}

snowflake::IdParts decode_or_raise(const snowflake::Layout &layout, int64_t id) {
    snowflake::IdParts parts;
    snowflake::Error err;
    if (!layout.decode(id, &parts, &err)) {
        sf_raise(err);
    }
    return parts;
}

}  // namespace

extern "C" Datum snowflake_decode(PG_FUNCTION_ARGS) {
    const snowflake::Layout &layout = sf_decoding_layout();
    const snowflake::IdParts parts = decode_or_raise(layout, PG_GETARG_INT64(0));
    TupleDesc tupdesc;
    if (get_call_result_type(fcinfo, nullptr, &tupdesc) != TYPEFUNC_COMPOSITE) {
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                        errmsg("snowflake_decode() must be called where a record is expected")));
    }
    tupdesc = BlessTupleDesc(tupdesc);
    Datum values[4] = {
        TimestampTzGetDatum(to_timestamptz(layout.epoch_unix_ms() + parts.timestamp)),
        Int32GetDatum(static_cast<int32>(parts.datacenter_id)),
        Int32GetDatum(static_cast<int32>(parts.worker_id)),
        Int32GetDatum(static_cast<int32>(parts.sequence)),
    };
    bool nulls[4] = {false, false, false, false};
    PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

extern "C" Datum snowflake_timestamp(PG_FUNCTION_ARGS) {
    const snowflake::Layout &layout = sf_decoding_layout();
    const snowflake::IdParts parts = decode_or_raise(layout, PG_GETARG_INT64(0));
    PG_RETURN_TIMESTAMPTZ(to_timestamptz(layout.epoch_unix_ms() + parts.timestamp));
}

extern "C" Datum snowflake_from_timestamp(PG_FUNCTION_ARGS) {
    const snowflake::Layout &layout = sf_decoding_layout();
    const TimestampTz ts = PG_GETARG_TIMESTAMPTZ(0);
    if (TIMESTAMP_NOT_FINITE(ts)) {
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                        errmsg("time %s is outside the layout's range",
                               TIMESTAMP_IS_NOBEGIN(ts) ? "-infinity" : "infinity"),
                        errdetail("Only finite times between snowflake_id.epoch and the "
                                  "layout's end map to IDs."),
                        errhint("Keep the time inside that range, e.g. "
                                "greatest(t, snowflake_timestamp(0)).")));
    }
    // Round down to the millisecond: IDs carry whole milliseconds, and the ID
    // for the millisecond holding ts bounds every ID made at or after ts.
    int64_t ms = ts / 1000;
    if (ts % 1000 < 0) {
        --ms;
    }
    int64_t id = 0;
    snowflake::Error err;
    if (!layout.smallest_id_at(ms + kPostgresEpochUnixMs, &id, &err)) {
        sf_raise(err);
    }
    PG_RETURN_INT64(id);
}
