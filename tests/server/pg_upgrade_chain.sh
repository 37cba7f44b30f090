#!/usr/bin/env bash
# pg_upgrade across PostgreSQL majors, 15 -> 16 -> 17 -> 18 -> 19, done as
# docs/upgrading.md tells a DBA, with full server binaries of each major
# (tools/fetch-pg --full) and the extension built against each major's
# headers. Three clusters go through every step:
#  - reg: a node with a static worker id (4), whose database `registry`
#    (the extension installed) is the registry of node ids of
#  - auto: a node with worker_id = 'auto' that leases its node id from reg,
#    its clock an hour further behind at each step (libfaketime), so that
#    only the state file and the registry's bound keep its IDs above;
#  - rauto: a node with worker_id = 'auto' that leases from a Redis
#    registry (a redis-server of the test's own), max_clock_drift 90 s, its
#    clock right (a takeover's lead would show), but an hour behind on the
#    step after the mistakes' one.
# Each holds a table on DEFAULT snowflake_nextval() and one with a
# `snowflake` column, filled by an ordinary role. At each step:
#  - pg_upgrade's starts of auto and rauto (binary-upgrade mode, their
#    registries running) take no lease: the registries' leases are what
#    they were; the new data directory has no state file but pg_upgrade's
#    mark, the old one no mark;
#  - reg goes through pg_upgrade with its state file copied: the registry's
#    leases come through unchanged, and it resumes above its old IDs;
#  - each 'auto' node's first start without the copy refuses to issue
#    (WARNING, and snowflake_nextval()'s ERROR 55000 naming the copy),
#    taking no lease; both make the same mistakes: pg_upgrade --link on the
#    first step; on the first step into 18 or later, pg_upgrade --check
#    first and then --swap, a backup's copy of the state file (refused) and
#    a copy made as root without -p (unreadable: said so, naming chown),
#    neither taking a lease; the copy made, it resumes above the copied
#    file, taking its node id back as after a restart, never with the
#    takeover's line: its clock behind, with the clock WARNING a static
#    node gives; its clock right, its first ID within a second of it;
#  - every new ID of each cluster is above every ID it issued before, in
#    all the steps, with no duplicate (the counts are printed), and
#    snowflake_status is readable.
# The minors are pairs PostgreSQL itself upgrades between
# (docs/upgrading.md): 15.12 -> 16.2 -> 17.12, then the data directory on
# 17.10's binaries -> 18.6 -> 19. New clusters of 18 and 19 are made with
# initdb --no-data-checksums, as the old ones have none.
set -euo pipefail
source "$(dirname "$0")/../lib/cluster.sh"
sf_init_workspace
sf_fake_clock

# --- the servers: one stage per server release, the extension built once
# per major in a copy of the tree of its own ----------------------------------
# The releases in upgrade order, each as tools/fetch-pg --full names it
# (PG_UPGRADE_CHAIN="15.12 15" runs a part by hand), and where a step's old
# side is another minor of the release upgraded into, that minor: 17.12
# gives every column it creates the option pg_attver, which 18.6 refuses
# (docs/upgrading.md); 17.10 makes none, so the step from 17 runs the data
# directory 17.12 made (where pg_upgrade restored the columns without the
# option) on 17.10's binaries, an upgrade PostgreSQL itself supports for any
# cluster of 17.10.
read -ra releases <<<"${PG_UPGRADE_CHAIN:-15.12 16 17 18 19}"
declare -A old_side=([17]=17.10)
declare -A stage_dir stage_bin stage_pgbin stage_client stage_config

