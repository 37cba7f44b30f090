// The Redis store of node id leases (snowflake_id.registry = 'redis://...').
// Its Lua scripts (pg_registry_redis_scripts.hpp) do each step atomically
// in Redis; this file only connects, loads them and calls them.
//
// hiredis is used as pg_registry_pq.cpp uses libpq: a non-blocking socket,
// every wait in WaitLatchOrSocket with a time limit, so that a shutdown
// request, SIGHUP and the postmaster's death are seen at once. (A host name
// is resolved with a blocking getaddrinfo, as libpq does: use an address or
// a unix socket where DNS may hang.) Only the registry worker uses it.
#include <sys/socket.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "pg_registry.hpp"
#include "pg_registry_redis_scripts.hpp"

extern "C" {
#include <hiredis/hiredis.h>

#include "storage/latch.h"
}

namespace {

using Script = RedisRegistryStore::Script;

constexpr size_t kScriptTextSize = 32768;
static_assert(sizeof sf_redis_lua::kPrelude + sizeof sf_redis_lua::kAcquire < kScriptTextSize &&
                  sizeof sf_redis_lua::kPrelude + sizeof sf_redis_lua::kRenew < kScriptTextSize &&
                  sizeof sf_redis_lua::kPrelude + sizeof sf_redis_lua::kRelease < kScriptTextSize &&
                  sizeof sf_redis_lua::kPrelude + sizeof sf_redis_lua::kSwitch < kScriptTextSize,
              "a registry script outgrew its buffer");

// A script's full text: the shared prelude, then its body.
const char *script_text(Script script) {
    static char texts[static_cast<int>(Script::count)][kScriptTextSize];
    const char *body = script == Script::acquire   ? sf_redis_lua::kAcquire
                       : script == Script::renew   ? sf_redis_lua::kRenew
                       : script == Script::release ? sf_redis_lua::kRelease
                                                   : sf_redis_lua::kSwitch;
    char *text = texts[static_cast<int>(script)];
    if (text[0] == '\0') {
        snprintf(text, sizeof texts[0], "%s%s", sf_redis_lua::kPrelude, body);
    }
    return text;
}

// Element i of an array reply, as text ("" if it is not a string).
const char *element_text(const redisReply *r, size_t i) {
    if (r == nullptr || r->type != REDIS_REPLY_ARRAY || i >= r->elements) {
        return "";
    }
    const redisReply *e = r->element[i];
    return (e->type == REDIS_REPLY_STRING || e->type == REDIS_REPLY_STATUS) ? e->str : "";
}

// Element i of an "ok" reply as an integer; false if it is not one.
bool element_int(const redisReply *r, size_t i, int64_t *out) {
    const char *text = element_text(r, i);
    char *end = nullptr;
    errno = 0;
    const long long v = strtoll(text, &end, 10);
    if (text[0] == '\0' || *end != '\0' || errno != 0) {
        return false;
    }
    *out = v;
    return true;
}

// A grant from elements 1 to 3 of an acquire's or a switch's "ok" reply.
bool read_grant(const redisReply *r, snowflake::LeaseGrant *grant) {
    return element_int(r, 1, &grant->node) && element_int(r, 2, &grant->fence) &&
           element_int(r, 3, &grant->floor_unix_ms);
}

}  // namespace

RedisRegistryStore::RedisRegistryStore(const snowflake::RedisTarget *target,
                                       volatile sig_atomic_t *stop)
    : target_(target), stop_(stop) {}

RedisRegistryStore::~RedisRegistryStore() {
    disconnect();
}

void RedisRegistryStore::disconnect() {
    if (ctx_ != nullptr) {
        redisFree(ctx_);
        ctx_ = nullptr;
    }
}

