#!/usr/bin/env bash
# The durable reservation against the two restarts that used to repeat IDs,
# with the clock set back an hour across each (libfaketime):
#  - the postmaster and every backend killed with SIGKILL in the middle of a
#    load (as by a power loss): the next start resumes above the last
#    reservation, which was flushed before any ID under it left the server;
#  - a clean restart: it resumes right after the last ID, recorded exactly
#    when the server stopped.
# Either way no ID repeats, none is below the largest one a client received
# before, IDs are issued at once (on the catch-up clock, not after an hour's
# wait), and the log says where the generator resumed and warns about the
# clock. Also: a state file with no valid slot stops the generator, with the
# SQLSTATE for corrupted data, instead of guessing; one the server cannot
# read (a root-owned copy), a directory and an empty file stop it too, each
# called what it is, not corrupt; so does a state file
# older than the data directory (put back from a backup after a clean stop),
# and neither refusal advises restoring from a backup; reservations are
# renewed ahead of need; and a block is reserved up to its last ID.
source "$(dirname "$0")/../lib/suite.sh"
sf_fake_clock
clock=$SF_CLOCK

# 64 IDs per millisecond: a load of a few hundred thousand IDs spans many
# reservations (one per second of ID time).
sf_new d "snowflake_id.worker_id = 2" "snowflake_id.sequence_bits = 6"
sf_start d "${SF_FAKE_ENV[@]}" || sf_die "server did not start"
sf_psql d -c "CREATE EXTENSION snowflake_id"
state=$(sf_datadir d)/snowflake_id.state

lines() { wc -l <"$1"; }
max_of() { sort -n "$@" | sed -n '$p'; }
min_of() { sort -n "$@" | sed -n '1p'; }

# --- 1. SIGKILL under load, then the clock set back an hour ---------------
sf_stream_ids d "$SF_WORK/a1" 400000 2>/dev/null &
load1=$!
sf_stream_ids d "$SF_WORK/a2" 400000 2>/dev/null &
load2=$!
sf_await_ids 20000 "$load1" "$SF_WORK/a1" "$load2" "$SF_WORK/a2"
sf_crash d
wait "$load1" || true
wait "$load2" || true
sf_log "ok: killed the server after $(($(lines "$SF_WORK/a1") + $(lines "$SF_WORK/a2"))) IDs"
sf_expect_eq "the state file exists and holds its two slots, a page each" 8192 "$(stat -c %s "$state")"

echo "-3600" >"$clock"
sf_start d "${SF_FAKE_ENV[@]}" || sf_die "server did not restart after SIGKILL"
log=$(sf_server_log d)
sf_expect_match "LOG: it resumes above the durable reservation" \
    'LOG: +snowflake_id: the generator resumes at .*, above the durable reservation, [0-9]+ ms ahead of the wall clock' \
    "$log"
sf_expect_match "WARNING: the clock is behind the reservation" \
    'WARNING: +snowflake_id: the wall clock \(.*\) is [0-9]+ ms behind the durable reservation' "$log"
sf_stream_ids d "$SF_WORK/b" 20000
sf_expect_eq "after SIGKILL and the clock set back, IDs are issued at once" 20000 \
    "$(lines "$SF_WORK/b")"
sf_expect_above "after SIGKILL and the clock set back" "$SF_WORK/a1" "$SF_WORK/a2" -- "$SF_WORK/b"
before_max=$(max_of "$SF_WORK/a1" "$SF_WORK/a2")
sf_expect_eq "the test means something: the old IDs are an hour ahead of the clock" t \
    "$(sf_psql d -c "SELECT snowflake_timestamp($before_max) > clock_timestamp() + interval '55 min'")"

# --- 2. Clean restart, the clock set back another hour ---------------------
sf_stream_ids d "$SF_WORK/c" 50000
last_before=$(max_of "$SF_WORK/c")
sf_stop d
echo "-7200" >"$clock"
sf_start d "${SF_FAKE_ENV[@]}" || sf_die "server did not restart"
log=$(sf_server_log d)
sf_expect_match "LOG: it resumes above the last ID before the stop" \
    'LOG: +snowflake_id: the generator resumes at .*, above the last ID issued before the server stopped, [0-9]+ ms ahead of the wall clock' \
    "$log"
sf_expect_match "WARNING: the clock is behind the last ID" \
    'WARNING: +snowflake_id: the wall clock \(.*\) is [0-9]+ ms behind the last ID issued before the server stopped' \
    "$log"
