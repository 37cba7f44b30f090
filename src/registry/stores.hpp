// The stores of node id leases, behind the core's RegistryStore interface:
// a PostgreSQL database (pq_store.cpp) or Redis (redis_store.cpp). Each
// is a GuardedStore (src/core/registry_call.hpp): it reads what the core's
// rules need (src/core/lease_rules.hpp) and writes back what they decided
// as one atomic step, guarded by what it read; the call between (the
// order, the retries, the messages) is the core's. They are
// libpq and hiredis clients that include no PostgreSQL server header: what
// they need of the process they run in comes through a RegistryEnv
// (registry_env.hpp), the registry worker's (src/pg/registry/) or the fleet
// simulator's (bench/fleet/).
#pragma once
#include "core/pure_cpp.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include "core/lease_rules.hpp"
#include "core/redis_url.hpp"
#include "core/registry.hpp"
#include "core/registry_call.hpp"
#include "registry_env.hpp"

extern "C" {
typedef struct pg_conn PGconn;
typedef struct pg_result PGresult;
typedef struct redisContext redisContext;
typedef struct redisReply redisReply;
}

class PgRegistryStore final : public snowflake::GuardedStore {
  public:
    // conninfo: a libpq connection string.
    PgRegistryStore(const char *conninfo, snowflake::RegistryEnv *env);
    ~PgRegistryStore() override;
    PgRegistryStore(const PgRegistryStore &) = delete;
    PgRegistryStore &operator=(const PgRegistryStore &) = delete;

    // The advisory locks of the writes (write_if_unchanged()), which the
    // race test (tests/registry/store_race.cpp) holds to force its order:
    // one per node id written ("Snow"), the layout's key below every node
    // id, and, first, for an acquire or a switch, one per system
    // identifier ("Snox", the identifier folded into 31 bits).
    static constexpr int kNodeLockClass = 0x536e6f77;
    static constexpr int64_t kLayoutLockKey = -1;
    static constexpr int kSystemLockClass = 0x536e6f78;
    static constexpr uint32_t system_lock_key(uint64_t system_id) {
        return static_cast<uint32_t>(system_id ^ (system_id >> 32)) & 0x7fffffffU;
    }

  protected:
    // The call's steps (registry_call.hpp).
    snowflake::StoreOutcome begin_call(const snowflake::CallScope &scope,
                                       snowflake::Error *err) override;
    snowflake::StoreOutcome read_view(const snowflake::CallScope &scope,
                                      snowflake::RegistryView *view,
                                      snowflake::Error *err) override;
    snowflake::StoreOutcome guarded_write(const snowflake::CallScope &scope,
                                          snowflake::RegistryView *view,
                                          const snowflake::RegistryWrites &writes,
                                          snowflake::WriteResult *result,
                                          snowflake::Error *err) override;
    snowflake::StoreOutcome gave_up(int attempts, snowflake::Error *err) override;
    void end_call() override;

  private:
    // A statement of a pipeline, with its parameters as text.
    struct Statement {
        const char *sql;
        int nparams;
        const char *const *params;
    };

