// A delaying TCP proxy for the fleet simulator: it listens on 127.0.0.1 and
// forwards each connection to the registry (a unix socket or host:port),
// holding every chunk for RTT/2 in each direction, so that a round trip
// through it costs RTT more. One thread, one epoll set.
//
// An outage forwards nothing in either direction and defers the upstream
// connects; what arrives meanwhile is queued, as TCP's retransmissions
// would deliver it once a partition heals. A connection its client closed
// before the upstream connect went through is dropped (a socket closed in
// SYN_SENT sends nothing more); one closed after it delivers its queued
// bytes and then its end, so a query a store gave up on may still run late.
//
// The delay is the same for every chunk, so the order chunks arrive in is
// the order they are due in: one FIFO holds them all.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include <pthread.h>

namespace fleet {

class DelayProxy {
  public:
    // upstream: a unix socket path (starts with '/') or host:port.
    DelayProxy(std::string upstream, int64_t rtt_ms);
    ~DelayProxy();
    DelayProxy(const DelayProxy &) = delete;
    DelayProxy &operator=(const DelayProxy &) = delete;

    // Binds and starts the thread; false with *why on failure.
    bool start(std::string *why);
    void stop();
    int port() const { return port_; }
    void begin_outage();
    void end_outage();
    uint64_t connections() const { return accepted_.load(); }

  private:
    struct Direction {
        std::string out;          // due, not yet written
        bool eof_due = false;     // the source's end is due
        bool shut = false;        // the destination's write side is shut
        bool dead = false;        // the destination failed: drop what comes
        bool want_write = false;  // EPOLLOUT armed
    };
    struct Conn {
        uint64_t id = 0;
        int client_fd = -1;
        int upstream_fd = -1;
        bool connected = false;        // upstream connect completed
        bool connecting = false;       // connect in progress (EINPROGRESS)
        bool client_eof_read = false;  // the client's end was read
        int connect_tries = 0;         // refused for a full backlog so far
        bool reading[2] = {true, true};
        Direction dir[2];  // 0: client to upstream, 1: upstream to client
    };
    enum class Kind { connect, data, eof };
    struct Item {
        int64_t due_ns;
        uint64_t conn;
        int dir;
        Kind kind;
        std::string data;
    };

    static void *thread_main(void *self);
    void loop();
    void accept_all();
    void on_readable(Conn *c, int side);
    void on_writable(Conn *c, int side);
    void process_due(int64_t now);
    void start_connect(Conn *c);
    void finish_connect(Conn *c);
    void flush(Conn *c, int d);
    void arm(Conn *c, int side);
    void maybe_close(Conn *c);
    void kill(Conn *c);
    int fd_of(const Conn *c, int side) const { return side == 0 ? c->client_fd : c->upstream_fd; }

    std::string upstream_;
    int64_t half_rtt_ns_;
    int listen_fd_ = -1;
    int epoll_fd_ = -1;
    int wake_fd_ = -1;   // eventfd: stop, outage changes
    int timer_fd_ = -1;  // the next due item
    int port_ = 0;
    pthread_t thread_{};
    bool running_ = false;
    std::atomic<bool> stop_{false};
    std::atomic<bool> outage_{false};
    std::atomic<uint64_t> accepted_{0};
    uint64_t next_id_ = 1;
    std::unordered_map<uint64_t, Conn *> conns_;
    std::deque<Item> queue_;
    // Connects refused for a full backlog (a unix socket's EAGAIN), tried
    // again as TCP retransmits a SYN the listener dropped: after 1 s, then
    // 2 s, 4 s... (due time, connection).
    std::multimap<int64_t, uint64_t> retry_connects_;
};

}  // namespace fleet
