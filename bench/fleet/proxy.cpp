#include "proxy.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>

namespace fleet {

namespace {

constexpr uint64_t kListenTag = 0;
constexpr uint64_t kWakeTag = 1;
constexpr uint64_t kTimerTag = 2;
constexpr uint64_t kFirstConnId = 2;  // (id << 1) | side stays clear of the tags
// TCP's first retransmission of a SYN (RFC 6298's initial RTO), doubled
// at each further one up to its sixth.
constexpr int64_t kSynRetryNs = 1'000'000'000;
constexpr int kSynRetriesDoubled = 6;

int64_t now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

void poke(int fd) {
    const uint64_t one = 1;
    (void)!write(fd, &one, sizeof one);
}

void drain(int fd) {
    uint64_t value;
    (void)!read(fd, &value, sizeof value);
}

}  // namespace

DelayProxy::DelayProxy(std::string upstream, int64_t rtt_ms)
    : upstream_(std::move(upstream)), half_rtt_ns_(rtt_ms * 1'000'000 / 2) {}

DelayProxy::~DelayProxy() {
    stop();
}

bool DelayProxy::start(std::string *why) {
    listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    socklen_t len = sizeof addr;
    if (listen_fd_ < 0 || bind(listen_fd_, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 ||
        listen(listen_fd_, 4096) != 0 ||
        getsockname(listen_fd_, reinterpret_cast<sockaddr *>(&addr), &len) != 0) {
        *why = std::string("proxy: cannot listen on 127.0.0.1: ") + strerror(errno);
        return false;
    }
    port_ = ntohs(addr.sin_port);
    epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
    wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    timer_fd_ = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (epoll_fd_ < 0 || wake_fd_ < 0 || timer_fd_ < 0) {
        *why = std::string("proxy: ") + strerror(errno);
        return false;
    }
    const std::pair<int, uint64_t> fds[] = {
        {listen_fd_, kListenTag}, {wake_fd_, kWakeTag}, {timer_fd_, kTimerTag}};
    for (const auto &[fd, tag] : fds) {
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.u64 = tag;
        epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
    }
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 1 << 20);
    const int rc = pthread_create(&thread_, &attr, thread_main, this);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        *why = std::string("proxy: pthread_create: ") + strerror(rc);
        return false;
    }
    running_ = true;
    return true;
}

void DelayProxy::stop() {
    if (running_) {
        stop_.store(true);
        poke(wake_fd_);
        pthread_join(thread_, nullptr);
        running_ = false;
    }
    for (auto &[id, c] : conns_) {
        if (c->client_fd >= 0) {
            close(c->client_fd);
        }
        if (c->upstream_fd >= 0) {
            close(c->upstream_fd);
        }
        delete c;
    }
    conns_.clear();
    for (int *fd : {&listen_fd_, &epoll_fd_, &wake_fd_, &timer_fd_}) {
        if (*fd >= 0) {
            close(*fd);
            *fd = -1;
        }
    }
}

void DelayProxy::begin_outage() {
    outage_.store(true);
    poke(wake_fd_);
}

void DelayProxy::end_outage() {
    outage_.store(false);
    poke(wake_fd_);
}

void *DelayProxy::thread_main(void *self) {
    static_cast<DelayProxy *>(self)->loop();
    return nullptr;
}

