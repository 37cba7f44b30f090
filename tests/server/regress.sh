#!/usr/bin/env bash
# pg_regress (sql/ + expected/) against throwaway servers:
#   main       `make installcheck` (the Makefile's REGRESS): pg_regress starts a
#              temporary instance, preloaded, worker_id = 7: functions,
#              decoding, errors, settings
#   no_worker  preloaded, worker_id unset: snowflake_nextval() refuses
#   no_preload not preloaded: decoders work, snowflake_nextval() explains the preload
#   narrow     preloaded, 4 sequence bits, max_clock_drift 10 ms: the block limit
set -euo pipefail
source "$(dirname "$0")/../lib/cluster.sh"
sf_init_workspace
sf_stage

PG_REGRESS=$(dirname "$($SF_PG_CONFIG --pgxs)")/../test/regress/pg_regress
mkdir -p "$SF_WORK/regress"
cp -r "$SF_ROOT/sql" "$SF_ROOT/expected" "$SF_WORK/regress/"
chmod -R a+rX "$SF_WORK/regress"

status=0
run_regress() {
    local name=$1 out=$SF_WORK/regress/out_$1
    shift
    mkdir -p "$out"
    if ! "$PG_REGRESS" --inputdir="$SF_WORK/regress" --outputdir="$out" --bindir="$SF_CLIENT_BIN" \
        --host="$(sf_sockdir "$name")" --port="$SF_PORT" --user=postgres \
        --dbname=contrib_regression "$@"; then
        echo "--- $out/regression.diffs" >&2
        cat "$out/regression.diffs" >&2 || true
        status=1
    fi
}

sf_new no_worker
sf_new no_preload preload=no "snowflake_id.epoch = '2020-01-01T00:00:00Z'" \
    "snowflake_id.worker_id = 3"
sf_new narrow "snowflake_id.worker_id = 7" "snowflake_id.sequence_bits = 4" \
    "snowflake_id.max_clock_drift = 10"
for s in no_worker no_preload narrow; do
    sf_start "$s" || sf_die "server $s did not start"
done

# shellcheck disable=SC2119 # no TREE: a copy of this tree's files, as meant
sf_installcheck || status=1
run_regress no_worker snowflake_no_worker
run_regress no_preload snowflake_no_preload
run_regress narrow snowflake_narrow
exit "$status"