stage_release() { # KEY TREE
    local key=$1 tree=$2 f
    SF_PG_CONFIG=$("$SF_ROOT/tools/fetch-pg" --full "$key") || sf_die "tools/fetch-pg --full $key failed"
    SF_PGBIN=$($SF_PG_CONFIG --bindir)
    SF_CLIENT_BIN=$SF_PGBIN
    SF_STAGE_DIR=$SF_WORK/stage-$key
    SF_ROOT=$tree PG_CONFIG=$SF_PG_CONFIG sf_stage
    # pg_upgrade runs these from the old and the new bin directory.
    for f in "$SF_PGBIN"/*; do
        [ -e "$SF_STAGE_BIN/${f##*/}" ] || cp -p "$f" "$SF_STAGE_BIN/"
    done
    stage_dir[$key]=$SF_STAGE
    stage_bin[$key]=$SF_STAGE_BIN
    stage_pgbin[$key]=$SF_PGBIN
    stage_client[$key]=$SF_CLIENT_BIN
    stage_config[$key]=$SF_PG_CONFIG
    sf_log "staged $key: $("$SF_STAGE_BIN/postgres" --version), $("$SF_STAGE_BIN/pg_upgrade" --version 2>/dev/null ||
        "$SF_STAGE_BIN/pg_controldata" --version)"
}

# use KEY: the cluster functions of tests/lib/cluster.sh act with KEY's stage.
use() {
    SF_STAGE=${stage_dir[$1]}
    SF_STAGE_BIN=${stage_bin[$1]}
    SF_PGBIN=${stage_pgbin[$1]}
    SF_CLIENT_BIN=${stage_client[$1]}
    SF_PG_CONFIG=${stage_config[$1]}
    SF_INITDB_ARGS=()
    [ "${1%%.*}" -lt 18 ] || SF_INITDB_ARGS=(--no-data-checksums)
}

for key in "${releases[@]}"; do
    tree=$SF_WORK/src-${key%%.*}
    mkdir -p "$tree"
    (cd "$SF_ROOT" && git ls-files -co --exclude-standard | grep -v '^build/' | tar -cf - -T - | tar -xf - -C "$tree")
    [ -n "${stage_dir[$key]:-}" ] || stage_release "$key" "$tree"
    [ -z "${old_side[$key]:-}" ] || stage_release "${old_side[$key]}" "$tree"
done

# --- the clusters at 15 ---------------------------------------------------------
registry_conf() { printf "snowflake_id.registry = '%s dbname=registry'" "$(sf_connstr "$1" | sed 's/ dbname=postgres//')"; }

# The Redis registry of rauto: one redis-server for the whole chain (no
# PostgreSQL major of its own), with the persistence the README asks for.
SF_REGISTRY_STORE=redis sf_new_registry redis
redis_conf=$SF_REGISTRY_CONF

# The two 'auto' nodes, each on a clock of its own (libfaketime's file):
# auto's an hour further behind at each step; rauto's right, so that a lead
# a start taken for a takeover would add shows (max_clock_drift 90 s, more
# than a step takes), except on the step after the mistakes' one, an hour
# behind.
rclock=$SF_WORK/rclock
echo "+0" >"$rclock"
chmod 644 "$rclock"
declare -A clock_file=([auto]=$SF_CLOCK [rauto]=$rclock) offset=([auto]=0 [rauto]=0) node_id
rauto_env=("${SF_FAKE_ENV[@]/#FAKETIME_TIMESTAMP_FILE=*/FAKETIME_TIMESTAMP_FILE=$rclock}")
set_clock() { # NODE HOURS
    offset[$1]=$2
    printf "%+d\n" $(($2 * 3600)) >"${clock_file[$1]}"
}

