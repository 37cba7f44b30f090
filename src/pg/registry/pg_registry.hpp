// The registry worker's side of the stores of leases (src/registry/): the
// environment they run in, a background worker's. Included by the worker
// (pg_registry.cpp) and the environment (pg_registry_env.cpp).
#pragma once

#include <csignal>
#include <cstdint>

#include "registry/stores.hpp"
#include "pg/pg_shared.hpp"

// The worker's environment for its store: waits in the latch, answering
// interrupts, SIGHUP and the postmaster's death meanwhile; a call ends when
// *stop is set (a shutdown request) or at sf_registry_call_until_ns().
class WorkerRegistryEnv final : public snowflake::RegistryEnv {
  public:
    explicit WorkerRegistryEnv(volatile sig_atomic_t *stop) : stop_(stop) {}
    int64_t monotonic_ns() override;
    int64_t call_until_ns() override;
    bool wait_socket(int fd, snowflake::SocketWait wait, int64_t until_mono_ns) override;
    bool stopping() override { return *stop_ != 0; }
    void log_whole_text(const char *text, size_t len) override;
    bool is_own_backend(int pid) override;

  private:
    volatile sig_atomic_t *stop_;
};
