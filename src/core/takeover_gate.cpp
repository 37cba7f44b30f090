#include "takeover_gate.hpp"

namespace snowflake {

void TakeoverGate::close_until(int64_t resume_unix_ms) {
    int64_t seen = resume_unix_ms_.load(std::memory_order_relaxed);
    while (seen < resume_unix_ms && !resume_unix_ms_.compare_exchange_weak(
                                        seen, resume_unix_ms, std::memory_order_acq_rel)) {
    }
}

int64_t TakeoverGate::closed_until(int64_t now_unix_ms) {
    int64_t seen = resume_unix_ms_.load(std::memory_order_acquire);
    if (seen == 0) {
        return 0;
    }
    if (now_unix_ms < seen) {
        return seen;
    }
    // Only the value read: a grant that closed it further meanwhile stands.
    (void)resume_unix_ms_.compare_exchange_strong(seen, 0, std::memory_order_acq_rel);
    return 0;
}

bool TakeoverGate::open_if(int64_t resume_unix_ms) {
    return resume_unix_ms != 0 &&
           resume_unix_ms_.compare_exchange_strong(resume_unix_ms, 0, std::memory_order_acq_rel);
}

GateResult wait_at_gate(TakeoverGate &gate, Clock clock, Sleeper sleeper, int64_t max_wait_ms,
                        WaitBudget *budget) {
    GateResult result;
    bool fresh_reading_taken = false;
    for (;;) {
        const int64_t now = clock.now_unix_ms(clock.ctx);
        const int64_t until = gate.closed_until(now);
        if (until == 0) {
            return result;
        }
        const int64_t wait_ms = until - now;
        const int64_t left_us = max_wait_ms * 1000 - budget->waited_us;
        if (wait_ms > left_us / 1000) {
            // A reading taken long before (the process off the CPU) asks for
            // a longer wait than needed: decide on a fresh one.
            if (!fresh_reading_taken) {
                fresh_reading_taken = true;
                continue;
            }
            result.status = GateStatus::closed;
            result.resume_unix_ms = until;
            result.behind_ms = wait_ms;
            return result;
        }
        fresh_reading_taken = false;
        int64_t slept_us = 0;
        const bool keep_going = sleeper.sleep(sleeper.ctx, wait_ms, until, &slept_us);
        budget->waited_us += slept_us > 0 ? slept_us : 0;
        if (!keep_going) {
            result.status = GateStatus::interrupted;
            return result;
        }
    }
}

}  // namespace snowflake
