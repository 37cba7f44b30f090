// A split brain's race on a real registry, through the stores the
// extension links (src/registry/): an old primary (timeline 1) taking its
// node id back and its promoted standby (same system identifier, timeline
// 2) taking an 'auto' id, both reading the registry before either writes.
// Whichever writes second must see the first: the old primary is then
// refused as replaced, or its lease is ended by its successor's grant and
// its next renewal refused. Never both holding a live lease (review
// finding F1 of issue 32: each write used to check only the records it
// wrote, and both committed).
//
// The interleaving and the order of the writes are forced, not hoped for
// (--first: whose write goes first). PostgreSQL: a session of this program
// holds the stores' advisory locks (the system identifier's, and those of
// the low node ids the calls pick), so that each call, having read, waits
// in its write; the first is started and waits before the second starts,
// and PostgreSQL grants a lock to its waiters in the order they came.
// Redis: the store's test hook (SNOWFLAKE_ID_TEST_REDIS_PAUSE, one per
// server) stops each call after its check, before its EXEC; once both are
// stopped, the first goes on and ends, then the second.
//
//   store_race --store=pg --conninfo=CONNINFO --first=old_primary|standby
//   store_race --store=redis --url=redis+unix:///path/redis.sock --first=...
//
// --race=never_leased (Redis only) races two servers of different systems
// for the last id never leased of a small layout whose other ids are leased
// (one given back): the one that loses, whose EXEC finds P:next_id and the
// id's lease moved, picks the same id again (the only one never leased in
// what it read), finds both moved in its WATCH round trip, and must take
// the id given back deciding on what that round trip read, not on every
// lease read again (a fleet's simultaneous start read them all again at
// nearly every race: issue 32). --race=never_leased_given_back_late: the
// same, but the id is given back while the loser waits to write, so that
// what its WATCH round trips read says every id is leased: it must read
// everything again rather than be refused.
// --race=renewal_before_successor_writes (both stores): a promoted standby
// (static id, the old primary's durable state) reads the registry as the
// old primary's successor and, before it writes, the old primary (live)
// renews, recording a WAL position past the standby's branch point. The
// standby's write finds the lease changed; read again, the standby is a
// copy, refused, and the old primary must renew on: the mark that replaces
// its timeline for good goes only with the grant it was decided with
// (PostgreSQL's store committed it alone, and both were refused).
// The same orders run on the unit tests' store in memory, in milliseconds
// (tests/unit/registry_call_test.cpp); here they run on the real stores'
// reads and writes.
// Exit status 0 when the outcome is sound, 1 when both hold an id (or a
// call failed unexpectedly), 2 on a usage or set-up error.
#include <poll.h>
#include <pthread.h>
#include <time.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "core/registry.hpp"
#include "registry/stores.hpp"

extern "C" {
#include <hiredis/hiredis.h>
#include <libpq-fe.h>
}

