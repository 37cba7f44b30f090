#include "catch_up_state.hpp"

namespace snowflake {

void SharedCatchUp::publish(bool running, int64_t base_unix_ms, int64_t start_mono_ns) {
    const uint64_t version = (word_.load(std::memory_order_relaxed) | (kVersionStep - 1)) + 1;
    // A compare-and-swap by a reader ending the catch-up may land between
    // the load above and this store: it only cleared `running`, and the
    // store below replaces the word whole.
    word_.store(version | kWriting, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
    base_unix_ms_.store(base_unix_ms, std::memory_order_relaxed);
    start_mono_ns_.store(start_mono_ns, std::memory_order_relaxed);
    word_.store(version | (running ? kRunning : 0), std::memory_order_release);
}

void SharedCatchUp::start(int64_t base_unix_ms, int64_t start_mono_ns) {
    publish(true, base_unix_ms, start_mono_ns);
}

void SharedCatchUp::stop() {
    publish(false, 0, 0);
}

SharedCatchUp::Snapshot SharedCatchUp::read() const {
    for (;;) {
        Snapshot s;
        s.word = word_.load(std::memory_order_acquire);
        if ((s.word & kWriting) != 0) {
            continue;  // three stores away from settled
        }
        s.running = (s.word & kRunning) != 0;
        if (!s.running) {
            return s;
        }
        s.clock.base_unix_ms = base_unix_ms_.load(std::memory_order_relaxed);
        s.clock.start_mono_ns = start_mono_ns_.load(std::memory_order_relaxed);
        std::atomic_thread_fence(std::memory_order_acquire);
        if (word_.load(std::memory_order_relaxed) == s.word) {
            return s;
        }
    }
}

bool SharedCatchUp::end(const Snapshot &seen) {
    uint64_t expected = seen.word;
    return seen.running && word_.compare_exchange_strong(expected, seen.word & ~kRunning,
                                                         std::memory_order_acq_rel);
}

int64_t SharedCatchUp::now(int64_t wall_unix_ms, int64_t mono_ns, bool may_end) {
    const Snapshot seen = read();
    if (!seen.running) {
        return wall_unix_ms;
    }
    bool caught_up = false;
    const int64_t t = catch_up_now(seen.clock, wall_unix_ms, mono_ns, &caught_up);
    if (caught_up && may_end) {
        (void)end(seen);
    }
    return t;
}

}  // namespace snowflake
