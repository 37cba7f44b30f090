// Errors crossing the core's interface.
//
// The core never throws across its interface (the project's rule for the
// C++/PostgreSQL boundary). A failing call returns false or a status and
// fills an Error: a plain struct with fixed buffers, so that the PostgreSQL
// glue can copy it into an ereport without any C++ object with a destructor
// being alive on the stack when the ereport longjmps.
#pragma once
#include "pure_cpp.hpp"

#include <algorithm>
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
    capacity_exceeded,    // IDs asked for faster than the layout's rate, beyond drift and wait
    invalid_id,           // an ID that no layout can have issued (negative)
    time_out_of_range,    // a time before the epoch or after the layout's end
    field_out_of_range,   // a worker id, datacenter id or sequence too wide for the layout
    invalid_spec,         // a foreign layout (preset name or spec) that cannot be read
    invalid_objectid,     // text that is not 24 hexadecimal digits
    block_too_large,      // a block of IDs that no call could ever be given
    registry,             // the registry of node ids refused or could not be reached
    // The registry holds a live lease of a promoted standby of this server
    // (the same system identifier, a higher timeline): this server is an old
    // primary and is refused, not merely out of luck with an id.
    registry_replaced,
    invalid_id_text,     // text that is not the digits of an ID (the snowflake type)
    id_out_of_range,     // a negative value, or one beyond bigint, for the snowflake type
    invalid_public_id,   // text that is not a public ID under the given key, prefix and check
    invalid_public_key,  // a key for public IDs that is not 16 bytes, or a setting that is no key
    invalid_public_prefix,  // a prefix for public IDs outside its alphabet or length
    public_key_unset,       // a public ID without a key while snowflake_id.public_key is empty
};

// The longest texts a message quotes, from the limits of their sources. A
// registry's answers quote the servers that wrote to it, so they are
// bounded by what every server sends: its host name, data directory, port
// and system identifier.
inline constexpr std::size_t kHostMax = 255;       // a DNS name (RFC 1035); gethostname's, shorter
inline constexpr std::size_t kPathMax = 1023;      // PostgreSQL's MAXPGPATH less its NUL
inline constexpr std::size_t kIntMax = 20;         // "-9223372036854775808", and any uint64
inline constexpr std::size_t kTimestampMax = 128;  // PostgreSQL's MAXDATELEN: any timestamptz text

// The length of printf-style format text without its "%s" conversions, for
// the arithmetic below.
constexpr std::size_t fixed_length(const char *format) {
    std::size_t n = 0;
    for (const char *p = format; *p != '\0'; ++p) {
        if (p[0] == '%' && p[1] == 's') {
            ++p;
        } else {
            ++n;
        }
    }
    return n;
}

// The registry's texts (lease_rules.cpp builds them for both stores, as
// the 1.4 registry's SQL functions and Lua scripts wrote them): a holder, a
// layout, and the longest DETAILs, which quote them.
inline constexpr std::size_t kRegistryHolderMax =
    fixed_length("%s:%s, data directory %s, system identifier %s") + kHostMax + kIntMax + kPathMax +
    kIntMax;
inline constexpr std::size_t kRegistryLayoutMax =
    fixed_length("%s datacenter, %s worker and %s sequence bits from epoch %s") + 3 * kIntMax +
    kTimestampMax;
inline constexpr std::size_t kRegistryDetailMax = std::max(
    {fixed_length("It is held by %s, whose lease runs until %s; this server is %s.") +
         2 * kRegistryHolderMax + kTimestampMax,
     fixed_length("The registry's cluster uses %s (recorded by %s at %s); this server runs %s. IDs "
                  "of different layouts cannot be compared or decoded together.") +
         2 * kRegistryLayoutMax + kRegistryHolderMax + kTimestampMax,
     fixed_length("The Redis registry's cluster uses lease_ttl %s ms and max_clock_drift %s ms "
                  "(recorded by %s); this server runs %s ms and %s ms. A Redis registry that "
                  "lost its data waits out one lease_ttl plus max_clock_drift, so they must be "
                  "the same on every server.") +
         kRegistryHolderMax + 4 * kIntMax,
     fixed_length("It is held by %s since %s with fence %s; this run of the server held fence "
                  "%s.") +
         kRegistryHolderMax + kTimestampMax + 2 * kIntMax,
     fixed_length("Node id %s is held by %s on timeline %s, whose lease runs until %s; this "
                  "server is %s on timeline %s. Both have the same system identifier: the other "
                  "is a standby of this server's, promoted.") +
         2 * kRegistryHolderMax + kTimestampMax + 3 * kIntMax});
