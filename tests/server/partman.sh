#!/usr/bin/env bash
# The recipe of docs/partitioning.md against the real pg_partman of the
# server's major (15: Debian 12's 4.7.2; 17: 5.2.4 and 18: 5.5.0 from
# Debian's newer suites, tools/fetch-pg), on two servers: the default epoch
# (midnight UTC) and an epoch at 05:06:07.089 UTC. The servers' wall clock is
# moved ahead a day at a time with libfaketime, always to noon UTC, so that no
# step lands near a midnight. Every check is on IDs and what they decode to,
# in the backend that made them, so it means the same whichever clock the
# postmaster keeps.
#  - create_parent with snowflake_interval_ids and snowflake_date_bin, then
#    (pg_partman before 5.3) the realignment, or (5.3 on) p_offset_id: every
#    partition starts and ends at midnight UTC, one day apart, from today on;
#    without either, pg_partman's partitions start at the epoch's time of day;
#  - rows composed for the first and last millisecond of a day, and rows of
#    snowflake_nextval(), land in the partition of their UTC day, none in the
#    default partition;
#  - a WHERE on one day's ID range scans that day's partition only (pruned by
#    the planner for constants, at executor start-up for the STABLE helpers);
#  - run_maintenance makes the partitions ahead as the clock moves and rows
#    arrive, still at midnight; retention drops the days it should and keeps
#    the rest; through days without rows it falls behind the clock, and the
#    recipe's daily create_partition_id by the clock keeps the days ahead;
#  - a snowflake-typed control column is refused by pg_partman.
source "$(dirname "$0")/../lib/suite.sh"
sf_fake_clock

major=$("$SF_STAGE_BIN/postgres" --version | awk '{print $3}' | cut -d. -f1)
[ -f "$($SF_PG_CONFIG --sharedir)/extension/pg_partman.control" ] ||
    sf_die "pg_partman is not installed for PostgreSQL $major: tools/ensure-deps installs it for 15, tools/fetch-pg for 17 and 18"

premake=3
# Day N of the test is N days after the next midnight UTC of the real clock,
# at noon plus the time the test has run: the offsets are all taken from one
# reading of the real clock, so the servers' clock never steps back.
start=$(date +%s)
base=$(((start / 86400 + 1) * 86400))
clock_to_day() { echo "+$((base + $1 * 86400 + 43200 - start))" >"$SF_CLOCK"; }

# The partitions of public.events and their bounds (the default partition
# has none).
parts_view="CREATE VIEW event_parts AS
    SELECT c.relname::text AS name, b[1]::bigint AS lo, b[2]::bigint AS hi
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid,
         regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \(''?(-?\d+)''?\) TO \(''?(-?\d+)''?\)') b
    WHERE i.inhparent = 'public.events'::regclass AND b IS NOT NULL"

# check_days SERVER WHAT: every partition starts and ends at midnight UTC,
# spans one day, and they follow each other without a gap.
check_days() {
    sf_expect_eq "$2: every bound is at midnight UTC" 0 "$(sf_psql "$1" -c "
        SELECT count(*) FROM event_parts
        WHERE snowflake_timestamp(lo) <> date_trunc('day', snowflake_timestamp(lo), 'UTC')
           OR snowflake_timestamp(hi) <> date_trunc('day', snowflake_timestamp(hi), 'UTC')")"
    sf_expect_eq "$2: each spans one day" 0 "$(sf_psql "$1" -c "
        SELECT count(*) FROM event_parts
        WHERE snowflake_timestamp(hi) - snowflake_timestamp(lo) <> interval '1 day'
           OR hi - lo <> snowflake_interval_ids('1 day')")"
    sf_expect_eq "$2: no gap between them" 0 "$(sf_psql "$1" -c "
        SELECT count(*) FROM (SELECT hi, lead(lo) OVER (ORDER BY lo) AS next FROM event_parts) p
        WHERE next <> hi")"
}

# check_rows SERVER WHAT: each row is in the partition of its UTC day.
check_rows() {
    sf_expect_eq "$2: every row is in the partition of its day" 0 "$(sf_psql "$1" -c "
        SELECT count(*) FROM events e LEFT JOIN event_parts p ON p.name = e.tableoid::regclass::text
        WHERE p.lo IS NULL
           OR snowflake_timestamp(p.lo) <> date_trunc('day', snowflake_timestamp(e.id), 'UTC')")"
    sf_expect_eq "$2: none in the default partition" 0 \
        "$(sf_psql "$1" -c "SELECT count(*) FROM ONLY events_default")"
}

