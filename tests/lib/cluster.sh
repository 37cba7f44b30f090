# shellcheck shell=bash
# Throwaway PostgreSQL servers for snowflake_id's tests, demo and benchmark.
#
# Source this file, then:
#   sf_init_workspace            make $SF_WORK (a temp dir the server account can read)
#   sf_stage                     build and install the extension into a private copy of
#                                the server under $SF_WORK/stage (nothing under /usr changes)
#   sf_new NAME [CONF_LINE...]   initdb a cluster NAME with the extension preloaded
#   sf_start NAME / sf_stop NAME
#   sf_psql NAME [psql args]     psql as the superuser, unaligned, tuples only, stop on error
#
# PostgreSQL refuses to run initdb or the server as root. As root the servers run as
# Debian's `postgres` account, in directories it owns; otherwise as the caller.
# Servers listen on a unix socket in their own directory only (listen_addresses = ''),
# so no TCP port is used and the fixed port number only names the socket file.
# sf_cleanup (installed as an EXIT trap by sf_init_workspace) stops every server
# this shell started, also when a test fails.

set -o pipefail

# The tests read messages, the servers' (which initdb would take from the
# locale: "FEHLER:" for "ERROR:") and the clients' (psql, libpq), and
# numbers and dates printed by the tools: in C.UTF-8, the locale CI runs
# in, whatever the caller's (the servers also get lc_messages = 'C', below).
export LANG=C.UTF-8 LC_ALL=C.UTF-8
unset LANGUAGE

