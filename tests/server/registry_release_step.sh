#!/usr/bin/env bash
# A fleet across release steps, with the releases as users have them: the
# 1.5.0-1 and 1.6.0-1 packages' libraries and scripts (RELEASES' 1.5 and
# 1.6, each built from its own commit by tools/build-release, cached per
# machine) beside this tree's build. Servers of 1.5.0-1 lease by calling the registry's SQL functions
# (snowflake_registry_acquire() and the rest); this tree's servers read and
# write the registry's tables. The order docs/reference.md tells, "Upgrading
# a fleet: servers first, the registry last":
#  - a registry whose extension is 1.5.0-1's: a 1.5.0-1 server, a 1.6.0-1
#    server (which leases through the tables, as this build does) and a
#    server of this build lease from it side by side, different node ids;
#  - the registry updated to this tree's version (ALTER EXTENSION ...
#    UPDATE) while the 1.5.0-1 server holds its lease: its next call is
#    refused by the registry, with the message and DETAIL that say to update
#    the server first (not a missing type or table), its lease is lost and
#    its snowflake_nextval() refuses; the servers of this build and of
#    1.6.0-1 go on renewing;
#  - a registry created at this tree's version refuses a 1.5.0-1 server
#    starting against it in the same words;
#  - the 1.5.0-1 server updated (this build's library, ALTER EXTENSION
#    UPDATE in its database): it leases again, its IDs above every ID it
#    issued before, none repeated across the fleet.
# Needs the repository's history (tools/build-release reads the release's
# commit).
set -euo pipefail
source "$(dirname "$0")/../lib/cluster.sh"
sf_init_workspace

# stage_release VERSION: a stage of that release's build beside this one's;
# prints its server's bin directory.
stage_release() {
    local dir
    dir=$("$SF_ROOT/tools/build-release" "$1") ||
        sf_die "could not build release $1 (tools/build-release says why above)"
    SF_STAGE_FROM=$dir sf_stage
    mv "$SF_WORK/stage" "$SF_WORK/stage-$1"
    printf '%s\n' "$SF_WORK/stage-$1${SF_STAGE_BIN#"$SF_WORK/stage"}"
}
release=1.5
old_bin=$(stage_release "$release")
prev_bin=$(stage_release 1.6)
sf_stage
new_bin=$SF_STAGE_BIN
as_old() { SF_STAGE_BIN=$old_bin; }
as_prev() { SF_STAGE_BIN=$prev_bin; }
as_new() { SF_STAGE_BIN=$new_bin; }
version=$(sf_extension_version)
ttl_conf="snowflake_id.lease_ttl = '6s'"
refusal="no longer leases node ids through snowflake_registry_(acquire|renew)\(\)"
# The registry's DETAIL: it names the package, and what to do.
update_first="1\.5\.0-1 package.*Update snowflake_id on every server before the registry"

# --- a registry at 1.5.0-1, a server of each ------------------------------------
as_old
sf_new registry preload=no
sf_start registry || sf_die "the registry did not start"
sf_psql registry -c "CREATE EXTENSION snowflake_id"
sf_expect_eq "the registry's extension is 1.5.0-1's" "$release" \
    "$(sf_psql registry -c "SELECT extversion FROM pg_extension WHERE extname = 'snowflake_id'")"
registry_conf="snowflake_id.registry = '$(sf_connstr registry)'"
sf_new old "snowflake_id.worker_id = 'auto'" "$registry_conf" "$ttl_conf"
sf_start old || sf_die "the 1.5.0-1 server did not start"
sf_psql old -c "CREATE EXTENSION snowflake_id"
sf_poll old "SELECT lease_state FROM snowflake_status()" held
as_new
sf_new new "snowflake_id.worker_id = 'auto'" "$registry_conf" "$ttl_conf"
sf_start new || sf_die "the server of this build did not start"
sf_psql new -c "CREATE EXTENSION snowflake_id"
sf_poll new "SELECT lease_state FROM snowflake_status()" held
# A server of 1.6.0-1, which leases through the tables as this build does.
as_prev
sf_new prev "snowflake_id.worker_id = 'auto'" "$registry_conf" "$ttl_conf"
sf_start prev || sf_die "the 1.6.0-1 server did not start"
sf_psql prev -c "CREATE EXTENSION snowflake_id"
sf_poll prev "SELECT lease_state FROM snowflake_status()" held
old_node=$(sf_psql old -c "SELECT worker_id FROM snowflake_status()")
new_node=$(sf_psql new -c "SELECT worker_id FROM snowflake_status()")
prev_node=$(sf_psql prev -c "SELECT worker_id FROM snowflake_status()")
sf_expect_eq "the three hold their leases in the 1.5.0-1 registry, on different node ids" \
    "$(sf_datadir new) $new_node, $(sf_datadir old) $old_node, $(sf_datadir prev) $prev_node" \
    "$(sf_psql registry -c "SELECT string_agg(holder_data_directory || ' ' || node_id, ', '
                            ORDER BY holder_data_directory COLLATE \"C\") FROM snowflake_registry_lease")"