make_tables() {
    sf_psql "$1" -c "CREATE EXTENSION snowflake_id" -c "CREATE ROLE app LOGIN" \
        -c "CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT snowflake_nextval(), note text)" \
        -c "CREATE TABLE events (id snowflake PRIMARY KEY DEFAULT snowflake(snowflake_nextval()), at_release text)" \
        -c "GRANT SELECT, INSERT ON orders, events TO app"
}
# add_rows NAME RELEASE COUNT: COUNT rows in each table, as the application.
add_rows() {
    sf_psql "$1" -c "SET ROLE app" -c "INSERT INTO orders (note) SELECT '$2' FROM generate_series(1, $3)" \
        -c "INSERT INTO events (at_release) SELECT '$2' FROM generate_series(1, $3)"
}
as_app() {
    local name=$1
    shift
    sf_psql "$name" -c "SET ROLE app" "$@"
}
status_of() { # NAME COLUMN: as monitoring reads it
    sf_psql "$1" -c "SET ROLE pg_monitor" -c "SET default_transaction_read_only = on" \
        -c "SELECT $2 FROM snowflake_status()"
}
sqlstate_of() {
    as_app "$1" -c "DO \$\$ BEGIN PERFORM snowflake_nextval(); EXCEPTION WHEN OTHERS THEN
        RAISE NOTICE '%', SQLSTATE; END \$\$" 2>&1 | sed -n 's/.*NOTICE: *//p'
}
# ids NAME FILE [RELEASE]: the IDs of both tables (of RELEASE's rows only).
ids() {
    local where=
    [ -z "${3:-}" ] || where="WHERE note = '$3'"
    sf_psql "$1" -c "COPY (SELECT id FROM orders $where) TO STDOUT" >"$2"
    [ -z "${3:-}" ] || where="WHERE at_release = '$3'"
    sf_psql "$1" -c "COPY (SELECT id::bigint FROM events $where) TO STDOUT" >>"$2"
}
leases() {
    sf_psql "$1" -d registry -c "SELECT node_id, fence, holder_system_id, holder_data_directory,
                                        released_at IS NOT NULL, reserved_until_ms
                                 FROM snowflake_id.snowflake_registry_lease ORDER BY node_id"
}
# registry_leases NODE K: every lease of the registry NODE leases from, as
# it stands (for auto, the registry cluster reg-K).
registry_leases() {
    local key
    if [ "$1" = rauto ]; then
        for key in $(sf_redis redis --scan --pattern "$SF_REDIS_PREFIX:lease:*" | sort); do
            echo "$key $(sf_redis redis HGETALL "$key" | paste -d= - - | sort | paste -sd' ')"
        done
    else
        leases "reg-$2"
    fi
}
start_node() { # NAME
    if [ "${1%-*}" = rauto ]; then
        sf_start "$1" "${rauto_env[@]}"
    else
        sf_start "$1" "${SF_FAKE_ENV[@]}"
    fi
}
# node_conf NODE K: conf, the settings of NODE-K.
node_conf() {
    if [ "$1" = rauto ]; then
        conf=("${auto_conf[@]}" "$redis_conf" "snowflake_id.max_clock_drift = '90s'"
            "snowflake_id.lease_ttl = '300s'")
    else
        conf=("${auto_conf[@]}" "$(registry_conf "reg-$2")")
    fi
}

reg_conf=("snowflake_id.worker_id = 4" "snowflake_id.epoch = '2024-01-01T00:00:00Z'")
auto_conf=("snowflake_id.worker_id = 'auto'" "snowflake_id.epoch = '2024-01-01T00:00:00Z'")
# begin_at K KEY: the clusters reg-K, auto-K and rauto-K made on release
# KEY, with 5000 rows in each table.
begin_at() {
    local k=$1 key=$2 node
    use "$key"
    sf_new "reg-$k" "${reg_conf[@]}"
    sf_start "reg-$k" || sf_die "reg-$k did not start"
    make_tables "reg-$k"
    sf_psql "reg-$k" -c "CREATE DATABASE registry"
    sf_psql "reg-$k" -d registry -c "CREATE EXTENSION snowflake_id"
    for node in auto rauto; do
        # A first start without a state file starts at the clock plus
        # max_clock_drift: rauto's, at its clock 90 s behind, at the real
        # time, so that its IDs lie at its clock after a restart.
        set_clock "$node" 0
        [ "$node" = auto ] || echo "-90" >"$rclock"
        node_conf "$node" "$k"
        sf_new "$node-$k" "${conf[@]}"
        start_node "$node-$k" || sf_die "$node-$k did not start"
        make_tables "$node-$k"
        sf_poll "$node-$k" "SELECT lease_state FROM snowflake_status()" held
        if [ "$node" = rauto ]; then
            as_app "$node-$k" -c "SELECT snowflake_nextval()" >/dev/null
            sf_stop "$node-$k"
            set_clock "$node" 0
            start_node "$node-$k" || sf_die "$node-$k did not restart"
            sf_poll "$node-$k" "SELECT lease_state FROM snowflake_status()" held
        fi
        node_id[$node]=$(status_of "$node-$k" worker_id)
        add_rows "$node-$k" "$key" 5000
    done
    add_rows "reg-$k" "$key" 5000
    rows=10000
}

