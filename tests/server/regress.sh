#!/usr/bin/env bash
# pg_regress (sql/ + expected/) against throwaway servers:
#   main       `make installcheck` (the Makefile's REGRESS): pg_regress starts a
#              temporary instance, preloaded, worker_id = 7: functions,
#              decoding, errors, settings
#   no_worker  preloaded, worker_id unset: snowflake_nextval() refuses
#   no_preload not preloaded: decoders work, snowflake_nextval() explains the preload
#   narrow     preloaded, 4 sequence bits, max_clock_drift 10 ms: the block limit
source "$(dirname "$0")/../lib/suite.sh"

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

# A message quotes long bad input cut where a character of the database's
# encoding ends: a cut inside one fails the message's conversion to the
# client's encoding (the client gets 22021 in place of the error, and the
# input is lost), and UTF-8's rule, applied to LATIN1, skips back over every
# byte from 0x80 to 0xBF as a continuation byte (the quote comes out empty).
# From a UTF-8 client, every entry point that quotes input gets 200
# characters of WIDTH bytes each in the database; its error must keep its
# SQLSTATE and quote exactly the whole characters that fit its limit, then
# "...".
# SQL_ASCII takes any cut: it keeps UTF-8's rule, for the UTF-8 it mostly holds.
quote_error() {
    PGCLIENTENCODING=UTF8 "$SF_CLIENT_BIN/psql" -h "$(sf_sockdir no_worker)" -p "$SF_PORT" \
        -U postgres -d "$1" -X -q -v VERBOSITY=verbose -c "$2" 2>&1 |
        grep -E '^(ERROR|DETAIL):' || true
}
repeat_text() {
    local i out=
    for ((i = 0; i < $2; i++)); do out+=$1; done
    printf '%s' "$out"
}
key="'\\x000102030405060708090a0b0c0d0e0f'::bytea"
cut='\.\.\."'
for spec in "EUC_JP ル 2" "LATIN1 ° 1" "SQL_ASCII ル 3" "UTF8 ル 3"; do
    read -r enc c width <<<"$spec"
    db=quote_${enc,,}
    sf_psql no_worker -c "CREATE DATABASE $db ENCODING '$enc' LC_COLLATE 'C' LC_CTYPE 'C'
        TEMPLATE template0"
    sf_psql no_worker -d "$db" -c "CREATE EXTENSION snowflake_id"
    long=$(repeat_text "$c" 200)
    # what | SQL | SQLSTATE | bytes quoted at most | what follows the quote
    while IFS='|' read -r what sql code limit after; do
        out=$(quote_error "$db" "$sql")
        sf_expect_match "$enc, $what: SQLSTATE $code" "^ERROR:  $code: " "$out"
        sf_expect_match "$enc, $what: the first $((limit / width)) characters whole" \
            "\"$(repeat_text "$c" $((limit / width)))$after" "$out"
    done <<CASES
snowflake input|SELECT '$long'::snowflake|22P02|100|$cut
snowflake_from_public|SELECT snowflake_from_public('$long', $key)|22P02|100|$cut
snowflake_public's prefix|SELECT snowflake_public(1, $key, '$long')|22023|100|$cut for public IDs
objectid_timestamp|SELECT objectid_timestamp('$long')|22P02|64|$cut
snowflake_decode's layout|SELECT snowflake_decode(1, '$long')|22023|120|$cut: unknown preset
snowflake_timestamp's layout part|SELECT snowflake_timestamp(1, '$long')|22023|40|$cut at character 1
snowflake_id.epoch|ALTER SYSTEM SET snowflake_id.epoch = '$long'|22023|80|$cut
snowflake_id.registry|ALTER SYSTEM SET snowflake_id.registry = 'redis://h/$long'|22023|120|$cut is not a number
CASES
    # Counted in characters of the encoding, not in UTF-8's lead bytes.
    sf_expect_match "$enc, objectid_timestamp counts characters" "this text has 30 characters" \
        "$(quote_error "$db" "SELECT objectid_timestamp('$(repeat_text "$c" 30)')")"
done
exit "$status"
