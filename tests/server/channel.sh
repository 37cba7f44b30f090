#!/usr/bin/env bash
# tests/server/channel.sh CHANNEL FILE: one package of snowflake_id (tools/packages)
# on the major it was built for (PG_CONFIG: that major's server, tools/fetch-pg),
# loaded the way its users' servers load it:
#   deb    the .deb's files (dpkg -x), put where that server keeps its own
#          (/usr/lib/postgresql/NN/lib, /usr/share/postgresql/NN/extension
#          in the package)
#   rpm    the .rpm's files (rpm2cpio | cpio), from PGDG's /usr/pgsql-NN/lib
#          and /usr/pgsql-NN/share/extension, put there likewise
#   image  the OCI archive unpacked by skopeo and umoci (tools independent of
#          the one that wrote it) into a folder of its own, as CloudNativePG
#          mounts it under /extensions/snowflake_id; the server holds none of
#          the extension's files and finds them only through
#          extension_control_path and dynamic_library_path, set as
#          tests/server/channel/cluster.yaml has CloudNativePG set them
# Each: the package holds the library, the control file, the newest full
# install script and every script of the tree; the regression suites pass
# (make installcheck: a temporary instance that preloads the library); a
# server preloading it creates the extension, hands out IDs, is restarted and
# hands out IDs above them.
set -euo pipefail
source "$(dirname "$0")/../lib/cluster.sh"
channel=${1:?usage: channel.sh deb|rpm|image FILE}
file=$(realpath "${2:?usage: channel.sh deb|rpm|image FILE}")
sf_init_workspace
major=$($SF_PG_CONFIG --version | sed -n 's/^PostgreSQL \([0-9]*\).*/\1/p')
version=$(sf_extension_version)
sharedir=$($SF_PG_CONFIG --sharedir)
pkglibdir=$($SF_PG_CONFIG --pkglibdir)

unpacked=$SF_WORK/unpacked
mkdir -p "$unpacked"
case $channel in
deb)
    dpkg-deb -x "$file" "$unpacked"
    lib=$unpacked/usr/lib/postgresql/$major/lib ext=$unpacked/usr/share/postgresql/$major/extension
    ;;
rpm)
    sf_expect_eq "the RPM is named as PGDG names them" "snowflake_id_$major" \
        "$(rpm -qp --qf '%{NAME}' "$file")"
    sf_expect_match "it requires the major's server" "^postgresql$major-server\$" \
        "$(rpm -qp --requires "$file")"
    listing=$(rpm -qlp "$file")
    for f in lib/snowflake_id.so share/extension/snowflake_id.control \
        share/extension/snowflake_id--"$version".sql; do
        grep -qx "/usr/pgsql-$major/$f" <<<"$listing" || sf_die "rpm -qlp lists no /usr/pgsql-$major/$f"
    done
    # Nothing but the extension's files in PGDG's layout, and its docs.
    others=$(grep -vE "^/usr/pgsql-$major/(lib/snowflake_id\.so|share/extension/snowflake_id(\.control|--[0-9.]+(--[0-9.]+)?\.sql))\$|^/usr/share/(doc|licenses)/snowflake_id_$major(/|\$)" \
        <<<"$listing" || true)
    [ -z "$others" ] || sf_die "rpm -qlp lists files outside PGDG's layout: $others"
    sf_log "ok: rpm -qlp: the library in /usr/pgsql-$major/lib, the scripts in /usr/pgsql-$major/share/extension, nothing else but docs"
    (cd "$unpacked" && rpm2cpio "$file" | cpio -idm --quiet)
    lib=$unpacked/usr/pgsql-$major/lib ext=$unpacked/usr/pgsql-$major/share/extension
    ;;
image)
    # skopeo reads the archive (its index, manifest and config by their
    # digests) into an OCI layout, umoci applies the layers to a folder.
    skopeo copy --quiet "oci-archive:$file" "oci:$SF_WORK/layout:snowflake_id" ||
        sf_die "skopeo cannot read $file"
    umoci raw unpack --rootless --image "$SF_WORK/layout:snowflake_id" "$SF_WORK/image" ||
        sf_die "umoci cannot unpack the image"
    labels=$(skopeo inspect --config "oci:$SF_WORK/layout:snowflake_id")
    sf_expect_eq "the image's labels name the version" "$version" \
        "$(jq -r '.config.Labels["org.opencontainers.image.version"]' <<<"$labels")"
    sf_expect_eq "... and the major" "$major" \
        "$(jq -r '.config.Labels["snowflake_id.postgresql.major"]' <<<"$labels")"
    sf_expect_eq "the image holds only share/ and lib/" "lib share" \
        "$(cd "$SF_WORK/image" && echo *)"
    sf_expect_eq "... share/ only extension/" extension "$(cd "$SF_WORK/image/share" && echo *)"
    # Where CloudNativePG mounts it: /extensions/<name>.
    mount=$SF_WORK/extensions/snowflake_id
    mkdir -p "$(dirname "$mount")"
    mv "$SF_WORK/image" "$mount"
    chmod -R a+rX "$SF_WORK/extensions"
    lib=$mount/lib ext=$mount/share/extension
    ;;
