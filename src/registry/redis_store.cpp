// The Redis store of node id leases (snowflake_id.registry = 'redis://...').
// The rules and the call's loop are the core's (src/core/lease_rules.hpp,
// registry_call.hpp); this file only makes each call one atomic step in
// Redis. A renewal or release WATCHes its one
// lease, reads it and Redis's clock (TIME), decides, and writes in
// MULTI ... EXEC. An acquire or switch reads everything without a WATCH,
// decides, then WATCHes only the keys its writes depend on (the meta, the
// layout, the counter if it moves it, every lease it writes), reads them
// again and writes in MULTI ... EXEC only if each is still as first read:
// renewals of other ids, which write the index and the marks, never make
// it start again. A key changed meanwhile, or a nil EXEC (another server,
// or a 1.4 server's Lua script), and the call decides again, an 'auto'
// acquire spreading its choice (LeaseRequest::spread) so that servers
// starting at once stop racing for the same id: on the leases and the
// P:next_id counter as the WATCH round trip read them, or, if the meta,
// the layout or the system's counter changed, on everything read again.
// (A fleet's simultaneous start moves P:next_id with nearly every grant;
// reading every lease again at each of those races cost 1,024 servers
// hundreds of MB and their calls' time.)
//
// Keys, under the prefix P ("snowflake_id" unless the URL says). They keep
// the meaning 1.4's Lua scripts gave them, so that 1.4 servers, which still
// run those scripts, share a registry with new ones:
//   P:meta        hash: created_at_ms, quarantine_until_ms, floor_ms
//   P:layout      hash: the cluster's datacenter_bits, worker_bits,
//                 sequence_bits, epoch_ms, lease_ttl_ms, max_clock_drift_ms,
//                 recorded_at_ms, recorded_by
//   P:lease:N     hash: node id N's lease, the columns of the PostgreSQL
//                 registry's table (times in ms since 1970; released_at_ms
//                 0 while held)
//   P:leases      sorted set: node ids (zero-padded, so that ties sort by
//                 number) scored by when their lease ends (expiry, or
//                 release), the order recycling takes them in
//   P:next_id     counter: no node id below it was never leased
//   P:fences      sorted set (1.6): node ids scored by the highest fence
//                 each was granted (HighWater in lease_rules.hpp)
//   P:floors      sorted set (1.6): node ids scored by the floor their
//                 holders left (recorded bound plus drift); with P:fences,
//                 what an id's next grant starts above once its hash is
//                 gone, and the list of ids leased before. Both are written
//                 with every lease (ZADD GT: Redis 6.2 or later), so that
//                 losing either or one hash loses neither.
//   P:timelines:S hash (1.7): per timeline T of system identifier S, the
//                 highest WAL position its holders recorded (T:position),
//                 the successor that replaced it (T:superseded_by,
//                 T:superseded_at_ms, T:superseded_by_holder, set once with
//                 HSETNX) and a lapsed lease's wait (T:resume_at_ms)
//                 (TimelineRecord in lease_rules.hpp). Never expires. A
//                 lease hash carries its holder's position too
//                 (holder_wal_position, with holder_wal_position_instance:
//                 a 1.6 server that takes the hash over leaves them, and
//                 they then count as no position)
//   P:system:S    counter (1.6): moved by every acquire and switch of a
//                 server of system identifier S, which WATCHes it (with
//                 every lease of S), so that an old primary and its
//                 promoted standby asking at once see each other's grant
//                 (tests/server/registry_race.sh); expires kKeepMs after
//                 the last
// A lease's hash expires kKeepMs after the later of its end and its
// recorded bound plus drift: the entries of servers long gone go away, and
// no bound is forgotten before the clock has passed it by that much.
// Correctness never rests on the expiry: a live lease is renewed every
// lease_ttl / 3. A member of P:leases whose hash expired is dropped by the
// next acquire or switch; its marks stay. The other keys do not expire. A
// hash that neither P:leases nor the marks list (a hand edit, an update
// aborted halfway) is found by the write's check when an acquire picks its
// id, and taken for what it says, not for an id never leased.
//
// A registry without P:meta is new, or lost its data (Redis restarted
// without persistence, a FLUSHALL): it cannot tell which, and quarantines
// itself for one lease_ttl plus max_clock_drift (LossGuard in
// lease_rules.hpp; docs/many-servers.md, "Redis").
//
// hiredis is used as pq_store.cpp uses libpq: a non-blocking socket, every
// wait through the environment (registry_env.hpp) with a time limit. (A
// host name is resolved with a blocking getaddrinfo, as libpq does: use an
// address or a unix socket where DNS may hang.) The commands of a step are
// pipelined: renew and release take two round trips, acquire and switch
// four.
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/lease_rules.hpp"
#include "core/secrets.hpp"
#include "stores.hpp"

extern "C" {
#include <hiredis/hiredis.h>
}

namespace {

constexpr int64_t kKeepMs = int64_t{30} * 24 * 3600 * 1000;

// A test's handle on the moment between a step's reads and its EXEC, so
// that tests/server/registry_redis_mixed.sh can run a 1.4 script exactly
// there. Unset outside that test.
constexpr char kPauseHookEnv[] = "SNOWFLAKE_ID_TEST_REDIS_PAUSE";

using Command = std::vector<std::string>;

std::string text_of(int64_t v) {
    char buf[24];
    snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
    return buf;
}

std::string member_of(int64_t node) {
    char buf[24];
    snprintf(buf, sizeof buf, "%010lld", static_cast<long long>(node));
    return buf;
}

bool parse_int(const char *text, int64_t *out) {
    char *end = nullptr;
    errno = 0;
    const long long v = strtoll(text, &end, 10);
    if (text[0] == '\0' || *end != '\0' || errno != 0) {
        return false;
    }
    *out = v;
    return true;
}

bool parse_unsigned(const char *text, uint64_t *out) {
    char *end = nullptr;
    errno = 0;
    const unsigned long long v = strtoull(text, &end, 10);
    if (text[0] < '0' || text[0] > '9' || *end != '\0' || errno != 0) {
        return false;
    }
    *out = v;
    return true;
}

bool is_text(const redisReply *r) {
    return r->type == REDIS_REPLY_STRING || r->type == REDIS_REPLY_STATUS;
}

// A hash's fields as HGETALL gives them (RESP2: an array of names and
// values), looked up by name.
class HashReply {
  public:
    explicit HashReply(const redisReply *r) : r_(r) {}
    bool empty() const { return r_->elements == 0; }
    bool well_formed() const {
        if (r_->type != REDIS_REPLY_ARRAY || r_->elements % 2 != 0) {
            return false;
        }
        for (size_t i = 0; i < r_->elements; ++i) {
            if (!is_text(r_->element[i])) {
                return false;
            }
        }
        return true;
    }
    const char *get(const char *field) const {
        for (size_t i = 0; i + 1 < r_->elements; i += 2) {
            if (strcmp(r_->element[i]->str, field) == 0) {
                return r_->element[i + 1]->str;
            }
        }
        return nullptr;
    }
    size_t fields() const { return r_->elements / 2; }
    const char *name(size_t i) const { return r_->element[2 * i]->str; }
    const char *value(size_t i) const { return r_->element[2 * i + 1]->str; }

