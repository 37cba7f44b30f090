#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "fleet.hpp"

extern "C" {
#include <hiredis/hiredis.h>

#include "libpq-fe.h"
}

namespace fleet {

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

size_t Tracker::grant(int64_t node, int server, uint64_t run, int64_t at_ns) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<Holding> &list = by_node_[node];
    // Until its first renewal is confirmed the holder mints nothing: the
    // holding starts and ends at the grant.
    list.push_back(Holding{server, run, at_ns, at_ns, true});
    return list.size() - 1;
}

void Tracker::renewed(int64_t node, size_t holding, int64_t deadline_ns) {
    std::lock_guard<std::mutex> lock(mutex_);
    Holding &h = by_node_[node][holding];
    h.end_ns = std::max(h.end_ns, deadline_ns);
}

void Tracker::cut(int64_t node, size_t holding, int64_t at_ns) {
    std::lock_guard<std::mutex> lock(mutex_);
    Holding &h = by_node_[node][holding];
    h.end_ns = std::max(h.start_ns, std::min(h.end_ns, at_ns));
    h.open = false;
}

void Tracker::expired(int64_t node, size_t holding) {
    std::lock_guard<std::mutex> lock(mutex_);
    by_node_[node][holding].open = false;
}

std::vector<Tracker::Violation> Tracker::overlaps() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<Violation> found;
    for (const auto &[node, list] : by_node_) {
        for (size_t i = 0; i < list.size(); ++i) {
            for (size_t j = i + 1; j < list.size(); ++j) {
                const Holding &a = list[i];
                const Holding &b = list[j];
                if (a.run == b.run) {
                    continue;
                }
                if (a.start_ns < b.end_ns && b.start_ns < a.end_ns) {
                    found.push_back(Violation{node, a, b});
                }
            }
        }
    }
    return found;
}

LoadReader::LoadReader(std::string store, std::string direct, int pid)
    : store_(std::move(store)), direct_(std::move(direct)), pid_(pid) {}

LoadReader::~LoadReader() {
    if (conn_ == nullptr) {
        return;
    }
    if (store_ == "pg") {
        PQfinish(static_cast<PGconn *>(conn_));
    } else {
        redisFree(static_cast<redisContext *>(conn_));
    }
}

namespace {

// utime + stime + cutime + cstime of a process, in clock ticks; its parent
// in *ppid. False if it is gone.
bool process_ticks(const char *pid, long long *ticks, long long *ppid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%s/stat", pid);
    FILE *f = fopen(path, "r");
    if (f == nullptr) {
        return false;
    }
    char buf[1024];
    const size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    // The command name is in parentheses and may hold blanks: count from
    // the last ')'.
    const char *p = strrchr(buf, ')');
    if (p == nullptr) {
        return false;
    }
    long long field[20] = {};
    char state;
    // Fields 3 (state) to 17 (cstime).
    if (sscanf(p + 2, "%c %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld",
               &state, &field[4], &field[5], &field[6], &field[7], &field[8], &field[9], &field[10],
               &field[11], &field[12], &field[13], &field[14], &field[15], &field[16],
               &field[17]) != 15) {
        return false;
    }
    *ppid = field[4];
    *ticks = field[14] + field[15] + field[16] + field[17];
    return true;
}

// The process and its children, the backends of a postmaster included:
// a backend that ended is counted in its parent's cutime once reaped.
double cpu_seconds(int pid) {
    long long total = 0, ppid = 0, ticks = 0;
    const std::string self = std::to_string(pid);
    if (!process_ticks(self.c_str(), &ticks, &ppid)) {
        return -1;
    }
    total += ticks;
    DIR *dir = opendir("/proc");
    if (dir == nullptr) {
        return -1;
    }
    while (dirent *e = readdir(dir)) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') {
            continue;
        }
        if (process_ticks(e->d_name, &ticks, &ppid) && ppid == pid) {
            total += ticks;
        }
    }
    closedir(dir);
    return static_cast<double>(total) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

double info_number(const std::string &info, const char *key) {
    const std::string needle = std::string("\n") + key + ":";
    const size_t at = info.find(needle);
    return at == std::string::npos ? -1 : strtod(info.c_str() + at + needle.size(), nullptr);
}

}  // namespace

Load LoadReader::read() {
    Load load;
    if (pid_ > 0) {
        load.cpu_s = cpu_seconds(pid_);
    }
    if (store_ == "pg") {
        PGconn *conn = static_cast<PGconn *>(conn_);
        if (conn == nullptr || PQstatus(conn) != CONNECTION_OK) {
            if (conn != nullptr) {
                PQfinish(conn);
            }
            conn = PQconnectdb(direct_.c_str());
            conn_ = conn;
        }
        PGresult *r = PQexec(conn,
                             "SELECT xact_commit, xact_rollback FROM pg_catalog.pg_stat_database "
                             "WHERE datname OPERATOR(pg_catalog.=) pg_catalog.current_database()");
        if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1) {
            load.commits = strtoll(PQgetvalue(r, 0, 0), nullptr, 10);
            load.rollbacks = strtoll(PQgetvalue(r, 0, 1), nullptr, 10);
        } else {
            fprintf(stderr, "fleet: reading pg_stat_database: %s", PQerrorMessage(conn));
        }
        PQclear(r);
        return load;
    }
    redisContext *ctx = static_cast<redisContext *>(conn_);
    if (ctx == nullptr || ctx->err != 0) {
        if (ctx != nullptr) {
            redisFree(ctx);
        }
        if (!direct_.empty() && direct_[0] == '/') {
            ctx = redisConnectUnix(direct_.c_str());
        } else {
            const size_t colon = direct_.rfind(':');
            ctx = redisConnect(direct_.substr(0, colon).c_str(), atoi(direct_.c_str() + colon + 1));
        }
        conn_ = ctx;
    }
    if (ctx == nullptr || ctx->err != 0) {
        fprintf(stderr, "fleet: cannot reach Redis at %s for INFO\n", direct_.c_str());
        return load;
    }
    auto *reply = static_cast<redisReply *>(redisCommand(ctx, "INFO"));
    if (reply != nullptr && reply->type == REDIS_REPLY_STRING) {
        const std::string info = std::string("\n") + std::string(reply->str, reply->len);
        load.commands = static_cast<int64_t>(info_number(info, "total_commands_processed"));
        load.info_cpu_s = info_number(info, "used_cpu_sys") + info_number(info, "used_cpu_user");
    }
    if (reply != nullptr) {
        freeReplyObject(reply);
    }
    return load;
}

}  // namespace fleet
