#include "public_id.hpp"

#include <cstdarg>
#include <cstdio>

#include "hex.hpp"

namespace snowflake {

namespace {

// Crockford's 32 symbols, then the 5 that only a check symbol uses.
constexpr char kSymbols[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ*~$=U";
constexpr uint64_t kCheckModulus = 37;

// "\x" and hexadecimal digits, or 32 hexadecimal digits: a key's text form.
bool looks_like_a_key(std::string_view text) {
    std::string_view digits = text;
    if (digits.size() >= 2 && digits[0] == '\\' && (digits[1] == 'x' || digits[1] == 'X')) {
        digits.remove_prefix(2);
    } else if (digits.size() != 2 * kPublicKeyBytes) {
        return false;
    }
    if (digits.empty()) {
        return false;
    }
    for (char c : digits) {
        if (hex_value(c) < 0) {
            return false;
        }
    }
    return true;
}

// A symbol's value as Crockford's decoding reads it: either case, I and L
// as 1, O as 0. -1 for anything else; the check symbols (32 to 36) only if
// `check_symbol`.
int symbol_value(char c, bool check_symbol) {
    if (c >= 'a' && c <= 'z') {
        c = static_cast<char>(c - 'a' + 'A');
    }
    if (c == 'I' || c == 'L') {
        return 1;
    }
    if (c == 'O') {
        return 0;
    }
    for (int v = 0; v < static_cast<int>(sizeof kSymbols - 1); ++v) {
        if (kSymbols[v] == c) {
            return v < 32 || check_symbol ? v : -1;
        }
    }
    return -1;
}

// "PID" in the top 3 bytes of the round function's message.
constexpr uint64_t kRoundTag = UINT64_C(0x444950) << 40;

uint32_t round_function(const SipKey &key, int round, uint32_t half) {
    const uint64_t m = kRoundTag | (static_cast<uint64_t>(round) << 32) | half;
    uint8_t message[8];
    for (int i = 0; i < 8; ++i) {
        message[i] = static_cast<uint8_t>(m >> (8 * i));
    }
    return static_cast<uint32_t>(siphash24(key, message, sizeof message));
}

void quote_text(Error *err, std::string_view text) {
    const std::size_t cut = quoted_prefix_length(text, 100);
    fail(err, ErrorCode::invalid_public_id, "invalid public ID \"%.*s%s\"", static_cast<int>(cut),
         text.data(), cut < text.size() ? "..." : "");
    set_hint(err,
             "A public ID is 13 symbols of Crockford's base32 (0-9 and A-Z without I, L, O and U, "
             "either case, hyphens ignored), after its prefix and \"_\" if it has one, and a "
             "check symbol after them if it was made with one: decode it with the key, prefix "
             "and check_symbol it was made with.");
}

bool bad_text(Error *err, std::string_view text, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

bool bad_text(Error *err, std::string_view text, const char *fmt, ...) {
    quote_text(err, text);
    if (err != nullptr) {
        va_list args;
        va_start(args, fmt);
        const int n = std::vsnprintf(err->detail, sizeof err->detail, fmt, args);
        va_end(args);
        err->truncated = n < 0 || static_cast<std::size_t>(n) >= sizeof err->detail;
    }
    return false;
}

}  // namespace

bool public_key_from_bytes(const uint8_t *bytes, std::size_t length, SipKey *out, Error *err) {
    if (length != kPublicKeyBytes) {
        fail(err, ErrorCode::invalid_public_key, "a key for public IDs must be %zu bytes, not %zu",
             kPublicKeyBytes, length);
        set_detail(err,
                   "Public IDs are keyed by 128 bits, SipHash-2-4's key: a shorter key is too "
                   "weak, and a longer one would promise more than the 128 bits it can use.");
        set_hint(err,
                 "Make a key once, e.g. with openssl rand -hex 16, or pgcrypto's "
                 "gen_random_bytes(16), and keep it: a changed key changes every public ID.");
        return false;
    }
    *out = sip_key_from_bytes(bytes);
    return true;
}

bool public_key_from_setting(std::string_view text, SipKey *out, Error *err) {
    if (text.empty()) {
        fail(err, ErrorCode::public_key_unset,
             "snowflake_id.public_key is not set, and no key was given");
        set_hint(err,
                 "Pass the key (16 bytes of bytea), or have a superuser set "
                 "snowflake_id.public_key to 32 hexadecimal digits in postgresql.conf, e.g. "
                 "from openssl rand -hex 16.");
        return false;
    }
    std::string_view digits = text;
    // bytea's output writes "\x"; postgresql.conf's quoting reads "\x" as
    // "x", so a key pasted there arrives with a bare x.
    if (digits.size() >= 2 && digits[0] == '\\' && (digits[1] == 'x' || digits[1] == 'X')) {
        digits.remove_prefix(2);
    } else if (digits.size() == 2 * kPublicKeyBytes + 1 && (digits[0] == 'x' || digits[0] == 'X')) {
        digits.remove_prefix(1);
    }
    uint8_t bytes[kPublicKeyBytes];
    bool ok = digits.size() == 2 * kPublicKeyBytes;
    for (std::size_t i = 0; ok && i < kPublicKeyBytes; ++i) {
        const int hi = hex_value(digits[2 * i]);
        const int lo = hex_value(digits[2 * i + 1]);
        ok = hi >= 0 && lo >= 0;
        bytes[i] = static_cast<uint8_t>(ok ? hi * 16 + lo : 0);
    }
    if (!ok) {
        // The text is a secret: neither quoted nor measured.
        fail(err, ErrorCode::invalid_public_key,
             "snowflake_id.public_key is not a key for public IDs");
        set_detail(err,
                   "The key is written as 32 hexadecimal digits (16 bytes), optionally after "
                   "\"\\x\" (in postgresql.conf, \"\\x\" reads as \"x\", which is taken too).");
        set_hint(err, "Make one with openssl rand -hex 16.");
        return false;
    }
    *out = sip_key_from_bytes(bytes);
    return true;
}

bool public_key_needs_preload(Error *err) {
    fail(err, ErrorCode::public_key_unset,
         "snowflake_id.public_key needs snowflake_id in shared_preload_libraries");
    set_detail(err,
               "Without the preload the setting is a placeholder that every role can read and "
               "set, so public IDs without a key refuse to use it.");
    set_hint(err,
             "Add snowflake_id to shared_preload_libraries and restart the server, or pass the "
             "key.");
    return false;
}

uint64_t public_permute(const SipKey &key, uint64_t value) {
    uint32_t left = static_cast<uint32_t>(value >> 32);
    uint32_t right = static_cast<uint32_t>(value);
    for (int r = 0; r < kPublicIdRounds; ++r) {
        const uint32_t next = left ^ round_function(key, r, right);
        left = right;
        right = next;
    }
    return (static_cast<uint64_t>(left) << 32) | right;
}

uint64_t public_unpermute(const SipKey &key, uint64_t value) {
    uint32_t left = static_cast<uint32_t>(value >> 32);
    uint32_t right = static_cast<uint32_t>(value);
    for (int r = kPublicIdRounds - 1; r >= 0; --r) {
        const uint32_t previous = right ^ round_function(key, r, left);
        right = left;
        left = previous;
    }
    return (static_cast<uint64_t>(left) << 32) | right;
}

std::size_t crockford_encode(uint64_t value, bool check, char out[kPublicIdSymbols + 2]) {
    for (std::size_t i = 0; i < kPublicIdSymbols; ++i) {
        out[kPublicIdSymbols - 1 - i] = kSymbols[(value >> (5 * i)) & 31];
    }
    std::size_t n = kPublicIdSymbols;
    if (check) {
        out[n++] = kSymbols[value % kCheckModulus];
    }
    out[n] = '\0';
    return n;
}

bool check_public_prefix(std::string_view prefix, Error *err) {
    if (prefix.empty()) {
        return true;
    }
    if (looks_like_a_key(prefix)) {
        // A key written as text lands here (an untyped literal is taken for
        // the text prefix): a secret, so not quoted.
        fail(err, ErrorCode::invalid_public_prefix,
             "invalid prefix for public IDs: it looks like a key written as text");
        set_detail(err,
                   "A prefix is empty (none) or 1 to %zu lower-case letters a-z and underscores; "
                   "this one is hexadecimal digits, as a key is written (32 of them are refused "
                   "even as letters a-f).",
                   kPublicPrefixMax);
        set_hint(err,
                 "A key is bytea: write it as '\\x...'::bytea, or the text is taken for the "
                 "prefix.");
        return false;
    }
    bool ok = prefix.size() <= kPublicPrefixMax && prefix.front() != '_' && prefix.back() != '_';
    for (std::size_t i = 0; ok && i < prefix.size(); ++i) {
        ok = (prefix[i] >= 'a' && prefix[i] <= 'z') || prefix[i] == '_';
    }
    if (ok) {
        return true;
    }
    const std::size_t cut = quoted_prefix_length(prefix, 100);
    fail(err, ErrorCode::invalid_public_prefix, "invalid prefix \"%.*s%s\" for public IDs",
         static_cast<int>(cut), prefix.data(), cut < prefix.size() ? "..." : "");
    set_detail(err,
               "A prefix is empty (none) or 1 to %zu lower-case letters a-z and underscores, "
               "starting and ending with a letter, as TypeID's.",
               kPublicPrefixMax);
    if (prefix.size() >= 2 && prefix[0] == '\\' && prefix[1] == 'x') {
        set_hint(err,
                 "A key is bytea: write it as '\\x...'::bytea, or the text is taken for the "
                 "prefix.");
    } else {
        set_hint(err, "Use a prefix such as 'ord' or 'user_account'.");
    }
    return false;
}

bool format_public_id(int64_t id, const SipKey &key, std::string_view prefix, bool check,
                      char out[kPublicIdTextMax + 1], Error *err) {
    if (id < 0) {
        fail(err, ErrorCode::id_out_of_range, "ID %lld has no public form",
             static_cast<long long>(id));
        set_detail(err, "Public IDs are made of IDs between 0 and 9223372036854775807.");
        return false;
    }
    if (!check_public_prefix(prefix, err)) {
        return false;
    }
    std::size_t n = 0;
    if (!prefix.empty()) {
        for (char c : prefix) {
            out[n++] = c;
        }
        out[n++] = '_';
    }
    crockford_encode(public_permute(key, static_cast<uint64_t>(id)), check, out + n);
    return true;
}

bool parse_public_id(std::string_view text, const SipKey &key, std::string_view prefix, bool check,
                     int64_t *out, Error *err) {
    if (!check_public_prefix(prefix, err)) {
        return false;
    }
    std::size_t start = 0;
    if (!prefix.empty()) {
        if (text.size() <= prefix.size() || text.substr(0, prefix.size()) != prefix ||
            text[prefix.size()] != '_') {
            return bad_text(err, text, "It does not start with the prefix \"%.*s_\".",
                            static_cast<int>(prefix.size()), prefix.data());
        }
        start = prefix.size() + 1;
    }
    // Every symbol, hyphen and check symbol is ASCII, and so is the prefix.
    // A byte from 0x80 up is refused where it stands, whatever the
    // database's encoding: in LATIN1 or EUC_JP it is (part of) a character
    // of its own, which skipping it as UTF-8's continuation would drop.
    for (std::size_t i = start; i < text.size(); ++i) {
        if (static_cast<unsigned char>(text[i]) >= 0x80) {
            return bad_text(err, text, "Character %zu is not a symbol of Crockford's base32.",
                            i + 1);
        }
    }
    const std::size_t wanted = kPublicIdSymbols + (check ? 1 : 0);
    std::size_t symbols = 0;
    for (std::size_t i = start; i < text.size(); ++i) {
        symbols += text[i] != '-' ? 1 : 0;
    }
    if (symbols != wanted) {
        return bad_text(
            err, text, "A public ID has %zu symbols%s%s%s, hyphens aside; this one has %zu.",
            wanted, prefix.empty() ? "" : " after its prefix",
            check ? ", its check symbol last" : "", check ? "" : " (no check symbol)", symbols);
    }
    uint64_t value = 0;
    std::size_t seen = 0;
    // From here on the text is ASCII, and so is the prefix: a byte is a
    // character.
    std::size_t character = start;
    for (std::size_t i = start; i < text.size(); ++i) {
        ++character;
        if (text[i] == '-') {
            continue;
        }
        const bool is_check = check && seen == kPublicIdSymbols;
        const int v = symbol_value(text[i], is_check);
        if (v < 0) {
            if (text[i] > ' ' && text[i] <= '~') {
                return bad_text(err, text, "Character %zu, \"%c\", is not a symbol of %s.",
                                character, text[i],
                                is_check ? "the check symbols" : "Crockford's base32");
            }
            return bad_text(err, text, "Character %zu is not a symbol of %s.", character,
                            is_check ? "the check symbols" : "Crockford's base32");
        }
        if (seen == 0 && v > 15) {
            return bad_text(err, text,
                            "The first symbol, \"%c\", is above F: it carries the top 4 of the 64 "
                            "bits.",
                            text[i]);
        }
        if (is_check) {
            if (value % kCheckModulus != static_cast<uint64_t>(v)) {
                return bad_text(err, text,
                                "The check symbol \"%c\" does not match the symbols before it: "
                                "one of them, or the check symbol, is mistyped.",
                                text[i]);
            }
        } else {
            value = (value << 5) | static_cast<uint64_t>(v);
        }
        ++seen;
    }
    const uint64_t id = public_unpermute(key, value);
    if (id > static_cast<uint64_t>(INT64_MAX)) {
        const std::size_t cut = quoted_prefix_length(text, 100);
        fail(err, ErrorCode::invalid_public_id,
             "public ID \"%.*s%s\" stands for no ID under this key", static_cast<int>(cut),
             text.data(), cut < text.size() ? "..." : "");
        set_detail(err,
                   "Under this key it decodes to a value above 9223372036854775807: it was made "
                   "with another key, or by no snowflake_public() call.");
        set_hint(err,
                 "Decode it with the key it was made with. Public IDs are not authenticated: "
                 "about half of the texts made with another key decode to some ID without an "
                 "error.");
        return false;
    }
    *out = static_cast<int64_t>(id);
    return true;
}

}  // namespace snowflake