  private:
    const redisReply *r_;
};

// Reads a hash's fields into numbers and texts, remembering the first
// field that is missing or not a number.
class FieldReader {
  public:
    FieldReader(const HashReply &hash, snowflake::RegistryEnv *env) : hash_(hash), env_(env) {}
    void number(const char *field, int64_t *out) {
        const char *v = hash_.get(field);
        if (v == nullptr || !parse_int(v, out)) {
            fault(field, v);
        }
    }
    void number(const char *field, int *out) {
        int64_t v = 0;
        number(field, &v);
        *out = static_cast<int>(v);
    }
    void unsigned_number(const char *field, uint64_t *out) {
        const char *v = hash_.get(field);
        if (v == nullptr || !parse_unsigned(v, out)) {
            fault(field, v);
        }
    }
    void text(const char *field, std::string *out) {
        const char *v = hash_.get(field);
        if (v == nullptr) {
            fault(field, v);
        } else {
            *out = v;
        }
    }
    bool ok() const { return bad_field_ == nullptr; }
    // "field F is missing" or "field F is 'V'", V quoted as a foreign text.
    std::string fault_text() const {
        if (bad_value_ == nullptr) {
            return std::string("field ") + bad_field_ + " is missing";
        }
        char quoted[snowflake::kForeignTextMax + snowflake::kForeignCutMarkMax + 1];
        snowflake::registry_quote(env_, bad_value_, strlen(bad_value_), quoted, sizeof quoted);
        return std::string("field ") + bad_field_ + " is '" + quoted + "'";
    }

