#!/usr/bin/env bash
# Checks that the goose migration and sql/ build the same schema:
#   scripts/verify-catalog.sh DSN
# Database awa_verify_sql gets sql/ through scripts/apply-sql.sh (psql);
# awa_verify_goose gets db/migrations through goose (internal/tools/goosemigrate).
# Their `pg_dump --schema-only -n awa` must be identical. AWA_SQL_DIR overrides
# <repo>/sql. Catches a stale migration and anything goose runs differently.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DSN=${1:?usage: verify-catalog.sh DSN}
A=awa_verify_sql B=awa_verify_goose
DSN_A=$("$ROOT/scripts/dsn-db.sh" "$DSN" $A)
DSN_B=$("$ROOT/scripts/dsn-db.sh" "$DSN" $B)
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

psql() { PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning" command psql -X -q -v ON_ERROR_STOP=1 "$@"; }
psql -d "$DSN" -c "DROP DATABASE IF EXISTS $A WITH (FORCE)" -c "DROP DATABASE IF EXISTS $B WITH (FORCE)" \
  -c "CREATE DATABASE $A" -c "CREATE DATABASE $B"

"$ROOT/scripts/apply-sql.sh" "$DSN_A"
(cd "$ROOT" && go run ./internal/tools/goosemigrate -dsn "$DSN_B" up)

# pg_dump >= 15.14 brackets its output with \restrict <random key>; drop those lines.
dump() { pg_dump --schema-only -n awa -d "$1" | grep -v '^\\\(un\)\?restrict '; }
dump "$DSN_A" >"$OUT/sql.dump"
dump "$DSN_B" >"$OUT/goose.dump"
grep -q '^CREATE SCHEMA awa;' "$OUT/sql.dump" || { echo "verify-catalog: no schema awa in $A" >&2; exit 1; }
if ! diff -u --label "$A (sql/ via psql)" --label "$B (db/migrations via goose)" "$OUT/sql.dump" "$OUT/goose.dump"; then
  echo "verify-catalog: FAIL: goose migration and sql/ give different awa catalogs (make generate?)" >&2
  exit 1
fi
psql -d "$DSN" -c "DROP DATABASE $A" -c "DROP DATABASE $B"
echo "verify-catalog: OK: identical awa catalogs ($(grep -c '^CREATE' "$OUT/sql.dump") CREATE statements)"
