#!/usr/bin/env bash
# Backups made by real backup tools, restored beside and instead of their
# live original, against the original's registry of node ids. For each tool
# (pgBackRest, Barman: repository and configuration in the workspace, WAL
# archived by each tool's own archive_command) and each way of naming the
# node (a static worker_id, 'auto'), an original with the extension mints
# IDs into a table, one committed row at a time, and counts every refused
# call; the tool backs it up, then:
#  (a) a full restore of the backup (recovery ends where the backup is
#      consistent, on a new timeline) onto another data directory, started
#      with the original's configuration while the original mints: the
#      copy never takes the original's lease: with a static id it is
#      refused and says it is a copy of the original, with 'auto' it leases
#      another node id; the original is refused nothing;
#  (b) the same for a point-in-time restore to a restore point the original
#      wrote after the backup (archived WAL replayed);
#  (c) the original is lost (SIGKILL, its data directory gone) and a
#      restore from the backup and the archive replaces it, its clock an
#      hour behind: it mints above every ID of its node id the original
#      issued, both those in the WAL the archive kept (the restored table)
#      and those it issued after the last archived segment, past every
#      reservation that segment holds (the registry's recorded bound).
# Across each run: no ID twice, and on each node id no ID below one issued
# before it (one server at a time per node id).
#
# SF_BACKUP_TOOLS (default "pgbackrest barman") and SF_BACKUP_MODES
# (default "static auto") choose the runs; SF_REGISTRY_STORE the registry's
# store (tests/lib/cluster.sh).
source "$(dirname "$0")/../lib/suite.sh"

for tool in pgbackrest barman; do
    command -v "$tool" >/dev/null || sf_die "$tool is missing: run tools/ensure-deps (as root it installs it)"
done

sf_fake_clock
sf_new_registry registry
registry_conf=$SF_REGISTRY_CONF
ttl_conf="snowflake_id.lease_ttl = '6s'"
pg_bin=$($SF_PG_CONFIG --bindir)

# The table the originals mint into, and the client that mints: one row per
# transaction, every refused call counted in refusals, until the original
# is lost in (c). Its pace (pg_sleep) only spares the loaded machine's CPU:
# nothing waits on it.
minting_schema="
CREATE TABLE ids (n bigint GENERATED ALWAYS AS IDENTITY, id bigint PRIMARY KEY DEFAULT snowflake_nextval());
CREATE TABLE refusals (at timestamptz, sqlstate text, message text);
CREATE PROCEDURE mint() LANGUAGE plpgsql AS \$\$
BEGIN
    LOOP
        BEGIN
            INSERT INTO ids DEFAULT VALUES;
        EXCEPTION WHEN OTHERS THEN
            INSERT INTO refusals VALUES (clock_timestamp(), SQLSTATE, SQLERRM);
        END;
        COMMIT;
        PERFORM pg_sleep(0.002);
    END LOOP;
END \$\$;"

# await NAME SQL WHAT: bounded poll (about 120 s, the machine is loaded)
# until SQL on NAME returns t.
await() {
    local name=$1 sql=$2 what=$3
    for _ in $(seq 1 1200); do
        [ "$(sf_psql "$name" -c "$sql" 2>/dev/null)" = t ] && return 0
        sleep 0.1 # the pace of the poll; the condition is the query's answer
    done
    sf_die "waited in vain on $name for $what"
}

# await_renewals NAME: returns once NAME made two renewal attempts of its
# lease that began after this call (or lost its lease). The first attempt
# after the call may have read its WAL position before it; the second
# began after the first ended: the position it records is at least NAME's
# flush position at the call.
await_renewals() {
    local name=$1 r0
    r0=$(sf_psql "$name" -c "SELECT lease_renewals + lease_failures FROM snowflake_status()")
    await "$name" "SELECT lease_renewals + lease_failures >= $r0 + 2 OR lease_state <> 'held'
                   FROM snowflake_status()" "two renewals of its lease"
}

# await_archived NAME: switches NAME's WAL and returns once the segment it
# ended is archived, so that the archive holds everything NAME wrote before.
await_archived() {
    local name=$1 segment
    segment=$(sf_psql "$name" -c "SELECT pg_walfile_name(pg_switch_wal())")
    await "$name" "SELECT coalesce(last_archived_wal >= '$segment', false) FROM pg_stat_archiver" \
        "segment $segment archived"
}