  private:
    void fault(const char *field, const char *value) {
        if (bad_field_ == nullptr) {
            bad_field_ = field;
            bad_value_ = value;
        }
    }
    const HashReply &hash_;
    snowflake::RegistryEnv *env_;
    const char *bad_field_ = nullptr;
    const char *bad_value_ = nullptr;
};

bool read_lease(const HashReply &hash, int64_t node, snowflake::LeaseRecord *l, std::string *fault,
                snowflake::RegistryEnv *env) {
    FieldReader f(hash, env);
    l->node = node;
    f.number("fence", &l->fence);
    f.unsigned_number("holder_system_id", &l->holder_system_id);
    f.number("holder_instance", &l->holder_instance);
    f.text("holder_host", &l->holder_host);
    f.number("holder_port", &l->holder_port);
    f.text("holder_data_directory", &l->holder_data_directory);
    f.number("holder_timeline", &l->holder_timeline);
    f.number("holder_max_clock_drift_ms", &l->holder_max_clock_drift_ms);
    f.number("acquired_at_ms", &l->acquired_at_ms);
    f.number("renewed_at_ms", &l->renewed_at_ms);
    f.number("expires_at_ms", &l->expires_at_ms);
    f.number("released_at_ms", &l->released_at_ms);
    f.number("reserved_until_ms", &l->reserved_until_ms);
    if (!f.ok()) {
        *fault = f.fault_text();
        return false;
    }
    // From 1.7, and only the holder's own run's (see P:timelines above).
    const char *position = hash.get("holder_wal_position");
    const char *of = hash.get("holder_wal_position_instance");
    int64_t value = 0;
    int64_t instance = 0;
    if (position != nullptr && of != nullptr && parse_int(position, &value) &&
        parse_int(of, &instance) && instance == l->holder_instance) {
        l->holder_wal_position = value;
    }
    return true;
}

// P:timelines:S as HGETALL gives it, into records of system S.
void read_timelines(const HashReply &hash, uint64_t system_id,
                    std::vector<snowflake::TimelineRecord> *out) {
    for (size_t i = 0; i < hash.fields(); ++i) {
        const char *name = hash.name(i);
        const char *value = hash.value(i);
        const char *colon = strchr(name, ':');
        int64_t timeline = 0;
        if (colon == nullptr || !parse_int(std::string(name, colon - name).c_str(), &timeline)) {
            continue;
        }
        snowflake::TimelineRecord *t = nullptr;
        for (snowflake::TimelineRecord &r : *out) {
            if (r.timeline == timeline) {
                t = &r;
            }
        }
        if (t == nullptr) {
            out->emplace_back();
            t = &out->back();
            t->system_id = system_id;
            t->timeline = static_cast<int>(timeline);
        }
        const std::string field = colon + 1;
        int64_t number = 0;
        const bool is_number = parse_int(value, &number);
        if (field == "position" && is_number) {
            t->position = number;
        } else if (field == "superseded_by" && is_number) {
            t->superseded_by = static_cast<int>(number);
        } else if (field == "superseded_at_ms" && is_number) {
            t->superseded_at_ms = number;
        } else if (field == "superseded_by_holder") {
            t->superseded_by_holder = value;
        } else if (field == "resume_at_ms" && is_number) {
            t->resume_at_ms = number;
        }
    }
}

bool read_layout(const HashReply &hash, snowflake::LayoutRecord *c, std::string *fault,
                 snowflake::RegistryEnv *env) {
    FieldReader f(hash, env);
    f.number("datacenter_bits", &c->datacenter_bits);
    f.number("worker_bits", &c->worker_bits);
    f.number("sequence_bits", &c->sequence_bits);
    f.number("epoch_ms", &c->epoch_ms);
    f.number("recorded_at_ms", &c->recorded_at_ms);
    f.text("recorded_by", &c->recorded_by);
    f.number("lease_ttl_ms", &c->lease_ttl_ms);
    f.number("max_clock_drift_ms", &c->max_clock_drift_ms);
    c->has_timing = true;
    if (!f.ok()) {
        *fault = f.fault_text();
    }
    return f.ok();
}

// P:meta: the guard is there once quarantine_until_ms is (the documented
// way to mark a new Redis sets that field alone; the others read as 0).
bool read_guard(const HashReply &hash, snowflake::LossGuard *g, std::string *fault,
                snowflake::RegistryEnv *env) {
    FieldReader f(hash, env);
    f.number("quarantine_until_ms", &g->quarantine_until_ms);
    if (hash.get("created_at_ms") != nullptr) {
        f.number("created_at_ms", &g->created_at_ms);
    }
    if (hash.get("floor_ms") != nullptr) {
        f.number("floor_ms", &g->floor_ms);
    }
    if (!f.ok()) {
        *fault = f.fault_text();
    }
    return f.ok();
}

// P:next_id as GET gives it: none is 0.
bool read_never_leased_from(const redisReply *r, int64_t *from) {
    *from = 0;
    return r->type == REDIS_REPLY_NIL || (is_text(r) && parse_int(r->str, from));
}

// TIME's reply in ms since 1970, rounded down (lease_rules.hpp).
bool read_time(const redisReply *r, int64_t *now_ms) {
    int64_t s = 0;
    int64_t us = 0;
    if (r->type != REDIS_REPLY_ARRAY || r->elements != 2 || !is_text(r->element[0]) ||
        !is_text(r->element[1]) || !parse_int(r->element[0]->str, &s) ||
        !parse_int(r->element[1]->str, &us)) {
        return false;
    }
    *now_ms = s * 1000 + us / 1000;
    return true;
}

// A reply as a text that two reads of an unchanged key give alike: a
// hash's fields sorted by name (HGETALL's order is Redis's), a string as it
// is, nil as such.
std::string canonical_text(const redisReply *r) {
    if (r->type == REDIS_REPLY_NIL) {
        return "nil";
    }
    if (is_text(r)) {
        return "string " + std::string(r->str, r->len);
    }
    if (r->type != REDIS_REPLY_ARRAY) {
        return "other";
    }
    std::vector<std::string> fields;
    for (size_t i = 0; i + 1 < r->elements; i += 2) {
        const redisReply *name = r->element[i];
        const redisReply *value = r->element[i + 1];
        if (!is_text(name) || !is_text(value)) {
            return "other";
        }
        // Lengths first: no field's text can run into the next one's.
        fields.push_back(std::to_string(name->len) + ":" + std::string(name->str, name->len) +
                         std::to_string(value->len) + ":" + std::string(value->str, value->len));
    }
    std::sort(fields.begin(), fields.end());
    std::string out = "hash";
    for (const std::string &f : fields) {
        out += " " + f;
    }
    return out;
}

// ZRANGE ... WITHSCORES (RESP2: member, score, ...) of node ids and whole
// numbers, into *marks; false if it is not that.
bool read_marks(const redisReply *r, bool fences, std::vector<snowflake::HighWater> *marks) {
    if (r->type != REDIS_REPLY_ARRAY || r->elements % 2 != 0) {
        return false;
    }
    for (size_t i = 0; i < r->elements; i += 2) {
        int64_t node = -1;
        if (!is_text(r->element[i]) || !is_text(r->element[i + 1]) ||
            !parse_int(r->element[i]->str, &node) || node < 0) {
            return false;
        }
        char *end = nullptr;
        const double score = strtod(r->element[i + 1]->str, &end);
        if (*end != '\0' || score < 0 || score > 9.0e15) {
            return false;
        }
        snowflake::HighWater *mark = nullptr;
        for (snowflake::HighWater &m : *marks) {
            mark = m.node == node ? &m : mark;
        }
        if (mark == nullptr) {
            marks->push_back(snowflake::HighWater{node, 0, 0, false});
            mark = &marks->back();
        }
        (fences ? mark->fence : mark->floor_ms) = static_cast<int64_t>(score);
    }
    return true;
}

}  // namespace

// The replies of a pipeline, freed with it.
class RedisReplies {
  public:
    RedisReplies() = default;
    RedisReplies(const RedisReplies &) = delete;
    RedisReplies &operator=(const RedisReplies &) = delete;
    ~RedisReplies() { clear(); }
    void clear() {
        for (redisReply *r : replies_) {
            freeReplyObject(r);
        }
        replies_.clear();
    }
    void add(redisReply *r) { replies_.push_back(r); }
    size_t size() const { return replies_.size(); }
    const redisReply *operator[](size_t i) const { return replies_[i]; }

  private:
    std::vector<redisReply *> replies_;
};

RedisRegistryStore::RedisRegistryStore(const snowflake::RedisTarget *target,
                                       snowflake::RegistryEnv *env)
    : target_(target), env_(env) {
    const char *hook = getenv(kPauseHookEnv);
    if (hook != nullptr && hook[0] != '\0') {
        pause_hook_ = hook;
    }
}

RedisRegistryStore::~RedisRegistryStore() {
    disconnect();
}

void RedisRegistryStore::disconnect() {
    if (ctx_ != nullptr) {
        redisFree(ctx_);
        ctx_ = nullptr;
    }
}

std::string RedisRegistryStore::key(const char *name) const {
    return std::string(target_->prefix) + ":" + name;
}

std::string RedisRegistryStore::timelines_key(uint64_t system_id) const {
    return key(("timelines:" + std::to_string(system_id)).c_str());
}

std::string RedisRegistryStore::system_key(uint64_t system_id) const {
    return key("system:") + std::to_string(system_id);
}

std::string RedisRegistryStore::lease_key(int64_t node) const {
    return key("lease:") + text_of(node);
}