# pg_upgrade_into OLD_NAME OLD_KEY NEW_NAME NEW_KEY CONF_LINE...: a new
# cluster NEW_NAME with the old one's snowflake_id settings (CONF_LINEs),
# and pg_upgrade from OLD_NAME (stopped) into it.
# PG_UPGRADE_RUNS: the option sets of the pg_upgrade runs, one run each
# ("" by default: one plain run; "--check --swap": --check, then --swap).
pg_upgrade_into() {
    local old=$1 old_key=$2 new=$3 new_key=$4 run options
    shift 4
    use "$new_key"
    sf_new "$new" "$@"
    run=$SF_WORK/$new/run
    mkdir -p "$run"
    [ "$(id -u)" != 0 ] || chown postgres: "$run"
    for options in ${PG_UPGRADE_RUNS:-plain}; do
        [ "$options" != plain ] || options=
        # shellcheck disable=SC2086 # an option or none
        if ! (cd "$run" && sf_as_server "$SF_STAGE_BIN/pg_upgrade" -b "${stage_bin[$old_key]}" \
            -B "$SF_STAGE_BIN" -d "$(sf_datadir "$old")" -D "$(sf_datadir "$new")" -s "$run" \
            -p 50432 -P 50433 $options >>"$SF_WORK/$new/upgrade.log" 2>&1); then
            tail -n 30 "$SF_WORK/$new/upgrade.log" >&2
            find "$(sf_datadir "$new")/pg_upgrade_output.d" -name '*.log' -exec tail -n 20 {} + >&2 2>/dev/null || true
            sf_die "pg_upgrade $options $old ($old_key) -> $new ($new_key) failed"
        fi
        sf_log "ok: pg_upgrade $options $old ($old_key) -> $new ($new_key)"
    done
}

present() { sf_as_server test -e "$1" && echo yes || echo no; }

# upgrade_node NODE: NODE-(k-1) stopped and upgraded into NODE-k, while its
# registry runs (pg_upgrade's starts of it must take no lease), with the
# runs of the step ($runs).
upgrade_node() {
    local node=$1 old=$1-$((k - 1)) new=$1-$k before
    sf_stop "$old"
    before=$(registry_leases "$node" $((k - 1)))
    node_conf "$node" $((k - 1))
    PG_UPGRADE_RUNS=$runs pg_upgrade_into "$old" "$old_key" "$new" "$to" "${conf[@]}"
    use "$from"
    sf_expect_eq "$step: pg_upgrade's starts of $node took no lease" "$before" \
        "$(registry_leases "$node" $((k - 1)))"
    sf_expect_eq "$step: ... and wrote no state file into the new cluster, but the mark" "no yes" \
        "$(present "$(sf_datadir "$new")/snowflake_id.state") $(present "$(sf_datadir "$new")/snowflake_id.upgraded")"
    sf_expect_eq "$step: ... and the old one, its file its own, got no mark" no \
        "$(present "$(sf_datadir "$old")/snowflake_id.upgraded")"
}

# refused NODE WHAT SQLSTATE: NODE-k started as it is refuses to issue
# with SQLSTATE, taking no lease; its ERROR is in $out.
refused() {
    local node=$1 name=$1-$k before
    before=$(registry_leases "$node" "$k")
    start_node "$name" || sf_die "$name did not start ($2)"
    out=$(as_app "$name" -c "SELECT snowflake_nextval()" 2>&1 || true)
    sf_expect_eq "$step: $node, $2: SQLSTATE" "$3" "$(sqlstate_of "$name")"
    sf_poll "$name" "SELECT lease_state FROM snowflake_status()" refused
    sf_expect_eq "$step: $node, $2: ... and no lease taken" "$before" "$(registry_leases "$node" "$k")"
    sf_stop "$name"
}

