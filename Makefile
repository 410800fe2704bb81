# awa build and test entry points. `make help` lists them.
#
# Database targets need a PostgreSQL 15 server with pgTAP. If AWA_TEST_DSN is
# set (e.g. postgres://postgres@127.0.0.1:5499/postgres?sslmode=disable) they
# use that server; otherwise they run inside a private throwaway cluster from
# scripts/pg.sh (.pg/, port $AWA_PG_PORT or 54329), started and stopped around
# the target. AWA_SQL_DIR (default sql) points the pgTAP targets at another
# tree; AWA_ROOT points generate and verify/catalog at another tree (its sql/
# and db/). Releases and upgrades: docs/releases.md.
#
# The Go tests also need a second server with PostgreSQL's stock lock-table
# settings (max_connections 100, max_locks_per_transaction 64), for the
# 10,000-queue test (internal/scale): AWA_STOCK_DSN if set, otherwise a
# throwaway stock cluster (scripts/pg.sh with AWA_PG_STOCK=1: .pg/stock/, port
# $AWA_STOCK_PORT or 54330), started and stopped around the Go tests.

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-print-directory

export AWA_SQL_DIR ?= sql
PGTAP_PKGS := postgresql-15-pgtap libtap-parser-sourcehandler-pgtap-perl
export AWA_PG_BIN ?= /usr/lib/postgresql/15/bin
PG_PROVE_FLAGS ?= # extra pg_prove flags, e.g. PG_PROVE_FLAGS=-v
DEMO_DB ?= awa_demo
DEMO_FLAGS ?= # extra `awa demo` flags, e.g. DEMO_FLAGS="-jobs 100000 -workers 100"
# sqlc is pinned and built from source into .bin/ (cgo; about 2 minutes the first time).
SQLC_VERSION := v1.31.1
SQLC := .bin/sqlc-$(SQLC_VERSION)

# $(call with_db,TARGETS): make TARGETS with AWA_TEST_DSN pointing at a server.
with_db = $(if $(AWA_TEST_DSN),$(MAKE) $(1),scripts/pg.sh run -- $(MAKE) $(1))
# $(call with_stock,CMD): run CMD with AWA_STOCK_DSN pointing at a stock server.
with_stock = $(if $(AWA_STOCK_DSN),$(1),AWA_PG_STOCK=1 scripts/pg.sh run -- $(1))
# Stock mode is chosen by with_stock alone, never inherited by with_db's cluster.
unexport AWA_PG_STOCK

.PHONY: help tools generate verify verify/generated verify/go verify/bench verify/catalog \
	test test/sql test/go demo screenshots bench release _verify/catalog _test/sql _test/go _demo _screenshots

help: ## list targets
	@grep -hE '^[a-zA-Z/_-]+:.*## ' $(MAKEFILE_LIST) \
	  | awk -F':.*## ' '{printf "  %-18s %s\n", $$1, $$2}'

tools: ## install pgTAP, pg_prove, PgBouncer, Python's psycopg and Chromium (the UI's browser test) (apt) when missing
	@missing=""; \
	[ -x $(AWA_PG_BIN)/postgres ] || missing=" postgresql-15"; \
	[ -f /usr/share/postgresql/15/extension/pgtap.control ] && command -v pg_prove >/dev/null || missing="$$missing $(PGTAP_PKGS)"; \
	[ -x /usr/sbin/pgbouncer ] || missing="$$missing pgbouncer"; \
	/usr/bin/python3 -c 'import psycopg' 2>/dev/null || missing="$$missing python3-psycopg"; \
	command -v chromium >/dev/null || missing="$$missing chromium"; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" != 0 ]; then \
	  echo "missing:$$missing; run: sudo apt-get update && sudo apt-get install -y$$missing" >&2; exit 1; \
	fi; \
	apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y $$missing

generate: $(SQLC) ## regenerate db/migrations (and db/tern) from sql/ (the unreleased migration; released ones stay frozen) and driver/internal/dbsqlc from queries/
	scripts/gen-migrations.sh
	$(SQLC) generate

$(SQLC):
	@mkdir -p .bin
	GOBIN=$(CURDIR)/.bin go install github.com/sqlc-dev/sqlc/cmd/sqlc@$(SQLC_VERSION)
	mv .bin/sqlc $@

verify: verify/generated verify/go verify/bench verify/catalog ## all static checks + catalog check

verify/generated: $(SQLC) ## fail if db/migrations or driver/internal/dbsqlc is not what `make generate` gives
	@scripts/gen-migrations.sh -check
	@$(SQLC) diff || { echo "driver/internal/dbsqlc is stale: run make generate" >&2; exit 1; }

verify/go: ## gofmt and go vet
	@out=$$(gofmt -l .); [ -z "$$out" ] || { echo "gofmt needed:" >&2; echo "$$out" >&2; exit 1; }
	go vet ./...

verify/bench: ## the bench module (its own go.mod, River inside) still builds and vets (test/go runs its tests)
	cd bench && go build ./... && go vet ./...

verify/catalog: ## sql/ applied fresh (psql) and every migration applied in order (goose) give the same catalog, in schema awa and in another (jobs_b)
	@$(call with_db,_verify/catalog)

test: tools ## everything (verify, pgTAP, go test) in ONE database server (and a stock one for go test)
	@$(call with_db,-k verify _test/sql _test/go)

