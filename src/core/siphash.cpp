#include "siphash.hpp"

namespace snowflake {

namespace {

constexpr uint64_t rotl(uint64_t x, int b) {
    return (x << b) | (x >> (64 - b));
}

uint64_t read_le64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) {
        v = (v << 8) | p[i];
    }
    return v;
}

struct State {
    uint64_t v0, v1, v2, v3;

    void round() {
        v0 += v1;
        v1 = rotl(v1, 13);
        v1 ^= v0;
        v0 = rotl(v0, 32);
        v2 += v3;
        v3 = rotl(v3, 16);
        v3 ^= v2;
        v0 += v3;
        v3 = rotl(v3, 21);
        v3 ^= v0;
        v2 += v1;
        v1 = rotl(v1, 17);
        v1 ^= v2;
        v2 = rotl(v2, 32);
    }

    void absorb(uint64_t m) {
        v3 ^= m;
        round();
        round();
        v0 ^= m;
    }
};

}  // namespace

SipKey sip_key_from_bytes(const uint8_t bytes[kSipKeyBytes]) {
    return SipKey{read_le64(bytes), read_le64(bytes + 8)};
}

uint64_t siphash24(const SipKey &key, const uint8_t *message, std::size_t length) {
    State s{key.k0 ^ UINT64_C(0x736f6d6570736575), key.k1 ^ UINT64_C(0x646f72616e646f6d),
            key.k0 ^ UINT64_C(0x6c7967656e657261), key.k1 ^ UINT64_C(0x7465646279746573)};
    const std::size_t whole = length - length % 8;
    for (std::size_t i = 0; i < whole; i += 8) {
        s.absorb(read_le64(message + i));
    }
    // The last block: the remaining bytes, little-endian, with the
    // message's length (mod 256) in the top byte.
    uint64_t last = static_cast<uint64_t>(length) << 56;
    for (std::size_t i = whole; i < length; ++i) {
        last |= static_cast<uint64_t>(message[i]) << (8 * (i - whole));
    }
    s.absorb(last);
    s.v2 ^= 0xff;
    for (int i = 0; i < 4; ++i) {
        s.round();
    }
    return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}

}  // namespace snowflake