sf_stream_ids d "$SF_WORK/e" 20000
sf_expect_above "after a clean restart with the clock set back" "$SF_WORK/a1" "$SF_WORK/a2" \
    "$SF_WORK/b" "$SF_WORK/c" -- "$SF_WORK/e"
# A reservation later would be a whole window (1 s) later. Right after the
# last ID, the first new one is later only by half the time from the start
# to the first call (the catch-up clock runs at half speed): under 900 ms
# for any start under 1.8 s, loaded machines included (250 ms failed there).
sf_expect_eq "it resumed right after the last ID, not a reservation later" t "$(sf_psql d -c "
    SELECT snowflake_timestamp($(min_of "$SF_WORK/e")) - snowflake_timestamp($last_before)
           < interval '900 ms'")"

# --- 3. A corrupt state file, and ones the server cannot read ---------------
sf_stop d
good=$SF_WORK/good.state
sf_as_server cp -p "$state" "$good"
# Both slots overwritten: nothing tells where the previous IDs ended.
sf_as_server dd if=/dev/urandom of="$state" bs=8192 count=1 conv=notrunc status=none
sf_start d "${SF_FAKE_ENV[@]}" || sf_die "server with a broken state file did not start"
sf_expect_match "WARNING at start-up for a corrupt state file" \
    "WARNING: +snowflake_id: the state file \"$state\" is corrupt" "$(sf_server_log d)"
out=$(sf_psql d -c "SELECT snowflake_nextval()" 2>&1 || true)
sf_expect_match "snowflake_nextval() refuses" \
    'ERROR: +snowflake_id cannot tell which IDs were issued before: the state file "snowflake_id.state" is corrupt' \
    "$out"
sf_expect_match "... with advice that is safe as written" 'HINT: +Do not restore the file from a backup' "$out"
grep -Fq -- "remove the file ($state) and restart" <<<"$out" ||
    sf_die "the HINT does not name the file by its full path ($state): $out"
sf_log "ok: ... naming the file by its full path"
sf_expect_eq "... with SQLSTATE data_corrupted" XX001 "$(sf_psql d -c "
    DO \$\$ BEGIN PERFORM snowflake_nextval(); EXCEPTION WHEN OTHERS THEN
        RAISE NOTICE '%', SQLSTATE; END \$\$" 2>&1 | sed -n 's/.*NOTICE: *//p')"
sf_expect_eq "decoding still works" 2 "$(sf_psql d -c "SELECT worker_id FROM snowflake_decode($last_before)")"
sf_stop d

# sqlstate_of NAME: the SQLSTATE snowflake_nextval() raises on NAME.
sqlstate_of() {
    sf_psql "$1" -c "DO \$\$ BEGIN PERFORM snowflake_nextval(); EXCEPTION WHEN OTHERS THEN
        RAISE NOTICE '%', SQLSTATE; END \$\$" 2>&1 | sed -n 's/.*NOTICE: *//p'
}
# A good file the server's account may not read: what a copy made as root
# without -p leaves (root's, mode 0600). Not called corrupt, and the way
# out is to give it back, not to remove it.
rm -f "$state"
if [ "$(id -u)" = 0 ]; then
    cp "$good" "$state"
else
    cp "$good" "$state" && chmod 000 "$state"
fi
sf_start d "${SF_FAKE_ENV[@]}" || sf_die "server with a state file it cannot read did not start"
sf_expect_match "WARNING at start-up: the file cannot be read, by whom" \
    "WARNING: +snowflake_id: the state file \"$state\" cannot be read by the server: Permission denied" \
    "$(sf_server_log d)"
out=$(sf_psql d -c "SELECT snowflake_nextval()" 2>&1 || true)
sf_expect_match "snowflake_nextval() refuses, naming the permission, not corruption" \
    'ERROR: +snowflake_id cannot tell which IDs were issued before: the state file "snowflake_id.state" cannot be read by the server: Permission denied' \
    "$out"
sf_expect_match "... with the owner and mode found" 'DETAIL: +The file is owned by uid [0-9]+ with mode 0[0-7]{3}' "$out"
grep -Fq -- "chown postgres: $state" <<<"$out" || [ "$(id -u)" != 0 ] ||
    sf_die "the HINT does not name the chown that repairs it: $out"