// A failure to reach Redis, or an answer that is not the registry's: said
// in *err, naming the address, and the connection dropped so that the next
// call starts afresh (and no WATCH outlives the step).
snowflake::StoreOutcome RedisRegistryStore::unreachable(const char *what, const char *why,
                                                        snowflake::Error *err) {
    // hiredis's texts name no password today; masked all the same, as libpq's.
    char masked[512];
    snowflake::mask_secrets(why != nullptr ? why : "", masked, sizeof masked);
    why = masked;
    if (target_->unix_socket) {
        snowflake::fail(err, snowflake::ErrorCode::registry, "%s (Redis at unix socket %s): %s",
                        what, target_->socket_path, why);
    } else {
        snowflake::fail(err, snowflake::ErrorCode::registry, "%s (Redis at %s:%d): %s", what,
                        target_->host, target_->port, why);
    }
    disconnect();
    return snowflake::StoreOutcome::unreachable;
}

snowflake::StoreOutcome RedisRegistryStore::error_reply(const redisReply *r, const char *what,
                                                        snowflake::Error *err) {
    char why[snowflake::kForeignTextMax + snowflake::kForeignCutMarkMax + 1];
    if (r->type == REDIS_REPLY_ERROR) {
        snowflake::registry_quote(env_, r->str, r->len, why, sizeof why);
    } else {
        snprintf(why, sizeof why, "an unexpected answer");
    }
    return unreachable(what, why, err);
}

snowflake::StoreOutcome RedisRegistryStore::not_a_registry(const std::string &key,
                                                           const std::string &fault,
                                                           snowflake::Error *err) {
    const std::string why = "the key " + key + " is not as the registry writes it: " + fault;
    return unreachable("Redis holds something else than the registry", why.c_str(), err);
}

bool RedisRegistryStore::wait_socket(snowflake::SocketWait wait, int64_t until_mono_ns) {
    return env_->wait_socket(ctx_->fd, wait, until_mono_ns);
}

snowflake::StoreOutcome RedisRegistryStore::pipeline(const std::vector<Command> &commands,
                                                     RedisReplies *replies, snowflake::Error *err) {
    replies->clear();
    for (const Command &c : commands) {
        std::vector<const char *> argv;
        std::vector<size_t> lens;
        for (const std::string &a : c) {
            argv.push_back(a.c_str());
            lens.push_back(a.size());
        }
        if (redisAppendCommandArgv(ctx_, static_cast<int>(argv.size()), argv.data(), lens.data()) !=
            REDIS_OK) {
            return unreachable("could not send a command", ctx_->errstr, err);
        }
    }
    int done = 0;
    while (!done) {
        if (redisBufferWrite(ctx_, &done) != REDIS_OK) {
            return unreachable("could not send a command", ctx_->errstr, err);
        }
        if (!done && !wait_socket(snowflake::SocketWait::writable, until_ns_)) {
            return unreachable("could not send a command", "timed out", err);
        }
    }
    while (replies->size() < commands.size()) {
        void *r = nullptr;
        if (redisGetReplyFromReader(ctx_, &r) != REDIS_OK) {
            return unreachable("no Redis reply", ctx_->errstr, err);
        }
        if (r != nullptr) {
            replies->add(static_cast<redisReply *>(r));
            continue;
        }
        if (!wait_socket(snowflake::SocketWait::readable, until_ns_)) {
            return unreachable("no answer to a command", "timed out", err);
        }
        if (redisBufferRead(ctx_) != REDIS_OK) {
            return unreachable("no answer to a command", ctx_->errstr, err);
        }
    }
    return snowflake::StoreOutcome::ok;
}

snowflake::StoreOutcome RedisRegistryStore::command(const Command &command, RedisReplies *replies,
                                                    snowflake::Error *err) {
    return pipeline(std::vector<Command>{command}, replies, err);
}

snowflake::StoreOutcome RedisRegistryStore::connect(snowflake::Error *err) {
    if (ctx_ != nullptr) {
        return snowflake::StoreOutcome::ok;
    }
    ctx_ = target_->unix_socket ? redisConnectUnixNonBlock(target_->socket_path)
                                : redisConnectNonBlock(target_->host, target_->port);
    if (ctx_ == nullptr) {
        return unreachable("could not connect", "out of memory", err);
    }
    if (ctx_->err != 0) {
        return unreachable("could not connect", ctx_->errstr, err);
    }
    if (!wait_socket(snowflake::SocketWait::writable, until_ns_)) {
        return unreachable("could not connect", "timed out", err);
    }
    int so_error = 0;
    socklen_t so_len = sizeof so_error;
    if (getsockopt(ctx_->fd, SOL_SOCKET, SO_ERROR, &so_error, &so_len) != 0) {
        so_error = errno;
    }
    if (so_error != 0) {
        return unreachable("could not connect", strerror(so_error), err);
    }
    RedisReplies r;
    snowflake::StoreOutcome outcome = snowflake::StoreOutcome::ok;
    if (target_->password[0] != '\0') {
        Command auth = {"AUTH"};
        if (target_->user[0] != '\0') {
            auth.push_back(target_->user);
        }
        auth.push_back(target_->password);
        outcome = command(auth, &r, err);
        if (outcome != snowflake::StoreOutcome::ok) {
            return outcome;
        }
        if (r[0]->type == REDIS_REPLY_ERROR) {
            return error_reply(r[0], "Redis refused the user name or password", err);
        }
    }
    if (target_->db != 0) {
        outcome = command({"SELECT", text_of(target_->db)}, &r, err);
        if (outcome != snowflake::StoreOutcome::ok) {
            return outcome;
        }
        if (r[0]->type == REDIS_REPLY_ERROR) {
            char what[80];
            snprintf(what, sizeof what, "could not select database %d", target_->db);
            return error_reply(r[0], what, err);
        }
    }
    // A Redis that evicts keys under memory pressure could drop a live
    // lease, and with it the fence that keeps a second holder out. Where
    // CONFIG is disabled (managed services), the setting cannot be read:
    // the README asks for noeviction.
    outcome = command({"CONFIG", "GET", "maxmemory-policy"}, &r, err);
    if (outcome != snowflake::StoreOutcome::ok) {
        return outcome;
    }
    const redisReply *policy = r[0];
    if (policy->type == REDIS_REPLY_ARRAY && policy->elements == 2 &&
        policy->element[1]->type == REDIS_REPLY_STRING &&
        strcmp(policy->element[1]->str, "noeviction") != 0) {
        // Redis's policies have short names; the text is Redis's all the same.
        char name[128];
        snowflake::registry_quote(env_, policy->element[1]->str, policy->element[1]->len, name,
                                  sizeof name);
        constexpr char kFormat[] =
            "maxmemory-policy is %s; the registry needs noeviction, or Redis may evict a "
            "live lease";
        char why[sizeof kFormat + sizeof name];
        snprintf(why, sizeof why, kFormat, name);
        return unreachable("Redis may evict the registry's keys", why, err);
    }
    // The high-water marks are written with ZADD GT (Redis 6.2). Where INFO
    // is disabled, an older Redis refuses the first write, in its words.
    outcome = command({"INFO", "server"}, &r, err);
    if (outcome != snowflake::StoreOutcome::ok) {
        return outcome;
    }
    if (is_text(r[0])) {
        const char *field = strstr(r[0]->str, "redis_version:");
        int major = 0, minor = 0;
        if (field != nullptr && sscanf(field, "redis_version:%d.%d", &major, &minor) == 2 &&
            (major < 6 || (major == 6 && minor < 2))) {
            char why[96];
            snprintf(why, sizeof why, "it is Redis %d.%d; the registry needs 6.2 or later", major,
                     minor);
            return unreachable("Redis is too old for the registry", why, err);
        }
    }
    return snowflake::StoreOutcome::ok;
}

