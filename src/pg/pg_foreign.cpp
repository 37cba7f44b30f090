// Decoding IDs minted elsewhere: snowflake_decode(id, layout) and
// snowflake_timestamp(id, layout). The layout text is parsed once per call
// site and kept in fn_extra while the text stays the same, so a query over
// many rows parses it once.
#include <cstring>

#include "core/foreign_layout.hpp"
#include "pg_glue.hpp"

extern "C" {
#include "access/htup_details.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

PG_FUNCTION_INFO_V1(snowflake_decode_foreign);
PG_FUNCTION_INFO_V1(snowflake_timestamp_foreign);
}

namespace {

// The cached layout and the text it was parsed from (allocated together).
struct CachedLayout {
    snowflake::ForeignLayout layout;
    int text_len;
    char text[FLEXIBLE_ARRAY_MEMBER];
};

const snowflake::ForeignLayout &layout_arg(FunctionCallInfo fcinfo, int argno) {
    const text *arg = PG_GETARG_TEXT_PP(argno);
    const char *data = VARDATA_ANY(arg);
    const int len = static_cast<int>(VARSIZE_ANY_EXHDR(arg));
    auto *cached = static_cast<CachedLayout *>(fcinfo->flinfo->fn_extra);
    if (cached != nullptr && cached->text_len == len && std::memcmp(cached->text, data, len) == 0) {
        return cached->layout;
    }
    snowflake::ForeignLayout layout;
    snowflake::Error err;
    if (!snowflake::parse_foreign_layout(std::string_view(data, static_cast<size_t>(len)), &layout,
                                         &err)) {
        sf_raise(err);
    }
    if (cached == nullptr || cached->text_len < len) {
        if (cached != nullptr) {
            pfree(cached);
        }
        cached = static_cast<CachedLayout *>(
            MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, offsetof(CachedLayout, text) + len));
        fcinfo->flinfo->fn_extra = cached;
    }
    cached->layout = layout;
    cached->text_len = len;
    std::memcpy(cached->text, data, len);
    return cached->layout;
}

snowflake::ForeignParts decode_or_raise(FunctionCallInfo fcinfo) {
    const snowflake::ForeignLayout &layout = layout_arg(fcinfo, 1);
    snowflake::ForeignParts parts;
    snowflake::Error err;
    if (!snowflake::decode_foreign(layout, PG_GETARG_INT64(0), &parts, &err)) {
        sf_raise(err);
    }
    return parts;
}

}  // namespace

extern "C" Datum snowflake_decode_foreign(PG_FUNCTION_ARGS) {
    const snowflake::ForeignParts parts = decode_or_raise(fcinfo);
    TupleDesc tupdesc;
    if (get_call_result_type(fcinfo, nullptr, &tupdesc) != TYPEFUNC_COMPOSITE) {
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                        errmsg("snowflake_decode() must be called where a record is expected")));
    }
    tupdesc = BlessTupleDesc(tupdesc);
    // decode_foreign keeps unix_ms <= 9999-12-31 and each field within 31 bits.
    Datum values[4] = {
        TimestampTzGetDatum(sf_timestamptz_of(parts.unix_ms)),
        Int32GetDatum(static_cast<int32>(parts.datacenter_id)),
        Int32GetDatum(static_cast<int32>(parts.worker_id)),
        Int32GetDatum(static_cast<int32>(parts.sequence)),
    };
    bool nulls[4] = {false, false, false, false};
    PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

extern "C" Datum snowflake_timestamp_foreign(PG_FUNCTION_ARGS) {
    const snowflake::ForeignParts parts = decode_or_raise(fcinfo);
    PG_RETURN_TIMESTAMPTZ(sf_timestamptz_of(parts.unix_ms));
}
