#!/usr/bin/env bash
# objectid_generate() never repeats within one backend, also when its wall
# clock steps back into a second whose 2^24 counters it has spent.
#
# With libfaketime the server's clock is frozen at a second T while one
# session makes 2^24 ObjectIds (every counter of T), then frozen at T+1 for
# ten more, then set back to T for ten more. Any ObjectId of second T after
# that would repeat one made before (there is no counter left), so the
# ObjectIds after the step must carry T+1 and match none made before. The
# server itself writes the clock file (COPY ... TO), so that one session
# lives through every step.
source "$(dirname "$0")/../lib/suite.sh"
sf_fake_clock
chmod 666 "$SF_CLOCK"

t0="2026-06-01 12:00:00"
t1="2026-06-01 12:00:01"
sf_new o
# Reading the clock file at every clock reading (FAKETIME_NO_CACHE, as the
# other suites do) would cost 2^24 file reads: libfaketime re-reads it once
# its cache is a second old instead, and after each step the session waits,
# reading its own clock, until the step shows (await_clock below). pg_sleep()
# would never end under a frozen clock, and nothing here needs it.
fake_env=()
for e in "${SF_FAKE_ENV[@]}"; do
    [ "$e" = FAKETIME_NO_CACHE=1 ] || fake_env+=("$e")
done
[ "${#fake_env[@]}" = $((${#SF_FAKE_ENV[@]} - 1)) ] || sf_die "SF_FAKE_ENV no longer sets FAKETIME_NO_CACHE=1"
sf_start o "${fake_env[@]}" FAKETIME_CACHE_DURATION=1 || sf_die "server did not start under libfaketime"
sf_psql o -c "CREATE EXTENSION snowflake_id"

# await_clock SECOND: SQL that waits until the session's clock reads SECOND
# (UTC): a step shows once libfaketime's cache of the clock file expires, a
# second or two of real time. The bound on the loop is no timing assertion:
# it only ends a test that would otherwise hang, far beyond that wait.
await_clock() {
    cat <<SQL
DO \$\$
BEGIN
    FOR i IN 1..200000000 LOOP
        IF date_trunc('second', clock_timestamp()) = '$1+00' THEN
            RETURN;
        END IF;
    END LOOP;
    RAISE EXCEPTION 'the clock did not reach $1 (libfaketime''s FAKETIME_CACHE_DURATION?)';
END
\$\$;
SQL
}

# OFFSET 0 keeps the filter on g out of the subquery: the function runs for
# every one of the 2^24 rows; only the first 1,000 and the last are kept.
result=$(sf_psql o -F ' ' <<SQL
CREATE TEMP TABLE made (g bigint, o text);
CREATE TEMP TABLE later (step text, o text);
COPY (SELECT '$t0') TO '$SF_CLOCK';
$(await_clock "$t0")
INSERT INTO made SELECT g, o FROM (
    SELECT g, objectid_generate() AS o FROM generate_series(1, 16777216) g OFFSET 0) s
    WHERE g <= 1000 OR g = 16777216;
COPY (SELECT '$t1') TO '$SF_CLOCK';
$(await_clock "$t1")
INSERT INTO later SELECT 'ahead', objectid_generate() FROM generate_series(1, 10);
COPY (SELECT '$t0') TO '$SF_CLOCK';
$(await_clock "$t0")
INSERT INTO later SELECT 'back', objectid_generate() FROM generate_series(1, 10);
COPY (SELECT '+0') TO '$SF_CLOCK';
SELECT
    (SELECT count(*) FROM made WHERE objectid_timestamp(o) = '$t0+00'),
    -- the 2^24th counter is the one before the first: every counter of T is spent
    (SELECT ('x' || right(l.o, 6))::bit(24)::int = (('x' || right(f.o, 6))::bit(24)::int + 16777215) % 16777216
        FROM made f, made l WHERE f.g = 1 AND l.g = 16777216),
    (SELECT count(*) FROM later WHERE objectid_timestamp(o) = '$t1+00'),
    (SELECT count(DISTINCT o) FROM later),
    (SELECT count(*) FROM later JOIN made USING (o));
SQL
)
read -r at_t0 all_spent at_t1 distinct_later repeats <<<"$result"
sf_expect_eq "the first 1,000 and the 2^24th ObjectId carry the frozen second T" 1001 "$at_t0"
sf_expect_eq "the 2^24 ObjectIds of second T used every counter" t "$all_spent"
sf_expect_eq "none of the ObjectIds after the step repeats one made in second T" 0 "$repeats"
sf_expect_eq "after the clock steps back to T, ObjectIds keep T+1, the latest second used" \
    20 "$at_t1"
sf_expect_eq "the ObjectIds after the step are all different" 20 "$distinct_later"
