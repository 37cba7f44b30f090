#!/usr/bin/env bash
# Application stacks' schema tools against a database with the extension
# (issue 30): each must leave the extension's objects alone, as if they were
# not there. Per tool, against an application database whose one table is
# items (id bigint PRIMARY KEY DEFAULT snowflake_nextval(), note text):
#   alembic   Alembic 1.8's autogenerate (compare_metadata) with a model of
#             items: plans nothing
#   rails     ActiveRecord 6.1's schema dump, loaded into a fresh database
#             and dumped again: loads, same file, nothing of the extension's
#   drizzle   drizzle-kit 0.31's push plan (its pushSchema API) plans
#             nothing; `drizzle-kit push` runs; `drizzle-kit pull` writes
#             a schema without the extension's relations
#   typeorm   TypeORM's synchronize plans nothing of the extension's; its
#             dropSchema then synchronize succeeds and leaves the extension
#             working
#   django    Django 3.2's inspectdb (views included) models items and
#             nothing of the extension's
# The tools run against the extension as CREATE EXTENSION installs it; a
# database updated from 1.5 holds the same objects in the same schemas (the
# regression test snowflake_upgrade compares them), so the suite only checks
# that nothing of the extension's is left in its public schema, unless
# SF_FRAMEWORKS_SETUPS="installed updated" runs the tools there too.
# Every tool's output goes to the log and to $SF_WORK/out; the end lists
# each tool and setup as clean or not, and the suite fails if any is not.
#
# Then each stack's recipes (docs/frameworks/<stack>.md), run by
# tests/server/frameworks/<stack>/run against a database of its own that has
# the extension and nothing else; the docs quote those files
# (tests/docs/check-recipes checks it). A run's environment: SF_SOCKDIR,
# SF_PORT (the server listens on SF_SOCKDIR's socket and on
# 127.0.0.1:SF_PORT), SF_DB, SF_APP (a directory whose node_modules holds the npm
# modules), SF_STACK_WORK (scratch, empty), SF_CACHE (a per-machine cache
# directory of the stack's own, kept between runs), PYTHON, RUBY. It prints
# "ok: ..." for each assertion and exits non-zero at the first that fails.
#
# SF_FRAMEWORKS="alembic rails ..." chooses the schema tools (empty: none),
# SF_RECIPES="django go ..." the stacks (empty: none). The packages: tools/ensure-deps
# frameworks (the npm modules are cached per machine).
#
# SF_RECIPE_ROLE=app runs every recipe as that ordinary role (the
# least_privilege suite does): a LOGIN role, neither superuser nor a
# database owner, given CREATE and USAGE on its database's schema public
# (its migrations make its tables, which it then owns) and nothing of the
# extension's beyond PUBLIC's. The recipes connect as postgres, in files the
# docs quote, so each recipe database gets ALTER ROLE postgres IN DATABASE
# ... SET role: each of their sessions runs as the role, superuser() false.
# After a stack's run, its tables must be the role's.
set -euo pipefail
source "$(dirname "$0")/../lib/cluster.sh"
# shellcheck source=tools/lib/cache.sh
source "$(dirname "$0")/../../tools/lib/cache.sh"
sf_init_workspace

npm_dir=$("$SF_ROOT/tools/ensure-deps" frameworks) ||
    sf_die "the frameworks' packages are missing: run tools/ensure-deps frameworks"
# Node.js tools colour their output when CI is set (supports-color), and the
# checks' greps then miss what they look for: no colours, in CI as anywhere.
export FORCE_COLOR=0 NO_COLOR=1
# Debian's Python and Ruby, where the Debian packages are (not an earlier one in PATH).
python=/usr/bin/python3
ruby=/usr/bin/ruby
here=$SF_ROOT/tests/server/frameworks
tools=${SF_FRAMEWORKS-alembic rails drizzle typeorm django}
setups=${SF_FRAMEWORKS_SETUPS:-installed}

