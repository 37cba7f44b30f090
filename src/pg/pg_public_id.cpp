// Public IDs in SQL: snowflake_public() and snowflake_from_public(), with a
// key given or the one in snowflake_id.public_key (src/core/public_id.hpp,
// docs/public-ids.md).
#include <string_view>

#include "core/public_id.hpp"
#include "pg_glue.hpp"
// After the core headers (src/core/pure_cpp.hpp); VARDATA_ANY and friends
// live in varatt.h since 16, which 19's postgres.h no longer includes.
#include "pg_compat.hpp"

extern "C" {
#include "fmgr.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(snowflake_public_keyed);
PG_FUNCTION_INFO_V1(snowflake_public_default_key);
PG_FUNCTION_INFO_V1(snowflake_from_public_keyed);
PG_FUNCTION_INFO_V1(snowflake_from_public_default_key);
}

namespace {

std::string_view view_of(const text *t) {
    return std::string_view(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
}

snowflake::SipKey key_of_arg(FunctionCallInfo fcinfo, int arg) {
    const bytea *key = PG_GETARG_BYTEA_PP(arg);
    snowflake::SipKey out;
    snowflake::Error err;
    if (!snowflake::public_key_from_bytes(reinterpret_cast<const uint8_t *>(VARDATA_ANY(key)),
                                          VARSIZE_ANY_EXHDR(key), &out, &err)) {
        sf_raise(err);
    }
    return out;
}

// The prefix argument checked before the key of the setting, so that a key
// typed as text, taken for the prefix, is named as such.
void check_prefix_arg(FunctionCallInfo fcinfo, int arg) {
    snowflake::Error err;
    if (!snowflake::check_public_prefix(view_of(PG_GETARG_TEXT_PP(arg)), &err)) {
        sf_raise(err);
    }
}

snowflake::SipKey key_of_setting() {
    snowflake::SipKey out;
    snowflake::Error err;
    // Without the preload the setting was never defined (sf_load_settings).
    if (sf_public_key == nullptr) {
        snowflake::public_key_needs_preload(&err);
        sf_raise(err);
    }
    if (!snowflake::public_key_from_setting(sf_public_key, &out, &err)) {
        sf_raise(err);
    }
    return out;
}

// The text form; the arguments after the key are (prefix, check_symbol).
Datum public_of(FunctionCallInfo fcinfo, const snowflake::SipKey &key, int prefix_arg) {
    char out[snowflake::kPublicIdTextMax + 1];
    snowflake::Error err;
    if (!snowflake::format_public_id(PG_GETARG_INT64(0), key,
                                     view_of(PG_GETARG_TEXT_PP(prefix_arg)),
                                     PG_GETARG_BOOL(prefix_arg + 1), out, &err)) {
        sf_raise(err);
    }
    PG_RETURN_TEXT_P(cstring_to_text(out));
}

Datum id_of(FunctionCallInfo fcinfo, const snowflake::SipKey &key, int prefix_arg) {
    int64_t id = 0;
    snowflake::Error err;
    if (!snowflake::parse_public_id(view_of(PG_GETARG_TEXT_PP(0)), key,
                                    view_of(PG_GETARG_TEXT_PP(prefix_arg)),
                                    PG_GETARG_BOOL(prefix_arg + 1), &id, &err)) {
        sf_raise(err);
    }
    PG_RETURN_INT64(id);
}

}  // namespace

// snowflake_public(id, key, prefix, check_symbol)
extern "C" Datum snowflake_public_keyed(PG_FUNCTION_ARGS) {
    return public_of(fcinfo, key_of_arg(fcinfo, 1), 2);
}

// snowflake_public(id, prefix, check_symbol)
extern "C" Datum snowflake_public_default_key(PG_FUNCTION_ARGS) {
    check_prefix_arg(fcinfo, 1);
    return public_of(fcinfo, key_of_setting(), 1);
}

// snowflake_from_public(public_id, key, prefix, check_symbol)
extern "C" Datum snowflake_from_public_keyed(PG_FUNCTION_ARGS) {
    return id_of(fcinfo, key_of_arg(fcinfo, 1), 2);
}

// snowflake_from_public(public_id, prefix, check_symbol)
extern "C" Datum snowflake_from_public_default_key(PG_FUNCTION_ARGS) {
    check_prefix_arg(fcinfo, 1);
    return id_of(fcinfo, key_of_setting(), 1);
}
