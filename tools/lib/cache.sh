# shellcheck shell=bash
# The machine's cache of what does not change from one run to the next: the
# PostgreSQL majors tools/fetch-pg assembles (and 16's headers, built from
# source), the Citus tools/build-citus builds. It lives outside the source
# tree, so that a fresh clone on a machine that ran the tests before reuses
# it, and a new machine builds each entry once.
#
#   sf_cache_root                  the cache's directory: SF_CACHE_DIR if set;
#                                  as root /var/cache/snowflake_id (the test
#                                  servers run as postgres, which cannot enter
#                                  /root); otherwise
#                                  ${XDG_CACHE_HOME:-$HOME/.cache}/snowflake_id
#   sf_cache_key TEXT...           a short hash of the inputs that decide an
#                                  entry's contents (a source's sha256, the
#                                  compiler, the recipe's own text)
#   sf_cache_entry DIR BUILDER     DIR ready to use: reused if it is complete
#                                  and every file verifies, else (re)built by
#                                  `BUILDER TMPDIR DIR` into a fresh directory
#                                  beside it (files that name their own
#                                  place name DIR) and renamed into place
#
# An entry is trusted only through its manifest: the sha256 of every file
# and the target of every symbolic link, written last, after the build
# succeeded. A build cut short leaves no manifest, a file changed or lost
# since fails the check; either way the entry is built again, never used.
# One lock per entry lets two runs on one machine share the cache: the second
# waits for the first's build and then reuses it.

sf_cache_root() {
    if [ -n "${SF_CACHE_DIR:-}" ]; then
        printf '%s\n' "$SF_CACHE_DIR"
    elif [ "$(id -u)" = 0 ]; then
        printf '%s\n' /var/cache/snowflake_id
    else
        printf '%s\n' "${XDG_CACHE_HOME:-$HOME/.cache}/snowflake_id"
    fi
}

sf_cache_key() {
    printf '%s\n' "$@" | sha256sum | cut -c1-16
}

# The listing a manifest holds: "sha256  path" for files, "link path -> target"
# for symbolic links, sorted. Directories are implied by their contents.
_sf_cache_listing() {
    (
        cd "$1" || exit 1
        find . -type f ! -path ./.manifest -print0 | sort -z | xargs -0 -r sha256sum
        find . -type l -printf 'link %p -> %l\n' | sort
    )
}

sf_cache_verify() {
    [ -f "$1/.manifest" ] && cmp -s "$1/.manifest" <(_sf_cache_listing "$1")
}

sf_cache_entry() {
    local dir=$1 builder=$2 lock_fd tmp
    mkdir -p "$(dirname "$dir")"
    exec {lock_fd}>"$dir.lock"
    flock "$lock_fd"
    if sf_cache_verify "$dir"; then
        exec {lock_fd}>&-
        return 0
    fi
    if [ -e "$dir" ]; then
        echo "cache: $dir is incomplete or changed since it was built: building it again" >&2
        rm -rf "$dir"
    fi
    # What a build that was cut short left (the lock is ours: none runs now).
    rm -rf "$dir".build.*
    tmp=$(mktemp -d "$dir.build.XXXXXX")
    if ! "$builder" "$tmp" "$dir"; then
        rm -rf "$tmp"
        exec {lock_fd}>&-
        return 1
    fi
    chmod -R a+rX "$tmp"
    _sf_cache_listing "$tmp" >"$tmp.manifest" && mv "$tmp.manifest" "$tmp/.manifest"
    mv -T "$tmp" "$dir"
    exec {lock_fd}>&-
}
