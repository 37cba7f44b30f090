// Decoding and composing IDs by the server's layout, and the smallest ID for
// a time (for index range scans).
#include "pg_glue.hpp"

extern "C" {
#include "access/htup_details.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/timestamp.h"

PG_FUNCTION_INFO_V1(snowflake_decode);
PG_FUNCTION_INFO_V1(snowflake_timestamp);
PG_FUNCTION_INFO_V1(snowflake_from_timestamp);
PG_FUNCTION_INFO_V1(snowflake_compose);
}

namespace {

snowflake::IdParts decode_or_raise(const snowflake::Layout &layout, int64_t id) {
    snowflake::IdParts parts;
    snowflake::Error err;
    if (!layout.decode(id, &parts, &err)) {
        sf_raise(err);
    }
    return parts;
}

// The millisecond (since 1970) holding a finite timestamptz, rounded down:
// IDs carry whole milliseconds, and the ID for the millisecond holding ts
// bounds every ID made at or after ts.
int64_t unix_ms_of(TimestampTz ts) {
    if (TIMESTAMP_NOT_FINITE(ts)) {
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                        errmsg("time %s is outside the layout's range",
                               TIMESTAMP_IS_NOBEGIN(ts) ? "-infinity" : "infinity"),
                        errdetail("Only finite times between snowflake_id.epoch and the "
                                  "layout's end map to IDs."),
                        errhint("Keep the time inside that range, e.g. "
                                "greatest(t, snowflake_timestamp(0)).")));
    }
    return sf_unix_ms_floor(ts);
}

}  // namespace

Datum sf_decoded_record(FunctionCallInfo fcinfo, TupleDesc *desc, int64_t unix_ms,
                        int64_t datacenter_id, int64_t worker_id, int64_t sequence) {
    if (*desc == nullptr) {
        TupleDesc found;
        if (get_call_result_type(fcinfo, nullptr, &found) != TYPEFUNC_COMPOSITE) {
            ereport(ERROR,
                    (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                     errmsg("snowflake_decode() must be called where a record is expected")));
        }
        const MemoryContext old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
        *desc = BlessTupleDesc(CreateTupleDescCopy(found));
        MemoryContextSwitchTo(old);
    }
    // The core keeps unix_ms <= 9999-12-31 and each field within 31 bits.
    Datum values[4] = {
        TimestampTzGetDatum(sf_timestamptz_of(unix_ms)),
        Int32GetDatum(static_cast<int32>(datacenter_id)),
        Int32GetDatum(static_cast<int32>(worker_id)),
        Int32GetDatum(static_cast<int32>(sequence)),
    };
    bool nulls[4] = {false, false, false, false};
    return HeapTupleGetDatum(heap_form_tuple(*desc, values, nulls));
}

extern "C" Datum snowflake_decode(PG_FUNCTION_ARGS) {
    const snowflake::Layout &layout = sf_decoding_layout();
    const snowflake::IdParts parts = decode_or_raise(layout, PG_GETARG_INT64(0));
    if (fcinfo->flinfo->fn_extra == nullptr) {
        fcinfo->flinfo->fn_extra =
            MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(TupleDesc));
    }
    PG_RETURN_DATUM(sf_decoded_record(fcinfo, static_cast<TupleDesc *>(fcinfo->flinfo->fn_extra),
                                      layout.epoch_unix_ms() + parts.timestamp, parts.datacenter_id,
                                      parts.worker_id, parts.sequence));
}

extern "C" Datum snowflake_timestamp(PG_FUNCTION_ARGS) {
    const snowflake::Layout &layout = sf_decoding_layout();
    const snowflake::IdParts parts = decode_or_raise(layout, PG_GETARG_INT64(0));
    PG_RETURN_TIMESTAMPTZ(sf_timestamptz_of(layout.epoch_unix_ms() + parts.timestamp));
}

extern "C" Datum snowflake_from_timestamp(PG_FUNCTION_ARGS) {
    const snowflake::Layout &layout = sf_decoding_layout();
    const int64_t unix_ms = unix_ms_of(PG_GETARG_TIMESTAMPTZ(0));
    int64_t id = 0;
    snowflake::Error err;
    if (!layout.smallest_id_at(unix_ms, &id, &err)) {
        sf_raise(err);
    }
    PG_RETURN_INT64(id);
}

// The inverse of snowflake_decode(id): (ts, worker_id, sequence,
// datacenter_id) as the server's layout packs them.
extern "C" Datum snowflake_compose(PG_FUNCTION_ARGS) {
    const snowflake::Layout &layout = sf_decoding_layout();
    const int64_t unix_ms = unix_ms_of(PG_GETARG_TIMESTAMPTZ(0));
    int64_t id = 0;
    snowflake::Error err;
    if (!layout.compose_checked(unix_ms, PG_GETARG_INT32(3), PG_GETARG_INT32(1), PG_GETARG_INT32(2),
                                &id, &err)) {
        sf_raise(err);
    }
    PG_RETURN_INT64(id);
}
