// SipHash-2-4 (Aumasson and Bernstein, "SipHash: a fast short-input PRF",
// 2012): a keyed pseudorandom function of 128-bit key and 64-bit output,
// the round function of the public IDs' permutation (public_id.hpp). Checked
// against the paper's reference test vectors (tests/unit/public_id_test.cpp).
#pragma once
#include "pure_cpp.hpp"

#include <cstddef>
#include <cstdint>

namespace snowflake {

inline constexpr std::size_t kSipKeyBytes = 16;

// The key as the reference implementation reads it: k0 the first 8 bytes,
// k1 the last 8, each little-endian.
struct SipKey {
    uint64_t k0;
    uint64_t k1;
};

SipKey sip_key_from_bytes(const uint8_t bytes[kSipKeyBytes]);

// SipHash-2-4 of the message: the reference's 8 output bytes read as a
// little-endian integer.
uint64_t siphash24(const SipKey &key, const uint8_t *message, std::size_t length);

}  // namespace snowflake