sf_expect_match "... and says not to remove it" 'Do not remove it' "$out"
sf_expect_eq "... with SQLSTATE insufficient_privilege" 42501 "$(sqlstate_of d)"
sf_stop d
# A directory where the file should be, and an empty file.
rm -f "$state"
sf_as_server mkdir "$state"
sf_start d "${SF_FAKE_ENV[@]}" || sf_die "server with a directory for a state file did not start"
out=$(sf_psql d -c "SELECT snowflake_nextval()" 2>&1 || true)
sf_expect_match "a directory is not a regular file" \
    'ERROR: +.*the state file "snowflake_id.state" is not a regular file' "$out"
sf_expect_eq "... SQLSTATE object_not_in_prerequisite_state" 55000 "$(sqlstate_of d)"
sf_stop d
sf_as_server rmdir "$state"
sf_as_server touch "$state"
sf_start d "${SF_FAKE_ENV[@]}" || sf_die "server with an empty state file did not start"
out=$(sf_psql d -c "SELECT snowflake_nextval()" 2>&1 || true)
sf_expect_match "an empty file is called empty" 'ERROR: +.*the state file "snowflake_id.state" is empty' "$out"
sf_stop d
# Given back to the server's account, the same file serves again.
sf_as_server cp -p "$good" "$state"
sf_start d "${SF_FAKE_ENV[@]}" || sf_die "server with its state file back did not start"
sf_expect_eq "with the file given back, IDs are issued again" 1 \
    "$(sf_psql d -c "SELECT count(snowflake_nextval())")"
sf_stop d

# --- 4. Reservations are renewed before they run out ------------------------
# One ID per millisecond and an hour of borrowing: each ID moves ID time on
# by 1 ms, as fast as the CPU goes. After a restart (the exact floor leaves
# the borrowing budget whole) the first ID reserves up to 1 s past itself;
# 600 IDs later the reservation is in its last 500 ms, and must have been
# extended by then (a window past the ID that reached the renew point), not
# when an ID needs it.
sf_new n "snowflake_id.worker_id = 3" "snowflake_id.sequence_bits = 0" \
    "snowflake_id.max_clock_drift = '1h'"
sf_start n || sf_die "server n did not start"
sf_psql n -c "CREATE EXTENSION snowflake_id" -c "SELECT snowflake_nextval()" >/dev/null
sf_stop n
sf_start n || sf_die "server n did not restart"
# state_bound NAME: the bound in the newest slot of NAME's state file.
state_bound() {
    local f g0 g1 at=24
    f=$(sf_datadir "$1")/snowflake_id.state
    g0=$(sf_as_server od -An -t u8 -j 8 -N 8 "$f" | tr -d ' ')
    g1=$(sf_as_server od -An -t u8 -j $((4096 + 8)) -N 8 "$f" | tr -d ' ')
    [ "$g1" -gt "$g0" ] && at=$((4096 + 24))
    sf_as_server od -An -t u8 -j "$at" -N 8 "$f" | tr -d ' '
}
first=$(sf_psql n -c "SELECT snowflake_nextval()")
last=$(sf_psql n -c "SELECT max(x) FROM (SELECT snowflake_nextval() AS x FROM generate_series(1, 600)) s")
bound=$(state_bound n)
sf_expect_eq "the IDs reached the first reservation's last 500 ms" t \
    "$(sf_psql n -c "SELECT snowflake_timestamp($last) - snowflake_timestamp($first) > interval '501 ms'")"
sf_expect_eq "the reservation was renewed ahead of need (bound past the first one's 1 s)" t \
    "$(sf_psql n -c "SELECT snowflake_timestamp($bound) - snowflake_timestamp($first) > interval '1.2 s'")"
sf_expect_eq "... and a window past the ID that reached the renew point, no further" t \
    "$(sf_psql n -c "SELECT snowflake_timestamp($bound) - snowflake_timestamp($first) <= interval '1.502 s'")"
sf_stop n

# --- 5. A block reaching past the reservation, then SIGKILL ----------------
# One ID per millisecond: a block of 5,000 spans 5 s of ID time, five
# reservation windows. The reservation must cover the block's last ID
# before any of it leaves the server; one made for its first ID would end
# 4 s short, and the start after the crash would repeat the tail.
# max_wait 10 s admits the block; the restart before it leaves the
# borrowing budget whole, as in 4.
sf_new k "snowflake_id.worker_id = 6" "snowflake_id.sequence_bits = 0" \
    "snowflake_id.max_clock_drift = '1h'" "snowflake_id.max_wait = '10s'"