void DelayProxy::loop() {
    epoll_event events[256];
    while (!stop_.load()) {
        const int n = epoll_wait(epoll_fd_, events, 256, -1);
        for (int i = 0; i < n; ++i) {
            const uint64_t tag = events[i].data.u64;
            if (tag == kListenTag) {
                accept_all();
                continue;
            }
            if (tag == kWakeTag || tag == kTimerTag) {
                drain(tag == kWakeTag ? wake_fd_ : timer_fd_);
                continue;
            }
            auto it = conns_.find(tag >> 1);
            if (it == conns_.end()) {
                continue;
            }
            Conn *c = it->second;
            const int side = static_cast<int>(tag & 1);
            const uint32_t e = events[i].events;
            if (side == 1 && c->connecting) {
                finish_connect(c);
                continue;
            }
            if ((e & (EPOLLIN | EPOLLHUP | EPOLLERR)) && c->reading[side]) {
                on_readable(c, side);
            }
            if (conns_.count(tag >> 1) == 0) {
                continue;
            }
            if (e & (EPOLLOUT | EPOLLHUP | EPOLLERR)) {
                on_writable(c, side);
            }
            if (conns_.count(tag >> 1) != 0) {
                arm(c, side);
            }
        }
        const int64_t now = now_ns();
        while (!retry_connects_.empty() && retry_connects_.begin()->first <= now &&
               !outage_.load()) {
            const uint64_t id = retry_connects_.begin()->second;
            retry_connects_.erase(retry_connects_.begin());
            auto it = conns_.find(id);
            if (it == conns_.end()) {
                continue;
            }
            if (it->second->client_eof_read) {
                kill(it->second);  // closed in SYN_SENT: nothing more is sent
            } else {
                start_connect(it->second);
            }
        }
        process_due(now);
        itimerspec spec{};
        if (!outage_.load() && (!queue_.empty() || !retry_connects_.empty())) {
            int64_t due = INT64_MAX;
            if (!queue_.empty()) {
                due = queue_.front().due_ns;
            }
            if (!retry_connects_.empty()) {
                due = std::min(due, retry_connects_.begin()->first);
            }
            due = std::max<int64_t>(due, 1);
            spec.it_value.tv_sec = due / 1'000'000'000;
            spec.it_value.tv_nsec = due % 1'000'000'000;
        }
        timerfd_settime(timer_fd_, TFD_TIMER_ABSTIME, &spec, nullptr);
    }
}

void DelayProxy::accept_all() {
    for (;;) {
        const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED) {
                continue;
            }
            if (errno != EAGAIN && errno != EWOULDBLOCK) {
                fprintf(stderr, "fleet proxy: accept: %s\n", strerror(errno));
            }
            return;
        }
        Conn *c = new Conn;
        c->id = next_id_++ + kFirstConnId;
        c->client_fd = fd;
        conns_[c->id] = c;
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.u64 = c->id << 1;
        epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
        accepted_.fetch_add(1);
        queue_.push_back(Item{now_ns() + half_rtt_ns_, c->id, 0, Kind::connect, {}});
    }
}

void DelayProxy::on_readable(Conn *c, int side) {
    char buf[65536];
    for (;;) {
        const ssize_t n = read(fd_of(c, side), buf, sizeof buf);
        if (n > 0) {
            queue_.push_back(
                Item{now_ns() + half_rtt_ns_, c->id, side, Kind::data, std::string(buf, n)});
            if (static_cast<size_t>(n) < sizeof buf) {
                return;
            }
            continue;
        }
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            return;
        }
        // The end of what this side sends (or a reset, taken as an end).
        c->reading[side] = false;
        if (side == 0) {
            c->client_eof_read = true;
        }
        queue_.push_back(Item{now_ns() + half_rtt_ns_, c->id, side, Kind::eof, {}});
        return;
    }
}

void DelayProxy::on_writable(Conn *c, int side) {
    const int d = 1 - side;  // the direction that writes to this side
    if (c->dir[d].want_write) {
        flush(c, d);
    }
}

void DelayProxy::arm(Conn *c, int side) {
    const int fd = fd_of(c, side);
    if (fd < 0) {
        return;
    }
    epoll_event ev{};
    ev.events = (c->reading[side] ? uint32_t{EPOLLIN} : 0u) |
                (c->dir[1 - side].want_write ? uint32_t{EPOLLOUT} : 0u);
    if (side == 1 && c->connecting) {
        ev.events = EPOLLOUT;
    }
    ev.data.u64 = (c->id << 1) | static_cast<uint64_t>(side);
    // A side with nothing to wait for leaves the set: a peer's hang-up
    // would otherwise wake the loop again and again.
    if (ev.events == 0) {
        epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
    } else if (epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, fd, &ev) != 0 && errno == ENOENT) {
        epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
    }
}

