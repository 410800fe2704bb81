#!/usr/bin/env bash
# Checks that sql/ applied fresh and every migration applied in order build the
# same schema:
#   scripts/verify-catalog.sh DSN
# Database awa_verify_sql gets sql/ through scripts/apply-sql.sh (psql);
# awa_verify_goose gets db/migrations through goose (internal/tools/goosemigrate),
# the released migrations and then the unreleased one, as an installed database
# is upgraded. Their `pg_dump --schema-only -n awa` must be identical, so a stale
# or incomplete upgrade step fails (docs/releases.md). AWA_ROOT checks another
# tree (its sql/ and db/migrations; default <repo>); AWA_VERIFY_DB names the two
# databases (default awa_verify). AWA_VERIFY_SCHEMA (default awa) checks an
# install in another schema: both sides rewritten for it (internal/sqlschema),
# and neither may create schema awa.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DSN=${1:?usage: verify-catalog.sh DSN}
[ -z "${AWA_ROOT:-}" ] || export AWA_SQL_DIR=$AWA_ROOT/sql
MIGRATIONS=${AWA_ROOT:-$ROOT}/db/migrations
SCHEMA=${AWA_VERIFY_SCHEMA:-awa}
A=${AWA_VERIFY_DB:-awa_verify}_sql B=${AWA_VERIFY_DB:-awa_verify}_goose
DSN_A=$("$ROOT/scripts/dsn-db.sh" "$DSN" $A)
DSN_B=$("$ROOT/scripts/dsn-db.sh" "$DSN" $B)
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

psql() { PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning" command psql -X -q -v ON_ERROR_STOP=1 "$@"; }
psql -d "$DSN" -c "DROP DATABASE IF EXISTS $A WITH (FORCE)" -c "DROP DATABASE IF EXISTS $B WITH (FORCE)" \
  -c "CREATE DATABASE $A" -c "CREATE DATABASE $B"

AWA_SCHEMA=$SCHEMA "$ROOT/scripts/apply-sql.sh" "$DSN_A"
(cd "$ROOT" && go run ./internal/tools/goosemigrate -dsn "$DSN_B" -dir "$MIGRATIONS" -schema "$SCHEMA" up)

# pg_dump >= 15.14 brackets its output with \restrict <random key>; drop those lines.
dump() { pg_dump --schema-only -n "$SCHEMA" -d "$1" | grep -v '^\\\(un\)\?restrict '; }
dump "$DSN_A" >"$OUT/sql.dump"
dump "$DSN_B" >"$OUT/goose.dump"
grep -q "^CREATE SCHEMA $SCHEMA;" "$OUT/sql.dump" || { echo "verify-catalog: no schema $SCHEMA in $A" >&2; exit 1; }
if [ "$SCHEMA" != awa ]; then
  for d in "$DSN_A" "$DSN_B"; do
    [ "$(psql -At -d "$d" -c "SELECT to_regnamespace('awa') IS NULL")" = t ] \
      || { echo "verify-catalog: FAIL: the install into $SCHEMA created schema awa" >&2; exit 1; }
  done
fi
if ! diff -u --label "$A (sql/ via psql)" --label "$B (db/migrations via goose)" "$OUT/sql.dump" "$OUT/goose.dump"; then
  echo "verify-catalog: FAIL: the migrations applied in order and sql/ give different $SCHEMA catalogs (make generate? an upgrade step in db/upgrade?)" >&2
  exit 1
fi
psql -d "$DSN" -c "DROP DATABASE $A" -c "DROP DATABASE $B"
echo "verify-catalog: OK: identical $SCHEMA catalogs ($(grep -c '^CREATE' "$OUT/sql.dump") CREATE statements)"
