// Public IDs: a keyed, reversible form of an ID that hides what the ID
// carries (its time, its node, and how many IDs came between two of them)
// from whoever lacks the key. docs/public-ids.md describes the construction
// and what it does not do (it is no authentication).
//
//   permutation  a balanced Feistel network of kPublicIdRounds rounds over
//                the 64 bits (two 32-bit halves, the high half left), whose
//                round function is SipHash-2-4 under the 128-bit key of the
//                8-byte message: the right half (4 bytes, little-endian),
//                the round number (1 byte), and "PID" (3 bytes, naming this
//                use of the key)
//   text         the permuted 64 bits in Crockford's base32, 13 symbols,
//                most significant first (the first symbol carries 4 bits:
//                0 to F); optionally Crockford's check symbol (the value
//                mod 37) after them; optionally a prefix and "_" before,
//                as TypeID writes its kinds ("ord_...")
#pragma once
#include "pure_cpp.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "error.hpp"
#include "siphash.hpp"

namespace snowflake {

inline constexpr int kPublicIdRounds = 8;
inline constexpr std::size_t kPublicKeyBytes = kSipKeyBytes;
inline constexpr std::size_t kPublicIdSymbols = 13;
inline constexpr std::size_t kPublicPrefixMax = 63;
// A prefix, "_", the symbols and the check symbol.
inline constexpr std::size_t kPublicIdTextMax = kPublicPrefixMax + 1 + kPublicIdSymbols + 1;

// The key, which must be exactly kPublicKeyBytes bytes: shorter is too weak,
// and longer would promise more than SipHash's 128 bits (length is the
// byte count; the bytes are never quoted in a message).
// ErrorCode::invalid_public_key otherwise.
bool public_key_from_bytes(const uint8_t *bytes, std::size_t length, SipKey *out, Error *err);

// The key from snowflake_id.public_key's text: 32 hexadecimal digits, as
// encode(key, 'hex') writes them, optionally after "\x", as bytea's output
// writes them. ErrorCode::public_key_unset for "" (never quoting the text),
// ErrorCode::invalid_public_key for anything else that is not a key.
bool public_key_from_setting(std::string_view text, SipKey *out, Error *err);

// The refusal of the default key without the preload: the setting is then
// a placeholder that every role can read and set (ErrorCode::public_key_unset).
bool public_key_needs_preload(Error *err);

// The permutation of the 64 bits and its inverse.
uint64_t public_permute(const SipKey &key, uint64_t value);
uint64_t public_unpermute(const SipKey &key, uint64_t value);

// Crockford's base32 of 64 bits: 13 symbols, upper case, and the check
// symbol if `check`; NUL-terminated. Returns the length written.
std::size_t crockford_encode(uint64_t value, bool check, char out[kPublicIdSymbols + 2]);

// A prefix: empty (none), or 1 to kPublicPrefixMax lower-case letters a-z
// and underscores, starting and ending with a letter (TypeID's rule).
// ErrorCode::invalid_public_prefix otherwise.
bool check_public_prefix(std::string_view prefix, Error *err);

// The public form of a non-negative ID (ErrorCode::id_out_of_range for a
// negative one), with the prefix checked as above. out holds
// kPublicIdTextMax + 1 bytes; NUL-terminated.
bool format_public_id(int64_t id, const SipKey &key, std::string_view prefix, bool check,
                      char out[kPublicIdTextMax + 1], Error *err);

// The ID of a public form, for the same key, prefix and check as it was
// made with. Takes what Crockford says readers may type: either case, I
// and L for 1, O for 0, and hyphens anywhere after the prefix, which are
// ignored. ErrorCode::invalid_public_id, quoting the text, for the wrong
// number of symbols, a character outside the alphabet, a first symbol
// above F, a failed check symbol, a missing or other prefix, or a value
// whose inverse is no ID (above 2^63 - 1: made with another key, or no
// public ID at all); ErrorCode::invalid_public_prefix for a bad prefix.
bool parse_public_id(std::string_view text, const SipKey &key, std::string_view prefix, bool check,
                     int64_t *out, Error *err);

}  // namespace snowflake