// The first error among a pipeline's replies, as unreachable; ok if none.
snowflake::StoreOutcome RedisRegistryStore::check_errors(const RedisReplies &replies,
                                                         const char *what, snowflake::Error *err) {
    for (size_t i = 0; i < replies.size(); ++i) {
        if (replies[i]->type == REDIS_REPLY_ERROR) {
            return error_reply(replies[i], what, err);
        }
    }
    return snowflake::StoreOutcome::ok;
}

snowflake::StoreOutcome RedisRegistryStore::read_hash(const redisReply *r, const std::string &key,
                                                      snowflake::Error *err) {
    if (!HashReply(r).well_formed()) {
        return not_a_registry(key, "not a hash of texts", err);
    }
    return snowflake::StoreOutcome::ok;
}

snowflake::StoreOutcome RedisRegistryStore::read_records(int64_t node,
                                                         const std::vector<int64_t> &extra_nodes,
                                                         Step *step, snowflake::Error *err) {
    *step->view = snowflake::RegistryView{};
    step->view->can_lose_data = true;
    step->view->keeps_high_water = true;
    step->view->guard_key = key("meta");
    step->stale_members.clear();
    step->texts.clear();
    const char *what = "Redis failed to read the registry";
    RedisReplies r;
    snowflake::StoreOutcome outcome = snowflake::StoreOutcome::ok;
    std::vector<int64_t> nodes;
    auto add_node = [&nodes](int64_t n) {
        if (std::find(nodes.begin(), nodes.end(), n) == nodes.end()) {
            nodes.push_back(n);
        }
    };
    if (node >= 0) {
        // renew and release: the one lease.
        nodes.push_back(node);
    } else {
        // acquire and switch: the meta, the layout, the counter, which
        // leases there are and the high-water marks; then (below) every
        // lease. Nothing is watched: the write checks what it depends on
        // (watch_unchanged()), so that renewals of other ids, which write
        // the index and the marks, do not make it start again. A WATCH left
        // by an attempt that found its keys changed goes first.
        outcome = pipeline({{"UNWATCH"},
                            {"HGETALL", key("meta")},
                            {"HGETALL", key("layout")},
                            {"GET", key("next_id")},
                            {"ZRANGE", key("leases"), "0", "-1"},
                            {"ZRANGE", key("fences"), "0", "-1", "WITHSCORES"},
                            {"ZRANGE", key("floors"), "0", "-1", "WITHSCORES"},
                            {"GET", system_key(step->system_id)}},
                           &r, err);
        if (outcome != snowflake::StoreOutcome::ok) {
            return outcome;
        }
        outcome = check_errors(r, what, err);
        if (outcome != snowflake::StoreOutcome::ok) {
            return outcome;
        }
        std::string fault;
        for (int i = 1; i <= 2; ++i) {
            outcome = read_hash(r[i], key(i == 1 ? "meta" : "layout"), err);
            if (outcome != snowflake::StoreOutcome::ok) {
                return outcome;
            }
        }
        step->texts.emplace_back(key("meta"), canonical_text(r[1]));
        step->texts.emplace_back(key("layout"), canonical_text(r[2]));
        step->texts.emplace_back(key("next_id"), canonical_text(r[3]));
        step->texts.emplace_back(system_key(step->system_id), canonical_text(r[7]));
        const HashReply meta(r[1]);
        if (!meta.empty()) {
            snowflake::LossGuard guard;
            if (!read_guard(meta, &guard, &fault, env_)) {
                return not_a_registry(key("meta"), fault, err);
            }
            step->view->guard = guard;
        }
        const HashReply layout(r[2]);
        if (!layout.empty()) {
            snowflake::LayoutRecord c;
            if (!read_layout(layout, &c, &fault, env_)) {
                return not_a_registry(key("layout"), fault, err);
            }
            step->view->layout = c;
        }
        if (!read_never_leased_from(r[3], &step->view->never_leased_from)) {
            return not_a_registry(key("next_id"), "not a number", err);
        }
        if (r[4]->type != REDIS_REPLY_ARRAY) {
            return not_a_registry(key("leases"), "not a sorted set", err);
        }
        for (size_t i = 0; i < r[4]->elements; ++i) {
            const redisReply *m = r[4]->element[i];
            int64_t n = -1;
            if (!is_text(m) || !parse_int(m->str, &n) || n < 0) {
                return not_a_registry(key("leases"), "a member is not a node id", err);
            }
            add_node(n);
        }
        for (int i = 5; i <= 6; ++i) {
            if (!read_marks(r[i], i == 5, &step->view->high)) {
                return not_a_registry(key(i == 5 ? "fences" : "floors"),
                                      "not a sorted set of node ids scored by whole numbers", err);
            }
        }
        for (const snowflake::HighWater &mark : step->view->high) {
            add_node(mark.node);
        }
        for (int64_t n : extra_nodes) {
            add_node(n);
        }
    }
    // The leases (renew and release: watched before it is read); then the
    // clock, read last so that it is as close to the write as the reads
    // allow.
    std::vector<Command> reads;
    if (node >= 0) {
        reads.push_back({"WATCH", lease_key(node)});
    }
    for (int64_t n : nodes) {
        reads.push_back({"HGETALL", lease_key(n)});
    }
    reads.push_back({"HGETALL", timelines_key(timelines_of_)});
    reads.push_back({"TIME"});
    outcome = pipeline(reads, &r, err);
    if (outcome != snowflake::StoreOutcome::ok) {
        return outcome;
    }
    outcome = check_errors(r, what, err);
    if (outcome != snowflake::StoreOutcome::ok) {
        return outcome;
    }
    const size_t first = node >= 0 ? 1 : 0;
    for (size_t i = 0; i < nodes.size(); ++i) {
        const std::string k = lease_key(nodes[i]);
        const redisReply *h = r[first + i];
        outcome = read_hash(h, k, err);
        if (outcome != snowflake::StoreOutcome::ok) {
            return outcome;
        }
        step->texts.emplace_back(k, canonical_text(h));
        if (HashReply(h).empty()) {
            // Expired long after its lease and bound passed (kKeepMs).
            if (node < 0) {
                step->stale_members.push_back(member_of(nodes[i]));
            }
            continue;
        }
        snowflake::LeaseRecord l;
        std::string fault;
        if (!read_lease(HashReply(h), nodes[i], &l, &fault, env_)) {
            return not_a_registry(k, fault, err);
        }
        step->view->leases.push_back(std::move(l));
    }
    const redisReply *timelines = r[r.size() - 2];
    outcome = read_hash(timelines, timelines_key(timelines_of_), err);
    if (outcome != snowflake::StoreOutcome::ok) {
        return outcome;
    }
    step->view->keeps_timelines = true;
    read_timelines(HashReply(timelines), timelines_of_, &step->view->timelines);
    if (!read_time(r[r.size() - 1], &step->view->now_ms)) {
        return unreachable(what, "TIME gave an answer that is not a time", err);
    }
    return snowflake::StoreOutcome::ok;
}