    snowflake::StoreOutcome connect(snowflake::Error *err);
    void disconnect();
    // SET LOCAL lock_timeout to what is left of the call.
    std::string lock_timeout_setting(int64_t until_mono_ns);
    // The registry's clock, the layout and the leases, as one snapshot and
    // without a lock; *row_texts: each lease's row as text, by node id.
    // node: the lease to read, or -1 for all.
    snowflake::StoreOutcome read_snapshot(int64_t node, int64_t until_mono_ns,
                                          snowflake::RegistryView *view,
                                          std::vector<std::pair<int64_t, std::string>> *row_texts,
                                          snowflake::Error *err);
    // The current call's time limit, and its read's rows as text (for the
    // write to tell whether they are unchanged).
    int64_t until_ns_ = 0;
    std::vector<std::pair<int64_t, std::string>> row_texts_;
    // Under the lock, the records the rule decided, only if every record it
    // writes is still as read (row_texts) and, for a new layout, none was
    // recorded meanwhile; then COMMIT. *written: whether they were.
    snowflake::StoreOutcome write_if_unchanged(
        const snowflake::RegistryWrites &writes, const snowflake::RegistryView &view,
        uint64_t system_id, const std::vector<std::pair<int64_t, std::string>> &row_texts,
        int64_t until_mono_ns, bool *written, snowflake::Error *err);
    // Sends count statements as one pipeline and waits for their results
    // (results[i]: the caller clears them). The first error fails the
    // whole, drops the connection (and with it any transaction open) and
    // says why in *err: unreachable for a class 08 or 57 SQLSTATE, refused
    // otherwise.
    snowflake::StoreOutcome exchange(int count, const Statement *statements, PGresult **results,
                                     int64_t until_mono_ns, snowflake::Error *err);
    // A pipeline left unanswered by the call's time limit: kept for the next
    // call to read (drain()); unreachable, saying so.
    snowflake::StoreOutcome left_pending(int count, PGresult **results, snowflake::Error *err);
    // Sends what libpq has queued; a send the time limit cut short is left
    // pending as left_pending() says (count results of the pipeline).
    snowflake::StoreOutcome flush_queued(int count, PGresult **results, int64_t until_mono_ns,
                                         snowflake::Error *err);
    // The answers of such a pipeline, and a ROLLBACK if they left a
    // transaction open.
    snowflake::StoreOutcome drain(int64_t until_mono_ns, snowflake::Error *err);
    // The next result, waiting for it; false when the time limit passed,
    // *stop is set or the connection broke.
    bool next_result(int64_t until_mono_ns, PGresult **result);
    // The registry's tables, as members of the extension (the header of
    // pg_registry_pq.cpp says why); refused when the extension or a table
    // is missing.
    snowflake::StoreOutcome find_tables(int64_t until_mono_ns, snowflake::Error *err);
    snowflake::StoreOutcome unreachable(const char *what, snowflake::Error *err);
    // Waits for the socket; false when the time limit passed or the server
    // is stopping.
    bool wait_socket(snowflake::SocketWait wait, int64_t until_mono_ns);

    const char *conninfo_;
    snowflake::RegistryEnv *env_;
    PGconn *conn_ = nullptr;
    // A connection attempt under way (connect()), and where it is.
    bool connecting_ = false;
    bool draining_ = false;  // a pipeline's answers are still to come
    int connect_poll_ = 0;   // PostgresPollingStatusType
    int64_t connect_started_ns_ = 0;
    static constexpr int64_t kPendingConnectMs = 30000;
    bool own_server_ = false;  // the registry is this server itself
    // The registry's tables, schema-qualified and quoted ("schema".name);
    // empty until looked up on the current connection.
    std::string lease_table_;
    std::string layout_table_;
    // A registry from 1.7: its table of timelines (empty before 1.7, whose
    // lease table has no position either: the rules then run as before
    // 1.7, lease_rules.hpp's RegistryView::keeps_timelines).
    std::string timeline_table_;
    // The system whose timelines a call reads: the asking server's.
    uint64_t timelines_of_ = 0;
    snowflake::StoreOutcome write_timelines(const std::vector<snowflake::TimelineRecord> &records,
                                            int64_t until_mono_ns, snowflake::Error *err);
    // The last exchange failed for a table that does not exist (42P01).
    bool table_missing_ = false;
};

class RedisReplies;  // pg_registry_redis.cpp

class RedisRegistryStore final : public snowflake::GuardedStore {
  public:
    // target: the parsed URL (it must outlive the store).
    RedisRegistryStore(const snowflake::RedisTarget *target, snowflake::RegistryEnv *env);
    ~RedisRegistryStore() override;
    RedisRegistryStore(const RedisRegistryStore &) = delete;
    RedisRegistryStore &operator=(const RedisRegistryStore &) = delete;

  protected:
    // The call's steps (registry_call.hpp).
    snowflake::StoreOutcome begin_call(const snowflake::CallScope &scope,
                                       snowflake::Error *err) override;
    snowflake::StoreOutcome read_view(const snowflake::CallScope &scope,
                                      snowflake::RegistryView *view,
                                      snowflake::Error *err) override;
    snowflake::StoreOutcome guarded_write(const snowflake::CallScope &scope,
                                          snowflake::RegistryView *view,
                                          const snowflake::RegistryWrites &writes,
                                          snowflake::WriteResult *result,
                                          snowflake::Error *err) override;
    snowflake::StoreOutcome gave_up(int attempts, snowflake::Error *err) override;
    snowflake::StoreOutcome begin_attempt(snowflake::Error *err) override;

