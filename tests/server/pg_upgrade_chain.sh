#!/usr/bin/env bash
# pg_upgrade across PostgreSQL majors, 15 -> 16 -> 17 -> 18 -> 19, done as
# docs/upgrading.md tells a DBA, with full server binaries of each major
# (tools/fetch-pg --full) and the extension built against each major's
# headers. Two clusters go through every step:
#  - reg: a node with a static worker id (4), whose database `registry`
#    (the extension installed) is the registry of node ids of
#  - auto: a node with worker_id = 'auto' that leases its node id from reg,
#    its clock an hour further behind at each step (libfaketime), so that
#    only the state file and the registry's bound keep its IDs above.
# Each holds a table on DEFAULT snowflake_nextval() and one with a
# `snowflake` column. At each step:
#  - pg_upgrade's own starts of auto (binary-upgrade mode, with reg
#    running) take no lease: the registry's leases are what they were; the
#    new data directory has no state file but pg_upgrade's mark, the old
#    one no mark;
#  - reg goes through pg_upgrade with its state file copied: the registry's
#    leases come through unchanged, and it resumes above its old IDs;
#  - auto's first start without the copy refuses to issue (WARNING, and
#    snowflake_nextval()'s ERROR naming the copy); on the first step into
#    18 or later, also with the copy made as root without -p (unreadable:
#    said so), pg_upgrade run with --check first and then --swap; the copy
#    made, it resumes above the copied file, taking its node id back as
#    after a restart, with the clock WARNING a static node gives, not the
#    takeover's line;
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
offset=0 # auto's clock, in hours from the real one