sf_start k "${SF_FAKE_ENV[@]}" || sf_die "server k did not start"
sf_psql k -c "CREATE EXTENSION snowflake_id" -c "SELECT snowflake_nextval()" >/dev/null
sf_stop k
sf_start k "${SF_FAKE_ENV[@]}" || sf_die "server k did not restart"
sf_psql k -c "COPY (SELECT * FROM snowflake_nextval(5000)) TO STDOUT" >"$SF_WORK/block"
sf_expect_eq "the block arrived whole" 5000 "$(lines "$SF_WORK/block")"
sf_expect_eq "it spans more than the 1 s reservation window" t "$(sf_psql k -c "
    SELECT snowflake_timestamp($(max_of "$SF_WORK/block")) - snowflake_timestamp($(min_of "$SF_WORK/block"))
           > interval '4 s'")"
sf_crash k
echo "-10800" >"$clock"
sf_start k "${SF_FAKE_ENV[@]}" || sf_die "server k did not restart after SIGKILL"
sf_stream_ids k "$SF_WORK/after_block" 1000
sf_expect_above "after a block, SIGKILL and the clock set back" "$SF_WORK/block" -- \
    "$SF_WORK/after_block"
sf_stop k

# --- 6. A state file older than the data directory --------------------------
# What a backup of a running server holds: the file copied while it runs
# (a reservation). Then the server issues IDs past that copy's bound and
# stops cleanly; the copy is put back ("restored from a backup") and the
# clock is set back a minute more. Resuming from the copy would repeat the
# IDs issued after it: the server must refuse, and its advice must be safe.
sf_start k "${SF_FAKE_ENV[@]}" || sf_die "server k did not start"
sf_psql k -c "SELECT snowflake_nextval()" >/dev/null
copy_covers=$(sf_psql k -c "SELECT reserved_until FROM snowflake_status()")
kstate=$(sf_datadir k)/snowflake_id.state
sf_as_server cp "$kstate" "$SF_WORK/state.backup"
sf_poll k "SELECT snowflake_timestamp(snowflake_nextval()) > '$copy_covers'" t
sf_stream_ids k "$SF_WORK/after_copy" 1000
sf_stop k
sf_as_server cp "$SF_WORK/state.backup" "$kstate"
echo "-10860" >"$clock"
sf_start k "${SF_FAKE_ENV[@]}" || sf_die "server k with a restored state file did not start"
sf_expect_match "WARNING at start-up for a state file older than the data directory" \
    'WARNING: +snowflake_id: the state file "snowflake_id.state" is older than the data directory' \
    "$(sf_server_log k)"
out=$(sf_psql k -c "SELECT snowflake_nextval()" 2>&1 || true)
sf_expect_match "snowflake_nextval() refuses" \
    'ERROR: +snowflake_id cannot tell which IDs were issued before: the state file "snowflake_id.state" is older than the data directory' \
    "$out"
sf_expect_match "... saying why" 'DETAIL: +The server was last shut down cleanly .*restored from a backup or copied back' "$out"
sf_expect_match "... with advice that is safe as written" \
    'HINT: +Do not restore the file from a backup: .* give the server a worker id that no server has used' "$out"
sf_expect_eq "... with SQLSTATE object_not_in_prerequisite_state" 55000 "$(sf_psql k -c "
    DO \$\$ BEGIN PERFORM snowflake_nextval(); EXCEPTION WHEN OTHERS THEN
        RAISE NOTICE '%', SQLSTATE; END \$\$" 2>&1 | sed -n 's/.*NOTICE: *//p')"
out=$(sf_psql k -c "SELECT snowflake_accept_layout()" 2>&1 || true)
sf_expect_match "snowflake_accept_layout() does not lift it" \
    'ERROR: +cannot accept a layout: the state file "snowflake_id.state" is older than the data directory' \
    "$out"
sf_stop k
sf_start k "${SF_FAKE_ENV[@]}" || sf_die "server k did not restart"
out=$(sf_psql k -c "SELECT snowflake_nextval()" 2>&1 || true)
sf_expect_match "the refusal outlives a restart" 'is older than the data directory' "$out"
# The way out for a clock that was set back: no file, and a new worker id.
sf_stop k
sf_as_server rm "$kstate"
sf_conf k "snowflake_id.worker_id = 9"
sf_start k "${SF_FAKE_ENV[@]}" || sf_die "server k did not start without its state file"
sf_stream_ids k "$SF_WORK/new_worker" 1000
sf_expect_eq "with a new worker id it issues again, nothing repeated" 0 \
    "$(sort -n "$SF_WORK/block" "$SF_WORK/after_block" "$SF_WORK/after_copy" "$SF_WORK/new_worker" |
        uniq -d | wc -l)"
sf_stop k
echo "durable: all checks passed"