# scenario SERVER FIRST_DAY EPOCH_TIME_OF_DAY
scenario() {
    local s=$1 day=$2 version offset_param native args plan today_lo today_hi
    clock_to_day "$day"
    sf_psql "$s" -c "CREATE EXTENSION snowflake_id" -c "CREATE SCHEMA partman" \
        -c "CREATE EXTENSION pg_partman SCHEMA partman"
    version=$(sf_psql "$s" -c "SELECT extversion FROM pg_extension WHERE extname = 'pg_partman'")
    offset_param=$(sf_psql "$s" -c "SELECT count(*) FROM pg_proc
        WHERE proname = 'create_parent' AND 'p_offset_id' = ANY (proargnames)")
    sf_log "--- server $s: PostgreSQL $major, pg_partman $version"
    sf_expect_eq "$s: the epoch's time of day (UTC)" "$3" "$(sf_psql "$s" -c "
        SELECT to_char(snowflake_timestamp(0) AT TIME ZONE 'UTC', 'HH24:MI:SS.MS')")"

    # The recipe (docs/partitioning.md), by pg_partman's version.
    case $version in
    4.*) native="'native', " ;;
    *) native= ;;
    esac
    # create_parent's call up to its last arguments, for table $1.
    create_call() {
        printf "partman.create_parent('public.%s', 'id', %sp_interval := snowflake_interval_ids('1 day')::text," \
            "$1" "$native"
    }
    args="p_premake := $premake, p_start_partition := snowflake_date_bin('1 day', now())::text"
    for t in events events_raw; do
        sf_psql "$s" -c "CREATE TABLE public.$t (
            id bigint NOT NULL DEFAULT snowflake_nextval() PRIMARY KEY, payload text
        ) PARTITION BY RANGE (id)"
    done
    # events_raw: pg_partman alone, which counts its intervals from ID 0.
    sf_psql "$s" -c "SELECT $(create_call events_raw) $args)" >/dev/null
    if [ "$offset_param" = 1 ]; then
        sf_psql "$s" -c "SELECT $(create_call events) $args,
            p_offset_id := snowflake_date_bin('1 day', now()) % snowflake_interval_ids('1 day'))" >/dev/null
    else
        sf_psql "$s" -c "SELECT $(create_call events) $args)" >/dev/null
        sf_psql "$s" -c "DO \$\$
            DECLARE
                width bigint := snowflake_interval_ids('1 day');
                first bigint := snowflake_date_bin('1 day', now());
                child record;
            BEGIN
                IF first % width <> 0 THEN
                    FOR child IN SELECT * FROM partman.show_partitions('public.events') LOOP
                        EXECUTE format('DROP TABLE %I.%I', child.partition_schemaname, child.partition_tablename);
                    END LOOP;
                    PERFORM partman.create_partition_id('public.events',
                        ARRAY(SELECT first + k * width FROM generate_series(0, $premake) k));
                END IF;
            END \$\$"
    fi
    sf_psql "$s" -c "$parts_view"

    sf_expect_eq "$s: pg_partman alone starts its partitions at the epoch's time of day" 0 \
        "$(sf_psql "$s" -c "SELECT count(*) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid,
            regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \(''?(\d+)''?\)') b
            WHERE i.inhparent = 'public.events_raw'::regclass
              AND (snowflake_timestamp(b[1]::bigint) AT TIME ZONE 'UTC')::time
                  <> (snowflake_timestamp(0) AT TIME ZONE 'UTC')::time")"
    sf_expect_eq "$s: create_parent made today's partition and $premake ahead, from midnight UTC" \
        "$((premake + 1)) t" "$(sf_psql "$s" -c "
            SELECT format('%s %s', count(*), snowflake_timestamp(min(lo)) = date_trunc('day', now(), 'UTC'))
            FROM event_parts")"
    check_days "$s" "$s: after create_parent"

    # Rows for the first and last ID of today and of tomorrow's first
    # millisecond, then IDs of the generator.
    sf_psql "$s" -c "INSERT INTO events (id, payload)
        SELECT snowflake_compose(t, 0, 0) + d, p FROM (VALUES
            (date_trunc('day', now(), 'UTC'), 0, 'first of today'),
            (date_trunc('day', now(), 'UTC') + interval '1 day', -1, 'last of today'),
            (date_trunc('day', now(), 'UTC') + interval '1 day', 0, 'first of tomorrow')) v(t, d, p)"
    sf_psql "$s" -c "INSERT INTO events (payload) SELECT 'day $day' FROM generate_series(1, 100)"
    sf_expect_eq "$s: the last ID of today carries its last millisecond" t "$(sf_psql "$s" -c "
        SELECT snowflake_timestamp(id) = date_trunc('day', now(), 'UTC') + interval '1 day' - interval '1 ms'
        FROM events WHERE payload = 'last of today'")"
    sf_expect_eq "$s: today's first and last ID share a partition, tomorrow's first is in the next" \
        "t t" "$(sf_psql "$s" -c "
        SELECT format('%s %s',
            min(tableoid::regclass::text) FILTER (WHERE payload = 'first of today')
                = min(tableoid::regclass::text) FILTER (WHERE payload = 'last of today'),
            min(tableoid::regclass::text) FILTER (WHERE payload = 'first of tomorrow')
                = (SELECT name FROM event_parts ORDER BY lo OFFSET 1 LIMIT 1))
        FROM events")"
    check_rows "$s" "$s: day $day"

    # Pruning: today's ID range, as constants and through the helpers.
    today_lo=$(sf_psql "$s" -c "SELECT min(lo) FROM event_parts")
    today_hi=$(sf_psql "$s" -c "SELECT hi FROM event_parts WHERE lo = $today_lo")
    plan=$(sf_psql "$s" -c "EXPLAIN (COSTS OFF) SELECT count(*) FROM events
        WHERE id >= $today_lo AND id < $today_hi")
    sf_log "$plan"
    sf_expect_eq "$s: a WHERE on today's ID range scans today's partition only" "events_p$today_lo" \
        "$(grep -o 'on events_[a-z0-9]*' <<<"$plan" | sed 's/^on //' | sort -u | paste -sd' ')"
    plan=$(sf_psql "$s" -c "EXPLAIN (COSTS OFF) SELECT count(*) FROM events
        WHERE id >= snowflake_date_bin('1 day', now())
          AND id < snowflake_date_bin('1 day', now()) + snowflake_interval_ids('1 day')")
    sf_log "$plan"
    sf_expect_match "$s: through the STABLE helpers, at executor start-up" \
        "Subplans Removed: $((premake + 1))" "$plan"

    # Time passes: three days on, rows arrive, maintenance runs.
    clock_to_day $((day + 3))
    sf_psql "$s" -c "INSERT INTO events (payload) SELECT 'day $((day + 3))' FROM generate_series(1, 100)"
    sf_expect_eq "$s: the new rows carry the day the clock moved to" 0 "$(sf_psql "$s" -c "
        SELECT count(*) FROM events WHERE payload = 'day $((day + 3))'
          AND date_trunc('day', snowflake_timestamp(id), 'UTC') <> date_trunc('day', now(), 'UTC')")"
    sf_psql "$s" -c "SELECT partman.run_maintenance('public.events')" >/dev/null
    check_days "$s" "$s: after maintenance on day $((day + 3))"
    sf_expect_eq "$s: maintenance made at least $premake days ahead of the newest row" t "$(sf_psql "$s" -c "
        SELECT max(lo) >= snowflake_date_bin('1 day', max(snowflake_timestamp(id)))
                          + $premake * snowflake_interval_ids('1 day')
        FROM event_parts, events")"
    check_rows "$s" "$s: day $((day + 3))"

    # Retention: two days of IDs below the newest row. Each later day adds
    # a partition ahead and drops one behind.
    sf_psql "$s" -c "UPDATE partman.part_config
        SET retention = snowflake_interval_ids('2 days')::text, retention_keep_table = false
        WHERE parent_table = 'public.events'"
    clock_to_day $((day + 6))
    sf_psql "$s" -c "INSERT INTO events (payload) SELECT 'day $((day + 6))' FROM generate_series(1, 100)"
    sf_psql "$s" -c "SELECT partman.run_maintenance('public.events')" >/dev/null
    check_days "$s" "$s: after maintenance with retention on day $((day + 6))"
    sf_expect_eq "$s: retention dropped every day ending 2 days before the newest row, kept the rest" t \
        "$(sf_psql "$s" -c "SELECT snowflake_timestamp(min(lo))
            = date_trunc('day', (SELECT max(snowflake_timestamp(id)) FROM events) - interval '2 days', 'UTC')
            FROM event_parts")"
    sf_expect_eq "$s: the first day's partition is gone with its rows" "t 0" "$(sf_psql "$s" -c "
        SELECT format('%s %s', to_regclass('public.events_p$today_lo') IS NULL,
            (SELECT count(*) FROM events WHERE payload LIKE '%today' OR payload = 'day $day'))")"
    sf_expect_eq "$s: the rows of the last day kept" 100 \
        "$(sf_psql "$s" -c "SELECT count(*) FROM events WHERE payload = 'day $((day + 6))'")"
    sf_expect_eq "$s: maintenance still keeps $premake days ahead" t "$(sf_psql "$s" -c "
        SELECT max(lo) >= snowflake_date_bin('1 day', max(snowflake_timestamp(id)))
                          + $premake * snowflake_interval_ids('1 day')
        FROM event_parts, events")"
    check_rows "$s" "$s: day $((day + 6))"

    # A quiet spell: no new rows. run_maintenance counts its days ahead from
    # the newest row, so it falls behind the clock; the recipe's daily step
    # by the clock keeps today and the days ahead.
    clock_to_day $((day + 8))
    sf_psql "$s" -c "SELECT partman.run_maintenance('public.events')" >/dev/null
    sf_expect_eq "$s: without new rows run_maintenance falls behind the clock" t "$(sf_psql "$s" -c "
        SELECT max(hi) < snowflake_date_bin('1 day', now()) + $((premake + 1)) * snowflake_interval_ids('1 day')
        FROM event_parts")"
    for d in $((day + 8)) $((day + 9)) $((day + 10)) $((day + 11)); do
        clock_to_day "$d"
        sf_psql "$s" -c "SELECT partman.create_partition_id('public.events',
            ARRAY(SELECT snowflake_date_bin('1 day', now()) + k * snowflake_interval_ids('1 day')
                  FROM generate_series(0, $premake) k))" >/dev/null
        sf_psql "$s" -c "SELECT partman.run_maintenance('public.events')" >/dev/null
    done
    check_days "$s" "$s: after the daily step by the clock"
    sf_expect_eq "$s: the daily step keeps today and $premake days ahead" t "$(sf_psql "$s" -c "
        SELECT min(lo) <= snowflake_date_bin('1 day', now())
           AND max(lo) = snowflake_date_bin('1 day', now()) + $premake * snowflake_interval_ids('1 day')
        FROM event_parts")"
    sf_psql "$s" -c "INSERT INTO events (payload) SELECT 'day $((day + 11))' FROM generate_series(1, 100)"
    check_rows "$s" "$s: day $((day + 11)), after the quiet spell"

    # The snowflake type: pg_partman knows its own list of types.
    sf_psql "$s" -c "CREATE TABLE public.typed (id snowflake NOT NULL DEFAULT snowflake_nextval())
        PARTITION BY RANGE (id)"
    sf_expect_match "$s: pg_partman refuses a snowflake-typed control column" \
        "ERROR: .*pg_partman only supports partitioning of data types that are integer.*of type snowflake" \
        "$(sf_psql "$s" -c "SELECT $(create_call typed) $args)" 2>&1 || true)"
}

sf_new d "snowflake_id.worker_id = 5"
sf_new o "snowflake_id.worker_id = 5" "snowflake_id.epoch = '2021-03-04T05:06:07.089Z'"
clock_to_day 0
sf_start d "${SF_FAKE_ENV[@]}" || sf_die "server d did not start under libfaketime"
scenario d 0 00:00:00.000
sf_stop d
# The clock only moves ahead: server o starts on day 20.
clock_to_day 20
sf_start o "${SF_FAKE_ENV[@]}" || sf_die "server o did not start under libfaketime"
scenario o 20 05:06:07.089
echo "partman: all checks passed"