# resume_node NODE HOURS: NODE-k, its registry upgraded, its clock HOURS
# from the real one, through the mistakes of the step, then with the copy.
resume_node() {
    local node=$1 name=$1-$k old=$1-$((k - 1)) state lead log=$SF_WORK/$1-$k/server.log
    set_clock "$node" "$2"
    node_conf "$node" "$k"
    sf_conf "$name" "${conf[@]}"
    state=$(sf_datadir "$name")/snowflake_id.state
    refused "$node" "the copy forgotten" 55000
    sf_expect_match "$step: $node, the copy forgotten: the start warns that it refuses" \
        'WARNING: +snowflake_id: this cluster was made by pg_upgrade and has no state file' "$(sf_server_log "$name")"
    sf_expect_match "$step: $node, the copy forgotten: ... naming the copy" \
        'HINT: +.*cp -p OLD_DATADIR/snowflake_id.state' "$out"
    if [ "$mistakes" = yes ]; then
        sf_as_server cp -p "$SF_WORK/$node.backup.state" "$state"
        refused "$node" "a backup's copy" 55000
        sf_expect_match "$step: $node, a backup's copy is refused" \
            'ERROR: +.*the state file "snowflake_id.state" is not the one the old cluster left when pg_upgrade stopped it' \
            "$out"
        sf_as_server rm "$state"
        if [ "$(id -u)" = 0 ]; then
            # Copied as root without -p: root's, mode 0600.
            cp "$(sf_datadir "$old")/snowflake_id.state" "$state"
            refused "$node" "a root-owned copy" 42501
            sf_expect_match "$step: $node, a root-owned copy is called unreadable, not corrupt" \
                'ERROR: +.*"snowflake_id.state" cannot be read by the server: Permission denied' "$out"
            sf_expect_match "$step: $node, ... naming chown" 'HINT: +.*chown' "$out"
            rm -f "$state"
        fi
    fi
    sf_as_server cp -p "$(sf_datadir "$old")/snowflake_id.state" "$state"
    sf_as_server rm -f "$log"
    start_node "$name" || sf_die "$name did not start with the copy"
    sf_poll "$name" "SELECT lease_state FROM snowflake_status()" held
    sf_expect_eq "$step: $node, with the copy: its node id back" "${node_id[$node]}" "$(status_of "$name" worker_id)"
    sf_expect_match "$step: $node: ... taken back as after a restart" \
        "LOG: +snowflake_id: took back node id ${node_id[$node]}, which the cluster this one was upgraded from held" \
        "$(sf_server_log "$name")"
    if [ "$2" = 0 ]; then
        lead=$(as_app "$name" -c "SELECT extract(epoch FROM snowflake_timestamp(snowflake_nextval()) - clock_timestamp())")
        sf_log "$step: $node's first ID lies $lead s from its clock"
        sf_expect_eq "$step: $node: ... its first ID within a second of the clock, not max_clock_drift ahead" t \
            "$(sf_psql "$name" -c "SELECT abs($lead) < 1")"
    else
        sf_expect_match "$step: $node: ... resumes from the file" \
            'LOG: +snowflake_id: the generator resumes at .*, above ' "$(sf_server_log "$name")"
        sf_expect_match "$step: $node: ... and warns of its clock as a static node does" \
            'WARNING: +snowflake_id: the wall clock \(.*\) is [0-9]+ ms behind the last ID issued before' \
            "$(sf_server_log "$name")"
    fi
    if grep -q "the lead comes from the node id lease\|previous holder of node id" "$log"; then
        sf_die "$step: $node: the upgrade was taken for a takeover: $(grep 'lead comes from\|previous holder' "$log")"
    fi
    sf_log "ok: $step: $node: ... not the takeover's line"
}

