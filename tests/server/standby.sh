#!/usr/bin/env bash
# On a hot standby snowflake_nextval() refuses (the standby carries the
# primary's worker id), while the decoders work.
set -euo pipefail
source "$(dirname "$0")/../lib/cluster.sh"
sf_init_workspace
sf_stage
sf_new primary "snowflake_id.worker_id = 3"
sf_start primary || sf_die "primary did not start"
sf_psql primary -c "CREATE EXTENSION snowflake_id" \
    -c "CREATE TABLE t (id bigint PRIMARY KEY DEFAULT snowflake_nextval())" \
    -c "INSERT INTO t SELECT FROM generate_series(1, 100)"
sf_new_standby primary standby
sf_start standby || sf_die "standby did not start"
sf_expect_eq "the standby is in recovery" t "$(sf_psql standby -c 'SELECT pg_is_in_recovery()')"

out=$(sf_psql standby -c "SELECT snowflake_nextval()" 2>&1 || true)
sf_expect_match "snowflake_nextval() refuses on a standby" \
    'ERROR: +cannot issue snowflake IDs during recovery' "$out"
sf_expect_match "with a hint" 'HINT: +Call snowflake_nextval\(\) on the primary' "$out"
sf_expect_eq "with SQLSTATE read_only_sql_transaction" 25006 "$(sf_psql standby -c "
    DO \$\$ BEGIN PERFORM snowflake_nextval(); EXCEPTION WHEN OTHERS THEN
        RAISE NOTICE '%', SQLSTATE; END \$\$" 2>&1 | sed -n 's/.*NOTICE: *//p')"
sf_expect_eq "decoding works on the standby" "100|3" \
    "$(sf_psql standby -c "SELECT count(*), min(d.worker_id) FROM t, snowflake_decode(id) d")"
sf_expect_eq "the primary still generates" t \
    "$(sf_psql primary -c "SELECT snowflake_nextval() > max(id) FROM t")"
echo "standby: all checks passed"