// A failure to reach Redis, or an answer that is not the registry's: said
// in *err, naming the address, and the connection dropped so that the next
// call starts afresh.
snowflake::StoreOutcome RedisRegistryStore::unreachable(const char *what, const char *why,
                                                        snowflake::Error *err) {
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

snowflake::StoreOutcome RedisRegistryStore::error_reply(redisReply *r, const char *what,
                                                        snowflake::Error *err) {
    char why[snowflake::kForeignTextMax + snowflake::kForeignCutMarkMax + 1];
    if (r->type == REDIS_REPLY_ERROR) {
        sf_registry_quote(r->str, r->len, why, sizeof why);
    } else {
        snprintf(why, sizeof why, "an unexpected answer");
    }
    freeReplyObject(r);
    return unreachable(what, why, err);
}

bool RedisRegistryStore::wait_socket(int events, int64_t until_mono_ns) {
    return sf_registry_wait_socket(ctx_->fd, events, until_mono_ns, stop_);
}

snowflake::StoreOutcome RedisRegistryStore::command(int argc, const char *const *argv,
                                                    redisReply **reply, snowflake::Error *err) {
    *reply = nullptr;
    const int64_t until = sf_registry_call_until_ns();
    constexpr int kMaxArgs = 24;
    size_t lens[kMaxArgs];
    if (argc > kMaxArgs) {
        return unreachable("could not send a command", "too many arguments", err);
    }
    for (int i = 0; i < argc; ++i) {
        lens[i] = strlen(argv[i]);
    }
    // hiredis takes a non-const array that it does not write to.
    if (redisAppendCommandArgv(ctx_, argc, const_cast<const char **>(argv), lens) != REDIS_OK) {
        return unreachable("could not send a command", ctx_->errstr, err);
    }
    int done = 0;
    while (!done) {
        if (redisBufferWrite(ctx_, &done) != REDIS_OK) {
            return unreachable("could not send a command", ctx_->errstr, err);
        }
        if (!done && !wait_socket(WL_SOCKET_WRITEABLE, until)) {
            return unreachable("could not send a command", "timed out", err);
        }
    }
    void *r = nullptr;
    for (;;) {
        if (redisGetReplyFromReader(ctx_, &r) != REDIS_OK) {
            return unreachable("no Redis reply", ctx_->errstr, err);
        }
        if (r != nullptr) {
            break;
        }
        if (!wait_socket(WL_SOCKET_READABLE, until)) {
            return unreachable("no answer to a command", "timed out", err);
        }
        if (redisBufferRead(ctx_) != REDIS_OK) {
            return unreachable("no answer to a command", ctx_->errstr, err);
        }
    }
    *reply = static_cast<redisReply *>(r);
    return snowflake::StoreOutcome::ok;
}

snowflake::StoreOutcome RedisRegistryStore::connect(snowflake::Error *err) {
    if (ctx_ != nullptr) {
        return snowflake::StoreOutcome::ok;
    }
    const int64_t until = sf_registry_call_until_ns();
    ctx_ = target_->unix_socket ? redisConnectUnixNonBlock(target_->socket_path)
                                : redisConnectNonBlock(target_->host, target_->port);
    if (ctx_ == nullptr) {
        return unreachable("could not connect", "out of memory", err);
    }
    if (ctx_->err != 0) {
        return unreachable("could not connect", ctx_->errstr, err);
    }
    if (!wait_socket(WL_SOCKET_WRITEABLE, until)) {
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
    redisReply *r = nullptr;
    snowflake::StoreOutcome outcome = snowflake::StoreOutcome::ok;
    if (target_->password[0] != '\0') {
        const bool with_user = target_->user[0] != '\0';
        const char *argv[] = {"AUTH", with_user ? target_->user : target_->password,
                              target_->password};
        outcome = command(with_user ? 3 : 2, argv, &r, err);
        if (outcome != snowflake::StoreOutcome::ok) {
            return outcome;
        }
        if (r->type == REDIS_REPLY_ERROR) {
            return error_reply(r, "Redis refused the user name or password", err);
        }
        freeReplyObject(r);
    }
    if (target_->db != 0) {
        char db[16];
        snprintf(db, sizeof db, "%d", target_->db);
        const char *argv[] = {"SELECT", db};
        outcome = command(2, argv, &r, err);
        if (outcome != snowflake::StoreOutcome::ok) {
            return outcome;
        }
        if (r->type == REDIS_REPLY_ERROR) {
            char what[80];
            snprintf(what, sizeof what, "could not select database %d", target_->db);
            return error_reply(r, what, err);
        }
        freeReplyObject(r);
    }
    {
        // A Redis that evicts keys under memory pressure could drop a live
        // lease, and with it the fence that keeps a second holder out.
        // Where CONFIG is disabled (managed services), the setting cannot
        // be read: the README asks for noeviction.
        const char *argv[] = {"CONFIG", "GET", "maxmemory-policy"};
        outcome = command(3, argv, &r, err);
        if (outcome != snowflake::StoreOutcome::ok) {
            return outcome;
        }
        if (r->type == REDIS_REPLY_ARRAY && r->elements == 2 &&
            r->element[1]->type == REDIS_REPLY_STRING &&
            strcmp(r->element[1]->str, "noeviction") != 0) {
            // Redis's policies have short names; the text is Redis's all the same.
            char policy[128];
            sf_registry_quote(r->element[1]->str, r->element[1]->len, policy, sizeof policy);
            constexpr char kFormat[] =
                "maxmemory-policy is %s; the registry needs noeviction, or Redis may evict a "
                "live lease";
            char why[sizeof kFormat + sizeof policy];
            snprintf(why, sizeof why, kFormat, policy);
            freeReplyObject(r);
            return unreachable("Redis may evict the registry's keys", why, err);
        }
        freeReplyObject(r);
    }
    for (int i = 0; i < static_cast<int>(Script::count); ++i) {
        const char *text = script_text(static_cast<Script>(i));
        const char *argv[] = {"SCRIPT", "LOAD", text};
        outcome = command(3, argv, &r, err);
        if (outcome != snowflake::StoreOutcome::ok) {
            return outcome;
        }
        if (r->type != REDIS_REPLY_STRING || r->len != 40) {
            return error_reply(r, "could not load the registry's scripts", err);
        }
        memcpy(sha_[i], r->str, 40);
        sha_[i][40] = '\0';
        freeReplyObject(r);
    }
    return snowflake::StoreOutcome::ok;
}

snowflake::StoreOutcome RedisRegistryStore::run(Script script, int nargs, const char *const *args,
                                                redisReply **reply, snowflake::Error *err) {
    *reply = nullptr;
    // The length of the script's "ok" reply (pg_registry_redis_scripts.hpp).
    const size_t expected_elements =
        script == Script::acquire || script == Script::switch_node ? 5 : 2;
    constexpr int kMaxArgs = 20;
    const char *argv[kMaxArgs + 4];
    // Twice at most: Redis forgets scripts on SCRIPT FLUSH and restarts.
    for (int attempt = 0; attempt < 2; ++attempt) {
        const snowflake::StoreOutcome connected = connect(err);
        if (connected != snowflake::StoreOutcome::ok) {
            return connected;
        }
        argv[0] = "EVALSHA";
        argv[1] = sha_[static_cast<int>(script)];
        argv[2] = "1";
        argv[3] = target_->prefix;
        for (int i = 0; i < nargs && i < kMaxArgs; ++i) {
            argv[4 + i] = args[i];
        }
        const int argc = 4 + (nargs < kMaxArgs ? nargs : kMaxArgs);
        redisReply *r = nullptr;
        const snowflake::StoreOutcome outcome = command(argc, argv, &r, err);
        if (outcome != snowflake::StoreOutcome::ok) {
            return outcome;
        }
        if (r->type == REDIS_REPLY_ERROR && strncmp(r->str, "NOSCRIPT", 8) == 0 && attempt == 0) {
            freeReplyObject(r);
            disconnect();  // the next connect loads them again
            continue;
        }
        if (r->type == REDIS_REPLY_ERROR) {
            return error_reply(r, "Redis failed a registry call", err);
        }
        if (strcmp(element_text(r, 0), "ok") == 0 && r->elements == expected_elements) {
            *reply = r;
            return snowflake::StoreOutcome::ok;
        }
        if (strcmp(element_text(r, 0), "refused") == 0) {
            // The scripts' own texts fit whole (error.hpp); others are
            // marked where cut, and logged.
            snowflake::fail(err, snowflake::ErrorCode::registry, "%s", "");
            const char *message = element_text(r, 2);
            const char *detail = element_text(r, 3);
            sf_registry_quote(message, strlen(message), err->message, sizeof err->message);
            sf_registry_quote(detail, strlen(detail), err->detail, sizeof err->detail);
            freeReplyObject(r);
            return snowflake::StoreOutcome::refused;
        }
        freeReplyObject(r);
        return unreachable("Redis failed a registry call", "an answer that is not the registry's",
                           err);
    }
    return unreachable("Redis failed a registry call", "the scripts could not be loaded", err);
}

snowflake::StoreOutcome RedisRegistryStore::acquire(const snowflake::LeaseRequest &request,
                                                    snowflake::LeaseGrant *grant,
                                                    snowflake::Error *err) {
    const AcquireArgs args(request, "");
    redisReply *r = nullptr;
    const snowflake::StoreOutcome outcome =
        run(Script::acquire, AcquireArgs::kCount, args.values(), &r, err);
    if (outcome != snowflake::StoreOutcome::ok) {
        return outcome;
    }
    const bool read = read_grant(r, grant);
    freeReplyObject(r);
    if (!read) {
        return unreachable("Redis failed a registry call", "a grant that is not numbers", err);
    }
    return snowflake::StoreOutcome::ok;
}

snowflake::StoreOutcome RedisRegistryStore::renew(int64_t node, int64_t fence, int64_t instance,
                                                  int64_t bound_unix_ms, int64_t ttl_ms,
                                                  int64_t *expires_unix_ms, snowflake::Error *err) {
    const RenewArgs args(node, fence, instance, bound_unix_ms, ttl_ms);
    redisReply *r = nullptr;
    const snowflake::StoreOutcome outcome =
        run(Script::renew, RenewArgs::kCount, args.values(), &r, err);
    if (outcome != snowflake::StoreOutcome::ok) {
        return outcome;
    }
    const bool read = element_int(r, 1, expires_unix_ms);
    freeReplyObject(r);
    if (!read) {
        return unreachable("Redis failed a registry call", "an expiry that is not a number", err);
    }
    return snowflake::StoreOutcome::ok;
}

snowflake::StoreOutcome RedisRegistryStore::release(int64_t node, int64_t fence, int64_t instance,
                                                    int64_t bound_unix_ms, snowflake::Error *err) {
    const ReleaseArgs args(node, fence, instance, bound_unix_ms);
    redisReply *r = nullptr;
    const snowflake::StoreOutcome outcome =
        run(Script::release, ReleaseArgs::kCount, args.values(), &r, err);
    if (r != nullptr) {
        freeReplyObject(r);
    }
    return outcome;
}

snowflake::StoreOutcome RedisRegistryStore::switch_node(const snowflake::SwitchRequest &request,
                                                        snowflake::LeaseGrant *grant,
                                                        int64_t *expires_unix_ms,
                                                        snowflake::Error *err) {
    const SwitchArgs args(request);
    redisReply *r = nullptr;
    const snowflake::StoreOutcome outcome =
        run(Script::switch_node, SwitchArgs::kCount, args.values(), &r, err);
    if (outcome != snowflake::StoreOutcome::ok) {
        return outcome;
    }
    const bool read = read_grant(r, grant) && element_int(r, 4, expires_unix_ms);
    freeReplyObject(r);
    if (!read) {
        return unreachable("Redis failed a registry call", "a grant that is not numbers", err);
    }
    return snowflake::StoreOutcome::ok;
}
