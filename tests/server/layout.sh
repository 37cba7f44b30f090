#!/usr/bin/env bash
# The layout lock: the layout and epoch are recorded with the reservation.
# A server restarted with another epoch or other widths, after IDs were
# issued, refuses to issue (new IDs could equal or sort below old ones) until
# a superuser accepts the new layout with snowflake_accept_layout(); from
# then on every new ID is above every old one, across restarts too.
source "$(dirname "$0")/../lib/suite.sh"

sf_new l "snowflake_id.worker_id = 9" "include_if_exists 'layout.conf'"
layout_conf=$(sf_datadir l)/layout.conf
set_layout() { printf '%s\n' "$@" | sf_as_server tee "$layout_conf" >/dev/null; }
sf_start l || sf_die "server did not start"
sf_psql l -c "CREATE EXTENSION snowflake_id" -c "CREATE TABLE ids (id bigint PRIMARY KEY)" \
    -c "CREATE ROLE app LOGIN" -c "GRANT ALL ON ids TO app"
sf_psql l -c "INSERT INTO ids SELECT snowflake_nextval() FROM generate_series(1, 10000)"

sqlstate_of() { # sqlstate_of SERVER SQL
    sf_psql "$1" -c "DO \$\$ BEGIN PERFORM $2; EXCEPTION WHEN OTHERS THEN
        RAISE NOTICE '%', SQLSTATE; END \$\$" 2>&1 | sed -n 's/.*NOTICE: *//p'
}

# expect_refused_then_accepted WHAT: the server runs a layout other than the
# one the IDs in table ids were issued under.
expect_refused_then_accepted() {
    local what=$1 out old_max bound
    sf_expect_match "$what: WARNING at start-up" \
        'WARNING: +snowflake_id: the layout changed since IDs were issued' "$(sf_server_log l)"
    out=$(sf_psql l -c "SELECT snowflake_nextval()" 2>&1 || true)
    sf_expect_match "$what: snowflake_nextval() refuses" \
        'ERROR: +the snowflake ID layout changed since IDs were issued' "$out"
    sf_expect_match "$what: ... naming both layouts" \
        'DETAIL: +IDs were issued under time [0-9]+, datacenter [0-9]+, worker [0-9]+, sequence [0-9]+ bits, epoch .*; the server now runs time' \
        "$out"
    sf_expect_match "$what: ... and the way out" 'HINT: +.*snowflake_accept_layout\(\)' "$out"
    sf_expect_eq "$what: ... with SQLSTATE 55000" 55000 "$(sqlstate_of l 'snowflake_nextval()')"
    out=$(sf_psql l -U app -c "SELECT snowflake_accept_layout()" 2>&1 || true)
    sf_expect_match "$what: an ordinary role cannot accept" 'ERROR: +permission denied' "$out"
    sf_expect_eq "$what: still refused" 55000 "$(sqlstate_of l 'snowflake_nextval()')"

    old_max=$(sf_psql l -c "SELECT max(id) FROM ids")
    bound=$(sf_psql l -c "SELECT snowflake_accept_layout()" 2>"$SF_WORK/accept.err")
    [ "$bound" -gt "$old_max" ] || sf_die "$what: the accepted bound $bound is not above $old_max"
    sf_log "ok: $what: a superuser accepts; new IDs start above every old one"
    sf_expect_match "$what: the log says where the generator resumes" \
        'LOG: +snowflake_id: the generator resumes at' "$(sf_server_log l)"
    sf_psql l -c "INSERT INTO ids SELECT snowflake_nextval() FROM generate_series(1, 10000)"
    sf_expect_eq "$what: every new ID is above every old one" t \
        "$(sf_psql l -c "SELECT min(id) > $old_max FROM ids WHERE id > $old_max" \
            -c "SELECT count(*) = 10000 FROM ids WHERE id > $old_max" | sort -u)"
    # Accepted for good: the next start records no change.
    sf_stop l
    sf_as_server truncate -s 0 "$SF_WORK/l/server.log"
    sf_start l || sf_die "$what: server did not restart after accepting"
    sf_expect_eq "$what: after a restart, no refusal" t \
        "$(sf_psql l -c "SELECT snowflake_nextval() > (SELECT max(id) FROM ids)")"
    sf_expect_eq "$what: ... and no layout WARNING" 0 \
        "$(sf_server_log l | grep -c 'layout changed' || true)"
}

# 1. An epoch one hour later: the same instant gets a smaller timestamp, so
#    new IDs would sort below the old ones. Accepted, the old IDs lie an hour
#    ahead of the clock under the new epoch: the generator catches up.
sf_stop l
sf_as_server truncate -s 0 "$SF_WORK/l/server.log"
set_layout "snowflake_id.epoch = '2020-01-01T01:00:00Z'"
sf_start l || sf_die "server with a later epoch did not start"
sf_expect_eq "later epoch: the test means something (IDs of now sort below old ones)" t \
    "$(sf_psql l -c "SELECT snowflake_from_timestamp(now()) < (SELECT max(id) FROM ids)")"
expect_refused_then_accepted "later epoch"
# An hour, less the time since the last old ID (restarts included: more
# than max_clock_drift on a loaded machine), plus what that ID borrowed.
lead=$(sed -n 's/.*WARNING: *snowflake_id: the wall clock .* is \([0-9]*\) ms behind the durable reservation.*/\1/p' \
    "$SF_WORK/accept.err")
# shellcheck disable=SC2015 # sf_die when any of the three fails, as meant
[ -n "$lead" ] && [ "$lead" -ge 3540000 ] && [ "$lead" -le 3602000 ] ||
    sf_die "later epoch: accepting should warn that the old IDs lie an hour ahead: $(cat "$SF_WORK/accept.err")"
sf_log "ok: later epoch: accepting warns that the old IDs lie an hour ahead ($lead ms)"


# 2. Other widths, the epoch kept: 10 sequence bits, 12 worker bits.
sf_stop l
sf_as_server truncate -s 0 "$SF_WORK/l/server.log"
set_layout "snowflake_id.epoch = '$(date -u -d '2 days ago' +%Y-%m-%dT00:00:00Z)'" \
    "snowflake_id.sequence_bits = 10" "snowflake_id.worker_bits = 12"
sf_start l || sf_die "server with other widths did not start"
expect_refused_then_accepted "other widths"

# 3. Going back to the settings IDs were issued under is also a change now:
#    the lock follows what was last accepted, not what was first configured.
sf_stop l
sf_as_server truncate -s 0 "$SF_WORK/l/server.log"
set_layout
sf_start l || sf_die "server with the original layout did not start"
expect_refused_then_accepted "the original layout again"
sf_stop l
echo "layout: all checks passed"