snowflake::StoreOutcome RedisRegistryStore::watch_unchanged(Step *step,
                                                            const snowflake::RegistryWrites &writes,
                                                            bool *unchanged, bool *refreshed,
                                                            std::vector<int64_t> *extra_nodes,
                                                            snowflake::Error *err) {
    *unchanged = false;
    *refreshed = true;
    // Each key with its lease's node id, or -1.
    std::vector<std::string> keys = {key("meta"), key("layout")};
    std::vector<int64_t> key_nodes = {-1, -1};
    if (writes.never_leased_from) {
        keys.push_back(key("next_id"));
        key_nodes.push_back(-1);
    }
    // The asking server's system: its counter, which every acquire and
    // switch of the system moves (an old primary and its promoted standby
    // asking at once see each other's lease), and every lease of it, which
    // the rules read to fence or refuse an old primary.
    if (step->system_id != 0) {
        keys.push_back(system_key(step->system_id));
        key_nodes.push_back(-1);
    }
    auto add_lease = [&](int64_t node) {
        if (std::find(key_nodes.begin(), key_nodes.end(), node) == key_nodes.end()) {
            keys.push_back(lease_key(node));
            key_nodes.push_back(node);
        }
    };
    for (const snowflake::LeaseRecord &l : writes.leases) {
        add_lease(l.node);
    }
    if (step->system_id != 0) {
        for (const snowflake::LeaseRecord &l : step->view->leases) {
            if (l.holder_system_id == step->system_id) {
                add_lease(l.node);
            }
        }
    }
    // The WATCHes of an attempt before go first: what counts is from now on.
    std::vector<Command> commands = {{"UNWATCH"}};
    Command watch = {"WATCH"};
    watch.insert(watch.end(), keys.begin(), keys.end());
    commands.push_back(std::move(watch));
    for (const std::string &k : keys) {
        const bool counter = k == key("next_id") || k.rfind(key("system:"), 0) == 0;
        commands.push_back({counter ? "GET" : "HGETALL", k});
    }
    RedisReplies r;
    snowflake::StoreOutcome outcome = pipeline(commands, &r, err);
    if (outcome != snowflake::StoreOutcome::ok) {
        return outcome;
    }
    outcome = check_errors(r, "Redis failed to read the registry", err);
    if (outcome != snowflake::StoreOutcome::ok) {
        return outcome;
    }
    *unchanged = true;
    for (size_t i = 0; i < keys.size(); ++i) {
        const redisReply *reply = r[2 + i];
        const std::string now = canonical_text(reply);
        // A lease the step did not read was not there: an empty hash.
        std::string *then = nullptr;
        for (auto &[k, text] : step->texts) {
            then = k == keys[i] ? &text : then;
        }
        if (then != nullptr ? now == *then : now == "hash") {
            continue;
        }
        *unchanged = false;
        // What the step takes in as it is now is compared with this from
        // now on.
        auto remember_now = [&] {
            if (then != nullptr) {
                *then = now;
            } else {
                step->texts.emplace_back(keys[i], now);
            }
        };
        if (keys[i] == key("next_id")) {
            // Other servers took never-leased ids meanwhile (a fleet
            // starting): the step takes the counter as it is now. The ids
            // below it are no longer never leased, and the write depends on
            // the lease of whichever the rule picks; the leases of the ids
            // taken matter only to a server of the same system, whose
            // counter moved too. (Not a server before 1.6, which moves no
            // counter: an old primary of 1.4 or 1.5 taking an id in that
            // range goes unseen here, as it can in any race with it.)
            if (!read_never_leased_from(reply, &step->view->never_leased_from)) {
                return not_a_registry(keys[i], "not a number", err);
            }
            remember_now();
            continue;
        }
        if (key_nodes[i] < 0) {
            // The meta, the layout (each written once in a registry's life,
            // or after a loss of its data) or the system's counter: read
            // all again.
            *refreshed = false;
            continue;
        }
        // A lease another call wrote meanwhile: the step takes it as it is
        // now, so that the rule decides again on it without every lease
        // read again (the others the write does not depend on). A hash
        // where the step read none, which neither the index nor the marks
        // list (a hand edit, an update aborted halfway), is taken for what
        // it says, never for a node id never leased, and read by every
        // attempt from now on.
        const int64_t node = key_nodes[i];
        if (then == nullptr &&
            std::find(extra_nodes->begin(), extra_nodes->end(), node) == extra_nodes->end()) {
            extra_nodes->push_back(node);
        }
        outcome = read_hash(reply, keys[i], err);
        if (outcome != snowflake::StoreOutcome::ok) {
            return outcome;
        }
        std::vector<snowflake::LeaseRecord> &leases = step->view->leases;
        leases.erase(
            std::remove_if(leases.begin(), leases.end(),
                           [node](const snowflake::LeaseRecord &l) { return l.node == node; }),
            leases.end());
        if (!HashReply(reply).empty()) {
            snowflake::LeaseRecord l;
            std::string fault;
            if (!read_lease(HashReply(reply), node, &l, &fault, env_)) {
                return not_a_registry(keys[i], fault, err);
            }
            leases.push_back(std::move(l));
        }
        remember_now();
    }
    return snowflake::StoreOutcome::ok;
}

