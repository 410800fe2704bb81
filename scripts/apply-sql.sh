#!/usr/bin/env bash
# Applies sql/ directly with psql, in the order scripts/gen-migrations.sh uses:
# sql/substrate/*.sql, sql/functions/*.sql (byte order), then
# SELECT awa.install_queue_storage_substrate(); all in one transaction.
#
#   scripts/apply-sql.sh DSN            (AWA_SQL_DIR overrides <repo>/sql)
#
# AWA_SCHEMA (default awa) installs into another schema: the files are
# rewritten for it by internal/tools/schemasql (internal/sqlschema), as
# db.SchemaProvider rewrites the migrations.
set -euo pipefail
export LC_ALL=C

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SQL_DIR=${AWA_SQL_DIR:-$ROOT/sql}
DSN=${1:?usage: apply-sql.sh DSN}
SCHEMA=${AWA_SCHEMA:-awa}

shopt -s nullglob
files=("$SQL_DIR"/substrate/*.sql "$SQL_DIR"/functions/*.sql)
[ ${#files[@]} -gt 0 ] || { echo "apply-sql: no SQL files in $SQL_DIR/substrate or $SQL_DIR/functions" >&2; exit 1; }
args=()
if [ "$SCHEMA" = awa ]; then
  for f in "${files[@]}"; do args+=(-f "$f"); done
else
  # One rewritten script; each file still starts on its own line.
  rewritten=$(mktemp)
  trap 'rm -f "$rewritten"' EXIT
  for f in "${files[@]}"; do cat "$f"; echo; done \
    | (cd "$ROOT" && go run ./internal/tools/schemasql -schema "$SCHEMA") >"$rewritten"
  args+=(-f "$rewritten")
fi

# -X: ignore ~/.psqlrc; -1 wraps every -f/-c in one BEGIN/COMMIT;
# warnings only, so NOTICEs from IF NOT EXISTS etc. don't flood test output.
PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning" \
  psql -X -q -v ON_ERROR_STOP=1 --single-transaction -d "$DSN" \
  "${args[@]}" -c "SELECT $SCHEMA.install_queue_storage_substrate();" >/dev/null
