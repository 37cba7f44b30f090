// What the stores of leases (pq_store.cpp, redis_store.cpp) need from the
// process they run in, and nothing else: a monotonic clock, the time limit
// of a call, a wait for a socket, a log for a foreign text too long for a
// message, and whether a PostgreSQL session is served by this very server.
//
// The stores are plain libpq and hiredis clients: they include no
// PostgreSQL server header, so that the same files serve two processes.
// The registry worker (src/pg/registry/pg_registry_env.cpp) waits in its
// latch, so that a shutdown request, SIGHUP and the postmaster's death are
// seen at once; the fleet simulator (bench/fleet/) runs a thousand stores
// on threads of one process, each waiting in poll(). An environment is used
// by one store at a time.
#pragma once
#include "core/pure_cpp.hpp"

#include <cstddef>
#include <cstdint>

namespace snowflake {

// How long one connection attempt or query to the registry may take.
inline constexpr int64_t kRegistryTimeoutMs = 5000;

enum class SocketWait { readable, writable };

class RegistryEnv {
  public:
    virtual ~RegistryEnv() = default;
    virtual int64_t monotonic_ns() = 0;
    // When a registry call started now must give up.
    virtual int64_t call_until_ns() = 0;
    // Waits until the socket fd is ready; false when until_mono_ns passed
    // or the server is stopping.
    virtual bool wait_socket(int fd, SocketWait wait, int64_t until_mono_ns) = 0;
    // Whether the server is stopping: a call under way gives up.
    virtual bool stopping() = 0;
    // A registry's or a library's text, too long for a message, in full.
    virtual void log_whole_text(const char *text, size_t len) = 0;
    // Whether the PostgreSQL session with this backend pid is one of this
    // server's own: the server is its own registry.
    virtual bool is_own_backend(int pid) = 0;
};

// A registry's or a library's text (len bytes) into out: whole, or marked
// where cut and then logged whole through env (snowflake::quote_foreign).
// Both stores quote with it.
void registry_quote(RegistryEnv *env, const char *text, size_t len, char *out, size_t size);

}  // namespace snowflake