# --- the tools ----------------------------------------------------------------
# tool_setup TOOL ORIGINAL: the repository and configuration, and the
# archive_command line for ORIGINAL's postgresql.conf (in $archive_conf).
# tool_backup TOOL ORIGINAL: a full backup of the running original.
# tool_restore TOOL ORIGINAL NAME TARGET: restores the backup into NAME's
# data directory, started with the original's configuration except its
# socket and archiving. TARGET: immediate (end at the backup's consistent
# point), name:POINT (a restore point), latest (the whole archive).
tool_setup() {
    local tool=$1 original=$2 dir=$SF_WORK/$1
    mkdir -p "$dir" "$dir/log"
    case $tool in
    pgbackrest)
        cat >"$dir/pgbackrest.conf" <<EOF
[global]
repo1-path=$dir/repo
repo1-retention-full=1
log-path=$dir/log
lock-path=$dir/lock
spool-path=$dir/spool
log-level-console=warn
log-level-file=info
start-fast=y

[$original]
pg1-path=$(sf_datadir "$original")
pg1-socket-path=$(sf_sockdir "$original")
pg1-port=$SF_PORT
pg1-user=postgres
EOF
        archive_conf="archive_command = 'pgbackrest --config=$dir/pgbackrest.conf --stanza=$original archive-push %p'"
        ;;
    barman)
        mkdir -p "$dir/home" "$dir/lock"
        cat >"$dir/barman.conf" <<EOF
[barman]
barman_home = $dir/home
barman_user = postgres
barman_lock_directory = $dir/lock
log_file = $dir/barman.log
log_level = INFO
path_prefix = $pg_bin

[$original]
description = snowflake_id backup suite
conninfo = $(sf_connstr "$original")
streaming_conninfo = $(sf_connstr "$original")
backup_method = postgres
archiver = on
EOF
        # Barman's archive_command for a Barman on the same machine: its
        # documented rsync into the server's incoming directory, without the
        # remote host (barman-wal-archive needs an SSH server).
        mkdir -p "$dir/home/$original/incoming"
        archive_conf="archive_command = 'rsync -a %p $dir/home/$original/incoming/%f'"
        ;;
    esac
    [ "$(id -u)" != 0 ] || chown -R postgres: "$dir"
}

tool_run() {
    local tool=$1
    shift
    case $tool in
    pgbackrest) sf_as_server pgbackrest --config="$SF_WORK/pgbackrest/pgbackrest.conf" "$@" ;;
    barman) sf_as_server barman -q -c "$SF_WORK/barman/barman.conf" "$@" ;;
    esac >>"$SF_WORK/$tool/commands.log" 2>&1 ||
        { tail -n 30 "$SF_WORK/$tool/commands.log" >&2; sf_die "$tool $* failed"; }
}

tool_backup() {
    local tool=$1 original=$2
    case $tool in
    pgbackrest)
        tool_run pgbackrest --stanza="$original" stanza-create
        tool_run pgbackrest --stanza="$original" check
        tool_run pgbackrest --stanza="$original" --type=full backup
        ;;
    barman)
        # Barman checks that WAL arrives before it backs up.
        await_archived "$original"
        tool_run barman archive-wal "$original"
        tool_run barman check "$original"
        tool_run barman backup --wait "$original"
        ;;
    esac
}

tool_restore() {
    local tool=$1 original=$2 name=$3 target=$4 dir args=()
    dir=$SF_WORK/$name
    mkdir -p "$dir" "$dir/log"
    chmod 755 "$dir"
    [ "$(id -u)" != 0 ] || chown postgres: "$dir"
    [ "$tool" != pgbackrest ] || sf_as_server mkdir -m 700 "$dir/data"
    case $tool in
    pgbackrest)
        case $target in
        immediate) args=(--type=immediate --target-action=promote) ;;
        name:*) args=(--type=name "--target=${target#name:}" --target-action=promote) ;;
        latest) args=() ;;
        esac
        # archive-mode=off: a restore must not archive its timeline into the
        # original's repository.
        tool_run pgbackrest --stanza="$original" --pg1-path="$dir/data" --archive-mode=off \
            "${args[@]}" restore
        ;;
    barman)
        case $target in
        immediate) args=(--target-immediate --target-action=promote) ;;
        name:*) args=("--target-name=${target#name:}" --target-action=promote) ;;
        latest) args=() ;;
        esac
        # The archive holds what the original's archive_command delivered.
        tool_run barman archive-wal "$original"
        tool_run barman recover "${args[@]}" "$original" latest "$dir/data"
        # Barman sets archive_command = false in what it recovers: no
        # archiver either, whose every attempt would fail.
        sf_conf "$name" "archive_mode = off"
        ;;
    esac
    sf_conf "$name" "unix_socket_directories = '$dir'"
}

