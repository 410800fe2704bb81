#!/usr/bin/env bash
# Applies sql/ directly with psql, in the order scripts/gen-migrations.sh uses:
# sql/substrate/*.sql, sql/functions/*.sql (byte order), then
# SELECT awa.install_queue_storage_substrate(); all in one transaction.
#
#   scripts/apply-sql.sh DSN            (AWA_SQL_DIR overrides <repo>/sql)
set -euo pipefail
export LC_ALL=C

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SQL_DIR=${AWA_SQL_DIR:-$ROOT/sql}
DSN=${1:?usage: apply-sql.sh DSN}

shopt -s nullglob
args=()
for f in "$SQL_DIR"/substrate/*.sql "$SQL_DIR"/functions/*.sql; do args+=(-f "$f"); done
[ ${#args[@]} -gt 0 ] || { echo "apply-sql: no SQL files in $SQL_DIR/substrate or $SQL_DIR/functions" >&2; exit 1; }

# -X: ignore ~/.psqlrc; -1 wraps every -f/-c in one BEGIN/COMMIT;
# warnings only, so NOTICEs from IF NOT EXISTS etc. don't flood test output.
PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning" \
  psql -X -q -v ON_ERROR_STOP=1 --single-transaction -d "$DSN" \
  "${args[@]}" -c 'SELECT awa.install_queue_storage_substrate();' >/dev/null