namespace {

using snowflake::StoreOutcome;

constexpr snowflake::LayoutWidths kWidths{5, 5, 12};
constexpr int64_t kDefaultEpochMs = 1577836800000;
constexpr int64_t kTtlMs = 60000;
constexpr uint64_t kSystemId = 7411111111111111111ULL;
// The WAL position every timeline-1 server records; its standby left
// timeline 1 there.
constexpr int64_t kOldPrimaryPosition = int64_t{1} << 24;
// The node ids whose locks are held: the calls pick among the lowest.
constexpr int kHeldNodeLocks = 16;

int64_t mono_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

int64_t wall_ms() {
    timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return int64_t{ts.tv_sec} * 1000 + ts.tv_nsec / 1'000'000;
}

[[noreturn]] void die(const char *what, const char *why) {
    fprintf(stderr, "store_race: %s: %s\n", what, why);
    exit(2);
}

class RaceEnv final : public snowflake::RegistryEnv {
  public:
    int64_t monotonic_ns() override { return mono_ns(); }
    // As long as the race waits for the calls to reach their writes
    // (until_waiting()): a call's lock_timeout is what is left of it, and a
    // loaded machine must not end the first call's wait before the second
    // call has read.
    int64_t call_until_ns() override { return mono_ns() + int64_t{60} * 1'000'000'000; }
    bool wait_socket(int fd, snowflake::SocketWait wait, int64_t until_mono_ns) override {
        const short events = wait == snowflake::SocketWait::readable ? POLLIN : POLLOUT;
        for (;;) {
            const int64_t left_ms = (until_mono_ns - mono_ns()) / snowflake::kNsPerMs;
            if (left_ms <= 0) {
                return false;
            }
            pollfd p = {fd, events, 0};
            const int n = poll(&p, 1, static_cast<int>(left_ms));
            if (n < 0 && errno != EINTR) {
                return false;
            }
            if (n > 0) {
                return true;
            }
        }
    }
    bool stopping() override { return false; }
    void log_whole_text(const char *text, size_t len) override {
        fprintf(stderr, "store_race: the whole text from the registry: %.*s\n",
                static_cast<int>(len), text);
    }
    bool is_own_backend(int) override { return false; }
};

// One of the two servers: its identity and what its last call said.
struct Server {
    Server(const char *name, int64_t instance, int timeline, const char *data_directory,
           uint64_t system_id = kSystemId)
        : name(name),
          instance(instance),
          timeline(timeline),
          data_directory(data_directory),
          system_id(system_id) {}
    const char *name;
    int64_t instance;
    int timeline;
    const char *data_directory;
    uint64_t system_id;
    snowflake::LayoutWidths widths = kWidths;
    int64_t static_node = -1;  // snowflake_id.worker_id, or -1 for 'auto'
    // WAL written since timeline 1's recorded position (the old primary's).
    int64_t written_since = 0;
    RaceEnv env;
    snowflake::RegistryStore *store = nullptr;
    // The durable state its acquire presents.
    int64_t stored_node = -1;
    int64_t stored_fence = 0;
    snowflake::LeaseGrant grant;
    snowflake::Error err;
    StoreOutcome outcome = StoreOutcome::unreachable;