sf_stage
# pgjdbc (the jdbc recipes) speaks TCP only: the server also listens on
# 127.0.0.1, on a port the kernel has free now rather than a fixed one that a
# parallel run or another server could hold. SF_PORT names the socket file too.
free_port() {
    "$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
SF_PORT=$(free_port)
# Each recipe asserts that a window from a server time read before its inserts
# holds exactly the rows they minted. A new server's generator starts
# max_clock_drift (1 s) ahead of the clock: a stack that got there within that
# second of the start (one stack alone, on a fast machine) would find its
# earlier rows in the window too. With 0 no ID is ahead of the clock.
sf_new f "snowflake_id.worker_id = 7" "snowflake_id.max_clock_drift = 0" "listen_addresses = '127.0.0.1'"
# The port is not held between the pick and the server's bind: a connection
# made meanwhile may take it (the kernel hands out the same range). Then the
# server cannot start, and another port is picked.
for attempt in 1 2 3; do
    sf_start f && break
    if [ "$attempt" = 3 ] || ! grep -q 'could not bind IPv4 address "127.0.0.1": Address already in use' \
        "$SF_WORK/f/server.log"; then
        sf_die "server did not start: $(tail -n 3 "$SF_WORK/f/server.log")"
    fi
    sf_log "port $SF_PORT was taken before the server bound it: another"
    SF_PORT=$(free_port)
    sf_conf f "port = $SF_PORT"
done
sock=$(sf_sockdir f)

# The Node.js application: the suite's scripts beside the cached modules.
app=$SF_WORK/app
mkdir -p "$app" "$SF_WORK/out"
ln -s "$npm_dir/node_modules" "$app/node_modules"
cp "$here"/*.js "$app/"
cp "$here/drizzle/drizzle.config.js" "$app/drizzle-recipe.config.js"

# What a tool must not name: the extension's relations (and its schema's
# tables, as Rails or Drizzle would spell them).
extension_pattern='snowflake_registry|snowflake_status'

# new_db NAME SETUP [empty]: a database with the extension in SETUP
# (installed: CREATE EXTENSION; updated: 1.5 updated to the current version,
# as a fleet's databases have it) and the application's table; with "empty",
# a bare database (a schema load's target).
new_db() {
    local db=$1 setup=$2
    sf_psql f -c "CREATE DATABASE $db"
    [ "${3:-}" != empty ] || return 0
    case $setup in
    installed) sf_psql f -d "$db" -c "CREATE EXTENSION snowflake_id" ;;
    updated)
        sf_psql f -d "$db" -c "CREATE EXTENSION snowflake_id VERSION '1.5'"
        sf_psql f -d "$db" -c "ALTER EXTENSION snowflake_id UPDATE" 2>/dev/null
        ;;
    *) sf_die "new_db: no setup $setup" ;;
    esac
    sf_expect_eq "$db ($setup): no relation of the extension in public" 0 \
        "$(sf_public_extension_relations f -d "$db")"
    sf_psql f -d "$db" -c "CREATE TABLE items (id bigint PRIMARY KEY DEFAULT snowflake_nextval(), note text)"
}

new_db updated_probe updated

results=()
failed=0
# verdict TOOL SETUP clean|"not clean: why"
verdict() {
    results+=("$(printf '%-8s %-10s %s' "$1" "$2" "$3")")
    # Counted here, not from the line: a why may end in " clean" too.
    [ "$3" = clean ] || failed=$((failed + 1))
    sf_log "== $1 ($2): $3"
}
# show FILE: a tool's output into the log, without the terminal's colours
# and drizzle-kit's progress spinners (each of its steps once).
show() {
    perl -CSD -ne 's/\e\[[0-9;]*[A-Za-z]//g; next if /^\[[\x{2800}-\x{28FF}]\]/;
        next if /^\[\x{2713}\]/ && $seen{$_}++; print "    | $_"' "$1" >&2
}

run_alembic() {
    local setup=$1 db=alembic_$1 out=$SF_WORK/out/alembic-$1
    new_db "$db" "$setup"
    "$python" "$here/alembic_autogenerate.py" "$sock" "$SF_PORT" "$db" >"$out.txt" 2>&1 ||
        { show "$out.txt"; verdict alembic "$setup" "not clean: autogenerate failed"; return; }
    show "$out.txt"
    # include_schemas=True sees the schema snowflake_id: with the
    # include_name hook it plans nothing; without it, it drops the
    # extension's tables, as the page warns.
    "$python" "$here/alembic_autogenerate.py" "$sock" "$SF_PORT" "$db" all-schemas \
        >"$out-all-schemas.txt" 2>&1 || { show "$out-all-schemas.txt"; sf_die "alembic: all-schemas failed"; }
    sf_log "   with include_schemas=True and the include_name hook:"
    show "$out-all-schemas.txt"
    "$python" "$here/alembic_autogenerate.py" "$sock" "$SF_PORT" "$db" all-schemas-unfiltered \
        >"$out-unfiltered.txt" 2>&1 || true
    sf_log "   with include_schemas=True, no hook:"
    show "$out-unfiltered.txt"
    grep -q '^diff: remove_table snowflake_id.snowflake_registry_lease' "$out-unfiltered.txt" ||
        { verdict alembic "$setup" "not clean: without include_name, autogenerate no longer drops the registry's tables (docs/frameworks.md says it does)"; return; }
    cat "$out-all-schemas.txt" >>"$out.txt"
    if grep -q '^diff:' "$out.txt"; then
        verdict alembic "$setup" "not clean: $(grep '^diff:' "$out.txt" | cut -d' ' -f2- | paste -sd ',' -)"
    else
        verdict alembic "$setup" clean
    fi
}

run_rails() {
    local setup=$1 db=rails_$1 out=$SF_WORK/out/rails-$1 rc=0
    new_db "$db" "$setup"
    new_db "${db}_loaded" "$setup" empty
    mkdir -p "$out"
    rails() { "$ruby" "$here/rails_schema.rb" "$sock" "$SF_PORT" "$@" >>"$out/log.txt" 2>&1; }
    rails dump "$db" "$out/schema.rb" || sf_die "rails: the schema dump failed: $(cat "$out/log.txt")"
    rails load "${db}_loaded" "$out/schema.rb" || rc=$?
    [ "$rc" != 0 ] || rails dump "${db}_loaded" "$out/schema-reloaded.rb" ||
        sf_die "rails: the dump of the loaded database failed: $(cat "$out/log.txt")"
    show "$out/log.txt"
    sf_log "   schema.rb:"
    show "$out/schema.rb"
    if [ "$rc" != 0 ]; then
        verdict rails "$setup" "not clean: $(grep -o 'load into.*' "$out/log.txt")"
    elif grep -Eq "$extension_pattern" "$out/schema.rb"; then
        verdict rails "$setup" "not clean: schema.rb has $(grep -Eo "create_table \"($extension_pattern)[a-z_]*\"" \
            "$out/schema.rb" | paste -sd ',' -)"
    elif ! diff "$out/schema.rb" "$out/schema-reloaded.rb" >"$out/diff.txt"; then
        show "$out/diff.txt"
        verdict rails "$setup" "not clean: the loaded database dumps differently"
    else
        verdict rails "$setup" clean
    fi
}

run_drizzle() {
    local setup=$1 db=drizzle_$1 out=$SF_WORK/out/drizzle-$1 problems=()
    new_db "$db" "$setup"
    (cd "$app" && node drizzle_plan.js "$sock" "$SF_PORT" "$db") >"$out-plan.txt" 2>&1 ||
        problems+=("the push plan failed")
    sf_log "   push plan (drizzle-kit/api pushSchema):"
    show "$out-plan.txt"
    ! grep -q '^statement:' "$out-plan.txt" ||
        problems+=("push plans $(grep -c '^statement:' "$out-plan.txt") statements")
    # pull first: push would change what it finds.
    (cd "$app" && SF_SOCKDIR=$sock SF_PORT=$SF_PORT SF_DB=$db \
        node node_modules/drizzle-kit/bin.cjs pull --config drizzle.config.js) \
        >"$out-pull.txt" 2>&1 </dev/null || problems+=("pull failed")
    sf_log "   drizzle-kit pull:"
    show "$out-pull.txt"
    if [ -f "$app/drizzle/schema.ts" ]; then
        cp "$app/drizzle/schema.ts" "$out-pull-schema.ts"
        show "$out-pull-schema.ts"
        ! grep -Eq "$extension_pattern" "$out-pull-schema.ts" || problems+=("pull writes the extension's relations")
    fi
    rm -rf "$app/drizzle"
    (cd "$app" && SF_SOCKDIR=$sock SF_PORT=$SF_PORT SF_DB=$db \
        node node_modules/drizzle-kit/bin.cjs push --config drizzle.config.js --force --verbose) \
        >"$out-push.txt" 2>&1 </dev/null || problems+=("push exited $?")
    sf_log "   drizzle-kit push --force --verbose:"
    show "$out-push.txt"
    # drizzle-kit 0.31 exits 0 when a statement fails: its error is in the output.
    ! grep -q '^error:' "$out-push.txt" || problems+=("push failed: $(grep -m 1 '^error:' "$out-push.txt")")
    if [ "${#problems[@]}" = 0 ]; then
        verdict drizzle "$setup" clean
    else
        verdict drizzle "$setup" "not clean: $(IFS=,; echo "${problems[*]}")"
    fi
}

run_typeorm() {
    local setup=$1 db=typeorm_$1 out=$SF_WORK/out/typeorm-$1 problems=()
    new_db "$db" "$setup"
    (cd "$app" && node typeorm_sync.js "$sock" "$SF_PORT" "$db" plan) >"$out-plan.txt" 2>&1 ||
        problems+=("the synchronize plan failed")
    sf_log "   synchronize plan:"
    show "$out-plan.txt"
    ! grep -E '^up:' "$out-plan.txt" | grep -Eq "$extension_pattern" ||
        problems+=("synchronize plans for the extension's relations")
    (cd "$app" && node typeorm_sync.js "$sock" "$SF_PORT" "$db" dropschema) >"$out-drop.txt" 2>&1 ||
        problems+=("dropSchema failed: $(grep -m 1 'failed' "$out-drop.txt")")
    sf_log "   dropSchema + synchronize:"
    show "$out-drop.txt"
    sf_psql f -d "$db" -c "INSERT INTO items (note) VALUES ('after dropSchema') RETURNING 'items takes id ' || id" \
        >"$out-after.txt" 2>&1 || problems+=("items no longer takes its key from snowflake_nextval()")
    show "$out-after.txt"
    if [ "${#problems[@]}" = 0 ]; then
        verdict typeorm "$setup" clean
    else
        verdict typeorm "$setup" "not clean: $(IFS=,; echo "${problems[*]}")"
    fi
}

run_django() {
    local setup=$1 db=django_$1 out=$SF_WORK/out/django-$1.txt
    new_db "$db" "$setup"
    "$python" "$here/django_inspectdb.py" "$sock" "$SF_PORT" "$db" >"$out" 2>&1 ||
        { show "$out"; verdict django "$setup" "not clean: inspectdb failed"; return; }
    show "$out"
    grep -q "db_table = 'items'" "$out" || sf_die "django: inspectdb did not find items"
    if grep -Eq "$extension_pattern" "$out"; then
        verdict django "$setup" "not clean: models $(grep -Eo "db_table = '[a-z_]+'" "$out" |
            grep -Eo "'($extension_pattern)[a-z_]*'" | paste -sd ',' -)"
    else
        verdict django "$setup" clean
    fi
}

for setup in $setups; do
    for tool in $tools; do
        sf_log "=== $tool, setup $setup"
        "run_$tool" "$setup"
    done
done

# The recipes: a stack's run fails the suite at its first failed assertion.
recipes=${SF_RECIPES-django sqlalchemy rails go jdbc drizzle typeorm sequelize knex prisma}
recipe_role=${SF_RECIPE_ROLE:-}
if [ -n "$recipe_role" ] && [ -n "$recipes" ]; then
    sf_psql f -c "CREATE ROLE $recipe_role LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE"
fi
for stack in $recipes; do
    [ -x "$here/$stack/run" ] || sf_die "no recipes for the stack $stack ($here/$stack/run)"
    sf_log "=== recipes: $stack"
    db=recipe_$stack
    sf_psql f -c "CREATE DATABASE $db"
    sf_psql f -d "$db" -c "CREATE EXTENSION snowflake_id"
    if [ -n "$recipe_role" ]; then
        # PostgreSQL 15 took CREATE on public from PUBLIC: an application's
        # role is given it on its own database, as a DBA would.
        sf_psql f -d "$db" -c "GRANT CREATE, USAGE ON SCHEMA public TO $recipe_role" \
            -c "ALTER ROLE postgres IN DATABASE $db SET role = '$recipe_role'"
        # What a stack's own tooling needs of any application's role, none of
        # it the extension's: drizzle-orm's migrator keeps its ledger in a
        # schema of its own (CREATE SCHEMA drizzle); the Rails recipe makes a
        # second database to db:structure:load into, as `rails db:create`
        # does in development (the load itself connects there as postgres).
        case $stack in
        drizzle) sf_psql f -c "GRANT CREATE ON DATABASE $db TO $recipe_role" ;;
        rails) sf_psql f -c "ALTER ROLE $recipe_role CREATEDB" ;;
        esac
        sf_expect_eq "$stack: a session of the recipes' runs as $recipe_role, no superuser" "$recipe_role|off" \
            "$(sf_psql f -d "$db" -c "SELECT current_user, current_setting('is_superuser')")"
    fi
    mkdir -p "$SF_WORK/recipe-$stack"
    rc=0
    (cd "$here/$stack" && SF_SOCKDIR=$sock SF_PORT=$SF_PORT SF_DB=$db SF_APP=$app \
        SF_STACK_WORK=$SF_WORK/recipe-$stack SF_CACHE=$(sf_cache_root)/frameworks-$stack \
        PYTHON=$python RUBY=$ruby ./run) >"$SF_WORK/out/recipe-$stack.txt" 2>&1 || rc=$?
    show "$SF_WORK/out/recipe-$stack.txt"
    [ "$stack" != rails ] || [ -z "$recipe_role" ] || sf_psql f -c "ALTER ROLE $recipe_role NOCREATEDB"
    if [ "$rc" = 0 ] && [ -n "$recipe_role" ]; then
        owners=$(sf_psql f -d "$db" -c "SELECT coalesce(string_agg(DISTINCT tableowner, ','), 'no table')
            FROM pg_catalog.pg_tables WHERE schemaname = 'public'")
        if [ "$owners" = "$recipe_role" ]; then
            verdict "$stack" "as $recipe_role" clean
        else
            verdict "$stack" "as $recipe_role" "not clean: the recipes' tables are owned by $owners"
        fi
    elif [ "$rc" = 0 ]; then
        verdict "$stack" recipes clean
    else
        # The first FAIL line: the Node.js recipes print their stack after it.
        verdict "$stack" recipes "not clean: $(grep -m 1 '^FAIL' "$SF_WORK/out/recipe-$stack.txt" ||
            grep -v '^ok: ' "$SF_WORK/out/recipe-$stack.txt" | tail -n 1)"
    fi
done

sf_log ""
sf_log "frameworks: results"
for r in "${results[@]}"; do
    sf_log "  $r"
done
[ "$failed" = 0 ] || sf_die "$failed of ${#results[@]} tool runs are not clean"
echo "frameworks: all checks passed"