  private:
    using Command = std::vector<std::string>;
    // What one attempt of a call read (and watched, for one lease).
    struct Step {
        snowflake::RegistryView *view = nullptr;  // the call's (GuardedStore)
        std::vector<std::string> stale_members;   // of P:leases, whose hash is gone
        // acquire and switch: each key read, as read (canonical_text()),
        // for the write to tell whether it is unchanged.
        std::vector<std::pair<std::string, std::string>> texts;
        // acquire and switch: the asking server's system identifier, whose
        // leases and counter (P:system:ID) the write depends on too.
        uint64_t system_id = 0;
    };

    // The current call's step, and the leases its WATCH round trips found
    // that its read did not (watch_unchanged()).
    Step step_;
    std::vector<int64_t> extra_nodes_;
    // Nothing written: the result, and what the next decision drops.
    void changed_since_read(snowflake::WriteResult changed, snowflake::WriteResult *result);
    // node >= 0: that lease only, watched (renew, release); -1: everything,
    // unwatched (acquire, switch), and the leases of extra_nodes.
    snowflake::StoreOutcome read_records(int64_t node, const std::vector<int64_t> &extra_nodes,
                                         Step *step, snowflake::Error *err);
    // acquire and switch: WATCHes the keys the writes depend on (the meta,
    // the layout, the counter if written, every lease written) and reads
    // them again; *unchanged: whether each is as the step read it. Leases
    // changed meanwhile are brought up to date in the step (*refreshed:
    // all of what changed was, so the rule can decide again without a
    // full read); a lease found where the step read none (a hash the index
    // and the marks do not list) is also added to *extra_nodes.
    snowflake::StoreOutcome watch_unchanged(Step *step, const snowflake::RegistryWrites &writes,
                                            bool *unchanged, bool *refreshed,
                                            std::vector<int64_t> *extra_nodes,
                                            snowflake::Error *err);
    snowflake::StoreOutcome write(const Step &step, const snowflake::RegistryWrites &writes,
                                  bool *committed, snowflake::Error *err);
    snowflake::StoreOutcome pause_for_test(RedisReplies *r, snowflake::Error *err);
    snowflake::StoreOutcome connect(snowflake::Error *err);
    void disconnect();
    // Sends the commands at once and reads their replies.
    snowflake::StoreOutcome pipeline(const std::vector<Command> &commands, RedisReplies *replies,
                                     snowflake::Error *err);
    snowflake::StoreOutcome command(const Command &command, RedisReplies *replies,
                                    snowflake::Error *err);
    snowflake::StoreOutcome check_errors(const RedisReplies &replies, const char *what,
                                         snowflake::Error *err);
    snowflake::StoreOutcome read_hash(const redisReply *r, const std::string &key,
                                      snowflake::Error *err);
    // An error reply as unreachable: what, and Redis's words.
    snowflake::StoreOutcome error_reply(const redisReply *r, const char *what,
                                        snowflake::Error *err);
    snowflake::StoreOutcome not_a_registry(const std::string &key, const std::string &fault,
                                           snowflake::Error *err);
    snowflake::StoreOutcome unreachable(const char *what, const char *why, snowflake::Error *err);
    bool wait_socket(snowflake::SocketWait wait, int64_t until_mono_ns);
    std::string key(const char *name) const;
    std::string lease_key(int64_t node) const;
    std::string system_key(uint64_t system_id) const;
    // P:timelines:S (1.7): the timelines of system S (TimelineRecord), as
    // fields "T:position", "T:superseded_by", "T:superseded_at_ms",
    // "T:superseded_by_holder" and "T:resume_at_ms". Never expires, and is
    // no lease record: no drop of records touches it.
    std::string timelines_key(uint64_t system_id) const;
    // The system whose timelines a call reads: the asking server's.
    uint64_t timelines_of_ = 0;

    const snowflake::RedisTarget *target_;
    snowflake::RegistryEnv *env_;
    redisContext *ctx_ = nullptr;
    int64_t until_ns_ = 0;    // the current call's time limit
    std::string pause_hook_;  // tests only: see pg_registry_redis.cpp
};