    void describe(snowflake::LeaseHolder *h) const {
        h->system_id = system_id;
        h->instance = instance;
        h->host = "race.invalid";
        h->port = 5432;
        h->data_directory = data_directory;
        h->timeline = timeline;
        // From 1.7 a server on a higher timeline replaces the old primary
        // only as its successor: it left timeline 1 at or after the
        // position the old primary recorded (a standby that had received
        // everything). Without them the standby is a copy, which never ends
        // the old primary's lease, and both would rightly mint.
        h->wal_position = kOldPrimaryPosition + (timeline - 1) * 256 + written_since;
        h->history.clear();
        for (int t = 1; t < timeline; ++t) {
            h->history.push_back({t, kOldPrimaryPosition});
        }
    }
    StoreOutcome acquire() {
        snowflake::LeaseRequest request;
        snowflake::ask_with_durable_state(static_node, stored_node, stored_fence, &request);
        describe(&request.holder);
        request.refuse_when_replaced = true;
        request.widths = widths;
        request.epoch_unix_ms = kDefaultEpochMs;
        request.max_clock_drift_ms = 1000;
        request.ttl_ms = kTtlMs;
        request.clock_unix_ms = wall_ms();
        err = snowflake::Error();
        outcome = store->acquire(request, &grant, &err);
        if (outcome == StoreOutcome::ok) {
            stored_node = grant.node;
            stored_fence = grant.fence;
        }
        return outcome;
    }
    StoreOutcome renew() {
        snowflake::RenewRequest request;
        request.node = grant.node;
        request.fence = grant.fence;
        request.instance = instance;
        request.bound_unix_ms = wall_ms() + 1000;
        request.ttl_ms = kTtlMs;
        describe(&request.holder);
        int64_t expires = 0;
        err = snowflake::Error();
        return outcome = store->renew(request, &expires, &err);
    }
    StoreOutcome release() {
        err = snowflake::Error();
        return outcome = store->release(grant.node, grant.fence, instance, wall_ms() + 1, &err);
    }
};

void *acquire_thread(void *arg) {
    static_cast<Server *>(arg)->acquire();
    return nullptr;
}

const char *outcome_text(StoreOutcome o) {
    return o == StoreOutcome::ok ? "ok" : o == StoreOutcome::refused ? "refused" : "unreachable";
}

void expect_ok(Server &s, const char *what) {
    if (s.outcome != StoreOutcome::ok) {
        fprintf(stderr, "store_race: %s %s: %s: %s\n", s.name, what, outcome_text(s.outcome),
                s.err.message);
        exit(2);
    }
}

// Waits (up to 60 s) until count() says n calls wait; false if not.
template <typename Count>
bool until_waiting(int n, Count count) {
    const int64_t until = mono_ns() + int64_t{60} * 1'000'000'000;
    while (mono_ns() < until) {
        if (count() >= n) {
            return true;
        }
        poll(nullptr, 0, 5);  // the poll's pace; the condition is count()
    }
    return false;
}

// PostgreSQL: holds the locks the writes take until both wait.
class PgGate {
  public:
    explicit PgGate(const char *conninfo) : conn_(PQconnectdb(conninfo)) {
        if (PQstatus(conn_) != CONNECTION_OK) {
            die("connecting for the locks", PQerrorMessage(conn_));
        }
    }
    ~PgGate() { PQfinish(conn_); }
    void close() {
        PQclear(exec("SELECT pg_catalog.pg_advisory_lock(" +
                     std::to_string(PgRegistryStore::kSystemLockClass) + ", " +
                     std::to_string(PgRegistryStore::system_lock_key(kSystemId)) + ")"));
        for (int k = 0; k < kHeldNodeLocks; ++k) {
            PQclear(exec("SELECT pg_catalog.pg_advisory_lock(" +
                         std::to_string(PgRegistryStore::kNodeLockClass) + ", " +
                         std::to_string(k) + ")"));
        }
    }
    // Only the system identifier's: an acquire waits in its write, a
    // renewal (node locks only) goes through.
    void close_system() {
        PQclear(exec("SELECT pg_catalog.pg_advisory_lock(" +
                     std::to_string(PgRegistryStore::kSystemLockClass) + ", " +
                     std::to_string(PgRegistryStore::system_lock_key(kSystemId)) + ")"));
    }
    int waiting() {
        PGresult *r = exec(
            "SELECT count(*) FROM pg_catalog.pg_locks WHERE locktype OPERATOR(pg_catalog.=) "
            "'advisory' AND NOT granted");
        const int n = atoi(PQgetvalue(r, 0, 0));
        PQclear(r);
        return n;
    }
    void open() { PQclear(exec("SELECT pg_catalog.pg_advisory_unlock_all()")); }

  private:
    PGresult *exec(const std::string &sql) {
        PGresult *r = PQexec(conn_, sql.c_str());
        if (PQresultStatus(r) != PGRES_TUPLES_OK) {
            die(sql.c_str(), PQerrorMessage(conn_));
        }
        return r;
    }
    PGconn *conn_;
};

// Redis: each server's pause hook, armed once.
class RedisGate {
  public:
    explicit RedisGate(const snowflake::RedisTarget &t) {
        ctx_ = t.unix_socket ? redisConnectUnix(t.socket_path) : redisConnect(t.host, t.port);
        if (ctx_ == nullptr || ctx_->err != 0) {
            die("connecting for the pause hook", ctx_ != nullptr ? ctx_->errstr : "no memory");
        }
    }
    ~RedisGate() { redisFree(ctx_); }
    void close(const char *hook) {
        command("DEL %s:arm %s:paused %s:resume %s:retried", hook, hook, hook, hook);
        command("RPUSH %s:arm 1", hook);
    }
    int paused(const char *hook) { return static_cast<int>(command("LLEN %s:paused", hook)); }
    int retried(const char *hook) { return static_cast<int>(command("LLEN %s:retried", hook)); }
    void open(const char *hook) { command("RPUSH %s:resume 1", hook); }
    // How many times Redis ran `name` (lower case) since it started.
    long long calls_of(const char *name) {
        auto *r = static_cast<redisReply *>(redisCommand(ctx_, "INFO commandstats"));
        if (r == nullptr || r->type != REDIS_REPLY_STRING) {
            die("INFO commandstats",
                r != nullptr && r->type == REDIS_REPLY_ERROR ? r->str : ctx_->errstr);
        }
        const std::string field = std::string("cmdstat_") + name + ":calls=";
        const char *at = strstr(r->str, field.c_str());
        const long long n = at != nullptr ? atoll(at + field.size()) : 0;
        freeReplyObject(r);
        return n;
    }

