#!/usr/bin/env bash
# Start-up behaviour with the library preloaded:
#  - a bad layout, epoch or setting in postgresql.conf stops the server with a
#    FATAL naming the setting (PostgreSQL alone would warn and keep a default),
#    and a bad public_key without quoting it;
#  - a layout near its end, and an unset or out-of-range worker id, start the
#    server with a WARNING; snowflake_nextval() then refuses an invalid worker id.
source "$(dirname "$0")/../lib/suite.sh"

sf_new s "include_if_exists 'case.conf'"
case_conf=$(sf_datadir s)/case.conf

# set_case LINE...: the settings of one case, replacing the last case's. The
# state file goes too: cases switch layouts, which the layout lock would
# refuse (tests/server/layout.sh tests that).
set_case() {
    printf '%s\n' "$@" | sf_as_server tee "$case_conf" >/dev/null
    sf_as_server rm -f "$(sf_datadir s)/snowflake_id.state"
    sf_as_server truncate -s 0 "$SF_WORK/s/server.log" 2>/dev/null || true
}

expect_refused() {
    local what=$1 pattern=$2
    shift 2
    set_case "$@"
    if sf_start s; then
        sf_die "$what: the server started with: $*"
    fi
    local log
    log=$(sf_server_log s)
    sf_expect_match "$what: FATAL names the problem" "FATAL: +$pattern" "$log"
}

expect_refused "worker_bits out of range" \
    '40 is outside the valid range for parameter "snowflake_id.worker_bits" \(0 \.\. 31\)' \
    "snowflake_id.worker_id = 1" "snowflake_id.worker_bits = 40"
expect_refused "sequence_bits not a number" \
    'invalid value for parameter "snowflake_id.sequence_bits": "abc"' \
    "snowflake_id.worker_id = 1" "snowflake_id.sequence_bits = 'abc'"
expect_refused "negative datacenter_bits" \
    '-1 is outside the valid range for parameter "snowflake_id.datacenter_bits"' \
    "snowflake_id.worker_id = 1" "snowflake_id.datacenter_bits = -1"
expect_refused "widths leave no timestamp" \
    'snowflake_id.datacenter_bits \(31\) \+ worker_bits \(31\) \+ sequence_bits \(1\) leave no bits for the timestamp' \
    "snowflake_id.worker_id = 1" "snowflake_id.datacenter_bits = 31" "snowflake_id.worker_bits = 31" \
    "snowflake_id.sequence_bits = 1"
expect_refused "layout cannot carry the current time" \
    'the layout leaves 23 timestamp bits, which ran out at 2020-01-01 02:19:48.607Z' \
    "snowflake_id.worker_id = 1" "snowflake_id.worker_bits = 20" "snowflake_id.sequence_bits = 20"
# The default key of public IDs is a secret: refused, and never written to
# the log.
expect_refused "public_key not a key" \
    'snowflake_id.public_key is not a key for public IDs' \
    "snowflake_id.worker_id = 1" "snowflake_id.public_key = 'secret-zz-0123456789abcdef'"
if sf_server_log s | grep -q 'secret-zz'; then
    sf_die "public_key not a key: the log quotes the rejected value"
fi
expect_refused "epoch in the future" \
    'snowflake_id.epoch \(2999-01-01 00:00:00.000Z\) is in the future' \
    "snowflake_id.worker_id = 1" "snowflake_id.epoch = '2999-01-01T00:00:00Z'"
expect_refused "epoch unparseable" \
    'snowflake_id.epoch: invalid epoch "yesterday": not an integer and not an ISO-8601 date' \
    "snowflake_id.worker_id = 1" "snowflake_id.epoch = 'yesterday'"
expect_refused "epoch without a zone" \
    'snowflake_id.epoch: invalid epoch "2015-01-01T00:00:00": no time zone' \
    "snowflake_id.worker_id = 1" "snowflake_id.epoch = '2015-01-01T00:00:00'"
expect_refused "misspelt layout setting" \
    'unrecognized configuration parameter "snowflake_id.worker_bts"' \
    "snowflake_id.worker_id = 1" "snowflake_id.worker_bts = 5"
expect_refused "misspelt setting in other letter case" \
    'unrecognized configuration parameter "SNOWFLAKE_ID.worker_bts"' \
    "snowflake_id.worker_id = 1" "SNOWFLAKE_ID.worker_bts = 5"
expect_refused "worker_id written in octal" \
    'invalid value for parameter "snowflake_id.worker_id": "010"' \
    "snowflake_id.worker_id = '010'"
