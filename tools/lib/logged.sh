# shellcheck shell=bash
# Running a test command so that its output reaches the terminal as it comes
# and a log file too, from which tests/run-all and .ci/run print a failure's
# excerpt again at the end, where a CI that keeps only the tail of the output
# shows it.
#
#   sf_run_logged LOG CMD...   runs CMD... with stdout and stderr in LOG,
#                              followed to stdout; returns CMD's status.
#                              LOG is a file, not a pipe: a daemon the command
#                              leaves behind holding its output open cannot
#                              keep the caller waiting. An EXIT trap of the
#                              caller should call sf_stop_logged.
#   sf_stop_logged             ends the command sf_run_logged runs, if any
#   sf_failure_excerpt NAME LOG  the first five FAIL lines of LOG and the
#                              lines that led to the first one, or LOG's last
#                              lines if it has none

sf_logged_pid=

sf_run_logged() {
    local log=$1 rc follower
    shift
    : >"$log"
    "$@" >"$log" 2>&1 </dev/null &
    sf_logged_pid=$!
    tail -n +1 -s 0.2 -f --pid="$sf_logged_pid" "$log" &
    follower=$!
    wait "$sf_logged_pid"
    rc=$?
    sf_logged_pid=
    wait "$follower"
    return "$rc"
}

sf_stop_logged() {
    [ -z "$sf_logged_pid" ] || kill "$sf_logged_pid" 2>/dev/null
}

sf_failure_excerpt() {
    local name=$1 log=$2 first
    echo "--- $name failed:"
    first=$(grep -n -m1 -E 'FAIL|not ok|Traceback|harness error' "$log" | cut -d: -f1)
    if [ -n "$first" ]; then
        sed -n "$((first > 12 ? first - 12 : 1)),$((first - 1))p" "$log" | cut -c1-400
        grep -E 'FAIL|not ok|harness error' "$log" | head -5 | cut -c1-1000
    else
        tail -n 15 "$log" | cut -c1-400
    fi
}
