// One place that turns core errors into PostgreSQL errors.
#include "pg_glue.hpp"

extern "C" {
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

}  // namespace

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