// Writes what the rule decided, in MULTI ... EXEC; *committed is false when
// a watched key changed since the reads (nothing was written).
snowflake::StoreOutcome RedisRegistryStore::write(const Step &step,
                                                  const snowflake::RegistryWrites &writes,
                                                  bool *committed, snowflake::Error *err) {
    *committed = false;
    const int64_t now = step.view->now_ms;
    std::vector<Command> commands;
    RedisReplies r;
    snowflake::StoreOutcome outcome = snowflake::StoreOutcome::ok;
    if (!pause_hook_.empty()) {
        outcome = pause_for_test(&r, err);
        if (outcome != snowflake::StoreOutcome::ok) {
            return outcome;
        }
    }
    commands.push_back({"MULTI"});
    for (const std::string &m : step.stale_members) {
        commands.push_back({"ZREM", key("leases"), m});
    }
    if (writes.guard) {
        const snowflake::LossGuard &g = *writes.guard;
        commands.push_back({"HSET", key("meta"), "created_at_ms", text_of(g.created_at_ms),
                            "quarantine_until_ms", text_of(g.quarantine_until_ms), "floor_ms",
                            text_of(g.floor_ms)});
    }
    if (writes.layout) {
        const snowflake::LayoutRecord &c = *writes.layout;
        commands.push_back({"HSET", key("layout"), "datacenter_bits", text_of(c.datacenter_bits),
                            "worker_bits", text_of(c.worker_bits), "sequence_bits",
                            text_of(c.sequence_bits), "epoch_ms", text_of(c.epoch_ms),
                            "lease_ttl_ms", text_of(c.lease_ttl_ms), "max_clock_drift_ms",
                            text_of(c.max_clock_drift_ms), "recorded_at_ms",
                            text_of(c.recorded_at_ms), "recorded_by", c.recorded_by});
    }
    for (const snowflake::LeaseRecord &l : writes.leases) {
        const std::string k = lease_key(l.node);
        commands.push_back({"HSET",
                            k,
                            "fence",
                            text_of(l.fence),
                            "holder_system_id",
                            std::to_string(l.holder_system_id),
                            "holder_instance",
                            text_of(l.holder_instance),
                            "holder_host",
                            l.holder_host,
                            "holder_port",
                            text_of(l.holder_port),
                            "holder_data_directory",
                            l.holder_data_directory,
                            "holder_timeline",
                            text_of(l.holder_timeline),
                            "holder_max_clock_drift_ms",
                            text_of(l.holder_max_clock_drift_ms),
                            "acquired_at_ms",
                            text_of(l.acquired_at_ms),
                            "renewed_at_ms",
                            text_of(l.renewed_at_ms),
                            "expires_at_ms",
                            text_of(l.expires_at_ms),
                            "released_at_ms",
                            text_of(l.released_at_ms),
                            "reserved_until_ms",
                            text_of(l.reserved_until_ms),
                            "holder_wal_position",
                            text_of(l.holder_wal_position),
                            "holder_wal_position_instance",
                            text_of(l.holder_instance)});
        const int64_t ends = l.released_at_ms > 0 ? l.released_at_ms : l.expires_at_ms;
        const int64_t bound_end = l.reserved_until_ms + l.holder_max_clock_drift_ms;
        const int64_t keep_until = (ends > bound_end ? ends : bound_end) + kKeepMs;
        const int64_t keep_ms = keep_until - now > 1 ? keep_until - now : 1;
        commands.push_back({"PEXPIRE", k, text_of(keep_ms)});
        commands.push_back({"ZADD", key("leases"), text_of(ends), member_of(l.node)});
    }
    if (writes.never_leased_from) {
        commands.push_back({"SET", key("next_id"), text_of(*writes.never_leased_from)});
    }
    if (step.system_id != 0 && !writes.leases.empty()) {
        // Kept as long as a lease hash: a system gone that long needs none.
        commands.push_back({"INCR", system_key(step.system_id)});
        commands.push_back({"PEXPIRE", system_key(step.system_id), text_of(kKeepMs)});
    }
    // The timelines, merged as merge_timeline() says: each field only
    // raised from what the read saw (a timeline's position and wait have
    // one writer, its own server), a successor set once (HSETNX).
    for (const snowflake::TimelineRecord &t : writes.timelines) {
        const std::string k = timelines_key(t.system_id);
        const std::string f = std::to_string(t.timeline) + ":";
        snowflake::TimelineRecord merged;
        for (const snowflake::TimelineRecord &read : step.view->timelines) {
            if (read.system_id == t.system_id && read.timeline == t.timeline) {
                merged = read;
            }
        }
        if (t.position > merged.position) {
            commands.push_back({"HSET", k, f + "position", text_of(t.position)});
        }
        if (t.resume_at_ms > merged.resume_at_ms) {
            commands.push_back({"HSET", k, f + "resume_at_ms", text_of(t.resume_at_ms)});
        }
        if (t.superseded_by != 0) {
            commands.push_back({"HSETNX", k, f + "superseded_by", text_of(t.superseded_by)});
            commands.push_back({"HSETNX", k, f + "superseded_at_ms", text_of(t.superseded_at_ms)});
            commands.push_back({"HSETNX", k, f + "superseded_by_holder", t.superseded_by_holder});
        }
    }
    // The high-water marks, only raised (GT), but a give-back's floor.
    for (const snowflake::HighWater &mark : writes.high) {
        commands.push_back(
            {"ZADD", key("fences"), "GT", text_of(mark.fence), member_of(mark.node)});
        Command floor = {"ZADD", key("floors")};
        if (!mark.give_back) {
            floor.push_back("GT");
        }
        floor.push_back(text_of(mark.floor_ms));
        floor.push_back(member_of(mark.node));
        commands.push_back(std::move(floor));
    }
    commands.push_back({"EXEC"});
    outcome = pipeline(commands, &r, err);
    if (outcome != snowflake::StoreOutcome::ok) {
        return outcome;
    }
    const redisReply *exec = r[r.size() - 1];
    if (exec->type == REDIS_REPLY_NIL) {
        if (!pause_hook_.empty()) {
            outcome = command({"RPUSH", pause_hook_ + ":retried", "1"}, &r, err);
        }
        return outcome;
    }
    // An error while queueing (EXECABORT) or in a command of the block.
    outcome = check_errors(r, "Redis failed to write the registry", err);
    if (outcome != snowflake::StoreOutcome::ok) {
        return outcome;
    }
    if (exec->type != REDIS_REPLY_ARRAY || exec->elements != commands.size() - 2) {
        return unreachable("Redis failed to write the registry", "an unexpected answer to EXEC",
                           err);
    }
    for (size_t i = 0; i < exec->elements; ++i) {
        if (exec->element[i]->type == REDIS_REPLY_ERROR) {
            return error_reply(exec->element[i], "Redis failed to write the registry", err);
        }
    }
    *committed = true;
    return snowflake::StoreOutcome::ok;
}

