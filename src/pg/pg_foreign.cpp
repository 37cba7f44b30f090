// Decoding IDs minted elsewhere: snowflake_decode(id, layout) and
// snowflake_timestamp(id, layout). The layout text is parsed once per call
// site and kept in fn_extra while the text stays the same, so a query over
// many rows parses it once.
#include <cstring>

#include "core/foreign_layout.hpp"
#include "pg_glue.hpp"
// After the core headers (src/core/pure_cpp.hpp).
#include "pg_compat.hpp"

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

// The layout text last parsed at this call site, and its layout.
struct CachedLayout {
    snowflake::ForeignLayout layout;
    int text_len;
    char text[FLEXIBLE_ARRAY_MEMBER];
};

// What a call site keeps in fn_extra.
struct CallSiteCache {
    TupleDesc desc;        // snowflake_decode's row type, once looked up
    CachedLayout *parsed;  // nullptr until the first call
};

CallSiteCache *call_site_cache(FunctionCallInfo fcinfo) {
    if (fcinfo->flinfo->fn_extra == nullptr) {
        fcinfo->flinfo->fn_extra =
            MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(CallSiteCache));
    }
    return static_cast<CallSiteCache *>(fcinfo->flinfo->fn_extra);
}

const snowflake::ForeignLayout &layout_arg(FunctionCallInfo fcinfo, int argno) {
    const text *arg = PG_GETARG_TEXT_PP(argno);
    const char *data = VARDATA_ANY(arg);
    const int len = static_cast<int>(VARSIZE_ANY_EXHDR(arg));
    CallSiteCache *site = call_site_cache(fcinfo);
    CachedLayout *cached = site->parsed;
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
        // Allocate before freeing: if the allocation fails, the cache still
        // points at valid memory.
        auto *bigger = static_cast<CachedLayout *>(
            MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, offsetof(CachedLayout, text) + len));
        if (cached != nullptr) {
            pfree(cached);
        }
        cached = bigger;
        site->parsed = cached;
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
    PG_RETURN_DATUM(sf_decoded_record(fcinfo, &call_site_cache(fcinfo)->desc, parts.unix_ms,
                                      parts.datacenter_id, parts.worker_id, parts.sequence));
}

extern "C" Datum snowflake_timestamp_foreign(PG_FUNCTION_ARGS) {
    const snowflake::ForeignParts parts = decode_or_raise(fcinfo);
    PG_RETURN_TIMESTAMPTZ(sf_timestamptz_of(parts.unix_ms));
}
