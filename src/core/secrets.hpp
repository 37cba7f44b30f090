// Keeping the registry's password out of what roles and the log can read.
//
// snowflake_id.registry may hold a password (libpq's password=..., a
// postgresql:// URI's user:password@, a redis:// URL's :password@). The
// registry's connection errors come from libpq and hiredis, which may quote
// the connection string or a part of it; snowflake_status.lease_message,
// every refusal's DETAIL and the server log show those errors to roles
// that must not learn the password. So every such text goes through
// mask_secrets first, and a connection string libpq cannot parse is
// refused at start with a message of ours that names the part at fault,
// never its value (bad_percent_escape_part).
#pragma once
#include "error.hpp"
#include "pure_cpp.hpp"

#include <cstddef>
#include <string_view>

namespace snowflake {

// Copies text into out (size bytes, always terminated), with "***" in place
// of every password it can find: the value of a password or sslpassword
// keyword (libpq's keyword=value or a URI's ?password=, quoted or not, the
// key's letters maybe percent-encoded, as libpq decodes them), the password of a
// URI's or URL's user:password@, and the token libpq quotes in "invalid
// percent-encoded token: \"...\"" (a decoded part of the URI, maybe the
// password). More is masked rather than less: an unquoted value ends only
// at white space.
void mask_secrets(std::string_view text, char *out, std::size_t size);

// mask_secrets over a store's error, in place: its message, detail and
// hint, before anything shows or logs them.
void mask_error(Error *err);

// Copies a libpq parse error into out with every double-quoted text in it
// replaced by "...": libpq quotes pieces of the connection string there
// (a value, or a fragment of one). A quoted "=" (libpq's 'missing "="')
// is its own text, kept.
void mask_quoted(std::string_view text, char *out, std::size_t size);

// For a postgres:// or postgresql:// URI: the part in which a "%" is not
// followed by two hexadecimal digits (libpq refuses such a URI), written
// into part: "user name", "password", "host list", "database name",
// "parameter NAME" (NAME is a query key, the URI's own text) or "parameter
// name". False when there is no such "%" (or text is no URI).
bool bad_percent_escape_part(std::string_view text, char *part, std::size_t size);

}  // namespace snowflake