*) sf_die "unknown channel $channel" ;;
esac
[ -f "$lib/snowflake_id.so" ] || sf_die "$channel: no snowflake_id.so in $(basename "$file")"
[ -f "$ext/snowflake_id.control" ] || sf_die "$channel: no snowflake_id.control in $(basename "$file")"
[ -f "$ext/snowflake_id--$version.sql" ] || sf_die "$channel: no full install script of $version"
for f in "$SF_ROOT"/snowflake_id--*.sql; do
    cmp -s "$f" "$ext/$(basename "$f")" || sf_die "$channel: $(basename "$f") missing or not the tree's"
done
sf_log "ok: $channel: the library, the control file and every script of $version"

installcheck=$SF_WORK/installcheck
mkdir -p "$installcheck/tests"
cp -r "$SF_ROOT"/Makefile "$SF_ROOT"/*.control "$SF_ROOT"/*.sql "$SF_ROOT/sql" \
    "$SF_ROOT/expected" "$installcheck/"
cp "$SF_ROOT/tests/installcheck.conf" "$installcheck/tests/"
settings=()
if [ "$channel" = image ]; then
    # The settings CloudNativePG adds for each image in the Cluster's
    # postgresql.extensions, as the manifest of the docs writes them.
    mapfile -t settings < <(python3 - "$SF_ROOT/tests/server/channel/cluster.yaml" "$SF_WORK/extensions" <<'EOF'
import sys, yaml
cluster = yaml.safe_load(open(sys.argv[1]))
pg = cluster["spec"]["postgresql"]
ext = next(e for e in pg["extensions"] if e["name"] == "snowflake_id")
base = f"{sys.argv[2]}/{ext['name']}"
control = ":".join(f"{base}/{p}" for p in ext.get("extension_control_path", ["share"]))
library = ":".join(f"{base}/{p}" for p in ext.get("dynamic_library_path", ["lib"]))
print(f"extension_control_path = '$system:{control}'")
print(f"dynamic_library_path = '$libdir:{library}'")
print(f"shared_preload_libraries = '{','.join(pg['shared_preload_libraries'])}'")
for k, v in pg.get("parameters", {}).items():
    print(f"{k} = '{v}'")
EOF
    )
    [ "${#settings[@]}" -ge 3 ] || sf_die "tests/server/channel/cluster.yaml: no settings read"
    # The suites expect installcheck.conf's worker id: only the paths and the
    # preload for them; the preloaded run below takes the manifest whole.
    printf '%s\n' "${settings[@]:0:3}" >>"$installcheck/tests/installcheck.conf"
    # The server's own directories hold nothing of the extension.
    empty=$SF_WORK/nothing
    mkdir -p "$empty$sharedir/extension" "$empty$pkglibdir"
    SF_STAGE_FROM=$empty sf_stage
    for f in "$SF_STAGE$sharedir/extension/snowflake_id.control" "$SF_STAGE$pkglibdir/snowflake_id.so"; do
        [ ! -e "$f" ] || sf_die "the stage has $f: the test would not show the image is used"
    done
else
    from=$SF_WORK/from
    mkdir -p "$from$pkglibdir" "$from$sharedir/extension"
    cp -a "$lib/." "$from$pkglibdir/"
    cp -a "$ext/." "$from$sharedir/extension/"
    SF_STAGE_FROM=$from sf_stage
fi

# shellcheck disable=SC2119 # the tree prepared above, passed as TREE
sf_installcheck "$installcheck" || sf_die "$channel: make installcheck failed on PostgreSQL $major"
sf_log "ok: $channel: the regression suites pass on PostgreSQL $major"

# A server that preloads it: IDs, a restart, IDs above them.
if [ "$channel" = image ]; then
    sf_new s preload=no "${settings[@]}"
else
    sf_new s "snowflake_id.worker_id = 3"
fi
sf_start s || { sf_server_log s >&2; sf_die "$channel: the server preloading it did not start"; }
sf_psql s -c "CREATE EXTENSION snowflake_id"
sf_expect_eq "CREATE EXTENSION installs $version" "$version" \
    "$(sf_psql s -c "SELECT extversion FROM pg_extension WHERE extname = 'snowflake_id'")"
before=$(sf_psql s -c "SELECT max(snowflake_nextval()) FROM generate_series(1, 1000)")
if [ "$channel" = image ]; then
    sf_expect_match "the library is the image's" "^$lib/snowflake_id\\.so\$" \
        "$(sf_as_server grep -F snowflake_id.so "/proc/$(head -1 "$(sf_datadir s)/postmaster.pid")/maps" |
            awk '{print $6}' | sort -u)"
fi
sf_stop s
sf_start s || { sf_server_log s >&2; sf_die "$channel: the restart failed"; }
after=$(sf_psql s -c "SELECT snowflake_nextval()")
[ "$after" -gt "$before" ] || sf_die "$channel: after the restart $after, not above $before"
sf_log "ok: $channel: preloaded, CREATE EXTENSION, IDs, a restart, IDs above them ($before < $after)"
sf_log "channel: $channel on PostgreSQL $major: all checks passed"