# --- checks -------------------------------------------------------------------
# ids_to FILE NAME: every ID of NAME's table, in the order it minted them.
ids_to() {
    sf_psql "$1" -c "COPY (SELECT id FROM ids ORDER BY n) TO STDOUT" >"$2"
}

# expect_rising NAME: each ID of NAME's table above the one minted before it.
expect_rising() {
    sf_expect_eq "$1: each ID above the one it minted before it" 0 "$(sf_psql "$1" -c "
        SELECT count(*) FROM (SELECT id, lag(id) OVER (ORDER BY n) AS before FROM ids) AS t
        WHERE id <= before")"
}

# expect_in_turn WHAT NAME FILE...: the IDs of servers that minted one
# after the other (FILE by FILE; a server beside another must be on another
# node id) hold no ID twice, and on each node id every server's IDs lie
# above those of the servers before it. Checked in a table on NAME.
expect_in_turn() {
    local what=$1 name=$2 k=0 file
    shift 2
    sf_psql "$name" -c "CREATE TABLE minted (turn integer, id bigint)"
    for file in "$@"; do
        k=$((k + 1))
        sed "s/^/$k\t/" "$file" | sf_psql "$name" -c "COPY minted FROM STDIN"
    done
    sf_expect_eq "$what: no ID twice" 0 "$(sf_psql "$name" -c "SELECT count(*) - count(DISTINCT id) FROM minted")"
    sf_expect_eq "$what: on each node id, each server above the ones before it" "" "$(sf_psql "$name" -c "
        WITH t AS (SELECT turn, (snowflake_decode(id)).worker_id AS node, min(id) AS low, max(id) AS high
                   FROM minted GROUP BY 1, 2)
        SELECT string_agg(format('node id %s: turn %s from %s, turn %s up to %s',
                                 a.node, b.turn, b.low, a.turn, a.high), '; ')
        FROM t a JOIN t b ON a.node = b.node AND a.turn < b.turn AND b.low <= a.high")"
}

# nodes_of NAME FILE: the node ids of the IDs in FILE (one per line),
# decoded on NAME.
nodes_of() {
    [ -s "$2" ] || return 0
    sf_psql "$1" -c "SELECT DISTINCT (snowflake_decode(id)).worker_id
                     FROM unnest('{$(paste -sd, "$2")}'::bigint[]) AS id ORDER BY 1"
}