[ "$(printf '%s\n' "$old_node" "$new_node" "$prev_node" | sort -u | wc -l)" = 3 ] ||
    sf_die "two servers hold one node id: $old_node $new_node $prev_node"
sf_log "ok: servers first: servers of this build and of 1.6.0-1 lease from the 1.5.0-1 registry beside a 1.5.0-1 server"
as_old
sf_stream_ids old "$SF_WORK/old.before.ids" 2000
as_new
sf_stream_ids new "$SF_WORK/new.before.ids" 1000
sf_stream_ids prev "$SF_WORK/prev.before.ids" 1000

# --- the registry updated while the 1.5.0-1 server holds its lease ----------------
# The package replaced under the registry: its server runs this build's files.
sf_stop registry
as_new
sf_start registry || sf_die "the registry did not start with this build's files"
sf_psql registry -c "ALTER EXTENSION snowflake_id UPDATE" 2>/dev/null
sf_expect_eq "the registry's extension is at $version" "$version" \
    "$(sf_psql registry -c "SELECT extversion FROM pg_extension WHERE extname = 'snowflake_id'")"
as_old
sf_poll old "SELECT lease_state FROM snowflake_status()" refused
message=$(sf_psql old -c "SELECT lease_message FROM snowflake_status()")
sf_expect_match "the 1.5.0-1 server is refused by the updated registry, saying why" \
    "^this registry \(snowflake_id $version\) $refusal" "$message"
sf_await_log old "WARNING: +snowflake_id: the registry refused a node id lease: this registry \(snowflake_id $version\) $refusal" ||
    sf_die "the 1.5.0-1 server's log does not show the refusal: $(sf_server_log old | tail -5)"
sf_expect_match "... its log says to update the server first (the registry's DETAIL)" \
    "DETAIL: +.*$update_first" "$(sf_server_log old | grep -A1 'the registry refused a node id lease' | tail -2)"
sf_expect_eq "... and names no missing object" "" \
    "$(sf_server_log old | grep -E 'does not exist' || true)"
out=$(sf_psql old -c "SELECT snowflake_nextval()" 2>&1) &&
    sf_die "the 1.5.0-1 server without a lease issued an ID: $out"
sf_log "ok: ... and its snowflake_nextval() refuses: $out"
as_new
renewals=$(sf_psql new -c "SELECT lease_renewals FROM snowflake_status()")
sf_poll new "SELECT lease_renewals > $renewals AND lease_state = 'held' FROM snowflake_status()" t
sf_log "ok: the server of this build goes on renewing on the registry at $version"
sf_stream_ids new "$SF_WORK/new.after.ids" 1000
renewals=$(sf_psql prev -c "SELECT lease_renewals FROM snowflake_status()")
sf_poll prev "SELECT lease_renewals > $renewals AND lease_state = 'held' FROM snowflake_status()" t
sf_expect_eq "... and so does the 1.6.0-1 server, one release behind, on its node id" "$prev_node" \
    "$(sf_psql prev -c "SELECT worker_id FROM snowflake_status()")"
sf_stream_ids prev "$SF_WORK/prev.after.ids" 1000

# --- a registry created at this version refuses a 1.5.0-1 server the same way -----
as_new
sf_new fresh preload=no
sf_start fresh || sf_die "the second registry did not start"
sf_psql fresh -c "CREATE EXTENSION snowflake_id"
as_old
sf_new late "snowflake_id.worker_id = 3" "snowflake_id.registry = '$(sf_connstr fresh)'" "$ttl_conf"
sf_start late || sf_die "the second 1.5.0-1 server did not start"
sf_psql late -c "CREATE EXTENSION snowflake_id"
sf_poll late "SELECT lease_state FROM snowflake_status()" refused
sf_expect_match "a 1.5.0-1 server starting against a registry created at $version is refused, saying why" \
    "^this registry \(snowflake_id $version\) no longer leases node ids through snowflake_registry_acquire\(\)" \
    "$(sf_psql late -c "SELECT lease_message FROM snowflake_status()")"
sf_await_log late "DETAIL: +.*$update_first" ||
    sf_die "the second 1.5.0-1 server's log does not say to update it: $(sf_server_log late | tail -5)"
sf_log "ok: ... its log says to update the server first"
sf_stop late
sf_stop fresh

# --- the 1.5.0-1 server updated -------------------------------------------------
sf_stop old
as_new
sf_start old || sf_die "the updated server did not start"
sf_psql old -c "ALTER EXTENSION snowflake_id UPDATE"
sf_poll old "SELECT lease_state FROM snowflake_status()" held
sf_stream_ids old "$SF_WORK/old.after.ids" 2000
sf_expect_above "the updated server" "$SF_WORK/old.before.ids" -- "$SF_WORK/old.after.ids"
sf_expect_eq "no ID repeats across the fleet" 0 "$(cat "$SF_WORK"/*.ids | sort | uniq -d | wc -l)"
sf_log "registry_release_step: all checks passed"
