// The fleet simulator (issue 32): N servers leasing node ids from one
// registry, each a thread that runs the registry worker's loop
// (src/pg/registry/pg_registry.cpp, run()) over the very store code the
// extension uses (src/registry/), through a proxy that adds a round-trip
// time and can cut the registry off (proxy.hpp). It runs the phases of the
// issue (a simultaneous start, steady renewals, a restart wave, an outage,
// a decommission wave), measures each, and checks that no node id ever had
// two holders at once. bench/fleet/run starts the registries and runs it;
// docs/benchmarks.md has its numbers.
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/registry.hpp"
#include "fleet.hpp"
#include "proxy.hpp"
#include "registry/stores.hpp"

namespace fleet {
namespace {

using snowflake::kNsPerMs;
using snowflake::StoreOutcome;

// The worker's pause before trying again after the registry could not be
// reached (pg_registry.cpp).
constexpr int64_t kRetryMs = 1000;
// The extension's default layout: 5 datacenter bits and 5 worker bits give
// 1,024 node ids; its default epoch, 2020-01-01T00:00:00Z.
constexpr snowflake::LayoutWidths kWidths{5, 5, 12};
constexpr int64_t kDefaultEpochMs = 1577836800000;
// How often a wait for a wave or a recovery says how far it got.
constexpr int64_t kProgressNs = 10 * snowflake::kNsPerS;

struct Options {
    std::string store;     // pg or redis
    std::string upstream;  // the registry: a unix socket path or host:port
    std::string dbname = "postgres";
    std::string direct;  // pg: conninfo for the load readings
    int registry_pid = 0;
    int servers = 1024;
    int64_t rtt_ms = 20;
    uint64_t seed = 1;
    int64_t ttl_ms = 60000;
    int64_t drift_ms = 1000;
    int64_t steady_ms = -1;  // -1: 2 x ttl
    int64_t final_ms = -1;   // -1: steady_ms
    double restart_fraction = 0.1;
    double decommission_fraction = 0.1;
    int64_t outage_ms = 20000;
    int64_t within_ms = 10000;
    int64_t recovery_target_ms = 5000;
    int64_t wave_cap_ms = -1;  // -1: max(60 s, 2 x ttl)
    std::string json;
    bool check_targets = false;
    int stack_kib = 256;
};

enum Phase { kStart, kSteady, kRestart, kSteady2, kOutage, kDecommission, kFinal, kStop, kPhases };
const char *const kPhaseNames[kPhases] = {
    "start",  "steady",       "restart_wave", "steady_after_restart",
    "outage", "decommission", "steady_final", "stop"};
// The phases where no server may miss a renewal (the targets).
bool no_loss_expected(int phase) {
    return phase == kSteady || phase == kRestart || phase == kSteady2 || phase == kFinal;
}

enum CallKind { kAcquire, kRenew, kRelease, kCallKinds };
const char *const kCallNames[kCallKinds] = {"acquire", "renew", "release"};
const char *const kOutcomeNames[3] = {"ok", "refused", "unreachable"};

class Run;

struct Loss {
    int server;
    int64_t node;
    std::string reason;
    int64_t at_ns;
};

struct PhaseStats {
    int64_t begin_ns = 0;
    int64_t end_ns = 0;
    uint64_t calls[kCallKinds][3] = {};
    std::map<std::string, uint64_t> outcomes;  // what failed, by its message's first line
    std::vector<Loss> losses;
    // A wave (start, restart, decommission): from the wave's start to each
    // new run's first confirmed renewal.
    // Measured at the run's end, so that a run that got its id after the
    // wave's phase ended still counts.
    std::vector<Run *> wave;
    int64_t wave_opened_ns = 0;
    int wave_size = 0;
    std::vector<double> held_ms;
    int held_by_phase_end = 0;
    int within = 0;
    // The outage: from its end to each server's first confirmed renewal.
    std::vector<double> recovery_ms;
    int not_recovered = 0;
    int not_holding_at_end = 0;
    Load load_begin;
    Load load_end;
};

// A gate that a wave's threads wait behind, so that they start together.
struct Gate {
    std::mutex mutex;
    std::condition_variable cv;
    bool open = false;
    int64_t opened_ns = 0;
    void wait() {
        std::unique_lock<std::mutex> lock(mutex);
        cv.wait(lock, [this] { return open; });
    }
    int64_t release() {
        std::lock_guard<std::mutex> lock(mutex);
        open = true;
        opened_ns = mono_ns();
        cv.notify_all();
        return opened_ns;
    }
};

struct Identity {
    int index = 0;
    uint64_t system_id = 0;
    std::string host;
    std::string data_dir;
    int port = 5432;
};

class Run;

// Everything the runs share.
struct Sim {
    Options opt;
    std::string conninfo;  // through the proxy
    snowflake::RedisTarget redis;
    Tracker tracker;
    std::atomic<int> phase{kStart};
    std::mutex stats_mutex;
    PhaseStats stats[kPhases];
    std::atomic<int64_t> recovery_mark_ns{INT64_MAX};