// Its messages quote numbers and a time at most; the longest with room.
inline constexpr std::size_t kRegistryMessageMax = 256;

// Text from elsewhere (a libpq error, a Redis error reply, a registry row
// no server wrote) has no limit of its own. A message quotes up to
// kForeignTextMax bytes of it, room for libpq's report of two unreachable
// hosts of the longest names, and past that marks the cut (quote_foreign);
// whoever quotes it logs the whole text.
inline constexpr std::size_t kForeignTextMax = 1024;
inline constexpr std::size_t kForeignCutMarkMax =
    fixed_length(" ... (%s more bytes, in the server log)") + kIntMax;

// Deliberately without initialisers: the generator's hot path declares one
// per call and must not pay for zeroing kilobytes. fail() clears it whole
// before writing, so every field is defined once a call has failed.
//
// Sized so that nothing the project writes is ever cut: the helpers below
// set `truncated` if a text did not fit, which is a bug the unit tests look
// for. The message holds a store's failure (what failed, the registry's
// address, a quoted foreign text) or a registry's message; the detail the
// registry's longest DETAIL; the hint the core's own hints, which quote
// settings' numbers and at most 120 bytes of input.
struct Error {
    ErrorCode code;
    bool truncated;
    char message[2048];
    char detail[4096];
    char hint[1024];
};
static_assert(kRegistryMessageMax < sizeof Error::message);
static_assert(64 + kHostMax + 64 + kForeignTextMax + kForeignCutMarkMax < sizeof Error::message,
              "a store's failure: what failed (< 64), where (Redis at host:port), why");
static_assert(kRegistryDetailMax < sizeof Error::detail);

// printf-style helpers; they never allocate. A text that does not fit is
// cut and err->truncated set. Each returns false so that a failing function
// can `return fail(...)`.
bool fail(Error *err, ErrorCode code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void set_detail(Error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void set_hint(Error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

// Copies foreign text into out (size bytes): whole if it fits, else its
// first whole characters and " ... (N more bytes, in the server log)".
// Returns false if it cut: the caller then logs the whole text.
bool quote_foreign(std::string_view text, char *out, std::size_t size);

// Quoting input in messages. Input is text in the database's encoding,
// which only the PostgreSQL side knows: it installs that encoding's rule
// once, when the library loads, and every quote of input is cut and
// counted by it, so that a cut never falls inside a character (the message
// would fail its conversion to the client's encoding, and the client get
// 22021 instead of the error) and "at character N" counts what the user
// sees. The rule gives the length in bytes, 1 to rest.size(), of the
// character rest (never empty) starts with; it must not raise a PostgreSQL
// ERROR, which would longjmp through the core's frames. Until one is
// installed, and in the unit tests, the rule is UTF-8's. The "..." the
// messages append after a cut is ASCII, which every server encoding keeps
// as it is.
using CharacterLength = std::size_t (*)(std::string_view rest);
void set_character_length(CharacterLength rule);  // nullptr: UTF-8's again
std::size_t character_length(std::string_view rest);

// The longest prefix of text of at most max_bytes that ends where a
// character does, and the number of characters in text, by the installed rule.
std::size_t quoted_prefix_length(std::string_view text, std::size_t max_bytes);
std::size_t character_count(std::string_view text);

// UTF-8's rule: a byte and the continuation bytes (10xxxxxx) after it; and
// the prefix by it, for foreign text (quote_foreign), which comes from
// elsewhere than the database.
std::size_t utf8_character_length(std::string_view rest);
std::size_t utf8_prefix_length(std::string_view text, std::size_t max_bytes);

}  // namespace snowflake
