#include "generator.hpp"

#include <algorithm>

#include "epoch.hpp"

namespace snowflake {

Attempt try_issue(std::atomic<uint64_t> &floor, const GeneratorParams &params, int64_t now_unix_ms,
                  const Reservation *reservation) {
    const Layout &layout = params.layout;
    const int seq_bits = layout.widths().sequence_bits;
    const int low_bits = layout.timestamp_shift();
    const uint64_t node_mask = (uint64_t{1} << layout.node_bits()) - 1;
    const uint64_t seq_mask = (uint64_t{1} << seq_bits) - 1;
    const auto node = static_cast<uint64_t>(params.node);
    const int64_t now = now_unix_ms - layout.epoch_unix_ms();

    uint64_t f = floor.load(std::memory_order_acquire);
    for (;;) {
        // The smallest ID >= f that carries our node. The node may differ from
        // the one the floor was made with (worker_id changed on reload); the
        // ordering still holds because we never go below f.
        const uint64_t f_ts = f >> low_bits;
        const uint64_t f_node = (f >> seq_bits) & node_mask;
        const uint64_t f_seq = f & seq_mask;
        uint64_t ts = f_ts;
        uint64_t seq = 0;
        if (f_node == node) {
            seq = f_seq;
        } else if (f_node > node) {
            ts = f_ts + 1;
        }
        // The last issued ID's timestamp; nothing is borrowed while we stay on it.
        const int64_t last_ts = f == 0 ? -1 : static_cast<int64_t>((f - 1) >> low_bits);
        if (now > static_cast<int64_t>(ts)) {
            ts = static_cast<uint64_t>(now);
            seq = 0;
        }

        Attempt a;
        a.timestamp = static_cast<int64_t>(std::min<uint64_t>(ts, uint64_t{1} << 62));
        if (ts > static_cast<uint64_t>(layout.max_timestamp())) {
            a.status = AttemptStatus::exhausted;
            return a;
        }
        const auto its = static_cast<int64_t>(ts);
        if (its > last_ts && its - now > params.max_drift_ms) {
            a.status = AttemptStatus::must_wait;
            a.wait_ms = its - params.max_drift_ms - now;
            // Negative when nothing was issued and the clock is before the epoch.
            a.behind_ms = last_ts >= 0 ? last_ts - now : now;
            return a;
        }
        const uint64_t id = (ts << low_bits) | (node << seq_bits) | seq;
        if (reservation != nullptr && id >= reservation->below.load(std::memory_order_acquire)) {
            a.status = AttemptStatus::must_reserve;
            a.id = static_cast<int64_t>(id);
            return a;
        }
        if (floor.compare_exchange_weak(f, id + 1, std::memory_order_acq_rel,
                                        std::memory_order_acquire)) {
            a.status = AttemptStatus::issued;
            a.id = static_cast<int64_t>(id);
            a.renew = reservation != nullptr &&
                      id >= reservation->renew_at.load(std::memory_order_relaxed);
            return a;
        }
        // f now holds the floor another caller set; try again from there.
    }
}

namespace {

void fail_clock_behind(const GeneratorParams &params, const Attempt &a, const WaitBudget &budget,
                       Error *err) {
    char next_text[40];
    format_utc(params.layout.epoch_unix_ms() + a.timestamp, next_text, sizeof next_text);
    if (a.behind_ms < 0) {
        // Nothing issued yet, and the clock reads before the epoch.
        fail(err, ErrorCode::clock_behind, "the wall clock is %lld ms before snowflake_id.epoch",
             static_cast<long long>(-a.behind_ms));
    } else {
        fail(err, ErrorCode::clock_behind,
             "the wall clock is %lld ms behind the last issued snowflake ID",
             static_cast<long long>(a.behind_ms));
    }
    set_detail(err,
               "The next ID needs timestamp %s, %lld ms more than snowflake_id.max_clock_drift = "
               "%lld ms ahead of the wall clock; this call waited %lld ms of "
               "snowflake_id.max_wait = %lld ms.",
               next_text, static_cast<long long>(a.wait_ms),
               static_cast<long long>(params.max_drift_ms),
               static_cast<long long>(budget.waited_us / 1000),
               static_cast<long long>(params.max_wait_ms));
    set_hint(err,
             "Check the server's clock (NTP). Raising snowflake_id.max_clock_drift or "
             "snowflake_id.max_wait lets the generator absorb larger steps.");
}

}  // namespace

IssueResult issue(std::atomic<uint64_t> &floor, const GeneratorParams &params, Clock clock,
                  Sleeper sleeper, WaitBudget *budget, Error *err, const Reservation *reservation) {
    IssueResult result;
    for (;;) {
        const int64_t now = clock.now_unix_ms(clock.ctx);
        const Attempt a = try_issue(floor, params, now, reservation);
        if (a.status == AttemptStatus::issued || a.status == AttemptStatus::must_reserve) {
            result.status =
                a.status == AttemptStatus::issued ? IssueStatus::issued : IssueStatus::must_reserve;
            result.id = a.id;
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
            fail_clock_behind(params, a, *budget, err);
            result.status = IssueStatus::failed;
            return result;
        }
        int64_t slept_us = 0;
        const bool keep_going = sleeper.sleep_ms(sleeper.ctx, a.wait_ms, &slept_us);
        budget->waited_us += slept_us > 0 ? slept_us : 0;
        if (!keep_going) {
            result.status = IssueStatus::interrupted;
            return result;
        }
    }
}

}  // namespace snowflake