expect_refused "worker_bits with a fraction" \
    'invalid value for parameter "snowflake_id.worker_bits": "10.4"' \
    "snowflake_id.worker_id = 1" "snowflake_id.worker_bits = 10.4"
expect_refused "empty sequence_bits" \
    'invalid value for parameter "snowflake_id.sequence_bits": ""' \
    "snowflake_id.worker_id = 1" "snowflake_id.sequence_bits = ''"
expect_refused "empty epoch" \
    'snowflake_id.epoch: invalid epoch "": empty' \
    "snowflake_id.worker_id = 1" "snowflake_id.epoch = ''"
expect_refused "empty datacenter_id" \
    'invalid value for parameter "snowflake_id.datacenter_id": ""' \
    "snowflake_id.worker_id = 1" "snowflake_id.datacenter_id = ''"
expect_refused "worker_id not a number" \
    'invalid value for parameter "snowflake_id.worker_id": "seven"' \
    "snowflake_id.worker_id = 'seven'"
expect_refused "negative max_wait" \
    '-5 is outside the valid range for parameter "snowflake_id.max_wait"' \
    "snowflake_id.worker_id = 1" "snowflake_id.max_wait = -5"
expect_refused "unknown on_clock_step_back" \
    'invalid value for parameter "snowflake_id.on_clock_step_back": "switch"' \
    "snowflake_id.worker_id = 1" "snowflake_id.on_clock_step_back = 'switch'"
expect_refused "unknown on_replaced" \
    'invalid value for parameter "snowflake_id.on_replaced": "continue"' \
    "snowflake_id.worker_id = 1" "snowflake_id.on_replaced = 'continue'"
expect_refused "unknown takeover" \
    'invalid value for parameter "snowflake_id.takeover": "later"' \
    "snowflake_id.worker_id = 1" "snowflake_id.takeover = 'later'"

# A layout that ends in less than 5 years: 39 timestamp bits (about 17.4 years)
# from an epoch 15 years ago.
epoch_ms=$((($(date +%s) - 15 * 365 * 86400) * 1000))
set_case "snowflake_id.worker_id = 1" "snowflake_id.worker_bits = 12" "snowflake_id.epoch = '$epoch_ms'"
sf_start s || sf_die "server with a short-lived layout did not start"
sf_expect_match "start-up LOG line describes the layout" \
    'LOG: +snowflake_id: layout of 39 timestamp, 0 datacenter, 12 worker and 12 sequence bits' \
    "$(sf_server_log s)"
sf_expect_match "WARNING when fewer than 5 years remain" \
    "WARNING: +snowflake_id: the layout's timestamp field runs out at .* in less than 5 years" \
    "$(sf_server_log s)"
sf_psql s -c "CREATE EXTENSION snowflake_id"
sf_expect_eq "ID 0 decodes to the configured epoch" t \
    "$(sf_psql s -c "SELECT snowflake_timestamp(0) = to_timestamp($epoch_ms / 1000.0)")"
sf_expect_eq "new IDs carry the current time" t \
    "$(sf_psql s -c "SELECT abs(extract(epoch FROM snowflake_timestamp(snowflake_nextval()) - now())) < 60")"
sf_stop s

# Setting names are case-insensitive: a valid name in other letters is taken.
set_case "snowflake_id.worker_id = 1" "snowflake_id.Worker_Bits = 12"
sf_start s || sf_die "server with snowflake_id.Worker_Bits did not start"
sf_expect_eq "a setting name in other letter case is taken" 12 \
    "$(sf_psql s -c 'SHOW snowflake_id.worker_bits')"
sf_stop s

# Worker id unset: the server starts, says so, and snowflake_nextval() refuses.
set_case "snowflake_id.max_wait = '2s'"
sf_start s || sf_die "server without worker_id did not start"
sf_expect_match "WARNING for an unset worker id" 'WARNING: +snowflake_id.worker_id is not set' \
    "$(sf_server_log s)"
sf_expect_eq "units are accepted for max_wait" 2s "$(sf_psql s -c 'SHOW snowflake_id.max_wait')"
sf_stop s

# Worker id too wide for the layout: same, naming the value and the range.
set_case "snowflake_id.worker_id = 5000"
sf_start s || sf_die "server with worker_id = 5000 did not start"
sf_expect_match "WARNING for an out-of-range worker id" \
    'WARNING: +snowflake_id.worker_id = 5000 is out of range for snowflake_id.worker_bits = 10' \
    "$(sf_server_log s)"
