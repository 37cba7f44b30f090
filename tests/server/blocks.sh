#!/usr/bin/env bash
# Blocks of IDs under concurrency against a real server: two clients take
# blocks with snowflake_nextval(n) (n from 1 to 200,000, varying from call to
# call) while a third calls snowflake_nextval() once per row, all at the same
# time, behind the gate (sf_gate_* in tests/lib/cluster.sh). About 1.5 million
# IDs in all. Every ID is recorded with its client and its block (the call
# that returned it), and the test checks:
#   (a) no ID repeats, across all clients;
#   (b) every block holds exactly n IDs, strictly increasing, and no call is
#       missing;
#   (c) no overlap: in the sorted list of all IDs, each block's IDs are
#       contiguous, i.e. no ID of another block or of a single call lies
#       between a block's first and last ID;
#   (d) each client's IDs strictly increase in the order it received them.
# and that the clients really interleaved, without which (c) proves nothing.
set -euo pipefail
source "$(dirname "$0")/../lib/cluster.sh"
BLOCKS=600                 # calls of snowflake_nextval(n) per block client
SINGLES=${SINGLES:-400000} # calls of snowflake_nextval() by the single client
export LC_ALL=C
sf_init_workspace
sf_stage
sf_new b "snowflake_id.worker_id = 5"
sf_start b || sf_die "server did not start"
sf_psql b -c "CREATE EXTENSION snowflake_id"

# Block sizes as a function of the call number b: 1, a few, up to a few
# thousand, 50,000, and (client 2, call 300) one block of 200,000, which spans
# about 49 ms of ID time at 4,096 IDs per ms.
size[1]="CASE WHEN b % 150 = 0 THEN 50000
    WHEN b % 3 = 0 THEN 1
    WHEN b % 3 = 1 THEN b % 10 + 2
    ELSE (b * 37) % 2000 + 1 END"
size[2]="CASE WHEN b = 300 THEN 200000
    WHEN b % 200 = 100 THEN 50000
    WHEN b % 3 = 1 THEN 1
    WHEN b % 3 = 2 THEN (b * 53) % 100 + 1
    ELSE (b * 29) % 3000 + 1 END"

# Each client's output has one line per ID, in the order received: call
# number, block size, ID. The size depends on b, so the LATERAL call is a
# parameterised Function Scan that runs once per b. With a constant argument
# it would run once, and the nested loop would replay the same block for
# every b (the duplicates would fail (a) and (b)).
block_query() {
    printf 'COPY (SELECT b, s.n, id FROM generate_series(1, %s) b, LATERAL (SELECT %s AS n) s, LATERAL snowflake_nextval(s.n) id) TO STDOUT' \
        "$BLOCKS" "$1"
}
# The single client: each call is a block of one.
single_query="COPY (SELECT b, 1, snowflake_nextval() FROM generate_series(1, $SINGLES) b) TO STDOUT"

# The documented form of one block per row (docs/reference.md): every ID
# distinct. (The LATERAL form with a constant argument replays one block.)
sf_expect_eq "one block per row, as documented: 300 distinct IDs" "300 300" "$(sf_psql b -c "
    SELECT count(*) || ' ' || count(DISTINCT id) FROM (
        SELECT g, snowflake_nextval(100) AS id FROM generate_series(1, 3) g) t")"

sf_gate_close b
pids=()
for i in 1 2 3; do
    if [ "$i" = 3 ]; then query=$single_query; else query=$(block_query "${size[$i]}"); fi
    sf_psql b -c "$SF_GATE_SQL" -c "$query" >"$SF_WORK/ids.$i" 2>"$SF_WORK/ids.$i.err" &
    pids+=($!)
done
sf_gate_wait b 3
sf_gate_open b
for pid in "${pids[@]}"; do
    wait "$pid" || sf_die "a client failed: $(cat "$SF_WORK"/ids.*.err)"
done

# decimal IDs compared as strings: awk's numbers are doubles, which cannot
# tell neighbouring 63-bit IDs apart.
AWK_LT='function lt(a, b) { return length(a) < length(b) || (length(a) == length(b) && (a "") < (b "")) }'

