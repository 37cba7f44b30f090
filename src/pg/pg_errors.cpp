// One place that turns core errors into PostgreSQL errors.
#include "pg_glue.hpp"

extern "C" {
#include "access/xact.h"
#include "mb/pg_wchar.h"
#include "utils/elog.h"
}

namespace {

int sqlstate_for(snowflake::ErrorCode code) {
    using snowflake::ErrorCode;
    switch (code) {
        case ErrorCode::invalid_setting:
        case ErrorCode::layout_no_room:
        case ErrorCode::epoch_in_future:
            return ERRCODE_INVALID_PARAMETER_VALUE;
        case ErrorCode::invalid_node:
        case ErrorCode::public_key_unset:
        case ErrorCode::clock_behind:
        case ErrorCode::capacity_exceeded:  // 55000 as before it had a message of its own
        case ErrorCode::registry:
        case ErrorCode::registry_replaced:
            return ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE;
        case ErrorCode::timestamp_exhausted:
            // What nextval() raises when a sequence reaches its maximum.
            return ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED;
        case ErrorCode::invalid_id:
            return ERRCODE_INVALID_PARAMETER_VALUE;
        case ErrorCode::time_out_of_range:
            return ERRCODE_DATETIME_VALUE_OUT_OF_RANGE;
        case ErrorCode::field_out_of_range:
            return ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE;
        case ErrorCode::invalid_spec:
        case ErrorCode::block_too_large:
            return ERRCODE_INVALID_PARAMETER_VALUE;
        case ErrorCode::invalid_objectid:
        case ErrorCode::invalid_id_text:
        case ErrorCode::invalid_public_id:
            return ERRCODE_INVALID_TEXT_REPRESENTATION;
        case ErrorCode::id_out_of_range:
            return ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE;
        case ErrorCode::invalid_public_key:
        case ErrorCode::invalid_public_prefix:
            return ERRCODE_INVALID_PARAMETER_VALUE;
        case ErrorCode::none:
            break;
    }
    return ERRCODE_INTERNAL_ERROR;
}

// The length of the character rest starts with, in the database's encoding:
// the encoding's mblen, which pg_mbcliplen steps by. It reads the lead byte
// and raises nothing; pg_mbstrlen_with_len, since 15.16, 16.12, 17.8 and
// 18.2, may raise an ERROR, which must not longjmp through the core's frames.
// SQL_ASCII takes any byte, so any cut is valid there: UTF-8's rule keeps
// readable the UTF-8 such databases mostly hold, and the settings the
// postmaster quotes (it has no database: its encoding is SQL_ASCII).
std::size_t database_character_length(std::string_view rest) {
    const int encoding = GetDatabaseEncoding();
    if (encoding == PG_SQL_ASCII) {
        return snowflake::utf8_character_length(rest);
    }
    return static_cast<std::size_t>(pg_encoding_mblen(encoding, rest.data()));
}

}  // namespace

void sf_quote_by_database_encoding() {
    snowflake::set_character_length(database_character_length);
}

void sf_report(int elevel, const snowflake::Error &err) {
    // The core's buffers are sized so that no text of ours is cut.
    Assert(!err.truncated);
    ereport(elevel, (errcode(sqlstate_for(err.code)), errmsg("%s", err.message),
                     err.detail[0] ? errdetail("%s", err.detail) : 0,
                     err.hint[0] ? errhint("%s", err.hint) : 0));
}

void sf_raise_with_hint(const snowflake::Error &err, const char *hint) {
    Assert(!err.truncated);
    ereport(ERROR, (errcode(sqlstate_for(err.code)), errmsg("%s", err.message),
                    err.detail[0] ? errdetail("%s", err.detail) : 0, errhint("%s", hint)));
    pg_unreachable();
}

void sf_raise(const snowflake::Error &err) {
    sf_report(ERROR, err);
    pg_unreachable();
}

void sf_refuse_in_read_only(const char *call) {
    if (likely(!XactReadOnly)) {
        return;
    }
    ereport(ERROR,
            (errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
             errmsg("cannot execute %s in a read-only transaction", call),
             errdetail("It raises the floor every session's IDs resume above, and may write WAL "
                       "and the state file to reserve IDs, as nextval() moves a sequence."),
             errhint("Call it in a read-write transaction (not BEGIN READ ONLY, nor with "
                     "default_transaction_read_only = on); an INSERT into a temporary table "
                     "inside a read-only transaction meets this too.")));
}
