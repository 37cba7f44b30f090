// The fleet simulator's parts shared between its files: the clocks, the
// tracker of who held which node id when, and the registry's load.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace fleet {

int64_t mono_ns();
int64_t wall_ms();

// Every holding of every node id, on the one monotonic clock: from the
// grant's return to the holder's deadline, which each confirmed renewal
// pushes on, cut where the holder gives the id back or learns it lost it.
// Two holdings of one id that overlap are two servers that could both mint
// on it at once.
class Tracker {
  public:
    struct Holding {
        int server = -1;   // the simulated server's number
        uint64_t run = 0;  // one run of it (a restart is another run)
        int64_t start_ns = 0;
        int64_t end_ns = 0;
        bool open = true;
    };
    struct Violation {
        int64_t node = -1;
        Holding first;
        Holding second;
    };
    // Returns the holding's handle for the calls below.
    size_t grant(int64_t node, int server, uint64_t run, int64_t at_ns);
    void renewed(int64_t node, size_t holding, int64_t deadline_ns);
    // Given back or learnt lost at at_ns: nothing minted after it.
    void cut(int64_t node, size_t holding, int64_t at_ns);
    // The deadline passed without a confirmed renewal: it ends there.
    void expired(int64_t node, size_t holding);
    std::vector<Violation> overlaps() const;

  private:
    mutable std::mutex mutex_;
    std::unordered_map<int64_t, std::vector<Holding>> by_node_;
};

// What the registry spent, read through a connection of its own (not
// through the proxy). Each field is -1 where the store has no such number.
struct Load {
    double cpu_s = -1;       // the registry's processes, from /proc
    int64_t commits = -1;    // PostgreSQL: pg_stat_database.xact_commit
    int64_t rollbacks = -1;  // ... xact_rollback
    int64_t commands = -1;   // Redis: INFO total_commands_processed
    double info_cpu_s = -1;  // Redis: INFO used_cpu_sys + used_cpu_user
};

class LoadReader {
  public:
    // store: "pg" or "redis"; direct: a libpq conninfo (pg) or the
    // registry's address, a unix socket path or host:port (redis); pid:
    // the postmaster's or redis-server's, 0 for none.
    LoadReader(std::string store, std::string direct, int pid);
    ~LoadReader();
    Load read();

  private:
    std::string store_;
    std::string direct_;
    int pid_;
    void *conn_ = nullptr;  // PGconn or redisContext
};

}  // namespace fleet
