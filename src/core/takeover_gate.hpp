// snowflake_id.takeover = 'wait': after a node id lease whose floor lies
// ahead of the clock (another holder's recorded bound plus its drift: up to
// lease_ttl ahead when a live lease was taken over), the generator issues
// nothing until its clock reaches that floor, instead of running ahead of
// the wall clock on the catch-up clock (resume.hpp, 'lead').
//
// The gate is one word in shared memory: the time IDs resume (ms since
// 1970), 0 while open. Only a grant closes it, and only further ahead; the
// first reader whose clock has reached it opens it for everyone, so that a
// clock set back later meets the generator's own rules, not the gate.
#pragma once
#include "pure_cpp.hpp"

#include <atomic>
#include <cstdint>

#include "generator.hpp"

namespace snowflake {

class TakeoverGate {
  public:
    // Closes the gate until resume_unix_ms, or further if it is already
    // closed further ahead.
    void close_until(int64_t resume_unix_ms);
    // The time IDs resume for a clock reading of now_unix_ms, or 0 if the
    // gate is open at it (and then opens it for every later reader).
    int64_t closed_until(int64_t now_unix_ms);
    // Opens the gate if it is still closed until resume_unix_ms (the
    // setting turned to 'lead' while it was closed); true if it did.
    bool open_if(int64_t resume_unix_ms);
    // The time the gate is closed until, as last set, without opening it.
    int64_t peek() const { return resume_unix_ms_.load(std::memory_order_acquire); }

  private:
    std::atomic<int64_t> resume_unix_ms_{0};
};

enum class GateStatus {
    open,         // the clock has reached the gate's time: issue
    interrupted,  // the sleeper reported an interrupt: handle it, then ask again
    closed,       // the time left exceeds what max_wait leaves: the caller fails
};

struct GateResult {
    GateStatus status = GateStatus::open;
    int64_t resume_unix_ms = 0;  // closed: when IDs resume
    int64_t behind_ms = 0;       // closed: how far the clock was from it at the last reading
};

// Waits at the gate for the clock, within what is left of max_wait_ms in
// *budget (shared with the generator's waits of the same call): a wait that
// cannot end within it is not begun, as in issue() (generator.hpp).
GateResult wait_at_gate(TakeoverGate &gate, Clock clock, Sleeper sleeper, int64_t max_wait_ms,
                        WaitBudget *budget);

}  // namespace snowflake