// The test hook (kPauseHookEnv = H): when the test has pushed to H:arm,
// says so on H:paused and waits for H:resume, between the reads and the
// EXEC; a nil EXEC is counted on H:retried.
snowflake::StoreOutcome RedisRegistryStore::pause_for_test(RedisReplies *r, snowflake::Error *err) {
    snowflake::StoreOutcome outcome = command({"LPOP", pause_hook_ + ":arm"}, r, err);
    if (outcome != snowflake::StoreOutcome::ok || (*r)[0]->type == REDIS_REPLY_NIL) {
        return outcome;
    }
    outcome = command({"RPUSH", pause_hook_ + ":paused", "1"}, r, err);
    if (outcome != snowflake::StoreOutcome::ok) {
        return outcome;
    }
    // The test takes its time (other processes, a loaded machine): the wait
    // for it is not the call's, whose limit starts again afterwards, so that
    // the step meets its EXEC as it would have without the pause.
    until_ns_ = env_->monotonic_ns() + 120 * snowflake::kNsPerS;
    outcome = command({"BLPOP", pause_hook_ + ":resume", "0"}, r, err);
    until_ns_ = env_->call_until_ns();
    return outcome;
}

snowflake::StoreOutcome RedisRegistryStore::begin_call(const snowflake::CallScope &scope,
                                                       snowflake::Error *) {
    if (scope.timelines_of) {
        timelines_of_ = *scope.timelines_of;
    }
    until_ns_ = env_->call_until_ns();
    step_ = Step{};
    step_.system_id = scope.system_id;
    extra_nodes_.clear();
    return snowflake::StoreOutcome::ok;
}

snowflake::StoreOutcome RedisRegistryStore::begin_attempt(snowflake::Error *err) {
    if (env_->stopping()) {
        return unreachable("the registry call was cut short", "the server is stopping", err);
    }
    return connect(err);
}

snowflake::StoreOutcome RedisRegistryStore::read_view(const snowflake::CallScope &scope,
                                                      snowflake::RegistryView *view,
                                                      snowflake::Error *err) {
    step_.view = view;
    return read_records(scope.node, extra_nodes_, &step_, err);
}

// A renewal or a release writes under the WATCH of its one lease, and reads
// it again when that changed. An acquire or a switch first WATCHes what its
// writes depend on and compares it with what it read (watch_unchanged());
// a key changed before the EXEC is found by the next such round trip, which
// brings the view up to date.
snowflake::StoreOutcome RedisRegistryStore::guarded_write(const snowflake::CallScope &scope,
                                                          snowflake::RegistryView *view,
                                                          const snowflake::RegistryWrites &writes,
                                                          snowflake::WriteResult *result,
                                                          snowflake::Error *err) {
    step_.view = view;
    if (scope.node < 0) {
        bool unchanged = false;
        bool refreshed = false;
        const snowflake::StoreOutcome outcome =
            watch_unchanged(&step_, writes, &unchanged, &refreshed, &extra_nodes_, err);
        if (outcome != snowflake::StoreOutcome::ok || !unchanged) {
            changed_since_read(refreshed ? snowflake::WriteResult::changed_view_updated
                                         : snowflake::WriteResult::changed,
                               result);
            return outcome;
        }
    }
    bool committed = false;
    const snowflake::StoreOutcome outcome = write(step_, writes, &committed, err);
    if (committed) {
        *result = snowflake::WriteResult::written;
    } else {
        changed_since_read(scope.node >= 0 ? snowflake::WriteResult::changed
                                           : snowflake::WriteResult::changed_view_updated,
                           result);
    }
    return outcome;
}

void RedisRegistryStore::changed_since_read(snowflake::WriteResult changed,
                                            snowflake::WriteResult *result) {
    *result = changed;
    if (changed == snowflake::WriteResult::changed_view_updated) {
        // A member of P:leases whose hash was gone at the read may have
        // been leased again since: only a write decided on that read drops
        // it.
        step_.stale_members.clear();
    }
}

snowflake::StoreOutcome RedisRegistryStore::gave_up(int attempts, snowflake::Error *err) {
    char why[120];
    snprintf(why, sizeof why,
             "the registry's keys changed between the reads and the write %d times in a row",
             attempts);
    return unreachable("Redis failed a registry call", why, err);
}
