// The ID generator's state machine.
//
// State: one 64-bit word, the *floor* — the smallest ID this server may issue
// next (last issued ID + 1; 0 before the first). Every issue is one
// compare-and-swap that raises the floor past the ID it returns, so IDs are
// unique and strictly increasing across every thread or process that shares
// the word, whatever their clocks say. The word lives wherever the caller
// puts it: a test's stack, or PostgreSQL shared memory (std::atomic<uint64_t>
// is lock-free and address-free on the platforms we build for).
//
// Durability: an ID may only be issued below the reservation's bound, which
// the caller has made durable beforehand (PostgreSQL: a state file and a WAL
// record, see src/pg/pg_reserve.cpp). An ID at or above it comes back as
// must_reserve instead, and the caller retries once it has reserved more.
// The bound only grows, so a stale read can only cause a needless
// must_reserve, never an unreserved ID.
//
// The wall clock only decides how far the floor jumps:
//   N = now - epoch, L = timestamp of the last issued ID.
//   N > L             -> (N, node, 0)
//   otherwise         -> (L, node, next sequence)
//   sequence used up  -> (L + 1, node, 0), borrowing time from the future,
//                        but only while L + 1 <= N + max_drift.
// A block of n IDs (count > 1) is n IDs of this node in a row: from the
// first, each next sequence number, moving to sequence 0 of the next
// millisecond when the sequence runs out (Layout::next_in_node). One CAS
// takes the whole block, so no other caller gets an ID between its first
// and its last; the drift bound applies to its last ID.
//
// A call that cannot be served within the drift bound waits for the clock,
// up to max_wait ms in total, and then fails. Why the IDs are that far ahead
// decides the error: demand alone never puts the last issued timestamp more
// than max_drift ahead of a clock that only moves forward, so a lead with no
// step back of the clock seen (ClockWatch) comes from callers asking for
// more than the layout's IDs per millisecond for longer than max_drift lets
// them borrow: ErrorCode::capacity_exceeded. A clock that went back fails
// with ErrorCode::clock_behind.
// The timestamp field running out fails with timestamp_exhausted; it never
// wraps.
#pragma once
#include "pure_cpp.hpp"

#include <atomic>
#include <cstdint>

#include "error.hpp"
#include "layout.hpp"