# --- one run: a tool, a way to name the node ----------------------------------
# copy_beside TOOL MODE ORIGINAL NAME TARGET: restores NAME from the backup
# (TARGET as tool_restore), starts it beside the minting ORIGINAL and checks
# that it never takes the original's node id or costs it a call.
copy_beside() {
    local tool=$1 mode=$2 original=$3 name=$4 target=$5 state out minted_before
    tool_restore "$tool" "$original" "$name" "$target"
    sf_start "$name" || sf_die "the restored $name did not start"
    await "$name" "SELECT NOT pg_is_in_recovery()" "the end of its recovery"
    sf_expect_eq "$name ends its recovery on a timeline of its own" t \
        "$(sf_psql "$name" -c "SELECT timeline_id > 1 FROM pg_control_checkpoint()")"
    await "$name" "SELECT lease_state IN ('held', 'refused', 'replaced') FROM snowflake_status()" \
        "an answer from the registry"
    state=$(sf_psql "$name" -c "SELECT lease_state FROM snowflake_status()")
    minted_before=$(sf_psql "$original" -c "SELECT count(*) FROM ids")
    # The original renews after the copy asked the registry: if the copy had
    # taken its lease over or ended it, this renewal would be refused.
    await_renewals "$original"
    await "$original" "SELECT count(*) > $minted_before FROM ids" "IDs minted after the copy started"
    sf_expect_eq "$name beside the original: the original still holds its lease" held \
        "$(sf_psql "$original" -c "SELECT lease_state FROM snowflake_status()")"
    sf_expect_eq "$name beside the original: the original was refused no call" 0 \
        "$(sf_psql "$original" -c "SELECT count(*) FROM refusals")"
    sf_log "$name ran beside the original, which minted $(($(sf_psql "$original" -c \
        "SELECT count(*) FROM ids") - minted_before)) IDs meanwhile (after the copy asked the registry)"
    if [ "$mode" = static ]; then
        sf_expect_eq "$name, with the original's static id, is refused it" refused "$state"
        out=$(sf_psql "$name" -c "SELECT snowflake_nextval()" 2>&1 || true)
        sf_expect_match "... its ERROR says so" "ERROR: .*refused this server a node id" "$out"
        sf_expect_match "... and that it is a copy of the original" \
            "is held by the server this one is a copy of: .*data directory $(sf_datadir "$original")," "$out"
        : >"$SF_WORK/$name.ids"
    else
        sf_expect_eq "$name, with 'auto', leases a node id" held "$state"
        sf_expect_eq "... another than the original's" t "$(sf_psql "$name" -c "
            SELECT worker_id <> $(sf_psql "$original" -c "SELECT worker_id FROM snowflake_status()")
            FROM snowflake_status()")"
        sf_stream_ids "$name" "$SF_WORK/$name.ids" 2000
    fi
    sf_expect_match "$name's log says it is a copy, and of which server" \
        "copy of:? .*data directory $(sf_datadir "$original")," "$(sf_server_log "$name")"
    sf_stop "$name"
}

