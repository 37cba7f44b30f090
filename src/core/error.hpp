// Errors crossing the core's interface.
//
// The core never throws across its interface (the project's rule for the
// C++/PostgreSQL boundary). A failing call returns false or a status and
// fills an Error: a plain struct with fixed buffers, so that the PostgreSQL
// glue can copy it into an ereport without any C++ object with a destructor
// being alive on the stack when the ereport longjmps.
#pragma once
#include "pure_cpp.hpp"

#include <cstdarg>
#include <cstddef>
#include <string_view>

namespace snowflake {

enum class ErrorCode : int {
    none = 0,
    invalid_setting,      // a setting's value is malformed or out of its own range
    layout_no_room,       // the layout cannot carry the current time
    epoch_in_future,      // the epoch lies after the wall clock
    invalid_node,         // worker_id / datacenter_id unset or too wide for the layout
    timestamp_exhausted,  // the timestamp field has run out
    clock_behind,         // the wall clock is behind beyond what drift and wait allow
    invalid_id,           // an ID that no layout can have issued (negative)
    time_out_of_range,    // a time before the epoch or after the layout's end
    field_out_of_range,   // a worker id, datacenter id or sequence too wide for the layout
    invalid_spec,         // a foreign layout (preset name or spec) that cannot be read
    invalid_objectid,     // text that is not 24 hexadecimal digits
    block_too_large,      // a block of IDs that no call could ever be given
    registry,             // the registry of node ids refused or could not be reached
    invalid_id_text,      // text that is not the digits of an ID (the snowflake type)
    id_out_of_range,      // a negative value, or one beyond bigint, for the snowflake type
};

// Deliberately without initialisers: the generator's hot path declares one
// per call and must not pay for zeroing a kilobyte. fail() clears it whole
// before writing, so every field is defined once a call has failed.
struct Error {
    ErrorCode code;
    char message[320];
    char detail[320];
    char hint[320];
};

// printf-style helpers; they never allocate and they truncate on overflow.
// Each returns false so that a failing function can `return fail(...)`.
bool fail(Error *err, ErrorCode code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void set_detail(Error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void set_hint(Error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

// Quoting user input in messages, which must stay valid UTF-8 and short
// enough for the buffers above: the longest prefix of text of at most
// max_bytes that does not end inside a UTF-8 character, and the number of
// characters (not bytes) in text, for "at character N".
std::size_t utf8_prefix_length(std::string_view text, std::size_t max_bytes);
std::size_t utf8_length(std::string_view text);

}  // namespace snowflake
