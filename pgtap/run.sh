#!/usr/bin/env bash
# Runs the pgTAP suite:  pgtap/run.sh DSN [extra pg_prove args]
# Rebuilds the awa_pgtap database (pgtap/setup.sh), then runs every
# <sql>/tests/**/*.sql file (tests are named <function>/<behaviour>.test.sql)
# through pg_prove. AWA_SQL_DIR overrides <repo>/sql.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SQL_DIR=${AWA_SQL_DIR:-$ROOT/sql}
DSN=${1:?usage: pgtap/run.sh DSN [pg_prove args]}
shift

command -v pg_prove >/dev/null || { echo "pgtap/run.sh: pg_prove not found (make tools)" >&2; exit 1; }
# pg_prove exits 0 when it finds no test at all: an empty suite must fail here.
n=0
[ -d "$SQL_DIR/tests" ] && n=$(find "$SQL_DIR/tests" -type f -name '*.sql' | wc -l)
[ "$n" -gt 0 ] || { echo "pgtap/run.sh: no pgTAP tests (*.sql) under $SQL_DIR/tests" >&2; exit 1; }

TEST_DSN=$("$ROOT/pgtap/setup.sh" "$DSN")
# pg_prove cannot take a URL (it splits its options on '='), so let psql
# resolve the DSN into host, port, user and database.
read -r host port user db < <(psql -X -At -d "$TEST_DSN" -c '\echo :HOST :PORT :USER :DBNAME')
echo "pg_prove: $n test files against $user@$host:$port/$db"
# --ext .sql: without it pg_prove only looks for .pg files; it matches .test.sql too.
pg_prove -h "$host" -p "$port" -U "$user" -d "$db" --ext .sql -r --failures "$@" "$SQL_DIR/tests"
