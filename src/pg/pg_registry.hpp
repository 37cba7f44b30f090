// The registry worker's store of leases in a PostgreSQL database
// (pg_registry_pq.cpp), behind the core's RegistryStore interface. Only the
// registry worker (pg_registry.cpp) includes this.
#pragma once

#include <csignal>

#include "core/registry.hpp"
#include "pg_shared.hpp"

extern "C" {
typedef struct pg_conn PGconn;
typedef struct pg_result PGresult;
}

class PgRegistryStore final : public snowflake::RegistryStore {
  public:
    // conninfo: a libpq connection string. Waits end early once *stop is set.
    PgRegistryStore(const char *conninfo, volatile sig_atomic_t *stop);
    ~PgRegistryStore() override;
    PgRegistryStore(const PgRegistryStore &) = delete;
    PgRegistryStore &operator=(const PgRegistryStore &) = delete;

    snowflake::StoreOutcome acquire(const snowflake::LeaseRequest &request,
                                    snowflake::LeaseGrant *grant, snowflake::Error *err) override;
    snowflake::StoreOutcome renew(int64_t node, int64_t fence, int64_t instance,
                                  int64_t bound_unix_ms, int64_t ttl_ms, int64_t *expires_unix_ms,
                                  snowflake::Error *err) override;
    snowflake::StoreOutcome release(int64_t node, int64_t fence, int64_t instance,
                                    int64_t bound_unix_ms, snowflake::Error *err) override;
    snowflake::StoreOutcome switch_node(const snowflake::SwitchRequest &request,
                                        snowflake::LeaseGrant *grant, int64_t *expires_unix_ms,
                                        snowflake::Error *err) override;

  private:
    snowflake::StoreOutcome connect(snowflake::Error *err);
    void disconnect();
    snowflake::StoreOutcome query(const char *sql, int nparams, const char *const *params,
                                  PGresult **rows, snowflake::Error *err);
    snowflake::StoreOutcome unreachable(const char *what, snowflake::Error *err);
    // Waits for the socket; false when the time limit passed or *stop is set.
    bool wait_socket(int events, int64_t until_mono_ns);

    const char *conninfo_;
    volatile sig_atomic_t *stop_;
    PGconn *conn_ = nullptr;
};
