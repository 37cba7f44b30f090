// The catch-up clock (resume.hpp) as every process of a server shares it.
//
// One writer at a time starts or stops it (the glue holds its lock); any
// reader ends it once its own wall-clock reading has overtaken it. Two races
// made a flag and two plain fields unsafe:
//  - a reader that saw the previous catch-up overtaken could clear the flag
//    just after the writer had started a new one, so the generator fell back
//    to the wall clock below a floor set ahead of it and raised "the wall
//    clock is N ms behind";
//  - a reader could pair the new base with the old start time.
// So the state is a version word: `running` and `writing` bits and a count
// of starts and stops. The writer marks the word `writing`, stores the
// fields, then publishes a new version; a reader retries until it reads the
// same settled word before and after the fields (a seqlock), and ends the
// catch-up only with a compare-and-swap on the word it read, which fails if
// any start or stop came between.
#pragma once
#include "pure_cpp.hpp"

#include <atomic>
#include <cstdint>

#include "resume.hpp"

namespace snowflake {

class SharedCatchUp {
  public:
    // What a reader saw: the word and, while running, the clock it names.
    struct Snapshot {
        uint64_t word = 0;
        bool running = false;
        CatchUp clock;
    };

    // Writer side (one at a time).
    void start(int64_t base_unix_ms, int64_t start_mono_ns);
    void stop();

    // Reader side.
    Snapshot read() const;
    // Ends the catch-up `seen` names, unless another start or stop came
    // since; true if it ended it.
    bool end(const Snapshot &seen);
    // The generator's time for a wall-clock reading: the later of the wall
    // clock and the catch-up clock while it runs. With may_end, a reading
    // that has overtaken the catch-up clock ends it.
    int64_t now(int64_t wall_unix_ms, int64_t mono_ns, bool may_end);
    bool running() const { return (word_.load(std::memory_order_acquire) & kRunning) != 0; }

  private:
    static constexpr uint64_t kRunning = 1;
    static constexpr uint64_t kWriting = 2;
    static constexpr uint64_t kVersionStep = 4;
    void publish(bool running, int64_t base_unix_ms, int64_t start_mono_ns);

    std::atomic<uint64_t> word_{0};
    std::atomic<int64_t> base_unix_ms_{0};
    std::atomic<int64_t> start_mono_ns_{0};
};

}  // namespace snowflake