void DelayProxy::process_due(int64_t now) {
    if (outage_.load()) {
        return;
    }
    while (!queue_.empty() && queue_.front().due_ns <= now) {
        Item item = std::move(queue_.front());
        queue_.pop_front();
        auto it = conns_.find(item.conn);
        if (it == conns_.end()) {
            continue;
        }
        Conn *c = it->second;
        switch (item.kind) {
            case Kind::connect:
                if (c->client_eof_read) {
                    kill(c);  // closed before its connect went through
                    continue;
                }
                start_connect(c);
                break;
            case Kind::data:
                if (!c->dir[item.dir].dead) {
                    c->dir[item.dir].out += item.data;
                    flush(c, item.dir);
                }
                break;
            case Kind::eof:
                c->dir[item.dir].eof_due = true;
                flush(c, item.dir);
                break;
        }
        if (conns_.count(item.conn) != 0) {
            maybe_close(c);
        }
    }
}

void DelayProxy::start_connect(Conn *c) {
    const bool unix_socket = !upstream_.empty() && upstream_[0] == '/';
    const int fd =
        socket(unix_socket ? AF_UNIX : AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        fprintf(stderr, "fleet proxy: socket: %s\n", strerror(errno));
        kill(c);
        return;
    }
    int rc;
    if (unix_socket) {
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        snprintf(addr.sun_path, sizeof addr.sun_path, "%s", upstream_.c_str());
        rc = connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr);
    } else {
        const size_t colon = upstream_.rfind(':');
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_port = htons(static_cast<uint16_t>(atoi(upstream_.c_str() + colon + 1)));
        addrinfo hints{}, *res = nullptr;
        hints.ai_family = AF_INET;
        if (getaddrinfo(upstream_.substr(0, colon).c_str(), nullptr, &hints, &res) == 0) {
            addr.sin_addr = reinterpret_cast<sockaddr_in *>(res->ai_addr)->sin_addr;
            freeaddrinfo(res);
        }
        rc = connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr);
    }
    if (rc != 0 && errno == EAGAIN && unix_socket) {
        close(fd);  // the listener's backlog is full
        const int doubled = std::min(c->connect_tries++, kSynRetriesDoubled);
        retry_connects_.emplace(now_ns() + (kSynRetryNs << doubled), c->id);
        return;
    }
    if (rc != 0 && errno != EINPROGRESS) {
        close(fd);
        kill(c);  // the client sees its connection end, as with a refused connect
        return;
    }
    c->upstream_fd = fd;
    c->connecting = rc != 0;
    epoll_event ev{};
    ev.events = EPOLLOUT;
    ev.data.u64 = (c->id << 1) | 1;
    epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
    if (!c->connecting) {
        finish_connect(c);
    }
}

void DelayProxy::finish_connect(Conn *c) {
    int error = 0;
    socklen_t len = sizeof error;
    if (getsockopt(c->upstream_fd, SOL_SOCKET, SO_ERROR, &error, &len) != 0 || error != 0) {
        kill(c);
        return;
    }
    c->connecting = false;
    c->connected = true;
    flush(c, 0);
    if (conns_.count(c->id) != 0) {
        arm(c, 1);
    }
}

void DelayProxy::flush(Conn *c, int d) {
    Direction &dir = c->dir[d];
    const int side = 1 - d;
    if (d == 0 && !c->connected) {
        return;  // written once the connect completes
    }
    const int fd = fd_of(c, side);
    while (!dir.out.empty() && !dir.dead) {
        const ssize_t n = send(fd, dir.out.data(), dir.out.size(), MSG_NOSIGNAL);
        if (n > 0) {
            dir.out.erase(0, static_cast<size_t>(n));
            continue;
        }
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            dir.want_write = true;
            arm(c, side);
            return;
        }
        dir.dead = true;  // the destination went away: what follows is dropped
        dir.out.clear();
    }
    dir.want_write = false;
    if (dir.out.empty() && dir.eof_due && !dir.shut && !dir.dead) {
        shutdown(fd, SHUT_WR);
        dir.shut = true;
    }
    arm(c, side);
}

void DelayProxy::maybe_close(Conn *c) {
    const bool done0 = c->dir[0].dead || c->dir[0].shut;
    const bool done1 = c->dir[1].dead || c->dir[1].shut;
    if (done0 && done1) {
        kill(c);
    }
}

void DelayProxy::kill(Conn *c) {
    if (c->client_fd >= 0) {
        close(c->client_fd);
    }
    if (c->upstream_fd >= 0) {
        close(c->upstream_fd);
    }
    conns_.erase(c->id);
    delete c;
}

}  // namespace fleet
