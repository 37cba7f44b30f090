# snowflake_id: PGXS build, plus the project's own targets.
#
#   make demo       build, stage, start a throwaway server and show the extension
#   make demo-stop  stop the demo server
#   make test       every test (unit, regression, server tests, the frameworks'
#                   recipes); first the packages of deps-frameworks
#   make deps-frameworks  what the frameworks suite also needs: the stacks'
#                   Debian packages, and their npm modules into the machine's cache
#                   (tools/ensure-deps frameworks)
#   make test-stress SUITES="a b" LOAD=N  those suites (default all) with N busy
#                   loops beside them (default 6), as on a loaded machine
#   make test-citus snowflake_id in a Citus 13.2.2 cluster (tests/server/citus.sh);
#                   builds Citus from ../shared/vendor once per machine (tools/lib/cache.sh)
#   make test-patroni snowflake_id under Patroni (tests/server/patroni.sh,
#                   docs/many-servers.md#patroni): etcd and three members started
#                   by the test, seeded events; SEED=n or SEEDS=k, EVENTS=n,
#                   CONFIGS="static per_member auto"; first the packages of
#                   tools/ensure-deps patroni
#   make test-lifecycle  the lifecycle simulator (tests/lifecycle/run, docs/lifecycle.md):
#                   STORE=pg|redis, SEED=n or SEEDS=k, STEPS=n
#   make test-all-versions  the server tests against PostgreSQL 15 to 19 and 15.12,
#                   PG_VERSIONS="16 ..." to choose (tests/all-versions,
#                   docs/postgresql-versions.md)
#   make test-pg-upgrade  pg_upgrade 15 -> 16 -> 17 -> 18 -> 19, static and 'auto'
#                   node ids, registries on both stores (tests/server/pg_upgrade_chain.sh,
#                   docs/upgrading.md); full server binaries from tools/fetch-pg --full
#   make bench      the benchmark (bench/run)
#   make bench-durable  what the durable reservation costs (bench/durable-cost)
#   make bench-toolkit  blocks against single calls, decoders against gen_random_uuid (bench/toolkit)
#   make bench-registry what a registry of node ids costs (bench/registry-cost)
#   make bench-type the snowflake column type against a bigint key (bench/type-cost)
#   make bench-time a snowflake compared with a time against the hand-written
#                   boundary form on 10 M rows (bench/time-compare)
#   make bench-fleet a fleet of simulated servers leasing node ids from a
#                   PostgreSQL and a Redis registry through a delaying proxy: a
#                   simultaneous start, restart and decommission waves, an outage
#                   (bench/fleet/run, docs/benchmarks.md); STORE=pg|redis|both,
#                   N, RTT_MS, SEED and the phases' knobs in the environment.
#                   make build/fleet/fleet only builds the simulator
#   make bench-wait one session against the layout's ceiling with max_clock_drift = 0,
#                   at 6 to 12 sequence bits: the generator's wait for the next
#                   millisecond (bench/ms-wait)
#   make bench-restore what the restore check costs a session's first call and the
#                   origin rows' commit, before and after issue 48 (bench/restore-check-cost)
#   make update-scripts  the update script of every unreleased version, from its
#                   src/sql/updates/*.delta.sql and the sources (tools/sql-repair)
#   make format     clang-format every C++ file in place
#   make check-format  the C++ formatted (clang-format), the shell scripts
#                   clean (shellcheck, tools/check-shell)
#   make packages   Debian packages postgresql-NN-snowflake-id for 15 to 19 under
#                   build/packages/, each built with pg_buildext against its major and
#                   tested on it (tools/packages deb, tests/server/channel.sh); MAJORS="17 18"
#                   to choose
#   make rpm        RPMs in PGDG's layout (rpm/snowflake_id.spec) for the same majors,
#                   under build/packages/rpm/, each tested likewise (tools/packages rpm)
#   make image      CloudNativePG extension images for 18 and 19,
#                   build/image/snowflake_id-<version>-pg<major>.oci.tar, each
#                   tested as CloudNativePG mounts it (tools/packages image)
#   make dist       the PGXN release archive build/snowflake_id-<version>.zip
#                   (version from META.json, which must agree with the control
#                   file): `git archive` of HEAD, so uncommitted changes are
#                   not in it (a warning says so); DIST_DIR=dir writes it
#                   elsewhere. tools/dist, docs/releasing.md
#
# `make` and `make install` are PGXS's: they build snowflake_id.so and install
# it into the server found by pg_config.

