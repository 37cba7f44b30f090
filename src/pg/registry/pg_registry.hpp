// The registry worker's stores of leases, behind the core's RegistryStore
// interface: a PostgreSQL database (pg_registry_pq.cpp) or Redis
// (pg_registry_redis.cpp). Each reads what the core's rules need
// (src/core/lease_rules.hpp), lets them decide, and writes back what they
// decided in one atomic step. Included by the worker (pg_registry.cpp), the
// stores and their socket wait (registry_socket.cpp).
#pragma once

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "core/lease_rules.hpp"
#include "core/redis_url.hpp"
#include "core/registry.hpp"
#include "pg/pg_shared.hpp"

extern "C" {
typedef struct pg_conn PGconn;
typedef struct pg_result PGresult;
typedef struct redisContext redisContext;
typedef struct redisReply redisReply;
}

// A registry's or a library's text (len bytes) into out: whole, or marked
// where cut and then logged whole (snowflake::quote_foreign). Both stores
// quote with it.
void sf_registry_quote(const char *text, size_t len, char *out, size_t size);

// Waits until the socket fd is ready for events (WL_SOCKET_*), answering
// the latch (interrupts, SIGHUP) and the postmaster's death meanwhile; false
// when until_mono_ns passed or *stop is set. Both stores wait with it.
bool sf_registry_wait_socket(int fd, int events, int64_t until_mono_ns,
                             volatile sig_atomic_t *stop);

class PgRegistryStore final : public snowflake::RegistryStore {
  public:
    // conninfo: a libpq connection string. Waits end early once *stop is set.
    PgRegistryStore(const char *conninfo, volatile sig_atomic_t *stop);
    ~PgRegistryStore() override;
    PgRegistryStore(const PgRegistryStore &) = delete;
    PgRegistryStore &operator=(const PgRegistryStore &) = delete;

    snowflake::StoreOutcome acquire(const snowflake::LeaseRequest &request,
                                    snowflake::LeaseGrant *grant, snowflake::Error *err) override;
    snowflake::StoreOutcome renew(const snowflake::RenewRequest &request, int64_t *expires_unix_ms,
                                  snowflake::Error *err) override;
    snowflake::StoreOutcome release(int64_t node, int64_t fence, int64_t instance,
                                    int64_t bound_unix_ms, snowflake::Error *err) override;
    snowflake::StoreOutcome switch_node(const snowflake::SwitchRequest &request,
                                        snowflake::LeaseGrant *grant, int64_t *expires_unix_ms,
                                        snowflake::Error *err) override;

  private:
    // A statement of a pipeline, with its parameters as text.
    struct Statement {
        const char *sql;
        int nparams;
        const char *const *params;
    };

    snowflake::StoreOutcome connect(snowflake::Error *err);
    void disconnect();
    // One registry call on the open (or a new) connection: read_view(),
    // then decide(view, &writes, err), then write_and_commit(). node: the
    // lease to read, or -1 for all.
    template <typename Decide>
    snowflake::StoreOutcome call(int64_t node, Decide decide, snowflake::Error *err);
    // BEGIN, the lock, the registry's clock, the layout and the leases.
    snowflake::StoreOutcome read_view(int64_t node, int64_t until_mono_ns,
                                      snowflake::RegistryView *view, snowflake::Error *err);
    // The records the rule decided, then COMMIT.
    snowflake::StoreOutcome write_and_commit(const snowflake::RegistryWrites &writes,
                                             int64_t until_mono_ns, snowflake::Error *err);
    // Sends count statements as one pipeline and waits for their results
    // (results[i]: the caller clears them). The first error fails the
    // whole, drops the connection (and with it any transaction open) and
    // says why in *err: unreachable for a class 08 or 57 SQLSTATE, refused
    // otherwise.
    snowflake::StoreOutcome exchange(int count, const Statement *statements, PGresult **results,
                                     int64_t until_mono_ns, snowflake::Error *err);
    // The next result, waiting for it; false when the time limit passed,
    // *stop is set or the connection broke.
    bool next_result(int64_t until_mono_ns, PGresult **result);
    // The registry's tables, as members of the extension (the header of
    // pg_registry_pq.cpp says why); refused when the extension or a table
    // is missing.
    snowflake::StoreOutcome find_tables(int64_t until_mono_ns, snowflake::Error *err);
    snowflake::StoreOutcome unreachable(const char *what, snowflake::Error *err);
    // Waits for the socket; false when the time limit passed or *stop is set.
    bool wait_socket(int events, int64_t until_mono_ns);

    const char *conninfo_;
    volatile sig_atomic_t *stop_;
    PGconn *conn_ = nullptr;
    bool own_server_ = false;  // the registry is this server itself
    // The registry's tables, schema-qualified and quoted ("schema".name);
    // empty until looked up on the current connection.
    char lease_table_[2 * (2 * NAMEDATALEN + 2) + 2] = "";
    char layout_table_[2 * (2 * NAMEDATALEN + 2) + 2] = "";
    // The last exchange failed for a table that does not exist (42P01).
    bool table_missing_ = false;
};

class RedisReplies;  // pg_registry_redis.cpp

class RedisRegistryStore final : public snowflake::RegistryStore {
  public:
    // target: the parsed URL (it must outlive the store). Waits end early
    // once *stop is set.
    RedisRegistryStore(const snowflake::RedisTarget *target, volatile sig_atomic_t *stop);
    ~RedisRegistryStore() override;
    RedisRegistryStore(const RedisRegistryStore &) = delete;
    RedisRegistryStore &operator=(const RedisRegistryStore &) = delete;

    snowflake::StoreOutcome acquire(const snowflake::LeaseRequest &request,
                                    snowflake::LeaseGrant *grant, snowflake::Error *err) override;
    snowflake::StoreOutcome renew(const snowflake::RenewRequest &request, int64_t *expires_unix_ms,
                                  snowflake::Error *err) override;
    snowflake::StoreOutcome release(int64_t node, int64_t fence, int64_t instance,
                                    int64_t bound_unix_ms, snowflake::Error *err) override;
    snowflake::StoreOutcome switch_node(const snowflake::SwitchRequest &request,
                                        snowflake::LeaseGrant *grant, int64_t *expires_unix_ms,
                                        snowflake::Error *err) override;

  private:
    using Command = std::vector<std::string>;
    // What one attempt of a call read (and watched).
    struct Step {
        snowflake::RegistryView view;
        std::vector<std::string> stale_members;  // of P:leases, whose hash is gone
    };

    template <typename Decide>
    snowflake::StoreOutcome step(int64_t node, Decide decide, snowflake::Error *err);
    // node >= 0: that lease only (renew, release); -1: everything (acquire,
    // switch).
    snowflake::StoreOutcome read_view(int64_t node, Step *step, snowflake::Error *err);
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
    bool wait_socket(int events, int64_t until_mono_ns);
    std::string key(const char *name) const;
    std::string lease_key(int64_t node) const;

    const snowflake::RedisTarget *target_;
    volatile sig_atomic_t *stop_;
    redisContext *ctx_ = nullptr;
    int64_t until_ns_ = 0;    // the current call's time limit
    std::string pause_hook_;  // tests only: see pg_registry_redis.cpp
};