run() {
    local tool=$1 mode=$2 original worker node restored issued lost timeline reserved local_resume
    original=${tool}_$mode
    sf_log "=== $tool, worker_id $mode"
    if [ "$mode" = static ]; then worker="snowflake_id.worker_id = 7"; else worker="snowflake_id.worker_id = 'auto'"; fi
    tool_setup "$tool" "$original"
    sf_new "$original" "$worker" "$registry_conf" "$ttl_conf" "archive_mode = on" "$archive_conf"
    sf_start "$original" || sf_die "$original did not start"
    sf_psql "$original" -c "CREATE EXTENSION snowflake_id" -c "$minting_schema"
    await "$original" "SELECT lease_state = 'held' FROM snowflake_status()" "its lease"
    node=$(sf_psql "$original" -c "SELECT worker_id FROM snowflake_status()")
    sf_psql "$original" -c "CALL mint()" 2>"$SF_WORK/$original.mint.err" &
    minting=$!
    await "$original" "SELECT count(*) >= 100 FROM ids" "its first IDs"

    tool_backup "$tool" "$original"
    backed_up=$(sf_psql "$original" -c "SELECT count(*) FROM ids")

    # (a) The full restore ends where the backup is consistent: its branch
    # point lies at the backup's end. A copy started before the original
    # recorded a position beyond its branch point counts as its successor
    # (by design: nothing tells it from a failover then), so the copy
    # starts once the original recorded a position beyond the backup's end.
    await "$original" "SELECT count(*) > $backed_up FROM ids" "IDs after the backup"
    await_renewals "$original"
    copy_beside "$tool" "$mode" "$original" "${original}_full" immediate

    # (b) A restore point after the backup, in the archive; the copy starts
    # once the original recorded a position beyond it (as above).
    sf_psql "$original" -c "SELECT pg_create_restore_point('before_the_drill')" >/dev/null
    await_archived "$original"
    await_renewals "$original"
    copy_beside "$tool" "$mode" "$original" "${original}_pitr" name:before_the_drill
    sf_expect_match "the point-in-time copy replayed archived WAL up to the restore point" \
        'recovery stopping at restore point "before_the_drill"' "$(sf_server_log "${original}_pitr")"

    # (c) The original is lost. The archive keeps what it wrote up to its
    # last archived segment; it mints on past every reservation that
    # segment holds (into WAL that is lost with it: a segment of 16 MB
    # takes minutes to fill at the client's pace), so that only the
    # registry knows how far it went. The restore starts with its clock an
    # hour behind: its own state would resume below the lost IDs.
    await_archived "$original"
    reserved=$(sf_psql "$original" -c "SELECT reserved_until FROM snowflake_status()")
    await "$original" "SELECT snowflake_timestamp(max(id)) > '$reserved' FROM ids" \
        "IDs beyond the archived reservation"
    sf_expect_eq "the original was refused no call at all" 0 \
        "$(sf_psql "$original" -c "SELECT count(*) FROM refusals")"
    ids_to "$original" "$SF_WORK/$original.ids"
    expect_rising "$original"
    sf_crash "$original"
    wait "$minting" || true
    sf_as_server rm -rf "$(sf_datadir "$original")"
    restored=${original}_restored
    tool_restore "$tool" "$original" "$restored" latest
    echo "-3600" >"$SF_CLOCK"
    sf_start "$restored" "${SF_FAKE_ENV[@]}" || sf_die "the restore that replaces $original did not start"
    await "$restored" "SELECT NOT pg_is_in_recovery()" "the end of its recovery"
    # Meaningful only if what the restore recovered resumes below the IDs
    # the original issued last (as registry_failover's restored copy).
    local_resume=$(grep -o 'snowflake_id: the generator resumes at [^ ,]*' \
        "$SF_WORK/$restored/server.log" | head -1 | awk '{print $6}')
    sf_expect_eq "the restore's own durable state lies below the original's last IDs" t \
        "$(sf_psql "$restored" -c "SELECT '$local_resume'::timestamptz
            < snowflake_timestamp($(tail -n 1 "$SF_WORK/$original.ids"))")"
    await "$restored" "SELECT lease_state = 'held' FROM snowflake_status()" "its lease"
    ids_to "$restored" "$SF_WORK/$restored.had"
    # pgBackRest restores with recovery.signal: archive recovery, a new
    # timeline. Barman, without a target, copies the archived WAL into
    # pg_wal: crash recovery, and the restore goes on on the original's
    # timeline. Both are what the DBA gets; the registry tells neither from
    # the original restarted.
    if [ "$tool" = pgbackrest ]; then timeline=2; else timeline=1; fi
    sf_expect_eq "the restore that replaces the original runs on timeline $timeline" "$timeline" \
        "$(sf_psql "$restored" -c "SELECT timeline_id FROM pg_control_checkpoint()")"
    sf_expect_eq "the restore replayed archived WAL beyond the backup" t \
        "$(sf_psql "$restored" -c "SELECT count(*) > $backed_up FROM ids")"
    # What the restore knows of is what reached the archive; the original's
    # last IDs only the registry bounds.
    lost=$(($(wc -l <"$SF_WORK/$original.ids") - $(wc -l <"$SF_WORK/$restored.had")))
    sf_expect_eq "the restore lost the original's last IDs ($lost, in WAL never archived)" t \
        "$([ "$lost" -gt 0 ] && echo t)"
    sf_stream_ids "$restored" "$SF_WORK/$restored.ids" 2000
    issued=$SF_WORK/$original.ids
    if [ "$(nodes_of "$restored" "$SF_WORK/$restored.ids")" = "$node" ]; then
        sf_expect_above "the restore on the original's node id $node, above the IDs in the archive" \
            "$SF_WORK/$restored.had" -- "$SF_WORK/$restored.ids"
        sf_expect_above "... and above every ID the original issued, lost with it" "$issued" -- \
            "$SF_WORK/$restored.ids"
    else
        sf_expect_eq "the restore, on another node id than the original's, only with 'auto'" auto "$mode"
    fi
    [ "$mode" = auto ] || sf_expect_eq "with a static id, the restore mints on it" "$node" \
        "$(nodes_of "$restored" "$SF_WORK/$restored.ids")"

    # The whole run: no ID twice, the copies on node ids of their own, and
    # each server's IDs above those of the servers that minted on its node
    # id before it.
    for copy in "${original}_full" "${original}_pitr"; do
        [ ! -s "$SF_WORK/$copy.ids" ] || sf_expect_eq "$copy minted on a node id of its own" "" \
            "$(nodes_of "$restored" "$SF_WORK/$copy.ids" | grep -x "$node" || true)"
    done
    expect_in_turn "$tool, $mode" "$restored" "$issued" "$SF_WORK/${original}_full.ids" \
        "$SF_WORK/${original}_pitr.ids" "$SF_WORK/$restored.ids"
    sf_stop "$restored"
}

for tool in ${SF_BACKUP_TOOLS:-pgbackrest barman}; do
    for mode in ${SF_BACKUP_MODES:-static auto}; do
        run "$tool" "$mode"
    done
done