EXTENSION = snowflake_id
MODULE_big = snowflake_id
# The newest full install script, which CREATE EXTENSION runs, is built
# (DATA_built) from one source per SQL object under src/sql/, listed in
# src/sql/snowflake_id.sql (CONTRIBUTING.md, "Changing the SQL"). DATA:
# 1.0's script and the update chain, with which ALTER EXTENSION UPDATE
# updates an older install and CREATE EXTENSION ... VERSION installs an
# older version (1.0, then each update script up to it: PostgreSQL 10 and
# later need no full script for it), and 1.6's full script as 1.6 shipped
# it. Released scripts never change and stay in DATA (RELEASES;
# tools/check-releases reads what make -n install installs).
DATA = snowflake_id--1.6.sql snowflake_id--1.0.sql snowflake_id--1.0--1.1.sql \
	snowflake_id--1.1--1.2.sql snowflake_id--1.2--1.3.sql snowflake_id--1.3--1.4.sql \
	snowflake_id--1.4--1.5.sql snowflake_id--1.5--1.6.sql snowflake_id--1.6--1.7.sql
EXTVERSION := $(shell sed -n "s/^default_version = '\(.*\)'/\1/p" snowflake_id.control)
SQL_MAIN = src/sql/snowflake_id.sql
SQL_SOURCES := $(SQL_MAIN) $(addprefix src/sql/,$(shell sed -n 's/^\\ir //p' $(SQL_MAIN) 2>/dev/null))
DATA_built = build/snowflake_id--$(EXTVERSION).sql
PGFILEDESC = "snowflake_id - Snowflake IDs generated inside PostgreSQL"

# `make installcheck`: the pg_regress suites that need a preloaded server
# with a worker id. The library must be preloaded, so pg_regress starts a
# temporary instance of the installed server with tests/installcheck.conf,
# as contrib's pg_stat_statements does, in the C locale (the expected files'
# order and English messages, whatever the caller's locale).
# tests/server/regress.sh runs this, and the suites that need other settings.
REGRESS = snowflake_functions snowflake_errors snowflake_toolkit snowflake_partitioning \
	snowflake_registry snowflake_type snowflake_upgrade snowflake_schema snowflake_search_path \
	snowflake_time snowflake_adopt snowflake_date_bin \
	snowflake_public
REGRESS_OPTS = --temp-instance=tmp_check --temp-config=$(srcdir)/tests/installcheck.conf \
	--no-locale --encoding=UTF8