  private:
    template <typename... Args>
    long long command(const char *format, Args... args) {
        auto *r = static_cast<redisReply *>(redisCommand(ctx_, format, args...));
        if (r == nullptr || r->type == REDIS_REPLY_ERROR) {
            die(format, r != nullptr ? r->str : ctx_->errstr);
        }
        const long long n = r->type == REDIS_REPLY_INTEGER ? r->integer : 0;
        freeReplyObject(r);
        return n;
    }
    redisContext *ctx_ = nullptr;
};

// --race=never_leased and never_leased_given_back_late: see the top of the
// file.
int lost_race_for_a_never_leased_id(const snowflake::RedisTarget &redis, bool given_back_late) {
    constexpr snowflake::LayoutWidths kSmall{2, 3, 12};
    constexpr int64_t kIds = 32;
    Server first("the first holder", 900, 1, "/race/first", kSystemId + 4);
    Server filler("a filler", 1000, 1, "/race/filler", kSystemId + 1);
    Server winner("the winner", 2000, 1, "/race/winner", kSystemId + 2);
    Server loser("the loser", 3000, 1, "/race/loser", kSystemId + 3);
    const std::string hook = "store_race:" + std::to_string(loser.instance);
    setenv("SNOWFLAKE_ID_TEST_REDIS_PAUSE", hook.c_str(), 1);
    loser.store = new RedisRegistryStore(&redis, &loser.env);
    unsetenv("SNOWFLAKE_ID_TEST_REDIS_PAUSE");
    first.store = new RedisRegistryStore(&redis, &first.env);
    filler.store = new RedisRegistryStore(&redis, &filler.env);
    winner.store = new RedisRegistryStore(&redis, &winner.env);
    // Ids 0 to kIds - 2 leased, 0 given back (late: after the loser read);
    // kIds - 1 never leased.
    for (Server *s : {&first, &filler, &winner, &loser}) {
        s->widths = kSmall;
    }
    first.acquire();
    expect_ok(first, "acquire");
    if (!given_back_late) {
        first.release();
        expect_ok(first, "release");
    }
    for (int64_t n = 1; n < kIds - 1; ++n) {
        filler.instance = 1000 + n;  // another run each time: another id
        filler.stored_node = -1;
        filler.acquire();
        expect_ok(filler, "acquire");
    }
    RedisGate gate(redis);
    gate.close(hook.c_str());
    pthread_t thread;
    pthread_create(&thread, nullptr, acquire_thread, &loser);
    if (!until_waiting(1, [&] { return gate.paused(hook.c_str()); })) {
        die("the race", "the loser's acquire did not reach its write within 60 s");
    }
    winner.acquire();
    expect_ok(winner, "acquire");
    if (given_back_late) {
        first.release();
        expect_ok(first, "release");
    }
    const long long reads_before = gate.calls_of("hgetall");
    gate.open(hook.c_str());
    pthread_join(thread, nullptr);
    const long long loser_reads = gate.calls_of("hgetall") - reads_before;
    if (loser.outcome != StoreOutcome::ok) {
        printf("store_race: FAIL: the loser's acquire: %s: %s\n", outcome_text(loser.outcome),
               loser.err.message);
        return 1;
    }
    printf("store_race: %" PRId64 " of %" PRId64
           " ids leased, 0 given back %s; %s took node id %" PRId64
           " while %s waited to write; %s's EXEC wrote nothing %d time(s), then it took node id "
           "%" PRId64 " reading %lld hashes\n",
           kIds - 1, kIds, given_back_late ? "while the loser waited" : "before", winner.name,
           winner.grant.node, loser.name, loser.name, gate.retried(hook.c_str()), loser.grant.node,
           loser_reads);
    int status = 0;
    if (winner.grant.node != kIds - 1 || gate.retried(hook.c_str()) != 1) {
        printf("store_race: FAIL: not the race meant: both were to pick node id %" PRId64
               ", the loser's EXEC to write nothing once\n",
               kIds - 1);
        status = 1;
    }
    if (loser.grant.node != 0) {
        printf("store_race: FAIL: the loser took node id %" PRId64 ", not 0, the only one free\n",
               loser.grant.node);
        status = 1;
    }
    // Its WATCH round trips read a few hashes each (the meta, the layout,
    // the id it picks); every lease again is kIds - 1 more, which only a
    // give-back it could not see calls for.
    if (!given_back_late && loser_reads >= kIds - 1) {
        printf("store_race: FAIL: the loser read every lease again (%lld hashes)\n", loser_reads);
        status = 1;
    }
    for (Server *s : {&first, &filler, &winner, &loser}) {
        delete s->store;
    }
    printf("store_race: %s\n", status == 0 ? "sound" : "FAILED");
    return status;
}

// --race=renewal_before_successor_writes: see the top of the file.
int renewal_before_successor_writes(bool pg, const char *conninfo,
                                    const snowflake::RedisTarget &redis) {
    constexpr int64_t kNode = 5;
    Server old_primary("the old primary", 101, 1, "/race/old-primary");
    Server standby("the promoted standby", 202, 2, "/race/promoted-standby");
    const std::string hook = "store_race:" + std::to_string(standby.instance);
    for (Server *s : {&old_primary, &standby}) {
        s->static_node = kNode;
        if (s == &standby) {
            setenv("SNOWFLAKE_ID_TEST_REDIS_PAUSE", hook.c_str(), 1);
        }
        s->store =
            pg ? static_cast<snowflake::RegistryStore *>(new PgRegistryStore(conninfo, &s->env))
               : new RedisRegistryStore(&redis, &s->env);
        unsetenv("SNOWFLAKE_ID_TEST_REDIS_PAUSE");
    }
    old_primary.acquire();
    expect_ok(old_primary, "acquire");
    // The standby is a copy of the old primary's data directory: the same
    // durable state.
    standby.stored_node = old_primary.stored_node;
    standby.stored_fence = old_primary.stored_fence;
    pthread_t thread;
    bool waited = false;
    std::unique_ptr<PgGate> pg_gate;
    std::unique_ptr<RedisGate> redis_gate;
    if (pg) {
        pg_gate = std::make_unique<PgGate>(conninfo);
        pg_gate->close_system();
        pthread_create(&thread, nullptr, acquire_thread, &standby);
        waited = until_waiting(1, [&] { return pg_gate->waiting(); });
    } else {
        redis_gate = std::make_unique<RedisGate>(redis);
        redis_gate->close(hook.c_str());
        pthread_create(&thread, nullptr, acquire_thread, &standby);
        waited = until_waiting(1, [&] { return redis_gate->paused(hook.c_str()); });
    }
    // While the standby waits to write: the old primary wrote WAL the
    // standby never received, and renews, recording the new position.
    old_primary.written_since = 4096;
    if (waited) {
        old_primary.renew();
    }
    if (pg) {
        pg_gate->open();
    } else {
        redis_gate->open(hook.c_str());
    }
    pthread_join(thread, nullptr);
    if (!waited) {
        die("the race", "the standby's acquire did not reach its write within 60 s");
    }
    expect_ok(old_primary, "renewal while the standby waited to write");
    auto said = [](const Server &s) {
        return std::string(outcome_text(s.outcome)) +
               (s.outcome == StoreOutcome::ok ? ", node id " + std::to_string(s.grant.node)
                                              : std::string(": ") + s.err.message);
    };
    printf(
        "store_race: %s read as a successor of timeline 1 and waited to write; %s renewed "
        "node id %" PRId64
        " meanwhile, recording a position past the standby's branch "
        "point; then %s: %s\n",
        standby.name, old_primary.name, kNode, standby.name, said(standby).c_str());
    int status = 0;
    if (standby.outcome != StoreOutcome::refused ||
        strstr(standby.err.message, "is a copy of") == nullptr) {
        printf(
            "store_race: FAIL: %s was not refused as a copy of %s, whose live lease it was "
            "to leave alone\n",
            standby.name, old_primary.name);
        status = 1;
    }
    old_primary.renew();
    if (old_primary.outcome != StoreOutcome::ok) {
        printf(
            "store_race: FAIL: %s's next renewal: %s: %s (the grant that would have "
            "replaced it was never written: both servers are refused)\n",
            old_primary.name, outcome_text(old_primary.outcome), old_primary.err.message);
        status = 1;
    } else {
        printf("store_race: %s renews on\n", old_primary.name);
    }
    for (Server *s : {&old_primary, &standby}) {
        delete s->store;
    }
    printf("store_race: %s\n", status == 0 ? "sound" : "FAILED");
    return status;
}

}  // namespace

int main(int argc, char **argv) {
    std::string store_kind;
    std::string target;
    std::string first_name;
    std::string race = "split_brain";
    for (int i = 1; i < argc; ++i) {
        if (strncmp(argv[i], "--store=", 8) == 0) {
            store_kind = argv[i] + 8;
        } else if (strncmp(argv[i], "--first=", 8) == 0) {
            first_name = argv[i] + 8;
        } else if (strncmp(argv[i], "--race=", 7) == 0) {
            race = argv[i] + 7;
        } else if (strncmp(argv[i], "--conninfo=", 11) == 0 || strncmp(argv[i], "--url=", 6) == 0) {
            target = strchr(argv[i], '=') + 1;
        } else {
            die("usage", "store_race --store=pg --conninfo=C | --store=redis --url=U");
        }
    }
    const bool pg = store_kind == "pg";
    const bool given_back_late = race == "never_leased_given_back_late";
    const bool never_leased = race == "never_leased" || given_back_late;
    const bool renewal_between = race == "renewal_before_successor_writes";
    if ((!pg && store_kind != "redis") || target.empty() ||
        (never_leased ? pg || !first_name.empty()
         : renewal_between
             ? !first_name.empty()
             : race != "split_brain" || (first_name != "old_primary" && first_name != "standby"))) {
        die("usage",
            "store_race --store=pg --conninfo=C | --store=redis --url=U, "
            "--first=old_primary|standby; or --store=redis --url=U "
            "--race=never_leased|never_leased_given_back_late; or --store=pg|redis ... "
            "--race=renewal_before_successor_writes");
    }
    snowflake::RedisTarget redis;
    if (!pg) {
        snowflake::Error err;
        if (!snowflake::parse_redis_url(target.c_str(), &redis, &err)) {
            die("the URL", err.message);
        }
    }
    if (never_leased) {
        return lost_race_for_a_never_leased_id(redis, given_back_late);
    }
    if (renewal_between) {
        return renewal_before_successor_writes(pg, target.c_str(), redis);
    }
    Server old_primary("the old primary", 101, 1, "/race/old-primary");
    Server standby("the promoted standby", 202, 2, "/race/promoted-standby");
    for (Server *s : {&old_primary, &standby}) {
        // The pause hook is read by each store as it is made.
        const std::string hook = std::string("store_race:") + std::to_string(s->instance);
        setenv("SNOWFLAKE_ID_TEST_REDIS_PAUSE", hook.c_str(), 1);
        s->store = pg ? static_cast<snowflake::RegistryStore *>(
                            new PgRegistryStore(target.c_str(), &s->env))
                      : new RedisRegistryStore(&redis, &s->env);
    }
    unsetenv("SNOWFLAKE_ID_TEST_REDIS_PAUSE");
    Server &first = first_name == "old_primary" ? old_primary : standby;
    Server &second = first_name == "old_primary" ? standby : old_primary;

    // The old primary leases an id and gives it back (a release stands for
    // any end of its lease: it can take the id back, and no live lease of
    // it is left for its successor to end).
    old_primary.acquire();
    expect_ok(old_primary, "acquire");
    old_primary.renew();
    expect_ok(old_primary, "renew");
    old_primary.release();
    expect_ok(old_primary, "release");
    const int64_t taken_back = old_primary.stored_node;
    printf("store_race: %s held node id %" PRId64 " and gave it back; %s's write goes first\n",
           old_primary.name, taken_back, first.name);

    pthread_t threads[2];
    bool both = false;
    if (pg) {
        PgGate gate(target.c_str());
        gate.close();
        pthread_create(&threads[0], nullptr, acquire_thread, &first);
        const bool one = until_waiting(1, [&] { return gate.waiting(); });
        pthread_create(&threads[1], nullptr, acquire_thread, &second);
        both = one && until_waiting(2, [&] { return gate.waiting(); });
        gate.open();
        pthread_join(threads[0], nullptr);
        pthread_join(threads[1], nullptr);
    } else {
        RedisGate gate(redis);
        const std::string first_hook = "store_race:" + std::to_string(first.instance);
        const std::string second_hook = "store_race:" + std::to_string(second.instance);
        gate.close(first_hook.c_str());
        gate.close(second_hook.c_str());
        pthread_create(&threads[0], nullptr, acquire_thread, &first);
        pthread_create(&threads[1], nullptr, acquire_thread, &second);
        both = until_waiting(
            2, [&] { return gate.paused(first_hook.c_str()) + gate.paused(second_hook.c_str()); });
        gate.open(first_hook.c_str());
        pthread_join(threads[0], nullptr);
        gate.open(second_hook.c_str());
        pthread_join(threads[1], nullptr);
    }
    if (!both) {
        die("the race", "the two acquires did not both reach their writes within 60 s");
    }
    auto said = [](const Server &s) {
        return std::string(outcome_text(s.outcome)) +
               (s.outcome == StoreOutcome::ok ? ", node id " + std::to_string(s.grant.node)
                                              : std::string(": ") + s.err.message);
    };
    printf("store_race: both acquires read before either wrote; %s: %s; %s: %s\n", old_primary.name,
           said(old_primary).c_str(), standby.name, said(standby).c_str());

    int status = 0;
    expect_ok(standby, "acquire");
    standby.renew();
    if (standby.outcome != StoreOutcome::ok) {
        printf("store_race: FAIL: %s's renewal: %s: %s\n", standby.name,
               outcome_text(standby.outcome), standby.err.message);
        status = 1;
    }
    if (old_primary.outcome == StoreOutcome::ok) {
        // Granted first: the standby's grant must have ended that lease.
        old_primary.renew();
        if (old_primary.outcome == StoreOutcome::ok) {
            printf("store_race: FAIL: %s renewed node id %" PRId64
                   " while %s holds node id %" PRId64 ": two servers of one system mint\n",
                   old_primary.name, old_primary.grant.node, standby.name, standby.grant.node);
            status = 1;
        } else if (old_primary.err.code != snowflake::ErrorCode::registry_replaced) {
            printf("store_race: FAIL: %s's renewal was %s, not refused as replaced: %s\n",
                   old_primary.name, outcome_text(old_primary.outcome), old_primary.err.message);
            status = 1;
        } else {
            printf("store_race: %s's renewal was refused: %s\n", old_primary.name,
                   old_primary.err.message);
        }
    } else if (old_primary.err.code != snowflake::ErrorCode::registry_replaced) {
        printf("store_race: FAIL: %s's acquire was %s, not refused as replaced: %s\n",
               old_primary.name, outcome_text(old_primary.outcome), old_primary.err.message);
        status = 1;
    }
    for (Server *s : {&old_primary, &standby}) {
        delete s->store;
    }
    printf("store_race: %s\n", status == 0 ? "sound" : "FAILED");
    return status;
}