out=$(sf_psql s -c "SELECT snowflake_nextval()" 2>&1 || true)
sf_expect_match "snowflake_nextval() refuses worker_id = 5000" \
    'ERROR: +snowflake_id.worker_id = 5000 is out of range for snowflake_id.worker_bits = 10' "$out"
sf_expect_match "with a hint on the valid range" 'HINT: +.*between 0 and 1023' "$out"

# Fixing the worker id needs only a reload; new sessions then generate.
sf_psql s -c "ALTER SYSTEM SET snowflake_id.worker_id = 9"
sf_as_server "$SF_STAGE_BIN/pg_ctl" -D "$(sf_datadir s)" reload >/dev/null
# A reload is asynchronous: poll (bounded) until a new session sees it.
sf_poll s "SHOW snowflake_id.worker_id" 9
sf_expect_eq "after reload, IDs carry worker 9" 9 \
    "$(sf_psql s -c 'SELECT worker_id FROM snowflake_decode(snowflake_nextval())')"

# A reload with a worker id that is not a plain decimal, written straight into
# the file (ALTER SYSTEM would refuse it): the old value stays, the log says why.
sf_psql s -c "ALTER SYSTEM RESET snowflake_id.worker_id"
printf '%s\n' "snowflake_id.worker_id = '010'" | sf_as_server tee "$case_conf" >/dev/null
sf_as_server "$SF_STAGE_BIN/pg_ctl" -D "$(sf_datadir s)" reload >/dev/null
for _ in $(seq 1 500); do
    grep -q 'invalid value for parameter "snowflake_id.worker_id": "010"' "$SF_WORK/s/server.log" && break
    sf_psql s -c "SELECT pg_sleep(0.01)" >/dev/null
done
sf_expect_match "a reload refuses worker_id = '010' and says so" \
    'invalid value for parameter "snowflake_id.worker_id": "010"' "$(sf_server_log s)"
sf_expect_eq "and the server keeps worker 9" 9 \
    "$(sf_psql s -c 'SELECT worker_id FROM snowflake_decode(snowflake_nextval())')"

# The default key of public IDs by reload, pasted as bytea writes it: the
# file reads '\x...' as 'x...', which is taken. The log names the setting,
# never the key; a bad key on reload keeps the old one, unquoted.
key=000102030405060708090a0b0c0d0e0f
printf '%s\n' "snowflake_id.worker_id = 9" "snowflake_id.public_key = '\\x$key'" |
    sf_as_server tee "$case_conf" >/dev/null
sf_as_server "$SF_STAGE_BIN/pg_ctl" -D "$(sf_datadir s)" reload >/dev/null
sf_poll s "SHOW snowflake_id.public_key" "x$key"
sf_expect_eq "the key from the file makes the keyed form" t \
    "$(sf_psql s -c "SELECT snowflake_public(42) = snowflake_public(42, '\\x$key'::bytea)")"
sf_await_log s 'parameter "snowflake_id.public_key" changed' ||
    sf_die "the reload did not log the key's change"
printf '%s\n' "snowflake_id.worker_id = 9" "snowflake_id.public_key = 'not-a-key-secret-zz'" |
    sf_as_server tee "$case_conf" >/dev/null
sf_as_server "$SF_STAGE_BIN/pg_ctl" -D "$(sf_datadir s)" reload >/dev/null
sf_await_log s 'invalid value for parameter "snowflake_id.public_key"' ||
    sf_die "a reload with a bad key did not log its refusal"
sf_expect_eq "and keeps the old key" "x$key" "$(sf_psql s -c "SHOW snowflake_id.public_key")"
if sf_server_log s | grep -q -e "$key" -e 'secret-zz'; then
    sf_die "the log quotes a key: $(sf_server_log s | grep -e "$key" -e 'secret-zz')"
fi

# PostgreSQL 18 and later show a module's name and version from its magic
# block (PG_MODULE_MAGIC_EXT): the control file's version.
if [ "$(sf_psql s -c "SHOW server_version_num")" -ge 180000 ]; then
    sf_expect_eq "pg_get_loaded_modules() names the module and its version" \
        "snowflake_id|$(sf_extension_version)" \
        "$(sf_psql s -c "SELECT module_name || '|' || version FROM pg_get_loaded_modules()
                         WHERE file_name = 'snowflake_id.so'")"
fi
sf_stop s
echo "startup: all checks passed"