total=0
for i in 1 2 3; do
    f=$SF_WORK/ids.$i
    sed -i '/^$/d' "$f" # the gate's empty result
    calls=$BLOCKS
    [ "$i" = 3 ] && calls=$SINGLES
    # (b) Blocks in call order 1..calls, none missing, each with exactly n
    # IDs that strictly increase.
    out=$(awk -F '\t' -v calls="$calls" "$AWK_LT"'
        function block_ok() {
            if (got == n) return 1
            printf "call %d returned %d IDs, not %d\n", b, got, n
            return 0
        }
        $1 != b {
            if (NR > 1 && !block_ok()) { bad = 1; exit }
            if ($1 != b + 1) { printf "call %d follows call %d\n", $1, b; bad = 1; exit }
            b = $1; n = $2; got = 0; prev = ""
        }
        {
            if (prev != "" && !lt(prev, $3)) { printf "call %d: ID %s after %s\n", b, $3, prev; bad = 1; exit }
            prev = $3; got++
        }
        END {
            if (bad || !block_ok()) exit 1
            if (b != calls) { printf "%d calls returned IDs, not %d\n", b, calls; exit 1 }
            print NR
        }' "$f") || sf_die "client $i: $out"
    sf_log "ok: client $i: each of its $calls calls returned exactly n strictly increasing IDs ($out IDs)"
    # (d) The client's IDs strictly increase in the order it received them.
    cut -f3 "$f" | sort -n -c -u 2>/dev/null || sf_die "client $i: IDs not strictly increasing"
    sf_log "ok: client $i: strictly increasing in the order received"
    total=$((total + out))
done
# The sizes the two block clients asked for: blocks of one ID, of 2 to
# 3000, of 50,000 and one of 200,000.
sf_expect_eq "blocks taken, by size (1, 2..3000, 50000, 200000)" "396 797 6 1" \
    "$(awk -F '\t' '{ n[FILENAME " " $1] = $2 } END {
        for (k in n) { v = n[k]; if (v == 1) c1++; else if (v <= 3000) c2++;
            else if (v == 50000) c3++; else if (v == 200000) c4++ }
        print c1 + 0, c2 + 0, c3 + 0, c4 + 0 }' "$SF_WORK/ids.1" "$SF_WORK/ids.2")"

# Every ID with its client and call, sorted by ID (GNU sort -n compares the
# digits exactly).
for i in 1 2 3; do
    awk -F '\t' -v c="$i" '{ print $3 "\t" c "\t" $1 "\t" $2 }' "$SF_WORK/ids.$i"
done | sort -n -k1,1 -S 25% >"$SF_WORK/merged"

# (a) No duplicate across clients.
sf_expect_eq "no duplicate among $total IDs" 0 "$(cut -f1 "$SF_WORK/merged" | uniq -d | wc -l)"

# (c) No overlap. Walking the sorted IDs, the (client, call) label changes
# only where one block ends and the next begins, so a label that comes back
# after another one appeared means an ID of another call lies between the
# first and the last ID of that block. A block taken with one CAS per ID
# (n separate issue() calls) fails here: the single client's and the other
# block client's CASes land between the block's, their IDs sort inside the
# block's range, and the block's label comes back after theirs.
out=$(awk -F '\t' '
    { key = $2 ":" $3 }
    key != prev {
        if (key in seen) {
            split(key, k, ":"); split(prev, p, ":")
            printf "client %s call %s (n=%s) is split: ID %s of client %s call %s lies inside it, before its ID %s\n",
                k[1], k[2], $4, previd, p[1], p[2], $1
            split_found = 1; exit 1
        }
        seen[key] = 1; prev = key; blocks++
    }
    { previd = $1 }
    END { if (!split_found) print blocks }' "$SF_WORK/merged") || sf_die "overlap: $out"
sf_expect_eq "no overlap: the sorted IDs fall into contiguous runs, one per call" \
    "$((2 * BLOCKS + SINGLES))" "$out"

# The clients must really have run at the same time, or (c) proves nothing:
# count how often the sorted IDs switch client.
switches=$(awk -F '\t' '$2 != c { s++; c = $2 } END { print s - 1 }' "$SF_WORK/merged")
[ "$switches" -ge 10 ] || sf_die "the clients hardly interleaved ($switches switches): the overlap check is void"
sf_log "ok: the clients interleaved: the sorted IDs switch client $switches times"

# The 200,000 block spans several milliseconds of ID time.
read -r first last < <(awk -F '\t' '$2 == 200000 { if (!f) f = $3; l = $3 } END { print f, l }' \
    "$SF_WORK/ids.2")
sf_expect_eq "the block of 200000 spans at least 40 ms of ID time" t \
    "$(sf_psql b -c "SELECT snowflake_timestamp($last) - snowflake_timestamp($first) >= interval '40 ms'")"
echo "blocks: all checks passed"
