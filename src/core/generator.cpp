#include "generator.hpp"

#include <algorithm>
#include <cstdio>

#include "epoch.hpp"
#include "clock_units.hpp"

namespace snowflake {

namespace {

// Where the next ID of `node` starts, as (timestamp, sequence): the smallest
// ID >= f that carries our node, moved up to the clock when the clock is
// past it. The node may differ from the one the floor was made with
// (worker_id changed on reload); the ordering still holds because we never
// go below f.
struct Start {
    uint64_t ts;
    uint64_t seq;
};
// The layout's widths come in precomputed: try_issue, the hot path, has them
// in registers already.
struct Widths {
    int seq_bits;
    int low_bits;
    uint64_t node_mask;
};
inline Start start_of_next(const Widths &w, uint64_t node, uint64_t f, int64_t now) {
    const uint64_t f_ts = f >> w.low_bits;
    const uint64_t f_node = (f >> w.seq_bits) & w.node_mask;
    Start s{f_ts, 0};
    if (f_node == node) {
        s.seq = f & ((uint64_t{1} << w.seq_bits) - 1);
    } else if (f_node > node) {
        s.ts = f_ts + 1;
    }
    if (now > static_cast<int64_t>(s.ts)) {
        s = Start{static_cast<uint64_t>(now), 0};
    }
    return s;
}

}  // namespace

uint64_t next_single_id(const GeneratorParams &params, uint64_t floor, int64_t now_unix_ms) {
    const Layout &layout = params.layout;
    const auto node = static_cast<uint64_t>(params.node);
    const Widths widths{layout.widths().sequence_bits, layout.timestamp_shift(),
                        (uint64_t{1} << layout.node_bits()) - 1};
    const Start s = start_of_next(widths, node, floor, now_unix_ms - layout.epoch_unix_ms());
    return (s.ts << layout.timestamp_shift()) | (node << layout.widths().sequence_bits) | s.seq;
}

Attempt try_issue(std::atomic<uint64_t> &floor, const GeneratorParams &params, int64_t now_unix_ms,
                  const Reservation *reservation, int64_t count) {
    const Layout &layout = params.layout;
    const int seq_bits = layout.widths().sequence_bits;
    const int low_bits = layout.timestamp_shift();
    const uint64_t node_mask = (uint64_t{1} << layout.node_bits()) - 1;
    const uint64_t seq_mask = (uint64_t{1} << seq_bits) - 1;
    const Widths widths{seq_bits, low_bits, node_mask};
    const auto node = static_cast<uint64_t>(params.node);
    const int64_t now = now_unix_ms - layout.epoch_unix_ms();

    uint64_t f = floor.load(std::memory_order_acquire);
    for (;;) {
        const uint64_t f_ts = f >> low_bits;
        const uint64_t f_node = (f >> seq_bits) & node_mask;
        const Start start = start_of_next(widths, node, f, now);
        uint64_t ts = start.ts;
        const uint64_t seq = start.seq;
        // The last issued ID's timestamp; nothing is borrowed while we stay on it.
        const int64_t last_ts = f == 0 ? -1 : static_cast<int64_t>((f - 1) >> low_bits);

        // The block's last ID: count - 1 sequence numbers further on,
        // carrying into the next milliseconds. A shift, not a division:
        // this is the hot path, and count == 1 leaves it unchanged.
        const uint64_t span = seq + static_cast<uint64_t>(count - 1);
        const uint64_t end_ts = ts + (span >> seq_bits);
        const uint64_t end_seq = span & seq_mask;

        Attempt a;
        a.sequence_ran_out = (f_node > node && now <= static_cast<int64_t>(f_ts)) || end_ts > ts;
        a.timestamp = static_cast<int64_t>(std::min<uint64_t>(end_ts, uint64_t{1} << 62));
        if (end_ts > static_cast<uint64_t>(layout.max_timestamp())) {
            a.status = AttemptStatus::exhausted;
            return a;
        }
        const auto its = static_cast<int64_t>(end_ts);
        if (its > last_ts && its - now > params.max_drift_ms) {
            a.status = AttemptStatus::must_wait;
            a.wait_ms = its - params.max_drift_ms - now;
            // Negative when nothing was issued and the clock is before the epoch.
            a.behind_ms = last_ts >= 0 ? last_ts - now : now;
            return a;
        }
        const uint64_t id = (ts << low_bits) | (node << seq_bits) | seq;
        const uint64_t last = (end_ts << low_bits) | (node << seq_bits) | end_seq;
        if (reservation != nullptr && last >= reservation->below.load(std::memory_order_acquire)) {
            a.status = AttemptStatus::must_reserve;
            a.id = static_cast<int64_t>(last);
            return a;
        }
        if (floor.compare_exchange_weak(f, last + 1, std::memory_order_acq_rel,
                                        std::memory_order_acquire)) {
            a.status = AttemptStatus::issued;
            a.id = static_cast<int64_t>(id);
            a.last_id = static_cast<int64_t>(last);
            a.renew = reservation != nullptr &&
                      last >= reservation->renew_at.load(std::memory_order_relaxed);
            return a;
        }
        // f now holds the floor another caller set; try again from there.
    }
}

namespace {

// The ERROR of a call that would have to wait longer than max_wait allows.
// clock_went_back: the lead over the clock comes (at least in part) from a
// clock that went back, not from demand; step_back_ms, when > 0, how far.
void fail_behind(const GeneratorParams &params, const Attempt &a, const WaitBudget &budget,
                 int64_t count, bool clock_went_back, int64_t step_back_ms, Error *err) {
    char next_text[40];
    format_utc(params.layout.epoch_unix_ms() + a.timestamp, next_text, sizeof next_text);
    const char *which = count > 1 ? "block's last ID" : "next ID";
    const long long waited_ms = budget.waited_us / 1000;
    if (!clock_went_back) {
        const int seq_bits = params.layout.widths().sequence_bits;
        const auto per_ms = static_cast<long long>(int64_t{1} << seq_bits);
        const char *ids = per_ms == 1 ? "ID" : "IDs";
        fail(err, ErrorCode::capacity_exceeded,
             "demand for snowflake IDs exceeds the layout's capacity of %lld %s per millisecond",
             per_ms, ids);
        set_detail(err,
                   "The generator runs %lld ms ahead of the wall clock, borrowed for calls beyond "
                   "%lld %s per millisecond (%d sequence bits); the clock did not go back. The "
                   "%s needs timestamp %s, %lld ms more than snowflake_id.max_clock_drift = %lld "
                   "ms ahead of the wall clock; this call waited %lld ms of snowflake_id.max_wait "
                   "= %lld ms.",
                   static_cast<long long>(a.behind_ms), per_ms, ids, seq_bits, which, next_text,
                   static_cast<long long>(a.wait_ms), static_cast<long long>(params.max_drift_ms),
                   waited_ms, static_cast<long long>(params.max_wait_ms));
        set_hint(err,
                 "%sUse a layout with more sequence bits (snowflake_id.sequence_bits: each bit "
                 "doubles the IDs per millisecond; a changed layout needs a restart and "
                 "snowflake_accept_layout()), or raise snowflake_id.max_wait (calls wait longer "
                 "for the clock) or snowflake_id.max_clock_drift (the generator borrows further "
                 "ahead).",
                 count > 1 ? "Take smaller blocks. " : "");
        return;
    }
    if (count > 1) {
        fail(err, ErrorCode::clock_behind,
             "a block of %lld IDs would end more than snowflake_id.max_clock_drift ahead of the "
             "wall clock",
             static_cast<long long>(count));
    } else if (a.behind_ms < 0) {
        // Nothing issued yet, and the clock reads before the epoch.
        fail(err, ErrorCode::clock_behind, "the wall clock is %lld ms before snowflake_id.epoch",
             static_cast<long long>(-a.behind_ms));
    } else {
        fail(err, ErrorCode::clock_behind,
             "the wall clock is %lld ms behind the last issued snowflake ID",
             static_cast<long long>(a.behind_ms));
    }
    char step_text[128] = "";
    if (step_back_ms > 0) {
        std::snprintf(step_text, sizeof step_text,
                      " The wall clock went back: it reads %lld ms before an earlier reading.",
                      static_cast<long long>(step_back_ms));
    }
    set_detail(err,
               "The %s needs timestamp %s, %lld ms more than snowflake_id.max_clock_drift = "
               "%lld ms ahead of the wall clock; this call waited %lld ms of "
               "snowflake_id.max_wait = %lld ms.%s",
               which, next_text, static_cast<long long>(a.wait_ms),
               static_cast<long long>(params.max_drift_ms), waited_ms,
               static_cast<long long>(params.max_wait_ms), step_text);
    set_hint(err,
             "Check the server's clock (NTP). Raising snowflake_id.max_clock_drift or "
             "snowflake_id.max_wait lets the generator absorb larger steps%s.",
             count > 1 ? "; a smaller block needs less room" : "");
}

}  // namespace

bool check_block(const GeneratorParams &params, int64_t count, Error *err) {
    if (count < 1 || count > kMaxBlockIds) {
        fail(err, ErrorCode::block_too_large, "block size %lld is out of range",
             static_cast<long long>(count));
        set_detail(err, "snowflake_nextval(n) hands out 1 to %lld IDs per call.",
                   static_cast<long long>(kMaxBlockIds));
        set_hint(err, "Pass n from 1 to %lld, and call again for more.",
                 static_cast<long long>(kMaxBlockIds));
        return false;
    }
    // A block spans `span` milliseconds of timestamps. A fresh one starts
    // at the wall clock's millisecond and may end max_drift ms ahead of it:
    // no block can span more. And when the generator already runs
    // max_drift ahead (demand, or a start above the clock), a block must
    // wait about its span for the clock: a block that spans more than
    // max_wait could then never be issued, and would fail with a misleading
    // clock-behind ERROR. Refuse both up front.
    const int seq_bits = params.layout.widths().sequence_bits;
    const int64_t span = ((count - 1) >> seq_bits) + 1;
    const int64_t drift_capacity = (params.max_drift_ms + 1) << seq_bits;
    const int64_t wait_ms = params.max_wait_ms > 0 ? params.max_wait_ms : 1;
    const int64_t wait_capacity = wait_ms << seq_bits;
    if (count > drift_capacity || count > wait_capacity) {
        const bool by_drift = drift_capacity <= wait_capacity;
        const int64_t capacity = by_drift ? drift_capacity : wait_capacity;
        fail(err, ErrorCode::block_too_large, "a block of %lld IDs is too large for %s",
             static_cast<long long>(count),
             by_drift ? "snowflake_id.max_clock_drift" : "snowflake_id.max_wait");
        if (by_drift) {
            set_detail(err,
                       "With %d sequence bits, %lld IDs span %lld ms; the generator may run at "
                       "most snowflake_id.max_clock_drift = %lld ms ahead of the wall clock, "
                       "which holds %lld IDs.",
                       seq_bits, static_cast<long long>(count), static_cast<long long>(span),
                       static_cast<long long>(params.max_drift_ms),
                       static_cast<long long>(capacity));
            set_hint(err,
                     "Ask for at most %lld IDs per call, or raise snowflake_id.max_clock_drift.",
                     static_cast<long long>(capacity));
        } else {
            set_detail(err,
                       "With %d sequence bits, %lld IDs span %lld ms; when the generator runs "
                       "ahead of the wall clock, a block waits about its span for the clock, and "
                       "a call may wait at most snowflake_id.max_wait = %lld ms, which covers "
                       "%lld IDs.",
                       seq_bits, static_cast<long long>(count), static_cast<long long>(span),
                       static_cast<long long>(params.max_wait_ms),
                       static_cast<long long>(capacity));
            set_hint(err, "Ask for at most %lld IDs per call, or raise snowflake_id.max_wait.",
                     static_cast<long long>(capacity));
        }
        return false;
    }
    return true;
}

IssueResult issue(std::atomic<uint64_t> &floor, const GeneratorParams &params, Clock clock,
                  Sleeper sleeper, WaitBudget *budget, Error *err, const Reservation *reservation,
                  int64_t count) {
    IssueResult result;
    bool fresh_reading_taken = false;
    for (;;) {
        // Loaded before the clock is read: a reading below it is a step back.
        const int64_t highest =
            clock.watch != nullptr ? clock.watch->highest_ms.load(std::memory_order_acquire) : 0;
        const int64_t now = clock.now_unix_ms(clock.ctx);
        const Attempt a = try_issue(floor, params, now, reservation, count);
        result.sequence_ran_out = result.sequence_ran_out || a.sequence_ran_out;
        if (a.status == AttemptStatus::issued || a.status == AttemptStatus::must_reserve) {
            result.status =
                a.status == AttemptStatus::issued ? IssueStatus::issued : IssueStatus::must_reserve;
            result.id = a.id;
            result.last_id = a.last_id;
            result.renew = a.renew;
            return result;
        }
        if (a.status == AttemptStatus::exhausted) {
            char end_text[40];
            format_utc(params.layout.end_unix_ms(), end_text, sizeof end_text);
            fail(err, ErrorCode::timestamp_exhausted,
                 "the timestamp field of the ID layout is exhausted");
            set_detail(err, "The layout's %d timestamp bits end at %s.",
                       params.layout.timestamp_bits(), end_text);
            set_hint(err, "No further IDs can be issued with this layout and epoch.");
            result.status = IssueStatus::failed;
            return result;
        }
        // must_wait. Waiting longer than the budget left cannot help, so fail
        // at once instead of stalling the caller for nothing.
        const int64_t left_us = params.max_wait_ms * 1000 - budget->waited_us;
        if (a.wait_ms > left_us / 1000) {
            // The attempt may have been decided on a reading taken long
            // before it loaded the floor (the process was off the CPU in
            // between, or lost CAS races): the wait it asks for is then
            // longer than the one needed. Decide on a fresh reading.
            if (!fresh_reading_taken) {
                fresh_reading_taken = true;
                continue;
            }
            // Demand never puts the last ID more than max_drift ahead of a
            // clock that only moves forward; without a watch, only a lead
            // beyond that shows a step back.
            const bool clock_went_back =
                clock.watch != nullptr ? now < highest : a.behind_ms > params.max_drift_ms;
            fail_behind(params, a, *budget, count, clock_went_back || a.behind_ms < 0,
                        clock.watch != nullptr ? highest - now : 0, err);
            result.status = IssueStatus::failed;
            return result;
        }
        fresh_reading_taken = false;
        int64_t slept_us = 0;
        result.waited = true;
        const bool keep_going = sleeper.sleep(sleeper.ctx, a.wait_ms, now + a.wait_ms, &slept_us);
        budget->waited_us += slept_us > 0 ? slept_us : 0;
        if (!keep_going) {
            result.status = IssueStatus::interrupted;
            return result;
        }
    }
}

WaitStep next_wait_step(int64_t until_unix_ms, int64_t now_unix_ns, int64_t max_ms) {
    const int64_t left_ns = std::min(until_unix_ms * kNsPerMs - now_unix_ns, max_ms * kNsPerMs);
    WaitStep step;
    if (left_ns <= 0) {
        return step;
    }
    if (left_ns > kNsPerMs) {
        // The whole milliseconds before the last (partial or whole) one: the
        // coarse timer's overrun then still lands before the boundary.
        step.coarse_ms = (left_ns - 1) / kNsPerMs;
    } else {
        step.fine_ns = left_ns;
    }
    return step;
}

}  // namespace snowflake