test/sql: ## pgTAP suite: pg_prove over sql/tests
	@$(call with_db,_test/sql)

test/go: ## go test -count=1 ./... with AWA_TEST_DSN and AWA_STOCK_DSN, then the bench module's tests
	@$(call with_db,_test/go)

release: ## freeze sql/ as release VERSION (make release VERSION=X.Y.Z; docs/releases.md): writes db/releases/vX.Y.Z
	@[ -n "$(VERSION)" ] || { echo "usage: make release VERSION=X.Y.Z" >&2; exit 1; }
	scripts/gen-migrations.sh release $(VERSION)

demo: ## build cmd/awa and run `awa demo` in a fresh database awa_demo (DEMO_FLAGS="-jobs N ...")
	go build -o .bin/awa ./cmd/awa
	@$(if $(or $(AWA_TEST_DSN),$(DATABASE_URL)),$(MAKE) _demo,scripts/pg.sh run -- $(MAKE) _demo)

screenshots: ## seed a demo database (awa_ui_shots) and write the web UI's screenshots to docs/img/ (needs chromium: make tools)
	go build -o .bin/awa ./cmd/awa
	@$(if $(or $(AWA_TEST_DSN),$(DATABASE_URL)),$(MAKE) _screenshots,scripts/pg.sh run -- $(MAKE) _screenshots)

# Benchmark (bench/, its own Go module so River stays out of the main module).
# Without AWA_TEST_DSN it runs in its own private cluster (.pg/bench, port
# $AWA_PG_PORT or 54339, so it never shares a server with `make test`) with
# PostgreSQL's durable defaults instead of scripts/pg.sh's fsync = off, and
# pg_stat_statements loaded for the profile. QUICK=1: short mode (< 3 min).
BENCH := .bin/awa-bench
BENCH_PG_OPTS ?= -c fsync=on -c synchronous_commit=on -c full_page_writes=on -c shared_preload_libraries=pg_stat_statements
# A sweep compares each system at its best: BENCH_FLAGS='-scenario burndown -workers 50,100,500,2000
# -conns 20,100 -river-config both -out bench/results/burndown.json -md ""', one scenario at a time, then
# `$(BENCH) -merge a.json,b.json -out bench/results/latest.json -md docs/benchmarks.md` (docs/benchmarks.md,
# How to run the sweep).
BENCH_FLAGS ?= # extra bench flags, e.g. BENCH_FLAGS='-system awa -scenario burndown -repeat 3'
BENCH_ARGS = $(if $(filter 1 yes true,$(QUICK)),-quick) $(BENCH_FLAGS)

bench: ## awa vs River benchmark (QUICK=1: short run; BENCH_FLAGS='-workers 50,100,500,2000 -river-config both': a sweep); writes docs/benchmarks.md, bench/results/
	cd bench && go build -o ../$(BENCH) .
	@if [ -n "$${AWA_TEST_DSN:-}" ]; then $(BENCH) -dsn "$$AWA_TEST_DSN" $(BENCH_ARGS); \
	else AWA_PG_DIR=$(CURDIR)/.pg/bench AWA_PG_PORT=$${AWA_PG_PORT:-54339} AWA_PG_OPTS="$(BENCH_PG_OPTS)" \
	  scripts/pg.sh run -- $(BENCH) $(BENCH_ARGS); fi

# The targets below expect AWA_TEST_DSN; use the public ones above.
_verify/catalog:
	scripts/verify-catalog.sh "$$AWA_TEST_DSN"
	AWA_VERIFY_SCHEMA=jobs_b AWA_VERIFY_DB=awa_verify_b scripts/verify-catalog.sh "$$AWA_TEST_DSN"

# pgtap/run.sh runs `pg_prove --ext .sql -r sql/tests` (without --ext pg_prove finds no
# test and still exits 0) and fails when sql/tests holds no test at all.
_test/sql:
	pgtap/run.sh "$$AWA_TEST_DSN" $(PG_PROVE_FLAGS)

_test/go:
	$(call with_stock,go test -count=1 -timeout 25m ./...)
	cd bench && go test -count=1 -timeout 25m ./...

# The demo and the screenshots run on the server of AWA_TEST_DSN (else
# DATABASE_URL) in their own database, dropped and created again first so
# every run starts clean.
fresh_db = dsn=$${AWA_TEST_DSN:-$$DATABASE_URL}; \
	psql=$(AWA_PG_BIN)/psql; [ -x "$$psql" ] || psql=psql; \
	PGOPTIONS="-c client_min_messages=warning" "$$psql" -X -q -v ON_ERROR_STOP=1 -d "$$dsn" \
	  -c 'DROP DATABASE IF EXISTS $(1) WITH (FORCE)' -c 'CREATE DATABASE $(1)'; \
	db_dsn=$$(scripts/dsn-db.sh "$$dsn" $(1))

_demo:
	@$(call fresh_db,$(DEMO_DB)); \
	.bin/awa demo -dsn "$$db_dsn" $(DEMO_FLAGS)

_screenshots:
	@$(call fresh_db,awa_ui_shots); \
	.bin/awa migrate up -dsn "$$db_dsn" >/dev/null; \
	go run ./internal/uishots -dsn "$$db_dsn" -out docs/img