    void count(CallKind kind, StoreOutcome outcome, const snowflake::Error &err);
    void lost(int server, int64_t node, const std::string &reason, int64_t at_ns);
};
Sim g;

// What sorts the failures: their message's first line, with numbers (node
// ids, times, the servers' names) taken out.
std::string failure_kind(const char *message) {
    std::string kind;
    bool in_number = false;
    for (const char *p = message; *p != '\0' && *p != '\n'; ++p) {
        if (*p >= '0' && *p <= '9') {
            if (!in_number) {
                kind += 'N';
            }
            in_number = true;
            continue;
        }
        in_number = false;
        kind += *p;
    }
    return kind;
}

void Sim::count(CallKind kind, StoreOutcome outcome, const snowflake::Error &err) {
    const int p = phase.load();
    std::lock_guard<std::mutex> lock(stats_mutex);
    stats[p].calls[kind][static_cast<int>(outcome)]++;
    if (outcome != StoreOutcome::ok) {
        stats[p].outcomes[std::string(kCallNames[kind]) + " " +
                          kOutcomeNames[static_cast<int>(outcome)] + ": " +
                          failure_kind(err.message)]++;
    }
}

void Sim::lost(int server, int64_t node, const std::string &reason, int64_t at_ns) {
    const int p = phase.load();
    std::lock_guard<std::mutex> lock(stats_mutex);
    stats[p].losses.push_back(Loss{server, node, reason, at_ns});
}

// A run's environment for its store: waits in poll(), with the run's stop
// request (an eventfd) beside the socket.
class SimEnv final : public snowflake::RegistryEnv {
  public:
    explicit SimEnv(Run *run) : run_(run) {}
    int64_t monotonic_ns() override { return mono_ns(); }
    int64_t call_until_ns() override;
    bool wait_socket(int fd, snowflake::SocketWait wait, int64_t until_mono_ns) override;
    bool stopping() override;
    void log_whole_text(const char *text, size_t len) override {
        fprintf(stderr, "fleet: the whole text from the registry: %.*s\n", static_cast<int>(len),
                text);
    }
    bool is_own_backend(int) override { return false; }

  private:
    Run *run_;
};

// One run of one simulated server: started, it leases a node id and keeps
// it until asked to stop, then gives it back.
class Run {
  public:
    Run(const Identity &identity, uint64_t number, int64_t instance, int64_t stored_node,
        int64_t stored_fence)
        : id(identity),
          number(number),
          instance(instance),
          stored_node(stored_node),
          stored_fence(stored_fence),
          env_(this) {
        wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    }
    ~Run() { close(wake_fd_); }

    bool spawn(size_t stack_bytes) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, stack_bytes);
        const int rc = pthread_create(&thread_, &attr, thread_main, this);
        pthread_attr_destroy(&attr);
        if (rc != 0) {
            fprintf(stderr, "fleet: pthread_create: %s\n", strerror(rc));
            return false;
        }
        return true;
    }
    void request_stop() {
        stop_.store(true);
        const uint64_t one = 1;
        (void)!write(wake_fd_, &one, sizeof one);
    }
    void join() { pthread_join(thread_, nullptr); }
    // Holds a lease whose deadline has not passed.
    bool holding(int64_t now) const { return held_.load() && deadline_.load() > now; }

    const Identity id;
    const uint64_t number;
    const int64_t instance;
    // The durable state: the node id and fence its state file records.
    int64_t stored_node;
    int64_t stored_fence;
    std::atomic<int64_t> first_held_ns{-1};
    std::atomic<int64_t> renewed_after_mark_ns{-1};
    Gate *gate = nullptr;  // the wave's: the run starts when it opens

  private:
    friend class SimEnv;
    static void *thread_main(void *self) {
        static_cast<Run *>(self)->main();
        return nullptr;
    }
    void main();
    StoreOutcome acquire(snowflake::RegistryStore &store);
    StoreOutcome renew(snowflake::RegistryStore &store, int64_t *next_renewal_ns);
    void release(snowflake::RegistryStore &store);
    void lose(const char *why, int64_t end_ns);
    void describe(snowflake::LeaseHolder *holder) const {
        holder->system_id = id.system_id;
        holder->instance = instance;
        holder->host = id.host.c_str();
        holder->port = id.port;
        holder->data_directory = id.data_dir.c_str();
        holder->timeline = 1;
    }
    void sleep_until(int64_t wake_ns);

    SimEnv env_;
    pthread_t thread_{};
    int wake_fd_ = -1;
    std::atomic<bool> stop_{false};
    bool giving_back_ = false;
    std::atomic<bool> held_{false};
    std::atomic<int64_t> deadline_{0};
    int64_t node_ = -1;
    int64_t fence_ = 0;
    int64_t recorded_bound_ms_ = 0;
    size_t holding_ = 0;
    std::string last_refusal_;
};

int64_t SimEnv::call_until_ns() {
    // As sf_registry_call_until_ns(): a call ends at the lease's deadline
    // if that comes first.
    const int64_t now = mono_ns();
    const int64_t until = now + snowflake::kRegistryTimeoutMs * kNsPerMs;
    if (run_->held_.load()) {
        const int64_t deadline = run_->deadline_.load();
        if (deadline > now && deadline < until) {
            return deadline;
        }
    }
    return until;
}

bool SimEnv::stopping() {
    return run_->stop_.load() && !run_->giving_back_;
}