make_tables() {
    sf_psql "$1" -c "CREATE EXTENSION snowflake_id" \
        -c "CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT snowflake_nextval(), note text)" \
        -c "CREATE TABLE events (id snowflake PRIMARY KEY DEFAULT snowflake(snowflake_nextval()), at_release text)"
}
# add_rows NAME RELEASE COUNT: COUNT rows in each table.
add_rows() {
    sf_psql "$1" -c "INSERT INTO orders (note) SELECT '$2' FROM generate_series(1, $3)" \
        -c "INSERT INTO events (at_release) SELECT '$2' FROM generate_series(1, $3)"
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
start_auto() { sf_start "$1" "${SF_FAKE_ENV[@]}"; }

reg_conf=("snowflake_id.worker_id = 4" "snowflake_id.epoch = '2024-01-01T00:00:00Z'")
auto_conf=("snowflake_id.worker_id = 'auto'" "snowflake_id.epoch = '2024-01-01T00:00:00Z'")
# begin_at K KEY: the two clusters reg-K and auto-K made on release KEY,
# with 5000 rows in each table.
begin_at() {
    local k=$1 key=$2
    use "$key"
    offset=0
    echo "+0" >"$SF_CLOCK"
    sf_new "reg-$k" "${reg_conf[@]}"
    sf_start "reg-$k" || sf_die "reg-$k did not start"
    make_tables "reg-$k"
    sf_psql "reg-$k" -c "CREATE DATABASE registry"
    sf_psql "reg-$k" -d registry -c "CREATE EXTENSION snowflake_id"
    sf_new "auto-$k" "${auto_conf[@]}" "$(registry_conf "reg-$k")"
    start_auto "auto-$k" || sf_die "auto-$k did not start"
    make_tables "auto-$k"
    sf_poll "auto-$k" "SELECT lease_state FROM snowflake_status()" held
    add_rows "reg-$k" "$key" 5000
    add_rows "auto-$k" "$key" 5000
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
    ids "reg-$((k - 1))" "$SF_WORK/reg.old"
    ids "auto-$((k - 1))" "$SF_WORK/auto.old"

    # auto first, while its registry runs: pg_upgrade's starts of it must
    # take no lease.
    sf_stop "auto-$((k - 1))"
    before=$(leases "reg-$((k - 1))")
    # The mistakes, on the first step into 18 or later (--swap is 18's).
    mistakes=no
    if [ "${to%%.*}" -ge 18 ] && [ "${mistakes_done:-no}" = no ]; then
        mistakes=yes
        mistakes_done=yes
    fi
    runs=plain
    [ "$mistakes" = no ] || runs="--check --swap"
    PG_UPGRADE_RUNS=$runs pg_upgrade_into "auto-$((k - 1))" "$old_key" "auto-$k" "$to" "${auto_conf[@]}" \
        "$(registry_conf "reg-$((k - 1))")"
    use "$from"
    sf_expect_eq "$step: pg_upgrade's starts of the 'auto' node took no lease" "$before" \
        "$(leases "reg-$((k - 1))")"
    sf_expect_eq "$step: ... and wrote no state file into the new cluster, but the mark" "no yes" \
        "$(sf_as_server test -e "$(sf_datadir "auto-$k")/snowflake_id.state" && echo yes || echo no) $(
            sf_as_server test -e "$(sf_datadir "auto-$k")/snowflake_id.upgraded" && echo yes || echo no)"
    sf_expect_eq "$step: ... and the old one, its file its own, got no mark" no \
        "$(sf_as_server test -e "$(sf_datadir "auto-$((k - 1))")/snowflake_id.upgraded" && echo yes || echo no)"

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

    # auto: the DBA's check of docs/upgrading.md first, then the copy.
    offset=$((offset - 1))
    echo "$((offset * 3600))" >"$SF_CLOCK"
    sf_conf "auto-$k" "$(registry_conf "reg-$k")"
    start_auto "auto-$k" || sf_die "auto-$k did not start"
    sf_expect_match "$step: without the copy, the 'auto' node warns that it refuses" \
        'WARNING: +snowflake_id: this cluster was made by pg_upgrade and has no state file' \
        "$(sf_server_log "auto-$k")"
    out=$(sf_psql "auto-$k" -c "SELECT snowflake_nextval()" 2>&1 || true)
    sf_expect_match "$step: ... and refuses, naming the copy" 'HINT: +.*cp -p OLD_DATADIR/snowflake_id.state' "$out"
    sf_stop "auto-$k"
    auto_state=$(sf_datadir "auto-$k")/snowflake_id.state
    if [ "$mistakes" = yes ] && [ "$(id -u)" = 0 ]; then
        # Copied as root without -p: root's, mode 0600.
        cp "$(sf_datadir "auto-$((k - 1))")/snowflake_id.state" "$auto_state"
        start_auto "auto-$k" || sf_die "auto-$k did not start with a root copy"
        out=$(sf_psql "auto-$k" -c "SELECT snowflake_nextval()" 2>&1 || true)
        sf_expect_match "$step: a root-owned copy is called unreadable, not corrupt" \
            'ERROR: +.*"snowflake_id.state" cannot be read by the server: Permission denied' "$out"
        sf_stop "auto-$k"
        rm -f "$auto_state"
    fi
    sf_as_server cp -p "$(sf_datadir "auto-$((k - 1))")/snowflake_id.state" "$auto_state"
    sf_as_server rm -f "$SF_WORK/auto-$k/server.log"
    start_auto "auto-$k" || sf_die "auto-$k did not restart"
    sf_poll "auto-$k" "SELECT lease_state FROM snowflake_status()" held
    sf_expect_match "$step: with the copy, the 'auto' node resumes from the file" \
        'LOG: +snowflake_id: the generator resumes at .*, above ' "$(sf_server_log "auto-$k")"
    sf_expect_match "$step: ... takes its node id back as after a restart" \
        'LOG: +snowflake_id: took back node id [0-9]+, which the cluster this one was upgraded from held' \
        "$(sf_server_log "auto-$k")"
    sf_expect_match "$step: ... and warns of its clock as a static node does" \
        'WARNING: +snowflake_id: the wall clock \(.*\) is [0-9]+ ms behind the last ID issued before' \
        "$(sf_server_log "auto-$k")"
    if grep -q "the lead comes from the node id lease\|previous holder of node id" "$SF_WORK/auto-$k/server.log"; then
        sf_die "$step: the upgrade was taken for a takeover: $(grep 'lead comes from\|previous holder' "$SF_WORK/auto-$k/server.log")"
    fi
    sf_log "ok: $step: ... not the takeover's line"

    # New IDs: above every ID either cluster issued in every step so far.
    add_rows "reg-$k" "$to" 5000
    add_rows "auto-$k" "$to" 5000
    for node in reg auto; do
        # The tables keep every row: .old holds every ID issued before.
        ids "$node-$k" "$SF_WORK/$node.new" "$to"
        sf_expect_above "$step: $node" "$SF_WORK/$node.old" -- "$SF_WORK/$node.new"
        summary+=("$step: $node: $(wc -l <"$SF_WORK/$node.new") new IDs, each above all $(wc -l <"$SF_WORK/$node.old") before")
        sf_expect_eq "$step: $node's snowflake_status is readable" 1 \
            "$(sf_psql "$node-$k" -c "SELECT count(*) FROM snowflake_id.snowflake_status")"
    done
    sf_expect_eq "$step: the test means something: auto's old IDs are ahead of its clock now" t \
        "$(sf_psql "auto-$k" -c "SELECT snowflake_timestamp($(sort -n "$SF_WORK/auto.old" | tail -n 1))
                                         > clock_timestamp() + interval '3000 s'")"
    sf_log "$step: auto holds node id $(sf_psql "auto-$k" -c "SELECT worker_id FROM snowflake_status()"), the registry: $(leases "reg-$k" | cut -d'|' -f1,2,5 | paste -sd' ')"
    rows=$((rows + 10000))
    sf_expect_eq "$step: the rows came through" "$rows" \
        "$(sf_psql "auto-$k" -c "SELECT (SELECT count(*) FROM orders) + (SELECT count(*) FROM events)")"
done

printf '%s\n' "${summary[@]}"
echo "pg_upgrade_chain: all checks passed"