namespace snowflake {

static_assert(std::atomic<uint64_t>::is_always_lock_free,
              "the generator's word must be lock-free to live in shared memory");

// The reservation as the generator sees it. IDs below `below` are covered by
// a durable reservation; from `renew_at` on, an issued ID carries
// renew = true: the caller should extend the reservation before it runs out,
// so that callers rarely wait for the durable write. The defaults (no bound)
// are for callers without durable state, such as most unit tests.
struct Reservation {
    std::atomic<uint64_t> below{UINT64_MAX};
    std::atomic<uint64_t> renew_at{UINT64_MAX};
};

// The most IDs one call may ask for (snowflake_nextval(n)).
inline constexpr int64_t kMaxBlockIds = 1000000;

struct GeneratorParams {
    Layout layout;
    int64_t node = 0;  // from Layout::make_node
    int64_t max_drift_ms = 1000;
    int64_t max_wait_ms = 100;
};

// One attempt at the current wall-clock reading; never waits.
enum class AttemptStatus { issued, must_wait, must_reserve, exhausted };

struct Attempt {
    AttemptStatus status = AttemptStatus::issued;
    int64_t id = 0;       // issued: the (first) ID; must_reserve: the ID that needs the reservation
    int64_t last_id = 0;  // issued: the block's last ID (== id for one ID)
    bool renew = false;   // issued: the reservation should be extended soon
    // issued or must_wait: the sequence ran out. The millisecond of the
    // last issued ID had no sequence number left while the clock was still
    // in it (or behind it), or the block carries into later milliseconds;
    // either way the IDs need a millisecond the clock has not reached.
    bool sequence_ran_out = false;
    int64_t wait_ms = 0;    // must_wait: how long until the clock allows the next ID
    int64_t behind_ms = 0;  // must_wait: last issued timestamp minus the wall clock
    int64_t timestamp = 0;  // the timestamp the (last) ID needs (issued, must_wait, exhausted)
};

// count: how many IDs, 1 to kMaxBlockIds (check_block).
Attempt try_issue(std::atomic<uint64_t> &floor, const GeneratorParams &params, int64_t now_unix_ms,
                  const Reservation *reservation = nullptr, int64_t count = 1);

// The ID a single call would issue at now_unix_ms from `floor`, by the rules
// above, without issuing it and before any drift or reservation check: what
// snowflake_status compares with the bound of the node id lease.
uint64_t next_single_id(const GeneratorParams &params, uint64_t floor, int64_t now_unix_ms);

// Checks that a block of `count` IDs can ever be issued: 1 to kMaxBlockIds,
// and no more than the milliseconds max_drift lets the generator run ahead
// can hold. Fails with ErrorCode::block_too_large otherwise.
bool check_block(const GeneratorParams &params, int64_t count, Error *err);

// The highest reading of a clock that any of its readers has published,
// shared by them like the floor: a reading below it means the clock went
// back. A reader loads highest_ms before it reads the clock and publishes
// the reading with publish_clock_reading. Readings in ms since 1970.
struct ClockWatch {
    std::atomic<int64_t> highest_ms{0};
    // The highest reading a step back was last reported against: one step
    // is reported once, however many readers see it, and readings stay
    // below the mark until the clock has caught up.
    std::atomic<int64_t> reported_at_ms{0};
};

// Publishes `reading`, made after `highest` was loaded from
// watch.highest_ms. True if the reading shows a step back that no reader
// has reported yet. Every call of the generator makes one, so it costs one
// load when the clock has not moved and one CAS per reader when it has (a
// reader that loses the race to a later reading stops there).
inline bool publish_clock_reading(ClockWatch &watch, int64_t highest, int64_t reading) {
    if (reading > highest) {
        while (reading > highest && !watch.highest_ms.compare_exchange_weak(
                                        highest, reading, std::memory_order_acq_rel)) {
        }
        return false;
    }
    if (reading < highest) {
        int64_t reported = watch.reported_at_ms.load(std::memory_order_relaxed);
        return reported < highest && watch.reported_at_ms.compare_exchange_strong(
                                         reported, highest, std::memory_order_relaxed);
    }
    return false;
}

// Callbacks through which the caller lends the generator its clock and its
// way of sleeping. Plain function pointers: the core owns nothing that would
// need unwinding, and the PostgreSQL glue's sleeper returns false instead of
// raising when an interrupt is pending, so that the glue handles it outside
// the core.
struct Clock {
    int64_t (*now_unix_ms)(void *ctx);
    void *ctx;
    // Where the clock's readers publish their readings (now_unix_ms does,
    // on every call of the generator): what tells a clock that went back
    // from demand when a call fails. It may watch a clock that now_unix_ms
    // never reads below, such as the wall clock under the catch-up clock.
    // nullptr: a lead beyond max_drift is taken for a step back, and any
    // smaller one for demand.
    const ClockWatch *watch = nullptr;
};
struct Sleeper {
    // Waits for the clock to reach until_unix_ms, the millisecond the next
    // ID needs, which the clock reading the call was decided on put `ms`
    // ahead: it may return earlier (the call then asks again), but sleeps
    // no longer than `ms`. Stores in *slept_us how long it really slept: a
    // latch can wake it early, and only real waiting counts against
    // max_wait. Returns false when interrupted: stop now.
    bool (*sleep)(void *ctx, int64_t ms, int64_t until_unix_ms, int64_t *slept_us);
    void *ctx;
};

// One step of a sleeper's wait for the clock to reach until_unix_ms, the
// clock (the one the generator reads) read as now_unix_ns. Millisecond
// boundaries matter, not milliseconds slept: a whole millisecond slept from
// wherever the wait started wakes a fraction past the boundary, and that
// fraction, at every millisecond, is time in which a saturating session
// issues nothing. So the bulk goes to a coarse, interruptible timer with
// whole-millisecond timeouts that may overrun (a PostgreSQL latch), leaving
// at most the last millisecond, which a precise sleep ends at the boundary.
struct WaitStep {
    int64_t coarse_ms = 0;  // > 0: sleep this long on the coarse timer, then take the next step
    int64_t fine_ns = 0;    // > 0 (coarse_ms == 0): sleep this precisely; the clock is then there
};
// Both 0: the clock is there. Never more than max_ms in all: the clock may
// have stepped back since the wait was decided.
WaitStep next_wait_step(int64_t until_unix_ms, int64_t now_unix_ns, int64_t max_ms);

enum class IssueStatus { issued, must_reserve, interrupted, failed };

// What a call has waited so far. Kept by the caller so that a call resumed
// after an interrupt does not get a fresh max_wait.
struct WaitBudget {
    int64_t waited_us = 0;
};

struct IssueResult {
    IssueStatus status = IssueStatus::issued;
    int64_t id = 0;       // issued: the (first) ID; must_reserve: the ID that needs the reservation
    int64_t last_id = 0;  // issued: the block's last ID
    bool renew = false;   // issued: the reservation should be extended soon
    bool sequence_ran_out = false;  // in any attempt of this call: see Attempt
    bool waited = false;            // this call slept at least once
};

// Issues one ID (or a block of `count`, checked by check_block beforehand),
// waiting as the rules above allow. On failure fills err
// (capacity_exceeded, clock_behind or timestamp_exhausted). Returns
// must_reserve without waiting when the next ID is not covered by
// `reservation` (nullptr: no bound).
IssueResult issue(std::atomic<uint64_t> &floor, const GeneratorParams &params, Clock clock,
                  Sleeper sleeper, WaitBudget *budget, Error *err,
                  const Reservation *reservation = nullptr, int64_t count = 1);

}  // namespace snowflake