SF_ROOT=${SF_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
SF_PG_CONFIG=${PG_CONFIG:-pg_config}
SF_PGBIN=$($SF_PG_CONFIG --bindir)
# Clients (psql, pg_isready, pgbench): the server's own where it has them;
# a server assembled by tools/fetch-pg has none, and the system's PostgreSQL
# 15 clients talk to newer servers.
if [ -x "$SF_PGBIN/psql" ]; then
    SF_CLIENT_BIN=${SF_CLIENT_BIN:-$SF_PGBIN}
else
    SF_CLIENT_BIN=${SF_CLIENT_BIN:-/usr/lib/postgresql/15/bin}
fi
SF_PORT=5432
SF_STARTED=()
SF_REDIS_STARTED=()

if [ "$(id -u)" = 0 ]; then
    sf_as_server() { runuser -u postgres -- "$@"; }
else
    sf_as_server() { "$@"; }
fi

sf_log() { printf '%s\n' "$*" >&2; }
sf_die() { sf_log "FAIL: $*"; exit 1; }

sf_init_workspace() {
    SF_WORK=$(mktemp -d "${TMPDIR:-/tmp}/snowflake_id.XXXXXX")
    chmod 755 "$SF_WORK"
    if [ "$(id -u)" = 0 ]; then
        chown postgres: "$SF_WORK"
    fi
    trap sf_cleanup EXIT
    trap 'exit 130' INT TERM
}

# sf_use_workspace DIR: a fixed workspace whose servers outlive this shell
# (the demo). No EXIT trap; the caller stops what it starts.
sf_use_workspace() {
    SF_WORK=$1
    mkdir -p "$SF_WORK"
    chmod 755 "$SF_WORK"
    if [ "$(id -u)" = 0 ]; then
        chown postgres: "$SF_WORK"
    fi
}

sf_cleanup() {
    local rc=$? name
    # Servers a test froze with SIGSTOP (SF_FROZEN_PIDS) cannot be stopped
    # while frozen: thaw them first, in case the test ended before it did.
    # shellcheck disable=SC2086
    [ -z "${SF_FROZEN_PIDS:-}" ] || kill -CONT $SF_FROZEN_PIDS 2>/dev/null || true
    for name in "${SF_REDIS_STARTED[@]}"; do
        sf_stop_redis "$name"
    done
    for name in "${SF_STARTED[@]}"; do
        if [ -f "$SF_WORK/$name/data/postmaster.pid" ]; then
            sf_as_server "$SF_STAGE_BIN/pg_ctl" -D "$SF_WORK/$name/data" -m immediate -w stop \
                >/dev/null 2>&1 || true
        fi
    done
    if [ "$rc" != 0 ] && [ -z "${SF_KEEP_WORK:-}" ]; then
        for name in "${SF_STARTED[@]}"; do
            if [ -f "$SF_WORK/$name/server.log" ]; then
                sf_log "--- last lines of $name/server.log"
                tail -n 20 "$SF_WORK/$name/server.log" >&2
            fi
        done
    fi
    if [ -z "${SF_KEEP_WORK:-}" ]; then
        rm -rf "$SF_WORK"
    fi
    return "$rc"
}

# Builds the extension and installs it into $SF_WORK/stage: a copy of the server's
# binaries whose share and lib directories (found relative to the binary) hold
# symlinks to the system's files plus the extension's own. With
# SF_STAGE_FROM=DIR, the extension's files come from DIR (a package unpacked
# with dpkg -x) instead of `make install`. $SF_STAGE/pg_config describes the
# stage to PGXS (`make installcheck`). SF_STAGE_DIR names another directory
# than $SF_WORK/stage (a test with several servers' stages).
sf_stage() {
    local sharedir pkglibdir libdir stage_share stage_lib f
    sharedir=$($SF_PG_CONFIG --sharedir)
    pkglibdir=$($SF_PG_CONFIG --pkglibdir)
    libdir=$($SF_PG_CONFIG --libdir)
    SF_STAGE=${SF_STAGE_DIR:-$SF_WORK/stage}
    SF_STAGE_BIN=$SF_STAGE$SF_PGBIN
    stage_share=$SF_STAGE$sharedir
    stage_lib=$SF_STAGE$pkglibdir
    if [ -n "${SF_STAGE_FROM:-}" ]; then
        mkdir -p "$SF_STAGE"
        cp -a "$SF_STAGE_FROM/." "$SF_STAGE/"
    else
        # One job per core: each major's run (tests/all-versions) builds anew.
        make -s -j"$(nproc)" -C "$SF_ROOT" >/dev/null || sf_die "build failed"
        make -s -C "$SF_ROOT" install DESTDIR="$SF_STAGE" >/dev/null || sf_die "staged install failed"
    fi
    mkdir -p "$SF_STAGE_BIN"
    for f in postgres initdb pg_ctl; do
        cp "$SF_PGBIN/$f" "$SF_STAGE_BIN/$f"
    done
    # pg_regress finds psql beside the server.
    cp "$SF_CLIENT_BIN/psql" "$SF_STAGE_BIN/psql"
    # Not in every server (tools/fetch-pg's have none): sf_new_standby
    # copies the files itself then.
    [ ! -x "$SF_PGBIN/pg_basebackup" ] || cp "$SF_PGBIN/pg_basebackup" "$SF_STAGE_BIN/"
    for f in "$sharedir"/* "$sharedir"/extension/*; do
        # Not an older install's scripts of ours: the stage has only this
        # tree's, which is what the tests of installing older versions test.
        [[ $f != "$sharedir"/extension/snowflake_id[-.]* ]] || continue
        [ -e "$stage_share/${f#"$sharedir"/}" ] || ln -s "$f" "$stage_share/${f#"$sharedir"/}"
    done
    for f in "$pkglibdir"/*; do
        [ -e "$stage_lib/$(basename "$f")" ] || ln -s "$f" "$stage_lib/$(basename "$f")"
    done
    # A relocatable server (tools/fetch-pg) finds its shared libraries
    # relative to the binary: give the copies the same neighbours.
    # (A here-string: under pipefail, grep -q would fail ldd with SIGPIPE.)
    if grep -q 'not found' <<<"$(ldd "$SF_STAGE_BIN/postgres")"; then
        for f in "$libdir"/*.so*; do
            [ -e "$SF_STAGE$libdir/$(basename "$f")" ] || ln -s "$f" "$SF_STAGE$libdir/"
        done
    fi
    cat >"$SF_STAGE/pg_config" <<EOF
#!/bin/sh
# pg_config of the stage (tests/lib/cluster.sh): its own directories, the
# rest from $SF_PG_CONFIG.
for arg in "\$@"; do
    case \$arg in
    --bindir) echo '$SF_STAGE_BIN' ;;
    --sharedir) echo '$stage_share' ;;
    --pkglibdir) echo '$stage_lib' ;;
    *) '$SF_PG_CONFIG' "\$arg" ;;
    esac
done
EOF
    chmod 755 "$SF_STAGE/pg_config"
    chmod -R a+rX "$SF_STAGE"
}

# sf_installcheck [TREE]: `make installcheck` against the stage, as a
# packager runs it (pg_regress starts its own temporary instance: the
# Makefile's REGRESS_OPTS), in a copy of the files it needs that the server
# account may write to (results/, tmp_check/); with TREE (an unpacked release
# archive under $SF_WORK), in TREE itself, handed to the server account.
# Prints the differences if it fails.
sf_installcheck() {
    local tree=${1:-}
    if [ -z "$tree" ]; then
        tree=$SF_WORK/installcheck
        mkdir -p "$tree/tests"
        cp -r "$SF_ROOT"/Makefile "$SF_ROOT"/*.control "$SF_ROOT"/*.sql "$SF_ROOT/sql" \
            "$SF_ROOT/expected" "$tree/"
        cp "$SF_ROOT/tests/installcheck.conf" "$tree/tests/"
    fi
    [ "$(id -u)" = 0 ] && chown -R postgres: "$tree"
    if ! sf_as_server make -s -C "$tree" installcheck PG_CONFIG="$SF_STAGE/pg_config"; then
        echo "--- $tree/regression.diffs" >&2
        cat "$tree/regression.diffs" >&2 || true
        return 1
    fi
}

sf_datadir() { printf '%s/%s/data' "$SF_WORK" "$1"; }
sf_sockdir() { printf '%s/%s' "$SF_WORK" "$1"; }

# sf_new NAME [CONF_LINE...]: a new cluster with the extension preloaded. Pass
# "preload=no" as the first line to leave it out of shared_preload_libraries.
# SF_INITDB_ARGS (an array) adds initdb options.
sf_new() {
    local name=$1 dir line preload=yes
    shift
    if [ "${1:-}" = preload=no ]; then
        preload=no
        shift
    fi
    dir=$SF_WORK/$name
    mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown postgres: "$dir"
    sf_as_server "$SF_STAGE_BIN/initdb" -D "$dir/data" -U postgres -A trust --no-sync \
        --lc-messages=C ${SF_INITDB_ARGS[@]+"${SF_INITDB_ARGS[@]}"} >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; sf_die "initdb $name failed"; }
    {
        echo "listen_addresses = ''"
        echo "unix_socket_directories = '$dir'"
        echo "port = $SF_PORT"
        echo "fsync = off"
        echo "max_connections = 40"
        [ "$preload" = yes ] && echo "shared_preload_libraries = 'snowflake_id'"
        for line in "$@"; do echo "$line"; done
    } | sf_as_server tee -a "$dir/data/postgresql.conf" >/dev/null
}

# Appends lines to a cluster's postgresql.conf.
sf_conf() {
    local name=$1 line
    shift
    for line in "$@"; do echo "$line"; done |
        sf_as_server tee -a "$(sf_datadir "$name")/postgresql.conf" >/dev/null
}

# sf_start NAME [VAR=VALUE...]: starts NAME with those variables in the
# server's environment; returns pg_ctl's status (start-up failure tests check it).
sf_start() {
    local name=$1
    shift
    [[ " ${SF_STARTED[*]} " == *" $name "* ]] || SF_STARTED+=("$name")
    sf_as_server env "$@" "$SF_STAGE_BIN/pg_ctl" -D "$(sf_datadir "$name")" \
        -l "$SF_WORK/$name/server.log" -w -t 60 start >/dev/null 2>&1
}

# pg_upgrade needs these beside the server, in both clusters' bin directory,
# at the server's own version: another major's would not do.
SF_UPGRADE_PROGRAMS=(pg_upgrade pg_dump pg_dumpall pg_restore pg_controldata pg_resetwal vacuumdb)
# sf_require_upgrade_programs: dies, naming the fix, unless the server's bin
# directory has them (tests/server/upgrade.sh, upgrade_registry.sh).
sf_require_upgrade_programs() {
    local f
    for f in "${SF_UPGRADE_PROGRAMS[@]}"; do
        [ -x "$SF_PGBIN/$f" ] || sf_die "$SF_PGBIN has no $f: this test needs a server with pg_upgrade and the \
programs it runs (${SF_UPGRADE_PROGRAMS[*]}): PG_CONFIG=\$(tools/fetch-pg --full MAJOR)"
    done
}
# sf_stage_upgrade_programs: copies them into the stage's bin directory
# (after sf_stage).
sf_stage_upgrade_programs() {
    local f
    for f in "${SF_UPGRADE_PROGRAMS[@]}"; do
        cp "$SF_PGBIN/$f" "$SF_STAGE_BIN/"
    done
}

# sf_fake_clock: a clock for servers faked by libfaketime. Creates $SF_CLOCK
# holding the offset from the real clock ("+0"), read at every clock
# reading, so a test steps the servers' wall clock by writing it ("-10",
# "-0.5", "+60"); and SF_FAKE_ENV, the environment to pass to sf_start.
# CLOCK_MONOTONIC stays real: PostgreSQL's timeouts keep working.
sf_fake_clock() {
    SF_CLOCK=$SF_WORK/clock
    echo "+0" >"$SF_CLOCK"
    chmod 644 "$SF_CLOCK"
    # shellcheck disable=SC2034 # read by the scripts that source this file
    SF_FAKE_ENV=("LD_PRELOAD=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"
        "FAKETIME_TIMESTAMP_FILE=$SF_CLOCK" "FAKETIME_NO_CACHE=1" "DONT_FAKE_MONOTONIC=1")
}

sf_stop() {
    local name=$1 mode=${2:-fast}
    sf_as_server "$SF_STAGE_BIN/pg_ctl" -D "$(sf_datadir "$name")" -m "$mode" -w stop >/dev/null
}

sf_server_log() { cat "$SF_WORK/$1/server.log"; }

# sf_await_log NAME PATTERN: bounded wait until NAME's log matches PATTERN
# (a process may change its state a moment before it logs why).
sf_await_log() {
    for _ in $(seq 1 1000); do
        grep -Eq -- "$2" "$SF_WORK/$1/server.log" && return 0
        sleep 0.01 # the pace of the poll; the condition is the log line
    done
    return 1
}

sf_psql() {
    local name=$1
    shift
    "$SF_CLIENT_BIN/psql" -h "$(sf_sockdir "$name")" -p "$SF_PORT" -U postgres -d postgres \
        -X -A -t -q -v ON_ERROR_STOP=1 "$@"
}

# sf_connstr NAME: for tools that take a connection string.
sf_connstr() { printf 'host=%s port=%s user=postgres dbname=postgres' "$(sf_sockdir "$1")" "$SF_PORT"; }

# A file under $SF_WORK that the server account may write (COPY ... TO a file).
sf_shared_file() {
    local f=$SF_WORK/$1
    : >"$f"
    chmod 666 "$f"
    printf '%s' "$f"
}

# Assertion helpers: each prints what it checked.
sf_expect_eq() {
    local what=$1 want=$2 got=$3
    [ "$want" = "$got" ] || sf_die "$what: expected [$want], got [$got]"
    sf_log "ok: $what"
}
sf_expect_match() {
    local what=$1 pattern=$2 text=$3
    # A here-string, not a pipe: grep -q stops at the first match, and under
    # pipefail the writer's SIGPIPE would fail a match on a long text.
    grep -Eq -- "$pattern" <<<"$text" || sf_die "$what: no match for /$pattern/ in: $text"
    sf_log "ok: $what"
}

# A start gate: clients that begin with `SELECT pg_advisory_lock_shared(42)`
# queue until the gate opens, so that they really run at the same time.
#   sf_gate_close NAME      a session on NAME takes advisory lock 42 and holds it
#   sf_gate_wait NAME N     returns once N sessions on NAME queue on the gate
#   sf_gate_open NAME...    releases the lock on each NAME
# shellcheck disable=SC2034 # read by the scripts that source this file
SF_GATE_SQL="SELECT pg_advisory_lock_shared(42)"
declare -A SF_GATE_PID SF_GATE_FD

# sf_poll NAME SQL WANT: bounded poll until SQL on NAME returns WANT.
sf_poll() {
    local name=$1 sql=$2 want=$3 got=
    for _ in $(seq 1 1000); do
        got=$(sf_psql "$name" -c "$sql")
        [ "$got" = "$want" ] && return 0
        sf_psql "$name" -c "SELECT pg_sleep(0.01)" >/dev/null
    done
    sf_die "waited in vain on $name for [$sql] to return [$want], last [$got]"
}

sf_gate_close() {
    local name=$1 fifo=$SF_WORK/gate.$1 fd
    mkfifo "$fifo"
    sf_psql "$name" <"$fifo" >/dev/null &
    SF_GATE_PID[$name]=$!
    exec {fd}>"$fifo"
    SF_GATE_FD[$name]=$fd
    echo "SELECT pg_advisory_lock(42);" >&"$fd"
    sf_poll "$name" "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted" 1
}

sf_gate_wait() {
    sf_poll "$1" "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted" "$2"
    sf_log "ok: $2 sessions wait at the gate on $1"
}

sf_gate_open() {
    local name fd
    # Every gate first, then the waits: the sessions on several servers
    # start together.
    for name in "$@"; do
        fd=${SF_GATE_FD[$name]}
        printf "SELECT pg_advisory_unlock(42);\n\\q\n" >&"$fd"
        exec {fd}>&-
    done
    for name in "$@"; do
        wait "${SF_GATE_PID[$name]}"
        rm "$SF_WORK/gate.$name" # a later sf_gate_close makes it anew
    done
}

# sf_new_standby PRIMARY NAME [CONF_LINE...]: a streaming hot standby of
# PRIMARY (which must be running), made with pg_basebackup -R, or, where the
# server has no pg_basebackup of its own major (tools/fetch-pg), with the
# low-level backup API.
sf_new_standby() {
    local primary=$1 name=$2 dir
    shift 2
    dir=$SF_WORK/$name
    mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown postgres: "$dir"
    if [ -x "$SF_STAGE_BIN/pg_basebackup" ]; then
        sf_as_server "$SF_STAGE_BIN/pg_basebackup" -h "$(sf_sockdir "$primary")" -p "$SF_PORT" \
            -U postgres -D "$dir/data" -R -X stream -c fast >"$dir/basebackup.log" 2>&1 ||
            { cat "$dir/basebackup.log" >&2; sf_die "pg_basebackup for $name failed"; }
    else
        sf_copy_backup "$primary" "$name"
    fi
    sf_conf "$name" "unix_socket_directories = '$dir'" "hot_standby = on" "$@"
}

# sf_promote NAME: pg_ctl promote of the standby NAME, waiting until it
# accepts writes; the suite dies if it is not promoted.
sf_promote() {
    sf_as_server "$SF_STAGE_BIN/pg_ctl" -D "$(sf_datadir "$1")" -w -t 60 promote >/dev/null ||
        sf_die "pg_ctl promote of $1 failed"
}

# sf_copy_backup PRIMARY NAME: what pg_basebackup -R -X stream does, by hand.
# The files are copied between pg_backup_start and pg_backup_stop in one
# session, whose label goes into the copy as backup_label; then the WAL up to
# the backup's end, so that the copy is consistent on its own (a restore
# without standby.signal). A physical slot keeps the WAL from the backup's
# start until a standby has streamed it.
sf_copy_backup() {
    local primary=$1 name=$2 src dst copy run_as=
    src=$(sf_datadir "$primary")
    dst=$(sf_datadir "$name")
    copy=$SF_WORK/$name/copy.sh
    cat >"$copy" <<EOF
mkdir -m 700 "$dst" && cd "$src" &&
    tar -cf - --warning=no-file-changed --warning=no-file-removed \\
        --exclude=./postmaster.pid --exclude=./postmaster.opts \\
        --exclude='./pg_wal/*' --exclude='./pg_replslot/*' . | tar -xf - -C "$dst"
EOF
    [ "$(id -u)" = 0 ] && run_as="runuser -u postgres --"
    sf_psql "$primary" -c "SELECT pg_create_physical_replication_slot('$name', true)" >/dev/null
    sf_psql "$primary" <<EOF >"$SF_WORK/$name/backup.log" 2>&1 ||
SELECT pg_backup_start('$name', true) \\g /dev/null
\\! $run_as sh $copy
\\o $SF_WORK/$name/backup_label
SELECT labelfile FROM pg_backup_stop(false);
EOF
        { cat "$SF_WORK/$name/backup.log" >&2; sf_die "the backup of $primary for $name failed"; }
    # psql does not stop on a failed \\!: check the copy.
    sf_as_server test -f "$dst/global/pg_control" ||
        { cat "$SF_WORK/$name/backup.log" >&2; sf_die "copying $primary for $name failed"; }
    sf_as_server sh -c "cp '$src'/pg_wal/0* '$dst/pg_wal/'" || sf_die "copying the WAL for $name failed"
    sf_as_server cp "$SF_WORK/$name/backup_label" "$dst/backup_label"
    sf_as_server touch "$dst/standby.signal"
    sf_as_server tee -a "$dst/postgresql.auto.conf" >/dev/null <<EOF
primary_conninfo = '$(sf_connstr "$primary")'
primary_slot_name = '$name'
EOF
}

# sf_make_sync PRIMARY APPNAME: makes the standby that connects as
# APPNAME (its cluster_name) PRIMARY's synchronous standby, and returns once
# PRIMARY reports it so.
sf_make_sync() {
    sf_psql "$1" -c "ALTER SYSTEM SET synchronous_standby_names = '$2'" \
        -c "SELECT pg_reload_conf()" >/dev/null
    sf_poll "$1" "SELECT string_agg(application_name || ':' || sync_state, ',')
                  FROM pg_stat_replication" "$2:sync"
}

# The registry of node ids, in the store SF_REGISTRY_STORE names:
# postgresql (the default) or redis. The registry tests run against both.
SF_REGISTRY_STORE=${SF_REGISTRY_STORE:-postgresql}
SF_REDIS_PREFIX=snowflake_id

# sf_new_registry NAME [ARG...]: a running registry NAME; sets
# SF_REGISTRY_CONF, the setting line that points a node at it, and
# SF_REGISTRY_TEXT, how the servers' messages name it. PostgreSQL: a server
# with snowflake_id installed (not preloaded), ARGs more postgresql.conf
# lines. Redis: a redis-server with the persistence the README asks for
# (appendonly yes, appendfsync always), ARGs more of its arguments, marked
# as new (README: a new Redis registry) so that it hands out ids at once.
sf_new_registry() {
    if [ "$SF_REGISTRY_STORE" = redis ]; then
        sf_new_redis "$1" --appendonly yes --appendfsync always "${@:2}"
        sf_redis "$1" HSET "$SF_REDIS_PREFIX:meta" quarantine_until_ms 0 >/dev/null
        SF_REGISTRY_TEXT="Redis at unix socket $SF_REDIS_SOCKET"
        return
    fi
    sf_new "$1" preload=no "${@:2}"
    sf_start "$1" || sf_die "the registry $1 did not start"
    sf_psql "$1" -c "CREATE EXTENSION snowflake_id"
    SF_REGISTRY_CONF="snowflake_id.registry = '$(sf_connstr "$1")'"
    # shellcheck disable=SC2034 # read by the scripts that source this file
    SF_REGISTRY_TEXT="host=$(sf_sockdir "$1")"
}

sf_registry_stop() {
    if [ "$SF_REGISTRY_STORE" = redis ]; then sf_stop_redis "$1"; else sf_stop "$1"; fi
}

sf_registry_start() {
    if [ "$SF_REGISTRY_STORE" = redis ]; then sf_start_redis "$1"; else sf_start "$1"; fi
}

# sf_registry_clock NAME: the registry's clock, in seconds since 1970.
sf_registry_clock() {
    if [ "$SF_REGISTRY_STORE" = redis ]; then
        sf_redis "$1" TIME | { read -r s && read -r us && printf '%s.%06d\n' "$s" "$us"; }
    else
        sf_psql "$1" -c "SELECT extract(epoch FROM clock_timestamp())"
    fi
}

# sf_registry_lease NAME NODE FIELD: a field of node id NODE's lease, empty
# if there is none. FIELD: state (live, expired, released),
# data_directory (the holder's), timeline (the holder's), wal_position (the
# WAL position, in bytes, the holder recorded with it), fence,
# reserved_until_ms, ttl_left_ms (until it expires, by the registry's clock).
sf_registry_lease() {
    local name=$1 node=$2 field=$3
    if [ "$SF_REGISTRY_STORE" = redis ]; then
        local key=$SF_REDIS_PREFIX:lease:$node now expires released
        case $field in
        state)
            now=$(sf_registry_clock "$name")
            now=$((${now%.*} * 1000 + 10#${now#*.} / 1000)) # ms, as the scripts compare
            { read -r expires && read -r released; } < <(sf_redis "$name" HMGET "$key" \
                expires_at_ms released_at_ms)
            if [ -z "$expires" ]; then
                echo
            elif [ "$released" != 0 ]; then
                echo released
            elif [ "$expires" -gt "$now" ]; then
                echo live
            else
                echo expired
            fi
            ;;
        ttl_left_ms)
            now=$(sf_registry_clock "$name")
            now=$((${now%.*} * 1000 + 10#${now#*.} / 1000))
            echo $(($(sf_redis "$name" HGET "$key" expires_at_ms) - now))
            ;;
        data_directory) sf_redis "$name" HGET "$key" holder_data_directory ;;
        timeline) sf_redis "$name" HGET "$key" holder_timeline ;;
        wal_position) sf_redis "$name" HGET "$key" holder_wal_position ;;
        fence | reserved_until_ms) sf_redis "$name" HGET "$key" "$field" ;;
        *) sf_die "sf_registry_lease: no field $field" ;;
        esac
        return
    fi
    case $field in
    state)
        sf_psql "$name" -c "SELECT state FROM snowflake_id.snowflake_registry_leases
                            WHERE node_id = $node" ;;
    ttl_left_ms)
        sf_psql "$name" -c "SELECT (extract(epoch FROM expires_at - clock_timestamp()) * 1000)::bigint
                            FROM snowflake_id.snowflake_registry_lease WHERE node_id = $node" ;;
    data_directory | timeline | wal_position)
        sf_psql "$name" -c "SELECT holder_$field FROM snowflake_id.snowflake_registry_lease
                            WHERE node_id = $node" ;;
    fence | reserved_until_ms)
        sf_psql "$name" -c "SELECT $field FROM snowflake_id.snowflake_registry_lease
                            WHERE node_id = $node" ;;
    *) sf_die "sf_registry_lease: no field $field" ;;
    esac
}

# sf_extension_version: the version CREATE EXTENSION installs, the control
# file's default_version.
sf_extension_version() {
    sed -n "s/^default_version = '\(.*\)'$/\1/p" "$SF_ROOT/snowflake_id.control"
}

# sf_public_extension_relations NAME [PSQL ARGS...]: how many tables and
# views of snowflake_id the public schema holds (0 since 1.6: the schema tools
# of applications manage public).
sf_public_extension_relations() {
    local name=$1
    shift
    sf_psql "$name" "$@" -c "SELECT count(*) FROM pg_class c JOIN pg_depend d
        ON d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e'
        JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'snowflake_id'
        WHERE c.relnamespace = 'public'::regnamespace"
}

# sf_registry_states NAME: the state of every lease, by node id.
sf_registry_states() {
    local node
    if [ "$SF_REGISTRY_STORE" = redis ]; then
        for node in $(sf_redis "$1" --scan --pattern "$SF_REDIS_PREFIX:lease:*" |
            sed 's/.*://' | sort -n); do
            sf_registry_lease "$1" "$node" state
        done | tr '\n' ' ' | sed 's/ $//'
    else
        sf_psql "$1" -c "SELECT string_agg(state, ' ' ORDER BY node_id)
                         FROM snowflake_id.snowflake_registry_leases"
    fi
}

# sf_registry_poll NAME NODE FIELD WANT: bounded poll until the field is WANT.
sf_registry_poll() {
    local got=
    for _ in $(seq 1 1000); do
        got=$(sf_registry_lease "$1" "$2" "$3")
        [ "$got" = "$4" ] && return 0
        sleep 0.02 # the pace of the poll; the condition is the registry's answer
    done
    [ "$SF_REGISTRY_STORE" != redis ] ||
        sf_log "$(sf_redis "$1" HGETALL "$SF_REDIS_PREFIX:lease:$2" | paste -sd' ')"
    sf_die "waited in vain for node id $2's $3 to be [$4], last [$got]"
}

# sf_promote_successor PRIMARY STANDBY REGISTRY NODE: promotes STANDBY
# while PRIMARY holds node id NODE's lease live, as its successor. A
# standby takes a live lease over only if it replayed the WAL position the
# holder's last renewal recorded (docs/many-servers.md#copies-and-successors);
# a renewal recording WAL it never received (a running-xacts record written
# as it is promoted) would make it a copy, which keeps its hands off the
# lease. So PRIMARY's registry worker is held (SIGSTOP) from just after a
# renewal until STANDBY, having replayed that position and been promoted,
# holds a lease (the lease stays live: lease_ttl is more than a second).
# Tests of copies freeze nothing: registry_copies.
sf_promote_successor() {
    local primary=$1 standby=$2 registry=$3 node=$4 worker ttl_left fresh_ms
    fresh_ms=$(($(sf_registry_lease_ttl_ms "$primary") - 1000))
    for _ in $(seq 1 500); do
        ttl_left=$(sf_registry_lease "$registry" "$node" ttl_left_ms)
        [ "${ttl_left:-0}" -lt "$fresh_ms" ] || break
        sleep 0.02 # the pace of the poll; the condition is the registry's answer
    done
    worker=$(pgrep -P "$(sf_as_server head -1 "$(sf_datadir "$primary")/postmaster.pid")" \
        -f 'snowflake_id registry')
    [ -n "$worker" ] || sf_die "$primary runs no registry worker"
    kill -STOP "$worker"
    SF_FROZEN_PIDS="${SF_FROZEN_PIDS:-} $worker"
    sf_poll "$standby" "SELECT pg_last_wal_replay_lsn() - '0/0' >= $(sf_registry_lease "$registry" "$node" wal_position)" t
    [ "$(sf_registry_lease "$registry" "$node" state)" = live ] ||
        sf_die "$primary's lease on node id $node expired before $standby's promotion: raise lease_ttl"
    sf_promote "$standby"
    sf_poll "$standby" "SELECT lease_state FROM snowflake_status()" held
    kill -CONT "$worker"
}

# sf_registry_lease_ttl_ms NAME: server NAME's snowflake_id.lease_ttl in ms.
sf_registry_lease_ttl_ms() {
    sf_psql "$1" -c "SELECT (extract(epoch FROM current_setting('snowflake_id.lease_ttl')::interval) * 1000)::bigint"
}

# sf_new_redis NAME [ARG...]: a redis-server NAME on a unix socket in its own
# directory (no TCP port), with ARGs (redis.conf directives as arguments,
# e.g. --requirepass x); sets SF_REDIS_SOCKET and SF_REGISTRY_CONF, the
# setting line that points a node at it. sf_stop_redis stops it,
# sf_start_redis starts it again with the same directory and ARGs; the
# workspace's cleanup stops it.
declare -A SF_REDIS_ARGS
sf_new_redis() {
    local name=$1 dir
    shift
    dir=$SF_WORK/$name
    mkdir -p "$dir"
    chmod 755 "$dir"
    SF_REDIS_ARGS[$name]=$(printf '%q ' "$@")
    SF_REDIS_SOCKET=$dir/redis.sock
    SF_REDIS_STARTED+=("$name")
    sf_start_redis "$name" || sf_die "redis-server $name did not start"
    # shellcheck disable=SC2034 # read by the scripts that source this file
    SF_REGISTRY_CONF="snowflake_id.registry = 'redis+unix://$SF_REDIS_SOCKET'"
}

sf_start_redis() {
    local name=$1 dir=$SF_WORK/$1
    rm -f "$dir/redis.pid"
    eval "redis-server --port 0 --unixsocket '$dir/redis.sock' --unixsocketperm 777 \
        --dir '$dir' --save '' --daemonize yes --pidfile '$dir/redis.pid' \
        --logfile '$dir/redis.log' ${SF_REDIS_ARGS[$name]}" || return 1
    for _ in $(seq 1 500); do
        [ -S "$dir/redis.sock" ] && [ -s "$dir/redis.pid" ] &&
            redis-cli -s "$dir/redis.sock" PING >/dev/null 2>&1 && return 0
        sleep 0.01 # the pace of the poll; the condition is the PING
    done
    return 1
}

# sf_redis NAME ARGS...: redis-cli against NAME.
sf_redis() {
    local name=$1
    shift
    redis-cli -s "$SF_WORK/$name/redis.sock" "$@"
}

# sf_stop_redis NAME: stops it and waits until it is gone.
sf_stop_redis() {
    local pid
    pid=$(cat "$SF_WORK/$1/redis.pid" 2>/dev/null) || return 0
    kill "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null; do sleep 0.01; done
}

# sf_crash NAME: SIGKILL for the postmaster and all its children at once, as
# a power loss would stop them (no shutdown checkpoint, no exit callbacks).
sf_crash() {
    local pm kids pid
    pm=$(sf_as_server head -1 "$(sf_datadir "$1")/postmaster.pid")
    kids=$(pgrep -P "$pm" || true)
    # One kill for all, the postmaster first: a child killed before it would
    # make it reinitialise shared memory (a crash restart, which records the
    # exact floor) before its own SIGKILL arrives; PostgreSQL 18's io workers
    # made that race common. No child outlives the postmaster by more than
    # the kill.
    # shellcheck disable=SC2086
    kill -9 "$pm" $kids 2>/dev/null || true
    # Until each is gone (reaped: a killed postmaster lingers as a zombie
    # for seconds where init reaps slowly), polled at a pace that leaves the
    # CPU to the rest of the machine.
    for pid in $kids $pm; do
        while kill -0 "$pid" 2>/dev/null; do sleep 0.01; done
    done
}

# sf_expect_above WHAT BEFORE_FILE... -- AFTER_FILE: every ID in AFTER_FILE is
# above every ID in the BEFORE files, and no ID repeats across all of them.
sf_expect_above() {
    local what=$1 max_before min_after befores=()
    shift
    while [ "$1" != -- ]; do
        befores+=("$1")
        shift
    done
    # sed reads its whole input: no SIGPIPE for sort under pipefail.
    max_before=$(sort -n "${befores[@]}" | sed -n '$p')
    min_after=$(sort -n "$2" | sed -n '1p')
    [ "$min_after" -gt "$max_before" ] ||
        sf_die "$what: an ID ($min_after) is not above the largest before ($max_before)"
    sf_log "ok: $what: every new ID is above every ID before"
    sf_expect_eq "$what: no duplicate" 0 "$(sort -n "${befores[@]}" "$2" | uniq -d | wc -l)"
}

# sf_stream_ids NAME FILE COUNT: COUNT IDs from NAME into FILE. COPY ... TO
# STDOUT streams rows as the server makes them, so FILE holds exactly the
# IDs that reached this client, also when the server dies midway.
sf_stream_ids() {
    sf_psql "$1" -c "COPY (SELECT snowflake_nextval() FROM generate_series(1, $3)) TO STDOUT" >"$2"
}

# sf_await_ids COUNT PID FILE [PID FILE...]: polls until every FILE, written
# by the background client PID (sf_stream_ids), holds at least COUNT IDs.
# Dies if a client ends first (with FILE.err, if there is one) or after
# about 40 s.
sf_await_ids() {
    local count=$1 ready k
    shift
    local args=("$@")
    for _ in $(seq 1 2000); do
        ready=1
        for ((k = 0; k < ${#args[@]}; k += 2)); do
            [ -e "${args[k + 1]}" ] && [ "$(wc -l <"${args[k + 1]}")" -ge "$count" ] && continue
            ready=0
            kill -0 "${args[k]}" 2>/dev/null ||
                sf_die "a client ended before it received $count IDs: $(cat "${args[k + 1]}.err" 2>/dev/null)"
        done
        [ "$ready" = 1 ] && return 0
        sleep 0.02 # the pace of the poll; the condition is the line count
    done
    sf_die "the clients did not receive $count IDs each in time"
}