bool SimEnv::wait_socket(int fd, snowflake::SocketWait wait, int64_t until_mono_ns) {
    const short events = wait == snowflake::SocketWait::readable ? POLLIN : POLLOUT;
    for (;;) {
        if (stopping()) {
            return false;
        }
        const int64_t left = until_mono_ns - mono_ns();
        if (left <= 0) {
            return false;
        }
        // A give-back runs to its own time limit, whatever the stop request.
        pollfd fds[2] = {{fd, events, 0}, {run_->wake_fd_, POLLIN, 0}};
        const timespec ts{static_cast<time_t>(left / 1'000'000'000),
                          static_cast<long>(left % 1'000'000'000)};
        const int n = ppoll(fds, run_->giving_back_ ? 1 : 2, &ts, nullptr);
        if (n < 0 && errno != EINTR) {
            return false;
        }
        if (n > 0 && (fds[0].revents & (events | POLLERR | POLLHUP | POLLNVAL)) != 0) {
            return true;
        }
    }
}

void Run::sleep_until(int64_t wake_ns) {
    for (;;) {
        const int64_t left = wake_ns - mono_ns();
        if (left <= 0 || stop_.load()) {
            return;
        }
        pollfd fd = {wake_fd_, POLLIN, 0};
        const timespec ts{static_cast<time_t>(left / 1'000'000'000),
                          static_cast<long>(left % 1'000'000'000)};
        (void)ppoll(&fd, 1, &ts, nullptr);
    }
}

StoreOutcome Run::acquire(snowflake::RegistryStore &store) {
    snowflake::LeaseRequest request;
    snowflake::ask_with_durable_state(-1, stored_node, stored_fence, &request);
    describe(&request.holder);
    request.refuse_when_replaced = true;
    request.widths = kWidths;
    request.epoch_unix_ms = kDefaultEpochMs;
    request.max_clock_drift_ms = g.opt.drift_ms;
    request.ttl_ms = g.opt.ttl_ms;
    request.clock_unix_ms = wall_ms();
    snowflake::LeaseGrant grant;
    snowflake::Error err;
    const StoreOutcome outcome = store.acquire(request, &grant, &err);
    g.count(kAcquire, outcome, err);
    if (outcome != StoreOutcome::ok) {
        return outcome;
    }
    node_ = grant.node;
    fence_ = grant.fence;
    recorded_bound_ms_ = 0;
    // The state file records the lease (pg_shmem.cpp): a restart presents it.
    stored_node = grant.node;
    stored_fence = grant.fence;
    holding_ = g.tracker.grant(node_, id.index, number, mono_ns());
    return outcome;
}

StoreOutcome Run::renew(snowflake::RegistryStore &store, int64_t *next_renewal_ns) {
    // The generator's clock is the wall clock: a simulated server mints
    // nothing, so its clock never runs ahead.
    const int64_t wall = wall_ms();
    const snowflake::RenewalPlan plan =
        snowflake::plan_renewal(wall, wall, mono_ns(), g.opt.ttl_ms);
    snowflake::RenewRequest request;
    request.node = node_;
    request.fence = fence_;
    request.instance = instance;
    request.bound_unix_ms = plan.bound_unix_ms;
    request.ttl_ms = g.opt.ttl_ms;
    describe(&request.holder);
    int64_t expires_unix_ms = 0;
    snowflake::Error err;
    const StoreOutcome outcome = store.renew(request, &expires_unix_ms, &err);
    g.count(kRenew, outcome, err);
    if (outcome != StoreOutcome::ok) {
        if (outcome == StoreOutcome::refused) {
            last_refusal_ = failure_kind(err.message);
        }
        return outcome;
    }
    const int64_t now = mono_ns();
    recorded_bound_ms_ = std::max(recorded_bound_ms_, plan.bound_unix_ms);
    deadline_.store(plan.deadline_mono_ns);
    g.tracker.renewed(node_, holding_, plan.deadline_mono_ns);
    if (now >= g.recovery_mark_ns.load() && renewed_after_mark_ns.load() < 0) {
        renewed_after_mark_ns.store(now);
    }
    *next_renewal_ns = plan.next_renewal_mono_ns;
    return outcome;
}

void Run::lose(const char *why, int64_t end_ns) {
    held_.store(false);
    if (end_ns < 0) {
        g.tracker.expired(node_, holding_);
    } else {
        g.tracker.cut(node_, holding_, end_ns);
    }
    g.lost(id.index, node_, why, mono_ns());
}

void Run::release(snowflake::RegistryStore &store) {
    if (!held_.load()) {
        return;
    }
    // No ID after this point: the holding ends here, and what is recorded
    // is the exact floor of a generator that minted up to now, as the
    // worker's release() records (never above the bound recorded).
    held_.store(false);
    g.tracker.cut(node_, holding_, mono_ns());
    const int64_t bound = std::min(recorded_bound_ms_, wall_ms() + 1);
    giving_back_ = true;
    snowflake::Error err;
    const StoreOutcome outcome = store.release(node_, fence_, instance, bound, &err);
    g.count(kRelease, outcome, err);
    giving_back_ = false;
}

// The worker's run() loop, step for step.
void Run::main() {
    gate->wait();
    std::unique_ptr<snowflake::RegistryStore> store;
    if (g.opt.store == "pg") {
        store = std::make_unique<PgRegistryStore>(g.conninfo.c_str(), &env_);
    } else {
        store = std::make_unique<RedisRegistryStore>(&g.redis, &env_);
    }
    int64_t next_renewal = 0;
    for (;;) {
        if (stop_.load()) {
            release(*store);
            return;
        }
        int64_t now = mono_ns();
        if (held_.load() && now >= deadline_.load()) {
            lose("expired: no confirmed renewal by the deadline", -1);
        }
        int64_t wake = now + kRetryMs * kNsPerMs;
        if (!held_.load()) {
            const StoreOutcome got = acquire(*store);
            if (got == StoreOutcome::ok) {
                if (renew(*store, &next_renewal) == StoreOutcome::ok) {
                    held_.store(true);
                    int64_t unset = -1;
                    first_held_ns.compare_exchange_strong(unset, mono_ns());
                    wake = next_renewal;
                } else {
                    // Never held: nothing minted on this grant.
                    g.tracker.cut(node_, holding_, mono_ns());
                }
            } else if (got == StoreOutcome::refused) {
                wake = now + g.opt.ttl_ms / snowflake::kRenewalsPerTtl * kNsPerMs;
            }
        } else if (now >= next_renewal) {
            const StoreOutcome renewed = renew(*store, &next_renewal);
            if (renewed == StoreOutcome::ok) {
                wake = next_renewal;
            } else if (renewed == StoreOutcome::unreachable) {
                wake = std::min(wake, deadline_.load());
            } else {
                lose(("refused: " + last_refusal_).c_str(), mono_ns());
                wake = now;
            }
        } else {
            wake = std::min(next_renewal, deadline_.load());
        }
        now = mono_ns();
        if (wake > now && !stop_.load()) {
            sleep_until(wake);
        }
    }
}

// ---- the fleet and its phases ----

class Fleet {
  public:
    Fleet() : rng_(g.opt.seed) {}

    Identity new_identity() {
        Identity id;
        id.index = next_index_++;
        id.system_id = rng_();
        id.host = "sim-" + std::to_string(id.index);
        id.data_dir = "/sim/" + std::to_string(id.index) + "/data";
        id.port = 5432;
        return id;
    }
    // A run's instance, as the worker's: a positive bigint.
    int64_t new_instance() { return static_cast<int64_t>(rng_() >> 1); }

    // Starts runs behind one gate and opens it; returns when it opened.
    int64_t start_wave(const std::vector<Run *> &runs) {
        gates_.push_back(std::make_unique<Gate>());
        Gate *gate = gates_.back().get();
        for (Run *r : runs) {
            r->gate = gate;
            if (!r->spawn(static_cast<size_t>(g.opt.stack_kib) * 1024)) {
                exit(2);
            }
        }
        return gate->release();
    }

    Run *make_run(const Identity &id, int64_t stored_node, int64_t stored_fence) {
        runs_.push_back(
            std::make_unique<Run>(id, next_run_++, new_instance(), stored_node, stored_fence));
        return runs_.back().get();
    }

    // Until every run holds a lease, or cap_ms passed.
    static void await_held(const std::vector<Run *> &runs, int64_t since_ns, int64_t cap_ms) {
        int64_t next_note = since_ns + kProgressNs;
        for (;;) {
            size_t held = 0;
            for (Run *r : runs) {
                held += r->first_held_ns.load() >= 0 ? 1 : 0;
            }
            const int64_t now = mono_ns();
            if (held == runs.size() || now - since_ns >= cap_ms * kNsPerMs) {
                return;
            }
            if (now >= next_note) {
                printf("fleet:   %.0f s into the wave: %zu of %zu hold a node id\n",
                       static_cast<double>(now - since_ns) / 1e9, held, runs.size());
                next_note += kProgressNs;
            }
            usleep(20000);  // the pace of the poll; the condition is every run's state
        }
    }

    // Asks every run to stop at once (each gives its id back), then waits.
    static void stop_runs(const std::vector<Run *> &runs) {
        for (Run *r : runs) {
            r->request_stop();
        }
        for (Run *r : runs) {
            r->join();
        }
    }

    std::vector<size_t> choose(size_t count) {
        std::vector<size_t> slots(live.size());
        for (size_t i = 0; i < slots.size(); ++i) {
            slots[i] = i;
        }
        std::shuffle(slots.begin(), slots.end(), rng_);
        slots.resize(std::min(count, slots.size()));
        std::sort(slots.begin(), slots.end());
        return slots;
    }

    std::vector<Run *> live;  // the fleet now, one run per server slot

  private:
    std::mt19937_64 rng_;
    std::vector<std::unique_ptr<Run>> runs_;  // every run, kept to the end
    std::vector<std::unique_ptr<Gate>> gates_;
    int next_index_ = 0;
    uint64_t next_run_ = 1;
};

// ---- measuring and reporting ----

// Of no sample: NaN (null in the JSON, "nan" in the report), not 0 ms.
struct Percentiles {
    size_t count = 0;
    double p50 = NAN, p99 = NAN, max = NAN;
};

Percentiles percentiles(std::vector<double> v) {
    Percentiles p;
    p.count = v.size();
    if (v.empty()) {
        return p;
    }
    std::sort(v.begin(), v.end());
    auto rank = [&](double q) {
        const size_t k = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size())));
        return v[std::max<size_t>(k, 1) - 1];
    };
    p.p50 = rank(0.50);
    p.p99 = rank(0.99);
    p.max = v.back();
    return p;
}

// A JSON text, built in order: the caller writes keys and values.
class Json {
  public:
    Json &open(const char *key = nullptr, char bracket = '{') {
        name(key);
        text_ += bracket;
        first_ = true;
        return *this;
    }
    Json &close(char bracket = '}') {
        text_ += bracket;
        first_ = false;
        return *this;
    }
    Json &num(const char *key, double v) {
        name(key);
        char buf[64];
        if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15) {
            snprintf(buf, sizeof buf, "%.0f", v);
        } else if (std::isfinite(v)) {
            snprintf(buf, sizeof buf, "%.3f", v);
        } else {
            snprintf(buf, sizeof buf, "null");
        }
        text_ += buf;
        return *this;
    }
    Json &boolean(const char *key, bool v) {
        name(key);
        text_ += v ? "true" : "false";
        return *this;
    }
    Json &str(const char *key, const std::string &v) {
        name(key);
        quote(v);
        return *this;
    }
    const std::string &text() const { return text_; }

  private:
    void name(const char *key) {
        if (!first_) {
            text_ += ", ";
        }
        first_ = false;
        if (key != nullptr) {
            quote(key);
            text_ += ": ";
        }
    }
    void quote(const std::string &v) {
        text_ += '"';
        for (char c : v) {
            if (c == '"' || c == '\\') {
                text_ += '\\';
                text_ += c;
            } else if (static_cast<unsigned char>(c) < 0x20) {
                char buf[8];
                snprintf(buf, sizeof buf, "\\u%04x", c);
                text_ += buf;
            } else {
                text_ += c;
            }
        }
        text_ += '"';
    }
    std::string text_;
    bool first_ = true;
};

double seconds(int64_t ns) {
    return static_cast<double>(ns) / 1e9;
}

double delta(double before, double after) {
    return before < 0 || after < 0 ? -1 : after - before;
}

struct Targets {
    bool start_within = false;
    bool no_missed_renewals = false;
    bool outage_kept_minting = false;
    bool outage_recovered = false;
    bool no_double_holding = false;
    bool all() const {
        return start_within && no_missed_renewals && outage_kept_minting && outage_recovered &&
               no_double_holding;
    }
};

void print_phase(FILE *out, int p, int64_t run_begin_ns) {
    const PhaseStats &s = g.stats[p];
    const double dur = seconds(s.end_ns - s.begin_ns);
    uint64_t total = 0;
    for (const auto &kind : s.calls) {
        for (uint64_t n : kind) {
            total += n;
        }
    }
    fprintf(out, "\n%s: %.1f s (from %.1f s)\n", kPhaseNames[p], dur,
            seconds(s.begin_ns - run_begin_ns));
    if (s.wave_size > 0) {
        const Percentiles w = percentiles(s.held_ms);
        fprintf(out,
                "  wave of %d: %d held by the phase's end, %zu by the run's, %d within %lld ms; "
                "start to held p50 %.0f ms, p99 %.0f ms, max %.0f ms\n",
                s.wave_size, s.held_by_phase_end, w.count, s.within,
                static_cast<long long>(g.opt.within_ms), w.p50, w.p99, w.max);
    }
    if (p == kOutage) {
        const Percentiles r = percentiles(s.recovery_ms);
        fprintf(out,
                "  after the outage: %zu renewed (%d not), outage end to first confirmed renewal "
                "p50 %.0f ms, p99 %.0f ms, max %.0f ms\n",
                r.count, s.not_recovered, r.p50, r.p99, r.max);
    }
    fprintf(out, "  calls: %.1f/s;", dur > 0 ? static_cast<double>(total) / dur : 0.0);
    for (int k = 0; k < kCallKinds; ++k) {
        fprintf(out, " %s %llu/%llu/%llu", kCallNames[k],
                static_cast<unsigned long long>(s.calls[k][0]),
                static_cast<unsigned long long>(s.calls[k][1]),
                static_cast<unsigned long long>(s.calls[k][2]));
    }
    fprintf(out, " (ok/refused/unreachable)\n");
    for (const auto &[kind, n] : s.outcomes) {
        fprintf(out, "    %6llu  %s\n", static_cast<unsigned long long>(n), kind.c_str());
    }
    fprintf(out, "  leases lost: %zu%s\n", s.losses.size(),
            no_loss_expected(p) && !s.losses.empty() ? "  <-- missed renewals" : "");
    for (size_t i = 0; i < s.losses.size() && i < 20; ++i) {
        const Loss &l = s.losses[i];
        fprintf(out, "    server %d, node id %lld, at %.1f s: %s\n", l.server,
                static_cast<long long>(l.node), seconds(l.at_ns - run_begin_ns), l.reason.c_str());
    }
    if (s.losses.size() > 20) {
        fprintf(out, "    ... %zu more\n", s.losses.size() - 20);
    }
    fprintf(out, "  not holding at the phase's end: %d\n", s.not_holding_at_end);
    const Load &a = s.load_begin;
    const Load &b = s.load_end;
    if (g.opt.store == "pg") {
        fprintf(out, "  registry: %.2f CPU s, %lld commits, %lld rollbacks\n",
                delta(a.cpu_s, b.cpu_s), static_cast<long long>(delta(a.commits, b.commits)),
                static_cast<long long>(delta(a.rollbacks, b.rollbacks)));
    } else {
        fprintf(out, "  registry: %.2f CPU s (INFO %.2f), %lld commands\n", delta(a.cpu_s, b.cpu_s),
                delta(a.info_cpu_s, b.info_cpu_s),
                static_cast<long long>(delta(a.commands, b.commands)));
    }
}

void phase_json(Json &j, int p, int64_t run_begin_ns) {
    const PhaseStats &s = g.stats[p];
    const double dur = seconds(s.end_ns - s.begin_ns);
    j.open().str("name", kPhaseNames[p]);
    j.num("begin_s", seconds(s.begin_ns - run_begin_ns)).num("duration_s", dur);
    uint64_t total = 0;
    j.open("calls");
    for (int k = 0; k < kCallKinds; ++k) {
        j.open(kCallNames[k]);
        for (int o = 0; o < 3; ++o) {
            j.num(kOutcomeNames[o], static_cast<double>(s.calls[k][o]));
            total += s.calls[k][o];
        }
        j.close();
    }
    j.close();
    j.num("calls_per_s", dur > 0 ? static_cast<double>(total) / dur : 0.0);
    j.open("failures");
    for (const auto &[kind, n] : s.outcomes) {
        j.num(kind.c_str(), static_cast<double>(n));
    }
    j.close();
    j.num("leases_lost", static_cast<double>(s.losses.size()));
    j.open("lost", '[');
    for (const Loss &l : s.losses) {
        j.open().num("server", l.server).num("node", static_cast<double>(l.node));
        j.num("at_s", seconds(l.at_ns - run_begin_ns)).str("reason", l.reason).close();
    }
    j.close(']');
    if (s.wave_size > 0) {
        const Percentiles w = percentiles(s.held_ms);
        j.open("wave").num("size", s.wave_size).num("held", s.held_by_phase_end);
        j.num("held_by_run_end", static_cast<double>(w.count));
        j.num("within_target", s.within).num("p50_ms", w.p50).num("p99_ms", w.p99);
        j.num("max_ms", w.max).close();
    }
    if (p == kOutage) {
        const Percentiles r = percentiles(s.recovery_ms);
        j.open("recovery").num("renewed", static_cast<double>(r.count));
        j.num("not_renewed", s.not_recovered).num("p50_ms", r.p50).num("p99_ms", r.p99);
        j.num("max_ms", r.max).close();
    }
    j.num("not_holding_at_end", s.not_holding_at_end);
    const Load &a = s.load_begin;
    const Load &b = s.load_end;
    j.open("registry").num("cpu_s", delta(a.cpu_s, b.cpu_s));
    if (g.opt.store == "pg") {
        j.num("commits", delta(static_cast<double>(a.commits), static_cast<double>(b.commits)));
        j.num("rollbacks",
              delta(static_cast<double>(a.rollbacks), static_cast<double>(b.rollbacks)));
    } else {
        j.num("info_cpu_s", delta(a.info_cpu_s, b.info_cpu_s));
        j.num("commands", delta(static_cast<double>(a.commands), static_cast<double>(b.commands)));
    }
    j.close();
    j.close();
}

// ---- the command line ----

[[noreturn]] void usage(const char *why) {
    fprintf(stderr,
            "fleet: %s\n"
            "usage: fleet --store=pg|redis --upstream=SOCKET|HOST:PORT [options]\n"
            "  --dbname=NAME (pg, default postgres)  --direct=CONNINFO (pg: for the load)\n"
            "  --registry-pid=PID (its processes' CPU)  --servers=N (1024)  --rtt-ms=MS (20)\n"
            "  --seed=N (1)  --lease-ttl-ms=MS (60000)  --max-clock-drift-ms=MS (1000)\n"
            "  --steady-ms=MS (2 x lease_ttl)  --final-ms=MS (steady)  --outage-ms=MS (20000)\n"
            "  --restart-fraction=F (0.1)  --decommission-fraction=F (0.1)\n"
            "  --within-ms=MS (10000)  --recovery-target-ms=MS (5000)\n"
            "  --wave-cap-ms=MS (max(60 s, 2 x lease_ttl))  --stack-kib=KIB (256)\n"
            "  --json=FILE  --check-targets  --quick (64 servers, lease_ttl 6 s, outage 2 s)\n",
            why);
    exit(2);
}

void parse(int argc, char **argv, Options *o) {
    // --quick first, so that the options given with it override its values.
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--quick") == 0) {
            o->servers = 64;
            o->ttl_ms = 6000;
            o->steady_ms = 6000;
            o->outage_ms = 2000;
            o->wave_cap_ms = 60000;
        }
    }
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--quick") {
            continue;
        }
        if (arg == "--check-targets") {
            o->check_targets = true;
            continue;
        }
        const size_t eq = arg.find('=');
        if (arg.rfind("--", 0) != 0 || eq == std::string::npos) {
            usage(("unknown argument " + arg).c_str());
        }
        const std::string key = arg.substr(2, eq - 2);
        const std::string value = arg.substr(eq + 1);
        char *end = nullptr;
        const long long n = strtoll(value.c_str(), &end, 10);
        const bool numeric = !value.empty() && *end == '\0';
        auto number = [&]() {
            if (!numeric || n < 0) {
                usage(("--" + key + " needs a number, not " + value).c_str());
            }
            return static_cast<int64_t>(n);
        };
        if (key == "store") {
            o->store = value;
        } else if (key == "upstream") {
            o->upstream = value;
        } else if (key == "dbname") {
            o->dbname = value;
        } else if (key == "direct") {
            o->direct = value;
        } else if (key == "json") {
            o->json = value;
        } else if (key == "registry-pid") {
            o->registry_pid = static_cast<int>(number());
        } else if (key == "servers") {
            o->servers = static_cast<int>(number());
        } else if (key == "rtt-ms") {
            o->rtt_ms = number();
        } else if (key == "seed") {
            o->seed = static_cast<uint64_t>(number());
        } else if (key == "lease-ttl-ms") {
            o->ttl_ms = number();
        } else if (key == "max-clock-drift-ms") {
            o->drift_ms = number();
        } else if (key == "steady-ms") {
            o->steady_ms = number();
        } else if (key == "final-ms") {
            o->final_ms = number();
        } else if (key == "outage-ms") {
            o->outage_ms = number();
        } else if (key == "within-ms") {
            o->within_ms = number();
        } else if (key == "recovery-target-ms") {
            o->recovery_target_ms = number();
        } else if (key == "wave-cap-ms") {
            o->wave_cap_ms = number();
        } else if (key == "stack-kib") {
            o->stack_kib = static_cast<int>(number());
        } else if (key == "restart-fraction" || key == "decommission-fraction") {
            const double f = strtod(value.c_str(), &end);
            if (value.empty() || *end != '\0' || f < 0 || f > 1) {
                usage(("--" + key + " needs a fraction from 0 to 1").c_str());
            }
            (key == "restart-fraction" ? o->restart_fraction : o->decommission_fraction) = f;
        } else {
            usage(("unknown option --" + key).c_str());
        }
    }
    if (o->store != "pg" && o->store != "redis") {
        usage("--store must be pg or redis");
    }
    if (o->upstream.empty()) {
        usage("--upstream is required");
    }
    if (o->servers < 1 || o->ttl_ms < 3000) {
        usage(
            "--servers must be at least 1 and --lease-ttl-ms at least 3000 (the setting's least)");
    }
    if (o->steady_ms < 0) {
        o->steady_ms = 2 * o->ttl_ms;
    }
    if (o->final_ms < 0) {
        o->final_ms = o->steady_ms;
    }
    if (o->wave_cap_ms < 0) {
        o->wave_cap_ms = std::max<int64_t>(60000, 2 * o->ttl_ms);
    }
}