# --- each step --------------------------------------------------------------------
summary=()
for ((k = 0; k < ${#releases[@]}; k++)); do
    to=${releases[k]}
    if [ "$k" = 0 ]; then
        begin_at 0 "$to"
        continue
    fi
    from=${releases[k - 1]}
    old_key=${old_side[$from]:-$from}
    step="$old_key -> $to"
    sf_log "=== step $step"
    # The mistakes of docs/upgrading.md, each on one step for both 'auto'
    # nodes: --link on the first; on the first into 18 or later (--swap is
    # 18's), --check then --swap, a backup's copy and a root-owned one; the
    # clock behind: auto's at every step, rauto's on the step after.
    mistakes=no
    runs=plain
    [ "$k" != 1 ] || runs=--link
    if [ "${to%%.*}" -ge 18 ] && [ "${mistakes_done:-no}" = no ]; then
        mistakes=yes
        mistakes_done=$k
        runs="--check --swap"
        # A copy of the state file as a backup holds it: taken while the
        # node ran, before its last IDs.
        for node in auto rauto; do
            sf_as_server cp -p "$(sf_datadir "$node-$((k - 1))")/snowflake_id.state" "$SF_WORK/$node.backup.state"
            add_rows "$node-$((k - 1))" "$from" 100
        done
        rows=$((rows + 200))
    fi
    for node in reg auto rauto; do
        ids "$node-$((k - 1))" "$SF_WORK/$node.old"
    done
    upgrade_node auto
    upgrade_node rauto
    before=$(leases "reg-$((k - 1))")

    # The registry's cluster, its state file copied before the first start.
    sf_stop "reg-$((k - 1))"
    pg_upgrade_into "reg-$((k - 1))" "$old_key" "reg-$k" "$to" "${reg_conf[@]}"
    sf_as_server cp -p "$(sf_datadir "reg-$((k - 1))")/snowflake_id.state" "$(sf_datadir "reg-$k")/"
    sf_start "reg-$k" || sf_die "reg-$k did not start"
    sf_expect_eq "$step: the registry's leases came through pg_upgrade unchanged" "$before" \
        "$(leases "reg-$k")"
    # (its clock is right: "resumes at the wall clock, which is past the last ID")
    sf_expect_match "$step: reg resumes from the copied file" \
        'LOG: +snowflake_id: the generator resumes at ' "$(sf_server_log "reg-$k")"

    resume_node auto $((offset[auto] - 1))
    rauto_hours=0
    [ "${mistakes_done:-none}" != $((k - 1)) ] || rauto_hours=-1
    resume_node rauto "$rauto_hours"

    # New IDs: above every ID each cluster issued in every step so far.
    for node in reg auto rauto; do
        add_rows "$node-$k" "$to" 5000
        # The tables keep every row: .old holds every ID issued before.
        ids "$node-$k" "$SF_WORK/$node.new" "$to"
        sf_expect_above "$step: $node" "$SF_WORK/$node.old" -- "$SF_WORK/$node.new"
        summary+=("$step: $node: $(wc -l <"$SF_WORK/$node.new") new IDs, each above all $(wc -l <"$SF_WORK/$node.old") before")
        sf_expect_eq "$step: $node's snowflake_status is readable" 1 \
            "$(sf_psql "$node-$k" -c "SELECT count(*) FROM snowflake_id.snowflake_status")"
    done
    for node in auto rauto; do
        [ "${offset[$node]}" != 0 ] || continue
        sf_expect_eq "$step: the test means something: $node's old IDs are ahead of its clock now" t \
            "$(sf_psql "$node-$k" -c "SELECT snowflake_timestamp($(sort -n "$SF_WORK/$node.old" | tail -n 1))
                                             > clock_timestamp() + interval '3000 s'")"
    done
    sf_log "$step: auto holds node id ${node_id[auto]}, rauto ${node_id[rauto]}, the registry: $(leases "reg-$k" | cut -d'|' -f1,2,5 | paste -sd' ')"
    rows=$((rows + 10000))
    for node in auto rauto; do
        sf_expect_eq "$step: $node's rows came through" "$rows" \
            "$(sf_psql "$node-$k" -c "SELECT (SELECT count(*) FROM orders) + (SELECT count(*) FROM events)")"
    done
done

printf '%s\n' "${summary[@]}"
echo "pg_upgrade_chain: all checks passed"
