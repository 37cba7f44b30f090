#!/usr/bin/env bash
# A split brain's race on both stores (tests/registry/store_race.cpp): an
# old primary taking its node id back and its promoted standby taking an
# 'auto' id, both reading the registry before either writes (forced: the
# stores' advisory locks held by the program on PostgreSQL, the pause hook
# on Redis), each of the two writing first in turn. The second write must
# see the first: the old primary's lease ended by the standby's grant and
# its next renewal refused as replaced (the old primary first), or its
# acquire refused as replaced (the standby first); never both holding an
# id. Review finding F1 of issue 32. Then, on Redis, a race lost for the
# last id never leased (store_race --race=never_leased and
# never_leased_given_back_late); and, on both, a renewal of the old primary
# between its successor's read and write (--race=renewal_before_successor_writes).
source "$(dirname "$0")/../lib/suite.sh"
make -s -C "$SF_ROOT" build/tests/store_race >/dev/null

# race STORE NAME ARG...: store_race against a new registry NAME on STORE,
# with ARGs; its output in $out (and on stderr), its exit status in $rc.
race() {
    local store=$1 name=$2 target
    shift 2
    SF_REGISTRY_STORE=$store sf_new_registry "$name"
    if [ "$store" = pg ]; then
        target=(--store=pg "--conninfo=$(sf_connstr "$name")")
    else
        target=(--store=redis "--url=redis+unix://$SF_REDIS_SOCKET")
    fi
    rc=0
    out=$("$SF_ROOT/build/tests/store_race" "${target[@]}" "$@" 2>&1) || rc=$?
    printf '%s\n' "$out" >&2
}

for store in pg redis; do
    for first in old_primary standby; do
        name=registry_${store}_$first
        race "$store" "$name" "--first=$first"
        sf_expect_match "$store, $first first: both acquires read the registry before either wrote" \
            'both acquires read before either wrote' "$out"
        sf_expect_eq "$store, $first first: the race's outcome is sound (exit status)" 0 "$rc"
        if [ "$first" = old_primary ]; then
            sf_expect_match "$store, $first first: the old primary's renewal refused as replaced" \
                "the old primary's renewal was refused: this server was replaced" "$out"
        else
            sf_expect_match "$store, $first first: the old primary's acquire refused as replaced" \
                "the old primary: refused: this server was replaced" "$out"
        fi
        SF_REGISTRY_STORE=$store sf_registry_stop "$name"
    done
done

# Redis: a server that lost a race for the last id never leased takes the
# one given back, deciding on what its WATCH round trip reads (P:next_id
# and the lease it lost), not on every lease read again (issue 32: a
# fleet's simultaneous start).
# And if that id was given back only while it waited to write, what its
# WATCH round trips read says every id is leased: it reads everything again
# and takes that id, rather than being refused.
for kind in never_leased never_leased_given_back_late; do
    name=registry_redis_$kind
    race redis "$name" "--race=$kind"
    sf_expect_match "redis, $kind: the race took place" "EXEC wrote nothing 1 time" "$out"
    if [ "$kind" = never_leased ]; then
        what="the id given back, without reading every lease again"
    else
        what="the id given back late, not a refusal"
    fi
    sf_expect_eq "redis, $kind: $what (exit status)" 0 "$rc"
    SF_REGISTRY_STORE=redis sf_registry_stop "$name"
done

# Both stores: a promoted standby that read the registry as its old
# primary's successor loses its write to the old primary's renewal, which
# recorded a WAL position past the standby's branch point. Read again, the
# standby is a copy and refused; the old primary renews on. The mark that
# would have replaced the old primary's timeline for good is written only
# with the grant it came with (review finding M2 of issue 42: PostgreSQL's
# store committed it alone, and then both servers were refused).
for store in pg redis; do
    name=registry_${store}_renewal_between
    race "$store" "$name" --race=renewal_before_successor_writes
    sf_expect_match "$store, a renewal before the successor's write: the race took place" \
        "read as a successor of timeline 1 and waited to write; the old primary renewed" "$out"
    sf_expect_match "$store, ... the standby, read again, is refused as a copy" \
        "then the promoted standby: refused: .*is a copy of" "$out"
    sf_expect_match "$store, ... and the old primary renews on" "the old primary renews on" "$out"
    sf_expect_eq "$store, ... (exit status)" 0 "$rc"
    SF_REGISTRY_STORE=$store sf_registry_stop "$name"
done