// Each server's connection takes three descriptors here (its own and the
// proxy's two), and a connection whose server gave up stays open in the
// proxy until the registry accepts and closes it: under a backlog that is
// many per server. Root may raise the hard limit too.
void raise_fd_limit() {
    rlimit lim;
    if (getrlimit(RLIMIT_NOFILE, &lim) != 0) {
        return;
    }
    const rlim_t want = 1 << 20;
    if (lim.rlim_max < want) {
        rlimit more = {want, want};
        if (setrlimit(RLIMIT_NOFILE, &more) == 0) {
            return;
        }
    }
    lim.rlim_cur = lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &lim);
}

}  // namespace
}  // namespace fleet

int main(int argc, char **argv) {
    using namespace fleet;
    parse(argc, argv, &g.opt);
    const Options &opt = g.opt;
    signal(SIGPIPE, SIG_IGN);  // hiredis writes with write(): a closed socket is an error
    raise_fd_limit();
    setvbuf(stdout, nullptr, _IOLBF, 0);

    DelayProxy proxy(opt.upstream, opt.rtt_ms);
    std::string why;
    if (!proxy.start(&why)) {
        fprintf(stderr, "fleet: %s\n", why.c_str());
        return 2;
    }
    if (opt.store == "pg") {
        // No SSL or GSSAPI negotiation: the registry offers neither, and each
        // would cost a round trip more per connection.
        g.conninfo = "host=127.0.0.1 port=" + std::to_string(proxy.port()) +
                     " user=postgres dbname=" + opt.dbname +
                     " sslmode=disable gssencmode=disable application_name=fleet";
    } else {
        snowflake::Error err;
        const std::string url = "redis://127.0.0.1:" + std::to_string(proxy.port());
        if (!snowflake::parse_redis_url(url, &g.redis, &err)) {
            fprintf(stderr, "fleet: %s\n", err.message);
            return 2;
        }
    }
    LoadReader load(opt.store, opt.store == "pg" ? opt.direct : opt.upstream, opt.registry_pid);
    Fleet fleet;
    const size_t n = static_cast<size_t>(opt.servers);

    printf(
        "fleet: %d servers, store %s, RTT %lld ms, lease_ttl %lld ms, max_clock_drift %lld "
        "ms, seed %llu, proxy on 127.0.0.1:%d\n",
        opt.servers, opt.store.c_str(), static_cast<long long>(opt.rtt_ms),
        static_cast<long long>(opt.ttl_ms), static_cast<long long>(opt.drift_ms),
        static_cast<unsigned long long>(opt.seed), proxy.port());
    const int64_t run_begin = mono_ns();

    auto begin = [&](int p) {
        g.phase.store(p);
        g.stats[p].begin_ns = mono_ns();
        g.stats[p].load_begin = load.read();
        printf("fleet: %.1f s: phase %s\n", seconds(mono_ns() - run_begin), kPhaseNames[p]);
    };
    auto end = [&](int p) {
        PhaseStats &s = g.stats[p];
        s.end_ns = mono_ns();
        s.load_end = load.read();
        for (Run *r : fleet.live) {
            s.not_holding_at_end += r->holding(s.end_ns) ? 0 : 1;
        }
    };
    auto wave = [&](int p, const std::vector<Run *> &runs) {
        PhaseStats &s = g.stats[p];
        s.wave = runs;
        s.wave_opened_ns = fleet.start_wave(runs);
        Fleet::await_held(runs, s.wave_opened_ns, opt.wave_cap_ms);
    };
    auto steady = [&](int p, int64_t ms) {
        begin(p);
        usleep(static_cast<useconds_t>(ms * 1000));
        end(p);
    };

    // 1. Every server starts at once.
    begin(kStart);
    for (size_t i = 0; i < n; ++i) {
        fleet.live.push_back(fleet.make_run(fleet.new_identity(), -1, 0));
    }
    wave(kStart, fleet.live);
    end(kStart);

    // 2. Steady renewals.
    steady(kSteady, opt.steady_ms);

    // 3. A restart wave: a clean stop (the lease given back), and a new run
    // of the same server presenting its state file's node id and fence.
    begin(kRestart);
    {
        const std::vector<size_t> slots =
            fleet.choose(static_cast<size_t>(std::lround(opt.restart_fraction * opt.servers)));
        std::vector<Run *> stopping, started;
        for (size_t slot : slots) {
            stopping.push_back(fleet.live[slot]);
        }
        Fleet::stop_runs(stopping);
        for (size_t slot : slots) {
            Run *old = fleet.live[slot];
            fleet.live[slot] = fleet.make_run(old->id, old->stored_node, old->stored_fence);
            started.push_back(fleet.live[slot]);
        }
        wave(kRestart, started);
    }
    end(kRestart);

    // 4. Steady again.
    steady(kSteady2, opt.steady_ms);

    // 5. The registry unreachable, then back.
    begin(kOutage);
    {
        for (Run *r : fleet.live) {
            r->renewed_after_mark_ns.store(-1);
        }
        proxy.begin_outage();
        usleep(static_cast<useconds_t>(opt.outage_ms * 1000));
        const int64_t back = mono_ns();
        g.recovery_mark_ns.store(back);
        proxy.end_outage();
        // Every renewal came due during the outage (it lasts a renewal
        // interval or more): each server renews as soon as it can.
        const int64_t cap_ns = (opt.ttl_ms + snowflake::kRegistryTimeoutMs + 5000) * kNsPerMs;
        int64_t next_note = back + kProgressNs;
        for (;;) {
            size_t renewed = 0;
            for (Run *r : fleet.live) {
                renewed += r->renewed_after_mark_ns.load() >= 0 ? 1 : 0;
            }
            const int64_t now = mono_ns();
            if (renewed == fleet.live.size() || now - back >= cap_ns) {
                break;
            }
            if (now >= next_note) {
                printf("fleet:   %.0f s after the outage: %zu of %zu renewed\n",
                       static_cast<double>(now - back) / 1e9, renewed, fleet.live.size());
                next_note += kProgressNs;
            }
            usleep(20000);  // the pace of the poll; the condition is every run's state
        }
        g.recovery_mark_ns.store(INT64_MAX);
        PhaseStats &s = g.stats[kOutage];
        for (Run *r : fleet.live) {
            const int64_t at = r->renewed_after_mark_ns.load();
            if (at >= 0) {
                s.recovery_ms.push_back(static_cast<double>(at - back) / 1e6);
            } else {
                s.not_recovered++;
            }
        }
    }
    end(kOutage);

    // 6. Decommissioned servers give their ids back; as many new servers
    // start at once and take the recycled ids.
    begin(kDecommission);
    {
        const std::vector<size_t> slots =
            fleet.choose(static_cast<size_t>(std::lround(opt.decommission_fraction * opt.servers)));
        std::vector<Run *> stopping, started;
        for (size_t slot : slots) {
            stopping.push_back(fleet.live[slot]);
        }
        Fleet::stop_runs(stopping);
        for (size_t slot : slots) {
            fleet.live[slot] = fleet.make_run(fleet.new_identity(), -1, 0);
            started.push_back(fleet.live[slot]);
        }
        wave(kDecommission, started);
    }
    end(kDecommission);

    // 7. Steady to the end, then every server stops cleanly.
    steady(kFinal, opt.final_ms);
    begin(kStop);
    Fleet::stop_runs(fleet.live);
    end(kStop);
    const int64_t run_end = mono_ns();
    proxy.stop();

    for (PhaseStats &s : g.stats) {
        s.wave_size = static_cast<int>(s.wave.size());
        for (Run *r : s.wave) {
            const int64_t at = r->first_held_ns.load();
            if (at >= 0) {
                s.held_ms.push_back(static_cast<double>(at - s.wave_opened_ns) / 1e6);
                s.within += at - s.wave_opened_ns <= opt.within_ms * kNsPerMs ? 1 : 0;
                s.held_by_phase_end += at <= s.end_ns ? 1 : 0;
            }
        }
    }
    const std::vector<Tracker::Violation> violations = g.tracker.overlaps();
    Targets t;
    t.start_within = g.stats[kStart].within == g.stats[kStart].wave_size;
    t.no_missed_renewals = true;
    for (int p = 0; p < kPhases; ++p) {
        t.no_missed_renewals =
            t.no_missed_renewals && (!no_loss_expected(p) || g.stats[p].losses.empty());
    }
    t.outage_kept_minting = g.stats[kOutage].losses.empty();
    const Percentiles rec = percentiles(g.stats[kOutage].recovery_ms);
    t.outage_recovered = g.stats[kOutage].not_recovered == 0 &&
                         (rec.count == 0 || rec.max <= static_cast<double>(opt.recovery_target_ms));
    t.no_double_holding = violations.empty();

    printf(
        "\n== fleet report: %d servers on %s, RTT %lld ms, lease_ttl %lld ms, seed %llu, %.1f s "
        "==\n",
        opt.servers, opt.store.c_str(), static_cast<long long>(opt.rtt_ms),
        static_cast<long long>(opt.ttl_ms), static_cast<unsigned long long>(opt.seed),
        seconds(run_end - run_begin));
    for (int p = 0; p < kPhases; ++p) {
        print_phase(stdout, p, run_begin);
    }
    printf("\nnode ids held by two servers at once: %zu\n", violations.size());
    for (size_t i = 0; i < violations.size() && i < 20; ++i) {
        const Tracker::Violation &v = violations[i];
        printf("  node id %lld: server %d [%.3f s, %.3f s] and server %d [%.3f s, %.3f s]\n",
               static_cast<long long>(v.node), v.first.server,
               seconds(v.first.start_ns - run_begin), seconds(v.first.end_ns - run_begin),
               v.second.server, seconds(v.second.start_ns - run_begin),
               seconds(v.second.end_ns - run_begin));
    }
    printf(
        "targets: every server held within %lld ms of a simultaneous start: %s; no missed "
        "renewal in steady phases and the restart wave: %s; every server kept minting through "
        "the outage: %s; renewed within %lld ms of its end: %s; never two holders: %s\n",
        static_cast<long long>(opt.within_ms), t.start_within ? "met" : "MISSED",
        t.no_missed_renewals ? "met" : "MISSED", t.outage_kept_minting ? "met" : "MISSED",
        static_cast<long long>(opt.recovery_target_ms), t.outage_recovered ? "met" : "MISSED",
        t.no_double_holding ? "met" : "MISSED");

    if (!opt.json.empty()) {
        Json j;
        j.open().str("store", opt.store).num("servers", opt.servers);
        j.num("rtt_ms", static_cast<double>(opt.rtt_ms)).num("seed", static_cast<double>(opt.seed));
        j.num("lease_ttl_ms", static_cast<double>(opt.ttl_ms));
        j.num("max_clock_drift_ms", static_cast<double>(opt.drift_ms));
        j.num("outage_ms", static_cast<double>(opt.outage_ms));
        j.num("wall_s", seconds(run_end - run_begin));
        j.num("proxy_connections", static_cast<double>(proxy.connections()));
        j.num("double_holdings", static_cast<double>(violations.size()));
        j.open("violations", '[');
        for (const Tracker::Violation &v : violations) {
            j.open().num("node", static_cast<double>(v.node));
            j.num("server_a", v.first.server)
                .num("a_start_s", seconds(v.first.start_ns - run_begin));
            j.num("a_end_s", seconds(v.first.end_ns - run_begin));
            j.num("server_b", v.second.server)
                .num("b_start_s", seconds(v.second.start_ns - run_begin));
            j.num("b_end_s", seconds(v.second.end_ns - run_begin)).close();
        }
        j.close(']');
        j.open("targets").boolean("start_within", t.start_within);
        j.boolean("no_missed_renewals", t.no_missed_renewals);
        j.boolean("outage_kept_minting", t.outage_kept_minting);
        j.boolean("outage_recovered", t.outage_recovered);
        j.boolean("no_double_holding", t.no_double_holding).boolean("all", t.all()).close();
        j.open("phases", '[');
        for (int p = 0; p < kPhases; ++p) {
            phase_json(j, p, run_begin);
        }
        j.close(']').close();
        FILE *f = fopen(opt.json.c_str(), "w");
        if (f == nullptr || fprintf(f, "%s\n", j.text().c_str()) < 0 || fclose(f) != 0) {
            fprintf(stderr, "fleet: cannot write %s: %s\n", opt.json.c_str(), strerror(errno));
            return 2;
        }
    }
    if (!violations.empty()) {
        return 1;
    }
    return opt.check_targets && !t.all() ? 1 : 0;
}