CORE_SRCS = $(wildcard src/core/*.cpp)
# The stores of leases: libpq and hiredis clients that include no PostgreSQL
# server header (src/registry/registry_env.hpp), shared with bench/fleet.
STORE_SRCS = $(wildcard src/registry/*.cpp)
GLUE_SRCS = $(wildcard src/pg/*.cpp src/pg/registry/*.cpp)
OBJS = $(CORE_SRCS:.cpp=.o) $(STORE_SRCS:.cpp=.o) $(GLUE_SRCS:.cpp=.o)

PG_CONFIG ?= pg_config
PG_INCLUDE_SERVER := $(shell $(PG_CONFIG) --includedir-server 2>/dev/null)

# C++20 for the core. PostgreSQL's headers use `register` and other things
# C++ warns about: -isystem silences them without hiding our own warnings.
# -fno-exceptions: nothing in the library can throw into PostgreSQL.
PG_CXXFLAGS = -std=c++20 -Wall -Wextra -Werror -fno-exceptions -fno-rtti -Isrc \
	-isystem $(PG_INCLUDE_SERVER)
# The module's version (PG_MODULE_MAGIC_EXT, PostgreSQL 18 and later) is the
# control file's default_version (EXTVERSION above): one place to change it.
PG_CXXFLAGS += -DSF_EXTENSION_VERSION='"$(EXTVERSION)"'
# libpq for the registry worker's store (src/registry/pq_store.cpp), as contrib's
# dblink and postgres_fdw use it.
PG_CXXFLAGS += -isystem $(shell $(PG_CONFIG) --includedir 2>/dev/null)
# PGXS compiles C++ with g++ but links with gcc.
SHLIB_LINK += -lpq -lstdc++
# hiredis for the Redis store of node ids (src/registry/redis_store.cpp).
SHLIB_LINK += -lhiredis

# Debian builds PostgreSQL with LLVM, and PGXS would also compile every object
# to bitcode with clang-14 without our flags. JIT inlining of an ID generator
# buys nothing: skip the bitcode.
override with_llvm = no

PGXS := $(shell $(PG_CONFIG) --pgxs 2>/dev/null)
ifneq ($(PGXS),)
include $(PGXS)
endif

# The full install script: src/sql/snowflake_id.sql with each \ir line
# replaced by the file it names (relative to src/sql/), a missing one an
# error.
$(DATA_built): $(SQL_SOURCES)
	@mkdir -p $(dir $@)
	awk 'NR == 1 { print "-- snowflake_id $(EXTVERSION), built by make from $(SQL_MAIN): edit the sources, not this file" } \
	    /^\\ir / { f = "src/sql/" $$2; while ((r = (getline line < f)) > 0) print line; \
	                if (r < 0) { print "no " f " (" FILENAME ")" > "/dev/stderr"; exit 1 } \
	                close(f); next } \
	    { print }' $(SQL_MAIN) >$@.tmp
	mv $@.tmp $@

# PGXS knows nothing of our headers: rebuild every object when one changes,
# or objects compiled against an old struct layout get linked with new ones.
$(OBJS): $(wildcard src/core/*.hpp src/registry/*.hpp src/pg/*.hpp src/pg/registry/*.hpp)

BUILD = build
GTEST_BIN = $(BUILD)/unit_tests
UNIT_SRCS = $(wildcard tests/unit/*.cpp)

# One object per source, so that `make -j` compiles them side by side (the
# unit suite builds with one job per core); each depends on every core header
# and the tests' own (the store in memory), as PGXS's objects do above.
UNIT_OBJS = $(patsubst %.cpp,$(BUILD)/unit-objs/%.o,$(CORE_SRCS) $(UNIT_SRCS))

$(BUILD)/unit-objs/%.o: %.cpp $(wildcard src/core/*.hpp tests/unit/*.hpp)
	@mkdir -p $(dir $@)
	g++ -std=c++20 -Wall -Wextra -Werror -O2 -g -Isrc -c $< -o $@

$(GTEST_BIN): $(UNIT_OBJS)
	g++ $(UNIT_OBJS) -lgtest -lgtest_main -pthread -o $@

.PHONY: update-scripts deps deps-demo deps-frameworks deps-patroni unit test test-stress test-citus test-patroni test-lifecycle test-all-versions test-pg-upgrade demo demo-stop bench bench-durable bench-toolkit bench-registry bench-type bench-time bench-wait bench-restore bench-fleet format \
	check-format dist packages rpm image

deps:
	@tools/ensure-deps

deps-frameworks:
	@tools/ensure-deps frameworks >/dev/null

# The build after deps (a parallel make would start compiling before
# ensure-deps installed GoogleTest).
unit: deps
	@$(MAKE) --no-print-directory $(GTEST_BIN)
	$(GTEST_BIN)

# make test checks every package up front (the frameworks suite's too), so
# that a missing one is named at the start, not twenty minutes in.
test: deps-frameworks
	@tests/run-all

# SUITES="a b" (default: all) with LOAD busy loops beside them (default 6).
test-stress: deps-frameworks
	@SF_SUITES="$(SUITES)" SF_LOAD="$(or $(LOAD),6)" tests/run-all

test-citus: deps
	@tests/server/citus.sh

deps-patroni:
	@tools/ensure-deps patroni

# SEED, SEEDS, EVENTS and CONFIGS given on make's command line reach the
# driver through the environment.
test-patroni: deps-patroni
	@tests/server/patroni.sh

# STORE, SEED, SEEDS, FIRST_SEED, STEPS and EVENTS given on make's command
# line reach the driver through the environment.
test-lifecycle: deps
	@tests/lifecycle/run

test-all-versions: deps
	@tests/all-versions

test-pg-upgrade: deps
	@tests/server/pg_upgrade_chain.sh

# Only what the demo needs (tools/ensure-deps demo), not the tests' packages.
# The update scripts of the versions not yet released, from their
# src/sql/updates/*.delta.sql and the sources (CONTRIBUTING.md, "Changing the SQL").
update-scripts:
	@tools/sql-repair --write

deps-demo:
	@tools/ensure-deps demo

demo: deps-demo
	@tools/demo start

demo-stop:
	@tools/demo stop

bench: deps
	@bench/run

bench-durable: deps
	@bench/durable-cost

bench-toolkit: deps
	@bench/toolkit

bench-registry: deps
	@bench/registry-cost

bench-type: deps
	@bench/type-cost

bench-time: deps
	@bench/time-compare

bench-wait: deps
	@bench/ms-wait

bench-restore: deps
	@bench/restore-check-cost

# The fleet simulator: the core and the stores the extension links, with
# the simulator's own files, as one program (no PostgreSQL server header).
FLEET_SRCS = $(CORE_SRCS) $(STORE_SRCS) $(wildcard bench/fleet/*.cpp)
FLEET_OBJS = $(patsubst %.cpp,$(BUILD)/fleet/objs/%.o,$(FLEET_SRCS))
FLEET_CXXFLAGS = -std=c++20 -O2 -g -Wall -Wextra -Werror -pthread -Isrc \
	-isystem $(shell $(PG_CONFIG) --includedir 2>/dev/null)

$(BUILD)/fleet/objs/%.o: %.cpp $(wildcard src/core/*.hpp src/registry/*.hpp bench/fleet/*.hpp)
	@mkdir -p $(dir $@)
	g++ $(FLEET_CXXFLAGS) -c $< -o $@

$(BUILD)/fleet/fleet: $(FLEET_OBJS)
	g++ -pthread $(FLEET_OBJS) -lpq -lhiredis -o $@

# A split brain's race on a real registry (tests/server/registry_race.sh),
# through the same stores (objects built by the fleet's rule above).
RACE_SRCS = $(CORE_SRCS) $(STORE_SRCS) tests/registry/store_race.cpp
RACE_OBJS = $(patsubst %.cpp,$(BUILD)/fleet/objs/%.o,$(RACE_SRCS))

$(BUILD)/tests/store_race: $(RACE_OBJS)
	@mkdir -p $(dir $@)
	g++ -pthread $(RACE_OBJS) -lpq -lhiredis -o $@

# N, STORE, RTT_MS, SEED and the phases' knobs reach bench/fleet/run
# through the environment.
bench-fleet: deps
	@$(MAKE) --no-print-directory -j$(shell nproc) $(BUILD)/fleet/fleet
	@bench/fleet/run

format:
	clang-format -i src/core/*.[ch]pp src/registry/*.[ch]pp src/pg/*.[ch]pp src/pg/registry/*.[ch]pp \
		bench/fleet/*.[ch]pp tests/registry/*.cpp tests/unit/*.[ch]pp

# MAJORS given on make's command line chooses the majors (all by default).
packages: deps
	@tools/packages deb $(MAJORS)

rpm: deps
	@tools/packages rpm $(MAJORS)

image: deps
	@tools/packages image $(MAJORS)

DIST_DIR = $(BUILD)

dist:
	@tools/dist $(DIST_DIR)

# The C++ against .clang-format, and the shell scripts with shellcheck
# (tools/check-shell finds them by their shebang).
check-format:
	clang-format --dry-run -Werror src/core/*.[ch]pp src/registry/*.[ch]pp src/pg/*.[ch]pp \
		src/pg/registry/*.[ch]pp bench/fleet/*.[ch]pp tests/registry/*.cpp tests/unit/*.[ch]pp
	tools/check-shell
